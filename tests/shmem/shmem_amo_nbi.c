/* shmem_amo_nbi.c (OpenSHMEM 1.5 only): non-blocking fetching AMOs.
 * Checks shmem_<T>_atomic_{fetch,compare_swap,swap,fetch_inc,fetch_add}_nbi
 * for the standard AMO types and fetch_{and,or,xor}_nbi for the bitwise
 * types (fetched values valid after shmem_quiet, targets updated), the ctx
 * forms, and a count: every PE issues N fetch_add_nbi(1) into PE 0 before one
 * quiet: the total is n_pes*N and the fetched values are all distinct.
 * Built against a 1.4 library it exits 77. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <stddef.h>

#include "shmem_check.h"

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
#define STD_TYPES(X)                                                          \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)    \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)                  \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)                   \
    X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#define BIT_TYPES(X)                                                          \
    X(unsigned int, uint) X(unsigned long, ulong)                             \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)      \
    X(uint32_t, uint32) X(uint64_t, uint64)

#define STD_NBI(T, NM)                                                            \
    static T sv_##NM[2];                                                          \
    static void std_##NM(void)                                                    \
    {                                                                             \
        T f[6];                                                                   \
        T b = (T)(20 + me);                                                       \
        sv_##NM[0] = (T)(20 + left);                                              \
        shmem_barrier_all();                                                      \
        shmem_##NM##_atomic_fetch_nbi(&f[0], &sv_##NM[0], right);                 \
        shmem_quiet();                                                            \
        CHECK(#NM " atomic_fetch_nbi", f[0], b);                                  \
        shmem_##NM##_atomic_compare_swap_nbi(&f[1], &sv_##NM[0], (T)99, (T)1, right); \
        shmem_quiet();                                                            \
        CHECK(#NM " atomic_compare_swap_nbi (no match)", f[1], b);                \
        shmem_##NM##_atomic_compare_swap_nbi(&f[2], &sv_##NM[0], b, (T)(b + 10), right); \
        shmem_quiet();                                                            \
        CHECK(#NM " atomic_compare_swap_nbi (match)", f[2], b);                   \
        shmem_##NM##_atomic_swap_nbi(&f[3], &sv_##NM[0], (T)(b + 20), right);     \
        shmem_quiet();                                                            \
        CHECK(#NM " atomic_swap_nbi", f[3], b + 10);                              \
        shmem_##NM##_atomic_fetch_inc_nbi(&f[4], &sv_##NM[0], right);             \
        shmem_quiet();                                                            \
        CHECK(#NM " atomic_fetch_inc_nbi", f[4], b + 20);                         \
        shmem_ctx_##NM##_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &f[5], &sv_##NM[0], (T)5, right); \
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                       \
        CHECK(#NM " ctx atomic_fetch_add_nbi", f[5], b + 21);                     \
        shmem_barrier_all();                                                      \
        CHECK(#NM " target after the nbi AMOs", sv_##NM[0], 20 + left + 26);      \
        shmem_barrier_all();                                                      \
    }
STD_TYPES(STD_NBI)

#define BIT_NBI(T, NM)                                                            \
    static T bv_##NM;                                                             \
    static void bit_##NM(void)                                                    \
    {                                                                             \
        T f[3];                                                                   \
        T mine = (T)(0xF0F0u | (unsigned)me), theirs = (T)(0xF0F0u | (unsigned)left); \
        bv_##NM = theirs;                                                         \
        shmem_barrier_all();                                                      \
        shmem_##NM##_atomic_fetch_and_nbi(&f[0], &bv_##NM, (T)0x0FFF, right);     \
        shmem_quiet();                                                            \
        shmem_##NM##_atomic_fetch_or_nbi(&f[1], &bv_##NM, (T)0x30000, right);     \
        shmem_quiet();                                                            \
        shmem_##NM##_atomic_fetch_xor_nbi(&f[2], &bv_##NM, (T)0x11, right);       \
        shmem_quiet();                                                            \
        CHECK(#NM " atomic_fetch_and_nbi", f[0], mine);                           \
        CHECK(#NM " atomic_fetch_or_nbi", f[1], (T)(mine & (T)0x0FFF));           \
        CHECK(#NM " atomic_fetch_xor_nbi", f[2], (T)((T)(mine & (T)0x0FFF) | (T)0x30000)); \
        shmem_barrier_all();                                                      \
        CHECK(#NM " bitwise target", bv_##NM, (T)((T)((T)(theirs & (T)0x0FFF) | (T)0x30000) ^ (T)0x11)); \
        shmem_barrier_all();                                                      \
    }
BIT_TYPES(BIT_NBI)

#define NC 300
static long ctr;
static long seen[NC * 64];

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
#define RUN(T, NM) std_##NM();
    STD_TYPES(RUN)
#define RUNB(T, NM) bit_##NM();
    BIT_TYPES(RUNB)

    if (npes <= 64) {
        long *f = malloc(sizeof(long) * NC);
        ctr = 0;
        shmem_barrier_all();
        for (int i = 0; i < NC; i++) shmem_long_atomic_fetch_add_nbi(&f[i], &ctr, 1, 0);
        shmem_quiet();
        shmem_long_put(&seen[me * NC], f, NC, 0);
        shmem_barrier_all();
        if (me == 0) {
            CHECK("fetch_add_nbi total", ctr, (long)npes * NC);
            char *hit = calloc((size_t)npes * NC, 1);
            for (int i = 0; i < npes * NC; i++) {
                long v = seen[i];
                if (v < 0 || v >= (long)npes * NC || hit[v]) fail("fetch_add_nbi fetched values distinct", v, -1);
                hit[v] = 1;
            }
            free(hit);
        }
        free(f);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
#else
int main(void)
{
    printf("SKIP: shmem_amo_nbi needs OpenSHMEM 1.5 (header says %d.%d)\n", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    return 77;
}
#endif
