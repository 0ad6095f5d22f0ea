/* RMA (OpenSHMEM 1.5 sections 9.6.1-9.6.8): every typed, sized and byte
 * routine reaches gexshm_put / gexshm_get.
 *
 * Paths, fastest first:
 *   - heap, peer's segment mapped here (PSHM peer, or ourselves): memcpy;
 *   - heap, other peers: gex_RMA_PutNB / GetNB on the context's team, the
 *     event kept by the context until its quiet (blocking put: local
 *     completion before return, GEX_EVENT_NOW; put_nbi: GEX_EVENT_DEFER);
 *   - static data (.data/.bss) of another PE: Active Messages
 *     (shmem_static.c), complete on return. */
#include "shmem_internal.h"
#include <string.h>

static inline void check_pe(int pe, const char *what)
{
    if ((unsigned)pe >= (unsigned)gexshm.n_pes)
        gexshm_fatal("%s: PE %d is not a PE of the job (0..%d)", what, pe, gexshm.n_pes - 1);
}

static void not_symmetric(const char *what, const void *p)
{
    gexshm_fatal("%s: address %p is not symmetric (neither in the symmetric heap nor in the "
                 "program's static data)", what, p);
}

static void put_at(struct gexshm_ctx *c, void *dest, const void *src, size_t n, int pe, int nbi,
                   const char *what)
{
    check_pe(pe, what);
    switch (gexshm_where(dest)) {
    case GEXSHM_HEAP: {
        size_t off = (size_t)((char *)dest - gexshm.heap_base);
        char *local = gexshm.peer_local[pe];
        if (local) {
            memcpy(local + off, src, n);
            return;
        }
        gex_Event_t ev = gex_RMA_PutNB(c->tm, (gex_Rank_t)pe, gexshm.peer_heap[pe] + off,
                                       (void *)src, n, nbi ? GEX_EVENT_DEFER : GEX_EVENT_NOW, 0);
        gexshm_ctx_track(c, ev);
        return;
    }
    case GEXSHM_STATIC:
        if (pe == gexshm.my_pe) memmove(dest, src, n);
        else gexshm_static_put(dest, src, n, pe);
        return;
    default:
        not_symmetric(what, dest);
    }
}

static void get_at(struct gexshm_ctx *c, void *dest, const void *src, size_t n, int pe, int nbi,
                   const char *what)
{
    check_pe(pe, what);
    switch (gexshm_where(src)) {
    case GEXSHM_HEAP: {
        size_t off = (size_t)((const char *)src - gexshm.heap_base);
        char *local = gexshm.peer_local[pe];
        if (local) {
            memcpy(dest, local + off, n);
            return;
        }
        gex_Event_t ev = gex_RMA_GetNB(c->tm, dest, (gex_Rank_t)pe, gexshm.peer_heap[pe] + off,
                                       n, 0);
        if (nbi) gexshm_ctx_track(c, ev);
        else gexshm_wait(ev);
        return;
    }
    case GEXSHM_STATIC:
        if (pe == gexshm.my_pe) memmove(dest, src, n);
        else gexshm_static_get(dest, src, n, pe);
        return;
    default:
        not_symmetric(what, src);
    }
}

void gexshm_put(struct gexshm_ctx *c, void *dest, const void *src, size_t n, int pe, int nbi)
{
    if (n) put_at(c, dest, src, n, pe, nbi, "shmem put");
}

void gexshm_get(struct gexshm_ctx *c, void *dest, const void *src, size_t n, int pe, int nbi)
{
    if (n) get_at(c, dest, src, n, pe, nbi, "shmem get");
}

/* Strided: one element at a time on the network (each tracked like a
 * put_nbi, so they are all in flight together), a copy loop on PSHM. */
static void iput_at(struct gexshm_ctx *c, char *dest, const char *src, ptrdiff_t dst,
                    ptrdiff_t sst, size_t nelems, size_t esize, int pe)
{
    for (size_t i = 0; i < nelems; i++)
        put_at(c, dest + (ptrdiff_t)i * dst * (ptrdiff_t)esize,
               src + (ptrdiff_t)i * sst * (ptrdiff_t)esize, esize, pe, 0, "shmem iput");
}

static void iget_at(struct gexshm_ctx *c, char *dest, const char *src, ptrdiff_t dst,
                    ptrdiff_t sst, size_t nelems, size_t esize, int pe)
{
    for (size_t i = 0; i < nelems; i++)
        get_at(c, dest + (ptrdiff_t)i * dst * (ptrdiff_t)esize,
               src + (ptrdiff_t)i * sst * (ptrdiff_t)esize, esize, pe, 1, "shmem iget");
    gexshm_ctx_quiet(c); /* iget is blocking */
}

#define CTX(ctx) struct gexshm_ctx *c_ = gexshm_ctx(ctx)
#define WPE(pe) gexshm_ctx_world_pe(c_, pe)
#define DEF struct gexshm_ctx *c_ = &gexshm_ctx_default

/* ---- typed ---- */
#define RMA_TYPED(T, N)                                                                       \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                         \
        CTX(ctx);                                                                             \
        if (nelems) put_at(c_, dest, source, nelems * sizeof(T), WPE(pe), 0, "shmem_ctx_" #N "_put"); \
    }                                                                                         \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                     \
    {                                                                                         \
        DEF;                                                                                  \
        if (nelems) put_at(c_, dest, source, nelems * sizeof(T), pe, 0, "shmem_" #N "_put");  \
    }                                                                                         \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,    \
                                 int pe)                                                      \
    {                                                                                         \
        CTX(ctx);                                                                             \
        if (nelems) put_at(c_, dest, source, nelems * sizeof(T), WPE(pe), 1, "shmem_ctx_" #N "_put_nbi"); \
    }                                                                                         \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                 \
    {                                                                                         \
        DEF;                                                                                  \
        if (nelems) put_at(c_, dest, source, nelems * sizeof(T), pe, 1, "shmem_" #N "_put_nbi"); \
    }                                                                                         \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                         \
        CTX(ctx);                                                                             \
        if (nelems) get_at(c_, dest, source, nelems * sizeof(T), WPE(pe), 0, "shmem_ctx_" #N "_get"); \
    }                                                                                         \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                     \
    {                                                                                         \
        DEF;                                                                                  \
        if (nelems) get_at(c_, dest, source, nelems * sizeof(T), pe, 0, "shmem_" #N "_get");  \
    }                                                                                         \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,    \
                                 int pe)                                                      \
    {                                                                                         \
        CTX(ctx);                                                                             \
        if (nelems) get_at(c_, dest, source, nelems * sizeof(T), WPE(pe), 1, "shmem_ctx_" #N "_get_nbi"); \
    }                                                                                         \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                 \
    {                                                                                         \
        DEF;                                                                                  \
        if (nelems) get_at(c_, dest, source, nelems * sizeof(T), pe, 1, "shmem_" #N "_get_nbi"); \
    }                                                                                         \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                         \
    {                                                                                         \
        CTX(ctx);                                                                             \
        put_at(c_, dest, &value, sizeof(T), WPE(pe), 0, "shmem_ctx_" #N "_p");                \
    }                                                                                         \
    void shmem_##N##_p(T *dest, T value, int pe)                                              \
    {                                                                                         \
        DEF;                                                                                  \
        put_at(c_, dest, &value, sizeof(T), pe, 0, "shmem_" #N "_p");                         \
    }                                                                                         \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                             \
    {                                                                                         \
        CTX(ctx);                                                                             \
        T v;                                                                                  \
        get_at(c_, &v, source, sizeof(T), WPE(pe), 0, "shmem_ctx_" #N "_g");                  \
        return v;                                                                             \
    }                                                                                         \
    T shmem_##N##_g(const T *source, int pe)                                                  \
    {                                                                                         \
        DEF;                                                                                  \
        T v;                                                                                  \
        get_at(c_, &v, source, sizeof(T), pe, 0, "shmem_" #N "_g");                           \
        return v;                                                                             \
    }                                                                                         \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,       \
                              ptrdiff_t sst, size_t nelems, int pe)                           \
    {                                                                                         \
        CTX(ctx);                                                                             \
        iput_at(c_, (char *)dest, (const char *)source, dst, sst, nelems, sizeof(T), WPE(pe)); \
    }                                                                                         \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,             \
                          size_t nelems, int pe)                                              \
    {                                                                                         \
        DEF;                                                                                  \
        iput_at(c_, (char *)dest, (const char *)source, dst, sst, nelems, sizeof(T), pe);     \
    }                                                                                         \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,       \
                              ptrdiff_t sst, size_t nelems, int pe)                           \
    {                                                                                         \
        CTX(ctx);                                                                             \
        iget_at(c_, (char *)dest, (const char *)source, dst, sst, nelems, sizeof(T), WPE(pe)); \
    }                                                                                         \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,             \
                          size_t nelems, int pe)                                              \
    {                                                                                         \
        DEF;                                                                                  \
        iget_at(c_, (char *)dest, (const char *)source, dst, sst, nelems, sizeof(T), pe);     \
    }
GEXSHMEM_RMA_TYPES(RMA_TYPED)

/* ---- sized (element width in bits) ---- */
#define RMA_SIZED(BITS)                                                                       \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                             int pe)                                                          \
    {                                                                                         \
        CTX(ctx);                                                                             \
        if (nelems) put_at(c_, dest, source, nelems * (BITS / 8), WPE(pe), 0, "shmem_put" #BITS); \
    }                                                                                         \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)               \
    {                                                                                         \
        DEF;                                                                                  \
        if (nelems) put_at(c_, dest, source, nelems * (BITS / 8), pe, 0, "shmem_put" #BITS);  \
    }                                                                                         \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                   size_t nelems, int pe)                                     \
    {                                                                                         \
        CTX(ctx);                                                                             \
        if (nelems) put_at(c_, dest, source, nelems * (BITS / 8), WPE(pe), 1, "shmem_put" #BITS "_nbi"); \
    }                                                                                         \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)         \
    {                                                                                         \
        DEF;                                                                                  \
        if (nelems) put_at(c_, dest, source, nelems * (BITS / 8), pe, 1, "shmem_put" #BITS "_nbi"); \
    }                                                                                         \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                             int pe)                                                          \
    {                                                                                         \
        CTX(ctx);                                                                             \
        if (nelems) get_at(c_, dest, source, nelems * (BITS / 8), WPE(pe), 0, "shmem_get" #BITS); \
    }                                                                                         \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)               \
    {                                                                                         \
        DEF;                                                                                  \
        if (nelems) get_at(c_, dest, source, nelems * (BITS / 8), pe, 0, "shmem_get" #BITS);  \
    }                                                                                         \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                   size_t nelems, int pe)                                     \
    {                                                                                         \
        CTX(ctx);                                                                             \
        if (nelems) get_at(c_, dest, source, nelems * (BITS / 8), WPE(pe), 1, "shmem_get" #BITS "_nbi"); \
    }                                                                                         \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)         \
    {                                                                                         \
        DEF;                                                                                  \
        if (nelems) get_at(c_, dest, source, nelems * (BITS / 8), pe, 1, "shmem_get" #BITS "_nbi"); \
    }                                                                                         \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe)                           \
    {                                                                                         \
        CTX(ctx);                                                                             \
        iput_at(c_, dest, source, dst, sst, nelems, BITS / 8, WPE(pe));                       \
    }                                                                                         \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t nelems, int pe)                                              \
    {                                                                                         \
        DEF;                                                                                  \
        iput_at(c_, dest, source, dst, sst, nelems, BITS / 8, pe);                            \
    }                                                                                         \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe)                           \
    {                                                                                         \
        CTX(ctx);                                                                             \
        iget_at(c_, dest, source, dst, sst, nelems, BITS / 8, WPE(pe));                       \
    }                                                                                         \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t nelems, int pe)                                              \
    {                                                                                         \
        DEF;                                                                                  \
        iget_at(c_, dest, source, dst, sst, nelems, BITS / 8, pe);                            \
    }
GEXSHMEM_RMA_SIZES(RMA_SIZED)

/* ---- bytes ---- */
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    CTX(ctx);
    if (nelems) put_at(c_, dest, source, nelems, WPE(pe), 0, "shmem_ctx_putmem");
}
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    DEF;
    if (nelems) put_at(c_, dest, source, nelems, pe, 0, "shmem_putmem");
}
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    CTX(ctx);
    if (nelems) put_at(c_, dest, source, nelems, WPE(pe), 1, "shmem_ctx_putmem_nbi");
}
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    DEF;
    if (nelems) put_at(c_, dest, source, nelems, pe, 1, "shmem_putmem_nbi");
}
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    CTX(ctx);
    if (nelems) get_at(c_, dest, source, nelems, WPE(pe), 0, "shmem_ctx_getmem");
}
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    DEF;
    if (nelems) get_at(c_, dest, source, nelems, pe, 0, "shmem_getmem");
}
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    CTX(ctx);
    if (nelems) get_at(c_, dest, source, nelems, WPE(pe), 1, "shmem_ctx_getmem_nbi");
}
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    DEF;
    if (nelems) get_at(c_, dest, source, nelems, pe, 1, "shmem_getmem_nbi");
}
