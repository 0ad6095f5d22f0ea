/*
 * quit_signal.c: GASNet's SIGQUIT convention for ending a job by signal.
 *
 * GASNet catches SIGINT, SIGTERM and SIGHUP and raises SIGQUIT instead, so
 * a client that wants the job to end its own way when interrupted installs
 * one handler, for SIGQUIT, which typically calls gasnet_exit(code).  Code
 * written for GASNet counts on it (GASNet's testexit: "non-collective
 * SIGINT, others in barrier ... exit_code 4").  GEX does the same once the
 * client is initialised, with two differences documented in
 * docs/compatibility.md:
 *  - a process whose SIGQUIT is at its default (or ignored) when such a
 *    signal arrives dies of the signal itself, as it did before, so gexrun
 *    and PMIx launchers report it (status 128+signal) and nothing changes
 *    for clients that never asked; GASNet would exit with 1 instead;
 *  - only signals still at their default disposition at init are caught
 *    (a client's own handler, or SIG_IGN from nohup, stays), and
 *    GASNET_NO_CATCH_SIGNAL ("SIGINT", "TERM", "*") leaves the listed ones
 *    alone, as it does for the fatal signals in gasnet1_env.c.
 * Each handler is one-shot (SA_RESETHAND): a second interrupt kills the
 * process even when the client's SIGQUIT handler returned.  The client's
 * SIGQUIT disposition is looked up when the signal arrives, so a handler
 * installed after gex_Client_Init (as GASNet's tests do) is found.
 */
#include "core_internal.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    int sig;
    const char *name;
} quit_signals[] = {
    { SIGINT, "SIGINT" },
    { SIGTERM, "SIGTERM" },
    { SIGHUP, "SIGHUP" },
};

static int client_handles_sigquit(void)
{
    struct sigaction quit;
    if (sigaction(SIGQUIT, NULL, &quit) != 0) return 0;
    if (quit.sa_flags & SA_SIGINFO) return quit.sa_sigaction != NULL;
    return quit.sa_handler != SIG_DFL && quit.sa_handler != SIG_IGN;
}

static void on_quit_signal(int sig)
{
    const int saved = errno;
    /* The disposition of sig is back at its default (SA_RESETHAND). */
    if (client_handles_sigquit()) {
        raise(SIGQUIT);   /* runs the client's handler now: SIGQUIT is not blocked here */
        errno = saved;
        return;
    }
    /* sig is blocked while this runs: it is delivered, and kills the
     * process, as this handler returns. */
    raise(sig);
    errno = saved;
}

void gexi_quit_signals_install(void)
{
    const char *nocatch = getenv("GASNET_NO_CATCH_SIGNAL");
    for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++) {
        const int sig = quit_signals[i].sig;
        if (gexi_signal_excluded(nocatch, sig, quit_signals[i].name)) continue;
        struct sigaction old, sa;
        if (sigaction(sig, NULL, &old) != 0) continue;
        if (old.sa_flags & SA_SIGINFO) continue;  /* someone else's handler: keep it */
        if (old.sa_handler != SIG_DFL) continue;  /* the client's, or SIG_IGN: keep it */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_quit_signal;
        sa.sa_flags = (int)SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, NULL);
    }
}
