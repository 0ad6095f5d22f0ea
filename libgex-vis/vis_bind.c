/*
 * vis_bind.c: registers libgex-vis with core and makes its per-job choices
 * at client init (the layer pattern of docs/architecture.md).
 *
 * bind():
 *   - GEX_FORCE_REFERENCE=vis (or all): every call takes the plain path, one
 *     contiguous gex_RMA_* per piece, so the specialised mechanisms can be
 *     tested and benchmarked against it;
 *   - otherwise direct copies to nbrhd peers whose segment core has mapped
 *     (PSHM), AM pack/unpack for small pieces, per-piece RMA for pieces of
 *     at least GEX_VIS_RMA_MIN bytes (default 4 KiB; 0 sends every
 *     non-direct call by RMA, a huge value every one by AM);
 *   - GEX_VIS_AM_CHUNK (bytes) caps the data of one AM below the Medium
 *     limit: tests use it to put many AMs in flight with small transfers;
 *   - registers the internal AM handlers (always: a peer may use them even
 *     when we do not) and the progress hook that completes NB operations
 *     of the RMA mechanism.
 * describe() reports the choice for gex-info and benchmark JSON.
 */
#include "vis_internal.h"
#include <stdio.h>
#include "layer_ident.h"

GEXI_LAYER_IDENT(vis, GEXI_VI_VIS);

struct gexi_vis_config gexi_vis = { .forced = 0, .pshm = 0, .rma_min = 4096, .am_chunk = 0 };

static int vis_bind(void)
{
    gexi_vis.forced = gexi_env_forces_reference("vis");
    gexi_vis.pshm = !gexi_vis.forced;
    gexi_vis.rma_min = (size_t)gexi_getenv_size("GEX_VIS_RMA_MIN", 4096);
    gexi_vis.am_chunk = (size_t)gexi_getenv_size("GEX_VIS_AM_CHUNK", 0);
    gexi_register_progress(gexi_vis_rma_progress);
    int rc = gexi_vis_am_register();
    if (rc == GASNET_OK) rc = gexi_vis_pc_register();
    return rc;
}

static const char *vis_describe(void)
{
    static char buf[192];
    if (gexi_vis.forced) {
        snprintf(buf, sizeof buf, "path=reference(rma per piece) (GEX_FORCE_REFERENCE)");
        return buf;
    }
    snprintf(buf, sizeof buf, "path=optimized nbrhd=%s small=am-np large=rma rma_min=%zu%s",
             gexi_vis.pshm ? (gexi_core.nbrhd_size > 1 ? "pshm" : "pshm(no nbrhd peers)") : "off",
             gexi_vis.rma_min, gexi_vis.am_chunk ? " am_chunk=set" : "");
    return buf;
}

static const struct gexi_layer vis_layer = {
    .struct_size = sizeof(struct gexi_layer),
    .name = "vis",
    .bind = vis_bind,
    .describe = vis_describe,
};

__attribute__((constructor)) static void gexi_vis_register(void)
{
    gexi_register_layer(&vis_layer);
}
