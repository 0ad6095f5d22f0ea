/*
 * mp_atomics.c: remote atomics (spec: "Remote Atomic Operations").
 *
 *  1. every type x every opcode valid for it, NB and NBI, at every target
 *     rank (self and peers): exact fetched and final values (floating point
 *     with exactly representable values), MIN/MAX on both sides, CAS that
 *     matches and one that does not, signed and unsigned wrap-around;
 *     ACQ/REL/MY_RANK/RANK_IS_JOBRANK/IMMEDIATE flags on the way;
 *     MIN/MAX of +0.0 and -0.0 give op1 (spec: ((op0 < op1) ? op0 : op1)),
 *     never on the conduit's atomics (libfabric keeps op0);
 *  2. domain queries and client data; a domain with a declared subset;
 *  3. contention from every rank on one word of rank 0 (U64 FADD: the total
 *     is exact and the fetched values are a permutation of 0..n*K-1; FLT
 *     FADD and I32 FINC/FDEC totals exact; OR of one bit per rank) and on a
 *     word per rank (U32 FINC from everyone to everyone);
 *  4. a domain over a split team (even and odd ranks), addressed by team
 *     rank and by jobrank;
 *  5. release/acquire: data put with RMA, then a flag SET with REL; the
 *     target waits for the flag with GET+ACQ and then reads the data;
 *  6. threads (GASNET_PAR): two threads per rank issue NBI and NB FADDs on
 *     one word of rank 0 at once: exact total, no fetched value twice.
 * The .mpt variants run it on the shared-memory path (default), the
 * reference path (GEX_FORCE_REFERENCE=atomics) and without PSHM.
 */
#include "mp_util.h"
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>
#include <math.h>
#include <pthread.h>

/* GEX extension exported by libgex-atomics: "reference", "shm" or "conduit". */
extern const char *gexi_ad_query_impl(gex_AD_t ad);

#define SEG_SIZE (256 * 1024)
#define K 400                       /* operations per rank in contention tests */
/* Segment layout (offsets). */
#define OFF_EXACT      0            /* [64 ranks] one 8-byte word per initiator */
#define OFF_HOT        1024         /* contention words on rank 0 */
#define OFF_PER_RANK   2048         /* a word per rank */
#define OFF_SPLIT      3072
#define OFF_FLAGS      4096         /* [64] release/acquire flags */
#define OFF_DATA       8192         /* [64] x 512 bytes of data for release/acquire */
#define OFF_FETCHED    (64 * 1024)  /* rank 0: everyone's fetched values */
#define OFF_SCRATCH    (128 * 1024) /* the split team's scratch space */

static void *seg_base;
static void *bases[64];   /* each rank's segment, in its owner's address space */
static void *peer_base(gex_Rank_t r) { return bases[r]; }
static void find_bases(void)
{
    for (gex_Rank_t r = 0; r < mp_n; r++)
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &bases[r], NULL, NULL, 0));
}

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(mp_tm, 0)); }

static int use_nbi;   /* phase 1 runs twice: NB, then NBI */
static unsigned n_ops;

/* ---- 1. Every type x every opcode ---- */

#define OPS_INT (GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS | GEX_OP_ADD | \
                 GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_MULT | GEX_OP_FMULT | \
                 GEX_OP_MIN | GEX_OP_FMIN | GEX_OP_MAX | GEX_OP_FMAX | GEX_OP_INC | \
                 GEX_OP_FINC | GEX_OP_DEC | GEX_OP_FDEC | GEX_OP_AND | GEX_OP_FAND | \
                 GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define OPS_FP (OPS_INT & ~(GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | \
                            GEX_OP_FXOR))
static const gex_OP_t all_ops[] = {
    GEX_OP_SET, GEX_OP_GET, GEX_OP_SWAP, GEX_OP_CAS, GEX_OP_FCAS, GEX_OP_ADD, GEX_OP_FADD,
    GEX_OP_SUB, GEX_OP_FSUB, GEX_OP_MULT, GEX_OP_FMULT, GEX_OP_MIN, GEX_OP_FMIN, GEX_OP_MAX,
    GEX_OP_FMAX, GEX_OP_INC, GEX_OP_FINC, GEX_OP_DEC, GEX_OP_FDEC, GEX_OP_AND, GEX_OP_FAND,
    GEX_OP_OR, GEX_OP_FOR, GEX_OP_XOR, GEX_OP_FXOR,
};
#define FETCHING (GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_FADD | GEX_OP_FSUB | \
                  GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FINC | GEX_OP_FDEC | \
                  GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR)

static gex_EC_t category(gex_OP_t op)
{
    return op == GEX_OP_SET ? GEX_EC_PUT : op == GEX_OP_GET ? GEX_EC_GET : GEX_EC_RMW;
}

/* Flags for the i-th operation: a rotating mix the spec allows. */
static gex_Flags_t op_flags(unsigned i, gex_Rank_t tgt)
{
    gex_Flags_t f = 0;
    if (i % 3 == 1) f |= GEX_FLAG_AD_REL;
    if (i % 4 == 2) f |= GEX_FLAG_AD_ACQ;
    if (i % 5 == 3 && tgt == mp_me) f |= GEX_FLAG_AD_MY_RANK;
    if (i % 7 == 4) f |= GEX_FLAG_RANK_IS_JOBRANK; /* primordial team: jobrank == rank */
    return f;
}

/* Issues one op of type N and waits for it (NB: the event; NBI: the
 * category's counter).  IMMEDIATE is tried first on every 6th op: if the
 * call declined, it did nothing, and we issue it again without. */
#define DEFINE_ISSUE(T, N) \
    static void issue_##N(gex_AD_t ad, T *res, gex_Rank_t tgt, T *addr, gex_OP_t op, T a, T b, \
                          gex_Flags_t f) \
    { \
        n_ops++; \
        if (n_ops % 6 == 0) { \
            if (use_nbi) { \
                if (gex_AD_OpNBI_##N(ad, res, tgt, addr, op, a, b, f | GEX_FLAG_IMMEDIATE) == 0) { \
                    gex_NBI_Wait(category(op), 0); \
                    return; \
                } \
            } else { \
                gex_Event_t e = gex_AD_OpNB_##N(ad, res, tgt, addr, op, a, b, \
                                                f | GEX_FLAG_IMMEDIATE); \
                if (e != GEX_EVENT_NO_OP) { \
                    gex_Event_Wait(e); \
                    return; \
                } \
            } \
        } \
        if (use_nbi) { \
            CHECK_EQ(gex_AD_OpNBI_##N(ad, res, tgt, addr, op, a, b, f), 0); \
            gex_NBI_Wait(category(op), 0); \
        } else { \
            gex_Event_t e = gex_AD_OpNB_##N(ad, res, tgt, addr, op, a, b, f); \
            CHECK(e != GEX_EVENT_NO_OP); \
            gex_Event_Wait(e); \
        } \
    }

/* The expected (fetched, final) of op on v0 with operands a, b, in C. */
#define DEFINE_EXPECT(T, UT, N, IS_INT) \
    static T expect_##N(gex_OP_t op, T v0, T a, T b) \
    { \
        switch (op) { \
        case GEX_OP_SET: case GEX_OP_SWAP: return a; \
        case GEX_OP_GET: return v0; \
        case GEX_OP_CAS: case GEX_OP_FCAS: return v0 == a ? b : v0; \
        case GEX_OP_ADD: case GEX_OP_FADD: return (T)((UT)v0 + (UT)a); \
        case GEX_OP_SUB: case GEX_OP_FSUB: return (T)((UT)v0 - (UT)a); \
        case GEX_OP_MULT: case GEX_OP_FMULT: return (T)((UT)v0 * (UT)a); \
        case GEX_OP_MIN: case GEX_OP_FMIN: return v0 < a ? v0 : a; \
        case GEX_OP_MAX: case GEX_OP_FMAX: return v0 > a ? v0 : a; \
        case GEX_OP_INC: case GEX_OP_FINC: return (T)((UT)v0 + (UT)1); \
        case GEX_OP_DEC: case GEX_OP_FDEC: return (T)((UT)v0 - (UT)1); \
        default: break; \
        } \
        IS_INT(switch (op) { \
        case GEX_OP_AND: case GEX_OP_FAND: return (T)(v0 & a); \
        case GEX_OP_OR: case GEX_OP_FOR: return (T)(v0 | a); \
        case GEX_OP_XOR: case GEX_OP_FXOR: return (T)(v0 ^ a); \
        default: break; \
        }) \
        mp_fail(__FILE__, __LINE__, "no expectation for opcode 0x%x", (unsigned)op); \
    }
#define YES(...) __VA_ARGS__
#define NO(...)

/* For each target and each valid op, twice (operand a, then operand c on
 * the other side of v0), and for CAS once matching and once not. */
#define DEFINE_EXACT(T, N, DT, OPSET, FMT, CAST) \
    static void exact_##N(T v0, T a, T c) \
    { \
        gex_AD_t ad; \
        gex_AD_Create(&ad, mp_tm, DT, OPSET, 0); \
        CHECK(ad != GEX_AD_INVALID); \
        CHECK_EQ(gex_AD_QueryDT(ad), DT); \
        CHECK_EQ(gex_AD_QueryOps(ad), OPSET); \
        unsigned i = 0; \
        for (gex_Rank_t k = 0; k < mp_n; k++) { \
            const gex_Rank_t tgt = (mp_me + k) % mp_n; \
            T *w = (T *)((char *)peer_base(tgt) + OFF_EXACT + 8 * mp_me); \
            for (size_t oi = 0; oi < sizeof all_ops / sizeof all_ops[0]; oi++) { \
                const gex_OP_t op = all_ops[oi]; \
                if (!(op & (OPSET))) continue; \
                for (int pass = 0; pass < 2; pass++) { \
                    T x = pass ? c : a, y = a; \
                    if ((op == GEX_OP_CAS || op == GEX_OP_FCAS) && pass == 0) x = v0, y = c; \
                    T got = (T)0, dummy = (T)0; \
                    issue_##N(ad, &dummy, tgt, w, GEX_OP_SET, v0, (T)0, op_flags(i++, tgt)); \
                    T sentinel; \
                    memset(&sentinel, 0x5a, sizeof sentinel); \
                    got = sentinel; \
                    issue_##N(ad, &got, tgt, w, op, x, y, op_flags(i++, tgt)); \
                    const T want_final = expect_##N(op, v0, x, y); \
                    if (op & FETCHING) \
                        CHECK_MSG(memcmp(&got, &v0, sizeof got) == 0, \
                                  "%s op 0x%x on rank %u pass %d fetched " FMT ", want " FMT, \
                                  #N, (unsigned)op, (unsigned)tgt, pass, CAST got, CAST v0); \
                    else \
                        CHECK_MSG(memcmp(&got, &sentinel, sizeof got) == 0, \
                                  "%s non-fetching op 0x%x wrote *result_p", #N, \
                                  (unsigned)op); \
                    T fin = sentinel; \
                    issue_##N(ad, &fin, tgt, w, GEX_OP_GET, (T)0, (T)0, op_flags(i++, tgt)); \
                    CHECK_MSG(memcmp(&fin, &want_final, sizeof fin) == 0, \
                              "%s op 0x%x on rank %u pass %d: final " FMT ", want " FMT, #N, \
                              (unsigned)op, (unsigned)tgt, pass, CAST fin, CAST want_final); \
                } \
            } \
        } \
        barrier(); \
        gex_AD_Destroy(ad); \
    }

#define DEFINE_TYPE(T, UT, N, DT, OPSET, IS_INT, FMT, CAST) \
    DEFINE_ISSUE(T, N) \
    DEFINE_EXPECT(T, UT, N, IS_INT) \
    DEFINE_EXACT(T, N, DT, OPSET, FMT, CAST)

DEFINE_TYPE(int32_t, uint32_t, I32, GEX_DT_I32, OPS_INT, YES, "%lld", (long long))
DEFINE_TYPE(uint32_t, uint32_t, U32, GEX_DT_U32, OPS_INT, YES, "%llu", (unsigned long long))
DEFINE_TYPE(int64_t, uint64_t, I64, GEX_DT_I64, OPS_INT, YES, "%lld", (long long))
DEFINE_TYPE(uint64_t, uint64_t, U64, GEX_DT_U64, OPS_INT, YES, "%llu", (unsigned long long))
DEFINE_TYPE(float, float, FLT, GEX_DT_FLT, OPS_FP, NO, "%g", (double))
DEFINE_TYPE(double, double, DBL, GEX_DT_DBL, OPS_FP, NO, "%g", (double))

static void phase_exact(void)
{
    for (use_nbi = 0; use_nbi < 2; use_nbi++) {
        mp_phase(use_nbi ? "every type x op, NBI" : "every type x op, NB");
        exact_I32(-5, 3, -9);
        exact_I32(INT32_MAX, 7, INT32_MIN); /* wrap-around of ADD/MULT/INC */
        exact_U32(0xF0F0F0F0u, 3, 0xFFFFFFF0u);
        exact_U32(0, 0xFFFFFFFFu, 1);        /* DEC and SUB below zero wrap */
        exact_I64(-((int64_t)1 << 40), 12345, -((int64_t)1 << 41));
        exact_U64(0xF0F0F0F0F0F0F0F0ull, 0x0FF0, 0xFFFF0000FFFF0000ull);
        exact_FLT(2.5f, 1.25f, 8.0f);
        exact_FLT(-0.75f, 0.5f, -4.0f);
        exact_DBL(-3.75, 0.5, -10.25);
        exact_DBL(1048576.5, 2.0, 1e300);
    }
}

/* ---- 1b. MIN/MAX on floating point where the operands compare equal ----
 * The spec defines MIN as ((op0 < op1) ? op0 : op1) and MAX likewise: when
 * op0 and op1 compare equal (+0.0 and -0.0) the result is op1, so the sign
 * of the stored zero tells whether an implementation follows it.  (libfabric's
 * FI_MIN/FI_MAX keep op0: the ofi conduit refuses these pairs, and such a
 * domain must not get the conduit path even when it favours remote targets.)
 * The result is compared bit for bit. */
#define DEFINE_ZERO_TIES(T, N, DT) \
    static void zero_ties_##N(void) \
    { \
        const gex_OP_t set = GEX_OP_SET | GEX_OP_GET | GEX_OP_MIN | GEX_OP_FMIN | GEX_OP_MAX | \
                             GEX_OP_FMAX; \
        const gex_OP_t mm[] = { GEX_OP_MIN, GEX_OP_FMIN, GEX_OP_MAX, GEX_OP_FMAX }; \
        const T zeros[2] = { (T)0.0, -(T)0.0 }; \
        gex_AD_t ad; \
        gex_AD_Create(&ad, mp_tm, DT, set, GEX_FLAG_AD_FAVOR_REMOTE); \
        CHECK_MSG(strcmp(gexi_ad_query_impl(ad), "conduit") != 0, \
                  #N " MIN/MAX domain got the conduit's atomics"); \
        for (gex_Rank_t k = 0; k < mp_n; k++) { \
            const gex_Rank_t tgt = (mp_me + k) % mp_n; \
            T *w = (T *)((char *)peer_base(tgt) + OFF_EXACT + 8 * mp_me); \
            for (int oi = 0; oi < 4; oi++) \
                for (int z = 0; z < 2; z++) { \
                    const T v0 = zeros[z], op1 = zeros[!z]; \
                    T got, fin, dummy = 0; \
                    issue_##N(ad, &dummy, tgt, w, GEX_OP_SET, v0, 0, 0); \
                    memset(&got, 0x5a, sizeof got); \
                    issue_##N(ad, &got, tgt, w, mm[oi], op1, 0, 0); \
                    issue_##N(ad, &fin, tgt, w, GEX_OP_GET, 0, 0, 0); \
                    CHECK_MSG(memcmp(&fin, &op1, sizeof fin) == 0, \
                              #N " op 0x%x of %s0 on %s0 at rank %u left %s0, want op1", \
                              (unsigned)mm[oi], z ? "+" : "-", z ? "-" : "+", (unsigned)tgt, \
                              signbit(fin) ? "-" : "+"); \
                    if (mm[oi] & FETCHING) \
                        CHECK_MSG(memcmp(&got, &v0, sizeof got) == 0, \
                                  #N " op 0x%x fetched %g, want %s0", (unsigned)mm[oi], \
                                  (double)got, z ? "-" : "+"); \
                } \
        } \
        barrier(); \
        gex_AD_Destroy(ad); \
    }
DEFINE_ZERO_TIES(float, FLT, GEX_DT_FLT)
DEFINE_ZERO_TIES(double, DBL, GEX_DT_DBL)

/* ---- 2. Queries, client data, a declared subset ---- */
static void phase_queries(void)
{
    mp_phase("queries");
    gex_AD_t ad;
    gex_AD_Create(&ad, mp_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET,
                  GEX_FLAG_AD_FAVOR_MY_NBRHD);
    CHECK_EQ(gex_AD_QueryDT(ad), GEX_DT_U64);
    CHECK_EQ(gex_AD_QueryOps(ad), GEX_OP_FADD | GEX_OP_GET);
    CHECK_EQ(gex_AD_QueryFlags(ad), GEX_FLAG_AD_FAVOR_MY_NBRHD);
    CHECK_PTR_EQ(gex_AD_QueryTM(ad), mp_tm);
    CHECK_PTR_EQ(gex_AD_QueryCData(ad), NULL);
    static int token;
    gex_AD_SetCData(ad, &token);
    CHECK_PTR_EQ(gex_AD_QueryCData(ad), &token);
    /* which path: forced reference, shm when everyone shares memory */
    const char *impl = gexi_ad_query_impl(ad);
    const char *fr = getenv("GEX_FORCE_REFERENCE");
    if (fr && (strstr(fr, "atomics") || strstr(fr, "all")))
        CHECK_MSG(!strcmp(impl, "reference"), "forced reference, got %s", impl);
    else if (mp_n == 1 || (mp_pshm_enabled() && !getenv("MP_EXPECT_HOSTS")))
        CHECK_MSG(!strcmp(impl, "shm"), "all ranks on one host, got %s", impl);
    else if (mp_pshm_enabled()) /* tests/multihost: ranks on several hosts */
        CHECK_MSG(strcmp(impl, "shm"), "ranks on several hosts, got %s", impl);
    else
        CHECK_MSG(!strcmp(impl, "reference"), "GEX_PSHM=0, got %s", impl);
    if (mp_me == 0) printf("mp_atomics: domains use the %s path\n", impl);
    gex_AD_Destroy(ad);
}

/* ---- 3. Contention ---- */
static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static void phase_contention(void)
{
    mp_phase("contention: U64 FADD on one word");
    char *base0 = peer_base(0);
    uint64_t *hot = (uint64_t *)(base0 + OFF_HOT);
    gex_AD_t ad;
    gex_AD_Create(&ad, mp_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
    if (mp_me == 0) gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, 0, hot, GEX_OP_SET, 0, 0, 0));
    barrier();
    /* a quarter NB and NBI mixed, a quarter NBI in an access region, half
     * NBI back to back (the last quarter through the library's function:
     * combined per thread unless GEX_AD_COMBINE=0) */
    static uint64_t fetched[K];
    for (int i = 0; i < K / 4; i++) {
        if (i % 2) {
            gex_Event_Wait(gex_AD_OpNB_U64(ad, &fetched[i], 0, hot, GEX_OP_FADD, 1, 0, 0));
        } else {
            CHECK_EQ(gex_AD_OpNBI_U64(ad, &fetched[i], 0, hot, GEX_OP_FADD, 1, 0, 0), 0);
            if (i % 16 == 0) gex_NBI_Wait(GEX_EC_RMW, 0);
        }
    }
    gex_NBI_Wait(GEX_EC_RMW, 0);
    gex_NBI_BeginAccessRegion(0);
    for (int i = K / 4; i < K / 2; i++)
        CHECK_EQ(gex_AD_OpNBI_U64(ad, &fetched[i], 0, hot, GEX_OP_FADD, 1, 0, 0), 0);
    gex_Event_Wait(gex_NBI_EndAccessRegion(0));
    for (int i = K / 2; i < 3 * K / 4; i++)
        CHECK_EQ(gex_AD_OpNBI_U64(ad, &fetched[i], 0, hot, GEX_OP_FADD, 1, 0, 0), 0);
    /* the library's function itself: the macro performs a shared-memory
     * domain's NBI inline (gex/ad_fastpath.h), the library combines */
    for (int i = 3 * K / 4; i < K; i++)
        CHECK_EQ((gex_AD_OpNBI_U64)(ad, &fetched[i], 0, hot, GEX_OP_FADD, 1, 0, 0), 0);
    gex_NBI_Wait(GEX_EC_RMW, 0);
    /* everyone's fetched values to rank 0 */
    CHECK_EQ(gex_RMA_PutBlocking(mp_tm, 0, base0 + OFF_FETCHED + (size_t)mp_me * K * 8, fetched,
                                 sizeof fetched, 0), 0);
    barrier();
    if (mp_me == 0) {
        uint64_t total = 0;
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &total, 0, hot, GEX_OP_GET, 0, 0, 0));
        CHECK_EQ(total, (uint64_t)mp_n * K);
        uint64_t *all = (uint64_t *)((char *)seg_base + OFF_FETCHED);
        qsort(all, (size_t)mp_n * K, 8, cmp_u64);
        for (uint64_t j = 0; j < (uint64_t)mp_n * K; j++)
            CHECK_MSG(all[j] == j, "fetched FADD values are not a permutation of 0..%u: "
                      "sorted[%llu] = %llu", (unsigned)(mp_n * K - 1), (unsigned long long)j,
                      (unsigned long long)all[j]);
    }
    barrier();
    gex_AD_Destroy(ad);

    mp_phase("contention: FLT FADD, I32 FINC/FDEC, U64 OR on one word");
    gex_AD_t af, ai, ao;
    gex_AD_Create(&af, mp_tm, GEX_DT_FLT, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
    gex_AD_Create(&ai, mp_tm, GEX_DT_I32, GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_SET | GEX_OP_GET, 0);
    gex_AD_Create(&ao, mp_tm, GEX_DT_U64, GEX_OP_OR | GEX_OP_SET | GEX_OP_GET, 0);
    float *wf = (float *)(base0 + OFF_HOT + 64);
    int32_t *wi = (int32_t *)(base0 + OFF_HOT + 128), *wd = (int32_t *)(base0 + OFF_HOT + 192);
    uint64_t *wo = (uint64_t *)(base0 + OFF_HOT + 256);
    if (mp_me == 0) {
        CHECK_EQ(gex_AD_OpNBI_FLT(af, NULL, 0, wf, GEX_OP_SET, 0.5f, 0, 0), 0);
        CHECK_EQ(gex_AD_OpNBI_I32(ai, NULL, 0, wi, GEX_OP_SET, 0, 0, 0), 0);
        CHECK_EQ(gex_AD_OpNBI_I32(ai, NULL, 0, wd, GEX_OP_SET, 0, 0, 0), 0);
        CHECK_EQ(gex_AD_OpNBI_U64(ao, NULL, 0, wo, GEX_OP_SET, 0, 0, 0), 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
    }
    barrier();
    float ff;
    int32_t fi;
    for (int i = 0; i < K; i++) {
        CHECK_EQ(gex_AD_OpNBI_FLT(af, &ff, 0, wf, GEX_OP_FADD, 1.0f, 0, 0), 0);
        CHECK_EQ(gex_AD_OpNBI_I32(ai, &fi, 0, wi, GEX_OP_FINC, 0, 0, 0), 0);
        CHECK_EQ(gex_AD_OpNBI_I32(ai, &fi, 0, wd, GEX_OP_FDEC, 0, 0, 0), 0);
        if (i % 32 == 31) gex_NBI_Wait(GEX_EC_ALL, 0);
    }
    CHECK_EQ(gex_AD_OpNBI_U64(ao, NULL, 0, wo, GEX_OP_OR, (uint64_t)1 << (mp_me % 64), 0,
                              GEX_FLAG_AD_REL), 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    barrier();
    if (mp_me == 0) {
        float tf = 0;
        int32_t ti = 0, td = 0;
        uint64_t to = 0;
        gex_Event_Wait(gex_AD_OpNB_FLT(af, &tf, 0, wf, GEX_OP_GET, 0, 0, 0));
        gex_Event_Wait(gex_AD_OpNB_I32(ai, &ti, 0, wi, GEX_OP_GET, 0, 0, 0));
        gex_Event_Wait(gex_AD_OpNB_I32(ai, &td, 0, wd, GEX_OP_GET, 0, 0, 0));
        gex_Event_Wait(gex_AD_OpNB_U64(ao, &to, 0, wo, GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ));
        CHECK_MSG(tf == 0.5f + (float)(mp_n * K), "FLT total %g, want %g", (double)tf,
                  (double)(0.5f + (float)(mp_n * K)));
        CHECK_EQ(ti, (int32_t)(mp_n * K));
        CHECK_EQ(td, -(int32_t)(mp_n * K));
        CHECK_EQ(to, mp_n >= 64 ? ~0ull : (((uint64_t)1 << mp_n) - 1));
    }
    barrier();
    gex_AD_Destroy(af);
    gex_AD_Destroy(ai);
    gex_AD_Destroy(ao);

    mp_phase("contention: U32 FINC on a word per rank");
    gex_AD_t au;
    gex_AD_Create(&au, mp_tm, GEX_DT_U32, GEX_OP_INC | GEX_OP_SET | GEX_OP_GET, 0);
    uint32_t *mine = (uint32_t *)((char *)seg_base + OFF_PER_RANK);
    CHECK_EQ(gex_AD_OpNBI_U32(au, NULL, mp_me, mine, GEX_OP_SET, 0, 0, GEX_FLAG_AD_MY_RANK), 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    barrier();
    for (int i = 0; i < K; i++)
        for (gex_Rank_t k = 0; k < mp_n; k++) {
            const gex_Rank_t t = (mp_me + k) % mp_n;
            uint32_t *w = (uint32_t *)((char *)peer_base(t) + OFF_PER_RANK);
            CHECK_EQ(gex_AD_OpNBI_U32(au, NULL, t, w, GEX_OP_INC, 0, 0, 0), 0);
        }
    gex_NBI_Wait(GEX_EC_RMW, 0);
    barrier();
    uint32_t got = 0;
    gex_Event_Wait(gex_AD_OpNB_U32(au, &got, mp_me, mine, GEX_OP_GET, 0, 0, 0));
    CHECK_EQ(got, (uint32_t)(mp_n * K));
    barrier();
    gex_AD_Destroy(au);
}

/* ---- 4. A domain over a split team ---- */
static void phase_split(void)
{
    mp_phase("split team");
    gex_TM_t sub;
    const size_t scratch = gex_TM_Split(&sub, mp_tm, 0, 0, NULL, 0,
                                        GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    CHECK(scratch <= SEG_SIZE - OFF_SCRATCH);
    gex_TM_Split(&sub, mp_tm, (int)(mp_me % 2), (int)mp_me, (char *)seg_base + OFF_SCRATCH,
                 scratch, 0);
    CHECK(sub != GEX_TM_INVALID);
    const gex_Rank_t sme = gex_TM_QueryRank(sub), sn = gex_TM_QuerySize(sub);
    CHECK_EQ(sme, mp_me / 2);
    gex_AD_t ad;
    gex_AD_Create(&ad, sub, GEX_DT_I64, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
    CHECK_PTR_EQ(gex_AD_QueryTM(ad), sub);
    /* sub-rank 0 is jobrank me % 2 */
    const gex_Rank_t root_job = mp_me % 2;
    int64_t *w = (int64_t *)((char *)peer_base(root_job) + OFF_SPLIT);
    if (sme == 0) gex_Event_Wait(gex_AD_OpNB_I64(ad, NULL, 0, w, GEX_OP_SET, 1000, 0, 0));
    gex_Event_Wait(gex_Coll_BarrierNB(sub, 0));
    int64_t f;
    for (int i = 0; i < K / 4; i++) {
        gex_Event_Wait(gex_AD_OpNB_I64(ad, &f, 0, w, GEX_OP_FADD, 2, 0, 0));
        CHECK(f >= 1000 && f < 1000 + 4 * (int64_t)sn * K);
        CHECK_EQ(gex_AD_OpNBI_I64(ad, &f, root_job, w, GEX_OP_FADD, -1, 0,
                                  GEX_FLAG_RANK_IS_JOBRANK), 0);
        gex_NBI_Wait(GEX_EC_RMW, 0);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(sub, 0));
    int64_t total = 0;
    gex_Event_Wait(gex_AD_OpNB_I64(ad, &total, 0, w, GEX_OP_GET, 0, 0, 0));
    CHECK_EQ(total, 1000 + (int64_t)sn * (K / 4));
    gex_Event_Wait(gex_Coll_BarrierNB(sub, 0));
    gex_AD_Destroy(ad);
    barrier();
}

/* ---- 5. Release / acquire ---- */
static void phase_release_acquire(void)
{
    mp_phase("release/acquire");
    gex_AD_t ad;
    gex_AD_Create(&ad, mp_tm, GEX_DT_U32, GEX_OP_SET | GEX_OP_GET, 0);
    char *base0 = peer_base(0);
    uint32_t *flag0 = (uint32_t *)(base0 + OFF_FLAGS);
    if (mp_me == 0)
        for (gex_Rank_t r = 0; r < mp_n; r++)
            CHECK_EQ(gex_AD_OpNBI_U32(ad, NULL, 0, flag0 + r, GEX_OP_SET, 0, 0, 0), 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    barrier();
    for (int round = 1; round <= 20; round++) {
        if (mp_me != 0) {
            char buf[512];
            mp_fill(buf, sizeof buf, mp_me, (uint32_t)round);
            CHECK_EQ(gex_RMA_PutBlocking(mp_tm, 0, base0 + OFF_DATA + 512 * mp_me, buf,
                                         sizeof buf, 0), 0);
            gex_Event_Wait(gex_AD_OpNB_U32(ad, NULL, 0, flag0 + mp_me, GEX_OP_SET,
                                           (uint32_t)round, 0, GEX_FLAG_AD_REL));
        } else {
            for (gex_Rank_t r = 1; r < mp_n; r++) {
                uint32_t v = 0;
                unsigned spins = 0;
                do {
                    gex_Event_Wait(gex_AD_OpNB_U32(ad, &v, 0, flag0 + r, GEX_OP_GET, 0, 0,
                                                   GEX_FLAG_AD_ACQ | GEX_FLAG_AD_MY_RANK));
                    if (++spins > 32) sched_yield();
                } while (v != (uint32_t)round);
                CHECK_PATTERN((char *)seg_base + OFF_DATA + 512 * r, 512, r, (uint32_t)round);
            }
        }
        barrier();
    }
    gex_AD_Destroy(ad);
}

/* ---- 6. Threads ---- */
#define N_THREADS 2
static gex_AD_t thr_ad;
static uint64_t *thr_word;
static uint64_t thr_fetched[N_THREADS][K];

static void *thread_body(void *arg)
{
    uint64_t *f = thr_fetched[(uintptr_t)arg];
    for (int i = 0; i < K; i++) {
        if (i % 8 == 7)
            gex_Event_Wait(gex_AD_OpNB_U64(thr_ad, &f[i], 0, thr_word, GEX_OP_FADD, 1, 0, 0));
        else if (i % 8 < 4) /* the library's function: combined */
            CHECK_EQ((gex_AD_OpNBI_U64)(thr_ad, &f[i], 0, thr_word, GEX_OP_FADD, 1, 0, 0), 0);
        else /* inline where the domain allows (no batch held on it) */
            CHECK_EQ(gex_AD_OpNBI_U64(thr_ad, &f[i], 0, thr_word, GEX_OP_FADD, 1, 0, 0), 0);
    }
    gex_NBI_Wait(GEX_EC_RMW, 0);
    return NULL;
}

static void phase_threads(void)
{
    mp_phase("threads");
    gex_AD_Create(&thr_ad, mp_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
    thr_word = (uint64_t *)((char *)peer_base(0) + OFF_HOT + 512);
    if (mp_me == 0) gex_Event_Wait(gex_AD_OpNB_U64(thr_ad, NULL, 0, thr_word, GEX_OP_SET, 0, 0, 0));
    barrier();
    pthread_t th[N_THREADS];
    for (uintptr_t t = 0; t < N_THREADS; t++)
        CHECK_EQ(pthread_create(&th[t], NULL, thread_body, (void *)t), 0);
    for (int t = 0; t < N_THREADS; t++) CHECK_EQ(pthread_join(th[t], NULL), 0);
    /* this rank's fetched values are distinct (every one is some op0) */
    static uint64_t all[N_THREADS * K];
    memcpy(all, thr_fetched, sizeof all);
    qsort(all, N_THREADS * K, 8, cmp_u64);
    for (int j = 1; j < N_THREADS * K; j++)
        CHECK_MSG(all[j] != all[j - 1], "two FADDs fetched %llu", (unsigned long long)all[j]);
    CHECK(all[N_THREADS * K - 1] < (uint64_t)mp_n * N_THREADS * K);
    barrier();
    if (mp_me == 0) {
        uint64_t total = 0;
        gex_Event_Wait(gex_AD_OpNB_U64(thr_ad, &total, 0, thr_word, GEX_OP_GET, 0, 0, 0));
        CHECK_EQ(total, (uint64_t)mp_n * N_THREADS * K);
    }
    barrier();
    gex_AD_Destroy(thr_ad);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_ATOMICS", 0);
    mp_attach(SEG_SIZE);
    seg_base = gex_Segment_QueryAddr(mp_seg);
    CHECK(mp_n <= 64);
    find_bases();
    barrier();
    phase_queries();
    phase_exact();
    mp_phase("MIN/MAX of +0.0 and -0.0");
    zero_ties_FLT();
    zero_ties_DBL();
    phase_contention();
    phase_split();
    phase_release_acquire();
    phase_threads();
    mp_finish("every type x op (NB and NBI), contention, split team, release/acquire, "
              "threads; %u ops "
              "in the exact phase", n_ops);
}
