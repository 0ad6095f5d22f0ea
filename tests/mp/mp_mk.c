/*
 * mp_mk.c: RMA to and from FILE-kind segments (memory kinds, issue 9).
 *
 * Every rank opens a scratch file (unlinked at once; the fd keeps it),
 * makes a GEX_MK_CLASS_FILE kind on it at file offset KIND_OFF, creates a
 * GEX-allocated FILE segment, binds it to a new RMA-only endpoint (index 1)
 * and publishes it over the primordial team; a client-allocated FILE segment
 * (an address range the test reserves with PROT_NONE) goes to endpoint 2.
 * EP 0 has an ordinary host segment (gex_Segment_Attach).  Then, with every
 * rank (self included) as the peer, through TM-pairs:
 *   A  host -> device put    pair(EP0, 1): my host buffer -> peer's area 0
 *   B  device -> host get    pair(EP0, 1): peer's area 0 -> my host buffer
 *   C  device -> device put  pair(EP1, 1): my area 0 -> peer's area 1
 *   D  device -> device get  pair(EP1, 1): peer's area 0 -> my area 2
 *   E  device -> host put    pair(EP1, 0): my area 0 -> peer's host segment
 *   F  host -> device get    pair(EP1, 0): peer's host segment -> my area 3
 *   G  value forms           pair(EP0, 1) put/get of 8 bytes
 *   H  client-allocated      pair(EP0, 2): host -> peer's EP 2 segment
 * each transfer split into a blocking, an NBI and an NB operation.  After
 * each phase the owner reads its file with pread and checks every byte
 * (host memory for E).  Device addresses are never loaded or stored: they
 * are PROT_NONE, so a stray direct copy would crash the test.
 * Variants (.mpt): PSHM on and off, small staging chunks (GEX_MK_CHUNK).
 */
#include "mp_util.h"
#include "mp_mk_util.h"
#include <gasnet_mk.h>
#include <sys/mman.h>

#define SLOT     73728u           /* bytes per (area, rank) */
#define XFER     70001u           /* bytes moved per (phase, peer) */
#define AREAS    4u
#define MAXRANKS 4u
#define KIND_OFF 4096u            /* the kind's first file byte */
#define SEG_LEN  (AREAS * MAXRANKS * SLOT)
#define CSEG_LEN 20000u           /* client-allocated segment (not page multiple) */

static int fd;
static char *dev;                 /* my EP 1 segment (device address: never dereferenced) */
static char *cdev;                /* my EP 2 segment (client-allocated) */
static void *peer_dev[MAXRANKS], *peer_cdev[MAXRANKS];
static char *host;                /* my EP 0 (host) segment */
static void *peer_host[MAXRANKS];

static inline char *slot(char *base, unsigned area, gex_Rank_t r)
{
    return base + ((size_t)area * MAXRANKS + r) * SLOT;
}

/* The bytes of my file behind device address p of segment `segbase`
 * (file base `fbase`). */
static void read_file(void *buf, const char *p, const char *segbase, size_t fbase, size_t n)
{
    ssize_t got = pread(fd, buf, n, (off_t)(fbase + (size_t)(p - segbase)));
    CHECK_EQ(got, (ssize_t)n);
}
static void check_file(const char *p, const char *segbase, size_t fbase, size_t n, uint32_t a,
                       uint32_t b)
{
    char *buf = malloc(n);
    CHECK(buf);
    read_file(buf, p, segbase, fbase, n);
    CHECK_PATTERN(buf, n, a, b);
    free(buf);
}

/* One transfer of XFER bytes as blocking [0,8), NBI [8,1008), NB rest. */
static void put3(gex_TM_t tm, gex_Rank_t r, void *dst, const void *src)
{
    char *d = dst;
    const char *s = src;
    CHECK_EQ(gex_RMA_PutBlocking(tm, r, d, s, 8, 0), 0);
    CHECK_EQ(gex_RMA_PutNBI(tm, r, d + 8, s + 8, 1000, GEX_EVENT_DEFER, 0), 0);
    gex_Event_t lc;
    gex_Event_t ev = gex_RMA_PutNB(tm, r, d + 1008, s + 1008, XFER - 1008, &lc, 0);
    gex_Event_Wait(lc);
    gex_Event_Wait(ev);
    gex_NBI_Wait(GEX_EC_ALL, 0);
}
static void get3(gex_TM_t tm, void *dst, gex_Rank_t r, void *src)
{
    char *d = dst, *s = src;
    CHECK_EQ(gex_RMA_GetBlocking(tm, d, r, s, 8, 0), 0);
    CHECK_EQ(gex_RMA_GetNBI(tm, d + 8, r, s + 8, 1000, 0), 0);
    gex_Event_t ev = gex_RMA_GetNB(tm, d + 1008, r, s + 1008, XFER - 1008, 0);
    gex_Event_Wait(ev);
    gex_NBI_Wait(GEX_EC_ALL, 0);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_MK", 0);
    CHECK(mp_n <= MAXRANKS);
    mp_attach(MAXRANKS * SLOT);
    host = gex_Segment_QueryAddr(mp_seg);

    mp_phase("FILE kind");
    gex_MK_t kind = mp_file_kind("mp-mk", KIND_OFF, &fd);

    mp_phase("segments and endpoints");
    gex_Segment_t seg, cseg;
    CHECK_OK(gex_Segment_Create(&seg, mp_client, NULL, SEG_LEN, kind, 0));
    CHECK_PTR_EQ(gex_Segment_QueryKind(seg), kind);
    CHECK_EQ(gex_Segment_QuerySize(seg), SEG_LEN);
    dev = gex_Segment_QueryAddr(seg);
    void *resv = mmap(NULL, 65536, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(resv != MAP_FAILED);
    cdev = (char *)resv + 100;    /* no alignment is required */
    CHECK_OK(gex_Segment_Create(&cseg, mp_client, cdev, CSEG_LEN, kind, 0));
    CHECK_PTR_EQ(gex_Segment_QueryAddr(cseg), cdev);
    CHECK_EQ(gex_Segment_QuerySize(cseg), CSEG_LEN);
    gex_EP_t ep1, ep2;
    CHECK_OK(gex_EP_Create(&ep1, mp_client, GEX_EP_CAPABILITY_RMA, 0));
    CHECK_OK(gex_EP_Create(&ep2, mp_client, GEX_EP_CAPABILITY_RMA, 0));
    CHECK_EQ(gex_EP_QueryIndex(ep1), 1);
    CHECK_EQ(gex_EP_QueryIndex(ep2), 2);
    CHECK_OK(gex_EP_BindSegment(ep1, seg, 0));
    CHECK_OK(gex_EP_BindSegment(ep2, cseg, 0));
    gex_EP_t eps[2] = { ep1, ep2 };
    CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, eps, 2, 0));
    const gex_TM_t h1 = gex_TM_Pair(mp_ep, 1), h2 = gex_TM_Pair(mp_ep, 2);
    const gex_TM_t d1 = gex_TM_Pair(ep1, 1), d0 = gex_TM_Pair(ep1, 0);
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        void *owner, *local = (void *)1;
        uintptr_t size = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(h1, r, &owner, &local, &size, 0));
        CHECK(local == NULL);     /* spec: only GEX_MK_HOST segments have a localaddr */
        CHECK_EQ(size, SEG_LEN);
        peer_dev[r] = owner;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(h2, r, &owner, &local, &size, 0));
        CHECK(local == NULL);
        CHECK_EQ(size, CSEG_LEN);
        peer_cdev[r] = owner;
        CHECK_OK(gex_Segment_QueryBound(mp_tm, r, &peer_host[r], NULL, NULL));
    }
    CHECK_PTR_EQ(peer_dev[mp_me], dev);
    CHECK_PTR_EQ(peer_cdev[mp_me], cdev);
    const size_t fbase = KIND_OFF, cfbase = KIND_OFF + SEG_LEN;
    char *buf = malloc(MAXRANKS * SLOT);
    CHECK(buf);

    mp_phase("A: host -> device put");
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        mp_fill(buf, XFER, mp_me, p);
        put3(h1, p, slot(peer_dev[p], 0, mp_me), buf);
    }
    mp_barrier();
    for (gex_Rank_t r = 0; r < mp_n; r++) check_file(slot(dev, 0, r), dev, fbase, XFER, r, mp_me);

    mp_phase("B: device -> host get");
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        memset(buf, 0, XFER);
        get3(h1, buf, p, slot(peer_dev[p], 0, mp_me));
        CHECK_PATTERN(buf, XFER, mp_me, p);
    }
    mp_barrier();

    mp_phase("C: device -> device put");
    /* my area 0 slot p holds pattern(p, me): it goes to p's area 1 slot me */
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        put3(d1, p, slot(peer_dev[p], 1, mp_me), slot(dev, 0, p));
    }
    mp_barrier();
    for (gex_Rank_t r = 0; r < mp_n; r++) check_file(slot(dev, 1, r), dev, fbase, XFER, mp_me, r);

    mp_phase("D: device -> device get");
    /* p's area 0 slot me holds pattern(me, p) */
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        get3(d1, slot(dev, 2, p), p, slot(peer_dev[p], 0, mp_me));
    }
    for (gex_Rank_t r = 0; r < mp_n; r++) check_file(slot(dev, 2, r), dev, fbase, XFER, mp_me, r);
    mp_barrier();

    mp_phase("E: device -> host put");
    /* my area 0 slot p (pattern(p, me)) -> p's host segment slot me */
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        put3(d0, p, (char *)peer_host[p] + (size_t)mp_me * SLOT, slot(dev, 0, p));
    }
    mp_barrier();
    for (gex_Rank_t r = 0; r < mp_n; r++) CHECK_PATTERN(host + (size_t)r * SLOT, XFER, mp_me, r);

    mp_phase("F: host -> device get");
    /* p's host slot me holds pattern(p, me) */
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        get3(d0, slot(dev, 3, p), p, (char *)peer_host[p] + (size_t)mp_me * SLOT);
    }
    for (gex_Rank_t r = 0; r < mp_n; r++) check_file(slot(dev, 3, r), dev, fbase, XFER, r, mp_me);
    mp_barrier();

    mp_phase("G: value forms");
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        char *d = slot(peer_dev[p], 1, mp_me) + XFER; /* spare bytes of the slot */
        gex_RMA_Value_t v = 0x1122334455667700ull + mp_me;
        CHECK_EQ(gex_RMA_PutBlockingVal(h1, p, d, v, 8, 0), 0);
        CHECK_EQ(gex_RMA_GetBlockingVal(h1, p, d, 8, 0), v);
        CHECK_EQ(gex_RMA_GetBlockingVal(d1, p, d, 8, 0), v); /* device-bound EP, host value */
    }
    mp_barrier();
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        uint64_t v;
        read_file(&v, slot(dev, 1, r) + XFER, dev, fbase, 8);
        CHECK_EQ(v, 0x1122334455667700ull + r);
    }

    mp_phase("H: client-allocated segment");
    const size_t cx = CSEG_LEN / MAXRANKS;
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        mp_fill(buf, cx, mp_me + 100, p);
        CHECK_EQ(gex_RMA_PutBlocking(h2, p, (char *)peer_cdev[p] + mp_me * cx, buf, cx, 0), 0);
    }
    mp_barrier();
    for (gex_Rank_t r = 0; r < mp_n; r++)
        check_file(cdev + r * cx, cdev, cfbase, cx, r + 100, mp_me);
    mp_barrier();

    mp_phase("teardown");
    gex_Segment_Destroy(cseg, 0);
    gex_Segment_Destroy(seg, 0);
    gex_MK_Destroy(kind, 0);
    munmap(resv, 65536);
    free(buf);
    mp_finish("FILE-kind segments: host/device puts and gets (blocking, NBI, NB, values), "
              "GEX- and client-allocated, data checked in the files");
}
