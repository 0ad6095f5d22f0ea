#!/bin/sh
# compare.sh: runs the AM benchmark (bench/am/am_bench) in two configurations,
# (a) and (b), and prints their medians side by side with the ratio b/a.
#
#   compare.sh [--builddir DIR] [options] [-- am_bench args]
#       DIR's own am_bench and gexrun (default: the current folder);
#       (a) as configured, (b) with GEX_FORCE_REFERENCE=am.
#   compare.sh --prefix-a DIR --prefix-b DIR [options] [-- am_bench args]
#       two installed GEX trees: am_bench.c is compiled against each with
#       pkg-config (relocated to DIR) and run with DIR/bin/gexrun.
#       The environment (GEX_FORCE_REFERENCE included) is the same for both.
#   compare.sh --json-a FILE --json-b FILE
#       only prints the table of two existing result files.
#
# Options: --ranks N (default 2), --outdir DIR (default <builddir or .>/bench/results),
#          --prog NAME (builddir mode: bench/am/NAME, default am_bench; am_bench_seq
#          is the GASNET_SEQ build), --srcdir SRC (GEX sources, default: this
#          script's parent folder).
# Results: OUTDIR/compare-a.json and OUTDIR/compare-b.json.  Rows are times per
# round trip, or per message for flood rows; b/a > 1 means (b) is slower.
# The table uses python3 when available, else awk (which relies on am_bench
# writing one test per line).
set -eu

usage() { sed -n '2,23s/^# \{0,1\}//p' "$0"; }
die() { echo "compare.sh: $*" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(dirname "$here")
builddir=
prefix_a=
prefix_b=
json_a=
json_b=
outdir=
ranks=2
prog=am_bench
while [ $# -gt 0 ]; do
    case $1 in
    --builddir) [ $# -ge 2 ] || die "$1 needs a value"; builddir=$2; shift 2 ;;
    --prefix-a) [ $# -ge 2 ] || die "$1 needs a value"; prefix_a=$2; shift 2 ;;
    --prefix-b) [ $# -ge 2 ] || die "$1 needs a value"; prefix_b=$2; shift 2 ;;
    --json-a)   [ $# -ge 2 ] || die "$1 needs a value"; json_a=$2; shift 2 ;;
    --json-b)   [ $# -ge 2 ] || die "$1 needs a value"; json_b=$2; shift 2 ;;
    --outdir)   [ $# -ge 2 ] || die "$1 needs a value"; outdir=$2; shift 2 ;;
    --ranks)    [ $# -ge 2 ] || die "$1 needs a value"; ranks=$2; shift 2 ;;
    --prog)     [ $# -ge 2 ] || die "$1 needs a value"; prog=$2; shift 2 ;;
    --srcdir)   [ $# -ge 2 ] || die "$1 needs a value"; srcdir=$2; shift 2 ;;
    -h|--help)  usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done
# Whatever is left is passed to am_bench.

# ---- the side-by-side table ----
print_table() {
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$1" "$2" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def desc(tag, r):
    ref = r.get("force_reference") or "-"
    print("%s: %s  conduit=%s ranks=%s %s GEX_FORCE_REFERENCE=%s label=%s commit=%s"
          % (tag, r.get("_path", ""), r.get("conduit"), r.get("ranks"), r.get("thread_mode"),
             ref, r.get("label") or "-", r.get("git_commit") or "-"))
    print("   layers: %s" % r.get("layers"))
    if r.get("floor_start_us") is not None:
        print("   hardware floor (bare cache-line round trip): %.3f us at start, %.3f us at end"
              % (r["floor_start_us"], r.get("floor_end_us") or -1))
for tag, r, p in (("a", a, sys.argv[1]), ("b", b, sys.argv[2])):
    r["_path"] = p
    desc(tag, r)
bt = {(t["name"], t["size"]): t for t in b["tests"]}
print("%-14s %9s %12s %12s %7s" % ("test", "bytes", "a_median_us", "b_median_us", "b/a"))
seen = set()
for t in a["tests"]:
    k = (t["name"], t["size"]); seen.add(k)
    u = bt.get(k)
    ma = t["median_us"]
    if u is None:
        print("%-14s %9d %12.4f %12s %7s" % (k[0], k[1], ma, "-", "-"))
        continue
    mb = u["median_us"]
    ratio = "%7.3f" % (mb / ma) if ma > 0 else "      -"
    print("%-14s %9d %12.4f %12.4f %s" % (k[0], k[1], ma, mb, ratio))
for t in b["tests"]:
    k = (t["name"], t["size"])
    if k not in seen:
        print("%-14s %9d %12s %12.4f %7s" % (k[0], k[1], "-", t["median_us"], "-"))
print("(flood rows: us per message; b/a > 1: b is slower)")
EOF
    else
        awk '
        function field(line, key,   re, s) {
            re = "\"" key "\": (\"[^\"]*\"|[-0-9.eE+]+|null)"
            if (!match(line, re)) return ""
            s = substr(line, RSTART + length(key) + 4, RLENGTH - length(key) - 4)
            gsub(/"/, "", s)
            return s
        }
        FNR == 1 { file++ }
        /"name": / && /"median_us": / {
            k = field($0, "name") " " field($0, "size")
            if (file == 1) { order[++n] = k; ma[k] = field($0, "median_us") }
            else mb[k] = field($0, "median_us")
        }
        /"layers": / && !/"name": / { lay[file] = field($0, "layers") }
        /"force_reference": / { fr[file] = field($0, "force_reference") }
        /"floor_start_us": / { fl[file] = field($0, "floor_start_us") }
        END {
            printf "a: %s  GEX_FORCE_REFERENCE=%s floor_start_us=%s\n   layers: %s\n", ARGV[1], fr[1], fl[1], lay[1]
            printf "b: %s  GEX_FORCE_REFERENCE=%s floor_start_us=%s\n   layers: %s\n", ARGV[2], fr[2], fl[2], lay[2]
            printf "%-14s %9s %12s %12s %7s\n", "test", "bytes", "a_median_us", "b_median_us", "b/a"
            for (i = 1; i <= n; i++) {
                k = order[i]; split(k, p, " ")
                if (k in mb && ma[k] > 0)
                    printf "%-14s %9s %12.4f %12.4f %7.3f\n", p[1], p[2], ma[k], mb[k], mb[k] / ma[k]
                else
                    printf "%-14s %9s %12.4f %12s %7s\n", p[1], p[2], ma[k], "-", "-"
            }
            print "(flood rows: us per message; b/a > 1: b is slower)"
        }' "$1" "$2"
    fi
}

if [ -n "$json_a$json_b" ]; then
    [ -f "$json_a" ] && [ -f "$json_b" ] || die "--json-a and --json-b need two existing files"
    print_table "$json_a" "$json_b"
    exit 0
fi

# ---- building am_bench against an installed GEX ----
# pkg-config's --define-variable=prefix relocates the .pc files, so a tree
# installed with DESTDIR or moved elsewhere works too.
build_against() {  # prefix output
    pcpath=
    for d in "$1/lib/pkgconfig" "$1/lib64/pkgconfig" "$1/share/pkgconfig"; do
        [ -d "$d" ] && pcpath=$pcpath${pcpath:+:}$d
    done
    [ -n "$pcpath" ] || die "no pkgconfig folder under $1"
    flags=$(PKG_CONFIG_PATH=$pcpath pkg-config --define-variable=prefix="$1" --cflags --libs gex) ||
        die "pkg-config cannot find gex under $1"
    libdir=$(PKG_CONFIG_PATH=$pcpath pkg-config --define-variable=prefix="$1" --variable=libdir gex-core)
    # shellcheck disable=SC2086
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -pthread -o "$2" "$srcdir/bench/am/am_bench.c" \
        $flags -Wl,-rpath,"$libdir" || die "cannot build am_bench against $1"
}

run_bench() {  # tag gexrun program json [env assignment]
    tag=$1 gexrun=$2 bin=$3 json=$4
    shift 4
    echo "== ($tag) $*${*:+ }$gexrun -n $ranks $bin --json $json $bench_args"
    # shellcheck disable=SC2086
    env "$@" "$gexrun" -n "$ranks" "$bin" --json "$json" $bench_args ||
        die "run ($tag) failed"
}

bench_args=$*
if [ -n "$prefix_a$prefix_b" ]; then
    [ -n "$prefix_a" ] && [ -n "$prefix_b" ] || die "give both --prefix-a and --prefix-b"
    command -v pkg-config >/dev/null 2>&1 || die "pkg-config is needed for --prefix-a/-b"
    prefix_a=$(cd "$prefix_a" && pwd)
    prefix_b=$(cd "$prefix_b" && pwd)
    outdir=${outdir:-bench/results}
    mkdir -p "$outdir"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/gex-compare.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    build_against "$prefix_a" "$tmp/am_bench_a"
    build_against "$prefix_b" "$tmp/am_bench_b"
    run_bench a "$prefix_a/bin/gexrun" "$tmp/am_bench_a" "$outdir/compare-a.json" \
        GEX_BENCH_LABEL="${GEX_BENCH_LABEL:-$prefix_a}"
    run_bench b "$prefix_b/bin/gexrun" "$tmp/am_bench_b" "$outdir/compare-b.json" \
        GEX_BENCH_LABEL="${GEX_BENCH_LABEL:-$prefix_b}"
else
    builddir=${builddir:-.}
    builddir=$(cd "$builddir" && pwd)
    [ -x "$builddir/gexrun" ] && [ -x "$builddir/bench/am/$prog" ] ||
        die "$builddir has no gexrun or bench/am/$prog (run make there, or give --builddir)"
    outdir=${outdir:-$builddir/bench/results}
    mkdir -p "$outdir"
    # (a) runs in the caller's environment as it is
    run_bench a "$builddir/gexrun" "$builddir/bench/am/$prog" "$outdir/compare-a.json"
    run_bench b "$builddir/gexrun" "$builddir/bench/am/$prog" "$outdir/compare-b.json" \
        GEX_FORCE_REFERENCE=am
fi
echo
print_table "$outdir/compare-a.json" "$outdir/compare-b.json"
