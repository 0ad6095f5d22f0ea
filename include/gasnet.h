/*
 * gasnet.h: the GASNet-1 API for legacy and transitional clients (spec:
 * "Relationship to GASNet-1 APIs", gasnet1_differences.md), layered on
 * GASNet-EX; it includes gasnetex.h.  The GASNet-1 types are the
 * interoperable GASNet-EX types themselves, so values pass between the two
 * APIs without conversion.
 *
 * Where each part lives:
 *  - gasnet_init, gasnet_attach, gasnet_getSegmentInfo, gasnet_getNodeInfo,
 *    gasnet_set_waitmode: libgex-core (gasnet1.c);
 *  - AM injection (gasnet_AMRequest*, gasnet_AMReply*): macros over the
 *    numbered gex_AM_* calls (gex/gasnet1_am.h), as GASNet-EX itself does;
 *  - put/get/memset and their syncs: static inline functions over gex_RMA_*,
 *    gex_Event_* and gex_NBI_* below, so no library depends on another for
 *    them;
 *  - the legacy barrier: libgex-coll.
 * Requests and RMA address the primordial team: gasnet_node_t is the job
 * rank.  Every gasnet_ call here passes flags 0, i.e. remote addresses lie in
 * the peer's attached segment, as GASNet-1 requires.
 *
 * GASNET_Safe() is deliberately not defined: it belongs to GASNet's test
 * harness (test.h), and clients that use it define it themselves right after
 * including this header; a definition here would collide with theirs.
 */
#ifndef GASNET_H
#define GASNET_H
/* GASNet's own guard name: code written for GASNet tests it to know whether
 * the GASNet-1 API is visible (GASNet's tests/test.h does). */
#define _INCLUDED_GASNET_H 1

#include <gasnetex.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* GASNet-1 spec version macro: the major version of the spec implemented. */
#define GASNET_VERSION GASNET_SPEC_VERSION_MAJOR

/* Synonymous with GEX_EVENT_INVALID. */
#define GASNET_INVALID_HANDLE ((gasnet_handle_t)0)

/* ---- Job queries (semantically gex_System_QueryJob{Rank,Size}) ---- */
static inline gasnet_node_t gasnet_mynode(void) { return gex_System_QueryJobRank(); }
static inline gasnet_node_t gasnet_nodes(void) { return gex_System_QueryJobSize(); }
/* The names GASNet's own macros expand gasnet_mynode()/gasnet_nodes() to,
 * which some clients (GASNet's testlegacy) read directly. */
#define gasneti_mynode (gex_System_QueryJobRank())
#define gasneti_nodes  (gex_System_QueryJobSize())

/* ---- Initialization ----
 * gasnet_init() creates the client (named "GASNET1", with
 * GEX_FLAG_USES_GASNET1) in the thread mode this header was compiled with;
 * gasnet_attach() then registers the handler table (indices 0 or
 * GEX_AM_INDEX_BASE..255) and attaches a segment of segsize bytes (a
 * multiple of GASNET_PAGESIZE; 0 means one page; minheapoffset is ignored),
 * ending with a barrier.  Both return GASNET_OK or an error code. */
extern int gasnet_init(int *argc, char ***argv);
extern int gexi_gasnet_init_v1(unsigned header_version, int thread_mode, int *argc,
                               char ***argv);
#define gasnet_init(argc, argv) \
    gexi_gasnet_init_v1(GEXI_HEADER_VERSION, GEXI_THREAD_MODE, argc, argv)
extern int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                         uintptr_t minheapoffset);

/* The GASNet-EX objects behind the legacy API (created by gasnet_init and
 * gasnet_attach, or by gex_Client_Init with GEX_FLAG_USES_GASNET1).  Any
 * output pointer may be NULL. */
extern void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p,
                                   gex_TM_t *tm_p, gex_Segment_t *segment_p);

/* Segment of every rank (entries beyond gasnet_nodes() are zeroed):
 * GASNET_ERR_NOT_INIT until this rank's primordial endpoint has a segment
 * (gasnet_attach, or gex_Segment_Attach for gex_Client_Init clients). */
extern int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
/* Host, neighbourhood and segment offset of every rank: available after
 * gasnet_attach (GASNET_ERR_NOT_INIT otherwise). */
extern int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);

/* GEX never runs handlers from interrupts: nothing to hold. */
static inline void gasnet_hold_interrupts(void) {}
static inline void gasnet_resume_interrupts(void) {}

/* ---- Active Messages ----
 * The team GASNet-1 Requests go to: the primordial team, looked up once per
 * translation unit (the client has it from gasnet_init or gex_Client_Init). */
static inline gex_TM_t gexi_gasnet1_tm(void)
{
    static gex_TM_t cached;
    gex_TM_t tm;
#if defined(__GNUC__)
    tm = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (tm) return tm;
    gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
    __atomic_store_n(&cached, tm, __ATOMIC_RELAXED);
#else
    (void)cached;
    gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
#endif
    return tm;
}

/* gasnet_AM{Request,Reply}{Short,Medium,Long}[0..16], gasnet_AMRequestLongAsync[0..16] */
#include <gex/gasnet1_am.h>

/* Limits: the least upper bounds over every peer (the GASNet-1 meaning). */
static inline size_t gasnet_AMMaxArgs(void) { return (size_t)gex_AM_MaxArgs(); }
static inline size_t gasnet_AMMaxMedium(void)
{
    size_t rq = gex_AM_LUBRequestMedium(), rp = gex_AM_LUBReplyMedium();
    return rq < rp ? rq : rp;
}
static inline size_t gasnet_AMMaxLongRequest(void) { return gex_AM_LUBRequestLong(); }
static inline size_t gasnet_AMMaxLongReply(void) { return gex_AM_LUBReplyLong(); }

/* Job rank of the sender of the AM being handled. */
static inline int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex)
{
    gex_Token_Info_t info;
    if (!token || !srcindex) return GASNET_ERR_BAD_ARG;
    if (!(gex_Token_Info(token, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK))
        return GASNET_ERR_BAD_ARG;
    *srcindex = info.gex_srcrank;
    return GASNET_OK;
}

/* ---- Handler-safe locks (gasnet_hsl_t is gex_HSL_t) ---- */
typedef gex_HSL_t gasnet_hsl_t;
#define GASNET_HSL_INITIALIZER GEX_HSL_INITIALIZER
static inline void gasnet_hsl_init(gasnet_hsl_t *hsl) { gex_HSL_Init(hsl); }
static inline void gasnet_hsl_destroy(gasnet_hsl_t *hsl) { gex_HSL_Destroy(hsl); }
static inline void gasnet_hsl_lock(gasnet_hsl_t *hsl) { gex_HSL_Lock(hsl); }
static inline void gasnet_hsl_unlock(gasnet_hsl_t *hsl) { gex_HSL_Unlock(hsl); }
static inline int gasnet_hsl_trylock(gasnet_hsl_t *hsl) { return gex_HSL_Trylock(hsl); }

/* ---- Put and get (GASNet-1 "Extended API") ----
 * Non-bulk and bulk forms differ only in when a non-blocking put's source
 * may be reused: on return (non-bulk: lc_opt GEX_EVENT_NOW) or at sync
 * (bulk: GEX_EVENT_DEFER); alignment is never required
 * (gasnet1_differences.md). */
static inline void gasnet_put(gasnet_node_t node, void *dest, const void *src, size_t nbytes)
{
    (void)gex_RMA_PutBlocking(gexi_gasnet1_tm(), node, dest, src, nbytes, 0);
}
static inline void gasnet_put_bulk(gasnet_node_t node, void *dest, const void *src,
                                   size_t nbytes)
{
    (void)gex_RMA_PutBlocking(gexi_gasnet1_tm(), node, dest, src, nbytes, 0);
}
static inline void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    (void)gex_RMA_GetBlocking(gexi_gasnet1_tm(), dest, node, src, nbytes, 0);
}
static inline void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    (void)gex_RMA_GetBlocking(gexi_gasnet1_tm(), dest, node, src, nbytes, 0);
}

static inline gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, const void *src,
                                            size_t nbytes)
{
    return gex_RMA_PutNB(gexi_gasnet1_tm(), node, dest, src, nbytes, GEX_EVENT_NOW, 0);
}
static inline gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest,
                                                 const void *src, size_t nbytes)
{
    return gex_RMA_PutNB(gexi_gasnet1_tm(), node, dest, src, nbytes, GEX_EVENT_DEFER, 0);
}
static inline gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src,
                                            size_t nbytes)
{
    return gex_RMA_GetNB(gexi_gasnet1_tm(), dest, node, src, nbytes, 0);
}
static inline gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src,
                                                 size_t nbytes)
{
    return gex_RMA_GetNB(gexi_gasnet1_tm(), dest, node, src, nbytes, 0);
}

static inline void gasnet_put_nbi(gasnet_node_t node, void *dest, const void *src,
                                  size_t nbytes)
{
    (void)gex_RMA_PutNBI(gexi_gasnet1_tm(), node, dest, src, nbytes, GEX_EVENT_NOW, 0);
}
static inline void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, const void *src,
                                       size_t nbytes)
{
    (void)gex_RMA_PutNBI(gexi_gasnet1_tm(), node, dest, src, nbytes, GEX_EVENT_DEFER, 0);
}
static inline void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    (void)gex_RMA_GetNBI(gexi_gasnet1_tm(), dest, node, src, nbytes, 0);
}
static inline void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src,
                                       size_t nbytes)
{
    (void)gex_RMA_GetNBI(gexi_gasnet1_tm(), dest, node, src, nbytes, 0);
}

/* Value forms: nbytes (at most SIZEOF_GASNET_REGISTER_VALUE_T) low-order
 * bytes of value, as gex_RMA_*Val define them. */
static inline void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                                  size_t nbytes)
{
    (void)gex_RMA_PutBlockingVal(gexi_gasnet1_tm(), node, dest, value, nbytes, 0);
}
static inline gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                                gasnet_register_value_t value, size_t nbytes)
{
    return gex_RMA_PutNBVal(gexi_gasnet1_tm(), node, dest, value, nbytes, 0);
}
static inline void gasnet_put_nbi_val(gasnet_node_t node, void *dest,
                                      gasnet_register_value_t value, size_t nbytes)
{
    (void)gex_RMA_PutNBIVal(gexi_gasnet1_tm(), node, dest, value, nbytes, 0);
}
static inline gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src,
                                                     size_t nbytes)
{
    return gex_RMA_GetBlockingVal(gexi_gasnet1_tm(), node, src, nbytes, 0);
}
/* A split-phase value get: the value is fetched at initiation and carried
 * in the handle, so gasnet_wait_syncnb_valget() has nothing left to wait
 * for (completing early is always allowed). */
typedef gasnet_register_value_t gasnet_valget_handle_t;
static inline gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src,
                                                       size_t nbytes)
{
    return gex_RMA_GetBlockingVal(gexi_gasnet1_tm(), node, src, nbytes, 0);
}
static inline gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle)
{
    return handle;
}

/* memset of remote memory: blocking puts from a local buffer of the byte
 * value (no GASNet-EX call sets remote memory), so the _nb and _nbi forms
 * are complete on return. */
static inline void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    unsigned char small[4096];
    size_t chunk = nbytes < sizeof small ? nbytes : sizeof small;
    unsigned char *buf = small;
    if (nbytes > sizeof small) {
        size_t want = nbytes < ((size_t)1 << 20) ? nbytes : ((size_t)1 << 20);
        unsigned char *big = (unsigned char *)malloc(want);
        if (big) {
            buf = big;
            chunk = want;
        }
    }
    memset(buf, val, chunk);
    for (size_t done = 0; done < nbytes; done += chunk) {
        size_t n = nbytes - done < chunk ? nbytes - done : chunk;
        (void)gex_RMA_PutBlocking(gexi_gasnet1_tm(), node, (char *)dest + done, buf, n, 0);
    }
    if (buf != small) free(buf);
}
static inline gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val,
                                               size_t nbytes)
{
    gasnet_memset(node, dest, val, nbytes);
    return GASNET_INVALID_HANDLE;
}
static inline void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    gasnet_memset(node, dest, val, nbytes);
}

/* ---- Synchronization of explicit handles: "try" polls once, then tests
 * (GASNET_OK or GASNET_ERR_NOT_READY); "wait" polls until done ---- */
static inline int gasnet_try_syncnb(gasnet_handle_t handle)
{
    (void)gasnet_AMPoll();
    return gex_Event_Test(handle) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline void gasnet_wait_syncnb(gasnet_handle_t handle) { gex_Event_Wait(handle); }
static inline int gasnet_try_syncnb_some(gasnet_handle_t *phandle, size_t numhandles)
{
    (void)gasnet_AMPoll();
    return gex_Event_TestSome(phandle, numhandles, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline void gasnet_wait_syncnb_some(gasnet_handle_t *phandle, size_t numhandles)
{
    gex_Event_WaitSome(phandle, numhandles, 0);
}
static inline int gasnet_try_syncnb_all(gasnet_handle_t *phandle, size_t numhandles)
{
    (void)gasnet_AMPoll();
    return gex_Event_TestAll(phandle, numhandles, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline void gasnet_wait_syncnb_all(gasnet_handle_t *phandle, size_t numhandles)
{
    gex_Event_WaitAll(phandle, numhandles, 0);
}

/* ---- Synchronization of implicit-handle (nbi) operations ---- */
static inline int gasnet_try_syncnbi_gets(void)
{
    (void)gasnet_AMPoll();
    return gex_NBI_Test(GEX_EC_GET, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline int gasnet_try_syncnbi_puts(void)
{
    (void)gasnet_AMPoll();
    return gex_NBI_Test(GEX_EC_PUT, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline int gasnet_try_syncnbi_all(void)
{
    (void)gasnet_AMPoll();
    return gex_NBI_Test(GEX_EC_GET | GEX_EC_PUT, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline void gasnet_wait_syncnbi_gets(void) { gex_NBI_Wait(GEX_EC_GET, 0); }
static inline void gasnet_wait_syncnbi_puts(void) { gex_NBI_Wait(GEX_EC_PUT, 0); }
static inline void gasnet_wait_syncnbi_all(void) { gex_NBI_Wait(GEX_EC_GET | GEX_EC_PUT, 0); }
static inline void gasnet_begin_nbi_accessregion(void) { gex_NBI_BeginAccessRegion(0); }
static inline gasnet_handle_t gasnet_end_nbi_accessregion(void)
{
    return gex_NBI_EndAccessRegion(0);
}

#ifdef __cplusplus
}
#endif

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif

/* The GASNet-1 VIS prototype calls, when gasnet_vis.h was included first
 * (otherwise gasnet_vis.h includes them). */
#ifdef GASNET_VIS_H
#include <gex/gasnet1_vis.h>
#endif
#endif /* GASNET_H */
