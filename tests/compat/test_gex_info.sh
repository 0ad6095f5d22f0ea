#!/bin/sh
# test_gex_info.sh: gex-info describes every layer (docs/architecture.md:
# "gexi_describe_layers() reports each slot's source for gex-info").  With
# --as-needed links (Debian's default) gex-info used to drop every layer it
# took no symbol from, and printed only "am:".  On the ofi conduit the
# atomics layer also lists the (type, op) pairs the conduit refuses, which
# must include floating-point MIN/MAX (libfabric keeps op0 on a +0.0/-0.0
# tie, the spec stores op1).  Prints "N passed, M failed".
set -u
info=$TOP_BUILDDIR/gex-info
passed=0 failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# expect DESC REGEX ENV...: gex-info under ENV exits 0 and prints REGEX (grep -E)
expect() {
    desc=$1 want=$2
    shift 2
    if env "$@" "$info" >"$out" 2>&1 </dev/null && grep -Eq "$want" "$out"; then
        passed=$((passed + 1)); echo "ok   $desc"
    else
        failed=$((failed + 1)); echo "FAIL $desc: output should match: $want"
        sed 's/^/    /' "$out"
    fi
}
for layer in am rma vis atomics coll mk; do
    expect "smp: layer $layer described" "^layers .*(^|[ ;])$layer: " GEX_CONDUIT=smp
done
expect "smp: atomics other-teams=reference" "atomics: [^;]*other-teams=reference" GEX_CONDUIT=smp
if [ -e "$TOP_BUILDDIR/.libs/libgex-conduit-ofi.so" ]; then
    for prov in "tcp;ofi_rxm" sockets; do
        expect "ofi $prov: FP MIN/MAX refused" \
            "atomics: [^;]*conduit-refuses=[^ ;]*FLT:MIN,FLT:FMIN,FLT:MAX,FLT:FMAX,DBL:MIN,DBL:FMIN,DBL:MAX,DBL:FMAX" \
            GEX_CONDUIT=ofi "FI_PROVIDER=$prov"
        # integer MIN/MAX agree with libfabric: not refused on these providers
        if grep -Eq "conduit-refuses=[^ ;]*(I32|U32|I64|U64):(F?MIN|F?MAX)" "$out"; then
            failed=$((failed + 1)); echo "FAIL ofi $prov: integer MIN/MAX refused"
        else
            passed=$((passed + 1)); echo "ok   ofi $prov: integer MIN/MAX accepted"
        fi
    done
    expect "ofi forced reference" "atomics: domains=reference" GEX_CONDUIT=ofi \
        "FI_PROVIDER=tcp;ofi_rxm" GEX_FORCE_REFERENCE=atomics
else
    echo "skip ofi checks: the ofi conduit is not built"
fi

# run_expect DESC STATUS REGEX ARGS...: gex-info ARGS exits STATUS and prints REGEX
run_expect() {
    desc=$1 status=$2 want=$3
    shift 3
    GEX_CONDUIT=smp "$info" "$@" >"$out" 2>&1 </dev/null
    rc=$?
    if [ "$rc" -eq "$status" ] && grep -Eq -- "$want" "$out"; then
        passed=$((passed + 1)); echo "ok   $desc"
    else
        failed=$((failed + 1)); echo "FAIL $desc: status $rc (want $status), output should match: $want"
        sed 's/^/    /' "$out"
    fi
}
m4=${srcdir:-.}/m4/gex_versions.m4
release=$(sed -n 's/^m4_define(\[GEX_RELEASE_VERSION\], *\[\([^]]*\)\]).*/\1/p' "$m4")
run_expect "--version names the release" 0 "^gex-info \(GEX\) $release, GASNet-EX spec [0-9]+\.[0-9]+$" --version
run_expect "--help lists --layers" 0 "--layers" --help
run_expect "unknown option refused" 2 "unknown option '--no-such'" --no-such
# --layers: every layer's own release, version-info and SONAME, from the file loaded
for layer in core shm am rma vis atomics coll mk; do
    u=$(echo $layer | tr a-z A-Z)
    vi=$(sed -n "s/^m4_define(\[GEX_VI_$u\], *\[\([0-9:]*\)\]).*/\1/p" "$m4")
    cur=${vi%%:*} age=${vi##*:}
    run_expect "--layers: libgex-$layer $release $vi" 0 \
        "^libgex-$layer +$release +$vi +libgex-$layer\.so\.$((cur - age)) +/.*/libgex-$layer\.so\.$((cur - age))\." \
        --layers
done
run_expect "--layers: the smp plug-in loaded" 0 "^smp +$release +[0-9]+\.[0-9]+ +/.*libgex-conduit-smp\.so: loaded$" --layers
run_expect "--layers: dispatch of rma" 0 "^  rma: put=" --layers
GEX_CONDUIT=smp "$info" --json >"$out" 2>&1 </dev/null
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = sorted(l["name"] for l in d["layers"])
assert names == sorted("libgex-" + x for x in "core shm am rma vis atomics coll mk".split()), names
assert all(l["release"] == sys.argv[2] for l in d["layers"]), d["layers"]
assert any(c["name"] == "smp" and c["status"] == "loaded" for c in d["conduit_plugins"])
assert d["conduit"] == "smp" and "rma" in d["dispatch"]
' "$out" "$release"; then
    passed=$((passed + 1)); echo "ok   --json: 8 layers of release $release, smp loaded, dispatch"
else
    failed=$((failed + 1)); echo "FAIL --json"; sed 's/^/    /' "$out"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
