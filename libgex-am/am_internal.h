/*
 * am_internal.h: libgex-am's internal interface.  The fixed-payload AM
 * path is one inline function per direction, shared by the 102 generated
 * public entry points (am_fixed_gen.c), ending in one indirect call through
 * the layer's dispatch table, which bind() fills at client init.
 */
#ifndef GEX_AM_INTERNAL_H
#define GEX_AM_INTERNAL_H

#ifndef GEXI_BUILDING_GEX
#error "am_internal.h is internal to GEX"
#endif
#include "core_layer.h"

typedef int gexi_am_request_fn(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                               const struct gex_conduit_am *m, gex_Flags_t flags);
typedef int gexi_am_reply_fn(struct gex_conduit *c, void *reply_ctx,
                             const struct gex_conduit_am *m, gex_Flags_t flags);

/* The layer's dispatch table (am_layer.c). */
struct gexi_am_impl {
    gexi_am_request_fn *request;
    gexi_am_reply_fn *reply;
    const char *request_from, *reply_from;
};
extern struct gexi_am_impl gexi_am;

/* Argument faults that the spec gives no return code for end the job with
 * a message naming the argument (am_layer.c). */
void gexi_am_bad_arg(const char *what, ...) __attribute__((noreturn, format(printf, 1, 2)));

static inline size_t gexi_am_max_payload(uint8_t category, int is_request)
{
    if (category == GEX_CONDUIT_AM_MEDIUM) return gexi_core.caps.am_max_medium;
    if (category == GEX_CONDUIT_AM_LONG)
        return is_request ? gexi_core.caps.am_max_long_request : gexi_core.caps.am_max_long_reply;
    return 0;
}

static inline void gexi_am_check_lc(gex_Event_t *lc_opt, int is_request)
{
    if (GEXI_UNLIKELY(lc_opt == NULL || lc_opt == GEX_EVENT_DEFER ||
                      (!is_request && lc_opt == GEX_EVENT_GROUP)))
        gexi_am_bad_arg("lc_opt: %s is not permitted for an AM %s",
                        lc_opt == NULL ? "NULL" : lc_opt == GEX_EVENT_DEFER ? "GEX_EVENT_DEFER"
                                                                           : "GEX_EVENT_GROUP",
                        is_request ? "Request" : "Reply");
}

/* Local completion: the conduit ABI returns only once the payload may be
 * reused, so every lc_opt is satisfied at return (spec: AM NOTE 2). */
static inline void gexi_am_complete_lc(gex_Event_t *lc_opt)
{
    if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_GROUP) *lc_opt = GEX_EVENT_INVALID;
}

static inline int gexi_am_result(int rc, gex_Flags_t flags)
{
    if (GEXI_LIKELY(rc == GEX_CONDUIT_OK)) return 0;
    if (rc == GEX_CONDUIT_EAGAIN && (flags & GEX_FLAG_IMMEDIATE)) return 1; /* no-op */
    gexi_fatal("AM injection failed in conduit %s (code %d)", gexi_core.ops->name, rc);
}

static inline int gexi_am_request(gex_TM_t tm, gex_Rank_t rank, uint8_t category,
                                  gex_AM_Index_t handler, const void *src, size_t nbytes,
                                  void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
                                  unsigned nargs, const gex_AM_Arg_t *args)
{
    if (GEXI_UNLIKELY(!tm)) gexi_am_bad_arg("tm is GEX_TM_INVALID");
    if (GEXI_UNLIKELY(rank >= gexi_tm_addr_size(tm)))
        gexi_am_bad_arg("rank %u is not below the team size %u", (unsigned)rank,
                        (unsigned)gexi_tm_addr_size(tm));
    if (category != GEX_CONDUIT_AM_SHORT) {
        gexi_am_check_lc(lc_opt, 1);
        if (GEXI_UNLIKELY(nbytes > gexi_am_max_payload(category, 1)))
            gexi_am_bad_arg("nbytes %zu exceeds the %s Request limit %zu", nbytes,
                            category == GEX_CONDUIT_AM_LONG ? "Long" : "Medium",
                            gexi_am_max_payload(category, 1));
    }
#ifdef GEX_DEBUG
    if (gexi_handler_depth)
        gexi_am_bad_arg("an AM Request was issued inside an AM handler (spec: restricted context)");
#endif
    gex_Rank_t jobrank;
    gex_EP_Index_t dst_ep;
    gexi_tm_peer(tm, rank, &jobrank, &dst_ep);
    const struct gex_conduit_am m = {
        .category = category, .is_request = 1, .handler = handler, .nargs = (uint8_t)nargs,
        .src_ep = gexi_tm_local_ep(tm)->index, .dst_ep = dst_ep,
        .args = args, .payload = (void *)src, .nbytes = nbytes, .dest_addr = dest,
    };
    int rc = gexi_am_result(gexi_am.request(gexi_core.conduit, jobrank, &m, flags), flags);
    if (category != GEX_CONDUIT_AM_SHORT && rc == 0) gexi_am_complete_lc(lc_opt);
    return rc;
}

static inline int gexi_am_reply(gex_Token_t token, uint8_t category, gex_AM_Index_t handler,
                                const void *src, size_t nbytes, void *dest, gex_Event_t *lc_opt,
                                gex_Flags_t flags, unsigned nargs, const gex_AM_Arg_t *args)
{
    struct gexi_token *t = gexi_token_of(token);
    if (GEXI_UNLIKELY(!t)) gexi_am_bad_arg("token is NULL");
    if (GEXI_UNLIKELY(!t->is_req))
        gexi_am_bad_arg("AM Reply from a Reply handler (only Request handlers may reply)");
    if (GEXI_UNLIKELY(t->replied))
        gexi_am_bad_arg("second AM Reply in one Request handler (at most one is allowed)");
    if (category != GEX_CONDUIT_AM_SHORT) {
        gexi_am_check_lc(lc_opt, 0);
        if (GEXI_UNLIKELY(nbytes > gexi_am_max_payload(category, 0)))
            gexi_am_bad_arg("nbytes %zu exceeds the %s Reply limit %zu", nbytes,
                            category == GEX_CONDUIT_AM_LONG ? "Long" : "Medium",
                            gexi_am_max_payload(category, 0));
    }
    const struct gex_conduit_am m = {
        .category = category, .is_request = 0, .handler = handler, .nargs = (uint8_t)nargs,
        .src_ep = t->ep->index, .dst_ep = t->src_ep,
        .args = args, .payload = (void *)src, .nbytes = nbytes, .dest_addr = dest,
    };
    int rc = gexi_am_result(gexi_am.reply(gexi_core.conduit, t->reply_ctx, &m, flags), flags);
    if (rc == 0) {
        t->replied = 1;
        if (category != GEX_CONDUIT_AM_SHORT) gexi_am_complete_lc(lc_opt);
    }
    return rc;
}

#endif /* GEX_AM_INTERNAL_H */
