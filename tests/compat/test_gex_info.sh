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
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
