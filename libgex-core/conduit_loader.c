/*
 * conduit_loader.c: finds and opens a conduit plug-in (STYLE.md section 2).
 * Search order: $GEX_CONDUIT_PATH (colon list), <dir of libgex-core>/gex,
 * <dir of libgex-core> (uninstalled build trees), then the configured
 * $libdir/gex.  A plug-in whose ABI major differs, or whose ops table is
 * shorter than ABI 1.0, is skipped with a message naming the file and both
 * versions.
 */
#include "core_internal.h"
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The conduits tell clients' handlers from the layers' by this bound
 * (gex_conduit_check_long_dest in gex/conduit.h). */
_Static_assert(GEX_CONDUIT_CLIENT_HANDLER_MIN == GEX_AM_INDEX_BASE,
               "conduits and gasnetex.h disagree on where clients' AM handlers start");

/* Some libraries a plug-in links (Debian's libfabric pulls in libinfinipath)
 * install handlers for SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGINT and SIGTERM from
 * their constructors: a crashing rank then printed their backtrace and exited
 * with status 1 instead of dying of the signal, and the client's own handlers
 * and GASNET_BACKTRACE's were replaced.  Signal dispositions are the
 * process's, not a plug-in's to take: whatever dlopen() changed is put back. */
#define GEXI_NSIG 32
static void save_signals(struct sigaction *saved)
{
    for (int sig = 1; sig < GEXI_NSIG; sig++)
        if (sigaction(sig, NULL, &saved[sig]) != 0) saved[sig].sa_handler = SIG_ERR;
}

static void restore_signals(const struct sigaction *saved)
{
    for (int sig = 1; sig < GEXI_NSIG; sig++) {
        struct sigaction now;
        if (saved[sig].sa_handler == SIG_ERR || sigaction(sig, NULL, &now) != 0) continue;
        if (now.sa_handler != saved[sig].sa_handler) {
            if (gexi_core.verbose && gexi_core.jobrank == 0)
                gexi_log(2, "restored the handler of signal %d that a conduit library replaced",
                         sig);
            sigaction(sig, &saved[sig], NULL);
        }
    }
}

static int try_open(const char *dir, const char *name, const struct gex_conduit_ops **ops_p,
                    void **dl_p)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/libgex-conduit-%s.so", dir, name);
    if (access(path, R_OK) != 0) return 0;
    struct sigaction saved[GEXI_NSIG];
    save_signals(saved);
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    restore_signals(saved);
    if (!dl) {
        gexi_log(1, "conduit %s: cannot load %s: %s", name, path, dlerror());
        return 0;
    }
    gex_conduit_entry_fn *entry;
    *(void **)&entry = dlsym(dl, GEX_CONDUIT_ENTRY_SYMBOL);
    /* The symbol must come from the plug-in itself, not a dependency. */
    Dl_info info;
    if (entry && (!dladdr(*(void **)&entry, &info) ||
                  !info.dli_fname || strcmp(info.dli_fname, path) != 0)) {
        char real_a[PATH_MAX], real_b[PATH_MAX];
        if (!info.dli_fname || !realpath(info.dli_fname, real_a) || !realpath(path, real_b) ||
            strcmp(real_a, real_b) != 0)
            entry = NULL;
    }
    const struct gex_conduit_ops *ops = entry ? entry() : NULL;
    if (!gexi_conduit_ops_acceptable(ops)) {
        gexi_log(1, "conduit %s: %s has ABI %u (ops size %u), core needs ABI %u (size >= %zu);"
                 " skipped", name, path, ops ? ops->abi_major : 0, ops ? ops->struct_size : 0,
                 (unsigned)GEX_CONDUIT_ABI_MAJOR, (size_t)GEX_CONDUIT_OPS_1_0_SIZE);
        dlclose(dl);
        return 0;
    }
    if (gexi_core.verbose && gexi_core.jobrank == 0)
        gexi_log(2, "conduit %s loaded from %s", ops->name, path);
    *ops_p = ops;
    *dl_p = dl;
    return 1;
}

GEXI_EXPORT int gexi_conduit_ops_acceptable(const struct gex_conduit_ops *ops)
{
    return ops && ops->abi_major == GEX_CONDUIT_ABI_MAJOR &&
           ops->struct_size >= GEX_CONDUIT_OPS_1_0_SIZE;
}

/* The search order of the header comment, for the loader and gex-info. */
GEXI_EXPORT int gexi_conduit_search_path(int (*fn)(const char *dir, void *arg), void *arg)
{
    const char *env = gexi_getenv("GEX_CONDUIT_PATH");
    if (env) {
        char *copy = strdup(env), *save = NULL;
        for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
            if (fn(d, arg)) {
                free(copy);
                return 1;
            }
        }
        free(copy);
    }
    Dl_info info;
    if (dladdr((void *)&gexi_conduit_search_path, &info) && info.dli_fname) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = 0;
            char sub[PATH_MAX + 8];
            snprintf(sub, sizeof sub, "%s/gex", dir);
            if (fn(sub, arg) || fn(dir, arg)) return 1;
        }
    }
    return fn(GEX_LIBDIR "/gex", arg);
}

struct load_request {
    const char *name;
    const struct gex_conduit_ops **ops_p;
    void **dl_p;
};

static int try_dir(const char *dir, void *arg)
{
    struct load_request *r = arg;
    return try_open(dir, r->name, r->ops_p, r->dl_p);
}

int gexi_conduit_load(const char *name, const struct gex_conduit_ops **ops_p, void **dl_p)
{
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return GASNET_ERR_BAD_ARG;
    struct load_request r = { name, ops_p, dl_p };
    return gexi_conduit_search_path(try_dir, &r) ? GASNET_OK : GASNET_ERR_RESOURCE;
}
