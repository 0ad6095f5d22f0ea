/*
 * vis_copy.c: walking the pieces of a VIS side and moving bytes between
 * sides and flat buffers.  These loops serve all three mechanisms: the
 * direct copy (both sides addressable here: self, or a PSHM-mapped peer
 * segment reached through side.delta), the AM path's packing into and
 * unpacking out of AM payload buffers, and the RMA path's piece walk.
 *
 * The generic walk (gexi_vis_run/skip) handles every shape, including two
 * ends whose pieces do not line up (Vector and Indexed lists of different
 * shapes): each step copies the smaller of the two current runs.  Two cases
 * dominate real use and get loops of their own, with the element copy
 * specialised for the common sizes: a Strided section (both ends share the
 * normalized shape, so one nested loop walks both) and Indexed lists of
 * equal lengths.
 */
#include "vis_internal.h"

/* ---- Element copies of a fixed size, chosen once per loop ---- */
#define GEXI_VIS_FOR_SIZES(X) X(1) X(2) X(4) X(8) X(16) X(32) X(64)

/* ---- Prefetching ----
 * Operations over spans larger than the caches wait for a cache miss (and,
 * every few elements, a TLB walk) per element on both ends.  For Indexed
 * lists no hardware prefetcher can follow the addresses (they come from a
 * list); for Strided rows the stride prefetcher helps, but not as far
 * ahead as memory latency needs.  Requesting the lines GEXI_VIS_PF_AHEAD
 * elements ahead keeps that many misses in flight: ~2x for the
 * benchmark's 2 MiB Indexed put of 64-byte elements at 25% density (8 MiB
 * spans), ~1.15x for the same Strided (plain loops on the 2-core test VM).
 * Operations of less than GEXI_VIS_PF_MIN bytes are likely cached and skip
 * it, as do Strided rows whose strides are below a cache line (hardware
 * handles those). */
#define GEXI_VIS_PF_AHEAD 32
#define GEXI_VIS_PF_MIN (64 * 1024)
#define GEXI_VIS_PF(p, w) __builtin_prefetch((const void *)(p), w, 3)

/* Copies m elements of sz bytes, stepping ds/ss bytes on each side. */
static void strided_run(uintptr_t d, ptrdiff_t ds, uintptr_t s, ptrdiff_t ss, size_t m,
                        size_t sz)
{
    switch (sz) {
#define CASE(N) \
    case N: \
        for (size_t j = 0; j < m; j++, d += (uintptr_t)ds, s += (uintptr_t)ss) \
            __builtin_memcpy((void *)d, (const void *)s, N); \
        return;
        GEXI_VIS_FOR_SIZES(CASE)
#undef CASE
    default:
        for (size_t j = 0; j < m; j++, d += (uintptr_t)ds, s += (uintptr_t)ss)
            memcpy((void *)d, (const void *)s, sz);
    }
}

/* strided_run for long rows out of cache: prefetches GEXI_VIS_PF_AHEAD
 * elements ahead on both ends, the last ones by strided_run. */
static void strided_run_pf(uintptr_t d, ptrdiff_t ds, uintptr_t s, ptrdiff_t ss, size_t m,
                           size_t sz)
{
    const uintptr_t dpf = (uintptr_t)ds * GEXI_VIS_PF_AHEAD;
    const uintptr_t spf = (uintptr_t)ss * GEXI_VIS_PF_AHEAD;
    const size_t end = m > GEXI_VIS_PF_AHEAD ? m - GEXI_VIS_PF_AHEAD : 0;
    size_t j = 0;
    switch (sz) {
#define CASE(N) \
    case N: \
        for (; j < end; j++, d += (uintptr_t)ds, s += (uintptr_t)ss) { \
            GEXI_VIS_PF(s + spf, 0); \
            GEXI_VIS_PF(d + dpf, 1); \
            __builtin_memcpy((void *)d, (const void *)s, N); \
        } \
        break;
        GEXI_VIS_FOR_SIZES(CASE)
#undef CASE
    default:
        for (; j < end; j++, d += (uintptr_t)ds, s += (uintptr_t)ss) {
            GEXI_VIS_PF(s + spf, 0);
            GEXI_VIS_PF(d + dpf, 1);
            memcpy((void *)d, (const void *)s, sz);
        }
    }
    strided_run(d, ds, s, ss, m - j, sz);
}

/* ---- Cursors ---- */

void gexi_vis_side_strided(struct gexi_vis_side *side, const struct gexi_vis_strided *st,
                           int is_peer)
{
    /* every field assigned: no memset (rep stos) on this per-call path */
    side->kind = GEXI_VIS_STR;
    side->n = st->nelem;
    side->len = st->elemsz;
    side->vec = NULL;
    side->idx = NULL;
    side->base = is_peer ? st->pbase : st->lbase;
    side->dims = st->dims;
    side->count = st->count;
    side->stride = is_peer ? st->pstride : st->lstride;
    side->delta = 0;
}

void gexi_vis_seek(const struct gexi_vis_side *s, struct gexi_vis_cur *c, size_t i, size_t off)
{
    c->i = i;
    c->off = off;
    if (s->kind != GEXI_VIS_STR) return;
    uintptr_t a = s->base;
    size_t rest = i;
    for (unsigned d = 0; d < s->dims; d++) {
        c->idx[d] = rest % s->count[d];
        rest /= s->count[d];
        a += (uintptr_t)c->idx[d] * (uintptr_t)s->stride[d];
    }
    c->eaddr = a;
}

/* STR: move to element i + 1 (odometer over the coordinates). */
static inline void str_next(const struct gexi_vis_side *s, struct gexi_vis_cur *c)
{
    c->i++;
    for (unsigned d = 0; d < s->dims; d++) {
        c->eaddr += (uintptr_t)s->stride[d];
        if (++c->idx[d] < s->count[d]) return;
        c->eaddr -= (uintptr_t)s->count[d] * (uintptr_t)s->stride[d];
        c->idx[d] = 0;
    }
}

size_t gexi_vis_run(const struct gexi_vis_side *s, struct gexi_vis_cur *c, char **p)
{
    switch (s->kind) {
    case GEXI_VIS_VEC:
        while (c->i < s->n && c->off == s->vec[c->i].gex_len) { /* zero-length entries */
            c->i++;
            c->off = 0;
        }
        if (c->i >= s->n) return 0;
        *p = (char *)((uintptr_t)s->vec[c->i].gex_addr + s->delta + c->off);
        return s->vec[c->i].gex_len - c->off;
    case GEXI_VIS_IDX:
        if (c->i >= s->n || s->len == 0) return 0;
        *p = (char *)((uintptr_t)s->idx[c->i] + s->delta + c->off);
        return s->len - c->off;
    default:
        if (c->i >= s->n) return 0;
        *p = (char *)(c->eaddr + s->delta + c->off);
        return s->len - c->off;
    }
}

/* Consumes n bytes of the current run (n <= what gexi_vis_run returned). */
static inline void consume(const struct gexi_vis_side *s, struct gexi_vis_cur *c, size_t n)
{
    c->off += n;
    size_t len = s->kind == GEXI_VIS_VEC ? s->vec[c->i].gex_len : s->len;
    if (c->off < len) return;
    c->off = 0;
    if (s->kind == GEXI_VIS_STR) str_next(s, c);
    else c->i++;
}

void gexi_vis_skip(const struct gexi_vis_side *s, struct gexi_vis_cur *c, size_t n)
{
    if (s->kind != GEXI_VIS_VEC && s->len) {
        /* Arithmetic: position = i * len + off. */
        size_t pos = c->i * s->len + c->off + n;
        if (s->kind == GEXI_VIS_STR) gexi_vis_seek(s, c, pos / s->len, pos % s->len);
        else c->i = pos / s->len, c->off = pos % s->len;
        return;
    }
    char *p;
    while (n) {
        size_t r = gexi_vis_run(s, c, &p);
        if (!r) break;
        size_t m = r < n ? r : n;
        consume(s, c, m);
        n -= m;
    }
}

/* ---- Stream copies ---- */

/* STR side <-> flat buffer, whole elements from the cursor: the odometer
 * runs once per row of dimension 0, not once per element. */
static void str_flat(const struct gexi_vis_side *s, struct gexi_vis_cur *c, char *buf,
                     size_t nelem, int to_side)
{
    const size_t sz = s->len;
    const ptrdiff_t st0 = s->dims ? s->stride[0] : 0;
    const size_t c0 = s->dims ? s->count[0] : 1;
    while (nelem) {
        size_t row = c0 - (s->dims ? c->idx[0] : 0);
        size_t m = row < nelem ? row : nelem;
        uintptr_t a = c->eaddr + s->delta;
        if (to_side) strided_run(a, st0, (uintptr_t)buf, (ptrdiff_t)sz, m, sz);
        else strided_run((uintptr_t)buf, (ptrdiff_t)sz, a, st0, m, sz);
        buf += m * sz;
        nelem -= m;
        /* Advance m elements: the last one through the odometer. */
        if (s->dims) {
            c->idx[0] += m - 1;
            c->eaddr += (uintptr_t)(m - 1) * (uintptr_t)st0;
            c->i += m - 1;
        }
        str_next(s, c);
    }
}

static void stream(const struct gexi_vis_side *s, struct gexi_vis_cur *c, char *buf, size_t n,
                   int to_side)
{
    if (s->kind == GEXI_VIS_STR && c->off == 0 && s->len && n >= s->len) {
        size_t k = n / s->len;
        str_flat(s, c, buf, k, to_side);
        buf += k * s->len;
        n -= k * s->len;
    }
    char *p;
    while (n) {
        size_t r = gexi_vis_run(s, c, &p);
        if (GEXI_UNLIKELY(!r)) gexi_fatal("VIS: data stream longer than its pieces");
        size_t m = r < n ? r : n;
        if (to_side) memcpy(p, buf, m);
        else memcpy(buf, p, m);
        consume(s, c, m);
        buf += m;
        n -= m;
    }
}

void gexi_vis_gather(const struct gexi_vis_side *s, struct gexi_vis_cur *c, void *buf, size_t n)
{
    stream(s, c, buf, n, 0);
}

void gexi_vis_scatter(const struct gexi_vis_side *s, struct gexi_vis_cur *c, const void *buf,
                      size_t n)
{
    stream(s, c, (char *)buf, n, 1);
}

void gexi_vis_copy(const struct gexi_vis_side *d, struct gexi_vis_cur *dc,
                   const struct gexi_vis_side *s, struct gexi_vis_cur *sc, size_t n)
{
    char *dp, *sp;
    while (n) {
        size_t rd = gexi_vis_run(d, dc, &dp), rs = gexi_vis_run(s, sc, &sp);
        if (GEXI_UNLIKELY(!rd || !rs)) gexi_fatal("VIS: data stream longer than its pieces");
        size_t m = rd < rs ? rd : rs;
        if (m > n) m = n;
        memmove(dp, sp, m); /* sources may overlap each other (spec); memmove is harmless */
        consume(d, dc, m);
        consume(s, sc, m);
        n -= m;
    }
}

/* Both ends of one normalized section: nested loops, dimension 0 innermost. */
static void str_copy_all(const struct gexi_vis_side *d, const struct gexi_vis_side *s)
{
    const unsigned dims = s->dims;
    const size_t sz = s->len;
    uintptr_t da = d->base + d->delta, sa = s->base + s->delta;
    if (dims == 0) {
        memcpy((void *)da, (const void *)sa, sz);
        return;
    }
    const ptrdiff_t ds0 = d->stride[0], ss0 = s->stride[0];
    const size_t c0 = s->count[0];
    const int far = s->n * sz >= GEXI_VIS_PF_MIN && c0 > GEXI_VIS_PF_AHEAD &&
                    (ds0 >= 64 || ds0 <= -64) && (ss0 >= 64 || ss0 <= -64);
    void (*const run)(uintptr_t, ptrdiff_t, uintptr_t, ptrdiff_t, size_t, size_t) =
        far ? strided_run_pf : strided_run;
    if (dims == 1) { /* what most spellings fold to: no odometer */
        run(da, ds0, sa, ss0, c0, sz);
        return;
    }
    size_t idx[GEXI_VIS_MAXDIM];
    for (unsigned k = 1; k < dims; k++) idx[k] = 0;
    for (;;) {
        run(da, ds0, sa, ss0, c0, sz);
        unsigned k = 1;
        for (; k < dims; k++) {
            da += (uintptr_t)d->stride[k];
            sa += (uintptr_t)s->stride[k];
            if (++idx[k] < s->count[k]) break;
            da -= (uintptr_t)s->count[k] * (uintptr_t)d->stride[k];
            sa -= (uintptr_t)s->count[k] * (uintptr_t)s->stride[k];
            idx[k] = 0;
        }
        if (k == dims) return;
    }
}

static void idx_copy_all(const struct gexi_vis_side *d, const struct gexi_vis_side *s)
{
    const size_t n = s->n, sz = s->len;
    void *const *dl = d->idx, *const *sl = s->idx;
    const uintptr_t dd = d->delta, sd = s->delta;
    size_t j = 0;
    /* prefetched part: elements [0, pf_end) prefetch element j + AHEAD */
    const size_t pf_end = n * sz >= GEXI_VIS_PF_MIN && n > GEXI_VIS_PF_AHEAD
                              ? n - GEXI_VIS_PF_AHEAD : 0;
#define COPY(N, J) \
    __builtin_memcpy((void *)((uintptr_t)dl[J] + dd), (const void *)((uintptr_t)sl[J] + sd), N)
#define PREFETCH(J) \
    (GEXI_VIS_PF((uintptr_t)sl[(J) + GEXI_VIS_PF_AHEAD] + sd, 0), \
     GEXI_VIS_PF((uintptr_t)dl[(J) + GEXI_VIS_PF_AHEAD] + dd, 1))
    switch (sz) {
#define CASE(N) \
    case N: \
        for (; j < pf_end; j++) { \
            PREFETCH(j); \
            COPY(N, j); \
        } \
        for (; j < n; j++) COPY(N, j); \
        return;
        GEXI_VIS_FOR_SIZES(CASE)
#undef CASE
    default:
        for (; j < pf_end; j++) {
            PREFETCH(j);
            memcpy((void *)((uintptr_t)dl[j] + dd), (const void *)((uintptr_t)sl[j] + sd), sz);
        }
        for (; j < n; j++)
            memcpy((void *)((uintptr_t)dl[j] + dd), (const void *)((uintptr_t)sl[j] + sd), sz);
    }
#undef PREFETCH
#undef COPY
}

/* Both lists of a Vector op, entry by entry while the two lengths agree
 * (the usual case: the same shape at both ends), without the cursor
 * machinery, which costs 10x a small entry's copy (GASNet's testvisperf:
 * 8-byte entries ran at a tenth of the Indexed rate).  Returns the entries
 * done and adds their bytes to *done; the caller finishes the rest. */
static size_t vec_copy_matching(const struct gexi_vis_side *d, const struct gexi_vis_side *s,
                                size_t *done)
{
    const size_t n = d->n < s->n ? d->n : s->n;
    const gex_Memvec_t *dv = d->vec, *sv = s->vec;
    const uintptr_t dd = d->delta, sd = s->delta;
    size_t i = 0, bytes = 0;
    for (; i < n && dv[i].gex_len == sv[i].gex_len; i++) {
        const size_t len = dv[i].gex_len;
        void *const dp = (void *)((uintptr_t)dv[i].gex_addr + dd);
        const void *const sp = (const void *)((uintptr_t)sv[i].gex_addr + sd);
        /* small entries inline, like idx_copy_all's; a library call costs
         * more than the copy itself */
        switch (len) {
#define CASE(N) \
    case N: \
        __builtin_memcpy(dp, sp, N); \
        break;
            GEXI_VIS_FOR_SIZES(CASE)
#undef CASE
        case 0:
            break;
        default:
            memmove(dp, sp, len);   /* as gexi_vis_copy */
        }
        bytes += len;
    }
    *done = bytes;
    return i;
}

void gexi_vis_copy_all(const struct gexi_vis_side *d, const struct gexi_vis_side *s,
                       size_t total)
{
    if (d->kind == GEXI_VIS_STR && s->kind == GEXI_VIS_STR) {
        if (s->n) str_copy_all(d, s);
        return;
    }
    if (d->kind == GEXI_VIS_IDX && s->kind == GEXI_VIS_IDX && d->len == s->len) {
        idx_copy_all(d, s);
        return;
    }
    size_t first = 0, done = 0;
    if (d->kind == GEXI_VIS_VEC && s->kind == GEXI_VIS_VEC) {
        first = vec_copy_matching(d, s, &done);
        if (done == total) return;
    }
    struct gexi_vis_cur dc, sc;
    gexi_vis_seek(d, &dc, first, 0);
    gexi_vis_seek(s, &sc, first, 0);
    gexi_vis_copy(d, &dc, s, &sc, total - done);
}
