#!/bin/sh
# test_rma_bounds.sh: erroneous RMA calls end the job with a diagnostic that
# names the call, the argument and (for ranges) the address, length and the
# segment's range.  Runs tests/mp/mp_rma_bounds once per mode under gexrun
# with 2 ranks.  Range checks exist only in debug builds (configure
# --enable-debug, which the sanitizer build uses); elsewhere those modes are
# skipped and only the argument checks every build makes are run.
PROG=$TOP_BUILDDIR/tests/mp/mp_rma_bounds
. "$(dirname "$0")/fatal_check.sh"
HEX='0x[0-9a-f]+'
check bad-rank   'gex_RMA_PutBlocking: bad argument: rank 2 is not below the team size 2'
check nbi-lc-ptr 'gex_RMA_PutNBI: bad argument: lc_opt as a gex_Event_t pointer is only for gex_RMA_PutNB'
check nb-group   'gex_RMA_PutNB: bad argument: lc_opt GEX_EVENT_GROUP is only for gex_RMA_PutNBI'
check seg-offset 'gex_RMA_PutBlocking: bad argument: flags 0x400 .*SEG_OFFSET flags are not implemented'
check val-size   'gex_RMA_PutNBIVal: bad argument: nbytes 9 exceeds SIZEOF_GEX_RMA_VALUE_T'
if [ $debug -eq 1 ]; then
    check put-end    "gex_RMA_PutBlocking: dest \\[$HEX, $HEX\\) \\(16 bytes\\) at rank 1 \\(jobrank 1, endpoint 0\\) is outside its bound segment \\[$HEX, $HEX\\) \\(65536 bytes\\)"
    check get-start  "gex_RMA_GetNB: src \\[$HEX, $HEX\\) \\(4 bytes\\) at rank 1 .* is outside its bound segment \\[$HEX, $HEX\\)"
    check self-end   "gex_RMA_PutNBI: dest \\[$HEX, $HEX\\) \\(1 bytes\\) at rank 0 \\(jobrank 0, endpoint 0\\) is outside its bound segment"
    check val-end    "gex_RMA_PutBlockingVal: dest \\[$HEX, $HEX\\) \\(8 bytes\\) at rank 1 .* is outside its bound segment"
    check no-segment "gex_RMA_PutBlocking: dest \\[$HEX, \\+8\\) at rank 1 \\(jobrank 1, endpoint 5\\): that endpoint has no bound segment known here"
    check am-long-end "bad AM argument: AM Long Request: dest_addr range \\[$HEX, \\+16\\) is outside the bound segment \\[$HEX, \\+65536\\) of jobrank 1, endpoint 0"
    check am-long-no-segment "bad AM argument: AM Long Request: dest_addr $HEX: the destination \\(jobrank 1, endpoint 5\\) has no bound segment known here"
else
    echo "skip range checks: not a debug build (configure --enable-debug)"
fi
finish
