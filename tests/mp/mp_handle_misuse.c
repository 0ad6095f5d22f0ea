/*
 * mp_handle_misuse.c: one erroneous object query, chosen by argv[1], that a
 * debug build must end with a message naming the call and the argument
 * (driven by tests/mp/mp_handle_misuse.sh).  The queries have no error
 * return; before, these modes crashed (NULL) or read or wrote the wrong
 * object (a TM-pair in a gex_TM_ call: gex_TM_SetCData wrote into the
 * endpoint).  Rank 0 makes the call; the other ranks wait in a barrier that
 * only the end of the job releases.
 *
 * Debug builds (exit status 1 and a message):
 *   ep-null      gex_EP_QueryIndex(GEX_EP_INVALID)
 *   tm-null      gex_TM_QueryRank(GEX_TM_INVALID)
 *   seg-null     gex_Segment_QuerySize(GEX_SEGMENT_INVALID)
 *   client-null  gex_Client_QueryName(GEX_CLIENT_INVALID)
 *   tm-pair      gex_TM_QuerySize on a TM-pair
 *   pair-cdata   gex_TM_SetCData on a TM-pair
 *   seg-kind     gex_Segment_QueryAddr given an endpoint handle
 * Every build (exit status 0):
 *   pair-ok      gex_TM_QueryEP and gex_TM_QueryClient accept a TM-pair
 */
#include "mp_util.h"

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_HANDLE_MISUSE", 0);
    const char *mode = argc > 1 ? argv[1] : "";
    mp_barrier();
    if (!strcmp(mode, "pair-ok")) {
        gex_TM_t pair = gex_TM_Pair(mp_ep, 0);
        CHECK(gex_TM_QueryEP(pair) == mp_ep);
        CHECK(gex_TM_QueryClient(pair) == mp_client);
        mp_finish("TM-pair accepted by gex_TM_QueryEP and gex_TM_QueryClient");
    }
    if (mp_me != 0) {
        mp_barrier(); /* released only by the end of the job */
        gasnet_exit(4);
    }
    if (!strcmp(mode, "ep-null")) (void)gex_EP_QueryIndex(GEX_EP_INVALID);
    else if (!strcmp(mode, "tm-null")) (void)gex_TM_QueryRank(GEX_TM_INVALID);
    else if (!strcmp(mode, "seg-null")) (void)gex_Segment_QuerySize(GEX_SEGMENT_INVALID);
    else if (!strcmp(mode, "client-null")) (void)gex_Client_QueryName(GEX_CLIENT_INVALID);
    else if (!strcmp(mode, "tm-pair")) (void)gex_TM_QuerySize(gex_TM_Pair(mp_ep, 0));
    else if (!strcmp(mode, "pair-cdata")) gex_TM_SetCData(gex_TM_Pair(mp_ep, 0), &mode);
    else if (!strcmp(mode, "seg-kind")) (void)gex_Segment_QueryAddr((gex_Segment_t)mp_ep);
    else {
        fprintf(stderr, "mp_handle_misuse: unknown mode '%s'\n", mode);
        gasnet_exit(3);
    }
    fprintf(stderr, "mp_handle_misuse: %s returned\n", mode);
    gasnet_exit(2);
}
