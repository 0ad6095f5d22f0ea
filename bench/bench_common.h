/*
 * bench_common.h: what every GEX benchmark (bench/am, bench/rma, bench/coll)
 * shares: where the run happened (conduit, bound layer implementations, CPU
 * model), a monotonic clock, the median of repetitions, and JSON output
 * helpers.  Header-only, included after gasnetex.h.  The command-line
 * options are parsed by bench_opts.h.
 *
 * Inside the GEX build tree (GEXI_BUILDING_GEX) the conduit name and each
 * layer's bound implementation come from libgex-core; against an installed
 * GEX (pkg-config build, bench/compare.sh) the layer string is still read
 * through libgex-core's exported gexi_describe_layers() if present, and the
 * conduit name comes from GEX_CONDUIT (default "smp").
 */
#ifndef GEX_BENCH_COMMON_H
#define GEX_BENCH_COMMON_H

#ifdef GEXI_BUILDING_GEX
#include "core_layer.h"
#else
/* Exported by libgex-core under GEX_CORE_LAYER_1.0; weak so that a build
 * against a GEX without it still links and runs. */
extern const char *gexi_describe_layers(void) __attribute__((weak));
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static inline const char *conduit_name(void)
{
#ifdef GEXI_BUILDING_GEX
    return gexi_core.ops->name;
#else
    const char *c = getenv("GEX_CONDUIT");
    return c && *c ? c : "smp";
#endif
}

static inline const char *layers_string(void)
{
#ifdef GEXI_BUILDING_GEX
    return gexi_describe_layers();
#else
    return gexi_describe_layers ? gexi_describe_layers() : "unknown";
#endif
}

static inline void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        /* x86: "model name"; some arm64 kernels: "Model" or nothing useful */
        if (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5)) {
            char *c = strchr(line, ':');
            if (!c) continue;
            c++;
            while (*c == ' ' || *c == '\t') c++;
            c[strcspn(c, "\n")] = 0;
            snprintf(buf, len, "%s", c);
            break;
        }
    }
    fclose(f);
}

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n (<= 1000) repetitions; the input is left in run order. */
static inline double median_of(const double *v, int n)
{
    double s[1000];
    memcpy(s, v, (size_t)n * sizeof *v);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static inline void json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* mkdir -p of the folders above `path` (the JSON file's location). */
static inline void make_parent_dirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            fprintf(stderr, "bench: cannot create %s: %s\n", buf, strerror(errno));
        *p = '/';
    }
}

/* Opens a benchmark's JSON file (creating its folders) and writes the
 * fields every benchmark records about the run: what ran (benchmark, label,
 * git commit, time), where (conduit, ranks, layer implementations, CPU,
 * host, kernel).  The object is left open: the caller appends its own
 * fields (each starting with ",\n") and closes it.  NULL (after a message)
 * if the file cannot be written. */
static inline FILE *bench_json_begin(const char *path, const char *benchmark, const char *label,
                                     const char *stamp, unsigned nranks)
{
    make_parent_dirs(path);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s_bench: cannot write %s: %s\n", benchmark, path, strerror(errno));
        return NULL;
    }
    char cpu[256], host[256] = "unknown";
    struct utsname u;
    cpu_model(cpu, sizeof cpu);
    gethostname(host, sizeof host - 1);
    fprintf(f, "{\n  \"benchmark\": ");
    json_str(f, benchmark);
    fprintf(f, ",\n  \"format\": 1,\n  \"label\": ");
    json_str(f, label);
    fprintf(f, ",\n  \"git_commit\": ");
    json_str(f, getenv("GEX_BENCH_COMMIT"));
    fprintf(f, ",\n  \"timestamp\": ");
    json_str(f, stamp);
    fprintf(f, ",\n  \"conduit\": ");
    json_str(f, conduit_name());
    fprintf(f, ",\n  \"ranks\": %u", nranks);
    fprintf(f, ",\n  \"force_reference\": ");
    json_str(f, getenv("GEX_FORCE_REFERENCE"));
    fprintf(f, ",\n  \"layers\": ");
    json_str(f, layers_string());
    fprintf(f, ",\n  \"cpu_model\": ");
    json_str(f, cpu);
    fprintf(f, ",\n  \"online_cpus\": %ld", sysconf(_SC_NPROCESSORS_ONLN));
    fprintf(f, ",\n  \"host\": ");
    json_str(f, host);
    fprintf(f, ",\n  \"kernel\": ");
    json_str(f, uname(&u) == 0 ? u.release : NULL);
    return f;
}

#endif /* GEX_BENCH_COMMON_H */
