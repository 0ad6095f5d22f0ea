/*
 * vis_api.c: the public VIS calls (spec: "Vector/Indexed/Strided (VIS)"):
 * argument checks, the description of both ends as sides, the choice of a
 * mechanism, and peer completion.
 *
 * Per call: (tm, rank) -> (jobrank, EP index) through core's inline
 * translation (any team, TM-pairs included); Strided metadata through the
 * stride optimizer; then
 *   - GEX_FORCE_REFERENCE=vis: one RMA per piece (vis_rma.c), any peer;
 *   - the peer is this process, or a nbrhd peer whose bound segment core
 *     has cross-mapped here: copy loops (vis_copy.c), complete on return;
 *   - the smallest contiguous piece is at least GEX_VIS_RMA_MIN bytes: one
 *     RMA per piece (vis_rma.c);
 *   - otherwise AM pack/unpack (vis_am.c).
 *
 * Return values (spec): NB calls return the root event, GEX_EVENT_INVALID
 * when already complete, GEX_EVENT_NO_OP when GEX_FLAG_IMMEDIATE refused the
 * call; NBI and Blocking calls return non-zero only in that last case.
 * These calls have no error return, so a bad argument ends the job with a
 * message naming the call and the argument (every build: tm, rank, flags,
 * list pointers, mismatched totals; debug builds also: peer ranges outside
 * the peer's bound segment, calls from handler context).
 */
#include "vis_internal.h"
#include <stdarg.h>
#include <stdio.h>

void gexi_vis_bad_arg(const char *func, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gexi_fatal("%s: bad argument: %s", func, msg);
}

/* Flags a VIS call accepts: IMMEDIATE, the LC leaf request, and the
 * locality assertions (hints).  The *_SEG_OFFSET flags change addressing
 * and are not implemented (spec: [UNIMPLEMENTED]). */
#define GEXI_VIS_FLAGS_OK \
    (GEX_FLAG_IMMEDIATE | GEX_FLAG_ENABLE_LEAF_LC | \
     GEX_FLAG_SELF_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_SELF_SEG_BOUND | \
     GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_SOME | GEX_FLAG_PEER_SEG_BOUND | \
     GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD)

/* ---- Peer completion (spec: "VIS Put Peer Completion [DEPRECATED]") ----
 * Armed per thread; consumed by the thread's next VIS Put. */
static __thread __attribute__((tls_model("initial-exec"))) struct {
    gex_AM_Index_t handler;
    const void *addr;
    size_t nbytes;
} pc_armed;

/* Threads with a handler armed: while any has, the client's inline one-piece
 * puts (include/gex/vis_fastpath.h) come here, so that the arming thread's
 * next put runs it.  Exported (GEX_VIS_1.1), read relaxed by the client. */
GEXI_EXPORT unsigned gexi_vis_pc_armed_v1;

static void pc_disarm(void)
{
    if (pc_armed.handler) __atomic_fetch_sub(&gexi_vis_pc_armed_v1, 1, __ATOMIC_RELAXED);
    pc_armed.handler = 0;
}

void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                      size_t nbytes, gex_Flags_t flags)
{
    if (flags) gexi_vis_bad_arg(__func__, "flags 0x%x must be 0", (unsigned)flags);
    if (handler == 0) {
        pc_disarm();
        return;
    }
    if (handler < GEX_AM_INDEX_BASE)
        gexi_vis_bad_arg(__func__, "handler %u is not a client handler index (>= %d)",
                         (unsigned)handler, GEX_AM_INDEX_BASE);
    if (nbytes > GEX_VIS_MAX_PEERCOMPLETION)
        gexi_vis_bad_arg(__func__, "nbytes %zu exceeds GEX_VIS_MAX_PEERCOMPLETION (%zu)", nbytes,
                         GEX_VIS_MAX_PEERCOMPLETION);
    if (nbytes && !source_addr) gexi_vis_bad_arg(__func__, "source_addr is NULL, nbytes %zu", nbytes);
    /* counted before the thread's next VIS call can look (its own program order) */
    if (!pc_armed.handler) __atomic_fetch_add(&gexi_vis_pc_armed_v1, 1, __ATOMIC_RELAXED);
    pc_armed.handler = handler;
    pc_armed.addr = nbytes ? source_addr : NULL;
    pc_armed.nbytes = nbytes;
}

/* At the peer: run the client's 0-argument Medium Reply handler, with a
 * token that describes it (not our internal Request), so gex_Token_Info
 * reports the client's entry and the handler cannot reply. */
static void h_pc(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t index)
{
    struct gexi_token tok = *gexi_token_of(t);
    const struct gexi_handler *h = gexi_handler_for(tok.ep, (uint8_t)index);
    const gex_Flags_t want = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY;
    if (!h || !h->entry.gex_fnptr || (h->entry.gex_flags & want) != want ||
        h->entry.gex_nargs != 0)
        gexi_fatal("gex_VIS_SetPeerCompletionHandler: handler %u at endpoint %u is not a "
                   "registered 0-argument Medium Reply handler", (unsigned)(uint8_t)index,
                   (unsigned)tok.ep->index);
    tok.is_req = 0;
    tok.replied = 1;
    tok.entry = &h->entry;
    ((void (*)(gex_Token_t, void *, size_t))h->entry.gex_fnptr)((gex_Token_t)&tok, buf, nbytes);
}

int gexi_vis_pc_register(void)
{
    return gexi_register_internal_handler(GEXI_VIS_H_PC, (gex_AM_Fn_t)h_pc,
                                          GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1,
                                          "gexi_vis_peer_completion");
}

/* ---- Checks ---- */

static void check_peer(const char *func, gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags,
                       struct gexi_vis_op *op)
{
    if (GEXI_UNLIKELY(!tm)) gexi_vis_bad_arg(func, "tm is GEX_TM_INVALID");
    if (GEXI_UNLIKELY(rank >= gexi_tm_addr_size(tm)))
        gexi_vis_bad_arg(func, "rank %u is not below the team size %u", (unsigned)rank,
                         (unsigned)gexi_tm_addr_size(tm));
    if (GEXI_UNLIKELY(flags & ~GEXI_VIS_FLAGS_OK))
        gexi_vis_bad_arg(func, "flags 0x%x include bits a VIS call does not accept%s",
                         (unsigned)flags,
                         flags & (GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET)
                             ? " (the *_SEG_OFFSET flags are not implemented)" : "");
    if (GEXI_UNLIKELY((flags & GEX_FLAG_ENABLE_LEAF_LC) &&
                      (!op->is_put || op->sync == GEXI_VIS_BLOCKING)))
        gexi_vis_bad_arg(func, "GEX_FLAG_ENABLE_LEAF_LC is only for gex_VIS_*Put{NB,NBI}");
    op->tm = tm;
    op->rank = rank;
    op->flags = flags;
    gexi_tm_peer(tm, rank, &op->jobrank, &op->ep);
#ifdef GEX_DEBUG
    if (gexi_handler_depth)
        gexi_vis_bad_arg(func, "called inside an AM handler (spec: restricted context)");
    if (gexi_hsl_depth)
        gexi_vis_bad_arg(func, "called while holding a handler-safe lock (spec: restricted context)");
    if ((flags & GEX_FLAG_PEER_NEVER_SELF) && op->jobrank == gexi_core.jobrank)
        gexi_vis_bad_arg(func, "GEX_FLAG_PEER_NEVER_SELF asserted, but the peer is this process");
    if ((flags & GEX_FLAG_PEER_NEVER_NBRHD) && gexi_core.is_nbrhd &&
        gexi_core.is_nbrhd[op->jobrank])
        gexi_vis_bad_arg(func, "GEX_FLAG_PEER_NEVER_NBRHD asserted, but jobrank %u is in this "
                         "process's neighbourhood", (unsigned)op->jobrank);
#endif
}

#ifdef GEX_DEBUG
/* What this process knows of (jobrank, ep)'s bound segment. */
static int bound_segment(gex_Rank_t jobrank, gex_EP_Index_t ep, uintptr_t *base, uintptr_t *size)
{
    if (jobrank == gexi_core.jobrank) {
        const struct gexi_client *c = gexi_core.client;
        const struct gexi_ep *e =
            c && ep < atomic_load_explicit(&c->n_eps, memory_order_acquire) ? c->eps[ep] : NULL;
        if (!e || !e->segment) return 0;
        *base = (uintptr_t)e->segment->addr;
        *size = e->segment->size;
        return 1;
    }
    const struct gexi_peer_segment *ps = gexi_peer_segment(jobrank, ep);
    if (!ps) return 0;
    *base = (uintptr_t)ps->owneraddr;
    *size = ps->size;
    return 1;
}

/* Debug builds: every peer piece inside the peer's bound segment (spec:
 * the remote memory of RMA must be in the remote bound segment). */
static void check_peer_ranges(const char *func, const struct gexi_vis_op *op)
{
    uintptr_t base = 0, size = 0;
    if (!op->total) return;
    if (!bound_segment(op->jobrank, op->ep, &base, &size))
        gexi_vis_bad_arg(func, "rank %u (jobrank %u, endpoint %u) has no bound segment known "
                         "here", (unsigned)op->rank, (unsigned)op->jobrank, (unsigned)op->ep);
    const struct gexi_vis_side *s = &op->peer;
    if (s->kind == GEXI_VIS_STR) {
        uintptr_t hi = s->base + s->len;
        for (unsigned d = 0; d < s->dims; d++)
            hi += (uintptr_t)(s->count[d] - 1) * (uintptr_t)s->stride[d];
        if (s->base < base || hi > base + size || hi < s->base)
            gexi_vis_bad_arg(func, "the peer's strided section [%p, %p) is outside its bound "
                             "segment [%p, %p)", (void *)s->base, (void *)hi, (void *)base,
                             (void *)(base + size));
        return;
    }
    struct gexi_vis_cur c;
    char *p;
    gexi_vis_seek(s, &c, 0, 0);
    for (size_t r; (r = gexi_vis_run(s, &c, &p)) != 0; gexi_vis_skip(s, &c, r)) {
        uintptr_t a = (uintptr_t)p;
        if (a < base || r > size || a - base > size - r)
            gexi_vis_bad_arg(func, "peer entry %zu [%p, +%zu) is outside the bound segment "
                             "[%p, %p) of rank %u", c.i, (void *)p, r, (void *)base,
                             (void *)(base + size), (unsigned)op->rank);
    }
}
#endif

/* ---- Choice and execution ---- */

/* Translation for a direct copy to the peer, or 0 if there is none. */
static int direct_delta(const struct gexi_vis_op *op, uintptr_t *delta)
{
    *delta = 0;
    if (op->jobrank == gexi_core.jobrank) return 1;
    if (!gexi_vis.pshm || (op->flags & GEX_FLAG_PEER_NEVER_NBRHD)) return 0;
    if (gexi_core.is_nbrhd && !gexi_core.is_nbrhd[op->jobrank]) return 0;
    const struct gexi_peer_segment *ps = gexi_peer_segment(op->jobrank, op->ep);
    if (!ps || !ps->localaddr) return 0;
    *delta = (uintptr_t)ps->localaddr - (uintptr_t)ps->owneraddr;
    return 1;
}

static gex_Event_t execute(struct gexi_vis_op *op)
{
    uintptr_t delta;
    if (gexi_vis.forced) return gexi_vis_rma_run(op);
    if (gexi_mk_any_device() && gexi_vis_kind_applies(op))   /* issue 9: vis_kind.c */
        return gexi_vis_rma_run(op);
    if (direct_delta(op, &delta)) {
        op->peer.delta = delta;
        if (op->is_put) {
            gexi_vis_copy_all(&op->peer, &op->loc, op->total);
            atomic_thread_fence(memory_order_release);
        } else {
            atomic_thread_fence(memory_order_acquire);
            gexi_vis_copy_all(&op->loc, &op->peer, op->total);
        }
        return GEX_EVENT_INVALID;
    }
    if (op->min_piece >= gexi_vis.rma_min || !gexi_vis_am_fits(op)) return gexi_vis_rma_run(op);
    return gexi_vis_am_run(op);
}

static gex_Event_t start(const char *func, struct gexi_vis_op *op)
{
#ifdef GEX_DEBUG
    check_peer_ranges(func, op);
#else
    (void)func;
#endif
    if (op->is_put && GEXI_UNLIKELY(pc_armed.handler)) {
        /* Peer completion: run the put to completion, then tell the peer
         * (its handler must see the data).  IMMEDIATE is not permitted with
         * an armed handler (spec); it is ignored. */
        const gex_AM_Index_t h = pc_armed.handler;
        pc_disarm();
        const enum gexi_vis_sync sync = op->sync;
        op->sync = GEXI_VIS_BLOCKING;
        op->flags &= ~(GEX_FLAG_IMMEDIATE | GEX_FLAG_ENABLE_LEAF_LC);
        if (op->total) execute(op);
        op->sync = sync;
        gex_AM_RequestMedium1(op->tm, op->rank, GEXI_VIS_H_PC, pc_armed.addr, pc_armed.nbytes,
                              GEX_EVENT_NOW, 0, (gex_AM_Arg_t)h);
        return GEX_EVENT_INVALID;
    }
    if (!op->total) return GEX_EVENT_INVALID;
    return execute(op);
}

/* The fields every path reads before the sides are described (no
 * aggregate zeroing: it costs a rep stos per call). */
static inline void op_init(struct gexi_vis_op *op, int is_put, enum gexi_vis_sync sync)
{
    op->is_put = is_put;
    op->sync = sync;
    op->st = NULL;
}

/* ---- Vector and Indexed ---- */

static size_t vec_side(const char *func, const char *name, struct gexi_vis_side *s,
                       size_t count, const gex_Memvec_t list[], size_t *nonzero)
{
    *s = (struct gexi_vis_side){ .kind = GEXI_VIS_VEC, .n = count, .vec = list };
    if (count && !list) gexi_vis_bad_arg(func, "%s is NULL with %zu entries", name, count);
    size_t total = 0, nz = 0;
    for (size_t i = 0; i < count; i++) {
        const size_t len = list[i].gex_len;
        if (!len) continue;
        if (total + len < total) gexi_vis_bad_arg(func, "%s: total length overflows", name);
        if (!list[i].gex_addr) gexi_vis_bad_arg(func, "%s[%zu].gex_addr is NULL", name, i);
        total += len;
        nz++;
    }
    *nonzero = nz;
    return total;
}

static gex_Event_t vector(const char *func, int is_put, enum gexi_vis_sync sync, gex_TM_t tm,
                          gex_Rank_t rank, size_t dstcount, gex_Memvec_t const dstlist[],
                          size_t srccount, gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    struct gexi_vis_op op;
    op_init(&op, is_put, sync);
    check_peer(func, tm, rank, flags, &op);
    size_t dnz, snz;
    struct gexi_vis_side *d = is_put ? &op.peer : &op.loc, *s = is_put ? &op.loc : &op.peer;
    const size_t dt = vec_side(func, "dstlist", d, dstcount, dstlist, &dnz);
    const size_t st = vec_side(func, "srclist", s, srccount, srclist, &snz);
    if (dt != st)
        gexi_vis_bad_arg(func, "dstlist holds %zu bytes, srclist %zu: the totals must match", dt,
                         st);
    op.total = dt;
    const size_t most = dnz > snz ? dnz : snz;
    op.min_piece = most ? dt / most : 0;
    return start(func, &op);
}

static void idx_side(const char *func, const char *name, struct gexi_vis_side *s, size_t count,
                     void *const list[], size_t len)
{
    *s = (struct gexi_vis_side){ .kind = GEXI_VIS_IDX, .n = count, .idx = list, .len = len };
    if (count && len && !list) gexi_vis_bad_arg(func, "%s is NULL with %zu entries", name, count);
}

static gex_Event_t indexed(const char *func, int is_put, enum gexi_vis_sync sync, gex_TM_t tm,
                           gex_Rank_t rank, size_t dstcount, void *const dstlist[],
                           size_t dstlen, size_t srccount, void *const srclist[], size_t srclen,
                           gex_Flags_t flags)
{
    struct gexi_vis_op op;
    op_init(&op, is_put, sync);
    check_peer(func, tm, rank, flags, &op);
    size_t dt, st;
    if (__builtin_mul_overflow(dstcount, dstlen, &dt) ||
        __builtin_mul_overflow(srccount, srclen, &st))
        gexi_vis_bad_arg(func, "count * len overflows");
    if (dt != st)
        gexi_vis_bad_arg(func, "dstcount*dstlen = %zu*%zu but srccount*srclen = %zu*%zu: the "
                         "totals must match", dstcount, dstlen, srccount, srclen);
    struct gexi_vis_side *d = is_put ? &op.peer : &op.loc, *s = is_put ? &op.loc : &op.peer;
    idx_side(func, "dstlist", d, dstcount, dstlist, dstlen);
    idx_side(func, "srclist", s, srccount, srclist, srclen);
    op.total = dt;
    op.min_piece = dstlen < srclen ? dstlen : srclen;
    return start(func, &op);
}

/* ---- Strided ---- */

/* A degenerate Strided Put (elemsz 0, or a zero count) moves no data, but it
 * is still "the next VIS operation" an armed peer completion binds to (spec:
 * "Only the next such operation is affected, after which the peer completion
 * binding for this thread is automatically disarmed").  So consume the
 * binding and notify the peer, as an empty Vector or Indexed Put does;
 * otherwise it stayed armed and fired for a later, unarmed Put, with a
 * payload whose lifetime the client had already ended. */
static gex_Event_t strided_noop(const char *func, int is_put, enum gexi_vis_sync sync,
                                gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags)
{
    if (!is_put || GEXI_LIKELY(!pc_armed.handler)) return GEX_EVENT_INVALID;
    struct gexi_vis_op op;
    op_init(&op, is_put, sync);
    check_peer(func, tm, rank, flags, &op);
    op.loc = op.peer = (struct gexi_vis_side){ .kind = GEXI_VIS_VEC };
    op.total = 0;
    op.min_piece = 0;
    return start(func, &op);
}

static gex_Event_t strided(const char *func, int is_put, enum gexi_vis_sync sync, gex_TM_t tm,
                           gex_Rank_t rank, void *dstaddr, const ptrdiff_t dststrides[],
                           void *srcaddr, const ptrdiff_t srcstrides[], size_t elemsz,
                           const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    /* spec degenerate cases: elemsz 0 ignores everything else; a zero count
     * ignores tm, rank and the addresses (the arrays must still be valid),
     * which the optimizer reports as nelem 0 before anything is checked. */
    if (elemsz == 0) return strided_noop(func, is_put, sync, tm, rank, flags);
    if (stridelevels && (!count || !dststrides || !srcstrides))
        gexi_vis_bad_arg(func, "%s is NULL with stridelevels %zu",
                         !count ? "count" : !dststrides ? "dststrides" : "srcstrides",
                         stridelevels);
    struct gexi_vis_strided st;
    void *laddr = is_put ? srcaddr : dstaddr, *paddr = is_put ? dstaddr : srcaddr;
    const ptrdiff_t *lstr = is_put ? srcstrides : dststrides;
    const ptrdiff_t *pstr = is_put ? dststrides : srcstrides;
    if (gexi_vis_stride_optimize(&st, laddr, lstr, paddr, pstr, elemsz, count, stridelevels)) {
        for (size_t k = 0; k < stridelevels; k++)
            if (count[k] == 0) /* a no-op, however large */
                return strided_noop(func, is_put, sync, tm, rank, flags);
        gexi_vis_bad_arg(func, "elemsz * count[0..%zu] overflows size_t", stridelevels - 1);
    }
    if (st.nelem == 0) return strided_noop(func, is_put, sync, tm, rank, flags);
    struct gexi_vis_op op;
    op_init(&op, is_put, sync);
    check_peer(func, tm, rank, flags, &op);
    if (!laddr || !paddr) gexi_vis_bad_arg(func, "%s is NULL", !srcaddr ? "srcaddr" : "dstaddr");
    op.st = &st;
    gexi_vis_side_strided(&op.loc, &st, 0);
    gexi_vis_side_strided(&op.peer, &st, 1);
    op.total = st.nelem * st.elemsz;
    op.min_piece = st.elemsz;
    return start(func, &op);
}

/* ---- Entry points ---- */
#define RC(e) ((e) != GEX_EVENT_INVALID)

gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    return vector(__func__, 0, GEXI_VIS_NB, tm, srcrank, dstcount, dstlist, srccount, srclist,
                  flags);
}
int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                         gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                         gex_Flags_t flags)
{
    return RC(vector(__func__, 0, GEXI_VIS_NBI, tm, srcrank, dstcount, dstlist, srccount,
                     srclist, flags));
}
int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                              gex_Rank_t srcrank, size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    return RC(vector(__func__, 0, GEXI_VIS_BLOCKING, tm, srcrank, dstcount, dstlist, srccount,
                     srclist, flags));
}
gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    return vector(__func__, 1, GEXI_VIS_NB, tm, dstrank, dstcount, dstlist, srccount, srclist,
                  flags);
}
int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                         gex_Memvec_t const dstlist[], size_t srccount,
                         gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    return RC(vector(__func__, 1, GEXI_VIS_NBI, tm, dstrank, dstcount, dstlist, srccount,
                     srclist, flags));
}
int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                              gex_Memvec_t const dstlist[], size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    return RC(vector(__func__, 1, GEXI_VIS_BLOCKING, tm, dstrank, dstcount, dstlist, srccount,
                     srclist, flags));
}

gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    return indexed(__func__, 0, GEXI_VIS_NB, tm, srcrank, dstcount, dstlist, dstlen, srccount,
                   srclist, srclen, flags);
}
int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                          gex_Rank_t srcrank, size_t srccount, void *const srclist[],
                          size_t srclen, gex_Flags_t flags)
{
    return RC(indexed(__func__, 0, GEXI_VIS_NBI, tm, srcrank, dstcount, dstlist, dstlen,
                      srccount, srclist, srclen, flags));
}
int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                               size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    return RC(indexed(__func__, 0, GEXI_VIS_BLOCKING, tm, srcrank, dstcount, dstlist, dstlen,
                      srccount, srclist, srclen, flags));
}
gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    return indexed(__func__, 1, GEXI_VIS_NB, tm, dstrank, dstcount, dstlist, dstlen, srccount,
                   srclist, srclen, flags);
}
int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                          void *const dstlist[], size_t dstlen, size_t srccount,
                          void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    return RC(indexed(__func__, 1, GEXI_VIS_NBI, tm, dstrank, dstcount, dstlist, dstlen,
                      srccount, srclist, srclen, flags));
}
int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                               void *const dstlist[], size_t dstlen, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    return RC(indexed(__func__, 1, GEXI_VIS_BLOCKING, tm, dstrank, dstcount, dstlist, dstlen,
                      srccount, srclist, srclen, flags));
}

gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    return strided(__func__, 0, GEXI_VIS_NB, tm, srcrank, dstaddr, dststrides, srcaddr,
                   srcstrides, elemsz, count, stridelevels, flags);
}
int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                          gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                          size_t elemsz, const size_t count[], size_t stridelevels,
                          gex_Flags_t flags)
{
    return RC(strided(__func__, 0, GEXI_VIS_NBI, tm, srcrank, dstaddr, dststrides, srcaddr,
                      srcstrides, elemsz, count, stridelevels, flags));
}
int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                               gex_Rank_t srcrank, void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz,
                               const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    return RC(strided(__func__, 0, GEXI_VIS_BLOCKING, tm, srcrank, dstaddr, dststrides, srcaddr,
                      srcstrides, elemsz, count, stridelevels, flags));
}
gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    return strided(__func__, 1, GEXI_VIS_NB, tm, dstrank, dstaddr, dststrides, srcaddr,
                   srcstrides, elemsz, count, stridelevels, flags);
}
int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                          const ptrdiff_t dststrides[], void *srcaddr,
                          const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                          size_t stridelevels, gex_Flags_t flags)
{
    return RC(strided(__func__, 1, GEXI_VIS_NBI, tm, dstrank, dstaddr, dststrides, srcaddr,
                      srcstrides, elemsz, count, stridelevels, flags));
}
int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                               const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz,
                               const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    return RC(strided(__func__, 1, GEXI_VIS_BLOCKING, tm, dstrank, dstaddr, dststrides, srcaddr,
                      srcstrides, elemsz, count, stridelevels, flags));
}
