/*
 * fuzz_env.c: libFuzzer harness for the environment value grammars
 * (libgex-core/env_parse.c, compiled in, and gex_conduit_parse_size of
 * include/gex/conduit.h): sizes like "64M", GASNET_MAX_SEGSIZE's
 * "0.85/H", integers, Booleans, rank and signal lists.  The input is one
 * value; byte 0 picks the rank and ranks-per-host arguments, so a single
 * corpus file reproduces a run exactly.  Besides memory errors and UB
 * (ASan/UBSan), a few properties of the results are asserted.
 */
#define GEXI_BUILDING_GEX 1
#include "env_parse.h"
#include <gex/conduit.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096) return 0;
    const unsigned sel = data[0];
    /* the value: the rest, NUL-terminated (environment values are strings) */
    char *v = malloc(size);
    if (!v) return 0;
    memcpy(v, data + 1, size - 1);
    v[size - 1] = 0;

    uint64_t sz = 0;
    if (gex_conduit_parse_size(v, &sz) == 0) {
        /* the decimal form of a parsed size is itself a size of the same value */
        char dec[32];
        uint64_t again = ~sz;
        snprintf(dec, sizeof dec, "%" PRIu64, sz);
        CHECK(gex_conduit_parse_size(dec, &again) == 0 && again == sz);
    }

    uint64_t seg = 0;
    const uint32_t on_host = sel & 7u;   /* 0 included: "/H" must not divide by it */
    if (gexi_env_parse_max_segsize(v, 64ull << 30, on_host, &seg) == 0 && strchr(v, '/') == NULL)
        CHECK(gexi_env_parse_max_segsize(v, 64ull << 30, 1, &sz) == 0 && sz == seg);

    long l = 0;
    if (gexi_env_parse_long(v, &l) == 0) CHECK(*v != 0);

    const int b = gexi_env_bool(v);
    CHECK(b == (!strcmp(v, "1") || !strcasecmp(v, "y") || !strcasecmp(v, "yes")));

    (void)gexi_env_rank_listed(v, (long)(sel >> 3) - 4);   /* negative ranks too */
    CHECK(gexi_env_rank_listed(v, 0) == 1 || (*v && strcmp(v, "*")));

    const int sig = gexi_env_signal_by_name(v);
    CHECK(sig >= 0 && sig < NSIG);
    (void)gexi_signal_excluded(v, SIGSEGV, "SIGSEGV");
    (void)gexi_signal_excluded(v, (int)sel, "SIGBUS");

    const int in_list = gexi_env_list_has(v, "vis", "all");
    if (!strcmp(v, "vis") || !strcmp(v, "all")) CHECK(in_list);
    if (!strstr(v, "vis") && !strstr(v, "all")) CHECK(!in_list);

    free(v);
    return 0;
}
