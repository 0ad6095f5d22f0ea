/*
 * coll_bcast.c: gex_Coll_BroadcastNB (spec: "Collectives Part II") and the
 * binomial-tree operation behind it, which also serves reductions.
 *
 * One tree operation has up to two phases:
 *  - up (reduce): member v (rank relative to the tree root) receives the
 *    partial results of its children v + 2^k (k below the lowest set bit of
 *    v), combines them block by block in increasing k, i.e. in rank order
 *    (left operand = lower ranks, spec: GEX_OP_USER_NC), and sends each
 *    finished block to its parent.  With a non-commutative operator the
 *    tree is rooted at rank 0, so that relative and absolute rank orders
 *    agree, and rank 0 forwards the result to the requested root.
 *  - down (broadcast): pieces of MaxMedium bytes flow from the root down
 *    the same kind of tree, largest subtree first; a member forwards each
 *    piece as soon as it has it (pipelining), so a large broadcast costs
 *    about log2 N piece-latencies plus the transfer time, not log2 N whole
 *    transfers.
 * ReduceToOne uses the up phase, Broadcast the down phase, and ReduceToAll
 * of large vectors with a non-commutative operator both (reduce to rank 0,
 * broadcast from rank 0).  Small broadcasts in one nbrhd go through shared
 * memory instead (coll_shm.c).
 */
#include "coll_internal.h"
#include <stdlib.h>
#include <string.h>

enum { PH_UP = 1, PH_FWD = 2, PH_DOWN = 3 };

struct tree_op {
    struct gexi_coll_op op;
    gex_Rank_t me, n;
    void *dst;
    const void *src;
    /* up phase */
    int reducing, reduce_done;
    gex_Rank_t rr, final_root;         /* tree root; where the result must end */
    struct gexi_coll_redop r;
    struct gexi_coll_layout L;         /* elements */
    unsigned nchild;                   /* children are v + 2^k, k < nchild */
    unsigned kparent;
    gex_Rank_t parent;                 /* absolute; GEX_RANK_INVALID at the root */
    unsigned char **cbuf;              /* [nchild] partial results of the children */
    uint32_t *carr;                    /* [nchild][nblocks] pieces arrived */
    const unsigned char *res;          /* where finished blocks are (src or cbuf[last]) */
    size_t rblk, rsent, fwd_arrived;
    /* down phase */
    int bcasting;
    gex_Rank_t br;
    struct gexi_coll_layout B;         /* bytes */
    uint8_t *got;                      /* [npieces] non-root: piece is in dst */
    const unsigned char *bsrc;         /* root: where pieces are read */
    size_t avail, bp;                  /* pieces present; pieces sent to every child */
    unsigned bc, nbchild;
    gex_Rank_t bchild[32];             /* absolute, largest subtree first */
};

static void bad_msg(const struct tree_op *t, uint32_t step, uint32_t idx, size_t n)
{
    gexi_fatal("libgex-coll: tree operation got an unexpected message (step 0x%x piece %u, "
               "%zu bytes): collective calls do not match across the team", step, idx, n);
}

static void tree_on_msg(struct gexi_coll_op *o, uint32_t step, uint32_t idx, const void *p,
                        size_t n)
{
    struct tree_op *t = (struct tree_op *)o;
    size_t off, len;
    switch (GEXI_COLL_PHASE(step)) {
    case PH_UP: {
        unsigned k = GEXI_COLL_SUB(step);
        if (!t->reducing || k >= t->nchild || idx >= t->L.npieces) bad_msg(t, step, idx, n);
        gexi_coll_piece(&t->L, idx, &off, &len);
        if (len != n) bad_msg(t, step, idx, n);
        memcpy(t->cbuf[k] + off, p, n);
        t->carr[(size_t)k * t->L.nblocks + gexi_coll_block_of(&t->L, idx)]++;
        break;
    }
    case PH_FWD:
        if (!t->reducing || idx >= t->L.npieces) bad_msg(t, step, idx, n);
        gexi_coll_piece(&t->L, idx, &off, &len);
        if (len != n) bad_msg(t, step, idx, n);
        memcpy((char *)t->dst + off, p, n);
        t->fwd_arrived++;
        break;
    case PH_DOWN:
        if (!t->bcasting || t->me == t->br || idx >= t->B.npieces || t->got[idx])
            bad_msg(t, step, idx, n);
        gexi_coll_piece(&t->B, idx, &off, &len);
        if (len != n) bad_msg(t, step, idx, n);
        memcpy((char *)t->dst + off, p, n);
        t->got[idx] = 1;
        break;
    default:
        bad_msg(t, step, idx, n);
    }
}

/* Up phase; returns 1 when this member's part of it is over. */
static int advance_up(struct tree_op *t, struct gexi_coll_outbox *ob)
{
    const struct gexi_coll_layout *L = &t->L;
    /* Combine every block all children have delivered, in rank order. */
    while (t->rblk < L->nblocks) {
        const size_t b = t->rblk;
        for (unsigned k = 0; k < t->nchild; k++)
            if (t->carr[(size_t)k * L->nblocks + b] != L->ppb) goto combined;
        const size_t off = gexi_coll_block_off(L, b), elems = gexi_coll_block_elems(L, b);
        const unsigned char *prev = (const unsigned char *)t->src + off;
        for (unsigned k = 0; k < t->nchild; k++) {
            t->r.fn(prev, t->cbuf[k] + off, elems, t->r.cdata);
            prev = t->cbuf[k] + off;
        }
        if (t->parent == GEX_RANK_INVALID && t->me == t->final_root &&
            prev != (const unsigned char *)t->dst + off)
            memcpy((char *)t->dst + off, prev, elems * L->esz);
        t->rblk++;
    }
combined:;
    /* Send finished pieces up (or, at a root that is not the final one,
     * forward them there). */
    const int sends = t->parent != GEX_RANK_INVALID || t->me != t->final_root;
    if (sends) {
        const gex_Rank_t to = t->parent != GEX_RANK_INVALID ? t->parent : t->final_root;
        const uint32_t step = t->parent != GEX_RANK_INVALID ? GEXI_COLL_STEP(PH_UP, t->kparent)
                                                              : GEXI_COLL_STEP(PH_FWD, 0);
        const size_t ready = t->rblk * L->ppb;
        while (t->rsent < ready) {
            size_t off, len;
            gexi_coll_piece(L, t->rsent, &off, &len);
            if (!gexi_coll_send(ob, &t->op, to, step, (uint32_t)t->rsent, t->res + off, len))
                return 0;
            t->rsent++;
        }
    }
    if (t->rblk < L->nblocks || (sends && t->rsent < L->npieces)) return 0;
    /* The final root, when not the tree root, waits for the forwarded result. */
    if (t->me == t->final_root && t->rr != t->final_root && t->fwd_arrived < L->npieces)
        return 0;
    return 1;
}

static int advance_down(struct tree_op *t, struct gexi_coll_outbox *ob)
{
    const struct gexi_coll_layout *B = &t->B;
    if (t->me == t->br) {
        if (t->reducing) { /* allreduce: the result reaches dst block by block */
            size_t bytes = t->rblk == t->L.nblocks ? B->cnt : gexi_coll_block_off(&t->L, t->rblk);
            t->avail = bytes == B->cnt ? B->npieces : bytes / B->psz;
        } else {
            t->avail = B->npieces;
        }
    } else {
        while (t->avail < B->npieces && t->got[t->avail]) t->avail++;
    }
    while (t->bp < t->avail) {
        size_t off, len;
        gexi_coll_piece(B, t->bp, &off, &len);
        while (t->bc < t->nbchild) {
            if (!gexi_coll_send(ob, &t->op, t->bchild[t->bc], GEXI_COLL_STEP(PH_DOWN, 0),
                                (uint32_t)t->bp, t->bsrc + off, len))
                return 0;
            t->bc++;
        }
        t->bc = 0;
        t->bp++;
    }
    return t->avail == B->npieces;
}

static void tree_advance(struct gexi_coll_op *o, struct gexi_coll_outbox *ob)
{
    struct tree_op *t = (struct tree_op *)o;
    if (t->reducing && !t->reduce_done) t->reduce_done = advance_up(t, ob);
    if (t->bcasting) {
        if (!advance_down(t, ob)) return;
    }
    if (t->reducing && !t->reduce_done) return;
    o->done = 1;
}

static void tree_fini(struct gexi_coll_op *o)
{
    struct tree_op *t = (struct tree_op *)o;
    if (t->cbuf) {
        free(t->cbuf[0]);
        free(t->cbuf);
    }
    free(t->carr);
    free(t->got);
}

static const struct gexi_coll_op_vt tree_vt = {
    .name = "tree", .on_msg = tree_on_msg, .advance = tree_advance, .fini = tree_fini,
};

static struct tree_op *tree_new(gex_TM_t tm, void *dst, const void *src)
{
    const struct gexi_tm *tt = gexi_tm_of(tm);
    struct tree_op *t = gexi_coll_op_alloc(sizeof *t, &tree_vt, tm);
    t->me = tt->rank;
    t->n = tt->size;
    t->dst = dst;
    t->src = src;
    t->parent = GEX_RANK_INVALID;
    return t;
}

static void setup_down(struct tree_op *t, gex_Rank_t root, size_t nbytes, const void *rootsrc)
{
    t->bcasting = 1;
    t->br = root;
    gexi_coll_layout_init(&t->B, 1, nbytes);
    const gex_Rank_t n = t->n, w = (gex_Rank_t)(((uint64_t)t->me + n - root) % n);
    const unsigned kmax = w ? (unsigned)__builtin_ctz(w) : gexi_coll_ceil_log2(n);
    for (unsigned k = kmax; k-- > 0;)
        if ((uint64_t)w + ((uint64_t)1 << k) < n)
            t->bchild[t->nbchild++] = (gex_Rank_t)(((uint64_t)w + ((uint64_t)1 << k) + root) % n);
    if (t->me == root) {
        t->bsrc = rootsrc;
    } else {
        t->bsrc = t->dst;
        t->got = gexi_coll_xcalloc(t->B.npieces, 1);
    }
}

gex_Event_t gexi_coll_tree_bcast(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes)
{
    struct tree_op *t = tree_new(tm, dst, src);
    if (t->me == root && src != dst) memcpy(dst, src, nbytes);
    setup_down(t, root, nbytes, src);
    return gexi_coll_start(&t->op);
}

gex_Event_t gexi_coll_tree_reduce(gex_TM_t tm, gex_Rank_t root, int to_all, void *dst,
                                  const void *src, const struct gexi_coll_redop *r, size_t cnt)
{
    struct tree_op *t = tree_new(tm, dst, src);
    const gex_Rank_t n = t->n;
    t->reducing = 1;
    t->r = *r;
    /* Rank order must be the tree order for a non-commutative operator. */
    t->rr = r->commutative ? root : 0;
    t->final_root = root;
    gexi_coll_layout_init(&t->L, r->esz, cnt);
    const gex_Rank_t v = (gex_Rank_t)(((uint64_t)t->me + n - t->rr) % n);
    const gex_Rank_t low = v ? gexi_coll_lowbit(v) : 0;
    while ((v == 0 || ((gex_Rank_t)1 << t->nchild) < low) &&
           (uint64_t)v + ((uint64_t)1 << t->nchild) < n)
        t->nchild++;
    if (v) {
        t->kparent = (unsigned)__builtin_ctz(v);
        t->parent = (gex_Rank_t)(((uint64_t)(v - low) + t->rr) % n);
    }
    const size_t bytes = r->esz * cnt;
    if (t->nchild) {
        t->cbuf = gexi_coll_xmalloc(t->nchild * sizeof *t->cbuf);
        unsigned char *all = gexi_coll_xmalloc(bytes * t->nchild);
        for (unsigned k = 0; k < t->nchild; k++) t->cbuf[k] = all + bytes * k;
        t->carr = gexi_coll_xcalloc((size_t)t->nchild * t->L.nblocks, sizeof *t->carr);
        t->res = t->cbuf[t->nchild - 1];
    } else {
        t->res = src;
    }
    if (to_all) setup_down(t, root, bytes, dst);
    return gexi_coll_start(&t->op);
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags)
{
    struct gexi_coll_member *m = gexi_coll_check_tm(__func__, tm);
    const struct gexi_tm *t = gexi_tm_of(tm);
    if (flags) gexi_coll_bad_arg(__func__, "flags must be zero (got 0x%x)", (unsigned)flags);
    if (root >= t->size)
        gexi_coll_bad_arg(__func__, "root %u is not below the team size %u", (unsigned)root,
                          (unsigned)t->size);
    if (nbytes && !dst) gexi_coll_bad_arg(__func__, "dst is NULL with nbytes %zu", nbytes);
    if (nbytes && t->rank == root && !src)
        gexi_coll_bad_arg(__func__, "src is NULL on the root with nbytes %zu", nbytes);
    if (t->size == 1 || nbytes == 0) {
        gexi_coll_next_seq(m);
        if (nbytes && src != dst) memcpy(dst, src, nbytes);
        return GEX_EVENT_INVALID;
    }
    if (gexi_coll_shm_fits(m, nbytes)) return gexi_coll_shm_bcast(tm, root, dst, src, nbytes);
    return gexi_coll_tree_bcast(tm, root, dst, src, nbytes);
}
