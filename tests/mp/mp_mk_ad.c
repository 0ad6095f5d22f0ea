/*
 * mp_mk_ad.c: remote atomics on words in FILE-kind segments (memory kinds,
 * issue 9; docs/memory-kinds.md "Atomics").
 *
 * Every rank binds a FILE segment (device addresses: PROT_NONE) to a new
 * endpoint (index 1), publishes it, and the job makes a team of those
 * endpoints with gex_TM_Create (GEX_FLAG_TM_NO_SCRATCH: spec, device
 * endpoints have no scratch).  Two domains over that team, U64 and I32:
 *   1. every rank adds to word A of every rank's segment, ITER times each
 *      (FADD by NB and ADD by NBI, alternating), checking that the values
 *      it fetches from one word increase; the owner then reads the word
 *      with pread: exactly n * ITER, and a GET from every rank agrees;
 *   2. every rank tries FCAS(0 -> me + 1) on word B of rank 0: exactly one
 *      wins (all-gathered), and the word holds the winner's value;
 *   3. I32: INC and FINC on word C of every rank, then SET / SWAP / GET.
 * Variants (.mpt): PSHM on and off, GEX_FORCE_REFERENCE=atomics.
 */
#include "mp_util.h"
#include "mp_mk_util.h"
#include <gasnet_mk.h>
#include <gasnet_ratomic.h>

#define MAXRANKS 4u
#define KIND_OFF 12288u
#define SEG_LEN 65536u
#define ITER 100u
#define OFF_A 0u
#define OFF_B 64u
#define OFF_C 128u

static int fd;
static char *dev;
static void *peer_dev[MAXRANKS];

static uint64_t file_u64(size_t off)
{
    uint64_t v;
    CHECK_EQ(pread(fd, &v, 8, (off_t)(KIND_OFF + off)), 8);
    return v;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_MK_AD", 0);
    CHECK(mp_n <= MAXRANKS);
    mp_attach(65536);

    mp_phase("FILE kind, segment, endpoint, team");
    gex_MK_t kind = mp_file_kind("mp-mk-ad", KIND_OFF, &fd);
    gex_Segment_t seg;
    CHECK_OK(gex_Segment_Create(&seg, mp_client, NULL, SEG_LEN, kind, 0));
    dev = gex_Segment_QueryAddr(seg);
    gex_EP_t ep1;
    CHECK_OK(gex_EP_Create(&ep1, mp_client, GEX_EP_CAPABILITY_RMA | GEX_EP_CAPABILITY_AD, 0));
    CHECK_OK(gex_EP_BindSegment(ep1, seg, 0));
    CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, &ep1, 1, 0));
    mp_query_peer_segments(peer_dev, NULL);
    gex_EP_Location_t members[MAXRANKS];
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        members[r].gex_rank = r;
        members[r].gex_ep_index = 1;
    }
    gex_TM_t dtm;
    dtm = GEX_TM_INVALID;
    (void)gex_TM_Create(&dtm, 1, mp_tm, members, mp_n, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    CHECK(dtm != GEX_TM_INVALID);
    CHECK_EQ(gex_TM_QueryRank(dtm), mp_me);
    gex_AD_t ad64, ad32;
    gex_AD_Create(&ad64, dtm, GEX_DT_U64,
                  GEX_OP_ADD | GEX_OP_FADD | GEX_OP_FCAS | GEX_OP_GET | GEX_OP_SET, 0);
    gex_AD_Create(&ad32, dtm, GEX_DT_I32,
                  GEX_OP_INC | GEX_OP_FINC | GEX_OP_SET | GEX_OP_SWAP | GEX_OP_GET, 0);
    mp_barrier();

    mp_phase("1: FADD / ADD on every rank's word A");
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        void *w = (char *)peer_dev[p] + OFF_A;
        uint64_t last = 0;
        int have_last = 0;
        for (unsigned k = 0; k < ITER; k++) {
            if (k & 1) {
                CHECK_EQ(gex_AD_OpNBI_U64(ad64, NULL, p, w, GEX_OP_ADD, 1, 0, 0), 0);
                gex_NBI_Wait(GEX_EC_ALL, 0);
                continue;
            }
            uint64_t old = UINT64_MAX;
            gex_Event_Wait(gex_AD_OpNB_U64(ad64, &old, p, w, GEX_OP_FADD, 1, 0, 0));
            CHECK(old < (uint64_t)mp_n * ITER);
            CHECK(!have_last || old > last);
            last = old;
            have_last = 1;
        }
    }
    mp_barrier();
    CHECK_EQ(file_u64(OFF_A), (uint64_t)mp_n * ITER);
    for (gex_Rank_t p = 0; p < mp_n; p++) {
        uint64_t v = 0;
        gex_Event_Wait(gex_AD_OpNB_U64(ad64, &v, p, (char *)peer_dev[p] + OFF_A, GEX_OP_GET, 0,
                                       0, 0));
        CHECK_EQ(v, (uint64_t)mp_n * ITER);
    }
    mp_barrier();

    mp_phase("2: FCAS race on rank 0's word B");
    uint64_t old = UINT64_MAX;
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &old, 0, (char *)peer_dev[0] + OFF_B, GEX_OP_FCAS, 0,
                                   mp_me + 1, 0));
    uint32_t won = old == 0, all[MAXRANKS];
    CHECK(won || (old >= 1 && old <= mp_n));
    mp_allgather(&won, sizeof won, all);
    unsigned winners = 0, winner = 0;
    for (gex_Rank_t r = 0; r < mp_n; r++)
        if (all[r]) winners++, winner = r;
    CHECK_EQ(winners, 1u);
    uint64_t v = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &v, 0, (char *)peer_dev[0] + OFF_B, GEX_OP_GET, 0, 0, 0));
    CHECK_EQ(v, (uint64_t)winner + 1);
    if (!won) CHECK_EQ(old, (uint64_t)winner + 1);
    mp_barrier();
    if (mp_me == 0) CHECK_EQ(file_u64(OFF_B), (uint64_t)winner + 1);

    mp_phase("3: I32 INC / FINC, SET, SWAP, GET");
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t p = (mp_me + i) % mp_n;
        void *w = (char *)peer_dev[p] + OFF_C;
        int32_t r = -1;
        CHECK_EQ(gex_AD_OpNBI_I32(ad32, NULL, p, w, GEX_OP_INC, 0, 0, 0), 0);
        gex_Event_Wait(gex_AD_OpNB_I32(ad32, &r, p, w, GEX_OP_FINC, 0, 0, 0));
        CHECK(r >= 1 && r < 2 * (int32_t)mp_n);
        gex_NBI_Wait(GEX_EC_ALL, 0);
    }
    mp_barrier();
    {
        int32_t c;
        CHECK_EQ(pread(fd, &c, 4, (off_t)(KIND_OFF + OFF_C)), 4);
        CHECK_EQ(c, 2 * (int32_t)mp_n);
        uint32_t next;   /* the word after C is untouched by the 4-byte ops */
        CHECK_EQ(pread(fd, &next, 4, (off_t)(KIND_OFF + OFF_C + 4)), 4);
        CHECK_EQ(next, 0u);
    }
    mp_barrier();
    {
        gex_Rank_t p = (mp_me + 1) % mp_n;   /* each word has exactly one writer here */
        void *w = (char *)peer_dev[p] + OFF_C;
        int32_t r = 0;
        gex_Event_Wait(gex_AD_OpNB_I32(ad32, NULL, p, w, GEX_OP_SET, -7 - (int32_t)mp_me, 0, 0));
        gex_Event_Wait(gex_AD_OpNB_I32(ad32, &r, p, w, GEX_OP_SWAP, 1000 + (int32_t)mp_me, 0, 0));
        CHECK_EQ(r, -7 - (int32_t)mp_me);
        gex_Event_Wait(gex_AD_OpNB_I32(ad32, &r, p, w, GEX_OP_GET, 0, 0, 0));
        CHECK_EQ(r, 1000 + (int32_t)mp_me);
    }
    mp_barrier();
    {
        int32_t c;
        CHECK_EQ(pread(fd, &c, 4, (off_t)(KIND_OFF + OFF_C)), 4);
        CHECK_EQ(c, 1000 + (int32_t)((mp_me + mp_n - 1) % mp_n));
    }
    mp_barrier();

    mp_phase("teardown");
    gex_AD_Destroy(ad32);
    gex_AD_Destroy(ad64);
    mp_barrier();
    mp_finish("remote atomics (U64, I32) on FILE-segment words over a team of device-bound "
              "endpoints, results checked in the files");
}
