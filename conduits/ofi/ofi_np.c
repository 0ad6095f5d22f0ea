/*
 * ofi_np.c: negotiated-payload Mediums on the ofi conduit (conduit ABI 1.1:
 * am_prepare / am_commit / am_cancel, GEX_CONDUIT_CAP_NPAM_MEDIUM).  See
 * docs/ofi.md, "Negotiated payload".
 *
 * A Prepare reserves what the plain send path reserves just before it
 * builds a message: a request credit (requests only) and one of the
 * conduit's send buffers (registered with the provider when it wants
 * FI_MR_LOCAL).  Without a client buffer the payload area of that send
 * buffer, where the message will carry it, is handed out, so the client
 * writes its payload straight into the message and Commit adds only the
 * header and the arguments in front of it: no copy.  With a client buffer
 * the payload is copied once into the send buffer at Commit, as a plain
 * Medium is.  The message format is the plain Medium's: the receiver sees
 * no difference.
 *
 * The spec allows no communication between Prepare and Commit on the
 * calling thread, so holding a send buffer (and a credit) that long cannot
 * block this thread; other threads wait for buffers as they already do.
 * Longs keep libgex-am's reference code (no CAP_NPAM_LONG): a Long's
 * payload lands at the destination address, which a send buffer is not.
 */
#include "ofi_internal.h"

#include <string.h>

/* np->priv: [0] the send buffer, [1] the destination jobrank, [2] is_request,
 * [3] nargs as prepared (it fixes where the payload sits in the message). */
enum { NP_TB = 0, NP_DST = 1, NP_REQ = 2, NP_NARGS = 3 };

int gexc_ofi_am_prepare(struct gex_conduit *c, gex_Rank_t dst_jobrank, void *reply_ctx,
                        const struct gex_conduit_am *m, size_t least, size_t most,
                        gex_Flags_t flags, struct gex_conduit_np *np)
{
    if (GEXC_OFI_UNLIKELY(!m || !np)) return GEX_CONDUIT_EINVAL;
    if (m->category != GEX_CONDUIT_AM_MEDIUM) return GEX_CONDUIT_ENOTSUP;
    if (GEXC_OFI_UNLIKELY(m->nargs > GEXC_OFI_MAX_ARGS || least > c->max_medium ||
                          least > most))
        return GEX_CONDUIT_EINVAL;
    const int is_req = m->is_request != 0, imm = (flags & GEX_FLAG_IMMEDIATE) != 0;
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
    const size_t poff = gexc_ofi_payload_off(GEXC_OFI_K_MEDIUM, m->nargs);
    np->buf = m->payload ? (void *)(uintptr_t)m->payload : tb->data + poff;
    np->size = most < c->max_medium ? most : c->max_medium;
    np->priv[NP_TB] = (uintptr_t)tb;
    np->priv[NP_DST] = dst;
    np->priv[NP_REQ] = (uintptr_t)is_req;
    np->priv[NP_NARGS] = m->nargs;
    return GEX_CONDUIT_OK;
}

int gexc_ofi_am_commit(struct gex_conduit *c, struct gex_conduit_np *np,
                       const struct gex_conduit_am *m, gex_Flags_t flags)
{
    struct gexc_ofi_txbuf *tb = (struct gexc_ofi_txbuf *)np->priv[NP_TB];
    const gex_Rank_t dst = (gex_Rank_t)np->priv[NP_DST];
    const int is_req = (int)np->priv[NP_REQ];
    if (GEXC_OFI_UNLIKELY(!tb || m->nargs != np->priv[NP_NARGS] || m->nbytes > np->size ||
                          m->category != GEX_CONDUIT_AM_MEDIUM))
        return GEX_CONDUIT_EINVAL;
    const struct gexc_ofi_out o = {
        .kind = GEXC_OFI_K_MEDIUM, .is_req = is_req, .handler = m->handler, .nargs = m->nargs,
        .src_ep = m->src_ep, .dst_ep = m->dst_ep, .args = m->args, .nbytes = (uint32_t)m->nbytes,
        .payload = m->payload, .plen = m->nbytes,
    };
    gexc_ofi_build(c, tb->data, &o);   /* header and args only when the payload is in place */
    int rc = gexc_ofi_transmit(c, dst, tb->data, gexc_ofi_out_len(&o), is_req,
                               (flags & GEX_FLAG_IMMEDIATE) != 0);
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
