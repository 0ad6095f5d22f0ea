/*
 * mp_rma_inline.c: the inline same-node RMA fast path of gex/fastpath.h
 * (issue 27), against the library's out-of-line calls.
 *
 *  1. The table is live exactly when it must be: a release build of the
 *     library with the PSHM bypass on serves the primordial team; a debug
 *     build and GEX_FORCE_REFERENCE=rma (or all) send every call out of
 *     line; with GEX_PSHM=0 it serves this process's own segment only.
 *  2. What the table says for each rank agrees with the spec's query
 *     (gex_EP_QueryBoundSegmentNB): where the segment is mapped here, the
 *     table gives that address; where it is not (another host, PSHM off),
 *     it gives nothing; a team other than the primordial one, a range past
 *     the segment's end, and a flag give nothing.
 *  3. Data: every rank puts to and gets from every rank, sizes 0..4 KiB at
 *     unaligned offsets and up to the last byte of the segment, in every
 *     inlined form (Blocking, NBI with NOW/DEFER/GROUP, NB with NOW/DEFER
 *     and an event pointer, the value forms; an inline NB call completes in
 *     the call and returns GEX_EVENT_INVALID where the table maps the rank),
 *     checked through the other path (inline put, out-of-line get and the
 *     reverse) and, after a barrier, by the target in its own memory.
 *  4. Calls the fast path must leave to the library still work: through a
 *     team made by gex_TM_Split (reversed ranks), with GEX_FLAG_IMMEDIATE.
 */
#include "mp_util.h"

#define SEGSZ ((uintptr_t)1 << 20)
#define SLOT ((uintptr_t)16384)
#define H_BASE MP_H_FIRST_FREE

static void *seg_owner[64];
static unsigned long n_checked;

static int forced_reference(void)
{
    const char *f = getenv("GEX_FORCE_REFERENCE");
    return f && (strstr(f, "rma") || strstr(f, "all"));
}

static int expect_live(void)
{
#ifdef GEX_DEBUG
    return 0;
#else
    return !forced_reference();   /* GEX_PSHM=0: live, for this process only (below) */
#endif
}

/* What gex_EP_QueryBoundSegmentNB says of rank r's segment here. */
static void *query_local(gex_TM_t tm, gex_Rank_t r, void **owner, uintptr_t *size)
{
    void *local = NULL;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(tm, r, owner, &local, size, 0);
    gex_Event_Wait(ev);
    return local;
}

static void check_table(gex_TM_t team)
{
    mp_phase("table");
    const struct gexi_fastpath *fp = gexi_rma_fastpath_v1;
    CHECK(fp != NULL);
    if (!expect_live()) {
        CHECK_MSG(fp->tm == GEX_TM_INVALID, "fast path live where it must not be");
        for (gex_Rank_t r = 0; r < mp_n; r++)
            CHECK(gexi_fastpath_addr(mp_tm, r, seg_owner[r], 8) == NULL);
        return;
    }
    CHECK_MSG(fp->tm == mp_tm, "fast path not live for the primordial team");
    CHECK(fp->size == mp_n);
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        void *owner;
        uintptr_t size;
        char *local = query_local(mp_tm, r, &owner, &size);
        CHECK(owner == seg_owner[r] && size >= SEGSZ);
        char *o = owner;
        if (!mp_pshm_enabled() && r != mp_me)
            CHECK_MSG(!local, "rank %u: mapped here with GEX_PSHM=0", (unsigned)r);
        if (!local) {
            CHECK_MSG(gexi_fastpath_addr(mp_tm, r, o, 8) == NULL,
                      "rank %u: table maps a segment the spec's query does not", (unsigned)r);
            continue;
        }
        CHECK(gexi_fastpath_addr(mp_tm, r, o, 8) == local);
        CHECK(gexi_fastpath_addr(mp_tm, r, o + 100, 1) == local + 100);
        CHECK(gexi_fastpath_addr(mp_tm, r, o + size - 8, 8) == local + size - 8);
        CHECK(gexi_fastpath_addr(mp_tm, r, o + size - 7, 8) == NULL);   /* past the end */
        CHECK(gexi_fastpath_addr(mp_tm, r, o - 1, 8) == NULL);          /* before it */
        CHECK(gexi_fastpath_addr(mp_tm, r, o + size, 0) == local + size);
        CHECK(gexi_fastpath_addr(team, r, o, 8) == NULL);               /* another team */
        CHECK(gexi_fastpath_addr(mp_tm, mp_n, o, 8) == NULL);           /* no such rank */
        n_checked += 8;
    }
}

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(seed * 131u + i * 7u + 1u);
}

/* rank r's slot for writer w, at offset off */
static char *slot(gex_Rank_t r, gex_Rank_t w, size_t off)
{
    return (char *)seg_owner[r] + (size_t)w * SLOT + off;
}

static const size_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33,
                                 48, 63, 64, 65, 100, 1000, 4096 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Inline put, out-of-line get back; out-of-line put, inline get back. */
static void sweep(void)
{
    mp_phase("sweep");
    unsigned char src[4096 + 8], back[4096 + 8];
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        for (size_t k = 0; k < NSIZES; k++) {
            size_t n = sizes[k], off = 1 + k % 7;
            unsigned seed = (unsigned)(r * 31 + k + mp_me * 977);
            /* the inline NB forms complete in the call where the table maps r */
            const int inline_here = gexi_fastpath_addr(mp_tm, r, slot(r, mp_me, off), n) != NULL;
            for (int form = 0; form < 6; form++) {
                fill(src, n, seed + (unsigned)form);
                memset(back, 0, sizeof back);
                char *dst = slot(r, mp_me, off);
                switch (form) {
                case 0:
                    CHECK(gex_RMA_PutBlocking(mp_tm, r, dst, src, n, 0) == 0);
                    CHECK((gex_RMA_GetBlocking)(mp_tm, back, r, dst, n, 0) == 0);
                    break;
                case 1:
                    CHECK((gex_RMA_PutBlocking)(mp_tm, r, dst, src, n, 0) == 0);
                    CHECK(gex_RMA_GetBlocking(mp_tm, back, r, dst, n, 0) == 0);
                    break;
                case 2: {
                    gex_Event_t *lc = (k % 3 == 0) ? GEX_EVENT_NOW
                                      : (k % 3 == 1) ? GEX_EVENT_DEFER : GEX_EVENT_GROUP;
                    CHECK(gex_RMA_PutNBI(mp_tm, r, dst, src, n, lc, 0) == 0);
                    gex_NBI_Wait(GEX_EC_ALL, 0);
                    CHECK(gex_RMA_GetNBI(mp_tm, back, r, dst, n, 0) == 0);
                    gex_NBI_Wait(GEX_EC_GET, 0);
                    break;
                }
                case 3:
                    CHECK((gex_RMA_PutNBI)(mp_tm, r, dst, src, n, GEX_EVENT_DEFER, 0) == 0);
                    gex_NBI_Wait(GEX_EC_ALL, 0);
                    CHECK((gex_RMA_GetNBI)(mp_tm, back, r, dst, n, 0) == 0);
                    gex_NBI_Wait(GEX_EC_GET, 0);
                    break;
                case 4: {
                    /* inline NB put (NOW, DEFER, or an event the library fills) */
                    gex_Event_t lev = GEX_EVENT_NO_OP;
                    gex_Event_t *lc = (k % 3 == 0) ? GEX_EVENT_NOW
                                      : (k % 3 == 1) ? GEX_EVENT_DEFER : &lev;
                    gex_Event_t ev = gex_RMA_PutNB(mp_tm, r, dst, src, n, lc, 0);
                    if (inline_here && lc != &lev)
                        CHECK_MSG(ev == GEX_EVENT_INVALID, "inline PutNB of %zu bytes to rank %u "
                                  "returned an event", n, (unsigned)r);
                    gex_Event_Wait(ev);
                    if (lc == &lev) gex_Event_Wait(lev);
                    gex_Event_Wait((gex_RMA_GetNB)(mp_tm, back, r, dst, n, 0));
                    break;
                }
                default: {
                    gex_Event_Wait((gex_RMA_PutNB)(mp_tm, r, dst, src, n, GEX_EVENT_NOW, 0));
                    gex_Event_t ev = gex_RMA_GetNB(mp_tm, back, r, dst, n, 0);
                    if (inline_here)
                        CHECK_MSG(ev == GEX_EVENT_INVALID, "inline GetNB of %zu bytes from rank "
                                  "%u returned an event", n, (unsigned)r);
                    gex_Event_Wait(ev);
                    break;
                }
                }
                CHECK_MSG(!memcmp(src, back, n), "rank %u, %zu bytes, form %d: data differs",
                          (unsigned)r, n, form);
                n_checked++;
            }
        }
        /* value forms, 1..8 bytes, both ways */
        for (size_t n = 1; n <= sizeof(gex_RMA_Value_t); n++) {
            gex_RMA_Value_t v = (gex_RMA_Value_t)0x0123456789abcdefull ^ (r * 0x1111u + n);
            gex_RMA_Value_t mask = n == sizeof v ? ~(gex_RMA_Value_t)0
                                                 : (((gex_RMA_Value_t)1 << (8 * n)) - 1);
            char *dst = slot(r, mp_me, 4096 + 8 * n);
            CHECK(gex_RMA_PutBlockingVal(mp_tm, r, dst, v, n, 0) == 0);
            CHECK((gex_RMA_GetBlockingVal)(mp_tm, r, dst, n, 0) == (v & mask));
            CHECK((gex_RMA_PutBlockingVal)(mp_tm, r, dst, ~v, n, 0) == 0);
            CHECK(gex_RMA_GetBlockingVal(mp_tm, r, dst, n, 0) == (~v & mask));
            CHECK(gex_RMA_PutNBIVal(mp_tm, r, dst, v ^ 0x5a, n, 0) == 0);
            gex_NBI_Wait(GEX_EC_PUT, 0);
            CHECK((gex_RMA_GetBlockingVal)(mp_tm, r, dst, n, 0) == ((v ^ 0x5a) & mask));
            n_checked += 3;
        }
    }
}

/* A last put of every rank into every rank's slot (and its segment's
 * last bytes, rank 0 only), checked by the owner after a barrier. */
static void target_side(void)
{
    mp_phase("target side");
    unsigned char src[512];
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        fill(src, sizeof src, 7000u + mp_me * 13u + r);
        CHECK(gex_RMA_PutBlocking(mp_tm, r, slot(r, mp_me, 8192), src, sizeof src, 0) == 0);
    }
    unsigned char tail[16];
    fill(tail, sizeof tail, 99u);
    if (mp_me == 0)
        for (gex_Rank_t r = 0; r < mp_n; r++)
            CHECK(gex_RMA_PutBlocking(mp_tm, r, (char *)seg_owner[r] + SEGSZ - sizeof tail, tail,
                                      sizeof tail, 0) == 0);
    mp_barrier();
    for (gex_Rank_t w = 0; w < mp_n; w++) {
        fill(src, sizeof src, 7000u + w * 13u + mp_me);
        CHECK_MSG(!memcmp(slot(mp_me, w, 8192), src, sizeof src),
                  "data from rank %u not found in this rank's segment", (unsigned)w);
    }
    CHECK(!memcmp((char *)seg_owner[mp_me] + SEGSZ - sizeof tail, tail, sizeof tail));
    n_checked += mp_n + 1;
    mp_barrier();
}

/* What the fast path leaves to the library. */
static void out_of_line(gex_TM_t team)
{
    mp_phase("team and flags");
    unsigned char src[256], back[256];
    gex_Rank_t tn = gex_TM_QuerySize(team);
    CHECK(tn == mp_n);
    for (gex_Rank_t tr = 0; tr < tn; tr++) {
        gex_Rank_t jr = mp_n - 1 - tr;     /* the team reverses the ranks */
        fill(src, sizeof src, 5000u + tr);
        char *dst = slot(jr, mp_me, 9000);
        CHECK(gex_RMA_PutBlocking(team, tr, dst, src, sizeof src, 0) == 0);
        CHECK(gex_RMA_GetBlocking(mp_tm, back, jr, dst, sizeof back, 0) == 0);
        CHECK(!memcmp(src, back, sizeof src));
        fill(src, sizeof src, 6000u + tr);
        int rc;
        do {
            rc = gex_RMA_PutBlocking(mp_tm, jr, dst, src, sizeof src, GEX_FLAG_IMMEDIATE);
            if (rc) gasnet_AMPoll();
        } while (rc);
        memset(back, 0, sizeof back);
        CHECK(gex_RMA_GetBlocking(team, back, tr, dst, sizeof back, 0) == 0);
        CHECK(!memcmp(src, back, sizeof src));
        n_checked += 2;
    }
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_RMA_INLINE", 0);
    CHECK(mp_n <= 64);
    mp_attach(SEGSZ);
    void *mine = gex_Segment_QueryAddr(mp_seg);
    mp_allgather(&mine, sizeof mine, seg_owner);
    gex_TM_t team;
    mp_phase("gex_TM_Split");
    (void)gex_TM_Split(&team, mp_tm, 0, mp_n - 1 - mp_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    CHECK(team != GEX_TM_INVALID);
    check_table(team);
    mp_barrier();
    sweep();
    mp_barrier();
    target_side();
    out_of_line(team);
    mp_finish("%lu checks; inline fast path %s", n_checked,
              gexi_rma_fastpath_v1->tm == mp_tm ? "live" : "off");
}
