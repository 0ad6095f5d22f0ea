/*
 * rma_fastpath.c: the table the client's inline RMA fast path reads
 * (include/gex/fastpath.h; docs/architecture.md, "Inline fast path ABI").
 *
 * It starts as `off` (every call out of line) and points at `live` once
 * bind has decided that the PSHM bypass is on: the same decision the
 * library's own direct path follows (rma_internal.h: gexi_rma_direct), so
 * an inlined copy and an out-of-line one reach the same memory under the
 * same conditions.  `live` names libgex-core's per-rank segment records
 * themselves, which core updates in place as segments are published, and
 * core's count of device segments, which turns the fast path off for the
 * rest of the job once memory kinds are in play.  A debug build never
 * publishes it: its argument checks (segment bounds, overlap, restricted
 * context) live out of line.
 */
#include "rma_internal.h"
#include <stddef.h>

static const unsigned no_devices;
static const struct gexi_fastpath off = {
    .tm = GEX_TM_INVALID, .size = 0, .stride = 0, .seg = NULL, .device_segments = &no_devices,
};
static struct gexi_fastpath live;

GEXI_EXPORT const struct gexi_fastpath *gexi_rma_fastpath_v1 = &off;

/* The client reads core's record through the frozen prefix. */
_Static_assert(offsetof(struct gexi_peer_segment, owneraddr) ==
                   offsetof(struct gexi_fastpath_seg, owneraddr) &&
               offsetof(struct gexi_peer_segment, localaddr) ==
                   offsetof(struct gexi_fastpath_seg, localaddr) &&
               offsetof(struct gexi_peer_segment, size) == offsetof(struct gexi_fastpath_seg, size),
               "core's peer segment record must start with the fast path's frozen prefix");
_Static_assert(sizeof(_Atomic unsigned) == sizeof(unsigned),
               "the device segment count is read as a plain unsigned");

void gexi_rma_fastpath_publish(void)
{
#ifndef GEX_DEBUG
    const struct gexi_client *c = gexi_core.client;
    if (!gexi_rma.pshm || !c || !c->primordial_tm || !gexi_peer_ep0) return;
    live.tm = (gex_TM_t)c->primordial_tm;
    live.size = gexi_core.jobsize;
    live.stride = (uint32_t)sizeof(struct gexi_peer_segment);
    live.seg = (const char *)gexi_peer_ep0;
    live.device_segments = (const unsigned *)&gexi_mk_device_segments;
    __atomic_store_n(&gexi_rma_fastpath_v1, &live, __ATOMIC_RELEASE);
#endif
}

int gexi_rma_fastpath_on(void)
{
    return __atomic_load_n(&gexi_rma_fastpath_v1, __ATOMIC_ACQUIRE) == &live;
}
