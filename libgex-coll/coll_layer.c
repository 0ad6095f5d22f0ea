/*
 * coll_layer.c: registers libgex-coll with core when the library loads
 * (the layer, and the team-wide exchange core uses for segment publication
 * over non-primordial teams) and binds it at client init: configuration,
 * the two AM handlers, the progress hook, the nbrhd slots and the
 * primordial team's member record.
 *
 * Knobs (environment, read once at bind; every process must see the same):
 *   GEX_COLL_PIECE_SIZE     payload bytes per AM Medium      (default: MaxMedium)
 *   GEX_COLL_RD_MAX         ReduceToAll by recursive doubling up to this size (8K)
 *   GEX_COLL_SHM_MAX        nbrhd slot used for data up to this size (4K)
 *   GEX_COLL_SHM_SLOTS      slots per process (64); 0 disables the nbrhd path
 *   GEX_COLL_SHM_SLOT_SIZE  bytes per slot (16K)
 *   GEX_COLL_SHM_STRICT     1: running out of slots is fatal (tests)
 *   GEX_FORCE_REFERENCE=coll  AM algorithms only
 */
#include "coll_internal.h"
#include <stdio.h>
#include "layer_ident.h"

GEXI_LAYER_IDENT(coll, GEXI_VI_COLL);

struct gexi_coll_config gexi_coll_cfg = {
    .piece = 512, .rd_max = 8192, .shm_max = 4096, .shm_slots = 64, .shm_slot_size = 16384,
};

static int coll_bind(void)
{
    const size_t max_medium = gex_AM_LUBRequestMedium();
    size_t piece = (size_t)gexi_getenv_size("GEX_COLL_PIECE_SIZE", max_medium);
    if (piece < 64) piece = 64;
    if (piece > max_medium) piece = max_medium;
    gexi_coll_cfg.piece = piece;
    gexi_coll_cfg.rd_max = (size_t)gexi_getenv_size("GEX_COLL_RD_MAX", 8192);
    gexi_coll_cfg.shm_max = (size_t)gexi_getenv_size("GEX_COLL_SHM_MAX", 4096);
    long slots = gexi_getenv_int_range("GEX_COLL_SHM_SLOTS", 64, 0, 1L << 30);
    gexi_coll_cfg.shm_slots = slots < 0 ? 0 : slots > 65536 ? 65536 : (unsigned)slots;
    size_t slot_size = (size_t)gexi_getenv_size("GEX_COLL_SHM_SLOT_SIZE", 16384);
    if (slot_size < 1024) slot_size = 1024;
    gexi_coll_cfg.shm_slot_size = (slot_size + 63) / 64 * 64;
    gexi_coll_cfg.shm_strict = gexi_getenv_yesno("GEX_COLL_SHM_STRICT", 0);

    gexi_register_internal_handler(GEXI_COLL_H_SHORT, (gex_AM_Fn_t)gexi_coll_h_short,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 5, "coll_short");
    gexi_register_internal_handler(GEXI_COLL_H_MEDIUM, (gex_AM_Fn_t)gexi_coll_h_medium,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 5, "coll_medium");
    gexi_register_progress(gexi_coll_progress);
    if (gexi_coll_cfg.shm_slots) {
        int rc = gexi_coll_shm_init();
        if (rc != GASNET_OK) return rc;
    }
    return gexi_coll_primordial_init();
}

static const char *coll_describe(void)
{
    static char buf[256];
    snprintf(buf, sizeof buf,
             "barrier=%s bcast=tree reduce=tree allreduce=rd|ring|tree nbrhd=%s piece=%zu "
             "rd_max=%zu shm_max=%zu",
             gexi_coll_cfg.use_shm ? "shm|dissemination" : "dissemination",
             gexi_coll_shm_describe(), gexi_coll_cfg.piece, gexi_coll_cfg.rd_max,
             gexi_coll_cfg.use_shm ? gexi_coll_cfg.shm_max : (size_t)0);
    return buf;
}

static const struct gexi_layer coll_layer = {
    .struct_size = sizeof(struct gexi_layer),
    .name = "coll",
    .bind = coll_bind,
    .describe = coll_describe,
};

__attribute__((constructor)) static void gexi_coll_register(void)
{
    gexi_register_layer(&coll_layer);
    gexi_set_team_exchange(gexi_coll_team_exchange);
}
