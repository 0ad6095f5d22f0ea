/*
 * mp_team.c: team construction and destruction (gex_TM_Split, gex_TM_Dup,
 * gex_TM_Create, gex_TM_Destroy), including the strided and 2-D splits that
 * client libraries build on them (seed 002: ishmem_team_split_strided and
 * _2d) and teams built from teams.  Every team made here is checked:
 * size, rank, the three rank translations against the membership computed
 * here, and (unless created without scratch) a barrier, an all-reduce of
 * the members' jobranks, a broadcast and a reduction to one.
 *
 *  1. Scratch-size queries: positive, equal on every rank; 0 for callers
 *     that will not be members.
 *  2. Split: one color, parity with reversed keys, three colors with a NULL
 *     new_tm_p and a negative color, singletons, strided (positive and
 *     negative stride), 2-D grid rows and columns (xrange 3: last row short).
 *  3. Create: the same strided and 2-D teams (parent ranks and
 *     GEX_FLAG_RANK_IS_JOBRANK, several teams per call, callers with
 *     numargs == 0), every scratch mode (SYMMETRIC, LOCAL, GLOBAL with
 *     addresses and with GEX_FLAG_SCRATCH_SEG_OFFSET, NO_SCRATCH), and what
 *     gex_TM_Destroy reports back for each.
 *  4. Dup of the primordial team and of a split team; a dup and its
 *     original used interleaved.
 *  5. Nesting: rows of the parity teams, a Create under a split parent,
 *     a Dup of that; the parent destroyed before its children.
 *  6. GEX_FLAG_GLOBALLY_QUIESCED: row and column teams destroyed after a
 *     barrier over their common parent (the spec's example).
 *  7. Destroy and re-create 150 times (Split, Create, Dup): the heap does
 *     not grow, and with the mp_team_slots variant the nbrhd slots are
 *     recycled (running out is fatal there).
 *  8. gex_EP_PublishBoundSegment over a team of non-primordial endpoints
 *     (core's team-exchange hook): every member's segment becomes known.
 *  9. Collectives over a gex_TM_Split team made with GEX_FLAG_TM_NO_SCRATCH
 *     run without an error report (only gex_TM_Create forbids them).
 */
#include "mp_util.h"
#include <gasnet_coll.h>
#include <malloc.h>
#include <unistd.h>

static gex_Rank_t N, ME;
static char *seg_base;
static size_t seg_size;
static void **owner_base;        /* every rank's segment, in its own address space */
static size_t scratch_sz;        /* GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED */

#define SCR_AREA (2u << 20)      /* scratch area at the start of the segment */

static void wait_ev(gex_Event_t e) { gex_Event_Wait(e); }

/* Scratch slot k of this process (any k < SCR_AREA / scratch_sz). */
static void *scr(unsigned k) { return seg_base + (size_t)k * scratch_sz; }

/* ---- checking a team ---- */
static void check_members(gex_TM_t t, const gex_Rank_t *jr, gex_Rank_t n, gex_Rank_t myrank)
{
    CHECK(t != GEX_TM_INVALID);
    CHECK_EQ(gex_TM_QuerySize(t), n);
    CHECK_EQ(gex_TM_QueryRank(t), myrank);
    CHECK_PTR_EQ(gex_TM_QueryEP(t), mp_ep);
    CHECK_PTR_EQ(gex_TM_QueryClient(t), mp_client);
    CHECK_EQ(jr[myrank], ME);
    for (gex_Rank_t r = 0; r < n; r++) {
        CHECK_EQ(gex_TM_TranslateRankToJobrank(t, r), jr[r]);
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(t, r, 0);
        CHECK_EQ(loc.gex_rank, jr[r]);
        CHECK_EQ(loc.gex_ep_index, 0);
        CHECK_EQ(gex_TM_TranslateJobrankToRank(t, jr[r]), r);
    }
    /* a jobrank outside the team */
    for (gex_Rank_t j = 0; j < N; j++) {
        int in = 0;
        for (gex_Rank_t r = 0; r < n; r++) in |= jr[r] == j;
        if (!in) CHECK_EQ(gex_TM_TranslateJobrankToRank(t, j), GEX_RANK_INVALID);
    }
}

static void exercise(gex_TM_t t, const gex_Rank_t *jr, gex_Rank_t n)
{
    const gex_Rank_t me = gex_TM_QueryRank(t);
    wait_ev(gex_Coll_BarrierNB(t, 0));
    uint64_t mine = ME, sum = 0, want = 0, got = 0, mn = 0;
    for (gex_Rank_t r = 0; r < n; r++) want += jr[r];
    wait_ev(gex_Coll_ReduceToAllNB(t, &sum, &mine, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
    CHECK_EQ(sum, want);
    uint64_t bv = me == n - 1 ? 0xfeed0000u + jr[n - 1] : 0;
    wait_ev(gex_Coll_BroadcastNB(t, n - 1, &got, &bv, 8, 0));
    CHECK_EQ(got, 0xfeed0000u + jr[n - 1]);
    wait_ev(gex_Coll_ReduceToOneNB(t, 0, &mn, &mine, GEX_DT_U64, 8, 1, GEX_OP_MIN, NULL, NULL, 0));
    if (me == 0) {
        uint64_t w = jr[0];
        for (gex_Rank_t r = 1; r < n; r++) w = jr[r] < w ? jr[r] : w;
        CHECK_EQ(mn, w);
    }
}

static void check_team(gex_TM_t t, const gex_Rank_t *jr, gex_Rank_t n, gex_Rank_t myrank)
{
    check_members(t, jr, n, myrank);
    if (!(gex_TM_QueryFlags(t) & GEX_FLAG_TM_NO_SCRATCH)) exercise(t, jr, n);
}

/* Destroys t and checks what it reports about client scratch at `want`. */
static void destroy_expect(gex_TM_t t, void *want, gex_Flags_t flags)
{
    gex_Memvec_t sv = { (void *)(uintptr_t)0x1234, 77 };
    int rc = gex_TM_Destroy(t, &sv, flags);
    if (!want) {
        CHECK_EQ(rc, 0);
        CHECK(sv.gex_addr == (void *)(uintptr_t)0x1234 && sv.gex_len == 77); /* untouched */
        return;
    }
    CHECK(rc != 0);
    CHECK_EQ(sv.gex_len, scratch_sz);
    if (flags & GEX_FLAG_SCRATCH_SEG_OFFSET)
        CHECK_EQ((uintptr_t)sv.gex_addr, (uintptr_t)((char *)want - seg_base));
    else
        CHECK_PTR_EQ(sv.gex_addr, want);
}

/* ---- 1. queries ---- */
static void test_queries(void)
{
    mp_phase("scratch queries");
    gex_TM_t t;
    size_t rec = gex_TM_Split(&t, mp_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    size_t min = gex_TM_Split(&t, mp_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_MIN);
    CHECK(rec > 0 && min > 0 && min <= rec);
    CHECK_EQ(gex_TM_Split(NULL, mp_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED), 0);
    CHECK_EQ(gex_TM_Split(&t, mp_tm, -1, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED), 0);
    CHECK_EQ(gex_TM_Dup(&t, mp_tm, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED), rec);
    gex_EP_Location_t self = { ME, 0 };
    CHECK_EQ(gex_TM_Create(NULL, 0, mp_tm, &self, 1, NULL, 0,
                           GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_RANK_IS_JOBRANK), rec);
    CHECK_EQ(gex_TM_Create(NULL, 0, mp_tm, NULL, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_MIN), 0);
    uint64_t v = rec, lo, hi;
    wait_ev(gex_Coll_ReduceToAllNB(mp_tm, &lo, &v, GEX_DT_U64, 8, 1, GEX_OP_MIN, NULL, NULL, 0));
    wait_ev(gex_Coll_ReduceToAllNB(mp_tm, &hi, &v, GEX_DT_U64, 8, 1, GEX_OP_MAX, NULL, NULL, 0));
    CHECK_EQ(lo, hi); /* single-valued */
    scratch_sz = rec;
    CHECK(SCR_AREA / scratch_sz >= 64);
}

/* ---- 2. Split ---- */

/* Split by (color, key) of every parent rank (-1: not a member), then check
 * against the membership computed here; returns the team (or INVALID). */
static gex_TM_t split_and_check(const char *what, const int *color, const int *key, int use_null,
                                unsigned scr_k, gex_Flags_t flags)
{
    mp_phase(what);
    const int c = color[ME];
    gex_TM_t t = (gex_TM_t)(uintptr_t)0x42;
    gex_TM_t *p = (c == -1 && use_null) ? NULL : &t;  /* other negatives: non-NULL */
    gex_TM_Split(p, mp_tm, c, key[ME], (flags & GEX_FLAG_TM_NO_SCRATCH) ? NULL : scr(scr_k),
                 scratch_sz, flags);
    if (c < 0) {
        if (p) CHECK(t == GEX_TM_INVALID);
        return GEX_TM_INVALID;
    }
    gex_Rank_t *jr = malloc(N * sizeof *jr), n = 0, myrank = 0;
    CHECK(jr);
    for (gex_Rank_t r = 0; r < N; r++) {
        if (color[r] != c) continue;
        gex_Rank_t pos = n++;
        /* insertion by (key, rank) */
        while (pos > 0 && key[jr[pos - 1]] > key[r]) {
            jr[pos] = jr[pos - 1];
            pos--;
        }
        jr[pos] = r;
    }
    for (gex_Rank_t r = 0; r < n; r++) if (jr[r] == ME) myrank = r;
    check_team(t, jr, n, myrank);
    CHECK_EQ(gex_TM_QueryFlags(t), flags);
    free(jr);
    return t;
}

static void test_split(void)
{
    int *color = malloc(N * sizeof *color), *key = malloc(N * sizeof *key);
    CHECK(color && key);
    gex_TM_t t;

    for (gex_Rank_t r = 0; r < N; r++) { color[r] = 5; key[r] = 0; }
    t = split_and_check("split: one color", color, key, 0, 0, 0);
    destroy_expect(t, scr(0), 0);

    for (gex_Rank_t r = 0; r < N; r++) { color[r] = (int)(r % 2); key[r] = -(int)r; }
    t = split_and_check("split: parity, reversed keys", color, key, 0, 1, 0);
    destroy_expect(t, scr(1), GEX_FLAG_SCRATCH_SEG_OFFSET);

    for (gex_Rank_t r = 0; r < N; r++) { color[r] = (int)(r % 3); key[r] = (int)(r * 7 % 5); }
    if (N > 2) color[N - 1] = -1;   /* passes NULL */
    if (N > 1) color[1] = -7;       /* negative color */
    t = split_and_check("split: three colors, NULL and negative", color, key, 1, 2, 0);
    if (t != GEX_TM_INVALID) destroy_expect(t, scr(2), 0);

    for (gex_Rank_t r = 0; r < N; r++) { color[r] = (int)r; key[r] = 0; }
    t = split_and_check("split: singletons, no scratch", color, key, 0, 3,
                        GEX_FLAG_TM_NO_SCRATCH);
    destroy_expect(t, NULL, 0);

    /* strided (seed 002): start, stride, size */
    const int start = N > 1 ? 1 : 0, stride = 2, size = (int)((N - start + 1) / 2);
    for (gex_Rank_t r = 0; r < N; r++) {
        int i = ((int)r - start) / stride;
        int in = (int)r >= start && ((int)r - start) % stride == 0 && i < size;
        color[r] = in ? 0 : -1;
        key[r] = i;
    }
    t = split_and_check("split: strided", color, key, 0, 4, 0);
    if (t != GEX_TM_INVALID) destroy_expect(t, scr(4), 0);
    for (gex_Rank_t r = 0; r < N; r++) { /* negative stride: reverse order */
        int i = ((int)N - 1 - (int)r) / 2;
        color[r] = ((int)N - 1 - (int)r) % 2 == 0 ? 1 : -1;
        key[r] = i;
    }
    t = split_and_check("split: negative stride", color, key, 1, 5, 0);
    if (t != GEX_TM_INVALID) destroy_expect(t, scr(5), 0);

    /* 2-D (seed 002 ishmem_team_split_2d): xrange 3, rows are x teams */
    const int xr = 3;
    for (gex_Rank_t r = 0; r < N; r++) { color[r] = (int)r / xr; key[r] = (int)r % xr; }
    gex_TM_t xt = split_and_check("split: 2-D rows", color, key, 0, 6, 0);
    CHECK_EQ(gex_TM_QueryRank(xt), ME % xr);
    for (gex_Rank_t r = 0; r < N; r++) { color[r] = (int)r % xr; key[r] = (int)r / xr; }
    gex_TM_t yt = split_and_check("split: 2-D columns", color, key, 0, 7, 0);
    CHECK_EQ(gex_TM_QueryRank(yt), ME / xr);
    destroy_expect(yt, scr(7), 0);
    destroy_expect(xt, scr(6), 0);
    free(color);
    free(key);
}

/* ---- 3. Create ---- */

/* Creates the team listed in jr[0..n) (this rank a member iff listed),
 * checks it and returns it. */
static gex_TM_t create_and_check(const char *what, const gex_Rank_t *jr, gex_Rank_t n,
                                 gex_Flags_t flags, gex_Addr_t *scratch, int member)
{
    mp_phase(what);
    gex_TM_t t = GEX_TM_INVALID;
    if (!member) {
        CHECK_EQ(gex_TM_Create(NULL, 0, mp_tm, NULL, 0, NULL, 0, flags), 0);
        return GEX_TM_INVALID;
    }
    gex_EP_Location_t *args = malloc(n * sizeof *args);
    CHECK(args);
    for (gex_Rank_t i = 0; i < n; i++) args[i] = (gex_EP_Location_t){ jr[i], 0 };
    gex_TM_Create(&t, 1, mp_tm, args, n, scratch, scratch_sz, flags);
    free(args);
    gex_Rank_t myrank = 0;
    for (gex_Rank_t i = 0; i < n; i++) if (jr[i] == ME) myrank = i;
    check_team(t, jr, n, myrank);
    CHECK_EQ(gex_TM_QueryFlags(t), flags & ~GEX_FLAG_SCRATCH_SEG_OFFSET);
    return t;
}

static void test_create(void)
{
    gex_Rank_t *jr = malloc(N * sizeof *jr), n;
    CHECK(jr);
    gex_TM_t t;

    /* strided, negative stride, parent ranks (the primordial team's ranks are jobranks) */
    n = 0;
    for (int r = (int)N - 1; r >= 0; r -= 2) jr[n++] = (gex_Rank_t)r;
    int member = (N - 1 - ME) % 2 == 0;
    gex_Addr_t a = scr(10);
    t = create_and_check("create: strided, symmetric scratch by offset", jr, n,
                         GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET,
                         (gex_Addr_t[]){ (gex_Addr_t)(uintptr_t)((char *)a - seg_base) }, member);
    if (member) destroy_expect(t, a, 0);

    /* 2-D rows, several teams per call, by jobrank, LOCAL scratch */
    const gex_Rank_t xr = 3, row0 = ME / xr * xr;
    n = 0;
    for (gex_Rank_t r = row0; r < row0 + xr && r < N; r++) jr[n++] = r;
    gex_Addr_t loc = scr(11);
    t = create_and_check("create: 2-D rows by jobrank, local scratch", jr, n,
                         GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_RANK_IS_JOBRANK, &loc, 1);
    CHECK_EQ(gex_TM_QueryRank(t), ME % xr);
    destroy_expect(t, loc, GEX_FLAG_SCRATCH_SEG_OFFSET);

    /* 2-D columns, GLOBAL scratch with every member's virtual address */
    n = 0;
    for (gex_Rank_t r = ME % xr; r < N; r += xr) jr[n++] = r;
    gex_Addr_t *glob = malloc(n * sizeof *glob);
    CHECK(glob);
    for (gex_Rank_t i = 0; i < n; i++)
        glob[i] = (char *)owner_base[jr[i]] + (size_t)(12 + i % 3) * scratch_sz;
    t = create_and_check("create: 2-D columns, global scratch", jr, n,
                         GEX_FLAG_TM_GLOBAL_SCRATCH, glob, 1);
    destroy_expect(t, scr(12 + (ME / xr) % 3), 0);
    /* ... and GLOBAL by offsets */
    for (gex_Rank_t i = 0; i < n; i++) glob[i] = (gex_Addr_t)(uintptr_t)((15 + i % 2) * scratch_sz);
    t = create_and_check("create: 2-D columns, global scratch by offset", jr, n,
                         GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET, glob, 1);
    destroy_expect(t, scr(15 + (ME / xr) % 2), 0);
    free(glob);

    /* only even ranks, NO_SCRATCH: odd ranks pass numargs == 0 */
    n = 0;
    for (gex_Rank_t r = 0; r < N; r += 2) jr[n++] = r;
    t = create_and_check("create: evens, no scratch", jr, n, GEX_FLAG_TM_NO_SCRATCH, NULL,
                         ME % 2 == 0);
    if (ME % 2 == 0) destroy_expect(t, NULL, 0);

    /* everyone, in reverse order */
    for (gex_Rank_t i = 0; i < N; i++) jr[i] = N - 1 - i;
    gex_Addr_t rv = scr(17);
    t = create_and_check("create: reversed", jr, N, GEX_FLAG_TM_LOCAL_SCRATCH, &rv, 1);
    destroy_expect(t, rv, 0);
    free(jr);
}

/* ---- 4. Dup ---- */
static void test_dup(void)
{
    mp_phase("dup of the primordial team");
    gex_Rank_t *all = malloc(N * sizeof *all);
    CHECK(all);
    for (gex_Rank_t r = 0; r < N; r++) all[r] = r;
    gex_TM_t d1, d2;
    gex_TM_Dup(&d1, mp_tm, (gex_Addr_t)(uintptr_t)(20 * scratch_sz), scratch_sz,
               GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET);
    check_team(d1, all, N, ME);
    CHECK_EQ(gex_TM_QueryFlags(d1), GEX_FLAG_TM_SYMMETRIC_SCRATCH);

    mp_phase("dup of a dup, interleaved with its original");
    gex_TM_Dup(&d2, d1, scr(21), scratch_sz, GEX_FLAG_TM_LOCAL_SCRATCH);
    check_team(d2, all, N, ME);
    for (int i = 0; i < 10; i++) {
        uint64_t a = ME + (uint64_t)i, b = 2 * ME, ra = 0, rb = 0;
        gex_Event_t ev[4];
        ev[0] = gex_Coll_ReduceToAllNB(d2, &ra, &a, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
        ev[1] = gex_Coll_BarrierNB(mp_tm, 0);
        ev[2] = gex_Coll_ReduceToAllNB(d1, &rb, &b, GEX_DT_U64, 8, 1, GEX_OP_MAX, NULL, NULL, 0);
        ev[3] = gex_Coll_BarrierNB(d2, 0);
        gex_Event_WaitAll(ev, 4, 0);
        CHECK_EQ(ra, (uint64_t)N * (N - 1) / 2 + (uint64_t)N * i);
        CHECK_EQ(rb, 2 * (uint64_t)(N - 1));
    }
    destroy_expect(d1, scr(20), 0);   /* the original first */
    exercise(d2, all, N);
    destroy_expect(d2, scr(21), 0);

    mp_phase("dup without scratch");
    gex_TM_Dup(&d1, mp_tm, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    check_members(d1, all, N, ME);
    destroy_expect(d1, NULL, GEX_FLAG_GLOBALLY_QUIESCED);
    free(all);
}

/* ---- 5. nesting ---- */
static void test_nesting(void)
{
    mp_phase("nested: parity, then rows of 2 within it");
    gex_TM_t par, sub, cr, du;
    gex_TM_Split(&par, mp_tm, (int)(ME % 2), 0, scr(30), scratch_sz, 0);
    const gex_Rank_t pr = gex_TM_QueryRank(par), pn = gex_TM_QuerySize(par);
    gex_TM_Split(&sub, par, (int)(pr / 2), (int)pr, scr(31), scratch_sz, 0);
    gex_Rank_t jr[3], n = 0;
    for (gex_Rank_t k = pr / 2 * 2; k < pn && k < pr / 2 * 2 + 2; k++) jr[n++] = (ME % 2) + 2 * k;
    check_team(sub, jr, n, pr % 2);

    mp_phase("nested: create under a split parent, parent ranks");
    /* the members of `par` in reverse order, named by their rank in `par` */
    gex_EP_Location_t *args = malloc(pn * sizeof *args);
    gex_Rank_t *pj = malloc(pn * sizeof *pj);
    CHECK(args && pj);
    for (gex_Rank_t i = 0; i < pn; i++) {
        args[i] = (gex_EP_Location_t){ pn - 1 - i, 0 };
        pj[i] = (ME % 2) + 2 * (pn - 1 - i);
    }
    gex_Addr_t a = scr(32);
    gex_TM_Create(&cr, 1, par, args, pn, &a, scratch_sz, GEX_FLAG_TM_LOCAL_SCRATCH);
    check_team(cr, pj, pn, pn - 1 - pr);

    mp_phase("nested: dup of the created team, parent destroyed first");
    gex_TM_Dup(&du, cr, scr(33), scratch_sz, GEX_FLAG_TM_LOCAL_SCRATCH);
    destroy_expect(par, scr(30), 0);
    destroy_expect(cr, scr(32), 0);
    check_team(du, pj, pn, pn - 1 - pr);
    check_team(sub, jr, n, pr % 2);
    destroy_expect(du, scr(33), 0);
    destroy_expect(sub, scr(31), 0);
    free(args);
    free(pj);
}

/* ---- 6. globally quiesced ---- */
static void test_quiesced(void)
{
    mp_phase("globally quiesced rows and columns");
    gex_TM_t row, col;
    gex_TM_Split(&row, mp_tm, (int)(ME / 2), (int)ME, scr(40), scratch_sz, 0);
    gex_TM_Split(&col, mp_tm, (int)(ME % 2), (int)ME, scr(41), scratch_sz, 0);
    for (int i = 0; i < 5; i++) {
        wait_ev(gex_Coll_BarrierNB(row, 0));
        wait_ev(gex_Coll_BarrierNB(col, 0));
    }
    wait_ev(gex_Coll_BarrierNB(mp_tm, 0));
    destroy_expect(row, scr(40), GEX_FLAG_GLOBALLY_QUIESCED);
    destroy_expect(col, scr(41), GEX_FLAG_GLOBALLY_QUIESCED);
}

/* ---- 7. destroy and re-create ---- */
static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static void churn(int iters)
{
    gex_EP_Location_t *args = malloc(N * sizeof *args);
    CHECK(args);
    for (gex_Rank_t r = 0; r < N; r++) args[r] = (gex_EP_Location_t){ N - 1 - r, 0 };
    gex_Addr_t a = scr(50);
    for (int i = 0; i < iters; i++) {
        gex_TM_t t;
        uint64_t v = ME, s = 0;
        gex_TM_Split(&t, mp_tm, (int)((ME + (gex_Rank_t)i) % 2), i, scr(51), scratch_sz, 0);
        wait_ev(gex_Coll_ReduceToAllNB(t, &s, &v, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
        CHECK(gex_TM_Destroy(t, NULL, 0) == 0);
        gex_TM_Create(&t, 1, mp_tm, args, N, &a, scratch_sz, GEX_FLAG_TM_LOCAL_SCRATCH);
        wait_ev(gex_Coll_BarrierNB(t, 0));
        gex_TM_Destroy(t, NULL, GEX_FLAG_GLOBALLY_QUIESCED);
        gex_TM_Dup(&t, mp_tm, scr(52), scratch_sz, GEX_FLAG_TM_LOCAL_SCRATCH);
        uint64_t b = i, bo = 0;
        wait_ev(gex_Coll_BroadcastNB(t, (gex_Rank_t)(i % N), &bo, &b, 8, 0));
        CHECK_EQ(bo, (uint64_t)i);
        gex_TM_Destroy(t, NULL, 0);
    }
    free(args);
}

static void test_churn(void)
{
    mp_phase("destroy and re-create");
    churn(50); /* warm-up: free lists, hash table, event pools reach their size */
    size_t before = heap_in_use();
    churn(100);
    size_t after = heap_in_use();
    CHECK_MSG(after <= before + 64 * 1024, "heap grew by %zu bytes over 100 create/destroy rounds",
              after - before);
}

/* ---- 8. publication over a non-primordial team ---- */
static void test_publish(void)
{
    mp_phase("publish over a team of new endpoints");
    gex_EP_t ep1;
    gex_Segment_t s1;
    const size_t len = 128 * 1024;
    CHECK_OK(gex_EP_Create(&ep1, mp_client, GEX_EP_CAPABILITY_ALL, 0));
    const gex_EP_Index_t idx = gex_EP_QueryIndex(ep1);
    CHECK_OK(gex_Segment_Create(&s1, mp_client, NULL, len, GEX_MK_HOST, 0));
    CHECK_OK(gex_EP_BindSegment(ep1, s1, 0));
    /* every process creates its endpoints in the same order: same index */
    gex_EP_Location_t *args = malloc(N * sizeof *args);
    CHECK(args);
    for (gex_Rank_t r = 0; r < N; r++) args[r] = (gex_EP_Location_t){ r, idx };
    gex_TM_t t;
    gex_Addr_t off = (gex_Addr_t)(uintptr_t)0;
    gex_TM_Create(&t, 1, mp_tm, args, N, &off, scratch_sz,
                  GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET | GEX_FLAG_RANK_IS_JOBRANK);
    CHECK_PTR_EQ(gex_TM_QueryEP(t), ep1);
    for (gex_Rank_t r = 0; r < N; r++) {
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(t, r, 0);
        CHECK(loc.gex_rank == r && loc.gex_ep_index == idx);
    }
    CHECK_OK(gex_EP_PublishBoundSegment(t, &ep1, 1, 0));
    for (gex_Rank_t r = 0; r < N; r++) {
        void *owner = NULL, *local = NULL;
        uintptr_t size = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(t, r, &owner, &local, &size, 0));
        CHECK_EQ(size, len);
        if (r == ME) CHECK_PTR_EQ(owner, gex_Segment_QueryAddr(s1));
    }
    uint64_t v = 1, s = 0;
    wait_ev(gex_Coll_ReduceToAllNB(t, &s, &v, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
    CHECK_EQ(s, N);
    gex_Memvec_t sv;
    CHECK(gex_TM_Destroy(t, &sv, GEX_FLAG_SCRATCH_SEG_OFFSET));
    CHECK(sv.gex_addr == NULL && sv.gex_len == scratch_sz);
    free(args);
}

/* 9. Collectives over a gex_TM_Split team made with GEX_FLAG_TM_NO_SCRATCH
 * are allowed (spec, gex_TM_Split: the flag "will most likely degrade the
 * performance of collectives"; only gex_TM_Create prohibits them).  They
 * must run without any error report: stderr goes to a file meanwhile. */
static void test_split_noscratch(void)
{
    mp_phase("collectives over a NO_SCRATCH split team");
    fflush(stderr);
    FILE *tmp = tmpfile();
    CHECK(tmp);
    const int saved = dup(2);
    CHECK(saved >= 0);
    CHECK(dup2(fileno(tmp), 2) == 2);
    gex_TM_t t = GEX_TM_INVALID;
    gex_TM_Split(&t, mp_tm, (int)(ME % 2), -(int)ME, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_Rank_t jr[64], n = 0, myrank = 0;
    for (gex_Rank_t r = N; r-- > 0;)
        if (r % 2 == ME % 2) {
            if (r == ME) myrank = n;
            jr[n++] = r;
        }
    check_members(t, jr, n, myrank);
    exercise(t, jr, n);
    CHECK_EQ(gex_TM_Destroy(t, NULL, 0), 0);
    fflush(stderr);
    CHECK(dup2(saved, 2) == 2);
    close(saved);
    const long len = ftell(tmp);
    if (len != 0) {
        char buf[512] = { 0 };
        rewind(tmp);
        CHECK(fread(buf, 1, sizeof buf - 1, tmp) > 0);
        fprintf(stderr, "collectives over a NO_SCRATCH split team reported: %s\n", buf);
    }
    CHECK_EQ(len, 0);
    fclose(tmp);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_TEAM", 0);
    seg_size = 4u << 20;
    mp_attach(seg_size);
    N = mp_n;
    ME = mp_me;
    seg_base = gex_Segment_QueryAddr(mp_seg);
    owner_base = calloc(N, sizeof *owner_base);
    CHECK(owner_base);
    for (gex_Rank_t r = 0; r < N; r++) {
        uintptr_t size = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &owner_base[r], NULL, &size, 0));
        CHECK_EQ(size, seg_size);
    }
    mp_barrier();

    test_queries();
    test_split();
    test_create();
    test_dup();
    test_nesting();
    test_quiesced();
    test_churn();
    test_publish();
    test_split_noscratch();
    mp_finish("queries, split/create/dup patterns, scratch modes, nesting, churn, publish");
}
