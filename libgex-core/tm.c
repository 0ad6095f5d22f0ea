/*
 * tm.c: team members and TM-pairs (spec: "Operations on gex_TM_t",
 * gex_TM_Pair, rank translations).  Team construction is libgex-coll's;
 * core owns the object, the primordial team and the queries.
 *
 * A TM-pair is not an object: it is the local EP's address (128-byte
 * aligned) with bit 0 set and the remote EP index in bits 1..6, so two
 * pairs compare equal exactly when made from the same arguments and never
 * equal a real team pointer (spec: gex_TM_Pair).
 */
#include "core_internal.h"
#include <stdlib.h>

struct gexi_tm *gexi_tm_new_primordial(struct gexi_client *c, struct gexi_ep *ep)
{
    struct gexi_tm *tm = calloc(1, sizeof *tm);
    if (!tm) return NULL;
    tm->magic = GEXI_MAGIC_TM;
    tm->rank = gexi_core.jobrank;
    tm->size = gexi_core.jobsize;
    tm->ep = ep;
    tm->client = c;
    tm->members = NULL; /* identity: rank == jobrank, EP index 0 */
    return tm;
}

gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index)
{
    struct gexi_ep *ep = gexi_ep_of(local_ep);
    if (!ep || ep->magic != GEXI_MAGIC_EP) {
        GEXI_REPORT_ERR("returning GEX_TM_INVALID", "local_ep is not a valid endpoint");
        return GEX_TM_INVALID;
    }
    if (remote_ep_index >= GASNET_MAXEPS) {
        GEXI_REPORT_ERR("returning GEX_TM_INVALID", "remote_ep_index %u >= GASNET_MAXEPS (%d)",
                        (unsigned)remote_ep_index, GASNET_MAXEPS);
        return GEX_TM_INVALID;
    }
    return (gex_TM_t)((uintptr_t)ep | ((uintptr_t)remote_ep_index << 1) | 1u);
}

gex_Client_t gex_TM_QueryClient(gex_TM_t tm)
{
    GEXI_CHECK_TM(tm, 1);
    return (gex_Client_t)gexi_tm_local_ep(tm)->client;
}
gex_EP_t gex_TM_QueryEP(gex_TM_t tm)
{
    GEXI_CHECK_TM(tm, 1);
    return (gex_EP_t)gexi_tm_local_ep(tm);
}
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm)
{
    GEXI_CHECK_TM(tm, 0);
    return gexi_tm_of(tm)->flags;
}
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm)
{
    GEXI_CHECK_TM(tm, 0);
    return gexi_tm_of(tm)->rank;
}
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm)
{
    GEXI_CHECK_TM(tm, 0);
    return gexi_tm_of(tm)->size;
}
void gex_TM_SetCData(gex_TM_t tm, const void *val)
{
    GEXI_CHECK_TM(tm, 0);
    gexi_tm_of(tm)->cdata = (void *)val;
}
void *gex_TM_QueryCData(gex_TM_t tm)
{
    GEXI_CHECK_TM(tm, 0);
    return gexi_tm_of(tm)->cdata;
}

gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank)
{
    if (rank >= gexi_tm_addr_size(tm)) {
        GEXI_REPORT_ERR("returning GEX_RANK_INVALID", "rank %u is not below the team size %u",
                        (unsigned)rank, (unsigned)gexi_tm_addr_size(tm));
        return GEX_RANK_INVALID;
    }
    gex_Rank_t jr;
    gex_EP_Index_t idx;
    gexi_tm_peer(tm, rank, &jr, &idx);
    return jr;
}

gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank)
{
    if (jobrank >= gexi_core.jobsize) {
        GEXI_REPORT_ERR("returning GEX_RANK_INVALID", "jobrank %u is not below the job size %u",
                        (unsigned)jobrank, (unsigned)gexi_core.jobsize);
        return GEX_RANK_INVALID;
    }
    if (gexi_tm_is_pair(tm)) return jobrank;
    const struct gexi_tm *t = gexi_tm_of(tm);
    if (!t->members) return jobrank;
    if (t->by_jobrank) {
        /* Teams built by libgex-coll carry their ranks sorted by (jobrank,
         * rank): the lowest rank of that process, in O(log size).  With
         * several members per process any of them would do (seed 003, 3.1
         * open issue 2); the lowest is the stable choice. */
        gex_Rank_t lo = 0, hi = t->size;
        while (lo < hi) {
            gex_Rank_t mid = lo + (hi - lo) / 2;
            if (t->members[t->by_jobrank[mid]].gex_rank < jobrank) lo = mid + 1;
            else hi = mid;
        }
        if (lo < t->size && t->members[t->by_jobrank[lo]].gex_rank == jobrank)
            return t->by_jobrank[lo];
        return GEX_RANK_INVALID;
    }
    for (gex_Rank_t r = 0; r < t->size; r++)
        if (t->members[r].gex_rank == jobrank) return r;
    return GEX_RANK_INVALID;
}

gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags)
{
    gex_EP_Location_t loc = { GEX_RANK_INVALID, GEX_EP_INDEX_INVALID };
    if (flags) {
        GEXI_REPORT_ERR("returning GEX_RANK_INVALID/GEX_EP_INDEX_INVALID",
                        "flags must be zero (got 0x%x)", (unsigned)flags);
        return loc;
    }
    if (rank >= gexi_tm_addr_size(tm)) {
        GEXI_REPORT_ERR("returning GEX_RANK_INVALID/GEX_EP_INDEX_INVALID",
                        "rank %u is not below the team size %u", (unsigned)rank,
                        (unsigned)gexi_tm_addr_size(tm));
        return loc;
    }
    gexi_tm_peer(tm, rank, &loc.gex_rank, &loc.gex_ep_index);
    return loc;
}
