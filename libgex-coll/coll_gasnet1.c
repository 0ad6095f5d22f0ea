/*
 * coll_gasnet1.c: the legacy GASNet-1 collectives (gasnet_coll.h, second
 * part): broadcast, scatter, gather, gather_all and exchange with their _nb
 * forms, the team barrier, and the autotuner calls, over GASNET_TEAM_ALL
 * (the primordial team), one image per process.
 *
 * How each call runs (the flags are single-valued, so every rank picks the
 * same way and the calls stay in step with gex_Coll_* on the team):
 *  - broadcast and gather_all without any *_ALLSYNC flag are
 *    gex_Coll_BroadcastNB (tree or nbrhd slot) and the Bruck all-gather
 *    (coll_allgather.c): both read the caller's input when it enters and
 *    write its output only after that (IN_MYSYNC), and complete when the
 *    caller's own part is done (OUT_MYSYNC), which covers the NOSYNC modes.
 *  - everything else is one "g1" operation of the engine (coll_engine.c),
 *    one sequence number, one event:
 *      IN_ALLSYNC:  a dissemination barrier first; this member reads its src
 *                   and sends only once it is over (every member entered).
 *                   Data from a peer may arrive before this member's own
 *                   barrier is over: that peer's barrier is, so every member
 *                   has entered and writing dst is allowed.
 *      data:        direct sends of the blocks (flat: root to all, all to
 *                   root, all to all), in pieces of GEX_COLL_PIECE_SIZE; the
 *                   caller's own block is copied locally.  A message's step
 *                   carries the sender's rank, its index the piece number.
 *      OUT_ALLSYNC: once this member has received every piece addressed to
 *                   it and queued all its sends, a second dissemination
 *                   barrier; a member enters it only when its own data is
 *                   complete, so when it is over everyone's is.
 *    The event completes (engine rule) only when none of the operation's
 *    sends is outstanding: src has been read (Mediums copy it) by then.
 */
#include "coll_internal.h"
#include <stdlib.h>
#include <string.h>

/* ---- arguments ---- */

static gex_TM_t legacy_tm(const char *func, gasnet_team_handle_t team)
{
    if (!gexi_core.initialized || !gexi_core.client)
        gexi_fatal("%s: GASNet is not initialized", func);
    if (team != GASNET_TEAM_ALL)
        gexi_coll_bad_arg(func, "team %p is not GASNET_TEAM_ALL, the only legacy team",
                          (void *)team);
    gex_TM_t tm = (gex_TM_t)gexi_core.client->primordial_tm;
    gexi_coll_check_tm(func, tm);
    return tm;
}

/* Debug builds check a caller's claim that its part of src or dst lies in
 * its bound segment (GASNET_COLL_{SRC,DST}_IN_SEGMENT), as GASNet does. */
static void check_in_segment(const char *func, gex_TM_t tm, const char *what, const void *p,
                             size_t len)
{
#ifdef GEX_DEBUG
    if (!len) return;
    void *base = NULL;
    uintptr_t size = 0;
    if (gex_Segment_QueryBound(tm, gex_TM_QueryRank(tm), &base, NULL, &size) != GASNET_OK ||
        (uintptr_t)p < (uintptr_t)base || len > size ||
        (uintptr_t)p - (uintptr_t)base > size - len)
        gexi_coll_bad_arg(func, "%s [%p, +%zu) is not in the bound segment, but flags say "
                          "GASNET_COLL_%s_IN_SEGMENT", what, p, len,
                          what[0] == 's' ? "SRC" : "DST");
#else
    (void)func, (void)tm, (void)what, (void)p, (void)len;
#endif
}

struct sync_mode {
    int in_all, out_all;
};

static struct sync_mode check_flags(const char *func, int flags)
{
    const int in = flags & (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC);
    const int out =
        flags & (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC);
    if (!in || (in & (in - 1)))
        gexi_coll_bad_arg(func, "flags 0x%x must hold exactly one of GASNET_COLL_IN_NOSYNC, "
                          "_IN_MYSYNC, _IN_ALLSYNC", (unsigned)flags);
    if (!out || (out & (out - 1)))
        gexi_coll_bad_arg(func, "flags 0x%x must hold exactly one of GASNET_COLL_OUT_NOSYNC, "
                          "_OUT_MYSYNC, _OUT_ALLSYNC", (unsigned)flags);
    if (!(flags & GASNET_COLL_LOCAL)) {
#ifdef GEX_DEBUG
        gexi_coll_bad_arg(func, "flags 0x%x lack GASNET_COLL_LOCAL, the only address mode of "
                          "GASNet-EX", (unsigned)flags);
#else
        static _Atomic int reported;
        if (gexi_verbose_errors() && !atomic_exchange(&reported, 1))
            gexi_bad_arg_msg(0, func, "addresses taken as local",
                             "flags 0x%x lack GASNET_COLL_LOCAL, the only address mode of "
                             "GASNet-EX", (unsigned)flags);
#endif
    }
    return (struct sync_mode){ (flags & GASNET_COLL_IN_ALLSYNC) != 0,
                               (flags & GASNET_COLL_OUT_ALLSYNC) != 0 };
}

static void check_image(const char *func, const char *what, gasnet_image_t img, gex_TM_t tm)
{
    const gex_Rank_t n = gex_TM_QuerySize(tm);
    if (img >= n)
        gexi_coll_bad_arg(func, "%s %u is not below the number of images %u", what,
                          (unsigned)img, (unsigned)n);
}

static size_t total_bytes(const char *func, size_t nbytes, gex_TM_t tm)
{
    const gex_Rank_t n = gex_TM_QuerySize(tm);
    if (nbytes > SIZE_MAX / n)
        gexi_coll_bad_arg(func, "nbytes %zu times %u images overflows", nbytes, (unsigned)n);
    return nbytes * n;
}

/* ---- the g1 operation ---- */

enum g1_kind { G1_BCAST, G1_SCATTER, G1_GATHER, G1_GATHER_ALL, G1_EXCHANGE };
enum { PH_IN = 1, PH_DATA = 2, PH_OUT = 3 };
enum { ST_IN, ST_DATA, ST_OUT, ST_DONE };

struct g1_bar {
    unsigned k;                        /* next round to complete */
    uint32_t sent, arrived;            /* bit per round */
};

struct g1_op {
    struct gexi_coll_op op;
    enum g1_kind kind;
    const char *func;
    gex_Rank_t me, n, root;
    unsigned char *dst;
    const unsigned char *src;
    size_t nbytes;
    int in_all, out_all, stage;
    unsigned rounds;
    struct g1_bar bar[2];              /* IN, OUT */
    struct gexi_coll_layout L;         /* one block: nbytes in pieces */
    gex_Rank_t ndest, sj;              /* destinations; the one being sent to */
    size_t sp;                         /* its next piece */
    size_t expect, arrived;            /* pieces addressed to this member */
    int copied;                        /* own block copied */
};

/* Does this member send to everyone else (1), to the root only (2), or not at all (0)? */
static int send_pattern(const struct g1_op *g)
{
    switch (g->kind) {
    case G1_BCAST:
    case G1_SCATTER: return g->me == g->root;
    case G1_GATHER: return g->me != g->root ? 2 : 0;
    default: return 1;
    }
}

static gex_Rank_t dest_of(const struct g1_op *g, gex_Rank_t j)
{
    if (send_pattern(g) == 2) return g->root;
    return (gex_Rank_t)(((uint64_t)g->me + 1 + j) % g->n);
}

static const unsigned char *payload_for(const struct g1_op *g, gex_Rank_t r)
{
    if (g->kind == G1_SCATTER || g->kind == G1_EXCHANGE) return g->src + (size_t)r * g->nbytes;
    return g->src;
}

/* Where a block from `sender` goes, or NULL if none is expected from it. */
static unsigned char *place_of(const struct g1_op *g, gex_Rank_t sender)
{
    if (sender >= g->n || sender == g->me) return NULL;
    switch (g->kind) {
    case G1_BCAST:
    case G1_SCATTER: return sender == g->root ? g->dst : NULL;
    case G1_GATHER:
        if (g->me != g->root) return NULL;
        /* fall through */
    default: return g->dst + (size_t)sender * g->nbytes;
    }
}

static void g1_bad(const struct g1_op *g, uint32_t step, uint32_t idx, size_t n)
{
    gexi_fatal("libgex-coll: %s got an unexpected message (step 0x%x piece %u, %zu bytes): "
               "collective calls do not match across the team", g->func, step, idx, n);
}

static void g1_on_msg(struct gexi_coll_op *o, uint32_t step, uint32_t idx, const void *p,
                      size_t n)
{
    struct g1_op *g = (struct g1_op *)o;
    const uint32_t sub = GEXI_COLL_SUB(step);
    switch (GEXI_COLL_PHASE(step)) {
    case PH_IN:
    case PH_OUT: {
        const int which = GEXI_COLL_PHASE(step) == PH_OUT;
        if (sub >= g->rounds || p || (which ? !g->out_all : !g->in_all)) g1_bad(g, step, idx, n);
        g->bar[which].arrived |= 1u << sub;
        return;
    }
    case PH_DATA: {
        unsigned char *at = place_of(g, (gex_Rank_t)sub);
        size_t off, len;
        if (!at || !p || idx >= g->L.npieces) g1_bad(g, step, idx, n);
        gexi_coll_piece(&g->L, idx, &off, &len);
        if (len != n) g1_bad(g, step, idx, n);
        memcpy(at + off, p, n);
        g->arrived++;
        return;
    }
    default: g1_bad(g, step, idx, n);
    }
}

/* Dissemination barrier `which` (0 IN, 1 OUT); true once it is over here. */
static bool g1_barrier(struct g1_op *g, int which, struct gexi_coll_outbox *ob)
{
    struct g1_bar *b = &g->bar[which];
    while (b->k < g->rounds) {
        const uint32_t bit = 1u << b->k;
        if (!(b->sent & bit)) {
            const gex_Rank_t to = (gex_Rank_t)(((uint64_t)g->me + ((uint64_t)1 << b->k)) % g->n);
            if (!gexi_coll_send_short(ob, &g->op, to,
                                      GEXI_COLL_STEP(which ? PH_OUT : PH_IN, b->k), 0))
                return false;
            b->sent |= bit;
        }
        if (!(b->arrived & bit)) return false;
        b->k++;
    }
    return true;
}

static void own_block(struct g1_op *g)
{
    if (!g->nbytes) return;
    const size_t nb = g->nbytes, me = g->me;
    switch (g->kind) {
    case G1_BCAST:
        if (g->me == g->root && g->dst != g->src) memmove(g->dst, g->src, nb);
        break;
    case G1_SCATTER:
        if (g->me == g->root) memmove(g->dst, g->src + me * nb, nb);
        break;
    case G1_GATHER:
        if (g->me == g->root) memmove(g->dst + me * nb, g->src, nb);
        break;
    case G1_GATHER_ALL: memmove(g->dst + me * nb, g->src, nb); break;
    case G1_EXCHANGE: memmove(g->dst + me * nb, g->src + me * nb, nb); break;
    }
}

static void g1_advance(struct gexi_coll_op *o, struct gexi_coll_outbox *ob)
{
    struct g1_op *g = (struct g1_op *)o;
    switch (g->stage) {
    case ST_IN:
        if (g->in_all && !g1_barrier(g, 0, ob)) return;
        g->stage = ST_DATA;
        /* fall through */
    case ST_DATA:
        if (!g->copied) {
            own_block(g);
            g->copied = 1;
        }
        while (g->sj < g->ndest) {
            const gex_Rank_t to = dest_of(g, g->sj);
            const unsigned char *from = payload_for(g, to);
            while (g->sp < g->L.npieces) {
                size_t off, len;
                gexi_coll_piece(&g->L, g->sp, &off, &len);
                if (!gexi_coll_send(ob, o, to, GEXI_COLL_STEP(PH_DATA, g->me), (uint32_t)g->sp,
                                    from + off, len))
                    return;
                g->sp++;
            }
            g->sj++;
            g->sp = 0;
        }
        if (g->arrived < g->expect) return;
        g->stage = ST_OUT;
        /* fall through */
    case ST_OUT:
        if (g->out_all && !g1_barrier(g, 1, ob)) return;
        g->stage = ST_DONE;
        /* fall through */
    default: o->done = 1;
    }
}

static const struct gexi_coll_op_vt g1_vt = {
    .name = "gasnet1-coll", .on_msg = g1_on_msg, .advance = g1_advance,
};

static gex_Event_t g1_start(const char *func, gex_TM_t tm, enum g1_kind kind, gex_Rank_t root,
                            void *dst, const void *src, size_t nbytes, struct sync_mode sm)
{
    const struct gexi_tm *t = gexi_tm_of(tm);
    if (t->size > GEXI_COLL_SUB(~(uint32_t)0))
        gexi_coll_bad_arg(func, "teams of more than %u images are not supported",
                          (unsigned)GEXI_COLL_SUB(~(uint32_t)0));
    struct g1_op *g = gexi_coll_op_alloc(sizeof *g, &g1_vt, tm);
    g->kind = kind;
    g->func = func;
    g->me = t->rank;
    g->n = t->size;
    g->root = root;
    g->dst = dst;
    g->src = src;
    g->nbytes = nbytes;
    g->in_all = sm.in_all && t->size > 1;
    g->out_all = sm.out_all && t->size > 1;
    g->stage = ST_IN;
    g->rounds = gexi_coll_ceil_log2(t->size);
    gexi_coll_layout_init(&g->L, 1, nbytes);
    switch (send_pattern(g)) {
    case 1: g->ndest = g->n - 1; break;
    case 2: g->ndest = 1; break;
    default: g->ndest = 0;
    }
    gex_Rank_t senders;
    switch (kind) {
    case G1_BCAST:
    case G1_SCATTER: senders = g->me != root; break;
    case G1_GATHER: senders = g->me == root ? g->n - 1 : 0; break;
    default: senders = g->n - 1;
    }
    g->expect = (size_t)senders * g->L.npieces;
    return gexi_coll_start(&g->op);
}

/* ---- the data movement calls ---- */

gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                              gasnet_image_t srcimage, void *src, size_t nbytes,
                                              int flags)
{
    static const char func[] = "gasnet_coll_broadcast_nb";
    gex_TM_t tm = legacy_tm(func, team);
    const struct sync_mode sm = check_flags(func, flags);
    check_image(func, "srcimage", srcimage, tm);
    const int is_root = gex_TM_QueryRank(tm) == srcimage;
    if (nbytes && !dst) gexi_coll_bad_arg(func, "dst is NULL with nbytes %zu", nbytes);
    if (nbytes && is_root && !src)
        gexi_coll_bad_arg(func, "src is NULL on srcimage with nbytes %zu", nbytes);
    if (flags & GASNET_COLL_DST_IN_SEGMENT) check_in_segment(func, tm, "dst", dst, nbytes);
    if (is_root && (flags & GASNET_COLL_SRC_IN_SEGMENT))
        check_in_segment(func, tm, "src", src, nbytes);
    if (!sm.in_all && !sm.out_all)
        return gex_Coll_BroadcastNB(tm, srcimage, dst, is_root ? src : NULL, nbytes, 0);
    return g1_start(func, tm, G1_BCAST, srcimage, dst, src, nbytes, sm);
}

gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                            gasnet_image_t srcimage, void *src, size_t nbytes,
                                            int flags)
{
    static const char func[] = "gasnet_coll_scatter_nb";
    gex_TM_t tm = legacy_tm(func, team);
    const struct sync_mode sm = check_flags(func, flags);
    check_image(func, "srcimage", srcimage, tm);
    const size_t all = total_bytes(func, nbytes, tm);
    const int is_root = gex_TM_QueryRank(tm) == srcimage;
    if (nbytes && !dst) gexi_coll_bad_arg(func, "dst is NULL with nbytes %zu", nbytes);
    if (nbytes && is_root && !src)
        gexi_coll_bad_arg(func, "src is NULL on srcimage with nbytes %zu", nbytes);
    if (flags & GASNET_COLL_DST_IN_SEGMENT) check_in_segment(func, tm, "dst", dst, nbytes);
    if (is_root && (flags & GASNET_COLL_SRC_IN_SEGMENT))
        check_in_segment(func, tm, "src", src, all);
    return g1_start(func, tm, G1_SCATTER, srcimage, dst, src, nbytes, sm);
}

gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                           void *dst, void *src, size_t nbytes, int flags)
{
    static const char func[] = "gasnet_coll_gather_nb";
    gex_TM_t tm = legacy_tm(func, team);
    const struct sync_mode sm = check_flags(func, flags);
    check_image(func, "dstimage", dstimage, tm);
    const size_t all = total_bytes(func, nbytes, tm);
    const int is_root = gex_TM_QueryRank(tm) == dstimage;
    if (nbytes && !src) gexi_coll_bad_arg(func, "src is NULL with nbytes %zu", nbytes);
    if (nbytes && is_root && !dst)
        gexi_coll_bad_arg(func, "dst is NULL on dstimage with nbytes %zu", nbytes);
    if (is_root && (flags & GASNET_COLL_DST_IN_SEGMENT))
        check_in_segment(func, tm, "dst", dst, all);
    if (flags & GASNET_COLL_SRC_IN_SEGMENT) check_in_segment(func, tm, "src", src, nbytes);
    return g1_start(func, tm, G1_GATHER, dstimage, dst, src, nbytes, sm);
}

gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst, void *src,
                                               size_t nbytes, int flags)
{
    static const char func[] = "gasnet_coll_gather_all_nb";
    gex_TM_t tm = legacy_tm(func, team);
    const struct sync_mode sm = check_flags(func, flags);
    const size_t all = total_bytes(func, nbytes, tm);
    if (nbytes && (!src || !dst))
        gexi_coll_bad_arg(func, "%s is NULL with nbytes %zu", src ? "dst" : "src", nbytes);
    if (flags & GASNET_COLL_DST_IN_SEGMENT) check_in_segment(func, tm, "dst", dst, all);
    if (flags & GASNET_COLL_SRC_IN_SEGMENT) check_in_segment(func, tm, "src", src, nbytes);
    if (!sm.in_all && !sm.out_all && nbytes) return gexi_coll_allgather(tm, dst, src, nbytes);
    return g1_start(func, tm, G1_GATHER_ALL, 0, dst, src, nbytes, sm);
}

gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src,
                                             size_t nbytes, int flags)
{
    static const char func[] = "gasnet_coll_exchange_nb";
    gex_TM_t tm = legacy_tm(func, team);
    const struct sync_mode sm = check_flags(func, flags);
    const size_t all = total_bytes(func, nbytes, tm);
    if (nbytes && (!src || !dst))
        gexi_coll_bad_arg(func, "%s is NULL with nbytes %zu", src ? "dst" : "src", nbytes);
    if (flags & GASNET_COLL_DST_IN_SEGMENT) check_in_segment(func, tm, "dst", dst, all);
    if (flags & GASNET_COLL_SRC_IN_SEGMENT) check_in_segment(func, tm, "src", src, all);
    return g1_start(func, tm, G1_EXCHANGE, 0, dst, src, nbytes, sm);
}

void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                           void *src, size_t nbytes, int flags)
{
    gex_Event_Wait(gasnet_coll_broadcast_nb(team, dst, srcimage, src, nbytes, flags));
}

void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                         void *src, size_t nbytes, int flags)
{
    gex_Event_Wait(gasnet_coll_scatter_nb(team, dst, srcimage, src, nbytes, flags));
}

void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                        void *src, size_t nbytes, int flags)
{
    gex_Event_Wait(gasnet_coll_gather_nb(team, dstimage, dst, src, nbytes, flags));
}

void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                            int flags)
{
    gex_Event_Wait(gasnet_coll_gather_all_nb(team, dst, src, nbytes, flags));
}

void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                          int flags)
{
    gex_Event_Wait(gasnet_coll_exchange_nb(team, dst, src, nbytes, flags));
}

/* ---- team barrier: the GASNet-1 barrier (coll_legacy.c) over GASNET_TEAM_ALL ---- */

void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags)
{
    legacy_tm(__func__, team);
    gasnet_barrier_notify(id, flags);
}

int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags)
{
    legacy_tm(__func__, team);
    return gasnet_barrier_try(id, flags);
}

int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags)
{
    legacy_tm(__func__, team);
    return gasnet_barrier_wait(id, flags);
}

int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags)
{
    legacy_tm(__func__, team);
    return gasnet_barrier(id, flags);
}

int gasnet_coll_barrier_result(gasnet_team_handle_t team, int *id)
{
    legacy_tm(__func__, team);
    return gasnet_barrier_result(id);
}

/* ---- autotuner: nothing to tune ---- */

static void check_optype(const char *func, gasnet_coll_optype_t optype, unsigned allowed)
{
    if ((unsigned)optype >= GASNET_COLL_NUM_COLL_OPTYPES || !(allowed & (1u << optype)))
        gexi_coll_bad_arg(func, "optype %d is not valid here", (int)optype);
}

void gasnet_coll_loadTuningState(const char *filename, gasnet_team_handle_t team)
{
    (void)filename;
    legacy_tm(__func__, team);
}

void gasnet_coll_dumpTuningState(const char *filename, gasnet_team_handle_t team)
{
    (void)filename;
    legacy_tm(__func__, team);
}

void gasnet_coll_dumpProfile(const char *filename, gasnet_team_handle_t team)
{
    (void)filename;
    legacy_tm(__func__, team);
}

int gasnet_coll_get_num_tree_classes(gasnet_team_handle_t team, gasnet_coll_optype_t optype)
{
    legacy_tm(__func__, team);
    check_optype(__func__, optype, ~0u);
    return 1; /* the binomial tree */
}

void gasnet_coll_set_tree_kind(gasnet_team_handle_t team, int tree_class, int fanout,
                               gasnet_coll_optype_t optype)
{
    (void)tree_class, (void)fanout;
    legacy_tm(__func__, team);
    check_optype(__func__, optype,
                 1u << GASNET_COLL_BROADCAST_OP | 1u << GASNET_COLL_SCATTER_OP |
                     1u << GASNET_COLL_GATHER_OP);
}

void gasnet_coll_set_dissem_limit(gasnet_team_handle_t team, size_t dissemlimit,
                                  gasnet_coll_optype_t optype)
{
    (void)dissemlimit;
    legacy_tm(__func__, team);
    check_optype(__func__, optype, 1u << GASNET_COLL_GATHER_ALL_OP | 1u << GASNET_COLL_EXCHANGE_OP);
}
