#!/bin/sh
# mp_npam_misuse.sh: erroneous AM and negotiated-payload AM calls end the job
# with status 1 and a diagnostic naming the call and the rule.  Runs
# tests/mp/mp_npam_misuse once per mode under gexrun with 2 ranks.  The
# handler-context rules (spec: "Calls from restricted context", and no
# communication between a Prepare and its Commit) are checked only in debug
# builds (configure --enable-debug, which the sanitizer build uses); elsewhere
# those modes are skipped.
set -u
GEXRUN=${GEXRUN:?set GEXRUN}
PROG=$TOP_BUILDDIR/tests/mp/mp_npam_misuse
# Debug builds compile with -DGEX_DEBUG=1 (configure --enable-debug puts it
# in GEX_OPT_CFLAGS; sources never include config.h).
debug=0
grep -q '^GEX_OPT_CFLAGS = .*-DGEX_DEBUG' "$TOP_BUILDDIR/Makefile" 2>/dev/null && debug=1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mp_npam_misuse.XXXXXX") || exit 2
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
B='bad AM argument: '
check commit-noop   "${B}gex_AM_CommitRequestMedium0: sd is GEX_AM_SRCDESC_NO_OP"
check commit-nargs  "${B}gex_AM_CommitRequestMedium1: \\[M\\] = 1 arguments, but the Prepare announced numargs = 2"
check commit-size   "${B}gex_AM_CommitRequestMedium0: nbytes 65 exceeds gex_AM_SrcDescSize\\(\\) = 64"
check commit-twice  "${B}gex_AM_CommitRequestMedium1: sd was already consumed by a Commit or Cancel"
check commit-kind   "${B}gex_AM_CommitRequestLong0: sd comes from a gex_AM_PrepareRequestMedium, not a gex_AM_PrepareRequestLong"
check nest          "${B}gex_AM_PrepareRequestMedium: the previous gex_AM_PrepareRequest\\* of this thread was neither committed nor cancelled"
check lib-lc        "${B}gex_AM_PrepareRequestMedium: lc_opt must be NULL when client_buf is NULL"
check client-defer  "${B}gex_AM_PrepareRequestMedium: lc_opt GEX_EVENT_DEFER is not permitted with a client buffer for an AM Request"
check fp-defer      "${B}lc_opt: GEX_EVENT_DEFER is not permitted for an AM Request"
check reply-group   "${B}lc_opt: GEX_EVENT_GROUP is not permitted for an AM Reply"
check least-big     "${B}gex_AM_PrepareRequestLong: least_payload [0-9]+ exceeds gex_AM_MaxRequestLong\\(\\.\\.\\., GEX_FLAG_AM_PREPARE_LEAST_ALLOC\\)"
check long-dest     "${B}gex_AM_CommitRequestLong0: dest_addr 0x[0-9a-f]+ differs from the 0x[0-9a-f]+ given to the Prepare"
check other-thread  "${B}gex_AM_CommitRequestMedium0: sd 0x[0-9a-f]+ was not prepared by this thread"
check fp-least-flag "${B}flags 0x2000: GEX_FLAG_AM_PREPARE_LEAST_\\* are only for the gex_AM_Max\\* queries"
check prepare-reply-in-reply "${B}gex_AM_PrepareReplyMedium: called from a Reply handler"
check commit-flags  "${B}gex_AM_CommitRequestMedium0_v2: commit_flags 0x4: only GEX_FLAG_IMMEDIATE is supported"
if [ $debug -eq 1 ]; then
    check fp-in-handler      "${B}an AM Request was issued inside an AM handler"
    check prepare-in-handler "${B}gex_AM_PrepareRequestMedium: called inside an AM handler"
    check comm-between       "${B}an AM Request was issued between a gex_AM_PrepareRequest\\* and its Commit or Cancel"
    check poll-between       "${B}a poll or wait was issued between a gex_AM_PrepareRequest\\* and its Commit or Cancel"
    check reply-between      "${B}an AM Reply was issued between a gex_AM_PrepareReply\\* and its Commit or Cancel"
else
    echo "skip handler-context checks: not a debug build (configure --enable-debug)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
