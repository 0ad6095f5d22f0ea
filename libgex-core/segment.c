/*
 * segment.c: segments, binding and publication (spec: gex_Segment_*,
 * gex_EP_BindSegment, gex_EP_PublishBoundSegment, gex_EP_QueryBoundSegmentNB;
 * seed 003 section 4).
 *
 * Core keeps a table of what it knows about every (jobrank, EP index)'s
 * bound segment: owner address, size and, for nbrhd peers whose segment was
 * allocated by the shared-memory provider (libgex-shm), a local mapping.
 * The provider is found at load time (libgex-shm registers itself from a
 * constructor; if the program did not link it, core tries to dlopen it), so
 * core never links a layer.  Without a provider, or in a process alone in
 * its nbrhd, segments are private anonymous memory (reserved lazily, like
 * any mmap) and no peer segment is mapped.
 */
#include "core_internal.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const struct gexi_segment_provider *provider;
/* Exported so that the layers' hot paths read a record without a call
 * (gexi_peer_segment_record in core_layer.h). */
GEXI_EXPORT struct gexi_peer_segment *gexi_peer_ep0;   /* [jobsize] EP index 0 */
GEXI_EXPORT struct gexi_peer_segment *_Atomic *gexi_peer_extra; /* [jobsize] -> [MAXEPS] */
static struct gexi_segment *attached;          /* the gex_Segment_Attach segment */

/* ---- Memory kinds (issue 9): libgex-mk's hooks, see core_layer.h ---- */
static const struct gexi_mk_hooks *mk_hooks;
GEXI_EXPORT _Atomic unsigned gexi_mk_device_segments;

GEXI_EXPORT void gexi_set_mk_hooks(const struct gexi_mk_hooks *hooks)
{
    mk_hooks = hooks;
}
/* ---- end memory kinds ---- */

/* ---- Network registration (issue 8: conduit ABI 1.2 native RMA) ----
 * Host segments are registered with the conduit (mem_register) when they
 * are created; the key travels in the publication records and reaches the
 * conduit through seg_publish for every segment published to us (our own
 * too: network atomics may target this process).  The keys live in this
 * side list so struct gexi_segment stays as it is. */
struct seg_reg {
    const struct gexi_segment *s;
    uint64_t key;
    struct seg_reg *next;
};
static struct seg_reg *seg_regs;
static pthread_mutex_t seg_regs_lock = PTHREAD_MUTEX_INITIALIZER;

static void seg_net_register(const struct gexi_segment *s)
{
    const struct gex_conduit_ops *ops = gexi_core.ops;
    if (!ops || !gexi_core.conduit || !GEX_CONDUIT_HAS(ops, seg_publish) ||
        !GEX_CONDUIT_HAS(ops, mem_register) || s->mk_ops || !s->size)
        return;
    uint64_t key = 0;
    if (ops->mem_register(gexi_core.conduit, s->addr, s->size, &key) != GEX_CONDUIT_OK) {
        gexi_log(1, "segment [%p, +%zu) not registered with the conduit: RMA to it takes "
                 "the AM path", s->addr, (size_t)s->size);
        return;
    }
    struct seg_reg *r = malloc(sizeof *r);
    if (!r) {
        if (GEX_CONDUIT_HAS(ops, mem_deregister)) ops->mem_deregister(gexi_core.conduit, key);
        return;
    }
    r->s = s;
    r->key = key;
    pthread_mutex_lock(&seg_regs_lock);
    r->next = seg_regs;
    seg_regs = r;
    pthread_mutex_unlock(&seg_regs_lock);
}

/* The segment's key, *found_p = 1 if it is registered. */
static uint64_t seg_net_key(const struct gexi_segment *s, int *found_p)
{
    uint64_t key = 0;
    *found_p = 0;
    pthread_mutex_lock(&seg_regs_lock);
    for (const struct seg_reg *r = seg_regs; r; r = r->next)
        if (r->s == s) {
            key = r->key;
            *found_p = 1;
            break;
        }
    pthread_mutex_unlock(&seg_regs_lock);
    return key;
}

static void seg_net_deregister(const struct gexi_segment *s)
{
    struct seg_reg *found = NULL;
    pthread_mutex_lock(&seg_regs_lock);
    for (struct seg_reg **pp = &seg_regs; *pp; pp = &(*pp)->next)
        if ((*pp)->s == s) {
            found = *pp;
            *pp = found->next;
            break;
        }
    pthread_mutex_unlock(&seg_regs_lock);
    if (!found) return;
    if (GEX_CONDUIT_HAS(gexi_core.ops, mem_deregister))
        gexi_core.ops->mem_deregister(gexi_core.conduit, found->key);
    free(found);
}

/* A publication record reached us: tell the conduit where RMA may go. */
static void seg_net_publish(gex_Rank_t jr, gex_EP_Index_t ep, uint64_t addr, uint64_t size,
                            uint64_t key, uint32_t has_key)
{
    const struct gex_conduit_ops *ops = gexi_core.ops;
    if (!has_key || !ops || !GEX_CONDUIT_HAS(ops, seg_publish)) return;
    if (ops->seg_publish(gexi_core.conduit, jr, ep, (void *)(uintptr_t)addr, (size_t)size, key) !=
        GEX_CONDUIT_OK)
        gexi_log(1, "conduit did not take jobrank %u endpoint %u's segment: RMA to it takes "
                 "the AM path", (unsigned)jr, (unsigned)ep);
}
/* ---- end network registration ---- */

GEXI_EXPORT void gexi_set_segment_provider(const struct gexi_segment_provider *p)
{
    provider = p;
}

GEXI_EXPORT const struct gexi_segment_provider *gexi_get_segment_provider(void)
{
    return provider;
}

/* Team-wide all-gather for publication over teams other than the primordial
 * one, registered by libgex-coll when it loads. */
static gexi_team_exchange_fn *team_exchange;

GEXI_EXPORT void gexi_set_team_exchange(gexi_team_exchange_fn *fn)
{
    team_exchange = fn;
}

int gexi_segment_provider_available(void)
{
    if (provider) return 1;
    if (!gexi_getenv_yesno("GEX_PSHM", 1)) return 0;
    /* Not linked by the program: found as the loader finds every other
     * layer, LD_LIBRARY_PATH first (how an operator swaps in another
     * release of one layer, docs/upgrading.md), then beside libgex-core
     * (libgex-core carries no RUNPATH to its own folder), then by name. */
    const char *ldpath = getenv("LD_LIBRARY_PATH");
    if (ldpath && *ldpath) {
        char *copy = strdup(ldpath), *save = NULL;
        for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
            char path[4096];
            snprintf(path, sizeof path, "%s/libgex-shm.so.1", *d ? d : ".");
            if (access(path, R_OK) == 0 && dlopen(path, RTLD_NOW | RTLD_GLOBAL)) break;
        }
        free(copy);
        if (provider) return 1;
    }
    Dl_info info;
    if (dladdr((void *)&gexi_segment_provider_available, &info) && info.dli_fname) {
        char path[4096];
        snprintf(path, sizeof path, "%s", info.dli_fname);
        char *slash = strrchr(path, '/');
        if (slash) {
            snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "libgex-shm.so.1");
            if (dlopen(path, RTLD_NOW | RTLD_GLOBAL)) return provider != NULL;
        }
    }
    dlopen("libgex-shm.so.1", RTLD_NOW | RTLD_GLOBAL);
    return provider != NULL;
}

int gexi_segments_init(void)
{
    gexi_peer_ep0 = calloc(gexi_core.jobsize, sizeof *gexi_peer_ep0);
    gexi_peer_extra = calloc(gexi_core.jobsize, sizeof *gexi_peer_extra);
    return gexi_peer_ep0 && gexi_peer_extra ? GASNET_OK : GASNET_ERR_RESOURCE;
}

static struct gexi_peer_segment *peer_slot(gex_Rank_t jr, gex_EP_Index_t ep, int create)
{
    if (jr >= gexi_core.jobsize || ep >= GASNET_MAXEPS) return NULL;
    if (ep == 0) return &gexi_peer_ep0[jr];
    struct gexi_peer_segment *row =
        atomic_load_explicit(&gexi_peer_extra[jr], memory_order_acquire);
    if (!row) {
        if (!create) return NULL;
        struct gexi_peer_segment *mine = calloc(GASNET_MAXEPS, sizeof *mine);
        if (!mine) gexi_fatal("out of memory for the peer segment table");
        if (atomic_compare_exchange_strong_explicit(&gexi_peer_extra[jr], &row, mine,
                                                    memory_order_acq_rel, memory_order_acquire))
            row = mine;
        else
            free(mine);   /* another thread's row won */
    }
    return &row[ep];
}

void gexi_peer_segment_set(gex_Rank_t jr, gex_EP_Index_t ep, const struct gexi_peer_segment *ps)
{
    struct gexi_peer_segment *slot = peer_slot(jr, ep, 1);
    if (slot) *slot = *ps;
}

GEXI_EXPORT const struct gexi_peer_segment *gexi_peer_segment(gex_Rank_t jr, gex_EP_Index_t ep)
{
    const struct gexi_peer_segment *ps = peer_slot(jr, ep, 0);
    return ps && ps->size ? ps : NULL;
}

/* Memory kinds (issue 9): our own EPs from their binding, peers from what
 * they published. */
GEXI_EXPORT int gexi_mk_peer_is_device(gex_Rank_t jr, gex_EP_Index_t ep)
{
    if (jr == gexi_core.jobrank) return gexi_mk_local_device_seg(ep) != NULL;
    const struct gexi_peer_segment *ps = peer_slot(jr, ep, 0);
    return ps && (ps->kind_flags & GEXI_PEER_SEG_DEVICE);
}

/* What this process knows of (jr, ep)'s bound segment: our own EPs from
 * their binding, peers from what they published (spec: a segment "known"
 * to the initiator).  0 if nothing is known. */
GEXI_EXPORT int gexi_bound_segment(gex_Rank_t jr, gex_EP_Index_t ep, uintptr_t *base_p,
                                   uintptr_t *size_p)
{
    if (jr == gexi_core.jobrank) {
        const struct gexi_client *c = gexi_core.client;
        const struct gexi_ep *e =
            c && ep < atomic_load_explicit(&c->n_eps, memory_order_acquire) ? c->eps[ep] : NULL;
        if (!e || !e->segment) return 0;
        *base_p = (uintptr_t)e->segment->addr;
        *size_p = e->segment->size;
        return 1;
    }
    const struct gexi_peer_segment *ps = gexi_peer_segment(jr, ep);
    if (!ps) return 0;
    *base_p = (uintptr_t)ps->owneraddr;
    *size_p = ps->size;
    return 1;
}

GEXI_EXPORT void gexi_mk_check_range(const char *who, const struct gexi_segment *s,
                                     const void *addr, size_t n)
{
    uintptr_t a = (uintptr_t)addr, b = (uintptr_t)s->addr;
    if (a < b || n > s->size || a - b > s->size - n)
        gexi_fatal("%s: [%p, +%zu) is outside the %s segment [%p, %p) it must lie in", who, addr,
                   n, s->mk_ops ? s->mk_ops->class_name : "host", s->addr,
                   (void *)(b + s->size));
}

GEXI_EXPORT void gexi_mk_copy_in(struct gexi_segment *s, void *addr, const void *host, size_t n,
                                 const char *who)
{
    if (!s || !s->mk_ops) {
        memcpy(addr, host, n);
        return;
    }
    gexi_mk_check_range(who, s, addr, n);
    int rc = s->mk_ops->copy_in(s, addr, host, n);
    if (rc) gexi_fatal("%s: writing %zu bytes at %p of a %s segment failed: %s", who, n, addr,
                       s->mk_ops->class_name, gasnet_ErrorDesc(rc));
}

GEXI_EXPORT void gexi_mk_copy_out(struct gexi_segment *s, void *host, const void *addr, size_t n,
                                  const char *who)
{
    if (!s || !s->mk_ops) {
        memcpy(host, addr, n);
        return;
    }
    gexi_mk_check_range(who, s, addr, n);
    int rc = s->mk_ops->copy_out(s, host, addr, n);
    if (rc) gexi_fatal("%s: reading %zu bytes at %p of a %s segment failed: %s", who, n, addr,
                       s->mk_ops->class_name, gasnet_ErrorDesc(rc));
}

GEXI_EXPORT void *gexi_peer_local_addr(gex_Rank_t jr, gex_EP_Index_t ep, void *addr, size_t len)
{
    const struct gexi_peer_segment *ps = peer_slot(jr, ep, 0);
    if (!ps || !ps->localaddr) return NULL;
    uintptr_t off = (uintptr_t)addr - (uintptr_t)ps->owneraddr;
    if ((uintptr_t)addr < (uintptr_t)ps->owneraddr || off > ps->size || len > ps->size - off)
        return NULL;
    return (char *)ps->localaddr + off;
}

/* ---- allocation ---- */

/* Serial numbers of this process's segments (see gexi_segment.serial). */
static uint32_t next_serial(void)
{
    static atomic_uint counter;
    uint32_t v;
    while (!(v = (uint32_t)atomic_fetch_add(&counter, 1) + 1)) {}
    return v;
}

static struct gexi_segment *segment_new(struct gexi_client *c, uintptr_t size, void *client_addr,
                                        char desc[GEXI_SEG_DESC_SIZE])
{
    struct gexi_segment *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = GEXI_MAGIC_SEGMENT;
    s->client = c;
    s->kind = GEX_MK_HOST;
    s->size = size;
    s->serial = next_serial();
    desc[0] = 0;
    if (client_addr) {
        s->addr = client_addr;
        s->client_allocated = 1;
        return s;
    }
    /* Shared memory only when some nbrhd peer can map it: a /dev/shm object
     * is checked against the free space there (and with GEX_PSHM_RESERVE=1
     * reserved in full), which for a process alone in its nbrhd (1 rank,
     * GEX_PSHM=0, GASNET_SUPERNODE_MAXSIZE=1) buys nothing. */
    if (provider && gexi_core.nbrhd_size > 1 &&
        provider->alloc(size, &s->addr, &s->provider_handle, desc) == 0)
        return s;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) {
        free(s);
        return NULL;
    }
    s->addr = p;
    return s;
}

static void segment_free(struct gexi_segment *s)
{
    seg_net_deregister(s);   /* issue 8 */
    if (s->mk_ops) {
        mk_hooks->segment_destroy(s);              /* memory kinds (issue 9) */
    } else if (!s->client_allocated) {
        if (s->provider_handle) provider->release(s->provider_handle, s->addr, s->size);
        else munmap(s->addr, s->size);
    }
    s->magic = 0;
    free(s);
}

/* ---- job-wide publication (bootstrap exchange) ---- */

struct pub_record {
    uint32_t ep_index;
    uint32_t serial;       /* gexi_segment.serial */
    uint64_t addr, size;
    char desc[GEXI_SEG_DESC_SIZE];
    uint32_t kind_flags;   /* memory kinds (issue 9): GEXI_PEER_SEG_DEVICE */
    uint32_t has_rkey;     /* issue 8: rkey is a conduit registration key */
    uint64_t rkey;
};

/* The exchange publication runs over: the whole job through the bootstrap
 * (tm == NULL), or the members of team tm through libgex-coll. */
static int pub_exchange(gex_TM_t tm, const void *mine, size_t len, void *all)
{
    return tm ? team_exchange(tm, mine, len, all) : gexi_bootstrap_exchange(mine, len, all);
}

static gex_Rank_t pub_jobrank(gex_TM_t tm, gex_Rank_t i)
{
    if (!tm) return i;
    gex_Rank_t jr;
    gex_EP_Index_t idx;
    gexi_tm_peer(tm, i, &jr, &idx);
    return jr;
}

/* A mapping of the same segment of rank jr (its serial) that another of
 * jr's EPs already has here: one segment bound to several EPs is mapped
 * once.  NULL if none. */
static void *shared_mapping(gex_Rank_t jr, gex_EP_Index_t except,
                            const struct gexi_peer_segment *ps)
{
    if (!ps->serial) return NULL;
    for (gex_EP_Index_t e = 0; e < GASNET_MAXEPS; e++) {
        const struct gexi_peer_segment *o = e == except ? NULL : peer_slot(jr, e, 0);
        if (o && o->localaddr && o->serial == ps->serial && o->owneraddr == ps->owneraddr &&
            o->size == ps->size)
            return o->localaddr;
    }
    return NULL;
}

/* Does another of jr's EPs still use the mapping at localaddr? */
static int mapping_in_use(gex_Rank_t jr, gex_EP_Index_t except, const void *localaddr)
{
    for (gex_EP_Index_t e = 0; e < GASNET_MAXEPS; e++) {
        const struct gexi_peer_segment *o = e == except ? NULL : peer_slot(jr, e, 0);
        if (o && o->localaddr == localaddr) return 1;
    }
    return 0;
}

/* Publishes the bound segments of `eps` to every participant (the job, or
 * the members of tm), maps nbrhd peers' provider segments, then (after
 * everyone has mapped) removes the OS names of ours so nothing outlives the
 * job.  Collective over the job (tm == NULL) or over tm. */
static int publish_job(gex_TM_t tm, struct gexi_ep *const *eps, size_t n,
                       char (*descs)[GEXI_SEG_DESC_SIZE])
{
    gex_Rank_t js = tm ? gexi_tm_of(tm)->size : gexi_core.jobsize;
    uint32_t mycount = (uint32_t)n, maxcount = 0;
    uint32_t *counts = calloc(js, sizeof *counts);
    if (!counts) return GASNET_ERR_RESOURCE;
    if (pub_exchange(tm, &mycount, sizeof mycount, counts)) goto fail_counts;
    for (gex_Rank_t r = 0; r < js; r++) if (counts[r] > maxcount) maxcount = counts[r];
    if (!maxcount) {
        free(counts);
        return GASNET_OK;
    }
    struct pub_record *mine = calloc(maxcount, sizeof *mine);
    struct pub_record *all = calloc((size_t)js * maxcount, sizeof *all);
    if (!mine || !all) goto fail_records;
    for (size_t i = 0; i < n; i++) {
        const struct gexi_segment *s = eps[i]->segment;
        mine[i].ep_index = eps[i]->index;
        mine[i].addr = s ? (uint64_t)(uintptr_t)s->addr : 0;
        mine[i].size = s ? s->size : 0;
        if (s && descs) memcpy(mine[i].desc, descs[i], GEXI_SEG_DESC_SIZE);
        mine[i].kind_flags = s && s->mk_ops ? GEXI_PEER_SEG_DEVICE : 0;
        mine[i].serial = s ? s->serial : 0;
        if (s) {   /* issue 8 */
            int found;
            mine[i].rkey = seg_net_key(s, &found);
            mine[i].has_rkey = (uint32_t)found;
        }
    }
    if (pub_exchange(tm, mine, maxcount * sizeof *mine, all)) goto fail_records;
    for (gex_Rank_t k = 0; k < js; k++) {
        const gex_Rank_t r = pub_jobrank(tm, k);
        for (uint32_t i = 0; i < counts[k]; i++) {
            const struct pub_record *rec = &all[(size_t)k * maxcount + i];
            if (!rec->size) continue;
            struct gexi_peer_segment ps = { .owneraddr = (void *)(uintptr_t)rec->addr,
                                            .size = rec->size, .kind_flags = rec->kind_flags,
                                            .serial = rec->serial };
            const struct gexi_peer_segment *old = peer_slot(r, rec->ep_index, 0);
            /* A peer's mapping of the segment this record replaces (the
             * owner destroyed it): released once the slot names the new one. */
            void *stale = NULL;
            uintptr_t stale_size = 0;
            if (old && old->localaddr && r != gexi_core.jobrank &&
                !(old->owneraddr == ps.owneraddr && old->size == ps.size &&
                  old->serial == ps.serial)) {
                stale = old->localaddr;
                stale_size = old->size;
            }
            if (rec->kind_flags & GEXI_PEER_SEG_DEVICE) {
                /* memory kinds (issue 9): never mapped, reached through AMs */
                if (r != gexi_core.jobrank &&
                    !(old && old->size && (old->kind_flags & GEXI_PEER_SEG_DEVICE)))
                    atomic_fetch_add(&gexi_mk_device_segments, 1);
            } else if (r == gexi_core.jobrank) {
                ps.localaddr = ps.owneraddr;
            } else if (old && old->localaddr && !stale) {
                ps.localaddr = old->localaddr;       /* the same segment, already mapped */
            } else if ((ps.localaddr = shared_mapping(r, rec->ep_index, &ps))) {
                /* mapped for another of r's EPs */
            } else if (rec->desc[0] && provider && gexi_core.is_nbrhd[r]) {
                ps.localaddr = provider->map_peer(rec->desc, rec->size);
            }
            gexi_peer_segment_set(r, rec->ep_index, &ps);
            if (stale && !mapping_in_use(r, rec->ep_index, stale))
                provider->unmap_peer(stale, stale_size);
            seg_net_publish(r, rec->ep_index, rec->addr, rec->size, rec->rkey, rec->has_rkey);
        }
    }
    /* Everyone has mapped what it could: our names can go. */
    if (tm) {
        uint8_t one = 1, *ignored = malloc(js);
        int rc = ignored ? team_exchange(tm, &one, 1, ignored) : GASNET_ERR_RESOURCE;
        free(ignored);
        if (rc) goto fail_records;
    } else {
        gexi_bootstrap_barrier();
    }
    for (size_t i = 0; i < n; i++)
        if (eps[i]->segment && eps[i]->segment->provider_handle)
            provider->unlink(eps[i]->segment->provider_handle);
    free(mine);
    free(all);
    free(counts);
    return GASNET_OK;
fail_records:
    free(mine);
    free(all);
fail_counts:
    free(counts);
    return GASNET_ERR_RESOURCE;
}

/* ---- public API ---- */

static int page_multiple(uintptr_t x) { return x && (x % GASNET_PAGESIZE) == 0; }

int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size)
{
    struct gexi_client *c = gexi_core.client;
    if (!segment_p) GEXI_RETURN_ERR(BAD_ARG, "segment_p is NULL");
    if (!gexi_core.initialized) GEXI_RETURN_ERR(NOT_INIT, "gex_Client_Init has not been called");
    if (!tm || gexi_tm_is_pair(tm) || gexi_tm_of(tm) != c->primordial_tm)
        GEXI_RETURN_ERR(BAD_ARG, "tm must be the primordial team from gex_Client_Init");
    if (!page_multiple(size))
        GEXI_RETURN_ERR(BAD_ARG, "size %zu is not a non-zero multiple of GASNET_PAGESIZE (%d)",
                        (size_t)size, GASNET_PAGESIZE);
    if (size > gasnet_getMaxLocalSegmentSize())
        GEXI_RETURN_ERR(BAD_ARG, "size %zu exceeds gasnet_getMaxLocalSegmentSize() = %zu",
                        (size_t)size, (size_t)gasnet_getMaxLocalSegmentSize());
    if (attached) GEXI_RETURN_ERR(RESOURCE, "gex_Segment_Attach may be called once per process");
    struct gexi_ep *ep = gexi_tm_of(tm)->ep;
    if (ep->segment) GEXI_RETURN_ERR(BAD_ARG, "the primordial endpoint already has a bound segment");

    char desc[1][GEXI_SEG_DESC_SIZE];
    struct gexi_segment *s = segment_new(c, size, NULL, desc[0]);
    if (!s) GEXI_RETURN_ERR(RESOURCE, "cannot allocate a %zu-byte segment", (size_t)size);
    seg_net_register(s);   /* issue 8 */
    ep->segment = s;
    attached = s;
    int rc = publish_job(NULL, &ep, 1, desc); /* includes the barrier the spec requires */
    if (rc != GASNET_OK) return rc;
    *segment_p = (gex_Segment_t)s;
    return GASNET_OK;
}

int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address,
                       uintptr_t length, gex_MK_t kind, gex_Flags_t flags)
{
    struct gexi_client *c = gexi_client_of(client);
    if (!segment_p) GEXI_RETURN_ERR(BAD_ARG, "segment_p is NULL");
    if (!c || c->magic != GEXI_MAGIC_CLIENT) GEXI_RETURN_ERR(BAD_ARG, "client is not valid");
    if (flags) GEXI_RETURN_ERR(BAD_ARG, "flags must be zero (got 0x%x)", (unsigned)flags);
    if (!length) GEXI_RETURN_ERR(BAD_ARG, "length is zero");
    if (kind != GEX_MK_HOST) {
        /* memory kinds (issue 9): libgex-mk checks the kind and sets up the
         * range; no PSHM provider memory, no peer mapping. */
        if (kind == GEX_MK_INVALID) GEXI_RETURN_ERR(BAD_ARG, "kind is GEX_MK_INVALID");
        if (!mk_hooks)
            GEXI_RETURN_ERR(BAD_ARG, "kind %p is not GEX_MK_HOST and libgex-mk is not loaded",
                            (void *)kind);
        struct gexi_segment *s = calloc(1, sizeof *s);
        if (!s) GEXI_RETURN_ERR(RESOURCE, "out of memory for a segment");
        s->magic = GEXI_MAGIC_SEGMENT;
        s->client = c;
        s->kind = kind;
        s->serial = next_serial();
        s->client_allocated = address != NULL;
        int rc = mk_hooks->segment_create(s, kind, address, length);
        if (rc != GASNET_OK) {
            free(s);
            return rc;
        }
        atomic_fetch_add(&gexi_mk_device_segments, 1);
        *segment_p = (gex_Segment_t)s;
        return GASNET_OK;
    }
    if (!address) {
        if (length > gasnet_getMaxLocalSegmentSize())
            GEXI_RETURN_ERR(BAD_ARG, "length %zu exceeds gasnet_getMaxLocalSegmentSize() = %zu",
                            (size_t)length, (size_t)gasnet_getMaxLocalSegmentSize());
        length = (length + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    }
    char desc[GEXI_SEG_DESC_SIZE];
    struct gexi_segment *s = segment_new(c, length, address, desc);
    if (!s) GEXI_RETURN_ERR(RESOURCE, "cannot allocate a %zu-byte segment", (size_t)length);
    seg_net_register(s);   /* issue 8 */
    /* The provider's name stays until publication, so peers can map it. */
    *segment_p = (gex_Segment_t)s;
    return GASNET_OK;
}

void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags)
{
    struct gexi_segment *s = gexi_seg_of(segment);
    if (!s || s->magic != GEXI_MAGIC_SEGMENT) {
        GEXI_REPORT_ERR("nothing destroyed", "segment is not valid");
        return;
    }
    if (flags) {
        GEXI_REPORT_ERR("nothing destroyed", "flags must be zero (got 0x%x)", (unsigned)flags);
        return;
    }
    if (s == attached) {
        GEXI_REPORT_ERR("nothing destroyed",
                        "the segment created by gex_Segment_Attach cannot be destroyed");
        return;
    }
    /* Local EPs that still name it would dangle: forget the binding here
     * (using them with this segment is erroneous per seed 003 4.3 anyway). */
    struct gexi_client *c = s->client;
    for (unsigned i = 0; i < atomic_load(&c->n_eps); i++) {
        if (c->eps[i] && c->eps[i]->segment == s) {
            c->eps[i]->segment = NULL;
            struct gexi_peer_segment none = { 0 };
            gexi_peer_segment_set(gexi_core.jobrank, c->eps[i]->index, &none);
        }
    }
    segment_free(s);
}

int gex_EP_BindSegment(gex_EP_t ep_h, gex_Segment_t segment, gex_Flags_t flags)
{
    struct gexi_ep *ep = gexi_ep_of(ep_h);
    struct gexi_segment *s = gexi_seg_of(segment);
    if (!ep || ep->magic != GEXI_MAGIC_EP) GEXI_RETURN_ERR(BAD_ARG, "ep is not a valid endpoint");
    if (!s || s->magic != GEXI_MAGIC_SEGMENT) GEXI_RETURN_ERR(BAD_ARG, "segment is not valid");
    if (flags) GEXI_RETURN_ERR(BAD_ARG, "flags must be zero (got 0x%x)", (unsigned)flags);
    if (ep->segment) GEXI_RETURN_ERR(BAD_ARG, "ep %u already has a bound segment", ep->index);
    if (s->client != ep->client) GEXI_RETURN_ERR(BAD_ARG, "segment belongs to another client");
    if (s->mk_ops && ep->index == 0)   /* memory kinds (issue 9); seed 003 3.x item 5 */
        GEXI_RETURN_ERR(BAD_ARG, "a %s device segment cannot be bound to the primordial endpoint",
                        s->mk_ops->class_name);
    ep->segment = s;
    struct gexi_peer_segment self = { .owneraddr = s->addr, .localaddr = s->mk_ops ? NULL : s->addr,
                                      .size = s->size,
                                      .kind_flags = s->mk_ops ? GEXI_PEER_SEG_DEVICE : 0,
                                      .serial = s->serial };
    gexi_peer_segment_set(gexi_core.jobrank, ep->index, &self);
    return GASNET_OK;
}

int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags)
{
    if (!tm || gexi_tm_is_pair(tm)) GEXI_RETURN_ERR(BAD_ARG, "tm must be a team (not a TM-pair)");
    if (flags) GEXI_RETURN_ERR(BAD_ARG, "flags must be zero (got 0x%x)", (unsigned)flags);
    if (num_eps && !eps) GEXI_RETURN_ERR(BAD_ARG, "eps is NULL with num_eps %zu", num_eps);
    struct gexi_tm *t = gexi_tm_of(tm);
    for (size_t i = 0; i < num_eps; i++) {
        struct gexi_ep *e = gexi_ep_of(eps[i]);
        if (!e || e->magic != GEXI_MAGIC_EP) GEXI_RETURN_ERR(BAD_ARG, "eps[%zu] is not valid", i);
        for (size_t j = 0; j < i; j++)
            if (eps[j] == eps[i]) GEXI_RETURN_ERR(BAD_ARG, "eps[%zu] repeats eps[%zu]", i, j);
    }
    /* A team with the primordial membership (the primordial team or a
     * duplicate of it) publishes through the bootstrap; any other team
     * through libgex-coll's team-wide exchange. */
    const int job_wide = !t->members && t->size == gexi_core.jobsize;
    if (!job_wide && !team_exchange)
        GEXI_RETURN_ERR(RESOURCE, "publication over a non-primordial team needs libgex-coll");
    struct gexi_ep **list = calloc(num_eps ? num_eps : 1, sizeof *list);
    char (*descs)[GEXI_SEG_DESC_SIZE] = calloc(num_eps ? num_eps : 1, sizeof *descs);
    if (!list || !descs) {
        free(list);
        free(descs);
        GEXI_RETURN_ERR(RESOURCE, "out of memory");
    }
    for (size_t i = 0; i < num_eps; i++) {
        list[i] = gexi_ep_of(eps[i]);
        const struct gexi_segment *s = list[i]->segment;
        if (s && s->provider_handle) provider->describe(s->provider_handle, descs[i]);
    }
    int rc = publish_job(job_wide ? NULL : tm, list, num_eps, descs);
    free(list);
    free(descs);
    return rc;
}

/* Fills outputs for (jobrank, ep); returns 1 on success. */
static int lookup_bound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                        uintptr_t *size_p)
{
    if (rank >= gexi_tm_addr_size(tm)) return 0;
    gex_Rank_t jr;
    gex_EP_Index_t idx;
    gexi_tm_peer(tm, rank, &jr, &idx);
    void *owner, *local;
    uintptr_t size;
    if (jr == gexi_core.jobrank) {
        struct gexi_client *c = gexi_core.client;
        const struct gexi_ep *ep = idx < atomic_load(&c->n_eps) ? c->eps[idx] : NULL;
        if (!ep || !ep->segment) return 0;
        owner = local = ep->segment->addr;
        if (ep->segment->mk_ops) local = NULL;   /* spec: only GEX_MK_HOST has a localaddr */
        size = ep->segment->size;
    } else {
        const struct gexi_peer_segment *ps = gexi_peer_segment(jr, idx);
        if (!ps) return 0;
        owner = ps->owneraddr;
        local = ps->localaddr;
        size = ps->size;
    }
    if (owneraddr_p) *owneraddr_p = owner;
    if (localaddr_p) *localaddr_p = local;
    if (size_p) *size_p = size;
    return 1;
}

gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                       void **localaddr_p, uintptr_t *size_p, gex_Flags_t flags)
{
    GEXI_CHECK_TM(tm, 1);   /* as in gex_Segment_QueryBound */
    if (GEXI_UNLIKELY(tm == GEX_TM_INVALID)) {
        if (size_p) *size_p = 0;   /* an unsuccessful query */
        return GEX_EVENT_INVALID;
    }
    if (flags & ~GEX_FLAG_IMMEDIATE)
        GEXI_BAD_ARG_NORET("other flags ignored", "flags 0x%x: only GEX_FLAG_IMMEDIATE is accepted",
                           (unsigned)flags);
    /* spec: "Passing GEX_RANK_INVALID as the rank argument is *not*
     * permitted"; nor is any rank that names no member of tm (a TM-pair
     * names any jobrank).  The call has no error return: a debug build ends
     * the job; other builds give an unsuccessful query (size 0).  An
     * existing rank whose EP index or segment does not exist stays a plain
     * unsuccessful query. */
    if (rank >= gexi_tm_addr_size(tm)) {
        if (rank == GEX_RANK_INVALID)
            GEXI_BAD_ARG_NORET("size 0 (unsuccessful query)",
                               "rank is GEX_RANK_INVALID, which the spec does not permit");
        else
            GEXI_BAD_ARG_NORET("size 0 (unsuccessful query)", "rank %u is not below the %s %u",
                               (unsigned)rank, gexi_tm_is_pair(tm) ? "job size" : "team size",
                               (unsigned)gexi_tm_addr_size(tm));
    }
    /* Everything we know is local, so IMMEDIATE never needs to fail. */
    if (!lookup_bound(tm, rank, owneraddr_p, localaddr_p, size_p) && size_p) *size_p = 0;
    return GEX_EVENT_INVALID;
}

int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                           uintptr_t *size_p)
{
    /* Like every call taking a tm: a debug build names a bad handle (a
     * TM-pair is fine, spec "gex_TM_Pair": valid "for use in bound segment
     * queries").  Other builds: GEX_TM_INVALID is an unsuccessful query
     * (non-zero, outputs untouched) rather than a crash; not a fast path. */
    GEXI_CHECK_TM(tm, 1);
    if (GEXI_UNLIKELY(tm == GEX_TM_INVALID)) return 1;
    return lookup_bound(tm, rank, owneraddr_p, localaddr_p, size_p) ? GASNET_OK : 1;
}

gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg)
{
    GEXI_CHECK_SEG(seg);
    return (gex_Client_t)gexi_seg_of(seg)->client;
}
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg)
{
    GEXI_CHECK_SEG(seg);
    return gexi_seg_of(seg)->flags;
}
void *gex_Segment_QueryAddr(gex_Segment_t seg)
{
    GEXI_CHECK_SEG(seg);
    return gexi_seg_of(seg)->addr;
}
uintptr_t gex_Segment_QuerySize(gex_Segment_t seg)
{
    GEXI_CHECK_SEG(seg);
    return gexi_seg_of(seg)->size;
}
gex_MK_t gex_Segment_QueryKind(gex_Segment_t seg)
{
    GEXI_CHECK_SEG(seg);
    return gexi_seg_of(seg)->kind;
}
void gex_Segment_SetCData(gex_Segment_t seg, const void *val)
{
    GEXI_CHECK_SEG(seg);
    gexi_seg_of(seg)->cdata = (void *)val;
}
void *gex_Segment_QueryCData(gex_Segment_t seg)
{
    GEXI_CHECK_SEG(seg);
    return gexi_seg_of(seg)->cdata;
}

void gexi_segments_fini(void) {}
