/*
 * mp_mk_vis.c: VIS calls into and out of FILE-kind segments (memory kinds,
 * issue 9; docs/memory-kinds.md "VIS").
 *
 * Every rank makes a FILE kind on an unlinked scratch file, a FILE segment
 * bound to a new endpoint (index 1) and published; EP 0 has a host segment.
 * Device addresses are PROT_NONE: a direct copy would crash the test.  With
 * every rank (self included) as the peer, three combinations:
 *   c0  pair(EP0, 1): local host memory, peer device segment
 *   c1  pair(EP1, 0): local device segment, peer host segment
 *   c2  pair(EP1, 1): device on both sides
 * and for each, Vector, Indexed and Strided forms, each Blocking, NBI and
 * NB: a put from a contiguous local region to K pieces of L bytes, S apart,
 * in the peer's region (the owner then checks every piece, pread for device
 * memory), then a get of those pieces back into a cleared local region
 * (checked the same way).
 * Variants (.mpt): PSHM on and off, GEX_FORCE_REFERENCE=vis.
 */
#include "mp_util.h"
#include "mp_mk_util.h"
#include <gasnet_mk.h>
#include <gasnet_vis.h>

#define MAXRANKS 4u
#define KIND_OFF 4096u
#define K 10u                      /* pieces */
#define L 1000u                    /* bytes per piece */
#define S 1500u                    /* piece stride at the peer */
#define REG 16384u                 /* one region (>= K * S) */
#define NJ 9u                      /* (form, sync) pairs */
#define AREA ((size_t)MAXRANKS * NJ * REG)

static int fd;
static char *dev, *host;           /* dev: [peer-side area][local area]; host: peer-side area */
static void *peer_dev[MAXRANKS], *peer_host[MAXRANKS];

/* The region of sender r, pair j, in a peer-side area. */
static char *region(char *area, gex_Rank_t r, unsigned j)
{
    return area + ((size_t)r * NJ + j) * REG;
}
static uint32_t pat_a(unsigned c, gex_Rank_t sender, unsigned j)
{
    return sender * 100u + c * 10u + j;
}

static void dev_write(const char *p, const void *buf, size_t n)
{
    CHECK_EQ(pwrite(fd, buf, n, (off_t)(KIND_OFF + (size_t)(p - dev))), (ssize_t)n);
}
static void dev_read(void *buf, const char *p, size_t n)
{
    CHECK_EQ(pread(fd, buf, n, (off_t)(KIND_OFF + (size_t)(p - dev))), (ssize_t)n);
}

/* One VIS transfer between a contiguous local region `loc` and the K
 * pieces at `peer`: form f (0 vector, 1 indexed, 2 strided), sync s
 * (0 blocking, 1 NBI, 2 NB). */
static void vis(int is_put, unsigned f, unsigned s, gex_TM_t tm, gex_Rank_t p, char *loc,
                char *peer)
{
    gex_Memvec_t pv[K], lv = { loc, (size_t)K * L };
    void *pi[K], *li = loc;
    for (unsigned i = 0; i < K; i++) {
        pv[i].gex_addr = peer + (size_t)i * S;
        pv[i].gex_len = L;
        pi[i] = peer + (size_t)i * S;
    }
    const ptrdiff_t pstr[1] = { S }, lstr[1] = { L };
    const size_t count[1] = { K };
    gex_Event_t ev = GEX_EVENT_INVALID;
    int rc = 0;
#define CALL3(pre, put_args, get_args) do { \
        if (is_put) { \
            if (s == 0) rc = pre##PutBlocking put_args; \
            else if (s == 1) rc = pre##PutNBI put_args; \
            else ev = pre##PutNB put_args; \
        } else { \
            if (s == 0) rc = pre##GetBlocking get_args; \
            else if (s == 1) rc = pre##GetNBI get_args; \
            else ev = pre##GetNB get_args; \
        } \
    } while (0)
    if (f == 0)
        CALL3(gex_VIS_Vector, (tm, p, K, pv, 1, &lv, 0), (tm, 1, &lv, p, K, pv, 0));
    else if (f == 1)
        CALL3(gex_VIS_Indexed, (tm, p, K, pi, L, 1, &li, (size_t)K * L, 0),
              (tm, 1, &li, (size_t)K * L, p, K, pi, L, 0));
    else
        CALL3(gex_VIS_Strided, (tm, p, peer, pstr, loc, lstr, L, count, 1, 0),
              (tm, loc, lstr, p, peer, pstr, L, count, 1, 0));
#undef CALL3
    CHECK_EQ(rc, 0);
    if (s == 2) gex_Event_Wait(ev);
    if (s == 1) gex_NBI_Wait(is_put ? GEX_EC_PUT : GEX_EC_GET, 0);
}

/* The K pieces at `peer` (mine: device memory when on_dev) hold the stream
 * pattern (a, b). */
static void check_pieces(char *pieces, int on_dev, uint32_t a, uint32_t b)
{
    char got[K * L];
    for (unsigned i = 0; i < K; i++) {
        if (on_dev) dev_read(got + (size_t)i * L, pieces + (size_t)i * S, L);
        else memcpy(got + (size_t)i * L, pieces + (size_t)i * S, L);
    }
    CHECK_PATTERN(got, (size_t)K * L, a, b);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_MK_VIS", 0);
    CHECK(mp_n <= MAXRANKS);
    mp_attach(AREA);
    host = gex_Segment_QueryAddr(mp_seg);

    mp_phase("FILE kind, segment, endpoint");
    gex_MK_t kind = mp_file_kind("mp-mk-vis", KIND_OFF, &fd);
    gex_Segment_t seg;
    CHECK_OK(gex_Segment_Create(&seg, mp_client, NULL, 2 * AREA, kind, 0));
    dev = gex_Segment_QueryAddr(seg);
    gex_EP_t ep1;
    CHECK_OK(gex_EP_Create(&ep1, mp_client, GEX_EP_CAPABILITY_RMA | GEX_EP_CAPABILITY_VIS, 0));
    CHECK_OK(gex_EP_BindSegment(ep1, seg, 0));
    CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, &ep1, 1, 0));
    mp_query_peer_segments(peer_dev, peer_host);
    char *locarea = dev + AREA;                 /* my device-side local regions */
    char *hbuf = malloc(AREA), *tmp = malloc(REG);
    CHECK(hbuf && tmp);
    mp_barrier();

    static const char *const cname[3] = { "host -> device", "device -> host",
                                          "device -> device" };
    for (unsigned c = 0; c < 3; c++) {
        const gex_TM_t tm = gex_TM_Pair(c == 0 ? mp_ep : ep1, c == 1 ? 0 : 1);
        const int loc_dev = c != 0, peer_dev_side = c != 1;
        static char name[64];
        snprintf(name, sizeof name, "c%u puts (%s)", c, cname[c]);
        mp_phase(name);
        for (gex_Rank_t i = 0; i < mp_n; i++) {
            gex_Rank_t p = (mp_me + i) % mp_n;
            char *parea = peer_dev_side ? (char *)peer_dev[p] : (char *)peer_host[p];
            for (unsigned j = 0; j < NJ; j++) {
                char *loc = loc_dev ? region(locarea, p, j) : region(hbuf, p, j);
                mp_fill(tmp, (size_t)K * L, pat_a(c, mp_me, j), p);
                if (loc_dev) dev_write(loc, tmp, (size_t)K * L);
                else memcpy(loc, tmp, (size_t)K * L);
                vis(1, j / 3, j % 3, tm, p, loc, region(parea, mp_me, j));
            }
        }
        mp_barrier();
        for (gex_Rank_t r = 0; r < mp_n; r++)
            for (unsigned j = 0; j < NJ; j++)
                check_pieces(region(peer_dev_side ? dev : host, r, j), peer_dev_side,
                             pat_a(c, r, j), mp_me);
        mp_barrier();

        snprintf(name, sizeof name, "c%u gets (%s)", c, cname[c]);
        mp_phase(name);
        for (gex_Rank_t i = 0; i < mp_n; i++) {
            gex_Rank_t p = (mp_me + i) % mp_n;
            char *parea = peer_dev_side ? (char *)peer_dev[p] : (char *)peer_host[p];
            for (unsigned j = 0; j < NJ; j++) {
                char *loc = loc_dev ? region(locarea, p, j) : region(hbuf, p, j);
                memset(tmp, 0, REG);
                if (loc_dev) dev_write(loc, tmp, (size_t)K * L);
                else memset(loc, 0, (size_t)K * L);
                /* the peer's pieces of my put hold (c, me, j) / p */
                vis(0, j / 3, j % 3, tm, p, loc, region(parea, mp_me, j));
                if (loc_dev) dev_read(tmp, loc, (size_t)K * L);
                else memcpy(tmp, loc, (size_t)K * L);
                CHECK_PATTERN(tmp, (size_t)K * L, pat_a(c, mp_me, j), p);
            }
        }
        mp_barrier();
    }

    mp_phase("teardown");
    free(hbuf);
    free(tmp);
    mp_finish("VIS Vector/Indexed/Strided puts and gets (blocking, NBI, NB) into and out of "
              "FILE segments, data checked in the files");
}
