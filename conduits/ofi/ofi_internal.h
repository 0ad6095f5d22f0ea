/*
 * ofi_internal.h: the one internal header of the ofi conduit, GEX's network
 * conduit on libfabric.  It sits below libgex-core, behind the ABI of
 * include/gex/conduit.h, and is built as the plug-in libgex-conduit-ofi.so
 * (only when configure found libfabric).  ofi_conduit.c holds the plug-in
 * face (configuration, provider choice, endpoint set-up and address
 * exchange, memory registration, the ops table); ofi_am.c moves the Active
 * Messages (send, credits, receive buffers, poll).  See docs/ofi.md.
 *
 * Transport in one paragraph.  Every rank opens one reliable-datagram
 * endpoint (FI_EP_RDM) with two completion queues, one for sends and one for
 * receives, and inserts every rank's endpoint name (fi_getname, exchanged
 * through the bootstrap) into an address vector, so rank r is fi_addr_t r.
 * An AM is one or more plain messages (fi_send / fi_inject): a header, the
 * arguments and a payload, laid out below.  Receives land in a few large
 * multi-receive buffers (FI_MULTI_RECV) or, for providers without it, in a
 * pool of single-message buffers; a handler runs with its Medium payload
 * still in the receive buffer, which is posted again once every message in
 * it has been handled.  A Long travels as payload pieces that the receiver
 * copies to the destination address, the last piece inside the message that
 * runs the handler (the endpoint is asked for send-after-send ordering), or,
 * when the target's segment is mapped here (PSHM, same host), is copied by
 * the sender and only the header travels, or, when the destination is in a
 * segment published to us and the provider has RMA, is written with one
 * fi_write before the header (ofi_rma.c: native RMA and atomics too).
 *
 * Flow control.  A rank may have at most `credits` request messages to each
 * peer that the peer has not yet handled.  The receiver owes one credit back
 * per request message it handled and returns them in the header of any
 * message it sends to that peer, or in an explicit credit message once half
 * the window is owed.  Replies (and credit messages) take no credit: a
 * reply is only ever sent while handling a request and is always a single
 * message (MaxLongReply is one piece), so replies in flight are bounded by
 * the requests the window admitted, and the receive buffers, sized for
 * both, never run out while ranks are busy answering each other; and a reply never waits for
 * a peer to run handlers: it only waits (rarely) for a send buffer, which
 * local provider progress frees.  So a request handler that replies cannot
 * deadlock against a peer doing the same.
 *
 * Sends complete before they return.  With manual-progress providers
 * (tcp;ofi_rxm, sockets as we open it) a message handed to the provider may
 * sit in its queue until the sender calls into libfabric again, and a
 * sender that then waits somewhere GEX does not poll (a bootstrap barrier,
 * computation) would keep it there for good.  So every send waits for its
 * local completion (the bytes are in the kernel or on the wire), driving
 * only the provider's progress; and init connects every pair of ranks
 * (hello messages), so that wait never depends on a peer accepting a
 * connection.  Local completion needs no handler to run anywhere.
 */
#ifndef GEXC_OFI_INTERNAL_H
#define GEXC_OFI_INTERNAL_H

#ifndef GEXI_BUILDING_GEX
#error "ofi_internal.h is internal to GEX"
#endif

#include <gex/conduit.h>
#include "ofi_wire.h"   /* the message format; GEXC_OFI_MAX_ARGS */
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_atomic.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define GEXC_OFI_HIDDEN __attribute__((visibility("hidden")))
#define GEXC_OFI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define GEXC_OFI_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define GEXC_OFI_FI_VERSION FI_VERSION(1, 9)

/* ---- Limits and defaults (each overridable by the GEX_OFI_* variable named) ---- */
/* GEX_OFI_MAX_MEDIUM: MaxMedium, and the payload of one Long piece. */
#define GEXC_OFI_MAX_MEDIUM_DEFAULT  ((uint64_t)16 << 10)
#define GEXC_OFI_MAX_MEDIUM_MIN      ((uint64_t)512)
#define GEXC_OFI_MAX_MEDIUM_MAX      ((uint64_t)1 << 24)
/* GEX_OFI_MAX_LONG: largest Long payload, requests and replies alike. */
#define GEXC_OFI_MAX_LONG_DEFAULT    ((uint64_t)4 << 20)
#define GEXC_OFI_MAX_LONG_MAX        ((uint64_t)1 << 31)
/* GEX_OFI_CREDITS: request messages to one peer not yet handled there. */
#define GEXC_OFI_CREDITS_DEFAULT     32u
#define GEXC_OFI_CREDITS_MAX         32768u
/* GEX_OFI_TX_BUFS: send buffers for messages too big for the stack; a
 * thread holds one only until its send completes locally. */
#define GEXC_OFI_TX_BUFS_DEFAULT     16u
#define GEXC_OFI_IDLE_POLLS 16          /* empty polls in a row before an idle wait */
#define GEXC_OFI_IDLE_POLLS_MAX (1u << 20) /* ... at most, after idle waits that timed out */
#define GEXC_OFI_IDLE_MS 1               /* longest idle wait on the queues' fds */
#define GEXC_OFI_STACK_MSG           256u
/* GEX_OFI_RX_BUFS / GEX_OFI_RX_BUF_SIZE: multi-receive buffers; in pool
 * mode (GEX_OFI_MULTI_RECV=no or no provider support) the count of
 * single-message buffers is GEX_OFI_RX_POOL. */
#define GEXC_OFI_RX_BUFS_DEFAULT     8u
#define GEXC_OFI_RX_BUF_SIZE_DEFAULT ((uint64_t)1 << 20)
#define GEXC_OFI_RX_POOL_DEFAULT     128u
/* GEX_OFI_POLL_BUDGET: messages one poll handles at most. */
#define GEXC_OFI_POLL_BUDGET_DEFAULT 64u
/* Endpoint names are exchanged in fixed-size records. */
#define GEXC_OFI_NAME_MAX            120u

/* ---- Message format: ofi_wire.h (included above) ---- */

/* ---- Private state ---- */

/* One send buffer (messages too big for the sender's stack). */
struct gexc_ofi_txbuf {
    struct gexc_ofi_txbuf *next;
    unsigned char *data;
};

/* One send in flight, on the sender's stack until its completion arrives;
 * ctx must come first (FI_CONTEXT mode: the provider owns it meanwhile). */
struct gexc_ofi_txop {
    struct fi_context ctx;
    _Atomic int done;     /* 1 complete, -1 failed */
    int is_rma;           /* 1: this is the base of a struct gexc_ofi_rmaop (ofi_rma.c) */
};

/* One receive buffer (multi-receive or single message). */
struct gexc_ofi_rxbuf {
    struct fi_context ctx;
    unsigned char *data;
    size_t size;
};

struct gexc_ofi_peer {
    fi_addr_t addr;
    uint32_t credits;      /* request messages we may still send */
    uint32_t owed;         /* credits we owe this peer (its requests handled) */
    uint8_t credit_queued; /* in c->credit_q */
    uint8_t hello;         /* its hello arrived (eager connection set-up) */
};

struct gex_conduit {
    /* read on every call */
    gex_Rank_t me, n;
    int thread_safe;
    size_t max_medium, max_long, chunk;
    size_t max_long_reply;            /* one message: replies never come in pieces */
    size_t msg_max;                   /* largest message: Long header, 16 args, chunk */
    size_t stack_max;                 /* messages up to this are built on the stack */
    unsigned poll_budget;
    uint32_t credits_init;
    uint32_t credit_threshold;        /* owed credits that trigger a credit message */
    int use_shm_long;                 /* GEX_OFI_SHM_LONG: sender copies to mapped segments */
    size_t long_rma_min;              /* GEX_OFI_LONG_RMA_MIN: Long requests this big go by
                                       * fi_write + header (0: never) */
    int progress_rx;                  /* waits also read 0 entries of the receive queue */
    int idle_wait;                    /* GEX_OFI_IDLE_WAIT: polls sleep on the CQs' fds when idle */
    int rxfd, txfd;                   /* the CQs' wait fds (idle_wait), else -1 */
    unsigned idle;                    /* polls in a row that found nothing (under rx_busy) */
    unsigned idle_need;               /* ... before the next idle wait (doubles after timeouts) */
    struct fid_ep *ep;
    struct fid_cq *txcq, *rxcq;
    struct gexc_ofi_peer *peers;      /* [n] */

    /* send side: peers' credits and owed counts, send buffers, credit queue */
    pthread_mutex_t txlock;           /* used only when thread_safe */
    struct gexc_ofi_txbuf *tx_free;
    unsigned tx_nfree;
    gex_Rank_t *credit_q;             /* [n]: peers owed a credit message */
    /* written under txlock; also read without it by every poll (a hint:
     * the flush rechecks under the lock), hence atomic */
    _Atomic(gex_Rank_t) credit_qlen;

    /* receive side */
    atomic_uint rx_busy;              /* one thread drains the receive queue */
    pthread_mutex_t txcq_lock;        /* one thread reads the send queue */
    int multi_recv;
    unsigned nrx;
    struct gexc_ofi_rxbuf *rx;        /* [nrx] */
    unsigned char *scratch;           /* aligned copy of a misaligned Medium payload */
    struct gexc_ofi_asm *asm_list;    /* Longs in pieces not yet complete */
    struct gexc_ofi_asm *asm_free;
    _Atomic uint32_t next_long_id;
    gex_Rank_t hellos;                /* init: hellos received */

    /* bootstrap and teardown */
    struct gex_host_services host;    /* copy; fields the core did not provide are 0 */
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_mr *tx_mr, *rx_mr;     /* when the provider wants FI_MR_LOCAL */
    void *tx_mr_desc, *rx_mr_desc;
    unsigned ntx;
    struct gexc_ofi_txbuf *txbufs;    /* [ntx] */
    unsigned char *tx_mem, *rx_mem;
    size_t tx_mem_size, rx_mem_size;
    /* registered segments (mem_register) */
    struct gexc_ofi_mr *mrs;
    pthread_mutex_t mr_lock;
    uint64_t next_key;
    char prov_name[64];

    /* native RMA and atomics (ofi_rma.c) */
    int has_rma, has_amo;             /* provider offers FI_RMA / FI_ATOMIC */
    int mr_virt;                      /* FI_MR_VIRT_ADDR: remote addresses are virtual, else offsets */
    int mr_local;                     /* FI_MR_LOCAL: local buffers need descriptors */
    size_t rma_piece;                 /* largest single fi_write/fi_read (GEX_OFI_RMA_PIECE) */
    size_t long_rma_piece;            /* the same for AM Longs by RMA: GEX_OFI_RMA_PIECE when
                                       * set, else whole (each is one blocking write) */
    struct gexc_ofi_rseg *_Atomic *rsegs;   /* [n]: peers' published segments, newest first */
    pthread_mutex_t op_lock;          /* guards op_free and the RMA queues (thread-safe clients) */
    struct gexc_ofi_rmaop *op_free, *op_all;
    atomic_uint ops_out;              /* one-sided ops in flight or queued: with rxm, polls
                                       * read the send queue only while some are (ofi_am.c) */
    /* Issue window (GEX_OFI_RMA_INFLIGHT): put/get bytes to one peer handed
     * to the provider and not yet complete are kept at most rma_window (one
     * op always may go); the rest wait in that peer's FIFO and are issued by
     * gexc_ofi_rma_drain, which every read of the send queue calls. */
    size_t rma_window;                /* 0: no window */
    struct gexc_ofi_rmaq *rmaq;       /* [n] */
    struct gexc_ofi_rmaq *rmaq_busy;  /* peers whose queue is not empty */
    atomic_uint rma_queued;           /* ops waiting in all queues (a cheap test for drain) */
};

/* One peer's RMA issue window: bytes in flight and the ops not yet issued
 * (oldest first).  Guarded by op_lock. */
struct gexc_ofi_rmaq {
    size_t inflight;
    struct gexc_ofi_rmaop *head, *tail;
    struct gexc_ofi_rmaq *next_busy;  /* in c->rmaq_busy while head != NULL */
};

/* A Long arriving in pieces (receiver side): bytes still missing and,
 * once its final message came, that message's header and args. */
struct gexc_ofi_asm {
    struct gexc_ofi_asm *next;
    gex_Rank_t src;
    uint32_t long_id;
    size_t missing;
    int have_final;
    struct gexc_ofi_hdr hdr;
    gex_conduit_arg_t args[GEXC_OFI_MAX_ARGS];
};

/* A registration made by mem_register. */
struct gexc_ofi_mr {
    struct gexc_ofi_mr *next;
    struct fid_mr *mr;
    uint64_t key;
    void *addr;
    size_t len;
};

/* A peer's segment as published to us (seg_publish).  Never changed once
 * listed: a newer publication of the same (rank, ep) is listed in front. */
struct gexc_ofi_rseg {
    struct gexc_ofi_rseg *next;
    gex_EP_Index_t ep;
    uintptr_t base;
    size_t size;
    uint64_t key;
};

/* Bytes of a put copied into the operation itself so that its source is
 * free at once (and room for an atomic's operands and fetched value). */
#define GEXC_OFI_RMA_BOUNCE 256u
/* A put's source of up to this many bytes whose caller wants local
 * completion is copied to a heap buffer owned by the operation, so the put
 * is locally complete when it returns instead of after the round trip of
 * its delivery completion (a flood of GEX_EVENT_NOW puts then pipelines).
 * The buffer stays with the op when it is recycled: a malloc/free per put
 * cost more than the copy (the heap is trimmed and faulted back in). */
#define GEXC_OFI_RMA_COPY_MAX ((size_t)64 << 10)
/* GEX_OFI_RMA_PIECE default: puts and gets above this are split into
 * pieces that the issue window (GEX_OFI_RMA_INFLIGHT default) pipelines,
 * a few in flight per peer; both chosen from bench/ofi measurements on
 * tcp;ofi_rxm (docs/ofi.md, "Issue window"). */
#define GEXC_OFI_RMA_PIECE_DEFAULT ((uint64_t)512 << 10)
#define GEXC_OFI_RMA_INFLIGHT_DEFAULT ((uint64_t)2 << 20)

/* One RMA or atomic in flight: the context the provider hands back on the
 * send completion queue.  A transfer split into pieces has one op per
 * piece; the first (`group`) holds the completion counters and the count of
 * pieces left. */
struct gexc_ofi_rmaop {
    struct gexc_ofi_txop base;        /* first: the provider's context */
    struct gexc_ofi_rmaop *next_free, *next_all;
    struct gexc_ofi_rmaop *group;     /* op holding the counters (itself when whole) */
    _Atomic uint32_t left;            /* group: pieces not yet complete */
    GEX_CONDUIT_ATOMIC_U32 *lc, *rc;  /* group: signalled once every piece is done */
    void *result;                     /* atomics: where the fetched value goes, or NULL */
    size_t result_len;
    void *copy;                       /* heap buffer for a source copy (RMA_COPY_MAX), kept
                                       * with the op when it is recycled, or NULL */
    size_t copy_cap;                  /* its size */
    /* put/get: what it moves, kept so that a queued op can be issued later */
    struct gexc_ofi_rmaop *next_q;    /* in its peer's queue */
    gex_Rank_t peer;
    int is_put;
    size_t charged;                   /* bytes counted in the peer's window (0: none) */
    void *local, *desc;
    size_t len;
    uint64_t raddr, rkey;
    struct fid_mr *tmp_mr;            /* FI_MR_LOCAL: caller's buffer registered for this op */
    struct fid_mr *own_mr;            /* FI_MR_LOCAL: `bounce` registered once */
    void *own_desc;
    _Alignas(16) unsigned char bounce[GEXC_OFI_RMA_BOUNCE];
};

/* txlock is a leaf lock held only for bounded work that never waits:
 * credit and owed counts, the send-buffer list, the credit queue and
 * non-blocking provider posts (fi_send, fi_writemsg, ... which return
 * -FI_EAGAIN instead of waiting).  No other GEX lock is taken under it and
 * no handler runs under it.  So GEX_FLAG_IMMEDIATE sends take it like any
 * other send: waiting for it is waiting for another thread's few
 * instructions, not for a resource, and refusing there only made
 * IMMEDIATE fail whenever another thread was sending or polling.  An
 * IMMEDIATE send fails only where a resource is short: a credit, a send
 * buffer, or the provider's queue (-FI_EAGAIN). */
static inline void gexc_ofi_txlock(struct gex_conduit *c)
{
    if (c->thread_safe) pthread_mutex_lock(&c->txlock);
}
static inline int gexc_ofi_txtrylock(struct gex_conduit *c)
{
    return !c->thread_safe || pthread_mutex_trylock(&c->txlock) == 0;
}
static inline void gexc_ofi_txunlock(struct gex_conduit *c)
{
    if (c->thread_safe) pthread_mutex_unlock(&c->txlock);
}

/* reply_ctx handed to deliver_am: the requester's jobrank + 1 (never NULL). */
static inline void *gexc_ofi_reply_ctx(gex_Rank_t src) { return (void *)((uintptr_t)src + 1); }

/* ---- ofi_am.c ---- */
/* One message to build (gexc_ofi_build): header fields, args, payload. */
struct gexc_ofi_out {
    unsigned kind;
    int is_req;
    unsigned handler, nargs;
    uint32_t src_ep, dst_ep;
    const gex_conduit_arg_t *args;
    uint32_t nbytes, chunk_len, long_id;
    uint64_t dest;
    const void *payload;
    size_t plen;
};
static inline size_t gexc_ofi_out_len(const struct gexc_ofi_out *o)
{
    return gexc_ofi_payload_off(o->kind, o->nargs) + gexc_ofi_align8(o->plen);
}
/* Writes the message o into buf (gexc_ofi_out_len bytes); a payload that
 * already sits at its place in buf is not copied. */
GEXC_OFI_HIDDEN void gexc_ofi_build(struct gex_conduit *c, unsigned char *buf,
                                    const struct gexc_ofi_out *o);
/* Hands a built message to the provider (piggybacking owed credits) and
 * waits for its local completion; imm: EAGAIN with nothing sent. */
GEXC_OFI_HIDDEN int gexc_ofi_transmit(struct gex_conduit *c, gex_Rank_t dst, unsigned char *buf,
                                      size_t len, int is_req, int imm);
/* Request credits toward dst: up to `want` (blocking: at least one; imm:
 * all or none); returns how many were taken. */
GEXC_OFI_HIDDEN uint32_t gexc_ofi_take_credits(struct gex_conduit *c, gex_Rank_t dst,
                                               uint32_t want, int imm);
GEXC_OFI_HIDDEN void gexc_ofi_give_credits(struct gex_conduit *c, gex_Rank_t dst, uint32_t n);
/* A send buffer of msg_max bytes (imm: NULL when none is free). */
GEXC_OFI_HIDDEN struct gexc_ofi_txbuf *gexc_ofi_take_txbuf(struct gex_conduit *c, int is_req,
                                                           int imm);
GEXC_OFI_HIDDEN void gexc_ofi_txbuf_put(struct gex_conduit *c, struct gexc_ofi_txbuf *tb);
GEXC_OFI_HIDDEN int gexc_ofi_am_request(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                                        const struct gex_conduit_am *m, gex_Flags_t flags);
GEXC_OFI_HIDDEN int gexc_ofi_am_reply(struct gex_conduit *c, void *reply_ctx,
                                      const struct gex_conduit_am *m, gex_Flags_t flags);
GEXC_OFI_HIDDEN int gexc_ofi_poll(struct gex_conduit *c);
/* Posts receive buffer i (init, and after it has been consumed). */
GEXC_OFI_HIDDEN int gexc_ofi_post_rx(struct gex_conduit *c, unsigned i);
/* Reaps send completions (frees send buffers); returns how many one-sided
 * operations completed. */
GEXC_OFI_HIDDEN int gexc_ofi_reap_tx(struct gex_conduit *c);
GEXC_OFI_HIDDEN const char *gexc_ofi_strerror(int rc);
/* Init: sends a hello to every rank and waits for every rank's, so every
 * connection exists before the first AM (collective). */
GEXC_OFI_HIDDEN int gexc_ofi_connect_all(struct gex_conduit *c);

/* ---- ofi_np.c: negotiated-payload Mediums and one-message Longs (conduit ABI 1.1) ---- */
GEXC_OFI_HIDDEN int gexc_ofi_am_prepare(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                                        void *reply_ctx, const struct gex_conduit_am *m,
                                        size_t least, size_t most, gex_Flags_t flags,
                                        struct gex_conduit_np *np);
GEXC_OFI_HIDDEN int gexc_ofi_am_commit(struct gex_conduit *c, struct gex_conduit_np *np,
                                       const struct gex_conduit_am *m, gex_Flags_t flags);
GEXC_OFI_HIDDEN int gexc_ofi_am_cancel(struct gex_conduit *c, struct gex_conduit_np *np);

/* ---- ofi_rma.c ---- */
GEXC_OFI_HIDDEN int gexc_ofi_seg_publish(struct gex_conduit *c, gex_Rank_t jobrank,
                                         gex_EP_Index_t ep, void *owneraddr, size_t size,
                                         uint64_t rkey);
GEXC_OFI_HIDDEN int gexc_ofi_rma_put(struct gex_conduit *c, gex_EP_Index_t local_ep,
                                     gex_Rank_t dst, gex_EP_Index_t dst_ep, void *dest,
                                     const void *src, size_t nbytes,
                                     const struct gex_conduit_cpl *cpl, gex_Flags_t flags);
GEXC_OFI_HIDDEN int gexc_ofi_rma_get(struct gex_conduit *c, gex_EP_Index_t local_ep, void *dest,
                                     gex_Rank_t src, gex_EP_Index_t src_ep, void *srcaddr,
                                     size_t nbytes, const struct gex_conduit_cpl *cpl,
                                     gex_Flags_t flags);
GEXC_OFI_HIDDEN int gexc_ofi_amo_query(struct gex_conduit *c, uint32_t dt, uint32_t op);
GEXC_OFI_HIDDEN int gexc_ofi_amo(struct gex_conduit *c, gex_EP_Index_t local_ep, gex_Rank_t tgt,
                                 gex_EP_Index_t tgt_ep, void *tgt_addr, uint32_t dt, uint32_t op,
                                 const void *operand1, const void *operand2, void *result,
                                 const struct gex_conduit_cpl *cpl, gex_Flags_t flags);
/* The payload of an AM Long request written straight to its destination
 * (fi_write, FI_DELIVERY_COMPLETE) and waited for, polling: OK once the
 * bytes are visible at dst; EINVAL when dest is in no segment published to
 * us (send it in pieces); EAGAIN under imm with nothing done. */
GEXC_OFI_HIDDEN int gexc_ofi_long_put(struct gex_conduit *c, gex_Rank_t dst,
                                      gex_EP_Index_t dst_ep, void *dest, const void *src,
                                      size_t nbytes, int imm);
/* Issues queued puts/gets whose peer's window has room (never waits: a
 * full provider queue leaves them queued).  Called after every read of the
 * send queue (gexc_ofi_reap_tx) while c->rma_queued is not 0. */
GEXC_OFI_HIDDEN void gexc_ofi_rma_drain(struct gex_conduit *c);
/* A send-queue completion (ok) or error (!ok) of an RMA or atomic op. */
GEXC_OFI_HIDDEN void gexc_ofi_rma_complete(struct gex_conduit *c, struct gexc_ofi_rmaop *op,
                                           int ok, int err);
/* fi_mr_reg (+ FI_MR_ENDPOINT binding) with a fresh key; 0 or a -FI_* code. */
GEXC_OFI_HIDDEN int gexc_ofi_mr_reg(struct gex_conduit *c, const void *addr, size_t len,
                                    uint64_t access, struct fid_mr **mr_p);
/* Frees the RMA state (fini). */
GEXC_OFI_HIDDEN void gexc_ofi_rma_free(struct gex_conduit *c);

#endif /* GEXC_OFI_INTERNAL_H */
