/*
 * fuzz_am_header.c: libFuzzer harness for the AM wire header of the smp
 * conduit: gexc_smp_check_rec (conduits/smp/smp_internal.h), which the
 * consumer runs on every record it finds in a ring (kind, request flag,
 * handler, nargs, length, Medium payload offset and size, Long piece)
 * before reading args or payload or copying a Long piece.
 * Input: byte 0 bit 0 picks the ring (request or reply); the rest, cut to a
 * multiple of 8 bytes, is the ring from the record to the ring's end, in a
 * buffer of exactly that size (ASan reports any read past it).  Asserted
 * for an accepted record: it fits before the ring's end, and its args,
 * Medium payload and Long piece lie inside it; the harness then reads them
 * all, as the handler and the Long copy would.
 */
#define GEXI_BUILDING_GEX 1
#include "smp_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "fuzz_am_header: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort(); \
        } \
    } while (0)

static volatile unsigned sink;

static void touch(const unsigned char *p, size_t n)
{
    unsigned x = 0;
    for (size_t i = 0; i < n; i++) x += p[i];
    sink += x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 9 || size > 65536 + 1) return 0;
    const unsigned k = data[0] & 1 ? GEXC_SMP_RING_REP : GEXC_SMP_RING_REQ;
    const size_t room = (size - 1) & ~(size_t)7;
    unsigned char *p = aligned_alloc(8, room);
    if (!p) return 0;
    memcpy(p, data + 1, room);
    uint64_t w;
    memcpy(&w, p, sizeof w);

    struct gexc_smp_view v;
    if (gexc_smp_check_rec(p, w, room, k, &v) == NULL) {
        CHECK(v.len <= room && v.len == GEXC_SMP_W_LEN(w) && v.kind == GEXC_SMP_W_KIND(w));
        const unsigned nargs = GEXC_SMP_W_NARGS(w);
        switch (v.kind) {
        case GEXC_SMP_K_SKIP:
            CHECK(v.len == room);
            break;
        case GEXC_SMP_K_LONGDATA:
            CHECK((uint64_t)v.copy_off + v.copy_len <= v.len);
            touch(p + v.copy_off, v.copy_len);
            break;
        default:
            CHECK(v.kind <= GEXC_SMP_K_LONG && nargs <= GEXC_SMP_MAX_ARGS);
            CHECK(GEXC_SMP_W_ISREQ(w) == (k == GEXC_SMP_RING_REQ));
            CHECK(v.args_off + 4u * nargs <= v.len);
            touch(p + v.args_off, 4u * nargs);
            if (v.kind == GEXC_SMP_K_MEDIUM) {
                CHECK((uint64_t)v.payload_off + v.nbytes <= v.len);
                CHECK(v.payload_off >= v.args_off + 4u * nargs && !(v.payload_off & 7));
                touch(p + v.payload_off, v.nbytes);
            } else if (v.kind == GEXC_SMP_K_LONG) {
                CHECK(v.copy_len <= v.nbytes && (uint64_t)v.copy_off + v.copy_len <= v.len);
                touch(p + v.copy_off, v.copy_len);
            }
        }
    }
    free(p);
    return 0;
}
