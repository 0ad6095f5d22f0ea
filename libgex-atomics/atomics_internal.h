/*
 * atomics_internal.h: libgex-atomics' one internal header.  The layer
 * implements the spec's "Remote Atomic Operations" (gex_AD_*, declared in
 * gasnet_ratomic.h) above libgex-core (objects, events, NBI counters, PSHM
 * mappings, conduit ops) and libgex-am (the reference path).
 *
 * An atomic domain binds a team, one data type and a set of opcodes.  At
 * gex_AD_Create the domain gets ONE implementation that can perform the
 * whole declared (type, ops) set coherently (ad_select.c):
 *   GEXI_AD_REFERENCE  CPU atomics at the target: an AM carries the
 *                      operation there and the handler performs it
 *                      (ad_ref.c); a self-targeted operation is performed
 *                      directly (it is the same CPU atomic, on our memory);
 *   GEXI_AD_SHM        every member is in this process's neighbourhood:
 *                      CPU atomics directly on the cross-mapped segment,
 *                      the AM path only for a segment not mapped here;
 *   GEXI_AD_CONDUIT    the conduit's network atomics (ops->amo) for EVERY
 *                      operation of the domain, self-targeted ones too,
 *                      because NIC atomics need not be coherent with CPU
 *                      atomics (ad_offload.c).
 * The first two mix only CPU atomics, so they are coherent with each other
 * (a domain's ops may reach one word both ways).
 *
 * The CPU kernels below are generated per type by macros: one integer
 * kernel (fetch-and-op instructions, CAS loops for MULT/MIN/MAX) and one
 * floating-point kernel (bit patterns for SET/GET/SWAP/CAS, CAS loops for
 * arithmetic).  They use relaxed atomics; GEX_FLAG_AD_REL / _ACQ become a
 * release fence before and an acquire fence after the operation, which is
 * exactly C11's fence-based release/acquire.
 */
#ifndef GEX_ATOMICS_INTERNAL_H
#define GEX_ATOMICS_INTERNAL_H

#ifndef GEXI_BUILDING_GEX
#error "atomics_internal.h is internal to GEX"
#endif
/* The layer defines the calls gex/ad_fastpath.h inlines, and other layers'
 * calls go out of line (see libgex-vis/vis_internal.h). */
#ifndef GEX_NO_INLINE_FASTPATH
#define GEX_NO_INLINE_FASTPATH 1
#endif
#include "core_layer.h"
#include <gasnet_ratomic.h>
#include <string.h>

/* ---- Internal AM handlers (core_layer.h: GEXI_HIDX_AD_BASE..+15) ---- */
#define GEXI_AD_H_OP        (GEXI_HIDX_AD_BASE + 0) /* Short request: perform, reply */
#define GEXI_AD_H_DONE      (GEXI_HIDX_AD_BASE + 1) /* Short reply: non-fetching done */
#define GEXI_AD_H_FETCHED   (GEXI_HIDX_AD_BASE + 2) /* Short reply: value -> *result_p, done */

/* ---- Types and opcodes ---- */
#define GEXI_AD_MAGIC 0x41445f5fu /* "AD__" */

/* Every opcode valid for atomics: GEX_OP_AND (bit 0) .. GEX_OP_GET (bit 24). */
#define GEXI_AD_OPS_ALL  ((gex_OP_t)((GEX_OP_GET << 1) - 1))
#define GEXI_AD_OPS_BITWISE \
    (GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define GEXI_AD_OPS_FP   (GEXI_AD_OPS_ALL & ~GEXI_AD_OPS_BITWISE)
/* Fetching opcodes: every GEX_OP_Fxxx, SWAP, FCAS and GET. */
#define GEXI_AD_OPS_FETCHING \
    (GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FMULT | \
     GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_SWAP | GEX_OP_FCAS | \
     GEX_OP_GET)
#define GEXI_AD_OPS_NO_OPERAND \
    (GEX_OP_INC | GEX_OP_FINC | GEX_OP_DEC | GEX_OP_FDEC | GEX_OP_GET)
#define GEXI_AD_OPS_TWO_OPERANDS (GEX_OP_CAS | GEX_OP_FCAS)

/* The atomic data types this layer supports, and their opcode sets. */
#define GEXI_AD_DTS (GEX_DT_I32 | GEX_DT_U32 | GEX_DT_I64 | GEX_DT_U64 | GEX_DT_FLT | GEX_DT_DBL)
static inline gex_OP_t gexi_ad_valid_ops(gex_DT_t dt)
{
    return (dt & (GEX_DT_FLT | GEX_DT_DBL)) ? GEXI_AD_OPS_FP : GEXI_AD_OPS_ALL;
}
static inline unsigned gexi_ad_dt_size(gex_DT_t dt)
{
    return (dt & (GEX_DT_I32 | GEX_DT_U32 | GEX_DT_FLT)) ? 4u : 8u;
}
static inline int gexi_ad_is_single_bit(uint32_t x) { return x && !(x & (x - 1)); }
/* Event category of an NBI operation (spec: SET is a put, GET a get). */
static inline gex_EC_t gexi_ad_category(gex_OP_t op)
{
    return op == GEX_OP_SET ? GEX_EC_PUT : op == GEX_OP_GET ? GEX_EC_GET : GEX_EC_RMW;
}
const char *gexi_ad_dt_name(gex_DT_t dt);
const char *gexi_ad_op_name(gex_OP_t op);

/* Operands and results travel as 64 bits whatever the type. */
union gexi_ad_val {
    int32_t I32;
    uint32_t U32;
    int64_t I64;
    uint64_t U64;
    float FLT;
    double DBL;
    uint64_t bits;
};

/* ---- Domains ---- */
enum gexi_ad_impl { GEXI_AD_REFERENCE = 0, GEXI_AD_SHM = 1, GEXI_AD_CONDUIT = 2 };

struct gexi_ad {
    /* First, the fields the client's inline path reads (frozen, version 1:
     * include/gex/ad_fastpath.h); set by gex_AD_Create (ad_domain.c). */
    struct gexi_ad_fastpath_v1 pub;
    uint32_t magic;
    uint8_t impl;                  /* enum gexi_ad_impl */
    uint8_t dt_size;
    gex_DT_t dt;
    gex_OP_t ops;
    gex_Flags_t flags;
    gex_TM_t tm;
    gex_Rank_t size, my_rank;
    void *cdata;
    /* [jobsize]: team rank of (jobrank, EP 0), or GEX_RANK_INVALID if that
     * endpoint is no member; NULL for the primordial team (identity).  Used
     * for GEX_FLAG_RANK_IS_JOBRANK. */
    gex_Rank_t *rank_of_jobrank;
    struct gexi_ad *dead_next;     /* debug builds: destroyed domains (ad_domain.c) */
};
static inline struct gexi_ad *gexi_ad_of(gex_AD_t ad) { return (struct gexi_ad *)ad; }

/* ---- Implementation selection (ad_select.c): a pure function of its
 * inputs, so it is unit-tested without a conduit that has atomics. ---- */
struct gexi_ad_select_in {
    const struct gex_conduit_ops *ops;
    struct gex_conduit *conduit;
    uint64_t cap_flags;            /* gexi_core.caps.flags */
    gex_DT_t dt;
    gex_OP_t opset;
    gex_Flags_t flags;             /* gex_AD_Create's (FAVOR hints) */
    gex_Rank_t team_size;
    int all_local;                 /* every member in this process's nbrhd */
    int forced;                    /* GEX_FORCE_REFERENCE names atomics */
};
/* 1 when the conduit offers amo and amo_query accepts every declared op. */
int gexi_ad_conduit_covers(const struct gex_conduit_ops *ops, struct gex_conduit *c,
                           uint64_t cap_flags, gex_DT_t dt, gex_OP_t opset);
enum gexi_ad_impl gexi_ad_select(const struct gexi_ad_select_in *in);
const char *gexi_ad_impl_name(enum gexi_ad_impl impl);

/* ---- Layer state (ad_domain.c: bind) ---- */
struct gexi_ad_layer {
    /* Where each jobrank's EP-0 segment is mapped here, for the client's
     * inline path (gex/ad_fastpath.h); tm GEX_TM_INVALID until bind fills
     * it (never in a debug build). */
    struct gexi_fastpath table;
    int forced;                    /* GEX_FORCE_REFERENCE=atomics */
    int conduit_amo;               /* the conduit offers amo (cap bit and op) */
    int combine;                   /* GEX_AD_COMBINE (default 1): see ad_combine.c */
};
extern struct gexi_ad_layer gexi_ad_state;

/* ---- Argument faults: the AD calls have no error returns, so a bad
 * argument ends the job with a message naming the call and argument. ---- */
void gexi_ad_bad_arg(const char *func, const char *fmt, ...)
    __attribute__((noreturn, cold, format(printf, 2, 3)));

/* ---- Remote paths ---- */
enum gexi_ad_sync { GEXI_AD_NB = 1, GEXI_AD_NBI = 2 };
/* One operation that no direct CPU atomic serves (AM reference path or the
 * conduit).  Returns GEX_EVENT_NO_OP if IMMEDIATE refused it, otherwise the
 * NB root event or GEX_EVENT_INVALID (NBI: counted). */
gex_Event_t gexi_ad_remote(struct gexi_ad *a, void *result_p, gex_Rank_t trank,
                           gex_Rank_t jobrank, gex_EP_Index_t ep, void *tgt_addr, gex_OP_t op,
                           const union gexi_ad_val *o1, const union gexi_ad_val *o2,
                           gex_Flags_t flags, enum gexi_ad_sync sync);
/* ad_offload.c: the same through ops->amo. */
gex_Event_t gexi_ad_conduit_op(struct gexi_ad *a, void *result_p, gex_Rank_t jobrank,
                               gex_EP_Index_t ep, void *tgt_addr, gex_OP_t op,
                               const union gexi_ad_val *o1, const union gexi_ad_val *o2,
                               gex_Flags_t flags, enum gexi_ad_sync sync);
/* ad_ref.c: the AM reference path itself (what gexi_ad_remote runs for a
 * domain that is not a conduit domain). */
gex_Event_t gexi_ad_ref_remote(struct gexi_ad *a, void *result_p, gex_Rank_t trank,
                               void *tgt_addr, gex_OP_t op, const union gexi_ad_val *o1,
                               const union gexi_ad_val *o2, gex_Flags_t flags,
                               enum gexi_ad_sync sync);
/* ad_kind.c (memory kinds, issue 9): an operation whose target endpoint has
 * a device segment: AM reference path, or performed here for our own. */
gex_Event_t gexi_ad_kind_op(struct gexi_ad *a, void *result_p, gex_Rank_t trank,
                            gex_Rank_t jobrank, gex_EP_Index_t ep, void *tgt_addr, gex_OP_t op,
                            const union gexi_ad_val *o1, const union gexi_ad_val *o2,
                            gex_Flags_t flags, enum gexi_ad_sync sync);
/* Read-modify-write of the word at addr of device segment s through its
 * kind's copy functions, under a process-wide lock; returns the old value. */
union gexi_ad_val gexi_ad_kind_rmw(struct gexi_segment *s, gex_DT_t dt, void *addr, gex_OP_t op,
                                   union gexi_ad_val o1, union gexi_ad_val o2, gex_Flags_t flags);
/* ad_ref.c: registers the handlers above (bind time). */
int gexi_ad_ref_register(void);
/* Performs op on the dt-typed word at p with CPU atomics (any type; the
 * handler's entry point) and returns the fetched value.  Fences per flags. */
union gexi_ad_val gexi_ad_cpu_any(gex_DT_t dt, void *p, gex_OP_t op, union gexi_ad_val o1,
                                  union gexi_ad_val o2, gex_Flags_t flags);

/* Completion counter of a remote operation: NB a fresh root event, NBI the
 * calling thread's (or access region's) counter, incremented. */
static inline struct gexi_event *gexi_ad_counter_setup(enum gexi_ad_sync sync, gex_EC_t ec,
                                                       _Atomic uint32_t **ctr_p)
{
    if (sync == GEXI_AD_NB) {
        struct gexi_event *ev = gexi_event_new(ec, 1, 0);
        *ctr_p = &ev->h.pending;
        return ev;
    }
    *ctr_p = gexi_nbi_counter(ec);
    gexi_counter_add(*ctr_p, 1);
    return NULL;
}
/* IMMEDIATE refused the injection: nothing is in flight, undo the setup. */
static inline gex_Event_t gexi_ad_counter_undo(enum gexi_ad_sync sync, struct gexi_event *ev,
                                               _Atomic uint32_t *ctr)
{
    if (sync == GEXI_AD_NB) gexi_event_discard(ev);
    else atomic_fetch_sub_explicit(ctr, 1, memory_order_relaxed);
    return GEX_EVENT_NO_OP;
}

/* ---- Direct path: where a CPU atomic can reach the target word ---- */
/* Our own process always (any of our EPs: the address is ours), a nbrhd
 * peer's mapped segment on a shared-memory domain; NULL otherwise. */
static inline void *gexi_ad_direct(const struct gexi_ad *a, gex_Rank_t jobrank,
                                   gex_EP_Index_t ep, void *addr)
{
    if (jobrank == gexi_core.jobrank) return addr;
    if (a->impl != GEXI_AD_SHM) return NULL;
    return gexi_peer_mapped(jobrank, ep, addr, a->dt_size);
}

/* ---- CPU kernels, one per type, generated ---- */
#define GEXI_AD_RLX __ATOMIC_RELAXED

/* Integer types.  UT is the unsigned type of the same width: MULT is done
 * in it, so that signed overflow wraps instead of being undefined (the
 * __atomic fetch-and-op builtins wrap by definition). */
#define GEXI_AD_INT_KERNEL(T, UT, N) \
    static inline T gexi_ad_cpu_##N(T *p, gex_OP_t op, T a, T b) \
    { \
        T old, nv; \
        switch (op) { \
        case GEX_OP_SET: __atomic_store_n(p, a, GEXI_AD_RLX); return 0; \
        case GEX_OP_GET: return __atomic_load_n(p, GEXI_AD_RLX); \
        case GEX_OP_SWAP: return __atomic_exchange_n(p, a, GEXI_AD_RLX); \
        case GEX_OP_CAS: case GEX_OP_FCAS: \
            old = a; \
            __atomic_compare_exchange_n(p, &old, b, 0, GEXI_AD_RLX, GEXI_AD_RLX); \
            return old; \
        case GEX_OP_ADD: case GEX_OP_FADD: return __atomic_fetch_add(p, a, GEXI_AD_RLX); \
        case GEX_OP_SUB: case GEX_OP_FSUB: return __atomic_fetch_sub(p, a, GEXI_AD_RLX); \
        case GEX_OP_INC: case GEX_OP_FINC: return __atomic_fetch_add(p, 1, GEXI_AD_RLX); \
        case GEX_OP_DEC: case GEX_OP_FDEC: return __atomic_fetch_sub(p, 1, GEXI_AD_RLX); \
        case GEX_OP_AND: case GEX_OP_FAND: return __atomic_fetch_and(p, a, GEXI_AD_RLX); \
        case GEX_OP_OR: case GEX_OP_FOR: return __atomic_fetch_or(p, a, GEXI_AD_RLX); \
        case GEX_OP_XOR: case GEX_OP_FXOR: return __atomic_fetch_xor(p, a, GEXI_AD_RLX); \
        default: break; \
        } \
        old = __atomic_load_n(p, GEXI_AD_RLX); \
        do { \
            switch (op) { \
            case GEX_OP_MULT: case GEX_OP_FMULT: nv = (T)((UT)old * (UT)a); break; \
            case GEX_OP_MIN: case GEX_OP_FMIN: nv = old < a ? old : a; break; \
            default: /* MAX, FMAX (anything else was refused at the API) */ \
                nv = old > a ? old : a; break; \
            } \
            if (nv == old) return old; /* nothing to write: the read was atomic */ \
        } while (!__atomic_compare_exchange_n(p, &old, nv, 1, GEXI_AD_RLX, GEXI_AD_RLX)); \
        return old; \
    }

/* Floating-point types: the word is accessed as its bit pattern BT
 * (spec: (F)CAS may be performed as if on integers of the same width);
 * arithmetic, MIN and MAX by CAS loops evaluating C's expression. */
#define GEXI_AD_FP_KERNEL(T, BT, N) \
    static inline BT gexi_ad_bits_##N(T v) { BT b; memcpy(&b, &v, sizeof b); return b; } \
    static inline T gexi_ad_from_bits_##N(BT b) { T v; memcpy(&v, &b, sizeof v); return v; } \
    static inline T gexi_ad_cpu_##N(T *tp, gex_OP_t op, T a, T b) \
    { \
        BT *p = (BT *)(void *)tp, ob, nb; \
        T old, nv; \
        switch (op) { \
        case GEX_OP_SET: __atomic_store_n(p, gexi_ad_bits_##N(a), GEXI_AD_RLX); return 0; \
        case GEX_OP_GET: return gexi_ad_from_bits_##N(__atomic_load_n(p, GEXI_AD_RLX)); \
        case GEX_OP_SWAP: \
            return gexi_ad_from_bits_##N(__atomic_exchange_n(p, gexi_ad_bits_##N(a), \
                                                               GEXI_AD_RLX)); \
        case GEX_OP_CAS: case GEX_OP_FCAS: \
            ob = gexi_ad_bits_##N(a); \
            __atomic_compare_exchange_n(p, &ob, gexi_ad_bits_##N(b), 0, GEXI_AD_RLX, \
                                        GEXI_AD_RLX); \
            return gexi_ad_from_bits_##N(ob); \
        default: break; \
        } \
        ob = __atomic_load_n(p, GEXI_AD_RLX); \
        do { \
            old = gexi_ad_from_bits_##N(ob); \
            switch (op) { \
            case GEX_OP_ADD: case GEX_OP_FADD: nv = old + a; break; \
            case GEX_OP_SUB: case GEX_OP_FSUB: nv = old - a; break; \
            case GEX_OP_MULT: case GEX_OP_FMULT: nv = old * a; break; \
            case GEX_OP_INC: case GEX_OP_FINC: nv = old + (T)1; break; \
            case GEX_OP_DEC: case GEX_OP_FDEC: nv = old - (T)1; break; \
            case GEX_OP_MIN: case GEX_OP_FMIN: nv = old < a ? old : a; break; \
            default: nv = old > a ? old : a; break; /* MAX, FMAX */ \
            } \
            nb = gexi_ad_bits_##N(nv); \
            if (nb == ob) return old; \
        } while (!__atomic_compare_exchange_n(p, &ob, nb, 1, GEXI_AD_RLX, GEXI_AD_RLX)); \
        return old; \
    }

GEXI_AD_INT_KERNEL(int32_t, uint32_t, I32)
GEXI_AD_INT_KERNEL(uint32_t, uint32_t, U32)
GEXI_AD_INT_KERNEL(int64_t, uint64_t, I64)
GEXI_AD_INT_KERNEL(uint64_t, uint64_t, U64)
GEXI_AD_FP_KERNEL(float, uint32_t, FLT)
GEXI_AD_FP_KERNEL(double, uint64_t, DBL)

/* The ordering the flags ask for around a CPU atomic. */
static inline void gexi_ad_fence_before(gex_Flags_t flags)
{
    if (flags & GEX_FLAG_AD_REL) atomic_thread_fence(memory_order_release);
}
static inline void gexi_ad_fence_after(gex_Flags_t flags)
{
    if (flags & GEX_FLAG_AD_ACQ) atomic_thread_fence(memory_order_acquire);
}

/* ---- Combining (ad_combine.c) ----
 * NBI ADD/FADD on an integer word reached by a CPU atomic are not performed
 * one by one: a thread collects consecutive ones on the same word of the
 * same domain (up to GEXI_AD_BATCH_MAX) and performs them as ONE atomic
 * fetch-and-add of their sum, handing operation i the fetched value plus
 * the operands before it.  That is one valid linearization (the batch's
 * operations, all unsynchronized, take effect back to back), and it keeps
 * a hot word's throughput from collapsing under contention.  The batch is
 * performed (and its NBI count signalled) before this thread issues any
 * other atomic and at every poll, which every NBI wait does.  Not inside
 * an access region (its event may be waited on by another thread), not
 * with ACQ/REL, not for floating point (not associative).
 * GEX_AD_COMBINE=0 turns it off. */
#define GEXI_AD_BATCH_MAX 64
struct gexi_ad_batch {
    unsigned n;                    /* operations collected; 0: empty */
    const struct gexi_ad *ad;
    void *word;                    /* local address of the word */
    _Atomic uint32_t *ctr;         /* NBI counter, incremented once for the batch */
    uint64_t sum;                  /* operands so far (wraps in the type's width) */
    void *result[GEXI_AD_BATCH_MAX];
    uint64_t prefix[GEXI_AD_BATCH_MAX];
};
extern __thread struct gexi_ad_batch *gexi_ad_tls_batch
    __attribute__((tls_model("initial-exec")));
void gexi_ad_batch_flush(struct gexi_ad_batch *b);
/* Adds one operation; 0 if it cannot be combined (then perform it alone). */
int gexi_ad_combine(const struct gexi_ad *a, void *word, void *result_p, uint64_t operand);
static inline void gexi_ad_flush_pending(void)
{
    struct gexi_ad_batch *b = gexi_ad_tls_batch;
    if (GEXI_UNLIKELY(b != NULL && b->n != 0)) gexi_ad_batch_flush(b);
}
void gexi_ad_combine_progress(void);

/* A self-targeted operation on a reference or conduit domain polls first, so
 * that peers' operations on our words, which arrive as AMs, progress while
 * this rank spins on its own word (e.g. a flag read with GET).  Not every
 * time: on a network conduit a poll is a system call (~1 us on ucx over
 * TCP), and a self-targeted FADD then cost 100x GASNet-EX's (testfaddperf
 * -S); the first and every 256th operation of a thread poll. */
extern __thread unsigned gexi_ad_direct_ops __attribute__((tls_model("initial-exec")));
static inline void gexi_ad_direct_poll(void)
{
    if ((gexi_ad_direct_ops++ & 255) == 0) (void)gexi_poll();
}

/* ---- Per-operation checks (ad_ops.c) ---- */
/* Flags gex_AD_Op* accepts. */
#define GEXI_AD_OP_FLAGS_OK \
    (GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_AD_ACQ | \
     GEX_FLAG_AD_REL | GEX_FLAG_RANK_IS_JOBRANK)
/* The cold half of the argument checks: names what is wrong and ends the job. */
void gexi_ad_check_fail(const char *func, const struct gexi_ad *a, gex_DT_t dt,
                        const void *result_p, gex_Rank_t tgt_rank, const void *tgt_addr,
                        gex_OP_t op, gex_Flags_t flags) __attribute__((noreturn, cold));
/* Debug builds: the target range must lie in the target EP's bound
 * segment and the locality assertions must hold. */
void gexi_ad_debug_target(const char *func, const struct gexi_ad *a, gex_Rank_t trank,
                          gex_Rank_t jobrank, gex_EP_Index_t ep, const void *tgt_addr,
                          gex_Flags_t flags);

#endif /* GEX_ATOMICS_INTERNAL_H */
