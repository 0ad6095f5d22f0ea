/*
 * gasnetex.h: the GASNet-EX API as implemented by GEX.
 *
 * Every name, type, flag and error code follows the GASNet-EX specification
 * (docs/spec-map.md says where each part is implemented and documented).
 * Remote atomics, VIS, collectives and memory kinds live in gasnet_ratomic.h,
 * gasnet_vis.h, gasnet_coll.h and gasnet_mk.h as the specification requires.
 *
 * Threading: clients are thread-safe by default (GASNET_PAR).  A client that
 * defines GASNET_SEQ before including this header promises to call GEX from
 * one thread only and then pays for no locks.
 */
#ifndef GASNETEX_H
#define GASNETEX_H

#include <stddef.h>
#include <stdint.h>
#include <gasnet_fwd.h>

/* The libraries build with -fvisibility=hidden: every public declaration below
 * is exported. */
#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#if (defined(GASNET_SEQ) + defined(GASNET_PAR) + defined(GASNET_PARSYNC)) > 1
#error "define at most one of GASNET_SEQ, GASNET_PAR, GASNET_PARSYNC"
#endif
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#define GASNET_PAR 1
#endif
#if defined(GASNET_SEQ)
#define GEXI_THREAD_MODE 0
#elif defined(GASNET_PARSYNC)
#define GEXI_THREAD_MODE 1
#else
#define GEXI_THREAD_MODE 2
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions (spec: "Specification and release versioning") ---- */
#define GASNET_RELEASE_VERSION_MAJOR 2026
#define GASNET_RELEASE_VERSION_MINOR 11
#define GASNET_RELEASE_VERSION_PATCH 0
#define GEX_SPEC_VERSION_MAJOR 0
#define GEX_SPEC_VERSION_MINOR 19
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20
/* GEX's own library ABI: major must match, the library's minor must be at
 * least the header's (checked in gex_Client_Init). */
#define GEX_ABI_MAJOR 1
#define GEX_ABI_MINOR 0
#define GEXI_HEADER_VERSION ((GEX_ABI_MAJOR << 16) | GEX_ABI_MINOR)

#define GASNETEX_CONDUIT_NAME "dynamic"  /* chosen at run time: GEX_CONDUIT */

/* ---- Error codes (GASNet-1 values, shared with gasnet.h) ---- */
#define GASNET_OK                   0
#define _GASNET_ERR_BASE            10000
#define GASNET_ERR_NOT_INIT         (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_RESOURCE         (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_BAD_ARG          (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_NOT_READY        (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 5)

extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

/* ---- Limits and constants ---- */
#if defined(__aarch64__) && defined(GEX_PAGESIZE_64K)
#define GASNET_PAGESIZE 65536
#else
#define GASNET_PAGESIZE 4096
#endif
#define GASNET_MAXNODES      ((gex_Rank_t)0x7FFFFFFFu)
#define GASNET_MAXEPS        64
#define GEX_AM_INDEX_BASE    128
#define GASNET_HIDDEN_AM_CONCURRENCY_LEVEL 0
#define GASNET_SUPPORTS_TI_SRCRANK 1
#define GASNET_SUPPORTS_TI_EP      1
#define GASNET_SUPPORTS_TI_ENTRY   1
#define GASNET_SUPPORTS_TI_IS_REQ  1
#define GASNET_SUPPORTS_TI_IS_LONG 1
#define GASNET_SUPPORTS_AM_COMMIT_V2 20240906L
#define GASNET_SUPPORTS_AM_CANCEL    20240418L

/* ---- Opaque handles (spec: "Basic types") ---- */
typedef struct gexi_client_opaque  *gex_Client_t;
typedef struct gexi_segment_opaque *gex_Segment_t;
typedef struct gexi_ep_opaque      *gex_EP_t;
typedef struct gexi_tm_opaque      *gex_TM_t;
typedef struct gexi_token_opaque   *gex_Token_t;
typedef struct gexi_mk_opaque      *gex_MK_t;
#define GEX_CLIENT_INVALID  ((gex_Client_t)0)
#define GEX_SEGMENT_INVALID ((gex_Segment_t)0)
#define GEX_EP_INVALID      ((gex_EP_t)0)
#define GEX_TM_INVALID      ((gex_TM_t)0)
#define GEX_MK_INVALID      ((gex_MK_t)0)
#define GEX_MK_HOST         ((gex_MK_t)(uintptr_t)1)

typedef uint8_t gex_AM_Index_t;
typedef int32_t gex_AM_Arg_t;
typedef void (*gex_AM_Fn_t)();   /* unprototyped on purpose: handlers have many signatures */
typedef uint64_t gex_RMA_Value_t;
#define SIZEOF_GEX_RMA_VALUE_T 8

typedef struct {
    void  *gex_addr;
    size_t gex_len;
} gex_Memvec_t;

#define GEX_EP_INDEX_INVALID ((gex_EP_Index_t)0xFFFFFFFFu)
typedef struct {
    gex_Rank_t     gex_rank;
    gex_EP_Index_t gex_ep_index;
} gex_EP_Location_t;

typedef const struct {
    gex_Rank_t gex_jobrank;
} gex_RankInfo_t;

/* ---- Job and system queries ---- */
extern gex_Rank_t gex_System_QueryJobRank(void);
extern gex_Rank_t gex_System_QueryJobSize(void);
extern int  gex_System_GetVerboseErrors(void);
extern void gex_System_SetVerboseErrors(int enable);
extern uint64_t gex_System_QueryMaxThreads(void);
extern int  gex_System_QueryHiddenAMConcurrencyLevel(void);
extern void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                      gex_Rank_t *my_info_index_p);
extern void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                     gex_Rank_t *my_info_index_p);
extern void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size_p, gex_Rank_t *nbrhd_set_rank_p,
                                       gex_Rank_t *host_set_size_p, gex_Rank_t *host_set_rank_p);

typedef struct {
    const char *gex_device_list;
    unsigned int gex_thread_roles;
    void *(*gex_progress_fn)(void *);
    void *gex_progress_arg;
} gex_ProgressThreadInfo_t;
extern int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                           const gex_ProgressThreadInfo_t **info_p,
                                           gex_Flags_t flags);

/* ---- Client-data ---- */
extern void  gex_Client_SetCData(gex_Client_t client, const void *val);
extern void *gex_Client_QueryCData(gex_Client_t client);
extern void  gex_Segment_SetCData(gex_Segment_t seg, const void *val);
extern void *gex_Segment_QueryCData(gex_Segment_t seg);
extern void  gex_TM_SetCData(gex_TM_t tm, const void *val);
extern void *gex_TM_QueryCData(gex_TM_t tm);
extern void  gex_EP_SetCData(gex_EP_t ep, const void *val);
extern void *gex_EP_QueryCData(gex_EP_t ep);

/* ---- Client ---- */
extern gex_Flags_t gex_Client_QueryFlags(gex_Client_t client);
extern const char *gex_Client_QueryName(gex_Client_t client);
extern int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                           const char *clientName, int *argc, char ***argv, gex_Flags_t flags);
/* The macro form passes the header's version and thread mode (see top). */
extern int gexi_Client_Init_v1(unsigned header_version, int thread_mode,
                               gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                               const char *clientName, int *argc, char ***argv,
                               gex_Flags_t flags);
#define gex_Client_Init(client_p, ep_p, tm_p, name, argc, argv, flags) \
    gexi_Client_Init_v1(GEXI_HEADER_VERSION, GEXI_THREAD_MODE, client_p, ep_p, tm_p, \
                        name, argc, argv, flags)

/* ---- Segments ---- */
extern gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg);
extern gex_Flags_t  gex_Segment_QueryFlags(gex_Segment_t seg);
extern void        *gex_Segment_QueryAddr(gex_Segment_t seg);
extern uintptr_t    gex_Segment_QuerySize(gex_Segment_t seg);
extern gex_MK_t     gex_Segment_QueryKind(gex_Segment_t seg);
extern int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size);
extern int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client,
                              gex_Addr_t address, uintptr_t length, gex_MK_t kind,
                              gex_Flags_t flags);
extern void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags);
extern int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                  void **localaddr_p, uintptr_t *size_p);
extern uintptr_t gasnet_getMaxLocalSegmentSize(void);
extern uintptr_t gasnet_getMaxGlobalSegmentSize(void);

/* ---- Endpoints ---- */
extern int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client,
                         gex_EP_Capabilities_t capabilities, gex_Flags_t flags);
extern gex_Client_t   gex_EP_QueryClient(gex_EP_t ep);
extern gex_Flags_t    gex_EP_QueryFlags(gex_EP_t ep);
extern gex_Segment_t  gex_EP_QuerySegment(gex_EP_t ep);
extern gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep);
extern int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags);
extern int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps,
                                      gex_Flags_t flags);
extern gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank,
                                              void **owneraddr_p, void **localaddr_p,
                                              uintptr_t *size_p, gex_Flags_t flags);

/* ---- Teams (queries and TM-pairs; construction in gex/ext.h, implemented by libgex-coll) ---- */
extern gex_Client_t gex_TM_QueryClient(gex_TM_t tm);
extern gex_EP_t     gex_TM_QueryEP(gex_TM_t tm);
extern gex_Flags_t  gex_TM_QueryFlags(gex_TM_t tm);
extern gex_Rank_t   gex_TM_QueryRank(gex_TM_t tm);
extern gex_Rank_t   gex_TM_QuerySize(gex_TM_t tm);
extern gex_TM_t     gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index);
extern gex_Rank_t   gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank);
extern gex_Rank_t   gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank);
extern gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank,
                                                  gex_Flags_t flags);

/* ---- AM handlers ---- */
typedef struct {
    gex_AM_Index_t gex_index;
    gex_AM_Fn_t    gex_fnptr;
    gex_Flags_t    gex_flags;
    unsigned int   gex_nargs;
    const void    *gex_cdata;
    const char    *gex_name;
} gex_AM_Entry_t;
extern int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries);

/* ---- AM limits ---- */
extern unsigned int gex_AM_MaxArgs(void);
extern size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank,
                                    const gex_Event_t *lc_opt, gex_Flags_t flags,
                                    unsigned int numargs);
extern size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank,
                                  const gex_Event_t *lc_opt, gex_Flags_t flags,
                                  unsigned int numargs);
extern size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank,
                                      const gex_Event_t *lc_opt, gex_Flags_t flags,
                                      unsigned int numargs);
extern size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank,
                                    const gex_Event_t *lc_opt, gex_Flags_t flags,
                                    unsigned int numargs);
extern size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt,
                                     gex_Flags_t flags, unsigned int numargs);
extern size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                       gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_LUBRequestLong(void);
extern size_t gex_AM_LUBReplyLong(void);
extern size_t gex_AM_LUBRequestMedium(void);
extern size_t gex_AM_LUBReplyMedium(void);

/* ---- Token info ---- */
typedef struct {
    gex_Rank_t            gex_srcrank;
    gex_EP_t              gex_ep;
    const gex_AM_Entry_t *gex_entry;
    unsigned int          gex_is_req;
    unsigned int          gex_is_long;
} gex_Token_Info_t;
extern gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask);

/* ---- Fixed-payload AM families ([M] = 0..16 and the inferring macros) ---- */
#include <gex/am_fixed.h>

/* ---- Handler-safe locks ---- */
#include <pthread.h>
typedef struct {
    pthread_mutex_t lock;
} gex_HSL_t;
#define GEX_HSL_INITIALIZER { PTHREAD_MUTEX_INITIALIZER }
extern void gex_HSL_Init(gex_HSL_t *hsl);
extern void gex_HSL_Destroy(gex_HSL_t *hsl);
extern void gex_HSL_Lock(gex_HSL_t *hsl);
extern void gex_HSL_Unlock(gex_HSL_t *hsl);
extern int  gex_HSL_Trylock(gex_HSL_t *hsl);

/* ---- GASNet-1 calls that remain part of the EX API ---- */
#if defined(__GNUC__)
#define GEXI_NORETURN __attribute__((noreturn))
#else
#define GEXI_NORETURN
#endif
extern void gasnet_exit(int exitcode) GEXI_NORETURN;
extern int  gasnet_AMPoll(void);
extern char *gasnet_getenv(const char *name);
#define GASNET_AMPOLL() ((void)gasnet_AMPoll())

/* ---- Events, NBI, RMA, negotiated-payload AM: see gex/ext.h ---- */
#include <gex/ext.h>

#ifdef __cplusplus
}
#endif

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* GASNETEX_H */
