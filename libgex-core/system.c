/*
 * system.c: job-wide facts (jobrank/size), hosts and neighbourhoods, and
 * segment size limits (spec: "Neighborhood and Host", gex_System_*).
 *
 * A host is identified by hostname plus kernel boot id; the nbrhd is the
 * set of same-host processes that can cross-map memory, i.e. the host when
 * the shared-memory segment provider (libgex-shm) is present and PSHM is
 * not disabled (GASNET_SUPERNODE_MAXSIZE=1 or GEX_PSHM=0), else just self.
 * GASNET_SUPERNODE_MAXSIZE=k > 1 splits each host's processes, in job-rank
 * order, into nbrhds of at most k (README-gasnet-user).
 */
#include "core_internal.h"
#include "host_identity.h"
#include "rank_groups.h"
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct rank_list {
    struct { gex_Rank_t gex_jobrank; } *info;  /* layout of gex_RankInfo_t */
    gex_Rank_t count, my_index;
};
static struct rank_list host_list, nbrhd_list;
static gex_Rank_t host_set_size, host_set_rank, nbrhd_set_size, nbrhd_set_rank;
static uint8_t *is_nbrhd;
static gex_Rank_t *nbrhd_jobranks;
/* Host and nbrhd set rank of every job rank, for gasnet_getNodeInfo (which
 * GASNet allows from gasnet_init/gex_Client_Init on, before any attach). */
static gex_Rank_t *host_set_rank_of, *nbrhd_set_rank_of;
static uintptr_t max_local_seg, max_global_seg;

/* This host (host_identity.h); GEX_HOST_ID lets tests pretend to be elsewhere */
static uint64_t my_host_id(void)
{
    return gexi_host_identity(gexi_getenv("GEX_HOST_ID"));
}

/* The members of `me`'s group, in jobrank order (O(n): the grouping is
 * done once, by gexi_rank_groups). */
static int list_group(const struct gexi_rank_groups *g, gex_Rank_t n, gex_Rank_t me,
                      struct rank_list *out)
{
    const uint32_t mine = g->group[me];
    gex_Rank_t count = 0;
    for (gex_Rank_t r = 0; r < n; r++) count += g->group[r] == mine;
    out->info = calloc(count, sizeof *out->info);
    if (!out->info) return GASNET_ERR_RESOURCE;
    out->count = 0;
    for (gex_Rank_t r = 0; r < n; r++) {
        if (g->group[r] != mine) continue;
        if (r == me) out->my_index = out->count;
        out->info[out->count++].gex_jobrank = r;
    }
    return GASNET_OK;
}

/* Groups keys[0..n) and lists `me`'s group; *set_rank_of keeps every
 * rank's group number (for gasnet_getNodeInfo) and, when index_p is not
 * NULL, *index_p every rank's index within its group (the caller frees
 * it). */
static int group_by_key(const uint64_t *keys, gex_Rank_t n, gex_Rank_t me,
                        struct rank_list *out, gex_Rank_t *set_size, gex_Rank_t *set_rank,
                        gex_Rank_t **set_rank_of, uint32_t **index_p)
{
    struct gexi_rank_groups g;
    if (gexi_rank_groups(keys, n, &g) != 0) return GASNET_ERR_RESOURCE;
    int rc = list_group(&g, n, me, out);
    *set_size = g.count;
    *set_rank = g.group[me];
    *set_rank_of = g.group;   /* gex_Rank_t is uint32_t */
    if (index_p) *index_p = g.index;
    else free(g.index);
    return rc;
}

static uintptr_t page_down(uintptr_t x) { return x & ~(uintptr_t)(GASNET_PAGESIZE - 1); }

static uintptr_t default_max_local(gex_Rank_t ranks_on_host, int pshm)
{
    uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t lim = phys / 100 * 85 / (ranks_on_host ? ranks_on_host : 1);
    if (pshm) { /* segments live in /dev/shm: a small tmpfs is the real limit */
        struct statvfs sv;
        if (statvfs("/dev/shm", &sv) == 0) {
            uint64_t shm = (uint64_t)sv.f_bavail * sv.f_frsize / 100 * 90 / ranks_on_host;
            if (shm < lim) lim = shm;
        }
    }
    uint64_t env = gexi_env_max_segsize(phys, ranks_on_host);
    if (env && env < lim) lim = env;
    return page_down((uintptr_t)lim);
}

int gexi_system_init(void)
{
    gex_Rank_t n = gexi_core.jobsize, me = gexi_core.jobrank;
    uint64_t *keys = calloc(n, sizeof *keys);
    if (!keys) return GASNET_ERR_RESOURCE;
    uint64_t mine = my_host_id();
    if (gexi_bootstrap_exchange(&mine, sizeof mine, keys) != GASNET_OK) return GASNET_ERR_RESOURCE;
    uint32_t *host_index = NULL;   /* same-host ranks below each rank */
    int rc = group_by_key(keys, n, me, &host_list, &host_set_size, &host_set_rank,
                          &host_set_rank_of, &host_index);
    if (rc != GASNET_OK) {
        free(host_index);
        return rc;
    }

    long maxsize = gexi_getenv_int_range("GASNET_SUPERNODE_MAXSIZE", 0, 0, GEX_RANK_INVALID - 1);
    int pshm = gexi_segment_provider_available() && gexi_getenv_yesno("GEX_PSHM", 1) &&
               maxsize != 1;
    if (!pshm) { /* every process is its own nbrhd */
        for (gex_Rank_t r = 0; r < n; r++) keys[r] = r;
    } else if (maxsize > 1) { /* host members in groups of maxsize, in rank order */
        for (gex_Rank_t r = 0; r < n; r++)
            keys[r] = (keys[r] ^ 0x5bd1e995u) * 0x100000001b3ull +
                      host_index[r] / (uint64_t)maxsize;
    }
    free(host_index);
    rc = group_by_key(keys, n, me, &nbrhd_list, &nbrhd_set_size, &nbrhd_set_rank,
                      &nbrhd_set_rank_of, NULL);
    free(keys);
    if (rc != GASNET_OK) return rc;

    is_nbrhd = calloc(n, 1);
    nbrhd_jobranks = calloc(nbrhd_list.count, sizeof *nbrhd_jobranks);
    if (!is_nbrhd || !nbrhd_jobranks) return GASNET_ERR_RESOURCE;
    for (gex_Rank_t i = 0; i < nbrhd_list.count; i++) {
        nbrhd_jobranks[i] = nbrhd_list.info[i].gex_jobrank;
        is_nbrhd[nbrhd_jobranks[i]] = 1;
    }
    gexi_core.nbrhd_size = nbrhd_list.count;
    gexi_core.nbrhd_index = nbrhd_list.my_index;
    gexi_core.nbrhd_jobranks = nbrhd_jobranks;
    gexi_core.is_nbrhd = is_nbrhd;

    max_local_seg = default_max_local(host_list.count, pshm);
    uint64_t *all = calloc(n, sizeof *all), local = max_local_seg, global = local;
    if (!all) return GASNET_ERR_RESOURCE;
    if (gexi_bootstrap_exchange(&local, sizeof local, all) != GASNET_OK) return GASNET_ERR_RESOURCE;
    for (gex_Rank_t r = 0; r < n; r++) if (all[r] < global) global = all[r];
    free(all);
    max_global_seg = (uintptr_t)global;
    return GASNET_OK;
}

void gexi_system_rank_position(gex_Rank_t jobrank, gex_Rank_t *host_set_rank_p,
                               gex_Rank_t *nbrhd_set_rank_p)
{
    *host_set_rank_p = host_set_rank_of[jobrank];
    *nbrhd_set_rank_p = nbrhd_set_rank_of[jobrank];
}

gex_Rank_t gex_System_QueryJobRank(void) { return gexi_core.jobrank; }
gex_Rank_t gex_System_QueryJobSize(void) { return gexi_core.jobsize; }
uint64_t gex_System_QueryMaxThreads(void) { return gexi_core.thread_mode == 0 ? 1 : 1024; }
int gex_System_QueryHiddenAMConcurrencyLevel(void) { return 0; }
uintptr_t gasnet_getMaxLocalSegmentSize(void) { return max_local_seg; }
uintptr_t gasnet_getMaxGlobalSegmentSize(void) { return max_global_seg; }

static void query_list(const struct rank_list *l, gex_RankInfo_t **info_p,
                       gex_Rank_t *count_p, gex_Rank_t *my_index_p)
{
    if (info_p) *info_p = (gex_RankInfo_t *)l->info;
    if (count_p) *count_p = l->count;
    if (my_index_p) *my_index_p = l->my_index;
}

void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                               gex_Rank_t *my_info_index_p)
{
    query_list(&nbrhd_list, info_p, info_count_p, my_info_index_p);
}

void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                              gex_Rank_t *my_info_index_p)
{
    query_list(&host_list, info_p, info_count_p, my_info_index_p);
}

void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size_p, gex_Rank_t *nbrhd_set_rank_p,
                                gex_Rank_t *host_set_size_p, gex_Rank_t *host_set_rank_p)
{
    if (nbrhd_set_size_p) *nbrhd_set_size_p = nbrhd_set_size;
    if (nbrhd_set_rank_p) *nbrhd_set_rank_p = nbrhd_set_rank;
    if (host_set_size_p) *host_set_size_p = host_set_size;
    if (host_set_rank_p) *host_set_rank_p = host_set_rank;
}
