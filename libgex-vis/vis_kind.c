/*
 * vis_kind.c: VIS calls on device segments (memory kinds, issue 9;
 * docs/memory-kinds.md "VIS").
 *
 * A device segment's addresses fault on load and store; its bytes move
 * only through its kind's copy functions (core_layer.h "Memory kinds").
 * By the spec's Extended API NOTE 3/4, which the VIS calls share with RMA,
 * the local addresses of a call are device addresses exactly when the
 * local endpoint (of tm) has a bound device segment, and the peer's when
 * the peer endpoint's bound segment is one.  Neither the direct copy
 * (self, PSHM) nor the AM pack/unpack path may touch such memory, so
 * execute() (vis_api.c) sends every such call to the per-piece RMA path
 * (vis_rma.c): each contiguous piece becomes one gex_RMA_* call, which
 * libgex-rma stages through the kind (libgex-rma/rma_kind.c).  Checked only
 * when core knows of a device segment (gexi_mk_any_device()), so jobs
 * without device memory pay one load and one predictable branch per call.
 */
#include "vis_internal.h"

int gexi_vis_kind_applies(const struct gexi_vis_op *op)
{
    if (gexi_mk_local_device_seg(gexi_tm_local_ep(op->tm)->index)) return 1;
    return gexi_mk_peer_is_device(op->jobrank, op->ep);
}
