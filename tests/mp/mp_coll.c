/*
 * mp_coll.c: every collective over the primordial team and over split
 * teams, results checked against values each rank computes on its own.
 *
 *  1. Barriers: 100 in a row; an AM to self before a barrier has run when
 *     it returns (GEX and GASNet-1 barriers); 6 outstanding at once; with PSHM, every rank
 *     stores the barrier's number into each peer's segment before entering
 *     and checks after leaving that every peer's store is visible (entry
 *     really waits for everyone, with release/acquire ordering).
 *  2. Broadcast: sizes 0 .. 1 MiB around every internal threshold (slot
 *     area, piece size), every root for small sizes, src == dst on the
 *     root, several outstanding with different roots.
 *  3. Reductions: every built-in type x every operation valid for it, to
 *     one (every root) and to all, counts 1, 3, 1000 and 5000 (several
 *     pieces), src == dst; expected values computed here in rank order.
 *  4. User operations: GEX_OP_USER on a 16-byte struct and on one element
 *     larger than a piece (dt_sz 20008); GEX_OP_USER_NC on 2x2 integer
 *     matrices (product in rank order, associative, not commutative), small
 *     and large, to every root and to all.
 *  5. Concurrency: a 2-D grid of row and column teams (Split); operations
 *     on both initiated interleaved before any is waited for.
 * The .mpt variants run it on the nbrhd slots (default), the AM algorithms
 * (GEX_FORCE_REFERENCE=coll), without PSHM, and with small pieces and no
 * recursive doubling (ring and trees with many pieces).
 */
#include "mp_util.h"
#include <gasnet_coll.h>

enum { H_SELF = MP_H_FIRST_FREE };
static atomic_uint self_ams;
static void h_self(gex_Token_t t) { (void)t; atomic_fetch_add(&self_ams, 1); }

static gex_Rank_t N, ME;
static char *seg_base;
static char **peer_local;       /* PSHM: peers' segments mapped here, or NULL */

static void wait_ev(gex_Event_t e) { gex_Event_Wait(e); }
static void team_barrier(gex_TM_t t) { wait_ev(gex_Coll_BarrierNB(t, 0)); }

/* ---- 1. barriers ---- */
static void test_barriers(void)
{
    mp_phase("barrier loop");
    for (int i = 0; i < 100; i++) team_barrier(mp_tm);
    /* A barrier is a progress point: an AM this rank sent itself before it
     * has run when it returns, with no other poll, also on the rank whose
     * barrier completes at once (1 rank; the last to arrive: 1 round in N).
     * The same for the GASNet-1 barrier. */
    mp_phase("barrier progress");
    for (int i = 0; i < 4 * (int)N + 4; i++) {
        const unsigned before = atomic_load(&self_ams);
        gex_AM_RequestShort0(mp_tm, ME, H_SELF, 0);
        if (i & 1) {
            team_barrier(mp_tm);
        } else {
            gasnet_barrier_notify(i, 0);
            CHECK_EQ(gasnet_barrier_wait(i, 0), GASNET_OK);
        }
        CHECK_EQ(atomic_load(&self_ams), before + 1);
    }
    mp_phase("outstanding barriers");
    gex_Event_t ev[6];
    for (int i = 0; i < 6; i++) ev[i] = gex_Coll_BarrierNB(mp_tm, 0);
    gex_Event_WaitAll(ev, 6, 0);
    for (int i = 0; i < 6; i++) CHECK(ev[i] == GEX_EVENT_INVALID);

    mp_phase("barrier ordering");
    int mapped = 1;
    for (gex_Rank_t r = 0; r < N; r++) mapped &= peer_local[r] != NULL;
    if (!mapped) return;
    volatile uint32_t *mine = (volatile uint32_t *)seg_base;
    for (uint32_t k = 1; k <= 50; k++) {
        if ((k + ME) % 3 == 0) usleep(50); /* somebody is always late */
        for (gex_Rank_t r = 0; r < N; r++)
            ((volatile uint32_t *)peer_local[r])[ME] = k;
        team_barrier(mp_tm);
        for (gex_Rank_t r = 0; r < N; r++)
            CHECK_MSG(mine[r] >= k, "barrier %u: rank %u's store (%u) not visible", k,
                      (unsigned)r, mine[r]);
        team_barrier(mp_tm); /* nobody stores k+1 before everyone checked k */
    }
}

/* ---- 2. broadcast ---- */
static void check_bcast(gex_TM_t t, size_t nbytes, gex_Rank_t root, int in_place, uint32_t tag)
{
    const gex_Rank_t me = gex_TM_QueryRank(t);
    uint8_t *src = malloc(nbytes + 1), *dst = malloc(nbytes + 1);
    CHECK(src && dst);
    memset(dst, 0xee, nbytes + 1);
    if (me == root) mp_fill(in_place ? dst : src, nbytes, tag, (uint32_t)nbytes);
    wait_ev(gex_Coll_BroadcastNB(t, root, dst, in_place ? dst : src, nbytes, 0));
    CHECK_PATTERN(dst, nbytes, tag, (uint32_t)nbytes);
    CHECK_MSG(dst[nbytes] == 0xee, "broadcast of %zu bytes wrote past the end", nbytes);
    free(src);
    free(dst);
}

static void test_bcast(void)
{
    static const size_t sizes[] = { 0, 1, 7, 8, 100, 1023, 1024, 1025, 4095, 4096, 4097,
                                    16383, 16384, 16385, 100000, 1 << 20 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        char ph[64];
        snprintf(ph, sizeof ph, "broadcast %zu bytes", sizes[s]);
        mp_phase(ph);
        const gex_Rank_t nroots = sizes[s] > 20000 ? (N > 1 ? 2 : 1) : N;
        for (gex_Rank_t k = 0; k < nroots; k++) {
            const gex_Rank_t root = (gex_Rank_t)((k * 5 + 1) % N);
            check_bcast(mp_tm, sizes[s], root, k & 1, 100 + k);
        }
    }
    mp_phase("outstanding broadcasts");
    enum { K = 7 };
    uint64_t val[K], out[K];
    gex_Event_t ev[K];
    for (int k = 0; k < K; k++) {
        gex_Rank_t root = (gex_Rank_t)(k % N);
        val[k] = ME == root ? 0x1000u * (uint64_t)k + root : 0;
        out[k] = 0;
        ev[k] = gex_Coll_BroadcastNB(mp_tm, root, &out[k], &val[k], sizeof val[k], 0);
    }
    gex_Event_WaitAll(ev, K, 0);
    for (int k = 0; k < K; k++) CHECK_EQ(out[k], 0x1000u * (uint64_t)k + (gex_Rank_t)(k % N));
}

/* ---- 3. built-in reductions ---- */
static const struct {
    gex_DT_t dt;
    const char *name;
    size_t sz;
    int is_int, is_signed;
} types[] = {
    { GEX_DT_I32, "I32", 4, 1, 1 }, { GEX_DT_U32, "U32", 4, 1, 0 },
    { GEX_DT_I64, "I64", 8, 1, 1 }, { GEX_DT_U64, "U64", 8, 1, 0 },
    { GEX_DT_FLT, "FLT", 4, 0, 1 }, { GEX_DT_DBL, "DBL", 8, 0, 1 },
};
static const struct {
    gex_OP_t op;
    const char *name;
    int int_only;
} ops[] = {
    { GEX_OP_ADD, "ADD", 0 }, { GEX_OP_MULT, "MULT", 0 }, { GEX_OP_MIN, "MIN", 0 },
    { GEX_OP_MAX, "MAX", 0 }, { GEX_OP_AND, "AND", 1 }, { GEX_OP_OR, "OR", 1 },
    { GEX_OP_XOR, "XOR", 1 },
};

/* The value rank r contributes at index i; floats are chosen so that any
 * order of evaluation gives the exact same result. */
static double fp_val(gex_OP_t op, gex_Rank_t r, size_t i)
{
    uint32_t h = mp_hash32((uint32_t)r * 7919u + (uint32_t)i * 104729u + 17u);
    switch (op) {
    case GEX_OP_ADD: return (double)(h % 200) - 60.0;
    case GEX_OP_MULT: return (h & 1) ? 2.0 : ((h & 2) ? 0.5 : 1.0);
    default: return (double)(h % 20001) - 10000.0 + 0.25;
    }
}
static uint64_t int_val(gex_OP_t op, gex_Rank_t r, size_t i)
{
    uint64_t h = (uint64_t)mp_hash32((uint32_t)r * 31u + (uint32_t)i * 1000003u) << 32 |
                 mp_hash32((uint32_t)i ^ ((uint32_t)r << 20) ^ 0xabcdu);
    if (op == GEX_OP_MULT) h |= 1;
    if (op == GEX_OP_AND) h |= ~(uint64_t)0 << (r % 5); /* keep some bits set */
    return h;
}

static void put_val(void *buf, size_t i, int t, gex_OP_t op, gex_Rank_t r)
{
    switch (types[t].dt) {
    case GEX_DT_I32: ((int32_t *)buf)[i] = (int32_t)(uint32_t)int_val(op, r, i); break;
    case GEX_DT_U32: ((uint32_t *)buf)[i] = (uint32_t)int_val(op, r, i); break;
    case GEX_DT_I64: ((int64_t *)buf)[i] = (int64_t)int_val(op, r, i); break;
    case GEX_DT_U64: ((uint64_t *)buf)[i] = int_val(op, r, i); break;
    case GEX_DT_FLT: ((float *)buf)[i] = (float)fp_val(op, r, i); break;
    case GEX_DT_DBL: ((double *)buf)[i] = fp_val(op, r, i); break;
    }
}

#define COMBINE(T, a, b, op) \
    ((op) == GEX_OP_ADD ? (T)((a) + (b)) : (op) == GEX_OP_MULT ? (T)((a) * (b)) \
     : (op) == GEX_OP_MIN ? ((a) < (b) ? (a) : (b)) : ((a) > (b) ? (a) : (b)))
#define COMBINE_INT(T, U, a, b, op) \
    ((op) == GEX_OP_ADD ? (T)((U)(a) + (U)(b)) : (op) == GEX_OP_MULT ? (T)((U)(a) * (U)(b)) \
     : (op) == GEX_OP_MIN ? ((a) < (b) ? (a) : (b)) : (op) == GEX_OP_MAX ? ((a) > (b) ? (a) : (b)) \
     : (op) == GEX_OP_AND ? (T)((a) & (b)) : (op) == GEX_OP_OR ? (T)((a) | (b)) : (T)((a) ^ (b)))

/* Expected element i over ranks[0..n) of team t (jobranks given). */
static void expect_val(void *out, size_t i, int t, gex_OP_t op, const gex_Rank_t *jr, gex_Rank_t n)
{
    union { int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f; double d; } acc, v;
    put_val(&acc, 0, t, op, jr[0]);
    for (gex_Rank_t r = 1; r < n; r++) {
        put_val(&v, 0, t, op, jr[r]);
        switch (types[t].dt) {
        case GEX_DT_I32: acc.i32 = COMBINE_INT(int32_t, uint32_t, acc.i32, v.i32, op); break;
        case GEX_DT_U32: acc.u32 = COMBINE_INT(uint32_t, uint32_t, acc.u32, v.u32, op); break;
        case GEX_DT_I64: acc.i64 = COMBINE_INT(int64_t, uint64_t, acc.i64, v.i64, op); break;
        case GEX_DT_U64: acc.u64 = COMBINE_INT(uint64_t, uint64_t, acc.u64, v.u64, op); break;
        case GEX_DT_FLT: acc.f = COMBINE(float, acc.f, v.f, op); break;
        case GEX_DT_DBL: acc.d = COMBINE(double, acc.d, v.d, op); break;
        }
    }
    memcpy((char *)out + i * types[t].sz, &acc, types[t].sz);
}

/* put_val for element i but with the (op, rank) pattern shifted by i: the
 * expected-value helper uses index 0, so contributions depend on i only
 * through this wrapper. */
static void fill_src(void *buf, size_t cnt, int t, gex_OP_t op, gex_Rank_t jr)
{
    for (size_t i = 0; i < cnt; i++) {
        char tmp[8];
        put_val(tmp, 0, t, op, jr * 1000003u + (gex_Rank_t)i);
        memcpy((char *)buf + i * types[t].sz, tmp, types[t].sz);
    }
}
static void expect_vec(void *out, size_t cnt, int t, gex_OP_t op, const gex_Rank_t *jr, gex_Rank_t n)
{
    gex_Rank_t *k = malloc(n * sizeof *k);
    CHECK(k);
    for (size_t i = 0; i < cnt; i++) {
        for (gex_Rank_t r = 0; r < n; r++) k[r] = jr[r] * 1000003u + (gex_Rank_t)i;
        expect_val(out, i, t, op, k, n);
    }
    free(k);
}

static void check_reduce(gex_TM_t t, int ty, int o, size_t cnt, int to_all, gex_Rank_t root,
                         int in_place)
{
    const gex_Rank_t n = gex_TM_QuerySize(t), me = gex_TM_QueryRank(t);
    const size_t sz = types[ty].sz, bytes = sz * cnt;
    gex_Rank_t *jr = malloc(n * sizeof *jr);
    char *src = malloc(bytes), *dst = malloc(bytes + 8), *want = malloc(bytes);
    CHECK(jr && src && dst && want);
    for (gex_Rank_t r = 0; r < n; r++) jr[r] = gex_TM_TranslateRankToJobrank(t, r);
    const gex_OP_t op = ops[o].op;
    memset(dst, 0x5a, bytes + 8);
    /* src == dst is allowed on every rank (ToAll) or on the root (ToOne) */
    const int same = in_place && (to_all || me == root);
    fill_src(same ? dst : src, cnt, ty, op, jr[me]);
    gex_Event_t ev = to_all
        ? gex_Coll_ReduceToAllNB(t, dst, same ? dst : src, types[ty].dt, sz, cnt, op, NULL,
                                 NULL, 0)
        : gex_Coll_ReduceToOneNB(t, root, dst, same ? dst : src, types[ty].dt, sz, cnt, op,
                                 NULL, NULL, 0);
    wait_ev(ev);
    if (to_all || me == root) {
        expect_vec(want, cnt, ty, op, jr, n);
        for (size_t i = 0; i < cnt; i++)
            CHECK_MSG(!memcmp(dst + i * sz, want + i * sz, sz),
                      "%s %s %s count %zu root %u: element %zu differs", types[ty].name,
                      ops[o].name, to_all ? "ToAll" : "ToOne", cnt, (unsigned)root, i);
        CHECK(((unsigned char *)dst)[bytes] == 0x5a);
    }
    free(jr);
    free(src);
    free(dst);
    free(want);
}

static void test_builtin_reductions(gex_TM_t t, int quick)
{
    static const size_t counts[] = { 1, 3, 1000, 5000 };
    const gex_Rank_t n = gex_TM_QuerySize(t);
    for (int ty = 0; ty < 6; ty++) {
        for (int o = 0; o < 7; o++) {
            if (ops[o].int_only && !types[ty].is_int) continue;
            char ph[64];
            snprintf(ph, sizeof ph, "reduce %s %s", types[ty].name, ops[o].name);
            mp_phase(ph);
            for (int c = 0; c < (quick ? 2 : 4); c++) {
                check_reduce(t, ty, o, counts[c], 1, 0, c == 1);
                check_reduce(t, ty, o, counts[c], 0, (gex_Rank_t)((c * 3 + ty) % n), c == 2);
            }
        }
    }
    /* every root once */
    mp_phase("reduce to every root");
    for (gex_Rank_t root = 0; root < n; root++) check_reduce(t, 3, 0, 17, 0, root, root & 1);
}

/* ---- 4. user-defined operations ---- */
struct stat3 {
    int64_t sum;
    int32_t min, max;
};
static atomic_int user_calls;
static void stat3_op(const void *a1, void *a2, size_t count, const void *cdata)
{
    CHECK(cdata == (const void *)&user_calls);
    const struct stat3 *x = a1;
    struct stat3 *y = a2;
    for (size_t i = 0; i < count; i++) {
        y[i].sum += x[i].sum;
        if (x[i].min < y[i].min) y[i].min = x[i].min;
        if (x[i].max > y[i].max) y[i].max = x[i].max;
    }
    atomic_fetch_add(&user_calls, 1);
}

#define BIG_WORDS 2501 /* one element of 20008 bytes: more than a 16 KiB piece */
static size_t big_cdata = BIG_WORDS;
static void bigsum_op(const void *a1, void *a2, size_t count, const void *cdata)
{
    const size_t w = *(const size_t *)cdata;
    const uint64_t *x = a1;
    uint64_t *y = a2;
    for (size_t i = 0; i < count * w; i++) y[i] += x[i];
}

/* 2x2 matrices over Z/2^64: associative, not commutative. */
struct mat {
    uint64_t a, b, c, d;
};
static struct mat mat_mul(struct mat x, struct mat y)
{
    return (struct mat){ x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
                         x.c * y.b + x.d * y.d };
}
static void mat_op(const void *a1, void *a2, size_t count, const void *cdata)
{
    const struct mat *x = a1;
    struct mat *y = a2;
    for (size_t i = 0; i < count; i++) y[i] = mat_mul(x[i], y[i]); /* y = x (+) y, x on the left */
}
/* x (+) y = x: associative, not commutative; over a built-in type. */
static void first_op(const void *a1, void *a2, size_t count, const void *cdata)
{
    memcpy(a2, a1, count * sizeof(uint64_t));
}
static struct mat mat_of(gex_Rank_t jr, size_t i)
{
    uint32_t h = mp_hash32(jr * 977u + (uint32_t)i);
    return (struct mat){ 1 + (h & 7), (h >> 3) & 3, (h >> 5) & 3, 1 + ((h >> 7) & 7) };
}

static void test_user_ops(gex_TM_t t)
{
    const gex_Rank_t n = gex_TM_QuerySize(t), me = gex_TM_QueryRank(t);
    gex_Rank_t *jr = malloc(n * sizeof *jr);
    CHECK(jr);
    for (gex_Rank_t r = 0; r < n; r++) jr[r] = gex_TM_TranslateRankToJobrank(t, r);

    mp_phase("GEX_OP_USER struct");
    for (int round = 0; round < 2; round++) {
        const size_t cnt = round ? 3000 : 5;
        struct stat3 *src = malloc(cnt * sizeof *src), *dst = malloc(cnt * sizeof *dst);
        CHECK(src && dst);
        for (size_t i = 0; i < cnt; i++) {
            int32_t v = (int32_t)(mp_hash32(jr[me] * 13u + (uint32_t)i) % 100000) - 50000;
            src[i] = (struct stat3){ v, v, v };
        }
        for (gex_Rank_t root = 0; root < n; root += (n > 2 ? n - 1 : 1)) {
            wait_ev(gex_Coll_ReduceToOneNB(t, root, dst, src, GEX_DT_USER, sizeof *src, cnt,
                                           GEX_OP_USER, stat3_op, &user_calls, 0));
            if (me != root) continue;
            for (size_t i = 0; i < cnt; i++) {
                int64_t s = 0;
                int32_t lo = INT32_MAX, hi = INT32_MIN;
                for (gex_Rank_t r = 0; r < n; r++) {
                    int32_t v = (int32_t)(mp_hash32(jr[r] * 13u + (uint32_t)i) % 100000) - 50000;
                    s += v;
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
                CHECK_MSG(dst[i].sum == s && dst[i].min == lo && dst[i].max == hi,
                          "USER struct element %zu wrong", i);
            }
        }
        memset(dst, 0, cnt * sizeof *dst);
        wait_ev(gex_Coll_ReduceToAllNB(t, dst, src, GEX_DT_USER, sizeof *src, cnt, GEX_OP_USER,
                                       stat3_op, &user_calls, 0));
        for (size_t i = 0; i < cnt; i++) {
            int64_t s = 0;
            for (gex_Rank_t r = 0; r < n; r++)
                s += (int32_t)(mp_hash32(jr[r] * 13u + (uint32_t)i) % 100000) - 50000;
            CHECK_EQ(dst[i].sum, s);
        }
        free(src);
        free(dst);
    }

    mp_phase("GEX_OP_USER element larger than a piece");
    {
        const size_t esz = BIG_WORDS * 8, cnt = 3;
        uint64_t *src = malloc(esz * cnt), *dst = malloc(esz * cnt);
        CHECK(src && dst);
        for (size_t w = 0; w < BIG_WORDS * cnt; w++) src[w] = (uint64_t)jr[me] * 1000 + w;
        wait_ev(gex_Coll_ReduceToAllNB(t, dst, src, GEX_DT_USER, esz, cnt, GEX_OP_USER,
                                       bigsum_op, &big_cdata, 0));
        uint64_t sj = 0;
        for (gex_Rank_t r = 0; r < n; r++) sj += jr[r];
        for (size_t w = 0; w < BIG_WORDS * cnt; w++) CHECK_EQ(dst[w], sj * 1000 + n * w);
        const gex_Rank_t root = n - 1;
        memset(dst, 0, esz * cnt);
        wait_ev(gex_Coll_ReduceToOneNB(t, root, dst, src, GEX_DT_USER, esz, cnt, GEX_OP_USER,
                                       bigsum_op, &big_cdata, 0));
        if (me == root)
            for (size_t w = 0; w < BIG_WORDS * cnt; w++) CHECK_EQ(dst[w], sj * 1000 + n * w);
        free(src);
        free(dst);
    }

    mp_phase("GEX_OP_USER_NC matrices");
    static const size_t counts[] = { 1, 7, 2000 };
    for (int c = 0; c < 3; c++) {
        const size_t cnt = counts[c];
        struct mat *src = malloc(cnt * sizeof *src), *dst = malloc(cnt * sizeof *dst),
                   *want = malloc(cnt * sizeof *want);
        CHECK(src && dst && want);
        for (size_t i = 0; i < cnt; i++) {
            src[i] = mat_of(jr[me], i);
            want[i] = mat_of(jr[0], i);
            for (gex_Rank_t r = 1; r < n; r++) want[i] = mat_mul(want[i], mat_of(jr[r], i));
        }
        wait_ev(gex_Coll_ReduceToAllNB(t, dst, src, GEX_DT_USER, sizeof *src, cnt,
                                       GEX_OP_USER_NC, mat_op, NULL, 0));
        CHECK_MSG(!memcmp(dst, want, cnt * sizeof *dst), "USER_NC ToAll count %zu wrong", cnt);
        for (gex_Rank_t root = 0; root < n; root++) {
            memset(dst, 0, cnt * sizeof *dst);
            wait_ev(gex_Coll_ReduceToOneNB(t, root, dst, src, GEX_DT_USER, sizeof *src, cnt,
                                           GEX_OP_USER_NC, mat_op, NULL, 0));
            if (me == root)
                CHECK_MSG(!memcmp(dst, want, cnt * sizeof *dst),
                          "USER_NC ToOne count %zu root %u wrong", cnt, (unsigned)root);
        }
        free(src);
        free(dst);
        free(want);
    }
    mp_phase("GEX_OP_USER_NC over GEX_DT_U64");
    for (int c = 0; c < 2; c++) {
        const size_t cnt = c ? 4000 : 2;
        uint64_t *src = malloc(cnt * 8), *dst = malloc(cnt * 8);
        CHECK(src && dst);
        for (size_t i = 0; i < cnt; i++) src[i] = (uint64_t)jr[me] << 32 | i;
        wait_ev(gex_Coll_ReduceToAllNB(t, dst, src, GEX_DT_U64, 8, cnt, GEX_OP_USER_NC, first_op,
                                       NULL, 0));
        for (size_t i = 0; i < cnt; i++) CHECK_EQ(dst[i], (uint64_t)jr[0] << 32 | i);
        free(src);
        free(dst);
    }
    free(jr);
}

/* ---- 5. concurrent collectives on two teams ---- */
static void test_concurrent(void)
{
    mp_phase("row/column teams");
    const gex_Rank_t xr = N >= 6 ? 3 : N >= 4 ? 2 : 1; /* 2-D grid with rows of xr */
    gex_TM_t row, col;
    const size_t ss = gex_TM_Split(&row, mp_tm, 0, 0, NULL, 0,
                                   GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    CHECK(ss > 0 && 2 * ss <= 65536);
    gex_TM_Split(&row, mp_tm, (int)(ME / xr), (int)(ME % xr), seg_base + 65536, ss, 0);
    gex_TM_Split(&col, mp_tm, (int)(ME % xr), (int)(ME / xr), seg_base + 65536 + ss, ss, 0);
    CHECK_EQ(gex_TM_QueryRank(row), ME % xr);
    CHECK_EQ(gex_TM_QueryRank(col), ME / xr);
    const gex_Rank_t nrow = gex_TM_QuerySize(row), ncol = gex_TM_QuerySize(col);

    mp_phase("interleaved operations on two teams");
    for (int iter = 0; iter < 20; iter++) {
        uint64_t rin = ME + (uint64_t)iter, rout = 0, cin = ME * 3 + (uint64_t)iter, cout = 0;
        uint64_t bval = ME == (gex_Rank_t)(iter % N) ? 77 : 0, bout = 0, big_in[3000], big_out[3000];
        for (int i = 0; i < 3000; i++) big_in[i] = ME + (uint64_t)i;
        gex_Event_t ev[6];
        ev[0] = gex_Coll_BarrierNB(col, 0);
        ev[1] = gex_Coll_ReduceToAllNB(row, &rout, &rin, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
        ev[2] = gex_Coll_ReduceToAllNB(col, &cout, &cin, GEX_DT_U64, 8, 1, GEX_OP_MAX, NULL, NULL, 0);
        ev[3] = gex_Coll_BarrierNB(row, 0);
        ev[4] = gex_Coll_ReduceToAllNB(col, big_out, big_in, GEX_DT_U64, 8, 3000, GEX_OP_ADD,
                                       NULL, NULL, 0);
        ev[5] = gex_Coll_BroadcastNB(mp_tm, (gex_Rank_t)(iter % N), &bout, &bval, 8, 0);
        gex_Event_WaitAll(ev, 6, 0);
        uint64_t want_r = 0, want_c = 0, sum_c = 0;
        for (gex_Rank_t k = 0; k < nrow; k++) want_r += (ME / xr) * xr + k + (uint64_t)iter;
        for (gex_Rank_t k = 0; k < ncol; k++) {
            uint64_t r = k * xr + ME % xr;
            if (r * 3 + (uint64_t)iter > want_c) want_c = r * 3 + (uint64_t)iter;
            sum_c += r;
        }
        CHECK_EQ(rout, want_r);
        CHECK_EQ(cout, want_c);
        CHECK_EQ(bout, 77);
        for (int i = 0; i < 3000; i++) CHECK_EQ(big_out[i], sum_c + (uint64_t)ncol * i);
    }
    mp_phase("collectives on the column team");
    test_builtin_reductions(col, 1);
    test_user_ops(col);
    team_barrier(mp_tm);
    gex_Memvec_t sv;
    CHECK(gex_TM_Destroy(row, &sv, GEX_FLAG_GLOBALLY_QUIESCED));
    CHECK_PTR_EQ(sv.gex_addr, seg_base + 65536);
    CHECK_EQ(sv.gex_len, ss);
    CHECK(gex_TM_Destroy(col, &sv, GEX_FLAG_GLOBALLY_QUIESCED | GEX_FLAG_SCRATCH_SEG_OFFSET));
    CHECK_EQ((uintptr_t)sv.gex_addr, 65536 + ss);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_COLL", 0);
    gex_AM_Entry_t h[] = {
        { H_SELF, (gex_AM_Fn_t)h_self, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "h_self" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, 1));
    mp_attach(256 * 1024);
    N = mp_n;
    ME = mp_me;
    seg_base = gex_Segment_QueryAddr(mp_seg);
    peer_local = calloc(N, sizeof *peer_local);
    CHECK(peer_local);
    for (gex_Rank_t r = 0; r < N; r++) {
        void *owner = NULL, *local = NULL;
        uintptr_t size = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &owner, &local, &size, 0));
        peer_local[r] = local;
    }
    mp_barrier();

    test_barriers();
    test_bcast();
    test_builtin_reductions(mp_tm, 0);
    test_user_ops(mp_tm);
    test_concurrent();
    mp_finish("barriers, broadcasts, every dt x op, user ops, concurrent teams");
}
