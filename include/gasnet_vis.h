/*
 * gasnet_vis.h: non-contiguous RMA, "VIS" (spec: "Vector/Indexed/Strided"),
 * implemented in libgex-vis.  Each transfer comes as NB (returns a root
 * event), NBI and Blocking (both return non-zero only when
 * GEX_FLAG_IMMEDIATE was passed and nothing was done).  Metadata arrays of the
 * Strided forms are consumed before return; all other inputs must stay valid
 * until completion.  GEX_FLAG_ENABLE_LEAF_LC on a Put NB exposes local
 * completion through gex_Event_QueryLeaf(root, GEX_EC_LC) (on a Put NBI it
 * counts it as lc_opt=GEX_EVENT_GROUP does).  VIS Puts complete as GEX_EC_PUT
 * operations, VIS Gets as GEX_EC_GET (gex_NBI_Wait, access regions).
 * Semantics and GEX's choices: docs/vis.md.
 */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H

#include <gasnetex.h>

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Vector: lists of (address, length) on each side ---- */
extern gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm,
                                       size_t dstcount, gex_Memvec_t const dstlist[],
                                       gex_Rank_t srcrank,
                                       size_t srccount, gex_Memvec_t const srclist[],
                                       gex_Flags_t flags);
extern int gex_VIS_VectorGetNBI(gex_TM_t tm,
                                size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank,
                                size_t srccount, gex_Memvec_t const srclist[],
                                gex_Flags_t flags);
extern int gex_VIS_VectorGetBlocking(gex_TM_t tm,
                                     size_t dstcount, gex_Memvec_t const dstlist[],
                                     gex_Rank_t srcrank,
                                     size_t srccount, gex_Memvec_t const srclist[],
                                     gex_Flags_t flags);
extern gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank,
                                       size_t dstcount, gex_Memvec_t const dstlist[],
                                       size_t srccount, gex_Memvec_t const srclist[],
                                       gex_Flags_t flags);
extern int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank,
                                size_t dstcount, gex_Memvec_t const dstlist[],
                                size_t srccount, gex_Memvec_t const srclist[],
                                gex_Flags_t flags);
extern int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank,
                                     size_t dstcount, gex_Memvec_t const dstlist[],
                                     size_t srccount, gex_Memvec_t const srclist[],
                                     gex_Flags_t flags);

/* ---- Indexed: lists of addresses, one fixed length per side ---- */
extern gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm,
                                        size_t dstcount, void * const dstlist[], size_t dstlen,
                                        gex_Rank_t srcrank,
                                        size_t srccount, void * const srclist[], size_t srclen,
                                        gex_Flags_t flags);
extern int gex_VIS_IndexedGetNBI(gex_TM_t tm,
                                 size_t dstcount, void * const dstlist[], size_t dstlen,
                                 gex_Rank_t srcrank,
                                 size_t srccount, void * const srclist[], size_t srclen,
                                 gex_Flags_t flags);
extern int gex_VIS_IndexedGetBlocking(gex_TM_t tm,
                                      size_t dstcount, void * const dstlist[], size_t dstlen,
                                      gex_Rank_t srcrank,
                                      size_t srccount, void * const srclist[], size_t srclen,
                                      gex_Flags_t flags);
extern gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank,
                                        size_t dstcount, void * const dstlist[], size_t dstlen,
                                        size_t srccount, void * const srclist[], size_t srclen,
                                        gex_Flags_t flags);
extern int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank,
                                 size_t dstcount, void * const dstlist[], size_t dstlen,
                                 size_t srccount, void * const srclist[], size_t srclen,
                                 gex_Flags_t flags);
extern int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank,
                                      size_t dstcount, void * const dstlist[], size_t dstlen,
                                      size_t srccount, void * const srclist[], size_t srclen,
                                      gex_Flags_t flags);

/* ---- Strided: elemsz-byte chunks, count[0..stridelevels-1] per level,
 * byte strides per level on each side (spec: "Strided Puts and Gets") ---- */
extern gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm,
                                        void *dstaddr, const ptrdiff_t dststrides[],
                                        gex_Rank_t srcrank,
                                        void *srcaddr, const ptrdiff_t srcstrides[],
                                        size_t elemsz, const size_t count[],
                                        size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedGetNBI(gex_TM_t tm,
                                 void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank,
                                 void *srcaddr, const ptrdiff_t srcstrides[],
                                 size_t elemsz, const size_t count[],
                                 size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedGetBlocking(gex_TM_t tm,
                                      void *dstaddr, const ptrdiff_t dststrides[],
                                      gex_Rank_t srcrank,
                                      void *srcaddr, const ptrdiff_t srcstrides[],
                                      size_t elemsz, const size_t count[],
                                      size_t stridelevels, gex_Flags_t flags);
extern gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank,
                                        void *dstaddr, const ptrdiff_t dststrides[],
                                        void *srcaddr, const ptrdiff_t srcstrides[],
                                        size_t elemsz, const size_t count[],
                                        size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank,
                                 void *dstaddr, const ptrdiff_t dststrides[],
                                 void *srcaddr, const ptrdiff_t srcstrides[],
                                 size_t elemsz, const size_t count[],
                                 size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank,
                                      void *dstaddr, const ptrdiff_t dststrides[],
                                      void *srcaddr, const ptrdiff_t srcstrides[],
                                      size_t elemsz, const size_t count[],
                                      size_t stridelevels, gex_Flags_t flags);

/* ---- Peer completion [DEPRECATED in the spec] ----
 * Arms, for the calling thread's next VIS Put, a 0-argument Medium Reply
 * handler run at the peer once the data has landed; handler 0 disarms.
 * nbytes may not exceed GEX_VIS_MAX_PEERCOMPLETION. */
extern void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                             size_t nbytes, gex_Flags_t flags);
/* The spec guarantees at least 127; GEX keeps the minimum so that the payload
 * always fits one Medium next to the VIS metadata. */
#define GEX_VIS_MAX_PEERCOMPLETION ((size_t)127)

/* ---- The one-piece Vector/Indexed calls inlined into the client:
 * gex/vis_fastpath.h ---- */
#include <gex/vis_fastpath.h>

#ifdef __cplusplus
}
#endif

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif

/* The GASNet-1 VIS prototype calls (gasnet_putv_bulk and relatives), for
 * clients that also include gasnet.h (gasnet.h includes them too when it
 * comes second). */
#ifdef GASNET_H
#include <gex/gasnet1_vis.h>
#endif
#endif /* GASNET_VIS_H */
