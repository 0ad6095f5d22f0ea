/*
 * mp_ep_threads.c: a thread-per-endpoint client (issue 9).  Every process
 * runs T threads; thread t owns endpoint t+1 (created by the main thread in
 * order, so the index is the same everywhere), with its own bound segment,
 * and a team of one rank per process, made with gex_TM_Create over the
 * primordial team: team t = endpoint t+1 of every process, rank = jobrank.
 * With the argument "serialized" the endpoints are created with the GEX
 * extension GEX_FLAG_EP_SERIALIZED.
 *
 * The threads run at once, each only on its own endpoint:
 *  - AM: Short requests through the team and Medium requests through a
 *    TM-pair (gex_TM_Pair(ep, t+1), addressed by jobrank), each to every
 *    rank; the handler checks that it runs for the right endpoint and
 *    thread index, counts per sender and replies; exact counts of requests
 *    and replies are checked;
 *  - RMA: puts (NBI, gex_NBI_Wait) of a per-(thread, source) pattern into
 *    the next rank's endpoint segment, checked by the receiver, and
 *    blocking gets of the previous rank's data, checked by the getter;
 *  - atomics: an atomic domain per thread team; every thread fetch-adds
 *    (NB) and adds (NBI) to a counter in rank 0's segment of its endpoint:
 *    exact final value, strictly increasing fetched values per thread;
 *  - per-endpoint NBI completion (serialized endpoints, AM-based RMA, 2+
 *    ranks): rank 1's thread 0 stops polling; rank 0's thread 0 puts to it
 *    and its gex_NBI_Test stays NOT_READY while rank 0's thread 1 puts to
 *    rank 1's (attentive) thread 1 and its gex_NBI_Wait returns: completion
 *    is per thread, so per endpoint for this client.  Then thread 1 lets
 *    rank 1's thread 0 go on and thread 0's put completes.
 * Each phase ends with a barrier over the thread's own team.
 */
#include "mp_util.h"
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>
#include <pthread.h>

#define T 4
#define NAM 300                /* AM requests of each kind per (thread, target) */
#define SEGSZ (256 * 1024)
#define SCRATCH 4096
#define PUTSZ 4096             /* bytes each thread puts to its next rank */
#define H_SHORT (MP_H_FIRST_FREE + 0)
#define H_MED (MP_H_FIRST_FREE + 1)
#define H_ACK (MP_H_FIRST_FREE + 2)
#define H_GO (MP_H_FIRST_FREE + 3)

static gex_Rank_t N, ME;
static int serialized, am_rma;  /* am_rma: puts to peers travel as AMs */
static gex_EP_t eps[T];
static gex_Segment_t segs[T];
static gex_TM_t team[T];
/* per thread: requests received from each rank, replies received */
static atomic_uint got_short[T][64], got_med[T][64], acks[T];
static atomic_int go_flag, ready_flag, inattentive, may_put, a_pending, a_done;

static char *seg_of(int t) { return gex_Segment_QueryAddr(segs[t]); }

static int my_thread(gex_Token_t tok)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(tok, &info, GEX_TI_EP | GEX_TI_SRCRANK) & GEX_TI_EP);
    const gex_EP_Index_t idx = gex_EP_QueryIndex(info.gex_ep);
    CHECK_MSG(idx >= 1 && idx <= T, "AM delivered to endpoint %u", (unsigned)idx);
    CHECK_MSG(info.gex_srcrank < N, "source rank %u", (unsigned)info.gex_srcrank);
    return (int)idx - 1;
}

static void h_short(gex_Token_t tok, gex_AM_Arg_t t, gex_AM_Arg_t src, gex_AM_Arg_t i)
{
    const int mine = my_thread(tok);
    CHECK_EQ(mine, t);
    CHECK(src >= 0 && (gex_Rank_t)src < N && i >= 0 && i < NAM);
    atomic_fetch_add(&got_short[mine][src], 1);
    gex_AM_ReplyShort1(tok, H_ACK, 0, t);
}

static void h_med(gex_Token_t tok, void *buf, size_t n, gex_AM_Arg_t t, gex_AM_Arg_t src,
                  gex_AM_Arg_t i)
{
    const int mine = my_thread(tok);
    CHECK_EQ(mine, t);
    CHECK_EQ(n, 64 + (size_t)i);
    CHECK_PATTERN(buf, n, (uint32_t)(t * 1000 + src), (uint32_t)i);
    atomic_fetch_add(&got_med[mine][src], 1);
    gex_AM_ReplyShort1(tok, H_ACK, 0, t);
}

static void h_ack(gex_Token_t tok, gex_AM_Arg_t t)
{
    CHECK_EQ(my_thread(tok), t);
    atomic_fetch_add(&acks[t], 1);
}

static void h_go(gex_Token_t tok, gex_AM_Arg_t what)
{
    (void)tok;
    atomic_store(what ? &go_flag : &ready_flag, 1);
}

static void team_barrier(int t) { gex_Event_Wait(gex_Coll_BarrierNB(team[t], 0)); }

/* Base address of rank r's thread-t segment, in r's address space. */
static char *peer_seg(int t, gex_Rank_t r)
{
    void *owner = NULL;
    uintptr_t size = 0;
    CHECK_OK(gex_Segment_QueryBound(team[t], r, &owner, NULL, &size));
    CHECK(owner && size == SEGSZ);
    return owner;
}

/* The per-endpoint NBI completion phase (see the file comment). */
static void nbi_per_ep(int t)
{
    char *seg = seg_of(t);
    char *dst = (N >= 2 ? peer_seg(t, 1) : seg) + SCRATCH + 2 * PUTSZ;   /* rank 1's area */
    if (ME == 1 && t == 0) {
        /* inattentive: no GEX call until rank 0's thread 1 says go */
        atomic_store(&inattentive, 1);
        while (!atomic_load(&go_flag)) sched_yield();
    } else if (ME == 1 && t == 1) {
        while (!atomic_load(&inattentive)) sched_yield();
        CHECK_OK(gex_AM_RequestShort1(team[1], 0, H_GO, 0, 0));   /* ready */
        MP_POLL_UNTIL(atomic_load(&go_flag));
    } else if (ME == 0 && t == 0) {
        while (!atomic_load(&may_put)) sched_yield();
        mp_fill(seg + SCRATCH + 3 * PUTSZ, PUTSZ, 77, 1);
        CHECK_OK(gex_RMA_PutNBI(team[0], 1, dst, seg + SCRATCH + 3 * PUTSZ, PUTSZ,
                                GEX_EVENT_DEFER, 0));
        for (int i = 0; i < 100; i++) gasnet_AMPoll();
        CHECK_RC(gex_NBI_Test(GEX_EC_PUT, 0), GASNET_ERR_NOT_READY);
        atomic_store(&a_pending, 1);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        atomic_store(&a_done, 1);
    } else if (ME == 0 && t == 1) {
        MP_POLL_UNTIL(atomic_load(&ready_flag));
        atomic_store(&may_put, 1);
        while (!atomic_load(&a_pending)) sched_yield();
        mp_fill(seg + SCRATCH + 3 * PUTSZ, PUTSZ, 77, 2);
        CHECK_OK(gex_RMA_PutNBI(team[1], 1, dst, seg + SCRATCH + 3 * PUTSZ, PUTSZ,
                                GEX_EVENT_DEFER, 0));
        gex_NBI_Wait(GEX_EC_PUT, 0);   /* rank 1's thread 1 is attentive */
        CHECK_MSG(!atomic_load(&a_done), "thread 0's put completed although its target "
                  "endpoint was not polled");
        CHECK_OK(gex_AM_RequestShort1(team[1], 1, H_GO, 0, 1));   /* go */
    }
    team_barrier(t);
    if (ME == 1 && (t == 0 || t == 1))
        CHECK_PATTERN(seg + SCRATCH + 2 * PUTSZ, PUTSZ, 77, (uint32_t)(t + 1));
}

static void *thread_main(void *arg)
{
    const int t = (int)(intptr_t)arg;
    gex_EP_t ep = eps[t];
    gex_TM_t tm = team[t];
    gex_AM_Entry_t h[] = {
        { H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 3, NULL, "s" },
        { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3, NULL, "m" },
        { H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "a" },
        { H_GO, (gex_AM_Fn_t)h_go, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "g" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(ep, h, sizeof h / sizeof h[0]));
    CHECK_EQ(gex_TM_QueryRank(tm), ME);
    CHECK_EQ(gex_TM_QuerySize(tm), N);
    CHECK_PTR_EQ(gex_TM_QueryEP(tm), ep);
    team_barrier(t);   /* every thread's handlers are registered */

    /* AM: Shorts through the team, Mediums through a TM-pair */
    gex_TM_t pair = gex_TM_Pair(ep, (gex_EP_Index_t)(t + 1));
    uint8_t buf[64 + NAM];
    for (int i = 0; i < NAM; i++) {
        for (gex_Rank_t k = 0; k < N; k++) {
            const gex_Rank_t r = (ME + k) % N;
            CHECK_OK(gex_AM_RequestShort3(tm, r, H_SHORT, 0, t, (gex_AM_Arg_t)ME, i));
            mp_fill(buf, 64 + (size_t)i, (uint32_t)(t * 1000 + (int)ME), (uint32_t)i);
            CHECK_OK(gex_AM_RequestMedium3(pair, r, H_MED, buf, 64 + (size_t)i, GEX_EVENT_NOW,
                                           0, t, (gex_AM_Arg_t)ME, i));
        }
    }
    MP_POLL_UNTIL(atomic_load(&acks[t]) == 2u * NAM * N);
    team_barrier(t);
    for (gex_Rank_t r = 0; r < N; r++) {
        CHECK_EQ(atomic_load(&got_short[t][r]), NAM);
        CHECK_EQ(atomic_load(&got_med[t][r]), NAM);
    }
    CHECK_EQ(atomic_load(&acks[t]), 2u * NAM * N);

    /* RMA: put to the next rank's endpoint segment, get from the previous */
    char *seg = seg_of(t);
    const gex_Rank_t next = (ME + 1) % N, prev = (ME + N - 1) % N;
    char *src = seg + SCRATCH, *land = seg + SCRATCH + PUTSZ;
    char *next_land = peer_seg(t, next) + SCRATCH + PUTSZ;
    char *prev_land = peer_seg(t, prev) + SCRATCH + PUTSZ;
    mp_fill(src, PUTSZ, (uint32_t)(500 + t), ME);
    for (size_t off = 0; off < PUTSZ; off += 512)
        CHECK_OK(gex_RMA_PutNBI(tm, next, next_land + off, src + off, 512, GEX_EVENT_DEFER, 0));
    gex_NBI_Wait(GEX_EC_PUT, 0);
    CHECK_RC(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
    team_barrier(t);
    CHECK_PATTERN(land, PUTSZ, (uint32_t)(500 + t), prev);
    char *got = malloc(PUTSZ);
    CHECK(got);
    CHECK_OK(gex_RMA_GetBlocking(pair, got, prev, prev_land, PUTSZ, 0));   /* what prev got */
    CHECK_PATTERN(got, PUTSZ, (uint32_t)(500 + t), (prev + N - 1) % N);
    free(got);
    team_barrier(t);

    /* atomics over the thread's team, on rank 0's copy of this thread's counter */
    gex_AD_t ad;
    gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_ADD, 0);
    uint64_t *ctr = (uint64_t *)(seg + SCRATCH + 4 * PUTSZ), *ctr0 = (uint64_t *)(peer_seg(t, 0) +
                                                                                SCRATCH + 4 * PUTSZ);
    *ctr = 0;
    team_barrier(t);
    uint64_t last = 0;
    for (int i = 0; i < NAM; i++) {
        uint64_t old = UINT64_MAX;
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, 0, ctr0, GEX_OP_FADD, 1, 0, 0));
        CHECK_MSG(old < 2u * NAM * N && (i == 0 || old > last), "fetched %llu after %llu",
                  (unsigned long long)old, (unsigned long long)last);
        last = old;
        CHECK_OK(gex_AD_OpNBI_U64(ad, NULL, 0, ctr0, GEX_OP_ADD, 1, 0, 0));
    }
    gex_NBI_Wait(GEX_EC_RMW, 0);
    team_barrier(t);
    if (ME == 0) CHECK_EQ(*ctr, 2u * NAM * N);
    team_barrier(t);
    gex_AD_Destroy(ad);

    if (serialized && am_rma && N >= 2) nbi_per_ep(t);
    team_barrier(t);
    return NULL;
}

int main(int argc, char **argv)
{
    serialized = argc > 1 && !strcmp(argv[1], "serialized");
    const char *fr = getenv("GEX_FORCE_REFERENCE");
    am_rma = !mp_pshm_enabled() || (fr && (strstr(fr, "rma") || strstr(fr, "all")));
    mp_init(&argc, &argv, "MP_EP_THREADS", 0);
    N = mp_n;
    ME = mp_me;
    CHECK(N <= 64);
    mp_attach(4096);

    mp_phase("endpoints and segments");
    const gex_Flags_t fl = serialized ? GEX_FLAG_EP_SERIALIZED : 0;
    for (int t = 0; t < T; t++) {
        CHECK_OK(gex_EP_Create(&eps[t], mp_client, GEX_EP_CAPABILITY_ALL, fl));
        CHECK_EQ(gex_EP_QueryIndex(eps[t]), 1 + t);
        CHECK_EQ(gex_EP_QueryFlags(eps[t]), fl);
        CHECK_OK(gex_Segment_Create(&segs[t], mp_client, NULL, SEGSZ, GEX_MK_HOST, 0));
        CHECK_OK(gex_EP_BindSegment(eps[t], segs[t], 0));
    }
    /* bad flags are refused (an unknown bit; the extension bit is accepted above) */
    gex_EP_t bad;
    CHECK_RC(gex_EP_Create(&bad, mp_client, GEX_EP_CAPABILITY_ALL, (gex_Flags_t)1u << 12),
             GASNET_ERR_BAD_ARG);
    CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, eps, T, 0));

    mp_phase("teams of one rank per thread");
    for (int t = 0; t < T; t++) {
        gex_EP_Location_t args[64];
        for (gex_Rank_t r = 0; r < N; r++)
            args[r] = (gex_EP_Location_t){ r, (gex_EP_Index_t)(1 + t) };
        gex_Addr_t scr = seg_of(t);
        gex_TM_Create(&team[t], 1, mp_tm, args, N, &scr, SCRATCH, GEX_FLAG_TM_LOCAL_SCRATCH);
        CHECK(team[t] != GEX_TM_INVALID);
    }

    mp_phase("threads");
    pthread_t th[T];
    for (int t = 0; t < T; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < T; t++) CHECK(pthread_join(th[t], NULL) == 0);

    mp_finish("%d threads with %s endpoints: AM counts, RMA data, atomics, teams, TM-pairs%s", T,
              serialized ? "serialized" : "thread-safe",
              serialized && am_rma && N >= 2 ? ", per-endpoint NBI completion" : "");
}
