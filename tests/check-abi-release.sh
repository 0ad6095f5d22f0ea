#!/bin/sh
# check-abi-release.sh: holds the freshly built libraries to the ABI of the
# last release, recorded in abi/ (docs/releasing.md, docs/upgrading.md).
#
#   check-abi-release.sh          compare (make check)
#   check-abi-release.sh record   write abi/ from this build (make abi-release)
#
# For each layer library, each conduit plug-in and the types of the public
# headers, abidiff (Debian's abigail-tools) compares the stored abidw XML of
# the release with the build, and the versions must say what changed:
#   - no ABI change: the layer's version-info keeps the release's current
#     and age (only revision may move);
#   - a compatible change (added functions, variables or types): current and
#     age one more than the release's (m4/gex_versions.m4), and every symbol
#     added since the release in a symbol-version node that the release did
#     not have (libgex-<layer>.map);
#   - an incompatible change: a new SONAME (age back to 0, current - age
#     above the release's).
#   Conduit plug-ins: a compatible change needs a higher GEX_CONDUIT_ABI_MINOR
#   and an incompatible one a higher GEX_CONDUIT_ABI_MAJOR (gex/conduit.h).
#   Public header types (structs, enums and typedefs, also those only inline
#   functions and macros use) and the values of the integer constants the
#   headers define: an incompatible change needs a new SONAME of
#   libgex-core, i.e. a new major API.
# Any other case fails with abidiff's report and the version to set.
set -u
srcdir=${srcdir:-.}
top=${TOP_BUILDDIR:-.}
mode=${1:-check}
abi=$srcdir/abi
layers="core shm am rma vis atomics coll mk"
conduits="smp ofi ucx"
headers_lib=$top/tests/abi/.libs/libgex-abi-headers.so

if ! command -v abidiff >/dev/null 2>&1 || ! command -v abidw >/dev/null 2>&1; then
    echo "SKIP: abidiff/abidw not found (Debian package abigail-tools)"
    exit 77
fi
if grep -q 'GEX_DEBUG=1' "$top/Makefile" 2>/dev/null; then
    echo "SKIP: a debug build (--enable-debug); abi/ describes the default build"
    exit 77
fi

# version-info of a layer now: "current:revision:age"
vi_now() {
    u=$(echo "$1" | tr a-z A-Z)
    sed -n "s/^m4_define(\[GEX_VI_$u\], *\[\([0-9:]*\)\]).*/\1/p" "$srcdir/m4/gex_versions.m4"
}
release_value() { sed -n "s/^$1=//p" "$abi/release" 2>/dev/null; }
conduit_abi_now() {
    maj=$(sed -n 's/^#define GEX_CONDUIT_ABI_MAJOR \([0-9]*\).*/\1/p' "$srcdir/include/gex/conduit.h")
    min=$(sed -n 's/^#define GEX_CONDUIT_ABI_MINOR \([0-9]*\).*/\1/p' "$srcdir/include/gex/conduit.h")
    echo "$maj.$min"
}
dump() {   # dump XML-OUT FILE [extra abidw options]
    out=$1 lib=$2
    shift 2
    abidw --no-corpus-path --short-locs "$@" "$lib" >"$out"
}

# The integer constants the public headers define (GEX_FLAG_*, GEX_OP_*,
# GASNET_ERR_*, ...) as "NAME VALUE" lines: clients compile their values in,
# so a changed value is an ABI break no library symbol shows.  Each macro
# name matching GEX_/GASNET_/GASNETT_ that the preprocessor can evaluate in
# #if is expanded and its value computed; version numbers, which change by
# design, are left out.
public_macros() {
    hdrs='#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_mk.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <gasnet_tools.h>'
    cc_=${CC:-cc}
    names=$(printf '%s\n' "$hdrs" | $cc_ -E -dM -I"$srcdir/include" -I"$top" -x c - |
            sed -n 's/^#define \(GEX_[A-Z0-9_]*\|GASNETT*_[A-Z0-9_]*\) .*/\1/p' |
            grep -v VERSION | LC_ALL=C sort -u)
    {
        printf '%s\n' "$hdrs"
        for n in $names; do
            printf '#if ((%s) || 1)\nGEXMACRO "%s" (%s)\n#endif\n' "$n" "$n" "$n"
        done
    } | $cc_ -E -P -I"$srcdir/include" -I"$top" -x c - 2>/dev/null | sed -n 's/^GEXMACRO //p' |
    python3 -c '
import re, sys
for line in sys.stdin:
    name, _, expr = line.strip().partition(" ")
    e = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)
    e = re.sub(r"\(\s*(unsigned|signed|int|long|short|char|\s)+\)", "", e)
    e = e.replace("&&", " and ").replace("||", " or ").replace("!=", "<>").replace("!", " not ")
    e = e.replace("<>", "!=")
    try:
        v = eval(e, {"__builtins__": {}}, {})
    except Exception:
        continue
    if isinstance(v, (bool, int)):
        print(name.strip(chr(34)), int(v))
'
}

if [ "$mode" = record ]; then
    commit=${GEX_RELEASE_COMMIT:-$(git -C "$srcdir" rev-parse HEAD 2>/dev/null || echo unknown)}
    release=$(sed -n 's/^m4_define(\[GEX_RELEASE_VERSION\], *\[\([^]]*\)\]).*/\1/p' \
              "$srcdir/m4/gex_versions.m4")
    mkdir -p "$abi"
    {
        echo "# The last release of GEX (docs/releasing.md); written by make abi-release."
        echo "release=$release"
        echo "commit=$commit"
        for l in $layers; do echo "vi_$l=$(vi_now $l)"; done
        echo "conduit_abi=$(conduit_abi_now)"
    } >"$abi/release"
    for l in $layers; do dump "$abi/libgex-$l.xml" "$top/.libs/libgex-$l.so" || exit 1; done
    for c in $conduits; do
        if [ -f "$top/.libs/libgex-conduit-$c.so" ]; then
            dump "$abi/libgex-conduit-$c.xml" "$top/.libs/libgex-conduit-$c.so" || exit 1
        else
            echo "check-abi-release: conduit $c not built here; its ABI is not recorded" >&2
            exit 1
        fi
    done
    dump "$abi/public-headers.xml" "$headers_lib" --load-all-types || exit 1
    public_macros >"$abi/public-macros.txt"
    [ -s "$abi/public-macros.txt" ] || { echo "check-abi-release: no public macros read" >&2; exit 1; }
    echo "recorded release $release (commit $commit) in $abi"
    exit 0
fi

if [ ! -f "$abi/release" ]; then
    echo "no release recorded in abi/ yet: nothing to compare (the first release records one)"
    exit 0
fi
pass=0 fail=0
report=$(mktemp)
trap 'rm -f "$report"' EXIT
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
    sed 's/^/    /' "$report"
}
good() { pass=$((pass + 1)); }

# abidiff's verdict: 0 same, 1 compatible (added functions, variables,
# enumerators, members appended to a struct), 2 incompatible (anything
# removed, moved or retyped), 3 abidiff failed.  abidiff itself flags only
# removed symbols as incompatible; a member whose offset or type changed
# behind a pointer it reports as a mere change, so its report is read too.
# $2 = strict: a struct that grew is incompatible too (types clients
# allocate: the public headers).
verdict() {   # verdict RC [strict] (report in $report)
    if [ $(($1 & 3)) -ne 0 ]; then echo 3; return; fi
    if [ $(($1 & 8)) -ne 0 ]; then echo 2; return; fi
    if [ $(($1 & 4)) -eq 0 ]; then echo 0; return; fi
    pat="offset changed|deletion|type of '|return type changed|value changed from|name changed from|parameter [0-9]+ of type '[^']*' changed"
    [ "${2:-}" = strict ] && pat="$pat|type size changed"
    if grep -Eq "$pat" "$report"; then echo 2; else echo 1; fi
}

# The symbols a library exports now that the release did not, with version nodes.
added_symbols_in_old_nodes() {   # added_symbols_in_old_nodes XML LIB
    python3 - "$1" "$2" <<'EOF'
import re, subprocess, sys
xml = open(sys.argv[1]).read()
old = set()
for el in re.findall(r"<elf-symbol [^>]*>", xml):
    name = re.search(r"name='([^']+)'", el)
    ver = re.search(r"version='([^']*)'", el)
    old.add((name.group(1), ver.group(1) if ver else ""))
old_nodes = {v for _, v in old if v}
old_names = {n for n, _ in old}
out = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions", sys.argv[2]],
                     capture_output=True, text=True).stdout
for line in out.splitlines():
    parts = line.split()
    if len(parts) < 3: continue
    sym = parts[2]
    name, _, ver = sym.partition("@")
    ver = ver.lstrip("@")
    if name in old_names or not ver or name == ver: continue
    if ver in old_nodes:
        print(f"{name}@{ver}")
EOF
}

for l in $layers; do
    lib=$top/.libs/libgex-$l.so
    xml=$abi/libgex-$l.xml
    old=$(release_value "vi_$l") now=$(vi_now $l)
    abidiff --no-show-locs "$xml" "$lib" >"$report" 2>&1
    rc=$?
    IFS=: read oc orv oa <<EOF
$old
EOF
    IFS=: read nc nrv na <<EOF
$now
EOF
    v=$(verdict $rc)
    if [ "$v" = 3 ]; then
        bad "libgex-$l: abidiff could not compare $xml with $lib (status $rc)"
    elif [ "$v" = 2 ]; then
        if [ $((nc - na)) -gt $((oc - oa)) ] && [ "$na" -eq 0 ]; then good
        else bad "libgex-$l: incompatible ABI change since release $(release_value release)" \
                 "with the same SONAME (version-info $now): set GEX_VI_$(echo $l | tr a-z A-Z)" \
                 "to $((oc + 1)):0:0 in m4/gex_versions.m4, or undo the change. abidiff says:"
        fi
    elif [ "$v" = 1 ]; then
        stale=$(added_symbols_in_old_nodes "$xml" "$lib")
        if [ -n "$stale" ]; then
            echo "$stale" >>"$report"
            bad "libgex-$l: symbols added since release $(release_value release) in a version" \
                "node the release already had; give them a new node in libgex-$l/libgex-$l.map:"
        elif [ "$nc" -eq $((oc + 1)) ] && [ "$na" -eq $((oa + 1)) ]; then good
        else bad "libgex-$l: compatible ABI change (additions) since release" \
                 "$(release_value release) needs version-info $((oc + 1)):0:$((oa + 1))," \
                 "not $now (m4/gex_versions.m4). abidiff says:"
        fi
    else
        if [ "$nc" -eq "$oc" ] && [ "$na" -eq "$oa" ]; then good
        else bad "libgex-$l: version-info $now claims an interface change since release" \
                 "$(release_value release) ($old) that abidiff does not see"
        fi
    fi
done

cabi_old=$(release_value conduit_abi) cabi_now=$(conduit_abi_now)
for c in $conduits; do
    lib=$top/.libs/libgex-conduit-$c.so
    xml=$abi/libgex-conduit-$c.xml
    [ -f "$lib" ] || { echo "conduit $c: not built here, not compared"; continue; }
    # struct gex_conduit is conduit-private (abi/conduit-private.suppr)
    abidiff --no-show-locs --suppressions "$abi/conduit-private.suppr" "$xml" "$lib" >"$report" 2>&1
    rc=$?
    omaj=${cabi_old%.*} omin=${cabi_old#*.} nmaj=${cabi_now%.*} nmin=${cabi_now#*.}
    v=$(verdict $rc)
    if [ "$v" = 3 ]; then bad "conduit $c: abidiff could not compare (status $rc)"
    elif [ "$v" = 2 ] && [ "$nmaj" -le "$omaj" ]; then
        bad "conduit $c: incompatible conduit ABI change since release $(release_value release):" \
            "raise GEX_CONDUIT_ABI_MAJOR (gex/conduit.h), or keep the structs append-only." \
            "abidiff says:"
    elif [ "$v" = 1 ] && [ "$nmaj" -eq "$omaj" ] && [ "$nmin" -le "$omin" ]; then
        bad "conduit $c: the conduit ABI grew since release $(release_value release):" \
            "raise GEX_CONDUIT_ABI_MINOR (gex/conduit.h) above $omin. abidiff says:"
    else good
    fi
done

abidw --no-corpus-path --short-locs --load-all-types "$headers_lib" >"$report.now" 2>&1
abidiff --no-show-locs --non-reachable-types "$abi/public-headers.xml" "$report.now" >"$report" 2>&1
rc=$?
rm -f "$report.now"
core_old=$(release_value vi_core) core_now=$(vi_now core)
v=$(verdict $rc strict)
if [ "$v" = 3 ]; then bad "public headers: abidiff could not compare (status $rc)"
elif [ "$v" = 2 ] &&
     [ $(( ${core_now%%:*} - ${core_now##*:} )) -le $(( ${core_old%%:*} - ${core_old##*:} )) ]; then
    bad "public headers: incompatible change to a public type since release" \
        "$(release_value release): clients compiled against the release's headers (their" \
        "inline functions and macros included) would break. abidiff says:"
else good
fi

if [ -f "$abi/public-macros.txt" ]; then
    public_macros >"$report.now"
    # changed or removed: "NAME release-value -> now" (added ones are fine)
    awk 'NR == FNR { now[$1] = $2; next }
         !($1 in now) { print $1 " " $2 " -> (removed)"; next }
         now[$1] != $2 { print $1 " " $2 " -> " now[$1] }' "$report.now" "$abi/public-macros.txt" >"$report"
    n_now=$(wc -l <"$report.now")
    rm -f "$report.now"
    if [ "$n_now" -eq 0 ]; then bad "public macros: none could be read from the headers"
    elif [ -s "$report" ] &&
         [ $(( ${core_now%%:*} - ${core_now##*:} )) -le $(( ${core_old%%:*} - ${core_old##*:} )) ]; then
        bad "public macros: constants clients compile in changed or disappeared since release" \
            "$(release_value release) (name, release value -> now):"
    else good
    fi
fi
echo "$pass passed, $fail failed (against release $(release_value release))"
[ "$fail" -eq 0 ]
