/*
 * bootstrap.c: picks the bootstrap for this process (gexrun's embedded one,
 * PMIx under a PMIx launcher or, with no launcher, a singleton job) and
 * offers the job-wide exchange/barrier/broadcast to the other layers and to
 * the conduit.  Also
 * home of the poll-then-yield policy every waiting loop shares.
 */
#include "core_internal.h"
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <strings.h>
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

/* A bootstrap collective fails when the job is ending under it (another
 * rank called gasnet_exit, or died).  Then this rank leaves the way every
 * other wait in GEX does, with the job's exit code, instead of handing the
 * client an error for a collective nobody else will finish (GASNet's
 * testexit 7: gasnet_exit on one rank while the others attach). */
static int ended_or(int rc)
{
    if (rc != GASNET_OK && gexi_bootstrap->aborting && gexi_bootstrap->aborting())
        gexi_exit_now_aborting();
    return rc;
}
GEXI_EXPORT int gexi_bootstrap_barrier(void) { return ended_or(gexi_bootstrap->barrier()); }
GEXI_EXPORT int gexi_bootstrap_exchange(const void *mine, size_t len, void *all)
{
    return ended_or(gexi_bootstrap->exchange(mine, len, all));
}
GEXI_EXPORT int gexi_bootstrap_broadcast(void *buf, size_t len, gex_Rank_t root)
{
    return ended_or(gexi_bootstrap->broadcast(buf, len, root));
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* May an idle wait sleep?  (Issue 8.)  A conduit with native one-sided
 * operations (GEX_CONDUIT_CAP_RMA / _AMO: ofi on tcp;ofi_rxm or sockets)
 * may need this rank to call into it for a peer's put, get or atomic to
 * progress, and nothing tells the rank that one is coming: no handler runs.
 * A 20 us nap (70 us and more with the kernel's timer slack) then lands on
 * every such operation, so those conduits' idle waits yield instead of
 * sleeping, as GASNet's do, unless the host is oversubscribed (more of the
 * job's ranks, or of anyone's runnable threads, than CPUs:
 * host_oversubscribed): there spinning waiters would starve the ranks with
 * work (a flood to one rank took twice as long), and naps stay.
 * GEX_IDLE_SLEEP=yes/no overrides (auto). */
static _Atomic int idle_sleep_env = -2;   /* -2 unread, -1 auto, 0 no, 1 yes */

/* Client init reads GEX_IDLE_SLEEP, so a typo ends the job at start, not at
 * the first idle wait (which a short job may never reach). */
void gexi_idle_sleep_read_env(void)
{
    const char *v = gexi_getenv("GEX_IDLE_SLEEP");
    int e = !v || !*v || !strcasecmp(v, "auto") ? -1
          : !strcasecmp(v, "yes") || !strcmp(v, "1") ? 1
          : !strcasecmp(v, "no") || !strcmp(v, "0") ? 0 : -3;
    if (e == -3) gexi_fatal("environment variable GEX_IDLE_SLEEP='%s' is not auto, yes or no", v);
    atomic_store_explicit(&idle_sleep_env, e, memory_order_relaxed);
}

static long online_cpus(void)
{
    static _Atomic long cpus = 0;
    long ncpu = atomic_load_explicit(&cpus, memory_order_relaxed);
    if (GEXI_UNLIKELY(!ncpu)) {
        ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        if (ncpu < 1) ncpu = 1;
        atomic_store_explicit(&cpus, ncpu, memory_order_relaxed);
    }
    return ncpu;
}

/* Is this host running more than it has CPUs for: more of this job's ranks
 * than CPUs, or (issue 27) more runnable threads than CPUs whoever they
 * belong to?  Then a waiter that keeps yielding takes CPU time from the
 * ranks with work (each yield is a trip through the scheduler that mostly
 * hands the CPU straight back), so it must nap, and soon.  The run queue
 * is read from /proc/loadavg's "running" count at most every 50 ms (a
 * waiter reads it, nobody else), so the check costs nothing on a fast
 * path: waits that end within the spin phase never get here. */
static int host_oversubscribed(void)
{
    static _Atomic int verdict = 0;
    static _Atomic long next_ms = 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    long ms = (long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    if (ms < atomic_load_explicit(&next_ms, memory_order_relaxed))
        return atomic_load_explicit(&verdict, memory_order_relaxed);
    atomic_store_explicit(&next_ms, ms + 50, memory_order_relaxed);
    long ncpu = online_cpus();
    gex_Rank_t on_host = 0;   /* 0 until the client's system info exists */
    gex_System_QueryHostInfo(NULL, &on_host, NULL);
    int v = (long)on_host > ncpu;
    if (!v) {
        /* "0.52 0.58 0.59 3/120 4242": runnable/total scheduling entities,
         * this waiter included (and one more: a launcher or shell passing by) */
        char buf[128];
        int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n > 0) {
                buf[n] = 0;
                double l1, l5, l15;
                long running, total;
                if (sscanf(buf, "%lf %lf %lf %ld/%ld", &l1, &l5, &l15, &running, &total) == 5)
                    v = running > ncpu + 1 || l1 > 1.5 * (double)ncpu;
            }
        }
    }
    atomic_store_explicit(&verdict, v, memory_order_relaxed);
    return v;
}

static int idle_may_sleep(void)
{
    int e = atomic_load_explicit(&idle_sleep_env, memory_order_relaxed);
    if (GEXI_UNLIKELY(e == -2)) { /* a wait before client init (a bootstrap's) */
        gexi_idle_sleep_read_env();
        e = atomic_load_explicit(&idle_sleep_env, memory_order_relaxed);
    }
    if (e >= 0) return e;
    if (!(gexi_core.caps.flags & (GEX_CONDUIT_CAP_RMA | GEX_CONDUIT_CAP_AMO))) return 1;
    return host_oversubscribed();
}

/* Spin briefly (the answer is usually a few hundred ns away), then yield so
 * that jobs with more ranks than cores still make progress, and finally
 * nap a little (unless idle_may_sleep says no).  The yield phase is short
 * when the host is oversubscribed (issue 27: ranks outnumbering cores back
 * off instead of spinning the ranks with work out): gexi_wait_step.
 * Skipping it there was tried (issue 28) and measured on 2 cores; it is a
 * trade, not a win, so the yields stay:
 *   4-rank AM round-trip test (mp_rma, no PSHM) alone     1.6-2.3 s | napping at once 2.3-3.1 s
 *     the same beside two busy loops                      18-22 s   | 4.4-7.4 s
 *   multi-process suite, make -j2, alone                  163 s     | 178 s
 *     the same beside a looping make -j2                  341 s     | 292-301 s
 *   whole ./gex-dev check, distcheck stage                1911 s    | 2107 s
 * Even 16 yields before the nap cost as much as 256 beside busy loops (19 s):
 * a yield there hands the CPU to the busy process for a whole time slice.
 * Every 256 rounds, and at once after an exit notice, look whether the job
 * is ending. */
GEXI_EXPORT void gexi_backoff(unsigned *spins)
{
    unsigned s = ++*spins;
    if (s < GEXI_WAIT_SPIN_ROUNDS) {
        cpu_relax();   /* no look at the host's load on this path */
    } else if (s < GEXI_WAIT_YIELD_ROUNDS_OVER ||   /* every wait yields this long: no look needed */
               gexi_wait_step(s, s < GEXI_WAIT_YIELD_ROUNDS && host_oversubscribed(),
                              idle_may_sleep()) == GEXI_WAIT_YIELD) {
        sched_yield();
    } else {
        struct timespec ts = { 0, 20000 }; /* 20 us */
        nanosleep(&ts, NULL);
    }
    if ((s & 255) == 0 || atomic_load_explicit(&gexi_exit_noticed, memory_order_relaxed))
        gexi_exit_check();
}
