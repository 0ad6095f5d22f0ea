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
