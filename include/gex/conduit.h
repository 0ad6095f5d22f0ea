/*
 * gex/conduit.h: the conduit ABI, installed for plug-in authors.
 *
 * A conduit is a shared object (libgex-conduit-<name>.so in $libdir/gex/)
 * exporting one function, gex_conduit_entry_v1(), which returns a pointer to
 * its `struct gex_conduit_ops`.  The conduit never links against libgex-core:
 * everything it needs from the core arrives in `struct gex_host_services` at
 * init.  Both structs are append-only and carry their own size, so an older
 * conduit loads in a newer core and the reverse (see docs/conduit-abi.md).
 *
 * The reference implementation of every layer needs only init/fini, AM send
 * (request/reply, short/medium/long), poll, memory registration and limits.
 * Everything after the "ABI 1.0 ends here" marker is optional.
 *
 * ABI 1.1 appends negotiated-payload AM (am_prepare / am_commit / am_cancel,
 * capability bits GEX_CONDUIT_CAP_NPAM_*): the conduit hands the AM layer a
 * piece of its own send resources (for smp, a slot of the shared-memory
 * ring) for the client to assemble a payload in.
 *
 * ABI 1.2 appends per-endpoint resources (ep_open / ep_close / poll_ep,
 * GEX_CONDUIT_CAP_EP_QUEUES: an endpoint created with gex_EP_Create gets its
 * own queues and progresses on its own) and native RMA (seg_publish /
 * rma_put / rma_get, GEX_CONDUIT_CAP_RMA: one-sided transfers into a peer's
 * registered segment with no handler at the target) and network atomics
 * (amo_query / amo, GEX_CONDUIT_CAP_AMO).
 */
#ifndef GEX_CONDUIT_H
#define GEX_CONDUIT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <gasnet_fwd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GEX_CONDUIT_ABI_MAJOR 1
#define GEX_CONDUIT_ABI_MINOR 2

/* Return codes inside the ABI: 0 or negative. */
#define GEX_CONDUIT_OK        0
#define GEX_CONDUIT_EAGAIN  (-1)  /* IMMEDIATE and no resources: nothing was done */
#define GEX_CONDUIT_ENOMEM  (-2)
#define GEX_CONDUIT_EINVAL  (-3)
#define GEX_CONDUIT_ENOTSUP (-4)
#define GEX_CONDUIT_EIO     (-5)

typedef int32_t gex_conduit_arg_t; /* same representation as gex_AM_Arg_t */

enum gex_conduit_am_category {
    GEX_CONDUIT_AM_SHORT = 0,
    GEX_CONDUIT_AM_MEDIUM = 1,
    GEX_CONDUIT_AM_LONG = 2
};

/* One Active Message, as the core hands it to the conduit for sending and as
 * the conduit hands it back to the core for delivery. */
struct gex_conduit_am {
    uint8_t category;          /* enum gex_conduit_am_category */
    uint8_t is_request;        /* 1 request, 0 reply */
    uint8_t handler;           /* handler index at the destination EP */
    uint8_t nargs;             /* 0..16 */
    gex_EP_Index_t src_ep;     /* sending EP index */
    gex_EP_Index_t dst_ep;     /* receiving EP index */
    gex_Rank_t src_jobrank;    /* set by the conduit on delivery */
    const gex_conduit_arg_t *args;
    void *payload;             /* send: source; deliver: medium buffer or long destination */
    size_t nbytes;
    void *dest_addr;           /* long: destination, in the target's address space */
};

/* What the core offers the conduit.  Append only. */
struct gex_host_services {
    uint32_t struct_size;
    uint32_t abi_major;
    gex_Rank_t jobrank;
    gex_Rank_t jobsize;
    const char *jobid;         /* unique per job: prefix for any named OS object */
    int thread_safe;           /* non-zero: several client threads may call at once */
    void *core_ctx;            /* first argument of deliver_am */
    /* Runs the handler for `m`.  reply_ctx is the conduit's opaque return
     * address, passed back to am_reply() if the handler replies. */
    void (*deliver_am)(void *core_ctx, const struct gex_conduit_am *m, void *reply_ctx);
    void (*log)(int level, const char *fmt, ...);          /* 0 error .. 3 debug */
    void (*fatal)(const char *fmt, ...);                   /* does not return */
    const char *(*getenv)(const char *name);                /* GASNet-style env lookup */
    int (*exchange)(const void *mine, size_t len, void *all); /* all-gather, jobrank order */
    int (*barrier)(void);
    /* Local mapping of [addr, addr+len) in the segment of (jobrank, ep), or
     * NULL when that memory is not mapped in this process. */
    void *(*peer_local_addr)(gex_Rank_t jobrank, gex_EP_Index_t ep, void *addr, size_t len);
    /* Waiting loops call this between spins: it yields the CPU after a
     * while (oversubscription) and ends the process if the job is aborting. */
    void (*backoff)(unsigned *spins);
    /* ---- ABI 1.0 ends here: append only ---- */
};

/* Capability bits (struct gex_conduit_caps.flags). */
#define GEX_CONDUIT_CAP_SHARED_MEMORY  (1ull << 0) /* every peer is a local process */
#define GEX_CONDUIT_CAP_IMMEDIATE      (1ull << 1) /* am_* honours GEX_FLAG_IMMEDIATE */
/* ABI 1.1: am_prepare/am_commit/am_cancel serve negotiated-payload Mediums
 * (requests and replies), and a buffer they hand out for a NULL client_buf
 * is the conduit's own send resource (no copy at commit).  Likewise for
 * Longs.  A conduit sets neither bit unless it offers all three ops. */
#define GEX_CONDUIT_CAP_NPAM_MEDIUM    (1ull << 2)
#define GEX_CONDUIT_CAP_NPAM_LONG      (1ull << 3)
/* ABI 1.2: ep_open/ep_close/poll_ep give each endpoint its own AM queues;
 * poll_ep(ep) delivers only AMs addressed to ep.  Without this bit every EP
 * shares the process's queues and poll() serves them all. */
#define GEX_CONDUIT_CAP_EP_QUEUES      (1ull << 4)
/* ABI 1.2: seg_publish/rma_put/rma_get move data one-sidedly into and out of
 * peers' segments registered with mem_register. */
#define GEX_CONDUIT_CAP_RMA            (1ull << 5)
/* ABI 1.2: the conduit moves large AM Long payloads with RMA itself (the
 * core needs to do nothing; informational for gex-info and benchmarks). */
#define GEX_CONDUIT_CAP_AM_LONG_RMA    (1ull << 6)
/* ABI 1.2: amo_query/amo perform remote atomics in the network (NIC or
 * provider), for the (type, op) pairs amo_query accepts. */
#define GEX_CONDUIT_CAP_AMO            (1ull << 7)

struct gex_conduit_caps {
    uint32_t struct_size;
    uint32_t am_max_args;          /* >= 16 */
    uint64_t flags;                /* GEX_CONDUIT_CAP_* */
    size_t am_max_medium;          /* payload limit of request and reply mediums */
    size_t am_max_long_request;
    size_t am_max_long_reply;
    /* ---- ABI 1.0 ends here: append only ---- */
};

struct gex_conduit;   /* conduit-private state */

/* ABI 1.1: one negotiated-payload reservation, filled by am_prepare and
 * handed back (unchanged) to am_commit or am_cancel on the same thread. */
struct gex_conduit_np {
    void *buf;                 /* where the payload is assembled (the client's buffer if given) */
    size_t size;               /* usable bytes: least <= size <= most */
    uintptr_t priv[4];         /* conduit-private: what was reserved */
};

/* ABI 1.2: where an RMA signals completion.  Each non-NULL counter is
 * decremented by exactly 1 (memory_order_release) by whichever thread
 * observes the event, from inside any conduit call that makes progress
 * (poll, poll_ep, am_*, rma_*).  The struct itself may live on the caller's
 * stack: the conduit copies the two pointers before rma_* returns. */
#ifdef __cplusplus
#define GEX_CONDUIT_ATOMIC_U32 uint32_t   /* same layout; use std::atomic_ref in C++ */
#else
#define GEX_CONDUIT_ATOMIC_U32 _Atomic uint32_t
#endif
struct gex_conduit_cpl {
    GEX_CONDUIT_ATOMIC_U32 *lc;      /* local completion: a put's source may be reused */
    GEX_CONDUIT_ATOMIC_U32 *rc; /* remote completion: put visible at the target / get data landed */
};

/* ABI 1.2: ep_open flags. */
#define GEX_CONDUIT_EP_SERIALIZED 1u  /* core promises that one thread at a time
                                       * polls this EP (poll_ep) and sends from it:
                                       * its queues need no locks */

struct gex_conduit_ops {
    uint32_t abi_major;            /* GEX_CONDUIT_ABI_MAJOR of the conduit's build */
    uint32_t struct_size;          /* sizeof(struct gex_conduit_ops) of the conduit's build */
    const char *name;
    int (*init)(const struct gex_host_services *host, struct gex_conduit **c_p,
                struct gex_conduit_caps *caps);
    void (*fini)(struct gex_conduit *c);
    /* Sends a request to the endpoint m->dst_ep of process dst_jobrank.
     * Returns GEX_CONDUIT_EAGAIN, having done nothing, only when flags has
     * GEX_FLAG_IMMEDIATE and resources are short; otherwise waits (polling)
     * for resources.  The payload may be reused when this returns. */
    int (*am_request)(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                      const struct gex_conduit_am *m, gex_Flags_t flags);
    /* Sends a reply to the sender of the request that produced reply_ctx.
     * Replies never wait on progress of requests: they have reserved room. */
    int (*am_reply)(struct gex_conduit *c, void *reply_ctx,
                    const struct gex_conduit_am *m, gex_Flags_t flags);
    /* Delivers pending AMs; returns how many ran, plus (since 1.2) how many
     * of this process's one-sided operations it saw complete: a non-zero
     * return tells core's waits that progress is being made, so they keep
     * polling instead of backing off. */
    int (*poll)(struct gex_conduit *c);
    int (*mem_register)(struct gex_conduit *c, void *addr, size_t len, uint64_t *key_p);
    int (*mem_deregister)(struct gex_conduit *c, uint64_t key);
    /* ---- ABI 1.0 ends here: append only, never reorder ---- */

    /* Negotiated-payload AM (optional; offered for the categories named by
     * GEX_CONDUIT_CAP_NPAM_*).  am_prepare reserves the resources for one AM
     * whose category, is_request, nargs, src_ep, dst_ep, dest_addr (Long: a
     * hint, may be NULL) and payload (the client's buffer, or NULL for a
     * conduit buffer) are in `m` (handler, args and nbytes are ignored), to
     * dst_jobrank for a request or to the requester of reply_ctx for a
     * reply.  On success np->buf and np->size (least <= size <= most) say
     * where the payload goes and how much may be sent.  Without room it
     * waits like am_request / am_reply (polling as they do), or with
     * GEX_FLAG_IMMEDIATE returns GEX_CONDUIT_EAGAIN having done nothing.
     * Between a successful am_prepare and its am_commit or am_cancel the
     * calling thread makes no other conduit call (spec: no communication
     * between Prepare and Commit); a conduit may keep a per-destination
     * lock for that long.  Prepared resources are not visible to the peer,
     * except that a Long with a dest_addr hint may be handed the mapped
     * destination itself (zero copy: what the client writes lands there at
     * once; the spec lets the hint guide the buffer's choice).  am_prepare
     * may return GEX_CONDUIT_ENOTSUP, having written nothing, for an AM it
     * does not specialize; the layer then serves that AM with its reference
     * path. */
    int (*am_prepare)(struct gex_conduit *c, gex_Rank_t dst_jobrank, void *reply_ctx,
                      const struct gex_conduit_am *m, size_t least, size_t most,
                      gex_Flags_t flags, struct gex_conduit_np *np);
    /* Sends the prepared AM: `m` is complete (handler, nargs as prepared,
     * args, nbytes <= np->size, dest_addr; payload == np->buf).  With
     * GEX_FLAG_IMMEDIATE it may return GEX_CONDUIT_EAGAIN, leaving the
     * reservation intact; otherwise it succeeds.  The payload buffer (a
     * client's) may be reused on return. */
    int (*am_commit)(struct gex_conduit *c, struct gex_conduit_np *np,
                     const struct gex_conduit_am *m, gex_Flags_t flags);
    /* Releases a reservation without sending anything. */
    int (*am_cancel)(struct gex_conduit *c, struct gex_conduit_np *np);
    /* ---- ABI 1.1 ends here: append only, never reorder ---- */

    /* Per-endpoint resources (optional; GEX_CONDUIT_CAP_EP_QUEUES).  The core
     * calls ep_open from gex_EP_Create (ep >= 1; EP 0 exists from init) and
     * ep_close when the client ends.  ep_open is local: peers learn of the
     * new EP only when they first address it, so a conduit attaches to a
     * peer's EP queues lazily.  Fails with GEX_CONDUIT_ENOMEM when out of
     * resources (gex_EP_Create then returns GASNET_ERR_RESOURCE). */
    int (*ep_open)(struct gex_conduit *c, gex_EP_Index_t ep, uint32_t ep_flags);
    void (*ep_close)(struct gex_conduit *c, gex_EP_Index_t ep);
    /* Delivers pending AMs addressed to local endpoint ep (and progresses
     * that EP's RMA); returns how many ran.  poll() still serves every EP. */
    int (*poll_ep)(struct gex_conduit *c, gex_EP_Index_t ep);

    /* Native RMA (optional; GEX_CONDUIT_CAP_RMA).  The core registers every
     * segment with mem_register when it is created, exchanges the keys when
     * segments are published, and calls seg_publish once for each remote
     * segment it learns of (jobrank, ep) -> [owneraddr, owneraddr+size),
     * rkey; a later call for the same (jobrank, ep) replaces the earlier.
     * rma_put/rma_get initiate one transfer between local memory (src / dest:
     * anywhere in this process, registered or not) and the remote range,
     * which lies in a segment published by seg_publish; they return
     * GEX_CONDUIT_OK once initiated and signal `cpl` later, or
     * GEX_CONDUIT_EAGAIN with nothing done when flags has GEX_FLAG_IMMEDIATE
     * and resources are short (otherwise they wait, polling), or
     * GEX_CONDUIT_EINVAL when the remote range is in no published segment
     * (the caller then takes its AM-based path).  `local_ep` is the
     * initiating endpoint (its resources are used). */
    int (*seg_publish)(struct gex_conduit *c, gex_Rank_t jobrank, gex_EP_Index_t ep,
                       void *owneraddr, size_t size, uint64_t rkey);
    int (*rma_put)(struct gex_conduit *c, gex_EP_Index_t local_ep, gex_Rank_t dst_jobrank,
                   gex_EP_Index_t dst_ep, void *dest, const void *src, size_t nbytes,
                   const struct gex_conduit_cpl *cpl, gex_Flags_t flags);
    int (*rma_get)(struct gex_conduit *c, gex_EP_Index_t local_ep, void *dest,
                   gex_Rank_t src_jobrank, gex_EP_Index_t src_ep, void *srcaddr,
                   size_t nbytes, const struct gex_conduit_cpl *cpl, gex_Flags_t flags);

    /* Network atomics (optional; GEX_CONDUIT_CAP_AMO).  dt is a GEX_DT_*
     * value and op a GEX_OP_* value (gasnet_ratomic.h).  amo_query returns
     * GEX_CONDUIT_OK when amo can perform op on dt, GEX_CONDUIT_ENOTSUP
     * otherwise.  The atomics layer uses amo for a domain only when
     * amo_query accepts every (type, op) the domain declares, and then for
     * every operation of that domain, self-targeted ones included: network
     * atomics need not be coherent with CPU atomics, so one domain never
     * mixes the two.  amo initiates one operation on the dt-sized word at
     * tgt_addr (in a segment published by seg_publish): operand1/operand2 as
     * in gex_AD_OpNB (NULL when op takes fewer), the fetched value is stored
     * at *result (NULL for non-fetching ops) before cpl->rc is signalled;
     * cpl->lc is unused.  Return codes as rma_put. */
    int (*amo_query)(struct gex_conduit *c, uint32_t dt, uint32_t op);
    int (*amo)(struct gex_conduit *c, gex_EP_Index_t local_ep, gex_Rank_t tgt_jobrank,
               gex_EP_Index_t tgt_ep, void *tgt_addr, uint32_t dt, uint32_t op,
               const void *operand1, const void *operand2, void *result,
               const struct gex_conduit_cpl *cpl, gex_Flags_t flags);
    /* ---- ABI 1.2 ends here: append only, never reorder ---- */
};

#define GEX_CONDUIT_OPS_1_0_SIZE \
    (offsetof(struct gex_conduit_ops, mem_deregister) + sizeof(void (*)(void)))
#define GEX_CONDUIT_OPS_1_1_SIZE \
    (offsetof(struct gex_conduit_ops, am_cancel) + sizeof(void (*)(void)))
#define GEX_CONDUIT_OPS_1_2_SIZE \
    (offsetof(struct gex_conduit_ops, amo) + sizeof(void (*)(void)))

/* True when `ops` offers member m (present in its struct and non-NULL). */
#define GEX_CONDUIT_HAS(ops, m) \
    ((ops)->struct_size >= offsetof(struct gex_conduit_ops, m) + sizeof((ops)->m) && \
     (ops)->m != NULL)

/* Freeze the 1.0 layouts: moving a field breaks every built plug-in. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && UINTPTR_MAX == UINT64_MAX
_Static_assert(GEX_CONDUIT_OPS_1_0_SIZE == 72, "conduit ops ABI 1.0 layout moved");
_Static_assert(offsetof(struct gex_conduit_ops, am_request) == 32, "conduit ops ABI 1.0 moved");
_Static_assert(offsetof(struct gex_host_services, backoff) == 96, "host services ABI 1.0 moved");
_Static_assert(sizeof(struct gex_conduit_caps) == 40, "conduit caps ABI 1.0 moved");
_Static_assert(sizeof(struct gex_conduit_am) == 48, "conduit AM descriptor moved");
/* ABI 1.1 starts exactly where 1.0 ended */
_Static_assert(offsetof(struct gex_conduit_ops, am_prepare) == GEX_CONDUIT_OPS_1_0_SIZE,
               "conduit ops ABI 1.1 must start at the 1.0 end");
_Static_assert(GEX_CONDUIT_OPS_1_1_SIZE == 96, "conduit ops ABI 1.1 layout moved");
_Static_assert(sizeof(struct gex_conduit_np) == 48, "conduit NP reservation moved");
/* ABI 1.2 starts exactly where 1.1 ended */
_Static_assert(offsetof(struct gex_conduit_ops, ep_open) == GEX_CONDUIT_OPS_1_1_SIZE,
               "conduit ops ABI 1.2 must start at the 1.1 end");
_Static_assert(GEX_CONDUIT_OPS_1_2_SIZE == 160, "conduit ops ABI 1.2 layout moved");
_Static_assert(sizeof(struct gex_conduit_cpl) == 16, "conduit completion record moved");
#endif

/* ---- Size syntax shared by the library and every conduit ----
 * Environment sizes read the same everywhere (GEX_SMP_RING_SIZE, GEX_OFI_*,
 * GEX_COLL_*, ...): a non-negative decimal number, integer or with a
 * fraction ("1.5M"), then an optional K, M, G or T (powers of 1024),
 * then an optional "B" ("64K", "64KB", "64KiB", "512B"); blanks around
 * it are ignored.  Header-only, so a conduit gets the grammar without linking
 * anything and without an ABI change.  Returns 0 and stores the value, or -1
 * (nothing stored) for anything else, including overflow and a suffix with
 * no number. */
static inline int gex_conduit_parse_size(const char *s, uint64_t *out)
{
    if (!s) return -1;
    while (*s == ' ' || *s == '\t') s++;
    uint64_t whole = 0, frac_num = 0, frac_den = 1;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++) {
        if (whole > (UINT64_MAX - 9) / 10) return -1;
        whole = whole * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++, digits++)
            if (frac_den < 1000000000000000ull) {   /* digits past 1e-15 cannot matter */
                frac_num = frac_num * 10 + (uint64_t)(*s - '0');
                frac_den *= 10;
            }
    }
    if (!digits) return -1;
    unsigned shift = 0;
    switch (*s) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        s++;
        if (*s == 'i' || *s == 'I') {
            s++;
            if (*s != 'b' && *s != 'B') return -1;
        }
    }
    if (*s == 'b' || *s == 'B') s++;   /* "64KB", "64KiB", and plain bytes "512B" */
    while (*s == ' ' || *s == '\t') s++;
    if (*s) return -1;
    if (shift && whole > (UINT64_MAX >> shift)) return -1;
    uint64_t v = whole << shift;
    /* the fraction's share of one unit, rounded down ("1.5K" is 1536) */
    uint64_t part = (uint64_t)((double)frac_num / (double)frac_den * (double)((uint64_t)1 << shift));
    if (v > UINT64_MAX - part) return -1;
    *out = v + part;
    return 0;
}

/* ---- AM Long destinations, checked the same way by every conduit ----
 * A conduit about to write a Long's payload bytes at their absolute
 * address [d, d+n) in this process (me), where nothing has mapped or
 * checked the destination, calls this first.  A client's Long (handler at
 * or above GEX_CONDUIT_CLIENT_HANDLER_MIN, GEX_AM_INDEX_BASE) must land in
 * the segment bound to the receiving endpoint (spec, AM NOTE 5); otherwise
 * the job ends with a message naming the Long, instead of a fault in the
 * copy or a stray write.  The layers' own Longs (lower handlers: an RMA
 * get's reply) may target any memory.  Header-only: no ABI change. */
#define GEX_CONDUIT_CLIENT_HANDLER_MIN 128u
static inline void gex_conduit_check_long_dest(const struct gex_host_services *host,
                                               gex_Rank_t me, gex_Rank_t src,
                                               gex_EP_Index_t dst_ep, unsigned handler,
                                               int is_request, const void *d, size_t n)
{
    if (handler < GEX_CONDUIT_CLIENT_HANDLER_MIN ||
        host->peer_local_addr(me, dst_ep, (void *)(uintptr_t)d, n))
        return;
    host->fatal("AM Long %s from rank %u to endpoint %u of rank %u (handler %u): its payload "
                "bytes [%p, %p) do not lie in the segment bound to that endpoint (the "
                "initiator's dest_addr is outside it, or the endpoint has no bound segment: "
                "spec, AM NOTE 5 \"Longs and Bound Segments\")",
                is_request ? "Request" : "Reply", (unsigned)src, (unsigned)dst_ep,
                (unsigned)me, handler, d, (const void *)((const char *)d + n));
}

/* A send that failed for good usually means the peer already left because
 * the job is ending (gasnet_exit elsewhere).  The host's backoff ends this
 * process with the job's exit code once it sees the job ending, so give it
 * two seconds to notice; only a job that is not ending gets here after that,
 * and the caller then reports its error as fatal. */
static inline void gex_conduit_await_job_end(const struct gex_host_services *host)
{
    unsigned spins = 255;   /* the first backoff looks at the job's state at once */
    struct timespec t0, t;  /* C11's clock, so that the header needs no POSIX feature macro */
    timespec_get(&t0, TIME_UTC);
    do {
        host->backoff(&spins);
        timespec_get(&t, TIME_UTC);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 2000000000L);
}

typedef const struct gex_conduit_ops *gex_conduit_entry_fn(void);
#define GEX_CONDUIT_ENTRY_SYMBOL "gex_conduit_entry_v1"

#ifdef __cplusplus
}
#endif
#endif /* GEX_CONDUIT_H */
