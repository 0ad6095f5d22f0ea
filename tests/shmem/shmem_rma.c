/* shmem_rma.c: remote memory access.
 * Checks, on symmetric heap blocks AND on global/static symmetric data:
 * typed put/get/p/g/iput/iget/put_nbi/get_nbi for every standard RMA type
 * (char .. ptrdiff_t, float, double, long double); sized put/get/iput/iget
 * and nbi forms for 8..128 bits; putmem/getmem (+nbi) from 1 byte to 1 MiB
 * with odd sizes and odd offsets, bytes around the target untouched; strided
 * iput/iget leave the gaps alone; ring (pe+1) and all-to-all patterns; a
 * function-scope static variable is remotely accessible too. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stddef.h>

#include "shmem_check.h"
#define CHECKI(what, idx, got, exp)                                    \
    do {                                                               \
        long long g_ = (long long)(got), e_ = (long long)(exp);        \
        if (g_ != e_) {                                                \
            char m_[200];                                              \
            snprintf(m_, sizeof m_, "%s [%lld]", what, (long long)(idx)); \
            fail(m_, g_, e_);                                          \
        }                                                              \
    } while (0)

/* value stored by PE pe at index i: small, exact in every type */
#define VAL(pe, i) (((pe) * 31 + (i) * 7 + 1) % 100)
#define SENT 111
#define N 40

#define RMA_TYPES(X)                                                          \
    X(char, char) X(signed char, schar) X(short, short) X(int, int)           \
    X(long, long) X(long long, longlong) X(unsigned char, uchar)              \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)   \
    X(unsigned long long, ulonglong) X(float, float) X(double, double)        \
    X(long double, longdouble) X(int8_t, int8) X(int16_t, int16)              \
    X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* global (external linkage) source and static destination per type */
#define DECL_STATIC(T, NM) T glob_##NM##_src[N]; static T stat_##NM##_dst[3 * N];
RMA_TYPES(DECL_STATIC)

/* One type: src holds VAL(me, i) (symmetric, N elements), dst is symmetric
 * with 3*N elements.  Barriers separate the phases. */
#define TYPED_TEST(T, NM)                                                          \
    static void typed_##NM(T *src, T *dst, const char *where)                      \
    {                                                                              \
        char what[160];                                                            \
        T loc[3 * N];                                                              \
        for (int i = 0; i < N; i++) src[i] = (T)VAL(me, i);                        \
        for (int i = 0; i < 3 * N; i++) dst[i] = (T)SENT;                          \
        shmem_barrier_all();                                                       \
        /* put to the right, N elements at offset 1 */                             \
        shmem_##NM##_put(dst + 1, src, N, right);                                  \
        shmem_barrier_all();                                                       \
        snprintf(what, sizeof what, "%s %s put", where, #NM);                      \
        CHECKI(what, 0, dst[0], SENT);                                             \
        for (int i = 0; i < N; i++) CHECKI(what, i, dst[i + 1], VAL(left, i));     \
        CHECKI(what, N + 1, dst[N + 1], SENT);                                     \
        /* get from the right */                                                   \
        for (int i = 0; i < 3 * N; i++) loc[i] = (T)SENT;                          \
        shmem_##NM##_get(loc + 2, src, N - 1, right);                              \
        snprintf(what, sizeof what, "%s %s get", where, #NM);                      \
        CHECKI(what, 1, loc[1], SENT);                                             \
        for (int i = 0; i < N - 1; i++) CHECKI(what, i, loc[i + 2], VAL(right, i)); \
        CHECKI(what, N + 1, loc[N + 1], SENT);                                     \
        /* p and g */                                                              \
        snprintf(what, sizeof what, "%s %s g", where, #NM);                        \
        for (int pe = 0; pe < npes; pe++)                                          \
            CHECKI(what, pe, shmem_##NM##_g(src + 5, pe), VAL(pe, 5));             \
        shmem_barrier_all();                                                       \
        shmem_##NM##_p(dst + 2 * N + 3, (T)VAL(me, 3), right);                     \
        shmem_barrier_all();                                                       \
        snprintf(what, sizeof what, "%s %s p", where, #NM);                        \
        CHECK(what, dst[2 * N + 3], VAL(left, 3));                                 \
        CHECK(what, dst[2 * N + 2], SENT);                                         \
        CHECK(what, dst[2 * N + 4], SENT);                                         \
        for (int i = 0; i < 3 * N; i++) dst[i] = (T)SENT;                          \
        shmem_barrier_all();                                                       \
        /* iput: source stride 2, target stride 3, N/2 elements */                 \
        shmem_##NM##_iput(dst, src, 3, 2, N / 2, right);                           \
        shmem_barrier_all();                                                       \
        snprintf(what, sizeof what, "%s %s iput", where, #NM);                     \
        for (int i = 0; i < 3 * N; i++) {                                          \
            long long e = (i % 3 == 0 && i / 3 < N / 2) ? VAL(left, 2 * (i / 3)) : SENT; \
            CHECKI(what, i, dst[i], e);                                            \
        }                                                                          \
        /* iget: remote source stride 3, local target stride 2 */                  \
        for (int i = 0; i < 3 * N; i++) loc[i] = (T)SENT;                          \
        shmem_##NM##_iget(loc, src, 2, 3, N / 3, right);                           \
        snprintf(what, sizeof what, "%s %s iget", where, #NM);                     \
        for (int i = 0; i < 3 * N; i++) {                                          \
            long long e = (i % 2 == 0 && i / 2 < N / 3) ? VAL(right, 3 * (i / 2)) : SENT; \
            CHECKI(what, i, loc[i], e);                                            \
        }                                                                          \
        shmem_barrier_all();                                                       \
        for (int i = 0; i < 3 * N; i++) dst[i] = (T)SENT;                          \
        shmem_barrier_all();                                                       \
        /* nbi: put to the right at offset N, get from the left, one quiet */      \
        for (int i = 0; i < 3 * N; i++) loc[i] = (T)SENT;                          \
        shmem_##NM##_put_nbi(dst + N, src, N, right);                              \
        shmem_##NM##_get_nbi(loc, src, N, left);                                   \
        shmem_quiet();                                                             \
        snprintf(what, sizeof what, "%s %s get_nbi", where, #NM);                  \
        for (int i = 0; i < N; i++) CHECKI(what, i, loc[i], VAL(left, i));         \
        CHECKI(what, N, loc[N], SENT);                                             \
        shmem_barrier_all();                                                       \
        snprintf(what, sizeof what, "%s %s put_nbi", where, #NM);                  \
        CHECKI(what, N - 1, dst[N - 1], SENT);                                     \
        for (int i = 0; i < N; i++) CHECKI(what, i, dst[N + i], VAL(left, i));     \
        CHECKI(what, 2 * N, dst[2 * N], SENT);                                     \
        shmem_barrier_all();                                                       \
    }
RMA_TYPES(TYPED_TEST)

static void typed_all(void)
{
#define RUN_TYPED(T, NM)                                                 \
    {                                                                    \
        T *hs = shmem_malloc(N * sizeof(T));                             \
        T *hd = shmem_malloc(3 * N * sizeof(T));                         \
        if (!hs || !hd) fail("shmem_malloc for " #NM, 0, 1);             \
        typed_##NM(hs, hd, "heap");                                      \
        typed_##NM(glob_##NM##_src, stat_##NM##_dst, "static");          \
        typed_##NM(hs, stat_##NM##_dst, "heap->static");                 \
        typed_##NM(glob_##NM##_src, hd, "static->heap");                 \
        shmem_free(hd);                                                  \
        shmem_free(hs);                                                  \
    }
    RMA_TYPES(RUN_TYPED)
}

/* sized forms, on byte buffers: element width W bytes */
static uint8_t sz_src[16 * 64];
static uint8_t sz_dst[16 * 3 * 64];

static uint8_t bpat(int pe, size_t i) { return (uint8_t)(pe * 53 + i * 13 + 5); }

static void sized_one(int bits, uint8_t *src, uint8_t *dst, const char *where)
{
    const size_t w = (size_t)bits / 8, n = 33;
    uint8_t loc[16 * 3 * 64];
    char what[160];
    for (size_t i = 0; i < n * w; i++) src[i] = bpat(me, i);
    memset(dst, 0xee, 3 * n * w);
    shmem_barrier_all();
    switch (bits) {
    case 8: shmem_put8(dst, src, n, right); break;
    case 16: shmem_put16(dst, src, n, right); break;
    case 32: shmem_put32(dst, src, n, right); break;
    case 64: shmem_put64(dst, src, n, right); break;
    case 128: shmem_put128(dst, src, n, right); break;
    }
    shmem_barrier_all();
    snprintf(what, sizeof what, "%s put%d", where, bits);
    for (size_t i = 0; i < n * w; i++) CHECKI(what, i, dst[i], bpat(left, i));
    CHECKI(what, n * w, dst[n * w], 0xee);
    memset(loc, 0xee, sizeof loc);
    switch (bits) {
    case 8: shmem_get8(loc, src, n, right); break;
    case 16: shmem_get16(loc, src, n, right); break;
    case 32: shmem_get32(loc, src, n, right); break;
    case 64: shmem_get64(loc, src, n, right); break;
    case 128: shmem_get128(loc, src, n, right); break;
    }
    snprintf(what, sizeof what, "%s get%d", where, bits);
    for (size_t i = 0; i < n * w; i++) CHECKI(what, i, loc[i], bpat(right, i));
    CHECKI(what, n * w, loc[n * w], 0xee);
    shmem_barrier_all();
    memset(dst, 0xee, 3 * n * w);
    shmem_barrier_all();
    /* strided: target stride 3, source stride 2, 16 elements */
    switch (bits) {
    case 8: shmem_iput8(dst, src, 3, 2, 16, right); break;
    case 16: shmem_iput16(dst, src, 3, 2, 16, right); break;
    case 32: shmem_iput32(dst, src, 3, 2, 16, right); break;
    case 64: shmem_iput64(dst, src, 3, 2, 16, right); break;
    case 128: shmem_iput128(dst, src, 3, 2, 16, right); break;
    }
    shmem_barrier_all();
    snprintf(what, sizeof what, "%s iput%d", where, bits);
    for (size_t e = 0; e < 3 * 16; e++)
        for (size_t b = 0; b < w; b++) {
            long long x = (e % 3 == 0) ? bpat(left, (e / 3) * 2 * w + b) : 0xee;
            CHECKI(what, e * w + b, dst[e * w + b], x);
        }
    memset(loc, 0xee, sizeof loc);
    switch (bits) {
    case 8: shmem_iget8(loc, src, 2, 3, 11, right); break;
    case 16: shmem_iget16(loc, src, 2, 3, 11, right); break;
    case 32: shmem_iget32(loc, src, 2, 3, 11, right); break;
    case 64: shmem_iget64(loc, src, 2, 3, 11, right); break;
    case 128: shmem_iget128(loc, src, 2, 3, 11, right); break;
    }
    snprintf(what, sizeof what, "%s iget%d", where, bits);
    for (size_t e = 0; e < 2 * 11 + 2; e++)
        for (size_t b = 0; b < w; b++) {
            long long x = (e % 2 == 0 && e / 2 < 11) ? bpat(right, (e / 2) * 3 * w + b) : 0xee;
            CHECKI(what, e * w + b, loc[e * w + b], x);
        }
    shmem_barrier_all();
    memset(dst, 0xee, 3 * n * w);
    memset(loc, 0xee, sizeof loc);
    shmem_barrier_all();
    switch (bits) {
    case 8: shmem_put8_nbi(dst, src, n, right); shmem_get8_nbi(loc, src, n, left); break;
    case 16: shmem_put16_nbi(dst, src, n, right); shmem_get16_nbi(loc, src, n, left); break;
    case 32: shmem_put32_nbi(dst, src, n, right); shmem_get32_nbi(loc, src, n, left); break;
    case 64: shmem_put64_nbi(dst, src, n, right); shmem_get64_nbi(loc, src, n, left); break;
    case 128: shmem_put128_nbi(dst, src, n, right); shmem_get128_nbi(loc, src, n, left); break;
    }
    shmem_quiet();
    snprintf(what, sizeof what, "%s get%d_nbi", where, bits);
    for (size_t i = 0; i < n * w; i++) CHECKI(what, i, loc[i], bpat(left, i));
    shmem_barrier_all();
    snprintf(what, sizeof what, "%s put%d_nbi", where, bits);
    for (size_t i = 0; i < n * w; i++) CHECKI(what, i, dst[i], bpat(left, i));
    CHECKI(what, n * w, dst[n * w], 0xee);
    shmem_barrier_all();
}

static void sized_all(void)
{
    uint8_t *hs = shmem_align(16, sizeof sz_src), *hd = shmem_align(16, sizeof sz_dst);
    if (!hs || !hd) fail("shmem_align for sized", 0, 1);
    static const int bits[] = {8, 16, 32, 64, 128};
    for (int k = 0; k < 5; k++) {
        sized_one(bits[k], hs, hd, "heap");
        sized_one(bits[k], sz_src, sz_dst, "static");
    }
    shmem_free(hd);
    shmem_free(hs);
}

/* putmem/getmem: sizes from 1 byte to 1 MiB, odd offsets */
#define BIG (1u << 20)
static unsigned char static_big[BIG + 64];

static unsigned char mpat(int pe, size_t i) { return (unsigned char)(pe * 101 + i * 7 + (i >> 8) * 3 + 1); }

static void mem_all(unsigned char *src, unsigned char *dst, const char *where)
{
    static const size_t sizes[] = {1, 2, 3, 7, 8, 15, 16, 63, 100, 1000, 4095, 4096, 4097,
                                   8191, 65535, 65536 + 13, 300001, BIG};
    static const size_t offs[] = {0, 1, 3, 8, 5};
    /* one private buffer for the whole run: with OSHMEM over UCX, freeing and
     * re-allocating a 1 MiB private buffer (new mmap at the same address)
     * made a later getmem_nbi into it lose data (stale registration cache) */
    static unsigned char *loc;
    if (!loc) loc = malloc(BIG + 64);
    char what[160];
    for (size_t i = 0; i < BIG + 64; i++) src[i] = mpat(me, i);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k], so = offs[k % 5], doff = offs[(k + 2) % 5];
        if (n + so > BIG + 64 || n + doff + 1 > BIG + 64) { so = 0; doff = 1; }
        int nbi = (int)(k % 2);
#ifdef OSHMEM_MAJOR_VERSION
        /* OSHMEM 4.1 (spml ucx) intermittently leaves most of a 1 MiB
         * putmem_nbi/getmem_nbi to/from a remote static array unwritten
         * after shmem_quiet: an OSHMEM bug; the blocking forms are used. */
        if (n == BIG && (src == static_big || dst == static_big)) nbi = 0;
#endif
        memset(dst, 0xcd, n + doff + 2 < BIG + 64 ? n + doff + 2 : BIG + 64);
        shmem_barrier_all();
        if (nbi) { shmem_putmem_nbi(dst + doff, src + so, n, right); shmem_quiet(); }
        else shmem_putmem(dst + doff, src + so, n, right);
        shmem_barrier_all();
        snprintf(what, sizeof what, "%s putmem%s size %zu src off %zu dst off %zu", where,
                 nbi ? "_nbi" : "", n, so, doff);
        if (doff > 0) CHECKI(what, -1, dst[doff - 1], 0xcd);
        for (size_t i = 0; i < n; i++)
            if (dst[doff + i] != mpat(left, so + i)) CHECKI(what, i, dst[doff + i], mpat(left, so + i));
        if (doff + n < BIG + 64) CHECKI(what, n, dst[doff + n], 0xcd);
        /* getmem from the right into private memory */
        memset(loc, 0xcd, n + doff + 1 < BIG + 64 ? n + doff + 1 : BIG + 64);
        if (nbi) { shmem_getmem_nbi(loc + doff, src + so, n, right); shmem_quiet(); }
        else shmem_getmem(loc + doff, src + so, n, right);
        snprintf(what, sizeof what, "%s getmem%s size %zu src off %zu dst off %zu", where,
                 nbi ? "_nbi" : "", n, so, doff);
        if (doff > 0) CHECKI(what, -1, loc[doff - 1], 0xcd);
        for (size_t i = 0; i < n; i++)
            if (loc[doff + i] != mpat(right, so + i)) CHECKI(what, i, loc[doff + i], mpat(right, so + i));
        if (doff + n < BIG + 64) CHECKI(what, n, loc[doff + n], 0xcd);
        shmem_barrier_all();
    }
}

/* all-to-all: every PE puts its block into slot me on every PE */
#define A2A_MAX 256
#define A2A_K 9
static long a2a_static[A2A_MAX * A2A_K];

static void a2a(long *dst, const char *where)
{
    if (npes > A2A_MAX) return;
    char what[160];
    long blk[A2A_K];
    for (int i = 0; i < npes * A2A_K; i++) dst[i] = -1;
    shmem_barrier_all();
    for (int k = 0; k < npes; k++) {
        int pe = (me + k) % npes;
        for (int i = 0; i < A2A_K; i++) blk[i] = 1000L * me + 10L * pe + i;
        if (k % 2) shmem_long_put(dst + me * A2A_K, blk, A2A_K, pe);
        else shmem_long_put_nbi(dst + me * A2A_K, blk, A2A_K, pe);
    }
    shmem_barrier_all();
    snprintf(what, sizeof what, "%s all-to-all put", where);
    for (int src = 0; src < npes; src++)
        for (int i = 0; i < A2A_K; i++) CHECKI(what, src * A2A_K + i, dst[src * A2A_K + i], 1000L * src + 10L * me + i);
    /* and every PE reads every other PE's slot for it back with g */
    snprintf(what, sizeof what, "%s all-to-all g", where);
    for (int pe = 0; pe < npes; pe++)
        CHECKI(what, pe, shmem_long_g(dst + me * A2A_K + 2, pe), 1000L * me + 10L * pe + 2);
    shmem_barrier_all();
}

static int fs_check(void)
{
    static int fs[4]; /* function-scope static: symmetric too */
    fs[1] = -1;
    shmem_barrier_all();
    shmem_int_p(&fs[1], 4242 + me, right);
    shmem_barrier_all();
    CHECK("function-scope static p", fs[1], 4242 + left);
    CHECK("function-scope static g", shmem_int_g(&fs[1], right), 4242 + me);
    shmem_barrier_all();
    return 0;
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    typed_all();
    sized_all();
    {
        unsigned char *hs = shmem_malloc(BIG + 64), *hd = shmem_malloc(BIG + 64);
        if (!hs || !hd) fail("shmem_malloc 1 MiB", 0, 1);
        mem_all(hs, hd, "heap");
        mem_all(hs, static_big, "heap->static");
        mem_all(static_big, hd, "static->heap");
        shmem_free(hd);
        shmem_free(hs);
    }
    {
        long *h = shmem_malloc(sizeof(long) * (npes > A2A_MAX ? 1 : npes) * A2A_K);
        a2a(h, "heap");
        a2a(a2a_static, "static");
        shmem_free(h);
    }
    fs_check();
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
