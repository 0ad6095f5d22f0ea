/*
 * gexrun_args.c: gexrun's command line: -n N, --conduit C, --timeout S,
 * --help, --version (gexrun_args.h).  Nothing here touches the job.
 */
#if defined(HAVE_CONFIG_H)
#include <config.h>
#endif
#include "gexrun_args.h"
#include "job_region.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "(development build)"
#endif

/* ---- Command line ---- */

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: gexrun -n N [--conduit C] [--timeout SECONDS] [--] prog [args...]\n"
        "Runs N ranks of a GEX program on this machine.\n"
        "\n"
        "  -n N, -np N          number of ranks (1..%u)\n"
        "  --conduit C          set GEX_CONDUIT=C for the ranks\n"
        "  --timeout SECONDS    end the job after SECONDS, 0 for never (default:\n"
        "                       $GEX_RUN_TIMEOUT, or never)\n"
        "  -h, --help           print this help\n"
        "  --version            print the version\n"
        "\n"
        "Rank 0 reads gexrun's stdin; all ranks write to gexrun's stdout and stderr.\n"
        "If a rank fails, the whole job is ended.  Exit status: rank 0's, or that of\n"
        "the first failure; 124 on timeout, 128+signal if gexrun was interrupted.\n",
        GEXI_JOB_MAX_RANKS);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gexrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry 'gexrun --help' for more information.\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

static int parse_nranks(const char *s, unsigned *n_p)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < 1 || v > GEXI_JOB_MAX_RANKS)
        return -1;
    *n_p = (unsigned)v;
    return 0;
}

static int parse_seconds(const char *s, double *t_p)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < 0)
        return -1;
    *t_p = v;
    return 0;
}

/* Matches "name VALUE" or "name=VALUE" at argv[*i]: 1 matched, 0 not this
 * option, -1 value missing. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **val_p)
{
    size_t len = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, len) != 0)
        return 0;
    if (a[len] == '=') {
        *val_p = a + len + 1;
        return 1;
    }
    if (a[len] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *val_p = argv[++*i];
    return 1;
}

int gexrun_parse_args(int argc, char **argv, const char *timeout, struct options *o)
{
    const char *val;
    const char *timeout_from = "GEX_RUN_TIMEOUT";   /* named in the message of a bad value */
    int i, m;
    if (timeout && !*timeout)
        timeout = NULL;   /* empty means unset, as for every variable (docs/environment.md) */
    *o = (struct options){ 0 };
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("gexrun (GEX) %s\n", PACKAGE_VERSION);
            return 0;
        } else if ((m = option_value(argc, argv, &i, "-np", &val)) != 0 ||
                   (m = option_value(argc, argv, &i, "-n", &val)) != 0) {
            if (m < 0 || parse_nranks(val, &o->nranks))
                return usage_error("-n needs a number of ranks from 1 to %u%s%s%s",
                                   GEXI_JOB_MAX_RANKS, m < 0 ? "" : ", not '",
                                   m < 0 ? "" : val, m < 0 ? "" : "'");
        } else if (a[1] == 'n' && a[2] >= '0' && a[2] <= '9') {      /* -n4 */
            if (parse_nranks(a + 2, &o->nranks))
                return usage_error("-n needs a number of ranks from 1 to %u, not '%s'",
                                   GEXI_JOB_MAX_RANKS, a + 2);
        } else if ((m = option_value(argc, argv, &i, "--conduit", &val)) != 0) {
            /* "--conduit -n 2 prog" would otherwise take -n as the name and
             * then complain that -n is missing */
            if (m < 0 || !*val || *val == '-')
                return usage_error("--conduit needs a conduit name%s%s%s", m < 0 ? "" : ", not '",
                                   m < 0 ? "" : val, m < 0 ? "" : "'");
            o->conduit = val;
        } else if ((m = option_value(argc, argv, &i, "--timeout", &val)) != 0) {
            if (m < 0)
                return usage_error("--timeout needs a number of seconds");
            timeout = val;
            timeout_from = "--timeout";
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    if (timeout && parse_seconds(timeout, &o->timeout))
        return usage_error("%s must be a number of seconds >= 0, not '%s'", timeout_from,
                           timeout);
    if (o->nranks == 0)
        return usage_error("missing -n N (the number of ranks)");
    if (i >= argc)
        return usage_error("missing the program to run");
    o->argv = argv + i;
    return -1;
}

