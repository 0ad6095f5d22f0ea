/*
 * crash.c: ends badly on purpose, for tests/compat/test_backtrace.sh.
 *   crash segv   dies of SIGSEGV after gasnet_init
 *   crash fatal  makes GEX fail fatally (an AM for a handler never registered)
 *   crash tools  calls gasnett_fatalerror (gasnet_tools.h)
 *   crash keep   installs its own SIGSEGV handler before gasnet_init, checks
 *                that init left every fatal signal's handler as it was (no
 *                library loaded by a conduit may take them), then dies in
 *                its own handler with status 42 (tests/compat/test_signals.sh,
 *                which sets GASNET_NO_CATCH_SIGNAL=INT,TERM,HUP: GEX's own
 *                SIGQUIT convention, libgex-core/quit_signal.c, takes those)
 *   crash bus    dies of SIGBUS (test_signals.sh: gexrun's /dev/shm hint)
 *   crash ok     prints "continued" and ends with gasnet_exit(0)
 *   crash usr1   the same after raising SIGUSR1 (usr2: SIGUSR2), for
 *                GASNET_BACKTRACE_SIGNAL / GASNET_FREEZE_SIGNAL
 *                (tests/compat/test_freeze.sh)
 * With GASNET_BACKTRACE=1 each fatal one must print a backtrace first.
 */
#include <gasnet.h>
#include <gasnet_tools.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void own_segv(int sig)
{
    (void)sig;
    static const char msg[] = "crash: own SIGSEGV handler ran\n";
    ssize_t rc = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)rc;
    _exit(42);
}

static const int watched[] = { SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGINT, SIGTERM };
#define NWATCHED (sizeof watched / sizeof watched[0])

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "segv";
    void (*before[NWATCHED])(int);
    if (!strcmp(how, "keep")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = own_segv;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL);
        for (size_t i = 0; i < NWATCHED; i++) {
            struct sigaction old;
            sigaction(watched[i], NULL, &old);
            before[i] = old.sa_handler;
        }
    }
    if (gasnet_init(&argc, &argv) != GASNET_OK || gasnet_attach(NULL, 0, 0, 0) != GASNET_OK)
        return 3;
    if (!strcmp(how, "segv")) {
        raise(SIGSEGV);
    } else if (!strcmp(how, "bus")) {
        raise(SIGBUS);
    } else if (!strcmp(how, "ok") || !strcmp(how, "usr1") || !strcmp(how, "usr2")) {
        /* a signal the GASNET_*_SIGNAL settings catch: the rank goes on */
        if (how[0] == 'u') raise(how[3] == '1' ? SIGUSR1 : SIGUSR2);
        printf("crash: rank %d continued\n", (int)gasnet_mynode());
        fflush(stdout);
        gasnet_exit(0);
    } else if (!strcmp(how, "fatal")) {
        gasnet_AMRequestShort0(gasnet_mynode(), 250);
        GASNET_BLOCKUNTIL(0);
    } else if (!strcmp(how, "keep")) {
        for (size_t i = 0; i < NWATCHED; i++) {
            struct sigaction now;
            sigaction(watched[i], NULL, &now);
            if (now.sa_handler != before[i]) {
                fprintf(stderr, "crash: the handler of signal %d changed during init\n",
                        watched[i]);
                return 5;
            }
        }
        raise(SIGSEGV);
    } else if (!strcmp(how, "tools")) {
        gasnett_fatalerror("deliberate failure %d", 42);
    }
    return 4;
}
