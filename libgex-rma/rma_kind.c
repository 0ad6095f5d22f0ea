/*
 * rma_kind.c: contiguous RMA to and from device segments (memory kinds,
 * issue 9), the staging ("bounce buffer") reference path.
 *
 * A device segment (a segment of a kind other than GEX_MK_HOST, see
 * core_layer.h "Memory kinds") has addresses that fault on load and store:
 * its bytes move only through its kind's copy functions (copy_in: host ->
 * segment, copy_out: segment -> host).  So neither a direct copy (self, PSHM
 * bypass) nor an AM Long landing at the final address can touch it.  The
 * spec (Extended API NOTE 3/4) makes the local address a device address
 * exactly when the local EP has a bound device segment, and the remote one
 * when the remote EP's bound segment is a device segment; rma_api.c sends
 * here every operation where either side is one (only when core knows of
 * at least one device segment: gexi_mk_any_device()).
 *
 * Self (the target EP is in this process): done before returning, through
 * the copy functions, with a bounce buffer when both sides are device
 * memory.
 *
 * Peers: AM Mediums, whose payload lands in a buffer the handler reads.
 *   put: per chunk of at most the Medium limit (or GEX_MK_CHUNK bytes), the
 *        initiator stages its source (copy_out if device) into a bounce
 *        buffer and sends a Medium request; the target's handler copies the
 *        payload into place (copy_in if device, memcpy if host) and answers
 *        with a Short reply that decrements the initiator's counter.
 *   get: per chunk a Short request; the target's handler stages the source
 *        into a bounce buffer and answers with a Medium reply; the reply
 *        handler copies it to the destination (copy_in if the initiator's EP
 *        is bound to a device segment, else memcpy) and decrements the
 *        counter.
 * Completion counters work as in rma_ref.c (blocking stack word, NB root
 * event, NBI counter).  The source of a put is locally complete on return
 * (every chunk was copied into a Medium or a bounce buffer).
 *
 * Handler indices: the memory kinds range GEXI_HIDX_MK_BASE + 0..3 (the
 * code lives here because it is RMA over AM; libgex-mk registers no
 * handlers).
 */
#include "rma_internal.h"
#include <stdlib.h>

#define H_PUT     (GEXI_HIDX_MK_BASE + 0)  /* Medium request: payload -> dest, ack */
#define H_PUT_ACK (GEXI_HIDX_MK_BASE + 1)  /* Short reply: counter done */
#define H_GET     (GEXI_HIDX_MK_BASE + 2)  /* Short request -> Medium reply */
#define H_GET_REP (GEXI_HIDX_MK_BASE + 3)  /* Medium reply: payload -> dest, counter done */

static size_t kind_chunk;                  /* bytes per AM Medium */

/* A bounce buffer of n bytes: the caller's stack buffer when it is big
 * enough, else heap (freed with bounce_free). */
#define STACK_BOUNCE 4096
static void *bounce_get(size_t n, char *stack_buf)
{
    if (n <= STACK_BOUNCE) return stack_buf;
    void *p = malloc(n);
    if (!p) gexi_fatal("memory kinds: out of memory for a %zu-byte bounce buffer", n);
    return p;
}
static void bounce_free(void *p, char *stack_buf)
{
    if (p != stack_buf) free(p);
}

/* ---- Handlers ---- */

static void h_put(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dlo, gex_AM_Arg_t dhi,
                  gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    struct gexi_segment *s = gexi_token_of(t)->ep->segment;
    gexi_mk_copy_in(s, gexi_arg_ptr(dlo, dhi), buf, n, "gex_RMA_Put (target)");
    gex_AM_ReplyShort2(t, H_PUT_ACK, 0, clo, chi);
}

static void h_put_ack(gex_Token_t t, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    (void)t;
    gexi_counter_done(gexi_arg_ptr(clo, chi), 1);
}

static void h_get(gex_Token_t t, gex_AM_Arg_t slo, gex_AM_Arg_t shi, gex_AM_Arg_t len,
                  gex_AM_Arg_t dlo, gex_AM_Arg_t dhi, gex_AM_Arg_t clo, gex_AM_Arg_t chi,
                  gex_AM_Arg_t dest_dev)
{
    struct gexi_segment *s = gexi_token_of(t)->ep->segment;
    size_t n = (uint32_t)len;
    char stack_buf[STACK_BOUNCE];
    void *b = bounce_get(n, stack_buf);
    gexi_mk_copy_out(s, b, gexi_arg_ptr(slo, shi), n, "gex_RMA_Get (target)");
    gex_AM_ReplyMedium5(t, H_GET_REP, b, n, GEX_EVENT_NOW, 0, dlo, dhi, clo, chi, dest_dev);
    bounce_free(b, stack_buf);
}

static void h_get_rep(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dlo, gex_AM_Arg_t dhi,
                      gex_AM_Arg_t clo, gex_AM_Arg_t chi, gex_AM_Arg_t dest_dev)
{
    /* A reply arrives at the EP that sent the request; when dest is a
     * device address (NOTE 3) it is in that EP's bound segment.  Value
     * forms get into host memory whatever the EP: dest_dev says which. */
    struct gexi_segment *s = dest_dev ? gexi_token_of(t)->ep->segment : NULL;
    gexi_mk_copy_in(s, gexi_arg_ptr(dlo, dhi), buf, n, "gex_RMA_Get (initiator)");
    gexi_counter_done(gexi_arg_ptr(clo, chi), 1);
}

int gexi_rma_kind_register(void)
{
    size_t c = gexi_core.caps.am_max_medium;
    uint64_t v = gexi_getenv_size("GEX_MK_CHUNK", 0);
    kind_chunk = v && v < c ? (size_t)v : c;
    gexi_register_internal_handler(H_PUT, (gex_AM_Fn_t)h_put,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 4, "gexi_mk_put");
    gexi_register_internal_handler(H_PUT_ACK, (gex_AM_Fn_t)h_put_ack,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, "gexi_mk_put_ack");
    gexi_register_internal_handler(H_GET, (gex_AM_Fn_t)h_get,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 8, "gexi_mk_get");
    gexi_register_internal_handler(H_GET_REP, (gex_AM_Fn_t)h_get_rep,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 5, "gexi_mk_get_rep");
    return GASNET_OK;
}

size_t gexi_rma_kind_chunk(void) { return kind_chunk; }

/* ---- Which operations come here ---- */

int gexi_rma_kind_applies(gex_TM_t tm, gex_Rank_t jobrank, gex_EP_Index_t ep, int local_is_host)
{
    if (!local_is_host && gexi_mk_local_device_seg(gexi_tm_local_ep(tm)->index)) return 1;
    return gexi_mk_peer_is_device(jobrank, ep);
}

/* Completion counters: gexi_rma_counter_* in rma_internal.h. */

/* Self: [dst of ds] <- [src of ss] now (either NULL: host memory). */
static void self_copy(struct gexi_segment *ds, void *dst, struct gexi_segment *ss,
                      const void *src, size_t n, const char *func)
{
    if (!ss) {
        gexi_mk_copy_in(ds, dst, src, n, func);
        return;
    }
    if (!ds) {
        gexi_mk_copy_out(ss, dst, src, n, func);
        return;
    }
    char stack_buf[STACK_BOUNCE];
    size_t step = n < 65536 ? n : 65536;
    void *b = bounce_get(step, stack_buf);
    for (size_t off = 0; off < n; off += step) {
        size_t len = n - off < step ? n - off : step;
        gexi_mk_copy_out(ss, b, (const char *)src + off, len, func);
        gexi_mk_copy_in(ds, (char *)dst + off, b, len, func);
    }
    bounce_free(b, stack_buf);
}

/* ---- Put ---- */

gex_Event_t gexi_rma_kind_put(gex_TM_t tm, gex_Rank_t rank, gex_Rank_t jobrank,
                              gex_EP_Index_t ep, void *dest, const void *src, size_t n,
                              gex_Event_t *lc_opt, gex_Flags_t flags, enum gexi_rma_sync sync,
                              int local_is_host)
{
    struct gexi_segment *ls =
        local_is_host ? NULL : gexi_mk_local_device_seg(gexi_tm_local_ep(tm)->index);
    if ((uintptr_t)lc_opt > (uintptr_t)GEX_EVENT_GROUP) *lc_opt = GEX_EVENT_INVALID;
    if (jobrank == gexi_core.jobrank) {
        self_copy(gexi_mk_local_device_seg(ep), dest, ls, src, n, "gex_RMA_Put");
        return GEX_EVENT_INVALID;
    }
    if (ls) gexi_mk_check_range("gex_RMA_Put: src", ls, src, n);
    const uint32_t count = gexi_rma_chunks_of(n, kind_chunk, "gex_RMA_Put");
    _Atomic uint32_t stack_ctr, *ctr;
    struct gexi_event *ev = gexi_rma_counter_setup(sync, GEX_EC_PUT, count, &stack_ctr, &ctr);
    const gex_AM_Arg_t clo = gexi_arg_lo(ctr), chi = gexi_arg_hi(ctr);
    const size_t first = n < kind_chunk ? n : kind_chunk;
    char stack_buf[STACK_BOUNCE];
    void *b = ls ? bounce_get(first, stack_buf) : NULL;
    for (size_t off = 0, len; off < n; off += len) {
        len = n - off < kind_chunk ? n - off : kind_chunk;
        const void *payload = (const char *)src + off;
        if (ls) {
            gexi_mk_copy_out(ls, b, payload, len, "gex_RMA_Put");
            payload = b;
        }
        char *d = (char *)dest + off;
        if (gex_AM_RequestMedium4(tm, rank, H_PUT, payload, len, GEX_EVENT_NOW,
                                  off == 0 ? flags & GEX_FLAG_IMMEDIATE : 0, gexi_arg_lo(d),
                                  gexi_arg_hi(d), clo, chi)) {
            if (b) bounce_free(b, stack_buf);
            return gexi_rma_counter_undo(sync, ev, ctr, count);   /* IMMEDIATE refused chunk 0 */
        }
    }
    if (b) bounce_free(b, stack_buf);
    if (ev && (uintptr_t)lc_opt > (uintptr_t)GEX_EVENT_GROUP) ev->h.flags |= GEXI_EVF_HAS_LC;
    return gexi_rma_counter_finish(sync, ev, ctr);
}

/* ---- Get ---- */

gex_Event_t gexi_rma_kind_get(gex_TM_t tm, void *dest, gex_Rank_t rank, gex_Rank_t jobrank,
                              gex_EP_Index_t ep, void *src, size_t n, gex_Flags_t flags,
                              enum gexi_rma_sync sync, int local_is_host)
{
    struct gexi_segment *ls =
        local_is_host ? NULL : gexi_mk_local_device_seg(gexi_tm_local_ep(tm)->index);
    if (jobrank == gexi_core.jobrank) {
        self_copy(ls, dest, gexi_mk_local_device_seg(ep), src, n, "gex_RMA_Get");
        return GEX_EVENT_INVALID;
    }
    if (ls) gexi_mk_check_range("gex_RMA_Get: dest", ls, dest, n);
    const uint32_t count = gexi_rma_chunks_of(n, kind_chunk, "gex_RMA_Get");
    _Atomic uint32_t stack_ctr, *ctr;
    struct gexi_event *ev = gexi_rma_counter_setup(sync, GEX_EC_GET, count, &stack_ctr, &ctr);
    const gex_AM_Arg_t clo = gexi_arg_lo(ctr), chi = gexi_arg_hi(ctr);
    for (size_t off = 0, len; off < n; off += len) {
        len = n - off < kind_chunk ? n - off : kind_chunk;
        char *s = (char *)src + off, *d = (char *)dest + off;
        if (gex_AM_RequestShort8(tm, rank, H_GET, off == 0 ? flags & GEX_FLAG_IMMEDIATE : 0,
                                 gexi_arg_lo(s), gexi_arg_hi(s), (gex_AM_Arg_t)(uint32_t)len,
                                 gexi_arg_lo(d), gexi_arg_hi(d), clo, chi, ls != NULL))
            return gexi_rma_counter_undo(sync, ev, ctr, count);
    }
    return gexi_rma_counter_finish(sync, ev, ctr);
}
