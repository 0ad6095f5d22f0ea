/*
 * mp_vis.c: every VIS form between every pair of ranks (self included),
 * with the data checked against a naive local reference copy.  Run as is
 * (PSHM bypass), with GEX_PSHM=0 (AM pack/unpack and per-piece RMA), with
 * knobs forcing each mechanism, and with GEX_FORCE_REFERENCE=vis (see
 * tests/vis.inc).
 *
 *  1. Sweep: random Vector, Indexed and Strided puts and gets, in batches of
 *     up to 4 in flight to disjoint windows, each op Blocking, NB or NBI
 *     (some NBI batches inside an access region; some puts with
 *     GEX_FLAG_ENABLE_LEAF_LC, whose source is overwritten as soon as the
 *     LC leaf or gex_NBI_Wait(GEX_EC_LC) allows).  Shapes: Vector lists of
 *     different shapes on each side with zero-length entries; Indexed with
 *     equal and mismatched lengths; Strided of 1..32 levels (null levels
 *     among them), element sizes 1..64, transposes (another dimension order
 *     on each side) and reflections (negative strides on either side).
 *     Puts: the initiator keeps a model of its window in the target and
 *     reads the window back (gex_RMA_GetBlocking) after the batch.  Gets:
 *     from the target's read-only pattern area, compared with the same
 *     copy done naively from a local replica of that area.
 *  2. Large operations: 1-d strided sections with 8-byte elements (many
 *     AMs, pipelined) and 8 KiB elements (per-piece RMA), big Vector and
 *     Indexed lists.
 *  3. Teams: gex_TM_Pair (EP 0 to EP 0) and a gex_TM_Split team in reverse
 *     rank order.
 *  4. GEX_FLAG_IMMEDIATE: a refused call has no effect; retried without.
 *     A flood of IMMEDIATE NBI puts (small rings refuse some).
 *  5. Degenerate calls: elemsz 0 (every other argument ignored, tm
 *     GEX_TM_INVALID), a zero count, zero-length lists and entries.
 *  6. Two threads issuing VIS puts and gets at once (own windows).
 *  7. Peer completion (gex_VIS_SetPeerCompletionHandler): each target's
 *     handler checks that the put's data is in place when it runs, and
 *     counts exactly the expected deliveries; a disarmed handler delivers
 *     nothing; a degenerate Strided put consumes the binding and notifies.
 */
#include "mp_util.h"
#include <gasnet_vis.h>
#include <pthread.h>
#include <time.h>

#define W ((size_t)64 << 10)       /* small window */
#define NWIN 4
#define BIGW ((size_t)2 << 20)     /* large window */
#define SLOT (NWIN * W + BIGW)     /* per-sender area in every target */
#define PAT_AREA (BIGW)            /* read-only pattern area, after the slots */
#define PAT_B 0x7157u

enum { H_PC = MP_H_FIRST_FREE };

static char **seg_base;            /* every rank's segment (owner address) */
static unsigned char *lwin;        /* local windows: NWIN * W + BIGW */
static unsigned char *model;       /* model of our slot in every target (puts) */
static unsigned char *gmodel;      /* model of lwin (gets) */
static unsigned char *replica;     /* local replica of a target's pattern area */
static unsigned char *readback;
static unsigned long n_ops, n_refused, n_checked_bytes;
static unsigned rng_state = 1;

static unsigned rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) & 0xffffff;
}
static size_t rndn(size_t n) { return n ? (size_t)rnd() % n : 0; }

static char *slot_in(gex_Rank_t target) { return seg_base[target] + (size_t)mp_me * SLOT; }
static char *pat_area(gex_Rank_t target) { return seg_base[target] + (size_t)mp_n * SLOT; }
static size_t win_off(int w) { return w < NWIN ? (size_t)w * W : NWIN * W; }
static size_t win_size(int w) { return w < NWIN ? W : BIGW; }

/* ---- Operation descriptions: offsets inside a window on each side ---- */
enum { K_VEC, K_IDX, K_STR };
struct desc {
    int kind;
    size_t total;
    /* VEC */
    size_t dcount, scount;
    size_t *doff, *dlen, *soff, *slen;
    /* IDX: doff/soff arrays of dcount/scount entries */
    size_t dl, sl;
    /* STR */
    size_t elemsz, levels, cnt[32];
    ptrdiff_t dstr[32], sstr[32];
    size_t dbase, sbase;
};
#define MAXP 20000
static size_t a_doff[MAXP], a_dlen[MAXP], a_soff[MAXP], a_slen[MAXP];

static void desc_init(struct desc *d, int kind)
{
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->doff = a_doff;
    d->dlen = a_dlen;
    d->soff = a_soff;
    d->slen = a_slen;
}

/* Vector: destination pieces laid out without overlap then shuffled; the
 * source is another cut of the same total, anywhere (sources may overlap),
 * or, one time in three, the destination's own lengths (all or a prefix). */
static void gen_vec(struct desc *d, size_t wsz, size_t maxpiece, size_t maxn)
{
    desc_init(d, K_VEC);
    size_t off = rndn(16), n = 0, total = 0;
    while (n < maxn) {
        size_t len = rndn(8) ? 1 + rndn(maxpiece) : 0;
        size_t gap = rndn(3) ? rndn(24) : 0;
        if (off + gap + len > wsz) break;
        off += gap;
        d->doff[n] = off;
        d->dlen[n] = len;
        off += len;
        total += len;
        n++;
    }
    for (size_t i = n; i > 1; i--) { /* shuffle the destination list */
        size_t j = rndn(i), t;
        t = d->doff[i - 1]; d->doff[i - 1] = d->doff[j]; d->doff[j] = t;
        t = d->dlen[i - 1]; d->dlen[i - 1] = d->dlen[j]; d->dlen[j] = t;
    }
    d->dcount = n;
    d->total = total;
    size_t left = total, m = 0;
    if (rndn(3) == 0) {
        /* the same shape at both ends (entry by entry, as libgex-vis copies
         * it), to the end or up to entry k and then one piece */
        const size_t k = rndn(2) ? n : rndn(n + 1);
        for (; m < k; m++) {
            d->slen[m] = d->dlen[m];
            d->soff[m] = rndn(wsz - d->dlen[m]);
            left -= d->dlen[m];
        }
        if (left) {
            d->soff[m] = rndn(wsz - left);
            d->slen[m++] = left;
        }
        d->scount = m;
        return;
    }
    while ((left || rndn(2)) && m < maxn - 1) {
        size_t len = rndn(6) ? 1 + rndn(maxpiece * 2) : 0;
        if (len > left) len = left;
        d->soff[m] = rndn(wsz - len);
        d->slen[m] = len;
        left -= len;
        m++;
    }
    if (left) {
        d->soff[m] = rndn(wsz - left);
        d->slen[m++] = left;
    }
    d->scount = m;
}

/* Indexed: destination slots of dl bytes in random order without overlap;
 * source entries of sl bytes anywhere. */
static void gen_idx(struct desc *d, size_t wsz, size_t maxn)
{
    static const size_t sizes[] = { 1, 2, 3, 4, 7, 8, 13, 16, 24, 32, 48, 64 };
    desc_init(d, K_IDX);
    size_t e = sizes[rndn(sizeof sizes / sizeof sizes[0])];
    size_t k = 1 + rndn(4);
    int mode = (int)rndn(3); /* 0 equal, 1 source longer, 2 destination longer */
    d->dl = mode == 2 ? e * k : e;
    d->sl = mode == 1 ? e * k : e;
    size_t pitch = d->dl + rndn(2) * (1 + rndn(d->dl + 8));
    size_t nslots = wsz / pitch, want = 1 + rndn(maxn);
    size_t lcm = d->dl > d->sl ? d->dl : d->sl; /* one is a multiple of the other */
    size_t total = want * d->dl;
    total -= total % lcm;
    if (total / d->dl > nslots) total = (nslots * d->dl) / lcm * lcm;
    d->dcount = total / d->dl;
    d->scount = total / d->sl;
    d->total = total;
    /* random distinct slots: a random start and a step coprime to nslots */
    size_t step = 1 + rndn(nslots ? nslots : 1), start = rndn(nslots ? nslots : 1);
    while (nslots && step > 1) {
        size_t a = step, b = nslots;
        while (b) { size_t t = a % b; a = b; b = t; }
        if (a == 1) break;
        step--;
    }
    for (size_t i = 0; i < d->dcount; i++) d->doff[i] = ((start + i * step) % nslots) * pitch;
    for (size_t i = 0; i < d->scount; i++) d->soff[i] = rndn(wsz - d->sl);
}

/* One side's strided layout: dimensions in a random order of increasing
 * stride, padded, random signs; null levels get arbitrary strides. */
static size_t layout(const struct desc *d, ptrdiff_t *str, size_t wsz, int may_reflect)
{
    unsigned perm[32];
    for (unsigned k = 0; k < d->levels; k++) perm[k] = k;
    for (unsigned k = (unsigned)d->levels; k > 1; k--) {
        unsigned j = (unsigned)rndn(k), t = perm[k - 1];
        perm[k - 1] = perm[j];
        perm[j] = t;
    }
    size_t s = d->elemsz + (rndn(3) ? 0 : d->elemsz * (1 + rndn(3)));
    size_t base = 0;
    for (unsigned k = 0; k < d->levels; k++) {
        unsigned dim = perm[k];
        if (d->cnt[dim] == 1) { /* a null level: its stride is never used */
            str[dim] = (ptrdiff_t)rndn(100000) - 50000;
            continue;
        }
        ptrdiff_t v = (ptrdiff_t)s;
        if (may_reflect && rndn(3) == 0) {
            v = -v;
            base += (d->cnt[dim] - 1) * s;
        }
        str[dim] = v;
        s = s * d->cnt[dim] + (rndn(3) ? 0 : d->elemsz * rndn(3));
    }
    size_t span = 0;
    for (unsigned k = 0; k < d->levels; k++)
        if (d->cnt[k] > 1) span += (d->cnt[k] - 1) * (size_t)(str[k] < 0 ? -str[k] : str[k]);
    span += d->elemsz;
    if (span > wsz) return (size_t)-1;
    return base + rndn(wsz - span + 1) / 8 * 8 + (rndn(4) == 0 ? rndn(8) : 0) * (span + 8 <= wsz);
}

static void gen_str(struct desc *d, size_t wsz, size_t maxbytes)
{
    static const size_t sizes[] = { 1, 2, 3, 4, 5, 8, 12, 16, 24, 31, 32, 48, 64 };
    for (;;) {
        desc_init(d, K_STR);
        d->elemsz = sizes[rndn(sizeof sizes / sizeof sizes[0])];
        unsigned r = (unsigned)rndn(10);
        d->levels = r < 5 ? 1 + rndn(3) : r < 8 ? 4 + rndn(5) : 9 + rndn(24); /* 1..32 */
        for (size_t k = 0; k < d->levels; k++) d->cnt[k] = 1;
        size_t elems = 1, active = 1 + rndn(d->levels < 12 ? d->levels : 12);
        for (size_t a = 0; a < active; a++) {
            size_t k = rndn(d->levels), c = 2 + rndn(6);
            if (d->cnt[k] > 1 || (elems * c) * d->elemsz > maxbytes) continue;
            d->cnt[k] = c;
            elems *= c;
        }
        d->total = elems * d->elemsz;
        size_t db = layout(d, d->dstr, wsz, 1), sb = layout(d, d->sstr, wsz, 1);
        if (db == (size_t)-1 || sb == (size_t)-1) continue;
        d->dbase = db;
        d->sbase = sb;
        return;
    }
}

static void gen_any(struct desc *d, size_t wsz)
{
    switch (rndn(3)) {
    case 0: gen_vec(d, wsz, 200, 400); break;
    case 1: gen_idx(d, wsz, 600); break;
    default: gen_str(d, wsz, wsz / 4); break;
    }
}

/* ---- Naive reference: byte stream out of the source, into the destination ---- */
static unsigned char stream_buf[BIGW];

static size_t str_walk(const struct desc *d, unsigned char *base, const ptrdiff_t *str,
                       unsigned char *buf, int to_base)
{
    size_t idx[32] = { 0 }, n = 0;
    for (;;) {
        unsigned char *p = base;
        for (size_t k = 0; k < d->levels; k++) p += (ptrdiff_t)idx[k] * str[k];
        if (to_base) memcpy(p, buf + n, d->elemsz);
        else memcpy(buf + n, p, d->elemsz);
        n += d->elemsz;
        size_t k = 0;
        for (; k < d->levels; k++) {
            if (++idx[k] < d->cnt[k]) break;
            idx[k] = 0;
        }
        if (k == d->levels) return n;
    }
}

static void naive(const struct desc *d, unsigned char *dwin, const unsigned char *swin)
{
    size_t n = 0;
    switch (d->kind) {
    case K_VEC:
        for (size_t i = 0; i < d->scount; i++, n += d->slen[i - 1])
            memcpy(stream_buf + n, swin + d->soff[i], d->slen[i]);
        n = 0;
        for (size_t i = 0; i < d->dcount; i++, n += d->dlen[i - 1])
            memcpy(dwin + d->doff[i], stream_buf + n, d->dlen[i]);
        break;
    case K_IDX:
        for (size_t i = 0; i < d->scount; i++) memcpy(stream_buf + i * d->sl, swin + d->soff[i], d->sl);
        for (size_t i = 0; i < d->dcount; i++) memcpy(dwin + d->doff[i], stream_buf + i * d->dl, d->dl);
        break;
    default:
        if (d->total == 0) break;
        str_walk(d, (unsigned char *)swin + d->sbase, d->sstr, stream_buf, 0);
        str_walk(d, dwin + d->dbase, d->dstr, stream_buf, 1);
        break;
    }
}

/* ---- Issuing a description for real ---- */
/* Per op in a batch: its own lists (they must stay valid until completion). */
struct lists {
    gex_Memvec_t *dv, *sv;
    void **di, **si;
};
static struct lists batch_lists[NWIN + 1];

static void lists_alloc(void)
{
    for (int i = 0; i <= NWIN; i++) {
        batch_lists[i].dv = calloc(MAXP, sizeof(gex_Memvec_t));
        batch_lists[i].sv = calloc(MAXP, sizeof(gex_Memvec_t));
        batch_lists[i].di = calloc(MAXP, sizeof(void *));
        batch_lists[i].si = calloc(MAXP, sizeof(void *));
        CHECK(batch_lists[i].dv && batch_lists[i].sv && batch_lists[i].di && batch_lists[i].si);
    }
}

enum form { F_BLOCKING, F_NB, F_NBI };

/* Issues d (put if is_put) between local window lw and remote window rw of
 * (tm, rank).  Returns the NB event (or INVALID), or NO_OP via *refused. */
static gex_Event_t issue(gex_TM_t tm, gex_Rank_t rank, int is_put, const struct desc *d,
                         struct lists *L, unsigned char *lw, char *rw, enum form f,
                         gex_Flags_t flags, int *refused)
{
    unsigned char *dw = is_put ? (unsigned char *)rw : lw, *sw = is_put ? lw : (unsigned char *)rw;
    gex_Event_t ev = GEX_EVENT_INVALID;
    int rc = 0;
    n_ops++;
    switch (d->kind) {
    case K_VEC:
        for (size_t i = 0; i < d->dcount; i++) {
            L->dv[i].gex_addr = dw + d->doff[i];
            L->dv[i].gex_len = d->dlen[i];
        }
        for (size_t i = 0; i < d->scount; i++) {
            L->sv[i].gex_addr = sw + d->soff[i];
            L->sv[i].gex_len = d->slen[i];
        }
        if (is_put) {
            if (f == F_NB) ev = gex_VIS_VectorPutNB(tm, rank, d->dcount, L->dv, d->scount, L->sv, flags);
            else if (f == F_NBI) rc = gex_VIS_VectorPutNBI(tm, rank, d->dcount, L->dv, d->scount, L->sv, flags);
            else rc = gex_VIS_VectorPutBlocking(tm, rank, d->dcount, L->dv, d->scount, L->sv, flags);
        } else {
            if (f == F_NB) ev = gex_VIS_VectorGetNB(tm, d->dcount, L->dv, rank, d->scount, L->sv, flags);
            else if (f == F_NBI) rc = gex_VIS_VectorGetNBI(tm, d->dcount, L->dv, rank, d->scount, L->sv, flags);
            else rc = gex_VIS_VectorGetBlocking(tm, d->dcount, L->dv, rank, d->scount, L->sv, flags);
        }
        break;
    case K_IDX:
        for (size_t i = 0; i < d->dcount; i++) L->di[i] = dw + d->doff[i];
        for (size_t i = 0; i < d->scount; i++) L->si[i] = sw + d->soff[i];
        if (is_put) {
            if (f == F_NB) ev = gex_VIS_IndexedPutNB(tm, rank, d->dcount, L->di, d->dl, d->scount, L->si, d->sl, flags);
            else if (f == F_NBI) rc = gex_VIS_IndexedPutNBI(tm, rank, d->dcount, L->di, d->dl, d->scount, L->si, d->sl, flags);
            else rc = gex_VIS_IndexedPutBlocking(tm, rank, d->dcount, L->di, d->dl, d->scount, L->si, d->sl, flags);
        } else {
            if (f == F_NB) ev = gex_VIS_IndexedGetNB(tm, d->dcount, L->di, d->dl, rank, d->scount, L->si, d->sl, flags);
            else if (f == F_NBI) rc = gex_VIS_IndexedGetNBI(tm, d->dcount, L->di, d->dl, rank, d->scount, L->si, d->sl, flags);
            else rc = gex_VIS_IndexedGetBlocking(tm, d->dcount, L->di, d->dl, rank, d->scount, L->si, d->sl, flags);
        }
        break;
    default: {
        /* Strided metadata is consumed before return: pass copies and
         * scribble over them afterwards. */
        ptrdiff_t ds[32], ss[32];
        size_t cnt[32];
        memcpy(ds, d->dstr, sizeof ds);
        memcpy(ss, d->sstr, sizeof ss);
        memcpy(cnt, d->cnt, sizeof cnt);
        void *da = dw + d->dbase, *sa = sw + d->sbase;
        if (is_put) {
            if (f == F_NB) ev = gex_VIS_StridedPutNB(tm, rank, da, ds, sa, ss, d->elemsz, cnt, d->levels, flags);
            else if (f == F_NBI) rc = gex_VIS_StridedPutNBI(tm, rank, da, ds, sa, ss, d->elemsz, cnt, d->levels, flags);
            else rc = gex_VIS_StridedPutBlocking(tm, rank, da, ds, sa, ss, d->elemsz, cnt, d->levels, flags);
        } else {
            if (f == F_NB) ev = gex_VIS_StridedGetNB(tm, da, ds, rank, sa, ss, d->elemsz, cnt, d->levels, flags);
            else if (f == F_NBI) rc = gex_VIS_StridedGetNBI(tm, da, ds, rank, sa, ss, d->elemsz, cnt, d->levels, flags);
            else rc = gex_VIS_StridedGetBlocking(tm, da, ds, rank, sa, ss, d->elemsz, cnt, d->levels, flags);
        }
        memset(ds, 0x5a, sizeof ds);
        memset(ss, 0xa5, sizeof ss);
        memset(cnt, 0, sizeof cnt);
        __asm__ volatile("" ::"r"(ds), "r"(ss), "r"(cnt) : "memory");
        break;
    }
    }
    *refused = f == F_NB ? ev == GEX_EVENT_NO_OP : rc != 0;
    if (!(flags & GEX_FLAG_IMMEDIATE)) CHECK_MSG(!*refused, "a call without IMMEDIATE refused");
    if (*refused) n_refused++;
    return ev;
}

/* ---- Batches ---- */

static void fill_local(int w)
{
    unsigned char *p = lwin + win_off(w);
    uint32_t seed = rnd();
    for (size_t j = 0; j < win_size(w); j += 4) {
        uint32_t v = mp_hash32(seed + (uint32_t)j);
        memcpy(p + j, &v, 4);
    }
}

/* Remote window w of our slot in target: read back and compare with the model. */
static void check_put_window(gex_TM_t tm, gex_Rank_t rank, gex_Rank_t jobrank, int w)
{
    const size_t off = win_off(w), sz = win_size(w);
    CHECK_OK(gex_RMA_GetBlocking(tm, readback, rank, slot_in(jobrank) + off, sz, 0));
    const unsigned char *m = model + (size_t)jobrank * SLOT + off;
    if (memcmp(readback, m, sz)) {
        size_t j = 0;
        while (readback[j] == m[j]) j++;
        mp_fail(__FILE__, __LINE__, "put window %d of rank %u differs at byte %zu: got 0x%02x, "
                "want 0x%02x", w, (unsigned)jobrank, j, readback[j], m[j]);
    }
    n_checked_bytes += sz;
}

/* The generator writes one shared set of offset arrays; each op of a batch
 * keeps a private copy. */
static size_t priv[NWIN][4][MAXP];
static void privatize(struct desc *d, int i)
{
    size_t n = d->dcount > d->scount ? d->dcount : d->scount;
    memcpy(priv[i][0], d->doff, n * sizeof(size_t));
    memcpy(priv[i][1], d->dlen, n * sizeof(size_t));
    memcpy(priv[i][2], d->soff, n * sizeof(size_t));
    memcpy(priv[i][3], d->slen, n * sizeof(size_t));
    d->doff = priv[i][0];
    d->dlen = priv[i][1];
    d->soff = priv[i][2];
    d->slen = priv[i][3];
}

struct op_state {
    enum form f;
    int lc;
    gex_Event_t ev;
};

/* Runs ds[0..k-1] as one batch to (tm, rank) = jobrank: op i uses window i
 * on both sides (the big window when big, k == 1), all in flight at once,
 * then checks every window. */
static void run_batch(gex_TM_t tm, gex_Rank_t rank, gex_Rank_t jobrank, int is_put,
                      const struct desc *ds, int k, int big)
{
    struct op_state ops[NWIN];
    const int region = rndn(6) == 0;
    if (region) gex_NBI_BeginAccessRegion(0);
    for (int i = 0; i < k; i++) {
        const int w = big ? NWIN : i;
        const struct desc *d = &ds[i];
        struct op_state *o = &ops[i];
        o->f = region ? F_NBI : (enum form)rndn(3);
        o->lc = is_put && o->f != F_BLOCKING && rndn(2);
        fill_local(w);
        unsigned char *lw = lwin + win_off(w);
        if (is_put) {
            naive(d, model + (size_t)jobrank * SLOT + win_off(w), lw);
        } else {
            memcpy(gmodel + win_off(w), lw, win_size(w));
            naive(d, gmodel + win_off(w), replica);
        }
        char *rw = is_put ? slot_in(jobrank) + win_off(w) : pat_area(jobrank);
        int refused;
        o->ev = issue(tm, rank, is_put, d, &batch_lists[i], lw, rw, o->f,
                      o->lc ? GEX_FLAG_ENABLE_LEAF_LC : 0, &refused);
        if (!is_put) continue;
        if (o->f == F_NB && o->lc) {
            gex_Event_Wait(gex_Event_QueryLeaf(o->ev, GEX_EC_LC));
            memset(lw, 0xC3, win_size(w)); /* the source may be reused now */
        } else if (o->f == F_BLOCKING) {
            memset(lw, 0x3C, win_size(w)); /* complete: the source is free */
        } else if (o->f == F_NBI && o->lc && !region) {
            gex_NBI_Wait(GEX_EC_LC, 0);
            memset(lw, 0xC5, win_size(w));
        }
    }
    if (region) {
        gex_Event_t rev = gex_NBI_EndAccessRegion(0);
        if (is_put && rndn(2)) {
            gex_Event_Wait(gex_Event_QueryLeaf(rev, GEX_EC_LC));
            for (int i = 0; i < k; i++)
                if (ops[i].lc) memset(lwin + win_off(big ? NWIN : i), 0xC7, win_size(big ? NWIN : i));
        }
        gex_Event_Wait(rev);
    }
    gex_Event_t evs[NWIN];
    int ne = 0;
    for (int i = 0; i < k; i++)
        if (ops[i].f == F_NB) evs[ne++] = ops[i].ev;
    if (rndn(2)) {
        gex_Event_WaitAll(evs, (size_t)ne, 0);
    } else {
        for (int i = 0; i < ne; i++) gex_Event_Wait(evs[i]);
    }
    gex_NBI_Wait(is_put ? GEX_EC_PUT : GEX_EC_GET, 0);
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
    for (int i = 0; i < k; i++) {
        const int w = big ? NWIN : i;
        if (is_put) {
            check_put_window(tm, rank, jobrank, w);
            continue;
        }
        const unsigned char *lw = lwin + win_off(w), *m = gmodel + win_off(w);
        if (memcmp(lw, m, win_size(w))) {
            size_t j = 0;
            while (lw[j] == m[j]) j++;
            mp_fail(__FILE__, __LINE__, "get (kind %d, %zu bytes, form %d) into window %d from "
                    "rank %u differs at byte %zu: got 0x%02x, want 0x%02x", ds[i].kind,
                    ds[i].total, (int)ops[i].f, w, (unsigned)jobrank, j, lw[j], m[j]);
        }
        n_checked_bytes += win_size(w);
    }
}

static void replica_of(gex_Rank_t jobrank)
{
    mp_fill(replica, PAT_AREA, (uint32_t)jobrank, PAT_B);
}

/* ---- Phases ---- */

static struct desc descs[NWIN];

static void sweep(gex_TM_t tm, gex_Rank_t (*rank_of)(gex_Rank_t), int rounds)
{
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t jr = (mp_me + i) % mp_n;
        replica_of(jr);
        for (int round = 0; round < rounds; round++) {
            for (int is_put = 1; is_put >= 0; is_put--) {
                int k = 1 + (int)rndn(NWIN);
                for (int j = 0; j < k; j++) {
                    gen_any(&descs[j], W);
                    privatize(&descs[j], j);
                }
                run_batch(tm, rank_of(jr), jr, is_put, descs, k, 0);
            }
        }
    }
}

static gex_Rank_t ident(gex_Rank_t jr) { return jr; }
static gex_Rank_t reversed(gex_Rank_t jr) { return mp_n - 1 - jr; }

/* Large operations in the big window. */
static void large(void)
{
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t jr = (mp_me + i) % mp_n;
        replica_of(jr);
        for (int is_put = 1; is_put >= 0; is_put--) {
            for (int kind = 0; kind < 5; kind++) {
                struct desc *d = &descs[0];
                desc_init(d, K_STR);
                switch (kind) {
                case 0: /* 8-byte elements at 25% density: many AMs */
                    d->elemsz = 8, d->levels = 1, d->cnt[0] = BIGW / 32;
                    d->dstr[0] = d->sstr[0] = 32;
                    d->total = 8 * (BIGW / 32);
                    break;
                case 1: /* 8 KiB elements, transposed: large pieces */
                    d->elemsz = 8192, d->levels = 2, d->cnt[0] = 8, d->cnt[1] = 8;
                    d->dstr[0] = 16384, d->dstr[1] = 16384 * 8;
                    d->sstr[0] = 16384 * 8, d->sstr[1] = 16384;
                    d->total = 8192 * 64;
                    break;
                case 2: /* 64-byte elements, 3-d, reflected on the destination */
                    d->elemsz = 64, d->levels = 3;
                    d->cnt[0] = d->cnt[1] = d->cnt[2] = 16;
                    d->dstr[0] = -128, d->dstr[1] = 2048, d->dstr[2] = 32768;
                    d->dbase = 15 * 128;
                    d->sstr[0] = 64, d->sstr[1] = 1024, d->sstr[2] = 16384;
                    d->total = 64 * 4096;
                    break;
                case 3:
                    gen_vec(d, BIGW, 20000, 200);
                    break;
                default:
                    gen_idx(d, BIGW, 4000);
                    break;
                }
                run_batch(mp_tm, jr, jr, is_put, descs, 1, 1);
            }
        }
    }
}

/* IMMEDIATE: a refused call leaves everything as it was; retried without. */
static void immediate(void)
{
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t jr = (mp_me + i) % mp_n;
        replica_of(jr);
        for (int round = 0; round < 20; round++) {
            for (int is_put = 1; is_put >= 0; is_put--) {
                struct desc *d = &descs[0];
                gen_any(d, W);
                fill_local(0);
                unsigned char *lw = lwin;
                enum form f = (enum form)rndn(3);
                if (!is_put) memcpy(gmodel, lw, W);
                int refused;
                char *rw = is_put ? slot_in(jr) : pat_area(jr);
                gex_Event_t ev = issue(mp_tm, jr, is_put, d, &batch_lists[0], lw, rw, f,
                                       GEX_FLAG_IMMEDIATE, &refused);
                if (refused) {
                    /* nothing happened: the destination is unchanged */
                    if (is_put) check_put_window(mp_tm, jr, jr, 0);
                    else CHECK(memcmp(lw, gmodel, W) == 0);
                    gasnet_AMPoll();
                    ev = issue(mp_tm, jr, is_put, d, &batch_lists[0], lw, rw, f, 0, &refused);
                }
                gex_Event_Wait(ev);
                gex_NBI_Wait(GEX_EC_ALL, 0);
                if (is_put) {
                    naive(d, model + (size_t)jr * SLOT, lw);
                    check_put_window(mp_tm, jr, jr, 0);
                } else {
                    naive(d, gmodel, replica);
                    CHECK(memcmp(lw, gmodel, W) == 0);
                }
            }
        }
    }
}

/* A flood of IMMEDIATE NBI puts of the same data into one window (with small
 * rings, some are refused: those have no effect), then a check. */
static void immediate_flood(void)
{
    for (gex_Rank_t i = 1; i <= mp_n; i++) {
        gex_Rank_t jr = (mp_me + i) % mp_n;
        struct desc *d = &descs[0];
        desc_init(d, K_STR);
        d->elemsz = 8, d->levels = 2, d->cnt[0] = 64, d->cnt[1] = 8;
        d->dstr[0] = 32, d->dstr[1] = 4096, d->sstr[0] = 16, d->sstr[1] = 2048;
        d->total = 8 * 64 * 8;
        fill_local(1);
        naive(d, model + (size_t)jr * SLOT + win_off(1), lwin + win_off(1));
        unsigned long sent = 0, refused_here = 0;
        for (int k = 0; k < 300; k++) {
            int refused;
            issue(mp_tm, jr, 1, d, &batch_lists[0], lwin + win_off(1), slot_in(jr) + win_off(1),
                  F_NBI, GEX_FLAG_IMMEDIATE, &refused);
            if (refused) {
                refused_here++;
                gasnet_AMPoll();
            } else {
                sent++;
            }
        }
        gex_NBI_Wait(GEX_EC_PUT, 0);
        CHECK(sent > 0);
        (void)refused_here;
        check_put_window(mp_tm, jr, jr, 1);
    }
}

/* Degenerate calls: nothing is touched. */
static void degenerate(void)
{
    const gex_Rank_t peer = (mp_me + 1) % mp_n;
    char *rw = slot_in(peer);
    unsigned char *lw = lwin;
    ptrdiff_t s[2] = { 16, 64 };
    size_t cnt[2] = { 2, 0 };
    fill_local(0);
    /* elemsz 0: every other argument is ignored, tm included */
    CHECK_EQ(gex_VIS_StridedPutBlocking(GEX_TM_INVALID, 12345, NULL, NULL, NULL, NULL, 0, NULL,
                                        7, 0), 0);
    CHECK(gex_VIS_StridedGetNB(GEX_TM_INVALID, NULL, NULL, 999, NULL, NULL, 0, NULL, 3, 0) ==
          GEX_EVENT_INVALID);
    /* a zero count: tm, rank and the addresses are ignored */
    CHECK_EQ(gex_VIS_StridedPutNBI(GEX_TM_INVALID, 999, NULL, s, NULL, s, 8, cnt, 2, 0), 0);
    CHECK_EQ(gex_VIS_StridedGetBlocking(GEX_TM_INVALID, NULL, s, 999, NULL, s, 8, cnt, 2, 0), 0);
    /* empty and all-zero-length lists, Indexed with a zero length */
    gex_Memvec_t z[3] = { { rw, 0 }, { rw + 8, 0 }, { rw + 64, 0 } }, zl[2] = { { lw, 0 }, { lw, 0 } };
    CHECK_EQ(gex_VIS_VectorPutBlocking(mp_tm, peer, 3, z, 2, zl, 0), 0);
    CHECK_EQ(gex_VIS_VectorPutBlocking(mp_tm, peer, 0, NULL, 0, NULL, 0), 0);
    CHECK(gex_VIS_VectorGetNB(mp_tm, 2, zl, peer, 3, z, 0) == GEX_EVENT_INVALID);
    void *il[2] = { rw, rw + 16 }, *sl[1] = { lw };
    CHECK_EQ(gex_VIS_IndexedPutNBI(mp_tm, peer, 2, il, 0, 1, sl, 0, 0), 0);
    CHECK_EQ(gex_VIS_IndexedGetBlocking(mp_tm, 0, NULL, 8, peer, 0, NULL, 16, 0), 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    /* stridelevels 0: one contiguous element (strides and count ignored) */
    {
        memcpy(model + (size_t)peer * SLOT + 100, lw + 7, 33);
        CHECK_EQ(gex_VIS_StridedPutBlocking(mp_tm, peer, rw + 100, NULL, lw + 7, NULL, 33, NULL,
                                            0, 0), 0);
        check_put_window(mp_tm, peer, peer, 0);
    }
}

/* ---- Peer completion ---- */
struct pc_msg {
    uint64_t off, len;       /* window in the receiver's segment */
    uint32_t hash, from;
};
static atomic_uint pc_ok, pc_bad;

static uint32_t hash_bytes(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static void h_pc(gex_Token_t t, void *buf, size_t nbytes)
{
    gex_Token_Info_t info;
    struct pc_msg m;
    CHECK_EQ(nbytes, sizeof m);
    memcpy(&m, buf, sizeof m);
    gex_Token_Info(t, &info, GEX_TI_SRCRANK | GEX_TI_IS_REQ);
    CHECK_EQ(info.gex_srcrank, m.from);
    CHECK_EQ(info.gex_is_req, 0);
    if (hash_bytes((unsigned char *)seg_base[mp_me] + m.off, m.len) == m.hash)
        atomic_fetch_add(&pc_ok, 1);
    else
        atomic_fetch_add(&pc_bad, 1);
}

/* Round r writes window r only, so no later put of this phase can change
 * what the handler hashes, whenever it runs (it runs at the target's next
 * poll, which may come after our next call). */
#define PC_ROUNDS NWIN
static void peer_completion(void)
{
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t jr = (mp_me + i) % mp_n;
        for (int round = 0; round < PC_ROUNDS; round++) {
            struct desc *d = &descs[0];
            gen_any(d, W);
            fill_local(round);
            unsigned char *lw = lwin + win_off(round), *mw = model + (size_t)jr * SLOT + win_off(round);
            naive(d, mw, lw);
            struct pc_msg m = { .off = (size_t)mp_me * SLOT + win_off(round), .len = W, .from = mp_me };
            m.hash = hash_bytes(mw, W);
            gex_VIS_SetPeerCompletionHandler(H_PC, &m, sizeof m, 0);
            int refused;
            enum form f = (enum form)rndn(3);
            gex_Event_t ev = issue(mp_tm, jr, 1, d, &batch_lists[0], lw,
                                   slot_in(jr) + win_off(round), f, 0, &refused);
            gex_Event_Wait(ev);
            gex_NBI_Wait(GEX_EC_ALL, 0);
            check_put_window(mp_tm, jr, jr, round);
        }
        /* armed then disarmed: the next put delivers nothing */
        struct pc_msg junk = { 0 };
        gex_VIS_SetPeerCompletionHandler(H_PC, &junk, sizeof junk, 0);
        gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0);
        struct desc *d = &descs[0];
        gen_str(d, W, W / 4);
        fill_local(NWIN);
        naive(d, model + (size_t)jr * SLOT + win_off(NWIN), lwin + win_off(NWIN));
        int refused;
        issue(mp_tm, jr, 1, d, &batch_lists[0], lwin + win_off(NWIN), slot_in(jr) + win_off(NWIN),
              F_BLOCKING, 0, &refused);
        check_put_window(mp_tm, jr, jr, NWIN);
    }
    const unsigned want = mp_n * PC_ROUNDS;
    MP_POLL_UNTIL(atomic_load(&pc_ok) + atomic_load(&pc_bad) >= want);
    mp_barrier();
    CHECK_EQ(atomic_load(&pc_bad), 0);
    CHECK_EQ(atomic_load(&pc_ok), want);

    /* A degenerate Strided put (zero count, then elemsz 0) is still the
     * operation an armed handler binds to: it notifies the peer (an empty
     * message: len 0) and disarms, so the unarmed put after it delivers
     * nothing.  To self, so the order of the deliveries is observable: the
     * binding once leaked to the next put (the count stayed equal). */
    static const size_t zero_count[2] = { 3, 0 };
    static const ptrdiff_t strides[2] = { 8, 64 };
    for (int elemsz = 8; elemsz >= 0; elemsz -= 8) {
        const unsigned before = atomic_load(&pc_ok);
        struct pc_msg m = { .off = 0, .len = 0, .hash = hash_bytes(NULL, 0), .from = mp_me };
        gex_VIS_SetPeerCompletionHandler(H_PC, &m, sizeof m, 0);
        gex_VIS_StridedPutBlocking(mp_tm, mp_me, slot_in(mp_me), strides, lwin, strides,
                                   (size_t)elemsz, zero_count, 2, 0);
        /* bounded: before the fix nothing ever arrived (the test hung) */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            gasnet_AMPoll();
            sched_yield();
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while (atomic_load(&pc_ok) + atomic_load(&pc_bad) == before && t.tv_sec - t0.tv_sec < 10);
        CHECK_EQ(atomic_load(&pc_ok), before + 1);
        const size_t one[1] = { 1 };
        gex_VIS_StridedPutBlocking(mp_tm, mp_me, slot_in(mp_me), strides, lwin, strides, 8, one, 1,
                                   0);
        for (int i = 0; i < 1000; i++) gasnet_AMPoll(); /* a leaked binding would deliver */
        CHECK_EQ(atomic_load(&pc_ok), before + 1);
        CHECK_EQ(atomic_load(&pc_bad), 0);
    }
    mp_barrier();
}

/* Two threads at once, each with its own window (2 and 3) in every target:
 * Strided and Indexed puts (Blocking, NB and NBI, the NB ones through every
 * mechanism the run selects) and gets of what was put, checked in place. */
struct thr_arg {
    int id;
    unsigned long ops;
};
static void *thread_body(void *p)
{
    struct thr_arg *a = p;
    const int w = 2 + a->id;
    unsigned char *lw = malloc(W), *back = malloc(W);
    CHECK(lw && back);
    void **ri = malloc(512 * sizeof(void *)), **li = malloc(512 * sizeof(void *));
    CHECK(ri && li);
    for (int round = 0; round < 20; round++) {
        for (gex_Rank_t i = 0; i < mp_n; i++) {
            gex_Rank_t jr = (mp_me + i) % mp_n;
            char *rw = slot_in(jr) + win_off(w);
            const size_t elem = round % 2 ? 8 : 24, n = 512;
            for (size_t j = 0; j < W; j++) lw[j] = (unsigned char)(j * 7 + (size_t)round * 13 + (size_t)a->id);
            ptrdiff_t st[2] = { (ptrdiff_t)(4 * elem), (ptrdiff_t)(4 * elem * 16) };
            size_t cnt[2] = { 16, n / 16 };
            gex_Event_t ev = GEX_EVENT_INVALID;
            switch (round % 3) {
            case 0: gex_VIS_StridedPutBlocking(mp_tm, jr, rw, st, lw, st, elem, cnt, 2, 0); break;
            case 1: ev = gex_VIS_StridedPutNB(mp_tm, jr, rw, st, lw, st, elem, cnt, 2, 0); break;
            default:
                for (size_t j = 0; j < n; j++) {
                    ri[j] = rw + j * 4 * elem;
                    li[j] = lw + j * 4 * elem;
                }
                gex_VIS_IndexedPutNBI(mp_tm, jr, n, ri, elem, n, li, elem, 0);
                gex_NBI_Wait(GEX_EC_PUT, 0);
                break;
            }
            gex_Event_Wait(ev);
            /* read back with a VIS get into a zeroed buffer, compare elements */
            memset(back, 0, W);
            gex_Event_Wait(gex_VIS_StridedGetNB(mp_tm, back, st, jr, rw, st, elem, cnt, 2, 0));
            for (size_t j = 0; j < n; j++)
                CHECK_MSG(memcmp(back + j * 4 * elem, lw + j * 4 * elem, elem) == 0,
                          "thread %d round %d: element %zu from rank %u differs", a->id, round, j,
                          (unsigned)jr);
            a->ops += 2;
        }
    }
    free(lw), free(back), free(ri), free(li);
    return NULL;
}

static void threads(void)
{
    pthread_t t[2];
    struct thr_arg a[2] = { { 0, 0 }, { 1, 0 } };
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_create(&t[i], NULL, thread_body, &a[i]), 0);
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_join(t[i], NULL), 0);
    n_ops += a[0].ops + a[1].ops;
    /* windows 2 and 3 no longer match the model: reload it from the targets */
    for (gex_Rank_t r = 0; r < mp_n; r++)
        CHECK_OK(gex_RMA_GetBlocking(mp_tm, model + (size_t)r * SLOT + win_off(2), r,
                                     slot_in(r) + win_off(2), 2 * W, 0));
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_VIS", 0);
    gex_AM_Entry_t h[] = {
        { H_PC, (gex_AM_Fn_t)h_pc, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "h_pc" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, 1));
    mp_watchdog(300);
    mp_attach((uintptr_t)mp_n * SLOT + PAT_AREA);
    rng_state = 977u + 131u * mp_me;

    seg_base = calloc(mp_n, sizeof *seg_base);
    lwin = malloc(NWIN * W + BIGW);
    model = calloc((size_t)mp_n * SLOT, 1);
    replica = malloc(PAT_AREA);
    gmodel = malloc(NWIN * W + BIGW);
    readback = malloc(BIGW);
    CHECK(seg_base && lwin && model && gmodel && replica && readback);
    lists_alloc();
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        void *owner = NULL;
        uintptr_t size = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &owner, NULL, &size, 0));
        CHECK(owner && size >= (uintptr_t)mp_n * SLOT + PAT_AREA);
        seg_base[r] = owner;
    }
    /* every slot starts zeroed (the model's start), the pattern area filled */
    memset(seg_base[mp_me], 0, (size_t)mp_n * SLOT);
    mp_fill(seg_base[mp_me] + (size_t)mp_n * SLOT, PAT_AREA, (uint32_t)mp_me, PAT_B);
    mp_barrier();

    mp_phase("sweep");
    sweep(mp_tm, ident, mp_n > 2 ? 5 : 12);
    mp_phase("large");
    large();
    mp_phase("tm-pair");
    sweep(gex_TM_Pair(mp_ep, 0), ident, 1);
    mp_phase("split team");
    gex_TM_t rev;
    mp_barrier();
    gex_TM_Split(&rev, mp_tm, 0, (int)(mp_n - 1 - mp_me), NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    CHECK_EQ(gex_TM_QueryRank(rev), mp_n - 1 - mp_me);
    sweep(rev, reversed, 1);
    mp_phase("threads");
    threads();
    mp_phase("immediate");
    immediate();
    mp_phase("immediate flood");
    immediate_flood();
    mp_phase("degenerate");
    degenerate();
    mp_phase("peer completion");
    peer_completion();
    mp_finish("%lu VIS ops (%lu refused by IMMEDIATE), %lu bytes verified", n_ops, n_refused,
              n_checked_bytes);
}
