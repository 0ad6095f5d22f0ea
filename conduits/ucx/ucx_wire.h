/*
 * ucx_wire.h: the ucx conduit's AM message header and the check every
 * received one passes before anything in it is used.  Apart from
 * ucx_internal.h (which needs UCX's headers) so that the fuzz harness
 * tests/fuzz/fuzz_am_header.c can compile it alone.  Internal.
 */
#ifndef GEXC_UCX_WIRE_H
#define GEXC_UCX_WIRE_H

#include <gex/conduit.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GEXC_UCX_MAX_ARGS 16

/* The UCP AM header of every message: the fields, then nargs args (only
 * gexc_ucx_hdr_len(nargs) bytes of it are sent). */
#define GEXC_UCX_CREDIT 3        /* category of a credit-only message (no handler) */
#define GEXC_UCX_RKEY 4          /* control: a packed remote key (ucx_rma.c; args[0..1]: its number) */
struct gexc_ucx_hdr {
    uint8_t category;        /* enum gex_conduit_am_category, or GEXC_UCX_CREDIT */
    uint8_t is_request;
    uint8_t handler;
    uint8_t nargs;
    gex_Rank_t src_rank;
    gex_EP_Index_t src_ep;
    gex_EP_Index_t dst_ep;
    uint32_t credits;        /* Request credits returned to the receiver (flow control) */
    uint32_t cost;           /* Request: the credits it took (1, more for a large Medium:
                                ucx_internal.h); 0 for everything else */
    uint64_t dest_addr;      /* Long: destination in the receiver's space */
    int32_t args[GEXC_UCX_MAX_ARGS];
};
#define gexc_ucx_hdr_len(nargs) \
    (offsetof(struct gexc_ucx_hdr, args) + (size_t)(nargs) * sizeof(int32_t))

/* Checks a received message: header_length bytes of header, length bytes
 * of payload, in a job of n ranks whose Mediums and Longs carry at most
 * max_medium and max_long bytes.  Returns NULL with the header copied into
 * *h (the args beyond nargs zeroed), or what is wrong.  The caller still
 * checks h->credits against its own flow-control state (src_rank < n). */
static inline const char *gexc_ucx_check_msg(const void *header, size_t header_length,
                                             size_t length, gex_Rank_t n, size_t max_medium,
                                             size_t max_long, struct gexc_ucx_hdr *h)
{
    if (header_length < gexc_ucx_hdr_len(0) || header_length > sizeof *h) return "header length";
    memset(h, 0, sizeof *h);
    memcpy(h, header, header_length);
    if (h->nargs > GEXC_UCX_MAX_ARGS || header_length != gexc_ucx_hdr_len(h->nargs) ||
        h->category > GEXC_UCX_RKEY || h->src_rank >= n)
        return "header fields";
    if ((h->category == GEX_CONDUIT_AM_SHORT && length) ||
        (h->category == GEX_CONDUIT_AM_MEDIUM && length > max_medium) ||
        (h->category == GEX_CONDUIT_AM_LONG && length > max_long))
        return "payload longer than the category allows";
    if (h->category == GEXC_UCX_RKEY && (h->nargs != 2 || !length || length > 65536))
        return "remote key message";
    if (h->is_request > 1 || (h->is_request && h->category > GEX_CONDUIT_AM_LONG) ||
        (h->is_request ? h->cost == 0 || h->cost > 65536 : h->cost != 0))
        return "request flag or credit cost";
    return NULL;
}

#endif /* GEXC_UCX_WIRE_H */
