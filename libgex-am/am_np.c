/*
 * am_np.c: the negotiated-payload AM entry points other than Commit (spec:
 * "Negotiated-payload AM APIs"): the four Prepares, the SrcDesc queries and
 * the four Cancels, plus the per-thread source descriptors.  The Commits are
 * generated (am_np_gen.c) around gexi_am_np_commit() in am_internal.h.
 * Everything ends in one indirect call through gexi_am.np[category], which
 * bind() points at the reference code (am_np_ref.c) or at the conduit's
 * am_prepare/am_commit/am_cancel (am_layer.c), except the small path below,
 * which is also each Prepare's fast path.  Clients read gex_AM_SrcDescAddr
 * and gex_AM_SrcDescSize inline (ext.h: the descriptor's first bytes are a
 * frozen public prefix, docs/am.md); the exported functions here are their
 * checked fallback and serve binaries built against older headers.  Small
 * library-buffer Prepares are inline too (ext.h, docs/am.md "Inline
 * Prepare"): they leave the descriptor INLINE with its arguments
 * unchecked, and the Commits and Cancels below check and send them.
 *
 * Source descriptors.  A Prepare returns one of the calling thread's two
 * descriptors, [0] for Requests and [1] for Replies; a Commit or Cancel must
 * come from the same thread with the same descriptor (spec: "thread-specific
 * object that must be consumed (exactly once)").  Two, not one, because a
 * Request's Commit may wait for room and run Request handlers meanwhile, and
 * those may prepare a Reply.  Anything else that nests is misuse: a second
 * Prepare of one direction before the first is consumed is reported here in
 * every build; communication between a Prepare and its Commit (an AM call,
 * or a poll or wait) is reported in debug builds (gexi_am_check_no_open_sd
 * and the progress hook below), like the other handler-context rules.
 *
 * Local completion (spec: AM NOTE 2): with a client buffer, lc_opt takes
 * the fixed-payload values (Requests: GEX_EVENT_NOW, GEX_EVENT_GROUP or an
 * event pointer; Replies: NOW or a pointer; never GEX_EVENT_DEFER).  Every
 * implementation has copied the payload when Commit returns, so a pointer
 * receives GEX_EVENT_INVALID there and GROUP leaves nothing outstanding.
 * With a library buffer lc_opt must be NULL.
 */
#include "am_internal.h"

__thread struct gexi_am_sd gexi_am_sds[2] __attribute__((tls_model("initial-exec")));
size_t gexi_am_np_inline_lim[2];   /* set by bind (am_layer.c) */

/* The Prepare path is a handful of inline steps; forced inline so that each
 * public Prepare is one function with its category and direction folded in
 * (the negotiated path must not cost more calls than the fixed one saves). */
#define GEXI_AM_NP_INLINE static inline __attribute__((always_inline))

static const char *np_cat_name(uint8_t category)
{
    return category == GEX_CONDUIT_AM_LONG ? "Long" : "Medium";
}

void gexi_am_np_bad_sd(const char *func, const struct gexi_am_sd *sd, uint8_t category,
                       int is_request, unsigned nargs)
{
    const char *dir = is_request ? "Request" : "Reply";
    if (sd == NULL)
        gexi_am_bad_arg("%s: sd is GEX_AM_SRCDESC_NO_OP (a Prepare that did nothing)", func);
    if (sd != &gexi_am_sds[0] && sd != &gexi_am_sds[1])
        gexi_am_bad_arg("%s: sd %p was not prepared by this thread (source descriptors are "
                        "thread-specific)", func, (const void *)sd);
    if (sd != &gexi_am_sds[!is_request] || sd->key_category != category)
        gexi_am_bad_arg("%s: sd comes from a gex_AM_Prepare%s%s, not a gex_AM_Prepare%s%s", func,
                        sd == &gexi_am_sds[0] ? "Request" : "Reply",
                        np_cat_name(sd->key_category), dir, np_cat_name(category));
    if (!gexi_am_sd_open(sd->state))
        gexi_am_bad_arg("%s: sd was already consumed by a Commit or Cancel", func);
    gexi_am_bad_arg("%s: [M] = %u arguments, but the Prepare announced numargs = %u", func,
                    nargs, sd->key_nargs);
}

/* Faults of a Prepare's target and context (am_internal.h), reported under
 * the Prepare's name, by the library's Prepares and by the Commit or Cancel
 * of an inline-prepared descriptor. */
void gexi_am_np_bad_request_target(uint8_t category, gex_TM_t tm, gex_Rank_t rank)
{
    const char *cat = np_cat_name(category);
    if (!tm) gexi_am_bad_arg("gex_AM_PrepareRequest%s: tm is GEX_TM_INVALID", cat);
    if (rank >= gexi_tm_addr_size(tm))
        gexi_am_bad_arg("gex_AM_PrepareRequest%s: rank %u is not below the team size %u", cat,
                        (unsigned)rank, (unsigned)gexi_tm_addr_size(tm));
    gexi_fatal("gex_AM_PrepareRequest%s: internal error (no fault found)", cat);
}
void gexi_am_np_bad_reply_target(uint8_t category, const struct gexi_token *t)
{
    const char *cat = np_cat_name(category);
    if (!t) gexi_am_bad_arg("gex_AM_PrepareReply%s: token is NULL", cat);
    if (!t->is_req)
        gexi_am_bad_arg("gex_AM_PrepareReply%s: called from a Reply handler (only Request "
                        "handlers may reply)", cat);
    if (t->replied)
        gexi_am_bad_arg("gex_AM_PrepareReply%s: this Request handler already replied (at most "
                        "one Reply)", cat);
    gexi_fatal("gex_AM_PrepareReply%s: internal error (no fault found)", cat);
}
void gexi_am_np_bad_request_context(uint8_t category)
{
    const char *cat = np_cat_name(category);
    if (gexi_handler_depth)
        gexi_am_bad_arg("gex_AM_PrepareRequest%s: called inside an AM handler (spec: restricted "
                        "context; only Replies may be prepared there)", cat);
    gexi_am_bad_arg("gex_AM_PrepareRequest%s: called while holding a handler-safe lock (spec: "
                    "restricted context)", cat);
}

/* The largest least_payload a Prepare accepts (what gex_AM_Max* reports
 * with GEX_FLAG_AM_PREPARE_LEAST_CLIENT / _ALLOC). */
static inline size_t np_least_max(uint8_t category, int is_request, int lib_buf)
{
    if (lib_buf)
        return gexi_am.np_alloc_max[category == GEX_CONDUIT_AM_LONG][is_request];
    return gexi_am_max_payload(category, is_request);
}

/* Checks shared by the four Prepares.  spec: "If client_buf is NULL, this
 * argument [lc_opt] must also be NULL". */
GEXI_AM_NP_INLINE void np_check_prepare(const char *func, uint8_t category, int is_request,
                                        const void *client_buf, size_t least, size_t most,
                                        gex_Event_t *lc_opt, unsigned numargs)
{
    if (GEXI_UNLIKELY(numargs > 16))
        gexi_am_bad_arg("%s: numargs %u exceeds gex_AM_MaxArgs() = 16", func, numargs);
    if (GEXI_UNLIKELY(least > most))
        gexi_am_bad_arg("%s: least_payload %zu exceeds most_payload %zu", func, least, most);
    if (client_buf) {
        if (GEXI_UNLIKELY(lc_opt == NULL || lc_opt == GEX_EVENT_DEFER ||
                          (!is_request && lc_opt == GEX_EVENT_GROUP)))
            gexi_am_bad_arg("%s: lc_opt %s is not permitted with a client buffer for an AM %s",
                            func, lc_opt == NULL ? "NULL" : lc_opt == GEX_EVENT_DEFER
                                  ? "GEX_EVENT_DEFER" : "GEX_EVENT_GROUP",
                            is_request ? "Request" : "Reply");
    } else if (GEXI_UNLIKELY(lc_opt != NULL)) {
        gexi_am_bad_arg("%s: lc_opt must be NULL when client_buf is NULL", func);
    }
    const size_t lmax = np_least_max(category, is_request, client_buf == NULL);
    if (GEXI_UNLIKELY(least > lmax))
        gexi_am_bad_arg("%s: least_payload %zu exceeds gex_AM_Max%s%s(..., "
                        "GEX_FLAG_AM_PREPARE_LEAST_%s) = %zu", func, least,
                        is_request ? "Request" : "Reply", np_cat_name(category),
                        client_buf ? "CLIENT" : "ALLOC", lmax);
    if (GEXI_UNLIKELY(gexi_am_sd_open(gexi_am_sds[!is_request].state)))
        gexi_am_bad_arg("%s: the previous gex_AM_Prepare%s* of this thread was neither "
                        "committed nor cancelled (Prepare/Commit pairs do not nest)", func,
                        is_request ? "Request" : "Reply");
#ifdef GEX_DEBUG
    if (GEXI_UNLIKELY(gexi_am_sd_open(gexi_am_sds[is_request].state)))
        gexi_am_bad_arg("%s: called between a gex_AM_Prepare%s* and its Commit or Cancel "
                        "(spec: no communication in that interval)", func,
                        is_request ? "Reply" : "Request");
#endif
}

/* Small path.  For a small payload, reserving room in the conduit at
 * Prepare and publishing at Commit (or, for smp Longs, finding the mapped
 * destination) costs more than it saves: the copy of a few bytes is
 * cheaper than the bookkeeping and the second indirect call.  So when the
 * conduit's slots of that category are bound, a Prepare with a library
 * buffer and most_payload <= gexi_am.np_small_max (GEX_AM_NP_SMALL, default
 * 64 bytes, for Mediums; GEX_AM_NP_SMALL_LONG, default 512, for Longs)
 * hands out the descriptor's own
 * scratch buffer (64-byte aligned, per thread and direction like the
 * descriptor) and its Commit sends it as a fixed-payload AM (the same
 * conduit send as gex_AM_RequestMedium / Long, so never slower than it by
 * more than a call).  A Prepare with GEX_FLAG_IMMEDIATE takes the conduit's path
 * instead, which reserves room and so can refuse without side effects; a
 * small-path Commit*_v2 with GEX_FLAG_IMMEDIATE passes the flag to the
 * fixed-payload send, which fails without side effects (the descriptor
 * stays prepared).  Cancel has nothing to release. */
static int np_small_commit_unused(struct gex_conduit *c, struct gex_conduit_np *np,
                                  const struct gex_conduit_am *m, gex_Flags_t flags)
{
    return gexi_am_np_ref_commit(c, np, m, flags);   /* reached only via gexi_am_np_commit */
}
const struct gexi_am_np_slots gexi_am_np_small_slots = {
    gexi_am_np_ref_prepare, np_small_commit_unused, gexi_am_np_ref_cancel, "small"
};

/* The small path's Prepare (see above): no conduit call, the scratch
 * buffer of the descriptor.  sd->m's header is already filled. */
GEXI_AM_NP_INLINE gex_AM_SrcDesc_t np_prepare_small(struct gexi_am_sd *sd, uint32_t key,
                                                    uintptr_t dst, size_t most)
{
    sd->np.buf = sd->small;
    sd->np.size = most;
    sd->np.priv[0] = dst;   /* the destination jobrank (Request) or reply_ctx (Reply) */
    sd->slots = &gexi_am_np_small_slots;
    sd->key = key;
    return (gex_AM_SrcDesc_t)sd;
}

/* Does a Prepare take the small path?  A library buffer, most_payload within
 * the category's limit, and no GEX_FLAG_IMMEDIATE. */
GEXI_AM_NP_INLINE int np_is_small(uint8_t category, const void *client_buf, size_t most,
                                  gex_Flags_t flags)
{
    return most < gexi_am.np_small_lim[category == GEX_CONDUIT_AM_LONG] && !client_buf &&
           !(flags & GEX_FLAG_IMMEDIATE);
}

static const struct gexi_am_np_slots np_ref_slots = {
    gexi_am_np_ref_prepare, gexi_am_np_ref_commit, gexi_am_np_ref_cancel, "reference"
};

#define NP_PFLAGS(flags) \
    ((flags) & ~(GEX_FLAG_AM_PREPARE_LEAST_CLIENT | GEX_FLAG_AM_PREPARE_LEAST_ALLOC))

/* The bound prepare failed with rc (np_prepare): a conduit's
 * GEX_CONDUIT_ENOTSUP (a case it does not specialize, e.g. smp Longs whose
 * destination is not mapped here, ofi Mediums past its inline size) sends
 * the Prepare to the reference slots; an EAGAIN with GEX_FLAG_IMMEDIATE is a
 * no-op; anything else is fatal.  The Prepare's arguments are in sd->p_*. */
__attribute__((noinline, cold)) static gex_AM_SrcDesc_t
np_prepare_failed(const char *func, struct gexi_am_sd *sd, uint8_t category,
                  const struct gexi_am_np_slots *slots, int rc)
{
    void *reply_ctx = sd == &gexi_am_sds[1] ? sd->token->reply_ctx : NULL;
    if (rc == GEX_CONDUIT_ENOTSUP && slots->prepare != gexi_am_np_ref_prepare) {
        slots = &np_ref_slots;
        rc = gexi_am_np_ref_prepare(gexi_core.conduit, sd->p_jobrank, reply_ctx, &sd->m,
                                    sd->p_least, sd->p_most, NP_PFLAGS(sd->p_flags), &sd->np);
    }
    if (rc != GEX_CONDUIT_OK) {
        sd->np.buf = NULL;   /* still unprepared for the inline queries */
        if (rc == GEX_CONDUIT_EAGAIN && (sd->p_flags & GEX_FLAG_IMMEDIATE))
            return GEX_AM_SRCDESC_NO_OP;
        gexi_fatal("%s: negotiated-payload Prepare failed in %s (code %d)", func, slots->from, rc);
    }
    sd->slots = slots;
    sd->state = GEXI_SD_PREPARED;
    return (gex_AM_SrcDesc_t)sd;
}

/* Runs the bound prepare on sd->m (filled by the caller, sd->key by
 * np_unprepared_key); returns the descriptor or GEX_AM_SRCDESC_NO_OP.
 * category is the Prepare's, a compile-time constant: the Long-only steps
 * fold away for Mediums.  The arguments go to sd->p_* for the failure
 * path, so that nothing but (for Longs) the slots stays live across the
 * call. */
GEXI_AM_NP_INLINE gex_AM_SrcDesc_t np_prepare(const char *func, struct gexi_am_sd *sd,
                                              uint8_t category, gex_Rank_t jobrank,
                                              void *reply_ctx, size_t least, size_t most,
                                              gex_Flags_t flags)
{
    const struct gexi_am_np_slots *slots =
        &gexi_am.np[category == GEX_CONDUIT_AM_LONG ? GEXI_AM_NP_LONG : GEXI_AM_NP_MEDIUM];
    /* to this process (am_loopback.c): never a conduit's slots, which would
     * queue the AM; a Long may get its destination as the buffer where the
     * conduit does that for mapped peers, anything else the reference
     * buffer (both Commits deliver here) */
    if (GEXI_UNLIKELY(jobrank == gexi_am.loopback_rank))
        slots = category == GEX_CONDUIT_AM_LONG && gexi_am.np_loopback_zero_copy
                    ? &gexi_am_np_loopback_long_slots : &np_ref_slots;
    /* issue 9: a Long into a device segment must never get the destination
     * itself as its buffer (device memory faults on stores); the reference
     * buffer goes through am_kind.c at Commit */
    if (category == GEX_CONDUIT_AM_LONG && gexi_mk_any_device() &&
        gexi_mk_peer_is_device(jobrank, sd->m.dst_ep))
        slots = &np_ref_slots;
    sd->p_least = least;
    sd->p_most = most;
    sd->p_flags = flags;
    sd->p_jobrank = jobrank;
    int rc = slots->prepare(gexi_core.conduit, jobrank, reply_ctx, &sd->m, least, most,
                            NP_PFLAGS(flags), &sd->np);
    if (GEXI_UNLIKELY(rc != GEX_CONDUIT_OK))
        return np_prepare_failed(func, sd, category, slots, rc);
    sd->slots = slots;
    sd->state = GEXI_SD_PREPARED;   /* the rest of sd->key: np_unprepared_key */
    return (gex_AM_SrcDesc_t)sd;
}

/* The message header a Prepare records (the Commit adds handler, args,
 * payload, nbytes and dest_addr). */
GEXI_AM_NP_INLINE void np_set_header(struct gexi_am_sd *sd, uint8_t category, int is_request,
                                     unsigned numargs, gex_EP_Index_t src_ep,
                                     gex_EP_Index_t dst_ep)
{
    sd->m.category = category;
    sd->m.is_request = (uint8_t)is_request;
    sd->m.nargs = (uint8_t)numargs;
    sd->m.src_ep = src_ep;
    sd->m.dst_ep = dst_ep;
}

/* Before the bound prepare runs: sd->key with the Prepare's category and
 * numargs but still unprepared (GEXI_SD_FREE; the descriptor is not
 * PREPARED here: np_check_prepare / np_fast_ok); np_prepare sets the state
 * byte when the prepare succeeds. */
GEXI_AM_NP_INLINE void np_unprepared_key(struct gexi_am_sd *sd, uint8_t category,
                                         unsigned numargs)
{
    sd->key = GEXI_AM_SD_KEY(category, numargs) & ~(uint32_t)0xff;
}

/* The general Prepare of a Request: every check, then the small path or
 * the bound slots. */
GEXI_AM_NP_INLINE gex_AM_SrcDesc_t np_prepare_request(const char *func, uint8_t category,
                                                      gex_TM_t tm, gex_Rank_t rank,
                                                      const void *client_buf, size_t least,
                                                      size_t most, void *dest_addr,
                                                      gex_Event_t *lc_opt, gex_Flags_t flags,
                                                      unsigned numargs)
{
    if (GEXI_UNLIKELY(gexi_am_np_request_target_bad(tm, rank)))
        gexi_am_np_bad_request_target(category, tm, rank);
    np_check_prepare(func, category, 1, client_buf, least, most, lc_opt, numargs);
    gexi_am_np_check_request_context(category);
    gex_Rank_t jobrank;
    gex_EP_Index_t dst_ep;
    gexi_tm_peer(tm, rank, &jobrank, &dst_ep);
    struct gexi_ep *lep = gexi_tm_local_ep(tm);
    struct gexi_am_sd *sd = &gexi_am_sds[0];
    np_set_header(sd, category, 1, numargs, lep->index, dst_ep);
    sd->p_jobrank = jobrank;   /* also for the small path: debug Commits check a Long's dest */
    sd->lc_opt = lc_opt;
    sd->dest_addr = dest_addr;
    /* the small path talks to no conduit: nothing to serialize */
    if (np_is_small(category, client_buf, most, flags))
        return np_prepare_small(sd, GEXI_AM_SD_KEY(category, numargs), (uintptr_t)jobrank,
                                most);
    sd->m.payload = (void *)client_buf;
    sd->m.dest_addr = dest_addr;
    np_unprepared_key(sd, category, numargs);
    /* issue 9: a serialized EP is polled by the thread that uses it */
    const int ser = gexi_ep_ser_enter(lep, 1);
    gex_AM_SrcDesc_t r = np_prepare(func, sd, category, jobrank, NULL, least, most,
                                    flags);
    gexi_ep_ser_leave(lep, ser);
    return r;
}

GEXI_AM_NP_INLINE gex_AM_SrcDesc_t np_prepare_reply(const char *func, uint8_t category,
                                                    gex_Token_t token, const void *client_buf,
                                                    size_t least, size_t most, void *dest_addr,
                                                    gex_Event_t *lc_opt, gex_Flags_t flags,
                                                    unsigned numargs)
{
    struct gexi_token *t = gexi_token_of(token);
    if (GEXI_UNLIKELY(gexi_am_np_reply_target_bad(t))) gexi_am_np_bad_reply_target(category, t);
    np_check_prepare(func, category, 0, client_buf, least, most, lc_opt, numargs);
    struct gexi_am_sd *sd = &gexi_am_sds[1];
    np_set_header(sd, category, 0, numargs, t->ep->index, t->src_ep);
    sd->lc_opt = lc_opt;
    sd->token = t;
    sd->dest_addr = dest_addr;
    if (np_is_small(category, client_buf, most, flags))
        return np_prepare_small(sd, GEXI_AM_SD_KEY(category, numargs),
                                (uintptr_t)t->reply_ctx, most);
    sd->m.payload = (void *)client_buf;
    sd->m.dest_addr = dest_addr;
    np_unprepared_key(sd, category, numargs);
    return np_prepare(func, sd, category, t->src_jobrank, t->reply_ctx, least, most,
                      flags);
}

/* The fast path of a Prepare: a library buffer (client_buf and lc_opt NULL)
 * with every argument right, the case of a client that assembles its
 * payload in place.  Its checks are the general path's for that case; any
 * other Prepare, wrong ones included, takes the general path, out of line.
 * The small path then returns without saving a register; the conduit's
 * (or the reference) prepare is one more out-of-line step that skips the
 * general path's checks.  Debug builds always take the general path (it
 * also checks the handler-context rules). */
#ifdef GEX_DEBUG
#define GEXI_AM_NP_FAST 0
#else
#define GEXI_AM_NP_FAST 1
#endif
GEXI_AM_NP_INLINE int np_fast_ok(uint8_t category, int is_request, const void *client_buf,
                                 size_t least, size_t most, gex_Event_t *lc_opt,
                                 unsigned numargs)
{
    /* plain branches: combining the tests with & costs the callers
     * registers to save */
    return GEXI_AM_NP_FAST && GEXI_LIKELY(!client_buf && !lc_opt) && GEXI_LIKELY(numargs <= 16) &&
           GEXI_LIKELY(least <= most) &&
           GEXI_LIKELY(gexi_am_sds[!is_request].state == GEXI_SD_FREE);
}

/* The fast path's LEAST_ALLOC limit (np_check_prepare's), tested where it
 * can matter: a Medium on the small path has least <= most <=
 * np_small_max <= MaxMedium = its limit, so it is tested after the small
 * path; a Long's limit (the reference buffer) may be below np_small_max,
 * so before it.  At the wrong place it returns 1 and changes nothing. */
GEXI_AM_NP_INLINE int np_fast_least_ok(uint8_t category, int is_request, int before_small,
                                       size_t least)
{
    if ((category == GEX_CONDUIT_AM_LONG) != before_small) return 1;
    return GEXI_LIKELY(least <= gexi_am.np_alloc_max[category == GEX_CONDUIT_AM_LONG][is_request]);
}

/* The fast path's call of the bound prepare (sd->m's header, lc_opt and
 * dest_addr are filled), one out-of-line copy per category and direction
 * (GEXI_AM_NP_BOUND below).  A serialized EP (issue 9: polled by the
 * thread that uses it) brackets the call with gexi_ep_ser_enter/leave;
 * the other EPs keep nothing live across it. */
__attribute__((noinline)) static gex_AM_SrcDesc_t
np_prepare_request_bound_ser(const char *func, uint8_t category, struct gexi_ep *lep,
                             gex_Rank_t jobrank, size_t least, size_t most,
                             gex_Flags_t flags)
{
    const int ser = gexi_ep_ser_enter(lep, 1);
    gex_AM_SrcDesc_t r = np_prepare(func, &gexi_am_sds[0], category, jobrank, NULL,
                                    least, most, flags);
    gexi_ep_ser_leave(lep, ser);
    return r;
}

#define GEXI_AM_NP_BOUND(NAME, CAT)                                                            \
    __attribute__((noinline)) static gex_AM_SrcDesc_t                                         \
    NAME##_request_bound(struct gexi_ep *lep, gex_Rank_t jobrank, size_t least, size_t most,   \
                         gex_Flags_t flags)                                                    \
    {                                                                                         \
        struct gexi_am_sd *sd = &gexi_am_sds[0];                                              \
        sd->m.payload = NULL;                                                                 \
        sd->m.dest_addr = CAT == GEX_CONDUIT_AM_LONG ? sd->dest_addr : NULL;                  \
        if (GEXI_UNLIKELY(lep->flags & GEX_FLAG_EP_SERIALIZED))                               \
            return np_prepare_request_bound_ser("gex_AM_PrepareRequest" #NAME, CAT, lep,       \
                                                jobrank, least, most, flags);                 \
        return np_prepare("gex_AM_PrepareRequest" #NAME, sd, CAT, jobrank, NULL, least, most,  \
                          flags);                                                             \
    }                                                                                         \
    __attribute__((noinline)) static gex_AM_SrcDesc_t                                         \
    NAME##_reply_bound(const struct gexi_token *t, size_t least, size_t most,                  \
                       gex_Flags_t flags)                                                      \
    {                                                                                         \
        struct gexi_am_sd *sd = &gexi_am_sds[1];                                              \
        sd->m.payload = NULL;                                                                 \
        sd->m.dest_addr = CAT == GEX_CONDUIT_AM_LONG ? sd->dest_addr : NULL;                  \
        return np_prepare("gex_AM_PrepareReply" #NAME, sd, CAT, t->src_jobrank,                \
                          t->reply_ctx, least, most, flags);                                  \
    }
GEXI_AM_NP_BOUND(Medium, GEX_CONDUIT_AM_MEDIUM)
GEXI_AM_NP_BOUND(Long, GEX_CONDUIT_AM_LONG)

#define GEXI_AM_NP_PREPARE_REQUEST(NAME, CAT, KIND)                                                \
    __attribute__((noinline)) static gex_AM_SrcDesc_t                                         \
    NAME##_general(gex_TM_t tm, gex_Rank_t rank, const void *client_buf, size_t least,        \
                   size_t most, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,      \
                   unsigned numargs)                                                          \
    {                                                                                         \
        return np_prepare_request(#NAME, CAT, tm, rank, client_buf, least, most, dest_addr,   \
                                  lc_opt, flags, numargs);                                    \
    }                                                                                         \
    GEXI_AM_NP_INLINE gex_AM_SrcDesc_t NAME##_fast(gex_TM_t tm, gex_Rank_t rank,             \
                                                  const void *client_buf, size_t least,      \
                                                  size_t most, void *dest_addr,              \
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,    \
                                                  unsigned numargs)                          \
    {                                                                                         \
        if (GEXI_LIKELY(tm != NULL && rank < gexi_tm_addr_size(tm) &&                        \
                        np_fast_ok(CAT, 1, client_buf, least, most, lc_opt, numargs) &&       \
                        np_fast_least_ok(CAT, 1, 1, least))) {                                 \
            gex_Rank_t jobrank;                                                               \
            gex_EP_Index_t dst_ep;                                                            \
            gexi_tm_peer(tm, rank, &jobrank, &dst_ep);                                        \
            struct gexi_ep *lep = gexi_tm_local_ep(tm);                                       \
            struct gexi_am_sd *sd = &gexi_am_sds[0];                                          \
            np_set_header(sd, CAT, 1, numargs, lep->index, dst_ep);                           \
            sd->lc_opt = NULL;                                                                \
            sd->dest_addr = dest_addr;                                                        \
            if (np_is_small(CAT, NULL, most, flags))                                          \
                return np_prepare_small(sd, GEXI_AM_SD_KEY(CAT, numargs), (uintptr_t)jobrank, \
                                        most);                                                \
            if (GEXI_LIKELY(np_fast_least_ok(CAT, 1, 0, least))) {                            \
                np_unprepared_key(sd, CAT, numargs);                                          \
                return KIND##_request_bound(lep, jobrank, least, most, flags);                \
            }                                                                                 \
        }                                                                                     \
        return NAME##_general(tm, rank, client_buf, least, most, dest_addr, lc_opt, flags,    \
                              numargs);                                                       \
    }

#define GEXI_AM_NP_PREPARE_REPLY(NAME, CAT, KIND)                                                  \
    __attribute__((noinline)) static gex_AM_SrcDesc_t                                         \
    NAME##_general(gex_Token_t token, const void *client_buf, size_t least, size_t most,      \
                   void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, unsigned numargs) \
    {                                                                                         \
        return np_prepare_reply(#NAME, CAT, token, client_buf, least, most, dest_addr,        \
                                lc_opt, flags, numargs);                                      \
    }                                                                                         \
    GEXI_AM_NP_INLINE gex_AM_SrcDesc_t NAME##_fast(gex_Token_t token, const void *client_buf,\
                                                  size_t least, size_t most,                 \
                                                  void *dest_addr, gex_Event_t *lc_opt,      \
                                                  gex_Flags_t flags, unsigned numargs)       \
    {                                                                                         \
        struct gexi_token *t = gexi_token_of(token);                                          \
        if (GEXI_LIKELY(t != NULL && t->is_req && !t->replied &&                              \
                        np_fast_ok(CAT, 0, client_buf, least, most, lc_opt, numargs) &&       \
                        np_fast_least_ok(CAT, 0, 1, least))) {                                 \
            struct gexi_am_sd *sd = &gexi_am_sds[1];                                          \
            np_set_header(sd, CAT, 0, numargs, t->ep->index, t->src_ep);                      \
            sd->lc_opt = NULL;                                                                \
            sd->token = t;                                                                    \
            sd->dest_addr = dest_addr;                                                        \
            if (np_is_small(CAT, NULL, most, flags))                                          \
                return np_prepare_small(sd, GEXI_AM_SD_KEY(CAT, numargs),                     \
                                        (uintptr_t)t->reply_ctx, most);                       \
            if (GEXI_LIKELY(np_fast_least_ok(CAT, 0, 0, least))) {                            \
                np_unprepared_key(sd, CAT, numargs);                                          \
                return KIND##_reply_bound(t, least, most, flags);                             \
            }                                                                                 \
        }                                                                                     \
        return NAME##_general(token, client_buf, least, most, dest_addr, lc_opt, flags,       \
                              numargs);                                                       \
    }

GEXI_AM_NP_PREPARE_REQUEST(gex_AM_PrepareRequestMedium, GEX_CONDUIT_AM_MEDIUM, Medium)
GEXI_AM_NP_PREPARE_REPLY(gex_AM_PrepareReplyMedium, GEX_CONDUIT_AM_MEDIUM, Medium)
GEXI_AM_NP_PREPARE_REQUEST(gex_AM_PrepareRequestLong, GEX_CONDUIT_AM_LONG, Long)
GEXI_AM_NP_PREPARE_REPLY(gex_AM_PrepareReplyLong, GEX_CONDUIT_AM_LONG, Long)

/* ---- Prepare ---- */
gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                             size_t least_payload, size_t most_payload,
                                             gex_Event_t *lc_opt, gex_Flags_t flags,
                                             unsigned int numargs)
{
    return gex_AM_PrepareRequestMedium_fast(tm, rank, client_buf, least_payload, most_payload,
                                            NULL, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs)
{
    return gex_AM_PrepareReplyMedium_fast(token, client_buf, least_payload, most_payload, NULL,
                                          lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           void *dest_addr, gex_Event_t *lc_opt,
                                           gex_Flags_t flags, unsigned int numargs)
{
    return gex_AM_PrepareRequestLong_fast(tm, rank, client_buf, least_payload, most_payload,
                                          dest_addr, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                         size_t least_payload, size_t most_payload,
                                         void *dest_addr, gex_Event_t *lc_opt,
                                         gex_Flags_t flags, unsigned int numargs)
{
    return gex_AM_PrepareReplyLong_fast(token, client_buf, least_payload, most_payload,
                                        dest_addr, lc_opt, flags, numargs);
}

/* ---- Commit of an inline-prepared AM (am_internal.h) ----
 * The bodies, with the category a compile-time constant, and one
 * out-of-line function per category and direction. */
int gexi_am_np_inline_send_request_medium(struct gexi_am_sd *sd, gex_AM_Index_t handler,
                                          size_t nbytes, gex_Flags_t commit_flags,
                                          unsigned nargs, const gex_AM_Arg_t *args)
{
    return gexi_am_np_inline_request(sd, GEX_CONDUIT_AM_MEDIUM, handler, nbytes, NULL,
                                     commit_flags, nargs, args);
}
int gexi_am_np_inline_send_reply_medium(struct gexi_am_sd *sd, gex_AM_Index_t handler,
                                        size_t nbytes, gex_Flags_t commit_flags, unsigned nargs,
                                        const gex_AM_Arg_t *args)
{
    return gexi_am_np_inline_reply(sd, GEX_CONDUIT_AM_MEDIUM, handler, nbytes, NULL,
                                   commit_flags, nargs, args);
}
/* IMMEDIATE and short of resources: a no-op, the descriptor is INLINE again
 * and its token unreplied (gexi_am_np_inline_reply, am_internal.h); else
 * fatal. */
int gexi_am_np_inline_reply_refused(int rc)
{
    struct gexi_am_sd *sd = &gexi_am_sds[1];
    gexi_token_of((gex_Token_t)sd->p_target)->replied = 0;
    sd->np.buf = sd->small;
    sd->state = GEXI_SD_INLINE;
    /* conduit ABI: EAGAIN only for an injection with GEX_FLAG_IMMEDIATE */
    return gexi_am_result(rc, rc == GEX_CONDUIT_EAGAIN ? GEX_FLAG_IMMEDIATE : 0);
}

/* The target an inline Prepare parked (team and rank, or token), checked as
 * the library's Prepare checks it. */
static void np_inline_check_target(const struct gexi_am_sd *sd, uint8_t category,
                                   int is_request)
{
    if (is_request) {
        const gex_TM_t tm = (gex_TM_t)sd->p_target;
        if (gexi_am_np_request_target_bad(tm, sd->p_rank))
            gexi_am_np_bad_request_target(category, tm, sd->p_rank);
    } else {
        const struct gexi_token *t = gexi_token_of((gex_Token_t)sd->p_target);
        if (gexi_am_np_reply_target_bad(t)) gexi_am_np_bad_reply_target(category, t);
    }
}

static void np_inline_materialize(struct gexi_am_sd *sd, int is_request)
{
    const uint8_t category = sd->key_category;
    const unsigned nargs = sd->key_nargs;
    void *const dest = category == GEX_CONDUIT_AM_LONG ? (void *)sd->np.priv[0] : NULL;
    np_inline_check_target(sd, category, is_request);
    if (is_request) {
        const gex_TM_t tm = (gex_TM_t)sd->p_target;
        gexi_am_np_check_request_context(category);
        gex_Rank_t jobrank;
        gex_EP_Index_t dst_ep;
        gexi_tm_peer(tm, sd->p_rank, &jobrank, &dst_ep);
        np_set_header(sd, category, 1, nargs, gexi_tm_local_ep(tm)->index, dst_ep);
        sd->p_jobrank = jobrank;
        sd->np.priv[0] = (uintptr_t)jobrank;
    } else {
        struct gexi_token *t = gexi_token_of((gex_Token_t)sd->p_target);
        np_set_header(sd, category, 0, nargs, t->ep->index, t->src_ep);
        sd->token = t;
        sd->np.priv[0] = (uintptr_t)t->reply_ctx;
    }
    sd->lc_opt = NULL;
    sd->dest_addr = dest;
    sd->slots = &gexi_am_np_small_slots;
    sd->key = GEXI_AM_SD_KEY(category, nargs);
}

int gexi_am_np_commit_inline_slow(const char *func, gex_AM_SrcDesc_t sd, uint8_t category,
                                  int is_request, gex_AM_Index_t handler, size_t nbytes,
                                  void *dest_addr, gex_Flags_t commit_flags, unsigned nargs,
                                  const gex_AM_Arg_t *args)
{
    np_inline_materialize((struct gexi_am_sd *)sd, is_request);
    return gexi_am_np_commit_general(func, sd, category, is_request, handler, nbytes, dest_addr,
                                     commit_flags, nargs, args);
}

int gexi_am_np_commit_long_request(const char *func, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                   size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                                   unsigned nargs, const gex_AM_Arg_t *args)
{
    return gexi_am_np_commit_general(func, sd, GEX_CONDUIT_AM_LONG, 1, handler, nbytes, dest_addr,
                                     commit_flags, nargs, args);
}
int gexi_am_np_commit_long_reply(const char *func, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                 size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                                 unsigned nargs, const gex_AM_Arg_t *args)
{
    return gexi_am_np_commit_general(func, sd, GEX_CONDUIT_AM_LONG, 0, handler, nbytes, dest_addr,
                                     commit_flags, nargs, args);
}

/* ---- Commit (am_internal.h, gexi_am_np_commit): its failure path ---- */
int gexi_am_np_commit_failed(int is_request, int rc, gex_Flags_t commit_flags)
{
    gexi_am_sds[!is_request].state = GEXI_SD_PREPARED;   /* debug builds: it was COMMITTING */
    return gexi_am_result(rc, commit_flags);
}

/* ---- Source descriptor queries ---- */
GEXI_AM_NP_INLINE const struct gexi_am_sd *np_live_sd(const char *func, gex_AM_SrcDesc_t sd_h)
{
    const struct gexi_am_sd *sd = (const struct gexi_am_sd *)sd_h;
    if (GEXI_UNLIKELY((sd != &gexi_am_sds[0] && sd != &gexi_am_sds[1]) ||
                      !gexi_am_sd_open(sd->state)))
        gexi_am_np_bad_sd(func, sd, sd == &gexi_am_sds[1] ? gexi_am_sds[1].key_category
                                                          : gexi_am_sds[0].key_category,
                          sd != &gexi_am_sds[1], sd ? sd->key_nargs : 0);
    return sd;
}

/* The exported functions behind the inline queries of ext.h (the names in
 * parentheses: those are function-like macros for clients).  They check
 * everything, so old binaries and the inline forms' fallback diagnose a
 * descriptor of another thread, a consumed one and GEX_AM_SRCDESC_NO_OP. */
void *(gex_AM_SrcDescAddr)(gex_AM_SrcDesc_t sd)
{
    return np_live_sd("gex_AM_SrcDescAddr", sd)->np.buf;
}

size_t (gex_AM_SrcDescSize)(gex_AM_SrcDesc_t sd)
{
    return np_live_sd("gex_AM_SrcDescSize", sd)->np.size;
}

/* ---- Cancel (spec: "Returns 0 on success, non-zero on error") ---- */
static int np_cancel(const char *func, gex_AM_SrcDesc_t sd_h, uint8_t category, int is_request,
                     gex_Flags_t flags)
{
    struct gexi_am_sd *sd = (struct gexi_am_sd *)sd_h;
    if (GEXI_UNLIKELY(sd != &gexi_am_sds[!is_request] || !gexi_am_sd_open(sd->state) ||
                      sd->key_category != category)) {
        if (sd == NULL)
            GEXI_RETURN_ERR(BAD_ARG, "sd is GEX_AM_SRCDESC_NO_OP");
        if (sd != &gexi_am_sds[0] && sd != &gexi_am_sds[1])
            GEXI_RETURN_ERR(BAD_ARG, "sd %p was not prepared by this thread", (void *)sd);
        if (!gexi_am_sd_open(sd->state))
            GEXI_RETURN_ERR(BAD_ARG, "sd was already consumed by a Commit or Cancel");
        GEXI_RETURN_ERR(BAD_ARG, "sd comes from a gex_AM_Prepare%s%s",
                        sd == &gexi_am_sds[0] ? "Request" : "Reply",
                        np_cat_name(sd->key_category));
    }
    if (flags) GEXI_RETURN_ERR(BAD_ARG, "flags must be zero (got 0x%x)", (unsigned)flags);
    if (sd->state == GEXI_SD_INLINE) {
        /* nothing reserved; the Prepare's target is checked here as a
         * Commit would (a fault is fatal, as at the Prepare) */
        np_inline_check_target(sd, category, is_request);
        gexi_am_np_consumed(sd);
        return GASNET_OK;
    }
    int rc = sd->slots->cancel(gexi_core.conduit, &sd->np);
    gexi_am_np_consumed(sd);    /* whatever happened */
    if (rc != GEX_CONDUIT_OK)
        GEXI_RETURN_ERR(RESOURCE, "%s: cancel failed in %s (code %d)", func, sd->slots->from, rc);
    return GASNET_OK;
}

int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    return np_cancel(__func__, sd, GEX_CONDUIT_AM_MEDIUM, 1, flags);
}

int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    return np_cancel(__func__, sd, GEX_CONDUIT_AM_MEDIUM, 0, flags);
}

int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    return np_cancel(__func__, sd, GEX_CONDUIT_AM_LONG, 1, flags);
}

int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    return np_cancel(__func__, sd, GEX_CONDUIT_AM_LONG, 0, flags);
}

/* ---- Debug builds: polling or waiting between Prepare and Commit ----
 * Every gasnet_AMPoll, gex_Event_Wait, gex_NBI_Wait, ... runs the progress
 * hooks; the conduit's own waits inside a Prepare or Commit do not. */
#ifdef GEX_DEBUG
static void np_progress_check(void)
{
    gexi_am_check_no_open_sd("a poll or wait");
}
void gexi_am_np_debug_bind(void)
{
    gexi_register_progress(np_progress_check);
}
#else
void gexi_am_np_debug_bind(void) {}
#endif
