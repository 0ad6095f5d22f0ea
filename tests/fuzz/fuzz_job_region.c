/*
 * fuzz_job_region.c: libFuzzer harness for what a rank decodes when it
 * joins a gexrun job (libgex-core/job_region.h, used by
 * bootstrap_embedded.c): the GEX_JOB_SIZE / GEX_JOB_RANK values and the
 * header of the shared job region, whose size the rank learns from fstat.
 * Input: 8 bytes of mapped size (little-endian), the header image (short
 * inputs are zero-padded), then "SIZE\0RANK\0JOBID" text.  Asserted: an
 * accepted header and environment put every rank record and both halves of
 * every exchange slot inside the mapping, at the offsets gexi_job_rank_of
 * and gexi_job_chunk compute (computed, never dereferenced).
 */
#define GEXI_BUILDING_GEX 1
#include "job_region.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    uint64_t mapped = 0;
    size_t at = 0;
    for (unsigned k = 0; k < 8 && at < size; k++) mapped |= (uint64_t)data[at++] << (8 * k);
    struct gexi_job_header *h = aligned_alloc(GEXI_JOB_LINE, sizeof *h);
    if (!h) return 0;
    memset(h, 0, sizeof *h);
    size_t n = size - at < sizeof *h ? size - at : sizeof *h;
    memcpy(h, data + at, n);
    at += n;
    /* the three environment strings, NUL-terminated in our copy */
    size_t tlen = size - at;
    char *text = malloc(tlen + 3);
    if (!text) {
        free(h);
        return 0;
    }
    memcpy(text, data + at, tlen);
    text[tlen] = text[tlen + 1] = text[tlen + 2] = 0;
    const char *s_size = text, *s_rank = s_size + strlen(s_size) + 1;
    const char *jobid = s_rank + strlen(s_rank) + 1;
    if (jobid > text + tlen + 2) jobid = text + tlen + 2;

    unsigned long nranks, rank;
    const int size_ok = gexi_job_parse_uint(s_size, GEXI_JOB_MAX_RANKS, &nranks) == 0;
    const int rank_ok = gexi_job_parse_uint(s_rank, GEXI_JOB_MAX_RANKS, &rank) == 0;
    if (size_ok) {
        CHECK(nranks <= GEXI_JOB_MAX_RANKS);
        char back[24];
        snprintf(back, sizeof back, "%lu", nranks);
        CHECK(strcmp(back, s_size) == 0 || s_size[0] == '0');   /* leading zeros aside */
    }
    if (size_ok && rank_ok && nranks && rank < nranks &&
        gexi_job_region_check(h, (size_t)mapped, nranks, jobid) == GEXI_JOB_REGION_OK) {
        const uintptr_t base = (uintptr_t)h;   /* offsets only: h is not `mapped` long */
        CHECK(h->nranks == nranks);
        CHECK((uintptr_t)(gexi_job_rank_of(h, (uint32_t)rank) + 1) - base <= mapped);
        CHECK((uintptr_t)(gexi_job_rank_of(h, h->nranks - 1) + 1) - base <=
              gexi_job_exch_offset(h->nranks));
        for (unsigned half = 0; half < 2; half++) {
            CHECK((uintptr_t)gexi_job_chunk(h, h->nranks - 1, half) - base + GEXI_JOB_CHUNK_BYTES
                  <= mapped);
            CHECK((uintptr_t)gexi_job_chunk(h, 0, half) - base >= gexi_job_exch_offset(h->nranks));
        }
    }
    free(text);
    free(h);
    return 0;
}
