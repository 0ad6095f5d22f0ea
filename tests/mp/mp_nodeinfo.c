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

/* A harness that knows how the job was placed (tests/multihost: ranks
 * spread over simulated hosts) says so in MP_EXPECT_HOSTS and
 * MP_EXPECT_PER_HOST: ranks on different hosts must never be grouped as
 * one host (their shared memory is not shared), nor ranks of one host split. */
static void check_expected_hosts(void)
{
    const char *hosts = getenv("MP_EXPECT_HOSTS"), *per_host = getenv("MP_EXPECT_PER_HOST");
    gex_Rank_t host_set_size, host_size, nbrhd_size;
    gex_RankInfo_t *info;
    gex_System_QueryMyPosition(NULL, NULL, &host_set_size, NULL);
    gex_System_QueryHostInfo(&info, &host_size, NULL);
    gex_System_QueryNbrhdInfo(&info, &nbrhd_size, NULL);
    if (hosts) CHECK_EQ(host_set_size, (gex_Rank_t)atoi(hosts));
    if (per_host) CHECK_EQ(host_size, (gex_Rank_t)atoi(per_host));
    CHECK(nbrhd_size <= host_size); /* shared memory never spans hosts */
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_NODEINFO", 0);
    struct where mine, *all = calloc(mp_n, sizeof *all);
    gasnet_nodeinfo_t *ni = calloc(mp_n + 1, sizeof *ni);
    CHECK(all && ni);
    gex_System_QueryMyPosition(NULL, &mine.nbrhd, NULL, &mine.host);
    mp_allgather(&mine, sizeof mine, all);
    check_expected_hosts();

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
