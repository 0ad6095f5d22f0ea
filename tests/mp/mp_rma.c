/*
 * mp_rma.c: contiguous RMA, events and NBI between every pair of ranks.
 * Run as is (PSHM bypass for peers), with GEX_PSHM=0 and with
 * GEX_FORCE_REFERENCE=rma (reference path over AM), see tests/rma.inc.
 *
 *  1. Sweep: every put form (Blocking; NB with lc_opt NOW, DEFER and a
 *     pointer; NBI with NOW, DEFER and GROUP; NBI inside an access region;
 *     the three Val forms) and every get form (Blocking, NB, NBI, region,
 *     BlockingVal) to self and every peer, sizes 1 B .. 64 KiB (all forms)
 *     and 64 KiB .. 8 MiB (forms rotating, plus every form at 8 MiB to one
 *     peer), at unaligned local and remote offsets.  Each put is read back
 *     with 16 guard bytes each side (zeroed just before) that must survive;
 *     each get lands between 16 guard bytes that must survive.  The source
 *     of a put is overwritten as soon as local completion allows (after an
 *     NB/NBI call with GEX_EVENT_NOW, after the LC event or
 *     gex_NBI_Wait(GEX_EC_LC), after the region's LC leaf).
 *  2. Target-side check: a last put into every peer's slot, a barrier, and
 *     every rank verifies in its own memory what each sender wrote.
 *  3. Event arrays: NB puts (with LC leaves from gex_Event_QueryLeaf placed
 *     before or after their roots), NB gets and GEX_EVENT_INVALID entries,
 *     completed with TestAll, WaitAll, TestSome and WaitSome loops; TestSome
 *     must report progress exactly when entries were retired.
 *  4. NBI: gex_NBI_Test/Wait by category, access regions (empty, mixed,
 *     LC leaf of the region event).
 *  5. GEX_FLAG_IMMEDIATE: a refused call must have no effect (destination,
 *     local buffer and NBI counters unchanged); a flood of IMMEDIATE NBI
 *     puts retried after polls, then without the flag.
 *  6. Value forms: low-order nbytes in host byte order, zero-extended gets.
 *  7. gex_TM_Pair between non-primordial endpoints (EP 1 with a created,
 *     bound and published segment) and mixed pairs (EP 0 <-> EP 1).
 *  8. Teams with member tables: one built by hand from core's object
 *     layout (reversed ranks: the RMA layer alone), and teams made by
 *     gex_TM_Split (reversed order, odd/even halves).
 *  9. Zero-byte calls, and two threads issuing NBI/NB operations at once.
 */
#include "mp_util.h"
/* Section 8 builds a team object by hand: core's object layout. */
#define GEXI_BUILDING_GEX 1
#include "core_layer.h"

#include <pthread.h>

#define MAXN ((size_t)8 << 20)
#define SLOT (MAXN + 4096)
#define GUARD 16
#define SMALL_MAX 65536
#define PAT_GET 0x6e7au
#define PAT_STAMP 0x57a3u

/* ---- Segment layout (every rank the same) ----
 *   [s * SLOT, (s+1) * SLOT)  put slot of sender s
 *   [n * SLOT, (n+1) * SLOT)  get area: pattern (owner, PAT_GET), read-only */
static char **seg_base;             /* every rank's segment, owner address */
static unsigned char *src_buf, *dst_buf, *ref_buf;
static const unsigned char zeros[GUARD * 2];
static unsigned long n_ops, n_refused;

static char *put_slot(gex_Rank_t r) { return seg_base[r] + (size_t)mp_me * SLOT; }
static char *get_area(gex_Rank_t r) { return seg_base[r] + (size_t)mp_n * SLOT; }

/* ---- Fast patterns: pattern (a, b) is ref_buf from a (a, b)-dependent
 * offset, so fills and checks run at memcpy/memcmp speed. ---- */
#define REF_SPAN (1u << 16)
static size_t pat_off(uint32_t a, uint32_t b) { return mp_pat_seed(a, b) % REF_SPAN; }
static void pat_fill(void *p, size_t n, uint32_t a, uint32_t b, size_t start)
{
    memcpy(p, ref_buf + pat_off(a, b) + start, n);
}
#define CHECK_PAT(p, n, a, b, start) do { \
        const unsigned char *q_ = (const unsigned char *)(p); \
        const unsigned char *w_ = ref_buf + pat_off((a), (b)) + (start); \
        size_t n_ = (n); \
        if (memcmp(q_, w_, n_)) { \
            size_t j_ = 0; \
            while (q_[j_] == w_[j_]) j_++; \
            mp_fail(__FILE__, __LINE__, "%zu bytes (pattern %#x/%#x+%zu) differ at byte %zu: " \
                    "got 0x%02x, want 0x%02x", n_, (unsigned)(a), (unsigned)(b), \
                    (size_t)(start), j_, q_[j_], w_[j_]); \
        } \
    } while (0)
#define CHECK_BYTES(p, n, val) do { \
        const unsigned char *q_ = (const unsigned char *)(p); \
        for (size_t j_ = 0; j_ < (size_t)(n); j_++) \
            CHECK_MSG(q_[j_] == (unsigned char)(val), "guard byte %zu is 0x%02x, want 0x%02x", \
                      j_, q_[j_], (unsigned char)(val)); \
    } while (0)

static size_t val_off(size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return 8 - n;
#else
    (void)n;
    return 0;
#endif
}
/* A value whose low-order n bytes (host order) are src[0..n) and whose
 * other bytes are junk that a put must ignore. */
static gex_RMA_Value_t make_val(const unsigned char *src, size_t n)
{
    gex_RMA_Value_t v;
    memset(&v, 0xcc, sizeof v);
    memcpy((char *)&v + val_off(n), src, n);
    return v;
}

/* ---- Put and get forms ---- */
enum { P_BLK, P_NB_NOW, P_NB_DEFER, P_NB_LC, P_NBI_NOW, P_NBI_DEFER, P_NBI_GROUP, P_REGION,
       P_BLK_VAL, P_NB_VAL, P_NBI_VAL, NPUT };
static const char *const put_name[NPUT] = {
    "PutBlocking", "PutNB(NOW)", "PutNB(DEFER)", "PutNB(&lc)", "PutNBI(NOW)", "PutNBI(DEFER)",
    "PutNBI(GROUP)", "PutNBI(region)", "PutBlockingVal", "PutNBVal", "PutNBIVal" };
#define NPUT_BULK P_BLK_VAL /* forms for any size */
enum { G_BLK, G_NB, G_NBI, G_REGION, G_BLK_VAL, NGET };
static const char *const get_name[NGET] = { "GetBlocking", "GetNB", "GetNBI", "GetNBI(region)",
                                            "GetBlockingVal" };
#define NGET_BULK G_BLK_VAL

static void clobber(unsigned char *p, size_t n) { memset(p, 0x5a, n); }

/* Runs one put to completion, overwriting the source as soon as local
 * completion allows. */
static void do_put(gex_TM_t tm, gex_Rank_t r, char *dest, unsigned char *src, size_t n, int form)
{
    gex_Event_t ev, lc, leaf;
    gex_RMA_Value_t v;
    mp_phase(put_name[form]);
    switch (form) {
    case P_BLK:
        CHECK_EQ(gex_RMA_PutBlocking(tm, r, dest, src, n, 0), 0);
        clobber(src, n);
        break;
    case P_NB_NOW:
        ev = gex_RMA_PutNB(tm, r, dest, src, n, GEX_EVENT_NOW, 0);
        CHECK(ev != GEX_EVENT_NO_OP);
        clobber(src, n);
        gex_Event_Wait(ev);
        break;
    case P_NB_DEFER:
        ev = gex_RMA_PutNB(tm, r, dest, src, n, GEX_EVENT_DEFER, 0);
        CHECK(ev != GEX_EVENT_NO_OP);
        gex_Event_Wait(ev);
        clobber(src, n);
        break;
    case P_NB_LC:
        lc = GEX_EVENT_NO_OP; /* must be overwritten */
        ev = gex_RMA_PutNB(tm, r, dest, src, n, &lc, 0);
        CHECK(ev != GEX_EVENT_NO_OP && lc != GEX_EVENT_NO_OP);
        leaf = gex_Event_QueryLeaf(ev, GEX_EC_LC);
        CHECK(leaf != GEX_EVENT_NO_OP);
        CHECK(leaf == gex_Event_QueryLeaf(ev, GEX_EC_LC)); /* a query: same answer */
        gex_Event_Wait(lc);
        clobber(src, n);
        if (leaf != GEX_EVENT_INVALID) CHECK_EQ(gex_Event_Test(leaf), GASNET_OK);
        gex_Event_Wait(ev);
        break;
    case P_NBI_NOW:
        CHECK_EQ(gex_RMA_PutNBI(tm, r, dest, src, n, GEX_EVENT_NOW, 0), 0);
        clobber(src, n);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case P_NBI_DEFER:
        CHECK_EQ(gex_RMA_PutNBI(tm, r, dest, src, n, GEX_EVENT_DEFER, 0), 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        clobber(src, n);
        break;
    case P_NBI_GROUP:
        CHECK_EQ(gex_RMA_PutNBI(tm, r, dest, src, n, GEX_EVENT_GROUP, 0), 0);
        gex_NBI_Wait(GEX_EC_LC, 0);
        clobber(src, n);
        gex_NBI_Wait(GEX_EC_PUT | GEX_EC_LC, 0);
        break;
    case P_REGION:
        gex_NBI_BeginAccessRegion(0);
        CHECK_EQ(gex_RMA_PutNBI(tm, r, dest, src, n, GEX_EVENT_GROUP, 0), 0);
        ev = gex_NBI_EndAccessRegion(0);
        CHECK(ev != GEX_EVENT_INVALID && ev != GEX_EVENT_NO_OP);
        leaf = gex_Event_QueryLeaf(ev, GEX_EC_LC);
        CHECK(leaf != GEX_EVENT_NO_OP);
        gex_Event_Wait(leaf);
        clobber(src, n);
        gex_Event_Wait(ev);
        break;
    case P_BLK_VAL:
        v = make_val(src, n);
        clobber(src, n);
        CHECK_EQ(gex_RMA_PutBlockingVal(tm, r, dest, v, n, 0), 0);
        break;
    case P_NB_VAL:
        v = make_val(src, n);
        clobber(src, n);
        ev = gex_RMA_PutNBVal(tm, r, dest, v, n, 0);
        CHECK(ev != GEX_EVENT_NO_OP);
        v = 0; /* passed by value: nothing to keep */
        gex_Event_Wait(ev);
        break;
    case P_NBI_VAL:
        v = make_val(src, n);
        clobber(src, n);
        CHECK_EQ(gex_RMA_PutNBIVal(tm, r, dest, v, n, 0), 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    }
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK); /* nothing left behind */
    n_ops++;
}

static void do_get(gex_TM_t tm, gex_Rank_t r, unsigned char *dst, char *src, size_t n, int form)
{
    gex_Event_t ev;
    gex_RMA_Value_t v;
    mp_phase(get_name[form]);
    switch (form) {
    case G_BLK:
        CHECK_EQ(gex_RMA_GetBlocking(tm, dst, r, src, n, 0), 0);
        break;
    case G_NB:
        ev = gex_RMA_GetNB(tm, dst, r, src, n, 0);
        CHECK(ev != GEX_EVENT_NO_OP);
        CHECK(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC) == GEX_EVENT_INVALID);
        gex_Event_Wait(ev);
        break;
    case G_NBI:
        CHECK_EQ(gex_RMA_GetNBI(tm, dst, r, src, n, 0), 0);
        CHECK_EQ(gex_NBI_Test(GEX_EC_PUT | GEX_EC_LC | GEX_EC_AM, 0), GASNET_OK);
        gex_NBI_Wait(GEX_EC_GET, 0);
        break;
    case G_REGION:
        gex_NBI_BeginAccessRegion(0);
        CHECK_EQ(gex_RMA_GetNBI(tm, dst, r, src, n, 0), 0);
        ev = gex_NBI_EndAccessRegion(0);
        CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK); /* the region holds it */
        while (gex_Event_Test(ev) != GASNET_OK) gasnet_AMPoll();
        break;
    case G_BLK_VAL:
        v = gex_RMA_GetBlockingVal(tm, r, src, n, 0);
        for (size_t j = 0; j < 8; j++)
            if (j < val_off(n) || j >= val_off(n) + n)
                CHECK_MSG(((unsigned char *)&v)[j] == 0, "GetBlockingVal(%zu): byte %zu of the "
                          "value is 0x%02x, not zero-extended", n, j, ((unsigned char *)&v)[j]);
        memcpy(dst, (char *)&v + val_off(n), n);
        break;
    }
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
    n_ops++;
}

/* One put to (r) at slot offset around `k`, read back with guards. */
static void test_put(gex_TM_t tm, gex_Rank_t r, char *slot, size_t n, int form, unsigned k)
{
    const size_t doff = GUARD + (k * 13) % 61, soff = GUARD + (k * 5) % 8;
    char *dest = slot + doff;
    const uint32_t a = mp_me | (uint32_t)form << 8 | (uint32_t)r << 16, b = (uint32_t)n ^ k << 24;
    CHECK_EQ(gex_RMA_PutBlocking(tm, r, dest - GUARD, zeros, GUARD, 0), 0);
    CHECK_EQ(gex_RMA_PutBlocking(tm, r, dest + n, zeros, GUARD, 0), 0);
    pat_fill(src_buf + soff, n, a, b, 0);
    do_put(tm, r, dest, src_buf + soff, n, form);
    mp_phase("put read-back");
    memset(dst_buf, 0xa5, n + 2 * GUARD);
    CHECK_EQ(gex_RMA_GetBlocking(tm, dst_buf, r, dest - GUARD, n + 2 * GUARD, 0), 0);
    CHECK_MSG(!memcmp(dst_buf, zeros, GUARD) && !memcmp(dst_buf + GUARD + n, zeros, GUARD),
              "%s of %zu bytes to rank %u wrote outside [dest, dest+nbytes)", put_name[form], n,
              (unsigned)r);
    CHECK_PAT(dst_buf + GUARD, n, a, b, 0);
}

static void test_get(gex_TM_t tm, gex_Rank_t r, size_t n, int form, unsigned k)
{
    const size_t soff = (k * 11) % 29, doff = GUARD + (k * 3) % 8;
    memset(dst_buf, 0xa5, doff + n + GUARD);
    do_get(tm, r, dst_buf + doff, get_area(r) + soff, n, form);
    CHECK_BYTES(dst_buf + doff - GUARD, GUARD, 0xa5);
    CHECK_BYTES(dst_buf + doff + n, GUARD, 0xa5);
    CHECK_PAT(dst_buf + doff, n, r, PAT_GET, soff);
}

static const size_t small_sizes[] = {
    1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256,
    257, 511, 512, 513, 1000, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 16383, 16384, 16385,
    65535, 65536 };
static const size_t big_sizes[] = {
    65537, 262147, ((size_t)1 << 20) - 1, (size_t)1 << 20, ((size_t)1 << 20) + 7,
    ((size_t)4 << 20) - 3, (size_t)4 << 20, ((size_t)4 << 20) + 5, (size_t)8 << 20 };
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void sweep(void)
{
    unsigned k = 0;
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t r = (mp_me + 1 + i) % mp_n;  /* self last */
        for (size_t s = 0; s < NELEM(small_sizes); s++) {
            size_t n = small_sizes[s];
            for (int f = 0; f < NPUT; f++)
                if (f < NPUT_BULK || n <= 8) test_put(mp_tm, r, put_slot(r), n, f, k++);
            for (int f = 0; f < NGET; f++)
                if (f < NGET_BULK || n <= 8) test_get(mp_tm, r, n, f, k++);
        }
        for (size_t s = 0; s < NELEM(big_sizes); s++) {
            size_t n = big_sizes[s];
            test_put(mp_tm, r, put_slot(r), n, (int)((s + i) % NPUT_BULK), k++);
            test_get(mp_tm, r, n, (int)((s + i) % NGET_BULK), k++);
        }
    }
    /* Every form at the largest size, to one peer (the next rank). */
    gex_Rank_t r = (mp_me + 1) % mp_n;
    for (int f = 0; f < NPUT_BULK; f++) test_put(mp_tm, r, put_slot(r), MAXN, f, k++);
    for (int f = 0; f < NGET_BULK; f++) test_get(mp_tm, r, MAXN, f, k++);
}

/* Section 2: what each sender last wrote, checked by the target itself. */
static void stamp_and_check(void)
{
    const size_t len = 3 * SMALL_MAX + 5;
    mp_phase("stamp");
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        pat_fill(src_buf, len, mp_me, PAT_STAMP ^ r, 0);
        CHECK_EQ(gex_RMA_PutBlocking(mp_tm, r, put_slot(r) + 3, src_buf, len, 0), 0);
    }
    mp_barrier();
    for (gex_Rank_t s = 0; s < mp_n; s++)
        CHECK_PAT(seg_base[mp_me] + (size_t)s * SLOT + 3, len, s, PAT_STAMP ^ mp_me, 0);
    mp_barrier();
}

/* ---- Section 3: event arrays ---- */
#define EV_LEN 65536
static size_t live_count(const gex_Event_t *e, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += e[i] != GEX_EVENT_INVALID;
    return c;
}

static void event_arrays(void)
{
    gex_Event_t evs[16 * 8];
    for (int mode = 0; mode < 4; mode++) {
        mp_phase("event arrays");
        size_t ne = 0;
        for (gex_Rank_t r = 0; r < mp_n && r < 8; r++) {
            unsigned char *s = src_buf + (size_t)r * 2 * EV_LEN;
            pat_fill(s, 2 * EV_LEN, mp_me, 0xe0 + (uint32_t)mode * 16 + r, 0);
            gex_Event_t lc = GEX_EVENT_NO_OP;
            gex_Event_t root = gex_RMA_PutNB(mp_tm, r, put_slot(r), s, EV_LEN, &lc, 0);
            gex_Event_t leaf = gex_Event_QueryLeaf(root, GEX_EC_LC);
            CHECK(lc != GEX_EVENT_NO_OP && root != GEX_EVENT_NO_OP && leaf != GEX_EVENT_NO_OP);
            evs[ne++] = GEX_EVENT_INVALID;
            if ((r + (gex_Rank_t)mode) & 1) { evs[ne++] = leaf; evs[ne++] = root; }
            else { evs[ne++] = root; evs[ne++] = leaf; }
            evs[ne++] = lc;
            evs[ne++] = gex_RMA_PutNB(mp_tm, r, put_slot(r) + EV_LEN, s + EV_LEN, EV_LEN,
                                      GEX_EVENT_DEFER, 0);
            evs[ne++] = gex_RMA_GetNB(mp_tm, dst_buf + (size_t)r * EV_LEN, r,
                                      get_area(r) + r, EV_LEN, 0);
            evs[ne++] = GEX_EVENT_INVALID;
        }
        if (mode == 0) {
            while (gex_Event_TestAll(evs, ne, 0) != GASNET_OK) gasnet_AMPoll();
        } else if (mode == 1) {
            gex_Event_WaitAll(evs, ne, 0);
        } else if (mode == 2) {
            size_t before = live_count(evs, ne);
            for (;;) {
                int rc = gex_Event_TestSome(evs, ne, 0);
                size_t after = live_count(evs, ne);
                if (rc == GASNET_OK) CHECK(after < before || after == 0);
                else CHECK(rc == GASNET_ERR_NOT_READY && after == before && after > 0);
                if (after == 0) break;
                before = after;
                gasnet_AMPoll();
            }
            CHECK_EQ(gex_Event_TestSome(evs, ne, 0), GASNET_OK); /* only INVALID: success */
        } else {
            size_t before = live_count(evs, ne);
            while (before) {
                gex_Event_WaitSome(evs, ne, 0);
                size_t after = live_count(evs, ne);
                CHECK(after < before);
                before = after;
            }
        }
        CHECK_EQ(live_count(evs, ne), 0);
        CHECK_EQ(gex_Event_TestAll(evs, ne, 0), GASNET_OK);
        for (gex_Rank_t r = 0; r < mp_n && r < 8; r++) {
            unsigned char *back = dst_buf + 8 * EV_LEN;
            CHECK_PAT(dst_buf + (size_t)r * EV_LEN, EV_LEN, r, PAT_GET, r);
            CHECK_EQ(gex_RMA_GetBlocking(mp_tm, back, r, put_slot(r), 2 * EV_LEN, 0), 0);
            CHECK_PAT(back, 2 * EV_LEN, mp_me, 0xe0 + (uint32_t)mode * 16 + r, 0);
        }
    }
}

/* ---- Section 4: NBI categories and access regions ---- */
static void nbi_regions(void)
{
    mp_phase("NBI categories");
    const size_t len = 4096;
    /* Outside a region: per category. */
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        pat_fill(src_buf + r * len, len, mp_me, 0xa0 + r, 0);
        CHECK_EQ(gex_RMA_PutNBI(mp_tm, r, put_slot(r) + r, src_buf + r * len, len,
                                GEX_EVENT_GROUP, 0), 0);
        CHECK_EQ(gex_RMA_GetNBI(mp_tm, dst_buf + r * len, r, get_area(r) + 2 * r, len, 0), 0);
    }
    gex_NBI_Wait(GEX_EC_GET, 0);
    for (gex_Rank_t r = 0; r < mp_n; r++) CHECK_PAT(dst_buf + r * len, len, r, PAT_GET, 2 * r);
    gex_NBI_Wait(GEX_EC_LC, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        CHECK_EQ(gex_RMA_GetBlocking(mp_tm, dst_buf, r, put_slot(r) + r, len, 0), 0);
        CHECK_PAT(dst_buf, len, mp_me, 0xa0 + r, 0);
    }

    mp_phase("access regions");
    gex_NBI_BeginAccessRegion(0);
    gex_Event_t empty = gex_NBI_EndAccessRegion(0);
    CHECK(empty != GEX_EVENT_NO_OP);
    gex_Event_t el = gex_Event_QueryLeaf(empty, GEX_EC_LC);
    if (el != GEX_EVENT_INVALID) gex_Event_Wait(el);
    gex_Event_Wait(empty);

    /* A region mixing puts (every lc_opt), gets, Val puts, and an NBI put
     * outside it: the region event covers exactly its own. */
    for (int round = 0; round < 3; round++) {
        gex_NBI_BeginAccessRegion(0);
        for (gex_Rank_t r = 0; r < mp_n; r++) {
            pat_fill(src_buf + r * 3 * len, 3 * len, mp_me, 0xb0 + r + 16 * round, 0);
            gex_Event_t *lcs[3] = { GEX_EVENT_NOW, GEX_EVENT_DEFER, GEX_EVENT_GROUP };
            for (int j = 0; j < 3; j++)
                CHECK_EQ(gex_RMA_PutNBI(mp_tm, r, put_slot(r) + j * len,
                                        src_buf + r * 3 * len + j * len, len, lcs[j], 0), 0);
            CHECK_EQ(gex_RMA_PutNBIVal(mp_tm, r, put_slot(r) + 3 * len, 0x1122334455667788ull,
                                       8, 0), 0);
            CHECK_EQ(gex_RMA_GetNBI(mp_tm, dst_buf + r * len, r, get_area(r) + r + round, len,
                                    0), 0);
        }
        gex_Event_t reg = gex_NBI_EndAccessRegion(0);
        CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
        gex_Event_t leaf = gex_Event_QueryLeaf(reg, GEX_EC_LC);
        CHECK(leaf != GEX_EVENT_NO_OP);
        CHECK(leaf == gex_Event_QueryLeaf(reg, GEX_EC_LC));
        if (round == 0) {
            gex_Event_Wait(leaf);
            gex_Event_Wait(reg);
        } else if (round == 1) {
            gex_Event_t arr[3] = { reg, GEX_EVENT_INVALID, leaf }; /* root before its leaf */
            gex_Event_WaitAll(arr, 3, 0);
        } else {
            gex_Event_t arr[2] = { leaf, reg };
            while (gex_Event_TestAll(arr, 2, 0) != GASNET_OK) gasnet_AMPoll();
        }
        for (gex_Rank_t r = 0; r < mp_n; r++) {
            CHECK_PAT(dst_buf + r * len, len, r, PAT_GET, r + round);
            unsigned char back[3 * 4096 + 8];
            CHECK_EQ(gex_RMA_GetBlocking(mp_tm, back, r, put_slot(r), sizeof back, 0), 0);
            CHECK_PAT(back, 3 * len, mp_me, 0xb0 + r + 16 * round, 0);
            uint64_t v;
            memcpy(&v, back + 3 * len, 8);
            CHECK(v == 0x1122334455667788ull);
        }
    }
}

/* ---- Section 5: IMMEDIATE ---- */
static void immediate(void)
{
    const size_t len = (size_t)1 << 20;
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t r = (mp_me + 1 + i) % mp_n;
        char *dest = put_slot(r) + 64;
        for (int form = 0; form < 7; form++) {
            mp_phase("IMMEDIATE no-op");
            /* Known old contents, new source. */
            pat_fill(src_buf, len, mp_me, 0x1d0 + (uint32_t)form, 0);
            CHECK_EQ(gex_RMA_PutBlocking(mp_tm, r, dest, src_buf, len, 0), 0);
            pat_fill(src_buf, len, mp_me, 0x1e0 + (uint32_t)form, 0);
            memset(dst_buf, 0xa5, len);
            int refused = 0;
            gex_Event_t ev = GEX_EVENT_INVALID, lc = GEX_EVENT_INVALID;
            int is_get = form >= 4;
            switch (form) {
            case 0: refused = gex_RMA_PutBlocking(mp_tm, r, dest, src_buf, len, GEX_FLAG_IMMEDIATE); break;
            case 1: refused = gex_RMA_PutNBI(mp_tm, r, dest, src_buf, len, GEX_EVENT_GROUP, GEX_FLAG_IMMEDIATE); break;
            case 2:
                ev = gex_RMA_PutNB(mp_tm, r, dest, src_buf, len, &lc, GEX_FLAG_IMMEDIATE);
                refused = ev == GEX_EVENT_NO_OP;
                break;
            case 3:
                gex_NBI_BeginAccessRegion(0);
                refused = gex_RMA_PutNBI(mp_tm, r, dest, src_buf, len, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE);
                ev = gex_NBI_EndAccessRegion(0);
                break;
            case 4: refused = gex_RMA_GetBlocking(mp_tm, dst_buf, r, get_area(r), len, GEX_FLAG_IMMEDIATE); break;
            case 5: refused = gex_RMA_GetNBI(mp_tm, dst_buf, r, get_area(r), len, GEX_FLAG_IMMEDIATE); break;
            case 6:
                ev = gex_RMA_GetNB(mp_tm, dst_buf, r, get_area(r), len, GEX_FLAG_IMMEDIATE);
                refused = ev == GEX_EVENT_NO_OP;
                break;
            }
            CHECK(r != mp_me || !refused); /* a copy never needs resources */
            n_refused += refused != 0;
            if (refused) {
                /* No effect: counters untouched, region empty, memory unchanged. */
                CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
                if (form == 3) CHECK_EQ(gex_Event_Test(ev), GASNET_OK);
                if (is_get) {
                    CHECK_BYTES(dst_buf, 64, 0xa5);
                    CHECK_BYTES(dst_buf + len - 64, 64, 0xa5);
                    for (size_t j = 0; j < len; j++) CHECK(dst_buf[j] == 0xa5);
                }
            } else {
                if (ev != GEX_EVENT_INVALID) gex_Event_Wait(ev);
                gex_NBI_Wait(GEX_EC_ALL, 0);
                if (is_get) CHECK_PAT(dst_buf, len, r, PAT_GET, 0);
            }
            if (!is_get) {
                CHECK_EQ(gex_RMA_GetBlocking(mp_tm, dst_buf, r, dest, len, 0), 0);
                CHECK_PAT(dst_buf, len, mp_me, (refused ? 0x1d0 : 0x1e0) + (uint32_t)form, 0);
            }
            n_ops++;
        }
    }

    /* Flood of small IMMEDIATE NBI puts: retry after a poll a few times,
     * then without the flag (immediate.txt's recommended loop). */
    mp_phase("IMMEDIATE flood");
    const size_t each = 256, count = 4000;
    gex_Rank_t r = (mp_me + 1) % mp_n;
    pat_fill(src_buf, each * count, mp_me, 0xf100d, 0);
    unsigned long retries = 0;
    for (size_t i = 0; i < count; i++) {
        int tries = 0;
        while (gex_RMA_PutNBI(mp_tm, r, put_slot(r) + i * each, src_buf + i * each, each,
                              GEX_EVENT_NOW, tries < 8 ? GEX_FLAG_IMMEDIATE : 0)) {
            CHECK(tries < 8);
            tries++;
            retries++;
            gasnet_AMPoll();
        }
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    n_refused += retries;
    CHECK_EQ(gex_RMA_GetBlocking(mp_tm, dst_buf, r, put_slot(r), each * count, 0), 0);
    CHECK_PAT(dst_buf, each * count, mp_me, 0xf100d, 0);
}

/* ---- Section 6: value semantics ---- */
static void values(void)
{
    mp_phase("value forms");
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        char *d = put_slot(r) + 5;   /* unaligned */
        const gex_RMA_Value_t v = 0x8877665544332211ull;
        for (size_t n = 1; n <= 8; n++) {
            CHECK_EQ(gex_RMA_PutBlocking(mp_tm, r, d, zeros, 16, 0), 0);
            CHECK_EQ(gex_RMA_PutBlockingVal(mp_tm, r, d, v, n, 0), 0);
            /* The low-order n bytes of v, as an n-byte host integer. */
            uint64_t want = n == 8 ? v : v & ((1ull << (8 * n)) - 1);
            CHECK_MSG(gex_RMA_GetBlockingVal(mp_tm, r, d, n, 0) == want,
                      "GetBlockingVal(%zu) after PutBlockingVal(%#llx, %zu) read %#llx", n,
                      (unsigned long long)v, n,
                      (unsigned long long)gex_RMA_GetBlockingVal(mp_tm, r, d, n, 0));
            unsigned char back[16];
            CHECK_EQ(gex_RMA_GetBlocking(mp_tm, back, r, d, 16, 0), 0);
            CHECK(!memcmp(back, (const char *)&v + val_off(n), n));
            CHECK(!memcmp(back + n, zeros, 16 - n));
            /* Typed views: what a C store of that width would have written. */
            if (n == 1) CHECK(back[0] == 0x11);
            if (n == 2) { uint16_t x; memcpy(&x, back, 2); CHECK(x == 0x2211); }
            if (n == 4) { uint32_t x; memcpy(&x, back, 4); CHECK(x == 0x44332211u); }
            if (n == 8) { uint64_t x; memcpy(&x, back, 8); CHECK(x == v); }
            CHECK(gex_RMA_GetBlockingVal(mp_tm, r, d, n, GEX_FLAG_IMMEDIATE) == want);
            n_ops += 3;
        }
        /* nbytes 0: a no-op that reads nothing */
        CHECK(gex_RMA_GetBlockingVal(mp_tm, r, d, 0, 0) == 0);
        CHECK_EQ(gex_RMA_PutBlockingVal(mp_tm, r, d, v, 0, 0), 0);
    }
}

/* ---- Section 7: TM-pairs and non-primordial endpoints ---- */
#define EP1_SEG (256 * 1024)
static void tm_pairs(void)
{
    mp_phase("EP 1 setup");
    gex_EP_t ep1;
    gex_Segment_t seg1;
    CHECK_OK(gex_EP_Create(&ep1, mp_client, GEX_EP_CAPABILITY_RMA, 0));
    CHECK_EQ(gex_EP_QueryIndex(ep1), 1);
    CHECK_OK(gex_Segment_Create(&seg1, mp_client, NULL, EP1_SEG, GEX_MK_HOST, 0));
    CHECK_OK(gex_EP_BindSegment(ep1, seg1, 0));
    CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, &ep1, 1, 0));
    char *mine1 = gex_Segment_QueryAddr(seg1);
    memset(mine1, 0, EP1_SEG);
    mp_barrier();

    const gex_TM_t p11 = gex_TM_Pair(ep1, 1), p01 = gex_TM_Pair(mp_ep, 1),
                   p10 = gex_TM_Pair(ep1, 0);
    const size_t len = 3000, stride = EP1_SEG / 4 / 8;
    CHECK(mp_n <= 8 && 2 * len <= stride);
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        mp_phase("TM-pair puts");
        void *owner1 = NULL, *owner0 = NULL;
        uintptr_t size1 = 0, size0 = 0;
        CHECK_OK(gex_Segment_QueryBound(p11, r, &owner1, NULL, &size1));
        CHECK_OK(gex_Segment_QueryBound(p10, r, &owner0, NULL, &size0));
        CHECK_EQ(size1, EP1_SEG);
        CHECK_PTR_EQ(owner0, seg_base[r]);
        char *q1 = (char *)owner1 + mp_me * stride;
        /* ep1 -> ep1, ep0 -> ep1: blocking, NB and NBI, unaligned */
        pat_fill(src_buf, 2 * len, mp_me, 0x11 + r, 0);
        CHECK_EQ(gex_RMA_PutBlocking(p11, r, q1 + 1, src_buf, len, 0), 0);
        gex_Event_t lc, ev = gex_RMA_PutNB(p01, r, q1 + 1 + len, src_buf + len, len, &lc, 0);
        gex_Event_Wait(lc);
        gex_Event_Wait(ev);
        CHECK_EQ(gex_RMA_PutNBIVal(p11, r, q1 + EP1_SEG / 4 / 8 - 8, 0xfeedull << 16 | r, 8, 0),
                 0);
        /* ep1 -> ep0: the primordial segment's put slot */
        CHECK_EQ(gex_RMA_PutNBI(p10, r, put_slot(r) + 7, src_buf, len, GEX_EVENT_GROUP, 0), 0);
        gex_NBI_Wait(GEX_EC_ALL, 0);
        /* read back through other pairs */
        memset(dst_buf, 0, 2 * len);
        ev = gex_RMA_GetNB(p01, dst_buf, r, q1 + 1, 2 * len, 0);
        gex_Event_Wait(ev);
        CHECK_PAT(dst_buf, 2 * len, mp_me, 0x11 + r, 0);
        CHECK_EQ(gex_RMA_GetBlocking(p10, dst_buf, r, put_slot(r) + 7, len, 0), 0);
        CHECK_PAT(dst_buf, len, mp_me, 0x11 + r, 0);
        CHECK_EQ(gex_RMA_GetNBI(p11, dst_buf, r, q1 + 1, len, 0), 0);
        gex_NBI_Wait(GEX_EC_GET, 0);
        CHECK_PAT(dst_buf, len, mp_me, 0x11 + r, 0);
        n_ops += 9;
    }
    mp_barrier();
    mp_phase("TM-pair target check");
    for (gex_Rank_t s = 0; s < mp_n; s++) {
        CHECK_PAT(mine1 + s * stride + 1, 2 * len, s, 0x11 + mp_me, 0);
        uint64_t v;
        memcpy(&v, mine1 + s * stride + EP1_SEG / 4 / 8 - 8, 8);
        CHECK(v == (0xfeedull << 16 | mp_me));
    }
    mp_barrier();
}

/* ---- Section 8: a team with a member table ---- */
static void member_team(void)
{
    mp_phase("member team");
    /* What libgex-coll will build: rank i of the team is jobrank n-1-i. */
    gex_EP_Location_t *mem = calloc(mp_n, sizeof *mem);
    struct gexi_tm *t = calloc(1, sizeof *t);
    CHECK(mem && t);
    for (gex_Rank_t i = 0; i < mp_n; i++) mem[i] = (gex_EP_Location_t){ mp_n - 1 - i, 0 };
    *t = *gexi_tm_of(mp_tm);
    t->members = mem;
    t->rank = mp_n - 1 - mp_me;
    gex_TM_t team = (gex_TM_t)t;
    CHECK_EQ(gex_TM_TranslateRankToJobrank(team, 0), mp_n - 1);
    const size_t len = 1500;
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t jr = mp_n - 1 - i;
        pat_fill(src_buf, len, mp_me, 0x7ea + jr, 0);
        gex_Event_t ev = gex_RMA_PutNB(team, i, put_slot(jr) + 9, src_buf, len, GEX_EVENT_NOW, 0);
        gex_Event_Wait(ev);
        CHECK_EQ(gex_RMA_GetBlocking(mp_tm, dst_buf, jr, put_slot(jr) + 9, len, 0), 0);
        CHECK_PAT(dst_buf, len, mp_me, 0x7ea + jr, 0);
        ev = gex_RMA_GetNB(team, dst_buf, i, get_area(jr) + 3, len, 0);
        gex_Event_Wait(ev);
        CHECK_PAT(dst_buf, len, jr, PAT_GET, 3);
        n_ops += 3;
    }
    free(t);
    free(mem);
}

/* Teams made by gex_TM_Split (libgex-coll): the whole job in reverse order,
 * and the odd/even halves. */
static void split_teams(void)
{
    mp_phase("split teams");
    gex_TM_t rev, half;
    gex_TM_Split(&rev, mp_tm, 0, (int)(mp_n - 1 - mp_me), NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_TM_Split(&half, mp_tm, (int)(mp_me % 2), (int)mp_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    CHECK_EQ(gex_TM_QueryRank(rev), mp_n - 1 - mp_me);
    const gex_TM_t teams[2] = { rev, half };
    const size_t len = 777;
    for (int t = 0; t < 2; t++) {
        const gex_Rank_t size = gex_TM_QuerySize(teams[t]);
        for (gex_Rank_t i = 0; i < size; i++) {
            const gex_Rank_t jr = gex_TM_TranslateRankToJobrank(teams[t], i);
            pat_fill(src_buf, len, mp_me, 0x5e1 + jr + 16 * (uint32_t)t, 0);
            CHECK_EQ(gex_RMA_PutNBI(teams[t], i, put_slot(jr) + 11, src_buf, len,
                                    GEX_EVENT_NOW, 0), 0);
            gex_NBI_Wait(GEX_EC_PUT, 0);
            CHECK_EQ(gex_RMA_GetBlocking(mp_tm, dst_buf, jr, put_slot(jr) + 11, len, 0), 0);
            CHECK_PAT(dst_buf, len, mp_me, 0x5e1 + jr + 16 * (uint32_t)t, 0);
            gex_Event_Wait(gex_RMA_GetNB(teams[t], dst_buf, i, get_area(jr) + 5, len, 0));
            CHECK_PAT(dst_buf, len, jr, PAT_GET, 5);
            CHECK(gex_RMA_GetBlockingVal(teams[t], i, get_area(jr) + 5, 4, 0) ==
                  gex_RMA_GetBlockingVal(mp_tm, jr, get_area(jr) + 5, 4, 0));
            n_ops += 5;
        }
    }
    mp_barrier(); /* everyone is done with the teams' peers */
}

/* ---- Section 9: zero bytes, threads ---- */
static void zero_bytes(void)
{
    mp_phase("zero bytes");
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        gex_Event_t lc = GEX_EVENT_NO_OP;
        CHECK_EQ(gex_RMA_PutBlocking(mp_tm, r, put_slot(r), src_buf, 0, 0), 0);
        CHECK(gex_RMA_PutNB(mp_tm, r, put_slot(r), src_buf, 0, &lc, 0) == GEX_EVENT_INVALID);
        CHECK(lc == GEX_EVENT_INVALID);
        CHECK_EQ(gex_RMA_PutNBI(mp_tm, r, put_slot(r), src_buf, 0, GEX_EVENT_GROUP, 0), 0);
        CHECK_EQ(gex_RMA_GetBlocking(mp_tm, dst_buf, r, get_area(r), 0, GEX_FLAG_IMMEDIATE), 0);
        CHECK(gex_RMA_GetNB(mp_tm, dst_buf, r, get_area(r), 0, 0) == GEX_EVENT_INVALID);
        CHECK_EQ(gex_RMA_GetNBI(mp_tm, dst_buf, r, get_area(r), 0, 0), 0);
        CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
    }
}

#define NTHREADS 2
#define THR_LEN 2048
#define THR_ITERS 60
static void *thread_main(void *arg)
{
    const unsigned id = (unsigned)(uintptr_t)arg;
    unsigned char *src = malloc(THR_LEN * 4), *dst = malloc(THR_LEN * 4);
    CHECK(src && dst);
    for (unsigned it = 0; it < THR_ITERS; it++) {
        for (gex_Rank_t r = 0; r < mp_n; r++) {
            char *d = put_slot(r) + (size_t)(1 + id) * SMALL_MAX + (it % 8) * THR_LEN;
            pat_fill(src, THR_LEN, mp_me, id << 16 | it << 4 | r, 0);
            CHECK_EQ(gex_RMA_PutNBI(mp_tm, r, d, src, THR_LEN, GEX_EVENT_GROUP, 0), 0);
            CHECK_EQ(gex_RMA_GetNBI(mp_tm, dst, r, get_area(r) + it, THR_LEN, 0), 0);
            gex_Event_t lc, ev = gex_RMA_PutNB(mp_tm, r, d + THR_LEN / 2, src + THR_LEN / 2,
                                               THR_LEN / 2, &lc, 0);
            gex_NBI_Wait(GEX_EC_LC, 0);
            gex_Event_Wait(lc);
            gex_NBI_Wait(GEX_EC_ALL, 0);
            CHECK_PAT(dst, THR_LEN, r, PAT_GET, it);
            gex_Event_Wait(ev);
            CHECK_EQ(gex_RMA_GetBlocking(mp_tm, dst, r, d, THR_LEN, 0), 0);
            CHECK_PAT(dst, THR_LEN, mp_me, id << 16 | it << 4 | r, 0);
        }
    }
    free(src);
    free(dst);
    return NULL;
}

static void threads(void)
{
    mp_phase("threads");
    pthread_t th[NTHREADS];
    for (uintptr_t i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&th[i], NULL, thread_main, (void *)i) == 0);
    for (int i = 0; i < NTHREADS; i++) CHECK(pthread_join(th[i], NULL) == 0);
    n_ops += (unsigned long)NTHREADS * THR_ITERS * mp_n * 4;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_RMA", 0);
    const uintptr_t seg_size = (uintptr_t)(mp_n + 1) * SLOT;
    mp_attach((seg_size + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE);
    seg_base = calloc(mp_n, sizeof *seg_base);
    src_buf = malloc(SLOT);
    dst_buf = malloc(SLOT);
    ref_buf = malloc(SLOT + REF_SPAN);
    CHECK(seg_base && src_buf && dst_buf && ref_buf);
    for (size_t j = 0; j < SLOT + REF_SPAN; j += 4) {
        uint32_t x = mp_hash32((uint32_t)j * 0x9e3779b1u + 0x1234567u);
        memcpy(ref_buf + j, &x, 4);
    }
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        void *owner = NULL;
        uintptr_t size = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &owner, NULL, &size, 0));
        CHECK(owner && size >= seg_size);
        seg_base[r] = owner;
    }
    pat_fill(get_area(mp_me), SLOT, mp_me, PAT_GET, 0);
    mp_barrier();

    sweep();
    stamp_and_check();
    event_arrays();
    nbi_regions();
    immediate();
    values();
    zero_bytes();
    threads();
    mp_barrier();
    member_team();
    split_teams();
    /* Publication is a bootstrap collective that does not poll: everyone must
     * be done with operations that need its peers' polling first. */
    mp_barrier();
    tm_pairs();

    const char *fr = getenv("GEX_FORCE_REFERENCE");
    mp_finish("%lu RMA operations checked (%s; %lu IMMEDIATE refusals); rma layer: %s", n_ops,
              fr ? "GEX_FORCE_REFERENCE" : mp_pshm_enabled() ? "PSHM" : "no PSHM", n_refused,
              gexi_describe_layers());
}
