/*
 * rma_stubs.c: placeholders for the contiguous RMA API (spec: "Extended
 * API"), so that every gex_RMA_* entry point links.  None of these calls
 * returns an error code (a non-zero int or GEX_EVENT_NO_OP means "not done
 * under GEX_FLAG_IMMEDIATE"), so each one ends the job with "not implemented
 * yet" rather than return something a client could take as success.  The
 * issue that implements libgex-rma replaces this file.
 */
#include "core_layer.h"
#include <gasnetex.h>

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                        size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                   size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                          size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                        size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                   size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                          size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                       size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                           size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                      size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}
