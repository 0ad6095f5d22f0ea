/*
 * mp_badinput.c: one erroneous call, chosen by argv[1], that must end the
 * job with a message naming the call and the argument (issue #28, "Bad
 * input"; driven by tests/mp/test_badinput.sh).  These are the gaps the
 * other diagnostic tests (test_rma_bounds.sh, mp_npam_misuse.sh, ...) left:
 * fixed-payload AMs, NULL buffers, atomics, collectives, calls before init.
 * Every check here runs in release builds too (docs/reliability.md).
 *
 * Before gex_Client_Init (every rank makes the call):
 *   pre-ad-create  gex_AD_Create
 *   pre-am         gex_AM_RequestShort0 on GEX_TM_INVALID
 *   pre-rma        gex_RMA_PutBlocking on GEX_TM_INVALID
 * After init, rank 0 makes the call, the others wait in a barrier only the
 * end of the job releases:
 *   am-rank        RequestShort to rank == team size
 *   am-medium-big  RequestMedium of gex_AM_MaxRequestMedium() + 1 bytes
 *   am-unreg       RequestShort to an index the peer never registered (the
 *                  peer's handler dispatch must refuse it)
 *   am-unreg-reply a Request handler replies with an unregistered index
 *   am-nargs       RequestShort0 to a handler registered with 1 argument
 *   am-category    RequestMedium1 to a handler registered as a Short
 *   rma-null-src   PutBlocking of 8 bytes from NULL
 *   rma-null-dest  GetNBI of 8 bytes into NULL
 *   ad-op-set      FADD on a domain created for SET and GET only
 *   ad-rank        an atomic on rank == team size
 *   ad-dt          gex_AD_OpNB_U32 on a U64 domain
 *   coll-root      BroadcastNB with root == team size
 *   coll-null      BroadcastNB into NULL with nbytes 8
 * Debug builds only (a segment lookup per operation, docs/reliability.md):
 *   ad-outside     an atomic on the 8 bytes just past the peer's segment
 *   ad-my-rank     GEX_FLAG_AD_MY_RANK on an atomic that targets the peer
 */
#include "mp_util.h"
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>

#define H_SHORT   (MP_H_FIRST_FREE + 0)
#define H_UNREG   200 /* never registered by anyone */

static void h_short(gex_Token_t t, gex_AM_Arg_t a)
{
    if (a) gex_AM_ReplyShort0(t, H_UNREG, 0); /* am-unreg-reply */
}

/* Calls before init: rank 0 and 1 both make it (no rank is known yet). */
static int before_init(const char *mode)
{
    char buf[8] = { 0 };
    if (!strcmp(mode, "pre-ad-create")) {
        gex_AD_t ad;
        gex_AD_Create(&ad, GEX_TM_INVALID, GEX_DT_U64, GEX_OP_SET, 0);
    } else if (!strcmp(mode, "pre-am")) {
        gex_AM_RequestShort0(GEX_TM_INVALID, 0, H_SHORT, 0);
    } else if (!strcmp(mode, "pre-rma")) {
        gex_RMA_PutBlocking(GEX_TM_INVALID, 0, buf, buf, 8, 0);
    } else {
        return 0;
    }
    fprintf(stderr, "mp_badinput: %s was not caught\n", mode);
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (before_init(mode)) return 3;
    mp_init(&argc, &argv, "MP_BADINPUT", 0);
    mp_prog = "mp_badinput";
    const uintptr_t size = 64 * 1024;
    mp_attach(size);
    gex_AM_Entry_t e = { H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST,
                         1, NULL, "h_short" };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, &e, 1));
    const gex_Rank_t peer = mp_n > 1 ? 1 : 0;
    void *owner = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, peer, &owner, NULL, NULL, 0));
    gex_AD_t ad = GEX_AD_INVALID;
    if (!strncmp(mode, "ad-", 3)) /* collective: every rank creates it */
        gex_AD_Create(&ad, mp_tm, GEX_DT_U64, GEX_OP_SET | GEX_OP_GET, 0);
    mp_barrier();
    if (mp_me != 0) {
        mp_barrier(); /* released only by the end of the job */
        gasnet_exit(4);
    }
    static char buf[1 << 20];
    uint64_t res;
    if (!strcmp(mode, "am-rank")) {
        gex_AM_RequestShort1(mp_tm, mp_n, H_SHORT, 0, 0);
    } else if (!strcmp(mode, "am-medium-big")) {
        const size_t max = gex_AM_MaxRequestMedium(mp_tm, peer, GEX_EVENT_NOW, 0, 0);
        CHECK(max + 1 <= sizeof buf);
        gex_AM_RequestMedium0(mp_tm, peer, H_SHORT, buf, max + 1, GEX_EVENT_NOW, 0);
    } else if (!strncmp(mode, "am-unreg", 8) || !strcmp(mode, "am-nargs") ||
               !strcmp(mode, "am-category")) { /* caught at the target */
        if (!strcmp(mode, "am-unreg")) gex_AM_RequestShort0(mp_tm, peer, H_UNREG, 0);
        else if (!strcmp(mode, "am-nargs")) gex_AM_RequestShort0(mp_tm, peer, H_SHORT, 0);
        else if (!strcmp(mode, "am-category"))
            gex_AM_RequestMedium1(mp_tm, peer, H_SHORT, buf, 8, GEX_EVENT_NOW, 0, 0);
        else gex_AM_RequestShort1(mp_tm, peer, H_SHORT, 0, 1);
        for (int i = 0; i < 20000; i++) { /* the fatal error ends the job meanwhile */
            gasnet_AMPoll();
            usleep(100);
        }
    } else if (!strcmp(mode, "rma-null-src")) {
        gex_RMA_PutBlocking(mp_tm, peer, owner, NULL, 8, 0);
    } else if (!strcmp(mode, "rma-null-dest")) {
        gex_RMA_GetNBI(mp_tm, NULL, peer, owner, 8, 0);
        gex_NBI_Wait(GEX_EC_GET, 0);
    } else if (!strcmp(mode, "ad-op-set")) {
        gex_AD_OpNBI_U64(ad, &res, peer, owner, GEX_OP_FADD, 1, 0, 0);
    } else if (!strcmp(mode, "ad-rank")) {
        gex_AD_OpNBI_U64(ad, NULL, mp_n, owner, GEX_OP_SET, 1, 0, 0);
    } else if (!strcmp(mode, "ad-dt")) {
        uint32_t r32;
        gex_Event_Wait(gex_AD_OpNB_U32(ad, &r32, peer, owner, GEX_OP_GET, 0, 0, 0));
    } else if (!strcmp(mode, "ad-outside")) {
        gex_AD_OpNBI_U64(ad, NULL, peer, (char *)owner + size, GEX_OP_SET, 1, 0, 0);
        gex_NBI_Wait(GEX_EC_RMW, 0);
    } else if (!strcmp(mode, "ad-my-rank")) {
        gex_AD_OpNBI_U64(ad, NULL, peer, owner, GEX_OP_SET, 1, 0, GEX_FLAG_AD_MY_RANK);
        gex_NBI_Wait(GEX_EC_RMW, 0);
    } else if (!strcmp(mode, "coll-root")) {
        gex_Event_Wait(gex_Coll_BroadcastNB(mp_tm, mp_n, buf, buf, 8, 0));
    } else if (!strcmp(mode, "coll-null")) {
        gex_Event_Wait(gex_Coll_BroadcastNB(mp_tm, 0, NULL, buf, 8, 0));
    } else {
        fprintf(stderr, "mp_badinput: unknown mode '%s'\n", mode);
        gasnet_exit(2);
    }
    fprintf(stderr, "mp_badinput: %s was not caught\n", mode);
    gasnet_exit(3);
}
