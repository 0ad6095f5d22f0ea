/*
 * mp_vis_gasnet1: the GASNet-1 VIS prototype calls (gex/gasnet1_vis.h),
 * which gasnet1_differences.md says GASNet-EX keeps ("full
 * backwards-compatibility with those prototype interfaces, declared in
 * <gasnet_vis.h>").  A transitional client (GEX_FLAG_USES_GASNET1) runs all
 * 18 calls, gasnet_{put,get}{v,i,s}_{bulk,nb_bulk,nbi_bulk}, to itself and
 * every peer and compares the data with a naive copy.  Strided calls use the
 * prototype's metadata (size_t strides, count[0] = chunk bytes), including
 * stridelevels 0, count[0] == 0 (no-op) and more levels than the wrapper
 * keeps on its stack.
 *
 * gasnet_vis.h is included before gasnet.h (mp_util.h) on purpose: the
 * legacy calls must appear in either include order (test_headers.c has the
 * other one).
 */
#include <gasnet_vis.h>
#include "mp_util.h"

#define AREA 65536 /* per initiator, in every rank's segment */

static uint8_t src[AREA], back[AREA], want[AREA];

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_VIS_GASNET1", GEX_FLAG_USES_GASNET1);
    mp_attach((uintptr_t)AREA * mp_n);
    gasnet_seginfo_t *seg = calloc(mp_n, sizeof *seg);
    CHECK(seg != NULL);
    CHECK_OK(gasnet_getSegmentInfo(seg, (int)mp_n));
    CHECK(sizeof(gasnet_memvec_t) == sizeof(gex_Memvec_t));
    mp_fill(src, AREA, mp_me, 1);

    for (gasnet_node_t p = 0; p < mp_n; p++) {
        uint8_t *r = (uint8_t *)seg[p].addr + (size_t)mp_me * AREA; /* my area at p */
        for (int form = 0; form < 3; form++) {
            gasnet_handle_t h = GASNET_INVALID_HANDLE;
            /* Vector: 3 source pieces (one repeated) into 2 destination pieces, reversed */
            mp_phase("vector");
            gasnet_memvec_t s[3] = {{src + 100, 300}, {src + 5000, 50}, {src + 100, 150}};
            gasnet_memvec_t d[2] = {{r + 4000, 250}, {r + 10, 250}};
            memset(want, 0, 500);
            memcpy(want, src + 100, 300); memcpy(want + 300, src + 5000, 50);
            memcpy(want + 350, src + 100, 150);
            if (form == 0) gasnet_putv_bulk(p, 2, d, 3, s);
            else if (form == 1) { h = gasnet_putv_nb_bulk(p, 2, d, 3, s); gasnet_wait_syncnb(h); }
            else { gasnet_putv_nbi_bulk(p, 2, d, 3, s); gasnet_wait_syncnbi_puts(); }
            gasnet_memvec_t b[3] = {{back, 100}, {back + 100, 0}, {back + 100, 400}};
            memset(back, 0, 500);
            if (form == 0) gasnet_getv_bulk(3, b, p, 2, d);
            else if (form == 1) { h = gasnet_getv_nb_bulk(3, b, p, 2, d); gasnet_wait_syncnb(h); }
            else { gasnet_getv_nbi_bulk(3, b, p, 2, d); gasnet_wait_syncnbi_gets(); }
            CHECK_MSG(memcmp(back, want, 500) == 0, "vector form %d peer %u", form, (unsigned)p);

            /* Indexed: 4 x 24 bytes in any order into 3 x 32 bytes */
            mp_phase("indexed");
            void *is[4] = {src + 999, src + 7, src + 20000, src + 7};
            void *id[3] = {r + 30000, r + 20000, r + 40000};
            for (int i = 0; i < 4; i++) memcpy(want + 24 * i, is[i], 24);
            if (form == 0) gasnet_puti_bulk(p, 3, id, 32, 4, is, 24);
            else if (form == 1) { h = gasnet_puti_nb_bulk(p, 3, id, 32, 4, is, 24); gasnet_wait_syncnb(h); }
            else { gasnet_puti_nbi_bulk(p, 3, id, 32, 4, is, 24); gasnet_wait_syncnbi_puts(); }
            void *ib[2] = {back + 48, back};
            memset(back, 0, 96);
            if (form == 0) gasnet_geti_bulk(2, ib, 48, p, 3, id, 32);
            else if (form == 1) { h = gasnet_geti_nb_bulk(2, ib, 48, p, 3, id, 32); gasnet_wait_syncnb(h); }
            else { gasnet_geti_nbi_bulk(2, ib, 48, p, 3, id, 32); gasnet_wait_syncnbi_gets(); }
            CHECK_MSG(memcmp(back + 48, want, 48) == 0 && memcmp(back, want + 48, 48) == 0,
                      "indexed form %d peer %u", form, (unsigned)p);

            /* Strided, prototype metadata: 5 x 3 chunks of 7 bytes, source rows of 100
             * bytes with chunks every 9, packed on the peer, then read back transposed */
            mp_phase("strided");
            size_t cnt[3] = {7, 5, 3}, sst[2] = {9, 100}, dst[2] = {7, 35};
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 5; i++) memcpy(want + 35 * j + 7 * i, src + 3 + 100 * j + 9 * i, 7);
            if (form == 0) gasnet_puts_bulk(p, r + 50000, dst, src + 3, sst, cnt, 2);
            else if (form == 1) { h = gasnet_puts_nb_bulk(p, r + 50000, dst, src + 3, sst, cnt, 2); gasnet_wait_syncnb(h); }
            else { gasnet_puts_nbi_bulk(p, r + 50000, dst, src + 3, sst, cnt, 2); gasnet_wait_syncnbi_puts(); }
            size_t tc[3] = {7, 3, 5}, tl[2] = {7, 21}, tr[2] = {35, 7}; /* local (i,j) at 7*j + 21*i */
            memset(back, 0, 105);
            if (form == 0) gasnet_gets_bulk(back, tl, p, r + 50000, tr, tc, 2);
            else if (form == 1) { h = gasnet_gets_nb_bulk(back, tl, p, r + 50000, tr, tc, 2); gasnet_wait_syncnb(h); }
            else { gasnet_gets_nbi_bulk(back, tl, p, r + 50000, tr, tc, 2); gasnet_wait_syncnbi_gets(); }
            int bad = 0;
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 5; i++) bad += memcmp(back + 7 * j + 21 * i, want + 35 * j + 7 * i, 7) != 0;
            CHECK_MSG(!bad, "strided form %d peer %u: %d chunks wrong", form, (unsigned)p, bad);
        }
        /* stridelevels 0: one chunk of count[0] bytes, stride arrays ignored */
        mp_phase("strided degenerate");
        size_t c0[1] = {1234};
        gasnet_puts_bulk(p, r + 60000, NULL, src + 11, NULL, c0, 0);
        memset(back, 0, 1234);
        gasnet_get_bulk(back, p, r + 60000, 1234);
        CHECK(memcmp(back, src + 11, 1234) == 0);
        /* count[0] == 0: no-op */
        size_t cz[2] = {0, 9}, sz[1] = {1};
        gasnet_puts_bulk(p, r + 60000, sz, src, sz, cz, 1);
        gasnet_get_bulk(back, p, r + 60000, 1234);
        CHECK(memcmp(back, src + 11, 1234) == 0);
        /* 20 levels (past the wrapper's stack copies): 18 of count 1 around a 4 x 2 section */
        mp_phase("strided many levels");
        size_t mc[21], ms[20], md[20];
        for (int k = 0; k < 20; k++) { mc[k + 1] = 1; ms[k] = 100000; md[k] = 77777; }
        mc[0] = 5; mc[4] = 4; ms[3] = 6; md[3] = 5; mc[17] = 2; ms[16] = 1000; md[16] = 20;
        gasnet_puts_bulk(p, r + 61000, md, src + 40, ms, mc, 20);
        gasnet_get_bulk(back, p, r + 61000, 40);
        int bad = 0;
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 4; i++) bad += memcmp(back + 20 * j + 5 * i, src + 40 + 1000 * j + 6 * i, 5) != 0;
        CHECK_MSG(!bad, "20 levels, peer %u: %d chunks wrong", (unsigned)p, bad);
        memset(back, 0, 40);
        gasnet_gets_bulk(back, md, p, r + 61000, md, mc, 20);
        CHECK(memcmp(back, src + 40, 5) == 0 && memcmp(back + 35, src + 1058, 5) == 0);
    }
    mp_barrier();
    free(seg);
    mp_finish("all 18 GASNet-1 VIS calls to %u peers", (unsigned)mp_n);
}
