/*
 * mp_coll_legacy.c: the GASNet-1 barrier (gasnet.h) over the primordial
 * team.
 *
 *  1. Anonymous barriers, blocking and split-phase with work in between,
 *     gasnet_barrier_try until it succeeds; gasnet_barrier_result says
 *     anonymous.
 *  2. Named barriers with one id everywhere: OK, result gives the id.
 *  3. Named and anonymous mixed (only rank 0 names it): OK, the id wins.
 *  4. Different ids (rank 1 differs): GASNET_ERR_BARRIER_MISMATCH on every
 *     rank; then a good barrier works again.
 *  5. GASNET_BARRIERFLAG_MISMATCH on one rank: every rank sees a mismatch.
 *  6. A wait whose id differs from its notify: mismatch on that rank only.
 *  7. gasnet_barrier and gex_Coll_BarrierNB alternating (not overlapping,
 *     as the spec requires).
 */
#include "mp_util.h"
#include <gasnet_coll.h>

static gex_Rank_t N, ME;

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_COLL_LEGACY", 0);
    N = mp_n;
    ME = mp_me;
    mp_barrier();
    int id = -1;

    mp_phase("anonymous");
    for (int i = 0; i < 30; i++) {
        CHECK_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
        CHECK(gasnet_barrier_result(&id) != 0);
    }
    for (int i = 0; i < 10; i++) {
        gasnet_barrier_notify(i, GASNET_BARRIERFLAG_ANONYMOUS);
        if ((i + ME) % 2) usleep(100); /* "work" between the phases */
        CHECK_OK(gasnet_barrier_wait(i, GASNET_BARRIERFLAG_ANONYMOUS));
    }
    for (int i = 0; i < 10; i++) {
        gasnet_barrier_notify(0, GASNET_BARRIERFLAG_UNNAMED);
        int rc;
        unsigned tries = 0;
        while ((rc = gasnet_barrier_try(0, GASNET_BARRIERFLAG_UNNAMED)) == GASNET_ERR_NOT_READY)
            tries++;
        CHECK_OK(rc);
        CHECK(gasnet_barrier_result(NULL) != 0);
    }

    mp_phase("named, same id");
    for (int i = 0; i < 20; i++) {
        CHECK_OK(gasnet_barrier(1000 + i, 0));
        id = -1;
        CHECK(gasnet_barrier_result(&id) == 0);
        CHECK_EQ(id, 1000 + i);
    }

    mp_phase("named and anonymous mixed");
    for (int i = 0; i < 10; i++) {
        const int named = ME == (gex_Rank_t)(i % N);
        CHECK_OK(gasnet_barrier(77 + i, named ? 0 : GASNET_BARRIERFLAG_ANONYMOUS));
        id = -1;
        CHECK(gasnet_barrier_result(&id) == 0);
        CHECK_EQ(id, 77 + i);
    }

    if (N > 1) {
        mp_phase("different ids");
        for (int i = 0; i < 5; i++) {
            gasnet_barrier_notify(ME == 1 ? 5 : 6, 0);
            CHECK_RC(gasnet_barrier_wait(ME == 1 ? 5 : 6, 0), GASNET_ERR_BARRIER_MISMATCH);
            CHECK_OK(gasnet_barrier(9, 0));
        }
    }

    mp_phase("forced mismatch");
    for (gex_Rank_t who = 0; who < N; who++) {
        const int flags = ME == who ? GASNET_BARRIERFLAG_MISMATCH : GASNET_BARRIERFLAG_ANONYMOUS;
        CHECK_RC(gasnet_barrier(3, flags), GASNET_ERR_BARRIER_MISMATCH);
        CHECK_OK(gasnet_barrier(4, 0));
    }

    mp_phase("wait id differs from notify");
    gasnet_barrier_notify(11, 0);
    CHECK_RC(gasnet_barrier_wait(ME == 0 ? 12 : 11, 0), ME == 0 ? GASNET_ERR_BARRIER_MISMATCH
                                                                 : GASNET_OK);

    mp_phase("alternating with gex_Coll_BarrierNB");
    for (int i = 0; i < 20; i++) {
        gex_Event_Wait(gex_Coll_BarrierNB(mp_tm, 0));
        CHECK_OK(gasnet_barrier(i, i % 3 ? 0 : GASNET_BARRIERFLAG_ANONYMOUS));
    }
    mp_finish("anonymous, named, mixed, mismatches, split phase");
}
