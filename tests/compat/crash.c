/*
 * crash.c: ends badly on purpose, for tests/compat/test_backtrace.sh.
 *   crash segv   dies of SIGSEGV after gasnet_init
 *   crash fatal  makes GEX fail fatally (an AM for a handler never registered)
 *   crash tools  calls gasnett_fatalerror (gasnet_tools.h)
 * With GASNET_BACKTRACE=1 each must print a backtrace first.
 */
#include <gasnet.h>
#include <gasnet_tools.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "segv";
    if (gasnet_init(&argc, &argv) != GASNET_OK || gasnet_attach(NULL, 0, 0, 0) != GASNET_OK)
        return 3;
    if (!strcmp(how, "segv")) {
        raise(SIGSEGV);
    } else if (!strcmp(how, "fatal")) {
        gasnet_AMRequestShort0(gasnet_mynode(), 250);
        GASNET_BLOCKUNTIL(0);
    } else if (!strcmp(how, "tools")) {
        gasnett_fatalerror("deliberate failure %d", 42);
    }
    return 4;
}
