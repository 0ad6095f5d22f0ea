/*
 * smp_queue.c: the Active Message transport of the smp conduit: bounded
 * shared-memory rings, the am_request / am_reply / poll ops, the Long
 * payload paths, and the negotiated-payload ops of conduit ABI 1.1
 * (am_prepare / am_commit / am_cancel).  smp_conduit.c maps the regions; everything that runs per
 * message is here, in one translation unit, so the send and poll paths
 * inline into the ops without link-time optimisation.
 *
 * Ring protocol (one producer process, one consumer process per ring).
 *   Positions are 64-bit byte counts that never wrap; offset = pos & mask.
 *   Producer, holding [tail, head + ring_size) as free space:
 *     1. writes the record body (header fields, args, payload) at tail;
 *     2. stores 0 into the word just past the record (the next header);
 *     3. stores the record's word0 with release order.
 *   Consumer: loads the word at head with acquire order; 0 means empty.
 *   Otherwise the record is complete; the handler runs with pointers into the
 *   ring, and only then does the consumer publish head += length (release),
 *   which the producer reads (acquire) before reusing the bytes.
 *   Step 2 is what lets the consumer trust a non-zero word: the word at the
 *   producer's tail is always 0 (initially because the region is fresh
 *   zeroed memory, later because step 2 of the previous record wrote it
 *   before that record was published), so older bytes (a payload of the last
 *   lap) are never read as a header.  This costs one extra 8-byte store and
 *   keeps the producer's writes to the record's own cache lines, with no tail
 *   index for the consumer to fetch from another cache.
 *   A record never wraps: when it does not fit before the end of the ring, a
 *   SKIP record covers the rest and the record goes to offset 0.  The SKIP
 *   word is published after the record itself, so the consumer never reaches
 *   offset 0 early.  Free space needed: skip + length + 8 (the zeroed word).
 *
 * Arrival hints (only when the receiver asked for them in its region header,
 * i.e. many ranks): after publishing, the producer also stores the low 32
 * bits of its new tail into the receiver's dense hint array.  An empty poll
 * then reads 2 * jobsize packed words instead of 2 * jobsize ring lines.  The
 * hint is a mirror of the tail written by one producer (under its lock when
 * threaded), never cleared by the consumer, so no wake-up can be lost: the
 * consumer compares it with its own head.  Only message passing with
 * release/acquire is involved; no read-modify-write on a shared word.
 *
 * Why this cannot deadlock (requests and replies wait for room by polling):
 *   a. Requests and replies travel on separate rings, so a reply never waits
 *      for room behind requests.
 *   b. A reply waiting for room drains only this rank's inbound REPLY rings.
 *      Reply handlers may not communicate (spec: "Calls from restricted
 *      context"), so that drain always finishes without waiting on anyone.
 *      Every rank that waits for reply room therefore keeps freeing the
 *      reply rings that others wait on, and a cycle of ranks replying to
 *      each other always moves.
 *   c. A request waiting for room runs full polls, which may run request
 *      handlers that reply; such a reply waits only as in (b).  Nesting is
 *      therefore at most request-wait -> request handler -> reply-wait ->
 *      reply handlers, and the reply-wait never re-enters request handlers,
 *      whose ring is the one being consumed.  The two ring kinds have
 *      separate consumer locks so the nested reply drain is never locked out
 *      by the outer request drain.
 *   d. Progress needs the peer to poll (the GASNet rule for AMs): a rank that
 *      computes without polling stalls only the messages addressed to it.
 *   e. A negotiated-payload reservation (am_prepare .. am_commit, below)
 *      holds one ring's producer lock while the client assembles its
 *      payload, but the client may not communicate meanwhile, so the commit
 *      needs nothing from anyone; other threads wanting that ring wait for
 *      it (IMMEDIATE ones fail at once) and every other ring stays free.
 */
#include "smp_internal.h"

/* ThreadSanitizer cannot follow happens-before through another process: a
 * thread sends a request, the peer's handler replies, and a different
 * thread of ours delivers the reply (writing, say, a get's data into a
 * buffer the first thread allocated).  In TSan builds every publish
 * releases, and every delivery acquires, one process-wide sync object, so
 * what a thread did before sending is ordered before what any thread does
 * on delivering a message, as it is in fact.  Races that involve no
 * message are still reported.  Nothing of this exists in other builds. */
#if defined(__SANITIZE_THREAD__)
#define GEXC_SMP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GEXC_SMP_TSAN 1
#endif
#endif
#ifdef GEXC_SMP_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static char gexc_smp_tsan_sync;
#define GEXC_SMP_TSAN_RELEASE() __tsan_release(&gexc_smp_tsan_sync)
#define GEXC_SMP_TSAN_ACQUIRE() __tsan_acquire(&gexc_smp_tsan_sync)
#else
#define GEXC_SMP_TSAN_RELEASE() ((void)0)
#define GEXC_SMP_TSAN_ACQUIRE() ((void)0)
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Errors ---- */

__attribute__((cold, noinline, format(printf, 3, 4)))
static int gexc_smp_bad_arg(struct gex_conduit *c, const char *op, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->host.log(0, "smp conduit: %s: %s", op, msg);
    return GEX_CONDUIT_EINVAL;
}

/* A record that breaks the format means shared memory was overwritten (or a
 * peer runs a different build): nothing sane can continue. */
__attribute__((cold, noinline, noreturn))
static void gexc_smp_corrupt(struct gex_conduit *c, gex_Rank_t src, unsigned k, uint64_t pos,
                             uint64_t w, const char *what)
{
    c->host.fatal("smp conduit: corrupted %s ring from rank %u to rank %u at position %llu "
                  "(record word %#llx): %s",
                  k == GEXC_SMP_RING_REQ ? "request" : "reply", (unsigned)src, (unsigned)c->me,
                  (unsigned long long)pos, (unsigned long long)w, what);
    abort(); /* fatal() does not return; make sure of it */
}

/* A ring-borne Long piece is about to be written at its absolute address
 * [d, d+n) in this process: the sender could not map the destination, so
 * nothing has checked it.  A client's Long must target the segment bound to
 * the receiving endpoint (spec, AM NOTE 5: "must name a destination EP with
 * a bound segment known to the initiator"); a release build would fault
 * in memcpy here, so the job ends with a message naming the Long instead.
 * One call per piece, on the path that copies through the ring anyway; the
 * mapped (zero-copy) path never gets here.  The layers' own Longs (handler
 * below GEX_AM_INDEX_BASE: an RMA get's reply) may target any memory. */
static inline void gexc_smp_check_long_dest(struct gex_conduit *c, gex_Rank_t src,
                                            uint64_t w, const struct gexc_smp_rec *r,
                                            const void *d, size_t n)
{
    gex_conduit_check_long_dest(&c->host, c->me, src, r->dst_ep, GEXC_SMP_W_HANDLER(w),
                                GEXC_SMP_W_ISREQ(w) != 0, d, n);
}

/* ---- Locks: only when the client may call from several threads ---- */

static inline void gexc_smp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

__attribute__((noinline))
static void gexc_smp_tx_lock_slow(struct gex_conduit *c, struct gexc_smp_tx *tx)
{
    unsigned spins = 0;
    do {
        /* test-and-test-and-set: spin on a shared read, not on the bus */
        while (atomic_load_explicit(&tx->lock, memory_order_relaxed)) {
            gexc_smp_cpu_relax();
            c->host.backoff(&spins);   /* yields when oversubscribed */
        }
    } while (atomic_exchange_explicit(&tx->lock, 1, memory_order_acquire));
}

static inline void gexc_smp_tx_lock(struct gex_conduit *c, struct gexc_smp_tx *tx)
{
    if (!tx->use_lock) return;
    if (GEXC_SMP_LIKELY(!atomic_exchange_explicit(&tx->lock, 1, memory_order_acquire))) return;
    gexc_smp_tx_lock_slow(c, tx);
}

static inline void gexc_smp_tx_unlock(struct gex_conduit *c, struct gexc_smp_tx *tx)
{
    (void)c;
    if (tx->use_lock) atomic_store_explicit(&tx->lock, 0, memory_order_release);
}

/* GEX_FLAG_IMMEDIATE never waits, not even for a lock: another thread of
 * this process may hold it for a whole Prepare..Commit interval. */
static inline int gexc_smp_tx_trylock(struct gex_conduit *c, struct gexc_smp_tx *tx)
{
    (void)c;
    if (!tx->use_lock) return 1;
    return !atomic_load_explicit(&tx->lock, memory_order_relaxed) &&
           !atomic_exchange_explicit(&tx->lock, 1, memory_order_acquire);
}

/* Takes the ring for a send: blocking, or (IMMEDIATE) only if free now. */
static inline int gexc_smp_tx_lock_flags(struct gex_conduit *c, struct gexc_smp_tx *tx,
                                         gex_Flags_t flags)
{
    if (flags & GEX_FLAG_IMMEDIATE) return gexc_smp_tx_trylock(c, tx);
    gexc_smp_tx_lock(c, tx);
    return 1;
}

/* Single consumer per ring kind.  Threaded: a trylock, and a second poller
 * simply returns.  Single-threaded: a plain flag, which still refuses a
 * re-entrant drain of the same rings (a reply handler that tries to send). */
static inline int gexc_smp_poll_trylock(struct gex_conduit *c, struct gexc_smp_poll_lock *pl)
{
    return gexc_smp_poll_trylock_t(c->thread_safe, pl);
}

/* ---- Producer side ---- */

/* Room for a record of len bytes at the tail?  Returns where to write it (and
 * the SKIP length in front of it), or NULL with nothing changed.  Reads the
 * consumer's head only when the cached copy is not enough: in the common
 * case the send touches no line the consumer writes. */
static inline unsigned char *gexc_smp_tx_reserve(struct gex_conduit *c, struct gexc_smp_tx *tx,
                                                 uint32_t len, uint64_t *skip_p)
{
    const uint64_t size = c->ring_size;
    uint64_t pos = tx->tail;
    uint64_t off = pos & c->ring_mask;
    uint64_t skip = (off + len > size) ? size - off : 0;
    uint64_t end = pos + skip + len + 8;          /* + the zeroed next header */
    if (GEXC_SMP_UNLIKELY(end - tx->head_cache > size)) {
        tx->head_cache = atomic_load_explicit(tx->head, memory_order_acquire);
        if (end - tx->head_cache > size) return NULL;
    }
    *skip_p = skip;
    return tx->data + ((pos + skip) & c->ring_mask);
}

/* Publishes a record whose body is written (protocol steps 2 and 3). */
static inline void gexc_smp_tx_publish(struct gex_conduit *c, struct gexc_smp_tx *tx,
                                       unsigned char *rec, uint64_t skip, uint64_t word0,
                                       uint32_t len)
{
    uint64_t pos = tx->tail;
    uint64_t rpos = pos + skip;
    GEXC_SMP_TSAN_RELEASE();
    atomic_store_explicit((_Atomic uint64_t *)(tx->data + ((rpos + len) & c->ring_mask)), 0,
                          memory_order_relaxed);
    atomic_store_explicit((_Atomic uint64_t *)rec, word0 | (uint64_t)len << 32,
                          memory_order_release);
    if (GEXC_SMP_UNLIKELY(skip))   /* after the record: see the file comment */
        atomic_store_explicit((_Atomic uint64_t *)(tx->data + (pos & c->ring_mask)),
                              GEXC_SMP_WORD0(GEXC_SMP_K_SKIP, 0, 0, 0, skip),
                              memory_order_release);
    tx->tail = rpos + len;
    if (tx->hint)
        atomic_store_explicit(tx->hint, (uint32_t)tx->tail, memory_order_release);
}

/* Writes header, args and payload of a reserved record, then publishes it. */
static inline void gexc_smp_tx_fill(struct gex_conduit *c, struct gexc_smp_tx *tx,
                                    unsigned char *p, uint64_t skip, uint64_t word0, uint32_t len,
                                    uint32_t hdr, const struct gex_conduit_am *m,
                                    uint32_t nbytes, uint32_t chunk_len, uint64_t dest,
                                    const void *payload, size_t plen)
{
    struct gexc_smp_rec *r = (struct gexc_smp_rec *)p;
    unsigned nargs = GEXC_SMP_W_NARGS(word0);
    r->src_ep = m->src_ep;
    r->dst_ep = m->dst_ep;
    if (hdr >= GEXC_SMP_HDR_MEDIUM) {
        r->nbytes = nbytes;
        r->chunk_len = chunk_len;
    }
    if (hdr >= GEXC_SMP_HDR_LONG) r->dest_addr = dest;
    if (nargs) memcpy(p + hdr, m->args, 4u * nargs);
    if (plen) memcpy(p + gexc_smp_align8(hdr + 4u * nargs), payload, plen);
    gexc_smp_tx_publish(c, tx, p, skip, word0, len);
}

static int gexc_smp_poll_kind(struct gex_conduit *c, unsigned k, unsigned *budget);

/* One step of a wait for ring room: make the progress that can free it
 * without deadlock (file comment, b and c), then back off.  A send from a
 * serialized EP also serves that EP's own rings (poll() never does), in
 * the same kinds: a waiting reply drains only reply rings. */
static void gexc_smp_wait_progress(struct gex_conduit *c, unsigned k, unsigned src_ep,
                                   unsigned *spins)
{
    struct gexc_smp_lep *l = src_ep && src_ep < GEXC_SMP_MAX_EPS
                           ? atomic_load_explicit(&c->leps[src_ep], memory_order_acquire) : NULL;
    if (k == GEXC_SMP_RING_REQ) {
        gexc_smp_poll(c);
        if (l && l->serialized) gexc_smp_poll_ep(c, (gex_EP_Index_t)src_ep);
    } else {
        unsigned budget = c->poll_budget;
        gexc_smp_poll_kind(c, GEXC_SMP_RING_REP, &budget);
        budget = c->poll_budget;
        gexc_smp_poll_leps(c, GEXC_SMP_RING_REP, &budget);
        budget = c->poll_budget;
        if (l && l->serialized) gexc_smp_lep_poll_kind(c, l, GEXC_SMP_RING_REP, &budget);
    }
    c->host.backoff(spins);
}

/* Reserves like gexc_smp_tx_reserve but waits for room; returns with the
 * ring locked.  The lock is never held while polling: handlers run then. */
__attribute__((noinline))
static unsigned char *gexc_smp_tx_reserve_wait(struct gex_conduit *c, struct gexc_smp_tx *tx,
                                               unsigned k, uint32_t len, uint64_t *skip_p)
{
    unsigned spins = 0;
    for (;;) {
        gexc_smp_wait_progress(c, k, tx->src_ep, &spins);
        gexc_smp_tx_lock(c, tx);
        unsigned char *p = gexc_smp_tx_reserve(c, tx, len, skip_p);
        if (p) return p;
        gexc_smp_tx_unlock(c, tx);
    }
}

/* Locks the ring and reserves one record of len bytes: at once, or (without
 * GEX_FLAG_IMMEDIATE) after waiting for room.  NULL: IMMEDIATE and no room
 * or lock, nothing done.  Otherwise returns with the ring locked. */
static inline unsigned char *gexc_smp_tx_reserve_one(struct gex_conduit *c,
                                                     struct gexc_smp_tx *tx, unsigned k,
                                                     uint32_t len, gex_Flags_t flags,
                                                     uint64_t *skip_p)
{
    if (GEXC_SMP_UNLIKELY(!gexc_smp_tx_lock_flags(c, tx, flags))) return NULL;
    unsigned char *p = gexc_smp_tx_reserve(c, tx, len, skip_p);
    if (GEXC_SMP_UNLIKELY(!p)) {
        gexc_smp_tx_unlock(c, tx);
        if (flags & GEX_FLAG_IMMEDIATE) return NULL;   /* nothing was done */
        p = gexc_smp_tx_reserve_wait(c, tx, k, len, skip_p);
    }
    return p;
}

/* Would `count` LONGDATA records of data_len bytes followed by one record of
 * final_len bytes all fit now?  (IMMEDIATE needs all or nothing.) */
static int gexc_smp_tx_fits_seq(struct gex_conduit *c, struct gexc_smp_tx *tx, uint32_t data_len,
                                size_t count, uint32_t final_len)
{
    const uint64_t size = c->ring_size;
    uint64_t pos = tx->tail;
    for (size_t i = 0; i <= count; i++) {
        uint32_t len = i < count ? data_len : final_len;
        uint64_t off = pos & c->ring_mask;
        if (off + len > size) pos += size - off;
        pos += len;
        if (pos + 8 - tx->tail > size) return 0;   /* more than a whole ring: never fits */
    }
    uint64_t end = pos + 8;
    if (end - tx->head_cache > size) {
        tx->head_cache = atomic_load_explicit(tx->head, memory_order_acquire);
        if (end - tx->head_cache > size) return 0;
    }
    return 1;
}

/* Long whose destination is not mapped in this process: the payload travels
 * through the ring in LONGDATA pieces of c->chunk bytes that the receiver
 * copies to their absolute destination, and the last piece rides in the
 * LONG record itself, whose handler therefore runs after every byte landed
 * (records of one ring are consumed in order; pieces of concurrent threads
 * may interleave, which is harmless since each names its own address). */
__attribute__((noinline))
static int gexc_smp_send_long_chunked(struct gex_conduit *c, struct gexc_smp_tx *tx, unsigned k,
                                      const struct gex_conduit_am *m, gex_Flags_t flags)
{
    const unsigned char *src = m->payload;
    const uint64_t dest = (uint64_t)(uintptr_t)m->dest_addr;
    const size_t n = m->nbytes, chunk = c->chunk;
    const size_t final_off = ((n - 1) / chunk) * chunk;   /* n > 0 here; not a hot path */
    const size_t final_plen = n - final_off;
    const unsigned isreq = k == GEXC_SMP_RING_REQ, nargs = m->nargs;
    const uint32_t data_len = (uint32_t)(GEXC_SMP_HDR_LONG + chunk);
    const uint32_t final_len = (uint32_t)(gexc_smp_align8(GEXC_SMP_HDR_LONG + 4u * nargs) +
                                          gexc_smp_align8(final_plen));
    const uint64_t wdata = GEXC_SMP_WORD0(GEXC_SMP_K_LONGDATA, isreq, m->handler, 0, 0);
    const uint64_t wfinal = GEXC_SMP_WORD0(GEXC_SMP_K_LONG, isreq, m->handler, nargs, 0);
    struct gex_conduit_am piece = *m;
    uint64_t skip;
    unsigned char *p;

    piece.nargs = 0;
    if (flags & GEX_FLAG_IMMEDIATE) {
        if (!gexc_smp_tx_trylock(c, tx)) return GEX_CONDUIT_EAGAIN;
        if (!gexc_smp_tx_fits_seq(c, tx, data_len, final_off / chunk, final_len)) {
            gexc_smp_tx_unlock(c, tx);
            return GEX_CONDUIT_EAGAIN;
        }
        for (size_t off = 0; off < final_off; off += chunk) {
            p = gexc_smp_tx_reserve(c, tx, data_len, &skip);   /* fits: checked above */
            gexc_smp_tx_fill(c, tx, p, skip, wdata, data_len, GEXC_SMP_HDR_LONG, &piece, 0,
                             (uint32_t)chunk, dest + off, src + off, chunk);
        }
        p = gexc_smp_tx_reserve(c, tx, final_len, &skip);
        gexc_smp_tx_fill(c, tx, p, skip, wfinal, final_len, GEXC_SMP_HDR_LONG, m, (uint32_t)n,
                         (uint32_t)final_plen, dest, src + final_off, final_plen);
        gexc_smp_tx_unlock(c, tx);
        return GEX_CONDUIT_OK;
    }
    for (size_t off = 0; off < final_off; off += chunk) {
        gexc_smp_tx_lock(c, tx);
        p = gexc_smp_tx_reserve(c, tx, data_len, &skip);
        if (!p) {
            gexc_smp_tx_unlock(c, tx);
            p = gexc_smp_tx_reserve_wait(c, tx, k, data_len, &skip);
        }
        gexc_smp_tx_fill(c, tx, p, skip, wdata, data_len, GEXC_SMP_HDR_LONG, &piece, 0,
                         (uint32_t)chunk, dest + off, src + off, chunk);
        gexc_smp_tx_unlock(c, tx);
    }
    gexc_smp_tx_lock(c, tx);
    p = gexc_smp_tx_reserve(c, tx, final_len, &skip);
    if (!p) {
        gexc_smp_tx_unlock(c, tx);
        p = gexc_smp_tx_reserve_wait(c, tx, k, final_len, &skip);
    }
    gexc_smp_tx_fill(c, tx, p, skip, wfinal, final_len, GEXC_SMP_HDR_LONG, m, (uint32_t)n,
                     (uint32_t)final_plen, dest, src + final_off, final_plen);
    gexc_smp_tx_unlock(c, tx);
    return GEX_CONDUIT_OK;
}

/* The send path shared by requests (k = REQ) and replies (k = REP). */
static inline int gexc_smp_send(struct gex_conduit *c, gex_Rank_t dst, unsigned k,
                                const struct gex_conduit_am *m, gex_Flags_t flags,
                                const char *op)
{
    const unsigned nargs = m->nargs, cat = m->category;
    uint32_t hdr, nbytes = 0;
    const void *payload = NULL;
    size_t plen = 0;
    void *long_local = NULL;    /* IMMEDIATE Long: copy once room is certain */
    uint64_t dest = 0;

    if (GEXC_SMP_UNLIKELY(nargs > GEXC_SMP_MAX_ARGS))
        return gexc_smp_bad_arg(c, op, "nargs %u exceeds the maximum of %u", nargs,
                                GEXC_SMP_MAX_ARGS);
    switch (cat) {
    case GEX_CONDUIT_AM_SHORT:
        hdr = GEXC_SMP_HDR_SHORT;
        break;
    case GEX_CONDUIT_AM_MEDIUM:
        if (GEXC_SMP_UNLIKELY(m->nbytes > c->max_medium))
            return gexc_smp_bad_arg(c, op, "Medium payload of %zu bytes exceeds MaxMedium %zu",
                                    m->nbytes, c->max_medium);
        hdr = GEXC_SMP_HDR_MEDIUM;
        nbytes = (uint32_t)m->nbytes;
        plen = m->nbytes;
        payload = m->payload;
        break;
    case GEX_CONDUIT_AM_LONG:
        if (GEXC_SMP_UNLIKELY(m->nbytes > c->max_long))
            return gexc_smp_bad_arg(c, op, "Long payload of %zu bytes exceeds the maximum %zu",
                                    m->nbytes, c->max_long);
        hdr = GEXC_SMP_HDR_LONG;
        nbytes = (uint32_t)m->nbytes;
        dest = (uint64_t)(uintptr_t)m->dest_addr;
        if (nbytes) {
            long_local = c->host.peer_local_addr(dst, m->dst_ep, m->dest_addr, m->nbytes);
            if (GEXC_SMP_UNLIKELY(!long_local))
                return gexc_smp_send_long_chunked(c, gexc_smp_tx_for(c, dst, k, m->src_ep,
                                                                     m->dst_ep), k, m, flags);
            if (!(flags & GEX_FLAG_IMMEDIATE)) {
                /* before taking the ring: other threads keep sending meanwhile.
                 * memmove: a Long to self may copy within one segment. */
                memmove(long_local, m->payload, m->nbytes);
                long_local = NULL;
            }
        }
        break;
    default:
        return gexc_smp_bad_arg(c, op, "unknown AM category %u", cat);
    }

    const uint32_t len = (uint32_t)(gexc_smp_align8(hdr + 4u * nargs) + gexc_smp_align8(plen));
    const uint64_t word0 = GEXC_SMP_WORD0(cat, k == GEXC_SMP_RING_REQ, m->handler, nargs, 0);
    struct gexc_smp_tx *tx = gexc_smp_tx_for(c, dst, k, m->src_ep, m->dst_ep);
    uint64_t skip;

    unsigned char *p = gexc_smp_tx_reserve_one(c, tx, k, len, flags, &skip);
    if (GEXC_SMP_UNLIKELY(!p)) return GEX_CONDUIT_EAGAIN;
    if (long_local) memmove(long_local, m->payload, m->nbytes);
    gexc_smp_tx_fill(c, tx, p, skip, word0, len, hdr, m, nbytes, 0, dest, payload, plen);
    gexc_smp_tx_unlock(c, tx);
    return GEX_CONDUIT_OK;
}

int gexc_smp_am_request(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                        const struct gex_conduit_am *m, gex_Flags_t flags)
{
    if (GEXC_SMP_UNLIKELY(dst_jobrank >= c->n))
        return gexc_smp_bad_arg(c, "am_request", "destination jobrank %u >= jobsize %u",
                                (unsigned)dst_jobrank, (unsigned)c->n);
    return gexc_smp_send(c, dst_jobrank, GEXC_SMP_RING_REQ, m, flags, "am_request");
}

int gexc_smp_am_reply(struct gex_conduit *c, void *reply_ctx, const struct gex_conduit_am *m,
                      gex_Flags_t flags)
{
    uintptr_t v = (uintptr_t)reply_ctx - 1;   /* see gexc_smp_reply_ctx(); NULL wraps high */
    if (GEXC_SMP_UNLIKELY(v >= c->n))
        return gexc_smp_bad_arg(c, "am_reply", "reply_ctx %p was not handed out by this conduit",
                                reply_ctx);
    return gexc_smp_send(c, (gex_Rank_t)v, GEXC_SMP_RING_REP, m, flags, "am_reply");
}

/* ---- Negotiated-payload Mediums (conduit ABI 1.1) ----
 * am_prepare reserves a record in the destination ring exactly as a send
 * does (steps before 1 of the protocol) and hands out its payload area, so
 * a client that assembles its payload there writes it into the receiver's
 * memory once and never again.  Nothing is published and the tail does not
 * move, so the consumer cannot see the reservation; am_commit writes the
 * header and args and publishes (steps 1-3) with the length actually used,
 * and am_cancel just forgets it.  The reservation is only valid while the
 * tail stays where it was: with host->thread_safe the ring's producer lock
 * is held from am_prepare to am_commit/am_cancel, and single-threaded the
 * spec's rule that nothing communicates between Prepare and Commit keeps
 * the tail still.  Other rings (other destinations, and the reply rings)
 * stay usable by other threads meanwhile; a thread that wants the same
 * ring waits for the commit, which needs nothing from it (no deadlock), and
 * an IMMEDIATE send to that ring fails fast instead.
 *
 * Negotiation: the record may be anywhere from (header, args, least bytes)
 * to (header, args, min(most, MaxMedium) bytes); am_prepare takes the
 * largest that fits now and waits (or, IMMEDIATE, fails) only when not
 * even `least` fits.  A conduit buffer is placed at an aligned offset of
 * the record (16 bytes, or a cache line from GEXC_SMP_NP_LINE_MIN bytes on)
 * and a non-standard offset travels in the record's chunk_len (layout
 * version 2).
 * Cost: the pair does what one fixed-payload send does, minus the payload
 * copy.  am_prepare has a fast path (Medium, library buffer, EP 0,
 * most_payload up to c->np_fast_most, no SKIP needed) that calls nothing
 * and restarts anything unusual in the general path, and leaves am_commit
 * a ready word0 template, so a Commit checks two things (one masked
 * compare for category, direction and nargs, and the size), writes header,
 * args and word0, and releases (docs/am.md has the instruction counts).
 * np->priv: [0] the tx, [1] the record, [2] the SKIP length in front,
 * [3] word0 of the record without handler and length (kind, is_request,
 * nargs) | the payload offset << 32.  np->size never exceeds the room
 * reserved after the payload offset, which is a multiple of 8, so a Commit
 * of at most np->size bytes with the prepared nargs always fits. */

/* The partial-room case of gexc_smp_tx_reserve_range (out of line: rare). */
__attribute__((noinline))
static unsigned char *gexc_smp_tx_reserve_partial(struct gex_conduit *c, struct gexc_smp_tx *tx,
                                                  uint32_t min_len, uint32_t max_len,
                                                  uint64_t *skip_p, uint32_t *len_p)
{
    const uint64_t size = c->ring_size;
    const uint64_t pos = tx->tail, off = pos & c->ring_mask;
    uint64_t skip = (off + max_len > size) ? size - off : 0;
    tx->head_cache = atomic_load_explicit(tx->head, memory_order_acquire);
    if (pos + skip + max_len + 8 - tx->head_cache <= size) {   /* all of it fits after all */
        *skip_p = skip;
        *len_p = max_len;
        return tx->data + ((pos + skip) & c->ring_mask);
    }
    /* partial room: free bytes up to the consumer, minus the zeroed word */
    const uint64_t free = size - (pos - tx->head_cache);
    const uint64_t to_end = size - off;
    const uint64_t room_here = free >= 8 ? (to_end < free - 8 ? to_end : free - 8) : 0;
    const uint64_t room_wrap = free > to_end + 8 ? free - to_end - 8 : 0;
    uint64_t len;
    if (room_here >= min_len && room_here >= room_wrap) {
        skip = 0;
        len = room_here;
    } else if (room_wrap >= min_len) {
        skip = to_end;
        len = room_wrap;
    } else {
        return NULL;
    }
    *skip_p = skip;
    *len_p = (uint32_t)(len < max_len ? len : max_len);
    return tx->data + ((pos + skip) & c->ring_mask);
}

/* Like gexc_smp_tx_reserve for a record of min_len..max_len bytes: the
 * longest that fits now (preferring max_len, then no SKIP), or NULL. */
static inline unsigned char *gexc_smp_tx_reserve_range(struct gex_conduit *c,
                                                       struct gexc_smp_tx *tx, uint32_t min_len,
                                                       uint32_t max_len, uint64_t *skip_p,
                                                       uint32_t *len_p)
{
    const uint64_t size = c->ring_size;
    const uint64_t pos = tx->tail, off = pos & c->ring_mask;
    const uint64_t skip = (off + max_len > size) ? size - off : 0;
    if (GEXC_SMP_UNLIKELY(pos + skip + max_len + 8 - tx->head_cache > size))
        return gexc_smp_tx_reserve_partial(c, tx, min_len, max_len, skip_p, len_p);
    *skip_p = skip;
    *len_p = max_len;
    return tx->data + ((pos + skip) & c->ring_mask);
}

/* Waits (making progress as a blocked send does) until at least min_len
 * fits; returns with the ring locked. */
__attribute__((noinline))
static unsigned char *gexc_smp_tx_reserve_range_wait(struct gex_conduit *c,
                                                     struct gexc_smp_tx *tx, unsigned k,
                                                     uint32_t min_len, uint32_t max_len,
                                                     uint64_t *skip_p, uint32_t *len_p)
{
    unsigned spins = 0;
    for (;;) {
        gexc_smp_wait_progress(c, k, tx->src_ep, &spins);
        gexc_smp_tx_lock(c, tx);
        unsigned char *p = gexc_smp_tx_reserve_range(c, tx, min_len, max_len, skip_p, len_p);
        if (p) return p;
        gexc_smp_tx_unlock(c, tx);
    }
}

/* The ring lines of a reservation are often shared with the consumer (it
 * read them on an earlier lap): a client assembling its payload there would
 * wait for one ownership transfer per line, one after the other as its
 * stores reach them, where the fixed-payload path's memcpy streams whole
 * lines.  Asking for all of them with write intent as soon as the record is
 * reserved overlaps those transfers with each other and with the client's
 * work (measured: from 1 KiB on, in-place payloads then beat the copy when
 * the two ranks do not share a core).  When they do share one (SMT
 * siblings) the prefetches only cost; GEX_SMP_NP_PREFETCH (c->np_prefetch)
 * bounds how many bytes are prefetched (default 16 KiB, 0: none). */
static inline void gexc_smp_prefetch_for_write(const struct gex_conduit *c, unsigned char *p,
                                               size_t n)
{
    if (n > c->np_prefetch) n = c->np_prefetch;
    /* four lines a step (instructions count at 2 KiB: 32 lines); the last
     * step may name up to three lines past n: a prefetch never faults
     * and changes no memory */
    const unsigned char *const end = p + n;
    for (; p < end; p += 4 * GEXC_SMP_CACHELINE) {
#if defined(__x86_64__) || defined(__i386__)
        __asm__ __volatile__("prefetchw %0\n\tprefetchw %1\n\tprefetchw %2\n\tprefetchw %3"
                             : : "m"(p[0]), "m"(p[GEXC_SMP_CACHELINE]),
                                 "m"(p[2 * GEXC_SMP_CACHELINE]), "m"(p[3 * GEXC_SMP_CACHELINE]));
#else
        __builtin_prefetch(p, 1, 3);
        __builtin_prefetch(p + GEXC_SMP_CACHELINE, 1, 3);
        __builtin_prefetch(p + 2 * GEXC_SMP_CACHELINE, 1, 3);
        __builtin_prefetch(p + 3 * GEXC_SMP_CACHELINE, 1, 3);
#endif
    }
}

/* Hands out a reserved record: its payload area (or the client's buffer)
 * and what am_commit needs (np->priv, see above). */
static inline void gexc_smp_np_fill(const struct gex_conduit *c, const struct gex_conduit_am *m,
                                    struct gex_conduit_np *np, struct gexc_smp_tx *tx,
                                    unsigned char *p, uint64_t skip, uint32_t len, size_t want,
                                    uint32_t pmax)
{
    const uint32_t pbase = (uint32_t)gexc_smp_align8(GEXC_SMP_HDR_MEDIUM + 4u * m->nargs);
    /* pmax > pbase: room was reserved to align the payload to the next
     * power of two above pmax - pbase (16 or GEXC_SMP_NP_ALIGN) */
    const uintptr_t align = pmax - pbase + 8;
    const uint32_t poff = pmax == pbase ? pbase
        : (uint32_t)((((uintptr_t)p + pbase + align - 1) & ~(align - 1)) - (uintptr_t)p);
    const size_t room = len - poff;
    const size_t size = room < want ? room : want;
    np->buf = m->payload ? m->payload : (void *)(p + poff);
    np->size = size;
    np->priv[0] = (uintptr_t)tx;
    np->priv[1] = (uintptr_t)p;
    np->priv[2] = (uintptr_t)skip;
    np->priv[3] = GEXC_SMP_WORD0(GEX_CONDUIT_AM_MEDIUM, m->is_request != 0, 0, m->nargs, 0) |
                  (uint64_t)poff << 32;
    if (!m->payload) gexc_smp_prefetch_for_write(c, p + poff, size);
}

/* am_prepare when the fast path could not finish: the ring's lock was busy
 * (held says whether we hold it now) or the record did not fit.  IMMEDIATE
 * fails (having changed nothing); otherwise take the lock and wait for
 * room.  Out of line, and reached by tail calls, so that the fast path
 * saves no registers. */
__attribute__((noinline))
static int gexc_smp_am_prepare_slow(struct gex_conduit *c, const struct gex_conduit_am *m,
                                    struct gexc_smp_tx *tx, unsigned k, uint32_t min_len,
                                    uint32_t max_len, size_t want, uint32_t pmax,
                                    gex_Flags_t flags, int held, struct gex_conduit_np *np)
{
    uint64_t skip;
    uint32_t len;
    unsigned char *p = NULL;
    if (held) {
        gexc_smp_tx_unlock(c, tx);
    } else if (!(flags & GEX_FLAG_IMMEDIATE)) {
        gexc_smp_tx_lock(c, tx);
        p = gexc_smp_tx_reserve_range(c, tx, min_len, max_len, &skip, &len);
        if (!p) gexc_smp_tx_unlock(c, tx);
    }
    if (!p) {
        if (flags & GEX_FLAG_IMMEDIATE) return GEX_CONDUIT_EAGAIN;   /* nothing was done */
        p = gexc_smp_tx_reserve_range_wait(c, tx, k, min_len, max_len, &skip, &len);
    }
    gexc_smp_np_fill(c, m, np, tx, p, skip, len, want, pmax);
    return GEX_CONDUIT_OK;
}

/* Says which argument of an am_prepare was wrong (cold: the hot path tests
 * them all at once). */
__attribute__((cold, noinline))
static int gexc_smp_prepare_bad(struct gex_conduit *c, gex_Rank_t dst_jobrank, void *reply_ctx,
                                const struct gex_conduit_am *m, size_t least, size_t most)
{
    if (m->is_request && dst_jobrank >= c->n)
        return gexc_smp_bad_arg(c, "am_prepare", "destination jobrank %u >= jobsize %u",
                                (unsigned)dst_jobrank, (unsigned)c->n);
    if (!m->is_request && (uintptr_t)reply_ctx - 1 >= c->n)
        return gexc_smp_bad_arg(c, "am_prepare", "reply_ctx %p was not handed out by this conduit",
                                reply_ctx);
    if (m->category != GEX_CONDUIT_AM_MEDIUM)
        return gexc_smp_bad_arg(c, "am_prepare", "category %u cannot be prepared", m->category);
    return gexc_smp_bad_arg(c, "am_prepare", "nargs %u, least %zu, most %zu (Max%s %zu)",
                            m->nargs, least, most,
                            m->category == GEX_CONDUIT_AM_LONG ? "Long" : "Medium",
                            m->category == GEX_CONDUIT_AM_LONG ? c->max_long : c->max_medium);
}

/* ---- Negotiated-payload Longs: zero copy into a mapped destination ----
 * When the client asks for a library buffer (m->payload NULL) and names
 * the destination at Prepare (a non-NULL dest_addr, which the Commit must
 * repeat: spec), and that range of the peer's segment is mapped in this
 * process (PSHM), the buffer handed out *is* the destination, seen through
 * the cross-mapping: the client assembles the payload where the handler
 * will find it, and am_commit only publishes a Long record that carries no
 * payload (chunk_len 0, exactly as a fixed-payload Long to a mapped
 * destination).  The buffer must be "suitably aligned to hold any data
 * type" (spec), so dest_addr must be 16-byte aligned.  Nothing is reserved
 * and no lock is held between Prepare and Commit.  Every other case
 * (client buffer, no or unaligned dest_addr, [dest_addr, dest_addr +
 * min(most, MaxLong)) not all mapped: GEX_PSHM=0, another host, a device
 * segment, a most_payload past the segment's end) returns GEX_CONDUIT_ENOTSUP,
 * and libgex-am serves it with its reference path.
 * Consequences the client can see (docs/am.md): the destination bytes
 * change as the client writes them, before the Commit; a shorter Commit or
 * a Cancel leaves what was written beyond nbytes in place (the spec's
 * GEX_FLAG_PEER_SEG_* text already treats [dest_addr, dest_addr +
 * most_payload) as involved from the Prepare on).
 * GEX_FLAG_IMMEDIATE: the Prepare fails (EAGAIN, nothing done) when the
 * record could not be published now (ring locked by another thread, or
 * full); the Commit*_v2 flag is honoured as for any send.
 * np->priv: [0] 0 (no ring held), [1] destination jobrank, [2] the
 * prepared dest_addr, [3] the ring kind << 32 | 0xff (a low word that no
 * Medium template has: am_commit sends the Commit here). */
__attribute__((noinline))
static int gexc_smp_np_long_prepare(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                                    void *reply_ctx, const struct gex_conduit_am *m, size_t least,
                                    size_t most, gex_Flags_t flags, struct gex_conduit_np *np)
{
    const uintptr_t dst = m->is_request ? (uintptr_t)dst_jobrank : (uintptr_t)reply_ctx - 1;
    if (GEXC_SMP_UNLIKELY(dst >= c->n || m->nargs > GEXC_SMP_MAX_ARGS || least > most ||
                          least > c->max_long))
        return gexc_smp_prepare_bad(c, dst_jobrank, reply_ctx, m, least, most);
    if (m->payload || !m->dest_addr || ((uintptr_t)m->dest_addr & 15)) return GEX_CONDUIT_ENOTSUP;
    /* the whole offer, min(most, MaxLong), must lie in the mapped segment
     * (a most_payload far beyond the segment gets the reference buffer) */
    const size_t size = most < c->max_long ? most : c->max_long;
    void *local = c->host.peer_local_addr((gex_Rank_t)dst, m->dst_ep, m->dest_addr, size);
    if (!local || ((uintptr_t)local & 15)) return GEX_CONDUIT_ENOTSUP;
    const unsigned k = m->is_request ? GEXC_SMP_RING_REQ : GEXC_SMP_RING_REP;
    if (flags & GEX_FLAG_IMMEDIATE) {   /* could the record be published now? */
        struct gexc_smp_tx *tx = gexc_smp_tx_for(c, (gex_Rank_t)dst, k, m->src_ep, m->dst_ep);
        uint64_t skip;
        const uint32_t len = (uint32_t)gexc_smp_align8(GEXC_SMP_HDR_LONG + 4u * m->nargs);
        if (!gexc_smp_tx_trylock(c, tx)) return GEX_CONDUIT_EAGAIN;
        const int room = gexc_smp_tx_reserve(c, tx, len, &skip) != NULL;   /* changes nothing */
        gexc_smp_tx_unlock(c, tx);
        if (!room) return GEX_CONDUIT_EAGAIN;
    }
    np->buf = local;
    np->size = size;
    np->priv[0] = 0;
    np->priv[1] = dst;
    np->priv[2] = (uintptr_t)m->dest_addr;
    np->priv[3] = (uint64_t)k << 32 | 0xffu;   /* low word: no Medium's template */
    return GEX_CONDUIT_OK;
}

/* Publishes the payload-less Long record of a zero-copy Long. */
__attribute__((noinline))
static int gexc_smp_np_long_commit(struct gex_conduit *c, struct gex_conduit_np *np,
                                   const struct gex_conduit_am *m, gex_Flags_t flags)
{
    const unsigned nargs = m->nargs;
    const unsigned k = (unsigned)(np->priv[3] >> 32);
    if (GEXC_SMP_UNLIKELY(np->priv[0] != 0 || m->nbytes > np->size || nargs > GEXC_SMP_MAX_ARGS ||
                          (uintptr_t)m->dest_addr != np->priv[2] || m->payload != np->buf ||
                          k != (m->is_request ? GEXC_SMP_RING_REQ : GEXC_SMP_RING_REP)))
        return gexc_smp_bad_arg(c, "am_commit", "Long of %zu bytes to %p does not match the "
                                "prepared %zu bytes to %p", m->nbytes, m->dest_addr, np->size,
                                (void *)np->priv[2]);
    const gex_Rank_t dst = (gex_Rank_t)np->priv[1];
    const uint32_t len = (uint32_t)gexc_smp_align8(GEXC_SMP_HDR_LONG + 4u * nargs);
    const uint64_t word0 = GEXC_SMP_WORD0(GEX_CONDUIT_AM_LONG, k == GEXC_SMP_RING_REQ, m->handler,
                                          nargs, 0);
    struct gexc_smp_tx *tx = gexc_smp_tx_for(c, dst, k, m->src_ep, m->dst_ep);
    uint64_t skip;
    unsigned char *p = gexc_smp_tx_reserve_one(c, tx, k, len, flags, &skip);
    if (GEXC_SMP_UNLIKELY(!p)) return GEX_CONDUIT_EAGAIN;
    gexc_smp_tx_fill(c, tx, p, skip, word0, len, GEXC_SMP_HDR_LONG, m, (uint32_t)m->nbytes, 0,
                     (uint64_t)np->priv[2], NULL, 0);
    gexc_smp_tx_unlock(c, tx);
    return GEX_CONDUIT_OK;
}

_Static_assert(((GEXC_SMP_HDR_MEDIUM + 4u * GEXC_SMP_MAX_ARGS + 7u) & ~7u) + 8u <=
               ((GEXC_SMP_HDR_LONG + 4u * GEXC_SMP_MAX_ARGS + 7u) & ~7u),
               "a 16-byte aligned library buffer of MaxMedium bytes fits the largest record");

/* am_prepare in general: a Long, a client buffer, a most_payload above
 * c->np_fast_most, or an argument to report. */
__attribute__((noinline))
static int gexc_smp_am_prepare_general(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                                       void *reply_ctx, const struct gex_conduit_am *m,
                                       size_t least, size_t most, gex_Flags_t flags,
                                       struct gex_conduit_np *np)
{
    /* reply_ctx is the requester's jobrank + 1 (gexc_smp_reply_ctx); NULL wraps high */
    const uintptr_t dst = m->is_request ? (uintptr_t)dst_jobrank : (uintptr_t)reply_ctx - 1;
    const unsigned nargs = m->nargs;
    if (m->category == GEX_CONDUIT_AM_LONG)
        return gexc_smp_np_long_prepare(c, dst_jobrank, reply_ctx, m, least, most, flags, np);
    if (GEXC_SMP_UNLIKELY((dst >= c->n) | (m->category != GEX_CONDUIT_AM_MEDIUM) |
                          (nargs > GEXC_SMP_MAX_ARGS) | (least > most) | (least > c->max_medium)))
        return gexc_smp_prepare_bad(c, dst_jobrank, reply_ctx, m, least, most);
    const unsigned k = m->is_request ? GEXC_SMP_RING_REQ : GEXC_SMP_RING_REP;
    const size_t want = most < c->max_medium ? most : c->max_medium;
    const uint32_t pbase = (uint32_t)gexc_smp_align8(GEXC_SMP_HDR_MEDIUM + 4u * nargs);
    /* A conduit buffer is aligned for any data type (16 bytes), and a large
     * one (GEXC_SMP_NP_LINE_MIN) starts a cache line of its own, so that a
     * client assembling it in place never splits a store across lines; a
     * small one stays next to its header (one line fewer to move).  Only if
     * the padding keeps the record within the largest the ring must take. */
    uint32_t pmax = pbase;
    if (!m->payload) {
        /* when the cache-line padding does not fit (many args, want close to
         * MaxMedium), still pad to 16 bytes: that always fits, since
         * pbase + 8 <= align8(HDR_LONG + 4 * MAX_ARGS) (asserted below) */
        const uint64_t room = gexc_smp_max_record(c->max_medium) - gexc_smp_align8(want);
        if (want >= GEXC_SMP_NP_LINE_MIN && pbase + (GEXC_SMP_NP_ALIGN - 8) <= room)
            pmax = pbase + (GEXC_SMP_NP_ALIGN - 8);
        else
            pmax = pbase + (16 - 8);
    }
    const uint32_t max_len = pmax + (uint32_t)gexc_smp_align8(want);
    const uint32_t min_len = pmax + (uint32_t)gexc_smp_align8(least);
    struct gexc_smp_tx *tx = gexc_smp_tx_for(c, (gex_Rank_t)dst, k, m->src_ep, m->dst_ep);
    uint64_t skip;
    uint32_t len;

    if (tx->use_lock && GEXC_SMP_UNLIKELY(atomic_exchange_explicit(&tx->lock, 1,
                                                                     memory_order_acquire)))
        return gexc_smp_am_prepare_slow(c, m, tx, k, min_len, max_len, want, pmax, flags, 0, np);
    unsigned char *p = gexc_smp_tx_reserve_range(c, tx, min_len, max_len, &skip, &len);
    if (GEXC_SMP_UNLIKELY(!p))
        return gexc_smp_am_prepare_slow(c, m, tx, k, min_len, max_len, want, pmax, flags, 1, np);
    /* locked from here to am_commit / am_cancel */
    gexc_smp_np_fill(c, m, np, tx, p, skip, len, want, pmax);
    return GEX_CONDUIT_OK;
}

/* The message word of m: category, is_request, handler and nargs as the
 * low 32 bits of a record's word0 lay them out (kind = category for Short,
 * Medium and Long).  On little-endian targets this is the first four bytes
 * of struct gex_conduit_am, read as one word. */
static inline uint32_t gexc_smp_am_word(const struct gex_conduit_am *m)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t w;
    memcpy(&w, m, sizeof w);
    return w;
#else
    return (uint32_t)m->category | (uint32_t)m->is_request << 8 | (uint32_t)m->handler << 16 |
           (uint32_t)m->nargs << 24;
#endif
}
_Static_assert(offsetof(struct gex_conduit_am, category) == 0 &&
               offsetof(struct gex_conduit_am, is_request) == 1 &&
               offsetof(struct gex_conduit_am, handler) == 2 &&
               offsetof(struct gex_conduit_am, nargs) == 3, "gexc_smp_am_word");
_Static_assert(offsetof(struct gex_conduit_am, dst_ep) ==
               offsetof(struct gex_conduit_am, src_ep) + 4 &&
               offsetof(struct gexc_smp_rec, dst_ep) == offsetof(struct gexc_smp_rec, src_ep) + 4,
               "src_ep and dst_ep are adjacent in both: one 8-byte copy");
/* word0 bits the prepared record fixes: kind, is_request, nargs (the Commit
 * adds handler and length) */
#define GEXC_SMP_NP_WORD_MASK 0xff00ffffu

/* The fast am_prepare gave up (the lock was busy or the record did not fit
 * by the cached head), with nothing held: the general path from the start.
 * np->priv[0..2] hold the destination, least and flags (kept there, not in
 * registers, so that the fast path saves none). */
__attribute__((noinline))
static int gexc_smp_am_prepare_restart(struct gex_conduit *c, const struct gex_conduit_am *m,
                                       size_t most, struct gex_conduit_np *np)
{
    const gex_Rank_t dst = (gex_Rank_t)np->priv[0];
    return gexc_smp_am_prepare_general(c, dst, gexc_smp_reply_ctx(dst), m, (size_t)np->priv[1],
                                       most, (gex_Flags_t)np->priv[2], np);
}

/* The common case in few instructions (fewer than the fixed-payload
 * send's: issue #3): a Medium into a library buffer of at most
 * c->np_fast_most bytes, between the shared rings (EP 0), for which the
 * aligned record always fits the largest record the ring must take,
 * whatever nargs.  Same reservation as the general path, except that a
 * record which would need a SKIP in front (once a lap) is left to it.
 * np->priv[3] is the record's word0 template: the message word of m
 * without the handler (GEXC_SMP_NP_WORD_MASK) | the payload offset << 32. */
int gexc_smp_am_prepare(struct gex_conduit *c, gex_Rank_t dst_jobrank, void *reply_ctx,
                        const struct gex_conduit_am *m, size_t least, size_t most,
                        gex_Flags_t flags, struct gex_conduit_np *np)
{
    const uint32_t w = gexc_smp_am_word(m);
    /* reply_ctx is the requester's jobrank + 1 (gexc_smp_reply_ctx); NULL wraps high */
    const uintptr_t dst = (w & 0xff00u) ? (uintptr_t)dst_jobrank : (uintptr_t)reply_ctx - 1;
    /* a Medium with is_request 0 or 1 and at most 16 args: two tests */
    if (GEXC_SMP_UNLIKELY((w & 0xfeffu) != GEX_CONDUIT_AM_MEDIUM) ||
        GEXC_SMP_UNLIKELY(w > ((uint32_t)GEXC_SMP_MAX_ARGS << 24 | 0xffffffu)) ||
        GEXC_SMP_UNLIKELY(m->payload != NULL) || GEXC_SMP_UNLIKELY(m->dst_ep != 0) ||
        GEXC_SMP_UNLIKELY(dst >= c->n) || GEXC_SMP_UNLIKELY(least > most) ||
        GEXC_SMP_UNLIKELY(most > c->np_fast_most))
        return gexc_smp_am_prepare_general(c, dst_jobrank, reply_ctx, m, least, most, flags, np);
    np->priv[0] = dst;     /* for gexc_smp_am_prepare_restart */
    np->priv[1] = least;
    np->priv[2] = (uintptr_t)flags;
    struct gexc_smp_tx *tx = &c->tx[(w & 0xff00u) ? dst : c->n + dst];
    if (tx->use_lock && GEXC_SMP_UNLIKELY(atomic_exchange_explicit(&tx->lock, 1,
                                                                     memory_order_acquire)))
        return gexc_smp_am_prepare_restart(c, m, most, np);
    /* payload at pbase rounded up to 16 bytes, or to a line from LINE_MIN */
    const uint32_t pbase = (uint32_t)gexc_smp_align8(GEXC_SMP_HDR_MEDIUM + 4u * (w >> 24));
    const uint32_t pad = most >= GEXC_SMP_NP_LINE_MIN ? GEXC_SMP_NP_ALIGN - 8 : 16 - 8;
    const uint64_t max_len = pbase + pad + gexc_smp_align8(most);
    const uint64_t size = c->ring_size, pos = tx->tail, off = pos & (size - 1);
    /* a record that would need a SKIP in front (once a lap) and one that
     * does not fit by the cached head: the general path */
    if (GEXC_SMP_UNLIKELY(off + max_len > size) ||
        GEXC_SMP_UNLIKELY(pos + max_len + 8 - tx->head_cache > size)) {
        gexc_smp_tx_unlock(c, tx);   /* nothing changed yet */
        return gexc_smp_am_prepare_restart(c, m, most, np);
    }
    /* locked from here to am_commit / am_cancel */
    unsigned char *p = tx->data + off;
    /* p and pbase are multiples of 8: rounding p + pbase up to pad + 8 */
    const uint32_t poff = (uint32_t)((((uintptr_t)p + pbase + pad) & ~(uintptr_t)(pad + 7)) -
                                     (uintptr_t)p);
    np->buf = p + poff;
    np->size = most;       /* max_len - poff >= align8(most): the whole offer fits */
    np->priv[0] = (uintptr_t)tx;
    np->priv[1] = (uintptr_t)p;
    np->priv[2] = 0;       /* no SKIP in front */
    np->priv[3] = (w & GEXC_SMP_NP_WORD_MASK) | (uint64_t)poff << 32;
    gexc_smp_prefetch_for_write(c, p + poff, most);
    return GEX_CONDUIT_OK;
}

/* Writes header and args of a prepared record (the payload is in place at
 * poff), publishes it and releases the ring.  Not earlier, at am_prepare:
 * the record's first line is the one an idle receiver polls, and every
 * store to it moves it here and back.  word0 is the message word of m (the
 * Commit checked it against the template) and the record's length. */
static inline void gexc_smp_np_publish(struct gex_conduit *c, struct gex_conduit_np *np,
                                       const struct gex_conduit_am *m, uint32_t w, uint32_t poff)
{
    struct gexc_smp_tx *tx = (struct gexc_smp_tx *)np->priv[0];
    unsigned char *p = (unsigned char *)np->priv[1];
    const unsigned nargs = w >> 24;
    const uint32_t len = poff + (uint32_t)gexc_smp_align8(m->nbytes);
    struct gexc_smp_rec *r = (struct gexc_smp_rec *)p;
    memcpy(&r->src_ep, &m->src_ep, 8);   /* src_ep, dst_ep */
    r->nbytes = (uint32_t)m->nbytes;
    r->chunk_len = poff;   /* layout version 2: where the payload is (a receiver accepts
                              it equal to the default) */
    /* args by hand, not memcpy: at most 16 words, and no call on this path */
    uint32_t *a = (uint32_t *)(p + GEXC_SMP_HDR_MEDIUM);
    const uint32_t *src = (const uint32_t *)m->args;
    for (unsigned i = 0; i < nargs; i++) {
        __asm__("" : "+r"(i));   /* keep it a loop: no pattern-matched memcpy call */
        a[i] = src[i];
    }
    gexc_smp_tx_publish(c, tx, p, (uint64_t)np->priv[2], w, len);
    /* unconditional: a ring without use_lock never has it set */
    atomic_store_explicit(&tx->lock, 0, memory_order_release);
}

/* am_commit with a client's buffer: one copy into the record. */
__attribute__((noinline))
static int gexc_smp_am_commit_copy(struct gex_conduit *c, struct gex_conduit_np *np,
                                   const struct gex_conduit_am *m, uint32_t w, uint32_t poff)
{
    memcpy((unsigned char *)np->priv[1] + poff, m->payload, m->nbytes);
    gexc_smp_np_publish(c, np, m, w, poff);
    return GEX_CONDUIT_OK;
}

/* A Medium Commit that does not fit what was prepared. */
__attribute__((cold, noinline))
static int gexc_smp_commit_bad(struct gex_conduit *c, struct gex_conduit_np *np,
                               const struct gex_conduit_am *m)
{
    return gexc_smp_bad_arg(c, "am_commit", "%zu bytes with %u args do not fit the %zu bytes "
                            "with %u args prepared", m->nbytes, (unsigned)m->nargs, np->size,
                            GEXC_SMP_W_NARGS(np->priv[3]));
}

/* Medium: the record is reserved, a commit never has to wait.  What it may
 * get wrong: more bytes than prepared, other nargs than prepared (the
 * payload offset was computed for them), another category or direction;
 * all but the size are one compare with the template (see priv above). */
int gexc_smp_am_commit(struct gex_conduit *c, struct gex_conduit_np *np,
                       const struct gex_conduit_am *m, gex_Flags_t flags)
{
    const uint32_t w = gexc_smp_am_word(m);
    const uint64_t tmpl = np->priv[3];
    if (GEXC_SMP_UNLIKELY(((w & GEXC_SMP_NP_WORD_MASK) != (uint32_t)tmpl) |
                          (m->nbytes > np->size))) {
        /* a zero-copy Long (its template matches no message word), or wrong */
        if (m->category == GEX_CONDUIT_AM_LONG) return gexc_smp_np_long_commit(c, np, m, flags);
        return gexc_smp_commit_bad(c, np, m);
    }
    const uint32_t poff = (uint32_t)(tmpl >> 32);
    if (GEXC_SMP_UNLIKELY(m->payload != (const void *)(np->priv[1] + poff)) && m->nbytes)
        return gexc_smp_am_commit_copy(c, np, m, w, poff);   /* client's */
    gexc_smp_np_publish(c, np, m, w, poff);
    return GEX_CONDUIT_OK;
}

int gexc_smp_am_cancel(struct gex_conduit *c, struct gex_conduit_np *np)
{
    if (np->priv[0]) gexc_smp_tx_unlock(c, (struct gexc_smp_tx *)np->priv[0]);   /* 0: a Long */
    return GEX_CONDUIT_OK;
}

/* ---- Consumer side ---- */

/* Runs the handler of a SHORT, MEDIUM or LONG record (checked: v) with args
 * and Medium payload pointing into the ring. */
static inline void gexc_smp_deliver(struct gex_conduit *c, unsigned char *p, uint64_t w,
                                    const struct gexc_smp_view *v, unsigned k, gex_Rank_t src)
{
    GEXC_SMP_TSAN_ACQUIRE();
    const struct gexc_smp_rec *r = (const struct gexc_smp_rec *)p;
    struct gex_conduit_am m;
    m.category = (uint8_t)v->kind;
    m.is_request = (uint8_t)(k == GEXC_SMP_RING_REQ);
    m.handler = (uint8_t)GEXC_SMP_W_HANDLER(w);
    m.nargs = (uint8_t)GEXC_SMP_W_NARGS(w);
    m.src_ep = r->src_ep;
    m.dst_ep = r->dst_ep;
    m.src_jobrank = src;
    m.args = (const gex_conduit_arg_t *)(p + v->args_off);
    if (v->kind == GEXC_SMP_K_SHORT) {
        m.payload = NULL;
        m.nbytes = 0;
        m.dest_addr = NULL;
    } else if (v->kind == GEXC_SMP_K_MEDIUM) {
        m.payload = p + v->payload_off;
        m.nbytes = v->nbytes;
        m.dest_addr = NULL;
    } else {
        unsigned char *d = (unsigned char *)(uintptr_t)r->dest_addr;
        const uint32_t cl = v->copy_len;
        if (cl) {   /* last piece of a ring-borne Long */
            gexc_smp_check_long_dest(c, src, w, r, d + (v->nbytes - cl), cl);
            memcpy(d + (v->nbytes - cl), p + v->copy_off, cl);
        }
        m.payload = d;   /* spec: the handler sees the destination in the receiver's space */
        m.nbytes = v->nbytes;
        m.dest_addr = d;
    }
    c->host.deliver_am(c->host.core_ctx, &m, gexc_smp_reply_ctx(src));
}

/* Consumes up to *budget records of one ring; returns handlers run. */
int gexc_smp_drain_ring(struct gex_conduit *c, struct gexc_smp_rx *rx, unsigned k,
                               gex_Rank_t src, unsigned *budget)
{
    int ran = 0;
    uint64_t head = rx->head;
    while (*budget) {
        const uint64_t off = head & c->ring_mask;
        unsigned char *p = rx->data + off;
        const uint64_t w = atomic_load_explicit((_Atomic uint64_t *)p, memory_order_acquire);
        if (!w) break;
        struct gexc_smp_view v;
        const char *bad = gexc_smp_check_rec(p, w, c->ring_size - off, k, &v);
        if (GEXC_SMP_UNLIKELY(bad)) gexc_smp_corrupt(c, src, k, head, w, bad);
        if (v.kind <= GEXC_SMP_K_LONG) {
            gexc_smp_deliver(c, p, w, &v, k, src);
            ran++;
            --*budget;
        } else if (v.kind == GEXC_SMP_K_LONGDATA) {
            const struct gexc_smp_rec *r = (const struct gexc_smp_rec *)p;
            gexc_smp_check_long_dest(c, src, w, r, (void *)(uintptr_t)r->dest_addr, v.copy_len);
            memcpy((void *)(uintptr_t)r->dest_addr, p + v.copy_off, v.copy_len);
            --*budget;
        }
        /* Only now may the producer reuse the bytes: the handler is done. */
        head += v.len;
        rx->head = head;
        atomic_store_explicit(rx->head_pub, head, memory_order_release);
    }
    return ran;
}

/* Drains one ring kind round-robin over senders, starting after the sender
 * that exhausted the previous budget, so a flooding peer cannot starve the
 * others. */
static int gexc_smp_poll_kind(struct gex_conduit *c, unsigned k, unsigned *budget)
{
    struct gexc_smp_poll_lock *pl = &c->poll[k];
    if (!*budget || !gexc_smp_poll_trylock(c, pl)) return 0;
    const gex_Rank_t n = c->n;
    struct gexc_smp_rx *rxs = c->rx + (size_t)k * n;
    _Atomic uint32_t *hints = c->hints ? c->hints + (size_t)k * n : NULL;
    gex_Rank_t s = pl->rr;
    int ran = 0;
    for (gex_Rank_t i = 0; i < n; i++) {
        /* the hint is only a filter: the record word is what synchronizes */
        if (!hints || atomic_load_explicit(&hints[s], memory_order_relaxed) != (uint32_t)rxs[s].head) {
            ran += gexc_smp_drain_ring(c, &rxs[s], k, s, budget);
            if (!*budget) {
                pl->rr = s + 1 == n ? 0 : s + 1;
                break;
            }
        }
        if (++s == n) s = 0;
    }
    gexc_smp_poll_unlock(pl);
    return ran;
}

/* The shared rings only: poll_ep(0). */
int gexc_smp_poll_shared(struct gex_conduit *c)
{
    unsigned budget = c->poll_budget;
    int ran = gexc_smp_poll_kind(c, GEXC_SMP_RING_REP, &budget);
    return ran + gexc_smp_poll_kind(c, GEXC_SMP_RING_REQ, &budget);
}

/* Replies first: they complete operations the caller may be waiting for.
 * Then the rings of endpoints opened without GEX_CONDUIT_EP_SERIALIZED
 * (none in most jobs: one load); a serialized EP is served only by
 * poll_ep, from the thread that uses it. */
int gexc_smp_poll(struct gex_conduit *c)
{
    unsigned budget = c->poll_budget;
    int ran = gexc_smp_poll_kind(c, GEXC_SMP_RING_REP, &budget);
    ran += gexc_smp_poll_kind(c, GEXC_SMP_RING_REQ, &budget);
    if (GEXC_SMP_UNLIKELY(atomic_load_explicit(&c->n_polled_leps, memory_order_relaxed))) {
        budget = c->poll_budget;
        ran += gexc_smp_poll_leps(c, GEXC_SMP_RING_REP, &budget);
        ran += gexc_smp_poll_leps(c, GEXC_SMP_RING_REQ, &budget);
    }
    return ran;
}

/* ---- Wiring ---- */

void gexc_smp_queue_setup(struct gex_conduit *c)
{
    const gex_Rank_t n = c->n;
    const struct gexc_smp_layout *L = &c->layout;
    unsigned char *own = c->maps[c->me];

    for (unsigned k = 0; k < 2; k++) {
        for (gex_Rank_t r = 0; r < n; r++) {
            unsigned char *peer = c->maps[r];
            const struct gexc_smp_region_hdr *ph = (const struct gexc_smp_region_hdr *)peer;
            const size_t in_peer = (size_t)k * n + c->me;   /* our ring inside r's region */
            const size_t in_own = (size_t)k * n + r;        /* r's ring inside ours */
            struct gexc_smp_tx *tx = &c->tx[in_own];
            struct gexc_smp_rx *rx = &c->rx[in_own];

            atomic_init(&tx->lock, 0);
            tx->use_lock = (uint8_t)(c->thread_safe != 0);
            tx->src_ep = 0;
            tx->tail = 0;
            tx->head_cache = 0;
            tx->data = peer + L->off_rings + in_peer * c->ring_size;
            tx->head = &((struct gexc_smp_head *)(peer + L->off_heads))[in_peer].head;
            tx->hint = ph->use_hints ? (_Atomic uint32_t *)(peer + L->off_hints) + in_peer : NULL;

            rx->head = 0;
            rx->data = own + L->off_rings + in_own * c->ring_size;
            rx->head_pub = &((struct gexc_smp_head *)(own + L->off_heads))[in_own].head;
        }
        atomic_init(&c->poll[k].busy, 0);
        c->poll[k].rr = 0;
    }
    c->hints = ((const struct gexc_smp_region_hdr *)own)->use_hints
             ? (_Atomic uint32_t *)(own + L->off_hints) : NULL;
}
