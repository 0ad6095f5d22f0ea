/*
 * mp_par_threads.c: a GASNET_PAR client whose threads share the primordial
 * endpoint, as GASNet's testthreads, UPC++ and Chapel use it.  T threads per
 * rank send, at once, AM Short requests (every 2nd with GEX_FLAG_IMMEDIATE,
 * retried a bounded number of times after a gasnet_AMPoll when refused) and
 * Medium requests to every rank, then one-way IMMEDIATE Shorts, while a
 * further thread does nothing but poll.  Handlers check payloads and count
 * per (sender rank, sender thread); Mediums are replied to, Shorts not;
 * exact request and reply counts are checked.
 * On the ofi conduit this drives the credit window from several threads:
 * credits owed are queued by the threads that run handlers and flushed by
 * whichever thread polls next (in the ThreadSanitizer run, make check-tsan,
 * an unlocked read of the credit queue's length was reported here).
 */
#include "mp_util.h"
#include <pthread.h>

#define T 4
#define NAM 200                 /* requests of each kind per (thread, target) */
#define NONE 1000               /* one-way IMMEDIATE Shorts per (thread, target) */
#define H_IMM (MP_H_FIRST_FREE + 0)
#define H_ONE (MP_H_FIRST_FREE + 3)
#define H_MED (MP_H_FIRST_FREE + 1)
#define H_ACK (MP_H_FIRST_FREE + 2)

static atomic_uint got_one[64][T], got_imm[64][T], got_med[64][T], acks[T];
static atomic_int stop_poll;

static gex_Rank_t src_of(gex_Token_t tok)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(tok, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    return info.gex_srcrank;
}

static void h_imm(gex_Token_t tok, gex_AM_Arg_t th)
{
    CHECK(th >= 0 && th < T);
    /* no reply: the receiver then owes the sender credits that no reply
     * carries back, so it sends credit messages (ofi conduit) */
    atomic_fetch_add(&got_imm[src_of(tok)][th], 1);
}

static void h_one(gex_Token_t tok, gex_AM_Arg_t th)
{
    CHECK(th >= 0 && th < T);
    atomic_fetch_add(&got_one[src_of(tok)][th], 1);
}

static void h_med(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t th, gex_AM_Arg_t seq)
{
    const gex_Rank_t src = src_of(tok);
    CHECK(th >= 0 && th < T);
    CHECK_EQ(nbytes, (size_t)(1 + seq % 700));
    const unsigned char *b = buf;
    for (size_t i = 0; i < nbytes; i++)
        CHECK_EQ(b[i], (unsigned char)(src * 7 + th * 3 + seq + i));
    atomic_fetch_add(&got_med[src][th], 1);
    gex_AM_ReplyShort1(tok, H_ACK, 0, th);
}

static void h_ack(gex_Token_t tok, gex_AM_Arg_t th)
{
    (void)tok;
    CHECK(th >= 0 && th < T);
    atomic_fetch_add(&acks[th], 1);
}

static void *poller(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_poll)) gasnet_AMPoll();
    return NULL;
}

/* A refused IMMEDIATE request sent nothing: poll and retry, a bounded number
 * of times (immediate.txt: "No operation should be retried as IMMEDIATE
 * indefinitely"; with threads contending on the ofi conduit refusals are
 * frequent), then send without the flag. */
static void imm_send(gex_Rank_t dst, gex_AM_Index_t h, gex_Flags_t f, int th)
{
    for (int tries = 0; gex_AM_RequestShort1(mp_tm, dst, h, f, th); tries++) {
        gasnet_AMPoll();
        sched_yield();
        if (tries == 100) f = 0;
    }
}

static void *sender(void *arg)
{
    const int th = (int)(intptr_t)arg;
    unsigned char buf[700];
    unsigned sent = 0;
    for (int seq = 0; seq < NAM; seq++) {
        for (gex_Rank_t k = 0; k < mp_n; k++) {
            const gex_Rank_t dst = (mp_me + th + k) % mp_n;
            /* every 2nd with IMMEDIATE */
            const gex_Flags_t f = seq % 2 ? 0 : GEX_FLAG_IMMEDIATE;
            imm_send(dst, H_IMM, f, th);
            const size_t n = 1 + (size_t)seq % 700;
            for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)(mp_me * 7 + th * 3 + seq + i);
            gex_AM_RequestMedium2(mp_tm, dst, H_MED, buf, n, GEX_EVENT_NOW, 0, th, seq);
            sent += 1;  /* the Medium's reply */
        }
    }
    /* then one-way (IMMEDIATE) Shorts only: nothing comes back, so the
     * receivers' credits return in credit messages that whichever thread
     * polls sends, while the other threads poll too */
    for (int seq = 0; seq < NONE; seq++)
        for (gex_Rank_t k = 0; k < mp_n; k++)
            imm_send((mp_me + th + k) % mp_n, H_ONE, GEX_FLAG_IMMEDIATE, th);
    MP_POLL_UNTIL(atomic_load(&acks[th]) >= sent);
    CHECK_EQ(atomic_load(&acks[th]), sent);
    return NULL;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_PAR_THREADS", 0);
    CHECK(mp_n <= 64);
    CHECK(gex_System_QueryMaxThreads() >= T + 2);
    gex_AM_Entry_t h[] = {
        { H_IMM, (gex_AM_Fn_t)h_imm, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "imm" },
        { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "med" },
        { H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "ack" },
        { H_ONE, (gex_AM_Fn_t)h_one, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "one" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));
    mp_attach(1 << 20);          /* its barrier: everyone's handlers are registered */

    mp_phase("threads");
    pthread_t p, s[T];
    CHECK_EQ(pthread_create(&p, NULL, poller, NULL), 0);
    for (int t = 0; t < T; t++) CHECK_EQ(pthread_create(&s[t], NULL, sender, (void *)(intptr_t)t), 0);
    for (int t = 0; t < T; t++) CHECK_EQ(pthread_join(s[t], NULL), 0);
    /* mp_barrier's handlers are for the main thread only */
    atomic_store(&stop_poll, 1);
    CHECK_EQ(pthread_join(p, NULL), 0);

    /* every rank's requests to this one: NAM of each kind per sender thread;
     * delivery needs this rank's polls */
    mp_phase("counts");
    for (gex_Rank_t r = 0; r < mp_n; r++)
        for (int t = 0; t < T; t++) {
            MP_POLL_UNTIL(atomic_load(&got_imm[r][t]) >= NAM && atomic_load(&got_med[r][t]) >= NAM &&
                          atomic_load(&got_one[r][t]) >= NONE);
            CHECK_EQ(atomic_load(&got_one[r][t]), NONE);
            CHECK_EQ(atomic_load(&got_imm[r][t]), NAM);
            CHECK_EQ(atomic_load(&got_med[r][t]), NAM);
        }
    mp_finish("%d threads x %d Shorts (1/2 IMMEDIATE) + %d Mediums + %d one-way IMMEDIATE Shorts to each rank, exact counts",
              T, NAM, NAM, NONE);
}
