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

/* A set variable that does not parse ends the job (docs/environment.md,
 * "Unreadable values"): an HPC user who mistyped a setting would rather lose
 * a few seconds than run a long job with a silently different one. */
GEXI_EXPORT long gexi_getenv_int(const char *name, long dflt)
{
    const char *v = gexi_getenv(name);
    if (!v || !*v) return dflt;
    long r;
    if (gexi_env_parse_long(v, &r))
        gexi_fatal("environment variable %s='%s' is not an integer (or is out of range)", name, v);
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
        (void)dflt;
        gexi_fatal("environment variable %s='%s' is not a size (a number below 2^64 with an "
                   "optional K, M, G or T suffix)", name, v);
    }
    return r;
}

GEXI_EXPORT int gexi_env_forces_reference(const char *layer)
{
    const char *v = gexi_getenv("GEX_FORCE_REFERENCE");
    if (!v) return 0;
    /* every item must name a layer: a misspelt one would otherwise
     * benchmark the conduit's code while the user thinks it is the reference */
    static const char *const known[] = { "all", "am", "rma", "vis", "atomics", "coll", "mk" };
    size_t n = strlen(layer);
    int hit = 0;
    for (const char *p = v; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int ok = len == 0; /* ",am," : empty items are harmless */
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            ok |= len == strlen(known[k]) && !strncmp(p, known[k], len);
        if (!ok)
            gexi_fatal("environment variable GEX_FORCE_REFERENCE='%s': '%.*s' is not a layer "
                       "(all, am, rma, vis, atomics, coll, mk)", v, (int)len, p);
        if ((len == n && !strncmp(p, layer, n)) || (len == 3 && !strncmp(p, "all", 3))) hit = 1;
        if (!comma) break;
        p = comma + 1;
    }
    return hit;
}
