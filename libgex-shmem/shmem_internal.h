/* libgex-shmem: OpenSHMEM 1.5 on GEX (docs/shmem.md).
 *
 * This library is a GEX *client*: it uses only the public GASNet-EX API of
 * the layers below (gasnetex.h, gasnet_ratomic.h, gasnet_coll.h), never their
 * internals, so it can be upgraded, replaced or left out independently.
 *
 * Files:
 *   shmem_setup.c   init/finalize, queries, the state below, global_exit
 *   shmem_heap.c    the symmetric heap (shmem_malloc & co) on a GEX segment
 *   shmem_ctx.c     contexts: creation, fence/quiet, completion tracking
 *   shmem_rma.c     put/get/p/g/iput/iget/nbi, sized and typed forms
 *   shmem_static.c  remote access to the executable's .data/.bss over AM
 *   shmem_amo.c     atomics on gex_AD, signals
 *   shmem_p2p.c     wait_until/test families, signal_wait_until
 *   shmem_lock.c    distributed locks, deprecated cache routines
 *   shmem_team.c    teams (split_strided/2d, translate, config, destroy)
 *   shmem_coll.c    barrier/sync, broadcast, collect, fcollect, alltoall(s),
 *                   reductions: team forms and deprecated active-set forms
 *
 * Naming: gexshm_* are this library's internal (hidden) symbols. */
#ifndef GEXSHM_INTERNAL_H
#define GEXSHM_INTERNAL_H

#include <shmem.h>
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include <gasnet_coll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>

#define GEXSHM_HIDDEN __attribute__((visibility("hidden")))

/* Symmetric heap per PE when SHMEM_SYMMETRIC_SIZE is not set. */
#define GEXSHM_DEFAULT_HEAP_MIB 128
/* Every PE's heap starts at an address aligned to this (shmem_setup.c). */
#define GEXSHM_HEAP_ALIGN ((size_t)2 << 20)
#ifndef GEX_SHMEM_VERSION
#define GEX_SHMEM_VERSION "unknown"
#endif

/* SHMEM_DEBUG was set: report failed allocations and bad arguments. */
extern int gexshm_debug GEXSHM_HIDDEN;

/* ---- teams ------------------------------------------------------------
 * Every OpenSHMEM team is a set of world PEs; `pes` maps team PE numbers to
 * world PE numbers (strided teams also keep start/stride for the fast
 * translation).  `tm` is a GEX team over exactly the members (created with
 * gex_TM_Split over the parent's tm), used for barriers, broadcasts and
 * reductions.  The handles SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED are
 * constants; gexshm_team() maps every handle to its object. */
struct gexshm_team {
    gex_TM_t tm;
    int my_pe;                  /* this PE's number in the team */
    int n_pes;
    int *pes;                   /* [n_pes] world PE of each team PE */
    int start, stride;          /* world PE of team PE i = start + i*stride,
                                   when strided != 0 */
    int strided;
    shmem_team_config_t config;
    long config_mask;
    int n_ctx;                  /* contexts currently created on the team */
    uint64_t coll_seq;          /* collectives issued (for scratch reuse) */
    void *scratch;              /* team-private bookkeeping of shmem_coll.c */
};

/* ---- contexts ------------------------------------------------------------
 * A context owns a GEX endpoint (or shares the primordial one: the default
 * context and any context created when endpoints ran out) and tracks its
 * own outstanding operations as a list of GEX events, so quiet on one
 * context never waits for another's operations, whichever thread issued
 * them.  `tm` reaches the heap segment of every PE (the world team, or a
 * TM-pair of the context's endpoint with endpoint 0).  `lock` is used only
 * when several threads may use the context at once. */
struct gexshm_ctx {
    gex_EP_t ep;
    gex_TM_t tm;
    long options;
    struct gexshm_team *team;   /* PE numbers in calls are this team's */
    int own_ep;                 /* ep was created for this context */
    int locked;                 /* take `lock` around the event list */
    pthread_mutex_t lock;
    gex_Event_t *ev;            /* outstanding remote completions */
    size_t nev, cap;
};

/* ---- process-wide state (shmem_setup.c) ---- */
struct gexshm_state {
    int initialized;            /* 1 between init and finalize */
    int finalized;
    int thread_level;           /* what shmem_init_thread provided */
    int my_pe, n_pes;
    gex_Client_t client;
    gex_EP_t ep;                /* primordial endpoint (heap segment bound) */
    gex_TM_t tm;                /* world team */
    gex_Segment_t seg;
    char *heap_base;            /* our segment */
    size_t heap_size;
    char **peer_heap;           /* [n_pes] each PE's segment base (its addresses) */
    char **peer_local;          /* [n_pes] where it is mapped here (PSHM) or NULL */
    char *data_lo, *data_hi;    /* the executable's .data/.bss: [lo, hi) */
    gex_AD_t ad_i32, ad_u32, ad_i64, ad_u64, ad_flt, ad_dbl;
};
extern struct gexshm_state gexshm GEXSHM_HIDDEN;
extern struct gexshm_team gexshm_team_world GEXSHM_HIDDEN;
extern struct gexshm_team gexshm_team_shared GEXSHM_HIDDEN;
extern struct gexshm_ctx gexshm_ctx_default GEXSHM_HIDDEN;

static inline struct gexshm_team *gexshm_team(shmem_team_t t)
{
    if (t == SHMEM_TEAM_WORLD) return &gexshm_team_world;
    if (t == SHMEM_TEAM_SHARED) return &gexshm_team_shared;
    return (struct gexshm_team *)t;
}

static inline struct gexshm_ctx *gexshm_ctx(shmem_ctx_t c)
{
    return c == SHMEM_CTX_DEFAULT ? &gexshm_ctx_default : (struct gexshm_ctx *)c;
}

/* World PE of PE number `pe` of a context's team (-1: not a team PE). */
static inline int gexshm_ctx_world_pe(const struct gexshm_ctx *c, int pe)
{
    const struct gexshm_team *t = c->team;
    if (t == &gexshm_team_world) return pe;
    if ((unsigned)pe >= (unsigned)t->n_pes) return -1; /* reported by the caller */
    return t->strided ? t->start + pe * t->stride : t->pes[pe];
}

/* Ends the job with "libgex-shmem: <message>" (printf format). */
void gexshm_fatal(const char *fmt, ...) GEXSHM_HIDDEN
    __attribute__((noreturn, format(printf, 1, 2)));
/* Fatal unless shmem_init has run and shmem_finalize has not; `what` names
 * the routine. */
void gexshm_require_init(const char *what) GEXSHM_HIDDEN;

/* Where a symmetric address lives. */
enum gexshm_where { GEXSHM_HEAP, GEXSHM_STATIC, GEXSHM_NOT_SYMMETRIC };
static inline enum gexshm_where gexshm_where(const void *p)
{
    const char *c = (const char *)p;
    if (c >= gexshm.heap_base && c < gexshm.heap_base + gexshm.heap_size) return GEXSHM_HEAP;
    if (c >= gexshm.data_lo && c < gexshm.data_hi) return GEXSHM_STATIC;
    return GEXSHM_NOT_SYMMETRIC;
}

/* shmem_heap.c */
void gexshm_heap_init(void) GEXSHM_HIDDEN;

/* shmem_ctx.c: contexts and completion */
void gexshm_ctx_setup(struct gexshm_ctx *c, struct gexshm_team *team, long options,
                      int own_ep) GEXSHM_HIDDEN;
int gexshm_ctx_new(struct gexshm_team *team, long options, shmem_ctx_t *ctx) GEXSHM_HIDDEN;
/* Records an event to complete at the context's next quiet. */
void gexshm_ctx_track(struct gexshm_ctx *c, gex_Event_t ev) GEXSHM_HIDDEN;
void gexshm_ctx_quiet(struct gexshm_ctx *c) GEXSHM_HIDDEN;

/* shmem_rma.c: the byte-level paths every typed routine reaches.  `pe` is
 * a world PE. */
void gexshm_put(struct gexshm_ctx *c, void *dest, const void *src, size_t n, int pe,
                int nbi) GEXSHM_HIDDEN;
void gexshm_get(struct gexshm_ctx *c, void *dest, const void *src, size_t n, int pe,
                int nbi) GEXSHM_HIDDEN;

/* shmem_static.c: the executable's data over AM (blocking: remote
 * completion before return).  Handlers are registered by gexshm_static_init
 * (before the segment is attached). */
void gexshm_static_init(void) GEXSHM_HIDDEN;
void gexshm_static_put(void *dest, const void *src, size_t n, int pe) GEXSHM_HIDDEN;
void gexshm_static_get(void *dest, const void *src, size_t n, int pe) GEXSHM_HIDDEN;
/* An atomic on a static object: op is a GEX_OP_* code, dt a GEX_DT_*;
 * operands and result are of the dt's size. */
void gexshm_static_amo(gex_DT_t dt, gex_OP_t op, void *target, void *result,
                       const void *op1, const void *op2, int pe) GEXSHM_HIDDEN;

/* shmem_team.c / shmem_coll.c */
void gexshm_team_init(void) GEXSHM_HIDDEN;     /* after the world tm exists */
void gexshm_team_fini(void) GEXSHM_HIDDEN;
/* Barrier over a GEX team, progress included (no quiet). */
void gexshm_tm_barrier(gex_TM_t tm) GEXSHM_HIDDEN;

/* Waits for a GEX event while polling. */
static inline void gexshm_wait(gex_Event_t ev)
{
    if (ev != GEX_EVENT_INVALID) gex_Event_Wait(ev);
}

#endif /* GEXSHM_INTERNAL_H */
