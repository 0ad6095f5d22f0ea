/*
 * am_internal.h: libgex-am's internal interface.  The fixed-payload AM
 * path is one inline function per direction, shared by the 102 generated
 * public entry points (am_fixed_gen.c), ending in one indirect call through
 * the layer's dispatch table, which bind() fills at client init.
 *
 * Negotiated-payload AM (NPAM, spec: "Negotiated-payload AM APIs") works
 * the same way: Prepare (am_np.c) and the 136 generated Commit entry points
 * (am_np_gen.c) end in one indirect call through gexi_am.np[category], whose
 * slots have the conduit ABI 1.1 signatures (am_prepare / am_commit /
 * am_cancel).  bind() puts there either the reference implementation
 * (am_np_ref.c: a library buffer or the client's, and a fixed-payload send
 * at Commit) or the conduit's own ops when it offers them for that category
 * (GEX_CONDUIT_CAP_NPAM_*), unless GEX_FORCE_REFERENCE=am.  The source
 * descriptor is per thread and per direction (gexi_am_sds), because the only
 * nesting the spec allows is a Reply prepared by a Request handler that runs
 * while this thread waits inside a Request's Commit.
 */
#ifndef GEX_AM_INTERNAL_H
#define GEX_AM_INTERNAL_H

#ifndef GEXI_BUILDING_GEX
#error "am_internal.h is internal to GEX"
#endif
/* libgex-am defines what ext.h's inline Prepare reads (struct gexi_am_sd
 * below is its own view of gexi_am_sds): ext.h's declarations are the
 * clients' view only. */
#define GEXI_AM_NP_LIBRARY 1
#include "core_layer.h"

typedef int gexi_am_request_fn(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                               const struct gex_conduit_am *m, gex_Flags_t flags);
typedef int gexi_am_reply_fn(struct gex_conduit *c, void *reply_ctx,
                             const struct gex_conduit_am *m, gex_Flags_t flags);

/* Negotiated-payload slots: exactly the conduit ABI 1.1 ops. */
typedef int gexi_am_prepare_fn(struct gex_conduit *c, gex_Rank_t dst_jobrank, void *reply_ctx,
                               const struct gex_conduit_am *m, size_t least, size_t most,
                               gex_Flags_t flags, struct gex_conduit_np *np);
typedef int gexi_am_commit_fn(struct gex_conduit *c, struct gex_conduit_np *np,
                              const struct gex_conduit_am *m, gex_Flags_t flags);
typedef int gexi_am_cancel_fn(struct gex_conduit *c, struct gex_conduit_np *np);
struct gexi_am_np_slots {
    gexi_am_prepare_fn *prepare;
    gexi_am_commit_fn *commit;
    gexi_am_cancel_fn *cancel;
    const char *from;              /* "reference" or the conduit's name */
};
#define GEXI_AM_NP_MEDIUM 0
#define GEXI_AM_NP_LONG   1

/* The layer's dispatch table (am_layer.c). */
struct gexi_am_impl {
    gexi_am_request_fn *request;
    gexi_am_reply_fn *reply;
    const char *request_from, *reply_from;
    struct gexi_am_np_slots np[2];     /* [GEXI_AM_NP_MEDIUM], [GEXI_AM_NP_LONG] */
    /* Largest least_payload of a Prepare with a library buffer
     * (GEX_FLAG_AM_PREPARE_LEAST_ALLOC), [category slot][is_request]. */
    size_t np_alloc_max[2][2];
    /* Small negotiated-payload AMs (am_np.c, "small path"): a Prepare with
     * a library buffer, most_payload <= np_small_max[category slot] and no
     * GEX_FLAG_IMMEDIATE gets the descriptor's own scratch buffer and its
     * Commit is a fixed-payload send.  0: off (that category's reference
     * slots are bound, or GEX_AM_NP_SMALL=0). */
    size_t np_small_max[2];
    /* The test the Prepares make: most_payload < np_small_lim[category slot],
     * i.e. np_small_max + 1, and 0 when off (so that "off" holds for a
     * most_payload of 0 too). */
    size_t np_small_lim[2];
    /* Loopback (am_loopback.c): AMs to this jobrank run their handler
     * inside the sending call.  This process's jobrank, or GEX_RANK_INVALID
     * when GEX_AM_LOOPBACK=conduit (or libgex-core is too old to deliver
     * for us): the one compare the send paths make costs nothing more
     * when it is off. */
    gex_Rank_t loopback_rank;
    /* Negotiated-payload Longs to oneself get the destination as their
     * buffer (am_loopback.c): where the conduit's own Long slots are bound
     * and zero-copy into mapped destinations (a shared-memory conduit), so
     * that a client sees the same buffers for itself as for its peers. */
    int np_loopback_zero_copy;
};
extern struct gexi_am_impl gexi_am;

/* ---- Loopback (am_loopback.c) ----
 * A Request to this process (and the Reply to such a Request) does not
 * go through the conduit: the payload is copied (Medium: into a buffer of
 * the call's own; Long: to dest_addr) and core runs the handler before the
 * send returns, as GASNet's loopback path does.  Programs written for
 * GASNet rely on it: a thread that sends itself an AM and then waits for
 * the handler's effect without polling (GASNet's testcontend).  The
 * Request handler's token carries GEXI_AM_LOOPBACK_CTX as its reply_ctx,
 * so every Reply path must send through gexi_am_send_reply(). */
extern const char gexi_am_loopback_tag __attribute__((visibility("hidden")));
#define GEXI_AM_LOOPBACK_CTX ((void *)&gexi_am_loopback_tag)
int gexi_am_loopback_request(gex_Rank_t jobrank, const struct gex_conduit_am *m,
                             gex_Flags_t flags);
int gexi_am_loopback_reply(const struct gex_conduit_am *m);
void gexi_am_loopback_bind(void);
/* Negotiated-payload Longs to oneself: zero copy into the destination. */
extern const struct gexi_am_np_slots gexi_am_np_loopback_long_slots
    __attribute__((visibility("hidden")));

/* Every send of libgex-am ends in one of these two. */
static inline int gexi_am_send_request(gex_Rank_t jobrank, const struct gex_conduit_am *m,
                                       gex_Flags_t flags)
{
    if (GEXI_UNLIKELY(jobrank == gexi_am.loopback_rank))
        return gexi_am_loopback_request(jobrank, m, flags);
    return gexi_am.request(gexi_core.conduit, jobrank, m, flags);
}
static inline int gexi_am_send_reply(void *reply_ctx, const struct gex_conduit_am *m,
                                     gex_Flags_t flags)
{
    if (GEXI_UNLIKELY(reply_ctx == GEXI_AM_LOOPBACK_CTX)) return gexi_am_loopback_reply(m);
    return gexi_am.reply(gexi_core.conduit, reply_ctx, m, flags);
}

/* ---- Negotiated payload: the reference slots (am_np_ref.c) ---- */
gexi_am_prepare_fn gexi_am_np_ref_prepare;
gexi_am_commit_fn gexi_am_np_ref_commit;
gexi_am_cancel_fn gexi_am_np_ref_cancel;
/* Size of the reference library buffer for Longs (GEX_AM_NP_LONG_BUFFER),
 * fixed at bind. */
void gexi_am_np_ref_bind(void);
extern size_t gexi_am_np_ref_long_buf;
/* Debug builds: registers the progress hook that reports polls and waits
 * between a Prepare and its Commit (am_np.c); a no-op otherwise. */
void gexi_am_np_debug_bind(void);

/* ---- Negotiated payload: source descriptors (am_np.c) ----
 * A gex_AM_SrcDesc_t points at one of the calling thread's two descriptors:
 * [0] for Requests, [1] for Replies. */
/* Descriptor states (the low byte of key).  INLINE: prepared by the
 * client-side inline Prepare of ext.h (Mediums with a library buffer): the
 * descriptor holds the Prepare's arguments unchecked (p_target: the team or
 * the token, p_rank), which the Commit or Cancel validates and resolves. */
enum { GEXI_SD_FREE = 0, GEXI_SD_PREPARED = 1, GEXI_SD_COMMITTING = 2, GEXI_SD_INLINE = 3 };
/* Prepared, by either path?  (COMMITTING is not: see gexi_am_np_commit.) */
static inline int gexi_am_sd_open(uint8_t state)
{
    return (state | 2u) == 3u;   /* PREPARED (1) or INLINE (3), in one compare */
}
/* Largest GEX_AM_NP_SMALL (bytes of scratch buffer per descriptor). */
#define GEXI_AM_NP_SMALL_CAP 512u
/* The frozen layout ext.h's inline Prepare relies on (docs/am.md). */
#define GEXI_AM_SD_HEAD_BYTES 64u
#define GEXI_AM_SD_STRIDE_BYTES 768u
/* Defaults of GEX_AM_NP_SMALL (Mediums) and GEX_AM_NP_SMALL_LONG, measured
 * with bench/am/npam_bench and bench/am/icount.sh (docs/am.md, issue #3):
 * up to 512 bytes the copy into the smp ring costs less than a ring slot
 * written in place (fewer instructions per message, and 1-6% against
 * 7-20% slower than fixed payload on a quiet machine at 128-512 bytes);
 * from 1 KiB the ring slot wins, as the zero-copy Long does. */
#define GEXI_AM_NP_SMALL_DEFAULT 512u
#define GEXI_AM_NP_SMALL_LONG_DEFAULT 512u
/* The slots of a small-path descriptor (am_np.c): commit and cancel only. */
extern const struct gexi_am_np_slots gexi_am_np_small_slots;
struct gexi_am_sd {
    /* ---- The head, frozen (library ABI, docs/am.md): what ext.h's inline
     * gex_AM_SrcDescAddr/Size and inline Prepare read and write. ---- */
    /* np.buf and np.size are the public prefix (ext.h, struct
     * gexi_am_srcdesc_prefix).  np.buf is non-NULL exactly while the
     * descriptor is prepared: gexi_am_np_consumed() clears it. */
    struct gex_conduit_np np;      /* buf, size and the implementation's reservation */
    /* state (GEXI_SD_*) and, while prepared, the category and numargs of the
     * Prepare, as one word: a Commit checks all three with one compare
     * against GEXI_AM_SD_KEY(category, nargs) (or _KEY_INLINE). */
    union {
        struct {
            uint8_t state;         /* GEXI_SD_* */
            uint8_t key_category;  /* = the Prepare's category while prepared */
            uint8_t key_nargs;     /* = the Prepare's numargs while prepared */
            uint8_t key_zero;
        };
        uint32_t key;
    };
    gex_Rank_t p_rank;             /* INLINE Request: the team rank (INLINE Long: the
                                    * Prepare's dest_addr is in np.priv[0]) */
    void *p_target;                /* INLINE: the gex_TM_t (Request) or gex_Token_t (Reply) */
    /* Small path (gexi_am.np_small_max) and inline Prepares: the library
     * buffer itself. */
    _Alignas(64) unsigned char small[GEXI_AM_NP_SMALL_CAP];
    /* ---- The rest is libgex-am's own; only its total size is frozen. ---- */
    union {
        struct {
            gex_Event_t *lc_opt;           /* NULL for a library buffer */
            void *dest_addr;               /* Long: the Prepare's dest_addr (NULL: any at Commit) */
            struct gexi_token *token;      /* Reply: the Request's token */
            const struct gexi_am_np_slots *slots;   /* who prepared it: they commit it */
            /* The message, handed to the slots: category, is_request, nargs
             * and the EPs are set by the Prepare (nargs is the Commit's [M]);
             * handler, args, payload, nbytes and dest_addr by the Commit. */
            struct gex_conduit_am m;
            /* A Prepare's arguments, for its out-of-line failure path
             * (am_np.c, np_prepare_failed), so that the common path keeps
             * nothing live across the call of the bound prepare. */
            size_t p_least, p_most;
            gex_Flags_t p_flags;
            gex_Rank_t p_jobrank;
        };
        unsigned char rest_[GEXI_AM_SD_STRIDE_BYTES - GEXI_AM_SD_HEAD_BYTES - GEXI_AM_NP_SMALL_CAP];
    };
};
/* Exported (GEX_AM_1.1) for ext.h's inline Prepare, which sees it as
 * struct gexi_am_sd_public[2]. */
extern GEXI_EXPORT __thread struct gexi_am_sd gexi_am_sds[2]
    __attribute__((tls_model("initial-exec")));
/* The inline Prepare serves most_payload < this, [0] Mediums, [1] Longs
 * (exported, GEX_AM_1.1): the small path's limits in release builds unless
 * GEX_AM_NP_INLINE=0; 0 (off) in debug builds unless GEX_AM_NP_INLINE=1,
 * so that they check every Prepare in the library. */
extern GEXI_EXPORT size_t gexi_am_np_inline_lim[2];
_Static_assert(offsetof(struct gexi_am_sd, np.buf) ==
               offsetof(struct gexi_am_srcdesc_prefix, addr) &&
               offsetof(struct gexi_am_sd, np.size) ==
               offsetof(struct gexi_am_srcdesc_prefix, size),
               "the public source-descriptor prefix (ext.h) is frozen");
_Static_assert(offsetof(struct gexi_am_sd, np.priv[0]) == 16 &&
               offsetof(struct gexi_am_sd, key) == 48 && offsetof(struct gexi_am_sd, p_rank) == 52 &&
               offsetof(struct gexi_am_sd, p_target) == 56 &&
               offsetof(struct gexi_am_sd, small) == GEXI_AM_SD_HEAD_BYTES &&
               sizeof(struct gexi_am_sd) == GEXI_AM_SD_STRIDE_BYTES &&
               GEX_CONDUIT_AM_MEDIUM == 1 && GEX_CONDUIT_AM_LONG == 2 && GEXI_SD_INLINE == 3,
               "the head of a source descriptor (ext.h, struct gexi_am_sd_public) is frozen");

#define GEXI_AM_SD_KEY(category, nargs) \
    ((uint32_t)GEXI_SD_PREPARED | (uint32_t)(category) << 8 | (uint32_t)(nargs) << 16)
#define GEXI_AM_SD_KEY_INLINE(category, nargs) \
    ((uint32_t)GEXI_SD_INLINE | (uint32_t)(category) << 8 | (uint32_t)(nargs) << 16)

/* A Commit or Cancel consumed the descriptor: the inline SrcDesc queries
 * (ext.h) now take the checked path, which reports the misuse. */
static inline void gexi_am_np_consumed(struct gexi_am_sd *sd)
{
    sd->state = GEXI_SD_FREE;
    sd->np.buf = NULL;
}

/* Misuse of a source descriptor (fatal, names the call and the problem). */
void gexi_am_np_bad_sd(const char *func, const struct gexi_am_sd *sd, uint8_t category,
                       int is_request, unsigned nargs) __attribute__((noreturn, cold));

/* Argument faults that the spec gives no return code for end the job with
 * a message naming the argument (am_layer.c). */
void gexi_am_bad_arg(const char *what, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Debug builds: a Long's destination must lie in a bound segment known here. */
void gexi_am_check_long_dest(const char *what, gex_Rank_t jobrank, gex_EP_Index_t ep,
                             const void *dest, size_t n);

static inline size_t gexi_am_max_payload(uint8_t category, int is_request)
{
    if (category == GEX_CONDUIT_AM_MEDIUM) return gexi_core.caps.am_max_medium;
    if (category == GEX_CONDUIT_AM_LONG)
        return is_request ? gexi_core.caps.am_max_long_request : gexi_core.caps.am_max_long_reply;
    return 0;
}

/* Debug builds: nothing may communicate between a Prepare and its Commit
 * or Cancel (spec: the interval is restricted like a Reply handler). */
static inline void gexi_am_check_no_open_sd(const char *what)
{
    if (GEXI_UNLIKELY(gexi_am_sd_open(gexi_am_sds[0].state) ||
                      gexi_am_sd_open(gexi_am_sds[1].state)))
        gexi_am_bad_arg("%s was issued between a gex_AM_Prepare%s and its Commit or Cancel "
                        "(spec: no communication in that interval)", what,
                        gexi_am_sd_open(gexi_am_sds[0].state) ? "Request*" : "Reply*");
}

/* Every build: a Medium or Long payload of nbytes > 0 needs a source
 * (otherwise the conduit faults far from the call, a bare SIGSEGV; RMA
 * checks the same).  One predictable compare next to the payload copy. */
static inline void gexi_am_check_src(uint8_t category, int is_request, const void *src,
                                     size_t nbytes)
{
    if (GEXI_UNLIKELY(category != GEX_CONDUIT_AM_SHORT && nbytes && !src))
        gexi_am_bad_arg("gex_AM_%s%s: source_addr is NULL with nbytes %zu",
                        is_request ? "Request" : "Reply",
                        category == GEX_CONDUIT_AM_LONG ? "Long" : "Medium", nbytes);
}

static inline const char *gexi_am_cat_name(uint8_t category)
{
    return category == GEX_CONDUIT_AM_SHORT ? "Short"
         : category == GEX_CONDUIT_AM_MEDIUM ? "Medium" : "Long";
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

/* spec: the GEX_FLAG_AM_PREPARE_LEAST_* flags are "invalid in
 * gex_AM_{Request,Reply}{Medium,Long}*() calls". */
static inline void gexi_am_check_fp_flags(gex_Flags_t flags)
{
    if (GEXI_UNLIKELY(flags & (GEX_FLAG_AM_PREPARE_LEAST_CLIENT | GEX_FLAG_AM_PREPARE_LEAST_ALLOC)))
        gexi_am_bad_arg("flags 0x%x: GEX_FLAG_AM_PREPARE_LEAST_* are only for the gex_AM_Max* "
                        "queries", (unsigned)flags);
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

/* ---- Memory kinds (issue 9, am_kind.c): Long payloads whose destination
 * is in a device segment or whose source is in the sender's are staged
 * through the kind's copy functions.  Each returns -1 when no device
 * memory is involved (the caller sends as usual), else the send's result. */
int gexi_am_kind_request(gex_Rank_t jobrank, gex_EP_Index_t src_ep, gex_EP_Index_t dst_ep,
                         gex_AM_Index_t handler, const void *src, size_t n, void *dest,
                         gex_Flags_t flags, unsigned nargs, const gex_AM_Arg_t *args);
int gexi_am_kind_reply(struct gexi_token *t, gex_AM_Index_t handler, const void *src, size_t n,
                       void *dest, gex_Flags_t flags, unsigned nargs, const gex_AM_Arg_t *args);
int gexi_am_kind_np_commit(struct gexi_am_sd *sd, int is_request, gex_AM_Index_t handler,
                           size_t n, void *dest, unsigned nargs, const gex_AM_Arg_t *args);
void gexi_am_kind_bind(void);

static inline int gexi_am_request(gex_TM_t tm, gex_Rank_t rank, uint8_t category,
                                  gex_AM_Index_t handler, const void *src, size_t nbytes,
                                  void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
                                  unsigned nargs, const gex_AM_Arg_t *args)
{
    /* the messages name the call (gex_AM_RequestMedium2, ...) and the argument */
    if (GEXI_UNLIKELY(!tm))
        gexi_am_bad_arg("gex_AM_Request%s%u: tm is GEX_TM_INVALID", gexi_am_cat_name(category),
                        nargs);
    if (GEXI_UNLIKELY(rank >= gexi_tm_addr_size(tm)))
        gexi_am_bad_arg("gex_AM_Request%s%u: rank %u is not below the team size %u",
                        gexi_am_cat_name(category), nargs, (unsigned)rank,
                        (unsigned)gexi_tm_addr_size(tm));
    if (category != GEX_CONDUIT_AM_SHORT) {
        gexi_am_check_lc(lc_opt, 1);
        gexi_am_check_fp_flags(flags);
        if (GEXI_UNLIKELY(nbytes > gexi_am_max_payload(category, 1)))
            gexi_am_bad_arg("gex_AM_Request%s%u: nbytes %zu exceeds the %s Request limit %zu",
                            gexi_am_cat_name(category), nargs, nbytes,
                            gexi_am_cat_name(category), gexi_am_max_payload(category, 1));
    }
    gexi_am_check_src(category, 1, src, nbytes);
#ifdef GEX_DEBUG
    if (gexi_handler_depth)
        gexi_am_bad_arg("an AM Request was issued inside an AM handler (spec: restricted context)");
    if (gexi_hsl_depth)
        gexi_am_bad_arg("an AM Request was issued while holding a handler-safe lock "
                        "(spec: restricted context)");
    gexi_am_check_no_open_sd("an AM Request");
#endif
    gex_Rank_t jobrank;
    gex_EP_Index_t dst_ep;
    gexi_tm_peer(tm, rank, &jobrank, &dst_ep);
#ifdef GEX_DEBUG
    /* clients' Longs only: the layers' own may target any memory of ours (a get's buffer) */
    if (category == GEX_CONDUIT_AM_LONG && handler >= GEX_AM_INDEX_BASE)
        gexi_am_check_long_dest("AM Long Request", jobrank, dst_ep, dest, nbytes);
#endif
    struct gexi_ep *lep = gexi_tm_local_ep(tm);
    const struct gex_conduit_am m = {
        .category = category, .is_request = 1, .handler = handler, .nargs = (uint8_t)nargs,
        .src_ep = lep->index, .dst_ep = dst_ep,
        .args = args, .payload = (void *)src, .nbytes = nbytes, .dest_addr = dest,
    };
    /* issue 9: a serialized EP is polled by the thread that uses it */
    const int ser = gexi_ep_ser_enter(lep, !gexi_handler_is_engine(handler));
    int rc = -1;
    if (category == GEX_CONDUIT_AM_LONG && gexi_mk_any_device())   /* issue 9 */
        rc = gexi_am_kind_request(jobrank, lep->index, dst_ep, handler, src, nbytes, dest, flags,
                                  nargs, args);
    if (rc < 0) rc = gexi_am_result(gexi_am_send_request(jobrank, &m, flags), flags);
    gexi_ep_ser_leave(lep, ser);
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
    gexi_am_check_src(category, 0, src, nbytes);
#ifdef GEX_DEBUG
    gexi_am_check_no_open_sd("an AM Reply");
    if (gexi_hsl_depth)
        gexi_am_bad_arg("an AM Reply was issued while holding a handler-safe lock "
                        "(spec: restricted context)");
#endif
    if (category != GEX_CONDUIT_AM_SHORT) {
        gexi_am_check_lc(lc_opt, 0);
        gexi_am_check_fp_flags(flags);
        if (GEXI_UNLIKELY(nbytes > gexi_am_max_payload(category, 0)))
            gexi_am_bad_arg("gex_AM_Reply%s%u: nbytes %zu exceeds the %s Reply limit %zu",
                            gexi_am_cat_name(category), nargs, nbytes,
                            gexi_am_cat_name(category), gexi_am_max_payload(category, 0));
    }
#ifdef GEX_DEBUG
    /* clients' Longs only: the layers' own may target any memory of ours (a get's buffer) */
    if (category == GEX_CONDUIT_AM_LONG && handler >= GEX_AM_INDEX_BASE)
        gexi_am_check_long_dest("AM Long Reply", t->src_jobrank, t->src_ep, dest, nbytes);
#endif
    const struct gex_conduit_am m = {
        .category = category, .is_request = 0, .handler = handler, .nargs = (uint8_t)nargs,
        .src_ep = t->ep->index, .dst_ep = t->src_ep,
        .args = args, .payload = (void *)src, .nbytes = nbytes, .dest_addr = dest,
    };
    int rc = -1;
    if (category == GEX_CONDUIT_AM_LONG && gexi_mk_any_device())   /* issue 9 */
        rc = gexi_am_kind_reply(t, handler, src, nbytes, dest, flags, nargs, args);
    if (rc < 0) rc = gexi_am_result(gexi_am_send_reply(t->reply_ctx, &m, flags), flags);
    if (rc == 0) {
        t->replied = 1;
        if (category != GEX_CONDUIT_AM_SHORT) gexi_am_complete_lc(lc_opt);
    }
    return rc;
}

/* A Commit whose send did not happen (am_np.c): the descriptor
 * (gexi_am_sds[!is_request]) stays prepared; 1 for an IMMEDIATE no-op,
 * else fatal.  Out of line, so that the common path keeps less live across
 * the send. */
int gexi_am_np_commit_failed(int is_request, int rc, gex_Flags_t commit_flags)
    __attribute__((cold));

/* A Prepare's target: team and rank, or the token to reply to.  The
 * library's Prepares check it, and so do the Commit or Cancel of an
 * inline-prepared descriptor (ext.h), which carries it unchecked; a fault
 * ends the job naming gex_AM_Prepare<Request|Reply><category> (am_np.c). */
static inline int gexi_am_np_request_target_bad(gex_TM_t tm, gex_Rank_t rank)
{
    return !tm || rank >= gexi_tm_addr_size(tm);
}
static inline int gexi_am_np_reply_target_bad(const struct gexi_token *t)
{
    return !t || !t->is_req || t->replied;
}
void gexi_am_np_bad_request_target(uint8_t category, gex_TM_t tm, gex_Rank_t rank)
    __attribute__((cold, noreturn));
void gexi_am_np_bad_reply_target(uint8_t category, const struct gexi_token *t)
    __attribute__((cold, noreturn));
/* Debug builds: a Request is not prepared inside a handler or while holding
 * an HSL (spec: restricted context). */
void gexi_am_np_bad_request_context(uint8_t category) __attribute__((cold, noreturn));
static inline void gexi_am_np_check_request_context(uint8_t category)
{
#ifdef GEX_DEBUG
    if (GEXI_UNLIKELY(gexi_handler_depth || gexi_hsl_depth))
        gexi_am_np_bad_request_context(category);
#else
    (void)category;
#endif
}

/* The Commit of an inline-prepared AM once the descriptor, nbytes,
 * commit_flags and (Long) dest_addr are checked and no memory kind is
 * involved: what gex_AM_Request/Reply{Medium,Long} do once their
 * arguments are known right, with the descriptor's buffer as the payload
 * (a fixed-payload send, as on the small path).  The Mediums' are out of
 * line (am_np.c), with the arguments of the send only: sharing the
 * generated Medium Commits with the general path below would cost both
 * paths registers to save (bench/am/icount.sh).  The Longs' are inlined
 * into the generated Long Commits, whose general path is out of line. */
int gexi_am_np_inline_reply_refused(int rc) __attribute__((cold, noinline));
static inline __attribute__((always_inline)) int
gexi_am_np_inline_request(struct gexi_am_sd *sd, uint8_t category, gex_AM_Index_t handler,
                          size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                          unsigned nargs, const gex_AM_Arg_t *args)
{
    const gex_TM_t tm = (gex_TM_t)sd->p_target;
    const gex_Rank_t rank = sd->p_rank;
    if (GEXI_UNLIKELY(gexi_am_np_request_target_bad(tm, rank)))
        gexi_am_np_bad_request_target(category, tm, rank);
    gexi_am_np_check_request_context(category);   /* GEX_AM_NP_INLINE=1 in a debug build */
    gex_Rank_t jobrank;
    gex_EP_Index_t dst_ep;
    gexi_tm_peer(tm, rank, &jobrank, &dst_ep);
    struct gexi_ep *lep = gexi_tm_local_ep(tm);
    const struct gex_conduit_am m = {
        .category = category, .is_request = 1, .handler = handler,
        .nargs = (uint8_t)nargs, .src_ep = lep->index, .dst_ep = dst_ep,
        .args = args, .payload = sd->small, .nbytes = nbytes, .dest_addr = dest_addr,
    };
#ifdef GEX_DEBUG
    /* the send may wait and run Request handlers, which may prepare Replies:
     * the debug checks of the Prepare..Commit interval look for open
     * descriptors (as gexi_am_np_commit_general's COMMITTING) */
    sd->state = GEXI_SD_COMMITTING;
#endif
    /* issue 9: a serialized EP is polled by the thread that uses it */
    const int ser = gexi_ep_ser_enter(lep, !gexi_handler_is_engine(handler));
    const int rc = gexi_am_send_request(jobrank, &m, commit_flags);
    gexi_ep_ser_leave(lep, ser);
    if (GEXI_UNLIKELY(rc != GEX_CONDUIT_OK)) {
        /* IMMEDIATE and short of resources: a no-op, the descriptor stays INLINE */
        sd->state = GEXI_SD_INLINE;
        return gexi_am_result(rc, commit_flags);
    }
    gexi_am_np_consumed(sd);
    return 0;
}

static inline __attribute__((always_inline)) int
gexi_am_np_inline_reply(struct gexi_am_sd *sd, uint8_t category, gex_AM_Index_t handler,
                        size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                        unsigned nargs, const gex_AM_Arg_t *args)
{
    struct gexi_token *t = gexi_token_of((gex_Token_t)sd->p_target);
    if (GEXI_UNLIKELY(gexi_am_np_reply_target_bad(t))) gexi_am_np_bad_reply_target(category, t);
#ifdef GEX_DEBUG
    if (gexi_hsl_depth)
        gexi_am_bad_arg("an AM Reply was issued while holding a handler-safe lock "
                        "(spec: restricted context)");
#endif
    const struct gex_conduit_am m = {
        .category = category, .is_request = 0, .handler = handler,
        .nargs = (uint8_t)nargs, .src_ep = t->ep->index, .dst_ep = t->src_ep,
        .args = args, .payload = sd->small, .nbytes = nbytes, .dest_addr = dest_addr,
    };
    /* Consumed before the send, so that nothing must survive the call but
     * its result (no registers to save); a refusal puts it back.  A Reply
     * waits only for the conduit's own progress (smp: reply rings, whose
     * handlers may not prepare; ofi and ucx: no handlers). */
    t->replied = 1;
    gexi_am_np_consumed(sd);
    const int rc = gexi_am_send_reply(t->reply_ctx, &m, commit_flags);
    if (GEXI_UNLIKELY(rc != GEX_CONDUIT_OK)) return gexi_am_np_inline_reply_refused(rc);
    return 0;
}

int gexi_am_np_inline_send_request_medium(struct gexi_am_sd *sd, gex_AM_Index_t handler,
                                          size_t nbytes, gex_Flags_t commit_flags,
                                          unsigned nargs, const gex_AM_Arg_t *args)
    __attribute__((noinline));
int gexi_am_np_inline_send_reply_medium(struct gexi_am_sd *sd, gex_AM_Index_t handler,
                                        size_t nbytes, gex_Flags_t commit_flags, unsigned nargs,
                                        const gex_AM_Arg_t *args) __attribute__((noinline));
/* The Commit of an inline-prepared descriptor that cannot be sent as it
 * is (a wrong nbytes, commit_flags or dest_addr, or memory kinds
 * involved): the descriptor becomes what a Prepare in the library would
 * have made of the same arguments (the small path's), after the Prepare's
 * checks, and gexi_am_np_commit_general reports the fault or sends it
 * (am_np.c).  Out of line, so that the generated Commits keep nothing
 * live across it. */
int gexi_am_np_commit_inline_slow(const char *func, gex_AM_SrcDesc_t sd, uint8_t category,
                                  int is_request, gex_AM_Index_t handler, size_t nbytes,
                                  void *dest_addr, gex_Flags_t commit_flags, unsigned nargs,
                                  const gex_AM_Arg_t *args) __attribute__((cold, noinline));

/* ---- Negotiated payload: the Commit shared by the 136 generated entry
 * points (spec: "gex_AM_Commit family calls"), for descriptors the library
 * prepared (gexi_am_np_commit below is the entry points' own).  Returns 0,
 * or 1 for a no-op (commit_flags has GEX_FLAG_IMMEDIATE and resources are
 * short; the descriptor stays prepared). ---- */
static inline __attribute__((always_inline)) int
gexi_am_np_commit_general(const char *func, gex_AM_SrcDesc_t sd_h, uint8_t category,
                          int is_request, gex_AM_Index_t handler, size_t nbytes, void *dest_addr,
                          gex_Flags_t commit_flags, unsigned nargs, const gex_AM_Arg_t *args)
{
    struct gexi_am_sd *sd = (struct gexi_am_sd *)sd_h;
    if (GEXI_UNLIKELY(sd != &gexi_am_sds[!is_request] ||
                      sd->key != GEXI_AM_SD_KEY(category, nargs)))
        gexi_am_np_bad_sd(func, sd, category, is_request, nargs);
    if (GEXI_UNLIKELY(nbytes > sd->np.size))
        gexi_am_bad_arg("%s: nbytes %zu exceeds gex_AM_SrcDescSize() = %zu", func, nbytes,
                        sd->np.size);
    if (category == GEX_CONDUIT_AM_LONG && GEXI_UNLIKELY(sd->dest_addr && dest_addr != sd->dest_addr))
        gexi_am_bad_arg("%s: dest_addr %p differs from the %p given to the Prepare", func,
                        dest_addr, sd->dest_addr);
    if (GEXI_UNLIKELY(commit_flags & ~GEX_FLAG_IMMEDIATE))
        gexi_am_bad_arg("%s: commit_flags 0x%x: only GEX_FLAG_IMMEDIATE is supported", func,
                        (unsigned)commit_flags);
#ifdef GEX_DEBUG
    /* as for fixed-payload Longs, clients' handlers only (debug builds
     * always take the general Prepare, which records the Request's
     * destination jobrank) */
    if (category == GEX_CONDUIT_AM_LONG && handler >= GEX_AM_INDEX_BASE)
        gexi_am_check_long_dest(func, is_request ? sd->p_jobrank : sd->token->src_jobrank,
                                sd->m.dst_ep, dest_addr, nbytes);
#endif
    if (category == GEX_CONDUIT_AM_LONG && gexi_mk_any_device() &&   /* issue 9 */
        gexi_am_kind_np_commit(sd, is_request, handler, nbytes, dest_addr, nargs, args) == 0)
        return 0;
    sd->m.handler = handler;
    sd->m.args = args;
    sd->m.payload = sd->np.buf;
    sd->m.nbytes = nbytes;
    if (category == GEX_CONDUIT_AM_LONG)   /* Mediums: no conduit reads it (conduit ABI) */
        sd->m.dest_addr = dest_addr;
#ifdef GEX_DEBUG
    /* While the commit runs, this thread communicates legitimately (a
     * reference commit may wait and run Request handlers that reply): the
     * debug checks of that rule look for PREPARED descriptors.  Other
     * builds leave it PREPARED (one store less before the conduit's lock):
     * only the same direction's nesting check reads it, and a commit never
     * runs a handler that prepares in its own direction. */
    sd->state = GEXI_SD_COMMITTING;
#endif
    int rc;
    if (sd->slots == &gexi_am_np_small_slots) {
        /* small path: the payload is in sd->small, send it as a fixed-payload
         * AM (a library buffer: no lc_opt to complete) */
        rc = is_request ? gexi_am_send_request((gex_Rank_t)sd->np.priv[0], &sd->m, commit_flags)
                        : gexi_am_send_reply((void *)sd->np.priv[0], &sd->m, commit_flags);
        if (GEXI_UNLIKELY(rc != GEX_CONDUIT_OK))
            return gexi_am_np_commit_failed(is_request, rc, commit_flags);
        gexi_am_np_consumed(sd);
        if (!is_request) sd->token->replied = 1;
        return 0;
    }
    rc = sd->slots->commit(gexi_core.conduit, &sd->np, &sd->m, commit_flags);
    if (GEXI_UNLIKELY(rc != GEX_CONDUIT_OK))
        return gexi_am_np_commit_failed(is_request, rc, commit_flags);
    gexi_am_np_consumed(sd);
    if (!is_request) sd->token->replied = 1;
    if (sd->lc_opt) gexi_am_complete_lc(sd->lc_opt);
    return 0;
}

/* gexi_am_np_commit_general of a Long, one out-of-line copy per direction
 * (am_np.c): inlined into the generated Long Commits, its registers would
 * be saved on their inline path too (GCC does not shrink-wrap them), and
 * the Longs it serves (zero copy, reference) carry payloads past the
 * small path's, where a call does not show. */
int gexi_am_np_commit_long_request(const char *func, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                   size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                                   unsigned nargs, const gex_AM_Arg_t *args)
    __attribute__((noinline));
int gexi_am_np_commit_long_reply(const char *func, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                 size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                                 unsigned nargs, const gex_AM_Arg_t *args)
    __attribute__((noinline));

/* Debug builds (with GEX_AM_NP_INLINE=1) send inline-prepared Longs through
 * the general Commit, which checks their destination range under the
 * Commit's own name. */
#ifdef GEX_DEBUG
#define GEXI_AM_NP_DEBUG_LONGS 1
#else
#define GEXI_AM_NP_DEBUG_LONGS 0
#endif

/* The Commit of the generated entry points: an inline-prepared descriptor
 * with every argument right goes straight to its send; anything else (the
 * library's own Prepares, every fault, memory kinds) to
 * gexi_am_np_commit_general, which reports what is wrong. */
static inline __attribute__((always_inline)) int
gexi_am_np_commit(const char *func, gex_AM_SrcDesc_t sd_h, uint8_t category, int is_request,
                  gex_AM_Index_t handler, size_t nbytes, void *dest_addr,
                  gex_Flags_t commit_flags, unsigned nargs, const gex_AM_Arg_t *args)
{
    struct gexi_am_sd *sd = (struct gexi_am_sd *)sd_h;
    if (sd == &gexi_am_sds[!is_request] &&
        GEXI_LIKELY(sd->key == GEXI_AM_SD_KEY_INLINE(category, nargs))) {
        if (GEXI_LIKELY(nbytes <= sd->np.size && !(commit_flags & ~GEX_FLAG_IMMEDIATE) &&
                        (category == GEX_CONDUIT_AM_MEDIUM ||
                         ((!sd->np.priv[0] || (void *)sd->np.priv[0] == dest_addr) &&
                          !gexi_mk_any_device() && !GEXI_AM_NP_DEBUG_LONGS)))) {
            if (category == GEX_CONDUIT_AM_MEDIUM)
                return is_request ? gexi_am_np_inline_send_request_medium(
                                        sd, handler, nbytes, commit_flags, nargs, args)
                                  : gexi_am_np_inline_send_reply_medium(
                                        sd, handler, nbytes, commit_flags, nargs, args);
            return is_request ? gexi_am_np_inline_request(sd, GEX_CONDUIT_AM_LONG, handler, nbytes,
                                                          dest_addr, commit_flags, nargs, args)
                              : gexi_am_np_inline_reply(sd, GEX_CONDUIT_AM_LONG, handler, nbytes,
                                                        dest_addr, commit_flags, nargs, args);
        }
        return gexi_am_np_commit_inline_slow(func, sd_h, category, is_request, handler, nbytes,
                                             dest_addr, commit_flags, nargs, args);
    }
    if (category == GEX_CONDUIT_AM_LONG)   /* out of line: see gexi_am_np_commit_long_request */
        return is_request ? gexi_am_np_commit_long_request(func, sd_h, handler, nbytes, dest_addr,
                                                           commit_flags, nargs, args)
                          : gexi_am_np_commit_long_reply(func, sd_h, handler, nbytes, dest_addr,
                                                         commit_flags, nargs, args);
    return gexi_am_np_commit_general(func, sd_h, category, is_request, handler, nbytes, dest_addr,
                                     commit_flags, nargs, args);
}

#endif /* GEX_AM_INTERNAL_H */
