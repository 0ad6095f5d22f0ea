/*
 * gasnet.h: the GASNet-1 API for legacy clients (spec: "Relationship to
 * GASNet-1 APIs"), layered on GASNet-EX; it includes gasnetex.h.  The GASNet-1
 * types below are the interoperable GASNet-EX types themselves, so values pass
 * between the two APIs without conversion.
 *
 * This is the initial subset: types, job queries, initialization, the legacy
 * barrier and gasnet_QueryGexObjects().  The rest of GASNet-1 (AM, put/get,
 * HSL and VIS wrappers) comes later.
 */
#ifndef GASNET_H
#define GASNET_H

#include <gasnetex.h>

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Types interoperable with their GASNet-EX counterparts ---- */
typedef gex_Rank_t      gasnet_node_t;
typedef gex_Event_t     gasnet_handle_t;
typedef gex_Token_t     gasnet_token_t;
typedef gex_AM_Index_t  gasnet_handler_t;
typedef gex_AM_Arg_t    gasnet_handlerarg_t;
typedef gex_RMA_Value_t gasnet_register_value_t;
#define SIZEOF_GASNET_REGISTER_VALUE_T SIZEOF_GEX_RMA_VALUE_T
/* Synonymous with GEX_EVENT_INVALID. */
#define GASNET_INVALID_HANDLE ((gasnet_handle_t)0)

/* One handler for gasnet_attach(); index 0 lets GASNet choose it. */
typedef struct {
    gasnet_handler_t index;
    gex_AM_Fn_t      fnptr;
} gasnet_handlerentry_t;

/* ---- Job queries (semantically gex_System_QueryJob{Rank,Size}) ---- */
static inline gasnet_node_t gasnet_mynode(void) { return gex_System_QueryJobRank(); }
static inline gasnet_node_t gasnet_nodes(void) { return gex_System_QueryJobSize(); }

/* ---- Initialization: gasnet_init() enables legacy support, then
 * gasnet_attach() registers handlers and attaches the segment (segsize a
 * multiple of GASNET_PAGESIZE).  Both return GASNET_OK or an error code. ---- */
extern int gasnet_init(int *argc, char ***argv);
extern int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                         uintptr_t minheapoffset);

/* The GASNet-EX objects behind the legacy API (created by gasnet_init and
 * gasnet_attach, or by gex_Client_Init with GEX_FLAG_USES_GASNET1).  Any
 * output pointer may be NULL. */
extern void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p,
                                   gex_TM_t *tm_p, gex_Segment_t *segment_p);

/* ---- Legacy split-phase barrier over the primordial team.  Must not run
 * concurrently with gex_Coll_* on that team (spec: "Collectives (Coll)"). ---- */
#define GASNET_BARRIERFLAG_ANONYMOUS 1  /* matches any id */
#define GASNET_BARRIERFLAG_MISMATCH  2  /* force a mismatch error */
#define GASNET_BARRIERFLAG_UNNAMED   4  /* no id: every caller must pass it */
extern void gasnet_barrier_notify(int id, int flags);
/* wait, try and the blocking gasnet_barrier return GASNET_OK,
 * GASNET_ERR_BARRIER_MISMATCH or (try only) GASNET_ERR_NOT_READY. */
extern int gasnet_barrier_wait(int id, int flags);
extern int gasnet_barrier_try(int id, int flags);
extern int gasnet_barrier(int id, int flags);
/* After a completed wait/try/barrier: non-zero iff that barrier was anonymous
 * (every caller notified with GASNET_BARRIERFLAG_ANONYMOUS); for a named one,
 * *id receives its id. */
extern int gasnet_barrier_result(int *id);

#ifdef __cplusplus
}
#endif

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* GASNET_H */
