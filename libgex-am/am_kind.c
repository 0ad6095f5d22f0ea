/*
 * am_kind.c: AM Long payloads to and from device segments (memory kinds,
 * issue 9; docs/memory-kinds.md "AM Long").
 *
 * A device segment's addresses fault on load and store (core_layer.h
 * "Memory kinds"): its bytes move only through its kind's copy functions.
 * A conduit writes a Long payload straight to dest_addr (or a mapping of
 * it), so a Long whose dest_addr lies in a peer's device segment, or whose
 * source lies in the sender's, cannot go to the conduit as is.  The send
 * paths (gexi_am_request / gexi_am_reply / gexi_am_np_commit in
 * am_internal.h) ask this file first whenever core knows of a device
 * segment (gexi_mk_any_device(): one load and a predictable branch for
 * everyone else, and only on Long sends).
 *
 * Source in the sender's bound device segment, host destination: the
 * payload is copied out (kind copy_out) into a bounce buffer, which goes to
 * the conduit as an ordinary Long.
 *
 * Destination in a device segment: the payload travels in AM Mediums to
 * internal handlers that write it with the kind's copy_in, and the client's
 * Long handler runs once, after every byte has landed, with buf = dest_addr,
 * nbytes and its arguments, from inside the internal handler that completes
 * the transfer (a token copied from that handler's, marked Long, so a
 * Request handler may reply through it as usual).  The first message
 * carries a header (handler, arguments, dest_addr, nbytes) plus as much of
 * the payload as fits; the header is what makes the client's arguments
 * (up to 16) and the 64-bit destination fit in one AM.
 *
 *  Request: the payload minus its last piece goes first, as Medium
 *    requests (H_DATA) that the target acknowledges with a Short reply; the
 *    sender waits for every acknowledgement (polling) and then sends the
 *    header with the last piece (H_FINAL_REQ), whose handler runs the
 *    client's Request handler.  AMs are unordered, so the wait is what
 *    guarantees "handler after the data".  The source is locally complete
 *    on return (everything was copied into Mediums).
 *
 *  Reply: a Request handler may send exactly one Reply, and the conduit
 *    reserved room for exactly one: so the reply is ONE Medium (H_FINAL_REP:
 *    header + first piece).  The rest of a larger payload is copied into a
 *    "stash" in the replier's host memory, and the receiver pulls it: its
 *    reply handler queues a pull record; a progress hook (outside handler
 *    context, on the receiver's next poll) sends Short requests (H_PULL)
 *    that the replier answers with Medium replies (H_PULL_REP) of stash
 *    bytes; the reply handler of the last one runs the client's Reply
 *    handler (a reply-handler context, as the client expects).  The
 *    replier frees the stash once every byte was pulled.  So a Reply never
 *    needs more than its one reserved reply, and every other message is a
 *    Request with its own Reply, under normal AM flow control.
 *
 * Negotiated payload (Long): the Prepare of a Long to a device segment
 * gets the reference slots (am_np.c), which reserve nothing; the Commit
 * then sends the prepared bytes (client or library buffer) through the
 * same paths.
 * GEX_FLAG_IMMEDIATE is honoured for the first message of a fixed-payload
 * Request (nothing sent otherwise); a Commit with it sends blocking (a
 * permitted answer: the flag lets an implementation fail, never obliges).
 *
 * Chunks are at most the AM Medium limit, or GEX_MK_CHUNK bytes when
 * smaller (>= 512), like the RMA staging of rma_kind.c.
 *
 * Handler indices: the AM layer's range GEXI_HIDX_AM_BASE + 0..5.
 */
#include "am_internal.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define H_DATA      (GEXI_HIDX_AM_BASE + 0)  /* Medium req: piece -> dest; Short ack */
#define H_DATA_ACK  (GEXI_HIDX_AM_BASE + 1)  /* Short reply: counter done */
#define H_FINAL_REQ (GEXI_HIDX_AM_BASE + 2)  /* Medium req: header + last piece -> client */
#define H_FINAL_REP (GEXI_HIDX_AM_BASE + 3)  /* Medium reply: header + first piece */
#define H_PULL      (GEXI_HIDX_AM_BASE + 4)  /* Short req: stash range -> H_PULL_REP */
#define H_PULL_REP  (GEXI_HIDX_AM_BASE + 5)  /* Medium reply: stash bytes -> dest */

/* The header at the start of H_FINAL_REQ / H_FINAL_REP payloads; the
 * header's data (`first` bytes, destination offset 0 for replies and
 * nbytes - first for requests) follows it. */
struct kind_hdr {
    uint64_t dest;                 /* the client's dest_addr */
    uint64_t nbytes;               /* the whole payload */
    uint64_t stash;                /* Reply: replier's stash (0: nothing to pull) */
    uint32_t first;                /* payload bytes in this message */
    uint16_t handler;              /* the client's handler index */
    uint8_t nargs;
    uint8_t pad;
    gex_AM_Arg_t args[16];
};
#define HDR_SIZE sizeof(struct kind_hdr)

/* Replier side: the part of a Reply payload the receiver still has to pull. */
struct kind_stash {
    _Atomic size_t left;           /* bytes not yet pulled; the last puller frees */
    char data[];
};

/* Receiver side: one Reply Long whose payload is still being pulled. */
struct kind_pull {
    struct kind_pull *next;
    struct kind_hdr h;
    gex_Rank_t replier;            /* jobrank and EP the reply came from */
    gex_EP_Index_t replier_ep, my_ep;
    _Atomic size_t left;           /* bytes not yet landed */
};

static size_t kind_chunk;          /* payload bytes per Medium */
static pthread_mutex_t pull_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kind_pull *pull_queue;           /* not yet requested */
static _Atomic unsigned pull_queued;
static _Atomic int pull_hook_registered;

/* ---- Copies through the kind ---- */

static int in_seg(const struct gexi_segment *s, const void *addr, size_t n)
{
    uintptr_t a = (uintptr_t)addr, b = (uintptr_t)s->addr;
    return a >= b && n <= s->size && a - b <= s->size - n;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) gexi_fatal("AM Long (memory kinds): out of memory for %zu bytes", n);
    return p;
}

/* The device segment of local EP `ep` holding [src, +n), or NULL. */
static struct gexi_segment *src_dev(gex_EP_Index_t ep, const void *src, size_t n)
{
    struct gexi_segment *s = gexi_mk_local_device_seg(ep);
    return s && n && in_seg(s, src, n) ? s : NULL;
}

/* ---- Running the client's Long handler ---- */

typedef gex_AM_Arg_t R_;
#define P1 R_
#define P2 P1, R_
#define P3 P2, R_
#define P4 P3, R_
#define P5 P4, R_
#define P6 P5, R_
#define P7 P6, R_
#define P8 P7, R_
#define P9 P8, R_
#define P10 P9, R_
#define P11 P10, R_
#define P12 P11, R_
#define P13 P12, R_
#define P14 P13, R_
#define P15 P14, R_
#define P16 P15, R_
#define V1 a[0]
#define V2 V1, a[1]
#define V3 V2, a[2]
#define V4 V3, a[3]
#define V5 V4, a[4]
#define V6 V5, a[5]
#define V7 V6, a[6]
#define V8 V7, a[7]
#define V9 V8, a[8]
#define V10 V9, a[9]
#define V11 V10, a[10]
#define V12 V11, a[11]
#define V13 V12, a[12]
#define V14 V13, a[13]
#define V15 V14, a[14]
#define V16 V15, a[15]
#define CALL(k) case k: ((void (*)(gex_Token_t, void *, size_t, P##k))fn)(t, buf, n, V##k); break

static void call_long(gex_AM_Fn_t fn, gex_Token_t t, void *buf, size_t n, unsigned nargs,
                      const gex_AM_Arg_t *a)
{
    switch (nargs) {
    case 0: ((void (*)(gex_Token_t, void *, size_t))fn)(t, buf, n); break;
    CALL(1); CALL(2); CALL(3); CALL(4); CALL(5); CALL(6); CALL(7); CALL(8);
    CALL(9); CALL(10); CALL(11); CALL(12); CALL(13); CALL(14); CALL(15); CALL(16);
    default: gexi_fatal("AM Long (memory kinds): %u arguments", nargs);
    }
}

/* Runs the client's handler h->handler of the EP `t` arrived at, as a Long
 * (buf = dest_addr) of t's direction, with a token copied from t. */
static void run_client(struct gexi_token *t, const struct kind_hdr *h)
{
    const struct gexi_handler *hd = gexi_handler_for(t->ep, h->handler);
    if (GEXI_UNLIKELY(!hd))
        gexi_fatal("AM Long from rank %u for handler %u, not registered on endpoint %u",
                   t->src_jobrank, h->handler, t->ep->index);
#ifdef GEX_DEBUG
    const gex_Flags_t legacy = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQREP;
    const gex_Flags_t f = hd->entry.gex_flags;
    if ((f & legacy) != legacy &&
        (!(f & GEX_FLAG_AM_LONG) || !(f & (t->is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY)) ||
         hd->entry.gex_nargs != h->nargs))
        gexi_fatal("AM for handler %u ('%s') violates its registration (flags 0x%x nargs %u; got "
                   "a Long %s with %u args)", h->handler,
                   hd->entry.gex_name ? hd->entry.gex_name : "", (unsigned)f,
                   hd->entry.gex_nargs, t->is_req ? "request" : "reply", h->nargs);
#endif
    struct gexi_token ct = *t;
    ct.entry = &hd->entry;
    ct.is_long = 1;
    call_long(hd->entry.gex_fnptr, (gex_Token_t)&ct, (void *)(uintptr_t)h->dest,
              (size_t)h->nbytes, h->nargs, h->args);
    t->replied |= ct.replied;
}

/* ---- Handlers ---- */

static void h_data(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dlo, gex_AM_Arg_t dhi,
                   gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    gexi_mk_copy_in(gexi_token_of(t)->ep->segment, gexi_arg_ptr(dlo, dhi), buf, n,
                    "AM Long (target)");
    gex_AM_ReplyShort2(t, H_DATA_ACK, 0, clo, chi);
}

static void h_data_ack(gex_Token_t t, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    (void)t;
    gexi_counter_done(gexi_arg_ptr(clo, chi), 1);
}

/* The header, copied out of the payload (whose alignment is the conduit's). */
static void get_hdr(struct kind_hdr *h, const void *buf, size_t n)
{
    if (GEXI_UNLIKELY(n < HDR_SIZE)) gexi_fatal("AM Long (memory kinds): short header");
    memcpy(h, buf, HDR_SIZE);
    if (GEXI_UNLIKELY(h->first > n - HDR_SIZE || h->first > h->nbytes || h->nargs > 16))
        gexi_fatal("AM Long (memory kinds): malformed header");
}

static void h_final_req(gex_Token_t t, void *buf, size_t n)
{
    struct gexi_token *tok = gexi_token_of(t);
    struct kind_hdr h;
    get_hdr(&h, buf, n);
    if (tok->ep->segment && tok->ep->segment->mk_ops)
        gexi_mk_check_range("AM Request Long", tok->ep->segment, (void *)(uintptr_t)h.dest,
                            (size_t)h.nbytes);
    gexi_mk_copy_in(tok->ep->segment, (char *)(uintptr_t)h.dest + (h.nbytes - h.first),
                    (char *)buf + HDR_SIZE, h.first, "AM Request Long (target)");
    run_client(tok, &h);
}

static void pull_progress(void);

static void h_final_rep(gex_Token_t t, void *buf, size_t n)
{
    struct gexi_token *tok = gexi_token_of(t);
    struct kind_hdr h;
    get_hdr(&h, buf, n);
    if (tok->ep->segment && tok->ep->segment->mk_ops)
        gexi_mk_check_range("AM Reply Long", tok->ep->segment, (void *)(uintptr_t)h.dest,
                            (size_t)h.nbytes);
    gexi_mk_copy_in(tok->ep->segment, (void *)(uintptr_t)h.dest, (char *)buf + HDR_SIZE, h.first,
                    "AM Reply Long (initiator)");
    if (h.first == h.nbytes) {
        run_client(tok, &h);
        return;
    }
    /* The rest is pulled from outside handler context (file comment). */
    struct kind_pull *p = xmalloc(sizeof *p);
    p->h = h;
    p->replier = tok->src_jobrank;
    p->replier_ep = tok->src_ep;
    p->my_ep = tok->ep->index;
    atomic_init(&p->left, (size_t)(h.nbytes - h.first));
    if (!atomic_load_explicit(&pull_hook_registered, memory_order_acquire) &&
        !atomic_exchange(&pull_hook_registered, 1))
        gexi_register_progress(pull_progress);
    pthread_mutex_lock(&pull_lock);
    p->next = pull_queue;
    pull_queue = p;
    pthread_mutex_unlock(&pull_lock);
    atomic_fetch_add_explicit(&pull_queued, 1, memory_order_release);
}

static void h_pull(gex_Token_t t, gex_AM_Arg_t slo, gex_AM_Arg_t shi, gex_AM_Arg_t off,
                   gex_AM_Arg_t len, gex_AM_Arg_t plo, gex_AM_Arg_t phi)
{
    struct kind_stash *s = gexi_arg_ptr(slo, shi);
    gex_AM_ReplyMedium3(t, H_PULL_REP, s->data + (uint32_t)off, (uint32_t)len, GEX_EVENT_NOW, 0,
                        plo, phi, off);
    if (atomic_fetch_sub_explicit(&s->left, (uint32_t)len, memory_order_acq_rel) == (uint32_t)len)
        free(s);
}

static void h_pull_rep(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t plo, gex_AM_Arg_t phi,
                       gex_AM_Arg_t off)
{
    struct gexi_token *tok = gexi_token_of(t);
    struct kind_pull *p = gexi_arg_ptr(plo, phi);
    gexi_mk_copy_in(tok->ep->segment, (char *)(uintptr_t)p->h.dest + p->h.first + (uint32_t)off,
                    buf, n, "AM Reply Long (initiator)");
    if (atomic_fetch_sub_explicit(&p->left, n, memory_order_acq_rel) == n) {
        run_client(tok, &p->h);
        free(p);
    }
}

/* Progress hook (every poll): requests the pieces of queued Reply pulls.
 * Not re-entered by the requests' own waits. */
static _Thread_local int in_pull;
static void pull_progress(void)
{
    if (GEXI_LIKELY(!atomic_load_explicit(&pull_queued, memory_order_acquire)) || in_pull) return;
    in_pull = 1;
    pthread_mutex_lock(&pull_lock);
    struct kind_pull *list = pull_queue;
    pull_queue = NULL;
    unsigned k = 0;
    for (struct kind_pull *p = list; p; p = p->next) k++;
    atomic_fetch_sub_explicit(&pull_queued, k, memory_order_relaxed);
    pthread_mutex_unlock(&pull_lock);
    while (list) {
        struct kind_pull *p = list;
        list = p->next;       /* p may be freed by its last reply below */
        const size_t rest = (size_t)(p->h.nbytes - p->h.first);
        const void *stash = (void *)(uintptr_t)p->h.stash;
        for (size_t off = 0, len; off < rest; off += len) {
            len = rest - off < kind_chunk ? rest - off : kind_chunk;
            const gex_AM_Arg_t a[6] = { gexi_arg_lo(stash), gexi_arg_hi(stash), (gex_AM_Arg_t)off,
                                        (gex_AM_Arg_t)len, gexi_arg_lo(p), gexi_arg_hi(p) };
            const struct gex_conduit_am m = {
                .category = GEX_CONDUIT_AM_SHORT, .is_request = 1, .handler = H_PULL, .nargs = 6,
                .src_ep = p->my_ep, .dst_ep = p->replier_ep, .args = a,
            };
            gexi_am_result(gexi_am_send_request(p->replier, &m, 0), 0);
        }
    }
    in_pull = 0;
}

void gexi_am_kind_bind(void)
{
    size_t c = gexi_core.caps.am_max_medium;
    uint64_t v = gexi_getenv_size("GEX_MK_CHUNK", 0);
    if (v && v < 512) v = 512;
    kind_chunk = v && v < c ? (size_t)v : c;
    gexi_register_internal_handler(H_DATA, (gex_AM_Fn_t)h_data,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 4, "gexi_am_kind_data");
    gexi_register_internal_handler(H_DATA_ACK, (gex_AM_Fn_t)h_data_ack,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, "gexi_am_kind_ack");
    gexi_register_internal_handler(H_FINAL_REQ, (gex_AM_Fn_t)h_final_req,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0,
                                   "gexi_am_kind_final_req");
    gexi_register_internal_handler(H_FINAL_REP, (gex_AM_Fn_t)h_final_rep,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0,
                                   "gexi_am_kind_final_rep");
    gexi_register_internal_handler(H_PULL, (gex_AM_Fn_t)h_pull,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 6, "gexi_am_kind_pull");
    gexi_register_internal_handler(H_PULL_REP, (gex_AM_Fn_t)h_pull_rep,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 3,
                                   "gexi_am_kind_pull_rep");
}

/* ---- Senders ---- */

static void fill_hdr(struct kind_hdr *h, gex_AM_Index_t handler, void *dest, size_t n,
                     size_t first, unsigned nargs, const gex_AM_Arg_t *args)
{
    memset(h, 0, HDR_SIZE);
    h->dest = (uint64_t)(uintptr_t)dest;
    h->nbytes = n;
    h->first = (uint32_t)first;
    h->handler = handler;
    h->nargs = (uint8_t)nargs;
    if (nargs) memcpy(h->args, args, nargs * sizeof *args);
}

/* [src + off, +len) into host memory at `to` (s: the source's device
 * segment, or NULL for host memory). */
static void stage(struct gexi_segment *s, void *to, const char *src, size_t off, size_t len,
                  const char *who)
{
    if (s) gexi_mk_copy_out(s, to, src + off, len, who);
    else memcpy(to, src + off, len);
}

/* Source in a device segment, destination host memory: one bounce copy
 * and an ordinary conduit Long. */
static int send_bounced(int is_request, gex_Rank_t jobrank, void *reply_ctx,
                        struct gex_conduit_am m, struct gexi_segment *ss, gex_Flags_t flags)
{
    void *b = xmalloc(m.nbytes);
    gexi_mk_copy_out(ss, b, m.payload, m.nbytes, is_request ? "AM Request Long" : "AM Reply Long");
    m.payload = b;
    int rc = is_request ? gexi_am_send_request(jobrank, &m, flags)
                        : gexi_am_send_reply(reply_ctx, &m, flags);
    free(b);
    return gexi_am_result(rc, flags);
}

/* Request Long to a device destination (file comment). */
static int request_staged(gex_Rank_t jobrank, gex_EP_Index_t src_ep, gex_EP_Index_t dst_ep,
                          gex_AM_Index_t handler, struct gexi_segment *ss, const void *src,
                          size_t n, void *dest, gex_Flags_t flags, unsigned nargs,
                          const gex_AM_Arg_t *args)
{
    const size_t last = n < kind_chunk - HDR_SIZE ? n : kind_chunk - HDR_SIZE;
    const size_t body = n - last;   /* bytes sent ahead in H_DATA pieces */
    char *b = xmalloc(kind_chunk);
    gex_Flags_t f = flags & GEX_FLAG_IMMEDIATE;   /* first message only */
    if (body) {
        _Atomic uint32_t ctr;
        uint32_t pieces = (uint32_t)((body + kind_chunk - 1) / kind_chunk);
        atomic_store_explicit(&ctr, pieces, memory_order_release);
        for (size_t off = 0, len; off < body; off += len) {
            len = body - off < kind_chunk ? body - off : kind_chunk;
            stage(ss, b, src, off, len, "AM Request Long");
            char *d = (char *)dest + off;
            const gex_AM_Arg_t a[4] = { gexi_arg_lo(d), gexi_arg_hi(d), gexi_arg_lo(&ctr),
                                        gexi_arg_hi(&ctr) };
            const struct gex_conduit_am m = {
                .category = GEX_CONDUIT_AM_MEDIUM, .is_request = 1, .handler = H_DATA,
                .nargs = 4, .src_ep = src_ep, .dst_ep = dst_ep, .args = a, .payload = b,
                .nbytes = len,
            };
            if (gexi_am_result(gexi_am_send_request(jobrank, &m, f), f)) {
                free(b);      /* IMMEDIATE refused the first piece: nothing was sent */
                return 1;
            }
            f = 0;
        }
        GEXI_POLL_UNTIL(atomic_load_explicit(&ctr, memory_order_acquire) == 0);
    }
    fill_hdr((struct kind_hdr *)b, handler, dest, n, last, nargs, args);
    if (last) stage(ss, b + HDR_SIZE, src, body, last, "AM Request Long");
    const struct gex_conduit_am m = {
        .category = GEX_CONDUIT_AM_MEDIUM, .is_request = 1, .handler = H_FINAL_REQ,
        .src_ep = src_ep, .dst_ep = dst_ep, .payload = b, .nbytes = HDR_SIZE + last,
    };
    int rc = gexi_am_result(gexi_am_send_request(jobrank, &m, f), f);
    free(b);
    return rc;
}

/* Reply Long to a device destination: one Medium reply, the rest stashed
 * for the receiver to pull (file comment). */
static int reply_staged(void *reply_ctx, gex_EP_Index_t src_ep, gex_EP_Index_t dst_ep,
                        gex_AM_Index_t handler, struct gexi_segment *ss, const void *src,
                        size_t n, void *dest, gex_Flags_t flags, unsigned nargs,
                        const gex_AM_Arg_t *args)
{
    const size_t first = n < kind_chunk - HDR_SIZE ? n : kind_chunk - HDR_SIZE;
    struct kind_stash *st = NULL;
    char *b = xmalloc(HDR_SIZE + first);
    fill_hdr((struct kind_hdr *)b, handler, dest, n, first, nargs, args);
    stage(ss, b + HDR_SIZE, src, 0, first, "AM Reply Long");
    if (first < n) {
        st = xmalloc(sizeof *st + (n - first));
        atomic_init(&st->left, n - first);
        stage(ss, st->data, src, first, n - first, "AM Reply Long");
        ((struct kind_hdr *)b)->stash = (uint64_t)(uintptr_t)st;
    }
    const struct gex_conduit_am m = {
        .category = GEX_CONDUIT_AM_MEDIUM, .is_request = 0, .handler = H_FINAL_REP,
        .src_ep = src_ep, .dst_ep = dst_ep, .payload = b, .nbytes = HDR_SIZE + first,
    };
    const int rc = gexi_am_result(gexi_am_send_reply(reply_ctx, &m, flags), flags);
    free(b);
    if (rc) free(st);   /* IMMEDIATE refused: nothing was sent */
    return rc;
}

int gexi_am_kind_request(gex_Rank_t jobrank, gex_EP_Index_t src_ep, gex_EP_Index_t dst_ep,
                         gex_AM_Index_t handler, const void *src, size_t n, void *dest,
                         gex_Flags_t flags, unsigned nargs, const gex_AM_Arg_t *args)
{
    struct gexi_segment *ss = src_dev(src_ep, src, n);
    const int dd = n && gexi_mk_peer_is_device(jobrank, dst_ep);
    if (!dd) {
        if (!ss) return -1;
        const struct gex_conduit_am m = {
            .category = GEX_CONDUIT_AM_LONG, .is_request = 1, .handler = handler,
            .nargs = (uint8_t)nargs, .src_ep = src_ep, .dst_ep = dst_ep, .args = args,
            .payload = (void *)src, .nbytes = n, .dest_addr = dest,
        };
        return send_bounced(1, jobrank, NULL, m, ss, flags);
    }
    return request_staged(jobrank, src_ep, dst_ep, handler, ss, src, n, dest, flags, nargs, args);
}

int gexi_am_kind_reply(struct gexi_token *t, gex_AM_Index_t handler, const void *src, size_t n,
                       void *dest, gex_Flags_t flags, unsigned nargs, const gex_AM_Arg_t *args)
{
    struct gexi_segment *ss = src_dev(t->ep->index, src, n);
    const int dd = n && gexi_mk_peer_is_device(t->src_jobrank, t->src_ep);
    if (!dd) {
        if (!ss) return -1;
        const struct gex_conduit_am m = {
            .category = GEX_CONDUIT_AM_LONG, .is_request = 0, .handler = handler,
            .nargs = (uint8_t)nargs, .src_ep = t->ep->index, .dst_ep = t->src_ep, .args = args,
            .payload = (void *)src, .nbytes = n, .dest_addr = dest,
        };
        return send_bounced(0, 0, t->reply_ctx, m, ss, flags);
    }
    return reply_staged(t->reply_ctx, t->ep->index, t->src_ep, handler, ss, src, n, dest, flags,
                        nargs, args);
}

/* Negotiated-payload Long Commit (gexi_am_np_commit): -1 when no device
 * memory is involved, else the commit is done here (0). */
int gexi_am_kind_np_commit(struct gexi_am_sd *sd, int is_request, gex_AM_Index_t handler,
                           size_t n, void *dest, unsigned nargs, const gex_AM_Arg_t *args)
{
    const gex_EP_Index_t me = sd->m.src_ep, peer = sd->m.dst_ep;
    if (sd->slots->prepare != gexi_am_np_ref_prepare) {
        /* A conduit's own Long reservation (smp: zero copy into a mapped
         * destination) never has a device destination: the Prepare takes
         * the reference slots for those (am_np.c), and smp declines client
         * buffers.  A conduit that accepted a device source buffer would
         * need staging here, where a Request's jobrank is the conduit's
         * private state: diagnosed instead. */
        if (src_dev(me, sd->np.buf, n) ||
            (n && !is_request && gexi_mk_peer_is_device(sd->token->src_jobrank, peer)))
            gexi_fatal("gex_AM_Commit%sLong: memory kinds need the reference negotiated-"
                       "payload Long path (GEX_FORCE_REFERENCE=am)",
                       is_request ? "Request" : "Reply");
        return -1;
    }
    const gex_Rank_t jr = is_request ? (gex_Rank_t)sd->np.priv[0] : sd->token->src_jobrank;
    const int dd = n && gexi_mk_peer_is_device(jr, peer);
    struct gexi_segment *ss = src_dev(me, sd->np.buf, n);
    if (!dd && !ss) return -1;
    /* The reference slots reserved nothing (am_np_ref.c): the prepared bytes
     * (client buffer or this thread's library buffer) go out as they are. */
    sd->slots->cancel(gexi_core.conduit, &sd->np);
    sd->state = GEXI_SD_COMMITTING;
    if (is_request) {
        (void)gexi_am_kind_request(jr, me, peer, handler, sd->np.buf, n, dest, 0, nargs, args);
    } else {
        (void)gexi_am_kind_reply(sd->token, handler, sd->np.buf, n, dest, 0, nargs, args);
        sd->token->replied = 1;
    }
    gexi_am_np_consumed(sd);
    if (sd->lc_opt) gexi_am_complete_lc(sd->lc_opt);
    return 0;
}
