/*
 * ad_stubs.c: placeholders for the remote atomics API of gasnet_ratomic.h
 * (spec: "Remote Atomic Operations"), so that every gex_AD_* entry point
 * links.  None of these calls returns an error code, so each one ends the job
 * with "not implemented yet" rather than return something a client could take
 * as success.  The issue that implements libgex-atomics replaces this file.
 */
#include "core_layer.h"
#include <gasnet_ratomic.h>

/* ---- Atomic domains ---- */
void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

void gex_AD_Destroy(gex_AD_t ad)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_TM_t gex_AD_QueryTM(gex_AD_t ad)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_DT_t gex_AD_QueryDT(gex_AD_t ad)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_OP_t gex_AD_QueryOps(gex_AD_t ad)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

void gex_AD_SetCData(gex_AD_t ad, const void *val)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

void *gex_AD_QueryCData(gex_AD_t ad)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

/* ---- Explicit-event operations ---- */
gex_Event_t gex_AD_OpNB_I32(gex_AD_t ad, int32_t *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, int32_t operand1,
                            int32_t operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_AD_OpNB_U32(gex_AD_t ad, uint32_t *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, uint32_t operand1,
                            uint32_t operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_AD_OpNB_I64(gex_AD_t ad, int64_t *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, int64_t operand1,
                            int64_t operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_AD_OpNB_U64(gex_AD_t ad, uint64_t *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, uint64_t operand1,
                            uint64_t operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_AD_OpNB_FLT(gex_AD_t ad, float *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, float operand1,
                            float operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_AD_OpNB_DBL(gex_AD_t ad, double *result_p, gex_Rank_t tgt_rank,
                            void *tgt_addr, gex_OP_t opcode, double operand1,
                            double operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

/* ---- Implicit-event operations ---- */
int gex_AD_OpNBI_I32(gex_AD_t ad, int32_t *result_p, gex_Rank_t tgt_rank, void *tgt_addr,
                     gex_OP_t opcode, int32_t operand1, int32_t operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_AD_OpNBI_U32(gex_AD_t ad, uint32_t *result_p, gex_Rank_t tgt_rank, void *tgt_addr,
                     gex_OP_t opcode, uint32_t operand1, uint32_t operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_AD_OpNBI_I64(gex_AD_t ad, int64_t *result_p, gex_Rank_t tgt_rank, void *tgt_addr,
                     gex_OP_t opcode, int64_t operand1, int64_t operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_AD_OpNBI_U64(gex_AD_t ad, uint64_t *result_p, gex_Rank_t tgt_rank, void *tgt_addr,
                     gex_OP_t opcode, uint64_t operand1, uint64_t operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_AD_OpNBI_FLT(gex_AD_t ad, float *result_p, gex_Rank_t tgt_rank, void *tgt_addr,
                     gex_OP_t opcode, float operand1, float operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_AD_OpNBI_DBL(gex_AD_t ad, double *result_p, gex_Rank_t tgt_rank, void *tgt_addr,
                     gex_OP_t opcode, double operand1, double operand2, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}
