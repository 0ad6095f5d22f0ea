/*
 * gasnet_ratomic.h: remote atomics (spec: "Remote Atomic Operations"),
 * implemented in libgex-atomics.  An atomic domain (gex_AD_t) binds a team,
 * one data type and a set of opcodes, so that the implementation can pick the
 * fastest mechanism (NIC offload, shared memory or AM) that is coherent for
 * exactly that set.  Operations are typed: one NB and one NBI function per
 * built-in data type, named after its GEX_DT_* suffix.
 */
#ifndef GASNET_RATOMIC_H
#define GASNET_RATOMIC_H

#include <gasnetex.h>

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gexi_ad_opaque *gex_AD_t;
#define GEX_AD_INVALID ((gex_AD_t)0)

/* Collective over the team tm (not a TM-pair); dt, ops and flags are
 * single-valued.  ops is an OR of GEX_OP_* valid for atomics on dt; flags
 * may hold one GEX_FLAG_AD_FAVOR_* hint. */
extern void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
                          gex_Flags_t flags);
/* Collective over the creating team, once every operation on ad completed. */
extern void gex_AD_Destroy(gex_AD_t ad);

/* Creation parameters and client data (NULL at creation). */
extern gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
extern gex_TM_t    gex_AD_QueryTM(gex_AD_t ad);
extern gex_DT_t    gex_AD_QueryDT(gex_AD_t ad);
extern gex_OP_t    gex_AD_QueryOps(gex_AD_t ad);
extern void  gex_AD_SetCData(gex_AD_t ad, const void *val);
extern void *gex_AD_QueryCData(gex_AD_t ad);

/*
 * gex_AD_OpNB_<DT> returns a root event, GEX_EVENT_INVALID if the operation
 * completed synchronously, or GEX_EVENT_NO_OP (only under GEX_FLAG_IMMEDIATE)
 * if nothing was initiated; gex_AD_OpNBI_<DT> returns non-zero only under
 * GEX_FLAG_IMMEDIATE and completes under GEX_EC_RMW (GEX_EC_PUT for
 * GEX_OP_SET, GEX_EC_GET for GEX_OP_GET).  result_p is written by fetching
 * opcodes only, by the time the operation is complete; operand1/operand2
 * are passed by value and used as the opcode needs.  The opcode must be a
 * single member of the set the domain was created with, and the call's type
 * the domain's.  Accepted flags: GEX_FLAG_IMMEDIATE, GEX_FLAG_AD_MY_RANK or
 * GEX_FLAG_AD_MY_NBRHD, GEX_FLAG_AD_ACQ, GEX_FLAG_AD_REL,
 * GEX_FLAG_RANK_IS_JOBRANK (the *_SEG_OFFSET flags are [UNIMPLEMENTED] in
 * the spec and refused).  See docs/atomics.md.
 */
extern gex_Event_t gex_AD_OpNB_I32(gex_AD_t ad, int32_t *result_p, gex_Rank_t tgt_rank,
                                   void *tgt_addr, gex_OP_t opcode, int32_t operand1,
                                   int32_t operand2, gex_Flags_t flags);
extern gex_Event_t gex_AD_OpNB_U32(gex_AD_t ad, uint32_t *result_p, gex_Rank_t tgt_rank,
                                   void *tgt_addr, gex_OP_t opcode, uint32_t operand1,
                                   uint32_t operand2, gex_Flags_t flags);
extern gex_Event_t gex_AD_OpNB_I64(gex_AD_t ad, int64_t *result_p, gex_Rank_t tgt_rank,
                                   void *tgt_addr, gex_OP_t opcode, int64_t operand1,
                                   int64_t operand2, gex_Flags_t flags);
extern gex_Event_t gex_AD_OpNB_U64(gex_AD_t ad, uint64_t *result_p, gex_Rank_t tgt_rank,
                                   void *tgt_addr, gex_OP_t opcode, uint64_t operand1,
                                   uint64_t operand2, gex_Flags_t flags);
extern gex_Event_t gex_AD_OpNB_FLT(gex_AD_t ad, float *result_p, gex_Rank_t tgt_rank,
                                   void *tgt_addr, gex_OP_t opcode, float operand1,
                                   float operand2, gex_Flags_t flags);
extern gex_Event_t gex_AD_OpNB_DBL(gex_AD_t ad, double *result_p, gex_Rank_t tgt_rank,
                                   void *tgt_addr, gex_OP_t opcode, double operand1,
                                   double operand2, gex_Flags_t flags);

extern int gex_AD_OpNBI_I32(gex_AD_t ad, int32_t *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, int32_t operand1,
                            int32_t operand2, gex_Flags_t flags);
extern int gex_AD_OpNBI_U32(gex_AD_t ad, uint32_t *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, uint32_t operand1,
                            uint32_t operand2, gex_Flags_t flags);
extern int gex_AD_OpNBI_I64(gex_AD_t ad, int64_t *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, int64_t operand1,
                            int64_t operand2, gex_Flags_t flags);
extern int gex_AD_OpNBI_U64(gex_AD_t ad, uint64_t *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, uint64_t operand1,
                            uint64_t operand2, gex_Flags_t flags);
extern int gex_AD_OpNBI_FLT(gex_AD_t ad, float *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, float operand1,
                            float operand2, gex_Flags_t flags);
extern int gex_AD_OpNBI_DBL(gex_AD_t ad, double *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, double operand1,
                            double operand2, gex_Flags_t flags);

/* ---- The same-node fast path of the integer NB calls, inlined: see
 * gex/ad_fastpath.h ---- */
#include <gex/ad_fastpath.h>

#ifdef __cplusplus
}
#endif

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* GASNET_RATOMIC_H */
