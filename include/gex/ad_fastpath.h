/*
 * gex/ad_fastpath.h: the same-node fast path of the remote atomics, inlined
 * into the client (issue 27; docs/architecture.md, "Inline fast path ABI").
 *
 * Why: on a shared-memory domain an atomic on a word of this process or of
 * a PSHM peer is one CPU atomic instruction (or a short compare-and-swap
 * loop), a few nanoseconds; through libgex-atomics' exported
 * gex_AD_OpNB_<DT> (a PLT call, the argument checks, the rank translation)
 * it cost twice GASNet-EX's inlined one (U64 FADD 10.8 ns against 5.8 ns on
 * smp), and NBI streams ran at a third to two thirds of its rate.  So
 * gex_AD_OpNB_<DT> and gex_AD_OpNBI_<DT> of the six built-in types first
 * ask the domain whether the library has cleared it for the inline path and
 * the table where the target's segment is mapped here, and perform the CPU
 * atomic themselves; anything else calls the library exactly as before,
 * which also diagnoses misuse.
 *
 * The library clears a domain (GEXI_AD_INLINE_V1 in its first word) only
 * when its own path for it is the same CPU atomic: a shared-memory domain
 * (every member in this process's neighbourhood; never network atomics,
 * which need not be coherent with the CPU's), on the primordial team, in a
 * release build of the library, without GEX_FORCE_REFERENCE=atomics.  The
 * inlined and the library's operations on one word therefore mix freely.
 *
 * What stays out of line: every call on a domain while a thread holds
 * combined NBI ADDs on it (the library's own NBI calls combine them:
 * ad_combine.c; a thread's batch is performed before its next atomic),
 * MULT, MIN and MAX, GEX_FLAG_RANK_IS_JOBRANK and every flag but IMMEDIATE
 * and AD_ACQ/AD_REL, a target not mapped here or with a device segment
 * (memory kinds), and every argument the library would reject.  An inlined
 * NBI operation is complete on return, as the library's direct ones are.
 *
 * The domain's first fields are ABI, frozen as version 1: a later layout
 * takes a new magic value, and a library older than this header never
 * writes this one (its domains start with another), so a client built
 * against this header runs on either, inline or out of line.
 *
 * GEX_NO_INLINE_FASTPATH (gex/fastpath.h) turns this off too.  Taking a
 * call's address, or calling it as (gex_AD_OpNB_U64)(...), always reaches
 * the library.
 *
 * Included by gasnet_ratomic.h; do not include it directly.
 */
#ifndef GEX_AD_FASTPATH_H
#define GEX_AD_FASTPATH_H

#ifndef GASNET_RATOMIC_H
#error "include <gasnet_ratomic.h>, not <gex/ad_fastpath.h>"
#endif

/* The first fields of every atomic domain, version 1 (frozen). */
#define GEXI_AD_INLINE_V1 0x41444931u   /* "ADI1": the inline path may serve it */
struct gexi_ad_fastpath_v1 {
    uint32_t inline_magic;              /* GEXI_AD_INLINE_V1, or anything else: out of line */
    gex_DT_t dt;                        /* the domain's type */
    gex_OP_t ops;                       /* the opcodes it was created with */
    uint32_t batches;                   /* threads holding combined NBI ADDs on it (atomic) */
    /* rank -> where its segment is mapped here, a copy in the domain itself:
     * one dependent load less between two atomics of a loop (each waits for
     * the one before, so the loads after it are on the critical path) */
    struct gexi_fastpath table;
};

#if defined(GEXI_FASTPATH_INLINE)

/* The opcodes done inline: one fetch-and-op or exchange instruction each. */
#define GEXI_AD_INLINE_OPS \
    (GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS | GEX_OP_ADD | \
     GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_INC | GEX_OP_FINC | GEX_OP_DEC | \
     GEX_OP_FDEC | GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
/* Those of them that write *result_p. */
#define GEXI_AD_INLINE_FETCHING \
    (GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FINC | \
     GEX_OP_FDEC | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR)

/* Where the target word is mapped here, if the inline path may perform this
 * call; NULL sends it to the library. */
static inline __attribute__((always_inline)) void *
gexi_ad_inline_word(gex_AD_t ad, gex_DT_t dt, size_t size, const void *result_p,
                    gex_Rank_t tgt_rank, void *tgt_addr, gex_OP_t opcode, gex_Flags_t flags)
{
    const struct gexi_ad_fastpath_v1 *p = (const struct gexi_ad_fastpath_v1 *)(const void *)ad;
    if (__builtin_expect(!p || p->inline_magic != GEXI_AD_INLINE_V1 || p->dt != dt, 0)) return 0;
    /* A thread's combined NBI ADDs are performed before its next atomic
     * (atomics_internal.h, "Combining"): while any thread holds some on
     * this domain, the library does that. */
    if (__builtin_expect(__atomic_load_n(&p->batches, __ATOMIC_RELAXED) != 0, 0)) return 0;
    if (__builtin_expect(!(opcode & p->ops & GEXI_AD_INLINE_OPS) || (opcode & (opcode - 1)), 0))
        return 0;
    if (__builtin_expect((flags & ~(gex_Flags_t)(GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_ACQ |
                                                  GEX_FLAG_AD_REL)) != 0, 0))
        return 0;
    if (__builtin_expect(((opcode & GEXI_AD_INLINE_FETCHING) && !result_p) ||
                         ((uintptr_t)tgt_addr & (size - 1)), 0))
        return 0;
    return gexi_fastpath_table_addr(&p->table, tgt_rank, tgt_addr, size);
}

/* The CPU atomic (relaxed, fenced per flags as the library does), for type
 * T; returns the fetched value (0 for SET, the ADD/SUB/... forms' old value
 * unused). */
#define GEXI_AD_INLINE_KERNEL(T, N) \
    static inline __attribute__((always_inline)) \
    T gexi_ad_inline_cpu_##N(T *w, gex_OP_t op, T a, T b) \
    { \
        /* the common case first, for an opcode known only at run time */ \
        if (__builtin_expect(op == GEX_OP_FADD || op == GEX_OP_ADD, 1)) \
            return __atomic_fetch_add(w, a, __ATOMIC_RELAXED); \
        switch (op) { \
        case GEX_OP_SET: __atomic_store_n(w, a, __ATOMIC_RELAXED); return 0; \
        case GEX_OP_GET: return __atomic_load_n(w, __ATOMIC_RELAXED); \
        case GEX_OP_SWAP: return __atomic_exchange_n(w, a, __ATOMIC_RELAXED); \
        case GEX_OP_ADD: case GEX_OP_FADD: return __atomic_fetch_add(w, a, __ATOMIC_RELAXED); \
        case GEX_OP_SUB: case GEX_OP_FSUB: return __atomic_fetch_sub(w, a, __ATOMIC_RELAXED); \
        case GEX_OP_INC: case GEX_OP_FINC: return __atomic_fetch_add(w, 1, __ATOMIC_RELAXED); \
        case GEX_OP_DEC: case GEX_OP_FDEC: return __atomic_fetch_sub(w, 1, __ATOMIC_RELAXED); \
        case GEX_OP_AND: case GEX_OP_FAND: return __atomic_fetch_and(w, a, __ATOMIC_RELAXED); \
        case GEX_OP_OR: case GEX_OP_FOR: return __atomic_fetch_or(w, a, __ATOMIC_RELAXED); \
        case GEX_OP_XOR: case GEX_OP_FXOR: return __atomic_fetch_xor(w, a, __ATOMIC_RELAXED); \
        default: /* CAS, FCAS: the only others gexi_ad_inline_word lets through */ \
            __atomic_compare_exchange_n(w, &a, b, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
            return a; \
        } \
    }

/* FLT and DBL: the word is accessed as its bit pattern BT, as the library
 * does (spec: (F)CAS may compare as integers of the same width); the
 * arithmetic is a compare-and-swap loop evaluating C's expression, coherent
 * with the library's loop on the same word. */
#define GEXI_AD_INLINE_FP_KERNEL(T, BT, N) \
    static inline __attribute__((always_inline)) BT gexi_ad_inline_bits_##N(T v) \
    { \
        BT b; \
        __builtin_memcpy(&b, &v, sizeof b); \
        return b; \
    } \
    static inline __attribute__((always_inline)) T gexi_ad_inline_val_##N(BT b) \
    { \
        T v; \
        __builtin_memcpy(&v, &b, sizeof v); \
        return v; \
    } \
    static inline __attribute__((always_inline)) \
    T gexi_ad_inline_cpu_##N(T *tw, gex_OP_t op, T a, T b) \
    { \
        BT *w = (BT *)(void *)tw, ob, nb; \
        T old, nv; \
        switch (op) { \
        case GEX_OP_SET: \
            __atomic_store_n(w, gexi_ad_inline_bits_##N(a), __ATOMIC_RELAXED); \
            return 0; \
        case GEX_OP_GET: return gexi_ad_inline_val_##N(__atomic_load_n(w, __ATOMIC_RELAXED)); \
        case GEX_OP_SWAP: \
            return gexi_ad_inline_val_##N(__atomic_exchange_n(w, gexi_ad_inline_bits_##N(a), \
                                                              __ATOMIC_RELAXED)); \
        case GEX_OP_CAS: case GEX_OP_FCAS: \
            ob = gexi_ad_inline_bits_##N(a); \
            __atomic_compare_exchange_n(w, &ob, gexi_ad_inline_bits_##N(b), 0, \
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
            return gexi_ad_inline_val_##N(ob); \
        default: break; /* (F)ADD, (F)SUB, (F)INC, (F)DEC */ \
        } \
        ob = __atomic_load_n(w, __ATOMIC_RELAXED); \
        do { \
            old = gexi_ad_inline_val_##N(ob); \
            nv = (op == GEX_OP_FADD || op == GEX_OP_ADD) ? old + a \
               : (op == GEX_OP_FSUB || op == GEX_OP_SUB) ? old - a \
               : (op == GEX_OP_FINC || op == GEX_OP_INC) ? old + (T)1 : old - (T)1; \
            nb = gexi_ad_inline_bits_##N(nv); \
            if (nb == ob) return old; /* nothing to write: the read was atomic */ \
        } while (!__atomic_compare_exchange_n(w, &ob, nb, 1, __ATOMIC_RELAXED, \
                                              __ATOMIC_RELAXED)); \
        return old; \
    }

/* NB and NBI of type T: the CPU atomic where gexi_ad_inline_word allows it,
 * else the library's function.  Complete on return either way on the
 * inline path: NB returns GEX_EVENT_INVALID, NBI 0 with nothing for
 * gex_NBI_Wait to count (as the library's own direct path does).  Forced
 * inline: as an out-of-line static function (what GCC chose for the NBI
 * form in a loop) the call, its frame and the reloaded arguments cost 20-30%
 * of an NBI stream's rate (testfaddperf, smp, 2 ranks). */
#define GEXI_AD_INLINE_OP(T, N, SUFFIX, RET_T, DONE) \
    static inline __attribute__((always_inline)) RET_T gexi_inline_AD_Op##SUFFIX##_##N( \
        gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank, void *tgt_addr, gex_OP_t opcode, \
        T operand1, T operand2, gex_Flags_t flags) \
    { \
        T *w = (T *)gexi_ad_inline_word(ad, GEX_DT_##N, sizeof(T), result_p, tgt_rank, \
                                        tgt_addr, opcode, flags); \
        if (__builtin_expect(w == 0, 0)) \
            return (gex_AD_Op##SUFFIX##_##N)(ad, result_p, tgt_rank, tgt_addr, opcode, \
                                             operand1, operand2, flags); \
        if (flags & GEX_FLAG_AD_REL) __atomic_thread_fence(__ATOMIC_RELEASE); \
        const T v = gexi_ad_inline_cpu_##N(w, opcode, operand1, operand2); \
        if (flags & GEX_FLAG_AD_ACQ) __atomic_thread_fence(__ATOMIC_ACQUIRE); \
        if (opcode & GEXI_AD_INLINE_FETCHING) *result_p = v; \
        return DONE; \
    }

GEXI_AD_INLINE_KERNEL(int32_t, I32)
GEXI_AD_INLINE_KERNEL(uint32_t, U32)
GEXI_AD_INLINE_KERNEL(int64_t, I64)
GEXI_AD_INLINE_KERNEL(uint64_t, U64)
GEXI_AD_INLINE_FP_KERNEL(float, uint32_t, FLT)
GEXI_AD_INLINE_FP_KERNEL(double, uint64_t, DBL)

#define GEXI_AD_INLINE_TYPE(T, N) \
    GEXI_AD_INLINE_OP(T, N, NB, gex_Event_t, GEX_EVENT_INVALID) \
    GEXI_AD_INLINE_OP(T, N, NBI, int, 0)
GEXI_AD_INLINE_TYPE(int32_t, I32)
GEXI_AD_INLINE_TYPE(uint32_t, U32)
GEXI_AD_INLINE_TYPE(int64_t, I64)
GEXI_AD_INLINE_TYPE(uint64_t, U64)
GEXI_AD_INLINE_TYPE(float, FLT)
GEXI_AD_INLINE_TYPE(double, DBL)

#define gex_AD_OpNB_I32(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNB_I32(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNB_U32(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNB_U32(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNB_I64(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNB_I64(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNB_U64(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNB_U64(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNB_FLT(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNB_FLT(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNB_DBL(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNB_DBL(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNBI_I32(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNBI_I32(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNBI_U32(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNBI_U32(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNBI_I64(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNBI_I64(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNBI_U64(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNBI_U64(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNBI_FLT(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNBI_FLT(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#define gex_AD_OpNBI_DBL(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags) \
    gexi_inline_AD_OpNBI_DBL(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)
#endif /* GEXI_FASTPATH_INLINE */

#endif /* GEX_AD_FASTPATH_H */
