/*
 * coll_legacy.c: the GASNet-1 split-phase barrier over the primordial team
 * (gasnet.h: gasnet_barrier_notify, _wait, _try, gasnet_barrier,
 * gasnet_barrier_result).
 *
 * Named barriers must detect a mismatch: every caller contributes (flags,
 * id) and an all-reduce over the primordial team combines them with an
 * associative, commutative, idempotent operator:
 *   anonymous (o) x = x;  named(a) (o) named(b) = a == b ? named(a) : MISMATCH;
 *   MISMATCH absorbs everything.
 * The all-reduce completes only after every member contributed, so it is a
 * barrier; it runs on whichever algorithm the all-reduce picks (the nbrhd
 * slot, or recursive doubling over AM).  It is collective over the
 * primordial team in the same sequence as gex_Coll_* calls, which the spec
 * forbids from overlapping with it anyway ("Collectives (Coll)").
 * GASNET_BARRIERFLAG_UNNAMED is treated as anonymous (no id to compare).
 */
#include "coll_internal.h"

enum { LB_ANON = 1, LB_MISMATCH = 2 };
struct lb_val {
    int32_t flags, id;
};

static void lb_combine(const void *arg1, void *arg2, size_t count, const void *cdata)
{
    const struct lb_val *x = arg1;
    struct lb_val *y = arg2;
    for (size_t i = 0; i < count; i++) {
        const struct lb_val a = x[i], b = y[i];
        struct lb_val r;
        if ((a.flags | b.flags) & LB_MISMATCH) r = (struct lb_val){ LB_MISMATCH, 0 };
        else if (a.flags & LB_ANON) r = b;
        else if (b.flags & LB_ANON) r = a;
        else if (a.id != b.id) r = (struct lb_val){ LB_MISMATCH, 0 };
        else r = a;
        y[i] = r;
    }
}

static struct {
    int notified;
    int notify_id, notify_flags;
    struct lb_val in, out;
    gex_Event_t ev;
    int have_result, result_anon, result_id;
} lb;

static int anonymous(int flags)
{
    return (flags & (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_UNNAMED)) != 0;
}

static gex_TM_t primordial(const char *func)
{
    if (!gexi_core.initialized || !gexi_core.client)
        gexi_fatal("%s: GASNet is not initialized", func);
    return (gex_TM_t)gexi_core.client->primordial_tm;
}

void gasnet_barrier_notify(int id, int flags)
{
    gex_TM_t tm = primordial(__func__);
    if (lb.notified)
        gexi_fatal("gasnet_barrier_notify: the previous barrier was not completed with "
                   "gasnet_barrier_wait or gasnet_barrier_try");
    gexi_poll(); /* a progress point, like gex_Coll_BarrierNB (coll_barrier.c) */
    lb.notify_id = id;
    lb.notify_flags = flags;
    lb.in.flags = anonymous(flags) ? LB_ANON : 0;
    if (flags & GASNET_BARRIERFLAG_MISMATCH) lb.in.flags = LB_MISMATCH;
    lb.in.id = id;
    const struct gexi_coll_redop r = { lb_combine, NULL, sizeof(struct lb_val), 1 };
    lb.notified = 1;
    lb.ev = gexi_coll_reduce_all(tm, &lb.out, &lb.in, &r, 1);
}

/* The barrier is complete: its result against the id and flags of wait/try. */
static int lb_result(int id, int flags)
{
    lb.notified = 0;
    int rc = GASNET_OK;
    const int mismatch = (lb.out.flags & LB_MISMATCH) != 0;
    if (mismatch) {
        rc = GASNET_ERR_BARRIER_MISMATCH;
    } else if (!anonymous(flags)) {
        /* A named wait must name what its notify named, and the barrier. */
        if (!anonymous(lb.notify_flags) && id != lb.notify_id) rc = GASNET_ERR_BARRIER_MISMATCH;
        else if (!(lb.out.flags & LB_ANON) && id != lb.out.id) rc = GASNET_ERR_BARRIER_MISMATCH;
    }
    lb.have_result = 1;
    lb.result_anon = !mismatch && (lb.out.flags & LB_ANON);
    lb.result_id = lb.out.id;
    return rc;
}

int gasnet_barrier_wait(int id, int flags)
{
    primordial(__func__);
    if (!lb.notified) gexi_fatal("gasnet_barrier_wait: no preceding gasnet_barrier_notify");
    gex_Event_Wait(lb.ev);
    return lb_result(id, flags);
}

int gasnet_barrier_try(int id, int flags)
{
    primordial(__func__);
    if (!lb.notified) gexi_fatal("gasnet_barrier_try: no preceding gasnet_barrier_notify");
    gexi_poll();
    if (gex_Event_Test(lb.ev) != GASNET_OK) return GASNET_ERR_NOT_READY;
    return lb_result(id, flags);
}

int gasnet_barrier(int id, int flags)
{
    gasnet_barrier_notify(id, flags);
    return gasnet_barrier_wait(id, flags);
}

int gasnet_barrier_result(int *id)
{
    if (!lb.have_result) {
        GEXI_REPORT_ERR("returning 0", "no barrier has completed yet");
        return 0;
    }
    if (!lb.result_anon && id) *id = lb.result_id;
    return lb.result_anon;
}
