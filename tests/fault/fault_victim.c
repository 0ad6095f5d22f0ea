/*
 * fault_victim.c: one GEX job in which one rank meets a fault while the job
 * runs a chosen phase; driven by tests/fault/fault-matrix.sh (issue 28).
 *
 *   fault_victim PHASE FAULT VICTIM [SECONDS [HOLD]] [marker...]
 *
 * PHASE is what the job is doing when the fault comes:
 *   init     the victim holds back before gex_Client_Init while the others
 *            wait inside it (for the bootstrap exchange);
 *   am       rounds of an all-to-all flood of Medium AMs, every payload
 *            checked by its handler and every message counted;
 *   rma      rounds of puts of a pattern to every peer's segment and gets of
 *            each peer's own block, all checked byte by byte;
 *   barrier  rounds of gex_Coll_BarrierNB, each preceded by a blocking put of
 *            the round's number to the right neighbour, which must find it
 *            in its segment after the barrier;
 *   team     rounds of gex_TM_Split (odd/even), a ReduceToAll and a
 *            Broadcast on the new team, checked, then gex_TM_Destroy;
 *   exit     the job's end: every rank but the victim calls gasnet_exit(0)
 *            (after rank 0 printed PASS), the victim meets its fault.
 * FAULT is what the victim does to itself, in the middle of round 2 of the
 * phase (before gex_Client_Init for init, instead of gasnet_exit for exit):
 *   exit3    exit(3), without gasnet_exit;
 *   abort    abort();
 *   ext      nothing: the script sends the signal (SIGKILL, SIGSTOP and
 *            SIGCONT) after the victim's "ready" line.
 * VICTIM is the victim's rank ("none": a job without a fault).  The loop phases run rounds until rank 0 has
 * seen SECONDS (default 3) pass, deciding at each round's end so every rank
 * stops after the same round.  HOLD (default 1.5) is how long the victim
 * of an ext fault waits in init and exit for the script's signal.
 *
 * Lines for the script, each one write (ranks share the output):
 *   fault_victim: rank R pid P job J          before gex_Client_Init
 *   fault_victim: rank R ready PHASE          the phase runs (after round 1)
 *   fault_victim: rank R injecting FAULT at MS   (MS: CLOCK_REALTIME in ms)
 *   fault_victim: PASS phase PHASE rounds N   rank 0, the data all checked
 * Any wrong value ends the job with gasnet_exit(1) and a FAIL line
 * (mp_util.h), so a survived pause cannot hide corrupted data.
 */
#include "../mp/mp_util.h"
#include <gasnet_coll.h>
#include <time.h>

#define H_ARRIVE  (MP_H_FIRST_FREE + 0)
#define H_RELEASE (MP_H_FIRST_FREE + 1)
#define H_FLOOD   (MP_H_FIRST_FREE + 2)

#define FLOOD_MSGS  64            /* Mediums per peer per round */
#define FLOOD_BYTES 256
#define RMA_BLOCK   (16 * 1024)   /* bytes per peer per round */
#define SEG_SIZE    (1u << 20)

enum fault { F_EXIT3, F_ABORT, F_EXT };

static const char *phase;
static enum fault fault;
static unsigned victim;
static double seconds = 3.0, hold = 1.5;
static char *seg_base;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) n = (int)sizeof line - 1;
    fflush(stdout);
    if (write(STDOUT_FILENO, line, (size_t)n) < 0) _exit(98);
}

/* Sleeps without calling GEX; a SIGSTOP in between only makes it longer. */
static void pause_s(double s)
{
    double until = mono_s() + s;
    while (mono_s() < until) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
}

/* The rank before gex_Client_Init: gexrun's variable, else what PMIx
 * launchers set (tests/multihost: mpirun, srun --mpi=pmix). */
static unsigned env_rank(void)
{
    static const char *const names[] = { "GEX_JOB_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK",
                                         "SLURM_PROCID" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *r = getenv(names[i]);
        if (r && *r) return (unsigned)atoi(r);
    }
    return 0u;
}

/* The victim's own fault, announced with the time it happens. */
static void inject(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    say("fault_victim: rank %u injecting %s at %lld\n", env_rank(),
        fault == F_EXIT3 ? "exit3" : "abort", ms);
    if (fault == F_EXIT3) exit(3);
    abort();
}

/* ---- Round barrier that also carries rank 0's decision to stop ---- */
static uint32_t sync_gen;
static atomic_uint arrived;
static atomic_uint released_gen, released_stop;

static void h_arrive(gex_Token_t t, gex_AM_Arg_t gen)
{
    (void)t;
    /* from a rank in rank 0's current round, or one already in the next */
    CHECK((uint32_t)gen == sync_gen || (uint32_t)gen == sync_gen + 1);
    atomic_fetch_add(&arrived, 1);
}

static void h_release(gex_Token_t t, gex_AM_Arg_t gen, gex_AM_Arg_t stop)
{
    (void)t;
    atomic_store(&released_stop, (unsigned)stop);
    atomic_store(&released_gen, (unsigned)gen);
}

/* Every rank arrives; rank 0 answers with whether this was the last round. */
static int sync_round(int want_stop)
{
    uint32_t g = ++sync_gen;
    CHECK_OK(gex_AM_RequestShort1(mp_tm, 0, H_ARRIVE, 0, (gex_AM_Arg_t)g));
    if (mp_me == 0) {
        MP_POLL_UNTIL(atomic_load(&arrived) == mp_n);
        atomic_store(&arrived, 0);   /* nobody arrives again before the release */
        for (gex_Rank_t r = 0; r < mp_n; r++)
            CHECK_OK(gex_AM_RequestShort2(mp_tm, r, H_RELEASE, 0, (gex_AM_Arg_t)g,
                                          (gex_AM_Arg_t)want_stop));
    }
    MP_POLL_UNTIL(atomic_load(&released_gen) == g);
    return (int)atomic_load(&released_stop);
}

/* ---- am: all-to-all Medium flood ---- */
static uint32_t round_no;
/* Messages of round r count in flood_got[r & 1]: a peer released from the
 * last round's sync before us may already send the next round's, never
 * one further (that needs our arrival). */
static atomic_uint flood_got[2];

static void h_flood(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t rnd, gex_AM_Arg_t i)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    CHECK_EQ(nbytes, FLOOD_BYTES);
    const uint32_t r = (uint32_t)rnd;
    CHECK_MSG(r == round_no || r == round_no + 1, "flood message of round %u in round %u",
              (unsigned)r, (unsigned)round_no);
    CHECK_PATTERN(buf, nbytes, info.gex_srcrank, r * FLOOD_MSGS + (uint32_t)i);
    atomic_fetch_add(&flood_got[r & 1], 1);
}

static void round_am(void)
{
    char buf[FLOOD_BYTES];
    for (uint32_t i = 0; i < FLOOD_MSGS; i++) {
        if (fault != F_EXT && mp_me == victim && round_no == 2 && i == FLOOD_MSGS / 2) inject();
        for (gex_Rank_t k = 1; k < mp_n; k++) {
            gex_Rank_t r = (mp_me + k) % mp_n;
            mp_fill(buf, sizeof buf, mp_me, round_no * FLOOD_MSGS + i);
            CHECK_OK(gex_AM_RequestMedium2(mp_tm, r, H_FLOOD, buf, sizeof buf, GEX_EVENT_NOW, 0,
                                           (gex_AM_Arg_t)round_no, (gex_AM_Arg_t)i));
        }
    }
    atomic_uint *got = &flood_got[round_no & 1];
    MP_POLL_UNTIL(atomic_load(got) == (mp_n - 1) * FLOOD_MSGS);
    atomic_store(got, 0);
}

/* ---- rma: puts to every peer, gets of every peer's own block ---- */
/* Segment layout: block r (r < mp_n) is written by rank r; block mp_n is the
 * owner's own, read by the others. */
static char **peer_base;   /* every rank's segment at its owner's address */
static char *block(char *base, gex_Rank_t r) { return base + (size_t)r * RMA_BLOCK; }

static void round_rma(void)
{
    static char src[RMA_BLOCK], got[RMA_BLOCK];
    mp_fill(block(seg_base, mp_n), RMA_BLOCK, mp_me, 1000000 + round_no);
    mp_fill(src, sizeof src, mp_me, round_no);
    sync_round(0);   /* own blocks ready, last round's checks done */
    for (gex_Rank_t k = 1; k < mp_n; k++) {
        gex_Rank_t r = (mp_me + k) % mp_n;
        if (fault != F_EXT && mp_me == victim && round_no == 2 && k == 1 + (mp_n - 1) / 2) inject();
        gex_Event_Wait(gex_RMA_PutNB(mp_tm, r, block(peer_base[r], mp_me), src, RMA_BLOCK,
                                     GEX_EVENT_DEFER, 0));
        memset(got, 0, sizeof got);
        gex_Event_Wait(gex_RMA_GetNB(mp_tm, got, r, block(peer_base[r], mp_n), RMA_BLOCK, 0));
        CHECK_PATTERN(got, RMA_BLOCK, r, 1000000 + round_no);
    }
    sync_round(0);   /* every put is complete */
    for (gex_Rank_t r = 0; r < mp_n; r++)
        if (r != mp_me) CHECK_PATTERN(block(seg_base, r), RMA_BLOCK, r, round_no);
}

/* ---- barrier: a put before, its check after ---- */
static void round_barrier(void)
{
    volatile uint32_t *mine = (volatile uint32_t *)seg_base;
    for (uint32_t i = 0; i < 16; i++) {
        if (fault != F_EXT && mp_me == victim && round_no == 2 && i == 8) inject();
        uint32_t v = round_no * 16 + i + 1;
        gex_RMA_PutBlockingVal(mp_tm, (mp_me + 1) % mp_n, peer_base[(mp_me + 1) % mp_n], v,
                               sizeof v, 0);
        gex_Event_Wait(gex_Coll_BarrierNB(mp_tm, 0));
        CHECK_EQ(*mine, v);
        /* a second barrier: nobody overwrites before everyone checked */
        gex_Event_Wait(gex_Coll_BarrierNB(mp_tm, 0));
    }
}

/* ---- team: split, collectives on the new team, destroy ---- */
static void round_team(void)
{
    char *scratch = seg_base + SEG_SIZE / 2;   /* scratch lives in the segment */
    gex_TM_t t;
    size_t want = gex_TM_Split(&t, mp_tm, (int)(mp_me % 2), (int)mp_me, NULL, 0,
                               GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    CHECK(want > 0 && want <= SEG_SIZE / 2);
    if (fault != F_EXT && mp_me == victim && round_no == 2) inject();
    gex_TM_Split(&t, mp_tm, (int)(mp_me % 2), (int)mp_me, scratch, want, 0);
    CHECK(t != GEX_TM_INVALID);
    const gex_Rank_t n = gex_TM_QuerySize(t);
    CHECK_EQ(n, (mp_n + 1 - mp_me % 2) / 2);
    CHECK_EQ(gex_TM_QueryRank(t), mp_me / 2);
    uint64_t mine = (uint64_t)mp_me * 1000 + round_no, sum = 0, want_sum = 0, got = 0;
    for (gex_Rank_t r = mp_me % 2; r < mp_n; r += 2) want_sum += (uint64_t)r * 1000 + round_no;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(t, &sum, &mine, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL,
                                          NULL, 0));
    CHECK_EQ(sum, want_sum);
    uint64_t bv = gex_TM_QueryRank(t) == n - 1 ? 0xfeed00000000ull + round_no : 0;
    gex_Event_Wait(gex_Coll_BroadcastNB(t, n - 1, &got, &bv, 8, 0));
    CHECK_EQ(got, 0xfeed00000000ull + round_no);
    gex_Memvec_t sv;
    CHECK(gex_TM_Destroy(t, &sv, 0) != 0);
    CHECK(sv.gex_addr == scratch && sv.gex_len == want);
}

static void handlers(void)
{
    gex_AM_Entry_t h[] = {
        { H_ARRIVE, (gex_AM_Fn_t)h_arrive, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL,
          "fault_arrive" },
        { H_RELEASE, (gex_AM_Fn_t)h_release, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL,
          "fault_release" },
        { H_FLOOD, (gex_AM_Fn_t)h_flood, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL,
          "fault_flood" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));
}

static void usage(void)
{
    fprintf(stderr, "usage: fault_victim init|am|rma|barrier|team|exit exit3|abort|ext "
                    "VICTIM|none [SECONDS [HOLD]] [marker...]\n");
    exit(64);
}

int main(int argc, char **argv)
{
    if (argc < 4) usage();
    phase = argv[1];
    if (!strcmp(argv[2], "exit3")) fault = F_EXIT3;
    else if (!strcmp(argv[2], "abort")) fault = F_ABORT;
    else if (!strcmp(argv[2], "ext")) fault = F_EXT;
    else usage();
    victim = strcmp(argv[3], "none") ? (unsigned)atoi(argv[3]) : ~0u;
    if (argc > 4 && argv[4][0] >= '0' && argv[4][0] <= '9') seconds = atof(argv[4]);
    if (argc > 5 && argv[5][0] >= '0' && argv[5][0] <= '9') hold = atof(argv[5]);
    void (*round_fn)(void) = NULL;
    if (!strcmp(phase, "am")) round_fn = round_am;
    else if (!strcmp(phase, "rma")) round_fn = round_rma;
    else if (!strcmp(phase, "barrier")) round_fn = round_barrier;
    else if (!strcmp(phase, "team")) round_fn = round_team;
    else if (strcmp(phase, "init") && strcmp(phase, "exit")) usage();

    const char *job = getenv("GEX_JOB_ID");
    say("fault_victim: rank %u pid %ld job %s\n", env_rank(), (long)getpid(), job ? job : "-");
    const int is_victim = env_rank() == victim;
    if (!strcmp(phase, "init") && is_victim) {
        say("fault_victim: rank %u ready init\n", env_rank());
        pause_s(fault == F_EXT ? hold : 0.3);   /* the others are inside init by then */
        if (fault != F_EXT) inject();
    }
    mp_init(&argc, &argv, "fault_victim", 0);
    /* A hang must meet the script's hard timeout, not this watchdog. */
    mp_watchdog(600);
    CHECK(victim < mp_n || victim == ~0u);
    handlers();
    mp_attach(SEG_SIZE);
    seg_base = gex_Segment_QueryAddr(mp_seg);
    peer_base = calloc(mp_n, sizeof *peer_base);
    CHECK(peer_base);
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        void *owner = NULL;
        uintptr_t size = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &owner, NULL, &size, 0));
        CHECK(owner && size >= SEG_SIZE);
        peer_base[r] = owner;
    }
    CHECK((size_t)(mp_n + 1) * RMA_BLOCK <= SEG_SIZE);
    mp_barrier();

    unsigned rounds = 0;
    if (round_fn) {
        mp_phase(phase);
        const double t0 = mono_s();
        int stop = 0;
        while (!stop) {
            round_no++;
            round_fn();
            stop = sync_round(mp_me == 0 && mono_s() - t0 >= seconds && round_no >= 3);
            if (round_no == 1) say("fault_victim: rank %u ready %s\n", (unsigned)mp_me, phase);
            rounds++;
        }
    } else {
        /* init and exit: one round of the flood, checked */
        round_no = 1;
        round_am();
        sync_round(0);
        rounds = 1;
    }
    mp_phase("finish");
    mp_barrier();
    if (mp_me == 0) say("fault_victim: PASS phase %s rounds %u ranks %u\n", phase, rounds,
                        (unsigned)mp_n);
    mp_barrier();   /* nobody ends the job before rank 0 has printed */
    if (!strcmp(phase, "exit") && mp_me == victim) {
        say("fault_victim: rank %u ready exit\n", (unsigned)mp_me);
        if (fault != F_EXT) inject();
        pause_s(hold);   /* the others are in gasnet_exit; the script's signal comes */
    }
    gasnet_exit(0);
}
