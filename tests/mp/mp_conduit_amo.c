/*
 * mp_conduit_amo.c: a conduit's network atomics (conduit ABI 1.2:
 * amo_query / amo) driven directly through core's conduit ops
 * (gexi_core.ops), below libgex-atomics, so the conduit is checked on its
 * own.  Run with GEX_CONDUIT set to a conduit with atomics (ofi, ucx) and no
 * shared memory (tests/ofi/mp_ofi_amo_*.mpt, tests/ucx/mp_ucx_amo.mpt).
 *
 *  1. The conduit offers GEX_CONDUIT_CAP_AMO (both Debian libfabric
 *     providers have FI_ATOMIC; UCP has AMO32/AMO64) and amo_query accepts
 *     the core set every provider has (FADD, CAS, FCAS, GET, SET, SWAP on
 *     64-bit integers) and refuses what has no network form (GEX_OP_USER,
 *     GEX_DT_USER, bitwise ops on floating point) or a different result
 *     (MIN/MAX on floating point).
 *  2. Every accepted (type, op) once, each rank on its right-hand
 *     neighbour's segment (itself at 1 rank): initial value, operation,
 *     fetched value and final value checked against the same operation done
 *     locally (values chosen so that no signed result overflows); CAS both
 *     matching and not.
 *  3. Contention: every rank adds 1 to one word of rank 0 K times with FADD
 *     (U64) and FINC (I32): the fetched values each rank sees increase, and
 *     the final values are n*K.
 *  4. Self-targeted operations go through the network too (FSUB on this
 *     rank's own word).
 */
#include "core_layer.h"
#include "../mp/mp_util.h"

#define NDT 6
#define NOPS 25
#define K 200

static const uint32_t dts[NDT] = { GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64,
                                   GEX_DT_FLT, GEX_DT_DBL };
static const char *const dt_names[NDT] = { "I32", "U32", "I64", "U64", "FLT", "DBL" };
static const uint32_t ops[NOPS] = {
    GEX_OP_AND, GEX_OP_FAND, GEX_OP_OR, GEX_OP_FOR, GEX_OP_XOR, GEX_OP_FXOR, GEX_OP_ADD,
    GEX_OP_FADD, GEX_OP_SUB, GEX_OP_FSUB, GEX_OP_MULT, GEX_OP_FMULT, GEX_OP_MIN, GEX_OP_FMIN,
    GEX_OP_MAX, GEX_OP_FMAX, GEX_OP_INC, GEX_OP_FINC, GEX_OP_DEC, GEX_OP_FDEC, GEX_OP_SET,
    GEX_OP_SWAP, GEX_OP_CAS, GEX_OP_FCAS, GEX_OP_GET,
};
static const char *const op_names[NOPS] = {
    "AND", "FAND", "OR", "FOR", "XOR", "FXOR", "ADD", "FADD", "SUB", "FSUB", "MULT", "FMULT",
    "MIN", "FMIN", "MAX", "FMAX", "INC", "FINC", "DEC", "FDEC", "SET", "SWAP", "CAS", "FCAS",
    "GET",
};

static int is_fetching(uint32_t op)
{
    return (op & (GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_FADD | GEX_OP_FSUB |
                  GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FINC | GEX_OP_FDEC |
                  GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_GET)) != 0;
}

/* One operation through the conduit, waited for by polling. */
static int amo_sync(gex_Rank_t tgt, void *addr, uint32_t dt, uint32_t op, const void *a,
                    const void *b, void *result)
{
    _Atomic uint32_t rc = 1;
    struct gex_conduit_cpl cpl = { NULL, &rc };
    int st = gexi_core.ops->amo(gexi_core.conduit, 0, tgt, 0, addr, dt, op, a, b, result, &cpl, 0);
    if (st != GEX_CONDUIT_OK) return st;
    unsigned spins = 0;
    while (atomic_load_explicit(&rc, memory_order_acquire)) {
        gexi_poll();
        gexi_backoff(&spins);
    }
    return GEX_CONDUIT_OK;
}

/* The expected result of op on v with operands a, b, in type T. */
#define EXPECT(T, IS_INT)                                                                      \
    static T expect_##T(uint32_t op, T v, T a, T b)                                            \
    {                                                                                          \
        switch (op) {                                                                          \
        case GEX_OP_AND: case GEX_OP_FAND: return IS_INT ? (T)((uint64_t)v & (uint64_t)a) : v; \
        case GEX_OP_OR: case GEX_OP_FOR: return IS_INT ? (T)((uint64_t)v | (uint64_t)a) : v;   \
        case GEX_OP_XOR: case GEX_OP_FXOR: return IS_INT ? (T)((uint64_t)v ^ (uint64_t)a) : v; \
        case GEX_OP_ADD: case GEX_OP_FADD: return (T)(v + a);                                  \
        case GEX_OP_SUB: case GEX_OP_FSUB: return (T)(v - a);                                  \
        case GEX_OP_MULT: case GEX_OP_FMULT: return (T)(v * a);                                \
        case GEX_OP_MIN: case GEX_OP_FMIN: return a < v ? a : v;                               \
        case GEX_OP_MAX: case GEX_OP_FMAX: return a > v ? a : v;                               \
        case GEX_OP_INC: case GEX_OP_FINC: return (T)(v + 1);                                  \
        case GEX_OP_DEC: case GEX_OP_FDEC: return (T)(v - 1);                                  \
        case GEX_OP_SET: case GEX_OP_SWAP: return a;                                           \
        case GEX_OP_CAS: case GEX_OP_FCAS: return v == a ? b : v;                              \
        default: return v;                                                                     \
        }                                                                                      \
    }
EXPECT(int32_t, 1)
EXPECT(uint32_t, 1)
EXPECT(int64_t, 1)
EXPECT(uint64_t, 1)
EXPECT(float, 0)
EXPECT(double, 0)

/* Runs (dt, op) on the word at addr of rank tgt, variant `var` (CAS: 0
 * matching, 1 not), and checks fetched and final values. */
#define RUN_ONE(T, V0, A)                                                                      \
    do {                                                                                       \
        T v0 = (T)(V0), a = (T)(A), b = (T)(V0 + 7), fetched = (T)0, now = (T)0;             \
        if (var == 1) a = (T)(V0 + 1); /* CAS that does not match */                           \
        if (op == GEX_OP_CAS || op == GEX_OP_FCAS) { if (var == 0) a = v0; }                   \
        CHECK_OK(gex_RMA_PutBlocking(mp_tm, tgt, addr, &v0, sizeof v0, 0));                    \
        CHECK_EQ(amo_sync(tgt, addr, dt, op, &a, &b, is_fetching(op) ? &fetched : NULL),       \
                 GEX_CONDUIT_OK);                                                              \
        CHECK_OK(gex_RMA_GetBlocking(mp_tm, &now, tgt, addr, sizeof now, 0));                  \
        T want = expect_##T(op, v0, a, b);                                                     \
        CHECK_MSG(memcmp(&now, &want, sizeof now) == 0,                                        \
                  "%s %s (variant %d) on rank %u: final value wrong", dt_names[di],            \
                  op_names[oi], var, (unsigned)tgt);                                           \
        if (is_fetching(op))                                                                   \
            CHECK_MSG(memcmp(&fetched, &v0, sizeof v0) == 0,                                   \
                      "%s %s (variant %d) on rank %u: fetched value wrong", dt_names[di],      \
                      op_names[oi], var, (unsigned)tgt);                                       \
    } while (0)

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_CONDUIT_AMO", 0);
    mp_attach(64 * 1024);
    const struct gex_conduit_ops *o = gexi_core.ops;
    struct gex_conduit *c = gexi_core.conduit;

    mp_phase("query");
    const char *want = getenv("GEX_CONDUIT");
    CHECK_MSG(want && !strcmp(o->name, want),
              "run this test with GEX_CONDUIT naming a conduit with atomics (conduit is %s)",
              o->name);
    CHECK_MSG(gexi_core.caps.flags & GEX_CONDUIT_CAP_AMO, "the %s conduit offers no atomics",
              o->name);
    CHECK(GEX_CONDUIT_HAS(o, amo_query) && GEX_CONDUIT_HAS(o, amo));
    unsigned accepted = 0;
    int ok[NDT][NOPS];
    for (int di = 0; di < NDT; di++)
        for (int oi = 0; oi < NOPS; oi++) {
            ok[di][oi] = o->amo_query(c, dts[di], ops[oi]) == GEX_CONDUIT_OK;
            accepted += ok[di][oi];
        }
    const uint32_t must[] = { GEX_OP_FADD, GEX_OP_ADD, GEX_OP_CAS, GEX_OP_FCAS, GEX_OP_GET,
                              GEX_OP_SET, GEX_OP_SWAP };
    for (size_t k = 0; k < sizeof must / sizeof must[0]; k++)
        CHECK_EQ(o->amo_query(c, GEX_DT_U64, must[k]), GEX_CONDUIT_OK);
    CHECK_EQ(o->amo_query(c, GEX_DT_I64, GEX_OP_USER), GEX_CONDUIT_ENOTSUP);
    CHECK_EQ(o->amo_query(c, GEX_DT_USER, GEX_OP_FADD), GEX_CONDUIT_ENOTSUP);
    CHECK_EQ(o->amo_query(c, GEX_DT_DBL, GEX_OP_XOR), GEX_CONDUIT_ENOTSUP);
    /* libfabric's FI_MIN/FI_MAX keep op0 on a tie (+0.0 vs -0.0), the spec's
     * ((op0 < op1) ? op0 : op1) gives op1: floating-point MIN/MAX are refused */
    const uint32_t minmax[] = { GEX_OP_MIN, GEX_OP_FMIN, GEX_OP_MAX, GEX_OP_FMAX };
    for (size_t k = 0; k < 4; k++) {
        CHECK_EQ(o->amo_query(c, GEX_DT_FLT, minmax[k]), GEX_CONDUIT_ENOTSUP);
        CHECK_EQ(o->amo_query(c, GEX_DT_DBL, minmax[k]), GEX_CONDUIT_ENOTSUP);
    }

    /* every accepted pair on the neighbour's segment */
    mp_phase("each type and op");
    const gex_Rank_t tgt = (mp_me + 1) % mp_n;
    void *tbase;
    uintptr_t tsize;
    CHECK_OK(gex_Segment_QueryBound(mp_tm, tgt, &tbase, NULL, &tsize));
    CHECK(tsize >= 64 * 1024);
    unsigned ran = 0;
    mp_barrier();
    for (int di = 0; di < NDT; di++)
        for (int oi = 0; oi < NOPS; oi++) {
            if (!ok[di][oi]) continue;
            const uint32_t dt = dts[di], op = ops[oi];
            for (int var = 0; var < (op == GEX_OP_CAS || op == GEX_OP_FCAS ? 2 : 1); var++) {
                void *addr = (char *)tbase + 8 * (size_t)(di * NOPS + oi);
                switch (dt) {
                case GEX_DT_I32: RUN_ONE(int32_t, -1000 - oi, 0x35 + di); break;
                case GEX_DT_U32: RUN_ONE(uint32_t, 0xf0f0u + oi, 0x0ff3u); break;
                case GEX_DT_I64: RUN_ONE(int64_t, -((int64_t)1 << 30) - oi, 0x1234567); break;
                case GEX_DT_U64: RUN_ONE(uint64_t, ((uint64_t)3 << 40) + oi, 0x00ff00ff); break;
                case GEX_DT_FLT: RUN_ONE(float, 1.5 + oi, 2.25); break;
                default: RUN_ONE(double, -3.5 - oi, 0.75); break;
                }
                ran++;
            }
        }
    mp_barrier();

    /* contention on rank 0's words */
    mp_phase("contention");
    void *base0;
    CHECK_OK(gex_Segment_QueryBound(mp_tm, 0, &base0, NULL, NULL));
    uint64_t *ctr64 = (uint64_t *)((char *)base0 + 32 * 1024);
    int32_t *ctr32 = (int32_t *)((char *)base0 + 32 * 1024 + 64);
    if (mp_me == 0) {
        uint64_t z = 0;
        CHECK_EQ(amo_sync(0, ctr64, GEX_DT_U64, GEX_OP_SET, &z, NULL, NULL), GEX_CONDUIT_OK);
        int32_t z32 = 0;
        CHECK_EQ(amo_sync(0, ctr32, GEX_DT_I32, GEX_OP_SET, &z32, NULL, NULL), GEX_CONDUIT_OK);
    }
    mp_barrier();
    uint64_t one = 1, last64 = 0;
    int32_t last32 = -1;
    for (int i = 0; i < K; i++) {
        uint64_t f = UINT64_MAX;
        CHECK_EQ(amo_sync(0, ctr64, GEX_DT_U64, GEX_OP_FADD, &one, NULL, &f), GEX_CONDUIT_OK);
        CHECK_MSG(i == 0 || f > last64, "FADD fetched %llu after %llu", (unsigned long long)f,
                  (unsigned long long)last64);
        CHECK(f < (uint64_t)mp_n * K);
        last64 = f;
        int32_t f32 = -1;
        CHECK_EQ(amo_sync(0, ctr32, GEX_DT_I32, GEX_OP_FINC, NULL, NULL, &f32), GEX_CONDUIT_OK);
        CHECK(f32 > last32 && f32 < (int32_t)(mp_n * K));
        last32 = f32;
    }
    mp_barrier();
    uint64_t total = 0;
    int32_t total32 = 0;
    CHECK_EQ(amo_sync(0, ctr64, GEX_DT_U64, GEX_OP_GET, NULL, NULL, &total), GEX_CONDUIT_OK);
    CHECK_EQ(amo_sync(0, ctr32, GEX_DT_I32, GEX_OP_GET, NULL, NULL, &total32), GEX_CONDUIT_OK);
    CHECK_EQ(total, (uint64_t)mp_n * K);
    CHECK_EQ(total32, (int32_t)(mp_n * K));
    mp_barrier();

    /* self-targeted, through the network */
    mp_phase("self");
    void *mybase;
    CHECK_OK(gex_Segment_QueryBound(mp_tm, mp_me, &mybase, NULL, NULL));
    int64_t *mine = (int64_t *)((char *)mybase + 48 * 1024);
    int64_t v = 100, d = 58, f = 0, now = 0;
    CHECK_EQ(amo_sync(mp_me, mine, GEX_DT_I64, GEX_OP_SET, &v, NULL, NULL), GEX_CONDUIT_OK);
    CHECK_EQ(amo_sync(mp_me, mine, GEX_DT_I64, GEX_OP_FSUB, &d, NULL, &f), GEX_CONDUIT_OK);
    CHECK_EQ(f, 100);
    CHECK_EQ(amo_sync(mp_me, mine, GEX_DT_I64, GEX_OP_GET, NULL, NULL, &now), GEX_CONDUIT_OK);
    CHECK_EQ(now, 42);
    /* outside every published segment: the caller must take another path */
    int64_t stack_word = 0;
    CHECK_EQ(gexi_core.ops->amo(c, 0, mp_me, 0, &stack_word, GEX_DT_I64, GEX_OP_SET, &v, NULL,
                                NULL, &(struct gex_conduit_cpl){ NULL, NULL }, 0),
             GEX_CONDUIT_EINVAL);
    mp_barrier();
    mp_finish("%u of %u (type, op) pairs accepted, %u operations checked on the neighbour, "
              "%d x %u contended FADD/FINC", accepted, NDT * NOPS, ran, K, (unsigned)mp_n);
}
