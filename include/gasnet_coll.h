/*
 * gasnet_coll.h: the GASNet-EX collectives API (spec: "Collectives (Coll)"),
 * implemented in libgex-coll.  Every call here is collective over 'tm' and
 * returns a root event; there are no NBI or blocking forms.
 *
 * gex_Coll_BarrierNB() and the team constructors (gex_TM_Split, gex_TM_Create,
 * gex_TM_Dup, gex_TM_Destroy) are declared by gasnetex.h, as the spec
 * requires, and so are visible here too; libgex-coll implements them as well.
 *
 * The second part of this header is the legacy GASNet-1 collectives API
 * (gasnet_coll_*, GASNET_COLL_*, GASNET_TEAM_ALL) for legacy clients.
 */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H

#include <gasnetex.h>

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Data movement (spec: "Collectives Part II").  Copies nbytes from src on
 * rank root to dst on every rank; src is ignored off the root. */
extern gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                        const void *src, size_t nbytes, gex_Flags_t flags);

/* User-defined reduction operator (spec: "User-Defined Reduction
 * Operations"): for i in [0, count), arg2_and_out[i] = arg1[i] (+)
 * arg2_and_out[i].  cdata is the user_cdata given at initiation. */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count,
                                    const void *cdata);

/* Reductions (spec: "Collectives Part III").  dt and op are one GEX_DT_* and
 * one GEX_OP_* valid for reductions; user_op and user_cdata are used only
 * with GEX_OP_USER or GEX_OP_USER_NC.  ReduceToOne writes dst on root only. */
extern gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                          const void *src, gex_DT_t dt, size_t dt_sz,
                                          size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src,
                                          gex_DT_t dt, size_t dt_sz, size_t dt_cnt,
                                          gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                                          void *user_cdata, gex_Flags_t flags);

/* ======================================================================
 * Legacy GASNet-1 collectives (the prototype gasnet_coll_* API that
 * GASNet-EX 2025.8 still ships for legacy clients), implemented in
 * libgex-coll (coll_gasnet1.c) on the same engine as gex_Coll_*.
 * docs/collectives.md, "Legacy GASNet-1 collectives".
 *
 * One image per process: a gasnet_image_t is a rank of the primordial
 * team, and GASNET_TEAM_ALL (that team) is the only team.  Addresses are
 * always local (GASNET_COLL_LOCAL, the only mode GASNet-EX supports); src
 * and dst may lie in the segment or not.  Every call is collective over
 * the team and in the same sequence as gex_Coll_* calls on it: the same
 * calls, in the same order, with the same flags (single-valued), on every
 * rank.  Handles are gex_Event_t.
 * ====================================================================== */

/* Synchronization flags: exactly one IN and one OUT flag per call.
 *   IN_NOSYNC    the client has made every image's input ready and output
 *                writable before any image calls (e.g. with a barrier);
 *   IN_MYSYNC    data of an image is read/written only after that image
 *                entered the call;
 *   IN_ALLSYNC   no data moves before every image entered the call;
 *   OUT_NOSYNC   the client synchronizes (e.g. barrier) before using results;
 *   OUT_MYSYNC   completion on an image: its own src read, its own dst written;
 *   OUT_ALLSYNC  completion on an image: every image's data movement is over. */
#define GASNET_COLL_IN_NOSYNC   0x01
#define GASNET_COLL_IN_MYSYNC   0x02
#define GASNET_COLL_IN_ALLSYNC  0x04
#define GASNET_COLL_OUT_NOSYNC  0x08
#define GASNET_COLL_OUT_MYSYNC  0x10
#define GASNET_COLL_OUT_ALLSYNC 0x20
#define GASNET_COLL_SYNC_FLAG_MASK 0x3F
/* Addresses are local to each caller (required by GASNet-EX; GEX treats a
 * call without it the same way after reporting it). */
#define GASNET_COLL_LOCAL       0x80
/* Accepted and ignored: */
#define GASNET_COLL_FIXED_THREADS_PER_NODE 0x200
#define GASNET_COLL_DISABLE_AUTOTUNE       0x40000
#define GASNET_COLL_NO_IMAGES              0x80000
/* The caller's part of dst / src lies in its bound segment (a promise;
 * debug builds check it).  GEX moves data by AM and does not need it. */
#define GASNET_COLL_DST_IN_SEGMENT 0x400
#define GASNET_COLL_SRC_IN_SEGMENT 0x800
/* Single-valued addresses were removed from GASNet-EX: any use is an error. */
#define GASNET_COLL_SINGLE GASNET_COLL_SINGLE_was_removed_use_GASNET_COLL_LOCAL
/* Flags of user (prefix-)reduction functions (no legacy reduction calls
 * remain; kept for source compatibility). */
#define GASNET_COLL_AMSAFE  0x01
#define GASNET_COLL_NONCOMM 0x02

/* An image: a rank of the team (one image per process). */
typedef uint32_t gasnet_image_t;

/* Handles of the _nb calls: events, synced with gasnet_coll_*_sync or any
 * gex_Event_* call. */
typedef gex_Event_t gasnet_coll_handle_t;
#define GASNET_COLL_INVALID_HANDLE GEX_EVENT_INVALID

/* Legacy teams: GASNET_TEAM_ALL (the primordial team) is the only one. */
struct gexi_coll_legacy_team;
typedef struct gexi_coll_legacy_team *gasnet_team_handle_t;
#define GASNET_TEAM_ALL ((gasnet_team_handle_t)(uintptr_t)1)

/* Syncs.  The try forms poll once first, as GASNet-1 "try" calls do (a
 * gex_Event_Test* alone does not), so that a loop over them progresses. */
#define gasnet_coll_try_sync(h)          ((void)gasnet_AMPoll(), gex_Event_Test(h))
#define gasnet_coll_try_sync_some(ph, n) ((void)gasnet_AMPoll(), gex_Event_TestSome((ph), (n), 0))
#define gasnet_coll_try_sync_all(ph, n)  ((void)gasnet_AMPoll(), gex_Event_TestAll((ph), (n), 0))
#define gasnet_coll_wait_sync(h)         gex_Event_Wait(h)
#define gasnet_coll_wait_sync_some(ph, n) gex_Event_WaitSome((ph), (n), 0)
#define gasnet_coll_wait_sync_all(ph, n) gex_Event_WaitAll((ph), (n), 0)

/* Team barrier: over GASNET_TEAM_ALL this is the GASNet-1 barrier itself
 * (gasnet_barrier_notify, ...; it shares its state), with the same flags
 * and results.  Not concurrent with gex_Coll_* on the team. */
extern void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_result(gasnet_team_handle_t team, int *id);

/* Data movement (nbytes per image):
 *  broadcast   dst on every image <- src of srcimage
 *  scatter     dst on image i <- block i of src[n * nbytes] on srcimage
 *  gather      block i of dst[n * nbytes] on dstimage <- src of image i
 *  gather_all  block i of dst[n * nbytes] on every image <- src of image i
 *  exchange    block i of dst on image j <- block j of src on image i
 * src is read only on srcimage (broadcast, scatter) and dst written only on
 * dstimage (gather); elsewhere they may be NULL. */
extern gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                                     gasnet_image_t srcimage, void *src,
                                                     size_t nbytes, int flags);
extern void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                  void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                                   gasnet_image_t srcimage, void *src,
                                                   size_t nbytes, int flags);
extern void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team,
                                                  gasnet_image_t dstimage, void *dst, void *src,
                                                  size_t nbytes, int flags);
extern void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                               void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst,
                                                      void *src, size_t nbytes, int flags);
extern void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src,
                                   size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst,
                                                    void *src, size_t nbytes, int flags);
extern void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src,
                                 size_t nbytes, int flags);

/* GASNet's collective autotuner.  GEX has none (its algorithms are chosen
 * by size and locality, docs/collectives.md): loading and dumping tuning
 * state or a profile do nothing, there is one tree class, and tree and
 * dissemination settings are checked (optype) and otherwise ignored. */
typedef enum {
    GASNET_COLL_BROADCAST_OP = 0,
    GASNET_COLL_SCATTER_OP,
    GASNET_COLL_GATHER_OP,
    GASNET_COLL_GATHER_ALL_OP,
    GASNET_COLL_EXCHANGE_OP,
    GASNET_COLL_NUM_COLL_OPTYPES
} gasnet_coll_optype_t;
typedef enum {
    GASNET_COLL_PIPE_SEG_SIZE,
    GASNET_COLL_DISSEM_RADIX,
    GASNET_COLL_TREE_TYPE,
    GASNET_COLL_NUM_PARAM_TYPES
} gasnet_coll_tuning_param_type_t;
typedef void (*gasnet_coll_overlap_sample_work_t)(void *arg);

extern void gasnet_coll_loadTuningState(const char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_dumpTuningState(const char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_dumpProfile(const char *filename, gasnet_team_handle_t team);
extern int gasnet_coll_get_num_tree_classes(gasnet_team_handle_t team,
                                            gasnet_coll_optype_t optype);
extern void gasnet_coll_set_tree_kind(gasnet_team_handle_t team, int tree_class, int fanout,
                                      gasnet_coll_optype_t optype);
extern void gasnet_coll_set_dissem_limit(gasnet_team_handle_t team, size_t dissemlimit,
                                         gasnet_coll_optype_t optype);

#ifdef __cplusplus
}
#endif

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* GASNET_COLL_H */
