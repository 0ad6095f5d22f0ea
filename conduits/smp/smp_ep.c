/*
 * smp_ep.c: per-endpoint queues of the smp conduit (conduit ABI 1.2:
 * ep_open / ep_close / poll_ep, GEX_CONDUIT_CAP_EP_QUEUES).  The layout of
 * an EP object and why every ring has one producing and one consuming EP
 * are in smp_internal.h; the ring protocol itself is smp_queue.c's,
 * unchanged: an EP ring is a struct gexc_smp_tx on the sending side and a
 * struct gexc_smp_rx on the receiving side like any other.
 *
 * Creation is local.  ep_open creates and maps the EP's object and returns;
 * nothing is exchanged.  A peer that later sends to (jobrank, ep) derives
 * the object's name, maps it, and registers its ring in the object's active
 * list (an atomic counter and an array of slot numbers written with release
 * order), which is the only part of the object the consumer scans.  The
 * process-wide mutex below guards only these first-use steps; sends and
 * polls read the resulting tables with acquire loads.
 *
 * Locks.  GEX_CONDUIT_EP_SERIALIZED is core's promise that one thread at
 * a time polls the EP (poll_ep) and sends from it (core gives each such EP
 * an owner thread, libgex-core/ep.c).  poll() never drains it, its consumer
 * flag is a plain store, and the rings it sends into (one per destination
 * EP, each with exactly one producing EP) take no producer lock: no atomic
 * read-modify-write on either side.  Rings of other EPs keep theirs when
 * the client is thread-safe.
 *
 * Who polls what.  poll() serves the shared rings and every non-serialized
 * EP; poll_ep(ep) serves one EP; a serialized EP is served only by poll_ep,
 * which core calls from the thread using it (docs/endpoints.md).
 */
#include "smp_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define GEXC_SMP_PAGE 4096u

/* First-use steps only (attach a peer's EP object, create a ring's producer
 * state, open an EP): never taken on a send or poll that finds its tables. */
static pthread_mutex_t gexc_smp_ep_mutex = PTHREAD_MUTEX_INITIALIZER;

static int gexc_smp_ep_name(struct gex_conduit *c, gex_Rank_t r, gex_EP_Index_t ep, char *buf,
                            size_t len)
{
    int w = snprintf(buf, len, "/gex-%s-smp-%u-ep%u", c->host.jobid, (unsigned)r, (unsigned)ep);
    if (w < 0 || (size_t)w >= len) return GEX_CONDUIT_EINVAL;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') *p = '_';
    return GEX_CONDUIT_OK;
}

int gexc_smp_ep_setup(struct gex_conduit *c)
{
    struct gexc_smp_ep_layout *L = &c->ep_layout;
    const uint64_t nslots = (uint64_t)c->n * GEXC_SMP_MAX_EPS * 2;
    uint64_t rings;
    L->nslots = (uint32_t)nslots;
    L->off_active = sizeof(struct gexc_smp_ep_hdr);
    L->off_heads = (L->off_active + 4 * nslots + GEXC_SMP_CACHELINE - 1) &
                   ~(uint64_t)(GEXC_SMP_CACHELINE - 1);
    L->off_rings = (L->off_heads + nslots * sizeof(struct gexc_smp_head) + GEXC_SMP_PAGE - 1) &
                   ~(uint64_t)(GEXC_SMP_PAGE - 1);
    if (nslots > UINT32_MAX || __builtin_mul_overflow(nslots, c->ring_size, &rings) ||
        __builtin_add_overflow(L->off_rings, rings, &L->size) || L->size > (uint64_t)SIZE_MAX / 2)
        L->size = 0;   /* ep_open will refuse: too large to map */
    c->peer_eps = calloc((size_t)c->n * GEXC_SMP_MAX_EPS, sizeof *c->peer_eps);
    return c->peer_eps ? GEX_CONDUIT_OK : GEX_CONDUIT_ENOMEM;
}

/* ---- Receiving side ---- */

int gexc_smp_ep_open(struct gex_conduit *c, gex_EP_Index_t ep, uint32_t ep_flags)
{
    const struct gexc_smp_ep_layout *L = &c->ep_layout;
    char name[256];
    if (ep == 0 || ep >= GEXC_SMP_MAX_EPS || (ep_flags & ~GEX_CONDUIT_EP_SERIALIZED)) {
        c->host.log(0, "smp conduit: ep_open(%u, flags %#x): index must be 1..%u, flags "
                    "GEX_CONDUIT_EP_SERIALIZED or 0", (unsigned)ep, (unsigned)ep_flags,
                    GEXC_SMP_MAX_EPS - 1);
        return GEX_CONDUIT_EINVAL;
    }
    if (atomic_load(&c->leps[ep])) {
        c->host.log(0, "smp conduit: ep_open(%u): already open", (unsigned)ep);
        return GEX_CONDUIT_EINVAL;
    }
    if (!L->size) {
        c->host.log(0, "smp conduit: an endpoint's queues for %u ranks with GEX_SMP_RING_SIZE=%llu "
                    "are too large to map", (unsigned)c->n, (unsigned long long)c->ring_size);
        return GEX_CONDUIT_ENOMEM;
    }
    if (gexc_smp_ep_name(c, c->me, ep, name, sizeof name)) return GEX_CONDUIT_EINVAL;

    struct gexc_smp_lep *l = calloc(1, sizeof *l);
    struct gexc_smp_peer_ep *self = calloc(1, sizeof *self);
    struct gexc_smp_rx *rx = calloc(L->nslots, sizeof *rx);
    uint32_t *list0 = calloc(L->nslots / 2, sizeof *list0);
    uint32_t *list1 = calloc(L->nslots / 2, sizeof *list1);
    if (!l || !self || !rx || !list0 || !list1) goto nomem;

    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) {   /* left by a crashed job with the same id */
        shm_unlink(name);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd < 0) {
        c->host.log(0, "smp conduit: shm_open(%s): %s", name, strerror(errno));
        goto fail;
    }
    if (ftruncate(fd, (off_t)L->size) != 0) {
        c->host.log(0, "smp conduit: sizing %s to %llu bytes: %s", name,
                    (unsigned long long)L->size, strerror(errno));
        close(fd);
        shm_unlink(name);
        goto nomem;
    }
    void *base = mmap(NULL, (size_t)L->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        c->host.log(0, "smp conduit: mapping %s: %s", name, strerror(errno));
        shm_unlink(name);
        goto nomem;
    }
    /* A one-rank job has no peer to map it: the name can go now. */
    if (c->n == 1) shm_unlink(name);

    struct gexc_smp_ep_hdr *h = base;
    h->jobrank = c->me;
    h->ep = ep;
    h->jobsize = c->n;
    h->nslots = L->nslots;
    h->ring_size = c->ring_size;
    h->obj_size = L->size;
    atomic_store_explicit((_Atomic uint64_t *)&h->magic, GEXC_SMP_EP_MAGIC, memory_order_release);

    l->index = ep;
    l->serialized = (ep_flags & GEX_CONDUIT_EP_SERIALIZED) != 0;
    /* Only the owner thread polls a serialized EP (core's promise): its
     * consumer flag then only guards against re-entry, a plain store. */
    l->threaded = c->thread_safe && !l->serialized;
    l->base = base;
    l->hdr = h;
    l->active = (_Atomic uint32_t *)((unsigned char *)base + L->off_active);
    l->rx = rx;
    l->kind[0].list = list0;
    l->kind[1].list = list1;
    self->base = base;
    self->hdr = h;

    pthread_mutex_lock(&gexc_smp_ep_mutex);
    atomic_store_explicit(&c->peer_eps[(size_t)c->me * GEXC_SMP_MAX_EPS + ep], self,
                          memory_order_release);
    atomic_store_explicit(&c->leps[ep], l, memory_order_release);
    if (!l->serialized) {
        uint32_t i = atomic_load_explicit(&c->n_polled_leps, memory_order_relaxed);
        atomic_store_explicit(&c->polled_leps[i], l, memory_order_relaxed);
        atomic_store_explicit(&c->n_polled_leps, i + 1, memory_order_release);
    }
    pthread_mutex_unlock(&gexc_smp_ep_mutex);
    c->host.log(3, "smp conduit: endpoint %u has its own queues%s", (unsigned)ep,
                l->serialized ? " (serialized: no locks)" : "");
    return GEX_CONDUIT_OK;

nomem:
    c->host.log(0, "smp conduit: out of memory for endpoint %u's queues", (unsigned)ep);
fail:
    free(l);
    free(self);
    free(rx);
    free(list0);
    free(list1);
    return GEX_CONDUIT_ENOMEM;
}

/* The client is ending: the name goes (peers that never addressed the EP
 * will not now); the memory stays mapped until fini, since a peer may
 * still be writing into it. */
void gexc_smp_ep_close(struct gex_conduit *c, gex_EP_Index_t ep)
{
    char name[256];
    if (ep == 0 || ep >= GEXC_SMP_MAX_EPS || !atomic_load(&c->leps[ep])) return;
    if (c->n > 1 && !gexc_smp_ep_name(c, c->me, ep, name, sizeof name)) shm_unlink(name);
}

/* Adopts slots registered since the last look (this kind only), then drains
 * them round-robin from where the last exhausted budget stopped. */
int gexc_smp_lep_poll_kind(struct gex_conduit *c, struct gexc_smp_lep *l, unsigned k,
                           unsigned *budget)
{
    struct gexc_smp_lep_kind *kk = &l->kind[k];
    if (!*budget || !gexc_smp_poll_trylock_t(l->threaded, &kk->pl)) return 0;
    const struct gexc_smp_ep_layout *L = &c->ep_layout;
    const uint32_t na = atomic_load_explicit(&l->hdr->nactive, memory_order_acquire);
    while (kk->nseen < na && kk->nseen < L->nslots) {
        const uint32_t v = atomic_load_explicit(&l->active[kk->nseen], memory_order_acquire);
        if (!v) break;   /* registered but not yet written: next time */
        const uint32_t slot = v - 1;
        if (GEXC_SMP_UNLIKELY(slot >= L->nslots))
            c->host.fatal("smp conduit: endpoint %u's active list holds slot %u of %u "
                          "(shared memory overwritten?)", (unsigned)l->index, (unsigned)slot,
                          (unsigned)L->nslots);
        kk->nseen++;
        if ((slot & 1u) != k) continue;
        struct gexc_smp_rx *rx = &l->rx[slot];
        rx->head = 0;
        rx->data = l->base + L->off_rings + (uint64_t)slot * c->ring_size;
        rx->head_pub = &((struct gexc_smp_head *)(l->base + L->off_heads))[slot].head;
        kk->list[kk->nlist++] = slot;
    }
    int ran = 0;
    const uint32_t nl = kk->nlist;
    uint32_t s = kk->pl.rr < nl ? kk->pl.rr : 0;
    for (uint32_t i = 0; i < nl; i++) {
        const uint32_t slot = kk->list[s];
        ran += gexc_smp_drain_ring(c, &l->rx[slot], k, slot / (2 * GEXC_SMP_MAX_EPS), budget);
        if (++s == nl) s = 0;
        if (!*budget) {
            kk->pl.rr = s;
            break;
        }
    }
    gexc_smp_poll_unlock(&kk->pl);
    return ran;
}

int gexc_smp_poll_leps(struct gex_conduit *c, unsigned k, unsigned *budget)
{
    const uint32_t n = atomic_load_explicit(&c->n_polled_leps, memory_order_acquire);
    int ran = 0;
    for (uint32_t i = 0; i < n && *budget; i++) {
        struct gexc_smp_lep *l = atomic_load_explicit(&c->polled_leps[i], memory_order_relaxed);
        ran += gexc_smp_lep_poll_kind(c, l, k, budget);
    }
    return ran;
}

int gexc_smp_poll_ep(struct gex_conduit *c, gex_EP_Index_t ep)
{
    if (ep == 0) return gexc_smp_poll_shared(c);
    if (ep >= GEXC_SMP_MAX_EPS) return 0;
    struct gexc_smp_lep *l = atomic_load_explicit(&c->leps[ep], memory_order_acquire);
    if (!l) return 0;
    unsigned budget = c->poll_budget;
    int ran = gexc_smp_lep_poll_kind(c, l, GEXC_SMP_RING_REP, &budget);
    return ran + gexc_smp_lep_poll_kind(c, l, GEXC_SMP_RING_REQ, &budget);
}

/* ---- Sending side ---- */

/* Maps (dst, ep)'s object, or NULL if it has none (yet).  Mutex held. */
static struct gexc_smp_peer_ep *gexc_smp_attach(struct gex_conduit *c, gex_Rank_t dst,
                                                gex_EP_Index_t ep)
{
    const size_t idx = (size_t)dst * GEXC_SMP_MAX_EPS + ep;
    struct gexc_smp_peer_ep *p = atomic_load_explicit(&c->peer_eps[idx], memory_order_acquire);
    if (p) return p;
    const uint64_t size = c->ep_layout.size;
    char name[256];
    if (!size || gexc_smp_ep_name(c, dst, ep, name, sizeof name)) return NULL;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) return NULL;   /* no such EP: the caller falls back to the shared ring */
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != size) {
        close(fd);
        c->host.log(0, "smp conduit: rank %u's endpoint %u object %s has the wrong size "
                    "(GEX_SMP_RING_SIZE must be equal on every rank)", (unsigned)dst,
                    (unsigned)ep, name);
        return NULL;
    }
    void *base = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) return NULL;
    struct gexc_smp_ep_hdr *h = base;
    if (atomic_load_explicit((_Atomic uint64_t *)&h->magic, memory_order_acquire) !=
            GEXC_SMP_EP_MAGIC || h->jobrank != dst || h->ep != ep || h->jobsize != c->n ||
        h->ring_size != c->ring_size || h->obj_size != size) {
        munmap(base, (size_t)size);
        return NULL;
    }
    p = calloc(1, sizeof *p);
    if (!p) {
        munmap(base, (size_t)size);
        return NULL;
    }
    p->base = base;
    p->hdr = h;
    /* The last peer to map the object removes its name. */
    if (atomic_fetch_add(&h->attached, 1) + 1 == c->n - 1) shm_unlink(name);
    atomic_store_explicit(&c->peer_eps[idx], p, memory_order_release);
    return p;
}

struct gexc_smp_tx *gexc_smp_ep_tx_slow(struct gex_conduit *c, gex_EP_Index_t src_ep,
                                        gex_Rank_t dst, gex_EP_Index_t dst_ep, unsigned k)
{
    struct gexc_smp_tx *shared = &c->tx[(size_t)k * c->n + dst];
    const size_t nslots = c->ep_layout.nslots;
    const uint32_t slot = gexc_smp_ep_slot(dst, dst_ep, k);
    struct gexc_smp_tx *tx = NULL;
    pthread_mutex_lock(&gexc_smp_ep_mutex);
    struct gexc_smp_tx *_Atomic *tab = atomic_load(&c->eptx[src_ep]);
    if (!tab) {
        tab = calloc(nslots, sizeof *tab);
        if (!tab) goto out;
        atomic_store_explicit(&c->eptx[src_ep], tab, memory_order_release);
    }
    tx = atomic_load(&tab[slot]);
    if (tx) goto out;
    struct gexc_smp_peer_ep *p = gexc_smp_attach(c, dst, dst_ep);
    if (!p) goto out;
    size_t sz = (sizeof *tx + GEXC_SMP_CACHELINE - 1) & ~(size_t)(GEXC_SMP_CACHELINE - 1);
    tx = aligned_alloc(GEXC_SMP_CACHELINE, sz);
    if (!tx) goto out;
    memset(tx, 0, sz);
    const struct gexc_smp_lep *src = atomic_load(&c->leps[src_ep]);
    const uint32_t in_peer = gexc_smp_ep_slot(c->me, src_ep, k);   /* our ring in its object */
    atomic_init(&tx->lock, 0);
    /* Only the owner thread of a serialized EP sends from it (core's
     * promise; collectives too run in the owner): its rings need no lock. */
    tx->use_lock = (uint8_t)(c->thread_safe != 0 && !(src && src->serialized));
    tx->src_ep = (uint8_t)src_ep;
    tx->data = p->base + c->ep_layout.off_rings + (uint64_t)in_peer * c->ring_size;
    tx->head = &((struct gexc_smp_head *)(p->base + c->ep_layout.off_heads))[in_peer].head;
    tx->hint = NULL;
    /* Register the ring with its consumer, then let senders use it. */
    _Atomic uint32_t *active = (_Atomic uint32_t *)(p->base + c->ep_layout.off_active);
    const uint32_t pos = atomic_fetch_add(&p->hdr->nactive, 1);
    if (pos >= nslots)
        c->host.fatal("smp conduit: rank %u endpoint %u has more registered senders than slots "
                      "(shared memory overwritten?)", (unsigned)dst, (unsigned)dst_ep);
    atomic_store_explicit(&active[pos], in_peer + 1, memory_order_release);
    atomic_store_explicit(&tab[slot], tx, memory_order_release);
out:
    pthread_mutex_unlock(&gexc_smp_ep_mutex);
    return tx ? tx : shared;
}

void gexc_smp_ep_free(struct gex_conduit *c)
{
    const uint64_t size = c->ep_layout.size;
    for (unsigned e = 0; e < GEXC_SMP_MAX_EPS; e++) {
        struct gexc_smp_tx *_Atomic *tab = atomic_load(&c->eptx[e]);
        if (tab) {
            for (size_t i = 0; i < c->ep_layout.nslots; i++) free(atomic_load(&tab[i]));
            free(tab);
        }
        struct gexc_smp_lep *l = atomic_load(&c->leps[e]);
        if (l) {
            gexc_smp_ep_close(c, (gex_EP_Index_t)e);
            free(l->rx);
            free(l->kind[0].list);
            free(l->kind[1].list);
            free(l);
        }
    }
    if (c->peer_eps) {
        for (size_t i = 0; i < (size_t)c->n * GEXC_SMP_MAX_EPS; i++) {
            struct gexc_smp_peer_ep *p = atomic_load(&c->peer_eps[i]);
            if (!p) continue;
            munmap(p->base, (size_t)size);
            free(p);
        }
        free(c->peer_eps);
    }
}
