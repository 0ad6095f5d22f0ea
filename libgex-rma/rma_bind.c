/*
 * rma_bind.c: registers libgex-rma with core and fills its dispatch table at
 * client init (STYLE.md section 5).
 *
 * The table starts with the reference implementation (rma_ref.c) in every
 * slot.  bind() then
 *   - turns the PSHM bypass on (direct copies to nbrhd peers whose segment
 *     core has cross-mapped) unless GEX_FORCE_REFERENCE names rma or all;
 *   - would point put/get at a conduit's native RMA when the conduit ABI
 *     offers one (not in conduit ABI 1.0: the ofi/ucx issues add the ops and
 *     the GEX_CONDUIT_HAS test here), again unless forced to the reference;
 *   - sizes the reference path's chunks: the AM Long limits, or smaller
 *     with GEX_RMA_PUT_CHUNK / GEX_RMA_GET_CHUNK (bytes, K/M/G suffixes),
 *     which tests use to exercise chunking with small transfers;
 *   - registers the reference path's internal AM handlers (always: a peer
 *     may use them even when we do not).
 * describe() reports the choice for gex-info and benchmark JSON.
 */
#include "rma_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layer_ident.h"

GEXI_LAYER_IDENT(rma, GEXI_VI_RMA);

static gex_Event_t unbound_put(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                               size_t n, gex_Event_t *lc_opt, gex_Flags_t flags,
                               enum gexi_rma_sync sync)
{
    gexi_fatal("gex_RMA_Put* before gex_Client_Init");
}
static gex_Event_t unbound_get(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t n,
                               gex_Flags_t flags, enum gexi_rma_sync sync)
{
    gexi_fatal("gex_RMA_Get* before gex_Client_Init");
}

struct gexi_rma_impl gexi_rma = {
    .put = unbound_put, .get = unbound_get, .pshm = 0, .put_chunk = 0, .get_chunk = 0,
    .put_from = "none", .get_from = "none",
};
static int forced;

/* The AM limit, or the environment's smaller positive value. */
static size_t chunk_size(const char *var, size_t am_limit)
{
    uint64_t v = gexi_getenv_size(var, 0);
    size_t c = v && v < am_limit ? (size_t)v : am_limit;
    if (c > UINT32_MAX) c = (size_t)UINT32_MAX & ~(size_t)4095; /* rides in a 32-bit AM arg */
    return c;
}

/* Puts up to this size go as an AM with a reply instead of the conduit's
 * native put.  Where a native put's remote completion takes a flush after
 * it (ucx: docs/ucx.md), a small put that is waited for costs the put and
 * then a flush round trip, about 1.5 round trips; the AM and its reply are
 * one.  ucx over TCP, 2 ranks: blocking, NB and NBI put of 8 B-1 KiB waited
 * for at once 13.5-18 us as AMs against 23-29 us native; a stream of them
 * closed by one wait runs ~7% slower as AMs (still twice GASNet-EX's rate).
 * GEX_RMA_PUT_AM_MAX sets the bound (bytes, 0: never). */
static size_t put_am_max(void)
{
    const size_t dflt = !strcmp(gexi_core.ops->name, "ucx") ? 4096 : 0;
    uint64_t v = gexi_getenv_size("GEX_RMA_PUT_AM_MAX", dflt);
    return v < gexi_rma.put_chunk ? (size_t)v : gexi_rma.put_chunk;
}

static int rma_bind(void)
{
    forced = gexi_env_forces_reference("rma");
    gexi_rma.put = gexi_rma_ref_put;
    gexi_rma.get = gexi_rma_ref_get;
    gexi_rma.put_from = gexi_rma.get_from = "reference";
    gexi_rma.pshm = !forced;
    gexi_rma.put_chunk = chunk_size("GEX_RMA_PUT_CHUNK", gexi_core.caps.am_max_long_request);
    gexi_rma.get_chunk = chunk_size("GEX_RMA_GET_CHUNK", gexi_core.caps.am_max_long_reply);
    /* Native conduit RMA (issue 8: conduit ABI 1.2, rma_native.c) when the
     * conduit offers it, unless forced to the reference. */
    if (!forced && (gexi_core.caps.flags & GEX_CONDUIT_CAP_RMA) &&
        GEX_CONDUIT_HAS(gexi_core.ops, rma_put) && GEX_CONDUIT_HAS(gexi_core.ops, rma_get)) {
        gexi_rma.put = gexi_rma_native_put;
        gexi_rma.get = gexi_rma_native_get;
        gexi_rma.put_from = gexi_rma.get_from = gexi_core.ops->name;
        gexi_rma.put_am_max = put_am_max();
    }
    int rc = gexi_rma_kind_register();   /* memory kinds (issue 9): staged device RMA */
    if (rc != GASNET_OK) return rc;
    if ((rc = gexi_rma_ref_register()) != GASNET_OK) return rc;
    gexi_rma_fastpath_publish();         /* the client's inline copies (issue 27) */
    return GASNET_OK;
}

static const char *rma_describe(void)
{
    static char buf[192];
    const char *near = gexi_rma.pshm ? (gexi_core.nbrhd_size > 1 ? "pshm" : "pshm(no nbrhd peers)")
                                     : "off";
    snprintf(buf, sizeof buf, "put=%s get=%s nbrhd=%s%s chunk=%zu/%zu inline=%s put_am_max=%zu",
             gexi_rma.put_from, gexi_rma.get_from, near, forced ? " (GEX_FORCE_REFERENCE)" : "",
             gexi_rma.put_chunk, gexi_rma.get_chunk, gexi_rma_fastpath_on() ? "on" : "off",
             gexi_rma.put_am_max);
    return buf;
}

static const struct gexi_layer rma_layer = {
    .struct_size = sizeof(struct gexi_layer),
    .name = "rma",
    .bind = rma_bind,
    .describe = rma_describe,
};

__attribute__((constructor)) static void gexi_rma_register(void)
{
    gexi_register_layer(&rma_layer);
}
