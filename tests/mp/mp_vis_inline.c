/*
 * mp_vis_inline.c: the one-piece Vector and Indexed calls inlined by
 * gex/vis_fastpath.h (issue 27), against the library's.
 *
 *  1. Data: every rank puts to and gets from every rank one piece of 1, 7,
 *     8, 64, 100 and 1000 bytes through all 12 one-piece forms (Vector and
 *     Indexed, Put and Get, NB/NBI/Blocking), inline and as
 *     (gex_VIS_...)(...), checked through the other path and by the owner
 *     after a barrier.  Where the RMA table maps the target (the inline
 *     copy may run), an NB call returns GEX_EVENT_INVALID.
 *  2. Peer completion: with a handler armed (gex_VIS_SetPeerCompletionHandler)
 *     gexi_vis_pc_armed_v1 counts this thread, a one-piece put steps aside
 *     and the library runs the handler at the target exactly once; the put
 *     consumes the arming (count back to 0), and disarming also counts down.
 *  3. Two pieces, different lengths and a flag still go to the library
 *     and still move the right bytes.
 */
#include "mp_util.h"
#include <gasnet_vis.h>

#define SLOT 4096
#define SEGSZ ((uintptr_t)SLOT * 64 + 65536)
enum { H_PC = MP_H_FIRST_FREE };

static void *seg_owner[64];
static unsigned long n_checked;
static atomic_uint pc_seen;

/* Rank r's slot for writer w, at offset off. */
static char *slot(gex_Rank_t r, gex_Rank_t w, size_t off)
{
    return (char *)seg_owner[r] + (size_t)SLOT * w + off;
}

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(seed * 31u + i * 7u + 1u);
}

static int mapped_here(gex_Rank_t r, void *addr, size_t n)
{
#ifdef GEXI_FASTPATH_INLINE
    return gexi_fastpath_addr(mp_tm, r, addr, n) != NULL;
#else
    (void)r; (void)addr; (void)n;
    return 0;
#endif
}

/* One transfer of n bytes to/from rank r through form f (0..11; even: the
 * inline macro, odd: the library's function). */
static void one(int f, gex_Rank_t r, char *remote, unsigned char *local, size_t n)
{
    gex_Memvec_t rv = { remote, n }, lv = { local, n };
    void *ri[1] = { remote }, *li[1] = { local };
    const int ool = f & 1, idx = (f >> 1) & 1, put = (f >> 2) & 1;
    const int sync = f >> 3; /* 0 NB, 1 NBI/Blocking alternately by size */
    gex_Event_t ev = GEX_EVENT_INVALID;
    if (put && !idx) {
        if (sync == 0) ev = ool ? (gex_VIS_VectorPutNB)(mp_tm, r, 1, &rv, 1, &lv, 0)
                                : gex_VIS_VectorPutNB(mp_tm, r, 1, &rv, 1, &lv, 0);
        else if (n & 1) CHECK(!(ool ? (gex_VIS_VectorPutNBI)(mp_tm, r, 1, &rv, 1, &lv, 0)
                                     : gex_VIS_VectorPutNBI(mp_tm, r, 1, &rv, 1, &lv, 0)));
        else CHECK(!(ool ? (gex_VIS_VectorPutBlocking)(mp_tm, r, 1, &rv, 1, &lv, 0)
                         : gex_VIS_VectorPutBlocking(mp_tm, r, 1, &rv, 1, &lv, 0)));
    } else if (put) {
        if (sync == 0) ev = ool ? (gex_VIS_IndexedPutNB)(mp_tm, r, 1, ri, n, 1, li, n, 0)
                                : gex_VIS_IndexedPutNB(mp_tm, r, 1, ri, n, 1, li, n, 0);
        else if (n & 1) CHECK(!(ool ? (gex_VIS_IndexedPutNBI)(mp_tm, r, 1, ri, n, 1, li, n, 0)
                                     : gex_VIS_IndexedPutNBI(mp_tm, r, 1, ri, n, 1, li, n, 0)));
        else CHECK(!(ool ? (gex_VIS_IndexedPutBlocking)(mp_tm, r, 1, ri, n, 1, li, n, 0)
                         : gex_VIS_IndexedPutBlocking(mp_tm, r, 1, ri, n, 1, li, n, 0)));
    } else if (!idx) {
        if (sync == 0) ev = ool ? (gex_VIS_VectorGetNB)(mp_tm, 1, &lv, r, 1, &rv, 0)
                                : gex_VIS_VectorGetNB(mp_tm, 1, &lv, r, 1, &rv, 0);
        else if (n & 1) CHECK(!(ool ? (gex_VIS_VectorGetNBI)(mp_tm, 1, &lv, r, 1, &rv, 0)
                                     : gex_VIS_VectorGetNBI(mp_tm, 1, &lv, r, 1, &rv, 0)));
        else CHECK(!(ool ? (gex_VIS_VectorGetBlocking)(mp_tm, 1, &lv, r, 1, &rv, 0)
                         : gex_VIS_VectorGetBlocking(mp_tm, 1, &lv, r, 1, &rv, 0)));
    } else {
        if (sync == 0) ev = ool ? (gex_VIS_IndexedGetNB)(mp_tm, 1, li, n, r, 1, ri, n, 0)
                                : gex_VIS_IndexedGetNB(mp_tm, 1, li, n, r, 1, ri, n, 0);
        else if (n & 1) CHECK(!(ool ? (gex_VIS_IndexedGetNBI)(mp_tm, 1, li, n, r, 1, ri, n, 0)
                                     : gex_VIS_IndexedGetNBI(mp_tm, 1, li, n, r, 1, ri, n, 0)));
        else CHECK(!(ool ? (gex_VIS_IndexedGetBlocking)(mp_tm, 1, li, n, r, 1, ri, n, 0)
                         : gex_VIS_IndexedGetBlocking(mp_tm, 1, li, n, r, 1, ri, n, 0)));
    }
    if (sync == 0 && !ool && mapped_here(r, remote, n))
        CHECK_MSG(ev == GEX_EVENT_INVALID, "inline one-piece %s %s NB to rank %u returned an "
                  "event", idx ? "Indexed" : "Vector", put ? "Put" : "Get", (unsigned)r);
    gex_Event_Wait(ev);
    gex_NBI_Wait(GEX_EC_ALL, 0);
}

static void data(void)
{
    mp_phase("one piece, every form");
    static const size_t sizes[] = { 1, 7, 8, 64, 100, 1000 };
    unsigned char src[1000], back[1000];
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            const size_t n = sizes[k];
            for (int f = 0; f < 16; f++) {
                char *remote = slot(r, mp_me, 16 + (size_t)f);
                const unsigned seed = (unsigned)(r * 131 + k * 17 + (size_t)f + mp_me * 7);
                if ((f >> 2) & 1) {   /* put, checked by a library get */
                    fill(src, n, seed);
                    one(f, r, remote, src, n);
                    memset(back, 0, n);
                    CHECK(!(gex_RMA_GetBlocking)(mp_tm, back, r, remote, n, 0));
                } else {              /* get of what a library put wrote */
                    fill(src, n, seed);
                    CHECK(!(gex_RMA_PutBlocking)(mp_tm, r, remote, src, n, 0));
                    memset(back, 0, n);
                    one(f, r, remote, back, n);
                }
                CHECK_MSG(!memcmp(src, back, n), "rank %u, %zu bytes, form %d: data differs",
                          (unsigned)r, n, f);
                n_checked++;
            }
        }
    }
    /* the last put of each writer, seen by the owner in its own memory */
    unsigned char mine[64];
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        fill(mine, sizeof mine, 1000u + mp_me);
        void *ri[1] = { slot(r, mp_me, 2048) }, *li[1] = { mine };
        CHECK(!gex_VIS_IndexedPutBlocking(mp_tm, r, 1, ri, sizeof mine, 1, li, sizeof mine, 0));
    }
    mp_barrier();
    for (gex_Rank_t w = 0; w < mp_n; w++) {
        fill(mine, sizeof mine, 1000u + w);
        CHECK_MSG(!memcmp(slot(mp_me, w, 2048), mine, sizeof mine),
                  "the owner sees another value from rank %u", (unsigned)w);
        n_checked++;
    }
    mp_barrier();
}

static void h_pc(gex_Token_t t, void *buf, size_t nbytes)
{
    (void)t;
    CHECK_EQ(nbytes, sizeof(unsigned));
    unsigned from;
    memcpy(&from, buf, sizeof from);
    CHECK(from < mp_n);
    atomic_fetch_add(&pc_seen, 1);
}

static void peer_completion(void)
{
    mp_phase("peer completion");
    unsigned char src[64];
    fill(src, sizeof src, 5);
    const gex_Rank_t r = (mp_me + 1) % mp_n;
    unsigned from = mp_me;
    for (int rep = 0; rep < 3; rep++) {
        CHECK_EQ(__atomic_load_n(&gexi_vis_pc_armed_v1, __ATOMIC_RELAXED), 0);
        gex_VIS_SetPeerCompletionHandler(H_PC, &from, sizeof from, 0);
        /* only this thread in this process: exactly one */
        CHECK_EQ(__atomic_load_n(&gexi_vis_pc_armed_v1, __ATOMIC_RELAXED), 1);
        gex_VIS_SetPeerCompletionHandler(H_PC, &from, sizeof from, 0);   /* re-arming: still 1 */
        CHECK_EQ(__atomic_load_n(&gexi_vis_pc_armed_v1, __ATOMIC_RELAXED), 1);
        void *ri[1] = { slot(r, mp_me, 3000) }, *li[1] = { src };
        CHECK(!gex_VIS_IndexedPutNBI(mp_tm, r, 1, ri, sizeof src, 1, li, sizeof src, 0));
        gex_NBI_Wait(GEX_EC_ALL, 0);
        CHECK_EQ(__atomic_load_n(&gexi_vis_pc_armed_v1, __ATOMIC_RELAXED), 0);
        /* armed and disarmed: counted down, the next put notifies nobody */
        gex_VIS_SetPeerCompletionHandler(H_PC, &from, sizeof from, 0);
        gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0);
        CHECK_EQ(__atomic_load_n(&gexi_vis_pc_armed_v1, __ATOMIC_RELAXED), 0);
        CHECK(!gex_VIS_IndexedPutBlocking(mp_tm, r, 1, ri, sizeof src, 1, li, sizeof src, 0));
        n_checked += 6;
    }
    MP_POLL_UNTIL(atomic_load(&pc_seen) >= 3);
    mp_barrier();
    CHECK_MSG(atomic_load(&pc_seen) == 3, "peer-completion handler ran %u times, want 3",
              atomic_load(&pc_seen));
    n_checked++;
}

/* What the inline path leaves to the library still moves the right bytes. */
static void library_cases(void)
{
    mp_phase("left to the library");
    unsigned char a[32], b[32], back[64];
    fill(a, sizeof a, 9);
    fill(b, sizeof b, 10);
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        char *remote = slot(r, mp_me, 3200);
        /* two pieces on the source side, one on the target */
        gex_Memvec_t rv = { remote, 64 }, lv[2] = { { a, 32 }, { b, 32 } };
        CHECK(!gex_VIS_VectorPutBlocking(mp_tm, r, 1, &rv, 2, lv, 0));
        CHECK(!(gex_RMA_GetBlocking)(mp_tm, back, r, remote, 64, 0));
        CHECK(!memcmp(back, a, 32) && !memcmp(back + 32, b, 32));
        /* a flag: ENABLE_LEAF_LC on an NB put */
        void *ri[1] = { remote }, *li[1] = { b };
        gex_Event_t ev = gex_VIS_IndexedPutNB(mp_tm, r, 1, ri, 32, 1, li, 32,
                                              GEX_FLAG_ENABLE_LEAF_LC);
        gex_Event_Wait(ev);
        CHECK(!(gex_RMA_GetBlocking)(mp_tm, back, r, remote, 32, 0));
        CHECK(!memcmp(back, b, 32));
        n_checked += 2;
    }
    mp_barrier();
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_VIS_INLINE", 0);
    CHECK(mp_n <= 64);
    gex_AM_Entry_t h[] = {
        { H_PC, (gex_AM_Fn_t)h_pc, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "h_pc" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, 1));
    mp_attach(SEGSZ);
    void *mine = gex_Segment_QueryAddr(mp_seg);
    mp_allgather(&mine, sizeof mine, seg_owner);
    data();
    peer_completion();
    library_cases();
#ifdef GEXI_FASTPATH_INLINE
    const int live = gexi_rma_fastpath_v1->tm == mp_tm;
#else
    const int live = 0;
#endif
    mp_finish("%lu checks; inline one-piece VIS %s", n_checked, live ? "live" : "off");
}
