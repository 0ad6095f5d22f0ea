/*
 * am_limits.c: AM payload limit queries and gex_Token_Info (spec: "Active
 * Message (AM) limit queries", "AM Token Info").  The conduit states its
 * limits once (gex_conduit_caps); they do not depend on the peer, numargs,
 * lc_opt or flags, so every query is symmetric and stable as required.
 * With GEX_FLAG_AM_PREPARE_LEAST_CLIENT (Prepare with a client buffer) the
 * answer is the same: every negotiated-payload path can offer the
 * fixed-payload maximum.  With GEX_FLAG_AM_PREPARE_LEAST_ALLOC (library
 * buffer) it is what the bound path can allocate (gexi_am.np_alloc_max):
 * MaxMedium for Mediums; for Longs MaxLong from a conduit that prepares
 * Longs itself, else the reference buffer (GEX_AM_NP_LONG_BUFFER).
 */
#include "am_internal.h"
#include <stdarg.h>
#include <stdio.h>

unsigned int gex_AM_MaxArgs(void) { return 16; }

/* A bad argument to a query: these return a size, not an error code, so a
 * debug build ends the job naming the query and the argument; otherwise the
 * fault is reported (verbose errors) and the answer is that of a valid call. */
static void __attribute__((format(printf, 2, 3))) limit_bad(const char *func, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
#ifdef GEX_DEBUG
    gexi_am_bad_arg("%s: %s", func, msg);
#else
    if (gexi_verbose_errors()) gexi_log(0, "%s: bad argument: %s", func, msg);
#endif
}

static size_t checked(const char *func, gex_TM_t tm, gex_Rank_t other_rank, unsigned numargs,
                      size_t v)
{
    if (tm && other_rank != GEX_RANK_INVALID && other_rank >= gexi_tm_addr_size(tm))
        limit_bad(func, "other_rank %u is not below the team size %u", (unsigned)other_rank,
                  (unsigned)gexi_tm_addr_size(tm));
    if (numargs > 16) limit_bad(func, "numargs %u > gex_AM_MaxArgs() = 16", numargs);
    return v;
}

/* spec: LEAST_CLIENT and LEAST_ALLOC are mutually exclusive. */
static gex_Flags_t least_flags(const char *func, gex_Flags_t flags)
{
    const gex_Flags_t both = GEX_FLAG_AM_PREPARE_LEAST_CLIENT | GEX_FLAG_AM_PREPARE_LEAST_ALLOC;
    if ((flags & both) == both)
        limit_bad(func, "flags: GEX_FLAG_AM_PREPARE_LEAST_CLIENT and _LEAST_ALLOC are mutually "
                  "exclusive (answering for LEAST_ALLOC)");
    return flags & both;
}

static size_t long_limit(const char *func, gex_Flags_t flags, int is_request)
{
    size_t fp = is_request ? gexi_core.caps.am_max_long_request : gexi_core.caps.am_max_long_reply;
    if (least_flags(func, flags) & GEX_FLAG_AM_PREPARE_LEAST_ALLOC) {
        size_t a = gexi_am.np_alloc_max[GEXI_AM_NP_LONG][is_request];
        return a < fp ? a : fp;
    }
    return fp;
}

size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs)
{
    return checked(__func__, tm, other_rank, numargs, long_limit(__func__, flags, 1));
}
size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                           gex_Flags_t flags, unsigned int numargs)
{
    return checked(__func__, tm, other_rank, numargs, long_limit(__func__, flags, 0));
}
size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                               gex_Flags_t flags, unsigned int numargs)
{
    (void)least_flags(__func__, flags);   /* Mediums: the same answer for all three kinds */
    return checked(__func__, tm, other_rank, numargs, gexi_core.caps.am_max_medium);
}
size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs)
{
    (void)least_flags(__func__, flags);
    return checked(__func__, tm, other_rank, numargs, gexi_core.caps.am_max_medium);
}
size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                              unsigned int numargs)
{
    return checked(__func__, NULL, 0, numargs, long_limit(__func__, flags, 0));
}
size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                                unsigned int numargs)
{
    (void)least_flags(__func__, flags);
    return checked(__func__, NULL, 0, numargs, gexi_core.caps.am_max_medium);
}
size_t gex_AM_LUBRequestLong(void) { return gexi_core.caps.am_max_long_request; }
size_t gex_AM_LUBReplyLong(void) { return gexi_core.caps.am_max_long_reply; }
size_t gex_AM_LUBRequestMedium(void) { return gexi_core.caps.am_max_medium; }
size_t gex_AM_LUBReplyMedium(void) { return gexi_core.caps.am_max_medium; }

gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask)
{
    const struct gexi_token *t = gexi_token_of(token);
    if (!t || !info) {
        GEXI_BAD_ARG_NORET("returning 0", "%s is NULL", t ? "info" : "token");
        return 0;
    }
    /* Every field is cheap, so all are filled whatever the mask asks. */
    info->gex_srcrank = t->src_jobrank;
    info->gex_ep = (gex_EP_t)t->ep;
    info->gex_entry = t->entry;
    info->gex_is_req = t->is_req;
    info->gex_is_long = t->is_long;
    return GEX_TI_ALL;
}
