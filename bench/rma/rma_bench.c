/*
 * rma_bench.c: contiguous RMA micro-benchmark (`make bench-rma`).
 *
 * Rank 0 measures against rank 1, which only polls (so that the reference
 * path over AM, and a conduit's one-sided operations that need the target
 * to call in, progress), yielding every 64 polls, until rank 0 says stop;
 * ranks 2.. poll and yield.
 * Measured, after the methodology of GASNet-EX's testsmall (paper,
 * appendix E):
 *   put_lat, get_lat   blocking gex_RMA_PutBlocking / GetBlocking of 8 B .. 4 KiB,
 *                      one after the other: time per call;
 *   put_bulk           flood of gex_RMA_PutNB(..., GEX_EVENT_DEFER) of 8 B .. 8 MiB,
 *                      events retired with gex_Event_WaitAll every 256 calls;
 *   put_nonbulk        the same with GEX_EVENT_NOW (GASNet-1 non-bulk put_nb);
 *   put_nbi            flood of gex_RMA_PutNBI(GEX_EVENT_DEFER), one gex_NBI_Wait;
 *   get_nb, get_nbi    the same floods for gets;
 *   memcpy             this core's memcpy of the same sizes from the same source
 *                      buffer into our own segment: the bandwidth a PSHM put
 *                      can at best reach, measured in the same run;
 *   put_bulk/memcpy,   1 MiB put floods paired with memcpy repetition by
 *   put_nonbulk/memcpy repetition: the median share of memcpy's bandwidth
 *                      (robust to a load that drifts during the run).
 * The source of puts (destination of gets) is private memory, not in the
 * segment; the remote side is the peer's segment, the same address every
 * time.  Each measurement is auto-scaled to ~25 ms per repetition (5 ms with
 * --quick), warmed up, repeated R times; the median is reported (and min,
 * max).  The JSON records the path the rma layer took (gexi_describe_layers):
 * run once as configured (PSHM bypass) and once with GEX_FORCE_REFERENCE=rma
 * (the reference path over AM) to compare them side by side
 * (bench/rma/side_by_side.sh; `make bench-rma` does both).
 *
 * Targets (smp, 2 ranks), checked with --check-targets only:
 *   PSHM:      8-byte blocking put and get <= 0.01 us;
 *              1 MiB put flood (bulk) >= 80% of memcpy's 1 MiB bandwidth
 *              (put_bulk/memcpy);
 *   reference: 8-byte blocking put <= 0.5 us.
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include "../bench_common.h"
#include "../bench_opts.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

enum { H_STOP = GEX_AM_INDEX_BASE };

static gex_TM_t tm;
static gex_Rank_t me, nranks, peer;
static volatile int stop;

static void h_stop(gex_Token_t t) { (void)t; stop = 1; }

/* Between measurements only: never timed. */
static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* ---- Options ---- */
static struct {
    int quick, smoke, reps, check_targets;
    const char *only, *label, *json;
    double target_s;
    long min_iters;
    size_t sizes[32];           /* --sizes: flood sizes instead of the default list */
    int n_sizes;
} opt = { 0, 0, 7, 0, NULL, NULL, NULL, 0.025, 16, { 0 }, 0 };

static const char *const known_tests[] = { "put_lat", "get_lat", "put_bulk", "put_nonbulk",
                                           "put_nbi", "get_nb", "get_nbi", "memcpy" };
#define N_KNOWN (int)(sizeof known_tests / sizeof known_tests[0])

static int want(const char *what) { return bench_only_wants(opt.only, what); }

static int set_only(const char *v)
{
    opt.only = v;
    return bench_list_known(v, known_tests, N_KNOWN);
}

/* --sizes 8K,1M: at most 32 sizes of 1 byte to 8 MiB */
static int set_sizes(const char *v)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", v);
    opt.n_sizes = 0;
    for (char *t = strtok(tmp, ","); t; t = strtok(NULL, ",")) {
        char *end;
        unsigned long long z = strtoull(t, &end, 10);
        if (*end == 'K' || *end == 'k') z <<= 10, end++;
        else if (*end == 'M' || *end == 'm') z <<= 20, end++;
        if (*end || z < 1 || z > (8ull << 20) || opt.n_sizes == 32) return 0;
        opt.sizes[opt.n_sizes++] = (size_t)z;
    }
    return opt.n_sizes > 0;
}

static const struct bench_opt options[] = {
    BENCH_FLAG("--quick", "fewer reps and sizes, 5 ms repetitions", &opt.quick),
    BENCH_FLAG("--smoke", "one short rep of a few sizes: only checks that it runs", &opt.smoke),
    BENCH_OPT_REPS("repetitions per measurement (default 7, --quick 3)", &opt.reps),
    BENCH_CALL("--only", "LIST", "comma list of: put_lat get_lat put_bulk put_nonbulk put_nbi\n"
               "                     get_nb get_nbi memcpy", set_only),
    BENCH_CALL("--sizes", "LIST", "comma list of flood sizes in bytes (K and M suffixes; at most\n"
               "                     32, each 1..8M) instead of the default list", set_sizes),
    BENCH_OPT_LABEL(&opt.label),
    BENCH_OPT_JSON("bench/results/rma-<path>-<time>.json", &opt.json),
    BENCH_OPT_CHECK_TARGETS(&opt.check_targets),
};

static void parse_args(int argc, char **argv)
{
    const struct bench_cli cli = {
        .prog = "rma_bench", .synopsis = "Usage: gexrun -n 2 rma_bench [options]",
        .footer = "Run with GEX_FORCE_REFERENCE=rma for the reference path over AM.\n",
        .opts = options, .n_opts = BENCH_N_OPTS(options), .help = 1, .rank = me,
    };
    bench_opts_parse(&cli, argc, argv);
    bench_quick_smoke(&opt.quick, opt.smoke, &opt.reps, 7, &opt.target_s, 0.005, 0.001,
                      &opt.label);
    if (opt.smoke) opt.min_iters = 2;
}

/* "native" when the rma layer puts with the conduit's own RMA (put=<conduit>,
 * conduit ABI 1.2), "pshm" when it copies directly to nbrhd peers, else
 * "reference". */
static const char *rma_path(void)
{
    const char *l = layers_string(), *r = strstr(l, "rma: ");
    if (!r) return "unknown";
    const char *end = strchr(r, ';');
    const char *put = strstr(r, "put=");
    if (put && (!end || put < end) && strncmp(put + 4, "reference", 9) != 0) return "native";
    const char *p = strstr(r, "nbrhd=pshm ");
    return p && (!end || p < end) ? "pshm" : "reference";
}

#define MAX_RESULTS 128
struct result {
    char name[24];
    const char *kind;           /* "latency" or "bandwidth" */
    size_t size;
    long iters;
    int reps;
    double sample[1000];        /* seconds per operation */
    double med, min, max;
};
static struct result results[MAX_RESULTS];
static int n_results;

/* ---- Measured loops (rank 0) ---- */
typedef double bench_fn(long iters, size_t size);
static unsigned char *priv;     /* private buffer: put source, get destination */
static char *remote;            /* peer's segment (owner address) */
static char *own;               /* our own segment */
#define WINDOW 256
static gex_Event_t evs[WINDOW];

static double run_put_lat(long iters, size_t size)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++) gex_RMA_PutBlocking(tm, peer, remote, priv, size, 0);
    return now_s() - t0;
}
static double run_get_lat(long iters, size_t size)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++) gex_RMA_GetBlocking(tm, priv, peer, remote, size, 0);
    return now_s() - t0;
}
static double put_nb_flood(long iters, size_t size, gex_Event_t *lc)
{
    double t0 = now_s();
    long k = 0;
    for (long i = 0; i < iters; i++) {
        evs[k++] = gex_RMA_PutNB(tm, peer, remote, priv, size, lc, 0);
        if (k == WINDOW) {
            gex_Event_WaitAll(evs, WINDOW, 0);
            k = 0;
        }
    }
    gex_Event_WaitAll(evs, (size_t)k, 0);
    return now_s() - t0;
}
static double run_put_bulk(long iters, size_t size) { return put_nb_flood(iters, size, GEX_EVENT_DEFER); }
static double run_put_nonbulk(long iters, size_t size) { return put_nb_flood(iters, size, GEX_EVENT_NOW); }
static double run_put_nbi(long iters, size_t size)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++)
        gex_RMA_PutNBI(tm, peer, remote, priv, size, GEX_EVENT_DEFER, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    return now_s() - t0;
}
static double run_get_nb(long iters, size_t size)
{
    double t0 = now_s();
    long k = 0;
    for (long i = 0; i < iters; i++) {
        evs[k++] = gex_RMA_GetNB(tm, priv, peer, remote, size, 0);
        if (k == WINDOW) {
            gex_Event_WaitAll(evs, WINDOW, 0);
            k = 0;
        }
    }
    gex_Event_WaitAll(evs, (size_t)k, 0);
    return now_s() - t0;
}
static double run_get_nbi(long iters, size_t size)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++) gex_RMA_GetNBI(tm, priv, peer, remote, size, 0);
    gex_NBI_Wait(GEX_EC_GET, 0);
    return now_s() - t0;
}
static double run_memcpy(long iters, size_t size)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++) {
        memcpy(own, priv, size);
        __asm__ __volatile__("" ::: "memory"); /* keep every copy */
    }
    return now_s() - t0;
}

static void measure(const char *name, const char *kind, bench_fn *fn, size_t size, long max_iters)
{
    if (n_results == MAX_RESULTS) return;
    struct result *r = &results[n_results++];
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
    (void)fn(n, size);
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

/* Bandwidth of `fn` relative to memcpy at one size, robust to a machine
 * whose load drifts: each repetition times N calls of fn and then N memcpys
 * of the same size back to back; the result holds the per-repetition
 * ratios (memcpy time / fn time, i.e. fn's share of memcpy's bandwidth) and
 * their median. */
static void measure_vs_memcpy(const char *name, bench_fn *fn, size_t size)
{
    if (n_results == MAX_RESULTS) return;
    struct result *r = &results[n_results++];
    long n = 4;
    double t = fn(n, size);
    while (t < opt.target_s / 10 && n < 100000) t = fn(n *= 4, size);
    n = (long)((double)n * opt.target_s / (t > 1e-9 ? t : 1e-9));
    if (n < 1) n = 1;
    (void)fn(n, size);
    (void)run_memcpy(n, size);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->kind = "ratio";
    r->size = size;
    r->iters = n;
    r->reps = opt.reps;
    for (int i = 0; i < opt.reps; i++) {
        double tf = fn(n, size), tm_ = run_memcpy(n, size);
        r->sample[i] = tm_ / tf;
    }
    r->med = median_of(r->sample, opt.reps);
    r->min = r->max = r->sample[0];
    for (int i = 1; i < opt.reps; i++) {
        if (r->sample[i] < r->min) r->min = r->sample[i];
        if (r->sample[i] > r->max) r->max = r->sample[i];
    }
}

static const struct result *find(const char *name, size_t size)
{
    for (int k = 0; k < n_results; k++)
        if (!strcmp(results[k].name, name) && results[k].size == size) return &results[k];
    return NULL;
}

/* ---- Report ---- */
static void print_table(void)
{
    int header = 0;
    for (int i = 0; i < n_results; i++) {
        const struct result *r = &results[i];
        if (strcmp(r->kind, "latency")) continue;
        if (!header++)
            printf("\n%-12s %9s %10s %5s %11s %10s %10s\n", "latency", "bytes", "iters", "reps",
                   "median_us", "min_us", "max_us");
        printf("%-12s %9zu %10ld %5d %11.4f %10.4f %10.4f\n", r->name, r->size, r->iters,
               r->reps, r->med * 1e6, r->min * 1e6, r->max * 1e6);
    }
    header = 0;
    for (int i = 0; i < n_results; i++) {
        const struct result *r = &results[i];
        if (strcmp(r->kind, "bandwidth")) continue;
        if (!header++)
            printf("\n%-12s %9s %10s %5s %11s %10s %10s %9s\n", "flood", "bytes", "ops", "reps",
                   "MB/s", "min", "max", "us/op");
        const struct result *m = find("memcpy", r->size);
        printf("%-12s %9zu %10ld %5d %11.1f %10.1f %10.1f %9.4f", r->name, r->size, r->iters,
               r->reps, (double)r->size / r->med * 1e-6, (double)r->size / r->max * 1e-6,
               (double)r->size / r->min * 1e-6, r->med * 1e6);
        if (m && m != r) printf("  (%.0f%% of memcpy)", 100.0 * m->med / r->med);
        printf("\n");
    }
}

static void print_ratios(void)
{
    int header = 0;
    for (int i = 0; i < n_results; i++) {
        const struct result *r = &results[i];
        if (strcmp(r->kind, "ratio")) continue;
        if (!header++)
            printf("\n%-18s %9s %10s %5s %13s %8s %8s\n", "paired with memcpy", "bytes", "ops",
                   "reps", "median share", "min", "max");
        printf("%-18s %9zu %10ld %5d %12.0f%% %7.0f%% %7.0f%%\n", r->name, r->size, r->iters,
               r->reps, r->med * 100, r->min * 100, r->max * 100);
    }
}

struct target {
    const char *name, *path;
    char value_s[48], limit_s[48];
    double value, limit;       /* value < 0: not measured */
    int higher_is_better;
    const char *result;        /* PASS FAIL SKIP */
    char why[96];
};

static int check_targets(struct target *tg)
{
    const struct result *pl = find("put_lat", 8), *gl = find("get_lat", 8),
                        *pm = find("put_bulk/memcpy", 1 << 20);
    const char *path = rma_path();
    int n = 0;
    tg[n++] = (struct target){ "8 B blocking put (PSHM)", "pshm", "", "", pl ? pl->med * 1e6 : -1,
                               0.01, 0, "SKIP", "" };
    tg[n++] = (struct target){ "8 B blocking get (PSHM)", "pshm", "", "", gl ? gl->med * 1e6 : -1,
                               0.01, 0, "SKIP", "" };
    tg[n++] = (struct target){ "1 MiB put flood vs memcpy (PSHM)", "pshm", "", "",
                               pm ? pm->med : -1, 0.80, 1, "SKIP", "" };
    tg[n++] = (struct target){ "8 B blocking put (reference)", "reference", "", "",
                               pl ? pl->med * 1e6 : -1, 0.5, 0, "SKIP", "" };
    for (int i = 0; i < n; i++) {
        struct target *t = &tg[i];
        if (strcmp(conduit_name(), "smp") || nranks != 2)
            snprintf(t->why, sizeof t->why, "defined for smp with 2 ranks only");
        else if (strcmp(path, t->path))
            snprintf(t->why, sizeof t->why, "this run took the %s path", path);
        else if (t->value < 0)
            snprintf(t->why, sizeof t->why, "not measured in this run");
        else
            t->result = (t->higher_is_better ? t->value >= t->limit : t->value <= t->limit)
                        ? "PASS" : "FAIL";
    }
    return n;
}

static int write_json(const char *path, const struct target *tg, int n_tg, const char *stamp)
{
    FILE *f = bench_json_begin(path, "rma", opt.label, stamp, (unsigned)nranks);
    if (!f) return -1;
    fprintf(f, ",\n  \"peer\": %u,\n  \"path\": ", (unsigned)peer);
    json_str(f, rma_path());
    fprintf(f, ",\n  \"quick\": %s,\n  \"smoke\": %s,\n  \"reps\": %d,\n  \"rep_target_ms\": %.1f",
            opt.quick ? "true" : "false", opt.smoke ? "true" : "false", opt.reps,
            opt.target_s * 1e3);
    /* One test per line: bench/rma/side_by_side.sh reads them with awk. */
    fprintf(f, ",\n  \"tests\": [");
    for (int i = 0; i < n_results; i++) {
        const struct result *r = &results[i];
        const int ratio = !strcmp(r->kind, "ratio");
        fprintf(f, "%s\n    {\"name\": \"%s\", \"kind\": \"%s\", \"size\": %zu, "
                "\"iterations\": %ld, \"reps\": %d, ", i ? "," : "", r->name, r->kind, r->size,
                r->iters, r->reps);
        if (ratio) /* shares of memcpy's bandwidth, not times */
            fprintf(f, "\"median_share_of_memcpy\": %.4f, \"min_share\": %.4f, "
                    "\"max_share\": %.4f, \"samples_share\": [", r->med, r->min, r->max);
        else
            fprintf(f, "\"median_us\": %.5f, \"min_us\": %.5f, \"max_us\": %.5f, "
                    "\"median_MB_per_s\": %.2f, \"samples_us\": [", r->med * 1e6, r->min * 1e6,
                    r->max * 1e6, (double)r->size / r->med * 1e-6);
        for (int k = 0; k < r->reps; k++)
            fprintf(f, "%s%.5f", k ? ", " : "", ratio ? r->sample[k] : r->sample[k] * 1e6);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ],\n  \"targets\": [");
    for (int i = 0; i < n_tg; i++) {
        fprintf(f, "%s\n    {\"name\": \"%s\", \"path\": \"%s\", \"limit\": %.4f, "
                "\"higher_is_better\": %s, ",
                i ? "," : "", tg[i].name, tg[i].path, tg[i].limit,
                tg[i].higher_is_better ? "true" : "false");
        if (tg[i].value >= 0) fprintf(f, "\"value\": %.5f, ", tg[i].value);
        else fprintf(f, "\"value\": null, ");
        fprintf(f, "\"result\": \"%s\", \"note\": ", tg[i].result);
        json_str(f, tg[i].why);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
    if (fclose(f) != 0) return -1;
    return 0;
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "RMA_BENCH", &argc, &argv, 0) != GASNET_OK) {
        fprintf(stderr, "rma_bench: gex_Client_Init failed\n");
        return 1;
    }
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);
    peer = nranks > 1 ? 1 : 0;
    parse_args(argc, argv);

    gex_AM_Entry_t handlers[] = {
        { H_STOP, (gex_AM_Fn_t)h_stop, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "stop" },
    };
    if (gex_EP_RegisterHandlers(ep, handlers, 1) != GASNET_OK) gasnet_exit(1);

    const size_t max_size = (size_t)8 << 20;
    if (gex_Segment_Attach(&seg, tm, max_size + GASNET_PAGESIZE) != GASNET_OK) {
        fprintf(stderr, "rma_bench: gex_Segment_Attach failed\n");
        gasnet_exit(1);
    }
    own = gex_Segment_QueryAddr(seg);
    void *r_owner = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, peer, &r_owner, NULL, NULL, 0));
    remote = r_owner;
    priv = malloc(max_size);
    if (!priv) gasnet_exit(1);
    memset(priv, 0x5a, max_size);
    memset(own, 0, max_size);
    barrier();

    if (me != 0) {
        unsigned polls = 0;
        while (!stop) {
            gasnet_AMPoll();
            /* The peer yields every 64 polls, as GEX's own waits do once
             * they spin idle: free, when it has a core to itself, but on a
             * loaded host a peer that never yields holds a shared core for
             * whole time slices (ms) while rank 0 waits for it. */
            if (me != peer || (++polls & 63) == 0) sched_yield();
        }
        barrier();
        barrier();   /* gasnet_exit ends the whole job: wait for rank 0's report */
        gasnet_exit(0);
    }

    char stamp[32];
    time_t tnow = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", localtime(&tnow));
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    const char *fr = getenv("GEX_FORCE_REFERENCE");
    printf("# GEX RMA benchmark: conduit %s, %u rank(s), peer rank %u%s, path %s\n",
           conduit_name(), (unsigned)nranks, (unsigned)peer,
           nranks == 1 ? " (self: always a copy)" : "", rma_path());
    printf("# label: %s   GEX_FORCE_REFERENCE=%s\n", opt.label ? opt.label : "(none)",
           fr ? fr : "(unset)");
    printf("# layers: %s\n# cpu: %s (%ld online)\n", layers_string(), cpu,
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("# median of %d reps of N operations (~%.0f ms each)%s\n", opt.reps,
           opt.target_s * 1e3, opt.smoke ? " [smoke]" : opt.quick ? " [quick]" : "");
    fflush(stdout);

    static const size_t lat_full[] = { 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 };
    static const size_t lat_quick[] = { 8, 64, 4096 };
    static const size_t bw_full[] = { 8, 64, 512, 4096, 32768, 262144, (size_t)1 << 20,
                                      (size_t)4 << 20, (size_t)8 << 20 };
    static const size_t bw_quick[] = { 8, 4096, (size_t)1 << 20, (size_t)8 << 20 };
    const size_t *lat = opt.quick ? lat_quick : lat_full, *bw = opt.quick ? bw_quick : bw_full;
    const size_t n_lat = opt.quick ? 3 : sizeof lat_full / sizeof lat_full[0];
    size_t n_bw = opt.quick ? 4 : sizeof bw_full / sizeof bw_full[0];
    if (opt.n_sizes) {
        bw = opt.sizes;
        n_bw = (size_t)opt.n_sizes;
    }
    const long cap = 100L * 1000 * 1000;
    struct { const char *name; bench_fn *fn; } floods[] = {
        { "memcpy", run_memcpy }, { "put_bulk", run_put_bulk }, { "put_nonbulk", run_put_nonbulk },
        { "put_nbi", run_put_nbi }, { "get_nb", run_get_nb }, { "get_nbi", run_get_nbi },
    };
    for (size_t i = 0; i < n_lat; i++)
        if (want("put_lat")) measure("put_lat", "latency", run_put_lat, lat[i], cap);
    for (size_t i = 0; i < n_lat; i++)
        if (want("get_lat")) measure("get_lat", "latency", run_get_lat, lat[i], cap);
    for (size_t f = 0; f < sizeof floods / sizeof floods[0]; f++)
        for (size_t i = 0; i < n_bw; i++)
            if (want(floods[f].name))
                measure(floods[f].name, "bandwidth", floods[f].fn, bw[i], cap);

    if (want("put_bulk") && want("memcpy"))
        measure_vs_memcpy("put_bulk/memcpy", run_put_bulk, (size_t)1 << 20);
    if (want("put_nonbulk") && want("memcpy"))
        measure_vs_memcpy("put_nonbulk/memcpy", run_put_nonbulk, (size_t)1 << 20);

    for (gex_Rank_t r = 1; r < nranks; r++) gex_AM_RequestShort0(tm, r, H_STOP, 0);
    barrier();

    print_table();
    print_ratios();
    struct target tg[8];
    int n_tg = check_targets(tg), missed = 0;
    printf("\n");
    for (int i = 0; i < n_tg; i++) {
        const struct target *t = &tg[i];
        const char *unit = t->higher_is_better ? "x memcpy" : "us";
        if (!strcmp(t->result, "SKIP"))
            printf("TARGET %-34s %s %.2f %s: SKIP: %s\n", t->name, t->higher_is_better ? ">=" : "<=",
                   t->limit, unit, t->why);
        else
            printf("TARGET %-34s %s %.2f %s: %s (%.4f)\n", t->name,
                   t->higher_is_better ? ">=" : "<=", t->limit, unit, t->result, t->value);
        missed += !strcmp(t->result, "FAIL");
    }
    char defpath[256];
    if (!opt.json) {
        snprintf(defpath, sizeof defpath, "bench/results/rma-%s-%s.json", rma_path(), stamp);
        opt.json = defpath;
    }
    int jrc = write_json(opt.json, tg, n_tg, stamp);
    if (jrc == 0) printf("JSON written to %s\n", opt.json);
    fflush(stdout);
    barrier();
    gasnet_exit(jrc ? 1 : (opt.check_targets && missed) ? 1 : 0);
}
