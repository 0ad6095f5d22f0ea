/*
 * mp_mk_am.c: AM Long payloads into and out of FILE-kind segments (memory
 * kinds, issue 9; docs/memory-kinds.md "AM Long").
 *
 * Every rank makes a FILE kind on an unlinked scratch file, a GEX-allocated
 * FILE segment bound to a new endpoint (index 1, RMA and AM) and published;
 * EP 0 has a host segment.  The device segment holds one incoming slot per
 * sender (area 0) and a source area (area 1) written with pwrite before the
 * test.  Device addresses are PROT_NONE: a payload copied there directly
 * would crash the test.  With every rank (self included) as the peer, and
 * payload sizes from 0 to the Long maximum:
 *   Requests (fixed payload, and negotiated with client and library buffer):
 *     R1  pair(EP0, 1): host source -> peer's device slot
 *     R2  pair(EP1, 0): my device source -> peer's host slot
 *     R3  pair(EP1, 1): my device source -> peer's device slot
 *   The target's Long handler checks buf (== dest_addr) and nbytes, reads
 *   the bytes back (pread for device memory) and acknowledges; so it can
 *   only pass if it runs after every byte landed.  The sender waits for the
 *   acknowledgement before reusing a slot.
 *   Replies (a Short request asks the peer to reply with a Long):
 *     P1  pair(EP1, 0): peer's host buffer -> my device slot (fixed)
 *     P2  same, negotiated with the client's buffer
 *     P3  same, negotiated with a library buffer
 *     P4  pair(EP0, 1): peer's device source -> my host slot
 *     P5  pair(EP1, 1): peer's device source -> my device slot
 *   The Reply handler checks the same way and sets a flag.
 * Variants (.mpt): PSHM on and off, small staging chunks (GEX_MK_CHUNK).
 */
#include "mp_util.h"
#include "mp_mk_util.h"
#include <gasnet_mk.h>
#include <sys/mman.h>

#define MAXRANKS 4u
#define KIND_OFF 8192u
#define H_REQ (MP_H_FIRST_FREE + 0)  /* Long request: check, ack */
#define H_ACK (MP_H_FIRST_FREE + 1)  /* Short reply */
#define H_ASK (MP_H_FIRST_FREE + 2)  /* Short request: reply with a Long */
#define H_REP (MP_H_FIRST_FREE + 3)  /* Long reply: check, done */

enum { R1 = 1, R2, R3, P1 = 11, P2, P3, P4, P5 };

static int fd;
static size_t slot_len;            /* bytes per slot: the larger Long maximum, rounded */
static char *dev, *host;           /* my device (EP 1) and host (EP 0) segments */
static void *peer_dev[MAXRANKS], *peer_host[MAXRANKS];
static gex_EP_t ep1;
static atomic_uint acks, replies;
static size_t lib_long_max;        /* Long Reply library-buffer maximum */

static char *dev_slot(char *base, gex_Rank_t r) { return base + (size_t)r * slot_len; }
static char *dev_src(char *base) { return base + (size_t)MAXRANKS * slot_len; }

/* Pattern of a payload: from host memory it depends on the variant, from a
 * device source it is the source area's pattern (sender + 500, 7). */
static void pattern_of(int v, gex_Rank_t sender, size_t n, uint32_t *a, uint32_t *b)
{
    if (v == R2 || v == R3 || v == P4 || v == P5) {
        *a = sender + 500;
        *b = 7;
    } else {
        *a = sender * 1000u + (uint32_t)v;
        *b = (uint32_t)n;
    }
}

/* Checks n bytes at buf (device memory of my EP 1 segment when on_dev). */
static void check_landed(const char *buf, size_t n, int on_dev, uint32_t a, uint32_t b)
{
    if (!n) return;
    if (!on_dev) {
        CHECK_PATTERN(buf, n, a, b);
        return;
    }
    char *tmp = malloc(n);
    CHECK(tmp);
    ssize_t got = pread(fd, tmp, n, (off_t)(KIND_OFF + (size_t)(buf - dev)));
    CHECK_EQ(got, (ssize_t)n);
    CHECK_PATTERN(tmp, n, a, b);
    free(tmp);
}

static void h_req(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t sender, gex_AM_Arg_t v,
                  gex_AM_Arg_t want_n)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK(info.gex_is_long && info.gex_is_req);
    CHECK_EQ(info.gex_srcrank, (gex_Rank_t)sender);
    CHECK_EQ(n, (size_t)want_n);
    const int on_dev = v == R1 || v == R3;
    CHECK_PTR_EQ(buf, on_dev ? dev_slot(dev, sender) : host + (size_t)sender * slot_len);
    CHECK(info.gex_ep == (on_dev ? ep1 : mp_ep));
    uint32_t a, b;
    pattern_of((int)v, sender, n, &a, &b);
    check_landed(buf, n, on_dev, a, b);
    gex_AM_ReplyShort0(t, H_ACK, 0);
}

static void h_ack(gex_Token_t t)
{
    (void)t;
    atomic_fetch_add(&acks, 1);
}

/* Peer asks for a Reply Long of n bytes to dest, variant v. */
static void h_ask(gex_Token_t t, gex_AM_Arg_t n32, gex_AM_Arg_t v, gex_AM_Arg_t dlo,
                  gex_AM_Arg_t dhi)
{
    const size_t n = n32;
    void *dest = (void *)(uintptr_t)((uint64_t)(uint32_t)dhi << 32 | (uint32_t)dlo);
    uint32_t a, b;
    pattern_of((int)v, mp_me, n, &a, &b);
    if (v == P4 || v == P5) {  /* source in my device segment (the token's EP is EP 1) */
        CHECK_EQ(gex_AM_ReplyLong2(t, H_REP, dev_src(dev), n, dest, GEX_EVENT_NOW, 0, mp_me, v),
                 0);
        return;
    }
    if (v == P3) {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyLong(t, NULL, n, n, dest, NULL, 0, 2);
        CHECK(gex_AM_SrcDescSize(sd) == n);
        mp_fill(gex_AM_SrcDescAddr(sd), n, a, b);
        gex_AM_CommitReplyLong2(sd, H_REP, n, dest, mp_me, v);
        return;
    }
    char *src = calloc(1, n ? n : 1);
    CHECK(src);
    mp_fill(src, n, a, b);
    if (v == P1) {   /* no waiting in a handler: local completion NOW */
        CHECK_EQ(gex_AM_ReplyLong2(t, H_REP, src, n, dest, GEX_EVENT_NOW, 0, mp_me, v), 0);
    } else {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyLong(t, src, n, n, dest, GEX_EVENT_NOW, 0, 2);
        CHECK(gex_AM_SrcDescSize(sd) >= n);
        gex_AM_CommitReplyLong2(sd, H_REP, n, dest, mp_me, v);
    }
    free(src);
}

static void *want_rep_buf;
static size_t want_rep_n;
static void h_rep(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t replier, gex_AM_Arg_t v)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK(info.gex_is_long && !info.gex_is_req);
    CHECK_EQ(info.gex_srcrank, (gex_Rank_t)replier);
    CHECK_PTR_EQ(buf, want_rep_buf);
    CHECK_EQ(n, want_rep_n);
    const int on_dev = v != P4;
    CHECK(info.gex_ep == (on_dev ? ep1 : mp_ep));
    uint32_t a, b;
    pattern_of((int)v, replier, n, &a, &b);
    check_landed(buf, n, on_dev, a, b);
    atomic_fetch_add(&replies, 1);
}

static void register_on(gex_EP_t ep)
{
    gex_AM_Entry_t h[] = {
        { H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 3, NULL, "req" },
        { H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "ack" },
        { H_ASK, (gex_AM_Fn_t)h_ask, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 4, NULL, "ask" },
        { H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "rep" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(ep, h, sizeof h / sizeof h[0]));
}

/* The sizes a phase sends: 0, small, around the staging chunk, and max. */
static size_t sizes[8];
static unsigned nsizes;
static void make_sizes(size_t max)
{
    static const size_t s[] = { 0, 1, 77, 3000, 16300, 70001 };
    nsizes = 0;
    for (unsigned i = 0; i < sizeof s / sizeof s[0]; i++)
        if (s[i] < max) sizes[nsizes++] = s[i];
    sizes[nsizes++] = max;
}

/* One Request Long (mode 0 fixed, 1 negotiated client buffer, 2 library
 * buffer), then wait for its acknowledgement. */
static void request(int v, int mode, gex_Rank_t p, size_t n, const char *hostbuf)
{
    gex_TM_t tm = gex_TM_Pair(v == R1 ? mp_ep : ep1, v == R2 ? 0 : 1);
    void *dest = v == R2 ? (char *)peer_host[p] + (size_t)mp_me * slot_len
                         : dev_slot(peer_dev[p], mp_me);
    const void *src = v == R1 ? (const void *)hostbuf : dev_src(dev);
    unsigned before = atomic_load(&acks);
    if (mode == 0) {
        gex_Event_t lc;
        CHECK_EQ(gex_AM_RequestLong3(tm, p, H_REQ, src, n, dest, &lc, 0, mp_me, v, n), 0);
        gex_Event_Wait(lc);
    } else if (mode == 1) {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestLong(tm, p, src, n, n, dest, GEX_EVENT_NOW,
                                                        0, 3);
        CHECK(gex_AM_SrcDescSize(sd) >= n);
        gex_AM_CommitRequestLong3(sd, H_REQ, n, dest, mp_me, v, n);
    } else {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestLong(tm, p, NULL, n, n, NULL, NULL, 0, 3);
        CHECK(gex_AM_SrcDescSize(sd) == n);
        memcpy(gex_AM_SrcDescAddr(sd), hostbuf, n);
        gex_AM_CommitRequestLong3(sd, H_REQ, n, dest, mp_me, v, n);
    }
    MP_POLL_UNTIL(atomic_load(&acks) == before + 1);
}

static void ask(int v, gex_Rank_t p, size_t n)
{
    gex_TM_t tm = gex_TM_Pair(v == P4 ? mp_ep : ep1, v == P4 || v == P5 ? 1 : 0);
    want_rep_buf = v == P4 ? host + (size_t)p * slot_len : dev_slot(dev, p);
    want_rep_n = n;
    unsigned before = atomic_load(&replies);
    uintptr_t d = (uintptr_t)want_rep_buf;
    CHECK_EQ(gex_AM_RequestShort4(tm, p, H_ASK, 0, (gex_AM_Arg_t)n, v, (gex_AM_Arg_t)d,
                                  (gex_AM_Arg_t)((uint64_t)d >> 32)), 0);
    MP_POLL_UNTIL(atomic_load(&replies) == before + 1);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_MK_AM", 0);
    CHECK(mp_n <= MAXRANKS);
    const size_t max_req = gex_AM_MaxRequestLong(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 3);
    const size_t max_rep = gex_AM_MaxReplyLong(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 2);
    const size_t lib_req = gex_AM_MaxRequestLong(mp_tm, GEX_RANK_INVALID, NULL,
                                                 GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 3);
    lib_long_max = gex_AM_MaxReplyLong(mp_tm, GEX_RANK_INVALID, NULL,
                                       GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 2);
    slot_len = (max_req > max_rep ? max_req : max_rep) + 4096;
    slot_len = (slot_len + 4095) & ~(size_t)4095;
    mp_attach(MAXRANKS * slot_len);
    host = gex_Segment_QueryAddr(mp_seg);

    mp_phase("FILE kind, segment, endpoint");
    gex_MK_t kind = mp_file_kind("mp-mk-am", KIND_OFF, &fd);
    gex_Segment_t seg;
    CHECK_OK(gex_Segment_Create(&seg, mp_client, NULL, (MAXRANKS + 1) * slot_len, kind, 0));
    dev = gex_Segment_QueryAddr(seg);
    CHECK_OK(gex_EP_Create(&ep1, mp_client, GEX_EP_CAPABILITY_RMA | GEX_EP_CAPABILITY_AM, 0));
    CHECK_EQ(gex_EP_QueryIndex(ep1), 1);
    CHECK_OK(gex_EP_BindSegment(ep1, seg, 0));
    register_on(mp_ep);
    register_on(ep1);
    {   /* my device source area: pattern (me + 500, 7) */
        char *src = malloc(slot_len);
        CHECK(src);
        mp_fill(src, slot_len, mp_me + 500, 7);
        CHECK_EQ(pwrite(fd, src, slot_len, (off_t)(KIND_OFF + (size_t)(dev_src(dev) - dev))),
                 (ssize_t)slot_len);
        free(src);
    }
    CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, &ep1, 1, 0));   /* collective: handlers are in */
    mp_query_peer_segments(peer_dev, peer_host);
    mp_barrier();
    char *buf = malloc(slot_len);
    CHECK(buf);

    static const char *const mode_name[3] = { "fixed", "negotiated, client buffer",
                                              "negotiated, library buffer" };
    for (int mode = 0; mode < 3; mode++) {
        make_sizes(mode == 2 ? lib_req : max_req);
        for (int v = R1; v <= R3; v++) {
            if (mode == 2 && v != R1) continue;   /* a library buffer is host memory */
            static char name[96];
            snprintf(name, sizeof name, "Request Long R%d (%s)", v, mode_name[mode]);
            mp_phase(name);
            for (gex_Rank_t i = 0; i < mp_n; i++) {
                gex_Rank_t p = (mp_me + i) % mp_n;
                for (unsigned k = 0; k < nsizes; k++) {
                    uint32_t a, b;
                    pattern_of(v, mp_me, sizes[k], &a, &b);
                    if (v == R1) mp_fill(buf, sizes[k], a, b);
                    request(v, mode, p, sizes[k], buf);
                }
            }
            mp_barrier();
        }
    }

    for (int v = P1; v <= P5; v++) {
        static char name[64];
        snprintf(name, sizeof name, "Reply Long P%d", v - P1 + 1);
        mp_phase(name);
        make_sizes(v == P3 ? lib_long_max : max_rep);
        for (gex_Rank_t i = 0; i < mp_n; i++) {
            gex_Rank_t p = (mp_me + i) % mp_n;
            for (unsigned k = 0; k < nsizes; k++) ask(v, p, sizes[k]);
        }
        mp_barrier();
    }

    mp_phase("teardown");
    mp_barrier();
    free(buf);
    mp_finish("AM Long into and out of FILE segments: Requests and Replies, fixed and "
              "negotiated payload, sizes 0..%zu, data checked in the handlers", max_req);
}
