#!/bin/sh
# mp_segquery_misuse.sh: gex_EP_QueryBoundSegmentNB with GEX_RANK_INVALID or a
# rank beyond the team (tests/mp/mp_segquery_misuse.c).  Debug builds end the
# job with status 1 and a message naming the call and the rank; other builds
# complete an unsuccessful query (size 0) and print the message once.
# GEX_TM_INVALID (both query calls): debug builds name the handle, other
# builds give an unsuccessful query.
PROG=$TOP_BUILDDIR/tests/mp/mp_segquery_misuse
. "$(dirname "$0")/fatal_check.sh"
F='gex_EP_QueryBoundSegmentNB: bad argument: '
if [ $debug -eq 1 ]; then
    check invalid   "${F}rank is GEX_RANK_INVALID, which the spec does not permit"
    check immediate "${F}rank is GEX_RANK_INVALID, which the spec does not permit"
    check size      "${F}rank 2 is not below the team size 2"
    check pair      "${F}rank 2 is not below the job size 2"
    check tm-nb     "gex_EP_QueryBoundSegmentNB: tm is the INVALID handle"
    check tm-qb     "gex_Segment_QueryBound: tm is the INVALID handle"
else
    # GEX_TM_INVALID: an unsuccessful query, silently (handles are checked in
    # debug builds only, as for every call taking a tm)
    for mode in tm-nb tm-qb; do
        "$GEXRUN" -n 2 --timeout 60 "$PROG" "$mode" >"$TMP/out" 2>"$TMP/err" </dev/null
        rc=$?
        if [ $rc -eq 0 ] && grep -q "PASS" "$TMP/out"; then
            passed=$((passed + 1)); echo "ok   $mode: unsuccessful query"
        else
            failed=$((failed + 1)); echo "FAIL $mode: exit status $rc (want 0 and PASS)"
            sed 's/^/    err: /' "$TMP/err" | head -n 20
        fi
    done
    for m in invalid:"rank is GEX_RANK_INVALID" immediate:"rank is GEX_RANK_INVALID" \
             size:"rank 2 is not below the team size 2" pair:"rank 2 is not below the job size 2"; do
        mode=${m%%:*}
        "$GEXRUN" -n 2 --timeout 60 "$PROG" "$mode" >"$TMP/out" 2>"$TMP/err" </dev/null
        rc=$?
        if [ $rc -eq 0 ] && grep -q "PASS" "$TMP/out" &&
           [ "$(grep -c "${F}${m#*:}.*; size 0 (unsuccessful query)" "$TMP/err")" -eq 2 ]; then
            passed=$((passed + 1)); echo "ok   $mode: $(grep -m1 "$F" "$TMP/err")"
        else
            failed=$((failed + 1))
            echo "FAIL $mode: exit status $rc (want 0, size 0, the message once per rank)"
            sed 's/^/    err: /' "$TMP/err" | head -n 20
        fi
    done
fi
finish
