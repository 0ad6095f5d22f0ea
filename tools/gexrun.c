/*
 * gexrun.c: starts a GEX job of N ranks on this machine.
 *
 *   gexrun -n N [--conduit C] [--timeout SECONDS] prog args...
 *
 * gexrun needs no server: it creates the job region (job_region.h) as an
 * anonymous memfd, forks the N ranks with the region's descriptor and their
 * rank in the environment, and then supervises them.  The ranks inherit
 * stdout and stderr (that is all the forwarding there is); rank 0 also gets
 * stdin, the others /dev/null.  gexrun does not link libgex-core: the region
 * and the environment are the whole protocol.
 *
 * Supervision is what makes a job safe to run from tests and scripts:
 *  - a rank that dies or exits non-zero ends the job at once (SIGTERM to the
 *    other ranks, SIGKILL 2 s later); a rank that calls gasnet_exit (abort in
 *    the region) gives the others 2 s to follow before they are ended;
 *  - SIGINT, SIGTERM or SIGHUP to gexrun, or --timeout, end the job too;
 *  - ranks die with gexrun (PR_SET_PDEATHSIG) and gexrun is a child
 *    subreaper, so no process of the job outlives it;
 *  - leftover POSIX shm objects of the job ("/dev/shm/gex-<jobid>-*") are
 *    removed at the end, whatever killed a rank (only a SIGKILL of gexrun
 *    itself can leave them).
 * An installed gexrun appends its library folder to the ranks'
 * LD_LIBRARY_PATH (export_lib_path), so clients of a GEX installed outside
 * the linker's search path start without any setup.
 * The exit status is rank 0's unless the job failed: then it is the first
 * non-zero gasnet_exit code or the status of the first rank that failed;
 * 124 after a timeout, 128+signal when gexrun was signalled.
 */
#if defined(HAVE_CONFIG_H)
#include <config.h>
#endif
#include "job_region.h"
#include "gexrun_args.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#define EXIT_GRACE_S 2.0     /* after a rank asked the job to end, before SIGTERM */
#define KILL_GRACE_S 2.0     /* after SIGTERM, before SIGKILL */
#define LEAVE_GRACE_S 60.0   /* more for ranks already inside gasnet_exit's _exit */
#define POLL_S       0.1     /* how often the region is checked for abort requests */

#define EXIT_TIMEOUT  124
#define EXIT_NOEXEC   126
#define EXIT_NOTFOUND 127

enum phase {
    JOB_RUNNING,              /* nothing went wrong (yet) */
    JOB_GRACE,                /* ending: ranks may still exit on their own until t_term */
    JOB_TERM_SENT,            /* SIGTERM sent; SIGKILL at t_kill */
    JOB_KILL_SENT
};

struct rank_proc {
    pid_t pid;                /* 0: never started */
    bool running;
    bool signalled;           /* we sent it SIGTERM or SIGKILL */
    int status;               /* from waitpid */
};

struct job {
    unsigned n;
    struct rank_proc *ranks;
    unsigned nrunning;
    pid_t self;
    char id[GEXI_JOB_ID_MAX];
    int fd;                   /* memfd of the region */
    struct gexi_job_header *hdr;
    size_t region_size;
    enum phase phase;
    double grace;             /* grace given when the job began ending */
    bool leave_grace;         /* t_term was moved for ranks already leaving */
    double t_term, t_kill;    /* deadlines (monotonic seconds) */
    double t_timeout;         /* 0: no timeout */
    double timeout;
    int status;               /* first failure's exit status, -1 none */
    bool exit_noted;          /* reported the rank whose abort code counts */
    bool timed_out;
    int signo;                /* first signal that ended the job, 0 none */
};

/* Signals gexrun consumes with sigtimedwait (blocked, never delivered). */
static sigset_t job_signals, saved_mask;
/* What the ranks must get back before exec: gexrun changes these. */
static struct sigaction saved_pipe, saved_chld;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + 8, sizeof(line) - 9, fmt, ap);   /* after "gexrun: ", before "\n" */
    va_end(ap);
    memcpy(line, "gexrun: ", 8);
    strcat(line, "\n");
    /* One write: the ranks share this stderr and lines must not interleave. */
    if (write(STDERR_FILENO, line, strlen(line)) < 0)
        return;   /* stderr is gone: nowhere left to complain */
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- Before the ranks start ---- */

/* Descriptors 0-2 must be open, or the region could land on one of them. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/dev/null", O_RDWR) < 0)
            exit(1);
}

static bool is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Finds `name` as execvp would (once, not once per rank), so a missing
 * program is reported once and before any rank starts.  NULL with errno. */
static char *resolve_program(const char *name)
{
    if (strchr(name, '/')) {
        if (is_executable(name))
            return strdup(name);
        if (errno == 0 || access(name, F_OK) == 0)
            errno = EACCES;
        return NULL;
    }
    const char *path = getenv("PATH");
    bool denied = false;
    if (!path)
        path = "/bin:/usr/bin";
    while (*path) {
        size_t dirlen = strcspn(path, ":");
        char *cand;
        if (asprintf(&cand, "%.*s%s%s", (int)dirlen, path, dirlen ? "/" : "", name) < 0)
            return NULL;
        if (is_executable(cand))
            return cand;
        denied |= access(cand, F_OK) == 0;
        free(cand);
        path += dirlen + (path[dirlen] == ':');
    }
    errno = denied ? EACCES : ENOENT;
    return NULL;
}

static uint32_t random_bits(void)
{
    uint32_t r;
    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
        return r;
    return (uint32_t)(now_s() * 1e9);
}

/* The region: a memfd, so it never has a name anyone must clean up.  Sealed
 * against resizing: a rank shrinking it would make gexrun die of SIGBUS. */
static int create_region(struct job *job)
{
    size_t size = gexi_job_region_size(job->n);
    int fd = memfd_create("gex-job", MFD_ALLOW_SEALING);   /* not CLOEXEC: ranks inherit it */
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        say("cannot create the job region (%zu bytes): %s", size, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        say("cannot map the job region: %s", strerror(errno));
        close(fd);
        return -1;
    }
    /* A fresh memfd reads as zeros: every atomic starts at 0. */
    struct gexi_job_header *h = p;
    h->magic = GEXI_JOB_MAGIC;
    h->version = GEXI_JOB_VERSION;
    h->header_size = sizeof(*h);
    h->nranks = job->n;
    h->slot_bytes = GEXI_JOB_SLOT_BYTES;
    h->region_size = size;
    memcpy(h->jobid, job->id, sizeof(h->jobid));
    job->fd = fd;
    job->hdr = h;
    job->region_size = size;
    return 0;
}

/* The library folder of an installed gexrun: GEXRUN_LIBDIR when gexrun runs
 * from its installed bindir, else ../lib next to it (a relocated prefix);
 * NULL when that folder holds no libgex-core (gexrun of a build tree). */
static const char *installed_libdir(char *buf, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = '\0';
#if defined(GEXRUN_BINDIR) && defined(GEXRUN_LIBDIR)
    if (strcmp(exe, GEXRUN_BINDIR) == 0)
        snprintf(buf, len, "%s", GEXRUN_LIBDIR);
    else
#endif
        snprintf(buf, len, "%s/../lib", exe);
    char probe[4200];
    if (snprintf(probe, sizeof(probe), "%s/libgex-core.so.1", buf) >= (int)sizeof(probe))
        return NULL;   /* a folder this long is not ours */
    return access(probe, R_OK) == 0 ? buf : NULL;
}

/* A client linked with `pkg-config --libs gex` against a prefix outside the
 * dynamic linker's search path finds GEX through gex-core.pc's rpath; one
 * linked some other way (a plain -L, an old .pc) would fail to start.  So
 * the ranks get this gexrun's library folder at the END of LD_LIBRARY_PATH:
 * it never shadows a folder the user put there (mixed-version deployments
 * upgrade one layer at a time that way), it only fills the gap. */
static int export_lib_path(void)
{
    char dir[4200];
    if (!installed_libdir(dir, sizeof(dir))) return 0;
    const char *old = getenv("LD_LIBRARY_PATH");
    if (!old || !*old) return setenv("LD_LIBRARY_PATH", dir, 1);
    size_t dl = strlen(dir);
    for (const char *p = old; *p;) {   /* already there: leave the order alone */
        size_t l = strcspn(p, ":");
        if (l == dl && strncmp(p, dir, dl) == 0) return 0;
        p += l + (p[l] == ':');
    }
    size_t len = strlen(old) + dl + 2;
    char *v = malloc(len);
    if (!v) return -1;
    snprintf(v, len, "%s:%s", old, dir);
    int rc = setenv("LD_LIBRARY_PATH", v, 1);
    free(v);
    return rc;
}

/* Everything the ranks share in their environment; GEX_JOB_RANK is set in
 * each child. */
static int export_job_env(const struct job *job, const struct options *o)
{
    char num[32];
    snprintf(num, sizeof(num), "%d", job->fd);
    int rc = setenv(GEXI_JOB_ENV_FD, num, 1);
    snprintf(num, sizeof(num), "%u", job->n);
    rc |= setenv(GEXI_JOB_ENV_SIZE, num, 1);
    rc |= setenv(GEXI_JOB_ENV_ID, job->id, 1);
    if (o->conduit)
        rc |= setenv("GEX_CONDUIT", o->conduit, 1);
    rc |= export_lib_path();
    if (rc)
        say("cannot set the ranks' environment: %s", strerror(errno));
    return rc ? -1 : 0;
}

static int setup_job(struct job *job, const struct options *o)
{
    *job = (struct job){ .n = o->nranks, .self = getpid(), .fd = -1, .status = -1,
                         .timeout = o->timeout };
    snprintf(job->id, sizeof(job->id), "j%ld-%08x", (long)job->self, (unsigned)random_bits());
    job->ranks = calloc(job->n, sizeof(*job->ranks));
    if (!job->ranks) {
        say("out of memory");
        return -1;
    }
    return create_region(job) || export_job_env(job, o) ? -1 : 0;
}

/* Signals are consumed synchronously (sigtimedwait), so they are blocked
 * from before the first fork: none can be lost.  SIGCHLD must not be
 * ignored (children would vanish unreaped); SIGPIPE must not kill gexrun
 * before it has ended the job. */
static void setup_signals(void)
{
    struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
    sigemptyset(&job_signals);
    sigaddset(&job_signals, SIGCHLD);
    sigaddset(&job_signals, SIGINT);
    sigaddset(&job_signals, SIGTERM);
    sigaddset(&job_signals, SIGHUP);
    sigprocmask(SIG_BLOCK, &job_signals, &saved_mask);
    sigaction(SIGCHLD, &dfl, &saved_chld);
    sigaction(SIGPIPE, &ign, &saved_pipe);
}

/* ---- Starting the ranks ---- */

/* In the child: die with gexrun, restore what gexrun changed, exec. */
static void __attribute__((noreturn))
rank_child(const struct job *job, unsigned rank, const char *path, char **argv, int devnull)
{
    char num[16];
    /* Checking the parent after arming closes the race with gexrun dying
     * between fork and prctl. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != job->self)
        _exit(EXIT_FAILURE);
    sigaction(SIGCHLD, &saved_chld, NULL);
    sigaction(SIGPIPE, &saved_pipe, NULL);
    sigprocmask(SIG_SETMASK, &saved_mask, NULL);
    if (rank != 0 && dup2(devnull, STDIN_FILENO) < 0) {
        say("rank %u: cannot redirect stdin: %s", rank, strerror(errno));
        _exit(EXIT_FAILURE);
    }
    snprintf(num, sizeof(num), "%u", rank);
    if (setenv(GEXI_JOB_ENV_RANK, num, 1) == 0)
        execv(path, argv);
    int err = errno;
    say("rank %u: cannot execute %s: %s", rank, path, strerror(err));
    _exit(err == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

static void end_job(struct job *job, unsigned why, double grace);

static void set_status(struct job *job, int status)
{
    if (job->status < 0)
        job->status = status;
}

/* Forks every rank; on failure ends the ranks already started. */
static void launch(struct job *job, const char *path, char **argv)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        say("cannot open /dev/null: %s", strerror(errno));
        set_status(job, EXIT_FAILURE);
        end_job(job, GEXI_JOB_END_LAUNCH, 0);
        return;
    }
    fflush(NULL);   /* the children must not flush our buffers again */
    for (unsigned r = 0; r < job->n; r++) {
        pid_t pid = fork();
        if (pid == 0)
            rank_child(job, r, path, argv, devnull);
        if (pid < 0) {
            say("cannot start rank %u of %u: %s", r, job->n, strerror(errno));
            set_status(job, EXIT_FAILURE);
            end_job(job, GEXI_JOB_END_LAUNCH, 0);
            break;
        }
        job->ranks[r] = (struct rank_proc){ .pid = pid, .running = true };
        job->nrunning++;
    }
    close(devnull);
}

/* ---- Supervising ---- */

/* "0,2,5": the ranks still running (or, with want_unjoined, those that
 * never joined the job), shortened after a few. */
static const char *rank_list(const struct job *job, bool want_unjoined, char *buf, size_t len)
{
    size_t used = 0, shown = 0;
    buf[0] = '\0';
    for (unsigned r = 0; r < job->n && used + 16 < len; r++) {
        bool pick = want_unjoined
            ? !(atomic_load(&gexi_job_rank_of(job->hdr, r)->state) & GEXI_JOB_RANK_JOINED)
            : job->ranks[r].running;
        if (!pick)
            continue;
        if (shown++ == 16) {
            used += (size_t)snprintf(buf + used, len - used, ",...");
            break;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%u", used ? "," : "", r);
    }
    return buf;
}

static void signal_running(struct job *job, int sig)
{
    for (unsigned r = 0; r < job->n; r++) {
        if (job->ranks[r].running) {
            kill(job->ranks[r].pid, sig);
            job->ranks[r].signalled = true;
        }
    }
}

/* Starts ending the job: the ranks see `why` through aborting() at once and
 * get `grace` seconds to exit on their own before SIGTERM.  A later, more
 * urgent reason shortens the grace. */
static void end_job(struct job *job, unsigned why, double grace)
{
    double t = now_s() + grace;
    if (job->hdr)
        atomic_fetch_or(&job->hdr->ending, why);
    if (job->phase == JOB_RUNNING) {
        job->phase = JOB_GRACE;
        job->grace = grace;
        job->t_term = t;
    } else if (job->phase == JOB_GRACE && t < job->t_term) {
        job->t_term = t;
    }
}

/* Exit status for a gasnet_exit code (a status is 8 bits; never turn a
 * failure into 0). */
static int status_of_code(int code)
{
    return (code & 0xff) == 0 && code != 0 ? 1 : code & 0xff;
}

static int status_of_wait(int st)
{
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* Notices a rank's abort(): its non-zero code becomes the job's status
 * unless something failed first, and the others get their grace period. */
static void watch_region(struct job *job)
{
    unsigned first = atomic_load(&job->hdr->exit_rank);
    if (first && !job->exit_noted && first <= job->n) {
        int code = atomic_load(&gexi_job_rank_of(job->hdr, first - 1)->exit_code);
        job->exit_noted = true;
        if (job->status < 0 && !job->timed_out && !job->signo)
            say("rank %u ended the job with exit code %d", first - 1, code);
        set_status(job, status_of_code(code));
    }
    if (job->phase == JOB_RUNNING && (atomic_load(&job->hdr->ending) & GEXI_JOB_END_EXIT))
        end_job(job, GEXI_JOB_END_EXIT, EXIT_GRACE_S);
}

static void report_exit(const struct rank_proc *p, unsigned rank, const char *what_next)
{
    /* segment pages in /dev/shm are allocated at first touch: a full
     * /dev/shm shows up as SIGBUS (docs/environment.md, GEX_PSHM_RESERVE) */
    if (WIFSIGNALED(p->status))
        say("rank %u (pid %ld) was killed by signal %d (%s)%s%s%s", rank, (long)p->pid,
            WTERMSIG(p->status), strsignal(WTERMSIG(p->status)),
            WCOREDUMP(p->status) ? " (core dumped)" : "",
            WTERMSIG(p->status) == SIGBUS ? " (is /dev/shm full? see GEX_PSHM_RESERVE)" : "",
            what_next);
    else
        say("rank %u (pid %ld) exited with status %d%s", rank, (long)p->pid,
            WEXITSTATUS(p->status), what_next);
}

/* A failure of a rank's own during a job that was ending with code 0
 * (every other rank called gasnet_exit(0)) must not leave the job's status
 * at 0: it replaces a 0, never a non-zero code. */
static void set_failure_status(struct job *job, int status)
{
    if (job->status <= 0)
        job->status = status;
}

/* The status ranks leaving through aborting() exit with: the first
 * non-zero gasnet_exit code, else 0 (bootstrap_embedded.c's exit_code). */
static int ending_status(const struct job *job)
{
    unsigned first = atomic_load(&job->hdr->exit_rank);
    if (!first || first > job->n)
        return 0;
    return status_of_code(atomic_load(&gexi_job_rank_of(job->hdr, first - 1)->exit_code));
}

/* Classifies one rank's end.  While the job runs, a death or a non-zero
 * exit that was not a gasnet_exit ends the job at once; a rank that joined
 * and left without gasnet_exit or fini ends it like gasnet_exit(0) would
 * (GASNet: any process leaving ends the job).  Once the job is ending,
 * exits are its consequences, except deaths by a signal we did not send
 * and, while it ends only through gasnet_exit, an exit with a status of
 * its own (exit(3) instead of gasnet_exit: issue 28's fault matrix). */
static void on_rank_exit(struct job *job, unsigned rank, int st)
{
    struct rank_proc *p = &job->ranks[rank];
    unsigned state = atomic_load(&gexi_job_rank_of(job->hdr, rank)->state);
    p->running = false;
    p->status = st;
    job->nrunning--;
    /* Its own gasnet_exit may explain this exit, and so may another
     * rank's: a rank that leaves with the code some rank's gasnet_exit gave
     * the job is following it (bootstrap_embedded.c's exit_code), and the
     * region names the rank that asked.  Another rank's code must not be
     * taken first for a rank that failed on its own (that rank's error is
     * often this rank's loss seen over the network). */
    if ((state & GEXI_JOB_RANK_EXIT_REQ) ||
        (!WIFSIGNALED(st) && atomic_load(&job->hdr->exit_rank) &&
         WEXITSTATUS(st) == ending_status(job)))
        watch_region(job);
    bool ours = p->signalled && WIFSIGNALED(st) &&
                (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGKILL);
    if (job->phase == JOB_RUNNING) {
        bool failed = WIFSIGNALED(st) ||
                      (WEXITSTATUS(st) != 0 && !(state & GEXI_JOB_RANK_EXIT_REQ));
        if (failed) {
            report_exit(p, rank, "; ending the job");
            set_status(job, status_of_wait(st));
            end_job(job, GEXI_JOB_END_RANK_FAILED, 0);
        } else if ((state & GEXI_JOB_RANK_JOINED) && !(state & GEXI_JOB_RANK_DETACHED)) {
            end_job(job, GEXI_JOB_END_EXIT, EXIT_GRACE_S);
        }
    } else if (WIFSIGNALED(st) && !ours && !job->signo) {
        report_exit(p, rank, "");
        set_failure_status(job, status_of_wait(st));
    } else if (!WIFSIGNALED(st) && WEXITSTATUS(st) != 0 && !(state & GEXI_JOB_RANK_EXIT_REQ) &&
               !job->signo && !job->timed_out &&
               atomic_load(&job->hdr->ending) == GEXI_JOB_END_EXIT &&
               WEXITSTATUS(st) != ending_status(job)) {
        report_exit(p, rank, " without gasnet_exit while the job was ending");
        set_failure_status(job, WEXITSTATUS(st));
    }
    watch_region(job);
}

static int rank_of_pid(const struct job *job, pid_t pid)
{
    for (unsigned r = 0; r < job->n; r++)
        if (job->ranks[r].pid == pid)
            return (int)r;
    return -1;
}

/* Reaps whatever has exited: ranks, and descendants of ranks that were
 * orphaned and handed to us as their subreaper (just reaped).  Deaths by a
 * signal are classified first: a rank killed at the same moment as peers
 * that then failed on its lost connections is the cause, they the effect. */
static void reap(struct job *job)
{
    int st;
    pid_t pid;
    for (;;) {
        unsigned n = 0;
        struct rank_end { unsigned rank; int st; } ends[64];
        while (n < 64 && (pid = waitpid(-1, &st, WNOHANG)) > 0) {
            int rank = rank_of_pid(job, pid);
            if (rank >= 0 && job->ranks[rank].running)
                ends[n++] = (struct rank_end){ (unsigned)rank, st };
        }
        for (int pass = 0; pass < 2; pass++)
            for (unsigned i = 0; i < n; i++)
                if ((pass == 0) == (bool)WIFSIGNALED(ends[i].st))
                    on_rank_exit(job, ends[i].rank, ends[i].st);
        if (n < 64)
            return;
    }
}

static bool any_joined(const struct job *job)
{
    for (unsigned r = 0; r < job->n; r++)
        if (atomic_load(&gexi_job_rank_of(job->hdr, r)->state) & GEXI_JOB_RANK_JOINED)
            return true;
    return false;
}

static void on_timeout(struct job *job)
{
    char buf[100];
    job->timed_out = true;
    say("timeout: the job ran longer than %g s; ending it", job->timeout);
    /* When some ranks joined, those that did not are why the others waited. */
    if (any_joined(job) && rank_list(job, true, buf, sizeof(buf))[0])
        say("rank(s) that never started GEX: %s", buf);
    end_job(job, GEXI_JOB_END_TIMEOUT, 0);
}

/* True when the job ends only through gasnet_exit and every rank still
 * running has recorded its own gasnet_exit (the bootstrap's abort, called
 * after the library's teardown, right before _exit): such a rank runs no
 * client or library code any more, only the process's end (the kernel
 * freeing a large segment, valgrind's leak check).  Killing it would lose
 * that end's output, a leak report first of all. */
static bool running_ranks_leaving(const struct job *job)
{
    if (!job->hdr || atomic_load(&job->hdr->ending) != GEXI_JOB_END_EXIT)
        return false;
    for (unsigned r = 0; r < job->n; r++)
        if (job->ranks[r].running &&
            !(atomic_load(&gexi_job_rank_of(job->hdr, r)->state) & GEXI_JOB_RANK_EXIT_REQ))
            return false;
    return true;
}

/* Sends SIGTERM, then SIGKILL, when their deadlines pass. */
static void check_deadlines(struct job *job)
{
    char buf[100];
    double now = now_s();
    if (job->phase == JOB_RUNNING && job->t_timeout > 0 && now >= job->t_timeout)
        on_timeout(job);
    if (job->phase == JOB_GRACE && now >= job->t_term && !job->leave_grace &&
        running_ranks_leaving(job)) {
        /* once, bounded, and never past --timeout */
        double t = now + LEAVE_GRACE_S;
        if (job->t_timeout > 0 && job->t_timeout < t)
            t = job->t_timeout;
        job->leave_grace = true;
        if (t > now)
            job->t_term = t;
    }
    if (job->phase == JOB_GRACE && now >= job->t_term) {
        if (job->leave_grace && running_ranks_leaving(job))
            say("rank(s) %s still ending long after their gasnet_exit; ending them",
                rank_list(job, false, buf, sizeof(buf)));
        else if (job->grace > 0)
            say("rank(s) %s still running %g s after the job began ending; ending them",
                rank_list(job, false, buf, sizeof(buf)), job->grace);
        signal_running(job, SIGTERM);
        job->phase = JOB_TERM_SENT;
        job->t_kill = now + KILL_GRACE_S;
    }
    if (job->phase == JOB_TERM_SENT && now >= job->t_kill) {
        say("rank(s) %s did not end %g s after SIGTERM; sending SIGKILL",
            rank_list(job, false, buf, sizeof(buf)), KILL_GRACE_S);
        signal_running(job, SIGKILL);
        job->phase = JOB_KILL_SENT;
    }
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT:  return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP:  return "SIGHUP";
    default:      return "a signal";
    }
}

/* First SIGINT/SIGTERM/SIGHUP: end the job politely; the second: kill. */
static void on_signal(struct job *job, int sig)
{
    if (!job->signo) {
        job->signo = sig;
        say("got %s; ending the job", signal_name(sig));
        end_job(job, GEXI_JOB_END_SIGNAL, 0);
    } else if (job->phase != JOB_KILL_SENT) {
        say("got %s again; killing the job", signal_name(sig));
        signal_running(job, SIGKILL);
        job->phase = JOB_KILL_SENT;
    }
}

static double min_s(double a, double b)
{
    return a < b ? a : b;
}

/* Sleeps until a signal arrives (SIGCHLD included), the next deadline, or
 * the next region poll. */
static void wait_for_event(struct job *job)
{
    double wait = POLL_S, now = now_s();
    if (job->phase == JOB_RUNNING && job->t_timeout > 0)
        wait = min_s(wait, job->t_timeout - now);
    if (job->phase == JOB_GRACE)
        wait = min_s(wait, job->t_term - now);
    if (job->phase == JOB_TERM_SENT)
        wait = min_s(wait, job->t_kill - now);
    if (wait < 0)
        wait = 0;
    struct timespec ts = { (time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9) };
    int sig = sigtimedwait(&job_signals, NULL, &ts);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
        on_signal(job, sig);
}

static void supervise(struct job *job)
{
    if (job->timeout > 0)
        job->t_timeout = now_s() + job->timeout;
    while (job->nrunning > 0) {
        reap(job);
        if (job->nrunning == 0)
            break;
        watch_region(job);
        check_deadlines(job);
        wait_for_event(job);
    }
}

/* ---- After the ranks are gone ---- */

/* Children we have now are orphaned descendants of ranks (we are their
 * subreaper).  Reads /proc, as there is no call listing one's children. */
static size_t list_children(pid_t self, pid_t *kids, size_t max)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    size_t n = 0;
    if (!d)
        return 0;
    while (n < max && (e = readdir(d)) != NULL) {
        char path[64], line[512], *end;
        long pid = strtol(e->d_name, &end, 10), ppid;
        if (pid <= 0 || *end)
            continue;
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        char *close_paren = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
        fclose(f);
        if (close_paren && sscanf(close_paren + 1, " %*c %ld", &ppid) == 1 && ppid == self)
            kids[n++] = (pid_t)pid;
    }
    closedir(d);
    return n;
}

static bool have_children(void)
{
    return waitpid(-1, NULL, WNOHANG) == 0;   /* 0: some exist, none exited */
}

/* Ends whatever the ranks left behind: SIGTERM, up to 1 s, then SIGKILL. */
static void end_strays(pid_t self)
{
    pid_t kids[256];
    for (int pass = 0; pass < 10; pass++) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (!have_children())
            return;
        size_t n = list_children(self, kids, sizeof(kids) / sizeof(kids[0]));
        if (n == 0)
            return;   /* no /proc: nothing more we can find */
        for (size_t i = 0; i < n; i++)
            kill(kids[i], pass == 0 ? SIGTERM : SIGKILL);
        for (int t = 0; t < 100 && have_children(); t++) {
            struct timespec nap = { 0, 10 * 1000000L };
            while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
            nanosleep(&nap, NULL);
        }
    }
}

/* Removes "/dev/shm/gex-<jobid>-*": GEX unlinks its shm objects as soon as
 * every peer has mapped them, so these are left by ranks that died early. */
static void remove_job_shm(const char *jobid)
{
    char prefix[GEXI_JOB_ID_MAX + 8];
    size_t len = (size_t)snprintf(prefix, sizeof(prefix), "gex-%s-", jobid);
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, len) == 0 && unlinkat(dirfd(d), e->d_name, 0) != 0)
            say("cannot remove /dev/shm/%s: %s", e->d_name, strerror(errno));
    closedir(d);
}

static int job_status(const struct job *job)
{
    if (job->signo)
        return 128 + job->signo;
    if (job->timed_out)
        return EXIT_TIMEOUT;
    if (job->status >= 0)
        return job->status;
    /* Nothing failed: rank 0 exited 0, or exited after the job began ending
     * (a consequence, not a failure), or was ended by us. */
    return 0;
}

static void cleanup_job(struct job *job)
{
    end_strays(job->self);
    remove_job_shm(job->id);
    if (job->hdr)
        munmap(job->hdr, job->region_size);
    if (job->fd >= 0)
        close(job->fd);
    free(job->ranks);
}

int main(int argc, char **argv)
{
    struct options o;
    struct job job;
    int rc = gexrun_parse_args(argc, argv, getenv("GEX_RUN_TIMEOUT"), &o);
    if (rc >= 0)
        return rc;
    ensure_std_fds();
    char *path = resolve_program(o.argv[0]);
    if (!path) {
        int err = errno;
        if (err == ENOENT && !strchr(o.argv[0], '/'))
            say("%s: command not found", o.argv[0]);
        else if (err == EACCES)   /* a folder, a data file, no x bit: say which rule failed */
            say("%s: not an executable file (%s); no rank was started", o.argv[0],
                strerror(err));
        else
            say("%s: %s", o.argv[0], strerror(err));
        return err == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
    }
    /* Orphaned descendants of ranks come to us, so none can outlive the job. */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
    setup_signals();
    if (setup_job(&job, &o) != 0) {
        free(path);
        return EXIT_FAILURE;
    }
    launch(&job, path, o.argv);
    supervise(&job);
    rc = job_status(&job);
    cleanup_job(&job);
    free(path);
    return rc;
}
