/*
 * gasnet_coll.h: the GASNet-EX collectives API (spec: "Collectives (Coll)"),
 * implemented in libgex-coll.  Every call here is collective over 'tm' and
 * returns a root event; there are no NBI or blocking forms.
 *
 * gex_Coll_BarrierNB() and the team constructors (gex_TM_Split, gex_TM_Create,
 * gex_TM_Dup, gex_TM_Destroy) are declared by gasnetex.h, as the spec
 * requires, and so are visible here too; libgex-coll implements them as well.
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

#ifdef __cplusplus
}
#endif

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* GASNET_COLL_H */
