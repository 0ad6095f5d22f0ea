/*
 * mp_init.c: gex_Client_Init and every query that works right after it, on
 * every rank, checked against each other through AM all-gathers.
 *
 * Covers: jobrank/size (vs gexrun's GEX_JOB_RANK/SIZE and vs every other
 * rank), the primordial objects and their queries (client name and flags, EP
 * index, team rank/size, rank translations), host and neighbourhood
 * information (one host here; nbrhd == host with PSHM, singletons without),
 * gex_System_QueryMyPosition consistency rules, AM limits (>= 512,
 * symmetric, stable, monotonic in numargs, TM-pair == team, each conduit's
 * default Medium limit exactly), client-data round
 * trips, gasnet_QueryGexObjects, segment size limits, gasnet_getenv and
 * GASNET_VERBOSEENV reporting, HSLs, and gasnet_AMPoll.
 */
#include "core_layer.h"   /* gexi_core.ops->name: the conduit's default limits (first:
                             mp_util.h's public headers end the internal view) */
#include "mp_util.h"
#include <fcntl.h>
#include <strings.h>

#define ENV_PROBE "MP_INIT_ENV_PROBE"

struct rank_facts {
    uint32_t jobrank, jobsize, tm_rank, tm_size;
    uint32_t host_count, host_index, nbrhd_count, nbrhd_index;
    uint32_t nbrhd_set_size, nbrhd_set_rank, host_set_size, host_set_rank;
    uint64_t max_local, max_global;
    uint64_t max_req_medium_to[8], max_rep_long_to[8]; /* for the first 8 ranks */
};

/* Reads fd from offset 0 into buf (NUL-terminated). */
static void read_all(int fd, char *buf, size_t cap)
{
    size_t got = 0;
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    buf[got] = 0;
}

/* Calls gasnet_getenv(name) with stderr captured; returns its value and
 * leaves what was printed in `printed`. */
static char *getenv_capturing_stderr(const char *name, char *printed, size_t cap)
{
    char path[] = "/tmp/mp_init_stderr.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    CHECK(saved >= 0);
    CHECK(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
    char *v = gasnet_getenv(name);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    read_all(fd, printed, cap);
    close(fd);
    return v;
}

static int int_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    /* Set before init: gasnet_getenv must see the process environment. */
    setenv(ENV_PROBE, "probe-value-42", 1);
    char name[] = "MP_INIT_2";
    char *argv0 = argv[0];
    int argc0 = argc;
    mp_init(&argc, &argv, name, GEX_FLAG_USES_GASNET1);
    memset(name, 'X', sizeof name - 1); /* the client must have kept its own copy */

    /* ---- Init outputs and job rank/size ---- */
    mp_phase("job queries");
    CHECK(mp_client != GEX_CLIENT_INVALID && mp_ep != GEX_EP_INVALID && mp_tm != GEX_TM_INVALID);
    CHECK_EQ(argc, argc0); /* gexrun passes no arguments GEX would strip */
    CHECK(argv[0] == argv0);
    gex_Rank_t me = gex_System_QueryJobRank(), n = gex_System_QueryJobSize();
    CHECK(n >= 1 && me < n);
    CHECK_EQ(gasnet_mynode(), me);
    CHECK_EQ(gasnet_nodes(), n);
    const char *env_rank = getenv("GEX_JOB_RANK"), *env_size = getenv("GEX_JOB_SIZE");
    if (env_rank) CHECK_EQ(me, strtoul(env_rank, NULL, 10));
    if (env_size) CHECK_EQ(n, strtoul(env_size, NULL, 10));

    /* ---- Client ---- */
    CHECK(!strcmp(gex_Client_QueryName(mp_client), "MP_INIT_2"));
    CHECK_EQ(gex_Client_QueryFlags(mp_client), GEX_FLAG_USES_GASNET1);

    /* ---- Primordial EP and team ---- */
    CHECK_EQ(gex_EP_QueryIndex(mp_ep), 0);
    CHECK_PTR_EQ(gex_EP_QueryClient(mp_ep), mp_client);
    CHECK_PTR_EQ(gex_EP_QuerySegment(mp_ep), GEX_SEGMENT_INVALID); /* nothing attached yet */
    CHECK_PTR_EQ(gex_TM_QueryClient(mp_tm), mp_client);
    CHECK_PTR_EQ(gex_TM_QueryEP(mp_tm), mp_ep);
    CHECK_EQ(gex_TM_QueryRank(mp_tm), me);
    CHECK_EQ(gex_TM_QuerySize(mp_tm), n);
    (void)gex_TM_QueryFlags(mp_tm);
    for (gex_Rank_t r = 0; r < n; r++) {
        CHECK_EQ(gex_TM_TranslateRankToJobrank(mp_tm, r), r);
        CHECK_EQ(gex_TM_TranslateJobrankToRank(mp_tm, r), r);
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(mp_tm, r, 0);
        CHECK_EQ(loc.gex_rank, r);
        CHECK_EQ(loc.gex_ep_index, 0);
    }

    /* ---- gasnet_QueryGexObjects (GEX_FLAG_USES_GASNET1) ---- */
    {
        gex_Client_t c = (gex_Client_t)1;
        gex_EP_t e = (gex_EP_t)1;
        gex_TM_t t = (gex_TM_t)1;
        gex_Segment_t s = (gex_Segment_t)1;
        gasnet_QueryGexObjects(&c, &e, &t, &s);
        CHECK_PTR_EQ(c, mp_client);
        CHECK_PTR_EQ(e, mp_ep);
        CHECK_PTR_EQ(t, mp_tm);
        CHECK_PTR_EQ(s, GEX_SEGMENT_INVALID);
        gasnet_QueryGexObjects(NULL, NULL, NULL, NULL); /* every output is optional */
        t = GEX_TM_INVALID;
        gasnet_QueryGexObjects(NULL, NULL, &t, NULL);
        CHECK_PTR_EQ(t, mp_tm);
    }

    /* ---- Client data: NULL on new objects, then round trips ---- */
    mp_phase("client data");
    CHECK_PTR_EQ(gex_Client_QueryCData(mp_client), NULL);
    CHECK_PTR_EQ(gex_EP_QueryCData(mp_ep), NULL);
    CHECK_PTR_EQ(gex_TM_QueryCData(mp_tm), NULL);
    static int cd_client, cd_ep, cd_tm;
    gex_Client_SetCData(mp_client, &cd_client);
    gex_EP_SetCData(mp_ep, &cd_ep);
    gex_TM_SetCData(mp_tm, &cd_tm);
    CHECK_PTR_EQ(gex_Client_QueryCData(mp_client), &cd_client);
    CHECK_PTR_EQ(gex_EP_QueryCData(mp_ep), &cd_ep);
    CHECK_PTR_EQ(gex_TM_QueryCData(mp_tm), &cd_tm);
    gex_TM_SetCData(mp_tm, NULL);
    CHECK_PTR_EQ(gex_TM_QueryCData(mp_tm), NULL);
    CHECK_PTR_EQ(gex_EP_QueryCData(mp_ep), &cd_ep); /* independent of each other */
    gex_TM_SetCData(mp_tm, &cd_tm);

    /* ---- Host and neighbourhood ---- */
    mp_phase("host and nbrhd info");
    int pshm = mp_pshm_enabled();
    gex_RankInfo_t *host_info = NULL, *nbrhd_info = NULL;
    gex_Rank_t host_count = 0, host_index = 99999, nbrhd_count = 0, nbrhd_index = 99999;
    gex_System_QueryHostInfo(&host_info, &host_count, &host_index);
    gex_System_QueryNbrhdInfo(&nbrhd_info, &nbrhd_count, &nbrhd_index);
    CHECK(host_info && nbrhd_info);
    /* every rank of a gexrun job runs on this one host; a multi-host
     * harness (tests/multihost) says how many hosts and ranks per host */
    const char *env_hosts = getenv("MP_EXPECT_HOSTS"), *env_per_host = getenv("MP_EXPECT_PER_HOST");
    const gex_Rank_t hosts = env_hosts ? (gex_Rank_t)atoi(env_hosts) : 1;
    const gex_Rank_t per_host = env_per_host ? (gex_Rank_t)atoi(env_per_host) : n;
    CHECK_EQ(host_count, per_host);
    CHECK(host_index < host_count);
    if (hosts == 1) {
        CHECK_EQ(host_index, me);
        for (gex_Rank_t i = 0; i < host_count; i++) CHECK_EQ(host_info[i].gex_jobrank, i);
    }
    for (gex_Rank_t i = 1; i < host_count; i++) /* sorted by jobrank */
        CHECK(host_info[i - 1].gex_jobrank < host_info[i].gex_jobrank);
    CHECK_EQ(host_info[host_index].gex_jobrank, me);
    if (pshm) {
        CHECK_EQ(nbrhd_count, host_count);
        for (gex_Rank_t i = 0; i < nbrhd_count; i++)
            CHECK_EQ(nbrhd_info[i].gex_jobrank, host_info[i].gex_jobrank);
    } else {
        CHECK_EQ(nbrhd_count, 1);
        CHECK_EQ(nbrhd_info[0].gex_jobrank, me);
    }
    CHECK(nbrhd_index < nbrhd_count);
    CHECK_EQ(nbrhd_info[nbrhd_index].gex_jobrank, me);
    for (gex_Rank_t i = 1; i < nbrhd_count; i++) /* sorted by jobrank */
        CHECK(nbrhd_info[i - 1].gex_jobrank < nbrhd_info[i].gex_jobrank);
    /* NULL outputs are allowed and change nothing */
    gex_System_QueryHostInfo(NULL, NULL, NULL);
    gex_System_QueryNbrhdInfo(NULL, NULL, NULL);
    gex_Rank_t c2 = 0;
    gex_System_QueryNbrhdInfo(NULL, &c2, NULL);
    CHECK_EQ(c2, nbrhd_count);
    gex_Rank_t nss = 9999, nsr = 9999, hss = 9999, hsr = 9999;
    gex_System_QueryMyPosition(&nss, &nsr, &hss, &hsr);
    CHECK_EQ(hss, hosts);
    CHECK(hsr < hss);
    CHECK_EQ(nss, pshm ? hosts : n);
    CHECK(nsr < nss);
    gex_System_QueryMyPosition(NULL, NULL, NULL, NULL);

    /* ---- Misc system queries ---- */
    CHECK(gex_System_QueryMaxThreads() >= 1);
    CHECK_EQ(gex_System_QueryHiddenAMConcurrencyLevel(), GASNET_HIDDEN_AM_CONCURRENCY_LEVEL);
    uintptr_t max_local = gasnet_getMaxLocalSegmentSize();
    uintptr_t max_global = gasnet_getMaxGlobalSegmentSize();
    CHECK(max_local >= GASNET_PAGESIZE && max_local % GASNET_PAGESIZE == 0);
    CHECK(max_global >= GASNET_PAGESIZE && max_global <= max_local);
    CHECK_EQ(gasnet_AMPoll(), GASNET_OK);

    /* ---- AM limits ---- */
    mp_phase("AM limits");
    CHECK_EQ(gex_AM_MaxArgs(), 16);
    size_t lub_rq_m = gex_AM_LUBRequestMedium(), lub_rp_m = gex_AM_LUBReplyMedium();
    size_t lub_rq_l = gex_AM_LUBRequestLong(), lub_rp_l = gex_AM_LUBReplyLong();
    CHECK(lub_rq_m >= 512 && lub_rp_m >= 512 && lub_rq_l >= 512 && lub_rp_l >= 512);
    gex_Event_t ev;
    gex_Event_t *lcs[] = { GEX_EVENT_NOW, GEX_EVENT_GROUP, &ev, NULL };
    gex_TM_t pair0 = gex_TM_Pair(mp_ep, 0);
    CHECK(pair0 != GEX_TM_INVALID);
    for (unsigned l = 0; l < 4; l++) {
        for (unsigned k = 0; k <= 16; k++) {
            gex_Rank_t ranks_to_try[] = { GEX_RANK_INVALID, 0, me, n - 1, (me + 1) % n };
            for (unsigned i = 0; i < sizeof ranks_to_try / sizeof ranks_to_try[0]; i++) {
                gex_Rank_t r = ranks_to_try[i];
                size_t rq_m = gex_AM_MaxRequestMedium(mp_tm, r, lcs[l], 0, k);
                size_t rp_m = gex_AM_MaxReplyMedium(mp_tm, r, lcs[l == 1 ? 0 : l], 0, k);
                size_t rq_l = gex_AM_MaxRequestLong(mp_tm, r, lcs[l], 0, k);
                size_t rp_l = gex_AM_MaxReplyLong(mp_tm, r, lcs[l == 1 ? 0 : l], 0, k);
                CHECK(rq_m >= 512 && rp_m >= 512 && rq_l >= 512 && rp_l >= 512);
                CHECK(rq_m >= lub_rq_m && rp_m >= lub_rp_m && rq_l >= lub_rq_l &&
                      rp_l >= lub_rp_l);
                /* stable: the same question gets the same answer */
                CHECK_EQ(gex_AM_MaxRequestMedium(mp_tm, r, lcs[l], 0, k), rq_m);
                CHECK_EQ(gex_AM_MaxRequestLong(mp_tm, r, lcs[l], 0, k), rq_l);
                /* independent of how the endpoints are named: TM-pair == team */
                if (r != GEX_RANK_INVALID) {
                    CHECK_EQ(gex_AM_MaxRequestMedium(pair0, r, lcs[l], 0, k), rq_m);
                    CHECK_EQ(gex_AM_MaxRequestLong(pair0, r, lcs[l], 0, k), rq_l);
                }
                if (k > 0) { /* monotonically non-increasing in numargs */
                    CHECK(gex_AM_MaxRequestMedium(mp_tm, r, lcs[l], 0, k) <=
                          gex_AM_MaxRequestMedium(mp_tm, r, lcs[l], 0, k - 1));
                    CHECK(gex_AM_MaxReplyLong(mp_tm, r, lcs[l == 1 ? 0 : l], 0, k) <=
                          gex_AM_MaxReplyLong(mp_tm, r, lcs[l == 1 ? 0 : l], 0, k - 1));
                }
            }
        }
    }

    /* The default Medium limit of each conduit, exactly (issue #27: at
     * least GASNet-EX 2025.8.0's, 65,416 bytes on smp and 65,512 on ucx):
     * smp 64 KiB with its default 256 KiB rings, 65,432 bytes with the 128
     * KiB rings of jobs above 32 ranks; ucx 64 KiB; ofi 16 KiB (docs/ofi.md,
     * "Settings").  Only when the job does not set them. */
    {
        const char *conduit = gexi_core.ops->name;
        size_t want_m = 0;
        if (!strcmp(conduit, "smp") && !getenv("GEX_SMP_MAX_MEDIUM") &&
            !getenv("GEX_SMP_RING_SIZE"))
            want_m = n > 32 ? 65432 : 65536;
        else if (!strcmp(conduit, "ucx") && !getenv("GEX_UCX_MAX_MEDIUM"))
            want_m = 65536;
        else if (!strcmp(conduit, "ofi") && !getenv("GEX_OFI_MAX_MEDIUM"))
            want_m = 16384;
        if (want_m) {
            CHECK_EQ(lub_rq_m, want_m);
            CHECK_EQ(lub_rp_m, want_m);
            CHECK_EQ(gex_AM_MaxRequestMedium(mp_tm, (me + 1) % n, GEX_EVENT_NOW, 0, 16), want_m);
            CHECK_EQ(gex_AM_MaxReplyMedium(mp_tm, (me + 1) % n, GEX_EVENT_NOW, 0, 16), want_m);
        }
    }

    /* ---- Facts of every rank, compared ---- */
    mp_phase("cross-rank consistency");
    struct rank_facts mine = {
        .jobrank = me, .jobsize = n, .tm_rank = gex_TM_QueryRank(mp_tm),
        .tm_size = gex_TM_QuerySize(mp_tm), .host_count = host_count, .host_index = host_index,
        .nbrhd_count = nbrhd_count, .nbrhd_index = nbrhd_index, .nbrhd_set_size = nss,
        .nbrhd_set_rank = nsr, .host_set_size = hss, .host_set_rank = hsr,
        .max_local = max_local, .max_global = max_global,
    };
    for (gex_Rank_t r = 0; r < n && r < 8; r++) {
        mine.max_req_medium_to[r] = gex_AM_MaxRequestMedium(mp_tm, r, GEX_EVENT_NOW, 0, 5);
        mine.max_rep_long_to[r] = gex_AM_MaxReplyLong(mp_tm, r, GEX_EVENT_NOW, 0, 5);
    }
    _Static_assert(sizeof(struct rank_facts) <= 512, "fits one all-gather Medium");
    struct rank_facts *all = calloc(n, sizeof *all);
    CHECK(all);
    mp_allgather(&mine, sizeof mine, all);
    uint32_t *nbrhd_ranks = calloc(n, sizeof *nbrhd_ranks);
    CHECK(nbrhd_ranks);
    for (gex_Rank_t r = 0; r < n; r++) {
        const struct rank_facts *f = &all[r];
        CHECK_EQ(f->jobrank, r);
        CHECK_EQ(f->tm_rank, r);
        CHECK_EQ(f->jobsize, n);
        CHECK_EQ(f->tm_size, n);
        CHECK_EQ(f->host_count, per_host);
        if (hosts == 1) CHECK_EQ(f->host_index, r);
        CHECK_EQ(f->nbrhd_count, nbrhd_count);
        CHECK_EQ(f->nbrhd_set_size, nss);   /* identical for all callers */
        CHECK_EQ(f->host_set_size, hss);
        if (hosts == 1) CHECK_EQ(f->host_set_rank, hsr); /* same host: same host_set_rank */
        CHECK_EQ(f->max_global, max_global); /* the job-wide minimum */
        CHECK(f->max_global <= f->max_local);
        nbrhd_ranks[r] = f->nbrhd_set_rank;
        /* AM limits are symmetric: my query about r == r's query about me */
        if (r < 8 && me < 8) {
            CHECK_EQ(f->max_req_medium_to[me], mine.max_req_medium_to[r]);
            CHECK_EQ(f->max_rep_long_to[me], mine.max_rep_long_to[r]);
        }
    }
    /* nbrhd_set_rank: same within a nbrhd, distinct across nbrhds */
    if (pshm) { /* a nbrhd is a host */
        for (gex_Rank_t r = 0; r < n; r++)
            CHECK_EQ(nbrhd_ranks[r] == nsr, all[r].host_set_rank == hsr);
    } else {
        qsort(nbrhd_ranks, n, sizeof *nbrhd_ranks, int_cmp);
        for (gex_Rank_t r = 0; r < n; r++) CHECK_EQ(nbrhd_ranks[r], r); /* a permutation */
    }

    /* ---- gasnet_getenv and GASNET_VERBOSEENV ---- */
    mp_phase("gasnet_getenv");
    char printed[4096];
    char *v = getenv_capturing_stderr(ENV_PROBE, printed, sizeof printed);
    CHECK(v && !strcmp(v, "probe-value-42"));
    int listed = strstr(printed, ENV_PROBE) && strstr(printed, "probe-value-42");
    /* GASNET_VERBOSEENV is a Boolean setting (README-gasnet-user): "0", "n", "no" turn it off */
    const char *ve = getenv("GASNET_VERBOSEENV");
    const int verbose = ve && (!strcmp(ve, "1") || !strcasecmp(ve, "y") || !strcasecmp(ve, "yes"));
    if (verbose && me == 0)
        CHECK_MSG(listed, "GASNET_VERBOSEENV: rank 0 did not report %s (stderr: '%s')",
                  ENV_PROBE, printed);
    else
        CHECK_MSG(!listed, "%s was reported without GASNET_VERBOSEENV (or on rank %u)",
                  ENV_PROBE, (unsigned)me);
    /* a setting is reported once */
    v = getenv_capturing_stderr(ENV_PROBE, printed, sizeof printed);
    CHECK(v && !strcmp(v, "probe-value-42"));
    CHECK(!strstr(printed, ENV_PROBE));
    CHECK_PTR_EQ(gasnet_getenv("MP_INIT_SURELY_NOT_SET_X1"), NULL);
    CHECK_PTR_EQ(gasnet_getenv(NULL), NULL);

    /* ---- HSLs ---- */
    mp_phase("HSL");
    static gex_HSL_t static_hsl = GEX_HSL_INITIALIZER;
    gex_HSL_t hsl;
    gex_HSL_Init(&hsl);
    gex_HSL_Lock(&hsl);
    gex_HSL_Unlock(&hsl);
    CHECK_EQ(gex_HSL_Trylock(&hsl), GASNET_OK);
    gex_HSL_Unlock(&hsl);
    gex_HSL_Destroy(&hsl);
    gex_HSL_Lock(&static_hsl);
    gex_HSL_Unlock(&static_hsl);

    /* ---- Attach, then the segment shows up in the queries ---- */
    mp_phase("attach");
    mp_attach(GASNET_PAGESIZE * (1 + me % 3));
    gex_Segment_t s = GEX_SEGMENT_INVALID;
    gasnet_QueryGexObjects(NULL, NULL, NULL, &s);
    CHECK_PTR_EQ(s, mp_seg);
    CHECK_PTR_EQ(gex_EP_QuerySegment(mp_ep), mp_seg);
    CHECK_PTR_EQ(gex_Segment_QueryCData(mp_seg), NULL);
    gex_Segment_SetCData(mp_seg, &cd_tm);
    CHECK_PTR_EQ(gex_Segment_QueryCData(mp_seg), &cd_tm);
    CHECK_EQ(gex_Segment_QuerySize(mp_seg), GASNET_PAGESIZE * (1 + me % 3));
    /* CData survived everything above */
    CHECK_PTR_EQ(gex_Client_QueryCData(mp_client), &cd_client);
    CHECK_PTR_EQ(gex_EP_QueryCData(mp_ep), &cd_ep);
    CHECK_PTR_EQ(gex_TM_QueryCData(mp_tm), &cd_tm);

    free(all);
    free(nbrhd_ranks);
    mp_finish("queries consistent (pshm=%d, nbrhds=%u, max segment %zu MiB)", pshm,
              (unsigned)nss, (size_t)(max_global >> 20));
}
