#!/bin/sh
# mp_vis_badargs.sh: erroneous VIS calls end the job with a diagnostic that
# names the call and the argument.  Runs tests/mp/mp_vis_badargs once per
# mode under gexrun with 2 ranks.  Peer-range checks exist only in debug
# builds (the sanitizer build is one); elsewhere those modes are skipped.
PROG=$TOP_BUILDDIR/tests/mp/mp_vis_badargs
. "$(dirname "$0")/fatal_check.sh"
check vec-total    'gex_VIS_VectorPutBlocking: bad argument: dstlist holds 32 bytes, srclist 31'
check idx-total    'gex_VIS_IndexedPutNBI: bad argument: dstcount\*dstlen = 4\*8 but srccount\*srclen = 2\*8'
check bad-rank     'gex_VIS_StridedPutBlocking: bad argument: rank 2 is not below the team size 2'
check leaf-lc-get  'gex_VIS_IndexedGetNB: bad argument: GEX_FLAG_ENABLE_LEAF_LC is only for gex_VIS_\*Put\{NB,NBI\}'
check seg-offset   'gex_VIS_VectorGetNBI: bad argument: flags 0x400 .*SEG_OFFSET flags are not implemented'
check null-list    'gex_VIS_VectorPutNB: bad argument: dstlist is NULL with 2 entries'
check pc-size      'gex_VIS_SetPeerCompletionHandler: bad argument: nbytes 128 exceeds GEX_VIS_MAX_PEERCOMPLETION \(127\)'
check str-overflow 'gex_VIS_StridedGetBlocking: bad argument: elemsz \* count\[0..1\] overflows'
if [ $debug -eq 1 ]; then
    check str-outside 'gex_VIS_StridedPutBlocking: bad argument: the peer.s strided section \[0x[0-9a-f]+, 0x[0-9a-f]+\) is outside its bound segment'
    check idx-outside 'gex_VIS_IndexedGetBlocking: bad argument: peer entry 1 \[0x[0-9a-f]+, \+8\) is outside the bound segment'
else
    echo "skip peer-range checks: not a debug build (configure --enable-debug)"
fi
finish
