/*
 * gex/vis_fastpath.h: the one-piece Vector and Indexed calls, inlined into
 * the client (issue 27; docs/vis.md, "One piece, inlined").
 *
 * Why: a Vector or Indexed transfer of ONE piece on each side is a
 * contiguous put or get.  Through libgex-vis (the call, the argument walk,
 * the plan) it cost 16-17 ns for 64 bytes to a PSHM peer, where GASNet-EX
 * turns it into its inlined contiguous copy (1.8 ns).  So those calls first
 * try the inline same-node copy of gex/fastpath.h (the same table, the same
 * conditions: primordial team, target mapped here, release library) and
 * otherwise call libgex-vis exactly as before.
 *
 * Taken only when: dstcount == srccount == 1, both lists non-NULL, the
 * piece lengths equal, flags == 0 (no IMMEDIATE, no ENABLE_LEAF_LC, no
 * segment hints), and - for a put - no thread has a peer-completion
 * handler armed (gex_VIS_SetPeerCompletionHandler: the next VIS put of the
 * arming thread must also run it at the target, which only the library
 * does).  libgex-vis counts the threads with one armed in
 * gexi_vis_pc_armed_v1 (GEX_VIS_1.1), read here.  Complete on return: NB
 * returns GEX_EVENT_INVALID, NBI and Blocking 0.
 *
 * Strided calls and more pieces stay in the library, which copies them
 * directly as well (vis_copy.c).  GEX_NO_INLINE_FASTPATH turns this off;
 * (gex_VIS_IndexedPutNBI)(...) always calls the library.
 *
 * Included by gasnet_vis.h; do not include it directly.
 */
#ifndef GEX_VIS_FASTPATH_H
#define GEX_VIS_FASTPATH_H

#ifndef GASNET_VIS_H
#error "include <gasnet_vis.h>, not <gex/vis_fastpath.h>"
#endif

/* Threads whose next VIS put must run a peer-completion handler (libgex-vis,
 * GEX_VIS_1.1; read relaxed). */
extern unsigned gexi_vis_pc_armed_v1;

#if defined(GEXI_FASTPATH_INLINE)

GEXI_FP_INLINE int gexi_vis_put1(gex_TM_t tm, gex_Rank_t rank, void *dest, size_t dlen,
                                 const void *src, size_t slen, gex_Flags_t flags)
{
    return dlen == slen && __atomic_load_n(&gexi_vis_pc_armed_v1, __ATOMIC_RELAXED) == 0 &&
           gexi_fastpath_put(tm, rank, dest, src, dlen, flags);
}
GEXI_FP_INLINE int gexi_vis_get1(gex_TM_t tm, void *dest, size_t dlen, gex_Rank_t rank,
                                 void *src, size_t slen, gex_Flags_t flags)
{
    return dlen == slen && gexi_fastpath_get(tm, dest, rank, src, dlen, flags);
}

/* Vector: one gex_Memvec_t per side. */
#define GEXI_VIS_VEC_PUT1(tm, rank, dc, dl, sc, sl, flags) \
    ((dc) == 1 && (sc) == 1 && (dl) && (sl) && \
     gexi_vis_put1(tm, rank, (dl)[0].gex_addr, (dl)[0].gex_len, (sl)[0].gex_addr, \
                   (sl)[0].gex_len, flags))
#define GEXI_VIS_VEC_GET1(tm, dc, dl, rank, sc, sl, flags) \
    ((dc) == 1 && (sc) == 1 && (dl) && (sl) && \
     gexi_vis_get1(tm, (dl)[0].gex_addr, (dl)[0].gex_len, rank, (sl)[0].gex_addr, \
                   (sl)[0].gex_len, flags))
/* Indexed: one address per side. */
#define GEXI_VIS_IDX_PUT1(tm, rank, dc, dl, dlen, sc, sl, slen, flags) \
    ((dc) == 1 && (sc) == 1 && (dl) && (sl) && \
     gexi_vis_put1(tm, rank, (dl)[0], dlen, (sl)[0], slen, flags))
#define GEXI_VIS_IDX_GET1(tm, dc, dl, dlen, rank, sc, sl, slen, flags) \
    ((dc) == 1 && (sc) == 1 && (dl) && (sl) && \
     gexi_vis_get1(tm, (dl)[0], dlen, rank, (sl)[0], slen, flags))

#define GEXI_VIS_INLINE_VEC_PUT(SUFFIX, RET_T, DONE) \
    GEXI_FP_INLINE RET_T gexi_inline_VIS_VectorPut##SUFFIX( \
        gex_TM_t tm, gex_Rank_t rank, size_t dc, gex_Memvec_t const dl[], size_t sc, \
        gex_Memvec_t const sl[], gex_Flags_t flags) \
    { \
        if (GEXI_VIS_VEC_PUT1(tm, rank, dc, dl, sc, sl, flags)) return DONE; \
        return (gex_VIS_VectorPut##SUFFIX)(tm, rank, dc, dl, sc, sl, flags); \
    }
#define GEXI_VIS_INLINE_VEC_GET(SUFFIX, RET_T, DONE) \
    GEXI_FP_INLINE RET_T gexi_inline_VIS_VectorGet##SUFFIX( \
        gex_TM_t tm, size_t dc, gex_Memvec_t const dl[], gex_Rank_t rank, size_t sc, \
        gex_Memvec_t const sl[], gex_Flags_t flags) \
    { \
        if (GEXI_VIS_VEC_GET1(tm, dc, dl, rank, sc, sl, flags)) return DONE; \
        return (gex_VIS_VectorGet##SUFFIX)(tm, dc, dl, rank, sc, sl, flags); \
    }
#define GEXI_VIS_INLINE_IDX_PUT(SUFFIX, RET_T, DONE) \
    GEXI_FP_INLINE RET_T gexi_inline_VIS_IndexedPut##SUFFIX( \
        gex_TM_t tm, gex_Rank_t rank, size_t dc, void *const dl[], size_t dlen, size_t sc, \
        void *const sl[], size_t slen, gex_Flags_t flags) \
    { \
        if (GEXI_VIS_IDX_PUT1(tm, rank, dc, dl, dlen, sc, sl, slen, flags)) return DONE; \
        return (gex_VIS_IndexedPut##SUFFIX)(tm, rank, dc, dl, dlen, sc, sl, slen, flags); \
    }
#define GEXI_VIS_INLINE_IDX_GET(SUFFIX, RET_T, DONE) \
    GEXI_FP_INLINE RET_T gexi_inline_VIS_IndexedGet##SUFFIX( \
        gex_TM_t tm, size_t dc, void *const dl[], size_t dlen, gex_Rank_t rank, size_t sc, \
        void *const sl[], size_t slen, gex_Flags_t flags) \
    { \
        if (GEXI_VIS_IDX_GET1(tm, dc, dl, dlen, rank, sc, sl, slen, flags)) return DONE; \
        return (gex_VIS_IndexedGet##SUFFIX)(tm, dc, dl, dlen, rank, sc, sl, slen, flags); \
    }

#define GEXI_VIS_INLINE_ALL(SUFFIX, RET_T, DONE) \
    GEXI_VIS_INLINE_VEC_PUT(SUFFIX, RET_T, DONE) \
    GEXI_VIS_INLINE_VEC_GET(SUFFIX, RET_T, DONE) \
    GEXI_VIS_INLINE_IDX_PUT(SUFFIX, RET_T, DONE) \
    GEXI_VIS_INLINE_IDX_GET(SUFFIX, RET_T, DONE)
GEXI_VIS_INLINE_ALL(NB, gex_Event_t, GEX_EVENT_INVALID)
GEXI_VIS_INLINE_ALL(NBI, int, 0)
GEXI_VIS_INLINE_ALL(Blocking, int, 0)

#define gex_VIS_VectorPutNB(tm, rank, dc, dl, sc, sl, flags) \
    gexi_inline_VIS_VectorPutNB(tm, rank, dc, dl, sc, sl, flags)
#define gex_VIS_VectorPutNBI(tm, rank, dc, dl, sc, sl, flags) \
    gexi_inline_VIS_VectorPutNBI(tm, rank, dc, dl, sc, sl, flags)
#define gex_VIS_VectorPutBlocking(tm, rank, dc, dl, sc, sl, flags) \
    gexi_inline_VIS_VectorPutBlocking(tm, rank, dc, dl, sc, sl, flags)
#define gex_VIS_VectorGetNB(tm, dc, dl, rank, sc, sl, flags) \
    gexi_inline_VIS_VectorGetNB(tm, dc, dl, rank, sc, sl, flags)
#define gex_VIS_VectorGetNBI(tm, dc, dl, rank, sc, sl, flags) \
    gexi_inline_VIS_VectorGetNBI(tm, dc, dl, rank, sc, sl, flags)
#define gex_VIS_VectorGetBlocking(tm, dc, dl, rank, sc, sl, flags) \
    gexi_inline_VIS_VectorGetBlocking(tm, dc, dl, rank, sc, sl, flags)
#define gex_VIS_IndexedPutNB(tm, rank, dc, dl, dlen, sc, sl, slen, flags) \
    gexi_inline_VIS_IndexedPutNB(tm, rank, dc, dl, dlen, sc, sl, slen, flags)
#define gex_VIS_IndexedPutNBI(tm, rank, dc, dl, dlen, sc, sl, slen, flags) \
    gexi_inline_VIS_IndexedPutNBI(tm, rank, dc, dl, dlen, sc, sl, slen, flags)
#define gex_VIS_IndexedPutBlocking(tm, rank, dc, dl, dlen, sc, sl, slen, flags) \
    gexi_inline_VIS_IndexedPutBlocking(tm, rank, dc, dl, dlen, sc, sl, slen, flags)
#define gex_VIS_IndexedGetNB(tm, dc, dl, dlen, rank, sc, sl, slen, flags) \
    gexi_inline_VIS_IndexedGetNB(tm, dc, dl, dlen, rank, sc, sl, slen, flags)
#define gex_VIS_IndexedGetNBI(tm, dc, dl, dlen, rank, sc, sl, slen, flags) \
    gexi_inline_VIS_IndexedGetNBI(tm, dc, dl, dlen, rank, sc, sl, slen, flags)
#define gex_VIS_IndexedGetBlocking(tm, dc, dl, dlen, rank, sc, sl, slen, flags) \
    gexi_inline_VIS_IndexedGetBlocking(tm, dc, dl, dlen, rank, sc, sl, slen, flags)
#endif /* GEXI_FASTPATH_INLINE */

#endif /* GEX_VIS_FASTPATH_H */
