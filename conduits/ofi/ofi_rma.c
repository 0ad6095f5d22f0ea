/*
 * ofi_rma.c: the ofi conduit's one-sided operations (conduit ABI 1.2):
 * seg_publish, rma_put / rma_get (fi_writemsg / fi_readmsg) and network
 * atomics, amo_query / amo (fi_atomicmsg / fi_fetch_atomicmsg /
 * fi_compare_atomicmsg).  See docs/ofi.md, "Native RMA and atomics".
 *
 * Addressing.  The core registers each segment with mem_register (one MR
 * per segment, remote read and write) and hands every rank's (address,
 * size, key) to seg_publish.  A provider with FI_MR_VIRT_ADDR takes the
 * target's virtual address; otherwise (both Debian providers, "scalable"
 * registration) the address is the offset into the registered region.
 *
 * Completion.  Every operation carries a struct gexc_ofi_rmaop as its
 * context; its completion on the send queue (read by gexc_ofi_reap_tx,
 * which every poll calls while c->ops_out, the count of operations taken
 * and not yet recycled, is not 0: so every wait for one) decrements the
 * caller's counters.
 * Puts are issued with FI_DELIVERY_COMPLETE, so their completion means the
 * data is visible at the target (remote completion).  Local completion of a
 * put's source, when the caller asks for it: a source of up to
 * GEXC_OFI_RMA_BOUNCE bytes is copied into the operation before it is
 * issued, one of up to GEXC_OFI_RMA_COPY_MAX bytes into a heap buffer the
 * operation owns, so it is complete at once; a larger one is complete with
 * the operation (the provider reads it until then).
 * A get's completion means the data has landed.  Atomics fetch into the
 * operation and copy the value to the caller's result before signalling.
 *
 * Local buffers.  Providers that want FI_MR_LOCAL get a descriptor for the
 * caller's buffer from the segment registrations (mem_register), or the
 * buffer is registered for the one operation; operation-owned buffers are
 * registered once with the operation.
 *
 * Issue window.  Puts and gets go in pieces of GEX_OFI_RMA_PIECE bytes,
 * and only GEX_OFI_RMA_INFLIGHT bytes of them per peer are with the
 * provider at a time; the others wait in the peer's FIFO and are issued
 * from polls as earlier ones complete (below, "Issue window").
 *
 * Waiting.  Without GEX_FLAG_IMMEDIATE a provider queue that is full is
 * waited for by polling (handlers may run: callers are never handlers);
 * with it the call returns GEX_CONDUIT_EAGAIN with nothing done.  A
 * transfer split into pieces may refuse only its first; an op the window
 * queues is accepted.
 */
#include "ofi_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void gexc_ofi_oplock(struct gex_conduit *c)
{
    if (c->thread_safe) pthread_mutex_lock(&c->op_lock);
}
static inline void gexc_ofi_opunlock(struct gex_conduit *c)
{
    if (c->thread_safe) pthread_mutex_unlock(&c->op_lock);
}

int gexc_ofi_mr_reg(struct gex_conduit *c, const void *addr, size_t len, uint64_t access,
                    struct fid_mr **mr_p)
{
    pthread_mutex_lock(&c->mr_lock);
    uint64_t key = c->next_key++;
    pthread_mutex_unlock(&c->mr_lock);
    int rc = fi_mr_reg(c->domain, addr, len, access, 0, key, 0, mr_p, NULL);
    if (!rc && (c->info->domain_attr->mr_mode & FI_MR_ENDPOINT)) {
        rc = fi_mr_bind(*mr_p, &c->ep->fid, 0);
        if (!rc) rc = fi_mr_enable(*mr_p);
        if (rc) fi_close(&(*mr_p)->fid);
    }
    return rc;
}

/* ---- Published segments ---- */

int gexc_ofi_seg_publish(struct gex_conduit *c, gex_Rank_t jobrank, gex_EP_Index_t ep,
                         void *owneraddr, size_t size, uint64_t rkey)
{
    if (jobrank >= c->n || !c->rsegs) return GEX_CONDUIT_EINVAL;
    struct gexc_ofi_rseg *s = calloc(1, sizeof *s);
    if (!s) return GEX_CONDUIT_ENOMEM;
    s->ep = ep;
    s->base = (uintptr_t)owneraddr;
    s->size = size;
    s->key = rkey;
    /* Publication is collective and rare: a lock keeps two publishers
     * apart; readers see a complete node thanks to the release store. */
    pthread_mutex_lock(&c->mr_lock);
    s->next = atomic_load_explicit(&c->rsegs[jobrank], memory_order_relaxed);
    atomic_store_explicit(&c->rsegs[jobrank], s, memory_order_release);
    pthread_mutex_unlock(&c->mr_lock);
    return GEX_CONDUIT_OK;
}

/* The newest publication of (rank, ep) if it holds [addr, addr+n). */
static inline const struct gexc_ofi_rseg *gexc_ofi_rseg_find(struct gex_conduit *c,
                                                             gex_Rank_t rank, gex_EP_Index_t ep,
                                                             const void *addr, size_t n)
{
    const struct gexc_ofi_rseg *s = atomic_load_explicit(&c->rsegs[rank], memory_order_acquire);
    while (s && s->ep != ep) s = s->next;
    if (!s) return NULL;
    const uintptr_t a = (uintptr_t)addr;
    if (a < s->base || n > s->size || a - s->base > s->size - n) return NULL;
    return s;
}

static inline uint64_t gexc_ofi_raddr(const struct gex_conduit *c, const struct gexc_ofi_rseg *s,
                                      uintptr_t a)
{
    return c->mr_virt ? (uint64_t)a : (uint64_t)(a - s->base);
}

/* ---- Operations in flight ---- */

static struct gexc_ofi_rmaop *gexc_ofi_op_get(struct gex_conduit *c)
{
    gexc_ofi_oplock(c);
    struct gexc_ofi_rmaop *op = c->op_free;
    if (op) c->op_free = op->next_free;
    gexc_ofi_opunlock(c);
    if (!op) {
        op = aligned_alloc(16, sizeof *op);
        if (!op) c->host.fatal("ofi conduit: out of memory for an RMA operation");
        memset(op, 0, sizeof *op);
        if (c->mr_local) {
            int rc = gexc_ofi_mr_reg(c, op->bounce, sizeof op->bounce, FI_READ | FI_WRITE,
                                     &op->own_mr);
            if (rc)
                c->host.fatal("ofi conduit: registering an RMA bounce buffer: %s",
                              gexc_ofi_strerror(rc));
            op->own_desc = fi_mr_desc(op->own_mr);
        }
        gexc_ofi_oplock(c);
        op->next_all = c->op_all;
        c->op_all = op;
        gexc_ofi_opunlock(c);
    }
    atomic_fetch_add_explicit(&c->ops_out, 1, memory_order_relaxed);
    op->base.is_rma = 1;
    atomic_store_explicit(&op->base.done, 0, memory_order_relaxed);
    op->group = op;
    atomic_store_explicit(&op->left, 1, memory_order_relaxed);
    op->lc = op->rc = NULL;
    op->result = NULL;
    op->result_len = 0;
    op->charged = 0;
    op->tmp_mr = NULL;
    return op;
}

static void gexc_ofi_op_put(struct gex_conduit *c, struct gexc_ofi_rmaop *op)
{
    if (op->tmp_mr) {
        fi_close(&op->tmp_mr->fid);
        op->tmp_mr = NULL;
    }
    gexc_ofi_oplock(c);
    op->next_free = c->op_free;
    c->op_free = op;
    gexc_ofi_opunlock(c);
    atomic_fetch_sub_explicit(&c->ops_out, 1, memory_order_relaxed);
}

static inline void gexc_ofi_signal(GEX_CONDUIT_ATOMIC_U32 *ctr)
{
    if (ctr) atomic_fetch_sub_explicit(ctr, 1, memory_order_release);
}

/* Gives op's bytes back to its peer's window (it completed, or was never
 * issued after all). */
static void gexc_ofi_window_release(struct gex_conduit *c, struct gexc_ofi_rmaop *op)
{
    gexc_ofi_oplock(c);
    c->rmaq[op->peer].inflight -= op->charged;
    gexc_ofi_opunlock(c);
    op->charged = 0;
}

void gexc_ofi_rma_complete(struct gex_conduit *c, struct gexc_ofi_rmaop *op, int ok, int err)
{
    if (GEXC_OFI_UNLIKELY(!ok))
        c->host.fatal("ofi conduit: rank %u: a one-sided operation failed: %s", (unsigned)c->me,
                      fi_strerror(err));
    if (op->charged) gexc_ofi_window_release(c, op);
    struct gexc_ofi_rmaop *g = op->group;
    if (op != g) gexc_ofi_op_put(c, op);
    if (atomic_fetch_sub_explicit(&g->left, 1, memory_order_acq_rel) != 1) return;
    if (g->result) memcpy(g->result, g->bounce + 2 * 16, g->result_len);
    GEX_CONDUIT_ATOMIC_U32 *lc = g->lc, *rc = g->rc;
    gexc_ofi_op_put(c, g);
    gexc_ofi_signal(lc);
    gexc_ofi_signal(rc);
}

void gexc_ofi_rma_free(struct gex_conduit *c)
{
    for (struct gexc_ofi_rmaop *op = c->op_all, *next; op; op = next) {
        next = op->next_all;
        if (op->tmp_mr) fi_close(&op->tmp_mr->fid);
        if (op->own_mr) fi_close(&op->own_mr->fid);
        free(op->copy);
        free(op);
    }
    c->op_all = c->op_free = NULL;
    if (c->rsegs) {
        for (gex_Rank_t r = 0; r < c->n; r++) {
            struct gexc_ofi_rseg *s = atomic_load_explicit(&c->rsegs[r], memory_order_relaxed);
            while (s) {
                struct gexc_ofi_rseg *next = s->next;
                free(s);
                s = next;
            }
        }
        free((void *)c->rsegs);
        c->rsegs = NULL;
    }
    /* ops still queued at the end of the job are never issued; they were
     * on op_all and are gone with it */
    free(c->rmaq);
    c->rmaq = NULL;
    c->rmaq_busy = NULL;
    atomic_store_explicit(&c->rma_queued, 0, memory_order_relaxed);
}

/* Descriptor for the caller's buffer [buf, buf+len) when the provider wants
 * FI_MR_LOCAL: a segment's registration that holds it, else a registration
 * made for this op (closed when the op is recycled). */
static void *gexc_ofi_local_desc(struct gex_conduit *c, struct gexc_ofi_rmaop *op,
                                 const void *buf, size_t len)
{
    if (!c->mr_local) return NULL;
    const uintptr_t a = (uintptr_t)buf;
    void *desc = NULL;
    pthread_mutex_lock(&c->mr_lock);
    for (const struct gexc_ofi_mr *r = c->mrs; r; r = r->next) {
        const uintptr_t b = (uintptr_t)r->addr;
        if (a >= b && len <= r->len && a - b <= r->len - len) {
            desc = fi_mr_desc(r->mr);
            break;
        }
    }
    pthread_mutex_unlock(&c->mr_lock);
    if (desc) return desc;
    int rc = gexc_ofi_mr_reg(c, buf, len, FI_READ | FI_WRITE, &op->tmp_mr);
    if (rc)
        c->host.fatal("ofi conduit: registering a local buffer of %zu bytes at %p: %s", len, buf,
                      gexc_ofi_strerror(rc));
    return fi_mr_desc(op->tmp_mr);
}

/* Posts one operation with `post` (which returns a fi_* status), retrying
 * while the provider's queue is full: IMMEDIATE gives up at once (EAGAIN),
 * otherwise we poll.  Any other failure is fatal. */
#define GEXC_OFI_POST(c, imm, what, call)                                                    \
    do {                                                                                     \
        unsigned spins_ = 0;                                                                 \
        for (;;) {                                                                           \
            gexc_ofi_txlock(c);                                                              \
            ssize_t prc_ = (call);                                                           \
            gexc_ofi_txunlock(c);                                                            \
            if (GEXC_OFI_LIKELY(prc_ == 0)) break;                                           \
            if (prc_ != -FI_EAGAIN)                                                          \
                (c)->host.fatal("ofi conduit: rank %u: %s: %s", (unsigned)(c)->me, (what),   \
                                gexc_ofi_strerror((int)prc_));                               \
            if (imm) return GEX_CONDUIT_EAGAIN;                                              \
            if (gexc_ofi_poll(c) > 0) spins_ = 0;   /* queue draining: stay awake */        \
            (c)->host.backoff(&spins_);                                                      \
        }                                                                                    \
    } while (0)

/* One attempt to hand put/get op to the provider: 0 or a -FI_* code. */
static ssize_t gexc_ofi_rma_try(struct gex_conduit *c, struct gexc_ofi_rmaop *op)
{
    struct iovec iov = { .iov_base = op->local, .iov_len = op->len };
    struct fi_rma_iov riov = { .addr = op->raddr, .len = op->len, .key = op->rkey };
    void *desc = op->desc;
    struct fi_msg_rma msg = {
        .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = c->peers[op->peer].addr,
        .rma_iov = &riov, .rma_iov_count = 1, .context = &op->base.ctx, .data = 0,
    };
    return op->is_put ? fi_writemsg(c->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)
                      : fi_readmsg(c->ep, &msg, FI_COMPLETION);
}

static int gexc_ofi_post_rma(struct gex_conduit *c, struct gexc_ofi_rmaop *op, int imm)
{
    GEXC_OFI_POST(c, imm, op->is_put ? "fi_writemsg" : "fi_readmsg", gexc_ofi_rma_try(c, op));
    return GEX_CONDUIT_OK;
}

/* ---- Issue window (GEX_OFI_RMA_INFLIGHT) ----
 * Loopback and kernel TCP lose bandwidth when many large writes are handed
 * to the provider at once (measured in docs/ofi.md), so puts and gets to a
 * peer are issued only while the bytes in flight to it stay within
 * c->rma_window; an op that does not fit waits, with every op after it, in
 * the peer's FIFO.  One op always may go, however big.  Completion is
 * unchanged: the counters are signalled when the op completes, queued or
 * not; and queued ops count in ops_out, so every poll reads the send queue
 * and drains (ofi_am.c: gexc_ofi_reap_tx). */

/* 1: op (filled in) may be posted now and its bytes are charged to the
 * window; 0: it was queued behind the others and a later drain issues it. */
static int gexc_ofi_admit(struct gex_conduit *c, struct gexc_ofi_rmaop *op)
{
    if (!c->rma_window) return 1;
    struct gexc_ofi_rmaq *q = &c->rmaq[op->peer];
    gexc_ofi_oplock(c);
    if (!q->head && (!q->inflight || (q->inflight < c->rma_window &&
                                      op->len <= c->rma_window - q->inflight))) {
        q->inflight += op->len;
        op->charged = op->len;
        gexc_ofi_opunlock(c);
        return 1;
    }
    op->next_q = NULL;
    if (q->tail) {
        q->tail->next_q = op;
    } else {
        q->head = op;
        q->next_busy = c->rmaq_busy;
        c->rmaq_busy = q;
    }
    q->tail = op;
    atomic_fetch_add_explicit(&c->rma_queued, 1, memory_order_relaxed);
    gexc_ofi_opunlock(c);
    return 0;
}

void gexc_ofi_rma_drain(struct gex_conduit *c)
{
    gexc_ofi_oplock(c);
    for (struct gexc_ofi_rmaq **pq = &c->rmaq_busy; *pq;) {
        struct gexc_ofi_rmaq *q = *pq;
        struct gexc_ofi_rmaop *op;
        while ((op = q->head) != NULL) {
            if (q->inflight && (q->inflight >= c->rma_window ||
                                op->len > c->rma_window - q->inflight))
                break;
            /* charged first: its completion may be read by another thread
             * as soon as it is posted (and waits for op_lock to release) */
            q->inflight += op->len;
            op->charged = op->len;
            gexc_ofi_txlock(c);
            ssize_t rc = gexc_ofi_rma_try(c, op);
            gexc_ofi_txunlock(c);
            if (rc == -FI_EAGAIN) {   /* provider queue full: the next drain tries again */
                q->inflight -= op->len;
                op->charged = 0;
                goto out;
            }
            if (rc)
                c->host.fatal("ofi conduit: rank %u: %s: %s", (unsigned)c->me,
                              op->is_put ? "fi_writemsg" : "fi_readmsg",
                              gexc_ofi_strerror((int)rc));
            q->head = op->next_q;
            if (!q->head) q->tail = NULL;
            atomic_fetch_sub_explicit(&c->rma_queued, 1, memory_order_relaxed);
        }
        if (q->head) pq = &q->next_busy;
        else *pq = q->next_busy;
    }
out:
    gexc_ofi_opunlock(c);
}

/* Gives op a copy buffer of at least n bytes (n <= GEXC_OFI_RMA_COPY_MAX);
 * 0 when out of memory (the put then waits for its source as a big one). */
static int gexc_ofi_copy_buf(struct gexc_ofi_rmaop *op, size_t n)
{
    if (op->copy_cap >= n) return 1;
    const size_t cap = (n + 4095) & ~(size_t)4095;
    void *p = malloc(cap);
    if (!p) return 0;
    free(op->copy);
    op->copy = p;
    op->copy_cap = cap;
    return 1;
}

/* The shared body of rma_put and rma_get. */
static int gexc_ofi_rma(struct gex_conduit *c, int is_put, gex_Rank_t peer, gex_EP_Index_t pep,
                        void *raddr, void *local, size_t n, const struct gex_conduit_cpl *cpl,
                        gex_Flags_t flags, size_t piece)
{
    if (GEXC_OFI_UNLIKELY(peer >= c->n || !c->has_rma)) return GEX_CONDUIT_EINVAL;
    const struct gexc_ofi_rseg *s = gexc_ofi_rseg_find(c, peer, pep, raddr, n);
    if (!s) return GEX_CONDUIT_EINVAL;
    GEX_CONDUIT_ATOMIC_U32 *lc = cpl ? cpl->lc : NULL, *rc = cpl ? cpl->rc : NULL;
    if (!n) {
        gexc_ofi_signal(lc);
        gexc_ofi_signal(rc);
        return GEX_CONDUIT_OK;
    }
    const int imm = (flags & GEX_FLAG_IMMEDIATE) != 0;
    const size_t npieces = (n - 1) / piece + 1;
    struct gexc_ofi_rmaop *g = gexc_ofi_op_get(c);
    atomic_store_explicit(&g->left, npieces > UINT32_MAX ? UINT32_MAX : (uint32_t)npieces,
                          memory_order_relaxed);
    g->rc = rc;
    int lc_now = 0;
    unsigned char *loc = local;
    void *desc;
    if (is_put && lc && n <= sizeof g->bounce) {
        memcpy(g->bounce, local, n);   /* the source is free once this returns */
        loc = g->bounce;
        desc = g->own_desc;
        lc_now = 1;
    } else if (is_put && lc && n <= GEXC_OFI_RMA_COPY_MAX && gexc_ofi_copy_buf(g, n)) {
        memcpy(g->copy, local, n);     /* likewise */
        loc = g->copy;
        desc = npieces == 1 ? gexc_ofi_local_desc(c, g, loc, n) : NULL;
        lc_now = 1;
    } else {
        g->lc = is_put ? lc : NULL;
        desc = npieces == 1 ? gexc_ofi_local_desc(c, g, local, n) : NULL;
    }
    const uintptr_t ra = (uintptr_t)raddr;
    for (size_t i = 0; i < npieces; i++) {
        const size_t off = i * piece, len = n - off < piece ? n - off : piece;
        struct gexc_ofi_rmaop *op = g;
        if (i) {
            op = gexc_ofi_op_get(c);
            op->group = g;
        }
        if (npieces > 1) desc = gexc_ofi_local_desc(c, op, loc + off, len);
        op->peer = peer;
        op->is_put = is_put;
        op->local = loc + off;
        op->len = len;
        op->desc = desc;
        op->raddr = gexc_ofi_raddr(c, s, ra + off);
        op->rkey = s->key;
        if (!gexc_ofi_admit(c, op)) continue;   /* queued: a poll issues it */
        int st = gexc_ofi_post_rma(c, op, imm && i == 0);
        if (st != GEX_CONDUIT_OK) {   /* IMMEDIATE refused the first piece: nothing is in flight */
            if (g->charged) gexc_ofi_window_release(c, g);
            gexc_ofi_op_put(c, g);
            return st;
        }
    }
    if (lc_now) gexc_ofi_signal(lc);
    return GEX_CONDUIT_OK;
}

int gexc_ofi_long_put(struct gex_conduit *c, gex_Rank_t dst, gex_EP_Index_t dst_ep, void *dest,
                      const void *src, size_t nbytes, int imm)
{
    _Atomic uint32_t done = 1;
    struct gex_conduit_cpl cpl = { NULL, &done };
    int st = gexc_ofi_rma(c, 1, dst, dst_ep, dest, (void *)(uintptr_t)src, nbytes, &cpl,
                          imm ? GEX_FLAG_IMMEDIATE : 0, c->long_rma_piece);
    if (st != GEX_CONDUIT_OK) return st;
    unsigned spins = 0;
    while (atomic_load_explicit(&done, memory_order_acquire)) {
        if (gexc_ofi_poll(c) > 0) spins = 0;
        c->host.backoff(&spins);
    }
    return GEX_CONDUIT_OK;
}

int gexc_ofi_rma_put(struct gex_conduit *c, gex_EP_Index_t local_ep, gex_Rank_t dst,
                     gex_EP_Index_t dst_ep, void *dest, const void *src, size_t nbytes,
                     const struct gex_conduit_cpl *cpl, gex_Flags_t flags)
{
    (void)local_ep;   /* one provider endpoint serves every GEX endpoint */
    return gexc_ofi_rma(c, 1, dst, dst_ep, dest, (void *)(uintptr_t)src, nbytes, cpl, flags,
                        c->rma_piece);
}

int gexc_ofi_rma_get(struct gex_conduit *c, gex_EP_Index_t local_ep, void *dest, gex_Rank_t src,
                     gex_EP_Index_t src_ep, void *srcaddr, size_t nbytes,
                     const struct gex_conduit_cpl *cpl, gex_Flags_t flags)
{
    (void)local_ep;
    struct gex_conduit_cpl rc_only = { NULL, cpl ? cpl->rc : NULL };   /* a get has no lc */
    return gexc_ofi_rma(c, 0, src, src_ep, srcaddr, dest, nbytes, &rc_only, flags,
                        c->rma_piece);
}

/* ---- Atomics ---- */

/* How a GEX (type, op) is carried out with libfabric. */
enum gexc_ofi_amo_form {
    GEXC_OFI_AMO_NONE = 0,   /* no libfabric equivalent */
    GEXC_OFI_AMO_WRITE,      /* fi_atomic: nothing fetched */
    GEXC_OFI_AMO_FETCH,      /* fi_fetch_atomic */
    GEXC_OFI_AMO_COMPARE     /* fi_compare_atomic */
};
/* Operand rewriting for ops libfabric lacks. */
enum gexc_ofi_amo_operand {
    GEXC_OFI_OPND_AS_IS = 0,
    GEXC_OFI_OPND_NEGATE,    /* SUB: add the negated operand */
    GEXC_OFI_OPND_PLUS1,     /* INC: add 1 */
    GEXC_OFI_OPND_MINUS1,    /* DEC: add -1 */
    GEXC_OFI_OPND_NONE       /* GET: no operand */
};
struct gexc_ofi_amo_map {
    enum fi_op fop;
    enum gexc_ofi_amo_form form;
    enum gexc_ofi_amo_operand opnd;
};

static int gexc_ofi_amo_dt(uint32_t dt, enum fi_datatype *fdt, size_t *size)
{
    switch (dt) {
    case GEX_DT_I32: *fdt = FI_INT32; *size = 4; return 1;
    case GEX_DT_U32: *fdt = FI_UINT32; *size = 4; return 1;
    case GEX_DT_I64: *fdt = FI_INT64; *size = 8; return 1;
    case GEX_DT_U64: *fdt = FI_UINT64; *size = 8; return 1;
    case GEX_DT_FLT: *fdt = FI_FLOAT; *size = 4; return 1;
    case GEX_DT_DBL: *fdt = FI_DOUBLE; *size = 8; return 1;
    default: return 0;
    }
}

static struct gexc_ofi_amo_map gexc_ofi_amo_op(uint32_t op)
{
    const enum gexc_ofi_amo_form W = GEXC_OFI_AMO_WRITE, F = GEXC_OFI_AMO_FETCH;
    switch (op) {
    case GEX_OP_AND:  return (struct gexc_ofi_amo_map){ FI_BAND, W, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_FAND: return (struct gexc_ofi_amo_map){ FI_BAND, F, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_OR:   return (struct gexc_ofi_amo_map){ FI_BOR, W, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_FOR:  return (struct gexc_ofi_amo_map){ FI_BOR, F, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_XOR:  return (struct gexc_ofi_amo_map){ FI_BXOR, W, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_FXOR: return (struct gexc_ofi_amo_map){ FI_BXOR, F, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_ADD:  return (struct gexc_ofi_amo_map){ FI_SUM, W, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_FADD: return (struct gexc_ofi_amo_map){ FI_SUM, F, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_SUB:  return (struct gexc_ofi_amo_map){ FI_SUM, W, GEXC_OFI_OPND_NEGATE };
    case GEX_OP_FSUB: return (struct gexc_ofi_amo_map){ FI_SUM, F, GEXC_OFI_OPND_NEGATE };
    case GEX_OP_MULT: return (struct gexc_ofi_amo_map){ FI_PROD, W, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_FMULT:return (struct gexc_ofi_amo_map){ FI_PROD, F, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_MIN:  return (struct gexc_ofi_amo_map){ FI_MIN, W, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_FMIN: return (struct gexc_ofi_amo_map){ FI_MIN, F, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_MAX:  return (struct gexc_ofi_amo_map){ FI_MAX, W, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_FMAX: return (struct gexc_ofi_amo_map){ FI_MAX, F, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_INC:  return (struct gexc_ofi_amo_map){ FI_SUM, W, GEXC_OFI_OPND_PLUS1 };
    case GEX_OP_FINC: return (struct gexc_ofi_amo_map){ FI_SUM, F, GEXC_OFI_OPND_PLUS1 };
    case GEX_OP_DEC:  return (struct gexc_ofi_amo_map){ FI_SUM, W, GEXC_OFI_OPND_MINUS1 };
    case GEX_OP_FDEC: return (struct gexc_ofi_amo_map){ FI_SUM, F, GEXC_OFI_OPND_MINUS1 };
    case GEX_OP_SET:  return (struct gexc_ofi_amo_map){ FI_ATOMIC_WRITE, W, GEXC_OFI_OPND_AS_IS };
    case GEX_OP_SWAP: return (struct gexc_ofi_amo_map){ FI_ATOMIC_WRITE, F, GEXC_OFI_OPND_AS_IS };
    /* CAS fetches into the op and drops the value */
    case GEX_OP_CAS:
    case GEX_OP_FCAS: return (struct gexc_ofi_amo_map){ FI_CSWAP, GEXC_OFI_AMO_COMPARE,
                                                        GEXC_OFI_OPND_AS_IS };
    case GEX_OP_GET:  return (struct gexc_ofi_amo_map){ FI_ATOMIC_READ, F, GEXC_OFI_OPND_NONE };
    default:          return (struct gexc_ofi_amo_map){ FI_ATOMIC_READ, GEXC_OFI_AMO_NONE, 0 };
    }
}

int gexc_ofi_amo_query(struct gex_conduit *c, uint32_t dt, uint32_t op)
{
    enum fi_datatype fdt;
    size_t size;
    const struct gexc_ofi_amo_map m = gexc_ofi_amo_op(op);
    if (!c->has_amo || !gexc_ofi_amo_dt(dt, &fdt, &size) || m.form == GEXC_OFI_AMO_NONE)
        return GEX_CONDUIT_ENOTSUP;
    /* bitwise ops are for integers only (spec), whatever a provider says */
    if ((dt == GEX_DT_FLT || dt == GEX_DT_DBL) &&
        (m.fop == FI_BAND || m.fop == FI_BOR || m.fop == FI_BXOR))
        return GEX_CONDUIT_ENOTSUP;
    /* Floating-point MIN/MAX: the spec defines MIN as ((op0 < op1) ? op0 : op1),
     * which stores op1 when the two compare equal (+0.0 and -0.0) or are
     * unordered (NaN), while libfabric's FI_MIN/FI_MAX replace the target only
     * when op1 is strictly smaller/larger, keeping op0.  Refusing the pair
     * keeps such a domain on CPU atomics, which evaluate C's expression. */
    if ((dt == GEX_DT_FLT || dt == GEX_DT_DBL) && (m.fop == FI_MIN || m.fop == FI_MAX))
        return GEX_CONDUIT_ENOTSUP;
    struct fi_atomic_attr attr;
    memset(&attr, 0, sizeof attr);
    const uint64_t qflags = m.form == GEXC_OFI_AMO_FETCH ? FI_FETCH_ATOMIC
                          : m.form == GEXC_OFI_AMO_COMPARE ? FI_COMPARE_ATOMIC : 0;
    int rc = fi_query_atomic(c->domain, fdt, m.fop, &attr, qflags);
    return rc == 0 && attr.count >= 1 ? GEX_CONDUIT_OK : GEX_CONDUIT_ENOTSUP;
}

/* dst = the operand as libfabric must see it (size bytes of type dt). */
static void gexc_ofi_amo_operand(uint32_t dt, enum gexc_ofi_amo_operand how, const void *in,
                                 void *dst)
{
    union { int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f; double d; } v;
    memset(&v, 0, sizeof v);
    const int is_flt = dt == GEX_DT_FLT, is_dbl = dt == GEX_DT_DBL;
    const int wide = dt == GEX_DT_I64 || dt == GEX_DT_U64 || is_dbl;
    if (how == GEXC_OFI_OPND_AS_IS || how == GEXC_OFI_OPND_NEGATE) {
        if (in) memcpy(&v, in, wide ? 8 : 4);
        if (how == GEXC_OFI_OPND_NEGATE) {
            if (is_flt) v.f = -v.f;
            else if (is_dbl) v.d = -v.d;
            else if (wide) v.u64 = (uint64_t)0 - v.u64;   /* two's complement: wraps as GEX's SUB */
            else v.u32 = (uint32_t)0 - v.u32;
        }
    } else if (how == GEXC_OFI_OPND_PLUS1 || how == GEXC_OFI_OPND_MINUS1) {
        const int s = how == GEXC_OFI_OPND_PLUS1 ? 1 : -1;
        if (is_flt) v.f = (float)s;
        else if (is_dbl) v.d = (double)s;
        else if (wide) v.u64 = (uint64_t)(int64_t)s;
        else v.u32 = (uint32_t)(int32_t)s;
    }
    memcpy(dst, &v, wide ? 8 : 4);
}

/* Posting, one function per form (GEXC_OFI_POST returns EAGAIN from it).
 * A non-fetching atomic asks for FI_DELIVERY_COMPLETE: its completion must
 * mean the target word has changed. */
static int gexc_ofi_amo_post_write(struct gex_conduit *c, const struct fi_msg_atomic *msg, int imm)
{
    GEXC_OFI_POST(c, imm, "fi_atomicmsg",
                  fi_atomicmsg(c->ep, msg, FI_COMPLETION | FI_DELIVERY_COMPLETE));
    return GEX_CONDUIT_OK;
}
static int gexc_ofi_amo_post_fetch(struct gex_conduit *c, const struct fi_msg_atomic *msg,
                                   struct fi_ioc *res, void **res_desc, int imm)
{
    GEXC_OFI_POST(c, imm, "fi_fetch_atomicmsg",
                  fi_fetch_atomicmsg(c->ep, msg, res, res_desc, 1, FI_COMPLETION));
    return GEX_CONDUIT_OK;
}
static int gexc_ofi_amo_post_compare(struct gex_conduit *c, const struct fi_msg_atomic *msg,
                                     struct fi_ioc *cmp, void **cmp_desc,
                                     struct fi_ioc *res, void **res_desc, int imm)
{
    GEXC_OFI_POST(c, imm, "fi_compare_atomicmsg",
                  fi_compare_atomicmsg(c->ep, msg, cmp, cmp_desc, 1, res, res_desc, 1,
                                       FI_COMPLETION));
    return GEX_CONDUIT_OK;
}

int gexc_ofi_amo(struct gex_conduit *c, gex_EP_Index_t local_ep, gex_Rank_t tgt,
                 gex_EP_Index_t tgt_ep, void *tgt_addr, uint32_t dt, uint32_t op,
                 const void *operand1, const void *operand2, void *result,
                 const struct gex_conduit_cpl *cpl, gex_Flags_t flags)
{
    (void)local_ep;
    enum fi_datatype fdt;
    size_t size;
    const struct gexc_ofi_amo_map m = gexc_ofi_amo_op(op);
    if (GEXC_OFI_UNLIKELY(tgt >= c->n || !c->has_amo || !gexc_ofi_amo_dt(dt, &fdt, &size) ||
                          m.form == GEXC_OFI_AMO_NONE))
        return GEX_CONDUIT_EINVAL;
    const struct gexc_ofi_rseg *s = gexc_ofi_rseg_find(c, tgt, tgt_ep, tgt_addr, size);
    if (!s) return GEX_CONDUIT_EINVAL;
    const int imm = (flags & GEX_FLAG_IMMEDIATE) != 0;
    struct gexc_ofi_rmaop *o = gexc_ofi_op_get(c);
    /* bounce: [0,16) operand, [16,32) compare value, [32,48) fetched value */
    unsigned char *buf = o->bounce, *cmp = o->bounce + 16, *res = o->bounce + 32;
    o->rc = cpl ? cpl->rc : NULL;
    if (m.form == GEXC_OFI_AMO_COMPARE) {
        /* GEX: operand1 is the value compared, operand2 the one written */
        memcpy(cmp, operand1, size);
        memcpy(buf, operand2, size);
    } else {
        gexc_ofi_amo_operand(dt, m.opnd, operand1, buf);
    }
    if (result && m.form != GEXC_OFI_AMO_WRITE && op != GEX_OP_CAS) {
        o->result = result;
        o->result_len = size;
    }
    void *desc = o->own_desc;
    struct fi_ioc ioc = { .addr = buf, .count = 1 };
    struct fi_ioc cioc = { .addr = cmp, .count = 1 };
    struct fi_ioc rioc = { .addr = res, .count = 1 };
    struct fi_rma_ioc rma = { .addr = gexc_ofi_raddr(c, s, (uintptr_t)tgt_addr), .count = 1,
                              .key = s->key };
    struct fi_msg_atomic msg = {
        .msg_iov = &ioc, .desc = &desc, .iov_count = 1, .addr = c->peers[tgt].addr,
        .rma_iov = &rma, .rma_iov_count = 1, .datatype = fdt, .op = m.fop,
        .context = &o->base.ctx, .data = 0,
    };
    int st = GEX_CONDUIT_OK;
    switch (m.form) {
    case GEXC_OFI_AMO_WRITE:
        st = gexc_ofi_amo_post_write(c, &msg, imm);
        break;
    case GEXC_OFI_AMO_FETCH:
        st = gexc_ofi_amo_post_fetch(c, &msg, &rioc, &desc, imm);
        break;
    default:
        st = gexc_ofi_amo_post_compare(c, &msg, &cioc, &desc, &rioc, &desc, imm);
        break;
    }
    if (st != GEX_CONDUIT_OK) gexc_ofi_op_put(c, o);
    return st;
}
