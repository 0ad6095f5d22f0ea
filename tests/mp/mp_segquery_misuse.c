/*
 * mp_segquery_misuse.c: gex_EP_QueryBoundSegmentNB with a rank that names no
 * endpoint.  The spec: "Passing GEX_RANK_INVALID as the rank argument is
 * *not* permitted"; a rank at or above the team size (the job size for a
 * TM-pair) names no member either.  The call has no error return, so debug
 * builds end the job with a message naming the call and the rank; other
 * builds give an unsuccessful query (size 0, the event complete) and say so.
 * Driven by mp_segquery_misuse.sh, one mode per run:
 *   invalid   (primordial team, GEX_RANK_INVALID)
 *   size      (primordial team, rank == team size)
 *   pair      (TM-pair, rank == job size)
 *   immediate (primordial team, GEX_RANK_INVALID, GEX_FLAG_IMMEDIATE)
 *   tm-nb     gex_EP_QueryBoundSegmentNB(GEX_TM_INVALID, 0, ...)
 *   tm-qb     gex_Segment_QueryBound(GEX_TM_INVALID, 0, ...)
 * The last two: debug builds name the INVALID tm; other builds give an
 * unsuccessful query (before: SIGSEGV in every build, as GASNet's test.h hit
 * when it had no team to pass).
 */
#include "mp_util.h"

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_SEGQUERY_MISUSE", 0);
    mp_attach(4 * GASNET_PAGESIZE);
    CHECK(argc == 2);
    const char *mode = argv[1];
    gex_TM_t tm = mp_tm;
    gex_Rank_t rank = GEX_RANK_INVALID;
    gex_Flags_t flags = 0;
    if (!strcmp(mode, "size")) {
        rank = mp_n;
    } else if (!strcmp(mode, "pair")) {
        tm = gex_TM_Pair(mp_ep, 0);
        rank = gex_System_QueryJobSize();
    } else if (!strcmp(mode, "immediate")) {
        flags = GEX_FLAG_IMMEDIATE;
    } else if (!strcmp(mode, "tm-nb")) {
        tm = GEX_TM_INVALID;
        rank = 0;
    } else if (!strcmp(mode, "tm-qb")) {
        mp_phase(mode);
        void *owner = (void *)7, *local = (void *)7;
        uintptr_t size = 7;
        CHECK(gex_Segment_QueryBound(GEX_TM_INVALID, 0, &owner, &local, &size) != GASNET_OK);
        /* spec: an unsuccessful query leaves the outputs unmodified */
        CHECK(owner == (void *)7 && local == (void *)7 && size == 7);
        mp_finish("%s: unsuccessful query (outputs untouched)", mode);
    } else {
        CHECK_MSG(!strcmp(mode, "invalid"), "unknown mode %s", mode);
    }
    mp_phase(mode);
    void *owner = (void *)7, *local = (void *)7;
    uintptr_t size = 7;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(tm, rank, &owner, &local, &size, flags);
    CHECK(ev != GEX_EVENT_NO_OP);
    gex_Event_Wait(ev);
    CHECK_MSG(size == 0, "unsuccessful query gave size %zu, want 0", (size_t)size);
    mp_finish("%s: unsuccessful query (size 0)", mode);
}
