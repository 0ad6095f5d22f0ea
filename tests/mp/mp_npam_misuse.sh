#!/bin/sh
# mp_npam_misuse.sh: erroneous AM and negotiated-payload AM calls end the job
# with status 1 and a diagnostic naming the call and the rule.  Runs
# tests/mp/mp_npam_misuse once per mode under gexrun with 2 ranks.  The
# handler-context rules (spec: "Calls from restricted context", and no
# communication between a Prepare and its Commit) are checked only in debug
# builds (configure --enable-debug, which the sanitizer build uses); elsewhere
# those modes are skipped.
PROG=$TOP_BUILDDIR/tests/mp/mp_npam_misuse
. "$(dirname "$0")/fatal_check.sh"
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
check addr-noop     "${B}gex_AM_SrcDescAddr: sd is GEX_AM_SRCDESC_NO_OP"
check size-consumed "${B}gex_AM_SrcDescSize: sd was already consumed by a Commit or Cancel"
check addr-cancelled "${B}gex_AM_SrcDescAddr: sd was already consumed by a Commit or Cancel"
check commit-flags  "${B}gex_AM_CommitRequestMedium0_v2: commit_flags 0x4: only GEX_FLAG_IMMEDIATE is supported"
# faults an inline Prepare (gex/ext.h) leaves to its Commit or Cancel: the
# same message as a Prepare in the library gives
check prep-rank     "${B}gex_AM_PrepareRequestMedium: rank [0-9]+ is not below the team size [0-9]+"
check prep-rank-cancel "${B}gex_AM_PrepareRequestMedium: rank [0-9]+ is not below the team size [0-9]+"
check lprep-rank    "${B}gex_AM_PrepareRequestLong: rank [0-9]+ is not below the team size [0-9]+"
check prep-tm       "${B}gex_AM_PrepareRequestMedium: tm is GEX_TM_INVALID"
check reply-replied "${B}gex_AM_PrepareReplyMedium: this Request handler already replied"
check reply-replied-cancel "${B}gex_AM_PrepareReplyMedium: this Request handler already replied"
check fp-null-src   "${B}gex_AM_RequestMedium: source_addr is NULL with nbytes 8"
if [ $debug -eq 1 ]; then
    check fp-in-handler      "${B}an AM Request was issued inside an AM handler"
    check prepare-in-handler "${B}gex_AM_PrepareRequestMedium: called inside an AM handler"
    check comm-between       "${B}an AM Request was issued between a gex_AM_PrepareRequest\\* and its Commit or Cancel"
    check poll-between       "${B}a poll or wait was issued between a gex_AM_PrepareRequest\\* and its Commit or Cancel"
    check reply-between      "${B}an AM Reply was issued between a gex_AM_PrepareReply\\* and its Commit or Cancel"
    check np-long-end        "${B}gex_AM_CommitRequestLong0: dest_addr range \\[0x[0-9a-f]+, \\+4096\\) is outside the bound segment \\[0x[0-9a-f]+, \\+65536\\) of jobrank 1, endpoint 0"
    check max-nargs          "${B}gex_AM_MaxRequestMedium: numargs 17 > gex_AM_MaxArgs\\(\\) = 16"
    check max-least-both     "${B}gex_AM_MaxReplyLong: flags: GEX_FLAG_AM_PREPARE_LEAST_CLIENT and _LEAST_ALLOC are mutually exclusive"
    check np-long-reply-end  "${B}gex_AM_CommitReplyLong0: dest_addr range \\[0x[0-9a-f]+, \\+8\\) is outside the bound segment \\[0x[0-9a-f]+, \\+65536\\) of jobrank 0, endpoint 0"
else
    echo "skip handler-context checks: not a debug build (configure --enable-debug)"
fi
finish
