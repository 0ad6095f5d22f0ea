/*
 * exit.c: gasnet_exit and the end of a job.  gasnet_exit(code) by any rank
 * ends the whole job with that code (GASNet-1 semantics): we record the
 * code with the launcher, which ends the other ranks after a short grace
 * period, and other ranks already waiting inside GEX notice it in their
 * backoff loop and leave at once with the same code.
 */
#include "core_internal.h"
#include <stdlib.h>
#include <unistd.h>

static atomic_int exiting;

static void flush_all(void)
{
    fflush(stdout);
    fflush(stderr);
}

static void at_process_exit(void)
{
    gexi_eps_close();
    flush_all();
}

void gexi_exit_init(void) { atexit(at_process_exit); }

void gasnet_exit(int exitcode)
{
    if (atomic_exchange(&exiting, 1)) { /* a second thread, or re-entry from a handler */
        flush_all();
        _exit(exitcode);
    }
    flush_all();
    gexi_eps_close();
    gexi_layers_fini();
    if (gexi_bootstrap && gexi_bootstrap->abort) gexi_bootstrap->abort(exitcode);
    _exit(exitcode);
}

void gexi_exit_now_aborting(void)
{
    gexi_eps_close();
    flush_all();
    int code = gexi_bootstrap && gexi_bootstrap->exit_code ? gexi_bootstrap->exit_code() : 1;
    _exit(code);
}

/* Clients often wait in their own gasnet_AMPoll loops, so those must also
 * notice a job that is ending; every 256th call looks (one shared read). */
static __thread unsigned poll_calls __attribute__((tls_model("initial-exec")));

int gasnet_AMPoll(void)
{
    if (GEXI_UNLIKELY(!gexi_core.initialized)) return GASNET_ERR_NOT_INIT;
    gexi_poll();
    if (GEXI_UNLIKELY((++poll_calls & 255) == 0) && gexi_bootstrap->aborting())
        gexi_exit_now_aborting();
    return GASNET_OK;
}
