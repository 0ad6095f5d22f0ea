/*
 * ucx_rma.c: native RMA on the ucx conduit (conduit ABI 1.2, 
 * GEX_CONDUIT_CAP_RMA): ucp_put_nbx / ucp_get_nbx into peers' segments.
 *
 * Keys.  UCX names remote memory by a packed remote key of some tens to
 * hundreds of bytes, the ABI by a 64-bit key.  So mem_register maps the
 * segment (ucp_mem_map), packs its key, numbers it (the ABI key is that
 * number) and sends the packed key to every rank at once in a credit-free
 * control message; the receive callback files it under (owner, number).
 * seg_publish later names a peer's segment by that number, and the first
 * put or get to it unpacks the key; an operation that finds the key not yet
 * arrived progresses until it does (it was sent before the owner published,
 * and needs nothing from the owner's client).
 *
 * Completion.  A put's UCP completion means its source may be reused
 * (cpl->lc); that it is visible at the target takes a flush, whose
 * completion signals cpl->rc.  A flush costs a round trip (on TCP a message
 * each way, served by the target's progress), so puts do not flush one by
 * one: their rc counters wait in a list and the next poll (every GEX wait
 * polls) or the 64th waiting put issues one flush per endpoint that
 * signals them all.  A stream of puts followed by one wait then costs one round trip,
 * not one per put.  GEX_UCX_FLUSH_EACH=1 flushes after every put instead.
 * A get's completion means its data landed (cpl->rc).  Callbacks run
 * inside ucp_worker_progress, from poll and from any wait of the conduit.
 *
 * Passive target.  Where UCX has no transport that reaches a peer's memory
 * by itself (atomics between processes of one host, RMA over TCP), it
 * performs the operation in software at the target when the target's
 * worker progresses.  GEX's waits poll, and every atomic and every 32nd
 * put or get progresses the worker before it starts, so a rank that spins
 * on one-sided operations (reading a flag with an atomic GET that completes
 * at once) still serves those of its peers.  (Not every put or get: on TCP
 * a progress call costs more than the operation itself; a stream of gets
 * ran at 0.7-0.85x GASNet-EX's rate with one per get.)
 */
#include "ucx_internal.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static struct gex_conduit *gexc_ucx_rma_owner;   /* for errors inside callbacks */

static void gexc_ucx_signal(GEX_CONDUIT_ATOMIC_U32 *ctr)
{
    if (ctr) atomic_fetch_sub_explicit(ctr, 1, memory_order_release);
}

/* Completion of an operation that did not complete at once; the request
 * is released here (released earlier, UCP would never call this). */
static void gexc_ucx_rma_done(void *request, ucs_status_t st, void *user_data)
{
    if (GEXC_UCX_UNLIKELY(st != UCS_OK))
        gexc_ucx_comm_failed(gexc_ucx_rma_owner, "rank %u: a put or get failed: %s",
                             (unsigned)gexc_ucx_rma_owner->me, ucs_status_string(st));
    gexc_ucx_signal(user_data);
    ucp_request_free(request);
}

/* One flush for many puts: the counters it signals. */
struct gexc_ucx_flush_batch {
    size_t n;
    GEX_CONDUIT_ATOMIC_U32 *rc[];
};

static void gexc_ucx_batch_signal(struct gexc_ucx_flush_batch *b)
{
    for (size_t i = 0; i < b->n; i++) gexc_ucx_signal(b->rc[i]);
    free(b);
}

static void gexc_ucx_flush_done(void *request, ucs_status_t st, void *user_data)
{
    if (GEXC_UCX_UNLIKELY(st != UCS_OK))
        gexc_ucx_comm_failed(gexc_ucx_rma_owner, "rank %u: a flush after puts failed: %s",
                             (unsigned)gexc_ucx_rma_owner->me, ucs_status_string(st));
    gexc_ucx_batch_signal(user_data);
    ucp_request_free(request);
}

/* One ucp_ep_flush_nbx per endpoint that has puts waiting (a worker flush
 * was tried first and let remote completion through before large puts'
 * data had landed, on UCX 1.13 over TCP: tests/mp/mp_rma on ucx caught it). */
void gexc_ucx_flush_pending(struct gex_conduit *c)
{
    size_t n = c->flush_n;
    if (!n) return;
    c->flush_n = 0;
    for (size_t i = 0; i < n; i++) {
        ucp_ep_h ep = c->flush_wait[i].ep;
        if (!ep) continue;   /* already in an earlier endpoint's batch */
        size_t k = 0;
        for (size_t j = i; j < n; j++) k += c->flush_wait[j].ep == ep;
        struct gexc_ucx_flush_batch *b = malloc(sizeof *b + k * sizeof b->rc[0]);
        if (!b) gexc_ucx_comm_failed(c, "rank %u: out of memory for a flush", (unsigned)c->me);
        b->n = 0;
        for (size_t j = i; j < n; j++)
            if (c->flush_wait[j].ep == ep) {
                b->rc[b->n++] = c->flush_wait[j].rc;
                c->flush_wait[j].ep = NULL;
            }
        ucp_request_param_t p;
        memset(&p, 0, sizeof p);
        p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        p.cb.send = gexc_ucx_flush_done;
        p.user_data = b;
        ucs_status_ptr_t r = ucp_ep_flush_nbx(ep, &p);
        if (GEXC_UCX_UNLIKELY(UCS_PTR_IS_ERR(r)))
            gexc_ucx_comm_failed(c, "rank %u: flush after puts failed: %s", (unsigned)c->me,
                                 ucs_status_string(UCS_PTR_STATUS(r)));
        if (!r) gexc_ucx_batch_signal(b);
    }
}

/* An issued operation: signalled now if it completed at once, else by its
 * callback. */
static void gexc_ucx_issued(struct gex_conduit *c, ucs_status_ptr_t r, const char *what,
                            GEX_CONDUIT_ATOMIC_U32 *ctr)
{
    if (GEXC_UCX_UNLIKELY(UCS_PTR_IS_ERR(r)))
        gexc_ucx_comm_failed(c, "rank %u: %s failed: %s", (unsigned)c->me, what,
                             ucs_status_string(UCS_PTR_STATUS(r)));
    if (!r) gexc_ucx_signal(ctr);
}

/* ---- registration ---- */

int gexc_ucx_mem_register(struct gex_conduit *c, void *addr, size_t len, uint64_t *key_p)
{
    if (key_p) *key_p = 0;
    if (!c->has_rma || !len) return GEX_CONDUIT_OK;
    struct gexc_ucx_reg *g = calloc(1, sizeof *g);
    if (!g) return GEX_CONDUIT_ENOMEM;
    ucp_mem_map_params_t mp;
    memset(&mp, 0, sizeof mp);
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = addr;
    mp.length = len;
    gexc_ucx_lock(c);
    ucs_status_t st = ucp_mem_map(c->ctx, &mp, &g->memh);
    if (st == UCS_OK) {
        st = ucp_rkey_pack(c->ctx, g->memh, &g->packed, &g->packed_len);
        if (st != UCS_OK) ucp_mem_unmap(c->ctx, g->memh);
    }
    if (st != UCS_OK) {
        gexc_ucx_unlock(c);
        free(g);
        c->host.log(0, "ucx conduit: registering %zu bytes at %p: %s", len, addr,
                    ucs_status_string(st));
        return GEX_CONDUIT_EIO;
    }
    g->id = ++c->next_reg_id;
    g->next = c->regs;
    c->regs = g;
    for (gex_Rank_t r = 0; r < c->n; r++)   /* ourselves too: our own atomics and RMA */
        gexc_ucx_send_rkey(c, r, g->id, g->packed, g->packed_len);
    gexc_ucx_unlock(c);
    if (key_p) *key_p = g->id;
    return GEX_CONDUIT_OK;
}

int gexc_ucx_mem_deregister(struct gex_conduit *c, uint64_t key)
{
    if (!c->has_rma || !key) return GEX_CONDUIT_OK;
    gexc_ucx_lock(c);
    for (struct gexc_ucx_reg **pp = &c->regs; *pp; pp = &(*pp)->next) {
        if ((*pp)->id == key) {
            struct gexc_ucx_reg *g = *pp;
            *pp = g->next;
            ucp_rkey_buffer_release(g->packed);
            ucp_mem_unmap(c->ctx, g->memh);
            gexc_ucx_unlock(c);
            free(g);
            return GEX_CONDUIT_OK;
        }
    }
    gexc_ucx_unlock(c);
    return GEX_CONDUIT_EINVAL;
}

/* The receive callback's part (lock held): a peer's packed key. */
void gexc_ucx_file_rkey(struct gex_conduit *c, gex_Rank_t owner, uint64_t id, const void *packed,
                        size_t len)
{
    struct gexc_ucx_rkey *k = malloc(sizeof *k + len);
    if (!k) c->host.fatal("ucx conduit: out of memory for a remote key");
    k->id = id;
    k->rkey = NULL;
    k->len = len;
    memcpy(k->packed, packed, len);
    k->next = c->rkeys[owner];
    c->rkeys[owner] = k;
}

/* ---- publication ---- */

int gexc_ucx_seg_publish(struct gex_conduit *c, gex_Rank_t jobrank, gex_EP_Index_t ep,
                         void *owneraddr, size_t size, uint64_t rkey)
{
    if (!c->has_rma || jobrank >= c->n || !rkey) return GEX_CONDUIT_EINVAL;
    gexc_ucx_lock(c);
    struct gexc_ucx_seg *s = c->segs[jobrank];
    while (s && s->ep != ep) s = s->next;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) {
            gexc_ucx_unlock(c);
            return GEX_CONDUIT_ENOMEM;
        }
        s->ep = ep;
        s->next = c->segs[jobrank];
        c->segs[jobrank] = s;
    }
    s->base = (uintptr_t)owneraddr;   /* replaces an earlier segment of that endpoint */
    s->size = size;
    s->id = rkey;
    s->key = NULL;
    gexc_ucx_unlock(c);
    return GEX_CONDUIT_OK;
}

/* The unpacked key for [addr, addr+n) in (jobrank, ep)'s published segment
 * (puts, gets, and atomics in ucx_amo.c), lock held; NULL (*rc_p EINVAL) outside any, or (*rc_p EAGAIN) when the
 * key has not arrived and `immediate` says not to wait for it. */
ucp_rkey_h gexc_ucx_rkey_lookup(struct gex_conduit *c, gex_Rank_t jobrank, gex_EP_Index_t ep,
                                uintptr_t addr, size_t n, int immediate, int *rc_p)
{
    *rc_p = GEX_CONDUIT_EINVAL;
    if (jobrank >= c->n) return NULL;
    struct gexc_ucx_seg *s = c->segs[jobrank];
    while (s && s->ep != ep) s = s->next;
    if (!s || addr < s->base || n > s->size || addr - s->base > s->size - n) return NULL;
    if (GEXC_UCX_LIKELY(s->key != NULL)) return s->key;
    struct gexc_ucx_rkey *k;
    unsigned spins = 0;
    for (;;) {
        for (k = c->rkeys[jobrank]; k && k->id != s->id; k = k->next) {
        }
        if (k) break;
        if (immediate) {
            ucp_worker_progress(c->worker);
            *rc_p = GEX_CONDUIT_EAGAIN;
            return NULL;
        }
        if (ucp_worker_progress(c->worker)) spins = 0;   /* the key is on its way */
        else c->host.backoff(&spins);
    }
    if (!k->rkey) {
        ucs_status_t st = ucp_ep_rkey_unpack(gexc_ucx_ep(c, jobrank), k->packed, &k->rkey);
        if (st != UCS_OK)
            c->host.fatal("ucx conduit: rank %u cannot use rank %u's segment key: %s",
                          (unsigned)c->me, (unsigned)jobrank, ucs_status_string(st));
    }
    s->key = k->rkey;
    *rc_p = GEX_CONDUIT_OK;
    return s->key;
}

/* ---- operations ---- */

int gexc_ucx_rma_put(struct gex_conduit *c, gex_EP_Index_t local_ep, gex_Rank_t dst_jobrank,
                     gex_EP_Index_t dst_ep, void *dest, const void *src, size_t nbytes,
                     const struct gex_conduit_cpl *cpl, gex_Flags_t flags)
{
    (void)local_ep;   /* one worker serves every endpoint */
    GEX_CONDUIT_ATOMIC_U32 *lc = cpl ? cpl->lc : NULL, *rc = cpl ? cpl->rc : NULL;
    int st;
    gexc_ucx_lock(c);
    /* serve peers' operations on us (file comment) - on every 32nd put or
     * get only: a progress call costs microseconds on TCP, more than the put */
    if ((++c->rma_tick & 31) == 0) ucp_worker_progress(c->worker);
    ucp_rkey_h key = gexc_ucx_rkey_lookup(c, dst_jobrank, dst_ep, (uintptr_t)dest, nbytes,
                                       (flags & GEX_FLAG_IMMEDIATE) != 0, &st);
    if (!key) {
        gexc_ucx_unlock(c);
        return st;
    }
    ucp_ep_h ep = gexc_ucx_ep(c, dst_jobrank);
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = gexc_ucx_rma_done;
    p.user_data = (void *)lc;
    gexc_ucx_issued(c, ucp_put_nbx(ep, src, nbytes, (uint64_t)(uintptr_t)dest, key, &p), "put",
                    lc);
    if (rc && c->flush_each) {   /* visible at the target once everything before the flush is */
        p.user_data = (void *)rc;
        gexc_ucx_issued(c, ucp_ep_flush_nbx(ep, &p), "flush after a put", rc);
    } else if (rc) {
        if (c->flush_n == c->flush_cap) {
            size_t cap = c->flush_cap ? 2 * c->flush_cap : 64;
            struct gexc_ucx_flush_wait *n = realloc(c->flush_wait, cap * sizeof *n);
            if (!n) gexc_ucx_flush_pending(c);   /* makes room: the list is empty after */
            else {
                c->flush_wait = n;
                c->flush_cap = cap;
            }
        }
        c->flush_wait[c->flush_n].ep = ep;
        c->flush_wait[c->flush_n++].rc = rc;
        if (c->flush_n >= 64) gexc_ucx_flush_pending(c);
    }
    gexc_ucx_unlock(c);
    return GEX_CONDUIT_OK;
}

int gexc_ucx_rma_get(struct gex_conduit *c, gex_EP_Index_t local_ep, void *dest,
                     gex_Rank_t src_jobrank, gex_EP_Index_t src_ep, void *srcaddr, size_t nbytes,
                     const struct gex_conduit_cpl *cpl, gex_Flags_t flags)
{
    (void)local_ep;
    GEX_CONDUIT_ATOMIC_U32 *rc = cpl ? cpl->rc : NULL;
    int st;
    gexc_ucx_lock(c);
    if ((++c->rma_tick & 31) == 0) ucp_worker_progress(c->worker);   /* as for puts */
    ucp_rkey_h key = gexc_ucx_rkey_lookup(c, src_jobrank, src_ep, (uintptr_t)srcaddr, nbytes,
                                       (flags & GEX_FLAG_IMMEDIATE) != 0, &st);
    if (!key) {
        gexc_ucx_unlock(c);
        return st;
    }
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = gexc_ucx_rma_done;
    p.user_data = (void *)rc;
    gexc_ucx_issued(c, ucp_get_nbx(gexc_ucx_ep(c, src_jobrank), dest, nbytes,
                                   (uint64_t)(uintptr_t)srcaddr, key, &p), "get", rc);
    gexc_ucx_unlock(c);
    return GEX_CONDUIT_OK;
}

void gexc_ucx_rma_setup(struct gex_conduit *c)
{
    gexc_ucx_rma_owner = c;
}

/* Releases keys, publications and registrations (fini, lock held, before
 * the worker goes). */
void gexc_ucx_rma_free(struct gex_conduit *c)
{
    for (gex_Rank_t r = 0; c->rkeys && r < c->n; r++) {
        while (c->rkeys[r]) {
            struct gexc_ucx_rkey *k = c->rkeys[r];
            c->rkeys[r] = k->next;
            if (k->rkey) ucp_rkey_destroy(k->rkey);
            free(k);
        }
    }
    for (gex_Rank_t r = 0; c->segs && r < c->n; r++) {
        while (c->segs[r]) {
            struct gexc_ucx_seg *s = c->segs[r];
            c->segs[r] = s->next;
            free(s);
        }
    }
    while (c->regs) {
        struct gexc_ucx_reg *g = c->regs;
        c->regs = g->next;
        ucp_rkey_buffer_release(g->packed);
        ucp_mem_unmap(c->ctx, g->memh);
        free(g);
    }
}
