/*
 * mp_exit.c: the ways a GEX job ends, driven by tests/mp/test_exit.sh.
 *
 *   mp_exit MODE [marker...]
 *
 * Every mode initialises, attaches a segment, passes an AM barrier and has
 * rank 0 print "mp_exit: job <GEX_JOB_ID> mode <MODE> ranks <N>" (the script
 * uses the job id to look for leftovers in /dev/shm).  Then "the last rank"
 * (N-1) does something while every other rank waits in an AM poll loop:
 *   all0      every rank calls gasnet_exit(0)                 -> status 0
 *   exit3     the last rank calls gasnet_exit(3)               -> status 3
 *   exit256   the last rank calls gasnet_exit(256), a code the 8-bit
 *             process status would turn into 0                 -> status 1
 *   handler4  rank 0 sends the last rank an AM whose handler
 *             calls gasnet_exit(4)                             -> status 4
 *   kill      the last rank sends itself SIGKILL               -> status 137
 *   return    the last rank returns 0 from main               -> job ends
 *   return0   rank 0 returns 0 from main, the others wait      -> status 0
 *   fail      the last rank fails a CHECK (mp_util)            -> status 1
 *   watchdog  the last rank hangs without polling; its watchdog
 *             (MP_WATCHDOG seconds) ends it with status 2      -> status 2
 *   exit0     rank 0 calls gasnet_exit(0)                       -> status 0
 *   barrier0  rank 0 calls gasnet_exit(0) while the others wait
 *             in a collective barrier (gex_Coll_BarrierNB)      -> status 0
 *   barrier7  rank 1 (rank 0 alone) calls gasnet_exit(7) while
 *             the others wait in the barrier                    -> status 7
 *   preattach7  (GASNet's testexit 7) right after init, before any
 *             segment exists, the last rank calls gasnet_exit(7) while the
 *             others enter gex_Segment_Attach; rank 0 prints the job line
 *             first.  Network conduits then meet a peer that has left (a
 *             refused connection): the others must leave quietly, no
 *             "ERROR" or "fatal" line (tests/ucx/test_exit_ucx.sh)  -> status 7
 *   late0     the last rank calls gasnet_exit(0); the others sleep 0.1 s,
 *             poll for 0.2 s more, print "still running" and call
 *             gasnet_exit(0) (gexrun only: a rank waiting in GEX gets a
 *             moment before it leaves a job ended with code 0) -> status 0
 *   busy0     rank 0 calls gasnet_exit(0) once the others have told it
 *             (an AM) that they compute without calling GEX
 *             any more (sleep)                                 -> status 0,
 *             the launcher ends them (after GASNET_EXITTIMEOUT under PMIx)
 *   sigint_quit   every rank installs a SIGQUIT handler that calls
 *             gasnet_exit(4) (after init, as GASNet's testexit does); the
 *             last rank sends itself SIGINT (GASNet's convention:
 *             libgex-core/quit_signal.c)                       -> status 4
 *             (a rank that gexrun ends with SIGTERM may run it too)
 *   sigterm_quit, sighup_quit   the same with SIGTERM, SIGHUP   -> status 4
 *   sigint    the last rank sends itself SIGINT, no SIGQUIT
 *             handler                                          -> status 130
 *   sigint_own  the last rank installs its own SIGINT handler
 *             (gasnet_exit(5)) before init, and the SIGQUIT one after:
 *             GEX keeps the client's handler                   -> status 5
 * Extra arguments are ignored (the script passes a unique marker to find
 * surviving processes).  Under a PMIx launcher (no GEX_JOB_ID) the job id
 * printed is the PMIx bootstrap's: "p" and the 64-bit FNV-1a hash of
 * PMIX_NAMESPACE in hex (libgex-core/bootstrap_pmix.c).
 */
#include "mp_util.h"
#include <time.h>

#define H_EXIT4 (MP_H_FIRST_FREE + 0)
#define H_BUSY  (MP_H_FIRST_FREE + 1)

static atomic_uint busy_ranks;   /* rank 0: ranks that stopped calling GEX (busy0) */
static void h_busy(gex_Token_t t)
{
    (void)t;
    atomic_fetch_add(&busy_ranks, 1);
}

static char sigquit_msg[80];   /* formatted before the handler is installed */
static void on_sigquit(int sig)
{
    (void)sig;
    if (write(STDOUT_FILENO, sigquit_msg, strlen(sigquit_msg)) < 0) _exit(99);
    gasnet_exit(4);
}

static void on_own_sigint(int sig)
{
    (void)sig;
    gasnet_exit(5);
}

static void install_handler(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(sig, &sa, NULL) == 0);
}

/* The last rank sends itself sig (kill, process-directed, as from a
 * terminal or a launcher) and waits for what follows. */
static void quit_mode(int sig, int with_sigquit)
{
    snprintf(sigquit_msg, sizeof sigquit_msg,
             "mp_exit: rank %u: SIGQUIT handler calls gasnet_exit(4)\n", (unsigned)mp_me);
    if (with_sigquit) install_handler(SIGQUIT, on_sigquit);
    mp_barrier();   /* every rank has its handler before anything is raised */
    if (mp_me == mp_n - 1) CHECK(kill(getpid(), sig) == 0);
}

static void h_exit4(gex_Token_t t)
{
    (void)t;
    gasnet_exit(4); /* permitted in handler context */
}

/* Waits "forever" in GEX: polls, sleeping a little so idle ranks do not
 * starve the others of CPU.  The job's end comes from outside. */
static void poll_forever(void) __attribute__((noreturn));
static void poll_forever(void)
{
    for (;;) {
        gasnet_AMPoll();
        struct timespec ts = { 0, 1000000 }; /* 1 ms */
        nanosleep(&ts, NULL);
    }
}

/* Ranks other than the one ending the job wait here. */
static void barrier_forever(void) __attribute__((noreturn));
static void barrier_forever(void)
{
    gex_Event_Wait(gex_Coll_BarrierNB(mp_tm, 0));
    fprintf(stderr, "mp_exit: rank %u: a barrier completed without every rank\n",
            (unsigned)mp_me);
    gasnet_exit(65);
}

static void sleep_forever(void) __attribute__((noreturn));
static void sleep_forever(void)
{
    for (;;) {
        struct timespec ts = { 0, 10000000 }; /* 10 ms, no GEX call */
        nanosleep(&ts, NULL);
    }
}

/* GEX_JOB_ID (gexrun), else the PMIx bootstrap's job id, else "-". */
static const char *job_id(void)
{
    static char buf[32];
    const char *id = getenv("GEX_JOB_ID");
    if (id) return id;
    const char *ns = getenv("PMIX_NAMESPACE");
    if (!ns) return "-";
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = ns; *p; p++) h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    snprintf(buf, sizeof buf, "p%016llx", (unsigned long long)h);
    return buf;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all0";
    if (!strcmp(mode, "sigint_own")) {
        struct sigaction sa;   /* CHECK needs mp_init: set up by hand */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_own_sigint;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGINT, &sa, NULL) != 0) return 98;
    }
    mp_init(&argc, &argv, "MP_EXIT", 0);
    gex_AM_Entry_t h[] = {
        { H_EXIT4, (gex_AM_Fn_t)h_exit4, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "exit4" },
        { H_BUSY, (gex_AM_Fn_t)h_busy, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "busy" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, 2));
    if (!strcmp(mode, "preattach7")) {
        if (mp_me == 0) {
            printf("mp_exit: job %s mode %s ranks %u\n", job_id(), mode, (unsigned)mp_n);
            fflush(stdout);
        }
        if (mp_me == mp_n - 1 && mp_n > 1) {
            struct timespec ts = { 0, 200000000 };   /* rank 0 prints first */
            nanosleep(&ts, NULL);
            gasnet_exit(7);
        }
        if (mp_n == 1) gasnet_exit(7);
        mp_attach(16 * GASNET_PAGESIZE);   /* the job ends in here */
        mp_barrier();
        CHECK_MSG(0, "mode preattach7: the job went on without its last rank");
    }
    mp_attach(16 * GASNET_PAGESIZE);
    mp_barrier();
    const gex_Rank_t last = mp_n - 1;
    if (mp_me == 0) {
        printf("mp_exit: job %s mode %s ranks %u\n", job_id(), mode, (unsigned)mp_n);
        fflush(stdout);
    }
    mp_barrier(); /* rank 0 has printed before anything ends the job */
    mp_phase(mode);

    if (!strcmp(mode, "all0")) {
        gasnet_exit(0);
    } else if (!strcmp(mode, "exit3")) {
        if (mp_me == last) gasnet_exit(3);
    } else if (!strcmp(mode, "exit256")) {
        if (mp_me == last) gasnet_exit(256);
    } else if (!strcmp(mode, "handler4")) {
        if (mp_me == 0) CHECK_OK(gex_AM_RequestShort0(mp_tm, last, H_EXIT4, 0));
    } else if (!strcmp(mode, "kill")) {
        if (mp_me == last) raise(SIGKILL);
    } else if (!strcmp(mode, "return")) {
        if (mp_me == last) return 0;
    } else if (!strcmp(mode, "return0")) {
        if (mp_me == 0) return 0;
    } else if (!strcmp(mode, "fail")) {
        if (mp_me == last) CHECK_MSG(0, "failing on purpose (mode fail)");
    } else if (!strcmp(mode, "watchdog")) {
        if (mp_me == last)
            for (;;) pause(); /* only the watchdog's SIGALRM ends this */
    } else if (!strcmp(mode, "exit0")) {
        if (mp_me == 0) gasnet_exit(0);
    } else if (!strcmp(mode, "barrier0")) {
        if (mp_me == 0) gasnet_exit(0);
        barrier_forever();
    } else if (!strcmp(mode, "barrier7")) {
        if (mp_me == (mp_n > 1 ? 1 : 0)) gasnet_exit(7);
        barrier_forever();
    } else if (!strcmp(mode, "late0")) {
        if (mp_me == last) gasnet_exit(0);
        /* The job is ending by now (gexrun); a wait in GEX that goes on for a
         * moment (the final barrier seen complete by `last` first) must still
         * return to the client, which then prints and calls gasnet_exit. */
        struct timespec nap = { 0, 100000000 };
        nanosleep(&nap, NULL);
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            gasnet_AMPoll();
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000000L);
        printf("mp_exit: rank %u still running after gasnet_exit(0) elsewhere\n", (unsigned)mp_me);
        gasnet_exit(0);
    } else if (!strcmp(mode, "busy0")) {
        if (mp_me == 0) {   /* once every other rank has stopped calling GEX */
            MP_POLL_UNTIL(atomic_load(&busy_ranks) == mp_n - 1);
            gasnet_exit(0);
        }
        CHECK_OK(gex_AM_RequestShort0(mp_tm, 0, H_BUSY, 0));
        sleep_forever();
    } else if (!strcmp(mode, "sigint_quit") || !strcmp(mode, "sigint_own")) {
        quit_mode(SIGINT, 1);
    } else if (!strcmp(mode, "sigterm_quit")) {
        quit_mode(SIGTERM, 1);
    } else if (!strcmp(mode, "sighup_quit")) {
        quit_mode(SIGHUP, 1);
    } else if (!strcmp(mode, "sigint")) {
        quit_mode(SIGINT, 0);
    } else {
        fprintf(stderr, "mp_exit: unknown mode '%s'\n", mode);
        gasnet_exit(64);
    }
    poll_forever();
}
