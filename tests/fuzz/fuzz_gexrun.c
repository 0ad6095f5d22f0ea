/*
 * fuzz_gexrun.c: libFuzzer harness for gexrun's command line parser
 * (tools/gexrun_args.c, compiled in).  The input is the argument vector,
 * NUL-separated, after argv[0]; when the low bit of byte 0 is set, the
 * first argument is GEX_RUN_TIMEOUT's value instead.
 * No job is started: the parser only fills struct options.
 * Asserted: an accepted command line names 1..GEXI_JOB_MAX_RANKS ranks, a
 * finite timeout >= 0, a non-empty conduit if any, and a program that is
 * one of the given arguments.
 */
#define GEXI_BUILDING_GEX 1
#include "gexrun_args.h"
#include "job_region.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

#define MAX_ARGS 64


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096) return 0;
    const int with_env = data[0] & 1;
    /* own copy, NUL-terminated, cut at NULs into arguments */
    char *buf = malloc(size);
    if (!buf) return 0;
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = 0;
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "gexrun";
    const char *timeout = NULL;
    for (char *p = buf; p < buf + size - 1 && argc <= MAX_ARGS; p += strlen(p) + 1) {
        if (with_env && !timeout) timeout = p;
        else argv[argc++] = p;
    }
    argv[argc] = NULL;

    struct options o;
    const int rc = gexrun_parse_args(argc, argv, timeout, &o);
    if (rc < 0) {
        CHECK(rc == -1);
        CHECK(o.nranks >= 1 && o.nranks <= GEXI_JOB_MAX_RANKS);
        CHECK(isfinite(o.timeout) && o.timeout >= 0);
        CHECK(!o.conduit || *o.conduit);
        CHECK(o.argv > argv && o.argv < argv + argc && *o.argv);
    } else {
        CHECK(rc == 0 || rc == EXIT_USAGE);
    }
    free(buf);
    return 0;
}
