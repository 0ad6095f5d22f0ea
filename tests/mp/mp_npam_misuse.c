/*
 * mp_npam_misuse.c: one erroneous AM call, chosen by argv[1], that must end
 * the job with a diagnostic naming the call and the rule (driven by
 * tests/mp/mp_npam_misuse.sh, which checks the exit status and message).
 * Rank 0 misbehaves toward rank 1 (or itself in a 1-rank job); the other
 * ranks poll in a barrier that only the end of the job releases.
 *
 * Every build (argument and source-descriptor checks):
 *   commit-noop commit-nargs commit-size commit-twice commit-kind nest lib-lc
 *   client-defer fp-defer reply-group least-big long-dest other-thread
 *   fp-least-flag prepare-reply-in-reply commit-flags addr-noop size-consumed
 *   addr-cancelled (the inline gex_AM_SrcDesc{Addr,Size} of ext.h)
 *   prep-rank prep-rank-cancel lprep-rank prep-tm reply-replied reply-replied-cancel:
 *   faults the inline Prepare of ext.h leaves to the Commit or Cancel (a
 *   debug build reports them at the Prepare, with the same message)
 * Debug builds only (handler-context rules, spec "Calls from restricted
 * context" and the Prepare..Commit interval; the bound-segment range of a
 * negotiated-payload Long, as for fixed-payload Longs):
 *   fp-in-handler prepare-in-handler comm-between poll-between reply-between
 *   np-long-end np-long-reply-end
 */
#include "mp_util.h"
#include <pthread.h>

#define H_REQ  (MP_H_FIRST_FREE + 0)
#define H_REP  (MP_H_FIRST_FREE + 1)
#define H_MREP (MP_H_FIRST_FREE + 2)
#define H_MREQ (MP_H_FIRST_FREE + 3)
#define H_LREP (MP_H_FIRST_FREE + 4)
static const char *mode = "";
static gex_Rank_t peer;
static char *peer_seg, *seg0;   /* rank `peer`'s and rank 0's segments */
#define SEG_SIZE (64 * 1024)

/* Rank 1's request handler: what it does depends on the mode. */
static void h_req(gex_Token_t t, gex_AM_Arg_t a)
{
    char buf[16] = { 0 };
    if (!strcmp(mode, "reply-group")) {
        gex_AM_ReplyMedium0(t, H_MREP, buf, 8, GEX_EVENT_GROUP, 0);
    } else if (!strcmp(mode, "fp-in-handler")) {
        gex_AM_RequestShort1(mp_tm, 0, H_REQ, 0, 0);
    } else if (!strcmp(mode, "prepare-in-handler")) {
        /* reported at the Prepare, or (inline Prepare) at the Commit */
        gex_AM_CommitRequestMedium0(gex_AM_PrepareRequestMedium(mp_tm, 0, NULL, 8, 8, NULL, 0, 0),
                                    H_MREQ, 8);
    } else if (!strcmp(mode, "reply-between")) {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, 8, 8, NULL, 0, 0);
        (void)sd;
        gex_AM_ReplyShort1(t, H_REP, 0, 0);
    } else if (!strcmp(mode, "np-long-reply-end")) {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyLong(t, NULL, 8, 8, NULL, NULL, 0, 0);
        gex_AM_CommitReplyLong0(sd, H_LREP, 8, seg0 + SEG_SIZE - 4);
    } else if (!strcmp(mode, "reply-replied") || !strcmp(mode, "reply-replied-cancel")) {
        gex_AM_ReplyShort1(t, H_REP, 0, 1);
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, 8, 8, NULL, 0, 0);
        if (!strcmp(mode, "reply-replied")) gex_AM_CommitReplyMedium0(sd, H_MREP, 8);
        else gex_AM_CancelReplyMedium(sd, 0);
    } else {
        gex_AM_ReplyShort1(t, H_REP, 0, a);   /* prepare-reply-in-reply continues in h_rep */
        return;
    }
    fprintf(stderr, "mp_npam_misuse: %s: the erroneous call returned\n", mode);
    gasnet_exit(3);
}

static volatile int got_reply;
static void h_rep(gex_Token_t t, gex_AM_Arg_t a)
{
    if (!strcmp(mode, "prepare-reply-in-reply")) {
        /* reported at the Prepare, or (inline Prepare, ext.h) at the Commit */
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, 8, 8, NULL, 0, 0);
        gex_AM_CommitReplyMedium0(sd, H_MREP, 8);
        fprintf(stderr, "mp_npam_misuse: %s: the erroneous call returned\n", mode);
        gasnet_exit(3);
    }
    got_reply = 1;
}
static void h_mrep(gex_Token_t t, void *buf, size_t nb) { got_reply = 1; }
static void h_mreq(gex_Token_t t, void *buf, size_t nb) { (void)t; (void)buf; (void)nb; }

static gex_AM_SrcDesc_t other_sd;
static void *other_thread(void *arg)
{
    (void)arg;
    gex_AM_CommitRequestMedium0(other_sd, H_REQ, 0);
    return NULL;
}

static gex_AM_SrcDesc_t prep(size_t least, size_t most, unsigned nargs)
{
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(mp_tm, peer, NULL, least, most, NULL, 0,
                                                      nargs);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    return sd;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_NPAM_MISUSE", 0);
    mode = argc > 1 ? argv[1] : "";
    gex_AM_Entry_t h[] = {
        { H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "req" },
        { H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "rep" },
        { H_MREP, (gex_AM_Fn_t)h_mrep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "mrep" },
        { H_MREQ, (gex_AM_Fn_t)h_mreq, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "mreq" },
        { H_LREP, (gex_AM_Fn_t)h_mreq, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 0, NULL, "lrep" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));
    mp_attach(SEG_SIZE);
    peer = mp_n > 1 ? 1 : 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, peer, (void **)&peer_seg, NULL, NULL, 0));
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, 0, (void **)&seg0, NULL, NULL, 0));
    mp_barrier();
    if (mp_me != 0) {
        mp_barrier();   /* released only by the end of the job */
        gasnet_exit(4);
    }
    char buf[256] = { 0 };
    gex_Event_t ev;
    if (!strcmp(mode, "prep-rank")) {
        gex_AM_CommitRequestMedium0(gex_AM_PrepareRequestMedium(mp_tm, mp_n, NULL, 8, 8, NULL, 0,
                                                                0), H_MREQ, 8);
    } else if (!strcmp(mode, "prep-rank-cancel")) {
        gex_AM_CancelRequestMedium(gex_AM_PrepareRequestMedium(mp_tm, mp_n + 5, NULL, 0, 16, NULL,
                                                               0, 1), 0);
    } else if (!strcmp(mode, "lprep-rank")) {
        gex_AM_CommitRequestLong0(gex_AM_PrepareRequestLong(mp_tm, mp_n + 1, NULL, 8, 8, peer_seg,
                                                            NULL, 0, 0), H_MREQ, 8, peer_seg);
    } else if (!strcmp(mode, "prep-tm")) {
        gex_AM_CommitRequestMedium0(gex_AM_PrepareRequestMedium(GEX_TM_INVALID, 0, NULL, 8, 8,
                                                                NULL, 0, 0), H_MREQ, 8);
    } else if (!strcmp(mode, "commit-noop")) {
        gex_AM_CommitRequestMedium0(GEX_AM_SRCDESC_NO_OP, H_REQ, 0);
    } else if (!strcmp(mode, "commit-nargs")) {
        gex_AM_CommitRequestMedium1(prep(8, 8, 2), H_REQ, 8, 0);
    } else if (!strcmp(mode, "commit-size")) {
        gex_AM_CommitRequestMedium0(prep(8, 64, 0), H_REQ, 65);
    } else if (!strcmp(mode, "commit-twice")) {
        gex_AM_SrcDesc_t sd = prep(0, 0, 1);
        gex_AM_CommitRequestMedium1(sd, H_REQ, 0, 0);
        gex_AM_CommitRequestMedium1(sd, H_REQ, 0, 0);
    } else if (!strcmp(mode, "commit-kind")) {
        gex_AM_CommitRequestLong0(prep(8, 8, 0), H_REQ, 8, peer_seg);
    } else if (!strcmp(mode, "nest")) {
        prep(8, 8, 0);
        prep(8, 8, 0);
    } else if (!strcmp(mode, "lib-lc")) {
        gex_AM_PrepareRequestMedium(mp_tm, peer, NULL, 8, 8, GEX_EVENT_NOW, 0, 0);
    } else if (!strcmp(mode, "client-defer")) {
        gex_AM_PrepareRequestMedium(mp_tm, peer, buf, 8, 8, GEX_EVENT_DEFER, 0, 0);
    } else if (!strcmp(mode, "fp-null-src")) {
        gex_AM_RequestMedium0(mp_tm, peer, H_MREQ, NULL, 8, GEX_EVENT_NOW, 0);
    } else if (!strcmp(mode, "max-nargs")) {
        printf("%zu\n", gex_AM_MaxRequestMedium(mp_tm, peer, GEX_EVENT_NOW, 0, 17));
    } else if (!strcmp(mode, "max-least-both")) {
        printf("%zu\n", gex_AM_MaxReplyLong(mp_tm, peer, NULL, GEX_FLAG_AM_PREPARE_LEAST_CLIENT |
                                             GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 0));
    } else if (!strcmp(mode, "fp-defer")) {
        gex_AM_RequestMedium0(mp_tm, peer, H_REQ, buf, 8, GEX_EVENT_DEFER, 0);
    } else if (!strcmp(mode, "least-big")) {
        size_t a = gex_AM_MaxRequestLong(mp_tm, peer, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 0);
        gex_AM_PrepareRequestLong(mp_tm, peer, NULL, a + 1, a + 1, peer_seg, NULL, 0, 0);
    } else if (!strcmp(mode, "long-dest")) {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestLong(mp_tm, peer, NULL, 8, 8, peer_seg, NULL,
                                                        0, 0);
        gex_AM_CommitRequestLong0(sd, H_REQ, 8, peer_seg + 8);
    } else if (!strcmp(mode, "np-long-end")) {
        /* 4 KiB: the ring (or reference) path; np-long-reply-end's 8 bytes take
         * the small path */
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestLong(mp_tm, peer, NULL, 4096, 4096, NULL,
                                                        NULL, 0, 0);
        gex_AM_CommitRequestLong0(sd, H_REQ, 4096, peer_seg + SEG_SIZE - 4095);
    } else if (!strcmp(mode, "other-thread")) {
        other_sd = prep(0, 0, 0);
        pthread_t th;
        CHECK(pthread_create(&th, NULL, other_thread, NULL) == 0);
        pthread_join(th, NULL);
    } else if (!strcmp(mode, "fp-least-flag")) {
        gex_AM_RequestMedium0(mp_tm, peer, H_REQ, buf, 8, GEX_EVENT_NOW,
                              GEX_FLAG_AM_PREPARE_LEAST_CLIENT);
    } else if (!strcmp(mode, "commit-flags")) {
        gex_AM_CommitRequestMedium0_v2(prep(8, 8, 0), H_REQ, 8, GEX_FLAG_LC_COPY_NO);
    } else if (!strcmp(mode, "addr-noop")) {
        fprintf(stderr, "mp_npam_misuse: got %p\n", gex_AM_SrcDescAddr(GEX_AM_SRCDESC_NO_OP));
    } else if (!strcmp(mode, "size-consumed")) {
        gex_AM_SrcDesc_t sd = prep(8, 8, 0);
        gex_AM_CommitRequestMedium0(sd, H_MREQ, 8);
        fprintf(stderr, "mp_npam_misuse: got %zu\n", gex_AM_SrcDescSize(sd));
    } else if (!strcmp(mode, "addr-cancelled")) {
        gex_AM_SrcDesc_t sd = prep(4096, 4096, 0);   /* the ring path */
        CHECK_OK(gex_AM_CancelRequestMedium(sd, 0));
        fprintf(stderr, "mp_npam_misuse: got %p\n", gex_AM_SrcDescAddr(sd));
    } else if (!strcmp(mode, "comm-between")) {
        prep(8, 8, 0);
        gex_AM_RequestShort1(mp_tm, peer, H_REQ, 0, 0);
    } else if (!strcmp(mode, "poll-between")) {
        prep(8, 8, 0);
        gasnet_AMPoll();
    } else if (!strcmp(mode, "reply-group") || !strcmp(mode, "fp-in-handler") ||
               !strcmp(mode, "prepare-in-handler") || !strcmp(mode, "reply-between") ||
               !strcmp(mode, "prepare-reply-in-reply") || !strcmp(mode, "np-long-reply-end") ||
               !strcmp(mode, "reply-replied") || !strcmp(mode, "reply-replied-cancel")) {
        /* rank 1's handler (or ours, the reply) makes the erroneous call */
        CHECK_OK(gex_AM_RequestShort1(mp_tm, peer, H_REQ, 0, 0));
        MP_POLL_UNTIL(0);
    } else {
        fprintf(stderr, "mp_npam_misuse: unknown mode '%s'\n", mode);
        gasnet_exit(2);
    }
    (void)ev;
    fprintf(stderr, "mp_npam_misuse: %s: the erroneous call returned\n", mode);
    gasnet_exit(3);
}
