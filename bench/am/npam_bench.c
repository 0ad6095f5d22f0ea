/*
 * npam_bench.c: AM Medium ping-pong with the payload generated on every
 * send, fixed payload versus negotiated payload (`make bench-am-np`).
 *
 * The paper's testam -fp / -np-gb -src-generate (seed 004, appendix C):
 * rank 0 sends an AM Medium Request of S bytes, rank 1's handler answers
 * with an AM Medium Reply of S bytes, and rank 0 waits for the Reply before
 * the next Request.  Every payload, Request and Reply, is generated on the
 * fly (consecutive 32-bit integers), never copied from a prepared buffer:
 *   fp  the payload is generated into a client buffer that is then passed
 *       to gex_AM_RequestMedium0 / gex_AM_ReplyMedium0;
 *   np  gex_AM_Prepare{Request,Reply}Medium(client_buf = NULL, S, S) and the
 *       payload is generated into gex_AM_SrcDescAddr() before Commit0.
 * On the smp conduit's specialized path the np buffer is the record's slot
 * in the receiver's ring, so the payload is written once; under
 * GEX_FORCE_REFERENCE=am it is a library buffer that Commit copies.
 * Sizes: 0 and powers of two up to gex_AM_MaxRequestMedium (the paper's
 * 0, 1, 2, ... 65472 with the default MaxMedium).
 *
 * Long rows: the same ping-pong with AM Longs into the peer's segment
 * (Request to rank 1's segment, Reply back to rank 0's): fixed Long of a
 * generated client buffer versus gex_AM_Prepare{Request,Reply}Long(NULL,
 * S, S, dest) with the payload generated into the library buffer.  On the
 * smp path with PSHM that buffer is the destination itself (zero copy).
 *
 * Method.  The clock is the CPU's time-stamp counter where there is one
 * (calibrated against CLOCK_MONOTONIC); under a hypervisor it may advance
 * in steps of ~10 ns, a twentieth of a small round trip, so one sample is
 * the time of a batch of K back-to-back round trips divided by K, with K
 * sized so that a batch takes ~4 us (K = 1 for large sizes).  The two modes
 * of a pair (fp/np Medium, fp/np Long) alternate sample by sample in the
 * order fp np np fp fp np ..., so drift (frequency, a neighbour's load)
 * cancels, until each has R samples (default up to 2000, about 40 ms per
 * mode and size) after a warm-up.  Reported per size and mode: the
 * interquartile mean (IQM, the mean of the middle half of the samples),
 * the median, the 10th and 90th percentiles, and the bandwidth of the IQM
 * as in testam (Request + Reply payload bytes / time).  Short batches and
 * robust statistics because this machine is shared and oversubscribed: a
 * rank that loses its CPU stalls a round trip for a whole time slice, which
 * spoils one sample only; the IQM is used for the comparison because it is
 * as robust as the median but finer than the timer.
 * Output: a table on rank 0's stdout, and with --json FILE one JSON object
 * whose rows are one per line.  `npam_bench --merge --native F... --reference
 * G...` (no job: run it directly) reads such files from runs on both paths
 * and prints them side by side, normalized to fixed payload like the
 * paper's figure 1, with the issue's targets (np on the smp path never
 * slower than fp, at least 5% faster at 4 KiB); --check-targets makes a
 * missed target the exit status.  `make bench-am-np` alternates runs on
 * both paths and merges them.
 */
#include <gasnetex.h>
#include "../bench_opts.h"
#include "npam_generate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Exported by libgex-core (GEX_CORE_LAYER_1.0): which code each layer bound. */
extern const char *gexi_describe_layers(void) __attribute__((weak));

enum { H_PING_FP = GEX_AM_INDEX_BASE, H_PING_NP, H_PONG, H_STOP, H_PING_LFP, H_PING_LNP,
       H_PONG_L };
enum { FP = 0, NP = 1, LFP = 2, LNP = 3, NMODES = 4 };

static gex_TM_t tm;
static gex_Rank_t me, nranks, peer;
static volatile unsigned long pongs;
static volatile int stop;
static size_t max_medium;
static char *client_req, *client_rep;   /* fp: where payloads are generated */
static void *peer_seg, *req_seg;        /* Long destinations: peer's segment, rank 0's */

/* ---- Handlers (rank 1 answers, rank 0 counts) ---- */
static void ping_fp(gex_Token_t t, void *buf, size_t n)
{
    generate(client_rep, n);
    gex_AM_ReplyMedium0(t, H_PONG, client_rep, n, GEX_EVENT_NOW, 0);
}
static void ping_np(gex_Token_t t, void *buf, size_t n)
{
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, n, n, NULL, 0, 0);
    generate(gex_AM_SrcDescAddr(sd), n);
    gex_AM_CommitReplyMedium0(sd, H_PONG, n);
}
static void ping_lfp(gex_Token_t t, void *buf, size_t n)
{
    generate(client_rep, n);
    gex_AM_ReplyLong0(t, H_PONG_L, client_rep, n, req_seg, GEX_EVENT_NOW, 0);
}
static void ping_lnp(gex_Token_t t, void *buf, size_t n)
{
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyLong(t, NULL, n, n, req_seg, NULL, 0, 0);
    generate(gex_AM_SrcDescAddr(sd), n);
    gex_AM_CommitReplyLong0(sd, H_PONG_L, n, req_seg);
}
static void pong(gex_Token_t t, void *buf, size_t n) { pongs++; }
static void stop_h(gex_Token_t t) { stop = 1; }

/* Time stamps: the TSC on x86-64 (cheap, ~10 ns), else CLOCK_MONOTONIC. */
static inline uint64_t stamp(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* One round trip of a mode and size. */
static inline void round_trip(int mode, size_t size)
{
    const unsigned long want = pongs + 1;
    gex_AM_SrcDesc_t sd;
    switch (mode) {
    case FP:
        generate(client_req, size);
        gex_AM_RequestMedium0(tm, peer, H_PING_FP, client_req, size, GEX_EVENT_NOW, 0);
        break;
    case NP:
        sd = gex_AM_PrepareRequestMedium(tm, peer, NULL, size, size, NULL, 0, 0);
        generate(gex_AM_SrcDescAddr(sd), size);
        gex_AM_CommitRequestMedium0(sd, H_PING_NP, size);
        break;
    case LFP:
        generate(client_req, size);
        gex_AM_RequestLong0(tm, peer, H_PING_LFP, client_req, size, peer_seg, GEX_EVENT_NOW, 0);
        break;
    default:
        sd = gex_AM_PrepareRequestLong(tm, peer, NULL, size, size, peer_seg, NULL, 0, 0);
        generate(gex_AM_SrcDescAddr(sd), size);
        gex_AM_CommitRequestLong0(sd, H_PING_LNP, size, peer_seg);
        break;
    }
    while (pongs != want) gasnet_AMPoll();
}

/* A batch of k round trips; returns its duration in stamp units. */
static uint64_t batch(int mode, size_t size, unsigned k)
{
    const uint64_t t0 = stamp();
    for (unsigned i = 0; i < k; i++) round_trip(mode, size);
    return stamp() - t0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, unsigned k)
{
    qsort(v, k, sizeof *v, cmp_d);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}
/* p-th percentile of sorted v[0..k) */
static double pct(const double *v, unsigned k, double p)
{
    unsigned i = (unsigned)(p / 100.0 * (k - 1) + 0.5);
    return v[i < k ? i : k - 1];
}
/* Interquartile mean of sorted v[0..k): the mean of the middle half.  As
 * robust as the median to stalled samples (up to a quarter of them), but
 * not limited to the timer's resolution. */
static double iqm(const double *v, unsigned k)
{
    unsigned lo = k / 4, hi = k - k / 4;
    double sum = 0;
    for (unsigned i = lo; i < hi; i++) sum += v[i];
    return sum / (hi - lo);
}

/* ======================================================================
 * --merge: side-by-side table of several runs' JSON files
 * ====================================================================== */
#define MAXROWS 64
#define MAXFILES 64
struct series {
    double fp[MAXROWS][MAXFILES], np[MAXROWS][MAXFILES];
    double lfp[MAXROWS][MAXFILES], lnp[MAXROWS][MAXFILES];   /* NAN: no Long rows */
    unsigned k[MAXROWS];
};
static size_t msizes[MAXROWS];
static unsigned nmsizes;

static int row_of(size_t size)
{
    for (unsigned i = 0; i < nmsizes; i++)
        if (msizes[i] == size) return (int)i;
    if (nmsizes == MAXROWS) return -1;
    msizes[nmsizes] = size;
    return (int)nmsizes++;
}

static double field(const char *line, const char *name)
{
    const char *p = strstr(line, name);
    double v;
    if (!p || sscanf(p + strlen(name), "%lf", &v) != 1) return NAN;
    return v;
}

static int read_json(const char *file, struct series *s)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        perror(file);
        return -1;
    }
    char line[1024];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        size_t size;
        double fp, np;
        const char *p = strstr(line, "{\"size\": ");
        if (!p || sscanf(p, "{\"size\": %zu, \"fp_us\": %lf, %*[^,], %*[^,], %*[^,], "
                                "\"np_us\": %lf", &size, &fp, &np) != 3)
            continue;
        int r = row_of(size);
        if (r < 0 || s->k[r] == MAXFILES) continue;
        s->fp[r][s->k[r]] = fp;
        s->np[r][s->k[r]] = np;
        s->lfp[r][s->k[r]] = field(p, "\"lfp_us\": ");
        s->lnp[r][s->k[r]] = field(p, "\"lnp_us\": ");
        s->k[r]++;
        rows++;
    }
    fclose(f);
    if (!rows) fprintf(stderr, "npam_bench: %s has no rows\n", file);
    return rows ? 0 : -1;
}

/* Median of the non-NAN values of v[0..k) (NAN if none). */
static double median_of(const double *v, unsigned k)
{
    double t[2 * MAXFILES];
    unsigned n = 0;
    for (unsigned i = 0; i < k; i++)
        if (!isnan(v[i])) t[n++] = v[i];
    return n ? median(t, n) : NAN;
}

static int merge(int argc, char **argv, int check)
{
    static struct series nat, ref;
    struct series *cur = NULL;
    unsigned nfiles[2] = { 0, 0 };
    const char *label = "smp";   /* the native path's name in the columns */
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--label") && i + 1 < argc) label = argv[++i];
        else if (!strcmp(argv[i], "--native")) cur = &nat;
        else if (!strcmp(argv[i], "--reference")) cur = &ref;
        else if (!cur || read_json(argv[i], cur)) return 2;
        else nfiles[cur == &ref]++;
    }
    if (!nfiles[0]) {
        fprintf(stderr, "npam_bench --merge: no --native files\n");
        return 2;
    }
    printf("AM ping-pong, payload generated on every send: time per round trip (us), each\n"
           "run's IQM of batched round trips, median over %u native-path run(s) and %u\n"
           "reference run(s); fixed payload (fp, Lfp) from all runs.  Ratios: median over\n"
           "runs of each run's np/fp (fp and np samples interleaved within a run).\n"
           "np/fp < 1: negotiated payload is faster (paper figure 1 plots fp/np).\n\n",
           nfiles[0], nfiles[1]);
    char np_l[24], r_l[24], lnp_l[24];
    snprintf(np_l, sizeof np_l, "np(%s)", label);
    snprintf(r_l, sizeof r_l, "%s/fp", label);
    snprintf(lnp_l, sizeof lnp_l, "Lnp(%s)", label);
    printf("%8s %8s %8s %8s %7s %7s  %-24s| %8s %8s %8s %7s %7s\n", "size", "fp", np_l,
           "np(ref)", r_l, "ref/fp", "target (<=fp; 4K: -5%)", "Lfp", lnp_l,
           "Lnp(ref)", r_l, "ref/fp");
    int missed = 0;
    for (unsigned r = 0; r < nmsizes; r++) {
        double all[2 * MAXFILES];
        unsigned kf = 0;
        for (unsigned j = 0; j < nat.k[r]; j++) all[kf++] = nat.fp[r][j];
        for (unsigned j = 0; j < ref.k[r]; j++) all[kf++] = ref.fp[r][j];
        const double fp = median(all, kf);
        /* median_of works on a copy: median() sorts in place, and the
         * per-run ratios below pair nat.np[r][j] with nat.fp[r][j] */
        const double npn = median_of(nat.np[r], nat.k[r]);
        const double npr = median_of(ref.np[r], ref.k[r]);
        kf = 0;
        for (unsigned j = 0; j < nat.k[r]; j++) all[kf++] = nat.lfp[r][j];
        for (unsigned j = 0; j < ref.k[r]; j++) all[kf++] = ref.lfp[r][j];
        const double lfp = median_of(all, kf);
        const double lnpn = median_of(nat.lnp[r], nat.k[r]);
        const double lnpr = median_of(ref.lnp[r], ref.k[r]);
        /* the ratios: median over runs of each run's np/fp, whose samples
         * were interleaved (runs on a loaded machine differ more than the
         * two modes within one run) */
        double rt[4][MAXFILES];
        for (unsigned j = 0; j < nat.k[r]; j++) {
            rt[0][j] = nat.np[r][j] / nat.fp[r][j];
            rt[2][j] = nat.lnp[r][j] / nat.lfp[r][j];
        }
        for (unsigned j = 0; j < ref.k[r]; j++) {
            rt[1][j] = ref.np[r][j] / ref.fp[r][j];
            rt[3][j] = ref.lnp[r][j] / ref.lfp[r][j];
        }
        const double rn = median_of(rt[0], nat.k[r]), rr = median_of(rt[1], ref.k[r]);
        const double lrn = median_of(rt[2], nat.k[r]), lrr = median_of(rt[3], ref.k[r]);
        const int at4k = msizes[r] == 4096;
        const int ok = rn <= 1.0 && (!at4k || rn <= 0.95);
        missed += !ok;
        char verdict[32];
        snprintf(verdict, sizeof verdict, "%s (%+.1f%%)", ok ? "met" : "MISSED", 100 * (1 - rn));
        printf("%8zu %8.4f %8.4f %8.4f %7.3f %7.3f  %-24s| %8.4f %8.4f %8.4f %7.3f %7.3f\n",
               msizes[r], fp, npn, npr, rn, rr, verdict, lfp, lnpn, lnpr, lrn, lrr);
    }
    printf("\n%s: %d size(s) miss the target (Medium; Long has none)\n",
           missed ? "targets MISSED" : "targets met", missed);
    return check && missed ? 1 : 0;
}

/* The conduit serving negotiated payload of one category, from libgex-am's
 * description ("... np_medium=smp np_long=smp ..."): its name, or
 * "reference". */
static void np_path_of(const char *layers, const char *key, char out[16])
{
    const char *p = strstr(layers, key);
    size_t n = 0;
    if (p)
        for (p += strlen(key); n < 15 && (isalnum((unsigned char)p[n]) || p[n] == '_'); n++)
            out[n] = p[n];
    out[n] = 0;
    if (!n) snprintf(out, 16, "reference");
}

/* ====================================================================== */
static unsigned reps = 2000;
static double budget_s = 0.040;   /* per size and mode */

/* --quick and --budget take effect in command-line order */
static int set_quick(const char *v)
{
    (void)v;
    reps = 400, budget_s = 0.008;
    return 1;
}

static int set_budget(const char *v)
{
    budget_s = atof(v) / 1e3;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--merge")) {
        int check = argc > 2 && !strcmp(argv[2], "--check-targets");
        return merge(argc - 2 - check, argv + 2 + check, check);
    }
    gex_Client_t client;
    gex_EP_t ep;
    if (gex_Client_Init(&client, &ep, &tm, "NPAM_BENCH", &argc, &argv, 0) != GASNET_OK) return 1;
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);
    peer = nranks > 1 ? 1 : 0;
    const char *json = NULL;
    size_t only = (size_t)-1;
    int no_long = 0;
    const struct bench_opt options[] = {
        BENCH_CALL("--quick", NULL, NULL, set_quick),
        BENCH_VALUE("--reps", "R", NULL, BENCH_OPT_UINT, &reps),
        BENCH_CALL("--budget", "MS", NULL, set_budget),
        BENCH_VALUE("--size", "S", NULL, BENCH_OPT_SIZE, &only),
        BENCH_FLAG("--no-long", NULL, &no_long),
        BENCH_VALUE("--json", "FILE", NULL, BENCH_OPT_STRING, &json),
        BENCH_FLAG_HIDDEN("--check-targets", NULL),   /* for --merge (make bench) */
    };
    const struct bench_cli cli = {
        .prog = "npam_bench", .synopsis = "usage: npam_bench", .opts = options,
        .n_opts = BENCH_N_OPTS(options), .compact = 1, .rank = me,
        .footer = "       npam_bench --merge [--check-targets] [--label NAME] --native F... "
                  "--reference G...\n",
    };
    bench_opts_parse(&cli, argc, argv);
    const int with_long = !no_long;
    if (reps < 20 || reps > 1000000) reps = 2000;
    if (!(budget_s > 0 && budget_s < 100)) budget_s = 0.040;
    gex_AM_Entry_t h[] = {
        { H_PING_FP, (gex_AM_Fn_t)ping_fp, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "ping_fp" },
        { H_PING_NP, (gex_AM_Fn_t)ping_np, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "ping_np" },
        { H_PONG, (gex_AM_Fn_t)pong, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "pong" },
        { H_STOP, (gex_AM_Fn_t)stop_h, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "stop" },
        { H_PING_LFP, (gex_AM_Fn_t)ping_lfp, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 0, NULL, "ping_lfp" },
        { H_PING_LNP, (gex_AM_Fn_t)ping_lnp, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 0, NULL, "ping_lnp" },
        { H_PONG_L, (gex_AM_Fn_t)pong, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 0, NULL, "pong_l" },
    };
    if (gex_EP_RegisterHandlers(ep, h, sizeof h / sizeof h[0]) != GASNET_OK) return 1;
    size_t mreq = gex_AM_MaxRequestMedium(tm, peer, GEX_EVENT_NOW, 0, 0);
    size_t mrep = gex_AM_MaxReplyMedium(tm, peer, GEX_EVENT_NOW, 0, 0);
    max_medium = mreq < mrep ? mreq : mrep;
    client_req = aligned_alloc(64, (max_medium + 63) & ~(size_t)63);
    client_rep = aligned_alloc(64, (max_medium + 63) & ~(size_t)63);
    if (!client_req || !client_rep) return 1;
    /* Long rows: payloads of up to max_medium bytes into the segments */
    gex_Segment_t seg;
    if (gex_Segment_Attach(&seg, tm, (max_medium + GASNET_PAGESIZE) & ~(size_t)(GASNET_PAGESIZE - 1))
        != GASNET_OK) {
        fprintf(stderr, "npam_bench: gex_Segment_Attach failed\n");
        return 1;
    }
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, peer, &peer_seg, NULL, NULL, 0));
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, 0, &req_seg, NULL, NULL, 0));
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));   /* handlers are registered everywhere */

    if (me != 0) {   /* rank 1 answers; others only poll */
        while (!stop) gasnet_AMPoll();
        gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
        gasnet_exit(0);
    }

    const char *layers = gexi_describe_layers ? gexi_describe_layers() : "?";
    char path[16], lpath[16];
    np_path_of(layers, "np_medium=", path);
    np_path_of(layers, "np_long=", lpath);
    size_t sizes[40];
    unsigned ns = 0;
    sizes[ns++] = 0;
    for (size_t s = 1; s <= max_medium; s *= 2) sizes[ns++] = s;
    if (sizes[ns - 1] != max_medium) sizes[ns++] = max_medium;
    if (only != (size_t)-1) {
        ns = 1;
        sizes[0] = only > max_medium ? max_medium : only;
    }

    /* stamp units per microsecond */
    struct timespec c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &c0);
    const uint64_t s0 = stamp();
    do clock_gettime(CLOCK_MONOTONIC, &c1);
    while ((c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec) < 20e6);
    const double per_us = (double)(stamp() - s0) /
                          ((c1.tv_sec - c0.tv_sec) * 1e6 + (c1.tv_nsec - c0.tv_nsec) * 1e-3);

    printf("npam_bench: %u rank(s), ping-pong with rank %u, negotiated-payload paths: Medium %s, "
           "Long %s\nlayers: %s\nup to %u samples per size and mode (~%.0f ms each); a sample is "
           "a batch of K round trips (~4 us); fp and np samples interleaved (fp np np fp ...); "
           "times per round trip (us)\n\n",
           (unsigned)nranks, (unsigned)peer, path, lpath, layers, reps, budget_s * 1e3);
    printf("%8s %4s %8s %8s %8s %8s %8s %8s %8s %8s %6s %8s", "size", "K", "fp IQM", "fp med",
           "fp p10", "fp p90", "np IQM", "np med", "np p10", "np p90", "np/fp", "np MB/s");
    if (with_long) printf(" %8s %8s %6s", "Lfp IQM", "Lnp IQM", "Lnp/fp");
    printf("\n");
    FILE *jf = NULL;
    if (json) {
        jf = fopen(json, "w");
        if (!jf) perror(json);
    }
    if (jf) {
        const char *commit = getenv("GEX_BENCH_COMMIT");
        fprintf(jf, "{\"bench\": \"npam\", \"ranks\": %u, \"np_path\": \"%s\", \"np_long_path\": "
                "\"%s\", \"layers\": \"%s\", \"commit\": \"%s\", \"method\": \"IQM of batches of K "
                "round trips, fp and np interleaved\", \"rows\": [\n",
                (unsigned)nranks, path, lpath, layers, commit ? commit : "");
    }
    double *samples[NMODES];
    for (int m = 0; m < NMODES; m++) {
        samples[m] = calloc(reps, sizeof(double));
        if (!samples[m]) gasnet_exit(1);
    }
    for (unsigned si = 0; si < ns; si++) {
        const size_t size = sizes[si];
        double st[NMODES][4] = { { 0 } };
        unsigned kbatch = 1, k = 0;
        for (int pair = 0; pair < (with_long ? 2 : 1); pair++) {
            const int a = pair ? LFP : FP, b = pair ? LNP : NP;
            /* warm up both, and size batch and sample count to the budget */
            uint64_t warm = UINT64_MAX;   /* fastest of 20 batches of 10: robust to stalls */
            for (int i = 0; i < 20; i++) {
                const uint64_t t = batch(a, size, 10);
                if (t < warm) warm = t;
                (void)batch(b, size, 10);
            }
            const double est_us = (double)warm / 10 / per_us;
            if (!pair) {
                kbatch = (unsigned)ceil(4.0 / (est_us > 0.01 ? est_us : 0.01));
                if (kbatch > 64) kbatch = 64;
                if (kbatch < 1) kbatch = 1;
                k = (unsigned)(budget_s * 1e6 / (kbatch * (est_us > 0.01 ? est_us : 0.01)));
                if (k > reps) k = reps;
                if (k < 20) k = 20;
            }
            for (unsigned i = 0; i < k; i++) {
                const int first = (i & 1) ? b : a, second = (i & 1) ? a : b;   /* ABBA */
                samples[first][i] = (double)batch(first, size, kbatch) / per_us / kbatch;
                samples[second][i] = (double)batch(second, size, kbatch) / per_us / kbatch;
            }
            for (int m = a; m <= b; m += b - a) {
                st[m][1] = median(samples[m], k);   /* sorts */
                st[m][0] = iqm(samples[m], k);
                st[m][2] = pct(samples[m], k, 10);
                st[m][3] = pct(samples[m], k, 90);
            }
        }
        const double mbs = 2.0 * (double)size / st[NP][0];   /* bytes per us = MB/s */
        printf("%8zu %4u %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %6.3f %8.1f", size,
               kbatch, st[FP][0], st[FP][1], st[FP][2], st[FP][3], st[NP][0], st[NP][1],
               st[NP][2], st[NP][3], st[NP][0] / st[FP][0], mbs);
        if (with_long) printf(" %8.4f %8.4f %6.3f", st[LFP][0], st[LNP][0], st[LNP][0] / st[LFP][0]);
        printf("\n");
        fflush(stdout);
        if (jf) {
            fprintf(jf, "  {\"size\": %zu, \"fp_us\": %.4f, \"fp_med\": %.4f, \"fp_p10\": %.4f, "
                    "\"fp_p90\": %.4f, \"np_us\": %.4f, \"np_med\": %.4f, \"np_p10\": %.4f, "
                    "\"np_p90\": %.4f, \"samples\": %u, \"batch\": %u", size, st[FP][0],
                    st[FP][1], st[FP][2], st[FP][3], st[NP][0], st[NP][1], st[NP][2], st[NP][3],
                    k, kbatch);
            if (with_long)
                fprintf(jf, ", \"lfp_us\": %.4f, \"lfp_med\": %.4f, \"lnp_us\": %.4f, "
                        "\"lnp_med\": %.4f", st[LFP][0], st[LFP][1], st[LNP][0], st[LNP][1]);
            fprintf(jf, "}%s\n", si + 1 < ns ? "," : "");
        }
    }
    if (jf) {
        fprintf(jf, "]}\n");
        fclose(jf);
    }
    for (gex_Rank_t r = 1; r < nranks; r++) gex_AM_RequestShort0(tm, r, H_STOP, 0);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    gasnet_exit(0);
}
