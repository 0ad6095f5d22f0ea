/* shmem_generic.c: the C11 type-generic interfaces.
 * Checks shmem_put/shmem_get (with and without a context argument),
 * shmem_p/shmem_g, shmem_put_nbi, shmem_atomic_fetch_add/add/inc/fetch/set/
 * swap/compare_swap, shmem_wait_until/shmem_test, and (1.5) shmem_sum_reduce
 * and shmem_max_reduce on a team, for int, long, long long, unsigned int,
 * unsigned long long, float and double: each selects the right typed routine
 * (exact values after the operation). */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_check.h"

#define N 16
/* put/get/p/g for one type through the generic names */
#define RMA_GEN(T, NM)                                                             \
    static T NM##_src[N], NM##_dst[N];                                             \
    static void gen_##NM(void)                                                     \
    {                                                                              \
        T loc[N];                                                                  \
        for (int i = 0; i < N; i++) { NM##_src[i] = (T)(me * 10 + i); NM##_dst[i] = (T)-1; } \
        shmem_barrier_all();                                                       \
        shmem_put(NM##_dst, NM##_src, N / 2, right);                               \
        shmem_put(SHMEM_CTX_DEFAULT, NM##_dst + N / 2, NM##_src, 3, right);        \
        shmem_p(&NM##_dst[N - 1], (T)(me + 1000), right);                          \
        shmem_barrier_all();                                                       \
        for (int i = 0; i < N / 2; i++) CHECK(#NM " generic shmem_put", NM##_dst[i], left * 10 + i); \
        for (int i = 0; i < 3; i++) CHECK(#NM " generic shmem_put(ctx)", NM##_dst[N / 2 + i], left * 10 + i); \
        CHECK(#NM " generic shmem_p", NM##_dst[N - 1], left + 1000);               \
        shmem_get(loc, NM##_src, N, right);                                        \
        for (int i = 0; i < N; i++) CHECK(#NM " generic shmem_get", loc[i], right * 10 + i); \
        shmem_get(SHMEM_CTX_DEFAULT, loc, NM##_src + 2, 2, left);                  \
        CHECK(#NM " generic shmem_get(ctx)", loc[1], left * 10 + 3);               \
        CHECK(#NM " generic shmem_g", shmem_g(&NM##_src[5], right), right * 10 + 5); \
        shmem_barrier_all();                                                       \
        shmem_put_nbi(NM##_dst, NM##_src + 1, 4, right);                           \
        shmem_quiet();                                                             \
        shmem_barrier_all();                                                       \
        CHECK(#NM " generic shmem_put_nbi", NM##_dst[3], left * 10 + 4);           \
        shmem_barrier_all();                                                       \
    }
RMA_GEN(int, i)
RMA_GEN(long, l)
RMA_GEN(long long, ll)
RMA_GEN(unsigned int, ui)
RMA_GEN(unsigned long long, ull)
RMA_GEN(float, f)
RMA_GEN(double, d)

#define AMO_GEN(T, NM)                                                             \
    static T NM##_var;                                                             \
    static void amo_##NM(void)                                                     \
    {                                                                              \
        if (me == 0) NM##_var = 0;                                                 \
        shmem_barrier_all();                                                       \
        for (int k = 0; k < 20; k++) {                                             \
            T old = shmem_atomic_fetch_add(&NM##_var, (T)2, 0);                    \
            if ((long long)old < 0 || old >= (T)(4 * 20 * npes)) fail(#NM " generic fetch_add old value in range", (long long)old, 0); \
            shmem_atomic_add(&NM##_var, (T)1, 0);                                  \
            shmem_atomic_inc(&NM##_var, 0);                                        \
        }                                                                          \
        shmem_barrier_all();                                                       \
        CHECK(#NM " generic fetch_add/add/inc total", shmem_atomic_fetch(&NM##_var, 0), 4 * 20 * npes); \
        shmem_barrier_all();                                                       \
        shmem_atomic_set(&NM##_var, (T)(me + 5), right);                           \
        shmem_barrier_all();                                                       \
        CHECK(#NM " generic atomic_set", NM##_var, left + 5);                      \
        shmem_barrier_all();                                                       \
        CHECK(#NM " generic atomic_swap", shmem_atomic_swap(&NM##_var, (T)(me + 9), right), me + 5); \
        shmem_barrier_all();                                                       \
        CHECK(#NM " value after generic swap", NM##_var, left + 9);                \
        shmem_barrier_all();                                                       \
    }
AMO_GEN(int, i)
AMO_GEN(long, l)
AMO_GEN(long long, ll)
AMO_GEN(unsigned long, ul)

static long wvar;
static int ivar;

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    gen_i(); gen_l(); gen_ll(); gen_ui(); gen_ull(); gen_f(); gen_d();
    amo_i(); amo_l(); amo_ll(); amo_ul();

    /* compare_swap on long (generic) */
    wvar = 0;
    shmem_barrier_all();
    CHECK("generic compare_swap (no match)", shmem_atomic_compare_swap(&wvar, 5L, 6L, right), 0);
    CHECK("generic compare_swap (match)", shmem_atomic_compare_swap(&wvar, 0L, (long)(me + 50), right), 0);
    shmem_barrier_all();
    CHECK("value after generic compare_swap", wvar, left + 50);
    shmem_barrier_all();

    /* wait_until / test */
    wvar = 0;
    ivar = 0;
    shmem_barrier_all();
    CHECK("generic shmem_test before put", shmem_test(&wvar, SHMEM_CMP_GT, 0L), 0);
    shmem_barrier_all();
    shmem_p(&wvar, (long)(me + 1), right);
    shmem_p(&ivar, -(me + 1), right);
    shmem_wait_until(&wvar, SHMEM_CMP_EQ, (long)(left + 1));
    shmem_wait_until(&ivar, SHMEM_CMP_LT, 0);
    CHECK("generic wait_until long", wvar, left + 1);
    CHECK("generic wait_until int", ivar, -(left + 1));
    shmem_barrier_all();

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
    {
        static int is[4], id[4];
        static double ds[4], dd[4];
        static long ls[4], ld[4];
        for (int i = 0; i < 4; i++) { is[i] = me + i; ds[i] = me * 0.5 + i; ls[i] = (me * 7) % 5 + i; }
        shmem_barrier_all();
        CHECK("generic sum_reduce int rc", shmem_sum_reduce(SHMEM_TEAM_WORLD, id, is, 4), 0);
        CHECK("generic sum_reduce double rc", shmem_sum_reduce(SHMEM_TEAM_WORLD, dd, ds, 4), 0);
        CHECK("generic max_reduce long rc", shmem_max_reduce(SHMEM_TEAM_WORLD, ld, ls, 4), 0);
        for (int i = 0; i < 4; i++) {
            long long es = 0, em = 0; double eds = 0;
            for (int k = 0; k < npes; k++) { es += k + i; eds += k * 0.5 + i; if ((k * 7) % 5 + i > em) em = (k * 7) % 5 + i; }
            CHECK("generic sum_reduce int", id[i], es);
            CHECK("generic sum_reduce double (x2)", 2 * dd[i], 2 * eds);
            CHECK("generic max_reduce long", ld[i], em);
        }
        shmem_barrier_all();
    }
#endif
    shmem_finalize();
    return 0;
}
