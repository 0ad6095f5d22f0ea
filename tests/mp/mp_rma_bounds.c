/*
 * mp_rma_bounds.c: one erroneous RMA call, chosen by argv[1], that must end
 * the job with a diagnostic (driven by tests/mp/test_rma_bounds.sh, which
 * checks the exit status and the message).  Rank 0 makes the call against
 * rank 1 (or itself); the other ranks wait in a barrier that only the end
 * of the job releases.
 *
 * Debug builds only (remote ranges are checked only there):
 *   put-end     PutBlocking of 16 bytes starting 8 bytes before the end of
 *               the peer's segment
 *   get-start   GetNB starting one byte before the peer's segment
 *   self-end    PutNBI one byte past the end of our own segment
 *   val-end     PutBlockingVal of 8 bytes, 4 bytes before the end
 *   no-segment  PutBlocking through gex_TM_Pair(ep, 5): no EP 5 segment
 *   am-long-end RequestLong of 16 bytes starting 8 bytes before the end of
 *               the peer's segment (spec: AM NOTE 5)
 *   am-long-no-segment  RequestLong through gex_TM_Pair(ep, 5)
 * Every build:
 *   bad-rank    rank == team size
 *   nbi-lc-ptr  PutNBI with a gex_Event_t pointer for lc_opt
 *   nb-group    PutNB with GEX_EVENT_GROUP
 *   seg-offset  GEX_FLAG_PEER_SEG_OFFSET (not implemented)
 *   val-size    PutNBIVal with nbytes 9
 */
#include "mp_util.h"

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_RMA_BOUNDS", 0);
    const char *mode = argc > 1 ? argv[1] : "";
    const uintptr_t size = 64 * 1024;
    mp_attach(size);
    gex_Rank_t peer = mp_n > 1 ? 1 : 0;
    void *owner = NULL, *mine = gex_Segment_QueryAddr(mp_seg);
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, peer, &owner, NULL, NULL, 0));
    char buf[64] = { 0 };
    char *end = (char *)owner + size;
    mp_barrier();
    if (mp_me != 0) {
        mp_barrier(); /* released only by the end of the job */
        gasnet_exit(4);
    }
    gex_Event_t lc;
    if (!strcmp(mode, "put-end")) {
        gex_RMA_PutBlocking(mp_tm, peer, end - 8, buf, 16, 0);
    } else if (!strcmp(mode, "get-start")) {
        gex_Event_Wait(gex_RMA_GetNB(mp_tm, buf, peer, (char *)owner - 1, 4, 0));
    } else if (!strcmp(mode, "self-end")) {
        gex_RMA_PutNBI(mp_tm, 0, (char *)mine + size, buf, 1, GEX_EVENT_NOW, 0);
    } else if (!strcmp(mode, "val-end")) {
        gex_RMA_PutBlockingVal(mp_tm, peer, end - 4, 42, 8, 0);
    } else if (!strcmp(mode, "no-segment")) {
        gex_RMA_PutBlocking(gex_TM_Pair(mp_ep, 5), peer, owner, buf, 8, 0);
    } else if (!strcmp(mode, "am-long-end")) {
        gex_AM_RequestLong0(mp_tm, peer, GEX_AM_INDEX_BASE, buf, 16, end - 8, GEX_EVENT_NOW, 0);
    } else if (!strcmp(mode, "am-long-no-segment")) {
        gex_AM_RequestLong0(gex_TM_Pair(mp_ep, 5), peer, GEX_AM_INDEX_BASE, buf, 8, owner,
                            GEX_EVENT_NOW, 0);
    } else if (!strcmp(mode, "bad-rank")) {
        gex_RMA_PutBlocking(mp_tm, mp_n, owner, buf, 8, 0);
    } else if (!strcmp(mode, "nbi-lc-ptr")) {
        gex_RMA_PutNBI(mp_tm, peer, owner, buf, 8, &lc, 0);
    } else if (!strcmp(mode, "nb-group")) {
        gex_Event_Wait(gex_RMA_PutNB(mp_tm, peer, owner, buf, 8, GEX_EVENT_GROUP, 0));
    } else if (!strcmp(mode, "seg-offset")) {
        gex_RMA_PutBlocking(mp_tm, peer, 0, buf, 8, GEX_FLAG_PEER_SEG_OFFSET);
    } else if (!strcmp(mode, "val-size")) {
        gex_RMA_PutNBIVal(mp_tm, peer, owner, 42, 9, 0);
    } else {
        fprintf(stderr, "mp_rma_bounds: unknown mode '%s'\n", mode);
        gasnet_exit(2);
    }
    fprintf(stderr, "mp_rma_bounds: %s was not caught\n", mode);
    gasnet_exit(3);
}
