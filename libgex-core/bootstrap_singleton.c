/*
 * bootstrap_singleton.c: the bootstrap of a program started without a
 * launcher.  It is a job of one rank, so collectives are copies and abort
 * only has to remember that the job is ending.  It still needs a job id
 * that is unique on the machine, because every named OS object of a job
 * (shm segments, ...) is called "/gex-<jobid>-<what>".
 */
#include "core_internal.h"
#include "job_region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Atomics: abort() may run in a fatal signal handler. */
static atomic_int singleton_ending, singleton_code;

static int singleton_detect(void)
{
    return getenv(GEXI_JOB_ENV_FD) == NULL;
}

/* 32 random bits; falls back to time and pid if getrandom has nothing. */
static uint32_t random_bits(void)
{
    uint32_t r;
    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
        return r;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)ts.tv_nsec ^ ((uint32_t)ts.tv_sec << 20) ^ (uint32_t)getpid();
}

static int singleton_init(gex_Rank_t *rank_p, gex_Rank_t *size_p, char *jobid, size_t jobid_len)
{
    int n = snprintf(jobid, jobid_len, "s%ld-%08x", (long)getpid(), (unsigned)random_bits());
    if (n < 0 || (size_t)n >= jobid_len)
        return GASNET_ERR_RESOURCE;
    *rank_p = 0;
    *size_p = 1;
    atomic_store(&singleton_ending, 0);
    atomic_store(&singleton_code, 0);
    return GASNET_OK;
}

static int singleton_barrier(void)
{
    return GASNET_OK;
}

static int singleton_exchange(const void *mine, size_t len, void *all)
{
    memmove(all, mine, len);
    return GASNET_OK;
}

static int singleton_broadcast(void *buf, size_t len, gex_Rank_t root)
{
    (void)buf, (void)len;   /* rank 0 already holds the data */
    return root == 0 ? GASNET_OK : GASNET_ERR_BAD_ARG;
}

static void singleton_abort(int exitcode)
{
    atomic_store(&singleton_code, exitcode);   /* there is no one else to tell */
    atomic_store(&singleton_ending, 1);
}

static int singleton_aborting(void)
{
    return atomic_load(&singleton_ending);
}

static int singleton_exit_code(void)
{
    return atomic_load(&singleton_code);
}

static void singleton_fini(void)
{
}

const struct gexi_bootstrap_ops gexi_bootstrap_singleton = {
    .name = "singleton",
    .detect = singleton_detect,
    .init = singleton_init,
    .barrier = singleton_barrier,
    .exchange = singleton_exchange,
    .broadcast = singleton_broadcast,
    .abort = singleton_abort,
    .aborting = singleton_aborting,
    .exit_code = singleton_exit_code,
    .fini = singleton_fini,
};
