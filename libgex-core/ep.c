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
 * uses the EP, so no other thread's poll serves its queues: each thread
 * keeps a mask of the serialized EPs it created, registered handlers on or
 * sent from, and gexi_poll_eps (which every poll runs once a serialized EP
 * exists) polls those, then the rest of the process.  A starvation guard
 * lets a thread that has polled idly for GEX_EP_STARVE_MS serve every
 * serialized EP, so that an EP whose messages only a thread inside a wait
 * elsewhere could serve is not left behind (the conduit's per-EP consumer
 * flag makes such concurrent polls safe).  Debug builds check that no two
 * threads are inside client calls on one serialized EP at once.
 * docs/endpoints.md has the rules.
 */
#include "core_internal.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

int gexi_ep_create(struct gexi_client *c, gex_EP_Capabilities_t caps, gex_Flags_t flags,
                   gex_EP_t *ep_p)
{
    unsigned idx = atomic_fetch_add(&c->n_eps, 1);
    if (idx >= GASNET_MAXEPS) {
        atomic_fetch_sub(&c->n_eps, 1);
        GEXI_RETURN_ERR(RESOURCE, "already %d endpoints (GASNET_MAXEPS)", GASNET_MAXEPS);
    }
    struct gexi_ep *ep = aligned_alloc(GEXI_EP_ALIGN,
                                       (sizeof *ep + GEXI_EP_ALIGN - 1) / GEXI_EP_ALIGN * GEXI_EP_ALIGN);
    if (!ep) GEXI_RETURN_ERR(RESOURCE, "out of memory for an endpoint");
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
            GEXI_RETURN_ERR(RESOURCE, "conduit %s could not give endpoint %u its queues "
                            "(code %d)", gexi_core.ops->name, idx, rc);
        }
    }
    c->eps[idx] = ep;
    if (flags & GEX_FLAG_EP_SERIALIZED) {
        gexi_ep_ser_leave(ep, gexi_ep_ser_use(ep, 1));   /* the creator polls it */
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

/* ---- Serialized endpoints: who polls them ---- */

GEXI_EXPORT _Atomic unsigned gexi_n_serialized_eps;

/* This thread's serialized EPs (bit = EP index), whether it runs progress
 * hooks now, its poll count and when its current run of idle polls began;
 * its token is the address of a thread-local (distinct among live threads). */
static __thread uint64_t ser_mask __attribute__((tls_model("initial-exec")));
static __thread unsigned in_hooks __attribute__((tls_model("initial-exec")));
static __thread unsigned poll_count __attribute__((tls_model("initial-exec")));
static __thread uint64_t idle_since_ns __attribute__((tls_model("initial-exec")));
static inline uintptr_t thread_token(void) { return (uintptr_t)&ser_mask; }
_Static_assert(GASNET_MAXEPS <= 64, "ser_mask holds one bit per EP index");

GEXI_EXPORT int gexi_ep_ser_use(struct gexi_ep *ep, int client_call)
{
    /* A progress hook (a collective advancing in whatever thread polls)
     * sends for another thread: that makes this one no user of the EP. */
    if (in_hooks) return 0;
    ser_mask |= (uint64_t)1 << ep->index;
#ifdef GEX_DEBUG
    if (!client_call) return 0;
    const uintptr_t me = thread_token();
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

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* GEX_EP_STARVE_MS (default 50; 0 turns the guard off). */
static uint64_t starve_ns(void)
{
    static _Atomic int64_t v = -1;
    int64_t x = atomic_load_explicit(&v, memory_order_relaxed);
    if (x < 0) {
        x = gexi_getenv_int("GEX_EP_STARVE_MS", 50);
        if (x < 0) x = 0;
        x *= 1000000;
        atomic_store_explicit(&v, x, memory_order_relaxed);
    }
    return (uint64_t)x;
}

/* Polls the calling thread's serialized EPs, then the process's shared and
 * thread-safe queues: always when its own EPs were idle, else every 8th
 * time, so that a busy EP does not make the thread contend for the shared
 * queues on each poll, yet EP 0 traffic (replies, collectives) is never
 * left unserved.  Then the progress hooks. */
GEXI_EXPORT int gexi_poll_eps(void)
{
    int n = 0;
    const int has_poll_ep = GEX_CONDUIT_HAS(gexi_core.ops, poll_ep);
    if (ser_mask && has_poll_ep)
        for (uint64_t m = ser_mask; m; m &= m - 1)
            n += gexi_core.ops->poll_ep(gexi_core.conduit, (gex_EP_Index_t)__builtin_ctzll(m));
    if (n == 0 || (++poll_count & 7) == 0) n += gexi_core.ops->poll(gexi_core.conduit);
    if (n) {
        idle_since_ns = 0;
    } else if (has_poll_ep && starve_ns()) {
        const uint64_t now = mono_ns();
        if (!idle_since_ns) {
            idle_since_ns = now;
        } else if (now - idle_since_ns >= starve_ns()) {
            /* starvation guard: serve every serialized EP once */
            struct gexi_client *c = gexi_core.client;
            const unsigned ne = atomic_load(&c->n_eps);
            for (unsigned i = 1; i < ne && i < GASNET_MAXEPS; i++) {
                struct gexi_ep *ep = c->eps[i];
                if (ep && (ep->flags & GEX_FLAG_EP_SERIALIZED) && !(ser_mask >> i & 1))
                    n += gexi_core.ops->poll_ep(gexi_core.conduit, (gex_EP_Index_t)i);
            }
            idle_since_ns = now;
        }
    }
    unsigned k = atomic_load_explicit(&gexi_n_progress_fns, memory_order_acquire);
    in_hooks++;
    for (unsigned i = 0; i < k; i++) gexi_progress_fns[i]();
    in_hooks--;
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

gex_Client_t gex_EP_QueryClient(gex_EP_t ep) { return (gex_Client_t)gexi_ep_of(ep)->client; }
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) { return gexi_ep_of(ep)->flags; }
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep) { return (gex_Segment_t)gexi_ep_of(ep)->segment; }
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) { return gexi_ep_of(ep)->index; }
void gex_EP_SetCData(gex_EP_t ep, const void *val) { gexi_ep_of(ep)->cdata = (void *)val; }
void *gex_EP_QueryCData(gex_EP_t ep) { return gexi_ep_of(ep)->cdata; }
