/*
 * bench_opts.h: the command-line parser every GEX benchmark uses.  Each
 * program describes its options in a table (name, value name, help text,
 * kind, where the value goes) and calls bench_opts_parse(); the shared
 * behaviour lives here once: "--name VALUE" pairs, range checks, -h/--help,
 * the usage text (one line per option, or a one-line synopsis), and the
 * exit status (0 after --help, 2 after a bad option).  Header-only, included
 * after gasnetex.h (a parse after gex_Client_Init ends the job with
 * gasnet_exit, one before it with exit).
 *
 * Options that set several things, or whose effect depends on the order of
 * the command line (atomics_bench --smoke, npam_bench --budget), are
 * BENCH_OPT_CALL entries: the program's own function does what the option
 * did before.
 */
#ifndef GEX_BENCH_OPTS_H
#define GEX_BENCH_OPTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum bench_opt_kind {
    BENCH_OPT_FLAG,     /* int = 1 (no value); a NULL pointer: accepted and ignored */
    BENCH_OPT_INT,      /* int = atoi(value), checked against [lo, hi] when lo <= hi */
    BENCH_OPT_UINT,     /* unsigned = (unsigned)atoi(value) */
    BENCH_OPT_LONG,     /* long = atol(value) */
    BENCH_OPT_ULONG,    /* unsigned long = strtoul(value, 0) */
    BENCH_OPT_SIZE,     /* size_t = strtoull(value, 0) */
    BENCH_OPT_STRING,   /* const char * = value (argv stays alive) */
    BENCH_OPT_CALL,     /* call(value) (value NULL for a flag); 0 = bad option */
};

struct bench_opt {
    const char *name;           /* "--reps" */
    const char *arg;            /* value name in the usage ("R"); NULL: takes no value */
    const char *help;           /* usage line (long usage form) */
    enum bench_opt_kind kind;
    void *ptr;                  /* where the value goes (not for CALL) */
    long lo, hi;                /* INT: accepted range when lo <= hi */
    int (*call)(const char *value);
    int hidden;                 /* accepted, not listed in the usage */
};

struct bench_cli {
    const char *prog;           /* "rma_bench", for messages */
    const char *synopsis;       /* first usage line, without the newline */
    const char *footer;         /* printed after the options as is (may be NULL) */
    const struct bench_opt *opts;
    int n_opts;
    int compact;                /* usage: "synopsis [--a A] [--b]" on one line */
    int help;                   /* -h/--help prints the usage and exits 0 */
    int all_ranks;              /* every rank prints (parsing before gex_Client_Init) */
    int before_init;            /* end with exit(), not gasnet_exit() */
    unsigned rank;              /* this rank (only rank 0 prints unless all_ranks) */
};

/* Table entries (every field given, for -Wextra). */
#define BENCH_FLAG(name, help, ptr) { name, NULL, help, BENCH_OPT_FLAG, ptr, 1, 0, NULL, 0 }
#define BENCH_FLAG_HIDDEN(name, ptr) { name, NULL, NULL, BENCH_OPT_FLAG, ptr, 1, 0, NULL, 1 }
#define BENCH_VALUE(name, arg, help, kind, ptr) { name, arg, help, kind, ptr, 1, 0, NULL, 0 }
#define BENCH_INT_IN(name, arg, help, ptr, lo, hi) \
    { name, arg, help, BENCH_OPT_INT, ptr, lo, hi, NULL, 0 }
#define BENCH_CALL(name, arg, help, fn) { name, arg, help, BENCH_OPT_CALL, NULL, 1, 0, fn, 0 }
/* Entries that read the same in every benchmark that has them. */
#define BENCH_OPT_REPS(help, ptr) BENCH_INT_IN("--reps", "R", help, ptr, 1, 1000)
#define BENCH_OPT_LABEL(ptr) \
    BENCH_VALUE("--label", "L", "free text stored in the JSON (default $GEX_BENCH_LABEL)", \
                BENCH_OPT_STRING, ptr)
#define BENCH_OPT_CHECK_TARGETS(ptr) \
    BENCH_FLAG("--check-targets", "exit with status 1 if a performance target is missed", ptr)
#define BENCH_OPT_JSON(dflt, ptr) \
    BENCH_VALUE("--json", "FILE", "JSON output (default " dflt ")", BENCH_OPT_STRING, ptr)
#define BENCH_N_OPTS(table) ((int)(sizeof(table) / sizeof((table)[0])))

static inline void bench_usage(const struct bench_cli *c, FILE *f)
{
    if (c->compact) {
        fputs(c->synopsis, f);
        for (int i = 0; i < c->n_opts; i++) {
            const struct bench_opt *o = &c->opts[i];
            if (o->hidden) continue;
            fprintf(f, " [%s%s%s]", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        }
        fputc('\n', f);
    } else {
        fprintf(f, "%s\n", c->synopsis);
        for (int i = 0; i < c->n_opts; i++) {
            const struct bench_opt *o = &c->opts[i];
            char left[64];
            if (o->hidden) continue;
            snprintf(left, sizeof left, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
            fprintf(f, "  %-18s %s\n", left, o->help ? o->help : "");
        }
    }
    if (c->footer) fputs(c->footer, f);
}

static inline void bench_cli_exit(const struct bench_cli *c, int status)
{
    fflush(stdout);
    if (c->before_init) exit(status);
    gasnet_exit(status);
}

/* Prints the usage to stderr (on the ranks that print) and ends with status 2:
 * for a check that the program makes after bench_opts_parse(). */
static inline void bench_usage_exit(const struct bench_cli *c)
{
    if (c->all_ranks || c->rank == 0) bench_usage(c, stderr);
    bench_cli_exit(c, 2);
}

static inline int bench_opt_set(const struct bench_opt *o, const char *v)
{
    switch (o->kind) {
    case BENCH_OPT_FLAG:
        if (o->ptr) *(int *)o->ptr = 1;
        return 1;
    case BENCH_OPT_INT: {
        const int x = atoi(v);
        if (o->lo <= o->hi && (x < o->lo || x > o->hi)) return 0;
        *(int *)o->ptr = x;
        return 1;
    }
    case BENCH_OPT_UINT: *(unsigned *)o->ptr = (unsigned)atoi(v); return 1;
    case BENCH_OPT_LONG: *(long *)o->ptr = atol(v); return 1;
    case BENCH_OPT_ULONG: *(unsigned long *)o->ptr = strtoul(v, NULL, 0); return 1;
    case BENCH_OPT_SIZE: *(size_t *)o->ptr = (size_t)strtoull(v, NULL, 0); return 1;
    case BENCH_OPT_STRING: *(const char **)o->ptr = v; return 1;
    case BENCH_OPT_CALL: return o->call(v);
    }
    return 0;
}

/* Parses argv[1..argc-1] against the table: returns when every argument is
 * a known option with a sound value; otherwise prints "<prog>: bad option"
 * and the usage to stderr and ends the program with status 2. */
static inline void bench_opts_parse(const struct bench_cli *c, int argc, char **argv)
{
    const int talk = c->all_ranks || c->rank == 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        const struct bench_opt *o = NULL;
        if (c->help && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
            if (talk) bench_usage(c, stdout);
            bench_cli_exit(c, 0);
        }
        for (int k = 0; k < c->n_opts && !o; k++)
            if (!strcmp(a, c->opts[k].name)) o = &c->opts[k];
        if (o && o->arg) {
            if (i + 1 < argc) v = argv[++i];
            else o = NULL;   /* a value option without its value */
        }
        if (o && bench_opt_set(o, v)) continue;
        if (talk) {
            fprintf(stderr, "%s: bad option '%s'%s%s\n", c->prog, a, v ? " " : "", v ? v : "");
            bench_usage(c, stderr);
        }
        bench_cli_exit(c, 2);
    }
}

/* What --quick and --smoke mean to the benchmarks timed by repetitions of
 * a target length (am, rma, coll, vis): --smoke implies --quick; --quick
 * makes a repetition quick_s long and, unless --reps changed the default
 * def_reps, 3 of them; --smoke one of smoke_s.  The label defaults to
 * $GEX_BENCH_LABEL. */
static inline void bench_quick_smoke(int *quick, int smoke, int *reps, int def_reps,
                                     double *target_s, double quick_s, double smoke_s,
                                     const char **label)
{
    if (smoke) *quick = 1;
    if (*quick) {
        *target_s = quick_s;
        if (*reps == def_reps) *reps = 3;
    }
    if (smoke) {
        *target_s = smoke_s;
        *reps = 1;
    }
    if (!*label) *label = getenv("GEX_BENCH_LABEL");
}

/* 1 if every comma-separated word of `list` is one of known[0..n-1]. */
static inline int bench_list_known(const char *list, const char *const *known, int n)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *s = strtok(tmp, ","); s; s = strtok(NULL, ",")) {
        int ok = 0;
        for (int k = 0; k < n; k++) ok |= !strcmp(s, known[k]);
        if (!ok) return 0;
    }
    return 1;
}

/* --only: 1 if `what` is a whole word of the comma list (every test when
 * the list is NULL). */
static inline int bench_only_wants(const char *only, const char *what)
{
    if (!only) return 1;
    const size_t n = strlen(what);
    for (const char *p = only; (p = strstr(p, what)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    return 0;
}

#endif /* GEX_BENCH_OPTS_H */
