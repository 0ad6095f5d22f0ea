/*
 * fuzz_am_header.c: libFuzzer harness for the AM wire headers: the smp
 * conduit's gexc_smp_check_rec (conduits/smp/smp_internal.h), which the
 * consumer runs on every record it finds in a ring, the ofi conduit's
 * gexc_ofi_check_msg (conduits/ofi/ofi_wire.h) and the ucx conduit's
 * gexc_ucx_check_msg (conduits/ucx/ucx_wire.h), run on every message
 * received (kind, request flag, source, nargs, length, Medium payload
 * offset and size, Long piece) before args or payload are read or a Long
 * piece copied.
 * Input: bits 1-2 of byte 0 pick the conduit (0 or 3 smp, 1 ofi, 2 ucx),
 * bit 0 the smp ring (request or reply).  smp: the rest, cut to a multiple
 * of 8 bytes, is the ring from the record to the ring's end; ofi: the rest
 * is one message; ucx: two length bytes (payload length), then the header
 * UCX hands over.
 * Either sits in a buffer of exactly its size (ASan reports any read past
 * it).  Asserted for an accepted record or message: its args, Medium
 * payload and Long piece lie inside it; the harness then reads them all, as
 * the handler and the Long copy would.
 */
#define GEXI_BUILDING_GEX 1
#include "smp_internal.h"
#include "ofi_wire.h"
#include "ucx_wire.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"


static volatile unsigned sink;

static void touch(const unsigned char *p, size_t n)
{
    unsigned x = 0;
    for (size_t i = 0; i < n; i++) x += p[i];
    sink += x;
}

#define OFI_RANKS 4u
#define OFI_MAX_MEDIUM 4096u

static void ofi_message(const uint8_t *data, size_t len)
{
    unsigned char *p = aligned_alloc(8, (len + 7) & ~(size_t)7);
    if (!p) return;
    memcpy(p, data, len);
    struct gexc_ofi_view v;
    if (gexc_ofi_check_msg(p, len, OFI_RANKS, OFI_MAX_MEDIUM, &v) == NULL) {
        struct gexc_ofi_hdr h;
        memset(&h, 0, sizeof h);
        memcpy(&h, p, len < sizeof h ? len : sizeof h);
        CHECK(h.magic == GEXC_OFI_HDR_MAGIC && h.src_rank < OFI_RANKS);
        CHECK(h.kind <= GEXC_OFI_K_HELLO && h.nargs <= GEXC_OFI_MAX_ARGS);
        CHECK(v.args_off >= GEXC_OFI_HDR_SHORT && v.args_off + 4u * h.nargs <= v.payload_off);
        CHECK(v.payload_off <= len);
        touch(p + v.args_off, 4u * h.nargs);
        if (h.kind == GEXC_OFI_K_MEDIUM) {
            CHECK(v.args_off == GEXC_OFI_HDR_MEDIUM && h.nbytes <= OFI_MAX_MEDIUM);
            CHECK(v.payload_off + h.nbytes <= len);
            touch(p + v.payload_off, h.nbytes);
        } else if (h.kind == GEXC_OFI_K_LONG || h.kind == GEXC_OFI_K_LONGDATA) {
            CHECK(v.args_off == GEXC_OFI_HDR_LONG && v.copy_len == h.chunk_len);
            CHECK(v.payload_off + v.copy_len <= len);
            if (h.kind == GEXC_OFI_K_LONG) CHECK(v.copy_len <= h.nbytes);
            touch(p + v.payload_off, v.copy_len);
        }
    }
    free(p);
}

#define UCX_MAX_LONG 65536u

static void ucx_message(const uint8_t *data, size_t size)
{
    if (size < 2) return;
    const size_t length = (size_t)data[0] | (size_t)data[1] << 8;   /* the payload's */
    const size_t hlen = size - 2;
    unsigned char *hdr = malloc(hlen ? hlen : 1);   /* exactly the header UCX delivers */
    if (!hdr) return;
    memcpy(hdr, data + 2, hlen);
    struct gexc_ucx_hdr h;
    if (gexc_ucx_check_msg(hdr, hlen, length, OFI_RANKS, OFI_MAX_MEDIUM, UCX_MAX_LONG, &h) ==
        NULL) {
        CHECK(hlen == gexc_ucx_hdr_len(h.nargs) && h.nargs <= GEXC_UCX_MAX_ARGS);
        CHECK(h.src_rank < OFI_RANKS && h.category <= GEXC_UCX_RKEY);
        if (h.category == GEX_CONDUIT_AM_SHORT) CHECK(length == 0);
        if (h.category == GEX_CONDUIT_AM_MEDIUM) CHECK(length <= OFI_MAX_MEDIUM);
        if (h.category == GEX_CONDUIT_AM_LONG) CHECK(length <= UCX_MAX_LONG);
        if (h.category == GEXC_UCX_RKEY) CHECK(h.nargs == 2 && length && length <= 65536);
        /* the credits a Request took, which the receiver returns (ucx_internal.h) */
        CHECK(h.is_request ? h.cost >= 1 && h.cost <= 65536 && h.category <= GEX_CONDUIT_AM_LONG
                           : h.cost == 0);
        touch((const unsigned char *)h.args, 4u * h.nargs);
    }
    free(hdr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536 + 1) return 0;
    const unsigned which = size ? (data[0] >> 1) & 3u : 0;
    if (which == 1) {
        ofi_message(data + 1, size - 1);
        return 0;
    }
    if (which == 2) {
        ucx_message(data + 1, size - 1);
        return 0;
    }
    if (size < 9) return 0;
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
