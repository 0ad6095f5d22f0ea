/*
 * event.c: events, NBI synchronization and access regions (spec: "Event
 * test/wait operations", gex_Event_QueryLeaf, gex_NBI_*), plus progress
 * hooks.  See core_layer.h for the model: every operation decrements a
 * counter it was handed at initiation; an event is such a counter (and one
 * for its local-completion leaf) in a recycled object.
 *
 * Recycling: a thread takes events from its own free list and returns the
 * events it syncs to its own list, so the lists need no locks; objects
 * migrate between threads but are never returned to the system.  A thread
 * that ends hands its list to a shared one (under a lock: thread exit and
 * a refill are rare), which the next refill of any thread takes first, so
 * clients that keep creating threads do not grow the pool.
 */
#include "core_internal.h"
#include <stdlib.h>
#include <string.h>

#define GEXI_EVENT_BATCH 64

/* Per-thread NBI state: counts of outstanding NBI operations by category
 * (bit index of GEX_EC_*), the LC count, and the open access region.  It
 * lives in the thread's static TLS block (nbi_tls below), so a thread must
 * sync its NBI operations before it ends (spec: NBI syncs are per thread;
 * a completion arriving after the thread ended would find no counter). */
struct gexi_nbi_state {
    _Atomic uint32_t pending[5];      /* GET, PUT, AM, LC, RMW */
    struct gexi_event *region;
};

static __thread struct gexi_event *free_list __attribute__((tls_model("initial-exec")));
/* Zeroed with the thread's static TLS block: no allocation on first use, and
 * no heap block whose initializing writes another thread's completion (a
 * handler run by whichever thread polls) could appear to race with. */
static __thread struct gexi_nbi_state nbi_tls __attribute__((tls_model("initial-exec")));

GEXI_EXPORT gexi_progress_fn *gexi_progress_fns[8];
GEXI_EXPORT _Atomic unsigned gexi_n_progress_fns;

GEXI_EXPORT void gexi_register_progress(gexi_progress_fn *fn)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    unsigned n = atomic_load(&gexi_n_progress_fns);
    for (unsigned i = 0; i < n; i++)
        if (gexi_progress_fns[i] == fn) goto out;
    if (n == sizeof gexi_progress_fns / sizeof gexi_progress_fns[0])
        gexi_fatal("too many progress functions registered");
    gexi_progress_fns[n] = fn;
    atomic_store_explicit(&gexi_n_progress_fns, n + 1, memory_order_release);
out:
    pthread_mutex_unlock(&lock);
}

/* Free events of threads that have ended. */
static pthread_mutex_t orphans_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gexi_event *orphans;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Thread exit (a pthread key destructor; TLS is still valid here). */
static void hand_back(void *unused)
{
    (void)unused;
    struct gexi_event *head = free_list;
    if (!head) return;
    struct gexi_event *tail = head;
    while (tail->next_free) tail = tail->next_free;
    free_list = NULL;
    pthread_mutex_lock(&orphans_lock);
    tail->next_free = orphans;
    orphans = head;
    pthread_mutex_unlock(&orphans_lock);
}

static void make_exit_key(void)
{
    if (pthread_key_create(&exit_key, hand_back) != 0)
        gexi_fatal("pthread_key_create failed for the event pool");
}

static struct gexi_event *refill(void)
{
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, (void *)1);   /* hand_back runs at this thread's exit */
    pthread_mutex_lock(&orphans_lock);
    struct gexi_event *adopted = orphans;
    orphans = NULL;
    pthread_mutex_unlock(&orphans_lock);
    if (adopted) return adopted;
    struct gexi_event *batch = calloc(GEXI_EVENT_BATCH, sizeof *batch);
    if (!batch) gexi_fatal("out of memory allocating events");
    for (int i = 0; i < GEXI_EVENT_BATCH - 1; i++) batch[i].next_free = &batch[i + 1];
    return batch;
}

GEXI_EXPORT struct gexi_event *gexi_event_new(gex_EC_t category, uint32_t pending,
                                              uint32_t lc_pending)
{
    struct gexi_event *ev = free_list;
    if (GEXI_UNLIKELY(!ev)) ev = refill();
    free_list = ev->next_free;
    atomic_store_explicit(&ev->h.pending, pending, memory_order_release);
    ev->h.flags = GEXI_EVF_ROOT | (lc_pending ? GEXI_EVF_HAS_LC : 0);
    ev->h.category = (uint16_t)category;
    atomic_store_explicit(&ev->lc.pending, lc_pending, memory_order_release);
    ev->lc.flags = GEXI_EVF_LEAF;
    ev->lc.category = GEX_EC_LC;
    ev->finish = NULL;
    return ev;
}

static void event_recycle(struct gexi_event *ev)
{
    /* Stale handles (root or leaf) now fail the validity checks until the
     * object is reused. */
    ev->h.flags = 0;
    ev->lc.flags = 0;
    ev->next_free = free_list;
    free_list = ev;
}

GEXI_EXPORT void gexi_event_discard(struct gexi_event *ev)
{
    event_recycle(ev);
}

/* One step of a waiting loop: poll, then back off only while polls find
 * nothing to do.  gexi_backoff escalates from spinning to sched_yield to
 * sleeping as its count grows; a wait that keeps running handlers (a long
 * chunked transfer, a flood of replies) is not idle and must not end up
 * sleeping between them, so progress restarts the count. */
static inline void wait_step(unsigned *spins)
{
    if (gexi_poll() > 0) *spins = 0;
    gexi_backoff(spins);
}

static inline struct gexi_ev_hdr *hdr_of(gex_Event_t e) { return (struct gexi_ev_hdr *)e; }
static inline struct gexi_event *root_of_leaf(struct gexi_ev_hdr *leaf)
{
    return (struct gexi_event *)((char *)leaf - offsetof(struct gexi_event, lc));
}

static void bad_event(const char *func, gex_Event_t e) __attribute__((noreturn));
static void bad_event(const char *func, gex_Event_t e)
{
    if (e == GEX_EVENT_NO_OP)
        gexi_fatal("%s: GEX_EVENT_NO_OP may not be tested or waited on", func);
    gexi_fatal("%s: %p is not a live event (already synchronized?)", func, (void *)e);
}

/* Returns 1 and recycles a root (or marks a leaf done) if complete. */
static int try_complete(const char *func, gex_Event_t e)
{
    if (e == GEX_EVENT_INVALID) return 1;
    struct gexi_ev_hdr *h = hdr_of(e);
    if (GEXI_UNLIKELY(e == GEX_EVENT_NO_OP || !(h->flags & (GEXI_EVF_ROOT | GEXI_EVF_LEAF))))
        bad_event(func, e);
    if (atomic_load_explicit(&h->pending, memory_order_acquire) != 0) return 0;
    if (h->flags & GEXI_EVF_ROOT) {
        struct gexi_event *ev = (struct gexi_event *)h;
        /* Syncing the root implicitly syncs its leaf (spec), which must
         * then also be complete: an operation is never done before its LC. */
        if (GEXI_UNLIKELY(atomic_load_explicit(&ev->lc.pending, memory_order_acquire) != 0))
            return 0;
        if (ev->finish) ev->finish(ev);
        event_recycle(ev);
    }
    /* A leaf is recycled with its root. */
    return 1;
}

int gex_Event_Test(gex_Event_t event)
{
    return try_complete(__func__, event) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* (in parentheses: gex/fastpath.h defines gex_Event_Wait as a macro for clients) */
void (gex_Event_Wait)(gex_Event_t event)
{
    gexi_check_wait_ctx(__func__);
    if (try_complete(__func__, event)) return;
    unsigned spins = 0;
    do {
        wait_step(&spins);
    } while (!try_complete(__func__, event));
}

/* One pass over the array: completes what it can (overwriting with
 * GEX_EVENT_INVALID); returns the number completed and whether any
 * non-INVALID entry was present.
 * The spec lets an array hold a root and its own leaf in any order, but
 * syncing the root recycles the leaf with it: so leaves are examined first,
 * and a root that completes while one of its leaves is still listed takes
 * that entry with it (complete too: a root never completes before its LC). */
static size_t sweep(const char *func, gex_Event_t *pevent, size_t n, int *any_live)
{
    size_t done = 0, leaves_pending = 0;
    *any_live = 0;
    for (size_t i = 0; i < n; i++) {
        gex_Event_t e = pevent[i];
        if (e == GEX_EVENT_INVALID) continue;
        *any_live = 1;
        if (e == GEX_EVENT_NO_OP || !(hdr_of(e)->flags & GEXI_EVF_LEAF)) continue;
        if (try_complete(func, e)) {
            pevent[i] = GEX_EVENT_INVALID;
            done++;
        } else {
            leaves_pending++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        gex_Event_t e = pevent[i];
        if (e == GEX_EVENT_INVALID) continue;
        if (e != GEX_EVENT_NO_OP && (hdr_of(e)->flags & GEXI_EVF_LEAF)) continue;
        if (!try_complete(func, e)) continue;
        pevent[i] = GEX_EVENT_INVALID;
        done++;
        if (leaves_pending) {
            const gex_Event_t leaf = gexi_event_lc_handle((struct gexi_event *)hdr_of(e));
            for (size_t j = 0; j < n; j++) {
                if (pevent[j] != leaf) continue;
                pevent[j] = GEX_EVENT_INVALID;
                done++;
                leaves_pending--;
            }
        }
    }
    return done;
}

static int remaining(const gex_Event_t *pevent, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pevent[i] != GEX_EVENT_INVALID) return 1;
    return 0;
}

/* How many leading entries are GEX_EVENT_INVALID.  An array filled by NB
 * calls that completed in the call (the inline same-node RMA and atomics
 * return GEX_EVENT_INVALID: gex/fastpath.h) is all INVALID: the array
 * calls then read it once, not three times (sweep's two passes and
 * remaining), which cost a stream of 8-byte PutNBs into an array waited on
 * with gex_Event_WaitAll ~10% of its rate. */
static size_t leading_invalid(const gex_Event_t *pevent, size_t n)
{
    size_t i = 0;
    while (i < n && pevent[i] == GEX_EVENT_INVALID) i++;
    return i;
}

int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    if (flags)
        GEXI_BAD_ARG_NORET("flags ignored", "flags must be zero (got 0x%x)", (unsigned)flags);
    const size_t skip = leading_invalid(pevent, numevents);
    if (skip == numevents) return GASNET_OK;   /* nothing live: spec, "all INVALID" */
    pevent += skip;
    numevents -= skip;
    int any;
    size_t done = sweep(__func__, pevent, numevents, &any);
    return (done || !any) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* The waits check their own arguments, so that a message names the call the
 * client made, then test with valid ones. */
void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    gexi_check_wait_ctx(__func__);
    if (flags)
        GEXI_BAD_ARG_NORET("flags ignored", "flags must be zero (got 0x%x)", (unsigned)flags);
    unsigned spins = 0;
    while (gex_Event_TestSome(pevent, numevents, 0) != GASNET_OK) {
        wait_step(&spins);
    }
}

int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    if (flags)
        GEXI_BAD_ARG_NORET("flags ignored", "flags must be zero (got 0x%x)", (unsigned)flags);
    const size_t skip = leading_invalid(pevent, numevents);
    if (skip == numevents) return GASNET_OK;
    pevent += skip;
    numevents -= skip;
    int any;
    sweep(__func__, pevent, numevents, &any);
    return remaining(pevent, numevents) ? GASNET_ERR_NOT_READY : GASNET_OK;
}

void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    gexi_check_wait_ctx(__func__);
    if (flags)
        GEXI_BAD_ARG_NORET("flags ignored", "flags must be zero (got 0x%x)", (unsigned)flags);
    unsigned spins = 0;
    while (gex_Event_TestAll(pevent, numevents, 0) != GASNET_OK) {
        wait_step(&spins);
    }
}

gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category)
{
    if (root == GEX_EVENT_INVALID) return GEX_EVENT_INVALID;
    struct gexi_ev_hdr *h = hdr_of(root);
    if (root == GEX_EVENT_NO_OP || !(h->flags & GEXI_EVF_ROOT)) bad_event(__func__, root);
    if (event_category != GEX_EC_LC) {
        GEXI_BAD_ARG_NORET("returning GEX_EVENT_INVALID",
                           "event_category 0x%x: only GEX_EC_LC leaves exist",
                           (unsigned)event_category);
        return GEX_EVENT_INVALID;
    }
    struct gexi_event *ev = (struct gexi_event *)h;
    /* An operation without an LC leaf had it folded into the root: its LC
     * was suppressed (EVENT_NOW / EVENT_DEFER, a VIS put without
     * GEX_FLAG_ENABLE_LEAF_LC) or it has none (a get).  The spec calls that
     * query undefined and asks debug builds to report it; a leaf that was
     * requested is always there (born complete if need be).
     * An access region may hold puts with GEX_EVENT_GROUP, whose LC can be
     * queried on the region's event even when none was ever pending. */
    if (!(ev->h.flags & (GEXI_EVF_HAS_LC | GEXI_EVF_REGION))) {
        GEXI_BAD_ARG_NORET("returning GEX_EVENT_INVALID",
                           "root has no local-completion leaf (its operation had none, or "
                           "suppressed it with GEX_EVENT_NOW/GEX_EVENT_DEFER)");
        return GEX_EVENT_INVALID;
    }
    return gexi_event_lc_handle(ev);
}

/* ---- NBI ---- */

static inline struct gexi_nbi_state *nbi_state(void) { return &nbi_tls; }

static unsigned ec_index(gex_EC_t ec) { return (unsigned)__builtin_ctz(ec); }

GEXI_EXPORT _Atomic uint32_t *gexi_nbi_counter(gex_EC_t ec)
{
    struct gexi_nbi_state *s = nbi_state();
    if (s->region) return &s->region->h.pending;
    return &s->pending[ec_index(ec)];
}

GEXI_EXPORT _Atomic uint32_t *gexi_nbi_lc_counter(void)
{
    struct gexi_nbi_state *s = nbi_state();
    if (s->region) {
        s->region->h.flags |= GEXI_EVF_HAS_LC;
        return &s->region->lc.pending;
    }
    return &s->pending[ec_index(GEX_EC_LC)];
}

int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags)
{
    if (flags)
        GEXI_BAD_ARG_NORET("flags ignored", "flags must be zero (got 0x%x)", (unsigned)flags);
    if (event_mask & ~GEX_EC_ALL)
        GEXI_BAD_ARG_NORET("unknown bits ignored", "event_mask 0x%x has unknown bits",
                           (unsigned)event_mask);
    const struct gexi_nbi_state *s = nbi_state();
    for (gex_EC_t m = event_mask & GEX_EC_ALL; m; m &= m - 1)
        if (atomic_load_explicit(&s->pending[ec_index(m & -m)], memory_order_acquire))
            return GASNET_ERR_NOT_READY;
    return GASNET_OK;
}

void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags)
{
    gexi_check_wait_ctx(__func__);
    if (flags)
        GEXI_BAD_ARG_NORET("flags ignored", "flags must be zero (got 0x%x)", (unsigned)flags);
    if (event_mask & ~GEX_EC_ALL)
        GEXI_BAD_ARG_NORET("unknown bits ignored", "event_mask 0x%x has unknown bits",
                           (unsigned)event_mask);
    event_mask &= GEX_EC_ALL;
    unsigned spins = 0;
    while (gex_NBI_Test(event_mask, 0) != GASNET_OK) {
        wait_step(&spins);
    }
}

void gex_NBI_BeginAccessRegion(gex_Flags_t flags)
{
    if (flags)
        GEXI_BAD_ARG_NORET("flags ignored", "flags must be zero (got 0x%x)", (unsigned)flags);
    struct gexi_nbi_state *s = nbi_state();
    if (s->region) gexi_fatal("gex_NBI_BeginAccessRegion: access regions do not nest");
    s->region = gexi_event_new(GEX_EC_ALL, 0, 0);
    s->region->h.flags |= GEXI_EVF_REGION;
}

gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags)
{
    if (flags)
        GEXI_BAD_ARG_NORET("flags ignored", "flags must be zero (got 0x%x)", (unsigned)flags);
    struct gexi_nbi_state *s = nbi_state();
    struct gexi_event *ev = s->region;
    if (!ev) gexi_fatal("gex_NBI_EndAccessRegion without gex_NBI_BeginAccessRegion");
    s->region = NULL;
    return gexi_event_handle(ev);
}
