/*
 * mp_vis_badargs.c: one erroneous VIS call, chosen by argv[1], that must end
 * the job with a diagnostic naming the call and the argument (driven by
 * tests/mp/mp_vis_badargs.sh, which checks the exit status and message).
 * Rank 0 makes the call against rank 1; the other ranks wait in a barrier
 * that only the end of the job releases.
 *
 * Every build:
 *   vec-total    Vector lists whose totals differ
 *   idx-total    Indexed dstcount*dstlen != srccount*srclen
 *   bad-rank     rank == team size
 *   leaf-lc-get  GEX_FLAG_ENABLE_LEAF_LC on a Get
 *   seg-offset   GEX_FLAG_PEER_SEG_OFFSET (not implemented)
 *   null-list    a NULL Vector list with entries
 *   pc-size      gex_VIS_SetPeerCompletionHandler with nbytes 128
 *   str-overflow Strided counts whose product overflows
 * Debug builds only:
 *   str-outside  a Strided section reaching past the peer's segment
 *   idx-outside  an Indexed entry past the peer's segment
 */
#include "mp_util.h"
#include <gasnet_vis.h>

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_VIS_BADARGS", 0);
    const char *mode = argc > 1 ? argv[1] : "";
    const uintptr_t size = 64 * 1024;
    mp_attach(size);
    gex_Rank_t peer = mp_n > 1 ? 1 : 0;
    void *owner = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, peer, &owner, NULL, NULL, 0));
    char *r = owner;
    static char buf[128 * 1024];
    mp_barrier();
    if (mp_me != 0) {
        mp_barrier(); /* released only by the end of the job */
        gasnet_exit(4);
    }
    gex_Memvec_t d[2] = { { r, 16 }, { r + 64, 16 } }, s[1] = { { buf, 31 } };
    void *di[4] = { r, r + 16, r + 32, r + 48 }, *si[2] = { buf, buf + 100 };
    ptrdiff_t str[2] = { 32, 1024 };
    size_t cnt[2] = { 16, 4 };
    if (!strcmp(mode, "vec-total")) {
        gex_VIS_VectorPutBlocking(mp_tm, peer, 2, d, 1, s, 0);
    } else if (!strcmp(mode, "idx-total")) {
        gex_VIS_IndexedPutNBI(mp_tm, peer, 4, di, 8, 2, si, 8, 0);
    } else if (!strcmp(mode, "bad-rank")) {
        gex_VIS_StridedPutBlocking(mp_tm, mp_n, r, str, buf, str, 8, cnt, 2, 0);
    } else if (!strcmp(mode, "leaf-lc-get")) {
        gex_VIS_IndexedGetNB(mp_tm, 2, si, 8, peer, 2, di, 8, GEX_FLAG_ENABLE_LEAF_LC);
    } else if (!strcmp(mode, "seg-offset")) {
        gex_VIS_VectorGetNBI(mp_tm, 1, s, peer, 1, s, GEX_FLAG_PEER_SEG_OFFSET);
    } else if (!strcmp(mode, "null-list")) {
        gex_VIS_VectorPutNB(mp_tm, peer, 2, NULL, 1, s, 0);
    } else if (!strcmp(mode, "pc-size")) {
        gex_VIS_SetPeerCompletionHandler(200, buf, 128, 0);
    } else if (!strcmp(mode, "str-overflow")) {
        size_t big[2] = { SIZE_MAX / 8, 16 };
        gex_VIS_StridedGetBlocking(mp_tm, buf, str, peer, r, str, 1, big, 2, 0);
    } else if (!strcmp(mode, "str-outside")) {
        size_t c[2] = { 16, 65 }; /* 65 rows of 1 KiB from offset 512: past the end */
        gex_VIS_StridedPutBlocking(mp_tm, peer, r + 512, str, buf, str, 8, c, 2, 0);
    } else if (!strcmp(mode, "idx-outside")) {
        void *o[2] = { r, r + size - 4 };
        gex_VIS_IndexedGetBlocking(mp_tm, 2, si, 8, peer, 2, o, 8, 0);
    } else {
        fprintf(stderr, "mp_vis_badargs: unknown mode '%s'\n", mode);
        gasnet_exit(3);
    }
    fprintf(stderr, "mp_vis_badargs: %s: the call returned\n", mode);
    gasnet_exit(5);
}
