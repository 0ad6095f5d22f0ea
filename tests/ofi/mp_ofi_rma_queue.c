/*
 * mp_ofi_rma_queue.c: the ofi conduit's RMA issue window (issue 8,
 * GEX_OFI_RMA_INFLIGHT / GEX_OFI_RMA_PIECE, conduits/ofi/ofi_rma.c) driven
 * hard through the public RMA API.  The .mpt files run it with a tiny
 * window (one op in flight per peer) and odd-sized pieces, so that nearly
 * every op waits in the conduit's queue and is issued later from a poll;
 * and with the defaults.  Every rank talks to every other rank at once.
 *
 *  1. Puts of 8 B .. 1 MiB+3 (sizes rotating per pair) to every peer,
 *     interleaved, in six forms: NB with an LC event, NB with
 *     GEX_EVENT_NOW, NB with GEX_EVENT_DEFER, NBI DEFER, NBI with
 *     GEX_EVENT_GROUP, Blocking; each with its own pattern and source.  A
 *     source is overwritten as soon as local completion allows (after an
 *     NB/NOW call returns, when its LC event tests complete, after
 *     gex_NBI_Wait(GEX_EC_LC)), so a queued put that signalled local
 *     completion before the provider read its source lands wrong.  LC
 *     events are tested in reverse order, root events completed by
 *     gex_Event_Wait (every third, from the end), then WaitSome and
 *     WaitAll; each NB put is read back with a blocking get as soon as its
 *     root event is complete (remote completion means visible data), each
 *     blocking put as soon as it returns.
 *  2. Target side: a barrier, then every rank checks in its own segment
 *     what each peer put there (neighbours' bytes too: ops are packed).
 *  3. Gets of the same sizes from every peer's pattern area at rotating
 *     offsets, NB (completed in a shuffled order, each checked right after
 *     its event completes), NBI (checked after gex_NBI_Wait(GEX_EC_GET)),
 *     Blocking (checked on return), into distinct buffers.
 *  4. An access region holding NBI puts and gets to every peer, then NB
 *     puts with GEX_FLAG_IMMEDIATE into the full window (either refused
 *     with GEX_EVENT_NO_OP and redone without the flag, or done), all
 *     checked, and the puts checked again at the target after a barrier.
 * A queued op that is dropped, issued twice with a stale source, signalled
 * before it is done, or never issued (a hang: the watchdog and gexrun's
 * timeout) fails the test.
 */
#include "../mp/mp_util.h"

#define K 16         /* ops per (rank, peer) pair in each phase */
#define NS 8         /* sizes below; K a multiple of NS: every pair moves the same bytes */
static const size_t sizes[NS] = { 8, 300, 65537, 100003, 262149, 524288, 777777, 1048579 };
#define GET_AREA ((size_t)2 << 20)   /* pattern area peers get from */
#define GET_SEED 7777u

static size_t pair_bytes;            /* bytes of one (source, target) pair's K puts */
static char *seg_base;               /* our segment */
static void **peer_base;             /* [n] every rank's segment (owner addresses) */

static inline size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

static size_t op_size(gex_Rank_t s, gex_Rank_t d, int k)
{
    return sizes[(size_t)(3 * k + (int)s + 2 * (int)d) % NS];
}
/* Offset of op k of pair (s -> d) inside the pair's slot. */
static size_t op_off(gex_Rank_t s, gex_Rank_t d, int k)
{
    size_t off = 0;
    for (int i = 0; i < k; i++) off += align64(op_size(s, d, i));
    return off;
}
/* Pattern ids: phase (1 or 4) and pair and op. */
static inline uint32_t pat_a(int phase, gex_Rank_t s, gex_Rank_t d)
{
    return (uint32_t)phase * 100000u + (uint32_t)s * 1000u + (uint32_t)d;
}
/* Where source s's op k to d lands: d's segment, slot s. */
static char *put_dest(gex_Rank_t s, gex_Rank_t d, int k)
{
    return (char *)peer_base[d] + (size_t)s * pair_bytes + op_off(s, d, k);
}
static char *get_area(gex_Rank_t r) { return (char *)peer_base[r] + (size_t)mp_n * pair_bytes; }

/* n bytes at buf must be the pattern (a, b) from byte `at` on. */
static void check_at(const void *buf, size_t n, uint32_t a, uint32_t b, size_t at,
                     const char *what, unsigned peer, int k)
{
    const uint8_t *p = buf;
    const uint32_t seed = mp_pat_seed(a, b);
    for (size_t j = 0; j < n; j++)
        if (p[j] != mp_pat_byte(seed, at + j))
            mp_fail(__FILE__, __LINE__, "%s: peer %u op %d (%zu bytes): byte %zu is 0x%02x, "
                    "want 0x%02x", what, peer, k, n, j, p[j], mp_pat_byte(seed, at + j));
}

/* One op of phase 1 or 4: its form, source, events. */
enum form { F_NB_LC, F_NB_NOW, F_NB_DEFER, F_NBI_DEFER, F_NBI_GROUP, F_BLOCKING, NFORMS };
struct op {
    gex_Rank_t peer;
    int k;
    enum form f;
    size_t len;
    char *src;            /* private source (puts) / destination (gets) */
    gex_Event_t ev, lc;
    int lc_seen;
};

static void scribble(struct op *o) { memset(o->src, 0xee, o->len); }

/* The put landed: read it back from the peer and compare. */
static void read_back(struct op *o, int phase, char *tmp)
{
    memset(tmp, 0, o->len);
    CHECK_OK(gex_RMA_GetBlocking(mp_tm, tmp, o->peer, put_dest(mp_me, o->peer, o->k), o->len, 0));
    check_at(tmp, o->len, pat_a(phase, mp_me, o->peer), (uint32_t)o->k, 0, "read back",
             (unsigned)o->peer, o->k);
}

static void check_target(int phase)
{
    for (gex_Rank_t s = 0; s < mp_n; s++) {
        if (s == mp_me) continue;
        for (int k = 0; k < K; k++)
            check_at(seg_base + (size_t)s * pair_bytes + op_off(s, mp_me, k),
                     op_size(s, mp_me, k), pat_a(phase, s, mp_me), (uint32_t)k, 0,
                     "target side", (unsigned)s, k);
    }
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_OFI_RMA_QUEUE", 0);
    pair_bytes = op_off(0, 0, K);   /* the same for every pair (K multiple of NS) */
    size_t seg = (size_t)mp_n * pair_bytes + GET_AREA;
    mp_attach((seg + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE);
    seg_base = gex_Segment_QueryAddr(mp_seg);
    peer_base = calloc(mp_n, sizeof *peer_base);
    CHECK(peer_base);
    for (gex_Rank_t r = 0; r < mp_n; r++)
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &peer_base[r], NULL, NULL, 0));
    if (mp_n < 2) mp_finish("needs 2 or more ranks: nothing to do");

    const gex_Rank_t npeers = mp_n - 1;
    const size_t nops = (size_t)npeers * K;
    struct op *ops = calloc(nops, sizeof *ops);
    char *srcmem = malloc((size_t)npeers * pair_bytes);
    char *tmp = malloc(sizes[NS - 1]);
    gex_Event_t *evs = calloc(nops, sizeof *evs);
    CHECK(ops && srcmem && tmp && evs);

    /* ---- 1. puts in six forms to every peer, interleaved ---- */
    mp_phase("puts");
    memset(seg_base, 0, seg);
    mp_fill(get_area(mp_me), GET_AREA, mp_me, GET_SEED);
    mp_barrier();
    size_t n_nb = 0, idx = 0;
    for (int k = 0; k < K; k++) {
        for (gex_Rank_t j = 1; j <= npeers; j++, idx++) {
            struct op *o = &ops[idx];
            o->peer = (mp_me + j) % mp_n;
            o->k = k;
            o->f = (enum form)((k + (int)j) % NFORMS);
            o->len = op_size(mp_me, o->peer, k);
            o->src = srcmem + (size_t)(j - 1) * pair_bytes + op_off(mp_me, o->peer, k);
            o->ev = o->lc = GEX_EVENT_INVALID;
            mp_fill(o->src, o->len, pat_a(1, mp_me, o->peer), (uint32_t)k);
            char *dst = put_dest(mp_me, o->peer, k);
            switch (o->f) {
            case F_NB_LC:
                o->ev = gex_RMA_PutNB(mp_tm, o->peer, dst, o->src, o->len, &o->lc, 0);
                break;
            case F_NB_NOW:
                o->ev = gex_RMA_PutNB(mp_tm, o->peer, dst, o->src, o->len, GEX_EVENT_NOW, 0);
                scribble(o);   /* local completion: the source is ours again */
                break;
            case F_NB_DEFER:
                o->ev = gex_RMA_PutNB(mp_tm, o->peer, dst, o->src, o->len, GEX_EVENT_DEFER, 0);
                break;
            case F_NBI_DEFER:
                CHECK_OK(gex_RMA_PutNBI(mp_tm, o->peer, dst, o->src, o->len, GEX_EVENT_DEFER, 0));
                break;
            case F_NBI_GROUP:
                CHECK_OK(gex_RMA_PutNBI(mp_tm, o->peer, dst, o->src, o->len, GEX_EVENT_GROUP, 0));
                break;
            default:
                CHECK_OK(gex_RMA_PutBlocking(mp_tm, o->peer, dst, o->src, o->len, 0));
                scribble(o);
                read_back(o, 1, tmp);
                break;
            }
            if (o->ev != GEX_EVENT_INVALID) n_nb++;
        }
    }
    /* LC events, newest first, scribbling each source as soon as it is free */
    mp_phase("puts: LC events");
    for (size_t left = 1; left;) {
        left = 0;
        for (size_t i = nops; i-- > 0;) {
            struct op *o = &ops[i];
            if (o->f != F_NB_LC || o->lc_seen) continue;
            if (gex_Event_Test(o->lc) == GASNET_OK) {
                o->lc_seen = 1;
                scribble(o);
            } else {
                left++;
            }
        }
        if (left) gasnet_AMPoll();
    }
    /* NBI GROUP: local completion of the group, then those sources are free */
    gex_NBI_Wait(GEX_EC_LC, 0);
    for (size_t i = 0; i < nops; i++)
        if (ops[i].f == F_NBI_GROUP) scribble(&ops[i]);
    /* root events: every third by gex_Event_Wait from the end, each read back at once */
    mp_phase("puts: root events");
    for (size_t i = nops; i-- > 0;) {
        struct op *o = &ops[i];
        if (o->ev == GEX_EVENT_INVALID || i % 3) continue;
        gex_Event_Wait(o->ev);
        o->ev = GEX_EVENT_INVALID;
        if (o->f != F_NB_NOW && o->f != F_NB_LC) scribble(o);
        read_back(o, 1, tmp);
    }
    /* the rest through WaitSome (at least one retired per call), then WaitAll */
    size_t nev = 0;
    for (size_t i = 0; i < nops; i++)
        if (ops[i].ev != GEX_EVENT_INVALID) evs[nev++] = ops[i].ev;
    for (int rounds = 0; rounds < 2 && nev; rounds++) {
        gex_Event_WaitSome(evs, nev, 0);
        size_t retired = 0;
        for (size_t e = 0; e < nev; e++) retired += evs[e] == GEX_EVENT_INVALID;
        CHECK(retired >= 1);
    }
    gex_Event_WaitAll(evs, nev, 0);
    for (size_t i = 0; i < nops; i++) {
        struct op *o = &ops[i];
        if (o->ev == GEX_EVENT_INVALID) continue;
        o->ev = GEX_EVENT_INVALID;
        if (o->f == F_NB_DEFER) scribble(o);
        read_back(o, 1, tmp);
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
    for (size_t i = 0; i < nops; i++)
        if (ops[i].f == F_NBI_DEFER || ops[i].f == F_NBI_GROUP) {
            scribble(&ops[i]);
            read_back(&ops[i], 1, tmp);
        }

    /* ---- 2. target side ---- */
    mp_phase("puts: target side");
    mp_barrier();
    check_target(1);
    mp_barrier();

    /* ---- 3. gets from every peer's pattern area ---- */
    mp_phase("gets");
    nev = 0;
    size_t *ev_op = calloc(nops, sizeof *ev_op);
    CHECK(ev_op);
    idx = 0;
    for (int k = 0; k < K; k++) {
        for (gex_Rank_t j = 1; j <= npeers; j++, idx++) {
            struct op *o = &ops[idx];
            o->peer = (mp_me + j) % mp_n;
            o->k = k;
            o->f = (enum form)((k + 2 * (int)j) % 3);   /* 0 NB, 1 NBI, 2 Blocking */
            o->len = op_size(o->peer, mp_me, k);
            o->src = srcmem + (size_t)(j - 1) * pair_bytes + op_off(o->peer, mp_me, k);
            memset(o->src, 0, o->len);
            const size_t at = ((size_t)k * 40961u + (size_t)j * 13u) % (GET_AREA - o->len);
            o->lc_seen = (int)at;   /* remembers the offset */
            char *src = get_area(o->peer) + at;
            if (o->f == 0) {
                o->ev = gex_RMA_GetNB(mp_tm, o->src, o->peer, src, o->len, 0);
                ev_op[nev++] = idx;
            } else if (o->f == 1) {
                CHECK_OK(gex_RMA_GetNBI(mp_tm, o->src, o->peer, src, o->len, 0));
            } else {
                CHECK_OK(gex_RMA_GetBlocking(mp_tm, o->src, o->peer, src, o->len, 0));
                check_at(o->src, o->len, o->peer, GET_SEED, at, "blocking get", (unsigned)o->peer, k);
            }
        }
    }
    /* NB gets in a shuffled order (a stride coprime to their count), each
     * checked as soon as its event is complete */
    size_t stride = 7;
    while (nev && (stride % nev == 0 || nev % stride == 0)) stride += 2;
    for (size_t e = 0, i = nev ? nev / 2 : 0; e < nev; e++, i = (i + stride) % nev) {
        struct op *o = &ops[ev_op[i]];
        if (e & 1) {
            while (gex_Event_Test(o->ev) != GASNET_OK) gasnet_AMPoll();
        } else {
            gex_Event_Wait(o->ev);
        }
        check_at(o->src, o->len, o->peer, GET_SEED, (size_t)o->lc_seen, "NB get",
                 (unsigned)o->peer, o->k);
    }
    gex_NBI_Wait(GEX_EC_GET, 0);
    for (size_t i = 0; i < nops; i++)
        if (ops[i].f == 1)
            check_at(ops[i].src, ops[i].len, ops[i].peer, GET_SEED, (size_t)ops[i].lc_seen,
                     "NBI get", (unsigned)ops[i].peer, ops[i].k);

    /* ---- 4. an access region of puts and gets, then IMMEDIATE NB puts ---- */
    mp_phase("access region");
    mp_barrier();   /* every rank's phase-3 gets are done before its slots change */
    char *getbuf = malloc((size_t)npeers * pair_bytes);
    CHECK(getbuf);
    gex_NBI_BeginAccessRegion(0);
    idx = 0;
    for (int k = 0; k < K / 2; k++) {
        for (gex_Rank_t j = 1; j <= npeers; j++, idx++) {
            struct op *o = &ops[idx];
            o->peer = (mp_me + j) % mp_n;
            o->k = k;
            o->len = op_size(mp_me, o->peer, k);
            o->src = srcmem + (size_t)(j - 1) * pair_bytes + op_off(mp_me, o->peer, k);
            mp_fill(o->src, o->len, pat_a(4, mp_me, o->peer), (uint32_t)k);
            CHECK_OK(gex_RMA_PutNBI(mp_tm, o->peer, put_dest(mp_me, o->peer, k), o->src, o->len,
                                    GEX_EVENT_DEFER, 0));
            const size_t glen = op_size(o->peer, mp_me, k);
            const size_t at = ((size_t)k * 99991u + (size_t)j) % (GET_AREA - glen);
            CHECK_OK(gex_RMA_GetNBI(mp_tm, getbuf + (size_t)(j - 1) * pair_bytes +
                                    op_off(o->peer, mp_me, k), o->peer, get_area(o->peer) + at,
                                    glen, 0));
        }
    }
    gex_Event_t region = gex_NBI_EndAccessRegion(0);
    /* the region's operations are not the thread's NBI ones */
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
    gex_Event_Wait(region);
    idx = 0;
    for (int k = 0; k < K / 2; k++) {
        for (gex_Rank_t j = 1; j <= npeers; j++, idx++) {
            const gex_Rank_t p = (mp_me + j) % mp_n;
            const size_t glen = op_size(p, mp_me, k);
            const size_t at = ((size_t)k * 99991u + (size_t)j) % (GET_AREA - glen);
            check_at(getbuf + (size_t)(j - 1) * pair_bytes + op_off(p, mp_me, k), glen, p,
                     GET_SEED, at, "region get", (unsigned)p, k);
            read_back(&ops[idx], 4, tmp);
        }
    }
    /* IMMEDIATE NB puts one after another: with a tiny window all but the
     * first to each peer find it full */
    mp_phase("IMMEDIATE");
    unsigned refused = 0;
    idx = 0;
    for (int k = K / 2; k < K; k++) {
        for (gex_Rank_t j = 1; j <= npeers; j++) {
            const gex_Rank_t p = (mp_me + j) % mp_n;
            const size_t len = op_size(mp_me, p, k);
            char *src = srcmem + (size_t)(j - 1) * pair_bytes + op_off(mp_me, p, k);
            mp_fill(src, len, pat_a(4, mp_me, p), (uint32_t)k);
            gex_Event_t e = gex_RMA_PutNB(mp_tm, p, put_dest(mp_me, p, k), src, len,
                                          GEX_EVENT_DEFER, GEX_FLAG_IMMEDIATE);
            if (e == GEX_EVENT_NO_OP) {
                refused++;
                e = gex_RMA_PutNB(mp_tm, p, put_dest(mp_me, p, k), src, len, GEX_EVENT_DEFER, 0);
            }
            CHECK(e != GEX_EVENT_NO_OP);
            evs[idx++] = e;
        }
    }
    gex_Event_WaitAll(evs, idx, 0);
    mp_barrier();
    check_target(4);
    free(ev_op);
    mp_finish("%zu ops per rank to %u peer(s) (%zu NB puts), %u IMMEDIATE refusals", 3 * nops,
              (unsigned)npeers, n_nb, refused);
}
