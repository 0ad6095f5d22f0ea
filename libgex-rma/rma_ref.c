/*
 * rma_ref.c: the reference implementation of contiguous RMA over Active
 * Messages, for peers that neither a direct copy nor a conduit's native RMA
 * reaches (rma_internal.h).  It needs only what every conduit offers (AM
 * Short and Long, request and reply) and goes through libgex-am's public
 * calls, so it never duplicates AM code.
 *
 * Put: the payload travels in AM Long requests of at most put_chunk bytes
 * (gex_AM_MaxRequestLong unless GEX_RMA_PUT_CHUNK is smaller), all issued
 * back to back before any wait (pipelined).  Each lands at its final
 * address; its handler answers with a Short reply that decrements the
 * initiator's completion counter, whose address travels as two 32-bit AM
 * arguments.  The counter is the blocking call's stack word, the NB root
 * event's pending count, or the thread's NBI (or access region) count,
 * pre-loaded with the number of chunks.
 *
 * Get: a Short request per chunk of at most get_chunk bytes carries (src,
 * nbytes, dest, counter); the target answers with a Long reply straight
 * into the initiator's dest (a conduit delivers a Reply Long to any address
 * of the requester: smp copies it directly or through its ring) and the
 * reply handler, which runs once the bytes are in place, decrements the
 * counter.
 *
 * Local completion of a put: the conduit ABI returns from an AM injection
 * only once the payload may be reused, so the source is free as soon as
 * the last chunk is injected, whatever lc_opt asked for.
 *
 * GEX_FLAG_IMMEDIATE: passed to the first chunk's AM only.  If the conduit
 * refuses it, nothing was sent and the counters are restored, which is the
 * spec's "no op".  Later chunks wait for resources: once the first chunk is
 * on its way the operation cannot be unwound, and IMMEDIATE permits a no-op
 * but never requires one (spec: Extended API, NOTE 1).
 */
#include "rma_internal.h"

/* ---- Handlers ---- */

#ifdef GEX_DEBUG
/* Target-side second line of the bounds check (the initiator checked what
 * it knows of our segment): the range must be inside the bound segment of
 * the EP the AM arrived at. */
static void check_own_segment(gex_Token_t t, const char *op, const void *addr, size_t n)
{
    const struct gexi_token *tok = gexi_token_of(t);
    const struct gexi_segment *s = tok->ep->segment;
    uintptr_t a = (uintptr_t)addr;
    if (!s || a < (uintptr_t)s->addr || n > s->size || a - (uintptr_t)s->addr > s->size - n)
        gexi_fatal("RMA %s from rank %u: [%p, %p) (%zu bytes) is outside endpoint %u's bound "
                   "segment %s[%p, %p)", op, (unsigned)tok->src_jobrank, addr,
                   (const void *)(a + n), n, (unsigned)tok->ep->index, s ? "" : "(none) ",
                   s ? s->addr : NULL, s ? (void *)((uintptr_t)s->addr + s->size) : NULL);
}
#endif

static void h_put(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
#ifdef GEX_DEBUG
    check_own_segment(t, "put", buf, n);
#endif
    (void)buf, (void)n;
    gex_AM_ReplyShort2(t, GEXI_RMA_H_PUT_ACK, 0, clo, chi);
}

static void h_put_ack(gex_Token_t t, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    (void)t;
    gexi_counter_done(gexi_arg_ptr(clo, chi), 1);
}

static void h_get(gex_Token_t t, gex_AM_Arg_t slo, gex_AM_Arg_t shi, gex_AM_Arg_t len,
                  gex_AM_Arg_t dlo, gex_AM_Arg_t dhi, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    void *src = gexi_arg_ptr(slo, shi);
    size_t n = (uint32_t)len;
#ifdef GEX_DEBUG
    check_own_segment(t, "get", src, n);
#endif
    gex_AM_ReplyLong2(t, GEXI_RMA_H_GET_REP, src, n, gexi_arg_ptr(dlo, dhi), GEX_EVENT_NOW, 0, clo,
                      chi);
}

static void h_get_rep(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    (void)t, (void)buf, (void)n;
    gexi_counter_done(gexi_arg_ptr(clo, chi), 1);
}

int gexi_rma_ref_register(void)
{
    gexi_register_internal_handler(GEXI_RMA_H_PUT, (gex_AM_Fn_t)h_put,
                                   GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, "gexi_rma_put");
    gexi_register_internal_handler(GEXI_RMA_H_PUT_ACK, (gex_AM_Fn_t)h_put_ack,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, "gexi_rma_put_ack");
    gexi_register_internal_handler(GEXI_RMA_H_GET, (gex_AM_Fn_t)h_get,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 7, "gexi_rma_get");
    gexi_register_internal_handler(GEXI_RMA_H_GET_REP, (gex_AM_Fn_t)h_get_rep,
                                   GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, "gexi_rma_get_rep");
    return GASNET_OK;
}

/* Completion counters: gexi_rma_counter_* in rma_internal.h. */

/* ---- Put ---- */

gex_Event_t gexi_rma_ref_put(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                             size_t n, gex_Event_t *lc_opt, gex_Flags_t flags,
                             enum gexi_rma_sync sync)
{
    const size_t chunk = gexi_rma.put_chunk;
    const uint32_t count = gexi_rma_chunks_of(n, chunk, "gex_RMA_Put");
    _Atomic uint32_t stack_ctr, *ctr;
    struct gexi_event *ev = gexi_rma_counter_setup(sync, GEX_EC_PUT, count, &stack_ctr, &ctr);
    const gex_AM_Arg_t clo = gexi_arg_lo(ctr), chi = gexi_arg_hi(ctr);
    const char *s = src;
    char *d = dest;

    size_t len = n < chunk ? n : chunk;
    if (gex_AM_RequestLong2(tm, rank, GEXI_RMA_H_PUT, s, len, d, GEX_EVENT_NOW,
                            flags & GEX_FLAG_IMMEDIATE, clo, chi))
        return gexi_rma_counter_undo(sync, ev, ctr, count);
    for (size_t off = len; off < n; off += len) {
        len = n - off < chunk ? n - off : chunk;
        gex_AM_RequestLong2(tm, rank, GEXI_RMA_H_PUT, s + off, len, d + off, GEX_EVENT_NOW, 0,
                            clo, chi);
    }
    /* Every injection has returned: the source is locally complete.  An LC
     * leaf requested by pointer is therefore born complete; the root keeps
     * a (complete) leaf so gex_Event_QueryLeaf works on it. */
    if ((uintptr_t)lc_opt > (uintptr_t)GEX_EVENT_GROUP) {
        *lc_opt = GEX_EVENT_INVALID;
        if (ev) ev->h.flags |= GEXI_EVF_HAS_LC;
    }
    return gexi_rma_counter_finish(sync, ev, ctr);
}

/* ---- Get ---- */

gex_Event_t gexi_rma_ref_get(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t n,
                             gex_Flags_t flags, enum gexi_rma_sync sync)
{
    const size_t chunk = gexi_rma.get_chunk;
    const uint32_t count = gexi_rma_chunks_of(n, chunk, "gex_RMA_Get");
    _Atomic uint32_t stack_ctr, *ctr;
    struct gexi_event *ev = gexi_rma_counter_setup(sync, GEX_EC_GET, count, &stack_ctr, &ctr);
    const gex_AM_Arg_t clo = gexi_arg_lo(ctr), chi = gexi_arg_hi(ctr);
    char *s = src, *d = dest;

    size_t len = n < chunk ? n : chunk;
    if (gex_AM_RequestShort7(tm, rank, GEXI_RMA_H_GET, flags & GEX_FLAG_IMMEDIATE, gexi_arg_lo(s),
                             gexi_arg_hi(s), (gex_AM_Arg_t)(uint32_t)len, gexi_arg_lo(d),
                             gexi_arg_hi(d), clo, chi))
        return gexi_rma_counter_undo(sync, ev, ctr, count);
    for (size_t off = len; off < n; off += len) {
        len = n - off < chunk ? n - off : chunk;
        gex_AM_RequestShort7(tm, rank, GEXI_RMA_H_GET, 0, gexi_arg_lo(s + off),
                             gexi_arg_hi(s + off), (gex_AM_Arg_t)(uint32_t)len,
                             gexi_arg_lo(d + off), gexi_arg_hi(d + off), clo, chi);
    }
    return gexi_rma_counter_finish(sync, ev, ctr);
}
