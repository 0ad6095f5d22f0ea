#!/bin/sh
# mp_long_unbound.sh: AM Longs to a destination outside the target
# endpoint's bound segment (tests/mp/mp_long_unbound.c) end the job with
# status 1 and a message naming the Long: at the initiator in debug builds
# (libgex-am), at the target in other builds (the conduit, before it copies
# a payload it could not map; before, a SIGSEGV there).  Each case runs on
# the default smp setup, without shared memory between the ranks
# (GASNET_SUPERNODE_MAXSIZE=1), and on the ofi (tcp;ofi_rxm) and ucx conduits
# when they are built; "valid" checks that correct Longs and the RMA reference path's
# Long replies into private memory are not caught.
PROG=$TOP_BUILDDIR/tests/mp/mp_long_unbound
. "$(dirname "$0")/fatal_check.sh"
HEX='0x[0-9a-f]+'
setups="smp smp-nopshm"
[ -e "$TOP_BUILDDIR/.libs/libgex-conduit-ofi.so" ] && setups="$setups ofi"
[ -e "$TOP_BUILDDIR/.libs/libgex-conduit-ucx.so" ] && setups="$setups ucx"
for setup in $setups; do
    # check (fatal_check.sh) runs gexrun, which passes the environment on
    unset GEX_CONDUIT FI_PROVIDER GASNET_SUPERNODE_MAXSIZE
    case $setup in
    smp-nopshm) export GASNET_SUPERNODE_MAXSIZE=1 ;;
    ofi) export GEX_CONDUIT=ofi FI_PROVIDER='tcp;ofi_rxm' GASNET_SUPERNODE_MAXSIZE=1 ;;
    ucx) export GEX_CONDUIT=ucx GASNET_SUPERNODE_MAXSIZE=1 ;;
    esac
    if [ $debug -eq 1 ]; then
        B='bad AM argument: '
        want_unbound="${B}AM Long Request: dest_addr $HEX: the destination \\(jobrank 1, endpoint 1\\) has no bound segment known here"
        want_outside="${B}AM Long Request: dest_addr range \\[$HEX, \\+64\\) is outside the bound segment"
        want_reply="${B}AM Long Reply: dest_addr range \\[$HEX, \\+64\\) is outside the bound segment"
    else
        T='do not lie in the segment bound to that endpoint'
        want_unbound="AM Long Request from rank 0 to endpoint 1 of rank 1 \\(handler 131\\): its payload bytes \\[$HEX, $HEX\\) $T"
        want_outside="AM Long Request from rank 0 to endpoint 0 of rank 1 \\(handler 131\\): its payload bytes \\[$HEX, $HEX\\) $T"
        want_reply="AM Long Reply from rank 1 to endpoint 0 of rank 0 \\(handler 133\\): its payload bytes \\[$HEX, $HEX\\) $T"
    fi
    echo "== $setup"
    check unbound     "$want_unbound"
    check unbound-big "$want_unbound"
    check outside     "$want_outside"
    check reply       "$want_reply"
    for fr in "" rma; do
        GEX_FORCE_REFERENCE=$fr "$GEXRUN" -n 2 --timeout 120 "$PROG" valid \
            >"$TMP/out" 2>"$TMP/err" </dev/null
        rc=$?
        if [ $rc -eq 0 ] && grep -q PASS "$TMP/out"; then
            passed=$((passed + 1)); echo "ok   valid${fr:+ (GEX_FORCE_REFERENCE=$fr)}"
        else
            failed=$((failed + 1)); echo "FAIL valid${fr:+ (GEX_FORCE_REFERENCE=$fr)}: exit status $rc"
            sed 's/^/    err: /' "$TMP/err" | head -n 20
        fi
    done
done
finish
