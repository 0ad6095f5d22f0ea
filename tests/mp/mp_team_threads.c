/*
 * mp_team_threads.c: teams of non-primordial endpoints, one thread per
 * endpoint (seed 003 5.3 rationale 2: "a rank for every pthread").
 *
 * Every process creates K endpoints (indices 1..K, each with its own bound
 * segment for scratch) and one gex_TM_Create over the primordial team makes
 * the thread team T: rank r*K + t is endpoint 1+t of process r, and the
 * caller receives its K members in rank order.  Then K threads run at once,
 * thread t on its member, while the main thread runs collectives over the
 * primordial team:
 *  - barriers, broadcasts (8 B and 40000 B, every root), all-reduce and
 *    reduce-to-one over T, a GEX_OP_USER_NC all-reduce (rank order);
 *  - Split of T by thread index (one member per process) and by process
 *    (every member in one process), Create of the thread-index teams with
 *    T as parent (several teams per call, one caller per member), Dup of T;
 *  - two threads of a process creating the same team (both receive the
 *    same handles) while the third passes numargs == 0;
 *  - rank translations of T (gex_TM_TranslateRankToEP gives the endpoint).
 * Each thread destroys its members.  Handlers of one thread's team run in
 * whatever thread polls, so this also checks the engine's locking.
 */
#include "mp_util.h"
#include <gasnet_coll.h>
#include <pthread.h>

#define K 3
static gex_Rank_t N, ME, NT;
static gex_EP_t eps[K];
static gex_Segment_t segs[K];
static gex_TM_t team[K];          /* thread t's member of T */
static gex_TM_t shared_team[K];   /* the team two threads create together */
static pthread_barrier_t local_bar;

static void wait_ev(gex_Event_t e) { gex_Event_Wait(e); }
static char *scr(int t, unsigned k) { return (char *)gex_Segment_QueryAddr(segs[t]) + k * 4096u; }

static void first_op(const void *a1, void *a2, size_t count, const void *cdata)
{
    memcpy(a2, a1, count * sizeof(uint64_t));
}

static void exercise_sum(gex_TM_t tm, const uint64_t mine, uint64_t want)
{
    uint64_t s = 0;
    wait_ev(gex_Coll_ReduceToAllNB(tm, &s, &mine, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
    CHECK_EQ(s, want);
    wait_ev(gex_Coll_BarrierNB(tm, 0));
}

static void *thread_main(void *arg)
{
    const int t = (int)(intptr_t)arg;
    gex_TM_t tm = team[t];
    const gex_Rank_t me = gex_TM_QueryRank(tm), gid = ME * K + (gex_Rank_t)t;
    CHECK_EQ(me, gid);
    CHECK_EQ(gex_TM_QuerySize(tm), NT);
    CHECK_PTR_EQ(gex_TM_QueryEP(tm), eps[t]);

    for (int i = 0; i < 50; i++) wait_ev(gex_Coll_BarrierNB(tm, 0));

    uint8_t *big = malloc(40000);
    CHECK(big);
    for (gex_Rank_t root = 0; root < NT; root++) {
        uint64_t v = root == me ? 0xabc000u + root : 0, out = 0;
        wait_ev(gex_Coll_BroadcastNB(tm, root, &out, &v, 8, 0));
        CHECK_EQ(out, 0xabc000u + root);
        if (root % 2 == 0 || NT < 4) {
            memset(big, 0, 40000);
            if (root == me) mp_fill(big, 40000, root, 40000);
            wait_ev(gex_Coll_BroadcastNB(tm, root, big, big, 40000, 0));
            CHECK_PATTERN(big, 40000, root, 40000);
        }
    }
    free(big);

    exercise_sum(tm, gid, (uint64_t)NT * (NT - 1) / 2);
    for (gex_Rank_t root = 0; root < NT; root += 2) {
        uint64_t v = gid * 3, mx = 0;
        wait_ev(gex_Coll_ReduceToOneNB(tm, root, &mx, &v, GEX_DT_U64, 8, 1, GEX_OP_MAX, NULL,
                                       NULL, 0));
        if (me == root) CHECK_EQ(mx, 3 * (uint64_t)(NT - 1));
    }
    uint64_t ord[5], ordo[5];
    for (int i = 0; i < 5; i++) ord[i] = (uint64_t)gid << 8 | (uint64_t)i;
    wait_ev(gex_Coll_ReduceToAllNB(tm, ordo, ord, GEX_DT_U64, 8, 5, GEX_OP_USER_NC, first_op,
                                   NULL, 0));
    for (int i = 0; i < 5; i++) CHECK_EQ(ordo[i], (uint64_t)i); /* rank 0's values */

    /* Split by thread index: one member per process. */
    gex_TM_t by_t, by_proc, cr, du;
    gex_TM_Split(&by_t, tm, t, (int)ME, scr(t, 1), 4096, 0);
    CHECK_EQ(gex_TM_QuerySize(by_t), N);
    CHECK_EQ(gex_TM_QueryRank(by_t), ME);
    for (gex_Rank_t r = 0; r < N; r++) {
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(by_t, r, 0);
        CHECK(loc.gex_rank == r && loc.gex_ep_index == gex_EP_QueryIndex(eps[t]));
    }
    exercise_sum(by_t, ME, (uint64_t)N * (N - 1) / 2);

    /* Split by process: every member lives here. */
    gex_TM_Split(&by_proc, tm, (int)ME, -t, scr(t, 2), 4096, 0);
    CHECK_EQ(gex_TM_QuerySize(by_proc), K);
    CHECK_EQ(gex_TM_QueryRank(by_proc), K - 1 - t);
    exercise_sum(by_proc, (uint64_t)t, K * (K - 1) / 2);

    /* Create with T as parent: one team per thread index, by jobrank. */
    gex_EP_Location_t args[64];
    CHECK(N <= 64);
    for (gex_Rank_t r = 0; r < N; r++)
        args[r] = (gex_EP_Location_t){ r, gex_EP_QueryIndex(eps[t]) };
    gex_Addr_t a = scr(t, 3);
    gex_TM_Create(&cr, 1, tm, args, N, &a, 4096,
                  GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_RANK_IS_JOBRANK);
    CHECK_EQ(gex_TM_QueryRank(cr), ME);
    exercise_sum(cr, ME + 1, (uint64_t)N * (N + 1) / 2);

    /* Threads 0 and 1 create the same team (their two endpoints in every
     * process), thread 2 joins no team. */
    gex_EP_Location_t pair[128];
    gex_TM_t got[2] = { GEX_TM_INVALID, GEX_TM_INVALID };
    size_t np = 0;
    for (gex_Rank_t r = 0; r < N; r++)
        for (int k = 0; k < 2; k++) pair[np++] = (gex_EP_Location_t){ r * K + (gex_Rank_t)k, 0 };
    gex_Addr_t pa[2] = { (gex_Addr_t)(uintptr_t)(4 * 4096), (gex_Addr_t)(uintptr_t)(4 * 4096) };
    if (t < 2) {
        /* gex_rank is a rank of T: its endpoint index is what args says */
        for (size_t i = 0; i < np; i++)
            pair[i].gex_ep_index = gex_EP_QueryIndex(eps[i % 2]);
        gex_TM_Create(got, 2, tm, pair, np, pa, 4096,
                      GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET);
        shared_team[t] = got[t];
    } else {
        gex_TM_Create(NULL, 0, tm, NULL, 0, NULL, 0,
                      GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET);
    }
    pthread_barrier_wait(&local_bar);
    if (t < 2) {
        CHECK(shared_team[0] != GEX_TM_INVALID && shared_team[1] != GEX_TM_INVALID);
        CHECK(got[0] == shared_team[0] && got[1] == shared_team[1]); /* same handles */
        gex_TM_t mine = shared_team[t];
        CHECK_EQ(gex_TM_QueryRank(mine), ME * 2 + (gex_Rank_t)t);
        CHECK_PTR_EQ(gex_TM_QueryEP(mine), eps[t]);
        exercise_sum(mine, 1, 2 * (uint64_t)N);
    }

    /* Dup of T */
    gex_TM_Dup(&du, tm, scr(t, 5), 4096, GEX_FLAG_TM_LOCAL_SCRATCH);
    exercise_sum(du, 2, 2 * (uint64_t)NT);

    gex_Memvec_t sv;
    CHECK(gex_TM_Destroy(by_t, &sv, 0) && sv.gex_addr == scr(t, 1));
    CHECK(gex_TM_Destroy(by_proc, &sv, 0) && sv.gex_addr == scr(t, 2));
    CHECK(gex_TM_Destroy(cr, &sv, 0) && sv.gex_addr == scr(t, 3));
    if (t < 2) CHECK(gex_TM_Destroy(shared_team[t], &sv, 0) && sv.gex_addr == scr(t, 4));
    CHECK(gex_TM_Destroy(du, &sv, GEX_FLAG_SCRATCH_SEG_OFFSET) &&
          (uintptr_t)sv.gex_addr == 5 * 4096u);
    wait_ev(gex_Coll_BarrierNB(tm, 0));
    CHECK(gex_TM_Destroy(tm, &sv, 0) && sv.gex_addr == scr(t, 0));
    return NULL;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_TEAM_THREADS", 0);
    N = mp_n;
    ME = mp_me;
    NT = N * K;
    mp_phase("endpoints and segments");
    for (int t = 0; t < K; t++) {
        CHECK_OK(gex_EP_Create(&eps[t], mp_client, GEX_EP_CAPABILITY_ALL, 0));
        CHECK_EQ(gex_EP_QueryIndex(eps[t]), 1 + t);
        CHECK_OK(gex_Segment_Create(&segs[t], mp_client, NULL, 64 * 1024, GEX_MK_HOST, 0));
        CHECK_OK(gex_EP_BindSegment(eps[t], segs[t], 0));
    }
    mp_barrier();

    mp_phase("create the thread team");
    gex_EP_Location_t *args = malloc(NT * sizeof *args);
    CHECK(args);
    for (gex_Rank_t r = 0; r < N; r++)
        for (int t = 0; t < K; t++)
            args[r * K + (gex_Rank_t)t] = (gex_EP_Location_t){ r, (gex_EP_Index_t)(1 + t) };
    gex_Addr_t scr0[K];
    for (int t = 0; t < K; t++) scr0[t] = scr(t, 0);
    gex_TM_Create(team, K, mp_tm, args, NT, scr0, 4096, GEX_FLAG_TM_LOCAL_SCRATCH);
    free(args);
    for (int t = 0; t < K; t++) {
        CHECK_EQ(gex_TM_QueryRank(team[t]), ME * K + (gex_Rank_t)t);
        CHECK_EQ(gex_TM_TranslateJobrankToRank(team[t], ME), ME * K);
        for (gex_Rank_t r = 0; r < NT; r++) {
            gex_EP_Location_t loc = gex_TM_TranslateRankToEP(team[t], r, 0);
            CHECK(loc.gex_rank == r / K && loc.gex_ep_index == 1 + r % K);
            CHECK_EQ(gex_TM_TranslateRankToJobrank(team[t], r), r / K);
        }
    }

    mp_phase("threads");
    pthread_barrier_init(&local_bar, NULL, K);
    pthread_t th[K];
    for (int t = 0; t < K; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0);
    /* The main thread keeps the primordial team busy meanwhile. */
    for (int i = 0; i < 30; i++) {
        uint64_t v = ME, s = 0;
        wait_ev(gex_Coll_ReduceToAllNB(mp_tm, &s, &v, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
        CHECK_EQ(s, (uint64_t)N * (N - 1) / 2);
    }
    for (int t = 0; t < K; t++) CHECK(pthread_join(th[t], NULL) == 0);
    pthread_barrier_destroy(&local_bar);
    mp_finish("%d endpoint threads per process: collectives, split, create, dup, destroy", K);
}
