/*
 * ucx_internal.h: the ucx conduit's private interface (docs/ucx.md).
 *
 * The conduit offers conduit ABI 1.0 (Active Messages over UCP's
 * active-message API, ucp_am_send_nbx, and poll) and native RMA from ABI
 * 1.2 (ucx_rma.c: ucp_put_nbx / ucp_get_nbx).  Every other layer runs its
 * reference implementation over those (atomics, VIS and negotiated-payload
 * AMs by AMs; ranks of one nbrhd still reach each other's segments through
 * libgex-shm), which is what the conduit ABI promises a new conduit:
 * everything works from AM send and poll alone (GEX_UCX_RMA=no shows it).
 *
 * Delivery.  UCX calls the receive callback from inside ucp_worker_progress,
 * which the conduit also runs while it waits for a send to complete, and a
 * Reply sent from a handler waits like any send.  Handlers must not run
 * there (a handler inside a handler), so the callback only copies the
 * message into a queue (a Long's payload straight to its destination) and
 * poll() runs the queued handlers, outside the conduit's lock.
 *
 * Flow control: a rank may have GEX_UCX_CREDITS credits' worth of Requests
 * to one peer that the peer has not yet delivered; the peer returns credits
 * in the header of any message it sends back, or in a credit-only message
 * once it owes half of them.  A Request takes one credit, a Medium Request
 * one per started GEXC_UCX_CREDIT_BYTES (16 KiB) of payload, at most half
 * the window (gexc_ucx_cost; the header carries what it took, so sender
 * and receiver never have to agree on the window).  So a peer that does not
 * poll holds at most that many Requests of each sender in its queue, and at
 * most credits x 16 KiB of their Medium payload (1 MiB by default, as when
 * MaxMedium was 16 KiB and every Request took one credit), a sender without
 * enough credits waits (polling) or, with GEX_FLAG_IMMEDIATE, is refused,
 * and Replies, which take no credit, always go (each answers a credited
 * Request, which bounds them too).  A sender that lacks the credits of a
 * Request has more than half the window outstanding, so once the peer
 * delivers, it owes at least half and returns them: no wait is forever.
 *
 * Sends are eager (UCP_AM_SEND_FLAG_EAGER; the receiver never has to fetch
 * a rendezvous payload) and complete before am_request/am_reply return, so
 * the header on the caller's stack and the client's payload are free again
 * at return, as the ABI requires.  Waiting for completion progresses the
 * worker, which drains incoming messages into the queue: two ranks sending
 * to each other never wait on each other's handlers.
 */
#ifndef GEXC_UCX_INTERNAL_H
#define GEXC_UCX_INTERNAL_H

#include <gex/conduit.h>
#include "ucx_wire.h"   /* the message header; GEXC_UCX_MAX_ARGS */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <ucp/api/ucp.h>

#define GEXC_UCX_AM_ID 0                 /* the one UCP AM id the conduit uses */
#define GEXC_UCX_MAX_MEDIUM 65536        /* default; GEX_UCX_MAX_MEDIUM (GASNet-EX: 65,512) */
#define GEXC_UCX_MAX_LONG (4u << 20)     /* default; GEX_UCX_MAX_LONG */
#define GEXC_UCX_POLL_MAX 1024           /* handlers one poll runs at most */
#define GEXC_UCX_IDLE_POLLS 16          /* empty polls in a row before an idle wait */
#define GEXC_UCX_IDLE_POLLS_MAX (1u << 20) /* ... at most, after idle waits that timed out */        /* empty polls in a row before an idle wait */
#define GEXC_UCX_IDLE_MS 1               /* longest idle wait on the worker's fd */
#define GEXC_UCX_CREDITS 64              /* default; GEX_UCX_CREDITS */
#define GEXC_UCX_CREDIT_BYTES 16384      /* Medium payload one Request credit stands for */
#define GEXC_UCX_TCP_SEG "256k"          /* UCX_TCP_{TX,RX}_SEG_SIZE unless the user sets one */

#if defined(__GNUC__)
#define GEXC_UCX_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define GEXC_UCX_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define GEXC_UCX_UNLIKELY(x) (x)
#define GEXC_UCX_LIKELY(x) (x)
#endif

/* The UCP AM header: ucx_wire.h (included above). */

/* One received message waiting for poll(): the header (args included) and,
 * for a Medium, its payload (8-aligned, as handlers may expect). */
struct gexc_ucx_msg {
    struct gexc_ucx_msg *next;
    size_t nbytes;
    void *payload;           /* Medium: .data; Long: the destination */
    struct gexc_ucx_hdr hdr;
    _Alignas(8) unsigned char data[];
};

/* ucx_rma.c: a segment registered here, a peer's packed key, a peer's
 * published segment. */
struct gexc_ucx_reg {
    struct gexc_ucx_reg *next;
    uint64_t id;                     /* the ABI key: a number, sent with the packed key */
    ucp_mem_h memh;
    void *packed;
    size_t packed_len;
};
struct gexc_ucx_rkey {
    struct gexc_ucx_rkey *next;
    uint64_t id;
    ucp_rkey_h rkey;                 /* unpacked at first use */
    size_t len;
    _Alignas(8) unsigned char packed[];
};
struct gexc_ucx_seg {
    struct gexc_ucx_seg *next;
    gex_EP_Index_t ep;
    uintptr_t base;                  /* in the owner's address space */
    size_t size;
    uint64_t id;
    ucp_rkey_h key;                  /* cached from the rkey list */
};

struct gex_conduit {
    struct gex_host_services host;
    gex_Rank_t me, n;
    int thread_safe;                 /* lock around UCP calls and the queue */
    pthread_mutex_t lock;
    pthread_mutex_t deliver_lock;    /* one thread runs queued handlers at a time */
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_ep_h *eps;                   /* per peer, created at the first send */
    unsigned char *addrs;            /* every rank's worker address, addr_len apart */
    size_t addr_len;
    size_t max_medium, max_long;
    size_t *imm_ok;                  /* per peer: longest message that left at once (ucx_am.c) */
    /* Flow control (ucx_am.c): Requests to a peer take one of its credits;
     * the peer gives them back once their handlers ran. */
    uint32_t credits;                /* per peer, GEX_UCX_CREDITS */
    uint32_t cost_max;               /* most credits one Request takes: max(1, credits / 2) */
    uint32_t *cred;                  /* per peer: Requests we may still send it */
    uint32_t *owed;                  /* per peer: its Requests delivered, credits not yet returned */
    size_t max_header;               /* UCP's limit on the AM header */
    struct gexc_ucx_msg *q_head, *q_tail;   /* received, not yet delivered */
    int closing;                     /* fini has begun: a peer's disconnect is expected */
    int idle_wait;                   /* GEX_UCX_IDLE_WAIT: block on efd when idle (ucx_am.c) */
    int efd;                         /* the worker's event fd (idle waits), or -1 */
    unsigned idle;                   /* polls in a row that found nothing */
    unsigned idle_need;              /* ... before the next idle wait (doubles after timeouts) */
    int has_rma;                     /* UCP_FEATURE_RMA: native put/get (ucx_rma.c) */
    int has_amo;                     /* UCP_FEATURE_AMO32/64: network atomics (ucx_amo.c) */
    struct gexc_ucx_reg *regs;
    uint64_t next_reg_id;
    struct gexc_ucx_rkey **rkeys;    /* per peer: packed keys received */
    struct gexc_ucx_seg **segs;      /* per peer: published segments */
    /* Puts whose remote completion is asked for wait here for one shared
     * flush (ucx_rma.c, "Completion"): their counters, issued by poll. */
    struct gexc_ucx_flush_wait { ucp_ep_h ep; GEX_CONDUIT_ATOMIC_U32 *rc; } *flush_wait;
    size_t flush_n, flush_cap;
    unsigned rma_tick;               /* puts and gets issued (every 32nd progresses, ucx_rma.c) */
    int flush_each;                  /* GEX_UCX_FLUSH_EACH=1: a flush per put (the old way) */
};

/* ucx_rma.c: issues one flush per endpoint for the puts waiting for remote
 * completion (called with the lock held, by poll and when they pile up). */
void gexc_ucx_flush_pending(struct gex_conduit *c);

static inline void gexc_ucx_lock(struct gex_conduit *c)
{
    if (c->thread_safe) pthread_mutex_lock(&c->lock);
}
static inline void gexc_ucx_unlock(struct gex_conduit *c)
{
    if (c->thread_safe) pthread_mutex_unlock(&c->lock);
}

/* reply_ctx handed to deliver_am: the requester's jobrank + 1 (never NULL). */
static inline void *gexc_ucx_reply_ctx(gex_Rank_t src) { return (void *)((uintptr_t)src + 1); }

/* ---- ucx_am.c ---- */
/* A communication with a peer failed for good (lock held).  The usual cause
 * is a peer that left because the job is ending (gasnet_exit elsewhere):
 * the host's backoff, which ends this process quietly with the job's code,
 * gets a bounded moment to notice; only then is it a fatal error. */
void gexc_ucx_comm_failed(struct gex_conduit *c, const char *fmt, ...)
    __attribute__((noreturn, cold, format(printf, 2, 3)));
ucp_ep_h gexc_ucx_ep(struct gex_conduit *c, gex_Rank_t to);   /* lock held */
/* A packed key to `to`, credit-free (lock held). */
void gexc_ucx_send_rkey(struct gex_conduit *c, gex_Rank_t to, uint64_t id, const void *packed,
                        size_t len);
int gexc_ucx_am_setup(struct gex_conduit *c);   /* registers the receive callback */
int gexc_ucx_am_request(struct gex_conduit *c, gex_Rank_t dst, const struct gex_conduit_am *m,
                        gex_Flags_t flags);
int gexc_ucx_am_reply(struct gex_conduit *c, void *reply_ctx, const struct gex_conduit_am *m,
                      gex_Flags_t flags);
int gexc_ucx_poll(struct gex_conduit *c);
void gexc_ucx_drop_queue(struct gex_conduit *c);
/* Waits, progressing the worker (lock held), until request r completes;
 * returns its status. */
ucs_status_t gexc_ucx_wait(struct gex_conduit *c, void *r);

/* ---- ucx_rma.c ---- */
void gexc_ucx_rma_setup(struct gex_conduit *c);
void gexc_ucx_rma_free(struct gex_conduit *c);
void gexc_ucx_file_rkey(struct gex_conduit *c, gex_Rank_t owner, uint64_t id, const void *packed,
                        size_t len);
int gexc_ucx_mem_register(struct gex_conduit *c, void *addr, size_t len, uint64_t *key_p);
int gexc_ucx_mem_deregister(struct gex_conduit *c, uint64_t key);
int gexc_ucx_seg_publish(struct gex_conduit *c, gex_Rank_t jobrank, gex_EP_Index_t ep,
                         void *owneraddr, size_t size, uint64_t rkey);
int gexc_ucx_rma_put(struct gex_conduit *c, gex_EP_Index_t local_ep, gex_Rank_t dst_jobrank,
                     gex_EP_Index_t dst_ep, void *dest, const void *src, size_t nbytes,
                     const struct gex_conduit_cpl *cpl, gex_Flags_t flags);
int gexc_ucx_rma_get(struct gex_conduit *c, gex_EP_Index_t local_ep, void *dest,
                     gex_Rank_t src_jobrank, gex_EP_Index_t src_ep, void *srcaddr, size_t nbytes,
                     const struct gex_conduit_cpl *cpl, gex_Flags_t flags);

ucp_rkey_h gexc_ucx_rkey_lookup(struct gex_conduit *c, gex_Rank_t jobrank, gex_EP_Index_t ep,
                                uintptr_t addr, size_t n, int immediate, int *rc_p);

/* ---- ucx_amo.c ---- */
void gexc_ucx_amo_setup(struct gex_conduit *c);
int gexc_ucx_amo_query(struct gex_conduit *c, uint32_t dt, uint32_t op);
int gexc_ucx_amo(struct gex_conduit *c, gex_EP_Index_t local_ep, gex_Rank_t tgt,
                 gex_EP_Index_t tgt_ep, void *tgt_addr, uint32_t dt, uint32_t op,
                 const void *operand1, const void *operand2, void *result,
                 const struct gex_conduit_cpl *cpl, gex_Flags_t flags);

#endif /* GEXC_UCX_INTERNAL_H */
