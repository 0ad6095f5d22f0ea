/*
 * vis_bench.c: VIS flood bandwidth (`make bench-vis`), after the paper's
 * testvisperf methodology (seed paper, appendices H and I).
 *
 * Rank 0 measures against rank 1 (itself on a 1-rank job), which only polls
 * until rank 0 says stop.  Every operation moves `size` payload bytes made
 * of `elem`-byte elements spread uniformly at 25% density on both sides (a
 * repeating pattern of elem bytes of payload and 3 * elem bytes of skip):
 * the local side in private memory, the remote side in the peer's segment.
 * Series:
 *   indexed_put, indexed_get   Indexed lists of every element's address;
 *   strided_put, strided_get   Strided metadata of D = 3, 8 and 32 levels
 *                              for the same motion (the generator spreads
 *                              the element count over the levels, using
 *                              as few null levels as the count permits);
 *   contig_put                 gex_RMA_PutNBI of `size` contiguous bytes:
 *                              the baseline of the indexed target;
 * for elem = 8 and 64 and sizes 16 B .. 2 MiB (from one element).  Each
 * measurement is a flood of NBI operations and one gex_NBI_Wait, scaled to
 * ~20 ms (5 ms with --quick), repeated R times; the median is reported.
 * The JSON records the path the vis layer took: `make bench-vis` runs once
 * as configured and once with GEX_FORCE_REFERENCE=vis, and
 * bench/vis/side_by_side.sh prints both.
 *
 * Targets (smp, 2 ranks), printed, checked with --check-targets only, from
 * paired measurements (the two series alternate repetition by repetition
 * with the same iteration count; the median of the per-repetition ratios
 * is robust to load that drifts during the run):
 *   fold:    strided_put 32-d >= 90% of 3-d bandwidth (geometric mean over
 *            sizes 16 B, 64 B, .. 2 MiB, elem 8), i.e. folding makes the
 *            metadata spelling free;
 *   indexed: indexed_put of 2 MiB with 64-byte elements >= 50% of
 *            contig_put of 2 MiB.
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_vis.h>
#include "../bench_common.h"
#include "../bench_opts.h"

#include <math.h>
#include <sys/utsname.h>
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
    const char *label, *json;
    double target_s;
} opt = { 0, 0, 5, 0, NULL, NULL, 0.02 };

static const struct bench_opt options[] = {
    BENCH_FLAG("--quick", "3 reps of 5 ms", &opt.quick),
    BENCH_FLAG("--smoke", "one short rep of a few sizes: only checks that it runs", &opt.smoke),
    BENCH_OPT_REPS("repetitions per measurement (default 5)", &opt.reps),
    BENCH_OPT_LABEL(&opt.label),
    BENCH_OPT_JSON("bench/results/vis-<path>.json", &opt.json),
    BENCH_OPT_CHECK_TARGETS(&opt.check_targets),
};

static void parse_args(int argc, char **argv)
{
    const struct bench_cli cli = {
        .prog = "vis_bench", .synopsis = "Usage: gexrun -n 2 vis_bench [options]",
        .footer = "Run with GEX_FORCE_REFERENCE=vis for the plain per-piece RMA path.\n",
        .opts = options, .n_opts = BENCH_N_OPTS(options), .help = 1, .rank = me,
    };
    bench_opts_parse(&cli, argc, argv);
    bench_quick_smoke(&opt.quick, opt.smoke, &opt.reps, 5, &opt.target_s, 0.005, 0.0005,
                      &opt.label);
}

/* "reference" under GEX_FORCE_REFERENCE=vis, else "optimized". */
static const char *vis_path(void)
{
    const char *l = layers_string(), *v = strstr(l, "vis: ");
    if (!v) return "unknown";
    return strncmp(v + 5, "path=reference", 14) == 0 ? "reference" : "optimized";
}

/* ---- Operations ---- */
#define MAXSIZE ((size_t)2 << 20)
#define SPAN (4 * MAXSIZE)
static unsigned char *priv;          /* local side: SPAN bytes */
static char *remote;                 /* peer's segment */
static void **lidx, **ridx;          /* Indexed lists */

enum series { S_INDEXED_PUT, S_INDEXED_GET, S_STRIDED_PUT, S_STRIDED_GET, S_CONTIG_PUT };
static const char *const series_name[] = { "indexed_put", "indexed_get", "strided_put",
                                           "strided_get", "contig_put" };

struct shape {
    size_t elem, n, cnt[32];
    ptrdiff_t str[32];
    unsigned dims;
};

/* Spreads n elements of elem bytes every 4*elem bytes over D levels: count
 * 2 for the inner levels while n allows, the rest in the outermost. */
static void make_shape(struct shape *s, size_t elem, size_t n, unsigned dims)
{
    s->elem = elem;
    s->n = n;
    s->dims = dims;
    size_t rest = n;
    ptrdiff_t stride = (ptrdiff_t)(4 * elem);
    for (unsigned d = 0; d < dims; d++) {
        size_t c = d == dims - 1 ? rest : (rest % 2 == 0 && rest > 1 ? 2 : 1);
        s->cnt[d] = c;
        s->str[d] = stride;
        stride *= (ptrdiff_t)c;
        rest /= c;
    }
}

static double run(enum series se, const struct shape *s, long iters)
{
    const size_t size = s->elem * s->n;
    double t0 = now_s();
    switch (se) {
    case S_INDEXED_PUT:
        for (long i = 0; i < iters; i++)
            gex_VIS_IndexedPutNBI(tm, peer, s->n, ridx, s->elem, s->n, lidx, s->elem, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case S_INDEXED_GET:
        for (long i = 0; i < iters; i++)
            gex_VIS_IndexedGetNBI(tm, s->n, lidx, s->elem, peer, s->n, ridx, s->elem, 0);
        gex_NBI_Wait(GEX_EC_GET, 0);
        break;
    case S_STRIDED_PUT:
        for (long i = 0; i < iters; i++)
            gex_VIS_StridedPutNBI(tm, peer, remote, s->str, priv, s->str, s->elem, s->cnt,
                                  s->dims, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case S_STRIDED_GET:
        for (long i = 0; i < iters; i++)
            gex_VIS_StridedGetNBI(tm, priv, s->str, peer, remote, s->str, s->elem, s->cnt,
                                  s->dims, 0);
        gex_NBI_Wait(GEX_EC_GET, 0);
        break;
    default:
        for (long i = 0; i < iters; i++)
            gex_RMA_PutNBI(tm, peer, remote, priv, size, GEX_EVENT_DEFER, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    }
    return now_s() - t0;
}

/* ---- Results ---- */
#define MAX_RESULTS 512
struct result {
    enum series se;
    size_t elem, size;
    unsigned dims;
    long iters;
    int reps;
    double mbps[64], med, min, max;
};
static struct result results[MAX_RESULTS];
static int n_results;

static void measure(enum series se, size_t elem, size_t size, unsigned dims)
{
    struct shape s;
    make_shape(&s, elem, size / elem, dims);
    long iters = 1;
    for (;;) { /* warm up and scale to the target time */
        double t = run(se, &s, iters);
        if (t >= opt.target_s || iters >= (1L << 24)) break;
        iters *= t > 0 ? (t * 4 < opt.target_s ? 4 : 2) : 4;
    }
    struct result *r = &results[n_results++];
    r->se = se;
    r->elem = elem;
    r->size = size;
    r->dims = se == S_STRIDED_PUT || se == S_STRIDED_GET ? dims : 0;
    r->iters = iters;
    r->reps = opt.reps;
    double v[64];
    for (int k = 0; k < opt.reps; k++) {
        double t = run(se, &s, iters);
        r->mbps[k] = v[k] = (double)size * (double)iters / t / 1e6;
    }
    r->med = median_of(v, opt.reps);
    r->min = r->max = v[0];
    for (int k = 1; k < opt.reps; k++) {
        if (v[k] < r->min) r->min = v[k];
        if (v[k] > r->max) r->max = v[k];
    }
    printf("%-12s %5zu %4u %9zu %12.1f %10ld\n", series_name[se], elem, r->dims, size, r->med,
           iters);
    fflush(stdout);
}

/* Paired ratios: bandwidth of (a, da) over (b, db) for the same motion,
 * measured alternately repetition by repetition with the same iteration
 * count, median of the per-repetition ratios: robust to a machine whose
 * load drifts during the run (a ratio of two separate medians is not). */
#define MAX_RATIOS 64
struct ratio {
    char name[40];
    size_t elem, size;
    double med, min, max;
    int reps;
};
static struct ratio ratios[MAX_RATIOS];
static int n_ratios;

static double paired(const char *name, enum series a, unsigned da, enum series b, unsigned db,
                     size_t elem, size_t size)
{
    struct shape sa, sb;
    make_shape(&sa, elem, size / elem, da);
    make_shape(&sb, elem, size / elem, db);
    long iters = 1;
    for (;;) {
        double t = run(b, &sb, iters);
        if (t >= opt.target_s / 2 || iters >= (1L << 24)) break;
        iters *= t > 0 ? (t * 4 < opt.target_s / 2 ? 4 : 2) : 4;
    }
    run(a, &sa, iters);
    const int reps = opt.reps * 2 + 1;
    double v[128];
    for (int k = 0; k < reps; k++) {
        double tb = run(b, &sb, iters), ta = run(a, &sa, iters);
        v[k] = tb / ta; /* bandwidth ratio a/b = time ratio b/a */
    }
    struct ratio *r = &ratios[n_ratios++];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->elem = elem;
    r->size = size;
    r->reps = reps;
    r->med = median_of(v, reps);
    r->min = r->max = v[0];
    for (int k = 1; k < reps; k++) {
        if (v[k] < r->min) r->min = v[k];
        if (v[k] > r->max) r->max = v[k];
    }
    printf("%-24s %5zu %9zu %8.3f  (min %.3f max %.3f)\n", name, elem, size, r->med, r->min,
           r->max);
    fflush(stdout);
    return r->med;
}

static __attribute__((unused)) const struct result *find(enum series se, size_t elem, unsigned dims, size_t size)
{
    for (int i = 0; i < n_results; i++)
        if (results[i].se == se && results[i].elem == elem && results[i].dims == dims &&
            results[i].size == size)
            return &results[i];
    return NULL;
}

/* Geometric mean over sizes of series a / series b (same elem). */
static __attribute__((unused)) double geo_ratio(enum series se, size_t elem, unsigned da, unsigned db)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < n_results; i++) {
        const struct result *a = &results[i];
        if (a->se != se || a->elem != elem || a->dims != da) continue;
        const struct result *b = find(se, elem, db, a->size);
        if (!b || b->med <= 0 || a->med <= 0) continue;
        sum += log(a->med / b->med);
        n++;
    }
    return n ? exp(sum / n) : -1;
}

struct target {
    const char *name, *note;
    double value, limit;
    const char *result;
};

static int write_json(const char *path, const struct target *tg, int n_tg)
{
    char stamp[64];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    FILE *f = bench_json_begin(path, "vis", opt.label, stamp, (unsigned)nranks);
    if (!f) return 1;
    fprintf(f, ",\n  \"peer\": %u,\n  \"path\": ", (unsigned)peer);
    json_str(f, vis_path());
    fprintf(f, ",\n  \"density\": 0.25,\n  \"quick\": %s,\n  \"smoke\": %s,\n  \"reps\": %d,"
               "\n  \"rep_target_ms\": %.1f", opt.quick ? "true" : "false",
            opt.smoke ? "true" : "false", opt.reps, opt.target_s * 1e3);
    fprintf(f, ",\n  \"tests\": [");
    for (int i = 0; i < n_results; i++) {
        const struct result *r = &results[i];
        fprintf(f, "%s\n    {\"name\": \"%s\", \"kind\": \"flood\", \"elem\": %zu, \"dims\": %u, "
                   "\"size\": %zu, \"median_MB_per_s\": %.2f, \"min_MB_per_s\": %.2f, "
                   "\"max_MB_per_s\": %.2f, \"iters\": %ld, \"samples\": [",
                i ? "," : "", series_name[r->se], r->elem, r->dims, r->size, r->med, r->min,
                r->max, r->iters);
        for (int k = 0; k < r->reps; k++) fprintf(f, "%s%.2f", k ? ", " : "", r->mbps[k]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ],\n  \"ratios\": [");
    for (int i = 0; i < n_ratios; i++) {
        const struct ratio *r = &ratios[i];
        fprintf(f, "%s\n    {\"name\": \"%s\", \"kind\": \"ratio\", \"elem\": %zu, \"size\": %zu, "
                   "\"median_ratio\": %.4f, \"min_ratio\": %.4f, \"max_ratio\": %.4f, "
                   "\"reps\": %d}", i ? "," : "", r->name, r->elem, r->size, r->med, r->min,
                r->max, r->reps);
    }
    fprintf(f, "\n  ],\n  \"targets\": [");
    for (int i = 0; i < n_tg; i++) {
        fprintf(f, "%s\n    {\"name\": \"%s\", \"limit\": %.4f, ", i ? "," : "", tg[i].name,
                tg[i].limit);
        if (tg[i].value >= 0) fprintf(f, "\"value\": %.4f, ", tg[i].value);
        else fprintf(f, "\"value\": null, ");
        fprintf(f, "\"result\": \"%s\", \"note\": ", tg[i].result);
        json_str(f, tg[i].note);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
    fclose(f);
    printf("vis_bench: wrote %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "VIS_BENCH", &argc, &argv, 0) != GASNET_OK) return 1;
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);
    peer = nranks > 1 ? 1 : 0;
    gex_AM_Entry_t h[] = {
        { H_STOP, (gex_AM_Fn_t)h_stop, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, NULL },
    };
    gex_EP_RegisterHandlers(ep, h, 1);
    parse_args(argc, argv);
    if (gex_Segment_Attach(&seg, tm, SPAN + 4096) != GASNET_OK) return 1;
    void *owner = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, peer, &owner, NULL, NULL, 0));
    remote = owner;
    /* Page-aligned like the segment: a 64-byte element then sits in one
     * cache line on both ends, as the contiguous baseline's data does
     * (malloc's 16-byte offset made every source element straddle two
     * lines, moving twice the memory the baseline moves). */
    void *mem = NULL;
    if (posix_memalign(&mem, 4096, SPAN)) return 1;
    priv = mem;
    lidx = malloc(MAXSIZE * sizeof *lidx);
    ridx = malloc(MAXSIZE * sizeof *ridx);
    if (!lidx || !ridx) return 1;
    memset(priv, 1, SPAN);
    memset(gex_Segment_QueryAddr(seg), 2, SPAN);
    barrier();
    if (me != 0) {
        while (!stop) {
            if (!gasnet_AMPoll()) sched_yield();
        }
        barrier();
        gasnet_exit(0);
    }

    printf("# vis_bench: %s path, %u rank(s), peer %u, 25%% density\n", vis_path(),
           (unsigned)nranks, (unsigned)peer);
    printf("# layers: %s\n", layers_string());
    printf("%-12s %5s %4s %9s %12s %10s\n", "test", "elem", "dims", "bytes", "MB/s", "iters");
    static const size_t elems[] = { 8, 64 };
    static const unsigned dims[] = { 3, 8, 32 };
    for (int e = 0; e < 2; e++) {
        const size_t elem = elems[e];
        for (size_t i = 0; i < MAXSIZE / elem; i++) {
            lidx[i] = priv + i * 4 * elem;
            ridx[i] = remote + i * 4 * elem;
        }
        for (size_t size = 16; size <= MAXSIZE; size *= 2) {
            if (size < elem) continue;
            if (opt.smoke && size != (elem > 16 ? elem : 16) && size != 4096 && size != MAXSIZE)
                continue;
            measure(S_CONTIG_PUT, elem, size, 0);
            measure(S_INDEXED_PUT, elem, size, 0);
            measure(S_INDEXED_GET, elem, size, 0);
            for (int d = 0; d < 3; d++) {
                measure(S_STRIDED_PUT, elem, size, dims[d]);
                measure(S_STRIDED_GET, elem, size, dims[d]);
            }
        }
    }

    /* Paired ratios for the targets (and the same for gets and 64-byte
     * elements, printed and recorded). */
    printf("\n# paired ratios: bandwidth of the first over the second, median of %d "
           "alternating repetitions\n", opt.reps * 2 + 1);
    printf("%-24s %5s %9s %8s\n", "ratio", "elem", "bytes", "median");
    double fold_log = 0, fold64_log = 0, fold_big_log = 0;
    int fold_n = 0, fold64_n = 0, fold_big_n = 0;
    for (int e = 0; e < 2; e++) {
        for (size_t size = 16; size <= MAXSIZE; size *= (opt.smoke ? 128 : 4)) {
            if (size < elems[e]) continue;
            double r = paired("strided_put_32d/3d", S_STRIDED_PUT, 32, S_STRIDED_PUT, 3,
                              elems[e], size);
            paired("strided_get_32d/3d", S_STRIDED_GET, 32, S_STRIDED_GET, 3, elems[e], size);
            if (e == 0) fold_log += log(r), fold_n++;
            else fold64_log += log(r), fold64_n++;
            if (e == 0 && size >= 4096) fold_big_log += log(r), fold_big_n++;
        }
    }
    double idx8 = paired("indexed_put/contig_put", S_INDEXED_PUT, 0, S_CONTIG_PUT, 0, 8, MAXSIZE);
    double idx64 = paired("indexed_put/contig_put", S_INDEXED_PUT, 0, S_CONTIG_PUT, 0, 64, MAXSIZE);
    (void)idx8;
    struct target tg[2];
    tg[0] = (struct target){ "fold: strided_put 32d/3d bandwidth for elem 8 (geomean of paired ratios over sizes)",
                             "paper Figure 5: folding makes the 32-d spelling as fast as 3-d",
                             fold_n ? exp(fold_log / fold_n) : -1, 0.9, "n/a" };
    tg[1] = (struct target){ "indexed: indexed_put/contig_put at 2 MiB for elem 64 (paired)",
                             "64-byte elements at 25% density vs one contiguous put of the payload",
                             idx64, 0.5, "n/a" };
    int missed = 0;
    printf("\n# targets (value >= limit meets the target; smp, 2 ranks)\n");
    for (int i = 0; i < 2; i++) {
        tg[i].result = tg[i].value < 0 ? "n/a" : tg[i].value >= tg[i].limit ? "met" : "missed";
        missed |= tg[i].value >= 0 && tg[i].value < tg[i].limit;
        printf("%-86s %7.3f (limit %.2f) %s\n", tg[i].name, tg[i].value, tg[i].limit,
               tg[i].result);
    }
    printf("strided_put 32d/3d for elem 8, sizes >= 4 KiB only (geomean of paired ratios): %.3f\n",
           fold_big_n ? exp(fold_big_log / fold_big_n) : -1);
    printf("strided_put 32d/3d for elem 64 (geomean of paired ratios): %.3f\n",
           fold64_n ? exp(fold64_log / fold64_n) : -1);
    char def[256];
    snprintf(def, sizeof def, "bench/results/vis-%s.json", vis_path());
    int rc = write_json(opt.json ? opt.json : def, tg, 2);
    if (nranks > 1) gex_AM_RequestShort0(tm, peer, H_STOP, 0);
    for (gex_Rank_t r = 2; r < nranks; r++) gex_AM_RequestShort0(tm, r, H_STOP, 0);
    barrier();
    gasnet_exit(rc ? 1 : (opt.check_targets && missed ? 1 : 0));
}
