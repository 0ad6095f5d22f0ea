/*
 * vis_am.c: the AM pack/unpack mechanism, for peers no direct copy reaches
 * when the contiguous pieces are small (vis_internal.h).
 *
 * Put: the data stream is cut into chunks, one negotiated-payload Medium
 * Request each.  The initiator prepares the AM with a library-provided
 * buffer (gex_AM_PrepareRequestMedium, client_buf NULL: on the smp conduit
 * that is the record in the receiver's ring) and writes into it, in place,
 * a wire header, the peer-side metadata of just that chunk and the packed
 * data; Commit publishes it.  Nothing is copied twice on the initiator.
 * The target unpacks into its own memory and answers with a Short reply
 * that decrements the initiator's completion counter.  All chunks are
 * issued back to back (pipelined); the operation completes when every ack
 * is back.
 *
 * Get: each Medium Request carries the peer-side (source) metadata of one
 * chunk; the target prepares one Medium Reply of exactly the chunk's size,
 * packs its memory straight into it, and commits; the initiator's reply
 * handler unpacks into the local destination at the position the request
 * named, and the last one completes the operation.  The operation object
 * (local side, counters) lives on the heap for NB/NBI gets.
 *
 * Metadata on the wire (struct gexi_vis_wire, vis_wire.c, then per kind):
 *   VEC: n (address, length) pairs, the chunk's pieces (the first may start
 *        at byte `off` of its piece, the last may be cut);
 *   IDX: the piece length and n addresses (first piece from byte `off`);
 *   STR: the normalized peer section (base, elemsz, counts, strides) and the
 *        chunk's start (element i, byte off): the optimizer's folding keeps
 *        this short (a 32-d section that folds to 1-d sends one level).
 *
 * Counters: the number of AMs is only known once every Prepare has said how
 * much fits, so each counter starts with one "guard" completion, gets one
 * more per AM before it is sent, and loses the guard after the last.
 *
 * GEX_FLAG_IMMEDIATE is passed to the first Prepare only; if it is refused
 * nothing was sent and the call is a no-op (as in libgex-rma).
 */
#include "vis_internal.h"
#include <stdlib.h>

/* Bytes of metadata a chunk's pieces cost (per piece; STR: fixed). */
static size_t meta_fixed(const struct gexi_vis_side *s)
{
    return sizeof(struct gexi_vis_wire) +
           (s->kind == GEXI_VIS_STR ? s->dims * (sizeof(uint64_t) + sizeof(int64_t)) : 0);
}
static size_t meta_per_piece(const struct gexi_vis_side *s)
{
    return s->kind == GEXI_VIS_VEC ? sizeof(gex_Memvec_t)
           : s->kind == GEXI_VIS_IDX ? sizeof(uint64_t) : 0;
}

/* Decides the chunk that starts at *c and fits `room` payload bytes
 * (metadata + data for a put, metadata only with data_room for a get):
 * returns the data bytes and the pieces it spans in *npieces. */
static size_t plan_chunk(const struct gexi_vis_side *s, const struct gexi_vis_cur *c,
                         size_t left, size_t room, int data_in_room, size_t data_room,
                         size_t *npieces)
{
    const size_t fixed = meta_fixed(s), per = meta_per_piece(s);
    *npieces = 0;
    if (room < fixed) return 0;
    room -= fixed;
    if (s->kind == GEXI_VIS_STR) {
        size_t n = data_in_room ? room : data_room;
        return n < left ? n : left;
    }
    struct gexi_vis_cur w = *c;
    size_t bytes = 0;
    char *p;
    while (bytes < left) {
        size_t r = gexi_vis_run(s, &w, &p);
        if (!r || room < per + (data_in_room ? 1 : 0)) break;
        room -= per;
        size_t cap = data_in_room ? room : data_room - bytes;
        if (r > left - bytes) r = left - bytes;
        if (r > cap) r = cap;
        if (!r) break;
        bytes += r;
        if (data_in_room) room -= r;
        (*npieces)++;
        w.off += r; /* whole run or the end of the chunk */
        if (s->kind == GEXI_VIS_VEC ? w.off == s->vec[w.i].gex_len : w.off == s->len) {
            w.i++;
            w.off = 0;
        }
        if (!data_in_room && bytes == data_room) break;
    }
    return bytes;
}

/* ---- Handlers ---- */

/* The metadata is read in place as 64-bit words.  The spec promises no
 * alignment of a Medium payload at the target (smp delivers it 8-byte
 * aligned); a conduit that delivers it misaligned costs one copy here. */
static void *aligned_payload(void *buf, size_t n, void **to_free)
{
    *to_free = NULL;
    if (GEXI_LIKELY(((uintptr_t)buf & 7) == 0)) return buf;
    void *p = malloc(n ? n : 1);
    if (!p) gexi_fatal("VIS: out of memory for a %zu-byte AM payload", n);
    memcpy(p, buf, n);
    return *to_free = p;
}

static void h_put(gex_Token_t t, void *abuf, size_t nbytes, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    struct gexi_vis_wire_side ws;
    struct gexi_vis_cur c;
    size_t mlen, n;
    void *to_free, *buf = aligned_payload(abuf, nbytes, &to_free);
    const char *bad = gexi_vis_wire_read(buf, nbytes, 1, nbytes, &ws, &c, &mlen, &n);
    if (GEXI_UNLIKELY(bad)) gexi_fatal("VIS put AM of %zu bytes: %s", nbytes, bad);
    gexi_vis_scatter(&ws.s, &c, (const char *)buf + mlen, n);
    free(to_free);
    gex_AM_ReplyShort2(t, GEXI_VIS_H_PUT_ACK, 0, clo, chi);
}

static void h_put_ack(gex_Token_t t, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    (void)t;
    gexi_counter_done((_Atomic uint32_t *)(uintptr_t)gexi_vis_join(clo, chi), 1);
}

/* A get in flight: what the reply handlers need. */
struct get_op {
    struct gexi_vis_side loc;
    struct gexi_vis_strided st;       /* Strided: the section loc points into */
    _Atomic uint32_t remaining;       /* replies outstanding + the guard */
    _Atomic uint32_t *user_ctr;       /* signalled once, when remaining reaches 0 */
    int heap;
};

static void get_op_done(struct get_op *g, uint32_t n)
{
    if (atomic_fetch_sub_explicit(&g->remaining, n, memory_order_acq_rel) != n) return;
    _Atomic uint32_t *ctr = g->user_ctr;
    if (g->heap) free(g);
    if (ctr) gexi_counter_done(ctr, 1);
}

static void h_get(gex_Token_t t, void *abuf, size_t nbytes, gex_AM_Arg_t olo, gex_AM_Arg_t ohi,
                  gex_AM_Arg_t ilo, gex_AM_Arg_t ihi, gex_AM_Arg_t flo, gex_AM_Arg_t fhi)
{
    struct gexi_vis_wire_side ws;
    struct gexi_vis_cur c;
    size_t mlen, n;
    void *to_free, *buf = aligned_payload(abuf, nbytes, &to_free);
    /* the reply carries the chunk's data: at most one Medium */
    const size_t most = gex_Token_MaxReplyMedium(t, NULL, 0, 6);
    const char *bad = gexi_vis_wire_read(buf, nbytes, 0, most, &ws, &c, &mlen, &n);
    if (GEXI_UNLIKELY(bad)) gexi_fatal("VIS get AM of %zu bytes: %s", nbytes, bad);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, n, n, NULL, 0, 6);
    gexi_vis_gather(&ws.s, &c, gex_AM_SrcDescAddr(sd), n); /* pack in place */
    gex_AM_CommitReplyMedium6(sd, GEXI_VIS_H_GET_REP, n, olo, ohi, ilo, ihi, flo, fhi);
    free(to_free);
}

static void h_get_rep(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t olo,
                      gex_AM_Arg_t ohi, gex_AM_Arg_t ilo, gex_AM_Arg_t ihi, gex_AM_Arg_t flo,
                      gex_AM_Arg_t fhi)
{
    (void)t;
    struct get_op *g = (struct get_op *)(uintptr_t)gexi_vis_join(olo, ohi);
    struct gexi_vis_cur c;
    gexi_vis_seek(&g->loc, &c, (size_t)gexi_vis_join(ilo, ihi), (size_t)gexi_vis_join(flo, fhi));
    gexi_vis_scatter(&g->loc, &c, buf, nbytes);
    get_op_done(g, 1);
}

int gexi_vis_am_register(void)
{
    gexi_register_internal_handler(GEXI_VIS_H_PUT, (gex_AM_Fn_t)h_put,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, "gexi_vis_put");
    gexi_register_internal_handler(GEXI_VIS_H_PUT_ACK, (gex_AM_Fn_t)h_put_ack,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, "gexi_vis_put_ack");
    gexi_register_internal_handler(GEXI_VIS_H_GET, (gex_AM_Fn_t)h_get,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 6, "gexi_vis_get");
    gexi_register_internal_handler(GEXI_VIS_H_GET_REP, (gex_AM_Fn_t)h_get_rep,
                                   GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 6, "gexi_vis_get_rep");
    return GASNET_OK;
}

/* ---- Initiator ---- */

/* The counter the operation completes (see vis_rma.c for the same logic):
 * a stack word (Blocking), a fresh root event (NB) or the NBI count. */
static struct gexi_event *counter_setup(const struct gexi_vis_op *op, _Atomic uint32_t *stack,
                                        _Atomic uint32_t **ctr_p, uint32_t n)
{
    const gex_EC_t ec = op->is_put ? GEX_EC_PUT : GEX_EC_GET;
    switch (op->sync) {
    case GEXI_VIS_BLOCKING:
        atomic_init(stack, n);
        *ctr_p = stack;
        return NULL;
    case GEXI_VIS_NB: {
        struct gexi_event *ev = gexi_event_new(ec, n, 0);
        if (op->flags & GEX_FLAG_ENABLE_LEAF_LC) ev->h.flags |= GEXI_EVF_HAS_LC; /* born done */
        *ctr_p = &ev->h.pending;
        return ev;
    }
    default:
        *ctr_p = gexi_nbi_counter(ec);
        gexi_counter_add(*ctr_p, n);
        return NULL;
    }
}

static gex_Event_t counter_undo(const struct gexi_vis_op *op, struct gexi_event *ev,
                                _Atomic uint32_t *ctr, uint32_t n)
{
    if (op->sync == GEXI_VIS_NB) gexi_event_discard(ev);
    else if (op->sync == GEXI_VIS_NBI) atomic_fetch_sub_explicit(ctr, n, memory_order_relaxed);
    return GEX_EVENT_NO_OP;
}

static gex_Event_t counter_finish(const struct gexi_vis_op *op, struct gexi_event *ev,
                                  _Atomic uint32_t *ctr)
{
    if (op->sync == GEXI_VIS_BLOCKING) {
        GEXI_POLL_UNTIL(atomic_load_explicit(ctr, memory_order_acquire) == 0);
        return GEX_EVENT_INVALID;
    }
    return ev ? gexi_event_handle(ev) : GEX_EVENT_INVALID;
}

/* Data bytes per AM: the Medium limit, or GEX_VIS_AM_CHUNK if smaller. */
static size_t data_cap(size_t limit)
{
    return gexi_vis.am_chunk && gexi_vis.am_chunk < limit ? gexi_vis.am_chunk : limit;
}

static gex_Event_t am_put(struct gexi_vis_op *op)
{
    _Atomic uint32_t stack, *ctr;
    struct gexi_event *ev = counter_setup(op, &stack, &ctr, 1);
    const gex_AM_Arg_t clo = gexi_vis_lo((uintptr_t)ctr), chi = gexi_vis_hi((uintptr_t)ctr);
    const size_t fixed = meta_fixed(&op->peer), per = meta_per_piece(&op->peer);
    const size_t maxmed = gex_AM_MaxRequestMedium(op->tm, op->rank, NULL,
                                                  GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 2);
    const size_t cap = data_cap(maxmed - fixed);
    struct gexi_vis_cur pc, lc;
    gexi_vis_seek(&op->peer, &pc, 0, 0);
    gexi_vis_seek(&op->loc, &lc, 0, 0);
    gex_Flags_t imm = op->flags & GEX_FLAG_IMMEDIATE;
    for (size_t done = 0; done < op->total;) {
        const size_t left = op->total - done, want = left < cap ? left : cap;
        /* Ask for exactly what the next chunk needs if the whole Medium
         * were ours, accept as little as one byte with its metadata. */
        size_t npieces, bytes = plan_chunk(&op->peer, &pc, want, maxmed, 1, 0, &npieces);
        const size_t most = fixed + npieces * per + bytes;
        const size_t least = fixed + per + 1 < most ? fixed + per + 1 : most;
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(op->tm, op->rank, NULL, least, most,
                                                          NULL, imm, 2);
        if (sd == GEX_AM_SRCDESC_NO_OP) return counter_undo(op, ev, ctr, 1);
        imm = 0;
        char *buf = gex_AM_SrcDescAddr(sd);
        const size_t room = gex_AM_SrcDescSize(sd);
        if (room < most) bytes = plan_chunk(&op->peer, &pc, want, room, 1, 0, &npieces);
        if (GEXI_UNLIKELY(!bytes)) gexi_fatal("VIS: a %zu-byte AM holds no data", room);
        const size_t mlen = gexi_vis_wire_write(buf, &op->peer, &pc, bytes, npieces);
        gexi_vis_gather(&op->loc, &lc, buf + mlen, bytes); /* pack in place */
        gexi_vis_skip(&op->peer, &pc, bytes);
        gexi_counter_add(ctr, 1);
        gex_AM_CommitRequestMedium2(sd, GEXI_VIS_H_PUT, mlen + bytes, clo, chi);
        done += bytes;
    }
    gexi_counter_done(ctr, 1); /* the guard */
    return counter_finish(op, ev, ctr);
}

static gex_Event_t am_get(struct gexi_vis_op *op)
{
    _Atomic uint32_t stack, *ctr;
    struct gexi_event *ev = counter_setup(op, &stack, &ctr, 1);
    struct get_op local_g, *g = &local_g;
    if (op->sync != GEXI_VIS_BLOCKING) {
        g = malloc(sizeof *g);
        if (!g) gexi_fatal("VIS: out of memory for a get");
    }
    g->heap = g != &local_g;
    g->loc = op->loc;
    if (op->st) {
        g->st = *op->st; /* the section must outlive the call: copy it */
        gexi_vis_side_strided(&g->loc, &g->st, 0);
    }
    g->user_ctr = ctr;
    atomic_init(&g->remaining, 1);
    const gex_AM_Arg_t olo = gexi_vis_lo((uintptr_t)g), ohi = gexi_vis_hi((uintptr_t)g);
    const size_t fixed = meta_fixed(&op->peer), per = meta_per_piece(&op->peer);
    const size_t maxreq = gex_AM_MaxRequestMedium(op->tm, op->rank, NULL,
                                                  GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 6);
    const size_t maxrep = data_cap(gex_AM_MaxReplyMedium(op->tm, op->rank, NULL,
                                                         GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 6));
    struct gexi_vis_cur pc, lc;
    gexi_vis_seek(&op->peer, &pc, 0, 0);
    gexi_vis_seek(&op->loc, &lc, 0, 0);
    gex_Flags_t imm = op->flags & GEX_FLAG_IMMEDIATE;
    for (size_t done = 0; done < op->total;) {
        const size_t left = op->total - done;
        size_t most = fixed + per * (left < maxrep ? left : maxrep);
        if (most > maxreq) most = maxreq;
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(op->tm, op->rank, NULL, fixed + per,
                                                          most, NULL, imm, 6);
        if (sd == GEX_AM_SRCDESC_NO_OP) {
            if (g->heap) free(g);
            return counter_undo(op, ev, ctr, 1);
        }
        imm = 0;
        char *buf = gex_AM_SrcDescAddr(sd);
        size_t npieces;
        size_t bytes = plan_chunk(&op->peer, &pc, left, gex_AM_SrcDescSize(sd), 0, maxrep,
                                  &npieces);
        if (GEXI_UNLIKELY(!bytes)) gexi_fatal("VIS: a get request holds no metadata");
        size_t mlen = gexi_vis_wire_write(buf, &op->peer, &pc, bytes, npieces);
        /* Where the reply lands: the local position of this chunk. */
        const size_t li = lc.i, loff = lc.off;
        gexi_vis_skip(&op->peer, &pc, bytes);
        gexi_vis_skip(&op->loc, &lc, bytes);
        gexi_counter_add(&g->remaining, 1);
        gex_AM_CommitRequestMedium6(sd, GEXI_VIS_H_GET, mlen, olo, ohi, gexi_vis_lo(li),
                                    gexi_vis_hi(li), gexi_vis_lo(loff), gexi_vis_hi(loff));
        done += bytes;
    }
    if (op->sync == GEXI_VIS_BLOCKING) {
        g->user_ctr = NULL; /* wait on g itself */
        get_op_done(g, 1);
        GEXI_POLL_UNTIL(atomic_load_explicit(&g->remaining, memory_order_acquire) == 0);
        return GEX_EVENT_INVALID;
    }
    get_op_done(g, 1); /* the guard: may complete (and free) g now */
    return ev ? gexi_event_handle(ev) : GEX_EVENT_INVALID;
}

int gexi_vis_am_fits(const struct gexi_vis_op *op)
{
    const size_t need = meta_fixed(&op->peer) + meta_per_piece(&op->peer) + 1;
    return gex_AM_MaxRequestMedium(op->tm, op->rank, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 6) >=
           need;
}

gex_Event_t gexi_vis_am_run(struct gexi_vis_op *op)
{
    return op->is_put ? am_put(op) : am_get(op);
}
