/*
 * ucx_am.c: Active Messages over UCP's AM API (ucx_internal.h explains the
 * queue between the receive callback and poll, the credits, and why sends
 * complete before they return).
 */
#include "ucx_internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>

/* ---- receiving ---- */

__attribute__((cold, noinline, noreturn))
static void gexc_ucx_corrupt(struct gex_conduit *c, const char *why, size_t hlen, size_t len)
{
    c->host.fatal("ucx conduit: rank %u received a malformed message (%s; header %zu bytes, "
                  "payload %zu bytes)", (unsigned)c->me, why, hlen, len);
    abort(); /* fatal() does not return; make sure of it (nothing of h is used after) */
}

/* Called by UCX inside ucp_worker_progress, with the conduit's lock held:
 * take the credits, queue the message for poll(); nothing here may send or
 * run a handler. */
static ucs_status_t gexc_ucx_recv(void *arg, const void *header, size_t header_length,
                                  void *data, size_t length, const ucp_am_recv_param_t *param)
{
    struct gex_conduit *c = arg;
    struct gexc_ucx_hdr h;
    const char *bad = gexc_ucx_check_msg(header, header_length, length, c->n, c->max_medium,
                                         c->max_long, &h);
    if (GEXC_UCX_UNLIKELY(bad)) gexc_ucx_corrupt(c, bad, header_length, length);
    if (GEXC_UCX_UNLIKELY(h.credits > c->credits - c->cred[h.src_rank]))
        gexc_ucx_corrupt(c, "header fields", header_length, length);
    if (GEXC_UCX_UNLIKELY(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
        c->host.fatal("ucx conduit: rank %u received a rendezvous message from rank %u; the "
                      "conduit sends eagerly only (is UCX_RNDV_THRESH forced?)",
                      (unsigned)c->me, (unsigned)h.src_rank);
    c->cred[h.src_rank] += h.credits;
    if (h.category == GEXC_UCX_CREDIT) return UCS_OK;
    if (h.category == GEXC_UCX_RKEY) {
        if (!c->has_rma) return UCS_OK;   /* GEX_UCX_RMA=no here: nothing will use it */
        gexc_ucx_file_rkey(c, h.src_rank, (uint64_t)(uint32_t)h.args[0] |
                                              (uint64_t)(uint32_t)h.args[1] << 32, data, length);
        return UCS_OK;
    }
    const size_t keep = h.category == GEX_CONDUIT_AM_MEDIUM ? length : 0;
    struct gexc_ucx_msg *msg = malloc(sizeof *msg + keep);
    if (!msg)
        c->host.fatal("ucx conduit: out of memory queueing a %zu-byte message", length);
    msg->next = NULL;
    msg->hdr = h;
    msg->nbytes = length;
    if (h.category == GEX_CONDUIT_AM_LONG) {
        /* the payload lands now; the handler, which may only look at it,
         * runs at the next poll */
        msg->payload = (void *)(uintptr_t)h.dest_addr;
        if (length) {
            /* a client's Long must land in the bound segment (conduit.h) */
            gex_conduit_check_long_dest(&c->host, c->me, h.src_rank, h.dst_ep, h.handler,
                                        h.is_request, msg->payload, length);
            memcpy(msg->payload, data, length);
        }
    } else {
        msg->payload = keep ? msg->data : NULL;
        if (keep) memcpy(msg->data, data, keep);
    }
    if (c->q_tail) c->q_tail->next = msg;
    else c->q_head = msg;
    c->q_tail = msg;
    return UCS_OK;   /* the data was copied: UCX may reuse it */
}

int gexc_ucx_am_setup(struct gex_conduit *c)
{
    ucp_am_handler_param_t hp;
    memset(&hp, 0, sizeof hp);
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                    UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = GEXC_UCX_AM_ID;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;   /* one callback per message, however long */
    hp.cb = gexc_ucx_recv;
    hp.arg = c;
    ucs_status_t st = ucp_worker_set_am_recv_handler(c->worker, &hp);
    if (st != UCS_OK) {
        c->host.log(0, "ucx conduit: ucp_worker_set_am_recv_handler: %s", ucs_status_string(st));
        return GEX_CONDUIT_EIO;
    }
    return GEX_CONDUIT_OK;
}

void gexc_ucx_drop_queue(struct gex_conduit *c)
{
    while (c->q_head) {
        struct gexc_ucx_msg *next = c->q_head->next;
        free(c->q_head);
        c->q_head = next;
    }
    c->q_tail = NULL;
}

/* ---- sending ---- */

void gexc_ucx_comm_failed(struct gex_conduit *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* The exit protocol of a PMIx job sends from inside the backoff, which
     * takes this lock: release it (the process ends either way). */
    gexc_ucx_unlock(c);
    c->host.log(3, "ucx conduit: %s; is the job ending?", msg);
    gex_conduit_await_job_end(&c->host);
    c->host.fatal("ucx conduit: %s", msg);
    abort();
}

ucs_status_t gexc_ucx_wait(struct gex_conduit *c, void *r)
{
    unsigned spins = 0, busy = 0;
    ucs_status_t st;
    while ((st = ucp_request_check_status(r)) == UCS_INPROGRESS) {
        if (!ucp_worker_progress(c->worker)) {
            c->host.backoff(&spins);   /* yields when overcommitted; ends an aborting job */
        } else if (!(++busy & 255)) {
            /* progress that never completes the send (a connection being
             * retried to a peer that left) must not keep the backoff from
             * looking at the job's state */
            unsigned look = 255;
            c->host.backoff(&look);
            spins = 0;
        } else {
            spins = 0;
        }
    }
    ucp_request_free(r);
    return st;
}

/* The endpoint to peer `to`, created at the first message (lock held). */
ucp_ep_h gexc_ucx_ep(struct gex_conduit *c, gex_Rank_t to)
{
    if (GEXC_UCX_UNLIKELY(!c->eps[to])) {
        ucp_ep_params_t ep;
        memset(&ep, 0, sizeof ep);
        ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        ep.address = (const ucp_address_t *)(c->addrs + (size_t)to * c->addr_len);
        ucs_status_t st = ucp_ep_create(c->worker, &ep, &c->eps[to]);
        if (st != UCS_OK) {
            c->eps[to] = NULL;
            gexc_ucx_comm_failed(c, "rank %u cannot reach rank %u: ucp_ep_create: %s",
                                 (unsigned)c->me, (unsigned)to, ucs_status_string(st));
        }
    }
    return c->eps[to];
}

/* Sends header h (its credits field is filled here) and payload to `to`,
 * lock held.  GEX_FLAG_IMMEDIATE: the send is tried with
 * UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL, which UCP refuses with
 * UCS_ERR_NO_RESOURCE, having sent nothing, when the message cannot leave at
 * once.  That happens for two reasons: the peer's FIFO or socket is full (a
 * resource: refuse, as the spec asks), or the message is too long for UCP's
 * one-piece "short" protocol on that peer's transport, and then it never
 * leaves at once.  UCP does not say which, so the conduit learns per peer
 * the longest message that did leave at once (imm_ok): a refusal up to that
 * length is returned to the client; a longer message is sent the normal
 * way, ignoring IMMEDIATE (the credits still refuse it when the peer does
 * not poll). */
static int gexc_ucx_put_msg(struct gex_conduit *c, gex_Rank_t to, struct gexc_ucx_hdr *h,
                            const void *payload, size_t nbytes, gex_Flags_t flags)
{
    const size_t hlen = gexc_ucx_hdr_len(h->nargs), total = hlen + nbytes;
    const void *data = nbytes ? payload : NULL;
    ucp_ep_h ep = gexc_ucx_ep(c, to);
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    h->credits = c->owed[to];   /* returned with this message, unless it is refused */
    ucs_status_ptr_t r;
    if (flags & GEX_FLAG_IMMEDIATE) {
        p.op_attr_mask |= UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
        r = ucp_am_send_nbx(ep, GEXC_UCX_AM_ID, h, hlen, data, nbytes, &p);
        p.op_attr_mask &= ~(uint32_t)UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
        if (!UCS_PTR_IS_ERR(r) && !r) {   /* left at once */
            if (total > c->imm_ok[to]) c->imm_ok[to] = total;
            c->owed[to] -= h->credits;
            return GEX_CONDUIT_OK;
        }
        if (UCS_PTR_IS_ERR(r) && UCS_PTR_STATUS(r) == UCS_ERR_NO_RESOURCE &&
            total <= c->imm_ok[to]) {
            ucp_worker_progress(c->worker);   /* moves what it can; runs no handler */
            return GEX_CONDUIT_EAGAIN;
        }
        if (!UCS_PTR_IS_ERR(r) || UCS_PTR_STATUS(r) == UCS_ERR_NO_RESOURCE)
            r = ucp_am_send_nbx(ep, GEXC_UCX_AM_ID, h, hlen, data, nbytes, &p);
    } else {
        r = ucp_am_send_nbx(ep, GEXC_UCX_AM_ID, h, hlen, data, nbytes, &p);
    }
    ucs_status_t st = UCS_OK;
    if (UCS_PTR_IS_ERR(r)) st = UCS_PTR_STATUS(r);
    else if (r) st = gexc_ucx_wait(c, r);   /* the header and payload are ours until then */
    if (GEXC_UCX_UNLIKELY(st != UCS_OK))
        gexc_ucx_comm_failed(c, "rank %u: sending an AM to rank %u failed: %s",
                             (unsigned)c->me, (unsigned)to, ucs_status_string(st));
    c->owed[to] -= h->credits;
    return GEX_CONDUIT_OK;
}

void gexc_ucx_send_rkey(struct gex_conduit *c, gex_Rank_t to, uint64_t id, const void *packed,
                        size_t len)
{
    struct gexc_ucx_hdr h;
    memset(&h, 0, sizeof h);
    h.category = GEXC_UCX_RKEY;
    h.nargs = 2;
    h.src_rank = c->me;
    h.args[0] = (int32_t)(uint32_t)id;
    h.args[1] = (int32_t)(uint32_t)(id >> 32);
    gexc_ucx_put_msg(c, to, &h, packed, len, 0);
}

/* Returns the credits owed to `from` in a message of their own once they
 * are half of its window (lock held). */
static void gexc_ucx_return_credits(struct gex_conduit *c, gex_Rank_t from)
{
    if (c->owed[from] < c->credits / 2) return;
    struct gexc_ucx_hdr h;
    memset(&h, 0, offsetof(struct gexc_ucx_hdr, args));
    h.category = GEXC_UCX_CREDIT;
    h.src_rank = c->me;
    gexc_ucx_put_msg(c, from, &h, NULL, 0, 0);
}

/* Runs one queued message's handler (no lock held: handlers reply, which
 * takes the conduit's lock), then counts the credit a Request took. */
static void gexc_ucx_deliver(struct gex_conduit *c, struct gexc_ucx_msg *msg)
{
    struct gex_conduit_am m;
    m.category = msg->hdr.category;
    m.is_request = msg->hdr.is_request;
    m.handler = msg->hdr.handler;
    m.nargs = msg->hdr.nargs;
    m.src_ep = msg->hdr.src_ep;
    m.dst_ep = msg->hdr.dst_ep;
    m.src_jobrank = msg->hdr.src_rank;
    m.args = msg->hdr.args;
    m.payload = msg->payload;
    m.nbytes = msg->nbytes;
    m.dest_addr = m.category == GEX_CONDUIT_AM_LONG ? msg->payload : NULL;
    const gex_Rank_t src = msg->hdr.src_rank;
    const uint32_t cost = msg->hdr.cost;   /* 0 unless a Request (gexc_ucx_check_msg) */
    c->host.deliver_am(c->host.core_ctx, &m, gexc_ucx_reply_ctx(src));
    free(msg);
    if (cost) {
        gexc_ucx_lock(c);
        c->owed[src] += cost;
        gexc_ucx_return_credits(c, src);
        gexc_ucx_unlock(c);
    }
}

/* Progresses the worker (which queues what arrived), then runs queued
 * handlers, oldest first, in one thread at a time: messages from one
 * sender run in the order they were sent, as on the other conduits, even
 * when several threads poll (a thread that finds another delivering only
 * progresses).  Returns how many handlers ran. */
int gexc_ucx_poll(struct gex_conduit *c)
{
    gexc_ucx_lock(c);
    gexc_ucx_flush_pending(c);   /* puts waiting for remote completion (ucx_rma.c) */
    /* a bounded number of rounds: a peer that floods us cannot keep this
     * call from returning */
    int i = 0;
    while (i < 64 && ucp_worker_progress(c->worker)) i++;
    if (i || c->q_head) {
        c->idle = 0;
    } else if (++c->idle >= c->idle_need && c->efd >= 0) {
        /* Idle wait (ucx_conduit.c, gexc_ucx_choose_idle_wait).  A wait
         * that times out means this rank polls for something that is not a
         * message (a client's gasnet_AMPoll loop on a local condition, a
         * timing loop): each one doubles the empty polls needed before the
         * next, so such loops soon spin as before; a message resets it. */
        c->idle = 0;
        if (ucp_worker_arm(c->worker) == UCS_OK) {
            struct pollfd pfd = { .fd = c->efd, .events = POLLIN };
            gexc_ucx_unlock(c);
            const int woke = poll(&pfd, 1, GEXC_UCX_IDLE_MS) > 0;
            gexc_ucx_lock(c);
            if (woke) c->idle_need = GEXC_UCX_IDLE_POLLS;
            else if (c->idle_need < GEXC_UCX_IDLE_POLLS_MAX) c->idle_need *= 2;
        }
        while (i < 64 && ucp_worker_progress(c->worker)) i++;
    }
    const int pending = c->q_head != NULL;
    gexc_ucx_unlock(c);
    if (!pending) return 0;
    if (c->thread_safe && pthread_mutex_trylock(&c->deliver_lock) != 0) return 0;
    int ran = 0;
    for (; ran < GEXC_UCX_POLL_MAX; ran++) {
        gexc_ucx_lock(c);
        struct gexc_ucx_msg *msg = c->q_head;
        if (msg && !(c->q_head = msg->next)) c->q_tail = NULL;
        gexc_ucx_unlock(c);
        if (!msg) break;
        gexc_ucx_deliver(c, msg);
    }
    if (c->thread_safe) pthread_mutex_unlock(&c->deliver_lock);
    return ran;
}

static void gexc_ucx_fill(struct gex_conduit *c, struct gexc_ucx_hdr *h,
                          const struct gex_conduit_am *m)
{
    h->category = m->category;
    h->is_request = m->is_request;
    h->handler = m->handler;
    h->nargs = m->nargs;
    h->src_rank = c->me;
    h->src_ep = m->src_ep;
    h->dst_ep = m->dst_ep;
    h->cost = 0;
    h->dest_addr = (uint64_t)(uintptr_t)m->dest_addr;
    if (m->nargs) memcpy(h->args, m->args, m->nargs * sizeof(int32_t));
}

static int gexc_ucx_check(const struct gex_conduit *c, gex_Rank_t to,
                          const struct gex_conduit_am *m, size_t *nbytes_p)
{
    if (GEXC_UCX_UNLIKELY(to >= c->n || m->nargs > GEXC_UCX_MAX_ARGS ||
                          m->category > GEX_CONDUIT_AM_LONG))
        return GEX_CONDUIT_EINVAL;
    const size_t nbytes = m->category == GEX_CONDUIT_AM_SHORT ? 0 : m->nbytes;
    if (GEXC_UCX_UNLIKELY(nbytes > (m->category == GEX_CONDUIT_AM_LONG ? c->max_long
                                                                       : c->max_medium)))
        return GEX_CONDUIT_EINVAL;
    *nbytes_p = nbytes;
    return GEX_CONDUIT_OK;
}

/* Credits a Request of nbytes takes (ucx_internal.h, "Flow control"): one,
 * or for a Medium one per started GEXC_UCX_CREDIT_BYTES, at most cost_max,
 * so that the queue of a peer that does not poll holds at most credits x
 * 16 KiB of Medium payload from each sender. */
static inline uint32_t gexc_ucx_cost(const struct gex_conduit *c, const struct gex_conduit_am *m,
                                     size_t nbytes)
{
    if (GEXC_UCX_LIKELY(m->category != GEX_CONDUIT_AM_MEDIUM || nbytes <= GEXC_UCX_CREDIT_BYTES))
        return 1;
    const size_t k = (nbytes + GEXC_UCX_CREDIT_BYTES - 1) / GEXC_UCX_CREDIT_BYTES;
    return k < c->cost_max ? (uint32_t)k : c->cost_max;
}

int gexc_ucx_am_request(struct gex_conduit *c, gex_Rank_t dst, const struct gex_conduit_am *m,
                        gex_Flags_t flags)
{
    size_t nbytes;
    if (gexc_ucx_check(c, dst, m, &nbytes)) return GEX_CONDUIT_EINVAL;
    struct gexc_ucx_hdr h;
    gexc_ucx_fill(c, &h, m);
    const uint32_t cost = gexc_ucx_cost(c, m, nbytes);
    h.is_request = 1;   /* the receiver returns the credits of Requests only */
    h.cost = cost;
    unsigned spins = 0;
    gexc_ucx_lock(c);
    while (GEXC_UCX_UNLIKELY(c->cred[dst] < cost)) {
        if (flags & GEX_FLAG_IMMEDIATE) {
            ucp_worker_progress(c->worker);   /* a credit may be on its way */
            const int none = c->cred[dst] < cost;
            gexc_ucx_unlock(c);
            if (none) return GEX_CONDUIT_EAGAIN;
            gexc_ucx_lock(c);
            continue;
        }
        /* wait for the peer to deliver, running our own handlers meanwhile
         * (two ranks out of credits for each other free each other) */
        gexc_ucx_unlock(c);
        if (gexc_ucx_poll(c)) spins = 0;
        else c->host.backoff(&spins);
        gexc_ucx_lock(c);
    }
    c->cred[dst] -= cost;
    const int rc = gexc_ucx_put_msg(c, dst, &h, m->payload, nbytes, flags);
    if (rc != GEX_CONDUIT_OK) c->cred[dst] += cost;   /* refused: nothing was sent */
    gexc_ucx_unlock(c);
    return rc;
}

/* Replies take no credit (each answers a credited Request) and never wait
 * for the peer's handlers. */
int gexc_ucx_am_reply(struct gex_conduit *c, void *reply_ctx, const struct gex_conduit_am *m,
                      gex_Flags_t flags)
{
    const uintptr_t v = (uintptr_t)reply_ctx - 1;   /* gexc_ucx_reply_ctx; NULL wraps high */
    if (GEXC_UCX_UNLIKELY(v >= c->n)) {
        c->host.log(0, "ucx conduit: am_reply: reply_ctx %p was not handed out by this conduit",
                    reply_ctx);
        return GEX_CONDUIT_EINVAL;
    }
    size_t nbytes;
    if (gexc_ucx_check(c, (gex_Rank_t)v, m, &nbytes)) return GEX_CONDUIT_EINVAL;
    struct gexc_ucx_hdr h;
    gexc_ucx_fill(c, &h, m);
    h.is_request = 0;   /* takes no credit (cost 0) */
    gexc_ucx_lock(c);
    const int rc = gexc_ucx_put_msg(c, (gex_Rank_t)v, &h, m->payload, nbytes, flags);
    gexc_ucx_unlock(c);
    return rc;
}
