/*
 * coll_barrier.c: gex_Coll_BarrierNB (spec: "Collectives Part I.  Barrier").
 *
 * Teams in one nbrhd use the shared-memory counter of their slot
 * (coll_shm.c).  Everything else runs the dissemination barrier over AM
 * Shorts: ceil(log2 N) rounds; in round k member r notifies r + 2^k and
 * waits for r - 2^k (mod N), so after the last round every member has heard,
 * directly or transitively, from all others.  Any N works, odd ones
 * included; each member sends and receives exactly one message per round.
 *
 * Memory ordering (spec): initiation is a release because the notification
 * is published by the conduit with release order after everything the
 * caller wrote; synchronization is an acquire because the event is read
 * with acquire order after the handler recorded the last arrival.
 */
#include "coll_internal.h"

struct bar_op {
    struct gexi_coll_op op;
    gex_Rank_t me, n;
    unsigned rounds, k;        /* next round to complete */
    uint32_t sent, arrived;    /* bit per round */
};

static void bar_on_msg(struct gexi_coll_op *o, uint32_t step, uint32_t idx, const void *p,
                       size_t n)
{
    struct bar_op *b = (struct bar_op *)o;
    b->arrived |= 1u << GEXI_COLL_SUB(step);
}

static void bar_advance(struct gexi_coll_op *o, struct gexi_coll_outbox *ob)
{
    struct bar_op *b = (struct bar_op *)o;
    while (b->k < b->rounds) {
        const uint32_t bit = 1u << b->k;
        if (!(b->sent & bit)) {
            gex_Rank_t to = (gex_Rank_t)(((uint64_t)b->me + ((uint64_t)1 << b->k)) % b->n);
            if (!gexi_coll_send_short(ob, o, to, GEXI_COLL_STEP(0, b->k), 0)) return;
            b->sent |= bit;
        }
        if (!(b->arrived & bit)) return;
        b->k++;
    }
    o->done = 1;
}

static const struct gexi_coll_op_vt bar_vt = {
    .name = "barrier-dissemination", .on_msg = bar_on_msg, .advance = bar_advance,
};

gex_Event_t gexi_coll_barrier_am(gex_TM_t tm)
{
    const struct gexi_tm *t = gexi_tm_of(tm);
    struct bar_op *b = gexi_coll_op_alloc(sizeof *b, &bar_vt, tm);
    b->me = t->rank;
    b->n = t->size;
    b->rounds = gexi_coll_ceil_log2(t->size);
    return gexi_coll_start(&b->op);
}

gex_Event_t gexi_coll_barrier_any(gex_TM_t tm)
{
    struct gexi_coll_member *m = gexi_coll_member_of(tm);
    if (m->slot) return gexi_coll_shm_barrier(tm);
    if (gexi_tm_of(tm)->size == 1) {
        gexi_coll_next_seq(m);
        return GEX_EVENT_INVALID;
    }
    return gexi_coll_barrier_am(tm);
}

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags)
{
    gexi_coll_check_tm(__func__, tm);
    if (flags) gexi_coll_bad_arg(__func__, "flags must be zero (got 0x%x)", (unsigned)flags);
    /* A barrier is a progress point, as in GASNet: AMs this rank sent to
     * itself before it (and VIS peer completions) run by the time it is
     * over.  Without this poll they did not when the barrier completed at
     * once: always on a 1-rank team, and for the last rank to arrive (the
     * event is already complete, and gex_Event_Wait then does not poll). */
    gexi_poll();
    return gexi_coll_barrier_any(tm);
}
