/*
 * rma_api.c: the public contiguous RMA calls (spec: "Extended API"):
 * argument checks, the choice between a direct copy (self, PSHM bypass) and
 * the dispatch table's remote path, and the value forms.
 *
 * Per call: (tm, rank) -> (jobrank, EP index) through core's inline
 * translation; if the target range is reachable by a copy (rma_internal.h:
 * gexi_rma_direct) the data moves with memcpy and the operation completes
 * before returning, otherwise one indirect call into gexi_rma.put/get.
 * nbytes == 0 is legal and does nothing.
 *
 * Arguments the spec gives no return code for (the calls return non-zero
 * only for an IMMEDIATE "no op") end the job with a message naming the
 * argument: tm, rank, flags and lc_opt in every build; NULL buffers, ranges
 * outside the peer's bound segment, overlap and handler context in debug
 * builds.
 */
#include "rma_internal.h"
#include <stdarg.h>
#include <stdio.h>

void gexi_rma_bad_arg(const char *func, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gexi_fatal("%s: bad argument: %s", func, msg);
}

static inline int lc_is_pointer(gex_Event_t *lc_opt)
{
    return (uintptr_t)lc_opt > (uintptr_t)GEX_EVENT_GROUP;
}

/* spec: Extended API, NOTE 2a/2b. */
static inline void check_lc(const char *func, gex_Event_t *lc_opt, int nbi)
{
    if (GEXI_UNLIKELY(lc_opt == NULL))
        gexi_rma_bad_arg(func, "lc_opt is NULL (use GEX_EVENT_NOW, GEX_EVENT_DEFER or %s)",
                         nbi ? "GEX_EVENT_GROUP" : "a gex_Event_t pointer");
    if (GEXI_UNLIKELY(nbi ? lc_is_pointer(lc_opt) : lc_opt == GEX_EVENT_GROUP))
        gexi_rma_bad_arg(func, "lc_opt %s is only for %s", nbi ? "as a gex_Event_t pointer"
                                                               : "GEX_EVENT_GROUP",
                         nbi ? "gex_RMA_PutNB" : "gex_RMA_PutNBI");
}

/* The shared body of every put.  Returns what the slot returns: NO_OP if
 * IMMEDIATE refused, else the NB event or GEX_EVENT_INVALID.  val: a value
 * form, whose local side is host memory whatever the local EP's segment
 * (memory kinds, issue 9: device operations go to rma_kind.c first). */
__attribute__((always_inline))
static inline gex_Event_t put_common(const char *func, gex_TM_t tm, gex_Rank_t rank, void *dest,
                                     const void *src, size_t n, gex_Event_t *lc_opt,
                                     gex_Flags_t flags, enum gexi_rma_sync sync, int val)
{
    gex_Rank_t jr;
    gex_EP_Index_t ep;
    gexi_rma_peer(func, tm, rank, flags, &jr, &ep);
    gexi_rma_debug_checks(func, "dest", "src", tm, rank, jr, ep, dest, src, n, flags);
    if (GEXI_LIKELY(n != 0)) {
        if (gexi_mk_any_device() && gexi_rma_kind_applies(tm, jr, ep, val)) /* issue 9 */
            return gexi_rma_kind_put(tm, rank, jr, ep, dest, src, n, lc_opt, flags, sync, val);
        void *l = gexi_rma_direct(jr, ep, dest, n, flags);
        if (GEXI_UNLIKELY(l == NULL))
            return gexi_rma.put(tm, rank, dest, src, n, lc_opt, flags, sync);
        gexi_rma_check_overlap(func, l, src, n);
        gexi_rma_copy(l, src, n);
        /* Complete now: order the data before whatever the caller does next
         * (a no-op on x86; a store barrier on weaker machines). */
        atomic_thread_fence(memory_order_release);
    }
    if (lc_is_pointer(lc_opt)) *lc_opt = GEX_EVENT_INVALID;
    return GEX_EVENT_INVALID;
}

__attribute__((always_inline))
static inline gex_Event_t get_common(const char *func, gex_TM_t tm, void *dest, gex_Rank_t rank,
                                     void *src, size_t n, gex_Flags_t flags,
                                     enum gexi_rma_sync sync, int val)
{
    gex_Rank_t jr;
    gex_EP_Index_t ep;
    gexi_rma_peer(func, tm, rank, flags, &jr, &ep);
    gexi_rma_debug_checks(func, "src", "dest", tm, rank, jr, ep, src, dest, n, flags);
    if (GEXI_LIKELY(n != 0)) {
        if (gexi_mk_any_device() && gexi_rma_kind_applies(tm, jr, ep, val)) /* issue 9 */
            return gexi_rma_kind_get(tm, dest, rank, jr, ep, src, n, flags, sync, val);
        const void *l = gexi_rma_direct(jr, ep, src, n, flags);
        if (GEXI_UNLIKELY(l == NULL)) return gexi_rma.get(tm, dest, rank, src, n, flags, sync);
        gexi_rma_check_overlap(func, l, dest, n);
        atomic_thread_fence(memory_order_acquire);
        gexi_rma_copy(dest, l, n);
    }
    return GEX_EVENT_INVALID;
}

/* ---- Put ---- */

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                        size_t nbytes, gex_Flags_t flags)
{
    return put_common(__func__, tm, rank, dest, src, nbytes, GEX_EVENT_NOW, flags,
                      GEXI_RMA_BLOCKING, 0) != GEX_EVENT_INVALID;
}

int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                   size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags)
{
    check_lc(__func__, lc_opt, 1);
    return put_common(__func__, tm, rank, dest, src, nbytes, lc_opt, flags, GEXI_RMA_NBI, 0) !=
           GEX_EVENT_INVALID;
}

gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                          size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags)
{
    check_lc(__func__, lc_opt, 0);
    return put_common(__func__, tm, rank, dest, src, nbytes, lc_opt, flags, GEXI_RMA_NB, 0);
}

/* ---- Get ---- */

int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                        size_t nbytes, gex_Flags_t flags)
{
    return get_common(__func__, tm, dest, rank, src, nbytes, flags, GEXI_RMA_BLOCKING, 0) !=
           GEX_EVENT_INVALID;
}

int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                   size_t nbytes, gex_Flags_t flags)
{
    return get_common(__func__, tm, dest, rank, src, nbytes, flags, GEXI_RMA_NBI, 0) !=
           GEX_EVENT_INVALID;
}

gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                          size_t nbytes, gex_Flags_t flags)
{
    return get_common(__func__, tm, dest, rank, src, nbytes, flags, GEXI_RMA_NB, 0);
}

/* ---- Value forms: the value's low-order nbytes in host byte order ---- */

static inline void check_val_size(const char *func, size_t nbytes)
{
    if (GEXI_UNLIKELY(nbytes > SIZEOF_GEX_RMA_VALUE_T))
        gexi_rma_bad_arg(func, "nbytes %zu exceeds SIZEOF_GEX_RMA_VALUE_T (%d)", nbytes,
                         SIZEOF_GEX_RMA_VALUE_T);
}

gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                       size_t nbytes, gex_Flags_t flags)
{
    check_val_size(__func__, nbytes);
    gex_RMA_Value_t v = 0;
    /* No "no op" result can be expressed here, so IMMEDIATE is ignored. */
    get_common(__func__, tm, (char *)&v + gexi_rma_val_offset(nbytes), rank, src, nbytes,
               flags & ~GEX_FLAG_IMMEDIATE, GEXI_RMA_BLOCKING, 1);
    return v;
}

int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                           size_t nbytes, gex_Flags_t flags)
{
    check_val_size(__func__, nbytes);
    return put_common(__func__, tm, rank, dest, (char *)&value + gexi_rma_val_offset(nbytes),
                      nbytes, GEX_EVENT_NOW, flags, GEXI_RMA_BLOCKING, 1) != GEX_EVENT_INVALID;
}

/* The value is a local copy: it is "locally complete" once injected, which
 * every path guarantees before returning. */
int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                      size_t nbytes, gex_Flags_t flags)
{
    check_val_size(__func__, nbytes);
    return put_common(__func__, tm, rank, dest, (char *)&value + gexi_rma_val_offset(nbytes),
                      nbytes, GEX_EVENT_NOW, flags, GEXI_RMA_NBI, 1) != GEX_EVENT_INVALID;
}

gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags)
{
    check_val_size(__func__, nbytes);
    return put_common(__func__, tm, rank, dest, (char *)&value + gexi_rma_val_offset(nbytes),
                      nbytes, GEX_EVENT_NOW, flags, GEXI_RMA_NB, 1);
}
