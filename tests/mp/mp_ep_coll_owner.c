/*
 * mp_ep_coll_owner.c: collectives over GEX_FLAG_EP_SERIALIZED endpoints
 * progress only in the endpoint's owner thread, and still complete
 * (issue 9, docs/endpoints.md).
 *
 * Every process runs T worker threads, thread t on serialized endpoint t+1
 * with a team of one rank per process (gex_TM_Create), and one "noise"
 * thread that polls (gasnet_AMPoll) all the time without ever using those
 * endpoints.  Phases:
 *
 *  1. inattentive owner (2+ ranks): rank 0's worker 0 starts a ReduceToAll
 *     on its team and then makes no GEX call; once every other rank has
 *     started its part too, rank 0's noise thread keeps polling for a while
 *     and checks that the result buffer is as the initiation left it: no
 *     thread but the owner advanced the collective (shared-memory and AM algorithms
 *     alike).  Then the worker waits for it: it completes with the right sum.
 *  2. churn: ITERS rounds of barrier / broadcast (rotating root) /
 *     ReduceToAll on every worker's team at once, data checked; every 8th
 *     round the worker sleeps between starting and waiting (the noise
 *     thread polls meanwhile), which must not keep the collective from
 *     completing once the owner waits.
 *
 * Debug builds also check, inside GEX, that no progress engine sends from a
 * serialized endpoint in a thread that does not own it; the ThreadSanitizer
 * build (tests/tsan-check.sh) checks the now lock-free rings.  The .mpt
 * timeouts bound the run: a collective that only the wrong thread could
 * finish would hang.  With GEX_FORCE_REFERENCE=coll the AM algorithms run.
 */
#include "mp_util.h"
#include <gasnet_coll.h>
#include <pthread.h>
#include <time.h>

#define T 2
#define ITERS 90
#define BCAST 2048
#define SEGSZ 65536
#define SCRATCH 16384
#define POISON 0xdeadbeefcafef00dull
#define H_GO (MP_H_FIRST_FREE + 0)
#define H_STARTED (MP_H_FIRST_FREE + 1)

static gex_Rank_t N, ME;
static gex_EP_t eps[T];
static gex_Segment_t segs[T];
static gex_TM_t team[T];
static atomic_int stop_noise, go, w0_idle, noise_checked;
static atomic_uint started;   /* rank 0: other ranks that started phase 1's reduction */
static uint64_t p1_dst;       /* rank 0 worker 0's result buffer for phase 1 */
static uint64_t p1_snap;      /* ... as the initiation left it (an AM algorithm may have
                                 started to accumulate there) */

static void h_go(gex_Token_t tok) { (void)tok; atomic_store(&go, 1); }
static void h_started(gex_Token_t tok) { (void)tok; atomic_fetch_add(&started, 1); }

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0) {}
}

static long slack(void)
{
    const char *s = getenv("GEX_TEST_TIME_SLACK");
    long v = s ? atol(s) : 1;
    return v < 1 ? 1 : v;
}

static void *noise_main(void *arg)
{
    (void)arg;
    if (ME == 0 && N >= 2) {
        /* phase 1: let the others start once worker 0 is inattentive */
        while (!atomic_load(&w0_idle)) sched_yield();
        for (gex_Rank_t r = 1; r < N; r++) CHECK_OK(gex_AM_RequestShort0(mp_tm, r, H_GO, 0));
        MP_POLL_UNTIL(atomic_load(&started) == N - 1);
        /* their messages are at (or on their way to) our endpoint 1 now */
        const long ms = 50 * slack();
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            gasnet_AMPoll();
            clock_gettime(CLOCK_MONOTONIC, &t1);
        } while ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < ms);
        CHECK_MSG(p1_dst == p1_snap, "the reduction of an inattentive owner's team was "
                  "advanced by another thread (its result went from %llu to %llu)",
                  (unsigned long long)p1_snap, (unsigned long long)p1_dst);
        atomic_store(&noise_checked, 1);
    }
    while (!atomic_load(&stop_noise)) {
        gasnet_AMPoll();
        sched_yield();
    }
    return NULL;
}

static void phase1(int t)
{
    if (N < 2 || t != 0) return;
    const uint64_t mine = ME + 1, want = (uint64_t)N * (N + 1) / 2;
    if (ME == 0) {
        p1_dst = POISON;
        gex_Event_t ev = gex_Coll_ReduceToAllNB(team[0], &p1_dst, &mine, GEX_DT_U64,
                                                sizeof(uint64_t), 1, GEX_OP_ADD, NULL, NULL, 0);
        p1_snap = p1_dst;
        CHECK(p1_snap != want);   /* the other ranks have not started */
        atomic_store(&w0_idle, 1);   /* no GEX call until the noise thread has checked */
        while (!atomic_load(&noise_checked)) sched_yield();
        gex_Event_Wait(ev);
        CHECK_EQ(p1_dst, want);
    } else {
        uint64_t dst = POISON;
        MP_POLL_UNTIL(atomic_load(&go));
        gex_Event_t ev = gex_Coll_ReduceToAllNB(team[0], &dst, &mine, GEX_DT_U64,
                                                sizeof(uint64_t), 1, GEX_OP_ADD, NULL, NULL, 0);
        CHECK_OK(gex_AM_RequestShort0(mp_tm, 0, H_STARTED, 0));
        gex_Event_Wait(ev);
        CHECK_EQ(dst, want);
    }
}

static void *worker_main(void *arg)
{
    const int t = (int)(intptr_t)arg;
    gex_TM_t tm = team[t];
    /* the first call naming the endpoint makes this thread its owner */
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    phase1(t);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

    unsigned char *src = malloc(BCAST), *dst = malloc(BCAST);
    CHECK(src && dst);
    for (int i = 0; i < ITERS; i++) {
        const int nap = (i % 8) == 7;
        gex_Event_t ev;
        switch (i % 3) {
        case 0:
            ev = gex_Coll_BarrierNB(tm, 0);
            if (nap) sleep_ms(3);
            gex_Event_Wait(ev);
            break;
        case 1: {
            const gex_Rank_t root = (gex_Rank_t)(i / 3) % N;
            mp_fill(src, BCAST, (uint32_t)(100 * t + i), root);
            memset(dst, 0, BCAST);
            ev = gex_Coll_BroadcastNB(tm, root, dst, src, BCAST, 0);
            if (nap) sleep_ms(3);
            gex_Event_Wait(ev);
            CHECK_PATTERN(dst, BCAST, (uint32_t)(100 * t + i), root);
            break;
        }
        default: {
            const uint64_t mine = (uint64_t)(ME + 1) * (uint64_t)(i + 1) + (uint64_t)t;
            uint64_t sum = POISON;
            ev = gex_Coll_ReduceToAllNB(tm, &sum, &mine, GEX_DT_U64, sizeof(uint64_t), 1,
                                        GEX_OP_ADD, NULL, NULL, 0);
            if (nap) sleep_ms(3);
            gex_Event_Wait(ev);
            CHECK_EQ(sum, (uint64_t)(i + 1) * N * (N + 1) / 2 + (uint64_t)t * N);
            break;
        }
        }
    }
    free(src);
    free(dst);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    return NULL;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_EP_COLL_OWNER", 0);
    N = mp_n;
    ME = mp_me;
    CHECK(N <= 64);
    gex_AM_Entry_t h[] = {
        { H_GO, (gex_AM_Fn_t)h_go, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "go" },
        { H_STARTED, (gex_AM_Fn_t)h_started, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL,
          "started" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, 2));
    mp_attach(4096);

    mp_phase("serialized endpoints and their teams");
    for (int t = 0; t < T; t++) {
        CHECK_OK(gex_EP_Create(&eps[t], mp_client, GEX_EP_CAPABILITY_ALL, GEX_FLAG_EP_SERIALIZED));
        CHECK_EQ(gex_EP_QueryIndex(eps[t]), 1 + t);
        CHECK_OK(gex_Segment_Create(&segs[t], mp_client, NULL, SEGSZ, GEX_MK_HOST, 0));
        CHECK_OK(gex_EP_BindSegment(eps[t], segs[t], 0));
    }
    CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, eps, T, 0));
    for (int t = 0; t < T; t++) {
        gex_EP_Location_t args[64];
        for (gex_Rank_t r = 0; r < N; r++)
            args[r] = (gex_EP_Location_t){ r, (gex_EP_Index_t)(1 + t) };
        gex_Addr_t scr = gex_Segment_QueryAddr(segs[t]);
        gex_TM_Create(&team[t], 1, mp_tm, args, N, &scr, SCRATCH, GEX_FLAG_TM_LOCAL_SCRATCH);
        CHECK(team[t] != GEX_TM_INVALID);
    }

    mp_phase("owner threads and a noise thread");
    pthread_t noise, th[T];
    CHECK(pthread_create(&noise, NULL, noise_main, NULL) == 0);
    for (int t = 0; t < T; t++)
        CHECK(pthread_create(&th[t], NULL, worker_main, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < T; t++) CHECK(pthread_join(th[t], NULL) == 0);
    atomic_store(&stop_noise, 1);
    CHECK(pthread_join(noise, NULL) == 0);
    if (ME == 0 && N >= 2) CHECK(atomic_load(&noise_checked));
    mp_finish("%d owner threads, collectives on serialized endpoints: only owners advance "
              "them%s, %d rounds with inattentive owners completed", T,
              N >= 2 ? " (checked with an inattentive owner)" : "", ITERS);
}
