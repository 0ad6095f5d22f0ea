/*
 * ad_domain.c: atomic domains (spec: "Atomic Domains": gex_AD_Create,
 * gex_AD_Destroy, the gex_AD_Query* calls and client data) and the layer's
 * registration with core (bind at client init, describe for gex-info).
 *
 * gex_AD_Create is collective over its team, but needs no communication:
 * every member computes the same implementation from the same inputs (see
 * ad_select.c), so it costs no barrier.  gex_AD_Destroy is collective too
 * and, as the spec allows, does not synchronize either.
 */
#include "atomics_internal.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "layer_ident.h"

GEXI_LAYER_IDENT(atomics, GEXI_VI_ATOMICS);

struct gexi_ad_layer gexi_ad_state;

/* The client's inline path (include/gex/ad_fastpath.h) may serve a domain
 * exactly when this library's own path for it is the CPU atomic it would do
 * itself: a shared-memory domain (no network atomics, no AM reference path
 * that polls first) on the primordial team, whose ranks are the table's, in
 * a release build (a debug build's checks live out of line). */
_Static_assert(offsetof(struct gexi_ad, pub) == 0,
               "a domain must start with the inline path's frozen fields");
static void set_inline(struct gexi_ad *a)
{
    a->pub.dt = a->dt;
    a->pub.ops = a->ops;
    a->pub.table = gexi_ad_state.table;   /* fixed from bind on: core's records do not move */
    const struct gexi_client *c = gexi_core.client;
    const int ok = a->impl == GEXI_AD_SHM && gexi_ad_state.table.tm != GEX_TM_INVALID &&
                   c && a->tm == (gex_TM_t)c->primordial_tm;
    a->pub.inline_magic = ok ? GEXI_AD_INLINE_V1 : 0;
}

void gexi_ad_bad_arg(const char *func, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gexi_fatal("%s: bad argument: %s", func, msg);
}

/* ---- Creation and destruction ---- */

static struct gexi_ad *checked_ad(const char *func, gex_AD_t ad)
{
    struct gexi_ad *a = gexi_ad_of(ad);
    if (GEXI_UNLIKELY(!a)) gexi_ad_bad_arg(func, "ad is GEX_AD_INVALID");
    if (GEXI_UNLIKELY(a->magic != GEXI_AD_MAGIC))
        gexi_ad_bad_arg(func, "ad %p is not a live atomic domain (destroyed, or never created)",
                        (void *)a);
    return a;
}

/* (members' jobranks) -> is every one of them in this process's nbrhd? */
static int team_all_local(const struct gexi_tm *t)
{
    for (gex_Rank_t r = 0; r < t->size; r++) {
        const gex_Rank_t jr = t->members ? t->members[r].gex_rank : r;
        if (jr == gexi_core.jobrank) continue;
        if (!gexi_core.is_nbrhd || !gexi_core.is_nbrhd[jr]) return 0;
    }
    return 1;
}

void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags)
{
    static const char fn[] = "gex_AD_Create";
    const gex_Flags_t favor = GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_MY_NBRHD |
                              GEX_FLAG_AD_FAVOR_REMOTE;
    if (!gexi_core.initialized) gexi_fatal("%s: called before gex_Client_Init", fn);
    if (!ad_p) gexi_ad_bad_arg(fn, "ad_p is NULL");
    if (!tm) gexi_ad_bad_arg(fn, "tm is GEX_TM_INVALID");
    if (gexi_tm_is_pair(tm))
        gexi_ad_bad_arg(fn, "tm is a TM-pair, not a team (an atomic domain is created "
                        "collectively over a team)");
    if (!gexi_ad_is_single_bit(dt) || !(dt & GEXI_AD_DTS))
        gexi_ad_bad_arg(fn, "dt 0x%x is not one of the built-in types GEX_DT_I32, _U32, _I64, "
                        "_U64, _FLT, _DBL (%s)", (unsigned)dt, gexi_ad_dt_name(dt));
    if (!ops) gexi_ad_bad_arg(fn, "ops is 0 (no operation)");
    if (ops & ~gexi_ad_valid_ops(dt)) {
        const gex_OP_t bad = ops & ~gexi_ad_valid_ops(dt);
        gexi_ad_bad_arg(fn, "ops 0x%x includes GEX_OP_%s, which is not valid for atomics on %s",
                        (unsigned)ops, gexi_ad_op_name(bad & (~bad + 1)), gexi_ad_dt_name(dt));
    }
    /* The spec names only the FAVOR hints for gex_AD_Create, whose flags
     * "never impact correctness"; GASNet accepts any other bit and so does
     * GEX (GASNet's testgasnet passes GEX_FLAG_PEER_SEG_OFFSET), saying so
     * under GASNET_VERBOSEENV and in debug builds. */
    if ((flags & ~favor) && gexi_core.jobrank == 0)
        gexi_log(2, "%s: flags 0x%x include bits other than GEX_FLAG_AD_FAVOR_*; ignored "
                 "(gex_AD_QueryFlags still reports them)", fn, (unsigned)flags);
    if ((flags & favor) && !gexi_ad_is_single_bit(flags & favor))
        gexi_ad_bad_arg(fn, "flags 0x%x hold more than one of the mutually exclusive "
                        "GEX_FLAG_AD_FAVOR_* hints", (unsigned)flags);

    const struct gexi_tm *t = gexi_tm_of(tm);
    struct gexi_ad *a = calloc(1, sizeof *a);
    if (!a) gexi_fatal("%s: out of memory", fn);
    a->dt = dt;
    a->dt_size = (uint8_t)gexi_ad_dt_size(dt);
    a->ops = ops;
    a->flags = flags;
    a->tm = tm;
    a->size = t->size;
    a->my_rank = t->rank;
    if (t->members) {
        a->rank_of_jobrank = malloc(gexi_core.jobsize * sizeof *a->rank_of_jobrank);
        if (!a->rank_of_jobrank) gexi_fatal("%s: out of memory", fn);
        for (gex_Rank_t j = 0; j < gexi_core.jobsize; j++) a->rank_of_jobrank[j] = GEX_RANK_INVALID;
        for (gex_Rank_t r = 0; r < t->size; r++)
            if (t->members[r].gex_ep_index == 0) a->rank_of_jobrank[t->members[r].gex_rank] = r;
    }
    const struct gexi_ad_select_in in = {
        .ops = gexi_core.ops, .conduit = gexi_core.conduit, .cap_flags = gexi_core.caps.flags,
        .dt = dt, .opset = ops, .flags = flags & favor, .team_size = t->size,
        .all_local = team_all_local(t), .forced = gexi_ad_state.forced,
    };
    a->impl = (uint8_t)gexi_ad_select(&in);
    a->magic = GEXI_AD_MAGIC;
    set_inline(a);
    if (gexi_core.verbose > 1)
        gexi_log(2, "gex_AD_Create: %s domain on a team of %u for %s, ops 0x%x",
                 gexi_ad_impl_name((enum gexi_ad_impl)a->impl), (unsigned)a->size,
                 gexi_ad_dt_name(dt), (unsigned)ops);
    *ad_p = (gex_AD_t)a;
}

void gex_AD_Destroy(gex_AD_t ad)
{
    struct gexi_ad *a = checked_ad("gex_AD_Destroy", ad);
    gexi_ad_flush_pending(); /* a batch may not outlive its domain */
    a->magic = 0;
    a->pub.inline_magic = 0;
    free(a->rank_of_jobrank);
    a->rank_of_jobrank = NULL;
#ifdef GEX_DEBUG
    /* Debug builds keep the (small) object, marked dead and still reachable,
     * so that a later use of the handle is reported as such instead of
     * reading freed memory. */
    static _Atomic(struct gexi_ad *) graveyard;
    a->dead_next = atomic_load_explicit(&graveyard, memory_order_relaxed);
    while (!atomic_compare_exchange_weak(&graveyard, &a->dead_next, a)) {
    }
#else
    free(a);
#endif
}

/* ---- Queries (spec: "Query operations on gex_AD_t") ---- */
gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad) { return checked_ad(__func__, ad)->flags; }
gex_TM_t gex_AD_QueryTM(gex_AD_t ad) { return checked_ad(__func__, ad)->tm; }
gex_DT_t gex_AD_QueryDT(gex_AD_t ad) { return checked_ad(__func__, ad)->dt; }
gex_OP_t gex_AD_QueryOps(gex_AD_t ad) { return checked_ad(__func__, ad)->ops; }
void gex_AD_SetCData(gex_AD_t ad, const void *val)
{
    checked_ad(__func__, ad)->cdata = (void *)(uintptr_t)val;
}
void *gex_AD_QueryCData(gex_AD_t ad) { return checked_ad(__func__, ad)->cdata; }

/* Not a spec call (GEX extension, exported for tests and benchmarks): the
 * implementation ad was given, "reference", "shm" or "conduit". */
GEXI_EXPORT const char *gexi_ad_query_impl(gex_AD_t ad);
const char *gexi_ad_query_impl(gex_AD_t ad)
{
    return gexi_ad_impl_name((enum gexi_ad_impl)checked_ad(__func__, ad)->impl);
}

/* ---- Layer registration ---- */

static int ad_bind(void)
{
    gexi_ad_state.forced = gexi_env_forces_reference("atomics");
    gexi_ad_state.conduit_amo = (gexi_core.caps.flags & GEX_CONDUIT_CAP_AMO) &&
                                GEX_CONDUIT_HAS(gexi_core.ops, amo_query) &&
                                GEX_CONDUIT_HAS(gexi_core.ops, amo);
    gexi_ad_state.combine = gexi_getenv_yesno("GEX_AD_COMBINE", 1);
    /* The table of the inline path: core's EP-0 segment records, which core
     * updates in place as segments are published, and its count of device
     * segments (memory kinds send every call out of line). */
    static const unsigned no_devices;
    gexi_ad_state.table = (struct gexi_fastpath){
        .tm = GEX_TM_INVALID, .size = 0, .stride = 0, .seg = NULL, .device_segments = &no_devices,
    };
#ifndef GEX_DEBUG
    const struct gexi_client *c = gexi_core.client;
    if (c && c->primordial_tm && gexi_peer_ep0 && !gexi_ad_state.forced)
        gexi_ad_state.table = (struct gexi_fastpath){
            .tm = (gex_TM_t)c->primordial_tm,
            .size = gexi_core.jobsize,
            .stride = (uint32_t)sizeof(struct gexi_peer_segment),
            .seg = (const char *)gexi_peer_ep0,
            .device_segments = (const unsigned *)&gexi_mk_device_segments,
        };
#endif
    static int registered;
    if (gexi_ad_state.combine && !registered++) gexi_register_progress(gexi_ad_combine_progress);
    return gexi_ad_ref_register();
}

/* For gex-info: which path a domain gets.  With network atomics, the (type,
 * op) pairs the conduit refuses are listed, since one of them in a domain's
 * declared set keeps the whole domain on CPU atomics (ad_select.c). */
static const char *ad_describe(void)
{
    static char buf[1024];
    if (gexi_ad_state.forced) {
        snprintf(buf, sizeof buf, "domains=reference (GEX_FORCE_REFERENCE)");
        return buf;
    }
    size_t off = (size_t)snprintf(buf, sizeof buf, "nbrhd-teams=%s other-teams=%s combine=%s",
                                  gexi_core.nbrhd_size > 1 ? "shm" : "shm(no nbrhd peers)",
                                  gexi_ad_state.conduit_amo ? "conduit-if-supported"
                                                            : "reference",
                                  gexi_ad_state.combine ? "on" : "off");
    if (!gexi_ad_state.conduit_amo) return buf;
    static const gex_DT_t dts[] = { GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64,
                                    GEX_DT_FLT, GEX_DT_DBL };
    const char *sep = " conduit-refuses=";
    int any = 0;
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        const gex_OP_t valid = gexi_ad_valid_ops(dts[i]);
        for (gex_OP_t rest = valid; rest && off < sizeof buf; rest &= rest - 1) {
            const gex_OP_t op = rest & (~rest + 1);
            if (gexi_ad_conduit_covers(gexi_core.ops, gexi_core.conduit, gexi_core.caps.flags,
                                       dts[i], op))
                continue;
            off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s:%s", sep,
                                    gexi_ad_dt_name(dts[i]) + 7, gexi_ad_op_name(op));
            sep = ",";
            any = 1;
        }
    }
    if (!any && off < sizeof buf) snprintf(buf + off, sizeof buf - off, " conduit-refuses=none");
    return buf;
}

static const struct gexi_layer ad_layer = {
    .struct_size = sizeof(struct gexi_layer),
    .name = "atomics",
    .bind = ad_bind,
    .describe = ad_describe,
};

__attribute__((constructor)) static void gexi_ad_register(void)
{
    gexi_register_layer(&ad_layer);
}
