/*
 * mp_long_unbound.c: AM Longs whose destination is not in the segment bound
 * to the target endpoint (spec, AM NOTE 5 "Longs and Bound Segments": a Long
 * "must name a destination EP with a bound segment known to the
 * initiator").  Erroneous, but it must end the job with a message naming
 * the Long, never a SIGSEGV at the target (which release builds gave: the
 * ring-borne payload was copied to the bad address).  Debug builds stop the
 * initiator (libgex-am's check); other builds stop the target, where the
 * conduit copies a payload it could not map (smp, ofi).  Driven by
 * mp_long_unbound.sh, one mode per run, 2 ranks (rank 0 sends, rank 1 is
 * the target):
 *   unbound      RequestLong of 64 B to EP 1 of rank 1 (created, no segment
 *                bound), dest_addr 0x1000
 *   unbound-big  the same with 1 MiB (a Long in pieces)
 *   outside      RequestLong of 64 B to EP 0 of rank 1 at its segment's end
 *   reply        rank 1's Request handler replies a Long of 64 B to rank 0
 *                at dest_addr 0x1000
 *   valid        (control) Longs of 64 B and 1 MiB into the segment, Reply
 *                Longs back, and RMA gets into stack/heap memory (whose
 *                reference path delivers by Long Replies to memory outside
 *                any segment: the layers' own Longs are not checked): PASS
 */
#include "mp_util.h"

#define H_LONG  (MP_H_FIRST_FREE + 0)
#define H_ASK   (MP_H_FIRST_FREE + 1)
#define H_REPLY (MP_H_FIRST_FREE + 2)
#define SEG     (2u << 20)
#define BIG     (1u << 20)
#define BAD     ((void *)(uintptr_t)0x1000)   /* below mmap_min_addr: never mapped */

static atomic_uint got_long, got_reply;
static int reply_bad;
static char *reply_buf;

static void h_long(gex_Token_t t, void *buf, size_t n)
{
    (void)t, (void)buf, (void)n;
    atomic_fetch_add(&got_long, 1);
}
static void h_reply(gex_Token_t t, void *buf, size_t n)
{
    (void)t, (void)buf, (void)n;
    atomic_fetch_add(&got_reply, 1);
}
static void h_ask(gex_Token_t t)
{
    static char src[64];
    gex_AM_ReplyLong0(t, H_REPLY, src, sizeof src, reply_bad ? BAD : reply_buf, GEX_EVENT_NOW,
                      0);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_LONG_UNBOUND", 0);
    CHECK(argc == 2);
    const char *mode = argv[1];
    gex_EP_t ep1;
    CHECK_OK(gex_EP_Create(&ep1, mp_client, GEX_EP_CAPABILITY_ALL, 0));
    gex_AM_Entry_t h[] = {
        { H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 0, NULL, "long" },
        { H_ASK, (gex_AM_Fn_t)h_ask, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "ask" },
        { H_REPLY, (gex_AM_Fn_t)h_reply, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 0, NULL, "reply" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, 3));
    CHECK_OK(gex_EP_RegisterHandlers(ep1, h, 1));
    mp_attach(SEG);   /* its barrier: every handler is registered */
    CHECK(mp_n == 2);
    void *peer_seg = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, 1, &peer_seg, NULL, NULL, 0));
    /* rank 1 replies into rank 0's segment (as rank 0 owns it) */
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, 0, (void **)&reply_buf, NULL, NULL, 0));
    reply_bad = !strcmp(mode, "reply");
    static char src[BIG];
    mp_barrier();
    mp_phase(mode);
    if (mp_me == 0) {
        if (!strcmp(mode, "unbound") || !strcmp(mode, "unbound-big")) {
            const size_t n = strcmp(mode, "unbound") ? BIG : 64;
            gex_AM_RequestLong0(gex_TM_Pair(mp_ep, 1), 1, H_LONG, src, n, BAD, GEX_EVENT_NOW, 0);
        } else if (!strcmp(mode, "outside")) {
            gex_AM_RequestLong0(mp_tm, 1, H_LONG, src, 64, (char *)peer_seg + SEG,
                                GEX_EVENT_NOW, 0);
        } else if (!strcmp(mode, "reply")) {
            gex_AM_RequestShort0(mp_tm, 1, H_ASK, 0);
        } else {
            CHECK_MSG(!strcmp(mode, "valid"), "unknown mode %s", mode);
            CHECK_OK(gex_AM_RequestLong0(mp_tm, 1, H_LONG, src, 64, peer_seg, GEX_EVENT_NOW, 0));
            CHECK_OK(gex_AM_RequestLong0(mp_tm, 1, H_LONG, src, BIG, (char *)peer_seg + 4096,
                                         GEX_EVENT_NOW, 0));
            CHECK_OK(gex_AM_RequestShort0(mp_tm, 1, H_ASK, 0));
            MP_POLL_UNTIL(atomic_load(&got_reply) == 1);
            char local[256];
            char *heap = malloc(BIG);
            CHECK(heap != NULL);
            CHECK_OK(gex_RMA_GetBlocking(mp_tm, local, 1, peer_seg, sizeof local, 0));
            CHECK_OK(gex_RMA_GetBlocking(mp_tm, heap, 1, peer_seg, BIG, 0));
            free(heap);
        }
    }
    if (strcmp(mode, "valid")) {
        /* the job must end from the diagnostic; give it time, then fail */
        for (int i = 0; i < 20000; i++) {
            gasnet_AMPoll();
            usleep(1000);
        }
        CHECK_MSG(0, "%s: no diagnostic ended the job (Longs delivered: %u, replies: %u)", mode,
                  atomic_load(&got_long), atomic_load(&got_reply));
    }
    if (mp_me == 1) MP_POLL_UNTIL(atomic_load(&got_long) == 2);
    mp_finish("Longs into the segment and RMA gets into private memory");
}
