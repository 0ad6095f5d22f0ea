/*
 * vis_stubs.c: placeholders for the non-contiguous RMA API of gasnet_vis.h
 * (spec: "Vector/Indexed/Strided (VIS)"), so that every gex_VIS_* entry point
 * links.  None of these calls returns an error code, so each one ends the job
 * with "not implemented yet" rather than return something a client could take
 * as success.  The issue that implements libgex-vis replaces this file.
 */
#include "core_layer.h"
#include <gasnet_vis.h>

/* ---- Vector ---- */
gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                         gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                         gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                              gex_Rank_t srcrank, size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                         gex_Memvec_t const dstlist[], size_t srccount,
                         gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                              gex_Memvec_t const dstlist[], size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

/* ---- Indexed ---- */
gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void * const dstlist[],
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                 void * const srclist[], size_t srclen, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void * const dstlist[],
                          size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                          void * const srclist[], size_t srclen, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void * const dstlist[],
                               size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                               void * const srclist[], size_t srclen, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void * const dstlist[], size_t dstlen, size_t srccount,
                                 void * const srclist[], size_t srclen, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                          void * const dstlist[], size_t dstlen, size_t srccount,
                          void * const srclist[], size_t srclen, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                               void * const dstlist[], size_t dstlen, size_t srccount,
                               void * const srclist[], size_t srclen, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

/* ---- Strided ---- */
gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                          gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                          size_t elemsz, const size_t count[], size_t stridelevels,
                          gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                               gex_Rank_t srcrank, void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz,
                               const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                          const ptrdiff_t dststrides[], void *srcaddr,
                          const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                          size_t stridelevels, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                               const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz,
                               const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

/* ---- Peer completion ---- */
void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                      size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}
