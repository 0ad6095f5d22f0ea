/*
 * gex/gasnet1_vis.h: the GASNet-1 VIS prototype calls
 * gasnet_{put,get}{v,i,s}_{bulk,nb_bulk,nbi_bulk}() over gex_VIS_* (flags 0,
 * primordial team, gasnet_node_t is the job rank).  gasnet1_differences.md:
 * "the GASNet-EX implementation provides full backwards-compatibility with
 * those prototype interfaces, declared in <gasnet_vis.h>".  They are part of
 * the legacy API, so (spec, "Hybrid/transitional client support") a process
 * may call them only once legacy support is enabled (gasnet_init, or
 * gex_Client_Init with GEX_FLAG_USES_GASNET1).
 *
 * Included by gasnet_vis.h when gasnet.h has been included, and by gasnet.h
 * when gasnet_vis.h has been included, so both orders of the two includes
 * work; a client that includes only one of them does not see these calls.
 *
 * Vector and Indexed calls map one to one (gasnet_memvec_t and gex_Memvec_t
 * have the same representation, spec "Memvec").  The Strided metadata of the
 * prototype differs from EX's: strides are size_t, and count[0] is the
 * contiguous chunk size (EX's elemsz), count[1..stridelevels] the counts.
 * The strides are copied into ptrdiff_t arrays for the call (gex_VIS_Strided*
 * consumes them before returning, so the copies can live on the stack).
 * Payload buffers and the Vector/Indexed lists must stay valid until
 * completion, as in GASNet-1.
 */
#ifndef GEX_GASNET1_VIS_H
#define GEX_GASNET1_VIS_H
#if !defined(GASNET_H) || !defined(GASNET_VIS_H)
#error "include <gasnet.h> and <gasnet_vis.h>, not <gex/gasnet1_vis.h>"
#endif

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Vector ---- */
static inline void gasnet_putv_bulk(gasnet_node_t dstnode, size_t dstcount,
                                    gasnet_memvec_t const dstlist[], size_t srccount,
                                    gasnet_memvec_t const srclist[])
{
    (void)gex_VIS_VectorPutBlocking(gexi_gasnet1_tm(), dstnode, dstcount,
                                    (gex_Memvec_t const *)dstlist, srccount,
                                    (gex_Memvec_t const *)srclist, 0);
}
static inline gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                                  gasnet_memvec_t const dstlist[],
                                                  size_t srccount,
                                                  gasnet_memvec_t const srclist[])
{
    return gex_VIS_VectorPutNB(gexi_gasnet1_tm(), dstnode, dstcount,
                               (gex_Memvec_t const *)dstlist, srccount,
                               (gex_Memvec_t const *)srclist, 0);
}
static inline void gasnet_putv_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                        gasnet_memvec_t const dstlist[], size_t srccount,
                                        gasnet_memvec_t const srclist[])
{
    (void)gex_VIS_VectorPutNBI(gexi_gasnet1_tm(), dstnode, dstcount,
                               (gex_Memvec_t const *)dstlist, srccount,
                               (gex_Memvec_t const *)srclist, 0);
}
static inline void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                    gasnet_node_t srcnode, size_t srccount,
                                    gasnet_memvec_t const srclist[])
{
    (void)gex_VIS_VectorGetBlocking(gexi_gasnet1_tm(), dstcount,
                                    (gex_Memvec_t const *)dstlist, srcnode, srccount,
                                    (gex_Memvec_t const *)srclist, 0);
}
static inline gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount,
                                                  gasnet_memvec_t const dstlist[],
                                                  gasnet_node_t srcnode, size_t srccount,
                                                  gasnet_memvec_t const srclist[])
{
    return gex_VIS_VectorGetNB(gexi_gasnet1_tm(), dstcount, (gex_Memvec_t const *)dstlist,
                               srcnode, srccount, (gex_Memvec_t const *)srclist, 0);
}
static inline void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                        gasnet_node_t srcnode, size_t srccount,
                                        gasnet_memvec_t const srclist[])
{
    (void)gex_VIS_VectorGetNBI(gexi_gasnet1_tm(), dstcount, (gex_Memvec_t const *)dstlist,
                               srcnode, srccount, (gex_Memvec_t const *)srclist, 0);
}

/* ---- Indexed ---- */
static inline void gasnet_puti_bulk(gasnet_node_t dstnode, size_t dstcount,
                                    void * const dstlist[], size_t dstlen, size_t srccount,
                                    void * const srclist[], size_t srclen)
{
    (void)gex_VIS_IndexedPutBlocking(gexi_gasnet1_tm(), dstnode, dstcount, dstlist, dstlen,
                                     srccount, srclist, srclen, 0);
}
static inline gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                                  void * const dstlist[], size_t dstlen,
                                                  size_t srccount, void * const srclist[],
                                                  size_t srclen)
{
    return gex_VIS_IndexedPutNB(gexi_gasnet1_tm(), dstnode, dstcount, dstlist, dstlen,
                                srccount, srclist, srclen, 0);
}
static inline void gasnet_puti_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                        void * const dstlist[], size_t dstlen, size_t srccount,
                                        void * const srclist[], size_t srclen)
{
    (void)gex_VIS_IndexedPutNBI(gexi_gasnet1_tm(), dstnode, dstcount, dstlist, dstlen,
                                srccount, srclist, srclen, 0);
}
static inline void gasnet_geti_bulk(size_t dstcount, void * const dstlist[], size_t dstlen,
                                    gasnet_node_t srcnode, size_t srccount,
                                    void * const srclist[], size_t srclen)
{
    (void)gex_VIS_IndexedGetBlocking(gexi_gasnet1_tm(), dstcount, dstlist, dstlen, srcnode,
                                     srccount, srclist, srclen, 0);
}
static inline gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void * const dstlist[],
                                                  size_t dstlen, gasnet_node_t srcnode,
                                                  size_t srccount, void * const srclist[],
                                                  size_t srclen)
{
    return gex_VIS_IndexedGetNB(gexi_gasnet1_tm(), dstcount, dstlist, dstlen, srcnode,
                                srccount, srclist, srclen, 0);
}
static inline void gasnet_geti_nbi_bulk(size_t dstcount, void * const dstlist[], size_t dstlen,
                                        gasnet_node_t srcnode, size_t srccount,
                                        void * const srclist[], size_t srclen)
{
    (void)gex_VIS_IndexedGetNBI(gexi_gasnet1_tm(), dstcount, dstlist, dstlen, srcnode,
                                srccount, srclist, srclen, 0);
}

/* ---- Strided ----
 * One call translates the metadata and issues the EX call of the given kind
 * (0 Blocking, 1 NB, 2 NBI).  Up to GEXI_G1_VIS_LEVELS levels the ptrdiff_t
 * copies are on the stack, beyond that on the heap. */
#define GEXI_G1_VIS_LEVELS 16
static inline gex_Event_t gexi_g1_strided(int is_put, int kind, gasnet_node_t node,
                                          void *dstaddr, const size_t dststrides[],
                                          void *srcaddr, const size_t srcstrides[],
                                          const size_t count[], size_t stridelevels)
{
    ptrdiff_t dbuf[GEXI_G1_VIS_LEVELS], sbuf[GEXI_G1_VIS_LEVELS];
    ptrdiff_t *ds = dbuf, *ss = sbuf;
    gex_Event_t ev = GEX_EVENT_INVALID;
    /* count[0] == 0 is a no-op and stridelevels == 0 ignores the stride
     * arrays (EX: elemsz == 0, stridelevels == 0): nothing to translate. */
    const size_t levels = count[0] ? stridelevels : 0;
    if (levels > GEXI_G1_VIS_LEVELS) {
        ds = (ptrdiff_t *)malloc(2 * levels * sizeof(ptrdiff_t));
        if (!ds) {
            fprintf(stderr, "gasnet_%cs_*: out of memory for %zu stride levels\n",
                    is_put ? 'p' : 'g', stridelevels);
            gasnet_exit(1);
        }
        ss = ds + levels;
    }
    for (size_t i = 0; i < levels; i++) {
        ds[i] = (ptrdiff_t)dststrides[i];
        ss[i] = (ptrdiff_t)srcstrides[i];
    }
    gex_TM_t tm = gexi_gasnet1_tm();
    if (is_put) {
        if (kind == 0)
            (void)gex_VIS_StridedPutBlocking(tm, node, dstaddr, ds, srcaddr, ss, count[0],
                                             count + 1, stridelevels, 0);
        else if (kind == 1)
            ev = gex_VIS_StridedPutNB(tm, node, dstaddr, ds, srcaddr, ss, count[0], count + 1,
                                      stridelevels, 0);
        else
            (void)gex_VIS_StridedPutNBI(tm, node, dstaddr, ds, srcaddr, ss, count[0], count + 1,
                                        stridelevels, 0);
    } else {
        if (kind == 0)
            (void)gex_VIS_StridedGetBlocking(tm, dstaddr, ds, node, srcaddr, ss, count[0],
                                             count + 1, stridelevels, 0);
        else if (kind == 1)
            ev = gex_VIS_StridedGetNB(tm, dstaddr, ds, node, srcaddr, ss, count[0], count + 1,
                                      stridelevels, 0);
        else
            (void)gex_VIS_StridedGetNBI(tm, dstaddr, ds, node, srcaddr, ss, count[0], count + 1,
                                        stridelevels, 0);
    }
    if (ds != dbuf) free(ds);
    return ev;
}
static inline void gasnet_puts_bulk(gasnet_node_t dstnode, void *dstaddr,
                                    const size_t dststrides[], void *srcaddr,
                                    const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels)
{
    (void)gexi_g1_strided(1, 0, dstnode, dstaddr, dststrides, srcaddr, srcstrides, count,
                          stridelevels);
}
static inline gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t dstnode, void *dstaddr,
                                                  const size_t dststrides[], void *srcaddr,
                                                  const size_t srcstrides[],
                                                  const size_t count[], size_t stridelevels)
{
    return gexi_g1_strided(1, 1, dstnode, dstaddr, dststrides, srcaddr, srcstrides, count,
                           stridelevels);
}
static inline void gasnet_puts_nbi_bulk(gasnet_node_t dstnode, void *dstaddr,
                                        const size_t dststrides[], void *srcaddr,
                                        const size_t srcstrides[], const size_t count[],
                                        size_t stridelevels)
{
    (void)gexi_g1_strided(1, 2, dstnode, dstaddr, dststrides, srcaddr, srcstrides, count,
                          stridelevels);
}
static inline void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[],
                                    gasnet_node_t srcnode, void *srcaddr,
                                    const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels)
{
    (void)gexi_g1_strided(0, 0, srcnode, dstaddr, dststrides, srcaddr, srcstrides, count,
                          stridelevels);
}
static inline gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[],
                                                  gasnet_node_t srcnode, void *srcaddr,
                                                  const size_t srcstrides[],
                                                  const size_t count[], size_t stridelevels)
{
    return gexi_g1_strided(0, 1, srcnode, dstaddr, dststrides, srcaddr, srcstrides, count,
                           stridelevels);
}
static inline void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[],
                                        gasnet_node_t srcnode, void *srcaddr,
                                        const size_t srcstrides[], const size_t count[],
                                        size_t stridelevels)
{
    (void)gexi_g1_strided(0, 2, srcnode, dstaddr, dststrides, srcaddr, srcstrides, count,
                          stridelevels);
}

#ifdef __cplusplus
}
#endif
#endif /* GEX_GASNET1_VIS_H */
