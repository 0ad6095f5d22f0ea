/*
 * mp_segment_republish.c: a segment bound to a created endpoint is
 * destroyed and replaced by a new one, round after round, and published
 * again each time.
 *
 * What can go wrong in a peer that mapped the old segment (PSHM):
 *  - the new segment often lands at the old address with the old size, so
 *    a peer that recognised "same address, same size, already mapped"
 *    would keep writing into the destroyed segment's memory: puts would
 *    seem to succeed and never arrive;
 *  - a peer that never unmaps a replaced mapping keeps the old memory
 *    alive, one segment per round and peer.
 *  - a segment bound to two EPs must be mapped once, and its mapping kept
 *    until neither EP names it.
 * Each round's segment is bound to EPs 1 and 2 and every rank puts a
 * round-specific pattern into its right neighbour's new segment through
 * both (pair EP 1 -> EP 1 and EP 1 -> EP 2, different offsets) and checks
 * what its left neighbour put into its own; after all rounds the number of
 * segment mappings in /proc/self/maps must not have grown by more than
 * one per peer (the last round's, which stays mapped until a peer learns
 * of a replacement or the job ends).
 */
#include "mp_util.h"

#define ROUNDS 24
#define SEG_LEN ((uintptr_t)65536)
#define PUT_LEN ((size_t)20000)
#define HALF ((uintptr_t)32768)

/* Mappings of PSHM segment objects (ours and mapped peers'). */
static unsigned count_segment_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[1024];
    unsigned n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "/gex-") && strstr(line, "-seg-")) n++;
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_SEG_REPUBLISH", 0);
    const gex_Rank_t me = mp_me, n = mp_n;
    const gex_Rank_t right = (me + 1) % n, left = (me + n - 1) % n;

    gex_EP_t eps[2] = { GEX_EP_INVALID, GEX_EP_INVALID };
    for (unsigned i = 0; i < 2; i++) {
        CHECK_OK(gex_EP_Create(&eps[i], mp_client,
                               GEX_EP_CAPABILITY_RMA | GEX_EP_CAPABILITY_AM, 0));
        CHECK_EQ(gex_EP_QueryIndex(eps[i]), i + 1);
    }
    const gex_EP_t ep1 = eps[0];
    mp_attach(SEG_LEN);
    const gex_TM_t pair[2] = { gex_TM_Pair(ep1, 1), gex_TM_Pair(ep1, 2) };

    char *src = malloc(PUT_LEN);
    CHECK(src != NULL);
    unsigned maps_before = 0;

    for (unsigned round = 0; round < ROUNDS; round++) {
        mp_phase("create, bind and publish");
        gex_Segment_t seg = GEX_SEGMENT_INVALID;
        CHECK_OK(gex_Segment_Create(&seg, mp_client, NULL, SEG_LEN, GEX_MK_HOST, 0));
        char *base = gex_Segment_QueryAddr(seg);
        CHECK(base != NULL);
        memset(base, 0, SEG_LEN);
        CHECK_OK(gex_EP_BindSegment(eps[0], seg, 0));
        CHECK_OK(gex_EP_BindSegment(eps[1], seg, 0));
        CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, eps, 2, 0));
        if (round == 0) {
            /* round 0's mappings exist everywhere: count from here */
            mp_barrier();
            maps_before = count_segment_mappings();
            mp_barrier();
        }

        mp_phase("put to the right neighbour's new segment");
        void *owner[2] = { NULL, NULL }, *local[2] = { NULL, NULL };
        for (unsigned i = 0; i < 2; i++) {
            uintptr_t size = 0;
            gex_Event_Wait(gex_EP_QueryBoundSegmentNB(pair[i], right, &owner[i], &local[i],
                                                      &size, 0));
            CHECK(owner[i] != NULL);
            CHECK_EQ(size, SEG_LEN);
        }
        CHECK_PTR_EQ(owner[1], owner[0]);
        CHECK_PTR_EQ(local[1], local[0]);   /* one segment, one mapping */
        if (local[0] && right != me) {
            /* a mapping of the right neighbour's segment: it must be the new
             * one, which the neighbour zeroed before publishing */
            for (size_t j = 0; j < SEG_LEN; j += 4096)
                CHECK_EQ(((volatile unsigned char *)local[0])[j], 0);
        }
        const size_t off = (round * 64u) % (HALF - PUT_LEN);
        for (unsigned i = 0; i < 2; i++) {
            mp_fill(src, PUT_LEN, round * 2 + i, me);
            CHECK_OK(gex_RMA_PutBlocking(pair[i], right, (char *)owner[i] + i * HALF + off, src,
                                         PUT_LEN, 0));
        }
        mp_barrier();

        mp_phase("check what the left neighbour put");
        for (unsigned i = 0; i < 2; i++) {
            CHECK_PATTERN(base + i * HALF + off, PUT_LEN, round * 2 + i, left);
            for (size_t j = 0; j < off; j++) CHECK_EQ(base[i * HALF + j], 0);
        }
        mp_barrier(); /* nobody destroys a segment a neighbour still writes */
        gex_Segment_Destroy(seg, 0);
        CHECK_PTR_EQ(gex_EP_QuerySegment(eps[0]), GEX_SEGMENT_INVALID);
        CHECK_PTR_EQ(gex_EP_QuerySegment(eps[1]), GEX_SEGMENT_INVALID);
    }

    mp_phase("no mapping accumulated");
    const unsigned maps_after = count_segment_mappings();
    /* our own round-0 segment is gone; each peer's last one may remain */
    if (maps_after > maps_before + (n - 1))
        mp_fail(__FILE__, __LINE__, "%u PSHM segment mappings after %u rounds, %u after round 0 "
                "(at most %u expected)", maps_after, ROUNDS, maps_before,
                maps_before + (unsigned)(n - 1));
    free(src);
    mp_finish("%u rounds of destroy/create/publish, puts checked each round; segment mappings "
              "%u -> %u", ROUNDS, maps_before, maps_after);
}
