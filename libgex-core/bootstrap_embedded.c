/*
 * bootstrap_embedded.c: the bootstrap used under gexrun.
 *
 * gexrun forks every rank of the job on this machine and passes them one
 * shared "job region" (job_region.h).  This file implements the core's
 * bootstrap interface (struct gexi_bootstrap_ops, core_internal.h) on that
 * region: a central epoch barrier on atomics, an all-gather and a broadcast
 * that move data through each rank's exchange slot, and the two ends of the
 * job-ending protocol (abort() tells gexrun, aborting() and exit_code() hear
 * from it).
 *
 * The calls run before the conduit exists and while the job may be
 * oversubscribed (more ranks than cores), so every wait spins only briefly
 * before yielding and then napping, and gives up once the job is ending.
 * They are thread-compatible: the core calls them from one thread at a time.
 * Only atomics touch shared state in abort(), so it may run in a fatal
 * signal handler.
 */
#include "core_internal.h"
#include "job_region.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
    struct gexi_job_header *hdr;  /* NULL until init succeeds */
    size_t map_size;
    int fd;
    uint32_t rank, size;
    unsigned round;               /* data rounds so far: picks the slot half */
} job = { .fd = -1 };

/* Runs before logging is set up, so it writes to stderr itself, in one
 * write so that lines from several ranks do not interleave. */
static void job_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void job_error(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n = snprintf(line, sizeof(line), "GEX bootstrap (gexrun): ");
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    if (write(STDERR_FILENO, line, strlen(line)) < 0)
        return;   /* stderr is gone: nowhere left to complain */
}

/* ---- Waiting ---- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spin ~100 times, then yield a few times, then nap 1 us doubling to 1 ms:
 * a peer we wait for may need this very core (more ranks than cores). */
static void job_backoff(unsigned *spins)
{
    unsigned s = (*spins)++;
    if (s < 100) {
        cpu_relax();
    } else if (s < 110) {
        sched_yield();
    } else {
        unsigned shift = s - 110 < 10 ? s - 110 : 10;
        long ns = 1000L << shift;
        struct timespec nap = { 0, ns < 1000000L ? ns : 1000000L };
        nanosleep(&nap, NULL);
    }
}

static int embedded_aborting(void)
{
    return job.hdr ? (int)atomic_load(&job.hdr->ending) : 0;
}

/* ---- Init and fini ---- */

static int embedded_detect(void)
{
    return getenv(GEXI_JOB_ENV_FD) != NULL;
}

/* Parses environment variable `name` as an integer in [0, max]. */
static int env_uint(const char *name, unsigned long max, unsigned long *val_p)
{
    const char *s = getenv(name);
    if (!s || !*s) {
        job_error("%s is not set; start the program with gexrun", name);
        return -1;
    }
    if (gexi_job_parse_uint(s, max, val_p)) {
        job_error("%s=\"%s\" is not a number in [0, %lu]", name, s, max);
        return -1;
    }
    return 0;
}

/* Checks that the mapped region is what gexrun wrote for this job. */
static int check_region(const struct gexi_job_header *h, size_t mapped, unsigned long size,
                        const char *jobid)
{
    switch (gexi_job_region_check(h, mapped, size, jobid)) {
    case GEXI_JOB_REGION_OK:
        return 0;
    case GEXI_JOB_REGION_NOT_OURS:
        job_error("%s does not refer to a gexrun job region", GEXI_JOB_ENV_FD);
        break;
    case GEXI_JOB_REGION_VERSION:
        job_error("job region version %u, this library speaks %u: gexrun and libgex-core "
                  "come from different releases", h->version, GEXI_JOB_VERSION);
        break;
    case GEXI_JOB_REGION_SHAPE:
        job_error("job region does not match %s=%lu (region: %u ranks, %llu bytes)",
                  GEXI_JOB_ENV_SIZE, size, h->nranks, (unsigned long long)h->region_size);
        break;
    case GEXI_JOB_REGION_JOBID:
        job_error("%s=%s but the job region belongs to job %.*s", GEXI_JOB_ENV_ID, jobid,
                  (int)sizeof(h->jobid), h->jobid);
        break;
    }
    return -1;
}

/* Maps the region behind `fd`; the caller validates it. */
static struct gexi_job_header *map_region(int fd, size_t *size_p)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        job_error("%s=%d: %s (only processes started by gexrun can join its job)",
                  GEXI_JOB_ENV_FD, fd, strerror(errno));
        return NULL;
    }
    if (st.st_size < (off_t)sizeof(struct gexi_job_header)) {
        job_error("%s=%d does not refer to a gexrun job region", GEXI_JOB_ENV_FD, fd);
        return NULL;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        job_error("cannot map the job region: %s", strerror(errno));
        return NULL;
    }
    *size_p = (size_t)st.st_size;
    return p;
}

/* Marks this rank as joined; refuses a second process claiming the rank. */
static int claim_rank(struct gexi_job_header *h, uint32_t rank)
{
    struct gexi_job_rank *me = gexi_job_rank_of(h, rank);
    unsigned pid = (unsigned)getpid(), seen = 0;
    if (!atomic_compare_exchange_strong(&me->pid, &seen, pid) && seen != pid) {
        job_error("rank %u was already joined by process %u: two processes with the same %s?",
                  rank, seen, GEXI_JOB_ENV_RANK);
        return -1;
    }
    atomic_fetch_or(&me->state, GEXI_JOB_RANK_JOINED);
    return 0;
}

static int embedded_init(gex_Rank_t *rank_p, gex_Rank_t *size_p, char *jobid, size_t jobid_len)
{
    unsigned long fd, rank, size;
    const char *id = getenv(GEXI_JOB_ENV_ID);
    if (job.hdr) {
        job_error("bootstrap initialised twice");
        return GASNET_ERR_RESOURCE;
    }
    if (env_uint(GEXI_JOB_ENV_FD, INT_MAX, &fd) || env_uint(GEXI_JOB_ENV_SIZE,
        GEXI_JOB_MAX_RANKS, &size) || env_uint(GEXI_JOB_ENV_RANK, GEXI_JOB_MAX_RANKS, &rank))
        return GASNET_ERR_RESOURCE;
    if (size == 0 || rank >= size || !id || !*id) {
        job_error("inconsistent job environment: %s=%lu %s=%lu %s=%s", GEXI_JOB_ENV_RANK, rank,
                  GEXI_JOB_ENV_SIZE, size, GEXI_JOB_ENV_ID, id ? id : "(unset)");
        return GASNET_ERR_RESOURCE;
    }
    if (strlen(id) >= jobid_len) {
        job_error("job id %s longer than the %zu bytes offered", id, jobid_len);
        return GASNET_ERR_RESOURCE;
    }
    size_t mapped = 0;
    struct gexi_job_header *h = map_region((int)fd, &mapped);
    if (!h)
        return GASNET_ERR_RESOURCE;
    if (check_region(h, mapped, size, id) || claim_rank(h, (uint32_t)rank)) {
        munmap(h, mapped);
        return GASNET_ERR_RESOURCE;
    }
    /* Programs this rank execs must not inherit the job. */
    (void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    job.hdr = h;
    job.map_size = mapped;
    job.fd = (int)fd;
    job.rank = (uint32_t)rank;
    job.size = (uint32_t)size;
    job.round = 0;
    *rank_p = (gex_Rank_t)rank;
    *size_p = (gex_Rank_t)size;
    strcpy(jobid, id);
    return GASNET_OK;
}

static void embedded_fini(void)
{
    if (!job.hdr)
        return;
    atomic_fetch_or(&gexi_job_rank_of(job.hdr, job.rank)->state, GEXI_JOB_RANK_DETACHED);
    munmap(job.hdr, job.map_size);
    close(job.fd);
    job.hdr = NULL;
    job.fd = -1;
}

/* ---- Collectives ---- */

/* Central barrier: the last to arrive resets the count, then bumps the
 * epoch that the others wait on.  The epoch is read before arriving, so a
 * fast rank already in the next barrier cannot be confused with this one,
 * and the count is back to 0 before anyone can see the new epoch. */
static int embedded_barrier(void)
{
    struct gexi_job_header *h = job.hdr;
    if (!h)
        return GASNET_ERR_NOT_INIT;
    unsigned epoch = atomic_load(&h->bar_epoch);
    if (atomic_fetch_add(&h->bar_count, 1) == job.size - 1) {
        atomic_store(&h->bar_count, 0);
        atomic_fetch_add(&h->bar_epoch, 1);
        return GASNET_OK;
    }
    unsigned spins = 0;
    while (atomic_load(&h->bar_epoch) == epoch) {
        if (atomic_load(&h->ending))
            return GASNET_ERR_RESOURCE;   /* the job is ending: nobody else will come */
        job_backoff(&spins);
    }
    return GASNET_OK;
}

/* Round k of a collective uses half k%2 of the slots (see GEXI_JOB_SLOT_BYTES). */
static unsigned next_half(void)
{
    return job.round++ & 1u;
}

/* All-gather: `all` receives each rank's `len` bytes in rank order.  Longer
 * contributions travel in slot-sized chunks, one barrier per chunk. */
static int embedded_exchange(const void *mine, size_t len, void *all)
{
    if (!job.hdr)
        return GASNET_ERR_NOT_INIT;
    for (size_t off = 0; off < len; off += GEXI_JOB_CHUNK_BYTES) {
        size_t n = len - off < GEXI_JOB_CHUNK_BYTES ? len - off : GEXI_JOB_CHUNK_BYTES;
        unsigned half = next_half();
        memcpy(gexi_job_chunk(job.hdr, job.rank, half), (const char *)mine + off, n);
        int rc = embedded_barrier();
        if (rc != GASNET_OK)
            return rc;
        for (uint32_t r = 0; r < job.size; r++)
            memcpy((char *)all + (size_t)r * len + off, gexi_job_chunk(job.hdr, r, half), n);
    }
    return GASNET_OK;
}

/* Broadcast from `root`, through root's slot only. */
static int embedded_broadcast(void *buf, size_t len, gex_Rank_t root)
{
    if (!job.hdr)
        return GASNET_ERR_NOT_INIT;
    if (root >= job.size)
        return GASNET_ERR_BAD_ARG;
    for (size_t off = 0; off < len; off += GEXI_JOB_CHUNK_BYTES) {
        size_t n = len - off < GEXI_JOB_CHUNK_BYTES ? len - off : GEXI_JOB_CHUNK_BYTES;
        unsigned char *chunk = gexi_job_chunk(job.hdr, root, next_half());
        if (job.rank == root)
            memcpy(chunk, (const char *)buf + off, n);
        int rc = embedded_barrier();
        if (rc != GASNET_OK)
            return rc;
        if (job.rank != root)
            memcpy((char *)buf + off, chunk, n);
    }
    return GASNET_OK;
}

/* ---- Ending the job ---- */

/* Records that this rank ends the job with `exitcode`.  The first non-zero
 * code becomes the job's; gexrun gives the other ranks a short grace period
 * to notice aborting() and exit, then ends them. */
static void embedded_abort(int exitcode)
{
    struct gexi_job_header *h = job.hdr;
    if (!h)
        return;
    struct gexi_job_rank *me = gexi_job_rank_of(h, job.rank);
    atomic_store(&me->exit_code, exitcode);
    atomic_fetch_or(&me->state, GEXI_JOB_RANK_EXIT_REQ);   /* publishes exit_code */
    if (exitcode != 0) {
        unsigned none = 0;
        atomic_compare_exchange_strong(&h->exit_rank, &none, job.rank + 1);
    }
    atomic_fetch_or(&h->ending, GEXI_JOB_END_EXIT);
}

/* The code a rank leaves with once the job is ending: the first non-zero
 * gasnet_exit code, 0 if the job ends through gasnet_exit(0), 1 if gexrun
 * ended it (a rank failed, timeout, signal).  gexrun decides the job's own
 * status; this only keeps the ranks' statuses consistent with it. */
static int embedded_exit_code(void)
{
    struct gexi_job_header *h = job.hdr;
    if (!h)
        return 1;
    unsigned first = atomic_load(&h->exit_rank);
    if (first && first <= job.size)
        return atomic_load(&gexi_job_rank_of(h, first - 1)->exit_code);
    return atomic_load(&h->ending) == GEXI_JOB_END_EXIT ? 0 : 1;
}

const struct gexi_bootstrap_ops gexi_bootstrap_embedded = {
    .name = "gexrun",
    .detect = embedded_detect,
    .init = embedded_init,
    .barrier = embedded_barrier,
    .exchange = embedded_exchange,
    .broadcast = embedded_broadcast,
    .abort = embedded_abort,
    .aborting = embedded_aborting,
    .exit_code = embedded_exit_code,
    .fini = embedded_fini,
};
