/*
 * bootstrap_pmix.c: the bootstrap used when a PMIx launcher started the
 * process (Open MPI's mpirun, prterun, Slurm's srun --mpi=pmix): the
 * launcher exports PMIX_RANK and PMIX_NAMESPACE, and this file implements
 * the core's bootstrap interface (struct gexi_bootstrap_ops,
 * core_internal.h) on the PMIx client library.  Built only when configure
 * found PMIx (GEXI_HAVE_PMIX); bootstrap.c tries it after gexrun's embedded
 * bootstrap and before the singleton one.
 *
 *   rank, size   PMIx_Init's proc rank; PMIX_JOB_SIZE of the namespace
 *   job id       "p" and a hash of the namespace: equal on every rank,
 *                unique per job, usable in OS object names
 *   all-gather   each rank PMIx_Puts its block under a per-round key,
 *                PMIx_Commit, a data-collecting PMIx_Fence, then PMIx_Get
 *                of every rank's block
 *   broadcast    the root's block under a per-round key, same fence
 *   barrier      PMIx_Fence without data
 *   abort        PMIx_Abort with the code, 0 included: the launcher ends
 *                every rank and the job's status is the code (Open MPI's
 *                mpirun reports 0 for PMIx_Abort(0), and prints nothing)
 *   fini         PMIx_Finalize: this rank leaves cleanly
 *
 * Unlike gexrun, a PMIx launcher ends the job only when a rank fails (a
 * non-zero exit status, a signal, PMIx_Abort): a rank that finalizes and
 * exits 0 while others still wait for it leaves them waiting.  So this
 * bootstrap sets exit_notice, and gasnet_exit (exit.c) first tells the
 * other ranks with core AMs, waits for their answers, and calls abort()
 * only if some rank did not answer in time or the code is not 0.  (A PMIx
 * event does not reach the other ranks under Open MPI 4.1's mpirun, and
 * PMIx_Finalize after PMIx_Notify_event hangs there; see docs/ofi.md.)
 *
 * The calls are thread-compatible: the core calls them from one thread at
 * a time, like the other bootstraps.
 */
#include "core_internal.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int initialized, finalized;
    pmix_proc_t me;
    gex_Rank_t rank, size;
    unsigned round;              /* collective rounds so far: key suffix */
    atomic_int ending, code;
} px;

static void pmix_error(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "GEX bootstrap (PMIx): %s: %s\n", what, PMIx_Error_string(rc));
}

static int pmix_detect(void)
{
    return getenv("GEX_JOB_FD") == NULL &&
           (getenv("PMIX_RANK") != NULL || getenv("PMIX_NAMESPACE") != NULL);
}

static void pmix_finalize_once(void)
{
    if (px.initialized && !px.finalized) {
        px.finalized = 1;
        PMIx_Finalize(NULL, 0);
    }
}

static int pmix_init(gex_Rank_t *rank_p, gex_Rank_t *size_p, char *jobid, size_t jobid_len)
{
    pmix_status_t rc = PMIx_Init(&px.me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        pmix_error("PMIx_Init", rc);
        return GASNET_ERR_RESOURCE;
    }
    px.initialized = 1;
    atexit(pmix_finalize_once);   /* a rank that returns from main leaves cleanly */

    pmix_proc_t wild;
    PMIX_PROC_CONSTRUCT(&wild);
    PMIX_LOAD_PROCID(&wild, px.me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *val = NULL;
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || !val) {
        pmix_error("PMIx_Get(PMIX_JOB_SIZE)", rc);
        return GASNET_ERR_RESOURCE;
    }
    uint32_t size = val->type == PMIX_UINT32 ? val->data.uint32
                  : val->type == PMIX_INT ? (uint32_t)val->data.integer : 0;
    PMIX_VALUE_RELEASE(val);
    if (size == 0 || px.me.rank >= size) {
        fprintf(stderr, "GEX bootstrap (PMIx): rank %u of a job of %u ranks\n",
                (unsigned)px.me.rank, (unsigned)size);
        return GASNET_ERR_RESOURCE;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = px.me.nspace; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    int n = snprintf(jobid, jobid_len, "p%016llx", (unsigned long long)h);
    if (n < 0 || (size_t)n >= jobid_len) return GASNET_ERR_RESOURCE;
    px.rank = (gex_Rank_t)px.me.rank;
    px.size = (gex_Rank_t)size;
    px.round = 0;
    *rank_p = px.rank;
    *size_p = px.size;
    return GASNET_OK;
}

static void pmix_fini(void)
{
    pmix_finalize_once();
}

/* A fence over the whole namespace, collecting the data put before it. */
static int pmix_fence(int collect)
{
    pmix_info_t info;
    bool flag = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        pmix_error("PMIx_Fence", rc);
        return GASNET_ERR_RESOURCE;
    }
    return GASNET_OK;
}

static int pmix_barrier(void)
{
    if (!px.initialized) return GASNET_ERR_NOT_INIT;
    return pmix_fence(0);
}

static int pmix_put(const char *key, const void *data, size_t len)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)data;   /* PMIx_Put copies */
    v.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        pmix_error("PMIx_Put", rc);
        return GASNET_ERR_RESOURCE;
    }
    return GASNET_OK;
}

static int pmix_get(gex_Rank_t r, const char *key, void *data, size_t len)
{
    pmix_proc_t p;
    PMIX_PROC_CONSTRUCT(&p);
    PMIX_LOAD_PROCID(&p, px.me.nspace, r);
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || !val) {
        pmix_error("PMIx_Get", rc);
        return GASNET_ERR_RESOURCE;
    }
    int ok = val->type == PMIX_BYTE_OBJECT && val->data.bo.size == len;
    if (ok && len) memcpy(data, val->data.bo.bytes, len);
    PMIX_VALUE_RELEASE(val);
    if (!ok) {
        fprintf(stderr, "GEX bootstrap (PMIx): rank %u's %s is not %zu bytes (ranks disagree "
                "on a collective's size)\n", (unsigned)r, key, len);
        return GASNET_ERR_RESOURCE;
    }
    return GASNET_OK;
}

static int pmix_exchange(const void *mine, size_t len, void *all)
{
    if (!px.initialized) return GASNET_ERR_NOT_INIT;
    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof key, "gex.x.%u", px.round++);
    int rc = pmix_put(key, mine, len);
    int frc = pmix_fence(1);   /* every rank fences, even after a failed put */
    if (rc || frc) return GASNET_ERR_RESOURCE;
    for (gex_Rank_t r = 0; r < px.size; r++) {
        if (r == px.rank) {
            memmove((char *)all + (size_t)r * len, mine, len);
            continue;
        }
        if ((rc = pmix_get(r, key, (char *)all + (size_t)r * len, len))) return rc;
    }
    return GASNET_OK;
}

static int pmix_broadcast(void *buf, size_t len, gex_Rank_t root)
{
    if (!px.initialized) return GASNET_ERR_NOT_INIT;
    if (root >= px.size) return GASNET_ERR_BAD_ARG;
    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof key, "gex.b.%u", px.round++);
    int rc = px.rank == root ? pmix_put(key, buf, len) : GASNET_OK;
    int frc = pmix_fence(1);
    if (rc || frc) return GASNET_ERR_RESOURCE;
    return px.rank == root ? GASNET_OK : pmix_get(root, key, buf, len);
}

/* The launcher ends every rank, the job's status is exitcode (0 too: see
 * the top of this file).  May run in a fatal error path. */
static void pmix_abort(int exitcode)
{
    atomic_store(&px.code, exitcode);
    atomic_store(&px.ending, 1);
    if (!px.initialized || px.finalized) return;
    char msg[64];
    snprintf(msg, sizeof msg, "GEX: rank %u ended the job with exit code %d",
             (unsigned)px.rank, exitcode);
    PMIx_Abort(exitcode, msg, NULL, 0);
}

static int pmix_aborting(void)
{
    return atomic_load(&px.ending);
}

static int pmix_exit_code(void)
{
    return atomic_load(&px.code);
}

const struct gexi_bootstrap_ops gexi_bootstrap_pmix = {
    .name = "pmix",
    .detect = pmix_detect,
    .init = pmix_init,
    .barrier = pmix_barrier,
    .exchange = pmix_exchange,
    .broadcast = pmix_broadcast,
    .abort = pmix_abort,
    .aborting = pmix_aborting,
    .exit_code = pmix_exit_code,
    .fini = pmix_fini,
    .exit_notice = 1,
};
