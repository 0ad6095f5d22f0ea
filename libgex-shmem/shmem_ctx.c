/* Communication contexts (OpenSHMEM 1.5 section 9.5; seed 001) and the
 * completion they track: fence and quiet (section 9.10).
 *
 * A context created by shmem_ctx_create / shmem_team_create_ctx gets its
 * own GEX endpoint (GEX_FLAG_EP_SERIALIZED when the context is PRIVATE or
 * SERIALIZED: then no thread but its user progresses it and no lock is
 * taken) and reaches every PE's heap through a TM-pair with endpoint 0.
 * GEX has no endpoint destruction, so destroyed contexts hand their
 * endpoints to a free pool that later contexts reuse.  When the conduit
 * has no endpoint left, a context shares the primordial endpoint: its
 * completion is still its own (the event list below). */
#include "shmem_internal.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EV_INITIAL 64

struct ep_pool_entry {
    gex_EP_t ep;
    int serialized;
};
static struct ep_pool_entry ep_pool[GASNET_MAXEPS];
static int ep_pool_n;
static pthread_mutex_t ep_pool_lock = PTHREAD_MUTEX_INITIALIZER;

void gexshm_ctx_setup(struct gexshm_ctx *c, struct gexshm_team *team, long options, int own_ep)
{
    c->options = options;
    c->team = team;
    c->own_ep = own_ep;
    if (!own_ep) {
        c->ep = gexshm.ep;
        c->tm = gexshm.tm;
    }
    c->locked = gexshm.thread_level == SHMEM_THREAD_MULTIPLE &&
                !(options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED));
    pthread_mutex_init(&c->lock, NULL);
    c->nev = 0;
    if (!c->ev) {
        c->ev = malloc(EV_INITIAL * sizeof *c->ev);
        if (!c->ev) gexshm_fatal("shmem: out of memory for a context");
        c->cap = EV_INITIAL;
    }
}

static int ep_get(int serialized, gex_EP_t *ep)
{
    pthread_mutex_lock(&ep_pool_lock);
    for (int i = 0; i < ep_pool_n; i++) {
        if (ep_pool[i].serialized == serialized) {
            *ep = ep_pool[i].ep;
            ep_pool[i] = ep_pool[--ep_pool_n];
            pthread_mutex_unlock(&ep_pool_lock);
            return 1;
        }
    }
    pthread_mutex_unlock(&ep_pool_lock);
    gex_Flags_t flags = serialized ? GEX_FLAG_EP_SERIALIZED : 0;
    return gex_EP_Create(ep, gexshm.client, GEX_EP_CAPABILITY_RMA, flags) == GASNET_OK;
}

static void ep_put(gex_EP_t ep, int serialized)
{
    pthread_mutex_lock(&ep_pool_lock);
    if (ep_pool_n < GASNET_MAXEPS) ep_pool[ep_pool_n++] = (struct ep_pool_entry){ep, serialized};
    pthread_mutex_unlock(&ep_pool_lock);
}

/* Opt-out: GEX_SHMEM_CTX_EP=0 keeps every context on the primordial
 * endpoint (to compare the two). */
static int ctx_ep_enabled(void)
{
    static int v = -1;
    if (v < 0) {
        const char *s = getenv("GEX_SHMEM_CTX_EP");
        if (!s || !*s || !strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "y"))
            v = 1;
        else if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "n"))
            v = 0;
        else /* a typo must not silently pick one (docs/environment.md) */
            gexshm_fatal("environment variable GEX_SHMEM_CTX_EP='%s' is not yes or no", s);
    }
    return v;
}

int gexshm_ctx_new(struct gexshm_team *team, long options, shmem_ctx_t *ctx)
{
    if (!ctx) return -1;
    *ctx = SHMEM_CTX_INVALID;
    if (!team || team->my_pe < 0) return -1;
    if (options & ~(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE)) return -1;
    if (team->config_mask & SHMEM_TEAM_NUM_CONTEXTS &&
        team->n_ctx >= team->config.num_contexts)
        return -1; /* the team was created to hold this many, and holds them */
    struct gexshm_ctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    int serialized = (options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED)) != 0;
    int own = ctx_ep_enabled() && ep_get(serialized, &c->ep);
    gexshm_ctx_setup(c, team, options, own);
    if (own) c->tm = gex_TM_Pair(c->ep, 0);
    __atomic_add_fetch(&team->n_ctx, 1, __ATOMIC_RELAXED);
    *ctx = (shmem_ctx_t)c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    gexshm_require_init("shmem_ctx_create");
    return gexshm_ctx_new(&gexshm_team_world, options, ctx);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    gexshm_require_init("shmem_team_create_ctx");
    if (team == SHMEM_TEAM_INVALID) {
        if (ctx) *ctx = SHMEM_CTX_INVALID;
        return -1;
    }
    return gexshm_ctx_new(gexshm_team(team), options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID) return;
    if (ctx == SHMEM_CTX_DEFAULT) gexshm_fatal("shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed");
    struct gexshm_ctx *c = gexshm_ctx(ctx);
    gexshm_ctx_quiet(c);
    if (c->own_ep) ep_put(c->ep, (c->options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED)) != 0);
    __atomic_sub_fetch(&c->team->n_ctx, 1, __ATOMIC_RELAXED);
    pthread_mutex_destroy(&c->lock);
    free(c->ev);
    free(c);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team) return -1;
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    struct gexshm_team *t = gexshm_ctx(ctx)->team;
    *team = t == &gexshm_team_world    ? SHMEM_TEAM_WORLD
            : t == &gexshm_team_shared ? SHMEM_TEAM_SHARED
                                       : (shmem_team_t)t;
    return 0;
}

/* ---- completion ---- */

static void reap(struct gexshm_ctx *c)
{
    gex_Event_TestSome(c->ev, c->nev, 0);
    size_t k = 0;
    for (size_t i = 0; i < c->nev; i++)
        if (c->ev[i] != GEX_EVENT_INVALID) c->ev[k++] = c->ev[i];
    c->nev = k;
}

void gexshm_ctx_track(struct gexshm_ctx *c, gex_Event_t ev)
{
    if (ev == GEX_EVENT_INVALID) return;
    if (c->locked) pthread_mutex_lock(&c->lock);
    if (c->nev == c->cap) {
        reap(c);
        if (c->nev > c->cap / 2) {
            gex_Event_t *n = realloc(c->ev, 2 * c->cap * sizeof *n);
            if (n) {
                c->ev = n;
                c->cap *= 2;
            } else {
                gex_Event_WaitAll(c->ev, c->nev, 0);
                c->nev = 0;
            }
        }
    }
    c->ev[c->nev++] = ev;
    if (c->locked) pthread_mutex_unlock(&c->lock);
}

void gexshm_ctx_quiet(struct gexshm_ctx *c)
{
    if (c->locked) {
        /* wait outside the lock, so other threads keep issuing */
        gex_Event_t local[64], *ev = local;
        pthread_mutex_lock(&c->lock);
        size_t n = c->nev;
        if (n > 64) ev = malloc(n * sizeof *ev);
        if (!ev) {
            gex_Event_WaitAll(c->ev, n, 0);
            n = 0;
        } else if (n) {
            memcpy(ev, c->ev, n * sizeof *ev);
        }
        c->nev = 0;
        pthread_mutex_unlock(&c->lock);
        if (n) gex_Event_WaitAll(ev, n, 0);
        if (ev && ev != local) free(ev);
    } else if (c->nev) {
        gex_Event_WaitAll(c->ev, c->nev, 0);
        c->nev = 0;
    }
    /* stores through shmem_ptr and PSHM copies are ordered by this fence */
    atomic_thread_fence(memory_order_seq_cst);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    gexshm_ctx_quiet(gexshm_ctx(ctx));
}

void shmem_quiet(void)
{
    gexshm_ctx_quiet(&gexshm_ctx_default);
}

/* Fence orders delivery per PE.  GEX does not promise that two puts to the
 * same PE arrive in issue order, so a fence with operations outstanding
 * completes them (a quiet is a valid, stronger fence); with nothing
 * outstanding (every PSHM peer, every blocking path) it is a memory fence. */
void shmem_ctx_fence(shmem_ctx_t ctx)
{
    gexshm_ctx_quiet(gexshm_ctx(ctx));
}

void shmem_fence(void)
{
    gexshm_ctx_quiet(&gexshm_ctx_default);
}
