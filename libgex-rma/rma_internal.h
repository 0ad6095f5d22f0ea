/*
 * rma_internal.h: libgex-rma's one internal header.  The layer implements
 * the contiguous RMA calls of the spec's "Extended API" (gex_RMA_*) above
 * libgex-core (objects, events, NBI counters, PSHM mappings) and libgex-am
 * (the reference path).
 *
 * Every operation takes one of three paths, chosen per call from the
 * target's locality and per job at load time:
 *   1. direct copy: the target is this process (always) or a nbrhd peer whose
 *      bound segment core has cross-mapped here (PSHM bypass, rma_pshm.c);
 *      the operation is complete when the copy is;
 *   otherwise the dispatch table's slot (rma_bind.c), which holds
 *   2. the reference implementation over AM (rma_ref.c), or
 *   3. a conduit's native RMA, once the conduit ABI offers one (ofi/ucx
 *      issues).
 *   GEX_FORCE_REFERENCE=rma turns 1 off for peers (never for self: its
 *   segment is ours) and keeps 3 out of the table, so the reference path
 *   can be tested and compared.
 *
 * Completion: a slot receives how the caller synchronizes (enum
 * gexi_rma_sync) and returns a gex_Event_t: GEX_EVENT_NO_OP when
 * GEX_FLAG_IMMEDIATE refused the operation (nothing was done), otherwise the
 * NB root event or GEX_EVENT_INVALID (blocking: done; NBI: counted).
 */
#ifndef GEX_RMA_INTERNAL_H
#define GEX_RMA_INTERNAL_H

/* The layer defines the calls gex/fastpath.h inlines, and its own calls
 * must not depend on the table (it is the fallback). */
#ifndef GEX_NO_INLINE_FASTPATH
#define GEX_NO_INLINE_FASTPATH 1
#endif

#ifndef GEXI_BUILDING_GEX
#error "rma_internal.h is internal to GEX"
#endif
#include "core_layer.h"
#include <string.h>

/* ---- Internal AM handlers (core_layer.h: GEXI_HIDX_RMA_BASE..+15) ---- */
#define GEXI_RMA_H_PUT     (GEXI_HIDX_RMA_BASE + 0)  /* Long request: chunk landed -> ack */
#define GEXI_RMA_H_PUT_ACK (GEXI_HIDX_RMA_BASE + 1)  /* Short reply: counter done */
#define GEXI_RMA_H_GET     (GEXI_HIDX_RMA_BASE + 2)  /* Short request -> Long reply */
#define GEXI_RMA_H_GET_REP (GEXI_HIDX_RMA_BASE + 3)  /* Long reply: data landed, counter done */

/* How the initiating call synchronizes. */
enum gexi_rma_sync {
    GEXI_RMA_BLOCKING = 0,   /* return once remotely complete */
    GEXI_RMA_NB = 1,         /* return a root event */
    GEXI_RMA_NBI = 2         /* count in the calling thread's NBI (or region) counter */
};

/* Slot types.  n > 0; (tm, rank) valid; the target is not reachable by a
 * direct copy.  lc_opt is the caller's (NOW/DEFER/GROUP or a pointer). */
typedef gex_Event_t gexi_rma_put_fn(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                    size_t n, gex_Event_t *lc_opt, gex_Flags_t flags,
                                    enum gexi_rma_sync sync);
typedef gex_Event_t gexi_rma_get_fn(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                    size_t n, gex_Flags_t flags, enum gexi_rma_sync sync);

/* The layer's dispatch table (rma_bind.c), filled by bind() at client init. */
struct gexi_rma_impl {
    gexi_rma_put_fn *put;          /* peers not reached by a direct copy */
    gexi_rma_get_fn *get;
    int pshm;                      /* 1: copy directly into/out of PSHM-mapped segments */
    size_t put_chunk, get_chunk;   /* reference path: bytes per AM (<= MaxRequest/ReplyLong) */
    const char *put_from, *get_from;
    size_t put_am_max;             /* native put bound: puts up to this size take the
                                    * reference path (rma_native.c) */
};
extern struct gexi_rma_impl gexi_rma;

/* ---- Reference path over AM (rma_ref.c) ---- */
gexi_rma_put_fn gexi_rma_ref_put;
gexi_rma_get_fn gexi_rma_ref_get;
/* Registers the four handlers above (bind time). */
int gexi_rma_ref_register(void);

/* The inline fast path's table (rma_fastpath.c, include/gex/fastpath.h):
 * published at bind when the PSHM bypass is on, never in debug builds. */
void gexi_rma_fastpath_publish(void);
int gexi_rma_fastpath_on(void);

/* ---- Direct copies (rma_pshm.c) ---- */
/* Debug builds: ends the job unless [addr, addr+n) lies in the bound
 * segment of (jobrank, ep), naming the call, the argument, the address,
 * length and the segment's range. */
void gexi_rma_check_remote(const char *func, const char *what, gex_TM_t tm, gex_Rank_t rank,
                           gex_Rank_t jobrank, gex_EP_Index_t ep, const void *addr, size_t n);
/* Debug builds: checks a PEER_NEVER_{SELF,NBRHD} assertion. */
void gexi_rma_check_never(const char *func, gex_Flags_t flags, gex_Rank_t jobrank);

/* ---- Argument faults (rma_api.c) ----
 * The RMA calls have no error returns (non-zero only means "IMMEDIATE
 * refused"), so a bad argument ends the job with a message naming it. */
void gexi_rma_bad_arg(const char *func, const char *fmt, ...)
    __attribute__((noreturn, cold, format(printf, 2, 3)));

/* Flags an RMA call accepts.  The *_SEG_* assertions are hints we may
 * ignore; the *_SEG_OFFSET flags change addressing and are not implemented
 * (spec: [UNIMPLEMENTED]), so they are refused rather than misread. */
#define GEXI_RMA_FLAGS_OK \
    (GEX_FLAG_IMMEDIATE | GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO | \
     GEX_FLAG_SELF_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_SELF_SEG_BOUND | \
     GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_SOME | GEX_FLAG_PEER_SEG_BOUND | \
     GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD)

/* (tm, rank) -> (jobrank, EP index), with the checks every build makes. */
static inline void gexi_rma_peer(const char *func, gex_TM_t tm, gex_Rank_t rank,
                                 gex_Flags_t flags, gex_Rank_t *jobrank_p,
                                 gex_EP_Index_t *ep_p)
{
    if (GEXI_UNLIKELY(!tm)) gexi_rma_bad_arg(func, "tm is GEX_TM_INVALID");
    if (GEXI_UNLIKELY(rank >= gexi_tm_addr_size(tm)))
        gexi_rma_bad_arg(func, "rank %u is not below the team size %u", (unsigned)rank,
                         (unsigned)gexi_tm_addr_size(tm));
    if (GEXI_UNLIKELY(flags & ~GEXI_RMA_FLAGS_OK))
        gexi_rma_bad_arg(func, "flags 0x%x include bits an RMA call does not accept%s",
                         (unsigned)flags,
                         flags & (GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET)
                             ? " (the *_SEG_OFFSET flags are not implemented)" : "");
    gexi_tm_peer(tm, rank, jobrank_p, ep_p);
}

/* Every build: a non-NULL local buffer when nbytes > 0 (one compare; else
 * the copy faults far from the call with a bare SIGSEGV).  Debug builds
 * only: the remote range inside the peer's bound segment (a segment lookup
 * per call, docs/reliability.md), no overlap with a directly copied local range (spec:
 * NOTE 5), the locality assertions, and no RMA from handler context. */
static inline void gexi_rma_debug_checks(const char *func, const char *remote_name,
                                         const char *local_name, gex_TM_t tm, gex_Rank_t rank,
                                         gex_Rank_t jobrank, gex_EP_Index_t ep,
                                         const void *remote, const void *local, size_t n,
                                         gex_Flags_t flags)
{
    if (GEXI_UNLIKELY(n && !local))
        gexi_rma_bad_arg(func, "%s is NULL with nbytes %zu", local_name, n);
#ifdef GEX_DEBUG
    gexi_rma_check_remote(func, remote_name, tm, rank, jobrank, ep, remote, n);
    if (flags & (GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD))
        gexi_rma_check_never(func, flags, jobrank);
    if (gexi_handler_depth)
        gexi_rma_bad_arg(func, "called inside an AM handler (spec: restricted context)");
    if (gexi_hsl_depth)
        gexi_rma_bad_arg(func, "called while holding a handler-safe lock (spec: restricted context)");
#else
    (void)remote_name, (void)tm, (void)rank, (void)jobrank;
    (void)ep, (void)remote, (void)flags;
#endif
}

/* Debug builds: the two ranges of a direct copy must not overlap. */
static inline void gexi_rma_check_overlap(const char *func, const void *a, const void *b,
                                          size_t n)
{
#ifdef GEX_DEBUG
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (n && (x < y ? y - x < n : x - y < n))
        gexi_rma_bad_arg(func, "source and destination overlap ([%p, +%zu) and [%p, +%zu); "
                         "spec: Extended API, NOTE 5)", a, n, b, n);
#else
    (void)func, (void)a, (void)b, (void)n;
#endif
}

/* Where [addr, addr+n) of (jobrank, ep) can be reached by a plain copy in
 * this process, or NULL: our own process always (its segments are ours),
 * a nbrhd peer's bound segment when core has mapped it and PSHM is not
 * forced off.  No locks, no TLS, no atomics: this is the 10 ns path. */
static inline void *gexi_rma_direct(gex_Rank_t jobrank, gex_EP_Index_t ep, void *addr, size_t n,
                                    gex_Flags_t flags)
{
    if (jobrank == gexi_core.jobrank) return addr;
    if (!gexi_rma.pshm || (flags & GEX_FLAG_PEER_NEVER_NBRHD)) return NULL;
    /* Without a call into core, whatever the EP (issue 9: a thread on its
     * own EP takes the same path as one on EP 0). */
    return gexi_peer_mapped(jobrank, ep, addr, n);
}

/* memcpy with the common small sizes inlined as single moves. */
static inline void gexi_rma_copy(void *dst, const void *src, size_t n)
{
    switch (n) {
    case 1: __builtin_memcpy(dst, src, 1); break;
    case 2: __builtin_memcpy(dst, src, 2); break;
    case 4: __builtin_memcpy(dst, src, 4); break;
    case 8: __builtin_memcpy(dst, src, 8); break;
    case 16: __builtin_memcpy(dst, src, 16); break;
    default: memcpy(dst, src, n); break;
    }
}

/* ---- Value forms: the low-order nbytes of a gex_RMA_Value_t, stored in
 * host byte order (GASNet-1 put_val / get_val semantics). ---- */
static inline size_t gexi_rma_val_offset(size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return sizeof(gex_RMA_Value_t) - n;
#else
    (void)n;
    return 0;
#endif
}


/* ---- Memory kinds (issue 9): device segments, staged through AMs
 * (rma_kind.c).  put_common/get_common send an operation here, before any
 * direct copy, when core knows of a device segment (gexi_mk_any_device())
 * and the local EP's or the target's bound segment is one.  local_is_host:
 * the local buffer is host memory whatever the local EP (value forms). ---- */
int gexi_rma_kind_register(void);
size_t gexi_rma_kind_chunk(void);
int gexi_rma_kind_applies(gex_TM_t tm, gex_Rank_t jobrank, gex_EP_Index_t ep, int local_is_host);
gex_Event_t gexi_rma_kind_put(gex_TM_t tm, gex_Rank_t rank, gex_Rank_t jobrank,
                              gex_EP_Index_t ep, void *dest, const void *src, size_t n,
                              gex_Event_t *lc_opt, gex_Flags_t flags, enum gexi_rma_sync sync,
                              int local_is_host);
gex_Event_t gexi_rma_kind_get(gex_TM_t tm, void *dest, gex_Rank_t rank, gex_Rank_t jobrank,
                              gex_EP_Index_t ep, void *src, size_t n, gex_Flags_t flags,
                              enum gexi_rma_sync sync, int local_is_host);

/* ---- Native conduit RMA (issue 8: conduit ABI 1.2, rma_native.c): the
 * put/get slots when the conduit has GEX_CONDUIT_CAP_RMA.  A remote range
 * the conduit does not know (EINVAL) takes the reference path per call. ---- */
gexi_rma_put_fn gexi_rma_native_put;
gexi_rma_get_fn gexi_rma_native_get;

/* ---- Completion counters shared by the AM-based paths (rma_ref.c,
 * rma_kind.c): an operation sent as `count` AMs, each acknowledged by one
 * gexi_counter_done(). ---- */
/* Points *ctr_p at the counter the AMs decrement and pre-loads it (blocking:
 * the caller's stack counter; NB: a fresh root event; NBI: the thread's). */
static inline struct gexi_event *gexi_rma_counter_setup(enum gexi_rma_sync sync, gex_EC_t ec,
                                                        uint32_t count,
                                                        _Atomic uint32_t *stack_ctr,
                                                        _Atomic uint32_t **ctr_p)
{
    switch (sync) {
    case GEXI_RMA_BLOCKING:
        atomic_store_explicit(stack_ctr, count, memory_order_release);
        *ctr_p = stack_ctr;
        return NULL;
    case GEXI_RMA_NB: {
        struct gexi_event *ev = gexi_event_new(ec, count, 0);
        *ctr_p = &ev->h.pending;
        return ev;
    }
    default:
        *ctr_p = gexi_nbi_counter(ec);
        gexi_counter_add(*ctr_p, count);
        return NULL;
    }
}
/* IMMEDIATE refused the first AM: nothing is in flight, so undo the setup. */
static inline gex_Event_t gexi_rma_counter_undo(enum gexi_rma_sync sync, struct gexi_event *ev,
                                                _Atomic uint32_t *ctr, uint32_t count)
{
    if (sync == GEXI_RMA_NB) gexi_event_discard(ev);
    else if (sync == GEXI_RMA_NBI) atomic_fetch_sub_explicit(ctr, count, memory_order_relaxed);
    return GEX_EVENT_NO_OP;
}
/* Blocking: poll until every AM has been acknowledged (an idle wait yields,
 * acks restart the backoff); NB: the event; NBI: nothing to return. */
static inline gex_Event_t gexi_rma_counter_finish(enum gexi_rma_sync sync, struct gexi_event *ev,
                                                  _Atomic uint32_t *ctr)
{
    if (sync == GEXI_RMA_BLOCKING) {
        GEXI_POLL_UNTIL(atomic_load_explicit(ctr, memory_order_acquire) == 0);
        return GEX_EVENT_INVALID;
    }
    return ev ? gexi_event_handle(ev) : GEX_EVENT_INVALID;
}
/* Number of transfers of `chunk` bytes that move n > 0 bytes. */
static inline uint32_t gexi_rma_chunks_of(size_t n, size_t chunk, const char *func)
{
    size_t k = (n - 1) / chunk + 1;
    if (GEXI_UNLIKELY(k >= UINT32_MAX / 2))
        gexi_rma_bad_arg(func, "nbytes %zu needs more than 2^31 transfers of %zu bytes", n, chunk);
    return (uint32_t)k;
}

#endif /* GEX_RMA_INTERNAL_H */
