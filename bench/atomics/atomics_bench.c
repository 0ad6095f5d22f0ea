/*
 * atomics_bench.c: remote atomics micro-benchmark (`make bench-atomics`),
 * after the methodology of GASNet-EX's testfaddperf (paper, appendices F
 * and G):
 *   fadd_lat   per type: rank 0 injects one gex_AD_OpNB_<T>(GEX_OP_FADD) at
 *              the peer (rank 1; itself on one rank) and waits for it, N
 *              times: time per operation;
 *   fadd_ool   the same through the library's exported function, called as
 *              (gex_AD_OpNB_<T>)(...): what the inline same-node path of the
 *              integer types (gex/ad_fastpath.h) saves is fadd_ool - fadd_lat
 *              (the floating-point types have no inline path: equal);
 *   fadd_tput  per type: N gex_AD_OpNBI_<T>(GEX_OP_FADD) back to back, then
 *              one gex_NBI_Wait: operations per second;
 *   hotspot    U64: the first k ranks (k = 1 .. ranks) each issue K FADDs
 *              back to back (NBI) at one word of rank 0, then everyone meets
 *              in a barrier; aggregate operations per second (k*K over rank
 *              0's time from the barrier before to the barrier after).
 * Ranks not measuring wait in the team barrier, which polls, so the
 * reference path (AMs served by the target's handler) progresses.  Each
 * measurement is repeated R times; the median is reported (and min, max).
 * Every word's final value is checked (verification_errors in the JSON).
 * The JSON records the implementation the domains got ("path": shm,
 * reference or conduit); `make bench-atomics` runs once as configured and
 * once with GEX_FORCE_REFERENCE=atomics and prints them side by side
 * (bench/atomics/side_by_side.sh).
 *
 * Targets (smp, 2 ranks), reported always and enforced with
 * --check-targets: shared-memory U64 FADD latency <= 0.02 us; reference
 * U64 FADD latency <= 0.5 us; shared-memory hot-spot aggregate throughput
 * with all ranks active >= that of one rank (it must not fall as ranks are
 * added).
 */
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include <gasnet_coll.h>
#include "../bench_common.h"
#include "../bench_opts.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* GEX extension exported by libgex-atomics: "reference", "shm" or "conduit". */
/* GEX's exported extension (weak: the program also builds against
 * GASNet-EX, for ./gex-dev bench --against-gasnet, and then says
 * "unknown"). */
extern const char *gexi_ad_query_impl(gex_AD_t ad) __attribute__((weak));
/* fadd_ool: the library's function itself, past GEX's inline path; GASNet-EX
 * has no such function (its calls are macros), so there the row repeats
 * fadd_lat. */
#ifdef GEX_AD_FASTPATH_H
#define OOL_AD_OpNB(N) (gex_AD_OpNB_##N)
#else
#define OOL_AD_OpNB(N) gex_AD_OpNB_##N
#endif

static gex_TM_t tm;
static gex_Rank_t me, nranks, peer;
static char *seg;                 /* our segment */
static void *peer_seg, *root_seg; /* the peer's and rank 0's segment (owner addresses) */
static long verification_errors;

static struct {
    int reps, smoke, quick, check;
    long lat_iters, tput_iters, hot_iters;
    const char *json, *label;
} opt = { 7, 0, 0, 0, 20000, 50000, 20000, NULL, NULL };

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

#define MAX_RESULTS 64
struct result {
    char name[24], type[8];
    const char *kind;              /* "latency" (us) or "throughput" (Mop/s) */
    unsigned active;               /* hotspot: ranks issuing */
    long iters;
    double sample[64];
    int n;
};
static struct result results[MAX_RESULTS];
static int n_results;

static struct result *new_result(const char *name, const char *type, const char *kind,
                                 unsigned active, long iters)
{
    struct result *r = &results[n_results++];
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->type, sizeof r->type, "%s", type);
    r->kind = kind;
    r->active = active;
    r->iters = iters;
    r->n = 0;
    return r;
}
static double med(const struct result *r) { return median_of(r->sample, r->n); }

/* One type's latency and throughput.  The word is the peer's, offset 64*t. */
#define BENCH_TYPE(T, N, DT, ONE) \
    static void bench_##N(int t) \
    { \
        gex_AD_t ad; \
        gex_AD_Create(&ad, tm, DT, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0); \
        T *w = (T *)((char *)peer_seg + 64 * t); \
        struct result *lat = NULL, *ool = NULL, *tput = NULL; \
        if (me == 0) { \
            lat = new_result("fadd_lat", #N, "latency", 1, opt.lat_iters); \
            ool = new_result("fadd_ool", #N, "latency", 1, opt.lat_iters); \
            tput = new_result("fadd_tput", #N, "throughput", 1, opt.tput_iters); \
        } \
        for (int rep = 0; rep < opt.reps; rep++) { \
            if (me == 0) { \
                T got = 0, prev = 0; \
                gex_Event_Wait(gex_AD_OpNB_##N(ad, NULL, peer, w, GEX_OP_SET, 0, 0, 0)); \
                double t0 = now_s(); \
                for (long i = 0; i < opt.lat_iters; i++) { \
                    gex_Event_Wait(gex_AD_OpNB_##N(ad, &got, peer, w, GEX_OP_FADD, ONE, 0, 0)); \
                } \
                double t1 = now_s(); \
                lat->sample[lat->n++] = (t1 - t0) / (double)opt.lat_iters; \
                gex_Event_Wait(gex_AD_OpNB_##N(ad, &prev, peer, w, GEX_OP_GET, 0, 0, 0)); \
                if (prev != (T)opt.lat_iters * ONE || got != (T)(opt.lat_iters - 1) * ONE) \
                    verification_errors++; \
                gex_Event_Wait(gex_AD_OpNB_##N(ad, NULL, peer, w, GEX_OP_SET, 0, 0, 0)); \
                t0 = now_s(); \
                for (long i = 0; i < opt.lat_iters; i++) { \
                    gex_Event_Wait(OOL_AD_OpNB(N)(ad, &got, peer, w, GEX_OP_FADD, ONE, 0, 0)); \
                } \
                t1 = now_s(); \
                ool->sample[ool->n++] = (t1 - t0) / (double)opt.lat_iters; \
                gex_Event_Wait(gex_AD_OpNB_##N(ad, &prev, peer, w, GEX_OP_GET, 0, 0, 0)); \
                if (prev != (T)opt.lat_iters * ONE || got != (T)(opt.lat_iters - 1) * ONE) \
                    verification_errors++; \
                gex_Event_Wait(gex_AD_OpNB_##N(ad, NULL, peer, w, GEX_OP_SET, 0, 0, 0)); \
                t0 = now_s(); \
                for (long i = 0; i < opt.tput_iters; i++) \
                    gex_AD_OpNBI_##N(ad, &got, peer, w, GEX_OP_FADD, ONE, 0, 0); \
                gex_NBI_Wait(GEX_EC_RMW, 0); \
                t1 = now_s(); \
                tput->sample[tput->n++] = (double)opt.tput_iters / (t1 - t0) * 1e-6; \
                gex_Event_Wait(gex_AD_OpNB_##N(ad, &prev, peer, w, GEX_OP_GET, 0, 0, 0)); \
                if (prev != (T)opt.tput_iters * ONE) verification_errors++; \
            } \
            barrier(); \
        } \
        gex_AD_Destroy(ad); \
    }

BENCH_TYPE(int32_t, I32, GEX_DT_I32, 1)
BENCH_TYPE(uint32_t, U32, GEX_DT_U32, 1u)
BENCH_TYPE(int64_t, I64, GEX_DT_I64, 1)
BENCH_TYPE(uint64_t, U64, GEX_DT_U64, 1u)
BENCH_TYPE(float, FLT, GEX_DT_FLT, 1.0f)   /* counts stay below 2^24: exact */
BENCH_TYPE(double, DBL, GEX_DT_DBL, 1.0)

static const char *path_name;

static void bench_hotspot(void)
{
    gex_AD_t ad;
    gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
    uint64_t *w = (uint64_t *)((char *)root_seg + 1024);
    for (unsigned k = 1; k <= nranks; k++) {
        struct result *r = me == 0 ? new_result("hotspot", "U64", "throughput", k,
                                                opt.hot_iters) : NULL;
        for (int rep = 0; rep < opt.reps; rep++) {
            if (me == 0) gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, 0, w, GEX_OP_SET, 0, 0, 0));
            barrier();
            double t0 = now_s();
            if (me < k) {
                uint64_t got;
                for (long i = 0; i < opt.hot_iters; i++)
                    gex_AD_OpNBI_U64(ad, &got, 0, w, GEX_OP_FADD, 1, 0, 0);
                gex_NBI_Wait(GEX_EC_RMW, 0);
            }
            barrier();
            double t1 = now_s();
            if (me == 0) {
                r->sample[r->n++] = (double)k * (double)opt.hot_iters / (t1 - t0) * 1e-6;
                uint64_t total = 0;
                gex_Event_Wait(gex_AD_OpNB_U64(ad, &total, 0, w, GEX_OP_GET, 0, 0, 0));
                if (total != (uint64_t)k * (uint64_t)opt.hot_iters) verification_errors++;
            }
        }
    }
    barrier();
    gex_AD_Destroy(ad);
}

/* ---- Targets ---- */
struct target {
    const char *name, *path, *unit;
    double limit, value;
    int upper;                     /* 1: value <= limit passes; 0: value >= limit */
    const char *result, *note;
};

static const struct result *find(const char *name, const char *type, unsigned active)
{
    for (int i = 0; i < n_results; i++)
        if (!strcmp(results[i].name, name) && !strcmp(results[i].type, type) &&
            results[i].active == active)
            return &results[i];
    return NULL;
}

static int eval_targets(struct target *tg)
{
    int n = 0;
    const struct result *lat = find("fadd_lat", "U64", 1);
    const int two = nranks == 2;
    tg[n++] = (struct target){ "U64 FADD latency", "shm", "us", 0.02,
                               lat ? med(lat) * 1e6 : -1, 1, NULL,
                               "smp, 2 ranks, shared-memory path" };
    tg[n++] = (struct target){ "U64 FADD latency", "reference", "us", 0.5,
                               lat ? med(lat) * 1e6 : -1, 1, NULL,
                               "smp, 2 ranks, GEX_FORCE_REFERENCE=atomics" };
    const struct result *h1 = find("hotspot", "U64", 1), *hn = find("hotspot", "U64", nranks);
    tg[n++] = (struct target){ "hotspot all ranks / one rank", "shm", "ratio", 1.0,
                               h1 && hn && med(h1) > 0 ? med(hn) / med(h1) : -1, 0, NULL,
                               "aggregate throughput must not fall as ranks are added" };
    for (int i = 0; i < n; i++) {
        if (strcmp(tg[i].path, path_name) || !two || opt.smoke || tg[i].value < 0)
            tg[i].result = "not measured";
        else if (tg[i].upper ? tg[i].value <= tg[i].limit : tg[i].value >= tg[i].limit)
            tg[i].result = "met";
        else
            tg[i].result = "missed";
    }
    return n;
}

static int write_json(const char *path, const struct target *tg, int n_tg)
{
    char stamp[64];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    FILE *f = bench_json_begin(path, "atomics", opt.label, stamp, (unsigned)nranks);
    if (!f) return 1;
    fprintf(f, ",\n  \"peer\": %u,\n  \"path\": ", (unsigned)peer);
    json_str(f, path_name);
    fprintf(f, ",\n  \"smoke\": %s,\n  \"quick\": %s,\n  \"reps\": %d", opt.smoke ? "true" : "false",
            opt.quick ? "true" : "false", opt.reps);
    fprintf(f, ",\n  \"verification_errors\": %ld", verification_errors);
    fprintf(f, ",\n  \"tests\": [");
    for (int i = 0; i < n_results; i++) {
        const struct result *r = &results[i];
        const int lat = !strcmp(r->kind, "latency");
        double mn = r->sample[0], mx = r->sample[0];
        for (int k = 1; k < r->n; k++) {
            if (r->sample[k] < mn) mn = r->sample[k];
            if (r->sample[k] > mx) mx = r->sample[k];
        }
        const double s = lat ? 1e6 : 1;
        fprintf(f, "%s\n    {\"name\": \"%s\", \"type\": \"%s\", \"kind\": \"%s\", "
                "\"active_ranks\": %u, \"iterations\": %ld, ", i ? "," : "", r->name, r->type,
                r->kind, r->active, r->iters);
        fprintf(f, lat ? "\"median_us\": %.5f, \"min_us\": %.5f, \"max_us\": %.5f, \"samples\": ["
                       : "\"median_Mops_per_s\": %.5f, \"min_Mops_per_s\": %.5f, "
                         "\"max_Mops_per_s\": %.5f, \"samples\": [",
                med(r) * s, mn * s, mx * s);
        for (int k = 0; k < r->n; k++) fprintf(f, "%s%.5f", k ? ", " : "", r->sample[k] * s);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ],\n  \"targets\": [");
    for (int i = 0; i < n_tg; i++) {
        fprintf(f, "%s\n    {\"name\": \"%s\", \"path\": \"%s\", \"unit\": \"%s\", "
                "\"limit\": %.4f, ", i ? "," : "", tg[i].name, tg[i].path, tg[i].unit,
                tg[i].limit);
        if (tg[i].value >= 0 && strcmp(tg[i].result, "not measured"))
            fprintf(f, "\"value\": %.5f, ", tg[i].value);
        else
            fprintf(f, "\"value\": null, ");
        fprintf(f, "\"result\": \"%s\", \"note\": ", tg[i].result);
        json_str(f, tg[i].note);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
    fclose(f);
    return 0;
}

/* --smoke, --quick and --iters set several counts at once, in command-line
 * order (a later --reps still wins). */
static int set_smoke(const char *v)
{
    (void)v;
    opt.smoke = 1, opt.reps = 1;
    opt.lat_iters = 200, opt.tput_iters = 500, opt.hot_iters = 200;
    return 1;
}

static int set_quick(const char *v)
{
    (void)v;
    opt.quick = 1, opt.reps = 3;
    opt.lat_iters = 5000, opt.tput_iters = 12500, opt.hot_iters = 5000;
    return 1;
}

static int set_iters(const char *v)
{
    opt.lat_iters = atol(v), opt.tput_iters = opt.lat_iters * 5 / 2;
    opt.hot_iters = opt.lat_iters;
    return 1;
}

static const struct bench_opt options[] = {
    BENCH_VALUE("--reps", "R", "repetitions per measurement (default 7)", BENCH_OPT_INT,
                &opt.reps),
    BENCH_CALL("--quick", NULL, "fewer repetitions and iterations", set_quick),
    BENCH_CALL("--smoke", NULL, "one short repetition (make check)", set_smoke),
    BENCH_CALL("--iters", "N", "latency iterations (throughput and hot spot: 2.5x, 1x)",
               set_iters),
    BENCH_OPT_JSON("bench/results/atomics-<path>.json", &opt.json),
    BENCH_VALUE("--label", "TEXT", "free text recorded in the JSON", BENCH_OPT_STRING,
                &opt.label),
    BENCH_FLAG("--check-targets", "exit 1 if a target for this path is missed", &opt.check),
};

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t segment;
    if (gex_Client_Init(&client, &ep, &tm, "ATOMICS_BENCH", &argc, &argv, 0) != GASNET_OK)
        return 1;
    const struct bench_cli cli = {
        .prog = "atomics_bench", .synopsis = "usage: gexrun -n 2 atomics_bench [options]",
        .opts = options, .n_opts = BENCH_N_OPTS(options), .help = 1,
        .rank = gex_TM_QueryRank(tm),
    };
    bench_opts_parse(&cli, argc, argv);
    if (opt.reps < 1 || opt.reps > 64 || opt.lat_iters < 1) bench_usage_exit(&cli);
    if (gex_Segment_Attach(&segment, tm, 1 << 16) != GASNET_OK) gasnet_exit(1);
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);
    peer = nranks > 1 ? 1 : 0;
    seg = gex_Segment_QueryAddr(segment);
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, peer, &peer_seg, NULL, NULL, 0));
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, 0, &root_seg, NULL, NULL, 0));
    {
        gex_AD_t probe;
        gex_AD_Create(&probe, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
        path_name = gexi_ad_query_impl ? gexi_ad_query_impl(probe) : "unknown";
        gex_AD_Destroy(probe);
    }
    barrier();

    bench_I32(0);
    bench_U32(1);
    bench_I64(2);
    bench_U64(3);
    bench_FLT(4);
    bench_DBL(5);
    bench_hotspot();

    int status = 0;
    if (me == 0) {
        struct target tg[8];
        const int n_tg = eval_targets(tg);
        printf("atomics_bench: %u rank(s), path %s, %d repetition(s), median of each; "
               "load: see uptime\n", (unsigned)nranks, path_name, opt.reps);
        printf("%-10s %-4s %6s %10s %14s\n", "test", "type", "ranks", "iters", "median");
        for (int i = 0; i < n_results; i++) {
            const struct result *r = &results[i];
            const int lat = !strcmp(r->kind, "latency");
            printf("%-10s %-4s %6u %10ld %10.4f %s\n", r->name, r->type, r->active, r->iters,
                   lat ? med(r) * 1e6 : med(r), lat ? "us" : "Mop/s");
        }
        for (int i = 0; i < n_tg; i++) {
            printf("target %-30s [%s] %s %.3f %s: %s", tg[i].name, tg[i].path,
                   tg[i].upper ? "<=" : ">=", tg[i].limit, tg[i].unit, tg[i].result);
            if (strcmp(tg[i].result, "not measured")) printf(" (%.4f)", tg[i].value);
            printf("\n");
            if (opt.check && !strcmp(tg[i].result, "missed")) status = 1;
        }
        if (verification_errors) {
            printf("atomics_bench: %ld VERIFICATION ERRORS\n", verification_errors);
            status = 1;
        }
        char def[256];
        snprintf(def, sizeof def, "bench/results/atomics-%s.json", path_name);
        if (write_json(opt.json ? opt.json : def, tg, n_tg)) status = 1;
        fflush(stdout);
    }
    barrier();
    gasnet_exit(status);
    return status;
}
