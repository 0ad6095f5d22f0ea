/*
 * ofi_am.c: the Active Message transport of the ofi conduit: the
 * am_request / am_reply / poll ops, request credits, send buffers and the
 * receive buffers.  ofi_conduit.c sets the endpoint up; everything that
 * runs per message is here.  The transport and the flow-control argument
 * are described in ofi_internal.h; the rules this file keeps are:
 *
 *  - A send first reserves what it needs (a request credit for a request
 *    message, a send buffer for a message too big for the stack), then
 *    builds the message, hands it to the provider and waits for its local
 *    completion (see ofi_internal.h: why).  With GEX_FLAG_IMMEDIATE a
 *    shortage at any point before the first message is accepted undoes the
 *    reservation and returns GEX_CONDUIT_EAGAIN: nothing was sent, no byte
 *    of a Long destination was written.
 *  - Waits never hold a lock.  A request that waits for credits polls
 *    (handlers run: the credits arrive in messages); every other wait (a
 *    reply's, a local completion) only drives the provider's progress, so
 *    a reply never depends on a peer running handlers.
 *  - One thread at a time drains the receive queue (a second poller
 *    returns at once), one at a time reads the send queue.  txlock guards
 *    the peers' credit counts, the send-buffer list and provider sends;
 *    it is a no-op unless host->thread_safe.
 */
#include "ofi_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>

const char *gexc_ofi_strerror(int rc)
{
    return fi_strerror(rc < 0 ? -rc : rc);
}

__attribute__((cold, noinline, format(printf, 3, 4)))
static int gexc_ofi_bad_arg(struct gex_conduit *c, const char *op, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->host.log(0, "ofi conduit: %s: %s", op, msg);
    return GEX_CONDUIT_EINVAL;
}

__attribute__((cold, noinline, noreturn))
static void gexc_ofi_corrupt(struct gex_conduit *c, size_t len, const char *what)
{
    c->host.fatal("ofi conduit: rank %u received a malformed message of %zu bytes: %s "
                  "(ranks of different GEX builds?)", (unsigned)c->me, len, what);
    abort();
}

/* A send failed for good: fatal, unless the job is ending (the peer left). */
__attribute__((cold, noinline, noreturn))
static void gexc_ofi_send_failed(struct gex_conduit *c, gex_Rank_t dst, size_t len, int rc)
{
    gex_conduit_await_job_end(&c->host);
    c->host.fatal("ofi conduit: rank %u: sending %zu bytes to rank %u: %s", (unsigned)c->me, len,
                  (unsigned)dst, gexc_ofi_strerror(rc));
    abort();
}

/* ---- Send buffers and credits ---- */

static inline struct gexc_ofi_txbuf *gexc_ofi_txbuf_get(struct gex_conduit *c)
{
    struct gexc_ofi_txbuf *tb = c->tx_free;
    if (tb) {
        c->tx_free = tb->next;
        c->tx_nfree--;
    }
    return tb;
}

void gexc_ofi_txbuf_put(struct gex_conduit *c, struct gexc_ofi_txbuf *tb)
{
    gexc_ofi_txlock(c);
    tb->next = c->tx_free;
    c->tx_free = tb;
    c->tx_nfree++;
    gexc_ofi_txunlock(c);
}

/* Reads send completions (driving the provider's progress); each marks its
 * send done for the thread waiting on it.  Returns how many one-sided
 * operations (RMA, atomics) completed: progress a wait must see (below,
 * gexc_ofi_poll). */
int gexc_ofi_reap_tx(struct gex_conduit *c)
{
    struct fi_cq_data_entry ent[16];
    int total = 0;
    if (c->thread_safe && pthread_mutex_trylock(&c->txcq_lock) != 0) return 0;
    for (;;) {
        ssize_t n = fi_cq_read(c->txcq, ent, 16);
        if (n == -FI_EAGAIN) break;
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err;
            memset(&err, 0, sizeof err);
            if (fi_cq_readerr(c->txcq, &err, 0) != 1) break;
            /* A send to a rank that has already left (job end) fails this
             * way; anything else means a message was lost. */
            c->host.log(3,
                        "ofi conduit: rank %u: a send failed: %s (provider: %s)",
                        (unsigned)c->me, fi_strerror(err.err),
                        fi_cq_strerror(c->txcq, err.prov_errno, err.err_data, NULL, 0));
            if (err.op_context && ((struct gexc_ofi_txop *)err.op_context)->is_rma) {
                gexc_ofi_rma_complete(c, err.op_context, 0, err.err);
                total++;
            } else if (err.op_context) {
                atomic_store_explicit(&((struct gexc_ofi_txop *)err.op_context)->done, -1,
                                      memory_order_release);
            }
            continue;
        }
        if (n < 0) {
            if (c->thread_safe) pthread_mutex_unlock(&c->txcq_lock);
            c->host.fatal("ofi conduit: reading the send completion queue: %s",
                          gexc_ofi_strerror((int)n));
        }
        for (ssize_t i = 0; i < n; i++) {
            struct gexc_ofi_txop *op = ent[i].op_context;
            if (!op) continue;
            if (op->is_rma) {
                gexc_ofi_rma_complete(c, (struct gexc_ofi_rmaop *)op, 1, 0);
                total++;
            } else {
                atomic_store_explicit(&op->done, 1, memory_order_release);
            }
        }
        if (n < 16) break;
    }
    if (c->thread_safe) pthread_mutex_unlock(&c->txcq_lock);
    /* completions made room in RMA issue windows (ofi_rma.c) */
    if (atomic_load_explicit(&c->rma_queued, memory_order_relaxed)) gexc_ofi_rma_drain(c);
    return total;
}

/* Drives the provider without taking any message out of the receive queue:
 * some providers (sockets) progress only the queue that is read, and a
 * send may complete only once the receive side moved (connections). */
static void gexc_ofi_progress(struct gex_conduit *c)
{
    gexc_ofi_reap_tx(c);
    if (c->progress_rx) {
        struct fi_cq_data_entry none;
        (void)fi_cq_read(c->rxcq, &none, 0);
    }
}

/* Waits for the local completion of one send: provider progress only. */
static void gexc_ofi_wait_op(struct gex_conduit *c, struct gexc_ofi_txop *op)
{
    unsigned spins = 0;
    for (;;) {
        gexc_ofi_progress(c);
        if (atomic_load_explicit(&op->done, memory_order_acquire)) return;
        c->host.backoff(&spins);
    }
}

/* One step of a wait for credits or a send buffer.  Requests poll (the
 * credits they wait for arrive in messages); replies only drive progress. */
static void gexc_ofi_wait_step(struct gex_conduit *c, int is_req, unsigned *spins)
{
    if (is_req) gexc_ofi_poll(c);
    else gexc_ofi_progress(c);
    c->host.backoff(spins);
}

/* Takes up to `want` request credits toward dst.  Blocking: waits until at
 * least one is there.  IMMEDIATE: all of them or none, except that a
 * request needing more than the whole window may start once the whole
 * window is free (it could never succeed otherwise).  Returns the number
 * taken (0: EAGAIN). */
uint32_t gexc_ofi_take_credits(struct gex_conduit *c, gex_Rank_t dst, uint32_t want, int imm)
{
    struct gexc_ofi_peer *p = &c->peers[dst];
    unsigned spins = 0;
    for (;;) {
        gexc_ofi_txlock(c);   /* IMMEDIATE too: see gexc_ofi_txlock */
        uint32_t have = p->credits, got = 0;
        if (imm) {
            if (have >= want) got = want;
            else if (want > c->credits_init && have == c->credits_init) got = have;
        } else {
            got = have < want ? have : want;
        }
        p->credits -= got;
        gexc_ofi_txunlock(c);
        if (got || imm) return got;
        gexc_ofi_wait_step(c, 1, &spins);
    }
}

void gexc_ofi_give_credits(struct gex_conduit *c, gex_Rank_t dst, uint32_t n)
{
    if (!n) return;
    gexc_ofi_txlock(c);
    c->peers[dst].credits += n;
    gexc_ofi_txunlock(c);
}

/* A send buffer, or NULL under IMMEDIATE when none is free.  Buffers come
 * back when their sends complete locally, which the holders wait for. */
struct gexc_ofi_txbuf *gexc_ofi_take_txbuf(struct gex_conduit *c, int is_req, int imm)
{
    unsigned spins = 0;
    for (;;) {
        gexc_ofi_txlock(c);
        struct gexc_ofi_txbuf *tb = gexc_ofi_txbuf_get(c);
        gexc_ofi_txunlock(c);
        if (tb || imm) return tb;
        gexc_ofi_wait_step(c, is_req, &spins);
    }
}

/* ---- Building and sending one message ---- */

void gexc_ofi_build(struct gex_conduit *c, unsigned char *buf, const struct gexc_ofi_out *o)
{
    struct gexc_ofi_hdr *h = (struct gexc_ofi_hdr *)buf;
    const uint32_t hs = gexc_ofi_hdr_size(o->kind);
    h->kind = (uint8_t)o->kind;
    h->is_request = (uint8_t)o->is_req;
    h->handler = (uint8_t)o->handler;
    h->nargs = (uint8_t)o->nargs;
    h->credits = 0;
    h->magic = GEXC_OFI_HDR_MAGIC;
    h->src_rank = c->me;
    h->src_ep = o->src_ep;
    h->dst_ep = o->dst_ep;
    if (hs >= GEXC_OFI_HDR_MEDIUM) {
        h->nbytes = o->nbytes;
        h->chunk_len = o->chunk_len;
    }
    if (hs >= GEXC_OFI_HDR_LONG) {
        h->long_id = o->long_id;
        h->dest_addr = o->dest;
    }
    size_t at = hs;
    if (o->nargs) {
        memcpy(buf + at, o->args, 4u * o->nargs);
        at += 4u * o->nargs;
    }
    const size_t poff = gexc_ofi_payload_off(o->kind, o->nargs);
    if (poff > at) memset(buf + at, 0, poff - at);
    /* a negotiated payload (ofi_np.c) is already in place */
    if (o->plen && o->payload != buf + poff) memcpy(buf + poff, o->payload, o->plen);
    const size_t end = poff + o->plen, len = gexc_ofi_align8(end);
    if (len > end) memset(buf + end, 0, len - end);
}

/* Hands a built message to the provider, piggybacking the credits we owe
 * dst, and waits for its local completion.  With `imm` a busy provider
 * makes it return EAGAIN (nothing sent); otherwise it waits as a send of
 * this kind waits. */
int gexc_ofi_transmit(struct gex_conduit *c, gex_Rank_t dst, unsigned char *buf, size_t len,
                      int is_req, int imm)
{
    struct gexc_ofi_peer *p = &c->peers[dst];
    struct gexc_ofi_hdr *h = (struct gexc_ofi_hdr *)buf;
    struct gexc_ofi_txop op;
    unsigned spins = 0;
    for (;;) {
        gexc_ofi_txlock(c);
        uint32_t cr = p->owed < 0xffffu ? p->owed : 0xffffu;
        p->owed -= cr;
        h->credits = (uint16_t)cr;
        atomic_store_explicit(&op.done, 0, memory_order_relaxed);
        op.is_rma = 0;
        ssize_t rc = fi_send(c->ep, buf, len, c->tx_mr_desc, p->addr, &op.ctx);
        if (GEXC_OFI_LIKELY(rc == 0)) {
            gexc_ofi_txunlock(c);
            gexc_ofi_wait_op(c, &op);
            if (GEXC_OFI_UNLIKELY(atomic_load_explicit(&op.done, memory_order_acquire) < 0))
                gexc_ofi_send_failed(c, dst, len, -FI_EIO);
            return GEX_CONDUIT_OK;
        }
        p->owed += cr;
        gexc_ofi_txunlock(c);
        if (rc != -FI_EAGAIN) gexc_ofi_send_failed(c, dst, len, (int)rc);
        if (imm) return GEX_CONDUIT_EAGAIN;
        gexc_ofi_wait_step(c, is_req, &spins);
    }
}

/* Sends one message whose credit (requests) is already held.  imm: may
 * fail with EAGAIN, having sent nothing and kept the credit. */
static int gexc_ofi_send_one(struct gex_conduit *c, gex_Rank_t dst, const struct gexc_ofi_out *o,
                             int imm)
{
    const size_t len = gexc_ofi_out_len(o);
    if (len <= c->stack_max) {
        _Alignas(8) unsigned char buf[GEXC_OFI_STACK_MSG];
        gexc_ofi_build(c, buf, o);
        return gexc_ofi_transmit(c, dst, buf, len, o->is_req, imm);
    }
    struct gexc_ofi_txbuf *tb = gexc_ofi_take_txbuf(c, o->is_req, imm);
    if (!tb) return GEX_CONDUIT_EAGAIN;
    gexc_ofi_build(c, tb->data, o);
    int rc = gexc_ofi_transmit(c, dst, tb->data, len, o->is_req, imm);
    gexc_ofi_txbuf_put(c, tb);
    return rc;
}

/* A Long whose destination is not mapped here: pieces of c->chunk bytes
 * that the receiver copies to their own addresses, the last piece riding in
 * the message that names the handler.  All carry the Long's number, and
 * the receiver runs the handler once it has every byte (gexc_ofi_asm_*). */
static int gexc_ofi_send_long_pieces(struct gex_conduit *c, gex_Rank_t dst,
                                     const struct gex_conduit_am *m, int is_req, int imm)
{
    const size_t n = m->nbytes, chunk = c->chunk;
    const size_t npieces = (n + chunk - 1) / chunk;   /* n > 0 */
    const size_t final_off = (npieces - 1) * chunk;
    const unsigned char *src = m->payload;
    const uint64_t dest = (uint64_t)(uintptr_t)m->dest_addr;
    uint32_t held = 0;   /* request credits taken and not yet used */
    uint32_t id = atomic_fetch_add_explicit(&c->next_long_id, 1, memory_order_relaxed);
    if (GEXC_OFI_UNLIKELY(!id))   /* 0 means "not in pieces" */
        id = atomic_fetch_add_explicit(&c->next_long_id, 1, memory_order_relaxed);

    if (is_req) {
        uint32_t want = npieces > UINT32_MAX ? UINT32_MAX : (uint32_t)npieces;
        held = gexc_ofi_take_credits(c, dst, want, imm);
        if (!held) return GEX_CONDUIT_EAGAIN;
    }
    for (size_t i = 0; i < npieces; i++) {
        const int last = i + 1 == npieces;
        struct gexc_ofi_out o = {
            .kind = last ? GEXC_OFI_K_LONG : GEXC_OFI_K_LONGDATA, .is_req = is_req,
            .handler = m->handler,   /* every piece: the receiver's check needs it */
            .nargs = last ? m->nargs : 0,
            .src_ep = m->src_ep, .dst_ep = m->dst_ep, .args = m->args,
            .nbytes = (uint32_t)n, .chunk_len = (uint32_t)(last ? n - final_off : chunk),
            .long_id = id, .dest = last ? dest : dest + i * chunk, .payload = src + i * chunk,
            .plen = last ? n - final_off : chunk,
        };
        if (is_req && !held) held = gexc_ofi_take_credits(c, dst, (uint32_t)(npieces - i), 0);
        /* Only the first piece may still fail: after it, finish. */
        int rc = gexc_ofi_send_one(c, dst, &o, imm && i == 0);
        if (rc != GEX_CONDUIT_OK) {
            gexc_ofi_give_credits(c, dst, held);
            return rc;
        }
        if (is_req) held--;
    }
    return GEX_CONDUIT_OK;
}

/* A Long request whose destination lies in a segment published to us: the
 * payload goes by one RMA write (ofi_rma.c), and once it is visible at the
 * target the message that runs the handler follows with no payload
 * (chunk_len 0), taking one credit.  EINVAL: not in a published segment,
 * the caller sends pieces instead.  Under IMMEDIATE only the credit and
 * the write may refuse; once the write is done the header is sent. */
static int gexc_ofi_send_long_rma(struct gex_conduit *c, gex_Rank_t dst,
                                  const struct gex_conduit_am *m, struct gexc_ofi_out *o, int imm)
{
    if (!gexc_ofi_take_credits(c, dst, 1, imm)) return GEX_CONDUIT_EAGAIN;
    int rc = gexc_ofi_long_put(c, dst, m->dst_ep, m->dest_addr, m->payload, m->nbytes, imm);
    if (rc != GEX_CONDUIT_OK) {
        gexc_ofi_give_credits(c, dst, 1);
        return rc;
    }
    o->chunk_len = 0;
    o->long_id = 0;
    o->payload = NULL;
    o->plen = 0;
    rc = gexc_ofi_send_one(c, dst, o, 0);
    if (GEXC_OFI_UNLIKELY(rc != GEX_CONDUIT_OK)) gexc_ofi_give_credits(c, dst, 1);
    return rc;
}

/* The send path shared by requests and replies. */
static int gexc_ofi_send(struct gex_conduit *c, gex_Rank_t dst, int is_req,
                         const struct gex_conduit_am *m, gex_Flags_t flags, const char *op)
{
    const int imm = (flags & GEX_FLAG_IMMEDIATE) != 0;
    struct gexc_ofi_out o = {
        .kind = m->category, .is_req = is_req, .handler = m->handler, .nargs = m->nargs,
        .src_ep = m->src_ep, .dst_ep = m->dst_ep, .args = m->args,
    };
    void *long_local = NULL;

    if (GEXC_OFI_UNLIKELY(m->nargs > GEXC_OFI_MAX_ARGS))
        return gexc_ofi_bad_arg(c, op, "nargs %u exceeds the maximum of %u", m->nargs,
                                GEXC_OFI_MAX_ARGS);
    switch (m->category) {
    case GEX_CONDUIT_AM_SHORT:
        break;
    case GEX_CONDUIT_AM_MEDIUM:
        if (GEXC_OFI_UNLIKELY(m->nbytes > c->max_medium))
            return gexc_ofi_bad_arg(c, op, "Medium payload of %zu bytes exceeds MaxMedium %zu",
                                    m->nbytes, c->max_medium);
        o.nbytes = (uint32_t)m->nbytes;
        o.payload = m->payload;
        o.plen = m->nbytes;
        break;
    case GEX_CONDUIT_AM_LONG:
        if (GEXC_OFI_UNLIKELY(m->nbytes > (is_req ? c->max_long : c->max_long_reply)))
            return gexc_ofi_bad_arg(c, op, "Long payload of %zu bytes exceeds the maximum %zu",
                                    m->nbytes, is_req ? c->max_long : c->max_long_reply);
        o.nbytes = (uint32_t)m->nbytes;
        o.dest = (uint64_t)(uintptr_t)m->dest_addr;
        if (m->nbytes) {
            if (c->use_shm_long)
                long_local = c->host.peer_local_addr(dst, m->dst_ep, m->dest_addr, m->nbytes);
            if (!long_local) {
                if (is_req && c->long_rma_min && m->nbytes >= c->long_rma_min) {
                    int rc = gexc_ofi_send_long_rma(c, dst, m, &o, imm);
                    if (rc != GEX_CONDUIT_EINVAL) return rc;
                }
                if (m->nbytes > c->chunk) return gexc_ofi_send_long_pieces(c, dst, m, is_req, imm);
                o.chunk_len = (uint32_t)m->nbytes;
                o.payload = m->payload;
                o.plen = m->nbytes;
            }
        }
        break;
    default:
        return gexc_ofi_bad_arg(c, op, "unknown AM category %u", m->category);
    }

    if (is_req && !gexc_ofi_take_credits(c, dst, 1, imm)) return GEX_CONDUIT_EAGAIN;
    if (long_local) {
        /* Same host, segment mapped: copy now, send only the header.  Under
         * IMMEDIATE the buffer must be certain first (a refused send writes
         * nothing); after the copy the send no longer refuses. */
        struct gexc_ofi_txbuf *tb = NULL;
        const size_t len = gexc_ofi_out_len(&o);
        if (len > c->stack_max) {
            tb = gexc_ofi_take_txbuf(c, is_req, imm);
            if (!tb) {
                if (is_req) gexc_ofi_give_credits(c, dst, 1);
                return GEX_CONDUIT_EAGAIN;
            }
        }
        memmove(long_local, m->payload, m->nbytes);   /* a Long to self may overlap */
        _Alignas(8) unsigned char sbuf[GEXC_OFI_STACK_MSG];
        unsigned char *buf = tb ? tb->data : sbuf;
        gexc_ofi_build(c, buf, &o);
        int rc = gexc_ofi_transmit(c, dst, buf, len, is_req, 0);
        if (tb) gexc_ofi_txbuf_put(c, tb);
        return rc;
    }
    int rc = gexc_ofi_send_one(c, dst, &o, imm);
    if (GEXC_OFI_UNLIKELY(rc != GEX_CONDUIT_OK) && is_req) gexc_ofi_give_credits(c, dst, 1);
    return rc;
}

int gexc_ofi_am_request(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                        const struct gex_conduit_am *m, gex_Flags_t flags)
{
    if (GEXC_OFI_UNLIKELY(dst_jobrank >= c->n))
        return gexc_ofi_bad_arg(c, "am_request", "destination jobrank %u >= jobsize %u",
                                (unsigned)dst_jobrank, (unsigned)c->n);
    return gexc_ofi_send(c, dst_jobrank, 1, m, flags, "am_request");
}

int gexc_ofi_am_reply(struct gex_conduit *c, void *reply_ctx, const struct gex_conduit_am *m,
                      gex_Flags_t flags)
{
    uintptr_t v = (uintptr_t)reply_ctx - 1;   /* see gexc_ofi_reply_ctx(); NULL wraps high */
    if (GEXC_OFI_UNLIKELY(v >= c->n))
        return gexc_ofi_bad_arg(c, "am_reply", "reply_ctx %p was not handed out by this conduit",
                                reply_ctx);
    return gexc_ofi_send(c, (gex_Rank_t)v, 0, m, flags, "am_reply");
}

/* ---- Receive side ---- */

int gexc_ofi_post_rx(struct gex_conduit *c, unsigned i)
{
    struct gexc_ofi_rxbuf *rb = &c->rx[i];
    struct iovec iov = { .iov_base = rb->data, .iov_len = rb->size };
    void *desc = c->rx_mr_desc;
    struct fi_msg msg = {
        .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC,
        .context = &rb->ctx, .data = 0,
    };
    unsigned spins = 0;
    for (;;) {
        ssize_t rc = fi_recvmsg(c->ep, &msg, c->multi_recv ? FI_MULTI_RECV : 0);
        if (rc == 0) return GEX_CONDUIT_OK;
        if (rc != -FI_EAGAIN) {
            c->host.log(0, "ofi conduit: posting a receive buffer: %s", gexc_ofi_strerror((int)rc));
            return GEX_CONDUIT_EIO;
        }
        gexc_ofi_reap_tx(c);   /* provider progress */
        c->host.backoff(&spins);
    }
}

/* We handled a request message of src: owe it a credit; queue a credit
 * message once half the window is owed. */
static inline void gexc_ofi_owe(struct gex_conduit *c, gex_Rank_t src)
{
    gexc_ofi_txlock(c);
    struct gexc_ofi_peer *p = &c->peers[src];
    if (++p->owed >= c->credit_threshold && !p->credit_queued) {
        p->credit_queued = 1;
        c->credit_q[atomic_fetch_add_explicit(&c->credit_qlen, 1, memory_order_relaxed)] = src;
    }
    gexc_ofi_txunlock(c);
}

/* Sends the credit messages that are due (waiting only for their local
 * completion); one the provider refuses now stays queued for the next
 * poll. */
static void gexc_ofi_flush_credits(struct gex_conduit *c)
{
    for (;;) {
        if (!gexc_ofi_txtrylock(c)) return;
        if (!atomic_load_explicit(&c->credit_qlen, memory_order_relaxed)) {
            gexc_ofi_txunlock(c);
            return;
        }
        const gex_Rank_t dst =
            c->credit_q[atomic_fetch_sub_explicit(&c->credit_qlen, 1, memory_order_relaxed) - 1];
        struct gexc_ofi_peer *p = &c->peers[dst];
        p->credit_queued = 0;
        if (p->owed < c->credit_threshold) {   /* piggybacked meanwhile */
            gexc_ofi_txunlock(c);
            continue;
        }
        const uint32_t cr = p->owed < 0xffffu ? p->owed : 0xffffu;
        _Alignas(8) unsigned char buf[sizeof(struct gexc_ofi_hdr)];
        struct gexc_ofi_out o = { .kind = GEXC_OFI_K_CREDIT };
        gexc_ofi_build(c, buf, &o);
        ((struct gexc_ofi_hdr *)buf)->credits = (uint16_t)cr;
        struct gexc_ofi_txop op;
        atomic_store_explicit(&op.done, 0, memory_order_relaxed);
        op.is_rma = 0;
        ssize_t rc = fi_send(c->ep, buf, gexc_ofi_out_len(&o), c->tx_mr_desc, p->addr, &op.ctx);
        if (rc == 0) {
            p->owed -= cr;
            gexc_ofi_txunlock(c);
            gexc_ofi_wait_op(c, &op);
            continue;
        }
        if (rc != -FI_EAGAIN) {
            /* most likely a rank that has left at the end of the job:
             * credits for it no longer matter */
            c->host.log(3, "ofi conduit: rank %u: credits for rank %u dropped: %s",
                        (unsigned)c->me, (unsigned)dst, gexc_ofi_strerror((int)rc));
            p->owed -= cr;
            gexc_ofi_txunlock(c);
            continue;
        }
        p->credit_queued = 1;
        c->credit_q[atomic_fetch_add_explicit(&c->credit_qlen, 1, memory_order_relaxed)] = dst;
        gexc_ofi_txunlock(c);
        return;
    }
}

/* ---- Longs in pieces (receiver side) ---- */

static struct gexc_ofi_asm *gexc_ofi_asm_get(struct gex_conduit *c, gex_Rank_t src,
                                             uint32_t id, size_t total)
{
    for (struct gexc_ofi_asm *a = c->asm_list; a; a = a->next)
        if (a->src == src && a->long_id == id) return a;
    struct gexc_ofi_asm *a = c->asm_free;
    if (a) c->asm_free = a->next;
    else if (!(a = malloc(sizeof *a)))
        c->host.fatal("ofi conduit: out of memory for an arriving Long");
    a->src = src;
    a->long_id = id;
    a->missing = total;
    a->have_final = 0;
    a->next = c->asm_list;
    c->asm_list = a;
    return a;
}

static void gexc_ofi_asm_put(struct gex_conduit *c, struct gexc_ofi_asm *a)
{
    for (struct gexc_ofi_asm **pp = &c->asm_list; *pp; pp = &(*pp)->next) {
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    }
    a->next = c->asm_free;
    c->asm_free = a;
}

static void gexc_ofi_deliver_long(struct gex_conduit *c, const struct gexc_ofi_hdr *h,
                                  const gex_conduit_arg_t *args)
{
    unsigned char *d = (unsigned char *)(uintptr_t)h->dest_addr;
    struct gex_conduit_am m = {
        .category = GEX_CONDUIT_AM_LONG, .is_request = h->is_request, .handler = h->handler,
        .nargs = h->nargs, .src_ep = h->src_ep, .dst_ep = h->dst_ep, .src_jobrank = h->src_rank,
        .args = args, .payload = d, .nbytes = h->nbytes, .dest_addr = d,
    };
    c->host.deliver_am(c->host.core_ctx, &m, gexc_ofi_reply_ctx(h->src_rank));
}

/* One message of a Long in pieces has landed (its bytes are copied). */
static void gexc_ofi_asm_piece(struct gex_conduit *c, const struct gexc_ofi_hdr *h,
                               const gex_conduit_arg_t *args, size_t len)
{
    struct gexc_ofi_asm *a = gexc_ofi_asm_get(c, h->src_rank, h->long_id, h->nbytes);
    if (GEXC_OFI_UNLIKELY(h->chunk_len > a->missing))
        gexc_ofi_corrupt(c, len, "more bytes of a Long than it has");
    a->missing -= h->chunk_len;
    if (h->kind == GEXC_OFI_K_LONG) {
        a->have_final = 1;
        a->hdr = *h;
        if (h->nargs) memcpy(a->args, args, 4u * h->nargs);
    }
    if (a->missing || !a->have_final) return;
    struct gexc_ofi_hdr fh = a->hdr;
    gex_conduit_arg_t fargs[GEXC_OFI_MAX_ARGS];
    memcpy(fargs, a->args, 4u * fh.nargs);
    gexc_ofi_asm_put(c, a);
    gexc_ofi_deliver_long(c, &fh, fargs);
}


/* A Long's payload bytes carried in a message are about to be written at
 * their absolute address [d, d+n) in this process: the sender could not map
 * the destination (or write it by RMA: a range in no published segment is
 * refused there), so nothing has checked it.  A client's Long must target
 * the segment bound to the receiving endpoint (spec, AM NOTE 5: "must name
 * a destination EP with a bound segment known to the initiator"); a
 * release build would fault in memcpy here, so the job ends with a message
 * naming the Long instead.  One call per message that carries Long bytes,
 * which is copied anyway.  The layers' own Longs (handler below
 * GEX_AM_INDEX_BASE: an RMA get's reply) may target any memory. */
static inline void gexc_ofi_check_long_dest(struct gex_conduit *c, const struct gexc_ofi_hdr *h,
                                            const void *d, size_t n)
{
    gex_conduit_check_long_dest(&c->host, c->me, h->src_rank, h->dst_ep, h->handler,
                                h->is_request, d, n);
}

/* Handles one received message of len bytes at p (8-aligned). */
static void gexc_ofi_handle(struct gex_conduit *c, unsigned char *p, size_t len)
{
    const struct gexc_ofi_hdr *h = (const struct gexc_ofi_hdr *)p;
    struct gexc_ofi_view v;
    const char *bad = gexc_ofi_check_msg(p, len, c->n, c->max_medium, &v);
    if (GEXC_OFI_UNLIKELY(bad)) gexc_ofi_corrupt(c, len, bad);
    const unsigned kind = h->kind, nargs = h->nargs;
    const gex_Rank_t src = h->src_rank;
    if (h->credits) gexc_ofi_give_credits(c, src, h->credits);
    if (kind == GEXC_OFI_K_CREDIT) return;
    if (kind == GEXC_OFI_K_HELLO) {
        if (!c->peers[src].hello) {
            c->peers[src].hello = 1;
            c->hellos++;
        }
        return;
    }

    unsigned char *payload = p + v.payload_off;
    struct gex_conduit_am m;
    m.category = (uint8_t)kind;
    m.is_request = h->is_request;
    m.handler = h->handler;
    m.nargs = (uint8_t)nargs;
    m.src_ep = h->src_ep;
    m.dst_ep = h->dst_ep;
    m.src_jobrank = src;
    m.args = (const gex_conduit_arg_t *)(p + v.args_off);
    switch (kind) {
    case GEXC_OFI_K_SHORT:
        m.payload = NULL;
        m.nbytes = 0;
        m.dest_addr = NULL;
        break;
    case GEXC_OFI_K_MEDIUM:
        m.payload = payload;
        m.nbytes = h->nbytes;
        m.dest_addr = NULL;
        break;
    case GEXC_OFI_K_LONG: {
        unsigned char *d = (unsigned char *)(uintptr_t)h->dest_addr;
        const uint32_t cl = v.copy_len;
        if (cl) {
            gexc_ofi_check_long_dest(c, h, d + (h->nbytes - cl), cl);
            memcpy(d + (h->nbytes - cl), payload, cl);
        }
        if (h->long_id) {   /* the end of a Long in pieces */
            gexc_ofi_asm_piece(c, h, m.args, len);
            if (h->is_request) gexc_ofi_owe(c, src);
            return;
        }
        m.payload = d;   /* spec: the handler sees the destination in the receiver's space */
        m.nbytes = h->nbytes;
        m.dest_addr = d;
        break;
    }
    default: /* GEXC_OFI_K_LONGDATA */
        gexc_ofi_check_long_dest(c, h, (void *)(uintptr_t)h->dest_addr, v.copy_len);
        memcpy((void *)(uintptr_t)h->dest_addr, payload, v.copy_len);
        gexc_ofi_asm_piece(c, h, NULL, len);
        if (h->is_request) gexc_ofi_owe(c, src);
        return;
    }
    c->host.deliver_am(c->host.core_ctx, &m, gexc_ofi_reply_ctx(src));
    if (h->is_request) gexc_ofi_owe(c, src);
}

/* A Medium payload must reach the handler 8-aligned; messages a provider
 * packs into a multi-receive buffer normally are (lengths are multiples of
 * 8), otherwise the message is copied once. */
static inline void gexc_ofi_handle_at(struct gex_conduit *c, unsigned char *p, size_t len)
{
    if (GEXC_OFI_LIKELY(((uintptr_t)p & 7) == 0)) {
        gexc_ofi_handle(c, p, len);
        return;
    }
    if (len > c->msg_max) gexc_ofi_corrupt(c, len, "longer than any message");
    memcpy(c->scratch, p, len);
    gexc_ofi_handle(c, c->scratch, len);
}

static void gexc_ofi_rx_error(struct gex_conduit *c)
{
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof err);
    if (fi_cq_readerr(c->rxcq, &err, 0) != 1) return;
    if (err.err == FI_ECANCELED) return;   /* teardown */
    if (err.err == FI_ETRUNC)
        c->host.fatal("ofi conduit: rank %u: a message did not fit a receive buffer (%zu bytes "
                      "lost): ranks must use the same GEX_OFI_MAX_MEDIUM", (unsigned)c->me,
                      (size_t)err.olen);
    c->host.log(1, "ofi conduit: rank %u: a receive failed: %s (provider: %s)", (unsigned)c->me,
                fi_strerror(err.err),
                fi_cq_strerror(c->rxcq, err.prov_errno, err.err_data, NULL, 0));
    /* A buffer the provider gave back must be posted again. */
    if (err.op_context && (!c->multi_recv || (err.flags & FI_MULTI_RECV))) {
        struct gexc_ofi_rxbuf *rb = err.op_context;
        if (rb >= c->rx && rb < c->rx + c->nrx) gexc_ofi_post_rx(c, (unsigned)(rb - c->rx));
    }
}

/* An idle poll (GEX_OFI_IDLE_WAIT, ofi_conduit.c): sleep on the queues'
 * fds until something arrives, at most GEXC_OFI_IDLE_MS; fi_trywait says
 * whether sleeping is safe (nothing pending, provider progress done).
 * Returns 0 when it slept the whole timeout.
 * Called under rx_busy; the completions of this rank's one-sided operations
 * (send queue) wake it as well as messages do. */
static int gexc_ofi_idle_wait(struct gex_conduit *c)
{
    struct fid *fids[2] = { &c->rxcq->fid, &c->txcq->fid };
    if (fi_trywait(c->fabric, fids, 2) != FI_SUCCESS) return 1;   /* something is there */
    struct pollfd pfd[2] = { { .fd = c->rxfd, .events = POLLIN },
                             { .fd = c->txfd, .events = POLLIN } };
    return poll(pfd, 2, GEXC_OFI_IDLE_MS) != 0;   /* 0: timed out */
}

/* Handles up to poll_budget messages; replies and requests alike arrive in
 * order of arrival (a reply handler never waits, so nothing starves).
 * Returns the handlers run plus the one-sided operations completed: the
 * core's waits restart their backoff when a poll returns > 0, and a wait
 * for a flood of RMA (no handler anywhere) is as busy as one for AMs. */
int gexc_ofi_poll(struct gex_conduit *c)
{
    int ran = 0;
    unsigned budget = c->poll_budget;
    if (atomic_load_explicit(&c->rx_busy, memory_order_relaxed) ||
        atomic_exchange_explicit(&c->rx_busy, 1, memory_order_acquire))
        return gexc_ofi_reap_tx(c);
    while (budget) {
        struct fi_cq_data_entry ent[16];
        ssize_t n = fi_cq_read(c->rxcq, ent, budget < 16 ? budget : 16);
        if (n == -FI_EAGAIN) break;
        if (n == -FI_EAVAIL) {
            gexc_ofi_rx_error(c);
            continue;
        }
        if (n < 0) {
            atomic_store_explicit(&c->rx_busy, 0, memory_order_release);
            c->host.fatal("ofi conduit: reading the receive completion queue: %s",
                          gexc_ofi_strerror((int)n));
        }
        for (ssize_t i = 0; i < n; i++) {
            struct gexc_ofi_rxbuf *rb = ent[i].op_context;
            if (ent[i].len) {
                unsigned char *p = c->multi_recv ? ent[i].buf : rb->data;
                gexc_ofi_handle_at(c, p, ent[i].len);
                ran++;
            }
            if (!c->multi_recv || (ent[i].flags & FI_MULTI_RECV)) {
                if (gexc_ofi_post_rx(c, (unsigned)(rb - c->rx)) != GEX_CONDUIT_OK)
                    c->host.fatal("ofi conduit: rank %u cannot post a receive buffer again",
                                  (unsigned)c->me);
            }
        }
        budget = (unsigned)n < budget ? budget - (unsigned)n : 0;
    }
    if (GEXC_OFI_UNLIKELY(c->idle_wait)) {
        if (ran || budget < c->poll_budget) {
            c->idle = 0;
        } else if (++c->idle >= c->idle_need) {
            /* a wait that times out means polls for something that is not
             * a message (a client's gasnet_AMPoll loop on a local condition,
             * a timing loop): each doubles the empty polls needed before the
             * next, so such loops soon spin as before; a wake-up resets it */
            c->idle = 0;
            const int woke = gexc_ofi_idle_wait(c);
            if (woke) c->idle_need = GEXC_OFI_IDLE_POLLS;
            else if (c->idle_need < GEXC_OFI_IDLE_POLLS_MAX) c->idle_need *= 2;
        }
    }
    atomic_store_explicit(&c->rx_busy, 0, memory_order_release);
    /* Reading the receive queue drove rxm's whole endpoint; the send queue
     * then has news only for one-sided ops (every message's sender reaps its
     * own completion), and an idle target's poll makes one provider call. */
    if (c->progress_rx || atomic_load_explicit(&c->ops_out, memory_order_relaxed))
        ran += gexc_ofi_reap_tx(c);
    if (atomic_load_explicit(&c->credit_qlen, memory_order_relaxed)) gexc_ofi_flush_credits(c);
    return ran;
}

/* ---- Connection set-up ---- */

int gexc_ofi_connect_all(struct gex_conduit *c)
{
    for (gex_Rank_t i = 0; i < c->n; i++) {
        const gex_Rank_t dst = (c->me + i) % c->n;
        _Alignas(8) unsigned char buf[sizeof(struct gexc_ofi_hdr)];
        struct gexc_ofi_out o = { .kind = GEXC_OFI_K_HELLO };
        gexc_ofi_build(c, buf, &o);
        gexc_ofi_transmit(c, dst, buf, gexc_ofi_out_len(&o), 0, 0);
        gexc_ofi_poll(c);
    }
    unsigned spins = 0;
    while (c->hellos < c->n) {
        gexc_ofi_poll(c);
        c->host.backoff(&spins);
    }
    return GEX_CONDUIT_OK;
}
