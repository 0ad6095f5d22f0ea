/*
 * bootstrap_probe.c: a test program for gexrun and the embedded bootstrap,
 * linked directly with bootstrap_embedded.c and bootstrap_singleton.c (no
 * libgex-core, no conduit).  tests/mp/test_gexrun.sh runs it under gexrun.
 *
 *   bootstrap_probe MODE [extra args are ignored: tests pass a marker]
 *
 * Every mode first joins the job and checks the collectives: rank, size and
 * job id against the environment, barrier loops, 1-byte and multi-chunk
 * all-gathers, broadcasts from every root.  It also creates the shm object
 * "/gex-<jobid>-probe<rank>" and leaves it, so the test can prove gexrun
 * removes it.  Then the mode decides how the rank ends:
 *
 *   normal   fini, exit 0                       (job: 0)
 *   gexit0   abort(0) and exit 0 on every rank, like gasnet_exit(0) (job: 0)
 *   exit3    rank size-1 calls abort(3) and exits 3; the others wait in
 *            barriers until aborting() stops them, then exit with
 *            exit_code() as libgex-core does (job: 3)
 *   leave0   rank 0 exits 0 without abort or fini; the others wait (job: 0)
 *   kill1    rank 1 SIGKILLs itself; the others wait in barriers (job: 137)
 *   hang1    rank 1 ignores SIGTERM and sleeps forever; rank 0 exits 5
 *            without abort; the others wait in barriers (job: 5)
 *   exit0hang rank 1 ignores SIGTERM and sleeps forever; rank 0 calls
 *            abort(0) and exits 0; the others wait in barriers (job: 0)
 *   hang     every rank sleeps (timeout and signal tests)
 *   stdin    prints what rank 0 reads from stdin, and that the others see EOF
 *   env      rank 0 prints GEX_CONDUIT
 *
 * PROBE_ITERS (default 300) sets the length of the barrier/exchange loops.
 * Exit status 10 means a check failed.
 */
#include "core_internal.h"
#include "job_region.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define EXIT_CHECK_FAILED 10

static const struct gexi_bootstrap_ops *bs;
static gex_Rank_t me, nranks;
static char jobid[GEXI_JOB_ID_MAX];

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "probe rank %u: FAIL: ", me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(EXIT_CHECK_FAILED);
}

static void check_rc(int rc, const char *what)
{
    if (rc != GASNET_OK)
        fail("%s returned %d (aborting=%d)", what, rc, bs->aborting());
}

static void join(void)
{
    me = getenv(GEXI_JOB_ENV_RANK) ? (gex_Rank_t)atol(getenv(GEXI_JOB_ENV_RANK)) : 0;  /* for fail() */
    bs = gexi_bootstrap_embedded.detect() ? &gexi_bootstrap_embedded : &gexi_bootstrap_singleton;
    if (bs->detect() != 1 || (bs == &gexi_bootstrap_singleton) == gexi_bootstrap_embedded.detect())
        fail("detect() of the two bootstraps disagree");
    check_rc(bs->init(&me, &nranks, jobid, sizeof(jobid)), "init");
    const char *r = getenv(GEXI_JOB_ENV_RANK), *n = getenv(GEXI_JOB_ENV_SIZE),
               *id = getenv(GEXI_JOB_ENV_ID);
    if (bs == &gexi_bootstrap_embedded &&
        (!r || !n || !id || atol(r) != (long)me || atol(n) != (long)nranks || strcmp(id, jobid)))
        fail("init gave rank %u of %u, job %s; environment says %s of %s, job %s", me, nranks,
             jobid, r ? r : "-", n ? n : "-", id ? id : "-");
    if (bs == &gexi_bootstrap_singleton && (me != 0 || nranks != 1 || jobid[0] != 's'))
        fail("singleton init gave rank %u of %u, job %s", me, nranks, jobid);
}

/* A named shm object left behind on purpose (gexrun must remove it). */
static void leave_shm_object(void)
{
    char name[GEXI_JOB_ID_MAX + 32];
    snprintf(name, sizeof(name), "/gex-%s-probe%u", jobid, me);
    int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0)
        fail("shm_open(%s): %s", name, strerror(errno));
    close(fd);
    if (bs == &gexi_bootstrap_singleton)
        shm_unlink(name);   /* no gexrun to clean up after us */
}

static unsigned char pattern(unsigned rank, size_t i, unsigned salt)
{
    return (unsigned char)(rank * 31u + i * 7u + salt * 13u + (i >> 8));
}

/* All-gather of `len` bytes; checks every rank's contribution. */
static void check_exchange(size_t len, unsigned salt)
{
    unsigned char *mine = malloc(len ? len : 1), *all = malloc(len * nranks + 1);
    if (!mine || !all)
        fail("out of memory");
    for (size_t i = 0; i < len; i++)
        mine[i] = pattern(me, i, salt);
    check_rc(bs->exchange(mine, len, all), "exchange");
    for (unsigned r = 0; r < nranks; r++)
        for (size_t i = 0; i < len; i++)
            if (all[r * len + i] != pattern(r, i, salt))
                fail("exchange of %zu bytes: byte %zu from rank %u is %u, not %u", len, i, r,
                     all[r * len + i], pattern(r, i, salt));
    free(mine);
    free(all);
}

static void check_broadcast(size_t len, gex_Rank_t root, unsigned salt)
{
    unsigned char *buf = malloc(len ? len : 1);
    if (!buf)
        fail("out of memory");
    for (size_t i = 0; i < len; i++)
        buf[i] = me == root ? pattern(root, i, salt) : 0xee;
    check_rc(bs->broadcast(buf, len, root), "broadcast");
    for (size_t i = 0; i < len; i++)
        if (buf[i] != pattern(root, i, salt))
            fail("broadcast of %zu bytes from %u: byte %zu is %u", len, root, i, buf[i]);
    free(buf);
}

static void check_collectives(void)
{
    long iters = getenv("PROBE_ITERS") ? atol(getenv("PROBE_ITERS")) : 300;
    for (long i = 0; i < iters; i++)
        check_rc(bs->barrier(), "barrier");
    for (long i = 0; i < iters; i++)
        check_exchange(1, (unsigned)i);
    check_exchange(0, 0);
    check_exchange(GEXI_JOB_CHUNK_BYTES, 1);
    check_exchange(2 * GEXI_JOB_SLOT_BYTES + 123, 2);   /* several chunks */
    for (gex_Rank_t root = 0; root < nranks; root++) {
        check_broadcast(1, root, root);
        check_broadcast(GEXI_JOB_SLOT_BYTES + 77, root, root + 1);
    }
    if (bs->broadcast(jobid, 1, nranks) != GASNET_ERR_BAD_ARG)
        fail("broadcast from rank %u (out of range) did not fail", nranks);
    if (bs->aborting())
        fail("aborting() is %d in a healthy job", bs->aborting());
    check_rc(bs->barrier(), "barrier");
}

/* What the ranks that are not the cause do: wait in barriers until the job
 * ends (aborting() makes the barrier fail), then leave with the job's code
 * as libgex-core's backoff does. */
static void __attribute__((noreturn)) wait_for_end(void)
{
    while (bs->barrier() == GASNET_OK)
        ;
    int code = bs->exit_code();
    fprintf(stderr, "probe rank %u: barrier ended: aborting=%d exit_code=%d\n", me,
            bs->aborting(), code);
    exit(code);
}

static void __attribute__((noreturn)) sleep_forever(int ignore_term)
{
    if (ignore_term)
        signal(SIGTERM, SIG_IGN);
    for (;;)
        pause();
}

/* As gasnet_exit does: record the code, leave without fini. */
static void __attribute__((noreturn)) gasnet_exit_like(int code)
{
    fflush(stdout);
    bs->abort(code);
    if (!bs->aborting() || bs->exit_code() != code)
        fail("after abort(%d): aborting=%d exit_code=%d", code, bs->aborting(), bs->exit_code());
    _exit(code);
}

static void read_stdin(void)
{
    char line[256];
    if (fgets(line, sizeof(line), stdin)) {
        line[strcspn(line, "\n")] = '\0';
        printf("rank %u stdin: %s\n", me, line);
    } else {
        printf("rank %u stdin: EOF\n", me);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    join();
    /* Printed before any rank can fail, so the test always learns the job id. */
    if (me == 0)
        printf("probe: rank 0 joined job %s\n", jobid);
    fflush(stdout);
    leave_shm_object();
    check_collectives();
    if (me == 0)
        printf("probe: %u rank(s) OK, bootstrap %s, mode %s\n", nranks, bs->name, mode);
    fflush(stdout);

    if (!strcmp(mode, "normal")) {
        bs->fini();
        return 0;
    } else if (!strcmp(mode, "gexit0")) {
        gasnet_exit_like(0);
    } else if (!strcmp(mode, "exit3")) {
        if (me == nranks - 1)
            gasnet_exit_like(3);
        wait_for_end();
    } else if (!strcmp(mode, "kill1")) {
        if (me == 1)
            raise(SIGKILL);
        wait_for_end();
    } else if (!strcmp(mode, "hang1") || !strcmp(mode, "exit0hang")) {
        if (me == 1)
            sleep_forever(1);
        if (me == 0) {
            struct timespec t = { 0, 200 * 1000000L };   /* let rank 1 ignore SIGTERM */
            nanosleep(&t, NULL);
            if (!strcmp(mode, "hang1"))
                exit(5);
            gasnet_exit_like(0);
        }
        wait_for_end();
    } else if (!strcmp(mode, "leave0")) {
        if (me == 0)
            exit(0);   /* neither gasnet_exit nor fini: still ends the job */
        wait_for_end();
    } else if (!strcmp(mode, "hang")) {
        sleep_forever(0);
    } else if (!strcmp(mode, "stdin")) {
        read_stdin();
        bs->fini();
        return 0;
    } else if (!strcmp(mode, "env")) {
        if (me == 0)
            printf("GEX_CONDUIT=%s\n", getenv("GEX_CONDUIT") ? getenv("GEX_CONDUIT") : "");
        bs->fini();
        return 0;
    }
    fail("unknown mode %s", mode);
}
