/*
 * errors.c: error names, logging, fatal errors and the "not implemented
 * yet" policy.  Public calls report bad arguments through GEXI_RETURN_ERR
 * (core_layer.h), which lands in gexi_report_err() here.
 */
#include "core_internal.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* spec: "By default, certain non-fatal error returns ... print messages". */
static atomic_int verbose_errors = 1;

int gex_System_GetVerboseErrors(void) { return atomic_load(&verbose_errors); }
void gex_System_SetVerboseErrors(int enable)
{
    if (enable == 0 || enable == 1) atomic_store(&verbose_errors, enable);
}
GEXI_EXPORT int gexi_verbose_errors(void) { return atomic_load(&verbose_errors); }

const char *gasnet_ErrorName(int errval)
{
    switch (errval) {
    case GASNET_OK: return "GASNET_OK";
    case GASNET_ERR_NOT_INIT: return "GASNET_ERR_NOT_INIT";
    case GASNET_ERR_RESOURCE: return "GASNET_ERR_RESOURCE";
    case GASNET_ERR_BAD_ARG: return "GASNET_ERR_BAD_ARG";
    case GASNET_ERR_NOT_READY: return "GASNET_ERR_NOT_READY";
    case GASNET_ERR_BARRIER_MISMATCH: return "GASNET_ERR_BARRIER_MISMATCH";
    default: return "*unknown*";
    }
}

const char *gasnet_ErrorDesc(int errval)
{
    switch (errval) {
    case GASNET_OK: return "No error";
    case GASNET_ERR_NOT_INIT: return "GASNet message layer not initialized";
    case GASNET_ERR_RESOURCE: return "Problem with requested resource";
    case GASNET_ERR_BAD_ARG: return "Invalid function parameter passed";
    case GASNET_ERR_NOT_READY: return "Non-blocking operation not complete";
    case GASNET_ERR_BARRIER_MISMATCH: return "Barrier id's mismatched";
    default: return "no description available";
    }
}

static void vlog(const char *kind, const char *fmt, va_list ap)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "GEX rank %u: %s", (unsigned)gexi_core.jobrank, kind);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof buf) vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    size_t len = strlen(buf);
    if (len + 1 < sizeof buf) { buf[len++] = '\n'; buf[len] = 0; }
    /* one write() so lines from different ranks do not interleave */
    ssize_t rc = write(STDERR_FILENO, buf, len);
    (void)rc;
}

GEXI_EXPORT void gexi_log(int level, const char *fmt, ...)
{
    static const char *kinds[] = { "error: ", "warning: ", "", "debug: " };
    if (level >= 2 && !gexi_core.verbose) return;
    va_list ap;
    va_start(ap, fmt);
    vlog(kinds[level < 0 ? 0 : level > 3 ? 3 : level], fmt, ap);
    va_end(ap);
}

GEXI_EXPORT void gexi_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog("fatal: ", fmt, ap);
    va_end(ap);
    gexi_backtrace_ifenabled(STDERR_FILENO); /* GASNET_BACKTRACE */
    gexi_freeze_ifenabled();                 /* GASNET_FREEZE_ON_ERROR */
    fflush(stdout);
    /* Tell the launcher first, so the rest of the job ends promptly. */
    if (gexi_bootstrap && gexi_bootstrap->abort) gexi_bootstrap->abort(1);
    _exit(1);
}

GEXI_EXPORT void gexi_report_err(const char *func, int code, const char *file, int line,
                                 const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gexi_log(0, "%s returning %s: %s (at %s:%d)", func, gasnet_ErrorName(code), msg, file, line);
}

void gexi_check_handle(const char *func, const char *arg, const void *h,
                       uint32_t magic, int pair_ok)
{
    if (!h) gexi_fatal("%s: %s is the INVALID handle (NULL)", func, arg);
    if (magic == GEXI_MAGIC_TM && gexi_tm_is_pair((gex_TM_t)h)) {
        if (!pair_ok)
            gexi_fatal("%s: %s is a TM-pair (gex_TM_Pair), which the spec does not allow in "
                       "gex_TM_ calls", func, arg);
        h = gexi_pair_ep((gex_TM_t)h);
        magic = GEXI_MAGIC_EP;
    }
    /* every object struct opens with its magic number (core_layer.h) */
    if (*(const uint32_t *)h != magic)
        gexi_fatal("%s: %s (%p) is not a valid %s handle (destroyed, or another kind of "
                   "object?)", func, arg, h, magic == GEXI_MAGIC_CLIENT ? "gex_Client_t"
                   : magic == GEXI_MAGIC_EP ? "gex_EP_t" : magic == GEXI_MAGIC_SEGMENT
                   ? "gex_Segment_t" : "gex_TM_t");
}

GEXI_EXPORT int gexi_not_implemented(const char *func)
{
    gexi_log(0, "%s: not implemented yet", func);
    return GASNET_ERR_RESOURCE;
}

GEXI_EXPORT void gexi_not_implemented_fatal(const char *func)
{
    gexi_fatal("%s: not implemented yet", func);
}
