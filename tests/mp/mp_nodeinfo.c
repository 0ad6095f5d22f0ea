/*
 * mp_nodeinfo.c: gasnet_getNodeInfo (gasnet.h) answers from gex_Client_Init
 * on, before any segment is attached, as GASNet does: GASNet's own test
 * harness calls it from test_init() in clients that attach later or never.
 * Each rank's host and supernode (neighbourhood) numbers must agree with
 * what that rank reports through gex_System_QueryMyPosition, and its own
 * neighbourhood members are exactly the ranks sharing its supernode number.
 * The table must read the same after gex_Segment_Attach.
 */
#include "mp_util.h"

struct where { gex_Rank_t host, nbrhd; };

static void check_table(const gasnet_nodeinfo_t *ni, const struct where *all, int attached)
{
    gex_RankInfo_t *nbrhd;
    gex_Rank_t nbrhd_count;
    gex_System_QueryNbrhdInfo(&nbrhd, &nbrhd_count, NULL);
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        CHECK_EQ(ni[r].host, all[r].host);
        CHECK_EQ(ni[r].supernode, all[r].nbrhd);
        int in_nbrhd = 0;
        for (gex_Rank_t i = 0; i < nbrhd_count; i++) in_nbrhd |= nbrhd[i].gex_jobrank == r;
        CHECK_EQ(ni[r].supernode == ni[mp_me].supernode, in_nbrhd);
        if (!attached) CHECK_EQ(ni[r].offset, 0); /* no segment: nothing to translate */
    }
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_NODEINFO", 0);
    struct where mine, *all = calloc(mp_n, sizeof *all);
    gasnet_nodeinfo_t *ni = calloc(mp_n + 1, sizeof *ni);
    CHECK(all && ni);
    gex_System_QueryMyPosition(NULL, &mine.nbrhd, NULL, &mine.host);
    mp_allgather(&mine, sizeof mine, all);

    mp_phase("before attach");
    CHECK_OK(gasnet_getNodeInfo(NULL, 0));
    /* one entry more than there are ranks: the extra one is zeroed */
    memset(ni, 0xa5, (mp_n + 1) * sizeof *ni);
    CHECK_OK(gasnet_getNodeInfo(ni, (int)mp_n + 1));
    CHECK_EQ(ni[mp_n].host, 0);
    CHECK_EQ(ni[mp_n].supernode, 0);
    check_table(ni, all, 0);
    CHECK_RC(gasnet_getNodeInfo(ni, -1), GASNET_ERR_BAD_ARG);
    CHECK_RC(gasnet_getNodeInfo(NULL, 1), GASNET_ERR_BAD_ARG);

    mp_attach(GASNET_PAGESIZE);
    mp_phase("after attach");
    memset(ni, 0xa5, mp_n * sizeof *ni);
    CHECK_OK(gasnet_getNodeInfo(ni, (int)mp_n));
    check_table(ni, all, 1);
    free(ni);
    free(all);
    mp_finish("gasnet_getNodeInfo before and after attach");
}
