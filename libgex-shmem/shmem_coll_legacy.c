/* shmem_coll_legacy.c: the deprecated active-set collectives of OpenSHMEM
 * 1.5 (shmem_barrier, shmem_sync, shmem_broadcast32/64, shmem_collect32/64,
 * shmem_fcollect32/64, shmem_alltoall(s)32/64, shmem_<T>_<op>_to_all).
 *
 * An active set is PE_start + i * 2^logPE_stride, i < PE_size (world PEs),
 * and only its members call, so no GEX team can be built for it (that would
 * be collective over a parent).  Synchronization is therefore done by hand
 * on the caller's symmetric pSync array, with OpenSHMEM atomics, and data
 * moves with gets between two such barriers: the first one guarantees every
 * source is ready, the second that nobody returns (and reuses a source, or
 * overwrites an in-place dest) while others still read it.
 *
 * pSync rules (spec): all elements are SHMEM_SYNC_VALUE on entry and again
 * when the call returns; the same pSync may be used by the next collective
 * on the same set at once, or two arrays may alternate.  Layout used:
 *   [PS_COUNT]   on member 0: arrivals at the current barrier
 *   [PS_RELEASE] on members > 0: set by member 0 to release the barrier
 *   [PS_NBYTES]  shmem_collect32/64: this PE's contribution, in bytes
 * pWrk (to_all) is not needed: reductions use private buffers. */
#include "shmem_internal.h"
#include "shmem_coll_ops.h"
#include <gex/shmem_types.h>

#include <stdlib.h>
#include <string.h>

_Static_assert(SHMEM_SYNC_VALUE == 0, "the pSync counters count up from SHMEM_SYNC_VALUE");

enum { PS_COUNT, PS_RELEASE, PS_NBYTES };

struct aset {
    int start, stride, size;
    int me;                     /* the caller's index in the set */
};

static int aset_pe(const struct aset *s, int i)
{
    return s->start + i * s->stride;
}

static void aset_init(struct aset *s, int PE_start, int logPE_stride, int PE_size,
                      const char *what)
{
    gexshm_require_init(what);
    if (PE_start < 0 || logPE_stride < 0 || logPE_stride > 30 || PE_size < 1 ||
        (long long)PE_start + ((long long)(PE_size - 1) << logPE_stride) >= gexshm.n_pes)
        gexshm_fatal("%s: invalid active set (PE_start %d, logPE_stride %d, PE_size %d, "
                     "%d PEs)", what, PE_start, logPE_stride, PE_size, gexshm.n_pes);
    s->start = PE_start;
    s->stride = 1 << logPE_stride;
    s->size = PE_size;
    int d = gexshm.my_pe - PE_start;
    if (d < 0 || d % s->stride != 0 || d / s->stride >= PE_size)
        gexshm_fatal("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, "
                     "PE_size %d)", what, gexshm.my_pe, PE_start, logPE_stride, PE_size);
    s->me = d / s->stride;
}

static void *legacy_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) gexshm_fatal("out of memory in a collective (%zu bytes)", n);
    return p;
}

/* Central counter barrier.  Members > 0 add 1 to member 0's count and wait
 * for their release flag; member 0 waits for size-1 arrivals, takes them
 * back off the count and only then releases.  Why this survives immediate
 * reuse of pSync: nobody can arrive at the next barrier before being
 * released from this one, so the count member 0 sees is exactly this
 * barrier's, and it is back to 0 before anyone can add to it again; a
 * member clears its flag (with a blocking swap, so the clearing cannot land
 * after the next release) before arriving at the next barrier.  Both words
 * are SHMEM_SYNC_VALUE again once every member has returned. */
static void aset_barrier(const struct aset *s, long *pSync)
{
    if (s->size == 1) return;
    if (s->me != 0) {
        shmem_long_atomic_add(&pSync[PS_COUNT], 1, s->start);
        shmem_long_wait_until(&pSync[PS_RELEASE], SHMEM_CMP_NE, SHMEM_SYNC_VALUE);
        (void)shmem_long_atomic_swap(&pSync[PS_RELEASE], SHMEM_SYNC_VALUE, gexshm.my_pe);
        return;
    }
    shmem_long_wait_until(&pSync[PS_COUNT], SHMEM_CMP_GE, s->size - 1);
    (void)shmem_long_atomic_fetch_add(&pSync[PS_COUNT], -(long)(s->size - 1), gexshm.my_pe);
    for (int i = 1; i < s->size; i++) shmem_long_atomic_set(&pSync[PS_RELEASE], 1, aset_pe(s, i));
}

/* ---- barrier, sync ---- */

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct aset s;
    aset_init(&s, PE_start, logPE_stride, PE_size, "shmem_barrier");
    shmem_quiet();              /* barrier, unlike sync, completes prior updates */
    aset_barrier(&s, pSync);
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct aset s;
    aset_init(&s, PE_start, logPE_stride, PE_size, "shmem_sync");
    aset_barrier(&s, pSync);
}

/* ---- data movement ---- */

static void get_or_copy(void *dest, const void *src, size_t n, int world_pe)
{
    if (n == 0) return;
    if (world_pe == gexshm.my_pe) memmove(dest, src, n);
    else shmem_getmem_nbi(dest, src, n, world_pe);
}

/* Deprecated broadcast: PE_root is an index in the set, and the root's own
 * dest is NOT written. */
static void aset_bcast(void *dest, const void *source, size_t nbytes, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync, const char *what)
{
    struct aset s;
    aset_init(&s, PE_start, logPE_stride, PE_size, what);
    if (PE_root < 0 || PE_root >= PE_size)
        gexshm_fatal("%s: PE_root %d outside the active set of %d PEs", what, PE_root, PE_size);
    aset_barrier(&s, pSync);
    if (s.me != PE_root && nbytes) shmem_getmem(dest, source, nbytes, aset_pe(&s, PE_root));
    aset_barrier(&s, pSync);
}

/* Variable sizes: each PE publishes its size in its own pSync[PS_NBYTES]
 * before the first barrier; the others read it with a get after it.  It is
 * cleared after the second barrier, when nobody can read it any more. */
static void aset_collect(void *dest, const void *source, size_t nbytes, int PE_start,
                         int logPE_stride, int PE_size, long *pSync, const char *what)
{
    struct aset s;
    aset_init(&s, PE_start, logPE_stride, PE_size, what);
    pSync[PS_NBYTES] = (long)nbytes;
    aset_barrier(&s, pSync);
    size_t off = 0;
    for (int j = 0; j < s.size; j++) {
        int pe = aset_pe(&s, j);
        size_t len = j == s.me ? nbytes : (size_t)shmem_long_g(&pSync[PS_NBYTES], pe);
        get_or_copy((char *)dest + off, source, len, pe);
        off += len;
    }
    shmem_quiet();
    aset_barrier(&s, pSync);
    pSync[PS_NBYTES] = SHMEM_SYNC_VALUE;
}

/* fcollect: block j of dest is PE j's source; alltoall: block j of dest is
 * block me of PE j's source. */
enum { FCOLLECT, ALLTOALL };
static void aset_fixed(void *dest, const void *source, size_t nbytes, int PE_start,
                       int logPE_stride, int PE_size, long *pSync, int kind, const char *what)
{
    struct aset s;
    aset_init(&s, PE_start, logPE_stride, PE_size, what);
    aset_barrier(&s, pSync);
    const char *src = (const char *)source + (kind == ALLTOALL ? (size_t)s.me * nbytes : 0);
    for (int j = 0; j < s.size; j++)
        get_or_copy((char *)dest + (size_t)j * nbytes, src, nbytes, aset_pe(&s, j));
    shmem_quiet();
    aset_barrier(&s, pSync);
}

/* dest[dst * (j*nelems + k)] = PE j's source[sst * (me*nelems + k)]. */
static void aset_alltoalls(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                           size_t nelems, size_t es, int PE_start, int logPE_stride,
                           int PE_size, long *pSync, const char *what)
{
    struct aset s;
    aset_init(&s, PE_start, logPE_stride, PE_size, what);
    aset_barrier(&s, pSync);
    ptrdiff_t dblock = dst * (ptrdiff_t)(nelems * es);
    const char *src = (const char *)source + s.me * sst * (ptrdiff_t)(nelems * es);
    for (int j = 0; j < s.size && nelems; j++) {
        char *d = (char *)dest + j * dblock;
        int pe = aset_pe(&s, j);
        if (pe != gexshm.my_pe) {
            if (es == 4) shmem_iget32(d, src, dst, sst, nelems, pe);
            else shmem_iget64(d, src, dst, sst, nelems, pe);
            continue;
        }
        for (size_t i = 0; i < nelems; i++)
            memmove(d + (ptrdiff_t)i * dst * (ptrdiff_t)es, src + (ptrdiff_t)i * sst * (ptrdiff_t)es, es);
    }
    aset_barrier(&s, pSync);
}

#define GEXSHM_LEGACY_DATA(BITS)                                                          \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,  \
                               int PE_start, int logPE_stride, int PE_size, long *pSync)   \
    {                                                                                      \
        aset_bcast(dest, source, nelems * (BITS / 8), PE_root, PE_start, logPE_stride,     \
                   PE_size, pSync, "shmem_broadcast" #BITS);                               \
    }                                                                                      \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,  \
                             int logPE_stride, int PE_size, long *pSync)                   \
    {                                                                                      \
        aset_collect(dest, source, nelems * (BITS / 8), PE_start, logPE_stride, PE_size,   \
                     pSync, "shmem_collect" #BITS);                                        \
    }                                                                                      \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                              int logPE_stride, int PE_size, long *pSync)                  \
    {                                                                                      \
        aset_fixed(dest, source, nelems * (BITS / 8), PE_start, logPE_stride, PE_size,     \
                   pSync, FCOLLECT, "shmem_fcollect" #BITS);                               \
    }                                                                                      \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                              int logPE_stride, int PE_size, long *pSync)                  \
    {                                                                                      \
        aset_fixed(dest, source, nelems * (BITS / 8), PE_start, logPE_stride, PE_size,     \
                   pSync, ALLTOALL, "shmem_alltoall" #BITS);                               \
    }                                                                                      \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst,              \
                               ptrdiff_t sst, size_t nelems, int PE_start,                 \
                               int logPE_stride, int PE_size, long *pSync)                 \
    {                                                                                      \
        aset_alltoalls(dest, source, dst, sst, nelems, BITS / 8, PE_start, logPE_stride,   \
                       PE_size, pSync, "shmem_alltoalls" #BITS);                           \
    }
GEXSHM_LEGACY_DATA(32)
GEXSHM_LEGACY_DATA(64)

/* ---- reductions (*_to_all) ----
 * Every member gets every source and combines them locally, in the same
 * order everywhere (member 0 leftmost), so all results are bitwise equal.
 * dest is written only after the second barrier: with dest == source, a
 * slower member may still be reading ours until then. */
static void aset_reduce(void *dest, const void *source, int nreduce, size_t es,
                        gex_Coll_ReduceFn_t combine, int PE_start, int logPE_stride,
                        int PE_size, long *pSync, const char *what)
{
    struct aset s;
    aset_init(&s, PE_start, logPE_stride, PE_size, what);
    if (nreduce <= 0) return;   /* single-valued: every member leaves here */
    size_t n = (size_t)nreduce, nb = n * es;
    char *acc = legacy_alloc(2 * nb), *buf = acc + nb;
    aset_barrier(&s, pSync);
    for (int j = s.size - 1; j >= 0; j--) {
        char *to = j == s.size - 1 ? acc : buf;
        int pe = aset_pe(&s, j);
        if (pe == gexshm.my_pe) memcpy(to, source, nb);
        else shmem_getmem(to, source, nb, pe);
        if (to == buf) combine(buf, acc, n, NULL);   /* acc = src_j (op) acc */
    }
    aset_barrier(&s, pSync);
    memcpy(dest, acc, nb);
    free(acc);
}

#define GEXSHM_TO_ALL(T, N, OP)                                                           \
    GEXSHM_REDUCE_OP(T, N, OP)                                                            \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,    \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)    \
    {                                                                                      \
        (void)pWrk;                                                                        \
        aset_reduce(dest, source, nreduce, sizeof(T), gexshm_op_##N##_##OP, PE_start,      \
                    logPE_stride, PE_size, pSync, "shmem_" #N "_" #OP "_to_all");          \
    }
#define GEXSHM_TO_ALL_BIT(T, N) GEXSHM_TO_ALL(T, N, and) GEXSHM_TO_ALL(T, N, or) GEXSHM_TO_ALL(T, N, xor)
#define GEXSHM_TO_ALL_MINMAX(T, N) GEXSHM_TO_ALL(T, N, max) GEXSHM_TO_ALL(T, N, min)
#define GEXSHM_TO_ALL_ARITH(T, N) GEXSHM_TO_ALL(T, N, sum) GEXSHM_TO_ALL(T, N, prod)
GEXSHMEM_TOALL_BIT_TYPES(GEXSHM_TO_ALL_BIT)
GEXSHMEM_TOALL_MINMAX_TYPES(GEXSHM_TO_ALL_MINMAX)
GEXSHMEM_TOALL_ARITH_TYPES(GEXSHM_TO_ALL_ARITH)
