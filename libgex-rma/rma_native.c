/*
 * rma_native.c: the dispatch-table slot for a conduit's native RMA (conduit
 * ABI 1.2, GEX_CONDUIT_CAP_RMA: rma_put / rma_get into peers' registered
 * segments, no handler at the target).  rma_bind.c puts it in the table
 * when the conduit offers it and GEX_FORCE_REFERENCE does not name rma.
 *
 * The conduit signals completion by decrementing at most two counters once
 * each (struct gex_conduit_cpl), from inside whatever call makes progress.
 * They are the same counters the reference path uses (rma_ref.c), so every
 * synchronization form works as there:
 *   blocking      rc: a word on this stack; wait (polling) until it is 0;
 *   NB            rc: the root event's pending count; lc (pointer lc_opt):
 *                 the event's LC leaf;
 *   NBI           rc: the thread's (or access region's) NBI count;
 *                 lc (GEX_EVENT_GROUP): the NBI local-completion count;
 *   lc_opt NOW    lc: a word on this stack, waited for before returning;
 *   lc_opt DEFER  no lc: the source stays untouched until the operation
 *                 completes, which the caller syncs anyway.
 * A put's local completion may come before its remote one (the conduit
 * copies small sources) or with it.
 *
 * Fallback: the conduit answers GEX_CONDUIT_EINVAL when the remote range is
 * in no segment it knows of (a segment it could not register, one published
 * over a path that did not reach it); the operation then takes the
 * reference path, per call.  GEX_FLAG_IMMEDIATE: the conduit's EAGAIN
 * means nothing was done, and the counters are restored (GEX_EVENT_NO_OP).
 */
#include "rma_internal.h"

static inline int lc_is_pointer(gex_Event_t *lc_opt)
{
    return (uintptr_t)lc_opt > (uintptr_t)GEX_EVENT_GROUP;
}

/* Waits, polling, until *ctr is 0 (a blocking rc, or an lc NOW). */
static inline void wait_zero(_Atomic uint32_t *ctr)
{
    unsigned spins = 0;
    while (atomic_load_explicit(ctr, memory_order_acquire) != 0) {
        if (gexi_poll() > 0) spins = 0;
        gexi_backoff(&spins);
    }
}

gex_Event_t gexi_rma_native_put(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                size_t n, gex_Event_t *lc_opt, gex_Flags_t flags,
                                enum gexi_rma_sync sync)
{
    /* a small put: one AM round trip instead of put + flush (rma_bind.c) */
    if (n <= gexi_rma.put_am_max)
        return gexi_rma_ref_put(tm, rank, dest, src, n, lc_opt, flags, sync);
    gex_Rank_t jr;
    gex_EP_Index_t ep;
    gexi_tm_peer(tm, rank, &jr, &ep);
    const gex_EP_Index_t local_ep = gexi_tm_local_ep(tm)->index;
    _Atomic uint32_t rc_word, lc_word;
    struct gexi_event *ev = NULL;
    _Atomic uint32_t *nbi_lc = NULL;
    struct gex_conduit_cpl cpl = { NULL, NULL };

    switch (sync) {
    case GEXI_RMA_BLOCKING:
        atomic_init(&rc_word, 1);
        cpl.rc = &rc_word;
        break;
    case GEXI_RMA_NB:
        ev = gexi_event_new(GEX_EC_PUT, 1, lc_is_pointer(lc_opt) ? 1 : 0);
        cpl.rc = &ev->h.pending;
        if (lc_is_pointer(lc_opt)) cpl.lc = &ev->lc.pending;
        break;
    default:
        cpl.rc = gexi_nbi_counter(GEX_EC_PUT);
        atomic_fetch_add_explicit(cpl.rc, 1, memory_order_relaxed);
        if (lc_opt == GEX_EVENT_GROUP) {
            nbi_lc = gexi_nbi_lc_counter();
            atomic_fetch_add_explicit(nbi_lc, 1, memory_order_relaxed);
            cpl.lc = nbi_lc;
        }
        break;
    }
    /* lc NOW (non-blocking calls): our own word, waited for below */
    if (sync != GEXI_RMA_BLOCKING && lc_opt == GEX_EVENT_NOW) {
        atomic_init(&lc_word, 1);
        cpl.lc = &lc_word;
    }

    int st = gexi_core.ops->rma_put(gexi_core.conduit, local_ep, jr, ep, dest, src, n, &cpl,
                                    flags);
    if (GEXI_UNLIKELY(st != GEX_CONDUIT_OK)) {
        /* nothing was started: restore the counters */
        if (ev) gexi_event_discard(ev);
        if (sync == GEXI_RMA_NBI) {
            atomic_fetch_sub_explicit(cpl.rc, 1, memory_order_relaxed);
            if (nbi_lc) atomic_fetch_sub_explicit(nbi_lc, 1, memory_order_relaxed);
        }
        if (st == GEX_CONDUIT_EAGAIN) return GEX_EVENT_NO_OP;
        return gexi_rma_ref_put(tm, rank, dest, src, n, lc_opt, flags, sync);
    }
    if (sync == GEXI_RMA_BLOCKING) {
        wait_zero(&rc_word);
        return GEX_EVENT_INVALID;
    }
    if (lc_opt == GEX_EVENT_NOW) wait_zero(&lc_word);
    else if (lc_is_pointer(lc_opt)) *lc_opt = gexi_event_lc_handle(ev);
    return ev ? gexi_event_handle(ev) : GEX_EVENT_INVALID;
}

gex_Event_t gexi_rma_native_get(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t n,
                                gex_Flags_t flags, enum gexi_rma_sync sync)
{
    gex_Rank_t jr;
    gex_EP_Index_t ep;
    gexi_tm_peer(tm, rank, &jr, &ep);
    const gex_EP_Index_t local_ep = gexi_tm_local_ep(tm)->index;
    _Atomic uint32_t rc_word;
    struct gexi_event *ev = NULL;
    struct gex_conduit_cpl cpl = { NULL, NULL };

    switch (sync) {
    case GEXI_RMA_BLOCKING:
        atomic_init(&rc_word, 1);
        cpl.rc = &rc_word;
        break;
    case GEXI_RMA_NB:
        ev = gexi_event_new(GEX_EC_GET, 1, 0);
        cpl.rc = &ev->h.pending;
        break;
    default:
        cpl.rc = gexi_nbi_counter(GEX_EC_GET);
        atomic_fetch_add_explicit(cpl.rc, 1, memory_order_relaxed);
        break;
    }
    int st = gexi_core.ops->rma_get(gexi_core.conduit, local_ep, dest, jr, ep, src, n, &cpl,
                                    flags);
    if (GEXI_UNLIKELY(st != GEX_CONDUIT_OK)) {
        if (ev) gexi_event_discard(ev);
        if (sync == GEXI_RMA_NBI) atomic_fetch_sub_explicit(cpl.rc, 1, memory_order_relaxed);
        if (st == GEX_CONDUIT_EAGAIN) return GEX_EVENT_NO_OP;
        return gexi_rma_ref_get(tm, dest, rank, src, n, flags, sync);
    }
    if (sync == GEXI_RMA_BLOCKING) {
        wait_zero(&rc_word);
        return GEX_EVENT_INVALID;
    }
    return ev ? gexi_event_handle(ev) : GEX_EVENT_INVALID;
}
