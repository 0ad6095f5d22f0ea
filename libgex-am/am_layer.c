/*
 * am_layer.c: registers libgex-am with core and binds its dispatch table at
 * client init (STYLE section 5).  The fixed-payload reference path *is* the
 * conduit's AM send, so bind() points those slots at the conduit's ops.
 * The negotiated-payload slots start with the reference code (am_np_ref.c)
 * and, per category, take the conduit's am_prepare/am_commit/am_cancel when
 * it offers them (conduit ABI 1.1, GEX_CONDUIT_CAP_NPAM_MEDIUM / _LONG),
 * unless GEX_FORCE_REFERENCE=am (or all) is set.  describe() reports each
 * slot's source for gex-info and the benchmarks.
 */
#include "am_internal.h"
#include <stdarg.h>
#include "layer_ident.h"

GEXI_LAYER_IDENT(am, GEXI_VI_AM);

static int unbound_request(struct gex_conduit *c, gex_Rank_t r, const struct gex_conduit_am *m,
                           gex_Flags_t f)
{
    gexi_fatal("AM Request before gex_Client_Init");
}
static int unbound_reply(struct gex_conduit *c, void *ctx, const struct gex_conduit_am *m,
                         gex_Flags_t f)
{
    gexi_fatal("AM Reply before gex_Client_Init");
}

struct gexi_am_impl gexi_am = {
    .request = unbound_request, .reply = unbound_reply,
    .request_from = "none", .reply_from = "none",
    .loopback_rank = GEX_RANK_INVALID,
    .np = {
        [GEXI_AM_NP_MEDIUM] = { gexi_am_np_ref_prepare, gexi_am_np_ref_commit,
                                gexi_am_np_ref_cancel, "reference" },
        [GEXI_AM_NP_LONG] = { gexi_am_np_ref_prepare, gexi_am_np_ref_commit,
                              gexi_am_np_ref_cancel, "reference" },
    },
};

void gexi_am_bad_arg(const char *what, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, what);
    vsnprintf(msg, sizeof msg, what, ap);
    va_end(ap);
    gexi_fatal("bad AM argument: %s", msg);
}

/* Debug builds (spec: AM NOTE 5, "Longs and Bound Segments"): a Long with
 * a payload must name an endpoint whose bound segment is known here, and
 * [dest, dest+n) must lie in it.  Without this check a bad dest_addr is
 * written by the conduit at the target, far from the call at fault. */
void gexi_am_check_long_dest(const char *what, gex_Rank_t jobrank, gex_EP_Index_t ep,
                             const void *dest, size_t n)
{
    uintptr_t base, size, a = (uintptr_t)dest;
    if (!n) return;
    if (!gexi_bound_segment(jobrank, ep, &base, &size))
        gexi_am_bad_arg("%s: dest_addr %p: the destination (jobrank %u, endpoint %u) has no "
                        "bound segment known here (attach one, or publish it to this process "
                        "with gex_EP_PublishBoundSegment)", what, dest, (unsigned)jobrank,
                        (unsigned)ep);
    if (a < base || n > size || a - base > size - n)
        gexi_am_bad_arg("%s: dest_addr range [%p, +%zu) is outside the bound segment [%p, +%zu) "
                        "of jobrank %u, endpoint %u", what, dest, n, (void *)base, (size_t)size,
                        (unsigned)jobrank, (unsigned)ep);
}

/* The conduit serves negotiated payload of this category itself? */
static int np_native_offered(const struct gex_conduit_ops *ops, uint64_t cap)
{
    return (gexi_core.caps.flags & cap) && GEX_CONDUIT_HAS(ops, am_prepare) &&
           GEX_CONDUIT_HAS(ops, am_commit) && GEX_CONDUIT_HAS(ops, am_cancel);
}

static int am_bind(void)
{
    const struct gex_conduit_ops *ops = gexi_core.ops;
    gexi_am.request = ops->am_request;
    gexi_am.reply = ops->am_reply;
    gexi_am.request_from = gexi_am.reply_from = ops->name;

    /* negotiated payload: reference first, then the conduit's where offered */
    gexi_am_np_ref_bind();
    static const uint64_t cap_of[2] = { [GEXI_AM_NP_MEDIUM] = GEX_CONDUIT_CAP_NPAM_MEDIUM,
                                        [GEXI_AM_NP_LONG] = GEX_CONDUIT_CAP_NPAM_LONG };
    const int forced = gexi_env_forces_reference("am");
    for (int k = 0; k < 2; k++) {
        gexi_am.np[k] = (struct gexi_am_np_slots){ gexi_am_np_ref_prepare, gexi_am_np_ref_commit,
                                                   gexi_am_np_ref_cancel, "reference" };
        if (!forced && np_native_offered(ops, cap_of[k]))
            gexi_am.np[k] = (struct gexi_am_np_slots){ ops->am_prepare, ops->am_commit,
                                                       ops->am_cancel, ops->name };
    }
    /* LEAST_ALLOC limits: a conduit Medium buffer holds a maximal Medium.
     * Longs: a conduit's am_prepare may decline a case it does not
     * specialize (GEX_CONDUIT_ENOTSUP, am_np.c), which the reference path
     * then serves, so the guarantee is the reference buffer's size
     * (GEX_AM_NP_LONG_BUFFER) either way. */
    for (int is_req = 0; is_req < 2; is_req++) {
        gexi_am.np_alloc_max[GEXI_AM_NP_MEDIUM][is_req] = gexi_core.caps.am_max_medium;
        gexi_am.np_alloc_max[GEXI_AM_NP_LONG][is_req] = gexi_am_np_ref_long_buf;
    }
    /* small negotiated-payload AMs (am_np.c): only in front of a conduit's
     * own slots (the reference path is left as it is) */
    for (int k = 0; k < 2; k++) {
        size_t small = k == GEXI_AM_NP_LONG
            ? (size_t)gexi_getenv_size("GEX_AM_NP_SMALL_LONG", GEXI_AM_NP_SMALL_LONG_DEFAULT)
            : (size_t)gexi_getenv_size("GEX_AM_NP_SMALL", GEXI_AM_NP_SMALL_DEFAULT);
        if (small > GEXI_AM_NP_SMALL_CAP) small = GEXI_AM_NP_SMALL_CAP;
        if (small > gexi_core.caps.am_max_medium) small = gexi_core.caps.am_max_medium;
        gexi_am.np_small_max[k] = gexi_am.np[k].prepare == gexi_am_np_ref_prepare ? 0 : small;
        gexi_am.np_small_lim[k] = gexi_am.np_small_max[k] ? gexi_am.np_small_max[k] + 1 : 0;
    }
    /* ext.h's inline Prepare serves the small path's Mediums (docs/am.md,
     * "Inline Prepare").  Debug builds leave it off unless asked: their
     * Prepares in the library check the handler-context rules. */
#ifdef GEX_DEBUG
    const long inline_default = 0;
#else
    const long inline_default = 1;
#endif
    const int inline_on = gexi_getenv_yesno("GEX_AM_NP_INLINE", inline_default);
    /* the small path's limits; a Long's least_payload must also fit the
     * LEAST_ALLOC limit, which the inline Prepare does not check */
    size_t long_lim = gexi_am.np_small_lim[GEXI_AM_NP_LONG];
    for (int is_req = 0; is_req < 2; is_req++)
        if (long_lim > gexi_am.np_alloc_max[GEXI_AM_NP_LONG][is_req] + 1)
            long_lim = gexi_am.np_alloc_max[GEXI_AM_NP_LONG][is_req] + 1;
    gexi_am_np_inline_lim[GEXI_AM_NP_MEDIUM] =
        inline_on ? gexi_am.np_small_lim[GEXI_AM_NP_MEDIUM] : 0;
    gexi_am_np_inline_lim[GEXI_AM_NP_LONG] = inline_on ? long_lim : 0;
    gexi_am_np_debug_bind();
    gexi_am_loopback_bind();
    gexi_am_kind_bind();   /* issue 9: Longs to and from device segments (am_kind.c) */
    return GASNET_OK;
}

static const char *am_describe(void)
{
    static char buf[224];
    snprintf(buf, sizeof buf,
             "request=%s reply=%s np_medium=%s np_long=%s np_small=%zu/%zu np_inline=%zu/%zu "
             "loopback=%s",
             gexi_am.request_from, gexi_am.reply_from, gexi_am.np[GEXI_AM_NP_MEDIUM].from,
             gexi_am.np[GEXI_AM_NP_LONG].from, gexi_am.np_small_max[GEXI_AM_NP_MEDIUM],
             gexi_am.np_small_max[GEXI_AM_NP_LONG],
             gexi_am_np_inline_lim[0] ? gexi_am_np_inline_lim[0] - 1 : 0,
             gexi_am_np_inline_lim[1] ? gexi_am_np_inline_lim[1] - 1 : 0,
             gexi_am.loopback_rank == GEX_RANK_INVALID ? "conduit" : "sync");
    return buf;
}

static const struct gexi_layer am_layer = {
    .struct_size = sizeof(struct gexi_layer),
    .name = "am",
    .bind = am_bind,
    .describe = am_describe,
};

__attribute__((constructor)) static void gexi_am_register(void)
{
    gexi_register_layer(&am_layer);
}
