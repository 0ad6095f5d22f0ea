/* Atomic memory operations (OpenSHMEM 1.5 section 9.7) and put-with-signal
 * (section 9.8.1-9.8.2).
 *
 * Heap targets go through GEX atomic domains (gex_AD, created at init over
 * the world team, one per GEX data type): whatever the conduit offloads -
 * NIC atomics, or CPU atomics on a PSHM peer's mapped segment - OpenSHMEM
 * gets for free, and all PEs' operations on one word are atomic with
 * respect to each other because they all use the same domain.  Static
 * targets go through shmem_static.c.  Fetching blocking AMOs wait for
 * their result; the others complete at the context's quiet. */
#include "shmem_internal.h"
#include <string.h>

/* The GEX data type of a C type: float/double, else by size and sign. */
#define DT_OF(T)                                                                          \
    ((T)0.5 != (T)0 ? (sizeof(T) == 4 ? GEX_DT_FLT : GEX_DT_DBL)                          \
     : (T)-1 > (T)0 ? (sizeof(T) == 4 ? GEX_DT_U32 : GEX_DT_U64)                          \
                    : (sizeof(T) == 4 ? GEX_DT_I32 : GEX_DT_I64))

enum { AMO_WAIT, AMO_TRACK };

/* c and pe first: CTXPE/DEFPE below supply both. */
static void amo(struct gexshm_ctx *c, int pe, gex_DT_t dt, gex_OP_t op, void *target,
                void *result, const void *a, const void *b, int mode, const char *what)
{
    if ((unsigned)pe >= (unsigned)gexshm.n_pes)
        gexshm_fatal("%s: PE %d is not a PE of the job (0..%d)", what, pe, gexshm.n_pes - 1);
    switch (gexshm_where(target)) {
    case GEXSHM_HEAP: {
        void *raddr = gexshm.peer_heap[pe] + ((char *)target - gexshm.heap_base);
        gex_Rank_t r = (gex_Rank_t)pe;
        gex_Event_t ev;
#define OPERAND(T, p) ((p) ? *(const T *)(p) : (T)0)
        switch (dt) {
        case GEX_DT_I32:
            ev = gex_AD_OpNB_I32(gexshm.ad_i32, result, r, raddr, op, OPERAND(int32_t, a),
                                 OPERAND(int32_t, b), 0);
            break;
        case GEX_DT_U32:
            ev = gex_AD_OpNB_U32(gexshm.ad_u32, result, r, raddr, op, OPERAND(uint32_t, a),
                                 OPERAND(uint32_t, b), 0);
            break;
        case GEX_DT_I64:
            ev = gex_AD_OpNB_I64(gexshm.ad_i64, result, r, raddr, op, OPERAND(int64_t, a),
                                 OPERAND(int64_t, b), 0);
            break;
        case GEX_DT_U64:
            ev = gex_AD_OpNB_U64(gexshm.ad_u64, result, r, raddr, op, OPERAND(uint64_t, a),
                                 OPERAND(uint64_t, b), 0);
            break;
        case GEX_DT_FLT:
            ev = gex_AD_OpNB_FLT(gexshm.ad_flt, result, r, raddr, op, OPERAND(float, a),
                                 OPERAND(float, b), 0);
            break;
        default:
            ev = gex_AD_OpNB_DBL(gexshm.ad_dbl, result, r, raddr, op, OPERAND(double, a),
                                 OPERAND(double, b), 0);
            break;
        }
#undef OPERAND
        if (mode == AMO_WAIT) gexshm_wait(ev);
        else gexshm_ctx_track(c, ev);
        return;
    }
    case GEXSHM_STATIC:
        gexshm_static_amo(dt, op, target, result, a, b, pe);
        return;
    default:
        gexshm_fatal("%s: address %p is not symmetric", what, target);
    }
}

#define CTXPE(ctx, pe) gexshm_ctx(ctx), gexshm_ctx_world_pe(gexshm_ctx(ctx), pe)
#define DEFPE(pe) &gexshm_ctx_default, pe

/* One fetching and one non-fetching body, used for every name. */
#define FETCH(T, OP, dest, a, b, cpe, what)                                              \
    T r_;                                                                                \
    amo(cpe, DT_OF(T), OP, (void *)(dest), &r_, a, b, AMO_WAIT, what);                   \
    return r_
#define NOFETCH(T, OP, dest, a, b, cpe, what)                                            \
    amo(cpe, DT_OF(T), OP, (void *)(dest), NULL, a, b, AMO_TRACK, what)
#define FETCH_NBI(T, OP, fetch, dest, a, b, cpe, what)                                   \
    amo(cpe, DT_OF(T), OP, (void *)(dest), fetch, a, b, AMO_TRACK, what)

/* ---- extended types: fetch, set, swap ---- */
#define AMO_EXT(T, N)                                                                     \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe)              \
    { FETCH(T, GEX_OP_GET, source, NULL, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_fetch"); } \
    T shmem_##N##_atomic_fetch(const T *source, int pe)                                   \
    { FETCH(T, GEX_OP_GET, source, NULL, NULL, DEFPE(pe), "shmem_" #N "_atomic_fetch"); } \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe)            \
    { NOFETCH(T, GEX_OP_SET, dest, &value, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_set"); } \
    void shmem_##N##_atomic_set(T *dest, T value, int pe)                                 \
    { NOFETCH(T, GEX_OP_SET, dest, &value, NULL, DEFPE(pe), "shmem_" #N "_atomic_set"); } \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe)              \
    { FETCH(T, GEX_OP_SWAP, dest, &value, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_swap"); } \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe)                                   \
    { FETCH(T, GEX_OP_SWAP, dest, &value, NULL, DEFPE(pe), "shmem_" #N "_atomic_swap"); } \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe) \
    { FETCH_NBI(T, GEX_OP_GET, fetch, source, NULL, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_fetch_nbi"); } \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)                  \
    { FETCH_NBI(T, GEX_OP_GET, fetch, source, NULL, NULL, DEFPE(pe), "shmem_" #N "_atomic_fetch_nbi"); } \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) \
    { FETCH_NBI(T, GEX_OP_SWAP, fetch, dest, &value, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_swap_nbi"); } \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe)                  \
    { FETCH_NBI(T, GEX_OP_SWAP, fetch, dest, &value, NULL, DEFPE(pe), "shmem_" #N "_atomic_swap_nbi"); }
GEXSHMEM_AMO_EXT_TYPES(AMO_EXT)

/* ---- standard types: compare_swap, fetch_inc, inc, fetch_add, add ---- */
#define AMO_STD(T, N)                                                                     \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) \
    { FETCH(T, GEX_OP_FCAS, dest, &cond, &value, CTXPE(ctx, pe), "shmem_" #N "_atomic_compare_swap"); } \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)                   \
    { FETCH(T, GEX_OP_FCAS, dest, &cond, &value, DEFPE(pe), "shmem_" #N "_atomic_compare_swap"); } \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe)                  \
    { FETCH(T, GEX_OP_FINC, dest, NULL, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_fetch_inc"); } \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe)                                       \
    { FETCH(T, GEX_OP_FINC, dest, NULL, NULL, DEFPE(pe), "shmem_" #N "_atomic_fetch_inc"); } \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe)                     \
    { NOFETCH(T, GEX_OP_INC, dest, NULL, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_inc"); } \
    void shmem_##N##_atomic_inc(T *dest, int pe)                                          \
    { NOFETCH(T, GEX_OP_INC, dest, NULL, NULL, DEFPE(pe), "shmem_" #N "_atomic_inc"); }   \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe)         \
    { FETCH(T, GEX_OP_FADD, dest, &value, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_fetch_add"); } \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe)                              \
    { FETCH(T, GEX_OP_FADD, dest, &value, NULL, DEFPE(pe), "shmem_" #N "_atomic_fetch_add"); } \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe)            \
    { NOFETCH(T, GEX_OP_ADD, dest, &value, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_add"); } \
    void shmem_##N##_atomic_add(T *dest, T value, int pe)                                 \
    { NOFETCH(T, GEX_OP_ADD, dest, &value, NULL, DEFPE(pe), "shmem_" #N "_atomic_add"); } \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, \
                                                 T value, int pe)                         \
    { FETCH_NBI(T, GEX_OP_FCAS, fetch, dest, &cond, &value, CTXPE(ctx, pe), "shmem_" #N "_atomic_compare_swap_nbi"); } \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe)  \
    { FETCH_NBI(T, GEX_OP_FCAS, fetch, dest, &cond, &value, DEFPE(pe), "shmem_" #N "_atomic_compare_swap_nbi"); } \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe)  \
    { FETCH_NBI(T, GEX_OP_FINC, fetch, dest, NULL, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_fetch_inc_nbi"); } \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe)                      \
    { FETCH_NBI(T, GEX_OP_FINC, fetch, dest, NULL, NULL, DEFPE(pe), "shmem_" #N "_atomic_fetch_inc_nbi"); } \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, \
                                              int pe)                                     \
    { FETCH_NBI(T, GEX_OP_FADD, fetch, dest, &value, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_fetch_add_nbi"); } \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe)             \
    { FETCH_NBI(T, GEX_OP_FADD, fetch, dest, &value, NULL, DEFPE(pe), "shmem_" #N "_atomic_fetch_add_nbi"); }
GEXSHMEM_AMO_STD_TYPES(AMO_STD)

/* ---- bitwise types ---- */
#define AMO_BIT1(T, N, NAME, FOP, OP)                                                     \
    T shmem_ctx_##N##_atomic_fetch_##NAME(shmem_ctx_t ctx, T *dest, T value, int pe)      \
    { FETCH(T, FOP, dest, &value, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_fetch_" #NAME); } \
    T shmem_##N##_atomic_fetch_##NAME(T *dest, T value, int pe)                           \
    { FETCH(T, FOP, dest, &value, NULL, DEFPE(pe), "shmem_" #N "_atomic_fetch_" #NAME); } \
    void shmem_ctx_##N##_atomic_##NAME(shmem_ctx_t ctx, T *dest, T value, int pe)         \
    { NOFETCH(T, OP, dest, &value, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_" #NAME); } \
    void shmem_##N##_atomic_##NAME(T *dest, T value, int pe)                              \
    { NOFETCH(T, OP, dest, &value, NULL, DEFPE(pe), "shmem_" #N "_atomic_" #NAME); }      \
    void shmem_ctx_##N##_atomic_fetch_##NAME##_nbi(shmem_ctx_t ctx, T *fetch, T *dest,    \
                                                   T value, int pe)                       \
    { FETCH_NBI(T, FOP, fetch, dest, &value, NULL, CTXPE(ctx, pe), "shmem_" #N "_atomic_fetch_" #NAME "_nbi"); } \
    void shmem_##N##_atomic_fetch_##NAME##_nbi(T *fetch, T *dest, T value, int pe)        \
    { FETCH_NBI(T, FOP, fetch, dest, &value, NULL, DEFPE(pe), "shmem_" #N "_atomic_fetch_" #NAME "_nbi"); }
#define AMO_BIT(T, N)                                                                     \
    AMO_BIT1(T, N, and, GEX_OP_FAND, GEX_OP_AND)                                          \
    AMO_BIT1(T, N, or, GEX_OP_FOR, GEX_OP_OR)                                             \
    AMO_BIT1(T, N, xor, GEX_OP_FXOR, GEX_OP_XOR)
GEXSHMEM_AMO_BIT_TYPES(AMO_BIT)

/* ---- deprecated names (OpenSHMEM 1.3 and earlier) ---- */
#define AMO_DEPR(T, N)                                                                    \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                 \
    { return shmem_##N##_atomic_compare_swap(dest, cond, value, pe); }                    \
    T shmem_##N##_finc(T *dest, int pe) { return shmem_##N##_atomic_fetch_inc(dest, pe); } \
    void shmem_##N##_inc(T *dest, int pe) { shmem_##N##_atomic_inc(dest, pe); }           \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                          \
    { return shmem_##N##_atomic_fetch_add(dest, value, pe); }                             \
    void shmem_##N##_add(T *dest, T value, int pe) { shmem_##N##_atomic_add(dest, value, pe); }
GEXSHMEM_AMO_DEPR_TYPES(AMO_DEPR)
#define AMO_DEPR_EXT(T, N)                                                                \
    T shmem_##N##_swap(T *dest, T value, int pe) { return shmem_##N##_atomic_swap(dest, value, pe); } \
    T shmem_##N##_fetch(const T *source, int pe) { return shmem_##N##_atomic_fetch(source, pe); } \
    void shmem_##N##_set(T *dest, T value, int pe) { shmem_##N##_atomic_set(dest, value, pe); }
GEXSHMEM_AMO_DEPR_EXT_TYPES(AMO_DEPR_EXT)

/* ---- put with signal ---- */

/* The data is delivered (remote completion) before the signal is updated,
 * so a PE that sees the signal sees the data. */
static void put_signal(struct gexshm_ctx *c, void *dest, const void *src, size_t n,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, const char *what)
{
    if ((unsigned)pe >= (unsigned)gexshm.n_pes)
        gexshm_fatal("%s: PE %d is not a PE of the job (0..%d)", what, pe, gexshm.n_pes - 1);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        gexshm_fatal("%s: sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", what, sig_op);
    if (n) {
        if (gexshm_where(dest) == GEXSHM_HEAP && !gexshm.peer_local[pe]) {
            size_t off = (size_t)((char *)dest - gexshm.heap_base);
            gexshm_wait(gex_RMA_PutNB(c->tm, (gex_Rank_t)pe, gexshm.peer_heap[pe] + off,
                                      (void *)src, n, GEX_EVENT_NOW, 0));
        } else {
            gexshm_put(c, dest, src, n, pe, 0); /* complete on return on these paths */
            atomic_thread_fence(memory_order_release);
        }
    }
    amo(c, pe, GEX_DT_U64, sig_op == SHMEM_SIGNAL_SET ? GEX_OP_SET : GEX_OP_ADD, sig_addr, NULL,
        &signal, NULL, AMO_TRACK, what);
}

#define SIGNAL_TYPED(T, N)                                                                \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    { put_signal(gexshm_ctx(ctx), dest, source,                                          \
                 nelems * sizeof(T), sig_addr, signal, sig_op,                            \
                 gexshm_ctx_world_pe(gexshm_ctx(ctx), pe), "shmem_" #N "_put_signal"); }  \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                uint64_t signal, int sig_op, int pe)                      \
    { put_signal(&gexshm_ctx_default, dest, source, nelems * sizeof(T), sig_addr, signal, \
                 sig_op, pe, "shmem_" #N "_put_signal"); }                                \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,        \
                                        size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                        int sig_op, int pe)                               \
    { put_signal(gexshm_ctx(ctx), dest, source, nelems * sizeof(T), sig_addr, signal,     \
                 sig_op, gexshm_ctx_world_pe(gexshm_ctx(ctx), pe), "shmem_" #N "_put_signal_nbi"); } \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,              \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    { put_signal(&gexshm_ctx_default, dest, source, nelems * sizeof(T), sig_addr, signal, \
                 sig_op, pe, "shmem_" #N "_put_signal_nbi"); }
GEXSHMEM_RMA_TYPES(SIGNAL_TYPED)

#define SIGNAL_SIZED(BITS)                                                                \
    void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source,    \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                      int sig_op, int pe)                                 \
    { put_signal(gexshm_ctx(ctx), dest, source, nelems * (BITS / 8), sig_addr, signal,    \
                 sig_op, gexshm_ctx_world_pe(gexshm_ctx(ctx), pe), "shmem_put" #BITS "_signal"); } \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,          \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    { put_signal(&gexshm_ctx_default, dest, source, nelems * (BITS / 8), sig_addr, signal, \
                 sig_op, pe, "shmem_put" #BITS "_signal"); }                              \
    void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, \
                                          size_t nelems, uint64_t *sig_addr,              \
                                          uint64_t signal, int sig_op, int pe)            \
    { put_signal(gexshm_ctx(ctx), dest, source, nelems * (BITS / 8), sig_addr, signal,    \
                 sig_op, gexshm_ctx_world_pe(gexshm_ctx(ctx), pe), "shmem_put" #BITS "_signal_nbi"); } \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,      \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    { put_signal(&gexshm_ctx_default, dest, source, nelems * (BITS / 8), sig_addr, signal, \
                 sig_op, pe, "shmem_put" #BITS "_signal_nbi"); }
GEXSHMEM_RMA_SIZES(SIGNAL_SIZED)

void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    put_signal(gexshm_ctx(ctx), dest, source, nelems, sig_addr, signal, sig_op,
               gexshm_ctx_world_pe(gexshm_ctx(ctx), pe), "shmem_ctx_putmem_signal");
}
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe)
{
    put_signal(&gexshm_ctx_default, dest, source, nelems, sig_addr, signal, sig_op, pe,
               "shmem_putmem_signal");
}
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    put_signal(gexshm_ctx(ctx), dest, source, nelems, sig_addr, signal, sig_op,
               gexshm_ctx_world_pe(gexshm_ctx(ctx), pe), "shmem_ctx_putmem_signal_nbi");
}
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe)
{
    put_signal(&gexshm_ctx_default, dest, source, nelems, sig_addr, signal, sig_op, pe,
               "shmem_putmem_signal_nbi");
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    return __atomic_load_n(sig_addr, __ATOMIC_SEQ_CST);
}
