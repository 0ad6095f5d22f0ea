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
 * Passes 1-2 and the two halves of 4 are single sweeps, and the sort is
 * linear on sorted input, so a 32-level spelling costs little more than a
 * 3-level one (the benchmark's fold target).
 *
 * Every pass keeps the set of (local byte, peer byte) pairs the operation
 * copies, which tests/unit/test_vis_stride.c checks by enumeration.  A
 * transpose (local strides in another order than the peer's) or a
 * reflection (a negative local stride) survives as what it is: the local
 * strides may stay in any order and of any sign.
 */
#include "vis_internal.h"

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

    /* Passes 1 and 2 in one sweep: keep levels of count > 1, each with a
     * non-negative peer stride (address arithmetic in uintptr_t, which
     * wraps: the sums are those of the original metadata).  Each kept
     * level at least doubles the element count, so at most 63 are kept
     * before it would overflow. */
    size_t nelem = 1;
    unsigned dims = 0;
    for (size_t k = 0; k < levels; k++) {
        /* Null levels four at a time: a many-level spelling is mostly them. */
        while (k + 4 <= levels && ((count[k] ^ 1) | (count[k + 1] ^ 1) | (count[k + 2] ^ 1) |
                                   (count[k + 3] ^ 1)) == 0)
            k += 4;
        if (k >= levels) break;
        const size_t c = count[k];
        if (c == 1) continue;
        if (c == 0) return 0; /* spec: a zero count makes the call a no-op */
        if (nelem > SIZE_MAX / c) return -1;
        nelem *= c;
        ptrdiff_t l = lstrides[k], p = pstrides[k];
        if (p < 0) {
            const uintptr_t span = (uintptr_t)(c - 1);
            pbase += span * (uintptr_t)p;
            lbase += span * (uintptr_t)l;
            p = -p;
            l = -l;
        }
        cnt[dims] = c;
        ls[dims] = l;
        ps[dims] = p;
        dims++;
    }
    if (nelem > SIZE_MAX / elemsz) return -1;

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
