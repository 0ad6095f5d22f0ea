/*
 * rma_pshm.c: the direct-copy side of libgex-rma: what it may reach without
 * communicating, and the debug-build checks that a remote range lies where
 * the spec requires it (spec: Extended API, NOTE 4: "In all cases, the
 * remote memory must be in the remote bound segment").
 *
 * The copy itself is inline (rma_internal.h: gexi_rma_direct and
 * gexi_rma_copy), because the PSHM bypass is the 10 ns path: a peer on this
 * host whose bound segment libgex-core has cross-mapped (libgex-shm provides
 * the memory, core maps nbrhd peers' segments at publication) is written and
 * read with memcpy, with no AM at all, and the operation is complete when
 * the copy is: an NB call returns GEX_EVENT_INVALID, an NBI call touches no
 * counter.  The target is this process itself: always a plain copy, whatever
 * GEX_FORCE_REFERENCE says, since its segment is ours.
 */
#include "rma_internal.h"
#include <stdlib.h>

void gexi_rma_check_remote(const char *func, const char *what, gex_TM_t tm, gex_Rank_t rank,
                           gex_Rank_t jobrank, gex_EP_Index_t ep, const void *addr, size_t n)
{
    uintptr_t base, size, a = (uintptr_t)addr;
    if (!n) return;
    if (!gexi_bound_segment(jobrank, ep, &base, &size))
        gexi_fatal("%s: %s [%p, +%zu) at rank %u (jobrank %u, endpoint %u): that endpoint has "
                   "no bound segment known here (not bound or not published)", func, what,
                   addr, n, (unsigned)rank, (unsigned)jobrank, (unsigned)ep);
    if (a < base || n > size || a - base > size - n)
        gexi_fatal("%s: %s [%p, %p) (%zu bytes) at rank %u (jobrank %u, endpoint %u) is outside "
                   "its bound segment [%p, %p) (%zu bytes)", func, what, addr,
                   (const void *)(a + n), n, (unsigned)rank, (unsigned)jobrank, (unsigned)ep,
                   (void *)base, (void *)(base + size), (size_t)size);
    (void)tm;
}

void gexi_rma_check_never(const char *func, gex_Flags_t flags, gex_Rank_t jobrank)
{
    if (jobrank == gexi_core.jobrank)
        gexi_fatal("%s: GEX_FLAG_PEER_NEVER_%s asserted, but the peer (jobrank %u) is this "
                   "process", func, flags & GEX_FLAG_PEER_NEVER_SELF ? "SELF" : "NBRHD",
                   (unsigned)jobrank);
    if ((flags & GEX_FLAG_PEER_NEVER_NBRHD) && gexi_core.is_nbrhd && gexi_core.is_nbrhd[jobrank])
        gexi_fatal("%s: GEX_FLAG_PEER_NEVER_NBRHD asserted, but jobrank %u is in this "
                   "process's neighbourhood", func, (unsigned)jobrank);
}
