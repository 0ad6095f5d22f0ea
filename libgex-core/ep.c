/*
 * ep.c: endpoints (seed 003 section 3).  Index 0 is the primordial EP made
 * by gex_Client_Init; gex_EP_Create hands out 1, 2, ... in creation order
 * ("monotonically increasing", seed 003 3.1 open issue 1), so processes
 * that create EPs in the same order can predict each other's indices.
 * EPs need no conduit resources: the smp conduit's queues are per process
 * and carry the destination EP index in every message.
 */
#include "core_internal.h"
#include <stdlib.h>
#include <string.h>

int gexi_ep_create(struct gexi_client *c, gex_EP_Capabilities_t caps, gex_Flags_t flags,
                   gex_EP_t *ep_p)
{
    unsigned idx = atomic_fetch_add(&c->n_eps, 1);
    if (idx >= GASNET_MAXEPS) {
        atomic_fetch_sub(&c->n_eps, 1);
        GEXI_RETURN_ERR(RESOURCE, "already %d endpoints (GASNET_MAXEPS)", GASNET_MAXEPS);
    }
    struct gexi_ep *ep = aligned_alloc(GEXI_EP_ALIGN,
                                       (sizeof *ep + GEXI_EP_ALIGN - 1) / GEXI_EP_ALIGN * GEXI_EP_ALIGN);
    if (!ep) GEXI_RETURN_ERR(RESOURCE, "out of memory for an endpoint");
    memset(ep, 0, sizeof *ep);
    ep->magic = GEXI_MAGIC_EP;
    ep->index = idx;
    ep->client = c;
    ep->caps = caps;
    ep->flags = flags;
    gexi_install_internal_handlers(ep);
    c->eps[idx] = ep;
    *ep_p = (gex_EP_t)ep;
    return GASNET_OK;
}

int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                  gex_Flags_t flags)
{
    struct gexi_client *c = gexi_client_of(client);
    if (!ep_p) GEXI_RETURN_ERR(BAD_ARG, "ep_p is NULL");
    if (!c || c->magic != GEXI_MAGIC_CLIENT) GEXI_RETURN_ERR(BAD_ARG, "client is not valid");
    if (!capabilities) GEXI_RETURN_ERR(BAD_ARG, "capabilities requests nothing");
    if (capabilities & ~GEX_EP_CAPABILITY_ALL)
        GEXI_RETURN_ERR(BAD_ARG, "capabilities 0x%x include unknown bits",
                        (unsigned)capabilities);
    if (flags & ~GEX_FLAG_HINT_ACCEL_ALL)
        GEXI_RETURN_ERR(BAD_ARG, "flags 0x%x: only GEX_FLAG_HINT_ACCEL_* are accepted",
                        (unsigned)flags);
    /* ACCEL hints are accepted and kept for gex_EP_QueryFlags; no conduit
     * here has scarce acceleration resources to hand out. */
    return gexi_ep_create(c, capabilities, flags, ep_p);
}

gex_Client_t gex_EP_QueryClient(gex_EP_t ep) { return (gex_Client_t)gexi_ep_of(ep)->client; }
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) { return gexi_ep_of(ep)->flags; }
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep) { return (gex_Segment_t)gexi_ep_of(ep)->segment; }
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) { return gexi_ep_of(ep)->index; }
void gex_EP_SetCData(gex_EP_t ep, const void *val) { gexi_ep_of(ep)->cdata = (void *)val; }
void *gex_EP_QueryCData(gex_EP_t ep) { return gexi_ep_of(ep)->cdata; }
