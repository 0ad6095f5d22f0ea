/*
 * am_bench.c: Active Message micro-benchmark (`make bench`).
 *
 * Follows the ping-pong methodology of GASNet-EX's testam: rank 0 sends a
 * Request, rank 1's handler answers with a Reply, and rank 0 waits for that
 * Reply before sending the next Request.  Measured:
 *   short   AM Short0 Request -> Short0 Reply round trip;
 *   medium  AM Medium0 Request of 0 B .. MaxMedium -> Short0 Reply;
 *   long    AM Long0 Request of 8 B .. 1 MiB into rank 1's segment -> Short0 Reply;
 *   flood   rank 0 injects K one-way Requests (Short, Medium, Long) that rank 1
 *           only counts, then one final acknowledgement: messages/s and MB/s;
 *   poll    the cost of one gasnet_AMPoll() that finds nothing, on rank 0: a
 *           waiting rank notices an arrival after half of it on average.
 * Each measurement is auto-scaled so that one repetition of N iterations
 * takes about 25 ms (5 ms with --quick, 1 ms with --smoke), warmed up once,
 * then repeated R times; the median (and min, max) per iteration is
 * reported, the median because it is the least sensitive to outliers
 * (paper, appendix C).  Before each measurement rank 0 tells rank 1 the
 * payload size, and rank 1's handlers count messages of another size; a
 * non-zero count fails the run (exit status 1).
 *
 * Hardware floor: when rank 1's segment is mapped in rank 0 (PSHM), each
 * measurement is paired with the round trip of a bare cache-line ping-pong
 * between the same two processes (two lines in rank 1's segment, no GEX
 * call), taken just before its timed repetitions.  On a virtual machine the
 * host may move the two vCPUs between nearby and distant cores, which
 * changes every latency here by a factor of several; the floor column shows
 * which case a row was measured in, and median - floor is what the software
 * adds to the round trip.
 *
 * Ranks: rank 0 measures against rank 1.  Ranks 2.. only poll (yielding the
 * CPU between polls) until the end, so use -n 2 for meaningful numbers.
 * With one rank, rank 0 talks to itself: its handlers run inside the
 * sending calls (docs/am.md, "AMs to oneself"); GEX_AM_LOOPBACK=conduit
 * measures the conduit's own loopback instead.
 * Waiting sides spin on gasnet_AMPoll() without sleeping.
 *
 * Output: a table on rank 0's stdout and a JSON file (--json FILE).  Inside
 * the GEX build tree (GEXI_BUILDING_GEX) the conduit name and each layer's
 * bound implementation come from libgex-core; against an installed GEX
 * (pkg-config build, bench/compare.sh) the layer string is still read
 * through libgex-core's exported gexi_describe_layers() if present, and the
 * conduit name comes from GEX_CONDUIT (default "smp").
 *
 * The targets of the smp fast-path issue are checked on smp with 2 ranks;
 * they only change the exit status with --check-targets (benchmarks are
 * not tests: `make check` never looks at speed).
 */
#include <gasnetex.h>
#include "../bench_common.h"
#include "../bench_opts.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#ifndef GEXI_THREAD_MODE /* built against GASNet-EX (./gex-dev bench --against-gasnet) */
#if defined(GASNET_PAR)
#define GEXI_THREAD_MODE 2
#elif defined(GASNET_PARSYNC)
#define GEXI_THREAD_MODE 1
#else
#define GEXI_THREAD_MODE 0
#endif
#endif

/* ---- Handlers ---- */
enum {
    H_PING_SHORT = GEX_AM_INDEX_BASE, H_PING_MED, H_PING_LONG, H_PONG,
    H_FLOOD_SHORT, H_FLOOD_MED, H_FLOOD_LONG, H_FLOOD_END, H_FLOOD_ACK,
    H_CTL, H_CTL_ACK, H_BAR_ARRIVE, H_BAR_RELEASE,
};
enum { CTL_SET_SIZE = 1, CTL_STOP = 2, CTL_FLOOR = 3 };

static gex_TM_t tm;
static gex_Rank_t me, nranks, peer;
static volatile unsigned pongs;          /* rank 0: replies seen */
static volatile unsigned ctl_acks;       /* rank 0: control replies seen */
static volatile unsigned flood_acks;     /* rank 0: flood acknowledgements */
static volatile unsigned long flood_count, flood_expected;  /* rank 1 */
static volatile int stop;
static volatile unsigned bar_arrived, bar_released;
static volatile unsigned long peer_errors_total;  /* rank 0: reported at the end */
static size_t expect_nbytes;             /* rank 1: payload size of the current test */
static unsigned long errors;             /* rank 1: messages with a wrong size */

/* Hardware floor (file comment): two cache lines in rank 1's segment. */
struct floor_lines {
    _Alignas(128) _Atomic uint64_t ping;    /* written by rank 0 */
    _Alignas(128) _Atomic uint64_t pong;    /* written by rank 1 */
};
static struct floor_lines *floor_lines;   /* NULL: not measurable */
static uint64_t floor_seq;                 /* last value exchanged, same on both sides */
static volatile long floor_pending;        /* rank 1: round trips requested */

static void ping_short(gex_Token_t t) { gex_AM_ReplyShort0(t, H_PONG, 0); }
static void ping_med(gex_Token_t t, void *buf, size_t n)
{
    if (n != expect_nbytes) errors++;
    gex_AM_ReplyShort0(t, H_PONG, 0);
}
static void ping_long(gex_Token_t t, void *buf, size_t n)
{
    if (n != expect_nbytes) errors++;
    gex_AM_ReplyShort0(t, H_PONG, 0);
}
static void pong(gex_Token_t t) { pongs++; }
static void flood_short(gex_Token_t t) { flood_count++; }
static void flood_med(gex_Token_t t, void *buf, size_t n)
{
    if (n != expect_nbytes) errors++;
    flood_count++;
}
static void flood_long(gex_Token_t t, void *buf, size_t n)
{
    if (n != expect_nbytes) errors++;
    flood_count++;
}
static void flood_end(gex_Token_t t, gex_AM_Arg_t k) { flood_expected = (unsigned long)k; }
static void flood_ack(gex_Token_t t) { flood_acks++; }
static void ctl(gex_Token_t t, gex_AM_Arg_t cmd, gex_AM_Arg_t val)
{
    if (cmd == CTL_SET_SIZE) expect_nbytes = (size_t)(uint32_t)val;
    else if (cmd == CTL_STOP) stop = 1;
    else if (cmd == CTL_FLOOR) floor_pending = val;
    gex_AM_ReplyShort0(t, H_CTL_ACK, 0);
}
static void ctl_ack(gex_Token_t t) { ctl_acks++; }
static void bar_arrive(gex_Token_t t, gex_AM_Arg_t errs)
{
    peer_errors_total += (unsigned long)(uint32_t)errs;
    bar_arrived++;
}
static void bar_release(gex_Token_t t) { bar_released++; }

/* Called from every waiting loop on the receiving side of a flood: the
 * acknowledgement is a Request, so it cannot be sent from the handler. */
static inline void flood_service(void)
{
    unsigned long want = flood_expected;
    if (want && flood_count >= want) {
        flood_count -= want;
        flood_expected = 0;
        gex_AM_RequestShort0(tm, 0, H_FLOOD_ACK, 0);
    }
}

/* Rank 1's half of the bare ping-pong: no polling meanwhile (rank 0 sends
 * nothing until it is over). */
static void floor_serve(void)
{
    long n = floor_pending;
    floor_pending = 0;
    for (long i = 0; i < n; i++) {
        uint64_t want = ++floor_seq;
        while (atomic_load_explicit(&floor_lines->ping, memory_order_acquire) != want) {}
        atomic_store_explicit(&floor_lines->pong, want, memory_order_release);
    }
}

/* Rank 0 -> every rank: an AM barrier good enough for start and end. */
static void barrier(unsigned long my_errors)
{
    static unsigned epoch;
    epoch++;
    gex_AM_RequestShort1(tm, 0, H_BAR_ARRIVE, 0, (gex_AM_Arg_t)(uint32_t)my_errors);
    if (me == 0) {
        while (bar_arrived < epoch * nranks) gasnet_AMPoll();
        for (gex_Rank_t r = 0; r < nranks; r++) gex_AM_RequestShort0(tm, r, H_BAR_RELEASE, 0);
    }
    while (bar_released < epoch) gasnet_AMPoll();
}

/* ---- Options and environment ---- */
static struct {
    int quick, smoke, reps, check_targets;
    long floor_iters;             /* round trips per floor sample */
    const char *only, *label, *json;
    double target_s;              /* wanted duration of one repetition */
    long min_iters;               /* calibration runs at least this many */
} opt = { 0, 0, 7, 0, 2000, NULL, NULL, NULL, 0.025, 64 };

static int want(const char *what) { return bench_only_wants(opt.only, what); }

/* --only may be repeated: the lists add up. */
static int add_only(const char *v)
{
    static const char *const known[] = { "poll", "short", "medium", "long", "flood" };
    static char only_buf[256];
    if (!bench_list_known(v, known, 5)) return 0;
    size_t used = strlen(only_buf);
    snprintf(only_buf + used, sizeof only_buf - used, "%s%s", used ? "," : "", v);
    opt.only = only_buf;
    return 1;
}

static const struct bench_opt options[] = {
    BENCH_FLAG("--quick", "fewer reps and sizes, 5 ms repetitions", &opt.quick),
    BENCH_FLAG("--smoke", "as --quick with 1 rep of ~1 ms: only checks that it runs", &opt.smoke),
    BENCH_OPT_REPS("repetitions per measurement (default 7, --quick 3)", &opt.reps),
    BENCH_CALL("--only", "WHAT", "poll|short|medium|long|flood (comma list, may be repeated)",
               add_only),
    BENCH_OPT_LABEL(&opt.label),
    BENCH_OPT_JSON("bench/results/am-<conduit>-<time>.json", &opt.json),
    BENCH_OPT_CHECK_TARGETS(&opt.check_targets),
};

static void parse_args(int argc, char **argv)
{
    const struct bench_cli cli = {
        .prog = "am_bench", .synopsis = "Usage: gexrun -n 2 am_bench [options]",
        .footer = "Ranks 0 and 1 measure; further ranks only poll.  See the file comment.\n",
        .opts = options, .n_opts = BENCH_N_OPTS(options), .help = 1, .rank = me,
    };
    bench_opts_parse(&cli, argc, argv);
    bench_quick_smoke(&opt.quick, opt.smoke, &opt.reps, 7, &opt.target_s, 0.005, 0.001,
                      &opt.label);
    if (opt.smoke) {
        opt.min_iters = 4;
        opt.floor_iters = 200;
    }
}

/* ---- Results ---- */
#define MAX_RESULTS 64
struct result {
    char name[32];
    const char *kind;               /* "latency" or "rate" */
    size_t size;
    long iters;                     /* per repetition */
    int reps;
    double sample[1000];            /* per-iteration seconds, one per repetition */
    double med, min, max;           /* per-iteration seconds */
    double floor;                   /* bare cache-line round trip before the reps; < 0: none */
};
static struct result results[MAX_RESULTS];
static int n_results;
static double floor_start = -1, floor_end = -1;   /* run-level floor samples */

/* ---- The measured loops (rank 0) ---- */
typedef double bench_fn(long iters, size_t size);

static unsigned char *src_buf;      /* rank 0: payload source */
static void *peer_seg;              /* rank 0: peer's segment (owner address) */

static double run_poll_empty(long iters, size_t size)
{
    (void)size;
    double t0 = now_s();
    for (long i = 0; i < iters; i++) gasnet_AMPoll();
    return now_s() - t0;
}

static double run_short_rtt(long iters, size_t size)
{
    (void)size;
    double t0 = now_s();
    for (long i = 0; i < iters; i++) {
        unsigned want_pongs = pongs + 1;
        gex_AM_RequestShort0(tm, peer, H_PING_SHORT, 0);
        while (pongs != want_pongs) gasnet_AMPoll();
    }
    return now_s() - t0;
}

static double run_medium_rtt(long iters, size_t size)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++) {
        unsigned want_pongs = pongs + 1;
        gex_AM_RequestMedium0(tm, peer, H_PING_MED, src_buf, size, GEX_EVENT_NOW, 0);
        while (pongs != want_pongs) gasnet_AMPoll();
    }
    return now_s() - t0;
}

static double run_long_rtt(long iters, size_t size)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++) {
        unsigned want_pongs = pongs + 1;
        gex_AM_RequestLong0(tm, peer, H_PING_LONG, src_buf, size, peer_seg, GEX_EVENT_NOW, 0);
        while (pongs != want_pongs) gasnet_AMPoll();
    }
    return now_s() - t0;
}

static void wait_flood_ack(long iters)
{
    unsigned want_acks = flood_acks + 1;
    gex_AM_RequestShort1(tm, peer, H_FLOOD_END, 0, (gex_AM_Arg_t)iters);
    while (flood_acks != want_acks) {
        gasnet_AMPoll();
        if (peer == me) flood_service();   /* loopback: we are also the receiver */
    }
}

static double run_flood_short(long iters, size_t size)
{
    (void)size;
    double t0 = now_s();
    for (long i = 0; i < iters; i++) gex_AM_RequestShort0(tm, peer, H_FLOOD_SHORT, 0);
    wait_flood_ack(iters);
    return now_s() - t0;
}

static double run_flood_medium(long iters, size_t size)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++)
        gex_AM_RequestMedium0(tm, peer, H_FLOOD_MED, src_buf, size, GEX_EVENT_NOW, 0);
    wait_flood_ack(iters);
    return now_s() - t0;
}

static double run_flood_long(long iters, size_t size)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++)
        gex_AM_RequestLong0(tm, peer, H_FLOOD_LONG, src_buf, size, peer_seg, GEX_EVENT_NOW, 0);
    wait_flood_ack(iters);
    return now_s() - t0;
}

/* Median of three samples of the bare cache-line round trip, in seconds;
 * -1 when rank 1's segment is not mapped here. */
static double measure_floor(void)
{
    if (!floor_lines) return -1;
    double s[3];
    for (int k = 0; k < 3; k++) {
        unsigned want_acks = ctl_acks + 1;
        gex_AM_RequestShort2(tm, peer, H_CTL, 0, CTL_FLOOR, (gex_AM_Arg_t)opt.floor_iters);
        while (ctl_acks != want_acks) gasnet_AMPoll();
        double t0 = now_s();
        for (long i = 0; i < opt.floor_iters; i++) {
            uint64_t want = ++floor_seq;
            atomic_store_explicit(&floor_lines->ping, want, memory_order_release);
            while (atomic_load_explicit(&floor_lines->pong, memory_order_acquire) != want) {}
        }
        s[k] = (now_s() - t0) / (double)opt.floor_iters;
    }
    return median_of(s, 3);
}

/* Tells the receiver the payload size of the next test and waits until it
 * has seen it (also drains anything still in flight). */
static void set_size(size_t size)
{
    unsigned want_acks = ctl_acks + 1;
    gex_AM_RequestShort2(tm, peer, H_CTL, 0, CTL_SET_SIZE, (gex_AM_Arg_t)(uint32_t)size);
    while (ctl_acks != want_acks) gasnet_AMPoll();
}

/* Calibrates N so that one repetition takes about opt.target_s (this also
 * warms up caches, pages and branch predictors), runs one more warm-up
 * repetition, then opt.reps timed ones. */
static void measure(const char *name, const char *kind, bench_fn *fn, size_t size, long max_iters)
{
    if (n_results == MAX_RESULTS) return;
    struct result *r = &results[n_results++];
    set_size(size);
    /* Grow N until a run lasts a tenth of the target and has at least
     * opt.min_iters iterations; estimate the cost from the faster of two
     * runs at that N, so that one preemption during calibration does not
     * shrink N. */
    long n = opt.min_iters < 16 ? opt.min_iters : 16;
    double t = fn(n, size);
    while ((t < opt.target_s / 10 || n < opt.min_iters) && n < max_iters) {
        n = n * 4 > max_iters ? max_iters : n * 4;
        t = fn(n, size);
    }
    double t2 = fn(n, size);
    if (t2 < t) t = t2;
    double scaled = (double)n * opt.target_s / (t > 1e-9 ? t : 1e-9);
    n = scaled < 1 ? 1 : scaled > (double)max_iters ? max_iters : (long)scaled;
    (void)fn(n, size);                       /* warm-up at the final N */
    r->floor = measure_floor();
    snprintf(r->name, sizeof r->name, "%s", name);
    r->kind = kind;
    r->size = size;
    r->iters = n;
    r->reps = opt.reps;
    for (int i = 0; i < opt.reps; i++) r->sample[i] = fn(n, size) / (double)n;
    r->med = median_of(r->sample, opt.reps);
    r->min = r->max = r->sample[0];
    for (int i = 1; i < opt.reps; i++) {
        if (r->sample[i] < r->min) r->min = r->sample[i];
        if (r->sample[i] > r->max) r->max = r->sample[i];
    }
}

/* ---- Reporting ---- */
static void print_table(void)
{
    int header = 0;
    for (int i = 0; i < n_results; i++) {
        const struct result *r = &results[i];
        if (strcmp(r->kind, "latency")) continue;
        if (!header++)
            printf("\n%-14s %9s %9s %5s %11s %10s %10s %9s\n", "per op", "bytes", "iters",
                   "reps", "median_us", "min_us", "max_us", "floor_us");
        printf("%-14s %9zu %9ld %5d %11.3f %10.3f %10.3f", r->name, r->size, r->iters,
               r->reps, r->med * 1e6, r->min * 1e6, r->max * 1e6);
        if (r->floor >= 0) printf(" %9.3f\n", r->floor * 1e6);
        else printf(" %9s\n", "-");
    }
    header = 0;
    for (int i = 0; i < n_results; i++) {
        const struct result *r = &results[i];
        if (strcmp(r->kind, "rate")) continue;
        if (!header++)
            printf("\n%-14s %9s %9s %5s %11s %10s %10s %10s\n", "flood", "bytes", "msgs",
                   "reps", "Mmsg/s", "min", "max", "MB/s");
        /* rates: min rate comes from the slowest repetition */
        printf("%-14s %9zu %9ld %5d %11.3f %10.3f %10.3f %10.1f\n", r->name, r->size, r->iters,
               r->reps, 1e-6 / r->med, 1e-6 / r->max, 1e-6 / r->min,
               (double)r->size / r->med * 1e-6);
    }
}

struct target {
    const char *name, *test;
    size_t size;
    double limit_us, value_us, floor_us;
    const char *result;           /* PASS, FAIL or SKIP */
    char why[96];
};

static int write_json(const char *path, const struct target *tg, int n_tg, const char *stamp,
                      unsigned long errs)
{
    FILE *f = bench_json_begin(path, "am", opt.label, stamp, (unsigned)nranks);
    if (!f) return -1;
    fprintf(f, ",\n  \"peer\": %u", (unsigned)peer);
    fprintf(f, ",\n  \"thread_mode\": \"%s\"",
            GEXI_THREAD_MODE == 0 ? "SEQ" : GEXI_THREAD_MODE == 1 ? "PARSYNC" : "PAR");
    fprintf(f, ",\n  \"quick\": %s,\n  \"smoke\": %s,\n  \"reps\": %d,\n"
            "  \"rep_target_ms\": %.1f",
            opt.quick ? "true" : "false", opt.smoke ? "true" : "false", opt.reps,
            opt.target_s * 1e3);
    fprintf(f, ",\n  \"verification_errors\": %lu", errs);
    fprintf(f, ",\n  \"floor_start_us\": ");
    if (floor_start >= 0) fprintf(f, "%.4f", floor_start * 1e6);
    else fprintf(f, "null");
    fprintf(f, ",\n  \"floor_end_us\": ");
    if (floor_end >= 0) fprintf(f, "%.4f", floor_end * 1e6);
    else fprintf(f, "null");
    fprintf(f, ",\n  \"tests\": [");
    for (int i = 0; i < n_results; i++) {
        const struct result *r = &results[i];
        fprintf(f, "%s\n    {\"name\": \"%s\", \"kind\": \"%s\", \"size\": %zu, "
                "\"iterations\": %ld, \"reps\": %d, \"median_us\": %.4f, \"min_us\": %.4f, "
                "\"max_us\": %.4f",
                i ? "," : "", r->name, r->kind, r->size, r->iters, r->reps, r->med * 1e6,
                r->min * 1e6, r->max * 1e6);
        if (r->floor >= 0) fprintf(f, ", \"floor_us\": %.4f", r->floor * 1e6);
        else fprintf(f, ", \"floor_us\": null");
        if (!strcmp(r->kind, "rate"))
            fprintf(f, ", \"median_msgs_per_s\": %.1f, \"min_msgs_per_s\": %.1f, "
                    "\"max_msgs_per_s\": %.1f, \"median_MB_per_s\": %.2f",
                    1 / r->med, 1 / r->max, 1 / r->min, (double)r->size / r->med * 1e-6);
        fprintf(f, ", \"samples_us\": [");
        for (int k = 0; k < r->reps; k++) fprintf(f, "%s%.4f", k ? ", " : "", r->sample[k] * 1e6);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ],\n  \"targets\": [");
    for (int i = 0; i < n_tg; i++) {
        fprintf(f, "%s\n    {\"name\": \"%s\", \"test\": \"%s\", \"size\": %zu, "
                "\"limit_us\": %.3f, ",
                i ? "," : "", tg[i].name, tg[i].test, tg[i].size, tg[i].limit_us);
        if (tg[i].value_us >= 0) fprintf(f, "\"value_us\": %.4f, ", tg[i].value_us);
        else fprintf(f, "\"value_us\": null, ");
        if (tg[i].floor_us >= 0) fprintf(f, "\"floor_us\": %.4f, ", tg[i].floor_us);
        else fprintf(f, "\"floor_us\": null, ");
        fprintf(f, "\"result\": \"%s\", \"note\": ", tg[i].result);
        json_str(f, tg[i].why);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "am_bench: error writing %s\n", path);
        return -1;
    }
    return 0;
}

/* The targets: smp, 2 ranks. */
static int check_targets(struct target *tg)
{
    static const struct {
        const char *name, *test;
        size_t size;
        double limit_us;
    } defs[] = {
        { "AM Short round trip", "short_rtt", 0, 0.25 },
        { "AM Medium 1 KiB round trip", "medium_rtt", 1024, 0.30 },
    };
    int n = (int)(sizeof defs / sizeof defs[0]);
    for (int i = 0; i < n; i++) {
        tg[i] = (struct target){ defs[i].name, defs[i].test, defs[i].size, defs[i].limit_us, -1,
                                 -1, "SKIP", "" };
        const struct result *r = NULL;
        for (int k = 0; k < n_results; k++)
            if (!strcmp(results[k].name, defs[i].test) && results[k].size == defs[i].size)
                r = &results[k];
        if (r) {
            tg[i].value_us = r->med * 1e6;
            tg[i].floor_us = r->floor >= 0 ? r->floor * 1e6 : -1;
        }
        if (strcmp(conduit_name(), "smp") || nranks != 2)
            snprintf(tg[i].why, sizeof tg[i].why, "defined for smp with 2 ranks only");
        else if (!r)
            snprintf(tg[i].why, sizeof tg[i].why, "not measured in this run");
        else
            tg[i].result = tg[i].value_us <= defs[i].limit_us ? "PASS" : "FAIL";
    }
    return n;
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "AM_BENCH", &argc, &argv, 0) != GASNET_OK) {
        fprintf(stderr, "am_bench: gex_Client_Init failed\n");
        return 1;
    }
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);
    peer = nranks > 1 ? 1 : 0;
    parse_args(argc, argv);

    const gex_Flags_t SREQ = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST,
                      SREP = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY,
                      MREQ = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
                      LREQ = GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST;
    gex_AM_Entry_t handlers[] = {
        { H_PING_SHORT, (gex_AM_Fn_t)ping_short, SREQ, 0, NULL, "ping_short" },
        { H_PING_MED, (gex_AM_Fn_t)ping_med, MREQ, 0, NULL, "ping_med" },
        { H_PING_LONG, (gex_AM_Fn_t)ping_long, LREQ, 0, NULL, "ping_long" },
        { H_PONG, (gex_AM_Fn_t)pong, SREP, 0, NULL, "pong" },
        { H_FLOOD_SHORT, (gex_AM_Fn_t)flood_short, SREQ, 0, NULL, "flood_short" },
        { H_FLOOD_MED, (gex_AM_Fn_t)flood_med, MREQ, 0, NULL, "flood_med" },
        { H_FLOOD_LONG, (gex_AM_Fn_t)flood_long, LREQ, 0, NULL, "flood_long" },
        { H_FLOOD_END, (gex_AM_Fn_t)flood_end, SREQ, 1, NULL, "flood_end" },
        { H_FLOOD_ACK, (gex_AM_Fn_t)flood_ack, SREQ, 0, NULL, "flood_ack" },
        { H_CTL, (gex_AM_Fn_t)ctl, SREQ, 2, NULL, "ctl" },
        { H_CTL_ACK, (gex_AM_Fn_t)ctl_ack, SREP, 0, NULL, "ctl_ack" },
        { H_BAR_ARRIVE, (gex_AM_Fn_t)bar_arrive, SREQ, 1, NULL, "bar_arrive" },
        { H_BAR_RELEASE, (gex_AM_Fn_t)bar_release, SREQ, 0, NULL, "bar_release" },
    };
    if (gex_EP_RegisterHandlers(ep, handlers, sizeof handlers / sizeof handlers[0]) != GASNET_OK) {
        fprintf(stderr, "am_bench: gex_EP_RegisterHandlers failed\n");
        gasnet_exit(1);
    }

    /* Long targets live in the peer's segment: 1 MiB plus a page. */
    const size_t long_cap = (size_t)1 << 20;
    uintptr_t seg_size = long_cap + GASNET_PAGESIZE;
    if (seg_size > gasnet_getMaxLocalSegmentSize()) seg_size = gasnet_getMaxLocalSegmentSize();
    seg_size &= ~(uintptr_t)(GASNET_PAGESIZE - 1);
    if (gex_Segment_Attach(&seg, tm, seg_size) != GASNET_OK) {
        fprintf(stderr, "am_bench: gex_Segment_Attach(%zu) failed\n", (size_t)seg_size);
        gasnet_exit(1);
    }
    uintptr_t peer_size = 0;
    void *peer_local = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, peer, &peer_seg, &peer_local, &peer_size, 0));
    /* The floor lines sit in the last page of rank 1's segment, which the
     * Long tests never write; rank 1 also needs them when rank 0 has them. */
    if (peer_size < 2 * GASNET_PAGESIZE) {
        fprintf(stderr, "am_bench: segment of %zu bytes is too small\n", (size_t)peer_size);
        gasnet_exit(1);
    }
    peer_size -= GASNET_PAGESIZE;
    if (me == 0 && peer != me && peer_local)
        floor_lines = (struct floor_lines *)((char *)peer_local + peer_size);
    else if (me == peer && me != 0)
        floor_lines = (struct floor_lines *)((char *)gex_Segment_QueryAddr(seg) +
                                             gex_Segment_QuerySize(seg) - GASNET_PAGESIZE);

    const size_t max_med = gex_AM_MaxRequestMedium(tm, peer, GEX_EVENT_NOW, 0, 0);
    size_t max_long = gex_AM_MaxRequestLong(tm, peer, GEX_EVENT_NOW, 0, 0);
    if (max_long > peer_size) max_long = peer_size;
    if (max_long > long_cap) max_long = long_cap;
    size_t buf_size = max_med > max_long ? max_med : max_long;
    src_buf = malloc(buf_size ? buf_size : 1);
    if (!src_buf) {
        fprintf(stderr, "am_bench: out of memory\n");
        gasnet_exit(1);
    }
    for (size_t i = 0; i < buf_size; i++) src_buf[i] = (unsigned char)i;

    barrier(0);

    if (me != 0) {
        /* Receiver (rank 1) or idle rank: serve until rank 0 says stop. */
        if (me == peer) {
            while (!stop) {
                gasnet_AMPoll();
                flood_service();
                if (floor_pending) floor_serve();
            }
        } else {
            while (!stop) {
                gasnet_AMPoll();
                sched_yield();
            }
        }
        barrier(errors);
        barrier(0);   /* gasnet_exit ends the whole job: wait for rank 0's report */
        gasnet_exit(0);
    }

    /* ---- rank 0 ---- */
    char stamp[32];
    time_t tnow = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", localtime(&tnow));
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    const char *fr = getenv("GEX_FORCE_REFERENCE");
    printf("# GEX AM benchmark: conduit %s, %u rank(s), %s, peer rank %u%s\n", conduit_name(),
           (unsigned)nranks, GEXI_THREAD_MODE == 0 ? "GASNET_SEQ" : "GASNET_PAR",
           (unsigned)peer, nranks == 1 ? " (loopback)" : nranks > 2 ? " (ranks 2.. idle)" : "");
    printf("# label: %s   GEX_FORCE_REFERENCE=%s\n", opt.label ? opt.label : "(none)",
           fr ? fr : "(unset)");
    printf("# layers: %s\n", layers_string());
    printf("# cpu: %s (%ld online)\n", cpu, sysconf(_SC_NPROCESSORS_ONLN));
    printf("# MaxMedium %zu, Long up to %zu; median of %d reps of N iterations (~%.0f ms each)%s\n",
           max_med, max_long, opt.reps, opt.target_s * 1e3,
           opt.smoke ? " [smoke]" : opt.quick ? " [quick]" : "");
    fflush(stdout);

    floor_start = measure_floor();
    if (floor_start >= 0)
        printf("# bare cache-line round trip rank 0 <-> 1 (hardware floor): %.3f us\n",
               floor_start * 1e6);
    fflush(stdout);

    const long lat_cap = 50L * 1000 * 1000, flood_cap = 20L * 1000 * 1000;
    if (want("poll")) measure("poll_empty", "latency", run_poll_empty, 0, lat_cap);
    if (want("short")) measure("short_rtt", "latency", run_short_rtt, 0, lat_cap);
    if (want("medium")) {
        static const size_t full[] = { 0, 8, 64, 256, 1024, 4096, 8192 };
        static const size_t quick[] = { 0, 1024 };
        const size_t *s = opt.quick ? quick : full;
        size_t n = opt.quick ? 2 : sizeof full / sizeof full[0];
        for (size_t i = 0; i < n; i++)
            if (s[i] <= max_med) measure("medium_rtt", "latency", run_medium_rtt, s[i], lat_cap);
        if (!opt.quick && max_med > 8192)
            measure("medium_rtt", "latency", run_medium_rtt, max_med, lat_cap);
    }
    if (want("long")) {
        /* powers of 4 from 8 B, then the largest size (1 MiB unless limited) */
        size_t last = 0;
        for (size_t s = 8; s <= max_long; s *= opt.quick ? 64 : 4) {
            measure("long_rtt", "latency", run_long_rtt, s, lat_cap);
            last = s;
        }
        if (!opt.quick && max_long > last)
            measure("long_rtt", "latency", run_long_rtt, max_long, lat_cap);
    }
    if (want("flood")) {
        measure("flood_short", "rate", run_flood_short, 0, flood_cap);
        static const size_t med_full[] = { 8, 256, 1024, 4096 }, med_quick[] = { 1024 };
        const size_t *s = opt.quick ? med_quick : med_full;
        size_t n = opt.quick ? 1 : 4;
        for (size_t i = 0; i < n; i++)
            if (s[i] <= max_med) measure("flood_medium", "rate", run_flood_medium, s[i], flood_cap);
        if (!opt.quick && max_med > 4096)
            measure("flood_medium", "rate", run_flood_medium, max_med, flood_cap);
        static const size_t long_full[] = { 8, 1024, 65536, (size_t)1 << 20 },
                            long_quick[] = { 65536 };
        s = opt.quick ? long_quick : long_full;
        n = opt.quick ? 1 : 4;
        for (size_t i = 0; i < n; i++)
            if (s[i] <= max_long) measure("flood_long", "rate", run_flood_long, s[i], flood_cap);
    }

    floor_end = measure_floor();

    /* Stop the receiver and idle ranks, then collect their error counts. */
    for (gex_Rank_t r = 1; r < nranks; r++) {
        unsigned want_acks = ctl_acks + 1;
        gex_AM_RequestShort2(tm, r, H_CTL, 0, CTL_STOP, 0);
        while (ctl_acks != want_acks) gasnet_AMPoll();
    }
    barrier(errors);
    unsigned long errs = peer_errors_total;

    print_table();
    struct target tg[4];
    int n_tg = check_targets(tg);
    int missed = 0;
    printf("\n");
    for (int i = 0; i < n_tg; i++) {
        char fl[48] = "";
        if (tg[i].floor_us >= 0)
            snprintf(fl, sizeof fl, ", hardware floor %.3f us", tg[i].floor_us);
        if (tg[i].value_us >= 0)
            printf("TARGET %-28s <= %.2f us: %s (median %.3f us%s)%s%s\n", tg[i].name,
                   tg[i].limit_us, tg[i].result, tg[i].value_us, fl, *tg[i].why ? ": " : "",
                   tg[i].why);
        else
            printf("TARGET %-28s <= %.2f us: %s: %s\n", tg[i].name, tg[i].limit_us,
                   tg[i].result, tg[i].why);
        missed += !strcmp(tg[i].result, "FAIL");
    }
    if (errs) printf("ERROR: %lu messages arrived with a wrong payload size\n", errs);

    char defpath[256];
    if (!opt.json) {
        snprintf(defpath, sizeof defpath, "bench/results/am-%s-%s.json", conduit_name(), stamp);
        opt.json = defpath;
    }
    int jrc = write_json(opt.json, tg, n_tg, stamp, errs);
    if (jrc == 0) printf("JSON written to %s\n", opt.json);
    fflush(stdout);
    int rc = errs || jrc ? 1 : (opt.check_targets && missed) ? 1 : 0;
    barrier(0);
    gasnet_exit(rc);
}
