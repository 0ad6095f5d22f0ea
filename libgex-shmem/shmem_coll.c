/* shmem_coll.c: OpenSHMEM 1.5 barriers and team-based collectives
 * ("Collective Routines").  The deprecated active-set forms are in
 * shmem_coll_legacy.c.
 *
 * Every team owns a GEX team over its members (shmem_team.c), so:
 *  - barrier/sync, broadcast and reductions are the GEX collectives on it;
 *  - collect, fcollect, alltoall(s) have no GEX equivalent and are puts
 *    into the (symmetric) dest arrays of the peers, bracketed by team
 *    barriers.  The leading barrier is needed because a peer may still be
 *    reading its dest (e.g. the result of the previous collective) until it
 *    enters this one; the trailing quiet + barrier makes every PE's dest
 *    complete, and every source free for reuse, when the call returns.
 *
 * Routines return 0, or nonzero (doing nothing) for SHMEM_TEAM_INVALID or
 * an invalid root: arguments are the same on every PE, so every PE takes
 * the same way out. */
#include "shmem_internal.h"
#include "shmem_coll_ops.h"
#include <gex/shmem_types.h>

#include <stdlib.h>
#include <string.h>

static void *coll_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) gexshm_fatal("out of memory in a collective (%zu bytes)", n);
    return p;
}

/* ---- barriers ---- */

void gexshm_tm_barrier(gex_TM_t tm)
{
    gexshm_wait(gex_Coll_BarrierNB(tm, 0));
}

/* Spec: completes the memory updates issued on the default context first. */
void shmem_barrier_all(void)
{
    gexshm_require_init("shmem_barrier_all");
    shmem_quiet();
    gexshm_tm_barrier(gexshm.tm);
}

void shmem_sync_all(void)
{
    gexshm_require_init("shmem_sync_all");
    gexshm_tm_barrier(gexshm.tm);
}

int shmem_team_sync(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID) return -1;
    gexshm_tm_barrier(gexshm_team(team)->tm);
    return 0;
}

/* ---- broadcast ---- */

/* 1.5: the root's dest is written too (unlike shmem_broadcast32/64);
 * gex_Coll_BroadcastNB copies src to dst on the root unless they are the
 * same address, which is what the spec allows for in-place use. */
static int team_bcast(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                      int root)
{
    if (team == SHMEM_TEAM_INVALID) return -1;
    struct gexshm_team *t = gexshm_team(team);
    if (root < 0 || root >= t->n_pes) return -1;
    if (nbytes) gexshm_wait(gex_Coll_BroadcastNB(t->tm, (gex_Rank_t)root, dest, source, nbytes, 0));
    return 0;
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return team_bcast(team, dest, source, nelems, PE_root);
}

#define GEXSHM_BCAST(T, N)                                                                \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,  \
                              int PE_root)                                                 \
    {                                                                                      \
        return team_bcast(team, dest, source, nelems * sizeof(T), PE_root);                \
    }
GEXSHMEM_RMA_TYPES(GEXSHM_BCAST)

/* ---- collect, fcollect, alltoall(s): puts between two barriers ----
 * PE i sends to i+1, i+2, ... first so that not everyone starts on PE 0. */

static void put_or_copy(void *dest, const void *src, size_t n, int world_pe)
{
    if (n == 0) return;
    if (world_pe == gexshm.my_pe) memmove(dest, src, n);
    else shmem_putmem_nbi(dest, src, n, world_pe);
}

/* Variable sizes: the offset of each PE's block is the sum of the lower
 * PEs' sizes.  One all-reduce of the size vector (each PE fills its own
 * slot) gives every PE all sizes; it cannot complete before every member
 * entered, so it also serves as the leading barrier. */
static int team_collect(shmem_team_t team, void *dest, const void *source, size_t nbytes)
{
    if (team == SHMEM_TEAM_INVALID) return -1;
    struct gexshm_team *t = gexshm_team(team);
    int n = t->n_pes, me = t->my_pe;
    if (n == 1) {
        if (nbytes) memmove(dest, source, nbytes);
        return 0;
    }
    uint64_t *sz = coll_alloc(2 * (size_t)n * sizeof *sz), *all = sz + n;
    memset(sz, 0, (size_t)n * sizeof *sz);
    sz[me] = nbytes;
    gexshm_wait(gex_Coll_ReduceToAllNB(t->tm, all, sz, GEX_DT_U64, sizeof *sz, (size_t)n,
                                       GEX_OP_ADD, NULL, NULL, 0));
    size_t off = 0;
    for (int i = 0; i < me; i++) off += all[i];
    free(sz);
    for (int k = 0; k < n; k++) {
        int j = (me + k) % n;
        put_or_copy((char *)dest + off, source, nbytes, t->pes[j]);
    }
    shmem_quiet();
    gexshm_tm_barrier(t->tm);
    return 0;
}

/* kind: fcollect (my block to slot me of everyone) or alltoall (block j of
 * my source to slot me of PE j). */
enum { FCOLLECT, ALLTOALL };
static int team_fixed(shmem_team_t team, void *dest, const void *source, size_t nbytes, int kind)
{
    if (team == SHMEM_TEAM_INVALID) return -1;
    struct gexshm_team *t = gexshm_team(team);
    int n = t->n_pes, me = t->my_pe;
    if (n > 1) gexshm_tm_barrier(t->tm);
    for (int k = 0; k < n; k++) {
        int j = (me + k) % n;
        const char *src = (const char *)source + (kind == ALLTOALL ? (size_t)j * nbytes : 0);
        put_or_copy((char *)dest + (size_t)me * nbytes, src, nbytes, t->pes[j]);
    }
    if (n > 1) {
        shmem_quiet();
        gexshm_tm_barrier(t->tm);
    }
    return 0;
}

/* Strided put of n elements of es bytes, through the sized iput when there
 * is one (element sizes of the RMA type table are 1..16 bytes). */
static void iput_es(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                    size_t es, int pe)
{
    switch (es) {
    case 1: shmem_iput8(dest, src, dst, sst, n, pe); return;
    case 2: shmem_iput16(dest, src, dst, sst, n, pe); return;
    case 4: shmem_iput32(dest, src, dst, sst, n, pe); return;
    case 8: shmem_iput64(dest, src, dst, sst, n, pe); return;
    case 16: shmem_iput128(dest, src, dst, sst, n, pe); return;
    }
    for (size_t i = 0; i < n; i++)
        shmem_putmem_nbi((char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)es,
                         (const char *)src + (ptrdiff_t)i * sst * (ptrdiff_t)es, es, pe);
}

/* PE j's dest[dst * (me*nelems + k)] = my source[sst * (j*nelems + k)]. */
static int team_alltoalls(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t es)
{
    if (team == SHMEM_TEAM_INVALID) return -1;
    struct gexshm_team *t = gexshm_team(team);
    int n = t->n_pes, me = t->my_pe;
    if (n > 1) gexshm_tm_barrier(t->tm);
    ptrdiff_t dblock = dst * (ptrdiff_t)(nelems * es), sblock = sst * (ptrdiff_t)(nelems * es);
    for (int k = 0; k < n; k++) {
        int j = (me + k) % n;
        char *d = (char *)dest + me * dblock;
        const char *s = (const char *)source + j * sblock;
        if (t->pes[j] != gexshm.my_pe) {
            if (nelems) iput_es(d, s, dst, sst, nelems, es, t->pes[j]);
            continue;
        }
        for (size_t i = 0; i < nelems; i++)
            memmove(d + (ptrdiff_t)i * dst * (ptrdiff_t)es, s + (ptrdiff_t)i * sst * (ptrdiff_t)es, es);
    }
    if (n > 1) {
        shmem_quiet();
        gexshm_tm_barrier(t->tm);
    }
    return 0;
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return team_collect(team, dest, source, nelems);
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return team_fixed(team, dest, source, nelems, FCOLLECT);
}
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return team_fixed(team, dest, source, nelems, ALLTOALL);
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return team_alltoalls(team, dest, source, dst, sst, nelems, 1);
}

#define GEXSHM_DATA_COLLS(T, N)                                                           \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)    \
    {                                                                                      \
        return team_collect(team, dest, source, nelems * sizeof(T));                       \
    }                                                                                      \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                      \
        return team_fixed(team, dest, source, nelems * sizeof(T), FCOLLECT);               \
    }                                                                                      \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                      \
        return team_fixed(team, dest, source, nelems * sizeof(T), ALLTOALL);               \
    }                                                                                      \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems)                                \
    {                                                                                      \
        return team_alltoalls(team, dest, source, dst, sst, nelems, sizeof(T));            \
    }
GEXSHMEM_RMA_TYPES(GEXSHM_DATA_COLLS)

/* ---- reductions: gex_Coll_ReduceToAllNB on the team ----
 * Built-in GEX_DT_* x GEX_OP_* where the type has one, else GEX_OP_USER
 * with the element-wise operator (all OpenSHMEM reductions are commutative
 * and, up to floating-point rounding, associative: what GEX_OP_USER
 * assumes).  GEX allows src == dst only if it holds on every rank; an
 * in-place call reduces from a private copy so that nothing depends on it. */
static int team_reduce(shmem_team_t team, void *dest, const void *source, size_t n, size_t es,
                       gex_DT_t dt, gex_OP_t op, gex_Coll_ReduceFn_t fn)
{
    if (team == SHMEM_TEAM_INVALID) return -1;
    if (n == 0) return 0;   /* GEX requires dt_cnt > 0; nreduce is single-valued */
    struct gexshm_team *t = gexshm_team(team);
    void *copy = NULL;
    if (dest == source) {
        copy = coll_alloc(n * es);
        memcpy(copy, source, n * es);
        source = copy;
    }
    if (dt == GEX_DT_USER) op = GEX_OP_USER;
    else fn = NULL;
    gexshm_wait(gex_Coll_ReduceToAllNB(t->tm, dest, source, dt, es, n, op, fn, NULL, 0));
    free(copy);
    return 0;
}

#define GEXSHM_TEAM_REDUCE(T, N, OP)                                                      \
    GEXSHM_REDUCE_OP(T, N, OP)                                                            \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,             \
                                  size_t nreduce)                                          \
    {                                                                                      \
        return team_reduce(team, dest, source, nreduce, sizeof(T), GEXSHM_DT(T),           \
                           GEXSHM_GEXOP_##OP, gexshm_op_##N##_##OP);                       \
    }
#define GEXSHM_TEAM_REDUCE_BIT(T, N)                                                      \
    GEXSHM_TEAM_REDUCE(T, N, and) GEXSHM_TEAM_REDUCE(T, N, or) GEXSHM_TEAM_REDUCE(T, N, xor)
#define GEXSHM_TEAM_REDUCE_MINMAX(T, N) GEXSHM_TEAM_REDUCE(T, N, max) GEXSHM_TEAM_REDUCE(T, N, min)
#define GEXSHM_TEAM_REDUCE_ARITH(T, N) GEXSHM_TEAM_REDUCE(T, N, sum) GEXSHM_TEAM_REDUCE(T, N, prod)
GEXSHMEM_REDUCE_BIT_TYPES(GEXSHM_TEAM_REDUCE_BIT)
GEXSHMEM_REDUCE_MINMAX_TYPES(GEXSHM_TEAM_REDUCE_MINMAX)
GEXSHMEM_REDUCE_ARITH_TYPES(GEXSHM_TEAM_REDUCE_ARITH)
