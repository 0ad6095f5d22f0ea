/*
 * soak: a long mixed AM / RMA / atomics / collectives load (issue 28).
 *
 *   soak [--seconds S] [--seed N] [--rss-bound-kib K] [--rss-bound-pct P]
 *        [--phases arxt]
 *
 * Rounds repeat until rank 0 has seen S seconds pass (default 600).  A round:
 *  1. AMs: Short/Medium/Long requests to random peers, each answered by a
 *     reply of the same category; handlers check the payload pattern and a
 *     checksum carried in an argument, and count per source;
 *  2. RMA: blocking and NB puts and gets of 8 B .. 1.5 MiB into this rank's
 *     window in a peer's segment, each read back and verified, then one
 *     deterministic put per peer that the owner verifies after the barrier;
 *  3. atomics: FADD and fetch-CAS increment loops on two counters in every
 *     rank's segment, whose exact values the owners check each round;
 *  4. barrier, the owner-side checks, then one reduce of the round's counts
 *     (the full sent matrix plus totals) so every rank checks that what each
 *     source sent to it is what it received and that global sent == received;
 *  5. every 8th round, a team split with its own atomic domain, barrier and
 *     reduce, then destroyed.
 * RSS (/proc/self/statm) is sampled when 10% of the time has passed (the
 * warm-up: pools, connections and caches are all grown by then; at least
 * 30 s, or half of a run shorter than 60 s) and at the
 * end; growth beyond max(K KiB, P%) (default 8 MiB, 10%) fails the run.
 * Rank 0 decides when the warm-up and the end come and tells the others in
 * the round's reduce, so all ranks sample and stop on the same round.
 * Each rank also samples RSS at every further 10% of the time and prints
 * the series at the end (rss_trace_kib=...): a bounded warm-up flattens,
 * a leak keeps climbing.  mp_util's watchdog is re-armed every round (120 s
 * times GEX_TEST_TIME_SLACK): a hung round fails, a long run does not.
 * --phases keeps only some parts of a round (a AM,
 * r RMA, x atomics, t team split; default all) to find which one grows.
 */
#include "../mp/mp_util.h"
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>

#include <time.h>

#define MAX_RANKS 16
#define WIN (2u << 20)              /* RMA window per source rank */
#define BIG_PUT ((3u << 19) + 4097) /* > 1 MiB, odd: not a multiple of anything */
#define LMAX (64u << 10)            /* AM Long payload cap */
/* Segment layout (per rank) */
#define OFF_CTR 0                   /* [0] FADD counter, [1] CAS counter */
#define OFF_SCRATCH (64u << 10)     /* split teams' scratch, up to 960 KiB */
#define SCRATCH_MAX (960u << 10)
#define OFF_AML (1u << 20)          /* Long requests land here, LMAX per source */
#define OFF_AMLR (OFF_AML + MAX_RANKS * LMAX) /* Long replies, LMAX per replier */
#define OFF_RMA (OFF_AMLR + MAX_RANKS * LMAX)  /* RMA windows, WIN per source */

#define H_SHORT (MP_H_FIRST_FREE + 0)
#define H_MED (MP_H_FIRST_FREE + 1)
#define H_LONG (MP_H_FIRST_FREE + 2)
#define H_SHORT_R (MP_H_FIRST_FREE + 3)
#define H_MED_R (MP_H_FIRST_FREE + 4)
#define H_LONG_R (MP_H_FIRST_FREE + 5)

static char *seg;
static void *bases[MAX_RANKS];
static size_t med_max, medr_max, long_max, longr_max;

/* Counts since the start, never reset: a faster rank's next-round requests
 * can arrive while this rank still waits in the previous round's reduce, so
 * the counts that are compared are snapshots taken before each reduce. */
static uint64_t sent_req[MAX_RANKS], recv_req[MAX_RANKS];
static uint64_t sent_rep, recv_rep;           /* replies this rank sent / got */
static uint64_t sent_bytes, recv_bytes, sent_sum, recv_sum;
static uint64_t t_msgs, t_bytes, t_atomics, t_rma_bytes, t_rma_ops, t_rounds;
static int long_busy[MAX_RANKS]; /* a Long to that peer awaits its reply */

static uint32_t fnv(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}

/* xorshift64*: a per-rank stream, so runs with the same --seed repeat */
static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static gex_Rank_t src_of(gex_Token_t t)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    CHECK(info.gex_srcrank < mp_n);
    return info.gex_srcrank;
}

/* What every AM carries in its arguments: a sequence number and either the
 * checksum of the payload or (Short) a hash of the source and sequence. */
static void note_recv(const void *buf, size_t n, gex_Rank_t src, gex_AM_Arg_t seq,
                      gex_AM_Arg_t sum)
{
    CHECK_PATTERN(buf, n, src, (uint32_t)seq);
    CHECK_MSG((uint32_t)sum == fnv(buf, n), "payload checksum from %u differs",
              (unsigned)src);
    recv_bytes += n;
    recv_sum += (uint32_t)sum;
}

static void h_short(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t h)
{
    gex_Rank_t s = src_of(t);
    CHECK_EQ((uint32_t)h, mp_hash32((uint32_t)seq ^ (s << 24)));
    recv_req[s]++;
    sent_rep++;
    CHECK_OK(gex_AM_ReplyShort2(t, H_SHORT_R, 0, seq, (gex_AM_Arg_t)mp_hash32((uint32_t)seq + 1)));
}
static void h_short_r(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t h)
{
    (void)t;
    CHECK_EQ((uint32_t)h, mp_hash32((uint32_t)seq + 1));
    recv_rep++;
}

/* A reply carries the pattern (replier, seq ^ 0x80000000) at half the size */
static void reply_payload(gex_Rank_t s, gex_AM_Arg_t seq, size_t n, char *buf, uint32_t *sum)
{
    mp_fill(buf, n, mp_me, (uint32_t)seq ^ 0x80000000u);
    *sum = fnv(buf, n);
    sent_bytes += n;
    sent_sum += *sum;
    (void)s;
}

static void h_med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seq, gex_AM_Arg_t sum)
{
    static char rbuf[LMAX];
    gex_Rank_t s = src_of(t);
    note_recv(buf, n, s, seq, sum);
    recv_req[s]++;
    size_t rn = n / 2 < medr_max ? n / 2 : medr_max;
    uint32_t rs;
    reply_payload(s, seq, rn, rbuf, &rs);
    sent_rep++;
    CHECK_OK(gex_AM_ReplyMedium2(t, H_MED_R, rbuf, rn, GEX_EVENT_NOW, 0, seq, (gex_AM_Arg_t)rs));
}
static void h_med_r(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seq, gex_AM_Arg_t sum)
{
    gex_Rank_t s = src_of(t);
    CHECK_PATTERN(buf, n, s, (uint32_t)seq ^ 0x80000000u);
    CHECK((uint32_t)sum == fnv(buf, n));
    recv_bytes += n;
    recv_sum += (uint32_t)sum;
    recv_rep++;
}

static void h_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seq, gex_AM_Arg_t sum)
{
    static char rbuf[LMAX];
    gex_Rank_t s = src_of(t);
    CHECK_PTR_EQ(buf, seg + OFF_AML + (size_t)s * LMAX);
    note_recv(buf, n, s, seq, sum);
    recv_req[s]++;
    size_t rn = n / 2 < longr_max ? n / 2 : longr_max;
    uint32_t rs;
    reply_payload(s, seq, rn, rbuf, &rs);
    sent_rep++;
    CHECK_OK(gex_AM_ReplyLong2(t, H_LONG_R, rbuf, rn,
                               (char *)bases[s] + OFF_AMLR + (size_t)mp_me * LMAX,
                               GEX_EVENT_NOW, 0, seq, (gex_AM_Arg_t)rs));
}
static void h_long_r(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seq, gex_AM_Arg_t sum)
{
    gex_Rank_t s = src_of(t);
    CHECK_PTR_EQ(buf, seg + OFF_AMLR + (size_t)s * LMAX);
    CHECK_PATTERN(buf, n, s, (uint32_t)seq ^ 0x80000000u);
    CHECK((uint32_t)sum == fnv(buf, n));
    recv_bytes += n;
    recv_sum += (uint32_t)sum;
    recv_rep++;
    CHECK(long_busy[s]);
    long_busy[s] = 0;
}

/* ---- 1. AMs ---- */
static uint32_t am_seq;
static void phase_am(unsigned count)
{
    static char buf[LMAX];
    mp_phase("AM");
    for (unsigned i = 0; i < count; i++) {
        gex_Rank_t r = rnd() % mp_n;
        uint32_t seq = ++am_seq;
        unsigned kind = rnd() % 3;
        if (kind == 2 && long_busy[r]) kind = 1; /* one Long in flight per peer: its
                                                   * landing zone is reused */
        if (kind == 0) {
            CHECK_OK(gex_AM_RequestShort2(mp_tm, r, H_SHORT, 0, (gex_AM_Arg_t)seq,
                                          (gex_AM_Arg_t)mp_hash32(seq ^ (mp_me << 24))));
        } else {
            size_t max = kind == 1 ? med_max : long_max;
            /* mostly small, sometimes up to the limit */
            size_t n = rnd() % 4 ? rnd() % 257 : rnd() % (max + 1);
            mp_fill(buf, n, mp_me, seq);
            uint32_t sum = fnv(buf, n);
            sent_bytes += n;
            sent_sum += sum;
            if (kind == 1)
                CHECK_OK(gex_AM_RequestMedium2(mp_tm, r, H_MED, buf, n, GEX_EVENT_NOW, 0,
                                               (gex_AM_Arg_t)seq, (gex_AM_Arg_t)sum));
            else {
                long_busy[r] = 1;
                CHECK_OK(gex_AM_RequestLong2(mp_tm, r, H_LONG, buf, n,
                                             (char *)bases[r] + OFF_AML + (size_t)mp_me * LMAX,
                                             GEX_EVENT_NOW, 0, (gex_AM_Arg_t)seq,
                                             (gex_AM_Arg_t)sum));
            }
        }
        sent_req[r]++;
        /* bound what is in flight: at most 64 requests without their reply */
        uint64_t s = 0;
        for (gex_Rank_t k = 0; k < mp_n; k++) s += sent_req[k];
        MP_POLL_UNTIL(s - recv_rep <= 64);
    }
    uint64_t s = 0;
    for (gex_Rank_t k = 0; k < mp_n; k++) s += sent_req[k];
    MP_POLL_UNTIL(recv_rep == s);
}

/* ---- 2. RMA ---- */
static char *lbuf, *gbuf;
static const size_t rma_sizes[] = { 8, 777, 16384, 262144, BIG_PUT };

static size_t fixed_size(uint32_t round, gex_Rank_t src, gex_Rank_t dst)
{
    uint32_t h = mp_hash32(round * 131u + src * 17u + dst);
    return h % 8 == 0 ? BIG_PUT : 1 + h % 65536;
}

static void phase_rma(uint32_t round, unsigned count)
{
    mp_phase("RMA");
    for (unsigned i = 0; i < count; i++) {
        gex_Rank_t r = rnd() % mp_n;
        size_t n = rma_sizes[rnd() % (sizeof rma_sizes / sizeof rma_sizes[0])];
        if (n == BIG_PUT && rnd() % 2) n = rma_sizes[1]; /* big ones a bit rarer */
        uint32_t tag = round * 1024u + i;
        char *dst = (char *)bases[r] + OFF_RMA + (size_t)mp_me * WIN;
        mp_fill(lbuf, n, mp_me, tag);
        memset(gbuf, 0, n);
        if (rnd() % 2) {
            CHECK_EQ(gex_RMA_PutBlocking(mp_tm, r, dst, lbuf, n, 0), 0);
            CHECK_EQ(gex_RMA_GetBlocking(mp_tm, gbuf, r, dst, n, 0), 0);
        } else {
            gex_Event_t lc, e = gex_RMA_PutNB(mp_tm, r, dst, lbuf, n, &lc, 0);
            gex_Event_Wait(lc);
            mp_fill(lbuf, n, 7, 7); /* the source may change once lc is done */
            gex_Event_Wait(e);
            gex_Event_Wait(gex_RMA_GetNB(mp_tm, gbuf, r, dst, n, 0));
        }
        CHECK_PATTERN(gbuf, n, mp_me, tag);
        t_rma_bytes += 2 * n;
        t_rma_ops += 2;
    }
    /* the puts each owner checks after the barrier */
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        size_t n = fixed_size(round, mp_me, r);
        mp_fill(lbuf, n, mp_me, round ^ 0x40000000u);
        CHECK_EQ(gex_RMA_PutBlocking(mp_tm, r, (char *)bases[r] + OFF_RMA + (size_t)mp_me * WIN,
                                     lbuf, n, 0), 0);
        t_rma_bytes += n;
        t_rma_ops++;
    }
}

static void check_windows(uint32_t round)
{
    mp_phase("RMA check");
    for (gex_Rank_t s = 0; s < mp_n; s++)
        CHECK_PATTERN(seg + OFF_RMA + (size_t)s * WIN, fixed_size(round, s, mp_me), s,
                      round ^ 0x40000000u);
}

/* ---- 3. Atomics ---- */
#define ATOM_FADD 24 /* per target per round */
#define ATOM_CAS 4
static gex_AD_t ad;
static uint64_t want_ctr[2];

static void phase_atomics(void)
{
    mp_phase("atomics");
    gex_Event_t ev[ATOM_FADD];
    uint64_t got[ATOM_FADD];
    for (gex_Rank_t k = 0; k < mp_n; k++) {
        gex_Rank_t r = (mp_me + k) % mp_n;
        uint64_t *c = (uint64_t *)((char *)bases[r] + OFF_CTR);
        for (int i = 0; i < ATOM_FADD; i++)
            ev[i] = gex_AD_OpNB_U64(ad, &got[i], r, &c[0], GEX_OP_FADD, mp_me + 1, 0, 0);
        gex_Event_WaitAll(ev, ATOM_FADD, 0);
        for (int i = 1; i < ATOM_FADD; i++) CHECK(got[i] != got[0]); /* each sees its own */
        for (int i = 0; i < ATOM_CAS; i++) {
            uint64_t old = 0, seen;
            gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, r, &c[1], GEX_OP_GET, 0, 0, 0));
            for (unsigned tries = 0;; tries++) {
                gex_Event_Wait(gex_AD_OpNB_U64(ad, &seen, r, &c[1], GEX_OP_FCAS, old, old + 1, 0));
                t_atomics++;
                if (seen == old) break;
                CHECK(tries < 1000000);
                old = seen;
            }
        }
        t_atomics += ATOM_FADD + ATOM_CAS; /* the FADDs and the GETs */
    }
}

static void check_counters(void)
{
    mp_phase("atomics check");
    want_ctr[0] += (uint64_t)ATOM_FADD * mp_n * (mp_n + 1) / 2;
    want_ctr[1] += (uint64_t)ATOM_CAS * mp_n;
    uint64_t *c = (uint64_t *)(seg + OFF_CTR), v[2];
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &v[0], mp_me, &c[0], GEX_OP_GET, 0, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &v[1], mp_me, &c[1], GEX_OP_GET, 0, 0, 0));
    CHECK_MSG(v[0] == want_ctr[0] && v[1] == want_ctr[1],
              "counters %llu/%llu, want %llu/%llu", (unsigned long long)v[0],
              (unsigned long long)v[1], (unsigned long long)want_ctr[0],
              (unsigned long long)want_ctr[1]);
}

/* ---- 5. Team split ---- */
static void phase_split(uint32_t round)
{
    mp_phase("team split");
    gex_TM_t sub;
    size_t ss = gex_TM_Split(&sub, mp_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    if (ss > SCRATCH_MAX) ss = SCRATCH_MAX;
    int color = (int)((mp_me + round) % 2);
    gex_TM_Split(&sub, mp_tm, color, (int)(mp_n - mp_me), seg + OFF_SCRATCH, ss, 0);
    CHECK(sub != GEX_TM_INVALID);
    gex_Rank_t sn = gex_TM_QuerySize(sub);
    gex_AD_t sad;
    gex_AD_Create(&sad, sub, GEX_DT_U64, GEX_OP_FADD | GEX_OP_SET, 0);
    uint64_t mine = mp_me + 1, sum = 0, want = 0;
    for (gex_Rank_t r = 0; r < mp_n; r++)
        if ((int)((r + round) % 2) == color) want += r + 1;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(sub, &sum, &mine, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL,
                                          NULL, 0));
    CHECK_EQ(sum, want);
    gex_Event_Wait(gex_Coll_BarrierNB(sub, 0));
    gex_AD_Destroy(sad);
    (void)sn;
    gex_Memvec_t sv; /* destroy hands back the scratch space it was given */
    CHECK(gex_TM_Destroy(sub, &sv, GEX_FLAG_GLOBALLY_QUIESCED));
    CHECK_PTR_EQ(sv.gex_addr, seg + OFF_SCRATCH);
    CHECK_EQ(sv.gex_len, ss);
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    CHECK(f && fscanf(f, "%ld %ld", &size, &res) == 2);
    fclose(f);
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(void)
{
    fprintf(stderr, "usage: soak [--seconds S] [--seed N] [--rss-bound-kib K] "
                    "[--rss-bound-pct P] [--phases arxt]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "soak", 0);
    double seconds = 600;
    unsigned long seed = 1, bound_kib = 8192, bound_pct = 10;
    const char *phases = "arxt";
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        if (!strcmp(argv[i], "--seconds")) seconds = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--seed")) seed = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--rss-bound-kib")) bound_kib = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--rss-bound-pct")) bound_pct = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--phases")) phases = argv[++i];
        else usage();
    }
    CHECK_MSG(mp_n <= MAX_RANKS, "at most %d ranks", MAX_RANKS);
    if (mp_me == 0) { /* run-soak.sh looks for /dev/shm/gex-<job id>-* after the job */
        const char *id = getenv("GEX_JOB_ID");
        printf("soak: job id %s, %u ranks, %.0f s\n", id ? id : "?", (unsigned)mp_n, seconds);
        fflush(stdout);
    }
    rng_state = (seed * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)mp_me + 1) * 0xbf58476d1ce4e5b9ull;
    if (!rng_state) rng_state = 1;
    gex_AM_Entry_t h[] = {
        { H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "s" },
        { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "m" },
        { H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "l" },
        { H_SHORT_R, (gex_AM_Fn_t)h_short_r, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "sr" },
        { H_MED_R, (gex_AM_Fn_t)h_med_r, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2, NULL, "mr" },
        { H_LONG_R, (gex_AM_Fn_t)h_long_r, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "lr" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));
    mp_attach(OFF_RMA + (uintptr_t)mp_n * WIN);
    seg = gex_Segment_QueryAddr(mp_seg);
    for (gex_Rank_t r = 0; r < mp_n; r++)
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &bases[r], NULL, NULL, 0));
#define MIN3(a, b, c) ((a) < (b) ? ((a) < (c) ? (a) : (c)) : ((b) < (c) ? (b) : (c)))
    med_max = MIN3(gex_AM_LUBRequestMedium(), (size_t)LMAX, (size_t)8192);
    medr_max = MIN3(gex_AM_LUBReplyMedium(), (size_t)LMAX, (size_t)8192);
    long_max = MIN3(gex_AM_LUBRequestLong(), (size_t)LMAX, (size_t)LMAX);
    longr_max = MIN3(gex_AM_LUBReplyLong(), (size_t)LMAX, (size_t)LMAX);
    lbuf = malloc(WIN);
    gbuf = malloc(WIN);
    CHECK(lbuf && gbuf);
    gex_AD_Create(&ad, mp_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_FCAS | GEX_OP_GET | GEX_OP_SET, 0);
    uint64_t *ctr = (uint64_t *)(seg + OFF_CTR);
    gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, mp_me, &ctr[0], GEX_OP_SET, 0, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, mp_me, &ctr[1], GEX_OP_SET, 0, 0, 0));
    mp_barrier();

    /* The reduce vector: sent matrix [src][dst] (each rank fills its row),
     * then the totals, then rank 0's flags. */
    enum { V_SREQ, V_RREQ, V_SREP, V_RREP, V_SB, V_RB, V_SSUM, V_RSUM, V_WARM, V_TRACE, V_STOP,
           V_N };
    const int do_am = !!strchr(phases, 'a'), do_rma = !!strchr(phases, 'r'),
              do_atomics = !!strchr(phases, 'x'), do_split = !!strchr(phases, 't');
    long trace[12];
    int ntrace = 0;
    const size_t nv = (size_t)mp_n * mp_n + V_N;
    uint64_t *vin = calloc(nv, 8), *vout = calloc(nv, 8), *tot = vin + (size_t)mp_n * mp_n,
             *gtot = vout + (size_t)mp_n * mp_n;
    CHECK(vin && vout);
    uint64_t g_msgs = 0, g_bytes = 0;
    long rss0 = -1, rss1;
    const double t0 = now();
    for (uint32_t round = 1;; round++) {
        mp_watchdog(120); /* per round: a hang fails in minutes, not at the end */
        if (do_am) phase_am(200);
        if (do_rma) phase_rma(round, 6);
        if (do_atomics) phase_atomics();
        mp_phase("barrier");
        gex_Event_Wait(gex_Coll_BarrierNB(mp_tm, 0));
        if (do_rma) check_windows(round);
        if (do_atomics) check_counters();

        mp_phase("round reduce");
        memset(vin, 0, nv * 8);
        uint64_t rr[MAX_RANKS];
        for (gex_Rank_t r = 0; r < mp_n; r++) {
            rr[r] = recv_req[r];
            vin[(size_t)mp_me * mp_n + r] = sent_req[r];
            tot[V_SREQ] += sent_req[r];
            tot[V_RREQ] += rr[r];
        }
        tot[V_SREP] = sent_rep;
        tot[V_RREP] = recv_rep;
        tot[V_SB] = sent_bytes;
        tot[V_RB] = recv_bytes;
        tot[V_SSUM] = sent_sum;
        tot[V_RSUM] = recv_sum;
        if (mp_me == 0) {
            double el = now() - t0;
            /* short runs: 10% would sample while pools still grow (ofi's
             * first 20 s, docs/reliability.md), so not before 30 s or half */
            double warm = seconds / 10 > 30 ? seconds / 10 : (seconds / 2 < 30 ? seconds / 2 : 30);
            tot[V_WARM] = rss0 < 0 && el >= warm;
            tot[V_TRACE] = ntrace < 10 && el >= seconds * (ntrace + 1) / 10;
            tot[V_STOP] = el >= seconds;
        }
        gex_Event_Wait(gex_Coll_ReduceToAllNB(mp_tm, vout, vin, GEX_DT_U64, 8, nv, GEX_OP_ADD,
                                              NULL, NULL, 0));
        for (gex_Rank_t s = 0; s < mp_n; s++)
            CHECK_MSG(vout[(size_t)s * mp_n + mp_me] == rr[s],
                      "round %u: rank %u sent %llu requests here, %llu arrived", round,
                      (unsigned)s, (unsigned long long)vout[(size_t)s * mp_n + mp_me],
                      (unsigned long long)rr[s]);
        CHECK_EQ(gtot[V_SREQ], gtot[V_RREQ]);
        CHECK_EQ(gtot[V_SREP], gtot[V_RREP]);
        CHECK_EQ(gtot[V_SREQ], gtot[V_SREP]);
        CHECK_EQ(gtot[V_SB], gtot[V_RB]);
        CHECK_EQ(gtot[V_SSUM], gtot[V_RSUM]);
        g_msgs = gtot[V_SREQ] + gtot[V_SREP];
        g_bytes = gtot[V_SB];
        t_msgs = tot[V_SREQ] + tot[V_SREP];
        t_bytes = tot[V_SB];
        t_rounds = round;

        if (do_split && round % 8 == 0) phase_split(round);
        if (gtot[V_WARM]) rss0 = rss_kib();
        if (gtot[V_TRACE]) trace[ntrace++] = rss_kib();
        if (gtot[V_STOP]) break;
    }
    rss1 = rss_kib();
    if (rss0 < 0) rss0 = rss1; /* ended within the first round */
    char tr[12 * 24] = "";
    for (int i = 0; i < ntrace; i++)
        snprintf(tr + strlen(tr), sizeof tr - strlen(tr), "%s%ld", i ? "," : "", trace[i]);
    const double el = now() - t0;
    mp_phase("end");
    gex_AD_Destroy(ad);
    printf("soak: rank %u: rounds=%llu messages=%llu bytes=%llu atomics=%llu rma_ops=%llu "
           "rma_bytes=%llu rss_start_kib=%ld rss_end_kib=%ld rss_trace_kib=%s\n", (unsigned)mp_me,
           (unsigned long long)t_rounds, (unsigned long long)t_msgs,
           (unsigned long long)t_bytes, (unsigned long long)t_atomics,
           (unsigned long long)t_rma_ops, (unsigned long long)t_rma_bytes, rss0, rss1, tr);
    fflush(stdout);
    long bound = (long)bound_kib;
    if (rss0 * (long)bound_pct / 100 > bound) bound = rss0 * (long)bound_pct / 100;
    CHECK_MSG(rss1 - rss0 <= bound, "RSS grew from %ld KiB to %ld KiB (bound %ld KiB)", rss0,
              rss1, bound);

    /* job-wide totals for rank 0's PASS line */
    uint64_t in[4] = { t_atomics, t_rma_bytes, (uint64_t)rss0, (uint64_t)rss1 }, s2[2], m2[2];
    gex_Event_Wait(gex_Coll_ReduceToAllNB(mp_tm, s2, in, GEX_DT_U64, 8, 2, GEX_OP_ADD, NULL,
                                          NULL, 0));
    gex_Event_Wait(gex_Coll_ReduceToAllNB(mp_tm, m2, in + 2, GEX_DT_U64, 8, 2, GEX_OP_MAX, NULL,
                                          NULL, 0));
    free(vin);
    free(vout);
    free(lbuf);
    free(gbuf);
    mp_finish("seconds=%.0f rounds=%llu messages=%llu bytes=%llu atomics=%llu rma_bytes=%llu "
              "rss_start_max_kib=%llu rss_end_max_kib=%llu", el, (unsigned long long)t_rounds,
              (unsigned long long)g_msgs, (unsigned long long)g_bytes,
              (unsigned long long)s2[0], (unsigned long long)s2[1], (unsigned long long)m2[0],
              (unsigned long long)m2[1]);
}
