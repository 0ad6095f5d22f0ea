/*
 * vis_stride.c: the stride optimizer, run on every Strided call before a
 * mechanism is chosen (seed paper, section VI).  The spec's metadata
 * (elemsz; count[0..levels-1]; a byte stride per level on each side, any
 * sign) admits many spellings of one data motion; the passes below rewrite
 * it, for both ends jointly, into the spelling that is cheapest to execute:
 *
 *  1. null-dimension removal: a level of count 1 moves nothing along it;
 *  2. stride inversion: a level whose peer stride is negative is walked
 *     backwards on both ends (each base moves to the level's last element,
 *     both strides change sign), so every peer stride is >= 0: the peer
 *     sees ascending addresses (AM handlers and RDMA favour that);
 *  3. dimension sort: levels in order of increasing peer stride (stable),
 *     so the innermost loop has the smallest peer stride: peer locality;
 *  4. dimensional folding: a level whose stride equals elemsz on both ends
 *     is contiguous with the element: it folds into elemsz; two adjacent
 *     levels where the outer stride is count * inner stride on both ends
 *     are one level: they merge.
 *
 * Two implementations of the same rewrite:
 *  - the fused pass (gexi_vis_stride_optimize), for the common spelling
 *    whose levels already come in peer-stride order: one sweep over the
 *    levels does all four passes (the sort would be the identity), reads
 *    a stride only for the levels that are not null, and finds those with
 *    a vector compare of the counts (AVX2 where the CPU has it), so a
 *    32-level spelling costs barely more than a 3-level one (the
 *    benchmark's fold target);
 *  - the general passes (gexi_vis_stride_optimize_general), one after the
 *    other, which the fused pass falls back to, from scratch, as soon as it
 *    meets a level out of order.
 * tests/unit/test_vis_stride.c checks that both give the same result on
 * random metadata, and that every pass keeps the set of (local byte, peer
 * byte) pairs the operation copies.  A transpose (local strides in another
 * order than the peer's) or a reflection (a negative local stride) survives
 * as what it is: the local strides may stay in any order and of any sign.
 */
#include "vis_internal.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/* -p without signed overflow (PTRDIFF_MIN stays negative: the sort, or the
 * fused pass's fallback, then deals with it). */
static inline ptrdiff_t negate(ptrdiff_t p) { return (ptrdiff_t)(0 - (uintptr_t)p); }

int gexi_vis_stride_optimize_general(struct gexi_vis_strided *out, void *laddr,
                                     const ptrdiff_t lstrides[], void *paddr,
                                     const ptrdiff_t pstrides[], size_t elemsz,
                                     const size_t count[], size_t levels)
{
    uintptr_t lbase = (uintptr_t)laddr, pbase = (uintptr_t)paddr;
    size_t *const cnt = out->count;
    ptrdiff_t *const ls = out->lstride, *const ps = out->pstride;
    out->dims = 0;
    out->nelem = 0;
    out->elemsz = elemsz;
    out->lbase = lbase;
    out->pbase = pbase;
    if (elemsz == 0) return 0;

    /* Passes 1 and 2 in one sweep: keep levels of count > 1, each with a
     * non-negative peer stride (address arithmetic in uintptr_t, which
     * wraps: the sums are those of the original metadata).  Each kept
     * level at least doubles the element count, so at most 63 are kept
     * before it would overflow. */
    size_t nelem = 1;
    unsigned dims = 0;
    for (size_t k = 0; k < levels; k++) {
        const size_t c = count[k];
        if (c == 1) continue;
        if (c == 0) return 0; /* spec: a zero count makes the call a no-op */
        if (__builtin_mul_overflow(nelem, c, &nelem)) return -1;
        ptrdiff_t l = lstrides[k], p = pstrides[k];
        if (p < 0) {
            const uintptr_t span = (uintptr_t)(c - 1);
            pbase += span * (uintptr_t)p;
            lbase += span * (uintptr_t)l;
            p = negate(p);
            l = negate(l);
        }
        cnt[dims] = c;
        ls[dims] = l;
        ps[dims] = p;
        dims++;
    }
    size_t bytes;
    if (__builtin_mul_overflow(nelem, elemsz, &bytes)) return -1;

    /* Pass 3: stable insertion sort by peer stride (linear when sorted). */
    for (unsigned d = 1; d < dims; d++) {
        if (ps[d - 1] <= ps[d]) continue;
        const size_t c = cnt[d];
        const ptrdiff_t l = ls[d], p = ps[d];
        unsigned j = d;
        for (; j > 0 && ps[j - 1] > p; j--) {
            cnt[j] = cnt[j - 1];
            ls[j] = ls[j - 1];
            ps[j] = ps[j - 1];
        }
        cnt[j] = c;
        ls[j] = l;
        ps[j] = p;
    }

    /* Pass 4: innermost levels contiguous with the element on both ends
     * fold into it; then, in one compacting sweep, each level that
     * continues the previous kept one on both ends (stride = count *
     * previous stride) merges into it.  Merging never changes the first
     * kept level's strides, so nothing more can fold afterwards. */
    unsigned k = 0;
    while (k < dims && ps[k] == (ptrdiff_t)elemsz && ls[k] == (ptrdiff_t)elemsz)
        elemsz *= cnt[k++];
    unsigned n = 0;
    for (; k < dims; k++) {
        if (n > 0) {
            const ptrdiff_t c = (ptrdiff_t)cnt[n - 1];
            ptrdiff_t pspan, lspan; /* an overflowing span cannot be contiguous */
            if (!__builtin_mul_overflow(c, ps[n - 1], &pspan) &&
                !__builtin_mul_overflow(c, ls[n - 1], &lspan) && ps[k] == pspan &&
                ls[k] == lspan) {
                cnt[n - 1] *= cnt[k];
                continue;
            }
        }
        cnt[n] = cnt[k];
        ls[n] = ls[k];
        ps[n] = ps[k];
        n++;
    }
    out->dims = n;
    out->elemsz = elemsz;
    out->lbase = lbase;
    out->pbase = pbase;
    /* Elements of the folded size (folding grouped the original ones). */
    size_t folded = 1;
    for (unsigned d = 0; d < n; d++) folded *= cnt[d];
    out->nelem = folded;
    return 0;
}

/* ---- Which levels are not null ----
 * Bit j of the mask: count[j] != 1, for j < n <= 64.  A many-level
 * spelling is mostly null levels, so this is where its extra cost lies. */
static inline uint64_t nonnull_scalar(const size_t *count, size_t n)
{
    uint64_t m = 0;
    for (size_t j = 0; j < n; j++) m |= (uint64_t)(count[j] != 1) << j;
    return m;
}

/* The same for n <= 4 (3-level spellings), without a loop. */
static inline uint64_t nonnull_small(const size_t *count, size_t n)
{
    uint64_t m = 0;
    switch (n) {
    case 4: m |= (uint64_t)(count[3] != 1) << 3; /* fall through */
    case 3: m |= (uint64_t)(count[2] != 1) << 2; /* fall through */
    case 2: m |= (uint64_t)(count[1] != 1) << 1; /* fall through */
    case 1: m |= (uint64_t)(count[0] != 1);      /* fall through */
    default: break;
    }
    return m;
}

static uint64_t nonnull_generic(const size_t *count, size_t n)
{
    uint64_t m = 0;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) /* four null levels at a time */
        if (((count[j] ^ 1) | (count[j + 1] ^ 1) | (count[j + 2] ^ 1) | (count[j + 3] ^ 1)) != 0)
            m |= nonnull_scalar(count + j, 4) << j;
    return j < n ? m | nonnull_scalar(count + j, n - j) << j : m; /* no shift by 64 */
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Four counts per compare, eight per step. */
__attribute__((target("avx2"))) static inline unsigned null4_avx2(const size_t *c)
{
    const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)c);
    const __m256i eq = _mm256_cmpeq_epi64(v, _mm256_set1_epi64x(1));
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(eq));
}

__attribute__((target("avx2"))) static uint64_t nonnull_avx2(const size_t *count, size_t n)
{
    uint64_t m = 0;
    size_t j = 0;
    for (; j + 8 <= n; j += 8)
        m |= (uint64_t)(~(null4_avx2(count + j) | null4_avx2(count + j + 4) << 4) & 0xff) << j;
    if (j + 4 <= n) {
        m |= (uint64_t)(~null4_avx2(count + j) & 0xf) << j;
        j += 4;
    }
    return j < n ? m | nonnull_scalar(count + j, n - j) << j : m; /* no shift by 64 */
}

static int have_avx2;
__attribute__((constructor)) static void pick_nonnull(void)
{
    __builtin_cpu_init();
    have_avx2 = __builtin_cpu_supports("avx2");
}
#define NONNULL(c, n) (have_avx2 ? nonnull_avx2(c, n) : nonnull_generic(c, n))
#else
#define NONNULL(c, n) nonnull_generic(c, n)
#endif

/* The fused pass: passes 1, 2 and 4 in one sweep over the levels that are
 * not null, valid while they come in non-decreasing peer-stride order
 * (pass 3 would then change nothing); otherwise the general passes redo
 * the whole rewrite.  Folding into the element and merging are decided as
 * each level arrives, exactly as pass 4 would decide them on the sorted
 * list: a level folds while every earlier one has folded, and merges into
 * the last kept level when its strides continue that level on both ends.
 * The rare cases (a zero count, any overflow) also go to the general
 * passes, which then decide between no-op and error exactly as always. */
int gexi_vis_stride_optimize(struct gexi_vis_strided *out, void *laddr,
                             const ptrdiff_t lstrides[], void *paddr,
                             const ptrdiff_t pstrides[], size_t elemsz, const size_t count[],
                             size_t levels)
{
    uintptr_t lbase = (uintptr_t)laddr, pbase = (uintptr_t)paddr;
    size_t *const cnt = out->count;
    ptrdiff_t *const ls = out->lstride, *const ps = out->pstride;
    out->dims = 0;
    out->nelem = 0;
    out->elemsz = elemsz;
    out->lbase = lbase;
    out->pbase = pbase;
    if (elemsz == 0) return 0;

    size_t esz = elemsz;      /* element size after folding */
    unsigned n = 0;           /* kept levels; level n-1 is open: its count is in curc */
    size_t curc = 0;
    ptrdiff_t lastp = 0;      /* peer stride of the last level that was not null */
    /* The strides that would continue the open level on both ends (its
     * strides times its count); they equal the last merged level's strides
     * times that level's count, so no multiply waits for curc. */
    ptrdiff_t nextp = 0, nextl = 0;
    int mergeable = 0;        /* ... and whether they did not overflow (0 while n == 0) */
    for (size_t k0 = 0; k0 < levels; k0 += 64) {
        const size_t span = levels - k0 < 64 ? levels - k0 : 64;
        uint64_t m = span <= 4 ? nonnull_small(count + k0, span) : NONNULL(count + k0, span);
        for (; m; m &= m - 1) {
            const size_t k = k0 + (size_t)__builtin_ctzll(m);
            const size_t c = count[k];
            ptrdiff_t l = lstrides[k], p = pstrides[k];
            /* A zero count makes the call a no-op (spec), unless an earlier
             * overflow makes it an error: the general passes decide. */
            if (GEXI_UNLIKELY(c == 0)) goto general;
            /* The common case first: the level continues the open one on
             * both ends (then p = nextp >= lastp >= 0: in order, no
             * inversion).  Any overflow: the general passes decide. */
            if (!(mergeable && p == nextp && l == nextl)) {
                if (p < 0) {
                    const uintptr_t s = (uintptr_t)(c - 1);
                    pbase += s * (uintptr_t)p;
                    lbase += s * (uintptr_t)l;
                    p = negate(p);
                    l = negate(l);
                }
                if (GEXI_UNLIKELY(p < lastp)) goto general; /* out of order (or PTRDIFF_MIN) */
                lastp = p;
                if (n == 0 && p == (ptrdiff_t)esz && l == (ptrdiff_t)esz) {
                    /* contiguous with the element on both ends */
                    if (__builtin_mul_overflow(esz, c, &esz)) goto general;
                    continue;
                }
                if (!(mergeable && p == nextp && l == nextl)) { /* a new level */
                    if (n) cnt[n - 1] = curc;
                    curc = 1;
                    ls[n] = l;
                    ps[n] = p;
                    n++;
                }
            }
            lastp = p;
            if (__builtin_mul_overflow(curc, c, &curc)) goto general;
            const ptrdiff_t cc = (ptrdiff_t)c;
            mergeable = !__builtin_mul_overflow(cc, p, &nextp) &&
                        !__builtin_mul_overflow(cc, l, &nextl);
        }
    }
    size_t folded = 1, bytes; /* elements of size esz */
    if (n) {
        cnt[n - 1] = curc;
        for (unsigned d = 0; d < n; d++)
            if (__builtin_mul_overflow(folded, cnt[d], &folded)) goto general;
    }
    if (__builtin_mul_overflow(folded, esz, &bytes)) goto general;
    out->dims = n;
    out->elemsz = esz;
    out->lbase = lbase;
    out->pbase = pbase;
    out->nelem = folded;
    return 0;

general:
    return gexi_vis_stride_optimize_general(out, laddr, lstrides, paddr, pstrides, elemsz,
                                            count, levels);
}
