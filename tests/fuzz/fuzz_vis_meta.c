/*
 * fuzz_vis_meta.c: libFuzzer harness for the metadata of VIS AMs
 * (libgex-vis/vis_wire.c, compiled in with the cursor code of
 * vis_copy.c): the bytes a target receives in a VIS put or get request.
 * Byte 0 says which (bit 0: a put, with data); the rest is the payload, in
 * a buffer of exactly its size, so any read past it is an ASan report.
 * A payload the decoder accepts must describe pieces that hold every data
 * byte: the harness walks them as the unpacking would (addresses are
 * computed, never dereferenced) and asserts the walk neither ends early
 * nor leaves the section.
 */
#include "vis_internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_check.h"


/* vis_copy.c's stream copies end the job on a stream longer than its
 * pieces; the harness never copies, so reaching this is a finding. */
void gexi_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz_vis_meta: gexi_fatal: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536) return 0;
    const int with_data = data[0] & 1;
    const size_t nbytes = size - 1;
    /* malloc is 16-aligned: the alignment vis_am.c's aligned_payload gives */
    void *buf = malloc(nbytes ? nbytes : 1);
    if (!buf) return 0;
    memcpy(buf, data + 1, nbytes);

    struct gexi_vis_wire_side ws;
    struct gexi_vis_cur c;
    size_t mlen = 0, n = 0;
    const char *bad = gexi_vis_wire_read(buf, nbytes, with_data, 65536, &ws, &c, &mlen, &n);
    if (!bad) {
        CHECK(mlen >= sizeof(struct gexi_vis_wire));
        CHECK(with_data ? mlen + n == nbytes : mlen == nbytes);
        const struct gexi_vis_side *s = &ws.s;
        size_t left = n;
        while (left) {
            char *p;
            const size_t r = gexi_vis_run(s, &c, &p);
            CHECK(r > 0);   /* the pieces end before the data does */
            const size_t m = r < left ? r : left;
            gexi_vis_skip(s, &c, m);
            left -= m;
            if (s->kind == GEXI_VIS_STR)
                for (unsigned d = 0; d < s->dims; d++) CHECK(c.idx[d] < s->count[d]);
            CHECK(c.i <= s->n);
        }
    }
    free(buf);
    return 0;
}
