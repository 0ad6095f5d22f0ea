/*
 * gex/ext.h: the part of the gasnetex.h API that sits above the core objects:
 * events and NBI synchronization, contiguous RMA (spec: "Extended API"),
 * negotiated-payload AM, team construction and destruction, and the team
 * barrier.  The spec places all of these in gasnetex.h, so gasnetex.h includes
 * this file at its end, inside its extern "C" block and its export-visibility
 * region; do not include it directly.
 *
 * Where the code lives: events and NBI in libgex-core, RMA in libgex-rma,
 * NPAM in libgex-am, team construction and gex_Coll_BarrierNB in libgex-coll.
 */
#ifndef GEX_EXT_H
#define GEX_EXT_H

#ifndef GASNETEX_H
#error "include <gasnetex.h>, not <gex/ext.h>"
#endif

/* ------------------------------------------------------------------------
 * Events (spec: "Event test/wait operations").  _Test returns 0 on success
 * and never polls; _Wait polls until success.  The array forms succeed when
 * the array holds only GEX_EVENT_INVALID and overwrite completed entries with
 * GEX_EVENT_INVALID.  flags are reserved and must be 0.
 * ------------------------------------------------------------------------ */
extern int  gex_Event_Test(gex_Event_t event);
extern void gex_Event_Wait(gex_Event_t event);
extern int  gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int  gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);

/* Leaf event of category event_category (one GEX_EC_*, not GEX_EC_ALL) of a
 * root event; a query, so repeated calls return the same event. */
extern gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category);

/* ------------------------------------------------------------------------
 * Implicit-event (NBI) synchronization (spec: "Sync of specified subset of
 * NBI operations", "NBI Access regions").  event_mask is an OR of GEX_EC_*.
 * ------------------------------------------------------------------------ */
extern int  gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags);
extern void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags);
extern void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
extern gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);

/* ------------------------------------------------------------------------
 * Contiguous RMA (spec: "Extended API").  Blocking and NBI calls return
 * non-zero, and NB calls GEX_EVENT_NO_OP, only when GEX_FLAG_IMMEDIATE was
 * passed and nothing was done.  Put lc_opt: GEX_EVENT_NOW, GEX_EVENT_DEFER,
 * GEX_EVENT_GROUP (NBI only) or a gex_Event_t pointer (NB only).
 * ------------------------------------------------------------------------ */
extern int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                               size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                          size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                 size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);

extern int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                               size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                          size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                 size_t nbytes, gex_Flags_t flags);

/* Value-based payloads: nbytes is at most SIZEOF_GEX_RMA_VALUE_T. */
extern gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                              size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                  gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                             gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                    gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags);

/* ------------------------------------------------------------------------
 * Negotiated-payload AM (spec: "Negotiated-payload AM APIs").  A Prepare
 * returns a thread-specific source descriptor that exactly one Cancel or
 * successful Commit on the same thread consumes.
 * ------------------------------------------------------------------------ */
typedef struct gexi_am_srcdesc_opaque *gex_AM_SrcDesc_t;
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)0)

/* Native NPAM with a GASNet-allocated buffer (client_buf == NULL): each of
 * GASNET_NATIVE_NP_ALLOC_{REQ,REP}_{MEDIUM,LONG} is 1 or undefined; they are
 * defined in <gex/am_np.h>, included below (REQ/REP_MEDIUM: the smp ring). */

/* Buffer to fill (client_buf if it was non-NULL) and its usable length,
 * between least_payload and most_payload of the Prepare.
 * Both are inline: a source descriptor starts with this public prefix,
 * frozen in the library ABI (docs/am.md, "Source descriptor ABI"), whose
 * addr is non-NULL exactly while the descriptor is prepared.  The exported
 * functions remain (for older binaries, `&gex_AM_SrcDescAddr`, and
 * `(gex_AM_SrcDescAddr)(sd)`), and the inline forms call them, which
 * diagnose the misuse, for GEX_AM_SRCDESC_NO_OP and consumed descriptors. */
extern void  *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd);
extern size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd);
struct gexi_am_srcdesc_prefix {
    void *addr;
    size_t size;
};
#if defined(__GNUC__)
#define GEXI_AM_SD_UNPREPARED(p) __builtin_expect((p) == 0 || (p)->addr == 0, 0)
#else
#define GEXI_AM_SD_UNPREPARED(p) ((p) == 0 || (p)->addr == 0)
#endif
static inline void *gexi_am_srcdesc_addr(gex_AM_SrcDesc_t sd)
{
    const struct gexi_am_srcdesc_prefix *p = (const struct gexi_am_srcdesc_prefix *)sd;
    if (GEXI_AM_SD_UNPREPARED(p)) return (gex_AM_SrcDescAddr)(sd);
    return p->addr;
}
static inline size_t gexi_am_srcdesc_size(gex_AM_SrcDesc_t sd)
{
    const struct gexi_am_srcdesc_prefix *p = (const struct gexi_am_srcdesc_prefix *)sd;
    if (GEXI_AM_SD_UNPREPARED(p)) return (gex_AM_SrcDescSize)(sd);
    return p->size;
}
#define gex_AM_SrcDescAddr(sd) gexi_am_srcdesc_addr(sd)
#define gex_AM_SrcDescSize(sd) gexi_am_srcdesc_size(sd)

/* lc_opt must be NULL when client_buf is NULL.  With GEX_FLAG_IMMEDIATE a
 * Prepare may return GEX_AM_SRCDESC_NO_OP.  numargs fixes the Commit's [M]. */
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank,
                                                    const void *client_buf,
                                                    size_t least_payload, size_t most_payload,
                                                    gex_Event_t *lc_opt, gex_Flags_t flags,
                                                    unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                                  size_t least_payload, size_t most_payload,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank,
                                                  const void *client_buf,
                                                  size_t least_payload, size_t most_payload,
                                                  void *dest_addr, gex_Event_t *lc_opt,
                                                  gex_Flags_t flags, unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                                size_t least_payload, size_t most_payload,
                                                void *dest_addr, gex_Event_t *lc_opt,
                                                gex_Flags_t flags, unsigned int numargs);

/* Inline Prepare of small negotiated-payload AMs (docs/am.md, "Inline
 * Prepare").  A Medium or Long Prepare with a library buffer (client_buf
 * and lc_opt NULL), no GEX_FLAG_IMMEDIATE and a most_payload below
 * gexi_am_np_inline_lim[0 Medium, 1 Long] is served here, in the client's
 * code: it parks the Prepare's arguments in the calling thread's source
 * descriptor and hands out the descriptor's own buffer; the Commit (or
 * Cancel) validates them and sends.  This costs a client fewer
 * instructions than the library call, which is why a small negotiated-
 * payload AM is no slower than a fixed-payload one.  Everything else calls
 * the exported function.
 * Frozen with GEX_ABI_MAJOR 1, like the prefix above: the descriptor's
 * first GEXI_AM_SD_HEAD bytes, its buffer behind them, the stride of the
 * two descriptors (Requests, Replies) and the state values.  The two
 * objects are exported by libgex-am under the version node GEX_AM_1.1, so
 * a client built with this header refuses to load against an older
 * libgex-am instead of misusing it.  -DGEX_AM_NP_NO_INLINE turns it off. */
#if defined(__GNUC__) && !defined(GEX_AM_NP_NO_INLINE) && !defined(GEXI_AM_NP_LIBRARY)
#define GEXI_AM_NP_INLINE_CAP 512u   /* the buffer: the largest inline most_payload */
#define GEXI_AM_SD_HEAD 64u          /* where the buffer starts */
#define GEXI_AM_SD_STRIDE 768u       /* sizeof one descriptor */
#define GEXI_AM_SD_INLINE 3u         /* state of a descriptor this code prepared */
struct gexi_am_sd_public {
    void *addr;                      /* the prefix (gexi_am_srcdesc_prefix) */
    size_t size;
    void *dest_addr;                 /* Long: the Prepare's dest_addr (NULL: given at Commit) */
    uintptr_t gexi_reserved[3];      /* libgex-am's */
    uint32_t key;                    /* state | category << 8 | numargs << 16 */
    gex_Rank_t rank;                 /* Request: the team rank, checked at Commit */
    void *target;                    /* the team (Request) or token (Reply) */
    unsigned char buf[GEXI_AM_NP_INLINE_CAP];
    unsigned char gexi_library[GEXI_AM_SD_STRIDE - GEXI_AM_SD_HEAD - GEXI_AM_NP_INLINE_CAP];
};
extern __thread struct gexi_am_sd_public gexi_am_sds[2] __attribute__((tls_model("initial-exec")));
/* most_payload must be below it, [0] Mediums, [1] Longs (0 before
 * gex_Client_Init, in debug builds, under GEX_FORCE_REFERENCE=am and
 * GEX_AM_NP_INLINE=0) */
extern size_t gexi_am_np_inline_lim[2];

/* category: 1 Medium, 2 Long (the conduit ABI's GEX_CONDUIT_AM_*) */
static inline __attribute__((always_inline)) gex_AM_SrcDesc_t
gexi_am_np_prepare_inline(int is_request, unsigned category, void *target, gex_Rank_t rank,
                          const void *client_buf, size_t least_payload, size_t most_payload,
                          void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                          unsigned int numargs)
{
    struct gexi_am_sd_public *sd = &gexi_am_sds[!is_request];
    if (__builtin_expect(client_buf == 0 && lc_opt == 0 && !(flags & GEX_FLAG_IMMEDIATE) &&
                         numargs <= 16 && least_payload <= most_payload &&
                         most_payload < gexi_am_np_inline_lim[category == 2] &&
                         (sd->key & 0xffu) == 0, 1)) {
        sd->addr = sd->buf;
        sd->size = most_payload;
        if (category == 2) sd->dest_addr = dest_addr;
        sd->rank = rank;
        sd->target = target;
        sd->key = GEXI_AM_SD_INLINE | category << 8 | numargs << 16;
        return (gex_AM_SrcDesc_t)sd;
    }
    return 0;
}
static inline __attribute__((always_inline)) gex_AM_SrcDesc_t
gexi_am_prepare_request_medium_inline(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                      size_t least_payload, size_t most_payload,
                                      gex_Event_t *lc_opt, gex_Flags_t flags,
                                      unsigned int numargs)
{
    gex_AM_SrcDesc_t sd = gexi_am_np_prepare_inline(1, 1, (void *)tm, rank, client_buf,
                                                    least_payload, most_payload, 0, lc_opt,
                                                    flags, numargs);
    if (__builtin_expect(sd != 0, 1)) return sd;
    return (gex_AM_PrepareRequestMedium)(tm, rank, client_buf, least_payload, most_payload,
                                         lc_opt, flags, numargs);
}
static inline __attribute__((always_inline)) gex_AM_SrcDesc_t
gexi_am_prepare_reply_medium_inline(gex_Token_t token, const void *client_buf,
                                    size_t least_payload, size_t most_payload,
                                    gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs)
{
    gex_AM_SrcDesc_t sd = gexi_am_np_prepare_inline(0, 1, (void *)token, 0, client_buf,
                                                    least_payload, most_payload, 0, lc_opt,
                                                    flags, numargs);
    if (__builtin_expect(sd != 0, 1)) return sd;
    return (gex_AM_PrepareReplyMedium)(token, client_buf, least_payload, most_payload, lc_opt,
                                       flags, numargs);
}
static inline __attribute__((always_inline)) gex_AM_SrcDesc_t
gexi_am_prepare_request_long_inline(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                    size_t least_payload, size_t most_payload, void *dest_addr,
                                    gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs)
{
    gex_AM_SrcDesc_t sd = gexi_am_np_prepare_inline(1, 2, (void *)tm, rank, client_buf,
                                                    least_payload, most_payload, dest_addr,
                                                    lc_opt, flags, numargs);
    if (__builtin_expect(sd != 0, 1)) return sd;
    return (gex_AM_PrepareRequestLong)(tm, rank, client_buf, least_payload, most_payload,
                                       dest_addr, lc_opt, flags, numargs);
}
static inline __attribute__((always_inline)) gex_AM_SrcDesc_t
gexi_am_prepare_reply_long_inline(gex_Token_t token, const void *client_buf,
                                  size_t least_payload, size_t most_payload, void *dest_addr,
                                  gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs)
{
    gex_AM_SrcDesc_t sd = gexi_am_np_prepare_inline(0, 2, (void *)token, 0, client_buf,
                                                    least_payload, most_payload, dest_addr,
                                                    lc_opt, flags, numargs);
    if (__builtin_expect(sd != 0, 1)) return sd;
    return (gex_AM_PrepareReplyLong)(token, client_buf, least_payload, most_payload, dest_addr,
                                     lc_opt, flags, numargs);
}
/* Function-like: &gex_AM_PrepareRequestMedium and (gex_AM_PrepareRequestMedium)(...)
 * still name the exported functions. */
#define gex_AM_PrepareRequestMedium(tm, rank, client_buf, least, most, lc_opt, flags, numargs) \
    gexi_am_prepare_request_medium_inline(tm, rank, client_buf, least, most, lc_opt, flags,    \
                                          numargs)
#define gex_AM_PrepareReplyMedium(token, client_buf, least, most, lc_opt, flags, numargs)      \
    gexi_am_prepare_reply_medium_inline(token, client_buf, least, most, lc_opt, flags, numargs)
#define gex_AM_PrepareRequestLong(tm, rank, client_buf, least, most, dest_addr, lc_opt, flags, \
                                  numargs)                                                     \
    gexi_am_prepare_request_long_inline(tm, rank, client_buf, least, most, dest_addr, lc_opt,  \
                                        flags, numargs)
#define gex_AM_PrepareReplyLong(token, client_buf, least, most, dest_addr, lc_opt, flags,      \
                                numargs)                                                       \
    gexi_am_prepare_reply_long_inline(token, client_buf, least, most, dest_addr, lc_opt, flags, \
                                      numargs)
#endif

/* Commit<XXX>[M] (void) and Commit<XXX>[M]_v2 (int, takes commit_flags) for
 * M = 0..16, plus the forms without [M] that infer it from the argument
 * count (spec: "gex_AM_Commit family calls"). */
#include <gex/am_np.h>

/* Cancel: releases a Prepare without communicating (spec: "gex_AM_Cancel
 * calls").  flags are reserved and must be 0.  Returns 0 on success. */
extern int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);

/* ------------------------------------------------------------------------
 * Team construction and destruction (spec: "Operations on gex_TM_t"; memory
 * kinds spec section 5).  All are collective.  With a
 * GEX_FLAG_TM_SCRATCH_SIZE_* flag, Split, Create and Dup create nothing and
 * return the scratch size to pass; otherwise their return value is undefined.
 * ------------------------------------------------------------------------ */
extern size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                           void *scratch_addr, size_t scratch_size, gex_Flags_t flags);
extern size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                            gex_EP_Location_t *args, size_t numargs,
                            gex_Addr_t *scratch_addrs, size_t scratch_size,
                            gex_Flags_t flags);
extern size_t gex_TM_Dup(gex_TM_t *new_tm_p, gex_TM_t orig_tm, gex_Addr_t scratch_addr,
                         size_t scratch_len, gex_Flags_t flags);
/* Returns non-zero iff it wrote the client-provided scratch space to
 * *scratch_p (which may be NULL). */
extern int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags);

/* ------------------------------------------------------------------------
 * Team barrier (spec: "Collectives Part I"): the one collective gasnetex.h
 * provides; the rest are in gasnet_coll.h.  flags are reserved, must be 0.
 * ------------------------------------------------------------------------ */
extern gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);

/* ------------------------------------------------------------------------
 * Progress threads (spec: "Conduit-internal progress threads"): no conduit
 * has a receive or send thread yet, so both stay undefined.
 * ------------------------------------------------------------------------ */
/* #undef GASNET_RCV_THREAD */
/* #undef GASNET_SND_THREAD */

#endif /* GEX_EXT_H */
