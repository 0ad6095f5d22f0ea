#!/bin/sh
# mp_handle_misuse.sh: in debug builds, a gex_{Client,EP,Segment,TM}_Query* or
# CData call given an INVALID handle, a handle of another kind, or (gex_TM_
# calls other than QueryEP/QueryClient) a TM-pair ends the job with a message
# naming the call and the argument.  Other builds skip those modes.
PROG=$TOP_BUILDDIR/tests/mp/mp_handle_misuse
. "$(dirname "$0")/fatal_check.sh"
if "$GEXRUN" -n 2 --timeout 60 "$PROG" pair-ok >"$TMP/out" 2>"$TMP/err" </dev/null; then
    passed=$((passed + 1)); echo "ok   pair-ok: $(cat "$TMP/out")"
else
    failed=$((failed + 1)); echo "FAIL pair-ok"; sed 's/^/    err: /' "$TMP/err" | head -n 20
fi
if [ $debug -eq 1 ]; then
    check ep-null     'fatal: gex_EP_QueryIndex: ep is the INVALID handle'
    check tm-null     'fatal: gex_TM_QueryRank: tm is the INVALID handle'
    check seg-null    'fatal: gex_Segment_QuerySize: seg is the INVALID handle'
    check client-null 'fatal: gex_Client_QueryName: client is the INVALID handle'
    check tm-pair     'fatal: gex_TM_QuerySize: tm is a TM-pair'
    check pair-cdata  'fatal: gex_TM_SetCData: tm is a TM-pair'
    check seg-kind    'fatal: gex_Segment_QueryAddr: seg \(0x[0-9a-f]+\) is not a valid gex_Segment_t handle'
else
    echo "skip handle checks: not a debug build (configure --enable-debug)"
fi
finish
