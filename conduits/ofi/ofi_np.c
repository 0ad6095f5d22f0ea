/*
 * ofi_np.c: negotiated-payload AMs on the ofi conduit (conduit ABI 1.1:
 * am_prepare / am_commit / am_cancel, GEX_CONDUIT_CAP_NPAM_MEDIUM and
 * GEX_CONDUIT_CAP_NPAM_LONG).  See docs/ofi.md, "Negotiated payload".
 *
 * A Prepare reserves what the plain send path reserves just before it
 * builds a message: a request credit (requests only) and one of the
 * conduit's send buffers (registered with the provider when it wants
 * FI_MR_LOCAL).  Without a client buffer the payload area of that send
 * buffer, where the message will carry it, is handed out, so the client
 * writes its payload straight into the message and Commit adds only the
 * header and the arguments in front of it: no copy.  That area is 16-byte
 * aligned ("suitably aligned to hold any data type", spec): payloads sit at
 * 16-byte offsets in messages, send buffers at 64-byte strides
 * (ofi_internal.h).  The message format is the plain one: the receiver sees
 * no difference.
 *
 * Mediums.  With a client buffer the payload is copied once into the send
 * buffer at Commit, as a plain Medium is.
 *
 * Longs.  A Long that fits one message (payload up to c->chunk, which is
 * also MaxLongReply) travels as the plain single-message Long does: the
 * receiver copies the payload to dest_addr and runs the handler.  So a
 * library-buffer Long is offered min(most, chunk) bytes of a send buffer,
 * and Commit fills in the header (dest_addr, nbytes, chunk_len) and sends
 * it.  When the destination turns out at Commit to be mapped here (PSHM,
 * same host), the payload is copied straight to it and only the header
 * travels, as the plain send does: never worse than a fixed-payload Long.
 * Declined with GEX_CONDUIT_ENOTSUP (libgex-am's reference path then
 * serves the AM: a fixed-payload Long at Commit) are
 *  - client buffers: the Commit of one is exactly a fixed-payload Long of
 *    that buffer, which the reference path does with all of the plain
 *    send's means (pieces, RMA into published segments, mapped
 *    destinations); a send buffer would only add a copy and cap the size;
 *  - a least_payload above chunk (not one message).  libgex-am's
 *    LEAST_ALLOC limit for Longs is its own buffer, at most MaxLongReply
 *    = chunk on this conduit, so this is a safety net, not a common case.
 *
 * The spec allows no communication between Prepare and Commit on the
 * calling thread, so holding a send buffer (and a credit) that long cannot
 * block this thread; other threads wait for buffers as they already do.
 * A Reply's Prepare takes no credit and waits for a send buffer only by
 * driving the provider's progress, as a plain reply does (ofi_internal.h).
 */
#include "ofi_internal.h"

#include <string.h>

/* np->priv: [0] the send buffer, [1] the destination jobrank, [2] is_request,
 * [3] nargs as prepared (it fixes where the payload sits in the message)
 * plus the category << 8. */
enum { NP_TB = 0, NP_DST = 1, NP_REQ = 2, NP_SHAPE = 3 };

static inline uintptr_t np_shape(const struct gex_conduit_am *m)
{
    return (uintptr_t)m->nargs | (uintptr_t)m->category << 8;
}

int gexc_ofi_am_prepare(struct gex_conduit *c, gex_Rank_t dst_jobrank, void *reply_ctx,
                        const struct gex_conduit_am *m, size_t least, size_t most,
                        gex_Flags_t flags, struct gex_conduit_np *np)
{
    if (GEXC_OFI_UNLIKELY(!m || !np)) return GEX_CONDUIT_EINVAL;
    const int is_req = m->is_request != 0, imm = (flags & GEX_FLAG_IMMEDIATE) != 0;
    size_t cap;   /* the most one send buffer carries for this AM */
    if (m->category == GEX_CONDUIT_AM_MEDIUM) {
        cap = c->max_medium;
        if (GEXC_OFI_UNLIKELY(least > cap)) return GEX_CONDUIT_EINVAL;
    } else if (m->category == GEX_CONDUIT_AM_LONG) {
        if (GEXC_OFI_UNLIKELY(least > (is_req ? c->max_long : c->max_long_reply)))
            return GEX_CONDUIT_EINVAL;
        cap = c->chunk;
        if (m->payload || least > cap) return GEX_CONDUIT_ENOTSUP;   /* file comment */
    } else {
        return GEX_CONDUIT_ENOTSUP;
    }
    if (GEXC_OFI_UNLIKELY(m->nargs > GEXC_OFI_MAX_ARGS || least > most))
        return GEX_CONDUIT_EINVAL;
    gex_Rank_t dst;
    if (is_req) {
        dst = dst_jobrank;
    } else {
        const uintptr_t v = (uintptr_t)reply_ctx - 1;   /* see gexc_ofi_reply_ctx() */
        if (GEXC_OFI_UNLIKELY(v >= c->n)) return GEX_CONDUIT_EINVAL;
        dst = (gex_Rank_t)v;
    }
    if (GEXC_OFI_UNLIKELY(dst >= c->n)) return GEX_CONDUIT_EINVAL;

    if (is_req && !gexc_ofi_take_credits(c, dst, 1, imm)) return GEX_CONDUIT_EAGAIN;
    struct gexc_ofi_txbuf *tb = gexc_ofi_take_txbuf(c, is_req, imm);
    if (!tb) {
        if (is_req) gexc_ofi_give_credits(c, dst, 1);
        return GEX_CONDUIT_EAGAIN;
    }
    /* gexc_ofi_kind values are the conduit's categories */
    const size_t poff = gexc_ofi_payload_off(m->category, m->nargs);
    np->buf = m->payload ? (void *)(uintptr_t)m->payload : tb->data + poff;
    np->size = most < cap ? most : cap;
    np->priv[NP_TB] = (uintptr_t)tb;
    np->priv[NP_DST] = dst;
    np->priv[NP_REQ] = (uintptr_t)is_req;
    np->priv[NP_SHAPE] = np_shape(m);
    return GEX_CONDUIT_OK;
}

/* Commit of a Long prepared in send buffer tb (its payload in place). */
static int np_commit_long(struct gex_conduit *c, struct gexc_ofi_txbuf *tb, gex_Rank_t dst,
                          int is_req, const struct gex_conduit_am *m, int imm)
{
    struct gexc_ofi_out o = {
        .kind = GEXC_OFI_K_LONG, .is_req = is_req, .handler = m->handler, .nargs = m->nargs,
        .src_ep = m->src_ep, .dst_ep = m->dst_ep, .args = m->args,
        .nbytes = (uint32_t)m->nbytes, .chunk_len = (uint32_t)m->nbytes, .long_id = 0,
        .dest = (uint64_t)(uintptr_t)m->dest_addr, .payload = m->payload, .plen = m->nbytes,
    };
    void *local = NULL;
    if (m->nbytes && c->use_shm_long)
        local = c->host.peer_local_addr(dst, m->dst_ep, m->dest_addr, m->nbytes);
    if (local) {
        /* Mapped here: copy to the destination and send only the header,
         * as the plain send does.  Once copied the send no longer refuses
         * (a refused IMMEDIATE Commit must have written nothing). */
        memcpy(local, m->payload, m->nbytes);   /* a send buffer never overlaps a segment */
        o.chunk_len = 0;
        o.payload = NULL;
        o.plen = 0;
        imm = 0;
    }
    gexc_ofi_build(c, tb->data, &o);   /* header and args only when the payload is in place */
    return gexc_ofi_transmit(c, dst, tb->data, gexc_ofi_out_len(&o), is_req, imm);
}

int gexc_ofi_am_commit(struct gex_conduit *c, struct gex_conduit_np *np,
                       const struct gex_conduit_am *m, gex_Flags_t flags)
{
    struct gexc_ofi_txbuf *tb = (struct gexc_ofi_txbuf *)np->priv[NP_TB];
    const gex_Rank_t dst = (gex_Rank_t)np->priv[NP_DST];
    const int is_req = (int)np->priv[NP_REQ], imm = (flags & GEX_FLAG_IMMEDIATE) != 0;
    if (GEXC_OFI_UNLIKELY(!tb || np_shape(m) != np->priv[NP_SHAPE] || m->nbytes > np->size))
        return GEX_CONDUIT_EINVAL;
    int rc;
    if (m->category == GEX_CONDUIT_AM_LONG) {
        rc = np_commit_long(c, tb, dst, is_req, m, imm);
    } else {
        const struct gexc_ofi_out o = {
            .kind = GEXC_OFI_K_MEDIUM, .is_req = is_req, .handler = m->handler,
            .nargs = m->nargs, .src_ep = m->src_ep, .dst_ep = m->dst_ep, .args = m->args,
            .nbytes = (uint32_t)m->nbytes, .payload = m->payload, .plen = m->nbytes,
        };
        gexc_ofi_build(c, tb->data, &o);   /* header and args only when the payload is in place */
        rc = gexc_ofi_transmit(c, dst, tb->data, gexc_ofi_out_len(&o), is_req, imm);
    }
    if (rc != GEX_CONDUIT_OK) return rc;   /* EAGAIN: the reservation stays */
    np->priv[NP_TB] = 0;
    gexc_ofi_txbuf_put(c, tb);
    return GEX_CONDUIT_OK;
}

int gexc_ofi_am_cancel(struct gex_conduit *c, struct gex_conduit_np *np)
{
    struct gexc_ofi_txbuf *tb = (struct gexc_ofi_txbuf *)np->priv[NP_TB];
    if (GEXC_OFI_UNLIKELY(!tb)) return GEX_CONDUIT_EINVAL;
    np->priv[NP_TB] = 0;
    gexc_ofi_txbuf_put(c, tb);
    if (np->priv[NP_REQ]) gexc_ofi_give_credits(c, (gex_Rank_t)np->priv[NP_DST], 1);
    return GEX_CONDUIT_OK;
}
