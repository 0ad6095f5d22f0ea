/*
 * vis_rma.c: one contiguous RMA per piece, through the public gex_RMA_*
 * calls of libgex-rma (so whatever libgex-rma binds: its PSHM bypass, its
 * reference path over AM Longs, a conduit's native RMA).  Used when the
 * pieces are large enough that per-message costs do not matter (at least
 * GEX_VIS_RMA_MIN bytes), and for every call under GEX_FORCE_REFERENCE=vis
 * (the plain path the benchmarks compare against).
 *
 * The two sides are walked together; each step moves the smaller of the two
 * current runs, so list shapes need not match.
 *
 * Completion, by how the caller synchronizes:
 *   Blocking: the pieces go out as gex_RMA_*NB, their events retired with
 *     gex_Event_WaitAll in batches of BATCH (pipelined, bounded memory);
 *   NBI: each piece is itself an NBI RMA of the same category (GEX_EC_PUT or
 *     GEX_EC_GET), counted in the caller's NBI counters or open access
 *     region; a put with GEX_FLAG_ENABLE_LEAF_LC passes GEX_EVENT_GROUP so
 *     local completion is counted as the spec's lc_opt=GEX_EVENT_GROUP;
 *   NB: the pieces' events are kept in a heap record on a pending list and
 *     the VIS root event holds one completion; a progress hook (run by every
 *     poll) tests the records and completes the root (and its LC leaf, which
 *     this path folds into operation completion: the spec lets local
 *     completion happen as late as that) when all of a record's are done.
 *
 * GEX_FLAG_IMMEDIATE goes with the first piece only: refused, nothing was
 * done; once a piece is out the operation cannot be unwound.
 */
#include "vis_internal.h"
#include <pthread.h>
#include <stdlib.h>

#define BATCH 64

/* An NB operation in flight. */
struct nb_rec {
    struct nb_rec *next;
    struct gexi_event *ev;       /* the VIS root */
    size_t n, cap;
    gex_Event_t evs[];
};
static struct nb_rec *pending;
static _Atomic unsigned n_pending;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

void gexi_vis_rma_progress(void)
{
    if (GEXI_LIKELY(atomic_load_explicit(&n_pending, memory_order_relaxed) == 0)) return;
    if (pthread_mutex_trylock(&pending_lock) != 0) return; /* another thread is at it */
    for (struct nb_rec **pp = &pending; *pp;) {
        struct nb_rec *r = *pp;
        if (gex_Event_TestAll(r->evs, r->n, 0) != GASNET_OK) {
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        atomic_fetch_sub_explicit(&n_pending, 1, memory_order_relaxed);
        struct gexi_event *ev = r->ev;
        free(r);
        if (ev->h.flags & GEXI_EVF_HAS_LC) gexi_counter_done(&ev->lc.pending, 1);
        gexi_counter_done(&ev->h.pending, 1);
    }
    pthread_mutex_unlock(&pending_lock);
}

static struct nb_rec *rec_push(struct nb_rec *r, gex_Event_t e)
{
    if (r->n == r->cap) {
        size_t cap = r->cap * 2;
        struct nb_rec *g = realloc(r, sizeof *r + cap * sizeof(gex_Event_t));
        if (!g) gexi_fatal("VIS: out of memory for %zu events", cap);
        r = g;
        r->cap = cap;
    }
    r->evs[r->n++] = e;
    return r;
}

/* One piece: returns the RMA's event (NB), or 0/1 as an int in *refused. */
static gex_Event_t piece(const struct gexi_vis_op *op, char *lp, char *pp, size_t m,
                         gex_Flags_t flags, int nbi, int *refused)
{
    gex_Flags_t f = flags & ~GEX_FLAG_ENABLE_LEAF_LC;
    if (op->is_put) {
        if (nbi) {
            gex_Event_t *lc = (flags & GEX_FLAG_ENABLE_LEAF_LC) ? GEX_EVENT_GROUP : GEX_EVENT_DEFER;
            *refused = gex_RMA_PutNBI(op->tm, op->rank, pp, lp, m, lc, f);
            return GEX_EVENT_INVALID;
        }
        gex_Event_t e = gex_RMA_PutNB(op->tm, op->rank, pp, lp, m, GEX_EVENT_DEFER, f);
        *refused = e == GEX_EVENT_NO_OP;
        return e;
    }
    if (nbi) {
        *refused = gex_RMA_GetNBI(op->tm, lp, op->rank, pp, m, f);
        return GEX_EVENT_INVALID;
    }
    gex_Event_t e = gex_RMA_GetNB(op->tm, lp, op->rank, pp, m, f);
    *refused = e == GEX_EVENT_NO_OP;
    return e;
}

gex_Event_t gexi_vis_rma_run(struct gexi_vis_op *op)
{
    /* The flags an RMA call takes: VIS's assertions pass through. */
    gex_Flags_t flags = op->flags & ~GEX_FLAG_IMMEDIATE;
    gex_Flags_t first = op->flags & GEX_FLAG_IMMEDIATE;
    const int nbi = op->sync == GEXI_VIS_NBI;
    gex_Event_t batch[BATCH];
    size_t nb = 0;
    struct nb_rec *rec = NULL;
    if (op->sync == GEXI_VIS_NB) {
        rec = malloc(sizeof *rec + 16 * sizeof(gex_Event_t));
        if (!rec) gexi_fatal("VIS: out of memory");
        rec->n = 0;
        rec->cap = 16;
    }
    struct gexi_vis_cur lc, pc;
    gexi_vis_seek(&op->loc, &lc, 0, 0);
    gexi_vis_seek(&op->peer, &pc, 0, 0);
    for (size_t left = op->total; left;) {
        char *lp, *pp;
        size_t rl = gexi_vis_run(&op->loc, &lc, &lp), rp = gexi_vis_run(&op->peer, &pc, &pp);
        size_t m = rl < rp ? rl : rp;
        if (m > left) m = left;
        if (GEXI_UNLIKELY(!m)) gexi_fatal("VIS: data stream longer than its pieces");
        int refused;
        gex_Event_t e = piece(op, lp, pp, m, flags | first, nbi, &refused);
        if (refused) { /* only the first piece can be refused */
            free(rec);
            return GEX_EVENT_NO_OP;
        }
        first = 0;
        if (rec) {
            if (e != GEX_EVENT_INVALID) rec = rec_push(rec, e);
        } else if (!nbi && e != GEX_EVENT_INVALID) {
            batch[nb++] = e;
            if (nb == BATCH) {
                gex_Event_WaitAll(batch, nb, 0);
                nb = 0;
            }
        }
        gexi_vis_skip(&op->loc, &lc, m);
        gexi_vis_skip(&op->peer, &pc, m);
        left -= m;
    }
    if (nb) gex_Event_WaitAll(batch, nb, 0);
    if (!rec) return GEX_EVENT_INVALID;
    if (rec->n == 0) { /* every piece completed at once (PSHM, self) */
        free(rec);
        return GEX_EVENT_INVALID;
    }
    const int lc_leaf = op->is_put && (op->flags & GEX_FLAG_ENABLE_LEAF_LC);
    struct gexi_event *ev = gexi_event_new(op->is_put ? GEX_EC_PUT : GEX_EC_GET, 1, lc_leaf);
    rec->ev = ev;
    pthread_mutex_lock(&pending_lock);
    rec->next = pending;
    pending = rec;
    atomic_fetch_add_explicit(&n_pending, 1, memory_order_relaxed);
    pthread_mutex_unlock(&pending_lock);
    return gexi_event_handle(ev);
}
