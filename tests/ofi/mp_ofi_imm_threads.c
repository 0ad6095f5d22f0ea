/*
 * mp_ofi_imm_threads.c: GEX_FLAG_IMMEDIATE AMs from several threads of a
 * GASNET_PAR client that share the primordial endpoint.  GASNet-EX.txt
 * (IMMEDIATE) lets such a call return without sending only "if the conduit
 * could determine that it would need to block temporarily to obtain the
 * necessary resources"; docs/ofi.md names them: a request credit, a send
 * buffer, the provider's queue.  Here none can run short: every thread has
 * at most one request outstanding (GEX_OFI_CREDITS is 32 per peer), messages
 * are small enough to be built on the stack, and a few messages in flight
 * are far from the provider's queue depth.  Yet the ofi conduit refused an
 * IMMEDIATE send whenever another thread held its send lock (polling or
 * sending): most attempts failed.  This test counts the refused calls and
 * fails if more than 1 in 20 is refused (the conduit must wait for the lock
 * as a non-IMMEDIATE call does).
 *
 * T threads per rank each send NPP requests, one at a time, alternately
 * Short and Medium (payload checked), with IMMEDIATE; the handler replies
 * with IMMEDIATE (a refused reply is re-sent without it, so replies are
 * never lost).  A refused request is retried after a poll, at most 100
 * times, then sent without the flag (immediate.txt: "No operation should be
 * retried as IMMEDIATE indefinitely").  Request, reply and ack counts are
 * exact.
 */
#include "../mp/mp_util.h"
#include <pthread.h>

#define T 4
#define NPP 150                 /* requests per thread */
#define H_SHORT (MP_H_FIRST_FREE + 0)
#define H_MED   (MP_H_FIRST_FREE + 1)
#define H_ACK   (MP_H_FIRST_FREE + 2)

static atomic_long acks[T], got_req, calls_req, refused_req, calls_rep, refused_rep;

static void reply(gex_Token_t tok, gex_AM_Arg_t th)
{
    atomic_fetch_add(&calls_rep, 1);
    if (gex_AM_ReplyShort1(tok, H_ACK, GEX_FLAG_IMMEDIATE, th)) {
        atomic_fetch_add(&refused_rep, 1);
        CHECK_OK(gex_AM_ReplyShort1(tok, H_ACK, 0, th));
    }
}

static void h_short(gex_Token_t tok, gex_AM_Arg_t th)
{
    CHECK(th >= 0 && th < T);
    atomic_fetch_add(&got_req, 1);
    reply(tok, th);
}

static void h_med(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t th, gex_AM_Arg_t seq)
{
    CHECK(th >= 0 && th < T);
    CHECK_EQ(nbytes, (size_t)(1 + seq % 512));
    CHECK_PATTERN(buf, nbytes, (uint32_t)th, (uint32_t)seq);
    atomic_fetch_add(&got_req, 1);
    reply(tok, th);
}

static void h_ack(gex_Token_t tok, gex_AM_Arg_t th)
{
    (void)tok;
    CHECK(th >= 0 && th < T);
    atomic_fetch_add(&acks[th], 1);
}

static int send_one(gex_Rank_t dst, int th, int seq, const unsigned char *buf, gex_Flags_t f)
{
    if (seq % 2 == 0) return gex_AM_RequestShort1(mp_tm, dst, H_SHORT, f, th);
    return gex_AM_RequestMedium2(mp_tm, dst, H_MED, buf, (size_t)(1 + seq % 512), GEX_EVENT_NOW,
                                 f, th, seq);
}

static void *sender(void *arg)
{
    const int th = (int)(intptr_t)arg;
    const gex_Rank_t dst = (mp_me + 1 + (gex_Rank_t)th) % mp_n;
    unsigned char buf[512];
    for (int seq = 0; seq < NPP; seq++) {
        mp_fill(buf, (size_t)(1 + seq % 512), (uint32_t)th, (uint32_t)seq);
        int tries = 0;
        for (;;) {
            atomic_fetch_add(&calls_req, 1);
            if (!send_one(dst, th, seq, buf, GEX_FLAG_IMMEDIATE)) break;
            atomic_fetch_add(&refused_req, 1);
            gasnet_AMPoll();
            if (++tries == 100) {
                atomic_fetch_add(&calls_req, 1);
                CHECK_OK(send_one(dst, th, seq, buf, 0));
                break;
            }
        }
        MP_POLL_UNTIL(atomic_load(&acks[th]) >= seq + 1);
    }
    CHECK_EQ(atomic_load(&acks[th]), NPP);
    return NULL;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_OFI_IMM_THREADS", 0);
    CHECK(gex_System_QueryMaxThreads() >= T + 1);
    gex_AM_Entry_t h[] = {
        { H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "short" },
        { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "med" },
        { H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "ack" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));
    mp_attach(1 << 16);          /* its barrier: everyone's handlers are registered */

    mp_phase("threads");
    pthread_t s[T];
    for (int t = 0; t < T; t++) CHECK_EQ(pthread_create(&s[t], NULL, sender, (void *)(intptr_t)t), 0);
    for (int t = 0; t < T; t++) CHECK_EQ(pthread_join(s[t], NULL), 0);

    /* every rank sends T * NPP requests, to T ranks in turn; this rank gets
     * NPP from each thread t of rank (me - 1 - t) mod n */
    mp_phase("counts");
    MP_POLL_UNTIL(atomic_load(&got_req) >= T * NPP);
    CHECK_EQ(atomic_load(&got_req), T * NPP);
    const long creq = atomic_load(&calls_req), rreq = atomic_load(&refused_req);
    const long crep = atomic_load(&calls_rep), rrep = atomic_load(&refused_rep);
    CHECK_EQ(creq - rreq, T * NPP);          /* every request accepted exactly once... */
    CHECK_EQ(crep, T * NPP);                 /* ...and answered once */
    CHECK_MSG((rreq + rrep) * 20 <= creq + crep,
              "IMMEDIATE refused %ld of %ld requests and %ld of %ld replies, with no resource "
              "short (1 request in flight per thread)", rreq, creq, rrep, crep);
    mp_finish("%d threads x %d IMMEDIATE requests (one in flight each) + IMMEDIATE replies: "
              "exact counts; rank 0 refused %ld of %ld request and %ld of %ld reply calls",
              T, NPP, rreq, creq, rrep, crep);
}
