/*
 * env.c: environment lookups for every layer.  GASNet clients expect
 * GASNET_VERBOSEENV to list each setting the library consulted, with its
 * value, once, on rank 0 (README-gasnet-user); all lookups go through here
 * so that listing is complete.
 */
#include "core_internal.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define GEXI_ENV_SEEN_MAX 128
static const char *env_seen[GEXI_ENV_SEEN_MAX];
static unsigned env_seen_count;
static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;

static int verboseenv(void)
{
    static int cached = -1;
    if (cached < 0) cached = gexi_env_bool(getenv("GASNET_VERBOSEENV")); /* a Boolean setting */
    return cached;
}

/* Prints NAME = value the first time NAME is looked up (rank 0 only, since
 * every rank normally reads the same environment). */
static void env_report(const char *name, const char *val)
{
    if (!verboseenv() || gexi_core.jobrank != 0) return;
    pthread_mutex_lock(&env_lock);
    for (unsigned i = 0; i < env_seen_count; i++) {
        if (!strcmp(env_seen[i], name)) {
            pthread_mutex_unlock(&env_lock);
            return;
        }
    }
    if (env_seen_count < GEXI_ENV_SEEN_MAX) env_seen[env_seen_count++] = name;
    pthread_mutex_unlock(&env_lock);
    fprintf(stderr, "GEX ENV parameter: %s = %s\n", name, val ? val : "(not set: default)");
}

GEXI_EXPORT const char *gexi_getenv(const char *name)
{
    const char *v = getenv(name);
    env_report(name, v);
    return v;
}

char *gasnet_getenv(const char *name)
{
    if (!name) return NULL;
    return (char *)gexi_getenv(name);
}

GEXI_EXPORT long gexi_getenv_int(const char *name, long dflt)
{
    const char *v = gexi_getenv(name);
    if (!v || !*v) return dflt;
    long r;
    if (gexi_env_parse_long(v, &r)) {
        gexi_log(0, "environment %s='%s' is not an integer; using %ld", name, v, dflt);
        return dflt;
    }
    return r;
}

/* The size grammar is gex_conduit_parse_size's (include/gex/conduit.h), so
 * the library's and the conduits' variables read alike. */
GEXI_EXPORT uint64_t gexi_getenv_size(const char *name, uint64_t dflt)
{
    const char *v = gexi_getenv(name);
    if (!v || !*v) return dflt;
    uint64_t r;
    if (gex_conduit_parse_size(v, &r)) {
        gexi_log(0, "environment %s='%s' is not a size (a number with an optional K, M, G or T "
                 "suffix); using %llu", name, v, (unsigned long long)dflt);
        return dflt;
    }
    return r;
}

GEXI_EXPORT int gexi_env_forces_reference(const char *layer)
{
    const char *v = gexi_getenv("GEX_FORCE_REFERENCE");
    return gexi_env_list_has(v, layer, "all");
}
