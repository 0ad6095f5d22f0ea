/*
 * coll_reduce.c: gex_Coll_ReduceToOneNB and gex_Coll_ReduceToAllNB (spec:
 * "Collectives Part III"), the built-in operators, and the two all-reduce
 * algorithms of their own:
 *  - recursive doubling for small vectors (and any size on 2 members):
 *    log2 N exchange rounds; the partner with the lower ranks always gives
 *    the left operand, so every member applies the same operations to the
 *    same operands in the same order and all results are bitwise equal.  A
 *    non-power-of-two N first folds the first 2*(N - 2^k) members in pairs
 *    (the even one hands its vector to the odd one) and unfolds at the end;
 *  - ring (reduce-scatter then all-gather) for large vectors with a
 *    commutative operator: each member sends and receives 2 (N-1)/N of the
 *    vector in total, the bandwidth optimum; segments travel in pieces and a
 *    piece moves on as soon as it is combined.
 * Large vectors with GEX_OP_USER_NC use the binomial tree (coll_bcast.c)
 * towards rank 0 and back, which keeps rank order.  Vectors that fit the
 * slot of a one-nbrhd team go through shared memory (coll_shm.c).
 *
 * Built-in operators follow the spec's expressions with op0 = left operand;
 * signed ADD and MULT wrap in two's complement (computed unsigned) instead
 * of overflowing, which C leaves undefined.
 */
#include "coll_internal.h"
#include <stdlib.h>
#include <string.h>

/* ---- built-in operators: arg2[i] = arg1[i] (+) arg2[i] ---- */
#define GEXI_COLL_BUILTIN(name, T, EXPR) \
    static void name(const void *arg1, void *arg2, size_t count, const void *cdata) \
    { \
        const T *x = arg1; \
        T *y = arg2; \
        (void)cdata; \
        for (size_t i = 0; i < count; i++) { \
            const T a = x[i], b = y[i]; \
            y[i] = (EXPR); \
        } \
    }

#define GEXI_COLL_INT_OPS(sfx, T, U) \
    GEXI_COLL_BUILTIN(add_##sfx, T, (T)((U)a + (U)b)) \
    GEXI_COLL_BUILTIN(mult_##sfx, T, (T)((U)a * (U)b)) \
    GEXI_COLL_BUILTIN(min_##sfx, T, a < b ? a : b) \
    GEXI_COLL_BUILTIN(max_##sfx, T, a > b ? a : b) \
    GEXI_COLL_BUILTIN(and_##sfx, T, a & b) \
    GEXI_COLL_BUILTIN(or_##sfx, T, a | b) \
    GEXI_COLL_BUILTIN(xor_##sfx, T, a ^ b)
#define GEXI_COLL_FP_OPS(sfx, T) \
    GEXI_COLL_BUILTIN(add_##sfx, T, a + b) \
    GEXI_COLL_BUILTIN(mult_##sfx, T, a * b) \
    GEXI_COLL_BUILTIN(min_##sfx, T, a < b ? a : b) \
    GEXI_COLL_BUILTIN(max_##sfx, T, a > b ? a : b)

GEXI_COLL_INT_OPS(i32, int32_t, uint32_t)
GEXI_COLL_INT_OPS(u32, uint32_t, uint32_t)
GEXI_COLL_INT_OPS(i64, int64_t, uint64_t)
GEXI_COLL_INT_OPS(u64, uint64_t, uint64_t)
GEXI_COLL_FP_OPS(flt, float)
GEXI_COLL_FP_OPS(dbl, double)

enum { OP_ADD, OP_MULT, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR, N_OPS };
static const struct {
    gex_DT_t dt;
    const char *name;
    size_t size;
    gex_Coll_ReduceFn_t fn[N_OPS];       /* NULL: not valid for this type */
} builtin[] = {
    { GEX_DT_I32, "GEX_DT_I32", 4, { add_i32, mult_i32, min_i32, max_i32, and_i32, or_i32, xor_i32 } },
    { GEX_DT_U32, "GEX_DT_U32", 4, { add_u32, mult_u32, min_u32, max_u32, and_u32, or_u32, xor_u32 } },
    { GEX_DT_I64, "GEX_DT_I64", 8, { add_i64, mult_i64, min_i64, max_i64, and_i64, or_i64, xor_i64 } },
    { GEX_DT_U64, "GEX_DT_U64", 8, { add_u64, mult_u64, min_u64, max_u64, and_u64, or_u64, xor_u64 } },
    { GEX_DT_FLT, "GEX_DT_FLT", 4, { add_flt, mult_flt, min_flt, max_flt, NULL, NULL, NULL } },
    { GEX_DT_DBL, "GEX_DT_DBL", 8, { add_dbl, mult_dbl, min_dbl, max_dbl, NULL, NULL, NULL } },
};

static int op_index(gex_OP_t op)
{
    switch (op) {
    case GEX_OP_ADD: return OP_ADD;
    case GEX_OP_MULT: return OP_MULT;
    case GEX_OP_MIN: return OP_MIN;
    case GEX_OP_MAX: return OP_MAX;
    case GEX_OP_AND: return OP_AND;
    case GEX_OP_OR: return OP_OR;
    case GEX_OP_XOR: return OP_XOR;
    default: return -1;
    }
}

void gexi_coll_redop_init(struct gexi_coll_redop *r, const char *func, gex_DT_t dt,
                          size_t dt_sz, gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                          void *user_cdata)
{
    const int user = op == GEX_OP_USER || op == GEX_OP_USER_NC;
    if (!dt_sz) gexi_coll_bad_arg(func, "dt_sz is zero");
    r->esz = dt_sz;
    r->commutative = op != GEX_OP_USER_NC;
    if (dt == GEX_DT_USER) {
        if (!user)
            gexi_coll_bad_arg(func, "op 0x%x with GEX_DT_USER: only GEX_OP_USER or "
                              "GEX_OP_USER_NC apply to user-defined types", (unsigned)op);
    } else {
        size_t i = 0, n = sizeof builtin / sizeof builtin[0];
        while (i < n && builtin[i].dt != dt) i++;
        if (i == n) gexi_coll_bad_arg(func, "dt 0x%x is not a GEX_DT_* data type", (unsigned)dt);
        if (dt_sz != builtin[i].size)
            gexi_coll_bad_arg(func, "dt_sz %zu is not the size of %s (%zu)", dt_sz,
                              builtin[i].name, builtin[i].size);
        if (!user) {
            int k = op_index(op);
            if (k < 0)
                gexi_coll_bad_arg(func, "op 0x%x is not valid for reductions (ADD, MULT, MIN, "
                                  "MAX, AND, OR, XOR, USER, USER_NC)", (unsigned)op);
            if (!builtin[i].fn[k])
                gexi_coll_bad_arg(func, "op 0x%x (bit-wise) is not valid for %s", (unsigned)op,
                                  builtin[i].name);
            r->fn = builtin[i].fn[k];
            r->cdata = NULL;
            return;
        }
    }
    if (!user_op) gexi_coll_bad_arg(func, "user_op is NULL with GEX_OP_USER/GEX_OP_USER_NC");
    r->fn = user_op;
    r->cdata = user_cdata;
}

/* ---- recursive doubling ---- */
enum { PH_PRE = 4, PH_ROUND = 5, PH_POST = 6, PH_RING = 7 };
enum { RD_PLAIN, RD_ODD, RD_EVEN };

struct rd_op {
    struct gexi_coll_op op;
    gex_Rank_t me, n, rem, nr;
    int role;
    unsigned rounds;
    void *dst;
    const void *src;
    struct gexi_coll_redop r;
    struct gexi_coll_layout L;
    unsigned char *rbase;              /* receive buffers: stream s at rbase + s * bytes */
    uint32_t *arr;                     /* [rounds + 1][nblocks]: stream 0 PRE, 1.. rounds */
    size_t *comb;                      /* [rounds + 1] blocks combined per stage */
    size_t *sentp;                     /* [rounds + 1] pieces sent per round (index 1..) */
    size_t postp, post_arrived, prep;
};

static gex_Rank_t rd_rank_of(const struct rd_op *d, gex_Rank_t nr)
{
    return nr < d->rem ? 2 * nr + 1 : nr + d->rem;
}

static void rd_on_msg(struct gexi_coll_op *o, uint32_t step, uint32_t idx, const void *p,
                      size_t n)
{
    struct rd_op *d = (struct rd_op *)o;
    const struct gexi_coll_layout *L = &d->L;
    const uint32_t ph = GEXI_COLL_PHASE(step), sub = GEXI_COLL_SUB(step);
    size_t off, len;
    if (idx >= L->npieces) goto bad;
    gexi_coll_piece(L, idx, &off, &len);
    if (len != n) goto bad;
    if (ph == PH_POST && d->role == RD_EVEN) {
        memcpy((char *)d->dst + off, p, n);
        d->post_arrived++;
        return;
    }
    size_t s;
    if (ph == PH_PRE && d->role == RD_ODD) s = 0;
    else if (ph == PH_ROUND && d->role != RD_EVEN && sub < d->rounds) s = sub + 1;
    else goto bad;
    memcpy(d->rbase + s * L->cnt * L->esz + off, p, n);
    d->arr[s * L->nblocks + gexi_coll_block_of(L, idx)]++;
    return;
bad:
    gexi_fatal("libgex-coll: recursive doubling got an unexpected message (step 0x%x piece %u, "
               "%zu bytes): collective calls do not match across the team", step, idx, n);
}

static void rd_advance(struct gexi_coll_op *o, struct gexi_coll_outbox *ob)
{
    struct rd_op *d = (struct rd_op *)o;
    const struct gexi_coll_layout *L = &d->L;
    const size_t bytes = L->cnt * L->esz;
    if (d->role == RD_EVEN) {
        while (d->prep < L->npieces) {
            size_t off, len;
            gexi_coll_piece(L, d->prep, &off, &len);
            if (!gexi_coll_send(ob, o, d->me + 1, GEXI_COLL_STEP(PH_PRE, 0), (uint32_t)d->prep,
                                (const char *)d->src + off, len))
                return;
            d->prep++;
        }
        if (d->post_arrived == L->npieces) o->done = 1;
        return;
    }
    unsigned char *acc = d->dst;
    for (;;) {
        /* 1. Queue every piece that may go; combine only once they are sent. */
        int emitted = 0;
        for (unsigned s = 1; s <= d->rounds; s++) {
            const gex_Rank_t to = rd_rank_of(d, d->nr ^ ((gex_Rank_t)1 << (s - 1)));
            const size_t ready = d->comb[s - 1] * L->ppb;
            while (d->sentp[s] < ready) {
                size_t off, len;
                gexi_coll_piece(L, d->sentp[s], &off, &len);
                if (!gexi_coll_send(ob, o, to, GEXI_COLL_STEP(PH_ROUND, s - 1),
                                    (uint32_t)d->sentp[s], acc + off, len))
                    return;
                d->sentp[s]++;
                emitted = 1;
            }
        }
        if (d->role == RD_ODD) {
            const size_t ready = d->comb[d->rounds] * L->ppb;
            while (d->postp < ready) {
                size_t off, len;
                gexi_coll_piece(L, d->postp, &off, &len);
                if (!gexi_coll_send(ob, o, d->me - 1, GEXI_COLL_STEP(PH_POST, 0),
                                    (uint32_t)d->postp, acc + off, len))
                    return;
                d->postp++;
                emitted = 1;
            }
        }
        if (emitted) return;
        /* 2. Combine what arrived, stage by stage, block by block. */
        int progress = 0;
        if (d->role == RD_ODD) { /* the even partner holds the lower rank: left operand */
            while (d->comb[0] < L->nblocks && d->arr[d->comb[0]] == L->ppb) {
                const size_t b = d->comb[0], off = gexi_coll_block_off(L, b);
                d->r.fn(d->rbase + off, acc + off, gexi_coll_block_elems(L, b), d->r.cdata);
                d->comb[0]++;
                progress = 1;
            }
        }
        for (unsigned s = 1; s <= d->rounds; s++) {
            const gex_Rank_t q = d->nr ^ ((gex_Rank_t)1 << (s - 1));
            unsigned char *rb = d->rbase + s * bytes;
            while (d->comb[s] < d->comb[s - 1] && d->sentp[s] >= (d->comb[s] + 1) * L->ppb &&
                   d->arr[s * L->nblocks + d->comb[s]] == L->ppb) {
                const size_t b = d->comb[s], off = gexi_coll_block_off(L, b),
                             elems = gexi_coll_block_elems(L, b);
                if (q < d->nr) {
                    d->r.fn(rb + off, acc + off, elems, d->r.cdata);
                } else {
                    d->r.fn(acc + off, rb + off, elems, d->r.cdata);
                    memcpy(acc + off, rb + off, elems * L->esz);
                }
                d->comb[s]++;
                progress = 1;
            }
        }
        if (!progress) break;
    }
    if (d->comb[d->rounds] == L->nblocks && (d->role != RD_ODD || d->postp == L->npieces))
        o->done = 1;
}

static void rd_fini(struct gexi_coll_op *o)
{
    struct rd_op *d = (struct rd_op *)o;
    free(d->rbase);
    free(d->arr);
    free(d->comb);
    free(d->sentp);
}

static const struct gexi_coll_op_vt rd_vt = {
    .name = "allreduce-rd", .on_msg = rd_on_msg, .advance = rd_advance, .fini = rd_fini,
};

gex_Event_t gexi_coll_rd_allreduce(gex_TM_t tm, void *dst, const void *src,
                                   const struct gexi_coll_redop *r, size_t cnt)
{
    const struct gexi_tm *t = gexi_tm_of(tm);
    struct rd_op *d = gexi_coll_op_alloc(sizeof *d, &rd_vt, tm);
    d->me = t->rank;
    d->n = t->size;
    d->dst = dst;
    d->src = src;
    d->r = *r;
    gexi_coll_layout_init(&d->L, r->esz, cnt);
    gex_Rank_t p2 = 1;
    while ((uint64_t)p2 * 2 <= d->n) p2 *= 2;
    d->rem = d->n - p2;
    d->rounds = gexi_coll_ceil_log2(p2);
    if (d->me < 2 * d->rem) {
        d->role = (d->me & 1) ? RD_ODD : RD_EVEN;
        d->nr = d->me / 2;
    } else {
        d->role = RD_PLAIN;
        d->nr = d->me - d->rem;
    }
    const size_t bytes = r->esz * cnt, streams = (size_t)d->rounds + 1;
    d->comb = gexi_coll_xcalloc(streams, sizeof *d->comb);
    d->sentp = gexi_coll_xcalloc(streams, sizeof *d->sentp);
    if (d->role != RD_EVEN) {
        d->rbase = gexi_coll_xmalloc(bytes * streams);
        d->arr = gexi_coll_xcalloc(streams * d->L.nblocks, sizeof *d->arr);
        if (d->role == RD_PLAIN) d->comb[0] = d->L.nblocks;
        if (dst != src) memcpy(dst, src, bytes);
    }
    return gexi_coll_start(&d->op);
}

/* ---- ring ---- */
struct ring_op {
    struct gexi_coll_op op;
    gex_Rank_t me, n;
    unsigned char *dst;
    struct gexi_coll_redop r;
    size_t cnt, q, rq;                 /* segment s: q + (s < rq) elements */
    size_t nsteps, jlo;                /* 2 (n - 1); steps below jlo are finished */
    unsigned char *rbuf;               /* reduce-scatter arrivals, at their offsets */
    size_t *blkoff;                    /* [nsteps + 1] prefix of blocks per step */
    uint32_t *arr;                     /* [total blocks] pieces arrived */
    size_t *proc, *sentp;              /* [nsteps] blocks processed, pieces sent */
};

static gex_Rank_t ring_recv_seg(const struct ring_op *g, size_t j)
{
    const uint64_t n = g->n;
    if (j < n - 1) return (gex_Rank_t)(((uint64_t)g->me + n - ((j + 1) % n)) % n);
    return (gex_Rank_t)(((uint64_t)g->me + n - ((j - (n - 1)) % n)) % n);
}

static void ring_seg(const struct ring_op *g, gex_Rank_t s, struct gexi_coll_layout *L,
                     size_t *base)
{
    const size_t lo = s * g->q + (s < g->rq ? s : g->rq);
    gexi_coll_layout_init(L, g->r.esz, g->q + (s < g->rq));
    *base = lo * g->r.esz;
}

static void ring_on_msg(struct gexi_coll_op *o, uint32_t step, uint32_t idx, const void *p,
                        size_t n)
{
    struct ring_op *g = (struct ring_op *)o;
    const size_t j = GEXI_COLL_SUB(step);
    struct gexi_coll_layout L;
    size_t base, off, len;
    if (GEXI_COLL_PHASE(step) != PH_RING || j >= g->nsteps) goto bad;
    ring_seg(g, ring_recv_seg(g, j), &L, &base);
    if (idx >= L.npieces) goto bad;
    gexi_coll_piece(&L, idx, &off, &len);
    if (len != n) goto bad;
    memcpy((j < g->n - 1 ? g->rbuf : g->dst) + base + off, p, n);
    g->arr[g->blkoff[j] + gexi_coll_block_of(&L, idx)]++;
    return;
bad:
    gexi_fatal("libgex-coll: ring all-reduce got an unexpected message (step 0x%x piece %u, "
               "%zu bytes): collective calls do not match across the team", step, idx, n);
}

static void ring_advance(struct gexi_coll_op *o, struct gexi_coll_outbox *ob)
{
    struct ring_op *g = (struct ring_op *)o;
    const gex_Rank_t to = (gex_Rank_t)(((uint64_t)g->me + 1) % g->n);
    for (;;) {
        int emitted = 0, progress = 0;
        for (size_t j = g->jlo; j < g->nsteps; j++) {
            const gex_Rank_t seg = j ? ring_recv_seg(g, j - 1) : g->me;
            struct gexi_coll_layout L;
            size_t base;
            ring_seg(g, seg, &L, &base);
            const size_t ready = j ? g->proc[j - 1] * L.ppb : L.npieces;
            while (g->sentp[j] < ready) {
                size_t off, len;
                gexi_coll_piece(&L, g->sentp[j], &off, &len);
                if (!gexi_coll_send(ob, o, to, GEXI_COLL_STEP(PH_RING, j), (uint32_t)g->sentp[j],
                                    g->dst + base + off, len))
                    return;
                g->sentp[j]++;
                emitted = 1;
            }
        }
        if (emitted) return;
        for (size_t j = g->jlo; j < g->nsteps; j++) {
            struct gexi_coll_layout L;
            size_t base;
            ring_seg(g, ring_recv_seg(g, j), &L, &base);
            while (g->proc[j] < L.nblocks && g->arr[g->blkoff[j] + g->proc[j]] == L.ppb) {
                const size_t b = g->proc[j];
                if (j < g->n - 1) { /* reduce-scatter: combine into our copy */
                    const size_t off = base + gexi_coll_block_off(&L, b);
                    g->r.fn(g->rbuf + off, g->dst + off, gexi_coll_block_elems(&L, b),
                            g->r.cdata);
                }
                g->proc[j]++;
                progress = 1;
            }
        }
        /* Steps fully received and sent need no more looking at. */
        while (g->jlo < g->nsteps) {
            struct gexi_coll_layout L;
            size_t base;
            ring_seg(g, ring_recv_seg(g, g->jlo), &L, &base);
            struct gexi_coll_layout S;
            ring_seg(g, g->jlo ? ring_recv_seg(g, g->jlo - 1) : g->me, &S, &base);
            if (g->proc[g->jlo] < L.nblocks || g->sentp[g->jlo] < S.npieces) break;
            g->jlo++;
        }
        if (!progress) break;
    }
    if (g->jlo == g->nsteps) o->done = 1;
}

static void ring_fini(struct gexi_coll_op *o)
{
    struct ring_op *g = (struct ring_op *)o;
    free(g->rbuf);
    free(g->blkoff);
    free(g->arr);
    free(g->proc);
    free(g->sentp);
}

static const struct gexi_coll_op_vt ring_vt = {
    .name = "allreduce-ring", .on_msg = ring_on_msg, .advance = ring_advance, .fini = ring_fini,
};

gex_Event_t gexi_coll_ring_allreduce(gex_TM_t tm, void *dst, const void *src,
                                     const struct gexi_coll_redop *r, size_t cnt)
{
    const struct gexi_tm *t = gexi_tm_of(tm);
    struct ring_op *g = gexi_coll_op_alloc(sizeof *g, &ring_vt, tm);
    g->me = t->rank;
    g->n = t->size;
    g->dst = dst;
    g->r = *r;
    g->cnt = cnt;
    g->q = cnt / g->n;
    g->rq = cnt % g->n;
    g->nsteps = 2 * ((size_t)g->n - 1);
    const size_t bytes = r->esz * cnt;
    if (dst != src) memcpy(dst, src, bytes);
    g->rbuf = gexi_coll_xmalloc(bytes);
    g->blkoff = gexi_coll_xcalloc(g->nsteps + 1, sizeof *g->blkoff);
    for (size_t j = 0; j < g->nsteps; j++) {
        struct gexi_coll_layout L;
        size_t base;
        ring_seg(g, ring_recv_seg(g, j), &L, &base);
        g->blkoff[j + 1] = g->blkoff[j] + L.nblocks;
    }
    g->arr = gexi_coll_xcalloc(g->blkoff[g->nsteps], sizeof *g->arr);
    g->proc = gexi_coll_xcalloc(g->nsteps, sizeof *g->proc);
    g->sentp = gexi_coll_xcalloc(g->nsteps, sizeof *g->sentp);
    return gexi_coll_start(&g->op);
}

/* ---- choice of algorithm ---- */

gex_Event_t gexi_coll_reduce_all(gex_TM_t tm, void *dst, const void *src,
                                 const struct gexi_coll_redop *r, size_t cnt)
{
    struct gexi_coll_member *m = gexi_coll_member_of(tm);
    const gex_Rank_t n = gexi_tm_of(tm)->size;
    const size_t bytes = r->esz * cnt;
    if (n == 1) {
        gexi_coll_next_seq(m);
        if (dst != src) memcpy(dst, src, bytes);
        return GEX_EVENT_INVALID;
    }
    if (gexi_coll_shm_fits(m, bytes)) return gexi_coll_shm_reduce(tm, 0, 1, dst, src, r, cnt);
    if (bytes <= gexi_coll_cfg.rd_max || n == 2) return gexi_coll_rd_allreduce(tm, dst, src, r, cnt);
    if (r->commutative && n <= ((gex_Rank_t)1 << 22))
        return gexi_coll_ring_allreduce(tm, dst, src, r, cnt);
    return gexi_coll_tree_reduce(tm, 0, 1, dst, src, r, cnt);
}

static size_t vector_bytes(const char *func, size_t dt_sz, size_t dt_cnt)
{
    if (!dt_cnt) gexi_coll_bad_arg(func, "dt_cnt is zero");
    if (dt_sz && dt_cnt > SIZE_MAX / dt_sz)
        gexi_coll_bad_arg(func, "dt_sz %zu x dt_cnt %zu overflows", dt_sz, dt_cnt);
    return dt_sz * dt_cnt;
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                   gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags)
{
    struct gexi_coll_member *m = gexi_coll_check_tm(__func__, tm);
    const struct gexi_tm *t = gexi_tm_of(tm);
    if (flags) gexi_coll_bad_arg(__func__, "flags must be zero (got 0x%x)", (unsigned)flags);
    if (root >= t->size)
        gexi_coll_bad_arg(__func__, "root %u is not below the team size %u", (unsigned)root,
                          (unsigned)t->size);
    struct gexi_coll_redop r;
    gexi_coll_redop_init(&r, __func__, dt, dt_sz, op, user_op, user_cdata);
    const size_t bytes = vector_bytes(__func__, dt_sz, dt_cnt);
    if (!src) gexi_coll_bad_arg(__func__, "src is NULL");
    if (t->rank == root && !dst) gexi_coll_bad_arg(__func__, "dst is NULL on the root");
    if (t->size == 1) {
        gexi_coll_next_seq(m);
        if (dst != src) memcpy(dst, src, bytes);
        return GEX_EVENT_INVALID;
    }
    if (gexi_coll_shm_fits(m, bytes)) return gexi_coll_shm_reduce(tm, root, 0, dst, src, &r, dt_cnt);
    return gexi_coll_tree_reduce(tm, root, 0, dst, src, &r, dt_cnt);
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags)
{
    gexi_coll_check_tm(__func__, tm);
    if (flags) gexi_coll_bad_arg(__func__, "flags must be zero (got 0x%x)", (unsigned)flags);
    struct gexi_coll_redop r;
    gexi_coll_redop_init(&r, __func__, dt, dt_sz, op, user_op, user_cdata);
    vector_bytes(__func__, dt_sz, dt_cnt);
    if (!src) gexi_coll_bad_arg(__func__, "src is NULL");
    if (!dst) gexi_coll_bad_arg(__func__, "dst is NULL");
    return gexi_coll_reduce_all(tm, dst, src, &r, dt_cnt);
}
