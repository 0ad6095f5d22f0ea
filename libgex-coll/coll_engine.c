/*
 * coll_engine.c: what every collective shares: member records (found by
 * team id and local EP index), sequence numbers, the two AM handlers, early
 * arrivals, and the engine that advances operations.
 *
 * Threads.  AM handlers run in whatever thread polls; they take the lock,
 * find the member and the operation by sequence number, and let it record
 * the message (or keep it as an early arrival).  They never send: a handler
 * may not issue Requests (spec: "Calls from restricted context").  The
 * engine runs from core's progress hook after every conduit poll and at
 * initiation; it calls advance() under the lock, which queues sends in an
 * outbox, and performs the sends after releasing the lock, because a send
 * that finds the ring full polls, and the handlers it runs take the lock.
 *
 * Lanes.  Operations wait for the engine in one of GASNET_MAXEPS lanes:
 * lane 0 holds those of teams over thread-safe EPs, which one thread at a
 * time advances, whichever polls; lane e those of teams over serialized EP
 * e, which only e's owner thread advances (core tells which EPs a thread
 * owns: gexi_ep_ser_serve), so that only the owner sends from e and e's
 * rings need no locks (docs/endpoints.md).  Shared-memory operations never
 * send, but they too wait in their lane: a serialized EP's collectives
 * progress only in its owner thread, whatever the algorithm.
 *
 * Buffers.  An operation is advanced only when none of its sends is
 * outstanding, so every buffer it sent from can be changed again; and it
 * retires (signals its event, frees itself) only then too, so nothing can
 * touch the client's buffers or the team after the client saw completion.
 * Every algorithm is written so that a member receives all messages
 * addressed to it before it completes: a locally quiesced team has no
 * message in flight towards it, which is why gex_TM_Destroy needs no
 * synchronization.
 */
#include "coll_internal.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

pthread_mutex_t gexi_coll_lock = PTHREAD_MUTEX_INITIALIZER;

/* An arrival for an operation that has not started here yet. */
struct gexi_coll_msg {
    struct gexi_coll_msg *next;
    uint32_t seq, step, idx;
    size_t nbytes;
    int has_payload;
    unsigned char payload[];           /* copy of the Medium payload */
};

/* ---- errors and memory ---- */

void gexi_coll_bad_arg(const char *func, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* A collective's arguments are checked on each caller only: returning an
     * error from some callers would leave the others waiting forever. */
    gexi_fatal("%s: %s", func, msg);
}

void *gexi_coll_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) gexi_fatal("libgex-coll: out of memory (%zu bytes)", n);
    return p;
}

void *gexi_coll_xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) gexi_fatal("libgex-coll: out of memory (%zu x %zu bytes)", n, sz);
    return p;
}

/* ---- member records: open hash of chains, keyed by (team id, ep) ---- */

static struct gexi_coll_member **table;
static size_t table_size, table_count;

static size_t bucket_of(uint64_t id, gex_EP_Index_t ep, size_t size)
{
    uint64_t h = id ^ ((uint64_t)ep * 0x9e3779b97f4a7c15ull);
    h ^= h >> 29;
    return (size_t)(h & (size - 1));
}

static void table_grow(void)
{
    size_t nsize = table_size ? table_size * 2 : 64;
    struct gexi_coll_member **nt = gexi_coll_xcalloc(nsize, sizeof *nt);
    for (size_t i = 0; i < table_size; i++) {
        struct gexi_coll_member *m = table[i], *next;
        for (; m; m = next) {
            next = m->hnext;
            size_t b = bucket_of(m->id, m->ep_index, nsize);
            m->hnext = nt[b];
            nt[b] = m;
        }
    }
    free(table);
    table = nt;
    table_size = nsize;
}

struct gexi_coll_member *gexi_coll_member_get(uint64_t id, gex_EP_Index_t ep, int create)
{
    if (table_size) {
        for (struct gexi_coll_member *m = table[bucket_of(id, ep, table_size)]; m; m = m->hnext)
            if (m->id == id && m->ep_index == ep) return m;
    }
    if (!create) return NULL;
    if (table_count + 1 > table_size / 2) table_grow();
    struct gexi_coll_member *m = gexi_coll_xcalloc(1, sizeof *m);
    m->id = id;
    m->ep_index = ep;
    m->early_tail = &m->early;
    size_t b = bucket_of(id, ep, table_size);
    m->hnext = table[b];
    table[b] = m;
    table_count++;
    return m;
}

unsigned gexi_coll_member_remove(struct gexi_coll_member *m)
{
    struct gexi_coll_member **pp = &table[bucket_of(m->id, m->ep_index, table_size)];
    while (*pp && *pp != m) pp = &(*pp)->hnext;
    if (*pp) {
        *pp = m->hnext;
        table_count--;
    }
    unsigned dropped = 0;
    for (struct gexi_coll_msg *e = m->early, *next; e; e = next) {
        next = e->next;
        free(e);
        dropped++;
    }
    m->early = NULL;
    m->early_tail = &m->early;
    return dropped;
}

/* ---- the engine's work lists ---- */

/* Operations with work, per lane (see the file comment): AM operations
 * waiting for advance(), shared-memory operations polled until done. */
static struct lane {
    struct gexi_coll_op *head, *tail;  /* dirty AM operations */
    struct gexi_coll_op *polled;       /* shared-memory operations */
    _Atomic unsigned n;                /* both (read without the lock) */
    _Atomic int busy;                  /* lanes >= 1: the owner runs it now (no re-entry) */
} lanes[GASNET_MAXEPS];
/* all lanes' operations: the progress hook's one-load fast path */
static _Atomic unsigned n_work;
static atomic_flag engine_busy = ATOMIC_FLAG_INIT;     /* lane 0 */

static void mark_dirty(struct gexi_coll_op *op)
{
    if (op->dirty) return;
    struct lane *l = &lanes[op->lane];
    op->dirty = 1;
    op->lnext = NULL;
    if (l->tail) l->tail->lnext = op;
    else l->head = op;
    l->tail = op;
    atomic_fetch_add_explicit(&l->n, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_work, 1, memory_order_release);
}

static struct gexi_coll_op *pop_dirty(struct lane *l)
{
    struct gexi_coll_op *op = l->head;
    if (!op) return NULL;
    l->head = op->lnext;
    if (!l->head) l->tail = NULL;
    op->dirty = 0;
    atomic_fetch_sub_explicit(&l->n, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&n_work, 1, memory_order_relaxed);
    return op;
}

/* A serialized EP's operations go to its lane; the caller initiates on the
 * EP, which makes it the EP's owner thread (core). */
void *gexi_coll_op_alloc(size_t size, const struct gexi_coll_op_vt *vt, gex_TM_t tm)
{
    struct gexi_coll_op *op = gexi_coll_xcalloc(1, size);
    op->vt = vt;
    op->tm = gexi_tm_of(tm);
    op->m = gexi_coll_member_of(tm);
    struct gexi_ep *ep = gexi_tm_local_ep(tm);
    if (ep->flags & GEX_FLAG_EP_SERIALIZED) {
        op->lane = (uint8_t)ep->index;
        gexi_ep_ser_leave(ep, gexi_ep_ser_enter(ep, 1));
    }
    return op;
}

/* Lock held.  The operation is done and none of its sends is outstanding. */
static void retire(struct gexi_coll_op *op)
{
    if (!op->is_shm) {
        struct gexi_coll_op **pp = &op->m->ops;
        while (*pp && *pp != op) pp = &(*pp)->mnext;
        if (*pp) *pp = op->mnext;
    } else {
        op->m->npolled--;
    }
    if (op->vt->fini) op->vt->fini(op);
    struct gexi_event *ev = op->ev;
    free(op);
    /* Release: every write to the client's buffers happens before. */
    if (ev) gexi_counter_done(&ev->h.pending, 1);
}

/* Only the thread calling collectives on this member touches its sequence
 * number (the client may not call collectives over one tm concurrently;
 * handlers match with op->seq), so no lock is needed. */
uint32_t gexi_coll_next_seq(struct gexi_coll_member *m)
{
    return m->seq++;
}

static void deliver_locked(struct gexi_coll_op *op, const struct gexi_coll_msg *e)
{
    op->vt->on_msg(op, e->step, e->idx, e->has_payload ? e->payload : NULL, e->nbytes);
}

gex_Event_t gexi_coll_start(struct gexi_coll_op *op)
{
    op->ev = gexi_event_new(0, 1, 0);
    gex_Event_t ev = gexi_event_handle(op->ev);
    struct gexi_coll_member *m = op->m;
    gexi_coll_lock_take();
    op->seq = m->seq++;
    op->mnext = m->ops;
    m->ops = op;
    /* Replay early arrivals in their arrival order. */
    for (struct gexi_coll_msg **pp = &m->early; *pp;) {
        struct gexi_coll_msg *e = *pp;
        if (e->seq != op->seq) {
            pp = &e->next;
            continue;
        }
        deliver_locked(op, e);
        *pp = e->next;
        if (m->early_tail == &e->next) m->early_tail = pp;
        free(e);
    }
    mark_dirty(op);
    gexi_coll_lock_give();
    gexi_coll_progress();
    return ev;
}

gex_Event_t gexi_coll_start_polled(struct gexi_coll_op *op)
{
    op->ev = gexi_event_new(0, 1, 0);
    op->is_shm = 1;
    gex_Event_t ev = gexi_event_handle(op->ev);
    gexi_coll_lock_take();
    struct lane *l = &lanes[op->lane];
    op->lnext = l->polled;
    l->polled = op;
    op->m->npolled++;
    atomic_fetch_add_explicit(&l->n, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_work, 1, memory_order_release);
    gexi_coll_lock_give();
    gexi_coll_progress();
    return ev;
}

/* ---- outbox ---- */

bool gexi_coll_send(struct gexi_coll_outbox *ob, struct gexi_coll_op *op, gex_Rank_t rank,
                    uint32_t step, uint32_t idx, const void *payload, size_t nbytes)
{
    if (!ob) return false; /* advancing inside a handler: no sends there */
    if (ob->n == GEXI_COLL_OUTBOX_MAX) {
        ob->full = 1;
        return false;
    }
    static const unsigned char none;
    ob->s[ob->n++] = (struct gexi_coll_send){ op, rank, step, idx, payload ? payload : &none,
                                              nbytes };
    op->sending++;
    return true;
}

bool gexi_coll_send_short(struct gexi_coll_outbox *ob, struct gexi_coll_op *op, gex_Rank_t rank,
                          uint32_t step, uint32_t idx)
{
    if (!ob) return false;
    if (ob->n == GEXI_COLL_OUTBOX_MAX) {
        ob->full = 1;
        return false;
    }
    ob->s[ob->n++] = (struct gexi_coll_send){ op, rank, step, idx, NULL, 0 };
    op->sending++;
    return true;
}

/* Performs the queued sends (lock not held), then accounts for them. */
static void flush(struct gexi_coll_outbox *ob)
{
    for (unsigned i = 0; i < ob->n; i++) {
        const struct gexi_coll_send *s = &ob->s[i];
        const struct gexi_coll_op *op = s->op;
        gex_TM_t tm = (gex_TM_t)op->tm;
        const uint64_t id = op->m->id;
        const gex_AM_Arg_t a0 = (gex_AM_Arg_t)(uint32_t)id, a1 = (gex_AM_Arg_t)(uint32_t)(id >> 32),
                           a2 = (gex_AM_Arg_t)op->seq, a3 = (gex_AM_Arg_t)s->step,
                           a4 = (gex_AM_Arg_t)s->idx;
        if (s->payload)
            gex_AM_RequestMedium5(tm, s->rank, GEXI_COLL_H_MEDIUM, s->payload, s->nbytes,
                                  GEX_EVENT_NOW, 0, a0, a1, a2, a3, a4);
        else
            gex_AM_RequestShort5(tm, s->rank, GEXI_COLL_H_SHORT, 0, a0, a1, a2, a3, a4);
    }
    gexi_coll_lock_take();
    for (unsigned i = 0; i < ob->n; i++) {
        struct gexi_coll_op *op = ob->s[i].op;
        if (--op->sending == 0) mark_dirty(op); /* continue, or retire */
    }
    gexi_coll_lock_give();
    ob->n = 0;
}

/* Lock held: polled operations check shared memory; finished ones retire. */
static void poll_shm_locked(struct lane *l)
{
    for (struct gexi_coll_op **pp = &l->polled; *pp;) {
        struct gexi_coll_op *op = *pp;
        op->vt->advance(op, NULL);
        if (op->done) {
            *pp = op->lnext;
            atomic_fetch_sub_explicit(&l->n, 1, memory_order_relaxed);
            atomic_fetch_sub_explicit(&n_work, 1, memory_order_relaxed);
            retire(op);
        } else {
            pp = &op->lnext;
        }
    }
}

static void engine_run(struct lane *l)
{
    struct gexi_coll_outbox ob;
    ob.n = 0;
    for (unsigned pass = 0; pass < 64; pass++) {
        ob.full = 0;
        gexi_coll_lock_take();
        if (l->polled) poll_shm_locked(l);
        /* Stop at half the outbox so one operation with much to send (a
         * root's pieces) does not starve the others. */
        while (ob.n < GEXI_COLL_OUTBOX_MAX / 2) {
            struct gexi_coll_op *op = pop_dirty(l);
            if (!op) break;
            if (op->sending) continue;           /* flush() marks it again */
            ob.full = 0;
            op->vt->advance(op, &ob);
            if (op->sending) continue;
            if (op->done) retire(op);
            else if (ob.full) mark_dirty(op);    /* it had more to send */
        }
        gexi_coll_lock_give();
        if (!ob.n) break;
        flush(&ob);
    }
}

void gexi_coll_progress(void)
{
    if (!atomic_load_explicit(&n_work, memory_order_acquire)) return;
    if (atomic_load_explicit(&lanes[0].n, memory_order_relaxed) &&
        !atomic_flag_test_and_set_explicit(&engine_busy, memory_order_acquire)) {
        engine_run(&lanes[0]);
        atomic_flag_clear_explicit(&engine_busy, memory_order_release);
    }
    /* The lanes of the serialized EPs this thread owns (usually none). */
    const uint64_t own = gexi_ep_ser_serve();
    for (uint64_t m = own; m; m &= m - 1) {
        struct lane *l = &lanes[__builtin_ctzll(m)];
        if (!atomic_load_explicit(&l->n, memory_order_relaxed) ||
            atomic_load_explicit(&l->busy, memory_order_relaxed))
            continue;
        atomic_store_explicit(&l->busy, 1, memory_order_relaxed);
        engine_run(l);
        atomic_store_explicit(&l->busy, 0, memory_order_relaxed);
    }
    gexi_ep_ser_unserve();
}

/* ---- AM handlers ---- */

static void deliver(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                    gex_AM_Arg_t a3, gex_AM_Arg_t a4, const void *payload, size_t nbytes)
{
    const uint64_t id = (uint64_t)(uint32_t)a0 | (uint64_t)(uint32_t)a1 << 32;
    const uint32_t seq = (uint32_t)a2, step = (uint32_t)a3, idx = (uint32_t)a4;
    const gex_EP_Index_t ep = gexi_token_of(t)->ep->index;
    gexi_coll_lock_take();
    struct gexi_coll_member *m = gexi_coll_member_get(id, ep, 1);
    struct gexi_coll_op *op = m->ops;
    while (op && op->seq != seq) op = op->mnext;
    if (op) {
        op->vt->on_msg(op, step, idx, payload, nbytes);
        /* Let it move on right here when that needs no send (the last
         * message of a barrier, say): it may then retire without waiting
         * for the engine.  Anything that wants to send is left to it. */
        if (!op->dirty && !op->sending) {
            op->vt->advance(op, NULL);
            if (op->done && !op->sending) retire(op);
            else mark_dirty(op);
        } else {
            mark_dirty(op);
        }
    } else {
        /* The team or the operation does not exist here yet. */
        struct gexi_coll_msg *e = gexi_coll_xmalloc(sizeof *e + (payload ? nbytes : 0));
        e->next = NULL;
        e->seq = seq;
        e->step = step;
        e->idx = idx;
        e->nbytes = nbytes;
        e->has_payload = payload != NULL;
        if (payload && nbytes) memcpy(e->payload, payload, nbytes);
        *m->early_tail = e;
        m->early_tail = &e->next;
    }
    gexi_coll_lock_give();
}

void gexi_coll_h_short(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                       gex_AM_Arg_t a3, gex_AM_Arg_t a4)
{
    deliver(t, a0, a1, a2, a3, a4, NULL, 0);
}

void gexi_coll_h_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0,
                        gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4)
{
    static const unsigned char none;
    deliver(t, a0, a1, a2, a3, a4, buf ? buf : &none, nbytes);
}

/* ---- piece layout ---- */

void gexi_coll_layout_init(struct gexi_coll_layout *L, size_t esz, size_t cnt)
{
    const size_t c = gexi_coll_cfg.piece;
    L->esz = esz;
    L->cnt = cnt;
    if (esz <= c) {
        L->epb = c / esz;
        L->ppb = 1;
        L->psz = L->epb * esz;
        L->nblocks = (cnt + L->epb - 1) / L->epb;
    } else {
        L->epb = 1;
        L->ppb = (esz + c - 1) / c;
        L->psz = c;
        L->nblocks = cnt;
    }
    L->npieces = L->nblocks * L->ppb;
}
