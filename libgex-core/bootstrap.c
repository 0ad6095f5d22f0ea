/*
 * bootstrap.c: picks the bootstrap for this process (gexrun's embedded one,
 * PMIx under a PMIx launcher or, with no launcher, a singleton job) and
 * offers the job-wide exchange/barrier/broadcast to the other layers and to
 * the conduit.  Also
 * home of the poll-then-yield policy every waiting loop shares.
 */
#include "core_internal.h"
#include <sched.h>
#include <time.h>
#include <unistd.h>

const struct gexi_bootstrap_ops *gexi_bootstrap;

/* In order: gexrun (GEX_JOB_FD set), a PMIx launcher (PMIX_RANK or
 * PMIX_NAMESPACE set, bootstrap_pmix.c), else a job of one rank. */
static const struct gexi_bootstrap_ops *const candidates[] = {
    &gexi_bootstrap_embedded,
#ifdef GEXI_HAVE_PMIX   /* libgex-core/Makefile.inc, when configure found PMIx */
    &gexi_bootstrap_pmix,
#endif
    &gexi_bootstrap_singleton,
};

int gexi_bootstrap_select(void)
{
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (candidates[i]->detect()) {
            gexi_bootstrap = candidates[i];
            return GASNET_OK;
        }
    }
    return GASNET_ERR_RESOURCE;
}

GEXI_EXPORT int gexi_bootstrap_barrier(void) { return gexi_bootstrap->barrier(); }
GEXI_EXPORT int gexi_bootstrap_exchange(const void *mine, size_t len, void *all)
{
    return gexi_bootstrap->exchange(mine, len, all);
}
GEXI_EXPORT int gexi_bootstrap_broadcast(void *buf, size_t len, gex_Rank_t root)
{
    return gexi_bootstrap->broadcast(buf, len, root);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spin briefly (the answer is usually a few hundred ns away), then yield so
 * that oversubscribed jobs (more ranks than cores) still make progress, and
 * finally nap a little.  Every 256 rounds, look whether the job is ending. */
GEXI_EXPORT void gexi_backoff(unsigned *spins)
{
    unsigned s = ++*spins;
    if (s < 64) {
        cpu_relax();
    } else if (s < 4096) {
        sched_yield();
    } else {
        struct timespec ts = { 0, 20000 }; /* 20 us */
        nanosleep(&ts, NULL);
    }
    if ((s & 255) == 0 && gexi_bootstrap && gexi_bootstrap->aborting()) gexi_exit_now_aborting();
}
