/*
 * ep.c: endpoints (seed 003 section 3).  Index 0 is the primordial EP made
 * by gex_Client_Init; gex_EP_Create hands out 1, 2, ... in creation order
 * ("monotonically increasing", seed 003 3.1 open issue 1), so processes
 * that create EPs in the same order can predict each other's indices.
 *
 * Per-EP resources (issue 9): when the conduit offers per-endpoint queues
 * (GEX_CONDUIT_CAP_EP_QUEUES, ep_open), every created EP gets its own, and
 * AMs addressed to it travel and are consumed apart from every other EP's.
 * Without the capability (ofi) all EPs share the process's queues, which
 * carry the destination EP index in every message.
 *
 * GEX_FLAG_EP_SERIALIZED (our extension, gasnetex.h): one thread at a time
 * uses the EP.  Such an EP has an owner thread (the last to make a client
 * call on it) which alone polls it, sends from it and runs the collective
 * engine's lane for it, so the conduit needs no locks on its rings; see
 * "Serialized endpoints" below for how ownership moves safely.  Debug
 * builds check that no two threads are inside client calls on one
 * serialized EP at once.
 * docs/endpoints.md has the rules.
 */
#include "core_internal.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int gexi_ep_create(struct gexi_client *c, gex_EP_Capabilities_t caps, gex_Flags_t flags,
                   gex_EP_t *ep_p)
{
    unsigned idx = atomic_fetch_add(&c->n_eps, 1);
    if (idx >= GASNET_MAXEPS) {
        atomic_fetch_sub(&c->n_eps, 1);
        GEXI_RETURN_ERR_AS("gex_EP_Create", RESOURCE, "already %d endpoints (GASNET_MAXEPS)",
                           GASNET_MAXEPS);
    }
    struct gexi_ep *ep = aligned_alloc(GEXI_EP_ALIGN,
                                       (sizeof *ep + GEXI_EP_ALIGN - 1) / GEXI_EP_ALIGN * GEXI_EP_ALIGN);
    if (!ep) GEXI_RETURN_ERR_AS("gex_EP_Create", RESOURCE, "out of memory for an endpoint");
    memset(ep, 0, sizeof *ep);
    ep->magic = GEXI_MAGIC_EP;
    ep->index = idx;
    ep->client = c;
    ep->caps = caps;
    ep->flags = flags;
    gexi_install_internal_handlers(ep);
    /* Own queues when the conduit offers them (EP 0 uses the shared ones,
     * which exist from conduit init; it is created before the conduit). */
    if (idx > 0 && (gexi_core.caps.flags & GEX_CONDUIT_CAP_EP_QUEUES) &&
        GEX_CONDUIT_HAS(gexi_core.ops, ep_open)) {
        const uint32_t cf = (flags & GEX_FLAG_EP_SERIALIZED) ? GEX_CONDUIT_EP_SERIALIZED : 0;
        int rc = gexi_core.ops->ep_open(gexi_core.conduit, (gex_EP_Index_t)idx, cf);
        if (rc != GEX_CONDUIT_OK) {
            free(ep);   /* the index stays used: indices are never recycled */
            GEXI_RETURN_ERR_AS("gex_EP_Create", RESOURCE, "conduit %s could not give endpoint "
                               "%u its queues (code %d)", gexi_core.ops->name, idx, rc);
        }
    }
    c->eps[idx] = ep;
    if (flags & GEX_FLAG_EP_SERIALIZED) {
        gexi_ep_ser_leave(ep, gexi_ep_ser_use(ep, 1));   /* the creator owns it first */
        atomic_fetch_add_explicit(&gexi_n_serialized_eps, 1, memory_order_release);
    }
    *ep_p = (gex_EP_t)ep;
    return GASNET_OK;
}

/* The process is ending (gasnet_exit, return from main, or a job abort):
 * the conduit drops the per-EP resources peers could still find by name
 * (smp: the EP's shared-memory object), so nothing outlives the job even
 * when no launcher cleans up after it (mpirun, srun).  Runs at most once. */
void gexi_eps_close(void)
{
    static atomic_flag done = ATOMIC_FLAG_INIT;
    struct gexi_client *c = gexi_core.client;
    if (!c || !gexi_core.ops || atomic_flag_test_and_set(&done)) return;
    if (!GEX_CONDUIT_HAS(gexi_core.ops, ep_close)) return;
    const unsigned n = atomic_load(&c->n_eps);
    for (unsigned i = 1; i < n && i < GASNET_MAXEPS; i++)
        if (c->eps[i]) gexi_core.ops->ep_close(gexi_core.conduit, (gex_EP_Index_t)i);
}

/* ---- Serialized endpoints: one owner thread each ----
 *
 * Every serialized EP has an owner: the thread that last made a client call
 * naming it (creation, handler registration, a send, a collective).  Only
 * the owner polls the EP, runs the collective engine for teams over it and
 * sends from it, so the conduit can give the EP's rings neither a producer
 * lock nor a consumer flag (GEX_CONDUIT_EP_SERIALIZED).
 *
 * Ownership moves when another thread calls on the EP.  The client's
 * promise orders the two threads' client calls, but not the old owner's
 * later polls, which still serve "its" EPs.  Those run inside a serving
 * window: the thread sets its record's `serving`, then reads the owners of
 * its EPs and serves those still its own, then clears `serving` (release).
 * A claimer stores itself as owner, makes every thread execute a full
 * barrier (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED) and then waits
 * until the old owner is not serving: either the old owner's window began
 * after that barrier and it reads the new owner, or the claimer sees it
 * serving and waits for the window to end.  The window's entry is then two
 * plain stores and no fence (a compiler barrier only): no atomic
 * read-modify-write anywhere on the serialized paths.  Without membarrier
 * the window's entry pays a full fence instead.
 *
 * Records of threads that exited are reused (never freed: a claimer may
 * still read the record of an owner that is exiting; the pthread key
 * destructor gives up the thread's EPs under the claim lock first). */

GEXI_EXPORT _Atomic unsigned gexi_n_serialized_eps;

struct ser_thr {
    _Atomic unsigned serving;     /* non-zero inside a serving window */
    uint64_t mask;                /* EPs this thread claimed (it may have lost some since) */
    unsigned depth;               /* nested windows */
    uint64_t window_own;          /* what the outermost window found to be ours */
    int live;
    struct ser_thr *next;         /* every record ever made */
};

static _Atomic(struct ser_thr *) ser_owner[GASNET_MAXEPS];
static pthread_mutex_t ser_lock = PTHREAD_MUTEX_INITIALIZER;   /* claims, records */
static struct ser_thr *ser_all;
static pthread_key_t ser_key;
static pthread_once_t ser_once = PTHREAD_ONCE_INIT;
static int ser_membarrier;        /* 1: window entry needs no fence */

/* This thread's record, whether it runs progress hooks now, its poll count. */
static __thread struct ser_thr *ser_me __attribute__((tls_model("initial-exec")));
static __thread unsigned in_hooks __attribute__((tls_model("initial-exec")));
static __thread unsigned poll_count __attribute__((tls_model("initial-exec")));
_Static_assert(GASNET_MAXEPS <= 64, "masks hold one bit per EP index");

#ifndef MEMBARRIER_CMD_PRIVATE_EXPEDITED
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED (1 << 3)
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#endif

/* A thread exits: its EPs have no owner until some thread calls on them. */
static void ser_thread_exit(void *arg)
{
    struct ser_thr *t = arg;
    pthread_mutex_lock(&ser_lock);
    for (uint64_t m = t->mask; m; m &= m - 1) {
        const unsigned i = (unsigned)__builtin_ctzll(m);
        if (atomic_load_explicit(&ser_owner[i], memory_order_relaxed) == t)
            atomic_store_explicit(&ser_owner[i], NULL, memory_order_relaxed);
    }
    t->mask = 0;
    t->depth = 0;
    t->live = 0;
    pthread_mutex_unlock(&ser_lock);
}

static void ser_init_once(void)
{
    if (pthread_key_create(&ser_key, ser_thread_exit) != 0)
        gexi_fatal("serialized endpoints: pthread_key_create failed");
#ifdef SYS_membarrier
    ser_membarrier = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0;
#endif
}

/* Makes every thread of the process execute a full memory barrier. */
static void ser_fence_all(void)
{
#ifdef SYS_membarrier
    if (ser_membarrier && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) == 0)
        return;
#endif
    atomic_thread_fence(memory_order_seq_cst);   /* windows fence themselves then */
}

static struct ser_thr *ser_self(void)
{
    struct ser_thr *t = ser_me;
    if (GEXI_LIKELY(t != NULL)) return t;
    pthread_once(&ser_once, ser_init_once);
    pthread_mutex_lock(&ser_lock);
    for (t = ser_all; t && t->live; t = t->next) {}
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t) gexi_fatal("out of memory for a thread's serialized-endpoint record");
        t->next = ser_all;
        ser_all = t;
    }
    t->live = 1;
    pthread_mutex_unlock(&ser_lock);
    pthread_setspecific(ser_key, t);
    ser_me = t;
    return t;
}

/* Makes the calling thread ep's owner (slow path: another thread, or none,
 * owned it).  Waits until the previous owner is not serving it. */
__attribute__((noinline)) static void ser_claim(struct gexi_ep *ep, struct ser_thr *t)
{
    const unsigned i = ep->index;
    pthread_mutex_lock(&ser_lock);
    struct ser_thr *old = atomic_load_explicit(&ser_owner[i], memory_order_relaxed);
    if (old != t) {
        atomic_store_explicit(&ser_owner[i], t, memory_order_seq_cst);
        if (old) {
            ser_fence_all();
            unsigned spins = 0;
            while (atomic_load_explicit(&old->serving, memory_order_acquire)) {
                /* the old owner is inside a poll: keep making progress (what
                 * this thread owns, the shared queues) meanwhile */
                gexi_poll_eps();
                gexi_backoff(&spins);
            }
        }
    }
    t->mask |= (uint64_t)1 << i;
    pthread_mutex_unlock(&ser_lock);
}

GEXI_EXPORT int gexi_ep_ser_use(struct gexi_ep *ep, int client_call)
{
    struct ser_thr *t = ser_me;
    /* A progress hook sends only on EPs the thread owns and serves now
     * (the collective engine runs a serialized EP's lane in its owner). */
    if (in_hooks) {
#ifdef GEX_DEBUG
        if (!t || atomic_load_explicit(&ser_owner[ep->index], memory_order_relaxed) != t ||
            !t->depth)
            gexi_fatal("internal: a progress engine sent from serialized endpoint %u in a "
                       "thread that does not own it", (unsigned)ep->index);
#endif
        return 0;
    }
    if (GEXI_UNLIKELY(!t)) t = ser_self();
    if (GEXI_UNLIKELY(atomic_load_explicit(&ser_owner[ep->index], memory_order_relaxed) != t))
        ser_claim(ep, t);
#ifdef GEX_DEBUG
    if (!client_call) return 0;
    const uintptr_t me = (uintptr_t)t;
    uintptr_t prev = atomic_exchange_explicit(&ep->ser_inuse, me, memory_order_acquire);
    if (prev && prev != me)
        gexi_fatal("endpoint %u was created with GEX_FLAG_EP_SERIALIZED but two threads are "
                   "using it at once (the client promised one at a time)", (unsigned)ep->index);
    return prev == 0;   /* nested (a wait inside a send): the outer call leaves */
#else
    (void)client_call;
    return 0;
#endif
}

GEXI_EXPORT void gexi_ep_ser_done(struct gexi_ep *ep)
{
    atomic_store_explicit(&ep->ser_inuse, 0, memory_order_release);
}

GEXI_EXPORT uint64_t gexi_ep_ser_serve(void)
{
    struct ser_thr *t = ser_me;
    if (!t) return 0;
    if (t->depth) {   /* nested: the outermost window decided */
        t->depth++;
        return t->window_own;
    }
    if (!t->mask) return 0;
    t->depth = 1;
    atomic_store_explicit(&t->serving, 1, memory_order_relaxed);
    if (ser_membarrier) atomic_signal_fence(memory_order_seq_cst);
    else atomic_thread_fence(memory_order_seq_cst);
    uint64_t own = 0;
    for (uint64_t m = t->mask; m; m &= m - 1) {
        const unsigned i = (unsigned)__builtin_ctzll(m);
        if (atomic_load_explicit(&ser_owner[i], memory_order_acquire) == t) own |= (uint64_t)1 << i;
    }
    t->mask = own;   /* lost ones stay lost until this thread claims them again */
    t->window_own = own;
    return own;
}

GEXI_EXPORT void gexi_ep_ser_unserve(void)
{
    struct ser_thr *t = ser_me;
    if (!t || !t->depth) return;
    if (--t->depth == 0) {
        t->window_own = 0;
        atomic_store_explicit(&t->serving, 0, memory_order_release);
    }
}

/* Polls the serialized EPs the calling thread owns, then the process's
 * shared and thread-safe queues: always when its own EPs were idle, else
 * every 8th time, so that a busy EP does not make the thread contend for
 * the shared queues on each poll, yet EP 0 traffic (replies, collectives)
 * is never left unserved.  Then the progress hooks, inside the same
 * serving window (the collective engine runs the lanes of owned EPs). */
GEXI_EXPORT int gexi_poll_eps(void)
{
    int n = 0;
    const uint64_t own = gexi_ep_ser_serve();
    if (own && GEX_CONDUIT_HAS(gexi_core.ops, poll_ep))
        for (uint64_t m = own; m; m &= m - 1)
            n += gexi_core.ops->poll_ep(gexi_core.conduit, (gex_EP_Index_t)__builtin_ctzll(m));
    if (n == 0 || (++poll_count & 7) == 0) n += gexi_core.ops->poll(gexi_core.conduit);
    unsigned k = atomic_load_explicit(&gexi_n_progress_fns, memory_order_acquire);
    in_hooks++;
    for (unsigned i = 0; i < k; i++) gexi_progress_fns[i]();
    in_hooks--;
    gexi_ep_ser_unserve();
    return n;
}

int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                  gex_Flags_t flags)
{
    struct gexi_client *c = gexi_client_of(client);
    if (!ep_p) GEXI_RETURN_ERR(BAD_ARG, "ep_p is NULL");
    if (!c || c->magic != GEXI_MAGIC_CLIENT) GEXI_RETURN_ERR(BAD_ARG, "client is not valid");
    if (!capabilities) GEXI_RETURN_ERR(BAD_ARG, "capabilities requests nothing");
    if (capabilities & ~GEX_EP_CAPABILITY_ALL)
        GEXI_RETURN_ERR(BAD_ARG, "capabilities 0x%x include unknown bits",
                        (unsigned)capabilities);
    if (flags & ~(GEX_FLAG_HINT_ACCEL_ALL | GEX_FLAG_EP_SERIALIZED))
        GEXI_RETURN_ERR(BAD_ARG, "flags 0x%x: only GEX_FLAG_HINT_ACCEL_* and (GEX extension) "
                        "GEX_FLAG_EP_SERIALIZED are accepted", (unsigned)flags);
    /* ACCEL hints are accepted and kept for gex_EP_QueryFlags; no conduit
     * here has scarce acceleration resources to hand out. */
    return gexi_ep_create(c, capabilities, flags, ep_p);
}

gex_Client_t gex_EP_QueryClient(gex_EP_t ep)
{
    GEXI_CHECK_EP(ep);
    return (gex_Client_t)gexi_ep_of(ep)->client;
}
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep)
{
    GEXI_CHECK_EP(ep);
    return gexi_ep_of(ep)->flags;
}
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep)
{
    GEXI_CHECK_EP(ep);
    return (gex_Segment_t)gexi_ep_of(ep)->segment;
}
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep)
{
    GEXI_CHECK_EP(ep);
    return gexi_ep_of(ep)->index;
}
void gex_EP_SetCData(gex_EP_t ep, const void *val)
{
    GEXI_CHECK_EP(ep);
    gexi_ep_of(ep)->cdata = (void *)val;
}
void *gex_EP_QueryCData(gex_EP_t ep)
{
    GEXI_CHECK_EP(ep);
    return gexi_ep_of(ep)->cdata;
}
