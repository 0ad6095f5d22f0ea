#!/bin/sh
# compare-oshmem.sh: GEX's OpenSHMEM (libgex-shmem) against Open MPI's OSHMEM,
# the same benchmark source (bench/shmem/shmem_bench.c) built for each.
#
#   compare-oshmem.sh [options] [-- shmem_bench args]
#
# Options:
#   --gex-prefix DIR   installed GEX (default: the repository's _prefix);
#                      built with cc $(pkg-config --cflags --libs gex-shmem),
#                      PKG_CONFIG_PATH=DIR/lib/pkgconfig, run with DIR/bin/gexrun
#   -n N               PEs (default 2)
#   --transport T      smp (default) or tcp, see below
#   --rounds K         K interleaved rounds gex, oshmem, gex, oshmem, ... (default 3)
#   --outdir DIR       where shmem-compare-<T>.json goes (default: the
#                      repository's _build/bench/results, beside make bench's JSON)
#   --oshmem-bind P    oshrun --bind-to P (default none: gexrun does not bind)
#   --oshmem-private-ctx  also run OSHMEM's "ctx private" rows on tcp (they hang
#                      there with Open MPI 4.1.4 / UCX 1.13, see below)
#   --timeout S        a run taking longer than S seconds fails (default 900)
#   --keep             keep the scratch folder (binaries, per-round JSON)
# Anything after -- goes to shmem_bench of both (e.g. --quick, --reps 5).
#
# Transports:
#   smp  GEX: GEX_CONDUIT=smp (shared memory).
#        OSHMEM: spml ucx with UCX_TLS=sm,self (UCX's shared-memory transports).
#   tcp  GEX: GEX_CONDUIT=ucx GASNET_SUPERNODE_MAXSIZE=1 UCX_TLS=tcp,self
#        UCX_NET_DEVICES=lo, so that every message crosses loopback TCP.
#        OSHMEM: spml ucx with UCX_TLS=tcp,self UCX_NET_DEVICES=lo, and
#        --mca scoll basic so that shmem_barrier_all goes through the spml (over
#        TCP) too: the default scoll mpi would run it over MPI's shared-memory
#        btl (vader); switching MPI to btl tcp instead slows every OSHMEM
#        operation ~10x (its TCP progress competes for the cores).
#
# The oshrun options, found by experiment on a 2-core VM as root (Open MPI
# 4.1.4, UCX 1.13.1, Debian 12):
#   --allow-run-as-root   oshrun refuses to run as root without it
#   --oversubscribe       lets -n exceed the cores (the contexts rows add threads)
#   --mca spml ucx        the only spml built (said explicitly)
#   --mca osc ^rdma       without it every PE dies with SIGSEGV in shmem_finalize:
#                         osc rdma frees memory at MPI finalize and the release
#                         hook (opal_mem_hooks_release_hook) calls into an
#                         unloaded component.  (--mca opal_common_ucx_opal_mem_hooks 0
#                         works too.)
#   --bind-to none        gexrun does not bind either
#   not --mca pml ucx     "PML ucx cannot be selected" (no InfiniBand device);
#                         MPI's own traffic (startup) uses ob1 as by default.
#   -x VAR                passes UCX_TLS, UCX_NET_DEVICES to the PEs
# Known OSHMEM problem: on tcp, after a thread of PE 0 has used a context from
# shmem_ctx_create(SHMEM_CTX_PRIVATE), the next shmem_barrier_all hangs in
# mca_spml_ucx_quiet (T=1 already; with or without shmem_ctx_destroy), so on
# tcp OSHMEM runs with --skip "ctx private" unless --oshmem-private-ctx.
#
# Output: per metric the median over the rounds of each round's median (the
# min and max over all rounds are in the JSON), GEX/OSHMEM, and which is
# better ("~" when they are within 3%).  Exit 0 whatever the numbers; 1 when
# a build or a run fails, 2 on a usage error.
set -eu

usage() { sed -n '2,/^set -eu/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
die() { echo "compare-oshmem.sh: $*" >&2; exit "${2:-1}"; }

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
src=$here/shmem_bench.c

gex_prefix=$repo/_prefix
pes=2
transport=smp
rounds=3
outdir=$repo/_build/bench/results
bind=none
private_ctx=0
run_timeout=900
keep=0
while [ $# -gt 0 ]; do
    case $1 in
    --gex-prefix) [ $# -ge 2 ] || die "$1 needs a value" 2; gex_prefix=$2; shift 2 ;;
    -n|--pes)     [ $# -ge 2 ] || die "$1 needs a value" 2; pes=$2; shift 2 ;;
    --transport)  [ $# -ge 2 ] || die "$1 needs a value" 2; transport=$2; shift 2 ;;
    --rounds)     [ $# -ge 2 ] || die "$1 needs a value" 2; rounds=$2; shift 2 ;;
    --outdir)     [ $# -ge 2 ] || die "$1 needs a value" 2; outdir=$2; shift 2 ;;
    --oshmem-bind) [ $# -ge 2 ] || die "$1 needs a value" 2; bind=$2; shift 2 ;;
    --oshmem-private-ctx) private_ctx=1; shift ;;
    --timeout)    [ $# -ge 2 ] || die "$1 needs a value" 2; run_timeout=$2; shift 2 ;;
    --keep)       keep=1; shift ;;
    -h|--help)    usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (see --help)" 2 ;;
    esac
done
case $pes in ''|*[!0-9]*) die "-n needs a number" 2 ;; esac
case $rounds in ''|*[!0-9]*|0) die "--rounds needs a positive number" 2 ;; esac
case $run_timeout in ''|*[!0-9]*) die "--timeout needs a number of seconds" 2 ;; esac
[ "$pes" -ge 2 ] || die "-n must be at least 2" 2
[ -f "$src" ] || die "no $src"
command -v python3 >/dev/null 2>&1 || die "python3 is needed for the table and the JSON"
command -v oshcc >/dev/null 2>&1 || die "oshcc not found (Open MPI's OSHMEM)"
command -v oshrun >/dev/null 2>&1 || die "oshrun not found (Open MPI's OSHMEM)"
command -v pkg-config >/dev/null 2>&1 || die "pkg-config not found"
[ -d "$gex_prefix" ] || die "no GEX prefix $gex_prefix (give --gex-prefix)"
gex_prefix=$(cd "$gex_prefix" && pwd)
[ -x "$gex_prefix/bin/gexrun" ] || die "no $gex_prefix/bin/gexrun"
bench_args=$*

# ---- the two environments ----
oshrun_opts="--allow-run-as-root --oversubscribe --bind-to $bind --mca spml ucx --mca osc ^rdma"
oshmem_skip=
case $transport in
smp)
    gex_env="GEX_CONDUIT=smp"
    oshmem_env="UCX_TLS=sm,self"
    ;;
tcp)
    gex_env="GEX_CONDUIT=ucx GASNET_SUPERNODE_MAXSIZE=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo"
    oshmem_env="UCX_TLS=tcp,self UCX_NET_DEVICES=lo"
    oshrun_opts="$oshrun_opts --mca scoll basic"
    [ "$private_ctx" = 1 ] || oshmem_skip="ctx private"
    ;;
*) die "--transport is smp or tcp" 2 ;;
esac
for v in $oshmem_env; do oshrun_opts="$oshrun_opts -x ${v%%=*}"; done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/shmem-compare.XXXXXX")
if [ "$keep" = 1 ]; then
    echo "scratch folder: $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$outdir"
out_json=$outdir/shmem-compare-$transport.json

# ---- builds ----
pcpath=$gex_prefix/lib/pkgconfig
[ -d "$pcpath" ] || die "no $pcpath"
# --define-variable=prefix relocates the .pc file (a moved or DESTDIR tree).
gex_flags=$(PKG_CONFIG_PATH=$pcpath pkg-config --define-variable=prefix="$gex_prefix" \
    --cflags --libs gex-shmem) || die "pkg-config finds no gex-shmem under $pcpath"
echo "== build (gex):    ${CC:-cc} -std=c11 -O2 -pthread shmem_bench.c $gex_flags"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -O2 -pthread -o "$tmp/shmem_bench_gex" "$src" $gex_flags \
    -Wl,-rpath,"$gex_prefix/lib" || die "building shmem_bench against GEX failed"
echo "== build (oshmem): oshcc -std=c11 -O2 -pthread shmem_bench.c"
oshcc -std=c11 -O2 -pthread -o "$tmp/shmem_bench_oshmem" "$src" ||
    die "building shmem_bench with oshcc failed"

# ---- interleaved runs ----
run_gex() {  # round
    json=$tmp/gex-$1.json
    echo "== round $1 gex: $gex_env $gex_prefix/bin/gexrun -n $pes shmem_bench --impl gex $bench_args"
    # shellcheck disable=SC2086
    env $gex_env LD_LIBRARY_PATH="$gex_prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        timeout "$run_timeout" "$gex_prefix/bin/gexrun" -n "$pes" "$tmp/shmem_bench_gex" \
        --impl gex --json "$json" $bench_args ||
        die "GEX run (round $1) failed"
}
run_oshmem() {  # round
    json=$tmp/oshmem-$1.json
    echo "== round $1 oshmem: $oshmem_env oshrun $oshrun_opts -n $pes shmem_bench --impl oshmem" \
        "${oshmem_skip:+--skip \"$oshmem_skip\" }$bench_args"
    # shellcheck disable=SC2086
    if [ -n "$oshmem_skip" ]; then
        env $oshmem_env timeout "$run_timeout" oshrun $oshrun_opts -n "$pes" \
            "$tmp/shmem_bench_oshmem" --impl oshmem --json "$json" --skip "$oshmem_skip" \
            $bench_args || die "OSHMEM run (round $1) failed"
    else
        env $oshmem_env timeout "$run_timeout" oshrun $oshrun_opts -n "$pes" \
            "$tmp/shmem_bench_oshmem" --impl oshmem --json "$json" $bench_args ||
            die "OSHMEM run (round $1) failed"
    fi
}
r=1
while [ "$r" -le "$rounds" ]; do
    run_gex "$r"
    run_oshmem "$r"
    r=$((r + 1))
done

# ---- table and JSON ----
echo
python3 - "$tmp" "$rounds" "$transport" "$pes" "$out_json" "$gex_prefix" "$gex_env" \
    "$oshmem_env" "$oshrun_opts" "$bench_args" <<'EOF'
import json, statistics, sys
tmp, rounds, transport, pes, out, prefix, gex_env, osh_env, osh_opts, bargs = sys.argv[1:]
rounds = int(rounds)
runs = {impl: [json.load(open("%s/%s-%d.json" % (tmp, impl, r))) for r in range(1, rounds + 1)]
        for impl in ("gex", "oshmem")}
order, info = [], {}
for impl in ("gex", "oshmem"):
    for run in runs[impl]:
        for m in run["metrics"]:
            if m["name"] not in info:
                order.append(m["name"])
                info[m["name"]] = {"unit": m["unit"], "better": m["better"]}
def summary(impl, name):
    ms = [m for run in runs[impl] for m in run["metrics"] if m["name"] == name]
    if not ms:
        return None
    return {"median": statistics.median(m["median"] for m in ms),
            "min": min(m["min"] for m in ms), "max": max(m["max"] for m in ms),
            "round_medians": [m["median"] for m in ms]}
rows = []
print("transport=%s pes=%s rounds=%d  (medians over rounds of per-round medians)" % (transport, pes, rounds))
print("%-18s %-13s %12s %12s %9s  %s" % ("metric", "unit", "GEX", "OSHMEM", "GEX/OSH", "better"))
for name in order:
    g, o = summary("gex", name), summary("oshmem", name)
    unit, better = info[name]["unit"], info[name]["better"]
    ratio = winner = None
    if g and o and o["median"] > 0:
        ratio = g["median"] / o["median"]
        if abs(ratio - 1) < 0.03:
            winner = "~"
        elif (ratio < 1) == (better == "lower"):
            winner = "GEX"
        else:
            winner = "OSHMEM"
    fmt = lambda s: "%12.3f" % s["median"] if s else "%12s" % "-"
    print("%-18s %-13s %s %s %9s  %s" % (name, unit, fmt(g), fmt(o),
          "%.3f" % ratio if ratio is not None else "-", winner or "-"))
    rows.append({"name": name, "unit": unit, "better": better, "gex": g, "oshmem": o,
                 "ratio_gex_over_oshmem": ratio, "winner": winner})
notes = []
for impl in ("gex", "oshmem"):
    for n in runs[impl][0].get("notes", []):
        notes.append("%s: %s" % (impl, n))
for n in notes:
    print("note: " + n)
print("(lower is better for us rows, higher for rates; '~' within 3%)")
doc = {"transport": transport, "pes": int(pes), "rounds": rounds,
       "gex": {"prefix": prefix, "env": gex_env, "vendor": runs["gex"][0].get("vendor"),
               "spec": runs["gex"][0].get("spec")},
       "oshmem": {"env": osh_env, "oshrun_options": osh_opts,
                  "vendor": runs["oshmem"][0].get("vendor"), "spec": runs["oshmem"][0].get("spec")},
       "bench_args": bargs, "notes": notes, "metrics": rows}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
print("wrote " + out)
EOF
