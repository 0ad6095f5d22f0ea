/*
 * test_vis_stride.c: Check unit tests of libgex-vis's stride optimizer
 * (vis_stride.c) and copy loops (vis_copy.c), compiled into this program
 * (they are internal to the layer) and driven without any job:
 *
 *  - each pass on its own, input metadata -> normalized metadata: null
 *    dimensions removed, negative peer strides inverted (bases moved to the
 *    last element), dimensions sorted by peer stride, contiguous levels
 *    folded into the element and adjacent levels merged; a 32-d spelling of
 *    a 25%-density 1-d motion folds to exactly that 1-d motion, as do its
 *    3-d and 8-d spellings;
 *  - transposes and reflections keep their local strides;
 *  - degenerate inputs (elemsz 0, a zero count, no levels) and overflow;
 *  - random metadata (up to 6 levels, any signs, transposed, with null
 *    levels): the normalized form copies exactly the same (local byte,
 *    peer byte) pairs as the input, by enumeration;
 *  - the fused optimizer pass against the general passes, field by field,
 *    on random metadata (in order or not, up to 150 levels, mostly null);
 *  - the copy loops: Strided sections (whole and from arbitrary element and
 *    byte positions, through flat buffers as the AM path packs them) and
 *    Vector/Indexed lists of mismatched shapes with zero-length entries,
 *    against a naive byte-by-byte reference; large Indexed lists and
 *    Strided sections through the prefetching loops.
 */
#include "vis_internal.h"
#include <check.h>
#include <stdlib.h>

static struct gexi_vis_strided st;

/* ---- Each pass ---- */

START_TEST(test_null_dims)
{
    char l[1], p[1];
    const size_t cnt[] = { 1, 5, 1, 3, 1 };
    const ptrdiff_t ls[] = { 999, 64, 7, 640, 1 }, ps[] = { -5, 32, 3, 320, 2 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, ls, p, ps, 8, cnt, 5), 0);
    ck_assert_uint_eq(st.dims, 2);
    ck_assert_uint_eq(st.count[0], 5);
    ck_assert_uint_eq(st.count[1], 3);
    ck_assert_int_eq(st.lstride[0], 64);
    ck_assert_int_eq(st.pstride[1], 320);
    ck_assert_uint_eq(st.nelem, 15);
    ck_assert_uint_eq(st.elemsz, 8);
    ck_assert_ptr_eq((void *)st.lbase, l);
    ck_assert_ptr_eq((void *)st.pbase, p);
}
END_TEST

START_TEST(test_inversion)
{
    static char l[4096], p[4096];
    const size_t cnt[] = { 4, 3 };
    /* peer dimension 0 reflected, local dimension 1 reflected */
    const ptrdiff_t ls[] = { 16, -100 }, ps[] = { -16, 200 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l + 1000, ls, p + 1000, ps, 8, cnt, 2), 0);
    ck_assert_uint_eq(st.dims, 2);
    ck_assert_int_eq(st.pstride[0], 16);
    ck_assert_int_eq(st.lstride[0], -16);
    ck_assert_int_eq(st.pstride[1], 200);
    ck_assert_int_eq(st.lstride[1], -100);
    ck_assert_ptr_eq((void *)st.pbase, p + 1000 - 3 * 16);
    ck_assert_ptr_eq((void *)st.lbase, l + 1000 + 3 * 16);
    for (unsigned d = 0; d < st.dims; d++) ck_assert_int_ge(st.pstride[d], 0);
}
END_TEST

START_TEST(test_sort_and_transpose)
{
    char l[1], p[1];
    /* A transpose: local row-major 3x5 of 8-byte elements, peer column-major. */
    const size_t cnt[] = { 5, 3 };
    const ptrdiff_t ls[] = { 8, 40 }, ps[] = { 24, 8 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, ls, p, ps, 8, cnt, 2), 0);
    ck_assert_uint_eq(st.dims, 2);
    ck_assert_int_eq(st.pstride[0], 8); /* sorted: peer-ascending */
    ck_assert_int_eq(st.pstride[1], 24);
    ck_assert_uint_eq(st.count[0], 3);
    ck_assert_uint_eq(st.count[1], 5);
    ck_assert_int_eq(st.lstride[0], 40); /* the transpose survives on the local side */
    ck_assert_int_eq(st.lstride[1], 8);
    ck_assert_uint_eq(st.elemsz, 8);
}
END_TEST

START_TEST(test_fold_into_elem)
{
    char l[1], p[1];
    /* 4-byte elements, 16 of them contiguous on both sides, rows of 100 B */
    const size_t cnt[] = { 16, 7 };
    const ptrdiff_t ls[] = { 4, 100 }, ps[] = { 4, 128 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, ls, p, ps, 4, cnt, 2), 0);
    ck_assert_uint_eq(st.elemsz, 64);
    ck_assert_uint_eq(st.dims, 1);
    ck_assert_uint_eq(st.count[0], 7);
    ck_assert_uint_eq(st.nelem, 7);
    /* fully contiguous: no dimension left */
    const ptrdiff_t ls2[] = { 4, 64 }, ps2[] = { 4, 64 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, ls2, p, ps2, 4, cnt, 2), 0);
    ck_assert_uint_eq(st.dims, 0);
    ck_assert_uint_eq(st.elemsz, 4 * 16 * 7);
    ck_assert_uint_eq(st.nelem, 1);
    /* contiguous on one side only: no folding */
    const ptrdiff_t ls3[] = { 4, 64 }, ps3[] = { 8, 128 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, ls3, p, ps3, 4, cnt, 2), 0);
    ck_assert_uint_eq(st.dims, 1); /* but the two levels merge */
    ck_assert_uint_eq(st.count[0], 112);
    ck_assert_uint_eq(st.elemsz, 4);
}
END_TEST

START_TEST(test_merge_adjacent)
{
    char l[1], p[1];
    /* 8-byte elements every 32 bytes, spelled as 2 x 3 x 4 on both sides */
    const size_t cnt[] = { 2, 3, 4 };
    const ptrdiff_t s[] = { 32, 64, 192 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, s, p, s, 8, cnt, 3), 0);
    ck_assert_uint_eq(st.dims, 1);
    ck_assert_uint_eq(st.count[0], 24);
    ck_assert_int_eq(st.pstride[0], 32);
    ck_assert_int_eq(st.lstride[0], 32);
    ck_assert_uint_eq(st.elemsz, 8);
}
END_TEST

/* The benchmark's spellings: N elements of `elem` bytes every 4*elem bytes,
 * spread over D dimensions with as few null ones as the count allows. */
static void spell(size_t nelem, size_t elem, unsigned D, size_t *cnt, ptrdiff_t *str)
{
    size_t rest = nelem;
    ptrdiff_t stride = (ptrdiff_t)(4 * elem);
    for (unsigned d = 0; d < D; d++) {
        size_t c = 1;
        if (d == D - 1) c = rest;
        else if (rest % 2 == 0 && rest > 1) c = 2;
        cnt[d] = c;
        str[d] = stride;
        stride *= (ptrdiff_t)c;
        rest /= c;
    }
}

START_TEST(test_folds_like_the_benchmark)
{
    static char l[1], p[1];
    size_t cnt[32];
    ptrdiff_t s[32];
    const unsigned dims[] = { 3, 8, 32 };
    for (unsigned k = 0; k < 3; k++) {
        spell(65536, 8, dims[k], cnt, s);
        ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, s, p, s, 8, cnt, dims[k]), 0);
        ck_assert_uint_eq(st.dims, 1);
        ck_assert_uint_eq(st.count[0], 65536);
        ck_assert_int_eq(st.pstride[0], 32);
        ck_assert_uint_eq(st.elemsz, 8);
    }
}
END_TEST

START_TEST(test_degenerate)
{
    char l[1], p[1];
    const size_t cnt[] = { 3, 0, 2 };
    const ptrdiff_t s[] = { 8, 8, 8 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, s, p, s, 0, cnt, 3), 0);
    ck_assert_uint_eq(st.nelem, 0);
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, s, p, s, 8, cnt, 3), 0);
    ck_assert_uint_eq(st.nelem, 0);
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, NULL, p, NULL, 24, NULL, 0), 0);
    ck_assert_uint_eq(st.nelem, 1);
    ck_assert_uint_eq(st.dims, 0);
    ck_assert_uint_eq(st.elemsz, 24);
    const size_t big[] = { SIZE_MAX / 2, 3 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, s, p, s, 1, big, 2), -1);
    const size_t big2[] = { SIZE_MAX / 4 };
    ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, s, p, s, 8, big2, 1), -1);
}
END_TEST

/* ---- Equivalence by enumeration ---- */

struct pair { long l, p; };
static int cmp_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->p != y->p) return x->p < y->p ? -1 : 1;
    return (x->l > y->l) - (x->l < y->l);
}

/* Every (local, peer) byte pair of a section, as offsets from origins. */
static size_t enumerate(struct pair *out, uintptr_t lb, uintptr_t pb, uintptr_t lo, uintptr_t po,
                        size_t elemsz, unsigned dims, const size_t *cnt, const ptrdiff_t *ls,
                        const ptrdiff_t *ps)
{
    size_t idx[16] = { 0 }, n = 0;
    for (;;) {
        long l = (long)(lb - lo), p = (long)(pb - po);
        for (unsigned d = 0; d < dims; d++) {
            l += (long)idx[d] * ls[d];
            p += (long)idx[d] * ps[d];
        }
        for (size_t b = 0; b < elemsz; b++) out[n++] = (struct pair){ l + (long)b, p + (long)b };
        unsigned d = 0;
        for (; d < dims; d++) {
            if (++idx[d] < cnt[d]) break;
            idx[d] = 0;
        }
        if (d == dims) return n;
    }
}

START_TEST(test_random_equivalence)
{
    srand(12345);
    static struct pair a[1 << 16], b[1 << 16];
    static char lbuf[1], pbuf[1];
    for (int iter = 0; iter < 3000; iter++) {
        unsigned levels = 1 + (unsigned)rand() % 6;
        size_t cnt[6], elemsz = 1 + (size_t)rand() % 8, total = elemsz;
        ptrdiff_t ls[6], ps[6];
        /* strides from a random permutation of dense ones (transposes), with
         * random signs (reflections), sometimes padded (not contiguous) */
        size_t dense_l = elemsz, dense_p = elemsz;
        for (unsigned k = 0; k < levels; k++) {
            cnt[k] = 1 + (size_t)rand() % 4;
            total *= cnt[k];
            size_t padl = rand() % 3 ? 0 : elemsz, padp = rand() % 3 ? 0 : elemsz;
            ls[k] = (ptrdiff_t)dense_l * (rand() % 2 ? 1 : -1);
            ps[k] = (ptrdiff_t)dense_p * (rand() % 2 ? 1 : -1);
            dense_l = (dense_l + padl) * cnt[k];
            dense_p = (dense_p + padp) * cnt[k];
        }
        for (unsigned k = levels; k > 1; k--) { /* shuffle the local strides: transpose */
            unsigned j = (unsigned)rand() % k;
            if (cnt[j] == cnt[k - 1] && rand() % 2) {
                ptrdiff_t t = ls[j];
                ls[j] = ls[k - 1];
                ls[k - 1] = t;
            }
        }
        ck_assert_uint_le(total, 1 << 16);
        char *l = lbuf, *p = pbuf;
        ck_assert_int_eq(gexi_vis_stride_optimize(&st, l, ls, p, ps, elemsz, cnt, levels), 0);
        size_t na = enumerate(a, (uintptr_t)l, (uintptr_t)p, (uintptr_t)l, (uintptr_t)p, elemsz,
                              levels, cnt, ls, ps);
        size_t nb = enumerate(b, st.lbase, st.pbase, (uintptr_t)l, (uintptr_t)p, st.elemsz,
                              st.dims, st.count, st.lstride, st.pstride);
        ck_assert_uint_eq(na, total);
        ck_assert_uint_eq(nb, total);
        ck_assert_uint_eq(st.nelem * st.elemsz, total);
        qsort(a, na, sizeof a[0], cmp_pair);
        qsort(b, nb, sizeof b[0], cmp_pair);
        ck_assert_msg(memcmp(a, b, na * sizeof a[0]) == 0, "iteration %d: pairs differ", iter);
        for (unsigned d = 0; d < st.dims; d++) {
            ck_assert_int_ge(st.pstride[d], 0);
            if (d) ck_assert_int_ge(st.pstride[d], st.pstride[d - 1]);
            ck_assert_uint_gt(st.count[d], 1);
        }
    }
}
END_TEST

/* ---- Copy loops ---- */

static unsigned char srcm[1 << 16], dstm[1 << 16], refm[1 << 16], flat[1 << 16];

static void fill(unsigned char *m, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) m[i] = (unsigned char)(i * 131 + seed * 7 + (i >> 8));
}

START_TEST(test_strided_copies)
{
    srand(777);
    for (int iter = 0; iter < 400; iter++) {
        /* a random 3-d box inside 4-d arrays, possibly reflected/transposed */
        size_t elemsz = 1 + (size_t)rand() % 70, cnt[3];
        for (int k = 0; k < 3; k++) cnt[k] = 1 + (size_t)rand() % 5;
        ptrdiff_t ss[3] = { (ptrdiff_t)(elemsz + (size_t)(rand() % 2) * elemsz), 0, 0 };
        ss[1] = ss[0] * (ptrdiff_t)(cnt[0] + (size_t)rand() % 2);
        ss[2] = ss[1] * (ptrdiff_t)(cnt[1] + (size_t)rand() % 2);
        ptrdiff_t ds[3] = { ss[0], ss[1], ss[2] };
        if (rand() % 2) ds[0] = -ds[0];
        if (cnt[0] == cnt[1] && rand() % 2) { ptrdiff_t t = ds[0]; ds[0] = ds[1]; ds[1] = t; }
        const size_t span = (size_t)(ss[2] * (ptrdiff_t)(cnt[2] + 1)) + 4 * elemsz;
        if (span * 2 > sizeof srcm) continue;
        unsigned char *s0 = srcm + span, *d0 = dstm + span;
        fill(srcm, sizeof srcm, (unsigned)iter);
        memset(dstm, 0xEE, sizeof dstm);
        memset(refm, 0xEE, sizeof refm);
        /* naive reference */
        for (size_t z = 0; z < cnt[2]; z++)
            for (size_t y = 0; y < cnt[1]; y++)
                for (size_t x = 0; x < cnt[0]; x++) {
                    ptrdiff_t so = (ptrdiff_t)x * ss[0] + (ptrdiff_t)y * ss[1] + (ptrdiff_t)z * ss[2];
                    ptrdiff_t dof = (ptrdiff_t)x * ds[0] + (ptrdiff_t)y * ds[1] + (ptrdiff_t)z * ds[2];
                    memcpy(refm + span + dof, s0 + so, elemsz);
                }
        /* put view: local = src, peer = dst */
        ck_assert_int_eq(gexi_vis_stride_optimize(&st, s0, ss, d0, ds, elemsz, cnt, 3), 0);
        struct gexi_vis_side L, P;
        gexi_vis_side_strided(&L, &st, 0);
        gexi_vis_side_strided(&P, &st, 1);
        const size_t total = st.nelem * st.elemsz;
        if (iter % 2 == 0) {
            gexi_vis_copy_all(&P, &L, total);
        } else {
            /* through a flat buffer in random pieces, as AM chunks do */
            struct gexi_vis_cur lc, pc;
            gexi_vis_seek(&L, &lc, 0, 0);
            gexi_vis_seek(&P, &pc, 0, 0);
            for (size_t done = 0; done < total;) {
                size_t n = 1 + (size_t)rand() % (3 * st.elemsz + 1);
                if (n > total - done) n = total - done;
                gexi_vis_gather(&L, &lc, flat, n);
                /* the target rebuilds its cursor from (i, off) */
                struct gexi_vis_cur t;
                gexi_vis_seek(&P, &t, pc.i, pc.off);
                gexi_vis_scatter(&P, &t, flat, n);
                gexi_vis_skip(&P, &pc, n);
                done += n;
            }
        }
        ck_assert_msg(memcmp(dstm, refm, sizeof dstm) == 0, "iteration %d differs", iter);
    }
}
END_TEST

START_TEST(test_list_copies)
{
    srand(4242);
    for (int iter = 0; iter < 500; iter++) {
        gex_Memvec_t dv[40], sv[40];
        size_t total = 0, nd = 0, ns = 0, off = 0;
        fill(srcm, sizeof srcm, (unsigned)iter);
        memset(dstm, 0xEE, sizeof dstm);
        memset(refm, 0xEE, sizeof refm);
        /* source pieces: random lengths (some zero) at random gaps */
        while (ns < 40 && total < 2000) {
            size_t len = rand() % 5 ? (size_t)rand() % 97 : 0;
            off += (size_t)rand() % 16;
            sv[ns].gex_addr = srcm + off;
            sv[ns].gex_len = len;
            off += len;
            total += len;
            ns++;
        }
        /* destination pieces: another cut of the same total */
        size_t left = total, doff = 0, k = 0;
        unsigned char *stream = flat;
        for (size_t i = 0; i < ns; i++) {
            memcpy(stream + k, sv[i].gex_addr, sv[i].gex_len);
            k += sv[i].gex_len;
        }
        k = 0;
        while (left && nd < 39) {
            size_t len = rand() % 6 ? 1 + (size_t)rand() % 150 : 0;
            if (len > left) len = left;
            doff += (size_t)rand() % 16;
            dv[nd].gex_addr = dstm + doff;
            dv[nd].gex_len = len;
            memcpy(refm + doff, stream + k, len);
            k += len;
            doff += len;
            left -= len;
            nd++;
        }
        if (left) {
            dv[nd].gex_addr = dstm + doff;
            dv[nd].gex_len = left;
            memcpy(refm + doff, stream + k, left);
            nd++;
        }
        struct gexi_vis_side D = { .kind = GEXI_VIS_VEC, .n = nd, .vec = dv };
        struct gexi_vis_side S = { .kind = GEXI_VIS_VEC, .n = ns, .vec = sv };
        gexi_vis_copy_all(&D, &S, total);
        ck_assert_msg(memcmp(dstm, refm, sizeof dstm) == 0, "vector iteration %d differs", iter);
    }
    /* Indexed, equal and unequal lengths */
    void *dl[64], *sl[64];
    for (int iter = 0; iter < 200; iter++) {
        size_t sl_len = 1 + (size_t)rand() % 64, scnt = 1 + (size_t)rand() % 32;
        size_t dl_len = iter % 2 ? sl_len : (sl_len * scnt) / (1 + (size_t)rand() % scnt);
        if (dl_len == 0 || (sl_len * scnt) % dl_len) dl_len = sl_len;
        size_t dcnt = sl_len * scnt / dl_len;
        if (dcnt > 64) continue;
        fill(srcm, sizeof srcm, (unsigned)iter + 99);
        memset(dstm, 0xEE, sizeof dstm);
        memset(refm, 0xEE, sizeof refm);
        for (size_t i = 0; i < scnt; i++) sl[i] = srcm + (scnt - 1 - i) * 100 + 3;
        for (size_t i = 0; i < dcnt; i++) dl[i] = dstm + i * (dl_len + 5) + 1;
        size_t k = 0;
        for (size_t i = 0; i < scnt; i++, k += sl_len) memcpy(flat + k, sl[i], sl_len);
        for (size_t i = 0; i < dcnt; i++)
            memcpy(refm + ((unsigned char *)dl[i] - dstm), flat + i * dl_len, dl_len);
        struct gexi_vis_side D = { .kind = GEXI_VIS_IDX, .n = dcnt, .len = dl_len, .idx = dl };
        struct gexi_vis_side S = { .kind = GEXI_VIS_IDX, .n = scnt, .len = sl_len, .idx = sl };
        gexi_vis_copy_all(&D, &S, sl_len * scnt);
        ck_assert_msg(memcmp(dstm, refm, sizeof dstm) == 0, "indexed iteration %d differs", iter);
    }
}
END_TEST

/* The fused pass (gexi_vis_stride_optimize) against the general passes
 * on random metadata: the same result, field by field.  The generator
 * favours what the fused pass handles itself (levels in peer-stride order,
 * many null levels, levels contiguous with the element or continuing the
 * previous one, more than 64 levels so the null scan works in chunks) and
 * mixes in what sends it back to the general passes (levels out of order,
 * PTRDIFF_MIN strides), zero counts and overflowing counts. */
START_TEST(test_fused_matches_general)
{
    srand(777);
    static struct gexi_vis_strided g;
    static size_t cnt[150];
    static ptrdiff_t ls[150], ps[150];
    static char lbuf[1], pbuf[1];
    int in_order = 0, checked = 0;
    for (int iter = 0; iter < 20000; iter++) {
        const size_t levels = (size_t)rand() % (iter % 10 == 0 ? 150 : 40);
        const size_t elemsz = 1 + (size_t)rand() % (rand() % 4 ? 16 : 100);
        const int nullish = rand() % 4; /* share of null levels: 0..3 quarters */
        ptrdiff_t p = (ptrdiff_t)elemsz, l = (ptrdiff_t)elemsz;
        for (size_t k = 0; k < levels; k++) {
            const int r = rand() % 100;
            cnt[k] = rand() % 4 < nullish ? 1 : 2 + (size_t)rand() % 3;
            if (r < 1) cnt[k] = 0;
            else if (r < 2) cnt[k] = SIZE_MAX / 3;
            /* mostly: continue the previous level (merges and folds), else
             * a gap; the local side the same, or padded, or transposed */
            ptrdiff_t pk = rand() % 3 ? p : p + (ptrdiff_t)elemsz * (rand() % 3);
            ptrdiff_t lk = rand() % 3 ? l : l + (ptrdiff_t)elemsz * (rand() % 5 - 2);
            if (rand() % 20 == 0) pk = (ptrdiff_t)elemsz * (rand() % 8); /* out of order */
            if (rand() % 200 == 0) pk = PTRDIFF_MIN;
            if (rand() % 200 == 0) lk = PTRDIFF_MIN;
            ps[k] = rand() % 5 ? pk : (ptrdiff_t)(0 - (uintptr_t)pk);
            ls[k] = rand() % 5 ? lk : (ptrdiff_t)(0 - (uintptr_t)lk);
            if (cnt[k] > 1 && cnt[k] < 8 && pk > 0 && pk < PTRDIFF_MAX / 8 &&
                lk > PTRDIFF_MIN / 8 && lk < PTRDIFF_MAX / 8) {
                p = pk * (ptrdiff_t)cnt[k];
                l = lk * (ptrdiff_t)cnt[k];
            }
        }
        /* is the input already in peer-stride order (the fused pass's own case)? */
        ptrdiff_t last = 0;
        int ordered = 1;
        for (size_t k = 0; k < levels; k++) {
            if (cnt[k] == 1) continue;
            ptrdiff_t a = ps[k] < 0 ? (ptrdiff_t)(0 - (uintptr_t)ps[k]) : ps[k];
            if (a < last) ordered = 0;
            last = a;
        }
        const int rf = gexi_vis_stride_optimize(&st, lbuf, ls, pbuf, ps, elemsz, cnt, levels);
        const int rg =
            gexi_vis_stride_optimize_general(&g, lbuf, ls, pbuf, ps, elemsz, cnt, levels);
        ck_assert_msg(rf == rg, "iteration %d: fused returns %d, general %d", iter, rf, rg);
        if (rf != 0) continue;
        checked++;
        in_order += ordered;
        ck_assert_msg(st.nelem == g.nelem && st.elemsz == g.elemsz && st.dims == g.dims &&
                          st.lbase == g.lbase && st.pbase == g.pbase,
                      "iteration %d: fused (nelem %zu elemsz %zu dims %u) != general (%zu %zu "
                      "%u)", iter, st.nelem, st.elemsz, st.dims, g.nelem, g.elemsz, g.dims);
        if (st.nelem == 0) continue;
        for (unsigned d = 0; d < st.dims; d++)
            ck_assert_msg(st.count[d] == g.count[d] && st.lstride[d] == g.lstride[d] &&
                              st.pstride[d] == g.pstride[d],
                          "iteration %d: level %u differs", iter, d);
    }
    /* both kinds of input really occurred */
    ck_assert_int_gt(in_order, 2000);
    ck_assert_int_gt(checked - in_order, 2000);
}
END_TEST

/* Indexed lists large enough for the prefetching loop (vis_copy.c: at
 * least 64 KiB and more elements than it looks ahead), in a random order
 * over a 1 MiB span, element sizes with and without a fixed-size copy:
 * the result equals a naive copy, every byte outside the elements intact. */
START_TEST(test_indexed_prefetched_copy)
{
    srand(4242);
    enum { SPAN = 1 << 20 };
    unsigned char *src = malloc(SPAN), *dst = malloc(SPAN), *ref = malloc(SPAN);
    void **dl = malloc(sizeof(void *) * (SPAN / 8)), **sl = malloc(sizeof(void *) * (SPAN / 8));
    size_t *slot = malloc(sizeof(size_t) * (SPAN / 8));
    ck_assert(src && dst && ref && dl && sl && slot);
    const size_t sizes[] = { 8, 64, 24, 100 };
    for (int iter = 0; iter < 8; iter++) {
        const size_t sz = sizes[iter % 4];
        const size_t nslot = SPAN / sz, n = nslot / 4 + (size_t)rand() % (nslot / 4);
        ck_assert_uint_ge(n * sz, 64 * 1024);
        fill(src, SPAN, (unsigned)iter);
        fill(dst, SPAN, (unsigned)iter + 100);
        memcpy(ref, dst, SPAN);
        for (size_t i = 0; i < nslot; i++) slot[i] = i;
        for (size_t i = nslot; i > 1; i--) { /* random distinct slots on each side */
            size_t j = (size_t)rand() % i, t = slot[j];
            slot[j] = slot[i - 1];
            slot[i - 1] = t;
        }
        for (size_t i = 0; i < n; i++) sl[i] = src + slot[i] * sz;
        for (size_t i = nslot; i > 1; i--) {
            size_t j = (size_t)rand() % i, t = slot[j];
            slot[j] = slot[i - 1];
            slot[i - 1] = t;
        }
        for (size_t i = 0; i < n; i++) {
            dl[i] = dst + slot[i] * sz;
            memcpy(ref + slot[i] * sz, sl[i], sz);
        }
        struct gexi_vis_side D = { .kind = GEXI_VIS_IDX, .n = n, .len = sz, .idx = dl };
        struct gexi_vis_side S = { .kind = GEXI_VIS_IDX, .n = n, .len = sz, .idx = sl };
        gexi_vis_copy_all(&D, &S, n * sz);
        ck_assert_msg(memcmp(dst, ref, SPAN) == 0, "iteration %d (elements of %zu) differs",
                      iter, sz);
    }
    free(src);
    free(dst);
    free(ref);
    free(dl);
    free(sl);
    free(slot);
}
END_TEST


/* Strided sections large enough for the prefetching row loop (at least
 * 64 KiB, rows longer than it looks ahead, strides of a cache line or
 * more), with reflections on either end and 1 or 2 levels: the result
 * equals a naive element-by-element copy. */
START_TEST(test_strided_prefetched_copy)
{
    srand(99);
    enum { SPAN = 1 << 20 };
    unsigned char *src = malloc(SPAN), *dst = malloc(SPAN), *ref = malloc(SPAN);
    ck_assert(src && dst && ref);
    const size_t sizes[] = { 8, 64, 24, 100 };
    for (int iter = 0; iter < 16; iter++) {
        const size_t sz = sizes[iter % 4];
        const size_t gap = sz * 4 < 64 ? 64 : sz * 4; /* element stride: >= a cache line */
        const size_t rows = 1 + (size_t)(iter / 4 % 2) * 3, per = SPAN / gap / rows;
        size_t cnt[2] = { per, rows };
        ptrdiff_t ls[2] = { (ptrdiff_t)gap, (ptrdiff_t)(gap * per) };
        ptrdiff_t ps[2] = { (ptrdiff_t)gap, (ptrdiff_t)(gap * per) };
        unsigned char *l0 = src, *p0 = dst;
        if (iter % 2) { /* reflect the local rows: walk them backwards */
            ls[0] = -ls[0];
            l0 += gap * (per - 1);
        }
        if (iter % 3 == 0) { /* reflect the peer's row order */
            ps[1] = -ps[1];
            p0 += gap * per * (rows - 1);
        }
        ck_assert_uint_ge(per * rows * sz, 64 * 1024);
        fill(src, SPAN, (unsigned)iter);
        fill(dst, SPAN, (unsigned)iter + 50);
        memcpy(ref, dst, SPAN);
        for (size_t r = 0; r < rows; r++)
            for (size_t i = 0; i < per; i++)
                memcpy(ref + (p0 - dst) + (ptrdiff_t)r * ps[1] + (ptrdiff_t)i * ps[0],
                       l0 + (ptrdiff_t)r * ls[1] + (ptrdiff_t)i * ls[0], sz);
        ck_assert_int_eq(gexi_vis_stride_optimize(&st, l0, ls, p0, ps, sz, cnt, 2), 0);
        struct gexi_vis_side L, P;
        gexi_vis_side_strided(&L, &st, 0);
        gexi_vis_side_strided(&P, &st, 1);
        gexi_vis_copy_all(&P, &L, st.nelem * st.elemsz);
        ck_assert_msg(memcmp(dst, ref, SPAN) == 0, "iteration %d (elements of %zu) differs",
                      iter, sz);
    }
    free(src);
    free(dst);
    free(ref);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vis_stride");
    TCase *tc = tcase_create("optimizer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_null_dims);
    tcase_add_test(tc, test_inversion);
    tcase_add_test(tc, test_sort_and_transpose);
    tcase_add_test(tc, test_fold_into_elem);
    tcase_add_test(tc, test_merge_adjacent);
    tcase_add_test(tc, test_folds_like_the_benchmark);
    tcase_add_test(tc, test_degenerate);
    tcase_add_test(tc, test_random_equivalence);
    tcase_add_test(tc, test_fused_matches_general);
    suite_add_tcase(s, tc);
    TCase *tc2 = tcase_create("copy");
    tcase_set_timeout(tc2, 60);
    tcase_add_test(tc2, test_strided_copies);
    tcase_add_test(tc2, test_list_copies);
    tcase_add_test(tc2, test_indexed_prefetched_copy);
    tcase_add_test(tc2, test_strided_prefetched_copy);
    suite_add_tcase(s, tc2);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
