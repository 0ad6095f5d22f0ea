/*
 * coll_allgather.c: the all-gather that team construction (gex_TM_Split's
 * colors and keys) and segment publication over a team (core's
 * gexi_set_team_exchange hook) are built on.
 *
 * Bruck's algorithm: in round k (k < ceil(log2 N)) member r sends the first
 * min(2^k, N - 2^k) blocks it holds to r - 2^k and appends what r + 2^k
 * sends; after the last round member r holds the blocks of r, r+1, ...,
 * r+N-1 (mod N), which one rotation puts in rank order.  Any N, ceil(log2 N)
 * rounds, each member sends and receives N-1 blocks in total: nobody
 * gathers everything first.  Rounds travel in MaxMedium pieces.
 */
#include "coll_internal.h"
#include <stdlib.h>
#include <string.h>

enum { PH_BRUCK = 8 };

struct ag_op {
    struct gexi_coll_op op;
    gex_Rank_t me, n;
    size_t len;
    unsigned rounds, k;                /* round k is being sent/received */
    unsigned char *tmp;                /* [n * len], block i = member me + i */
    unsigned char *all;
    size_t *arrived;                   /* [rounds] pieces */
    size_t sentp;                      /* pieces of round k sent */
};

static size_t round_blocks(const struct ag_op *a, unsigned k)
{
    const uint64_t p = (uint64_t)1 << k;
    return (size_t)(p < a->n - p ? p : a->n - p);
}

static void ag_on_msg(struct gexi_coll_op *o, uint32_t step, uint32_t idx, const void *p,
                      size_t n)
{
    struct ag_op *a = (struct ag_op *)o;
    const unsigned k = GEXI_COLL_SUB(step);
    struct gexi_coll_layout L;
    size_t off, len;
    if (GEXI_COLL_PHASE(step) != PH_BRUCK || k >= a->rounds) goto bad;
    gexi_coll_layout_init(&L, 1, round_blocks(a, k) * a->len);
    if (idx >= L.npieces) goto bad;
    gexi_coll_piece(&L, idx, &off, &len);
    if (len != n) goto bad;
    memcpy(a->tmp + ((size_t)1 << k) * a->len + off, p, n);
    a->arrived[k]++;
    return;
bad:
    gexi_fatal("libgex-coll: all-gather got an unexpected message (step 0x%x piece %u, %zu "
               "bytes): collective calls do not match across the team", step, idx, n);
}

static void ag_advance(struct gexi_coll_op *o, struct gexi_coll_outbox *ob)
{
    struct ag_op *a = (struct ag_op *)o;
    while (a->k < a->rounds) {
        struct gexi_coll_layout L;
        gexi_coll_layout_init(&L, 1, round_blocks(a, a->k) * a->len);
        const gex_Rank_t to =
            (gex_Rank_t)(((uint64_t)a->me + a->n - ((uint64_t)1 << a->k) % a->n) % a->n);
        while (a->sentp < L.npieces) {
            size_t off, len;
            gexi_coll_piece(&L, a->sentp, &off, &len);
            if (!gexi_coll_send(ob, o, to, GEXI_COLL_STEP(PH_BRUCK, a->k), (uint32_t)a->sentp,
                                a->tmp + off, len))
                return;
            a->sentp++;
        }
        if (a->arrived[a->k] < L.npieces) return;
        a->k++;
        a->sentp = 0;
    }
    for (gex_Rank_t i = 0; i < a->n; i++)
        memcpy(a->all + (size_t)((a->me + (uint64_t)i) % a->n) * a->len, a->tmp + (size_t)i * a->len,
               a->len);
    o->done = 1;
}

static void ag_fini(struct gexi_coll_op *o)
{
    struct ag_op *a = (struct ag_op *)o;
    free(a->tmp);
    free(a->arrived);
}

static const struct gexi_coll_op_vt ag_vt = {
    .name = "allgather-bruck", .on_msg = ag_on_msg, .advance = ag_advance, .fini = ag_fini,
};

gex_Event_t gexi_coll_allgather(gex_TM_t tm, void *all, const void *mine, size_t len)
{
    const struct gexi_tm *t = gexi_tm_of(tm);
    struct ag_op *a = gexi_coll_op_alloc(sizeof *a, &ag_vt, tm);
    a->me = t->rank;
    a->n = t->size;
    a->len = len;
    a->all = all;
    a->rounds = gexi_coll_ceil_log2(t->size);
    a->tmp = gexi_coll_xmalloc((size_t)t->size * len);
    a->arrived = gexi_coll_xcalloc(a->rounds ? a->rounds : 1, sizeof *a->arrived);
    memcpy(a->tmp, mine, len);
    return gexi_coll_start(&a->op);
}

int gexi_coll_team_exchange(gex_TM_t tm, const void *mine, size_t len, void *all)
{
    if (!tm || gexi_tm_is_pair(tm) || !gexi_tm_of(tm)->coll_state) return GASNET_ERR_BAD_ARG;
    gex_Event_Wait(gexi_coll_allgather(tm, all, mine, len));
    return GASNET_OK;
}
