/* shmem_coll.c: collectives.
 * Deprecated active-set forms (OpenSHMEM 1.4, also in 1.5): shmem_barrier,
 * broadcast32/64 (every root; the root's dest untouched), collect32/64 with a
 * different nelems per PE, fcollect32/64, alltoall32/64, alltoalls32/64,
 * <type>_{sum,prod,min,max,and,or,xor}_to_all (in place and not) with pWrk/
 * pSync; back-to-back calls reusing the same pSync; the full set and strided
 * sets (logPE_stride 1: even PEs, odd PEs).  (1.5) Team forms on
 * SHMEM_TEAM_WORLD and split teams: broadcast (every root), collect,
 * fcollect, alltoall, alltoalls, broadcastmem/collectmem/fcollectmem/
 * alltoallmem, and typed reductions including float/double/complexd, in place
 * and not; return codes 0. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stddef.h>
#include <complex.h>

static int me = -1, npes = -1;

static void fail(const char *what, long long got, long long exp)
{
    printf("FAIL: %s (pe %d): got %lld expected %lld\n", what, me, got, exp);
    fflush(stdout);
    shmem_global_exit(1);
    exit(1);
}
#define CHECK(what, got, exp)                                          \
    do {                                                               \
        long long g_ = (long long)(got), e_ = (long long)(exp);        \
        if (g_ != e_) fail(what, g_, e_);                              \
    } while (0)

#define MAXN 64
static long psync_b[SHMEM_BARRIER_SYNC_SIZE];
static long psync_bc[SHMEM_BCAST_SYNC_SIZE];
static long psync_c[SHMEM_COLLECT_SYNC_SIZE];
static long psync_r[SHMEM_REDUCE_SYNC_SIZE];
static long psync_a[SHMEM_ALLTOALL_SYNC_SIZE];
static long psync_as[SHMEM_ALLTOALLS_SYNC_SIZE];
static long long pwrk[MAXN / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static double dpwrk[MAXN / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static double complex cpwrk[MAXN / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];

static int64_t src64[MAXN * 8], dst64[MAXN * 8 * 4];
static int32_t src32[MAXN * 8], dst32[MAXN * 8 * 4];
static long lsrc[MAXN], ldst[MAXN];
static int isrc[MAXN], idst[MAXN];
static short ssrc[MAXN], sdst[MAXN];
static long long llsrc[MAXN], lldst[MAXN];
static double dsrc[MAXN], ddst[MAXN];
static float fsrc[MAXN], fdst[MAXN];
static double complex csrc[MAXN], cdst[MAXN];

static void init_psync(void)
{
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) psync_b[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) psync_bc[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++) psync_c[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) psync_r[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++) psync_a[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_ALLTOALLS_SYNC_SIZE; i++) psync_as[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
}

static long long v64(int idx, int i) { return (long long)idx * 100000 + i * 3 + 1; }

/* one active set; idx = my index in the set, pe_of(k) = PE of index k */
static void active_set(int start, int logs, int size, const char *name)
{
    int stride = 1 << logs;
    int d = me - start;
    if (d < 0 || d % stride || d / stride >= size) return;   /* not a member */
    int idx = d / stride;
    char w[160];

    /* barrier, back to back */
    for (int k = 0; k < 4; k++) shmem_barrier(start, logs, size, psync_b);

    /* broadcast from every root, 32 and 64 bit, reusing pSync */
    for (int root = 0; root < size; root++) {
        const int n = 17 + root;
        for (int i = 0; i < n; i++) { src64[i] = v64(root, i) + 7 * idx; src32[i] = (int32_t)(v64(root, i) + 5 * idx); }
        for (int i = 0; i < n + 1; i++) { dst64[i] = -1; dst32[i] = -1; }
        shmem_barrier(start, logs, size, psync_b);
        shmem_broadcast64(dst64, src64, n, root, start, logs, size, psync_bc);
        shmem_broadcast32(dst32, src32, n, root, start, logs, size, psync_bc);
        snprintf(w, sizeof w, "%s broadcast64/32 root %d", name, root);
        for (int i = 0; i < n; i++) {
            CHECK(w, dst64[i], idx == root ? -1 : v64(root, i) + 7 * root);
            CHECK(w, dst32[i], idx == root ? -1 : (int32_t)(v64(root, i) + 5 * root));
        }
        CHECK(w, dst64[n], -1);
        shmem_barrier(start, logs, size, psync_b);
    }

    /* collect: idx+1 elements from each; fcollect: 5 each */
    for (int rep = 0; rep < 2; rep++) {
        int n = idx + 1 + rep;
        for (int i = 0; i < n; i++) { src64[i] = v64(idx, i) + rep; src32[i] = (int32_t)(v64(idx, i) + 2 * rep); }
        int total = 0;
        for (int k = 0; k < size; k++) total += k + 1 + rep;
        for (int i = 0; i <= total; i++) { dst64[i] = -1; dst32[i] = -1; }
        shmem_barrier(start, logs, size, psync_b);
        shmem_collect64(dst64, src64, n, start, logs, size, psync_c);
        shmem_collect32(dst32, src32, n, start, logs, size, psync_c);
        snprintf(w, sizeof w, "%s collect64/32 rep %d", name, rep);
        int pos = 0;
        for (int k = 0; k < size; k++)
            for (int i = 0; i < k + 1 + rep; i++, pos++) {
                CHECK(w, dst64[pos], v64(k, i) + rep);
                CHECK(w, dst32[pos], (int32_t)(v64(k, i) + 2 * rep));
            }
        CHECK(w, dst64[total], -1);
        shmem_barrier(start, logs, size, psync_b);
        for (int i = 0; i < 5; i++) { src64[i] = v64(idx, i) + 9; src32[i] = (int32_t)v64(idx, i) - 9; }
        for (int i = 0; i <= 5 * size; i++) { dst64[i] = -1; dst32[i] = -1; }
        shmem_barrier(start, logs, size, psync_b);
        shmem_fcollect64(dst64, src64, 5, start, logs, size, psync_c);
        shmem_fcollect32(dst32, src32, 5, start, logs, size, psync_c);
        snprintf(w, sizeof w, "%s fcollect64/32 rep %d", name, rep);
        for (int k = 0; k < size; k++)
            for (int i = 0; i < 5; i++) {
                CHECK(w, dst64[k * 5 + i], v64(k, i) + 9);
                CHECK(w, dst32[k * 5 + i], (int32_t)v64(k, i) - 9);
            }
        CHECK(w, dst64[5 * size], -1);
        shmem_barrier(start, logs, size, psync_b);
    }

    /* alltoall: block j of my source goes to index j; 3 elements */
    for (int rep = 0; rep < 2; rep++) {
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 3; i++) { src64[j * 3 + i] = v64(idx, j * 10 + i) + rep; src32[j * 3 + i] = (int32_t)v64(j, idx * 10 + i); }
        for (int i = 0; i < 3 * size; i++) { dst64[i] = -1; dst32[i] = -1; }
        shmem_barrier(start, logs, size, psync_b);
        shmem_alltoall64(dst64, src64, 3, start, logs, size, psync_a);
        shmem_alltoall32(dst32, src32, 3, start, logs, size, psync_a);
        snprintf(w, sizeof w, "%s alltoall64/32 rep %d", name, rep);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 3; i++) {
                CHECK(w, dst64[j * 3 + i], v64(j, idx * 10 + i) + rep);
                CHECK(w, dst32[j * 3 + i], (int32_t)v64(idx, j * 10 + i));
            }
        shmem_barrier(start, logs, size, psync_b);
    }
    /* alltoalls: 2 elements per PE, source stride 3, dest stride 2 */
    {
        for (int i = 0; i < 3 * 2 * size; i++) { src64[i] = v64(idx, i); src32[i] = (int32_t)v64(idx, i) + 1; }
        for (int i = 0; i < 2 * 2 * size + 2; i++) { dst64[i] = -1; dst32[i] = -1; }
        shmem_barrier(start, logs, size, psync_b);
        shmem_alltoalls64(dst64, src64, 2, 3, 2, start, logs, size, psync_as);
        shmem_alltoalls32(dst32, src32, 2, 3, 2, start, logs, size, psync_as);
        snprintf(w, sizeof w, "%s alltoalls64/32", name);
        /* element e of the block for index j lives at source (j*2+e)*3 and
         * lands at dest (j*2+e)*2 */
        for (int j = 0; j < size; j++)
            for (int e = 0; e < 2; e++) {
                CHECK(w, dst64[(j * 2 + e) * 2], v64(j, (idx * 2 + e) * 3));
                CHECK(w, dst64[(j * 2 + e) * 2 + 1], -1);
                CHECK(w, dst32[(j * 2 + e) * 2], (int32_t)v64(j, (idx * 2 + e) * 3) + 1);
            }
        shmem_barrier(start, logs, size, psync_b);
    }

    /* reductions, all reusing psync_r back to back */
    const int n = 13;
    for (int i = 0; i < n; i++) {
        isrc[i] = idx + i; lsrc[i] = (long)(idx * 2 + i); llsrc[i] = (long long)(idx + 1) << (i % 20);
        ssrc[i] = (short)((idx % 3) + 1); dsrc[i] = idx + 0.5 * i; fsrc[i] = (float)(idx + i);
        csrc[i] = (idx + 1) + (double)i * I;
    }
    long long esum = 0, eprod = 1, emin = 0, emax = 0;
    shmem_barrier(start, logs, size, psync_b);
    shmem_int_sum_to_all(idst, isrc, n, start, logs, size, (int *)pwrk, psync_r);
    shmem_long_max_to_all(ldst, lsrc, n, start, logs, size, (long *)pwrk, psync_r);
    shmem_short_prod_to_all(sdst, ssrc, n, start, logs, size, (short *)pwrk, psync_r);
    shmem_longlong_or_to_all(lldst, llsrc, n, start, logs, size, (long long *)pwrk, psync_r);
    shmem_double_min_to_all(ddst, dsrc, n, start, logs, size, dpwrk, psync_r);
    shmem_float_sum_to_all(fdst, fsrc, n, start, logs, size, (float *)dpwrk, psync_r);
    shmem_complexd_sum_to_all(cdst, csrc, n, start, logs, size, cpwrk, psync_r);
    for (int i = 0; i < n; i++) {
        esum = 0; eprod = 1; emax = 0; long long eor = 0; double dmin = 1e30; double fs = 0; double cre = 0, cim = 0;
        for (int k = 0; k < size; k++) {
            esum += k + i; eprod *= (k % 3) + 1; if (k * 2 + i > emax) emax = k * 2 + i;
            eor |= (long long)(k + 1) << (i % 20); if (k + 0.5 * i < dmin) dmin = k + 0.5 * i; fs += k + i;
            cre += k + 1; cim += i;
        }
        snprintf(w, sizeof w, "%s int_sum_to_all [%d]", name, i); CHECK(w, idst[i], esum);
        snprintf(w, sizeof w, "%s long_max_to_all [%d]", name, i); CHECK(w, ldst[i], emax);
        snprintf(w, sizeof w, "%s short_prod_to_all [%d]", name, i); CHECK(w, sdst[i], eprod);
        snprintf(w, sizeof w, "%s longlong_or_to_all [%d]", name, i); CHECK(w, lldst[i], eor);
        snprintf(w, sizeof w, "%s double_min_to_all (x2) [%d]", name, i); CHECK(w, 2 * ddst[i], 2 * dmin);
        snprintf(w, sizeof w, "%s float_sum_to_all [%d]", name, i); CHECK(w, fdst[i], fs);
        snprintf(w, sizeof w, "%s complexd_sum_to_all real [%d]", name, i); CHECK(w, creal(cdst[i]), cre);
        snprintf(w, sizeof w, "%s complexd_sum_to_all imag [%d]", name, i); CHECK(w, cimag(cdst[i]), cim * 1.0);
    }
    (void)emin;
    /* in place: source == dest */
    for (int i = 0; i < n; i++) { idst[i] = idx + 3 * i; ldst[i] = (idx == 0) ? 0xff : 0x1ff; lldst[i] = idx + 1; }
    shmem_barrier(start, logs, size, psync_b);
    shmem_int_min_to_all(idst, idst, n, start, logs, size, (int *)pwrk, psync_r);
    shmem_long_and_to_all(ldst, ldst, n, start, logs, size, (long *)pwrk, psync_r);
    shmem_longlong_xor_to_all(lldst, lldst, n, start, logs, size, (long long *)pwrk, psync_r);
    long long ex = 0;
    for (int k = 0; k < size; k++) ex ^= k + 1;
    for (int i = 0; i < n; i++) {
        snprintf(w, sizeof w, "%s in-place int_min_to_all [%d]", name, i); CHECK(w, idst[i], 3 * i);
        snprintf(w, sizeof w, "%s in-place long_and_to_all [%d]", name, i); CHECK(w, ldst[i], 0xff);
        snprintf(w, sizeof w, "%s in-place longlong_xor_to_all [%d]", name, i); CHECK(w, lldst[i], ex);
    }
    shmem_barrier(start, logs, size, psync_b);
}

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
static void team_colls(shmem_team_t team, const char *name)
{
    if (team == SHMEM_TEAM_INVALID) return;
    int idx = shmem_team_my_pe(team), size = shmem_team_n_pes(team);
    char w[160];
    static long src[8 * MAXN], dst[8 * MAXN];
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < 20; i++) { src[i] = v64(root, i) + idx * 1000; dst[i] = -1; }
        dst[20] = -1;
        shmem_team_sync(team);
        snprintf(w, sizeof w, "%s long_broadcast root %d", name, root);
        CHECK(w, shmem_long_broadcast(team, dst, src, 20, root), 0);
        /* the root's own dest is not checked (whether it is written is
         * not something this test relies on) */
        if (idx != root) for (int i = 0; i < 20; i++) CHECK(w, dst[i], v64(root, i) + root * 1000);
        CHECK(w, dst[20], -1);
        snprintf(w, sizeof w, "%s broadcastmem root %d", name, root);
        memset(dst, 0, 64);
        shmem_team_sync(team);
        CHECK(w, shmem_broadcastmem(team, dst, src, 13, root), 0);
        long e = v64(root, 0) + root * 1000;
        if (idx != root) CHECK(w, memcmp(dst, &e, 8), 0);
        if (idx != root) CHECK(w, ((unsigned char *)dst)[13], 0);
        shmem_team_sync(team);
    }
    shmem_team_sync(team);
    for (int i = 0; i <= idx; i++) src[i] = v64(idx, i);
    int total = 0;
    for (int k = 0; k < size; k++) total += k + 1;
    for (int i = 0; i <= total; i++) dst[i] = -1;
    shmem_team_sync(team);
    snprintf(w, sizeof w, "%s long_collect", name);
    CHECK(w, shmem_long_collect(team, dst, src, idx + 1), 0);
    for (int k = 0, pos = 0; k < size; k++)
        for (int i = 0; i <= k; i++, pos++) CHECK(w, dst[pos], v64(k, i));
    CHECK(w, dst[total], -1);
    shmem_team_sync(team);
    snprintf(w, sizeof w, "%s collectmem", name);
    CHECK(w, shmem_collectmem(team, dst, src, (idx + 1) * sizeof(long)), 0);
    for (int k = 0, pos = 0; k < size; k++)
        for (int i = 0; i <= k; i++, pos++) CHECK(w, dst[pos], v64(k, i));
    shmem_team_sync(team);
    for (int i = 0; i < 4; i++) src[i] = v64(idx, i) + 5;
    snprintf(w, sizeof w, "%s long_fcollect", name);
    CHECK(w, shmem_long_fcollect(team, dst, src, 4), 0);
    for (int k = 0; k < size; k++) for (int i = 0; i < 4; i++) CHECK(w, dst[k * 4 + i], v64(k, i) + 5);
    shmem_team_sync(team);
    snprintf(w, sizeof w, "%s fcollectmem", name);
    CHECK(w, shmem_fcollectmem(team, dst, src, 3 * sizeof(long)), 0);
    for (int k = 0; k < size; k++) for (int i = 0; i < 3; i++) CHECK(w, dst[k * 3 + i], v64(k, i) + 5);
    shmem_team_sync(team);
    for (int j = 0; j < size; j++) for (int i = 0; i < 2; i++) src[j * 2 + i] = v64(idx, j * 10 + i);
    snprintf(w, sizeof w, "%s long_alltoall", name);
    CHECK(w, shmem_long_alltoall(team, dst, src, 2), 0);
    for (int j = 0; j < size; j++) for (int i = 0; i < 2; i++) CHECK(w, dst[j * 2 + i], v64(j, idx * 10 + i));
    shmem_team_sync(team);
    snprintf(w, sizeof w, "%s alltoallmem", name);
    CHECK(w, shmem_alltoallmem(team, dst, src, 2 * sizeof(long)), 0);
    for (int j = 0; j < size; j++) for (int i = 0; i < 2; i++) CHECK(w, dst[j * 2 + i], v64(j, idx * 10 + i));
    shmem_team_sync(team);
    for (int i = 0; i < 3 * size; i++) src[i] = v64(idx, i);
    for (int i = 0; i < 2 * size; i++) dst[i] = -1;
    shmem_team_sync(team);
    snprintf(w, sizeof w, "%s long_alltoalls", name);
    CHECK(w, shmem_long_alltoalls(team, dst, src, 2, 3, 1), 0);
    for (int j = 0; j < size; j++) { CHECK(w, dst[j * 2], v64(j, idx * 3)); CHECK(w, dst[j * 2 + 1], -1); }
    shmem_team_sync(team);

    /* reductions */
    static int ri[MAXN], ro[MAXN];
    static double rd[MAXN], rdo[MAXN];
    static float rf[MAXN], rfo[MAXN];
    static double complex rc[MAXN], rco[MAXN];
    static unsigned long ru[MAXN], ruo[MAXN];
    static long long rl[MAXN], rlo[MAXN];
    const int n = 11;
    for (int i = 0; i < n; i++) {
        ri[i] = idx + i; rd[i] = idx * 0.5 + i; rf[i] = (float)(idx + 2 * i); rc[i] = idx + (i + 1) * I;
        ru[i] = (1ul << (idx % 60)) | 0x100; rl[i] = (idx % 3) + 1;
    }
    shmem_team_sync(team);
    long long es = 0, ep = 1, emax = 0, emin = 1LL << 60; unsigned long eor = 0, eand = ~0ul, exo = 0; double ds = 0, dmax = -1;
    for (int k = 0; k < size; k++) {
        ep *= (k % 3) + 1; eor |= (1ul << (k % 60)) | 0x100; eand &= (1ul << (k % 60)) | 0x100; exo ^= (1ul << (k % 60)) | 0x100;
    }
    CHECK("int_sum_reduce rc", shmem_int_sum_reduce(team, ro, ri, n), 0);
    CHECK("double_max_reduce rc", shmem_double_max_reduce(team, rdo, rd, n), 0);
    CHECK("float_sum_reduce rc", shmem_float_sum_reduce(team, rfo, rf, n), 0);
    CHECK("complexd_sum_reduce rc", shmem_complexd_sum_reduce(team, rco, rc, n), 0);
    CHECK("ulong_or_reduce rc", shmem_ulong_or_reduce(team, ruo, ru, n), 0);
    CHECK("longlong_prod_reduce rc", shmem_longlong_prod_reduce(team, rlo, rl, n), 0);
    for (int i = 0; i < n; i++) {
        es = 0; ds = 0; dmax = -1; double fs = 0, cre = 0;
        for (int k = 0; k < size; k++) { es += k + i; if (k * 0.5 + i > dmax) dmax = k * 0.5 + i; fs += k + 2 * i; cre += k; }
        snprintf(w, sizeof w, "%s int_sum_reduce [%d]", name, i); CHECK(w, ro[i], es);
        snprintf(w, sizeof w, "%s double_max_reduce (x2) [%d]", name, i); CHECK(w, 2 * rdo[i], 2 * dmax);
        snprintf(w, sizeof w, "%s float_sum_reduce [%d]", name, i); CHECK(w, rfo[i], fs);
        snprintf(w, sizeof w, "%s complexd_sum_reduce real [%d]", name, i); CHECK(w, creal(rco[i]), cre);
        snprintf(w, sizeof w, "%s complexd_sum_reduce imag [%d]", name, i); CHECK(w, cimag(rco[i]), (double)(i + 1) * size);
        snprintf(w, sizeof w, "%s ulong_or_reduce [%d]", name, i); CHECK(w, ruo[i], eor);
        snprintf(w, sizeof w, "%s longlong_prod_reduce [%d]", name, i); CHECK(w, rlo[i], ep);
    }
    (void)ds; (void)emax; (void)emin;
    /* in place */
    shmem_team_sync(team);
    for (int i = 0; i < n; i++) { ri[i] = 100 - idx - i; ru[i] = (1ul << (idx % 60)) | 0x100; rl[i] = idx * 7 + i; }
    shmem_team_sync(team);
    CHECK("int_min_reduce in place rc", shmem_int_min_reduce(team, ri, ri, n), 0);
    CHECK("ulong_and_reduce in place rc", shmem_ulong_and_reduce(team, ru, ru, n), 0);
    CHECK("ulong_xor_reduce in place rc", shmem_ulong_xor_reduce(team, ruo, ruo, n), 0);
    CHECK("longlong_max_reduce in place rc", shmem_longlong_max_reduce(team, rl, rl, n), 0);
    for (int i = 0; i < n; i++) {
        snprintf(w, sizeof w, "%s in-place int_min_reduce [%d]", name, i); CHECK(w, ri[i], 100 - (size - 1) - i);
        snprintf(w, sizeof w, "%s in-place ulong_and_reduce [%d]", name, i); CHECK(w, ru[i], eand);
        snprintf(w, sizeof w, "%s in-place ulong_xor_reduce [%d]", name, i); CHECK(w, ruo[i], (size % 2) ? eor : 0);
        snprintf(w, sizeof w, "%s in-place longlong_max_reduce [%d]", name, i); CHECK(w, rl[i], (size - 1) * 7 + i);
    }
    (void)exo;
    shmem_team_sync(team);
}
#endif

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAXN) { if (me == 0) printf("more than %d PEs: nothing checked\n", MAXN); shmem_finalize(); return 0; }
    init_psync();
    active_set(0, 0, npes, "all PEs");
    shmem_barrier_all();
    active_set(0, 0, npes, "all PEs again");
    shmem_barrier_all();
    if (npes >= 2) {
        active_set(0, 1, (npes + 1) / 2, "even PEs");
        shmem_barrier_all();
        active_set(1, 1, npes / 2, "odd PEs");
        shmem_barrier_all();
        active_set(1, 0, npes - 1, "PEs 1..n-1");
        shmem_barrier_all();
    }
#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
    team_colls(SHMEM_TEAM_WORLD, "world");
    shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
    CHECK("split_strided even rc", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even), 0);
    if (npes >= 2)
        CHECK("split_strided odd rc", shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd), 0);
    team_colls(even, "even team");
    if (npes >= 2) team_colls(odd, "odd team");
    if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
    if (odd != SHMEM_TEAM_INVALID) shmem_team_destroy(odd);
#endif
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
