/*
 * ofi_wire.h: the ofi conduit's AM message format and the check every
 * received message passes before anything in it is used.  Apart from
 * ofi_internal.h (which needs libfabric's headers) so that the fuzz harness
 * tests/fuzz/fuzz_am_header.c can compile it alone.  Internal.
 */
#ifndef GEXC_OFI_WIRE_H
#define GEXC_OFI_WIRE_H

#include <gex/conduit.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many arguments per AM */
#define GEXC_OFI_MAX_ARGS 16

/* ---- Message format ----
 * Every message starts with this header; Short messages end at nbytes
 * (20 bytes), Mediums at chunk_len (28), Longs and pieces carry it whole.
 * Args follow at the header size rounded up to 8, the payload at the end of
 * the args rounded up to 16 (so that a send buffer handed out for a
 * negotiated payload, ofi_np.c, is aligned for any type; send buffers sit
 * at 64-byte strides), and the message length is rounded up to 8 so that
 * messages packed into a multi-receive buffer stay 8-aligned (a received
 * Medium payload is 8-aligned). */
enum gexc_ofi_kind {
    GEXC_OFI_K_SHORT = GEX_CONDUIT_AM_SHORT,
    GEXC_OFI_K_MEDIUM = GEX_CONDUIT_AM_MEDIUM,
    GEXC_OFI_K_LONG = GEX_CONDUIT_AM_LONG,
    GEXC_OFI_K_LONGDATA = 3,   /* a non-final piece of a Long */
    GEXC_OFI_K_CREDIT = 4,     /* credits only, no handler */
    GEXC_OFI_K_HELLO = 5       /* init: connection set-up, no handler */
};

struct gexc_ofi_hdr {
    uint8_t kind;
    uint8_t is_request;
    uint8_t handler;
    uint8_t nargs;
    uint16_t credits;      /* request credits returned to the receiver */
    uint16_t magic;        /* GEXC_OFI_HDR_MAGIC: a cheap check against garbage */
    uint32_t src_rank;
    uint32_t src_ep;
    uint32_t dst_ep;
    /* Medium and Long only */
    uint32_t nbytes;       /* Medium: payload size; Long: total payload size */
    uint32_t chunk_len;    /* Long/LONGDATA: payload bytes in this message */
    uint32_t long_id;      /* Long in pieces: the sender's number for it (else 0) */
    /* Long and LONGDATA only: receiver's address (LONGDATA: of this piece) */
    uint64_t dest_addr;
};
#define GEXC_OFI_HDR_MAGIC   0x4f46u   /* "OF" */
#define GEXC_OFI_HDR_SHORT   20u
#define GEXC_OFI_HDR_MEDIUM  28u
#define GEXC_OFI_HDR_LONG    40u
_Static_assert(offsetof(struct gexc_ofi_hdr, nbytes) == GEXC_OFI_HDR_SHORT, "header layout");
_Static_assert(offsetof(struct gexc_ofi_hdr, long_id) == GEXC_OFI_HDR_MEDIUM, "header layout");
_Static_assert(sizeof(struct gexc_ofi_hdr) == GEXC_OFI_HDR_LONG, "header layout");
_Static_assert(sizeof(gex_conduit_arg_t) == 4, "args are 4 bytes");

static inline size_t gexc_ofi_align8(size_t x) { return (x + 7) & ~(size_t)7; }
static inline uint32_t gexc_ofi_hdr_size(unsigned kind)
{
    return kind == GEXC_OFI_K_SHORT || kind >= GEXC_OFI_K_CREDIT ? GEXC_OFI_HDR_SHORT
         : kind == GEXC_OFI_K_MEDIUM ? GEXC_OFI_HDR_MEDIUM : GEXC_OFI_HDR_LONG;
}
/* Offset of the payload in a message of `kind` with `nargs` arguments. */
static inline size_t gexc_ofi_payload_off(unsigned kind, unsigned nargs)
{
    const size_t end = gexc_ofi_hdr_size(kind) + 4u * nargs;
    return kind == GEXC_OFI_K_SHORT || kind >= GEXC_OFI_K_CREDIT ? gexc_ofi_align8(end)
                                                                  : (end + 15) & ~(size_t)15;
}

/* ---- Checking a received message before it is trusted ----
 * Pure: gexc_ofi_handle (ofi_am.c) and tests/fuzz/fuzz_am_header.c run
 * this same code on the len bytes at p (8-aligned) that arrived, in a job
 * of n ranks whose Mediums carry at most max_medium bytes. */
struct gexc_ofi_view {
    size_t args_off;      /* first argument */
    size_t payload_off;   /* Medium payload, or the Long piece (copy_len bytes) */
    uint32_t copy_len;    /* LONG, LONGDATA: payload bytes carried */
};

/* NULL and *v filled, or what is wrong.  On success the header, the args
 * and the Medium payload or Long piece lie within [p, p + len), and for a
 * Long the piece fits in the Long (chunk_len <= nbytes). */
static inline const char *gexc_ofi_check_msg(const unsigned char *p, size_t len, uint32_t n,
                                             size_t max_medium, struct gexc_ofi_view *v)
{
    const struct gexc_ofi_hdr *h = (const struct gexc_ofi_hdr *)p;
    if (len < GEXC_OFI_HDR_SHORT || h->magic != GEXC_OFI_HDR_MAGIC) return "no GEX header";
    const unsigned kind = h->kind, nargs = h->nargs;
    if (h->src_rank >= n || kind > GEXC_OFI_K_HELLO || nargs > GEXC_OFI_MAX_ARGS ||
        len < gexc_ofi_payload_off(kind, nargs))
        return "bad source, kind, argument count or length";
    const size_t poff = gexc_ofi_payload_off(kind, nargs);
    v->args_off = gexc_ofi_hdr_size(kind);
    v->payload_off = poff;
    v->copy_len = 0;
    switch (kind) {
    case GEXC_OFI_K_MEDIUM:
        if (h->nbytes > len - poff || h->nbytes > max_medium)
            return "Medium payload longer than its message";
        break;
    case GEXC_OFI_K_LONG:
        if (h->chunk_len > h->nbytes || h->chunk_len > len - poff)
            return "Long piece longer than its message";
        v->copy_len = h->chunk_len;
        break;
    case GEXC_OFI_K_LONGDATA:
        if (h->chunk_len > len - poff) return "Long piece longer than its message";
        v->copy_len = h->chunk_len;
        break;
    default:   /* SHORT, CREDIT, HELLO: the header and args only */
        break;
    }
    return NULL;
}

#endif /* GEXC_OFI_WIRE_H */
