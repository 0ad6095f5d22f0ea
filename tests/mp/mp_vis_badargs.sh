#!/bin/sh
# mp_vis_badargs.sh: erroneous VIS calls end the job with a diagnostic that
# names the call and the argument.  Runs tests/mp/mp_vis_badargs once per
# mode under gexrun with 2 ranks.  Peer-range checks exist only in debug
# builds (the sanitizer build is one); elsewhere those modes are skipped.
set -u
GEXRUN=${GEXRUN:?set GEXRUN}
PROG=$TOP_BUILDDIR/tests/mp/mp_vis_badargs
debug=0
grep -q '^GEX_OPT_CFLAGS = .*-DGEX_DEBUG' "$TOP_BUILDDIR/Makefile" 2>/dev/null && debug=1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mp_vis_badargs.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0

# check MODE REGEX: exit status 1 and stderr matching REGEX (grep -E)
check() {
    mode=$1 want=$2
    "$GEXRUN" -n 2 --timeout 60 "$PROG" "$mode" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    if [ $rc -eq 1 ] && grep -Eq "$want" "$TMP/err"; then
        passed=$((passed + 1))
        echo "ok   $mode: $(grep -E "$want" "$TMP/err" | head -n 1)"
    else
        failed=$((failed + 1))
        echo "FAIL $mode: exit status $rc (want 1), stderr should match: $want"
        sed 's/^/    err: /' "$TMP/err" | head -n 20
    fi
}
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
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
