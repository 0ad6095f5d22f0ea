/*
 * ep_bench.c: aggregate 8-byte put rate of a multi-threaded rank (issue 9).
 *
 * Every rank runs 1, 2 and 4 threads; each thread puts 8-byte values to the
 * next rank, NBI in batches of BATCH followed by gex_NBI_Wait.  Two ways:
 *   ep      thread t uses its own endpoint (t+1, GEX_FLAG_EP_SERIALIZED,
 *           own bound segment) through gex_TM_Pair(ep, t+1): its own queues
 *           on the AM path, no contention with the other threads;
 *   shared  every thread uses the primordial endpoint and team.
 * The rate is puts per second completed by all threads of rank 0, median
 * of --reps repetitions.  On a machine with fewer cores than threads that
 * wall-clock rate mostly measures the scheduler, so the table also shows
 * puts per CPU-second (the threads' total CPU time, CLOCK_THREAD_CPUTIME_ID):
 * what a put costs on each path, whatever the load.  Run it twice: PSHM (puts are copies into mapped
 * memory; endpoints matter little) and GEX_FORCE_REFERENCE=rma (puts are
 * AM round trips: this is where per-endpoint queues matter).
 *
 * Usage: gexrun -n 2 ep_bench [--json FILE] [--reps R] [--ops N] [--smoke] [--only ep|shared]
 * (--only: run one of the two ways, for profiling; the other's results are 0) 
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include "../bench_common.h"
#include "../bench_opts.h"

#define MAXT 4
#define BATCH 256
#define SEGSZ 65536

static gex_Client_t client;
static gex_EP_t ep0, eps[MAXT];
static gex_TM_t tm0, team[MAXT];
static gex_Segment_t seg0, segs[MAXT];
static gex_Rank_t me, n, next;
/* Defaults: 4M puts per thread on PSHM (a few ms at a few ns each: long
 * enough that one preemption on a loaded machine does not decide a run),
 * 40000 when puts are AM round trips; 7 repetitions. */
static long ops = 0;
static int reps = 7;
static char *dst_ep[MAXT], *dst_shared;
static pthread_barrier_t start_bar;

struct job { int t, use_ep; double elapsed, cpu; };

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "ep_bench: rank %u: %s\n", (unsigned)me, what);
    gasnet_exit(1);
}

static void *worker(void *arg)
{
    struct job *j = arg;
    const int t = j->t;
    gex_TM_t tm = j->use_ep ? gex_TM_Pair(eps[t], (gex_EP_Index_t)(t + 1)) : tm0;
    char *dst = (j->use_ep ? dst_ep[t] : dst_shared) + 64 * t;   /* own 8 bytes per thread */
    uint64_t v = 0;
    pthread_barrier_wait(&start_bar);
    const double c0 = cpu_s();
    const double t0 = now_s();
    for (long i = 0; i < ops; i += BATCH) {
        const long m = ops - i < BATCH ? ops - i : BATCH;
        for (long k = 0; k < m; k++) {
            v++;
            gex_RMA_PutNBIVal(tm, next, dst, v, 8, 0);
        }
        gex_NBI_Wait(GEX_EC_PUT, 0);
    }
    j->elapsed = now_s() - t0;
    j->cpu = cpu_s() - c0;
    /* keep serving this endpoint until the peer's thread is done too */
    if (j->use_ep) gex_Event_Wait(gex_Coll_BarrierNB(team[t], 0));
    return NULL;
}

/* Returns the wall-clock rate; *cpu_rate: puts per CPU-second. */
static double run(int nthreads, int use_ep, double *cpu_rate)
{
    struct job jobs[MAXT];
    pthread_t th[MAXT];
    pthread_barrier_init(&start_bar, NULL, (unsigned)nthreads);
    gex_Event_Wait(gex_Coll_BarrierNB(tm0, 0));
    const double t0 = now_s();
    for (int t = 0; t < nthreads; t++) {
        jobs[t] = (struct job){ t, use_ep, 0, 0 };
        if (pthread_create(&th[t], NULL, worker, &jobs[t])) die("pthread_create failed");
    }
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    /* from the common start to the last thread's last completion */
    double elapsed = 0, cpu = 0;
    for (int t = 0; t < nthreads; t++) {
        if (jobs[t].elapsed > elapsed) elapsed = jobs[t].elapsed;
        cpu += jobs[t].cpu;
    }
    *cpu_rate = cpu > 0 ? (double)ops * nthreads / cpu : 0;
    (void)t0;
    pthread_barrier_destroy(&start_bar);
    gex_Event_Wait(gex_Coll_BarrierNB(tm0, 0));
    return (double)ops * nthreads / elapsed;
}

static int only = -1;   /* --only: 1 endpoint per thread, 0 shared, -1 both */

static int set_only(const char *v)
{
    only = !strcmp(v, "ep") ? 1 : !strcmp(v, "shared") ? 0 : -2;
    return only != -2;
}

int main(int argc, char **argv)
{
    const char *json = NULL;
    int smoke = 0;
    const struct bench_opt options[] = {
        BENCH_VALUE("--json", "FILE", NULL, BENCH_OPT_STRING, &json),
        BENCH_VALUE("--reps", "R", NULL, BENCH_OPT_INT, &reps),
        BENCH_VALUE("--ops", "N", NULL, BENCH_OPT_LONG, &ops),
        BENCH_FLAG("--smoke", NULL, &smoke),
        BENCH_CALL("--only", "ep|shared", NULL, set_only),
        BENCH_FLAG_HIDDEN("--quick", NULL),
    };
    /* parsed before gex_Client_Init: every rank speaks, exit() ends it */
    const struct bench_cli cli = {
        .prog = "ep_bench", .synopsis = "usage: ep_bench", .opts = options,
        .n_opts = BENCH_N_OPTS(options), .compact = 1, .all_ranks = 1, .before_init = 1,
    };
    bench_opts_parse(&cli, argc, argv);
    if (!ops) {
        const char *fr = getenv("GEX_FORCE_REFERENCE"), *ps = getenv("GEX_PSHM");
        const int am = (fr && (strstr(fr, "rma") || strstr(fr, "all"))) || (ps && !strcmp(ps, "0"));
        ops = am ? 40000 : 4000000;
    }
    if (smoke) { reps = 1; ops = 512; }
    if (reps < 1 || reps > 1000 || ops < 1) return 2;
    if (gex_Client_Init(&client, &ep0, &tm0, "EP_BENCH", &argc, &argv, 0) != GASNET_OK)
        return 1;
    me = gex_TM_QueryRank(tm0);
    n = gex_TM_QuerySize(tm0);
    next = (me + 1) % n;
    if (gex_Segment_Attach(&seg0, tm0, SEGSZ) != GASNET_OK) die("gex_Segment_Attach failed");
    for (int t = 0; t < MAXT; t++) {
        if (gex_EP_Create(&eps[t], client, GEX_EP_CAPABILITY_ALL, GEX_FLAG_EP_SERIALIZED) ||
            gex_Segment_Create(&segs[t], client, NULL, SEGSZ, GEX_MK_HOST, 0) ||
            gex_EP_BindSegment(eps[t], segs[t], 0))
            die("endpoint setup failed");
    }
    if (gex_EP_PublishBoundSegment(tm0, eps, MAXT, 0)) die("publish failed");
    for (int t = 0; t < MAXT; t++) {
        gex_EP_Location_t args[256];
        if (n > 256) die("at most 256 ranks");
        for (gex_Rank_t r = 0; r < n; r++) args[r] = (gex_EP_Location_t){ r, (gex_EP_Index_t)(t + 1) };
        gex_Addr_t scr = (char *)gex_Segment_QueryAddr(segs[t]) + SEGSZ / 2;
        gex_TM_Create(&team[t], 1, tm0, args, n, &scr, SEGSZ / 2, GEX_FLAG_TM_LOCAL_SCRATCH);
        void *owner;
        if (gex_Segment_QueryBound(gex_TM_Pair(eps[t], (gex_EP_Index_t)(t + 1)), next, &owner,
                                   NULL, NULL))
            die("no bound segment at the next rank");
        dst_ep[t] = owner;
    }
    void *owner0;
    if (gex_Segment_QueryBound(tm0, next, &owner0, NULL, NULL)) die("no segment at the next rank");
    dst_shared = owner0;

    static const int nts[3] = { 1, 2, 4 };
    static double all[3][2][1000], allc[3][2][1000];
    double med[3][2], medc[3][2];
    for (int k = 0; k < 3; k++)
        for (int e = 0; e < 2; e++) {
            for (int r = 0; r < reps; r++)
                all[k][e][r] = only < 0 || only == e ? run(nts[k], e, &allc[k][e][r]) : 0;
            med[k][e] = median_of(all[k][e], reps);
            medc[k][e] = median_of(allc[k][e], reps);
        }

    if (me == 0) {
        const char *fr = getenv("GEX_FORCE_REFERENCE");
        printf("ep_bench: %u ranks, conduit %s, RMA %s, %ld puts of 8 bytes per thread, "
               "median of %d\n", (unsigned)n, conduit_name(),
               fr && *fr ? "reference (GEX_FORCE_REFERENCE)" : "default", ops, reps);
        printf("%-8s %16s %16s %8s   %14s %14s %8s\n", "threads", "own EP Mput/s",
               "shared EP Mput/s", "ratio", "own Mput/cpu-s", "shared", "ratio");
        for (int k = 0; k < 3; k++)
            printf("%-8d %16.3f %16.3f %8.2f   %14.3f %14.3f %8.2f\n", nts[k], med[k][1] / 1e6,
                   med[k][0] / 1e6, med[k][0] > 0 ? med[k][1] / med[k][0] : 0, medc[k][1] / 1e6,
                   medc[k][0] / 1e6,
                   medc[k][0] > 0 ? medc[k][1] / medc[k][0] : 0);
        if (json) {
            make_parent_dirs(json);
            FILE *f = fopen(json, "w");
            if (!f) die("cannot write the JSON file");
            char cpu[256];
            cpu_model(cpu, sizeof cpu);
            double la[3] = { 0, 0, 0 };
            FILE *lf = fopen("/proc/loadavg", "r");
            if (lf) {
                if (fscanf(lf, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3) la[0] = -1;
                fclose(lf);
            }
            fprintf(f, "{\n  \"benchmark\": \"ep\",\n  \"conduit\": ");
            json_str(f, conduit_name());
            fprintf(f, ",\n  \"layers\": ");
            json_str(f, layers_string());
            fprintf(f, ",\n  \"force_reference\": ");
            json_str(f, fr ? fr : "");
            fprintf(f, ",\n  \"commit\": ");
            json_str(f, getenv("GEX_BENCH_COMMIT"));
            fprintf(f, ",\n  \"cpu\": ");
            json_str(f, cpu);
            fprintf(f, ",\n  \"loadavg_1m\": %.2f,\n  \"ranks\": %u,\n  \"ops_per_thread\": %ld,\n"
                       "  \"reps\": %d,\n  \"unit\": \"puts/s per rank\",\n  \"results\": [\n",
                    la[0], (unsigned)n, ops, reps);
            for (int k = 0; k < 3; k++)
                for (int e = 1; e >= 0; e--) {
                    fprintf(f, "    {\"name\": \"put8_%s_%dt\", \"kind\": \"%s\", \"threads\": %d, "
                               "\"median\": %.1f, \"runs\": [", e ? "ep" : "shared",
                            nts[k], e ? "own_ep" : "shared_ep", nts[k], med[k][e]);
                    for (int r = 0; r < reps; r++)
                        fprintf(f, "%s%.1f", r ? ", " : "", all[k][e][r]);
                    fprintf(f, "], \"per_cpu_second_median\": %.1f, \"per_cpu_second_runs\": [",
                            medc[k][e]);
                    for (int r = 0; r < reps; r++)
                        fprintf(f, "%s%.1f", r ? ", " : "", allc[k][e][r]);
                    fprintf(f, "]}%s\n", k == 2 && e == 0 ? "" : ",");
                }
            fprintf(f, "  ]\n}\n");
            fclose(f);
        }
        fflush(stdout);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(tm0, 0));
    gasnet_exit(0);
}
