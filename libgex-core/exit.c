/*
 * exit.c: gasnet_exit and the end of a job.  gasnet_exit(code) by any rank
 * ends the whole job with that code (GASNet-1 semantics); so do exit() and
 * a return from main (GASNet's GASNET_CATCH_EXIT behaviour).
 *
 * Under gexrun the bootstrap records the code with the launcher, which
 * ends the other ranks after a short grace period, and ranks already
 * waiting inside GEX notice it (aborting()) and leave with the same code:
 * at once for a non-zero code, after EXIT_WAIT_NS more of waiting for a
 * gasnet_exit(0) (see gexi_exit_check).
 *
 * A PMIx launcher (bootstrap ops with exit_notice set) ends a job only for
 * a failure, so the ranks end it themselves with two core AMs (handler
 * indices GEXI_HIDX_EXIT_*), which only record what they carry:
 *
 *   NOTICE(code)  sent by the rank calling gasnet_exit (an "initiator"):
 *                 the job is ending.  The receiver records the code, and
 *                 its next wait in GEX (gexi_backoff, gasnet_AMPoll) makes
 *                 it a "leaver" (gexi_exit_now_aborting); for code 0 only
 *                 after EXIT_WAIT_NS, as under gexrun, so a rank still in
 *                 the final barrier can print its results and leave itself.
 *   DONE          sent by a leaver.
 *
 * Either message also says "I have flushed my output and am leaving".  An
 * ending rank flushes stdio, sends ONE message to every other rank (without
 * ever waiting inside the conduit for resources), then polls until it has
 * heard from every rank or the exit timeout passes (GASNET_EXITTIMEOUT,
 * below).  Because nobody leaves before it has heard from everyone, and
 * everyone sends once, no rank ever sends to a rank that has already left
 * (a send error the conduits treat as fatal), whatever the number of
 * initiators.  Then:
 *   heard from all, code 0      every rank finalizes and exits 0
 *   heard from all, code C != 0 the initiator has the launcher end the job
 *                               with C (bootstrap abort: PMIx_Abort); the
 *                               leavers wait for that (bounded)
 *   timeout                     (a rank computing without calling GEX,
 *                               blocked in a PMIx fence, or dead) the
 *                               initiator aborts with its code, 0 included
 *                               (Open MPI's mpirun then exits 0); leavers
 *                               exit with the code
 * A gasnet_exit from inside an AM handler cannot hear the answers (the
 * conduit is delivering that handler), so it ends by the timeout.
 */
#include "core_internal.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static atomic_int exiting;              /* some thread is ending this process */
static _Thread_local int exit_thread;   /* ... and it is this one */

static void flush_all(void)
{
    fflush(stdout);
    fflush(stderr);
}

/* ---- Exit notices (bootstraps with exit_notice) ---- */

atomic_int gexi_exit_noticed;   /* core_internal.h */

static struct {
    atomic_uchar *done;      /* [jobsize]: heard from that rank: it has flushed, is leaving */
    atomic_uint ndone;       /* ranks other than us marked in done[] */
    atomic_int code;         /* the first notice's code (-1: none yet) */
    int64_t timeout;         /* ns: GASNET_EXITTIMEOUT */
    /* The ending thread's state (only that thread touches it): */
    int active;              /* the protocol runs */
    int my_code;             /* the code this rank leaves with */
    int initiator;           /* 1: gasnet_exit here; 0: leaving for a notice */
    int phase;               /* 1 telling the others, 2 waiting for them, 3 leaving */
    int in_send, in_check;   /* inside exit_send's conduit call / gexi_exit_check's poll */
    int64_t deadline;        /* ns, CLOCK_MONOTONIC: stop waiting for the others */
    int64_t stall;           /* ns: give up on the current send (1), leave (3) */
} xn;

/* See gexi_exit_check: how long a wait goes on after the job began ending
 * through another rank's gasnet_exit(0). */
#define EXIT_WAIT_NS ((int64_t)500000000)

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double env_seconds(const char *name, double dflt)
{
    const char *v = gexi_getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= 0) || d > 1e6)
        gexi_fatal("environment variable %s='%s' is not a number of seconds from 0 to 1e6",
                   name, v);
    return d;
}

/* GASNET_EXITTIMEOUT, or min(_MAX, _MIN + ranks * _FACTOR) (README-gasnet-user). */
static int64_t exit_timeout_ns(void)
{
    double t = env_seconds("GASNET_EXITTIMEOUT", -1);
    if (t < 0) {
        double lo = env_seconds("GASNET_EXITTIMEOUT_MIN", 2.0);
        double hi = env_seconds("GASNET_EXITTIMEOUT_MAX", 60.0);
        double f = env_seconds("GASNET_EXITTIMEOUT_FACTOR", 0.1);
        t = lo + f * gexi_core.jobsize;
        if (t > hi) t = hi;
    }
    return (int64_t)(t * 1e9);
}

static void mark_done(gex_Rank_t r)
{
    if (r < gexi_core.jobsize && r != gexi_core.jobrank && !atomic_exchange(&xn.done[r], 1))
        atomic_fetch_add(&xn.ndone, 1);
}

static int all_done(void) { return atomic_load(&xn.ndone) + 1 >= gexi_core.jobsize; }

/* Both handlers only record: the ending thread does all the sending. */
static void h_exit_notice(gex_Token_t token, gex_AM_Arg_t code)
{
    int none = -1;
    atomic_compare_exchange_strong(&xn.code, &none, (int)code);
    mark_done(gexi_token_of(token)->src_jobrank);
    atomic_store(&gexi_exit_noticed, 1);
}

static void h_exit_done(gex_Token_t token)
{
    mark_done(gexi_token_of(token)->src_jobrank);
}

/* One request of the protocol to rank r's EP 0, never waiting inside the
 * conduit for resources: retried (polling) until it goes or half a second
 * has passed (r is not polling, or gone: the job then ends the forced
 * way).  Returns 1 if sent. */
static int exit_send(gex_Rank_t r, gex_AM_Index_t h)
{
    const gex_conduit_arg_t arg = xn.my_code;
    const int notice = h == GEXI_HIDX_EXIT_NOTICE;
    const struct gex_conduit_am m = {
        .category = GEX_CONDUIT_AM_SHORT, .is_request = 1, .handler = h,
        .nargs = notice ? 1 : 0, .src_ep = 0, .dst_ep = 0, .args = notice ? &arg : NULL,
    };
    const int64_t st = now_ns() + 500000000;
    xn.stall = st < xn.deadline ? st : xn.deadline;
    unsigned spins = 0;
    for (;;) {
        xn.in_send = 1;
        int rc = gexi_core.ops->am_request(gexi_core.conduit, r, &m, GEX_FLAG_IMMEDIATE);
        xn.in_send = 0;
        if (rc == GEX_CONDUIT_OK) return 1;
        if (rc != GEX_CONDUIT_EAGAIN || now_ns() > xn.stall) return 0;
        gexi_poll();
        gexi_backoff(&spins);
    }
}

/* Leaves without further communication: cleanly (fini) or by asking the
 * launcher to end the job with our code (abort). */
__attribute__((noreturn)) static void leave_now(int clean)
{
    flush_all();
    if (clean) {
        if (gexi_bootstrap->fini) gexi_bootstrap->fini();
    } else {
        gexi_bootstrap->abort(xn.my_code);
    }
    _exit(xn.my_code);
}

/* The end of the protocol.  answered: every rank was heard from. */
__attribute__((noreturn)) static void finish(int answered)
{
    xn.phase = 3;
    xn.stall = now_ns() + 1000000000;   /* bounds the waits of what follows */
    gexi_eps_close();
    if (xn.initiator) {
        gexi_layers_fini();
        leave_now(answered && xn.my_code == 0);
    }
    if (answered && xn.my_code != 0) {
        /* The initiator now asks the launcher to end the job with this
         * code: wait for that (bounded), so the job's status is the
         * initiator's and no rank reports a failure of its own. */
        flush_all();
        int64_t until = now_ns() + xn.timeout;
        while (now_ns() < until) {
            struct timespec ts = { 0, 10000000 };   /* 10 ms */
            nanosleep(&ts, NULL);
        }
    }
    leave_now(1);
}

/* The ending thread, output flushed: one message to every other rank (a
 * NOTICE from an initiator, a DONE from a leaver), then wait until every
 * rank has sent us one (or the timeout).  Nobody leaves before it has
 * heard from everyone and everyone sends once: so no rank ever sends to
 * a rank that has left (which the conduit would call a fatal error). */
__attribute__((noreturn)) static void run_protocol(void)
{
    xn.deadline = now_ns() + xn.timeout;
    xn.phase = 1;
    xn.active = 1;
    const gex_AM_Index_t h = xn.initiator ? GEXI_HIDX_EXIT_NOTICE : GEXI_HIDX_EXIT_DONE;
    for (gex_Rank_t r = 0; r < gexi_core.jobsize; r++)
        if (r != gexi_core.jobrank) exit_send(r, h);
    xn.phase = 2;
    unsigned spins = 0;
    while (!all_done() && now_ns() <= xn.deadline) {
        if (gexi_poll() > 0) spins = 0;
        gexi_backoff(&spins);
    }
    finish(all_done());
}

static void exit_notice_init(void)
{
    if (!gexi_bootstrap->exit_notice || gexi_core.jobsize < 2) return;
    xn.done = calloc(gexi_core.jobsize, sizeof *xn.done);
    if (!xn.done) return;   /* then gasnet_exit falls back to abort() */
    atomic_store(&xn.code, -1);
    xn.timeout = exit_timeout_ns();
    gexi_register_internal_handler(GEXI_HIDX_EXIT_NOTICE, (gex_AM_Fn_t)h_exit_notice,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, "core.exit_notice");
    gexi_register_internal_handler(GEXI_HIDX_EXIT_DONE, (gex_AM_Fn_t)h_exit_done,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, "core.exit_done");
}

/* May the protocol run now?  Only once the client (conduit, EP 0) is up. */
static int exit_notice_usable(void) { return xn.done && gexi_core.initialized; }

/* 1 while less than EXIT_WAIT_NS have passed since a wait first saw the
 * job ending with code 0 (gexi_exit_check). */
static int zero_exit_grace(void)
{
    static _Atomic int64_t first_seen;
    const int64_t t = now_ns();
    int64_t first = 0;
    if (atomic_compare_exchange_strong(&first_seen, &first, t)) first = t;
    return t - first < EXIT_WAIT_NS;
}

/* Called by every wait in GEX (gexi_backoff) and by gasnet_AMPoll. */
void gexi_exit_check(void)
{
    if (exit_thread && xn.active) {   /* the protocol's thread, in one of its own waits */
        int64_t t = now_ns();
        switch (xn.phase) {
        case 1:   /* a send that waits in the conduit: a peer that died? */
            if (!xn.in_send) return;
            if (t > xn.stall) finish(0);
            if (!xn.in_check) {   /* keep taking in the others' messages */
                xn.in_check = 1;
                gexi_poll();
                xn.in_check = 0;
            }
            return;
        case 2:
            if (all_done() || t > xn.deadline) finish(all_done());
            return;
        default:
            if (t > xn.stall) leave_now(!xn.initiator);
            return;
        }
    }
    if (!exit_thread && atomic_load(&exiting)) return;   /* another thread ends the process */
    /* Another rank called gasnet_exit(0) (or returned from main): the wait
     * we are in may complete in a moment, typically the final barrier, which
     * that rank saw complete first, after which this rank prints its results
     * and calls gasnet_exit itself.  Leaving at once would lose that output,
     * so a job ending with code 0 gets EXIT_WAIT_NS of further polling before
     * this rank leaves (well inside gexrun's 2 s grace and GASNET_EXITTIMEOUT,
     * the time the initiator waits for our answer); any other ending leaves
     * at once.  Both ways a job ends are covered: the exit notice of a PMIx
     * launch and gexrun's aborting(). */
    if (atomic_load_explicit(&gexi_exit_noticed, memory_order_relaxed)) {
        if (atomic_load(&xn.code) == 0 && zero_exit_grace()) return;
        gexi_exit_now_aborting();
    }
    if (gexi_bootstrap && gexi_bootstrap->aborting()) {
        if (gexi_bootstrap->exit_code && gexi_bootstrap->exit_code() == 0 && zero_exit_grace())
            return;
        gexi_exit_now_aborting();
    }
}

/* Another thread is ending the process: wait for it (it is bounded). */
__attribute__((noreturn)) static void park(void)
{
    for (;;) {
        struct timespec ts = { 1, 0 };
        nanosleep(&ts, NULL);
    }
}

void gexi_exit_now_aborting(void)
{
    if (atomic_exchange(&exiting, 1) && !exit_thread) park();
    exit_thread = 1;
    if (atomic_load(&gexi_exit_noticed) && exit_notice_usable()) {
        int c = atomic_load(&xn.code);
        xn.my_code = c < 0 ? 1 : c;
        xn.initiator = 0;
        flush_all();
        run_protocol();
    }
    gexi_eps_close();
    flush_all();
    _exit(gexi_bootstrap && gexi_bootstrap->exit_code ? gexi_bootstrap->exit_code() : 1);
}

/* gasnet_exit's work, also run at process exit (below). */
__attribute__((noreturn)) static void end_job(int exitcode)
{
    /* a process status keeps only 8 bits: 256 would read as success to a
     * PMIx launcher or a shell (gexrun maps it the same way) */
    if (exitcode != 0 && (exitcode & 0xff) == 0) exitcode = 1;
    if (atomic_exchange(&exiting, 1)) {
        /* re-entry on this thread (a handler run by our own wait): finish now */
        if (exit_thread && xn.active) leave_now(0);
        if (!exit_thread) park();   /* a second thread: the first one ends the process */
        flush_all();
        _exit(exitcode);
    }
    exit_thread = 1;
    flush_all();
    if (exit_notice_usable()) {
        xn.my_code = exitcode;
        xn.initiator = 1;
        run_protocol();
    }
    gexi_eps_close();
    gexi_layers_fini();
    if (gexi_bootstrap && gexi_bootstrap->exit_notice && exitcode == 0 && gexi_core.jobsize < 2) {
        if (gexi_bootstrap->fini) gexi_bootstrap->fini();   /* alone: a clean exit suffices */
    } else if (gexi_bootstrap && gexi_bootstrap->abort) {
        gexi_bootstrap->abort(exitcode);
    }
    _exit(exitcode);
}

void gasnet_exit(int exitcode) { end_job(exitcode); }

/* exit() or a return from main: under a bootstrap with exit notices, end
 * the job as gasnet_exit(status) would (GASNET_CATCH_EXIT=0: do not). */
static int catch_exit = 1;

static void at_process_exit_status(int status, void *arg)
{
    (void)arg;
    if (catch_exit && exit_notice_usable() && !atomic_load(&exiting)) end_job(status);
    gexi_eps_close();
    flush_all();
}

#if !defined(__GLIBC__)
static void at_process_exit(void) { at_process_exit_status(0, NULL); }
#endif

void gexi_exit_init(void)
{
    exit_notice_init();
    catch_exit = gexi_getenv_yesno("GASNET_CATCH_EXIT", 1);
#if defined(__GLIBC__)
    on_exit(at_process_exit_status, NULL);   /* gives the exit status */
#else
    catch_exit = 0;                          /* atexit does not: leave alone as before */
    atexit(at_process_exit);
#endif
}

/* Clients often wait in their own gasnet_AMPoll loops, so those must also
 * notice a job that is ending: a notice at once (one relaxed load), the
 * bootstrap every 16th call (an indirect call and a shared read).  Every
 * 256th was too rare for a loop that naps between polls: at 10 ms a nap
 * the rank noticed only after gexrun's 2 s grace and was killed, its
 * buffered output lost. */
static __thread unsigned poll_calls __attribute__((tls_model("initial-exec")));

int gasnet_AMPoll(void)
{
    if (GEXI_UNLIKELY(!gexi_core.initialized)) return GASNET_ERR_NOT_INIT;
    gexi_check_wait_ctx(__func__);
    gexi_poll();
    if (GEXI_UNLIKELY(atomic_load_explicit(&gexi_exit_noticed, memory_order_relaxed)) ||
        GEXI_UNLIKELY((++poll_calls & 15) == 0 && gexi_bootstrap->aborting()))
        gexi_exit_check();
    return GASNET_OK;
}
