/* shmem_bench.c: OpenSHMEM micro-benchmarks, written against the OpenSHMEM
 * 1.4 API only, so that the same source builds with GEX's libgex-shmem
 * (OpenSHMEM 1.5) and with Open MPI's OSHMEM (1.4) for a like-for-like
 * comparison (bench/shmem/compare-oshmem.sh).
 *
 *   shmem_bench [--reps R] [--quick] [--json FILE] [--impl NAME]
 *               [--only W,..] [--skip W,..] [--label L] [--check-targets]
 *
 * Metrics (PE 0 -> PE 1 unless noted; needs at least 2 PEs):
 *   pingpong 8 B        shmem_long_p + shmem_long_wait_until, both ways;
 *                       microseconds per round trip
 *   put 8 B + quiet     shmem_putmem of 8 bytes then shmem_quiet; us per put
 *   get 8 B             blocking shmem_getmem of 8 bytes; us per get
 *   put bw 1 MiB        a stream of 1 MiB shmem_putmem_nbi, one shmem_quiet; MiB/s
 *   get bw 1 MiB        a stream of 1 MiB shmem_getmem_nbi, one shmem_quiet; MiB/s
 *   fetch-add lat       shmem_long_atomic_fetch_add; us per operation
 *   add rate            every PE streams shmem_long_atomic_add to its right
 *                       neighbour, then shmem_quiet; aggregate Mops/s
 *   barrier_all         shmem_barrier_all at every PE; us per barrier (the
 *                       slowest PE's average)
 *   ctx private T=t     t threads of PE 0, each with its own
 *                       shmem_ctx_create(SHMEM_CTX_PRIVATE) context, stream
 *                       8-byte shmem_ctx_putmem to PE 1, then shmem_ctx_quiet;
 *                       aggregate Mputs/s (t = 1, 2)
 *   ctx default T=t     the same on SHMEM_CTX_DEFAULT, shared by the threads
 * The context rows need shmem_init_thread to provide SHMEM_THREAD_MULTIPLE;
 * otherwise they are skipped with a note.
 *
 * Every metric is measured R times (default 7) after a warm-up; PE 0 prints
 * the median, minimum and maximum of the R values and, with --json, writes
 *   {"impl": ..., "pes": N, ..., "metrics": [{"name", "unit", "median",
 *    "min", "max", "better": "lower"|"higher"}, ...]}
 * --quick divides the iteration counts by 10 and uses 3 repetitions unless
 * --reps is given.  The exit status is 0 unless an argument is wrong, the
 * job is too small, or a result check (the data really arrived) fails. */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB ((size_t)1 << 20)
#define MAX_METRICS 32
#define MAX_REPS 1000
#define MAX_THREADS 2

/* ---- command line ---- */
static int opt_reps = 7;
static int opt_reps_given = 0;
static int opt_quick = 0;
static const char *opt_json = NULL;
static const char *opt_impl = NULL;
static const char *opt_only = NULL;
static const char *opt_skip = NULL;
static const char *opt_label = NULL;

/* ---- job ---- */
static int me, npes;
static int thread_provided = -1;
static int check_failures = 0;

/* ---- results, kept on PE 0 ---- */
struct metric {
    char name[48];
    const char *unit;
    int higher_is_better;
    double median, min, max;
};
static struct metric metrics[MAX_METRICS];
static int n_metrics = 0;
static char notes[8][200];
static int n_notes = 0;

/* ---- symmetric objects (from shmem_malloc) ---- */
static long *ping_flag, *pong_flag; /* pingpong */
static long *small_dst;             /* 8-byte put / get target, one per thread */
static long *amo_ctr;               /* fetch-add target */
static long *amo_rate_ctr;          /* add-rate target (written by the left neighbour) */
static char *big_src, *big_dst;     /* bandwidth buffers, 1 MiB each */
static double *gather_slot;         /* one double per PE, read on PE 0 */
static long *ctx_failed;            /* PE 0's verdict on the context rows */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: shmem_bench [--reps R] [--quick] [--json FILE] [--impl NAME]\n"
            "  --reps R      repetitions per metric (default 7; --quick: 3)\n"
            "  --quick       10x fewer iterations\n"
            "  --json FILE   write the results as JSON (PE 0)\n"
            "  --impl NAME   implementation label for the JSON (default: the vendor string)\n"
            "  --only LIST   only the metrics whose names contain one of the comma-separated\n"
            "                words (e.g. --only pingpong,ctx)\n"
            "  --skip LIST   leave out the metrics whose names contain one of the words\n"
            "                (noted in the output and the JSON)\n"
            "  --label L     free text stored in the JSON (default $GEX_BENCH_LABEL)\n"
            "  --check-targets  accepted for `make bench`; there are no targets here\n");
}

static int parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--reps") && i + 1 < argc) {
            char *end;
            long r = strtol(argv[++i], &end, 10);
            if (*end || r < 1 || r > MAX_REPS) {
                fprintf(stderr, "shmem_bench: --reps needs 1..%d\n", MAX_REPS);
                return -1;
            }
            opt_reps = (int)r;
            opt_reps_given = 1;
        } else if (!strcmp(a, "--quick")) {
            opt_quick = 1;
        } else if (!strcmp(a, "--json") && i + 1 < argc) {
            opt_json = argv[++i];
        } else if (!strcmp(a, "--impl") && i + 1 < argc) {
            opt_impl = argv[++i];
        } else if (!strcmp(a, "--only") && i + 1 < argc) {
            opt_only = argv[++i];
        } else if (!strcmp(a, "--skip") && i + 1 < argc) {
            opt_skip = argv[++i];
        } else if (!strcmp(a, "--label") && i + 1 < argc) {
            opt_label = argv[++i];
        } else if (!strcmp(a, "--check-targets")) {
            /* shared `make bench` option: this benchmark has no targets */
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            return 1;
        } else {
            fprintf(stderr, "shmem_bench: unknown or incomplete option '%s'\n", a);
            return -1;
        }
    }
    if (opt_quick && !opt_reps_given) opt_reps = 3;
    if (!opt_label) opt_label = getenv("GEX_BENCH_LABEL");
    return 0;
}

/* Iteration counts: the full value, a tenth of it with --quick. */
static long iters(long full)
{
    long n = opt_quick ? full / 10 : full;
    return n < 1 ? 1 : n;
}

/* Whether NAME contains one of the comma-separated words of LIST. */
static int matches(const char *name, const char *list)
{
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len > 0) {
            for (const char *q = name; *q; q++)
                if (strncmp(q, p, len) == 0) return 1;
        }
        p += len;
        if (*p == ',') p++;
    }
    return 0;
}

static void add_note(const char *msg);

/* Whether the metric NAME is to be measured (the same answer on every PE). */
static int wanted(const char *name)
{
    return !(opt_only && !matches(name, opt_only)) && !(opt_skip && matches(name, opt_skip));
}

/* wanted(), and a note when --skip leaves the metric out. */
static int selected(const char *name)
{
    if (opt_only && !matches(name, opt_only)) return 0;
    if (opt_skip && matches(name, opt_skip)) {
        char msg[120];
        snprintf(msg, sizeof msg, "%s skipped (--skip %s)", name, opt_skip);
        add_note(msg);
        return 0;
    }
    return 1;
}

static void add_note(const char *msg)
{
    if (me == 0 && n_notes < (int)(sizeof notes / sizeof notes[0])) {
        snprintf(notes[n_notes++], sizeof notes[0], "%s", msg);
        printf("# note: %s\n", msg);
    }
}

static void check(int ok, const char *what)
{
    if (!ok) {
        check_failures++;
        fprintf(stderr, "shmem_bench: PE %d: CHECK FAILED: %s\n", me, what);
    }
}

/* Every PE passes its value; PE 0 gets the largest.  Collective (ends in a
 * barrier); uses only puts so that no 1.4-only reduction is needed. */
static double gather_max(double v)
{
    shmem_double_p(&gather_slot[me], v, 0);
    shmem_barrier_all();
    double m = v;
    if (me == 0)
        for (int p = 0; p < npes; p++)
            if (gather_slot[p] > m) m = gather_slot[p];
    shmem_barrier_all(); /* gather_slot may be reused */
    return m;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* PE 0 records one metric from the R values in v[] (order destroyed). */
static void record(const char *name, const char *unit, int higher_is_better, double *v, int n)
{
    if (me != 0 || n_metrics >= MAX_METRICS) return;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    struct metric *m = &metrics[n_metrics++];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->unit = unit;
    m->higher_is_better = higher_is_better;
    m->min = v[0];
    m->max = v[n - 1];
    m->median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    printf("%-20s %-12s %12.3f %12.3f %12.3f\n", m->name, m->unit, m->median, m->min, m->max);
    fflush(stdout);
}

/* ---------------------------------------------------------------------- */
/* The measurements.  Each returns the value of one repetition on PE 0 (the
 * other PEs' return values are ignored); warm-up calls are the same
 * functions with a smaller count. */

static long pp_seq = 0; /* ping-pong sequence number, growing across calls */

static double run_pingpong(long n)
{
    double t0 = now_s();
    if (me == 0) {
        for (long i = 0; i < n; i++) {
            long s = ++pp_seq;
            shmem_long_p(ping_flag, s, 1);
            shmem_long_wait_until(pong_flag, SHMEM_CMP_EQ, s);
        }
    } else if (me == 1) {
        for (long i = 0; i < n; i++) {
            long s = ++pp_seq;
            shmem_long_wait_until(ping_flag, SHMEM_CMP_EQ, s);
            shmem_long_p(pong_flag, s, 0);
        }
    }
    double t = now_s() - t0;
    shmem_barrier_all();
    return 1e6 * t / (double)n;
}

static long put_seq = 0;

static double run_put_quiet(long n)
{
    double t = 0;
    if (me == 0) {
        double t0 = now_s();
        for (long i = 0; i < n; i++) {
            long v = ++put_seq;
            shmem_putmem(small_dst, &v, sizeof v, 1);
            shmem_quiet();
        }
        t = now_s() - t0;
    } else {
        put_seq += n; /* what PE 1 expects to find */
    }
    shmem_barrier_all();
    return 1e6 * t / (double)n;
}

static double run_get(long n)
{
    double t = 0;
    if (me == 0) {
        long v = 0, sum = 0;
        double t0 = now_s();
        for (long i = 0; i < n; i++) {
            shmem_getmem(&v, small_dst, sizeof v, 1);
            sum += v;
        }
        t = now_s() - t0;
        check(v == put_seq, "get 8 B: the value last put to PE 1 does not come back");
        (void)sum;
    }
    shmem_barrier_all();
    return 1e6 * t / (double)n;
}

static double run_put_bw(long n)
{
    double t = 0;
    if (me == 0) {
        double t0 = now_s();
        for (long i = 0; i < n; i++) shmem_putmem_nbi(big_dst, big_src, MIB, 1);
        shmem_quiet();
        t = now_s() - t0;
    }
    shmem_barrier_all();
    return (double)n / t; /* n MiB in t seconds */
}

static double run_get_bw(long n)
{
    double t = 0;
    if (me == 0) {
        double t0 = now_s();
        for (long i = 0; i < n; i++) shmem_getmem_nbi(big_dst, big_src, MIB, 1);
        shmem_quiet();
        t = now_s() - t0;
    }
    shmem_barrier_all();
    return (double)n / t;
}

static long fadd_total = 0; /* adds PE 0 made to PE 1's amo_ctr */

static double run_fetch_add(long n)
{
    double t = 0;
    if (me == 0) {
        long prev = -1, ok = 1;
        double t0 = now_s();
        for (long i = 0; i < n; i++) {
            long old = shmem_long_atomic_fetch_add(amo_ctr, 1, 1);
            if (prev >= 0 && old != prev + 1) ok = 0;
            prev = old;
        }
        t = now_s() - t0;
        check(ok && prev == fadd_total + n - 1, "fetch-add: the old values are not consecutive");
        fadd_total += n;
    }
    shmem_barrier_all();
    return 1e6 * t / (double)n;
}

static long rate_total = 0; /* adds each PE made to its right neighbour */

static double run_add_rate(long n)
{
    int right = (me + 1) % npes;
    shmem_barrier_all();
    double t0 = now_s();
    for (long i = 0; i < n; i++) shmem_long_atomic_add(amo_rate_ctr, 1, right);
    shmem_quiet();
    double t = gather_max(now_s() - t0);
    rate_total += n;
    return (double)npes * (double)n / t / 1e6;
}

static double run_barrier(long n)
{
    shmem_barrier_all();
    double t0 = now_s();
    for (long i = 0; i < n; i++) shmem_barrier_all();
    double t = gather_max(now_s() - t0);
    return 1e6 * t / (double)n;
}

/* ---- contexts: T threads of PE 0 streaming 8-byte puts to PE 1 ---- */
struct ctx_job {
    int tid, private_ctx;
    long n;
    pthread_barrier_t *start;
    double t0, t1;
    int failed;
};

static void *ctx_thread(void *arg)
{
    struct ctx_job *j = arg;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    if (j->private_ctx && shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        j->failed = 1;
        ctx = SHMEM_CTX_DEFAULT; /* still joins the barrier below, does nothing */
    }
    long *dst = &small_dst[1 + j->tid];
    long v = 0;
    pthread_barrier_wait(j->start);
    j->t0 = now_s();
    if (!j->failed) {
        for (long i = 0; i < j->n; i++) {
            v = i + 1;
            shmem_ctx_putmem(ctx, dst, &v, sizeof v, 1);
        }
        shmem_ctx_quiet(ctx);
    }
    j->t1 = now_s();
    if (j->private_ctx && !j->failed) shmem_ctx_destroy(ctx);
    return NULL;
}

/* Returns aggregate Mputs/s on PE 0, or a negative value if PE 0 could not
 * run it (no context, no thread); every PE must call it. */
static double run_ctx(int nthreads, int private_ctx, long n)
{
    double rate = 0;
    int failed = 0;
    if (me == 0) {
        pthread_t th[MAX_THREADS];
        struct ctx_job job[MAX_THREADS];
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, (unsigned)nthreads);
        int started = 0;
        for (int t = 0; t < nthreads; t++) {
            job[t] = (struct ctx_job){ .tid = t, .private_ctx = private_ctx, .n = n,
                                       .start = &start };
            if (pthread_create(&th[t], NULL, ctx_thread, &job[t]) != 0) break;
            started++;
        }
        if (started < nthreads) {
            /* The started threads wait in the barrier for good; give up. */
            fprintf(stderr, "shmem_bench: pthread_create failed\n");
            shmem_global_exit(1);
        }
        double t0 = 0, t1 = 0;
        for (int t = 0; t < nthreads; t++) {
            pthread_join(th[t], NULL);
            if (job[t].failed) failed = 1;
            if (t == 0 || job[t].t0 < t0) t0 = job[t].t0;
            if (t == 0 || job[t].t1 > t1) t1 = job[t].t1;
        }
        pthread_barrier_destroy(&start);
        rate = failed ? -1.0 : (double)nthreads * (double)n / (t1 - t0) / 1e6;
    }
    shmem_barrier_all();
    return rate;
}

/* ---------------------------------------------------------------------- */

typedef double (*bench_fn)(long n);

/* Warm-up, then R repetitions of fn(n); PE 0 records the metric. */
static void measure(const char *name, const char *unit, int higher, bench_fn fn, long n)
{
    double v[MAX_REPS];
    if (!selected(name)) return;
    fn(n / 10 > 0 ? n / 10 : 1);
    for (int r = 0; r < opt_reps; r++) v[r] = fn(n);
    record(name, unit, higher, v, opt_reps);
}

static void measure_ctx(int nthreads, int private_ctx, long n)
{
    char name[48];
    snprintf(name, sizeof name, "ctx %s T=%d", private_ctx ? "private" : "default", nthreads);
    double v[MAX_REPS];
    if (!selected(name)) return;
    int failed = run_ctx(nthreads, private_ctx, n / 10 > 0 ? n / 10 : 1) < 0;
    for (int r = 0; r < opt_reps; r++) { /* all of them: run_ctx is collective */
        v[r] = run_ctx(nthreads, private_ctx, n);
        if (v[r] < 0) failed = 1;
    }
    /* PE 0 alone knows whether it failed; it tells the others (PE 1
     * checks the data only if the puts were made). */
    if (me == 0)
        for (int p = 0; p < npes; p++) shmem_long_p(ctx_failed, failed, p);
    shmem_barrier_all();
    failed = (int)*ctx_failed;
    if (me == 0) {
        if (failed) {
            char msg[120];
            snprintf(msg, sizeof msg, "%s skipped: shmem_ctx_create(SHMEM_CTX_PRIVATE) failed", name);
            add_note(msg);
        } else {
            record(name, "Mputs/s", 1, v, opt_reps);
        }
    }
    if (me == 1 && !failed) {
        int ok = 1;
        for (int t = 0; t < nthreads; t++) ok &= small_dst[1 + t] == n;
        check(ok, "contexts: the last put of a thread did not arrive");
    }
    shmem_barrier_all();
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static int write_json(const char *path, const char *impl, const char *vendor, int major, int minor)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "shmem_bench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "{\n  \"impl\": ");
    json_string(f, impl);
    fprintf(f, ",\n  \"vendor\": ");
    json_string(f, vendor);
    fprintf(f, ",\n  \"spec\": \"%d.%d\",\n  \"pes\": %d,\n  \"reps\": %d,\n  \"quick\": %s,\n",
            major, minor, npes, opt_reps, opt_quick ? "true" : "false");
    fprintf(f, "  \"label\": ");
    json_string(f, opt_label ? opt_label : "");
    fprintf(f, ",\n  \"thread_multiple\": %s,\n",
            thread_provided == SHMEM_THREAD_MULTIPLE ? "true" : "false");
    fprintf(f, "  \"notes\": [");
    for (int i = 0; i < n_notes; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_string(f, notes[i]);
    }
    fprintf(f, "],\n  \"metrics\": [\n");
    for (int i = 0; i < n_metrics; i++) {
        const struct metric *m = &metrics[i];
        fprintf(f, "    {\"name\": ");
        json_string(f, m->name);
        fprintf(f, ", \"unit\": ");
        json_string(f, m->unit);
        fprintf(f, ", \"median\": %.6g, \"min\": %.6g, \"max\": %.6g, \"better\": \"%s\"}%s\n",
                m->median, m->min, m->max, m->higher_is_better ? "higher" : "lower",
                i + 1 < n_metrics ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "shmem_bench: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int pa = parse_args(argc, argv);

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &thread_provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();

    if (pa != 0) {
        if (me == 0) usage(pa > 0 ? stdout : stderr);
        shmem_finalize();
        return pa > 0 ? 0 : 2;
    }
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "shmem_bench: needs at least 2 PEs (got %d)\n", npes);
        shmem_finalize();
        return 2;
    }

    char vendor[SHMEM_MAX_NAME_LEN + 1];
    memset(vendor, 0, sizeof vendor);
    shmem_info_get_name(vendor);
    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    const char *impl = opt_impl ? opt_impl : vendor;

    ping_flag = shmem_calloc(1, sizeof(long));
    pong_flag = shmem_calloc(1, sizeof(long));
    small_dst = shmem_calloc(1 + MAX_THREADS, sizeof(long));
    amo_ctr = shmem_calloc(1, sizeof(long));
    amo_rate_ctr = shmem_calloc(1, sizeof(long));
    gather_slot = shmem_calloc((size_t)npes, sizeof(double));
    ctx_failed = shmem_calloc(1, sizeof(long));
    big_src = shmem_align(4096, MIB);
    big_dst = shmem_align(4096, MIB);
    if (!ping_flag || !pong_flag || !small_dst || !amo_ctr || !amo_rate_ctr || !gather_slot ||
        !ctx_failed || !big_src || !big_dst) {
        fprintf(stderr, "shmem_bench: PE %d: symmetric allocation failed\n", me);
        shmem_global_exit(1);
    }
    memset(big_src, 0x5a, MIB);
    memset(big_dst, 0, MIB);
    shmem_barrier_all();

    if (me == 0) {
        printf("# shmem_bench: impl=%s vendor=\"%s\" spec=%d.%d pes=%d reps=%d%s thread=%s\n",
               impl, vendor, major, minor, npes, opt_reps, opt_quick ? " quick" : "",
               thread_provided == SHMEM_THREAD_MULTIPLE ? "MULTIPLE" : "less than MULTIPLE");
        printf("%-20s %-12s %12s %12s %12s\n", "metric", "unit", "median", "min", "max");
        fflush(stdout);
    }

    measure("pingpong 8 B", "us/roundtrip", 0, run_pingpong, iters(20000));
    measure("put 8 B + quiet", "us", 0, run_put_quiet, iters(20000));
    if (me == 1) check(*small_dst == put_seq, "put 8 B: the last value did not arrive at PE 1");
    measure("get 8 B", "us", 0, run_get, iters(20000));
    measure("put bw 1 MiB", "MiB/s", 1, run_put_bw, iters(200));
    if (me == 1 && wanted("put bw 1 MiB"))
        check((unsigned char)big_dst[MIB - 1] == 0x5a, "put bw: data did not arrive");
    if (me == 0) memset(big_dst, 0, MIB);
    shmem_barrier_all();
    measure("get bw 1 MiB", "MiB/s", 1, run_get_bw, iters(200));
    if (me == 0 && wanted("get bw 1 MiB"))
        check((unsigned char)big_dst[MIB - 1] == 0x5a, "get bw: data did not arrive");
    measure("fetch-add lat", "us", 0, run_fetch_add, iters(20000));
    measure("add rate", "Mops/s", 1, run_add_rate, iters(200000));
    shmem_barrier_all();
    check(*amo_rate_ctr == rate_total, "add rate: the counter has the wrong value");
    measure("barrier_all", "us", 0, run_barrier, iters(20000));

    if (thread_provided == SHMEM_THREAD_MULTIPLE) {
        for (int priv = 1; priv >= 0; priv--)
            for (int t = 1; t <= MAX_THREADS; t++) measure_ctx(t, priv, iters(100000));
    } else {
        add_note("contexts skipped: shmem_init_thread did not provide SHMEM_THREAD_MULTIPLE");
    }

    shmem_barrier_all();
    int rc = 0;
    if (me == 0 && opt_json && write_json(opt_json, impl, vendor, major, minor) != 0) rc = 1;
    if (check_failures) rc = 1;

    shmem_free(big_dst);
    shmem_free(big_src);
    shmem_free(ctx_failed);
    shmem_free(gather_slot);
    shmem_free(amo_rate_ctr);
    shmem_free(amo_ctr);
    shmem_free(small_dst);
    shmem_free(pong_flag);
    shmem_free(ping_flag);
    shmem_finalize();
    return rc;
}
