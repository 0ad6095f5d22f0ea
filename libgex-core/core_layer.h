/*
 * core_layer.h: what libgex-core offers the layers above it (am, rma, vis,
 * atomics, coll, mk, shm).  Not installed; every symbol declared here is
 * exported from libgex-core.so under the GEX_CORE_LAYER_1.0 version node,
 * because layers of different releases must keep working together.
 *
 * The object structs below are part of that contract: fields are only ever
 * appended, and each struct opens with a magic number checked in debug
 * builds.  Layers read them directly on hot paths (one load instead of a
 * call), which is why they are here and not hidden in core_internal.h.
 */
#ifndef GEX_CORE_LAYER_H
#define GEX_CORE_LAYER_H

#ifndef GEXI_BUILDING_GEX
#error "core_layer.h is internal to GEX"
#endif

#include <gasnetex.h>
#include <gex/conduit.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#define GEXI_EXPORT __attribute__((visibility("default")))
#define GEXI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define GEXI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- Objects ---- */
#define GEXI_MAGIC_CLIENT  0x434c4e54u /* "CLNT" */
#define GEXI_MAGIC_EP      0x45505f5fu
#define GEXI_MAGIC_TM      0x544d5f5fu
#define GEXI_MAGIC_SEGMENT 0x5345474du

struct gexi_client;
struct gexi_segment;
struct gexi_mk_ops;        /* memory kinds (issue 9), end of file */

/* One registered handler (client or internal). */
struct gexi_handler {
    gex_AM_Entry_t entry;   /* as registered; gex_Token_Info hands out &entry */
    /* Set (release) after entry is written: a thread delivering an AM reads
     * it (acquire) and then sees the whole entry, even when the handler was
     * registered by another thread of this process. */
    _Atomic uint8_t registered;
};

struct gexi_segment {
    uint32_t magic;
    struct gexi_client *client;
    void *addr;
    uintptr_t size;
    gex_Flags_t flags;
    gex_MK_t kind;
    void *cdata;
    int client_allocated;     /* memory belongs to the client (gex_Segment_Create with address) */
    void *provider_handle;    /* segment provider's private state (shm), NULL if none */
    /* Appended (memory kinds, issue 9): NULL for GEX_MK_HOST; otherwise how
     * this segment's memory is reached (never by load/store) and the
     * kind's per-segment state.  See "Memory kinds" at the end. */
    const struct gexi_mk_ops *mk_ops;
    void *mk_state;
    /* Appended: this process's serial number of the segment (never 0), so
     * peers tell a re-publication of it from a new segment that happens to
     * reuse its address and size. */
    uint32_t serial;
};

/* EP objects are 128-byte aligned so that a TM-pair can be encoded as
 * (ep | index << 1 | 1): see gexi_tm_is_pair(). */
#define GEXI_EP_ALIGN 128
struct gexi_ep {
    uint32_t magic;
    gex_EP_Index_t index;
    struct gexi_client *client;
    gex_EP_Capabilities_t caps;
    gex_Flags_t flags;
    void *cdata;
    struct gexi_segment *segment;          /* bound segment or NULL */
    struct gexi_handler handlers[256];     /* [1..127] internal, [128..255] client */
    /* Appended (issue 9): GEX_FLAG_EP_SERIALIZED endpoints, debug builds:
     * the thread inside a client call on the EP (a per-thread token, see
     * ep.c), for the concurrent-use check. */
    _Atomic uintptr_t ser_inuse;
};

/* A team member.  Ranks of a team map to (jobrank, ep index); the primordial
 * team is the identity on jobranks with EP index 0 and stores no table. */
struct gexi_tm {
    uint32_t magic;
    gex_Rank_t rank;
    gex_Rank_t size;
    gex_Flags_t flags;
    struct gexi_ep *ep;
    struct gexi_client *client;
    void *cdata;
    const gex_EP_Location_t *members;      /* NULL: identity (primordial) */
    void *coll_state;                      /* owned by libgex-coll */
    void *scratch_addr;                    /* client scratch, if any */
    size_t scratch_size;
    int scratch_from_client;
    /* Appended (libgex-coll): NULL, or the ranks sorted by (jobrank, rank)
     * so gex_TM_TranslateJobrankToRank is a binary search, not a scan. */
    const gex_Rank_t *by_jobrank;
};

#define GEXI_MAX_CLIENTS 1
struct gexi_client {
    uint32_t magic;
    /* Frozen layout: other layers read eps, n_eps and primordial_tm, and an
     * older layer may run beside a newer core.  name keeps its 64 bytes (the
     * first 63 characters); the whole name, of any length (the spec sets no
     * limit), is full_name, appended at the end. */
    char name[64];
    gex_Flags_t flags;
    void *cdata;
    struct gexi_ep *eps[GASNET_MAXEPS];
    atomic_uint n_eps;
    struct gexi_tm *primordial_tm;
    char *full_name;             /* heap copy, lives as long as the process */
};

/* The handler an AM for index idx runs on endpoint ep: ep's own, else the
 * one the primordial endpoint registered at idx, else NULL.  The spec leaves
 * an AM to an index its destination endpoint never registered undefined;
 * GEX runs endpoint 0's handler, because code written for GASNet's
 * single-endpoint conduits registers its handlers on endpoint 0 only and
 * still creates endpoints when GASNET_MAXEPS allows (GASNet's testtmpair).
 * Internal handlers are copied into every endpoint, so only client indices
 * ever fall back.  docs/compatibility.md, "Handlers of created endpoints". */
static inline const struct gexi_handler *gexi_handler_for(const struct gexi_ep *ep, unsigned idx)
{
    const struct gexi_handler *h = &ep->handlers[idx];
    if (__builtin_expect(atomic_load_explicit(&h->registered, memory_order_acquire), 1))
        return h;
    const struct gexi_ep *ep0 = ep->client->eps[0];
    if (ep0 == ep || !ep0) return NULL;
    h = &ep0->handlers[idx];
    return atomic_load_explicit(&h->registered, memory_order_acquire) ? h : NULL;
}

/* ---- Global state shared by all layers (read-mostly after init) ---- */
struct gexi_core_state {
    uint32_t struct_size;
    int initialized;
    gex_Rank_t jobrank, jobsize;
    int thread_mode;                 /* 0 SEQ, 1 PARSYNC, 2 PAR */
    int verbose;                     /* GASNET_VERBOSEENV or debug */
    const struct gex_conduit_ops *ops;
    struct gex_conduit *conduit;
    struct gex_conduit_caps caps;
    struct gexi_client *client;
    /* neighbourhood: sorted jobranks sharing memory with us */
    gex_Rank_t nbrhd_size, nbrhd_index;
    const gex_Rank_t *nbrhd_jobranks;
    const uint8_t *is_nbrhd;         /* [jobsize]: 1 if that rank is in our nbrhd */
    const char *jobid;               /* unique per job: prefix of OS object names */
};
extern GEXI_EXPORT struct gexi_core_state gexi_core;

/* ---- Handles <-> objects ---- */
static inline struct gexi_client *gexi_client_of(gex_Client_t c) { return (struct gexi_client *)c; }
static inline struct gexi_ep *gexi_ep_of(gex_EP_t e) { return (struct gexi_ep *)e; }
static inline struct gexi_segment *gexi_seg_of(gex_Segment_t s) { return (struct gexi_segment *)s; }

static inline int gexi_tm_is_pair(gex_TM_t tm) { return ((uintptr_t)tm & 1u) != 0; }
static inline struct gexi_tm *gexi_tm_of(gex_TM_t tm) { return (struct gexi_tm *)tm; }
static inline struct gexi_ep *gexi_pair_ep(gex_TM_t tm)
{
    return (struct gexi_ep *)((uintptr_t)tm & ~(uintptr_t)(GEXI_EP_ALIGN - 1));
}
static inline gex_EP_Index_t gexi_pair_index(gex_TM_t tm)
{
    return (gex_EP_Index_t)(((uintptr_t)tm & (GEXI_EP_ALIGN - 1)) >> 1);
}

/* Local EP of any tm (team member or TM-pair). */
static inline struct gexi_ep *gexi_tm_local_ep(gex_TM_t tm)
{
    return gexi_tm_is_pair(tm) ? gexi_pair_ep(tm) : gexi_tm_of(tm)->ep;
}

/* (tm, rank) -> remote (jobrank, ep index): the hot path of every
 * point-to-point call.  No validation here; see gexi_tm_check_rank(). */
static inline void gexi_tm_peer(gex_TM_t tm, gex_Rank_t rank, gex_Rank_t *jobrank_p,
                                gex_EP_Index_t *ep_index_p)
{
    if (gexi_tm_is_pair(tm)) {
        *jobrank_p = rank;
        *ep_index_p = gexi_pair_index(tm);
    } else {
        const struct gexi_tm *t = gexi_tm_of(tm);
        if (GEXI_LIKELY(t->members == NULL)) {
            *jobrank_p = rank;
            *ep_index_p = 0;
        } else {
            *jobrank_p = t->members[rank].gex_rank;
            *ep_index_p = t->members[rank].gex_ep_index;
        }
    }
}

/* Size of the rank space addressed by tm (jobsize for TM-pairs). */
static inline gex_Rank_t gexi_tm_addr_size(gex_TM_t tm)
{
    return gexi_tm_is_pair(tm) ? gexi_core.jobsize : gexi_tm_of(tm)->size;
}

/* Handler nesting depth of the calling thread (maintained in debug builds
 * only; exported in all builds so the ABI does not depend on the build). */
extern GEXI_EXPORT _Thread_local unsigned gexi_handler_depth;

/* Handler-safe locks the calling thread holds (debug builds only, like
 * gexi_handler_depth): holding one is restricted context too (spec: "Calls
 * from restricted context": "...or while holding a handler-safe lock"). */
extern GEXI_EXPORT _Thread_local unsigned gexi_hsl_depth;

/* ---- AM delivery (handlers.c) ----
 * Runs the handler of m (its dst_ep, handler, category, args, payload and
 * src_jobrank as on arrival) with a token whose reply_ctx is reply_ctx.  The
 * conduit's upcall (struct gex_host_services.deliver_am); libgex-am calls
 * it for AMs a process sends to itself (am_loopback.c, which binds it
 * weakly, so that with an older libgex-core, which did not export it,
 * loopback stays off). */
GEXI_EXPORT void gexi_deliver_am(void *core_ctx, const struct gex_conduit_am *m,
                                 void *reply_ctx);

/* ---- Tokens: built by core on delivery, live on the delivering stack ---- */
struct gexi_token {
    void *reply_ctx;               /* conduit's return address */
    gex_Rank_t src_jobrank;
    gex_EP_Index_t src_ep;
    struct gexi_ep *ep;            /* receiving EP */
    const gex_AM_Entry_t *entry;
    uint8_t is_req, is_long, replied;
};
static inline struct gexi_token *gexi_token_of(gex_Token_t t) { return (struct gexi_token *)t; }

/* ---- Events and NBI counters (event.c) ----
 * Every operation signals completion by decrementing a counter it was given
 * at initiation (a "completion target"): the root event's pending count
 * for NB calls, the calling thread's per-category NBI count (or the open
 * access region's) for NBI calls.  Counters are atomics because completion
 * may be observed by whichever thread polls.  Events come from a per-thread
 * free list: no allocation on the fast path. */
struct gexi_ev_hdr {
    _Atomic uint32_t pending;      /* completions outstanding; 0 = complete */
    uint16_t flags;                /* GEXI_EVF_* */
    uint16_t category;             /* GEX_EC_* of the root's operation */
};
#define GEXI_EVF_ROOT    1u
#define GEXI_EVF_LEAF    2u        /* the lc member of a root */
#define GEXI_EVF_HAS_LC  4u        /* root exposes an LC leaf */
#define GEXI_EVF_REGION  8u        /* root made by an NBI access region */
struct gexi_event;
/* Optional hook run by the thread that syncs the event, once it is complete
 * and before it is recycled (e.g. copy a bounce buffer out). */
typedef void gexi_event_finish_fn(struct gexi_event *ev);
struct gexi_event {
    struct gexi_ev_hdr h;          /* root; first member: gex_Event_t points here */
    struct gexi_ev_hdr lc;         /* local-completion leaf */
    gexi_event_finish_fn *finish;
    void *ctx[4];                  /* for the operation's own use */
    struct gexi_event *next_free;
};
/* New root event with `pending` outstanding completions (and `lc_pending`
 * for its LC leaf, GEXI_EVF_HAS_LC set when lc_pending > 0). */
GEXI_EXPORT struct gexi_event *gexi_event_new(gex_EC_t category, uint32_t pending,
                                              uint32_t lc_pending);
static inline gex_Event_t gexi_event_handle(struct gexi_event *ev) { return (gex_Event_t)ev; }
static inline gex_Event_t gexi_event_lc_handle(struct gexi_event *ev)
{
    return (gex_Event_t)&ev->lc;
}
/* Signal n completions on a counter (release: the data is visible first).
 * Also acquire: the decrementing thread (often another thread's poll, after
 * a round trip through another process's memory that no race detector can
 * follow) then synchronizes with the initiator's gexi_counter_add, so the
 * counter's own initialization happens-before it.  Free on x86 and ARMv8.1
 * (one locked RMW either way). */
static inline void gexi_counter_done(_Atomic uint32_t *ctr, uint32_t n)
{
    atomic_fetch_sub_explicit(ctr, n, memory_order_acq_rel);
}
/* Pre-loads n completions before an operation is initiated (release: pairs
 * with gexi_counter_done above).  Use atomic_store_explicit(.., release) for
 * a fresh counter. */
static inline void gexi_counter_add(_Atomic uint32_t *ctr, uint32_t n)
{
    atomic_fetch_add_explicit(ctr, n, memory_order_release);
}
/* NBI: the counters an NBI operation of category ec increments now and
 * decrements on completion (rc: operation, lc: local completion of a put's
 * source when GEX_EVENT_GROUP).  Inside an access region these are the
 * region event's counters. */
GEXI_EXPORT _Atomic uint32_t *gexi_nbi_counter(gex_EC_t ec);
GEXI_EXPORT _Atomic uint32_t *gexi_nbi_lc_counter(void);

/* ---- Progress hooks: layers with asynchronous work (chunked transfers,
 * collectives) register a function that every poll also runs. ---- */
typedef void gexi_progress_fn(void);
GEXI_EXPORT void gexi_register_progress(gexi_progress_fn *fn);
extern GEXI_EXPORT gexi_progress_fn *gexi_progress_fns[8];
extern GEXI_EXPORT _Atomic unsigned gexi_n_progress_fns;

/* ---- Errors and logging ---- */
GEXI_EXPORT void gexi_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
GEXI_EXPORT void gexi_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
GEXI_EXPORT void gexi_report_err(const char *func, int code, const char *file, int line,
                                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
GEXI_EXPORT int gexi_verbose_errors(void);

/* Returns spec error GASNET_ERR_<code> from the calling public function; with
 * GASNET_VERBOSEENV, verbose errors or a debug build it first prints the
 * function, the code's name, file:line and what was wrong with the argument. */
#define GEXI_RETURN_ERR(code, ...) GEXI_RETURN_ERR_AS(__func__, code, __VA_ARGS__)
/* The same from a helper that a public call reaches: `func` is the public
 * call's name, the one the client wrote. */
#define GEXI_RETURN_ERR_AS(func, code, ...) do { \
        if (gexi_verbose_errors()) \
            gexi_report_err(func, GASNET_ERR_##code, __FILE__, __LINE__, __VA_ARGS__); \
        return GASNET_ERR_##code; \
    } while (0)
/* Bad arguments to calls whose return value cannot carry an error code
 * (void calls, handle and rank queries, completion tests whose non-zero
 * result means "not done yet").  The message names the call, says what was
 * wrong with which argument, and what the call does instead (`then`, e.g.
 * "returning GEX_TM_INVALID", "flags ignored"); it never claims an error
 * code was returned.
 *  - GEXI_BAD_ARG_NORET(then, fmt, ...): the spec gives the call no failure
 *    result.  Debug builds (GEX_DEBUG) end the job with the message (STYLE:
 *    calls without an error return); other builds print it (verbose errors)
 *    once per call site, since wait loops call tests over and over, and the
 *    caller goes on to do `then`.
 *  - GEXI_REPORT_ERR(then, fmt, ...): the call returns a value the caller can
 *    test (an INVALID handle or rank, a refused destroy that leaves the object
 *    usable); every build prints the message (verbose errors) and goes on. */
static inline __attribute__((format(printf, 4, 5))) void
gexi_bad_arg_msg(int fatal, const char *func, const char *then, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (fatal) gexi_fatal("%s: bad argument: %s", func, msg);
    gexi_log(0, "%s: bad argument: %s; %s", func, msg, then);
}
#ifdef GEX_DEBUG
#define GEXI_BAD_ARG_NORET(then, ...) gexi_bad_arg_msg(1, __func__, then, __VA_ARGS__)
#else
#define GEXI_BAD_ARG_NORET(then, ...) do { \
        static atomic_flag gexi_reported_ = ATOMIC_FLAG_INIT; \
        if (gexi_verbose_errors() && \
            !atomic_flag_test_and_set_explicit(&gexi_reported_, memory_order_relaxed)) \
            gexi_bad_arg_msg(0, __func__, then, __VA_ARGS__); \
    } while (0)
#endif
#define GEXI_REPORT_ERR(then, ...) do { \
        if (gexi_verbose_errors()) gexi_bad_arg_msg(0, __func__, then, __VA_ARGS__); \
    } while (0)

/* Functions a later issue implements.  Those whose spec return value is an
 * error code print "<func>: not implemented yet" and return
 * GASNET_ERR_RESOURCE; all others end the job with that message (exit code
 * 1), because returning would look like success. */
GEXI_EXPORT int gexi_not_implemented(const char *func);
GEXI_EXPORT void gexi_not_implemented_fatal(const char *func) __attribute__((noreturn));
#define GEXI_NOT_IMPLEMENTED()       return gexi_not_implemented(__func__)
#define GEXI_NOT_IMPLEMENTED_FATAL() gexi_not_implemented_fatal(__func__)

/* ---- Environment ---- */
GEXI_EXPORT const char *gexi_getenv(const char *name);
GEXI_EXPORT long gexi_getenv_int(const char *name, long dflt);
GEXI_EXPORT uint64_t gexi_getenv_size(const char *name, uint64_t dflt); /* 64K, 2M, 1G */
/* Header-only (no new exported symbols): a yes/no setting.  Unset or empty
 * gives dflt; 1, y, yes, true and 0, n, no, false (any case) are read;
 * anything else ends the job naming the variable (docs/environment.md). */
static inline int gexi_env_word_is(const char *v, const char *word)
{
    for (; *v && *word; v++, word++)
        if ((*v | 0x20) != *word) return 0;
    return !*v && !*word;
}
static inline int gexi_getenv_yesno(const char *name, int dflt)
{
    const char *v = gexi_getenv(name);
    if (!v || !*v) return dflt;
    if (!strcmp(v, "1") || gexi_env_word_is(v, "y") || gexi_env_word_is(v, "yes") ||
        gexi_env_word_is(v, "true"))
        return 1;
    if (!strcmp(v, "0") || gexi_env_word_is(v, "n") || gexi_env_word_is(v, "no") ||
        gexi_env_word_is(v, "false"))
        return 0;
    gexi_fatal("environment variable %s='%s' is not yes or no (1/0, y/n, yes/no, true/false)",
               name, v);
}
/* An integer setting within [lo, hi]; out of range ends the job. */
static inline long gexi_getenv_int_range(const char *name, long dflt, long lo, long hi)
{
    const long v = gexi_getenv_int(name, dflt);
    if (v < lo || v > hi)
        gexi_fatal("environment variable %s='%s' is outside %ld..%ld", name, gexi_getenv(name),
                   lo, hi);
    return v;
}
/* True if GEX_FORCE_REFERENCE names `layer` (comma list) or "all". */
GEXI_EXPORT int gexi_env_forces_reference(const char *layer);

/* ---- Progress and waiting ---- */
/* Non-zero once a GEX_FLAG_EP_SERIALIZED endpoint exists: polls then also
 * serve the calling thread's serialized EPs (gexi_poll_eps, ep.c). */
extern GEXI_EXPORT _Atomic unsigned gexi_n_serialized_eps;
GEXI_EXPORT int gexi_poll_eps(void);
static inline int gexi_poll(void)
{
    if (GEXI_UNLIKELY(atomic_load_explicit(&gexi_n_serialized_eps, memory_order_relaxed)))
        return gexi_poll_eps();
    int n = gexi_core.ops->poll(gexi_core.conduit);
    unsigned k = atomic_load_explicit(&gexi_n_progress_fns, memory_order_acquire);
    for (unsigned i = 0; i < k; i++) gexi_progress_fns[i]();
    return n;
}
/* Poll-then-yield policy shared by every waiting loop; also notices a job
 * abort.  Call with a counter initialised to 0. */
GEXI_EXPORT void gexi_backoff(unsigned *spins);
/* What round `round` (1, 2, ...) of a wait that keeps finding nothing does:
 * spin, then yield, then nap (where the idle-sleep policy allows naps,
 * GEX_IDLE_SLEEP).  On an oversubscribed host (more runnable threads or job
 * ranks than CPUs) the yield phase is short; it is not skipped, although a
 * yield there can hand a build or another job a whole time slice: see
 * bootstrap.c for what each choice measured. */
enum gexi_wait_step { GEXI_WAIT_SPIN, GEXI_WAIT_YIELD, GEXI_WAIT_NAP };
#define GEXI_WAIT_SPIN_ROUNDS       64u
#define GEXI_WAIT_YIELD_ROUNDS_OVER 256u    /* on an oversubscribed host */
#define GEXI_WAIT_YIELD_ROUNDS      4096u   /* elsewhere */
static inline enum gexi_wait_step gexi_wait_step(unsigned round, int oversubscribed, int may_nap)
{
    if (round < GEXI_WAIT_SPIN_ROUNDS) return GEXI_WAIT_SPIN;
    if (!may_nap || round < GEXI_WAIT_YIELD_ROUNDS_OVER ||
        (round < GEXI_WAIT_YIELD_ROUNDS && !oversubscribed))
        return GEXI_WAIT_YIELD;
    return GEXI_WAIT_NAP;
}
/* Backoff restarts whenever a poll ran handlers: work is flowing. */
#define GEXI_POLL_UNTIL(cond) do { unsigned gexi_spins_ = 0; \
        while (!(cond)) { if (gexi_poll() > 0) gexi_spins_ = 0; gexi_backoff(&gexi_spins_); } \
    } while (0)

/* ---- Layers: registration at load time, binding at client init ---- */
struct gexi_layer {
    uint32_t struct_size;
    const char *name;              /* "am", "rma", ... (GEX_FORCE_REFERENCE names) */
    /* Called once by gex_Client_Init after the conduit is up, before the
     * final barrier: choose reference or specialized code, register internal
     * handlers.  Returns GASNET_OK or an error code. */
    int (*bind)(void);
    /* Called by gasnet_exit / at process end. */
    void (*fini)(void);
    /* Filled by bind: printable "slot=source" pairs for gex-info and benchmarks. */
    const char *(*describe)(void);
};
GEXI_EXPORT void gexi_register_layer(const struct gexi_layer *layer);
GEXI_EXPORT const char *gexi_describe_layers(void);

/* The GEX libraries this process loaded (layer_inventory.c; gex-info
 * --layers).  Since libgex-core 2026.12.1 (GEX_CORE_LAYER_1.1). */
struct gexi_loaded_layer {
    char name[32];          /* "libgex-am" */
    char release[32];       /* "2026.12.0", or "unknown" (no identification string) */
    char version_info[32];  /* libtool current:revision:age */
    char soname[64];        /* "libgex-am.so.1" */
    char file[4096];        /* the file the dynamic loader chose, symbolic links resolved */
};
/* Fills at most max rows and returns how many libraries are loaded (0 if
 * row_size is not this build's sizeof(struct gexi_loaded_layer)). */
GEXI_EXPORT unsigned gexi_loaded_layers(struct gexi_loaded_layer *rows, unsigned max,
                                        size_t row_size);
/* Finds "$KEY: value $" in a file and copies the value; 0 if absent. */
GEXI_EXPORT int gexi_read_ident(const char *path, const char *key, char *out, size_t outlen);
/* The conduit loader's rules (conduit_loader.c), for gex-info: calls fn on
 * each plug-in folder in search order until it returns nonzero (returns
 * that), and whether core would take a plug-in's ops table. */
struct gex_conduit_ops;
GEXI_EXPORT int gexi_conduit_search_path(int (*fn)(const char *dir, void *arg), void *arg);
GEXI_EXPORT int gexi_conduit_ops_acceptable(const struct gex_conduit_ops *ops);

/* Internal handlers occupy indices [1, GEX_AM_INDEX_BASE).  Layers call this
 * from bind(); the index is installed in every EP, present and future. */
GEXI_EXPORT int gexi_register_internal_handler(gex_AM_Index_t index, gex_AM_Fn_t fn,
                                               gex_Flags_t flags, unsigned nargs,
                                               const char *name);
/* A pointer carried in two AM arguments (handlers get 32-bit args), low
 * half first: the layers' internal protocols all use this split. */
static inline gex_AM_Arg_t gexi_arg_lo(const volatile void *p)
{
    return (gex_AM_Arg_t)(uint32_t)(uintptr_t)p;
}
static inline gex_AM_Arg_t gexi_arg_hi(const volatile void *p)
{
    return (gex_AM_Arg_t)(uint32_t)((uint64_t)(uintptr_t)p >> 32);
}
static inline void *gexi_arg_ptr(gex_AM_Arg_t lo, gex_AM_Arg_t hi)
{
    return (void *)(uintptr_t)((uint64_t)(uint32_t)hi << 32 | (uint32_t)lo);
}

/* Fixed internal handler indices, one range per layer (no collisions). */
#define GEXI_HIDX_CORE_BASE   1   /* 1..15 */
#define GEXI_HIDX_AM_BASE    16   /* 16..31 */
#define GEXI_HIDX_RMA_BASE   32   /* 32..47 */
#define GEXI_HIDX_VIS_BASE   48   /* 48..63 */
#define GEXI_HIDX_AD_BASE    64   /* 64..79 */
#define GEXI_HIDX_COLL_BASE  80   /* 80..95 */
#define GEXI_HIDX_MK_BASE    96   /* 96..111 */
#define GEXI_HIDX_SHM_BASE  112   /* 112..127 */

/* ---- Segments: the provider hook used by libgex-shm ---- */
/* The provider allocates segment memory that peers on the host can map.
 * `desc` is an opaque, fixed-size blob exchanged through the bootstrap. */
#define GEXI_SEG_DESC_SIZE 64
struct gexi_segment_provider {
    uint32_t struct_size;
    const char *name;
    int (*alloc)(size_t size, void **addr_p, void **handle_p, char desc[GEXI_SEG_DESC_SIZE]);
    void (*release)(void *handle, void *addr, size_t size);
    void *(*map_peer)(const char desc[GEXI_SEG_DESC_SIZE], size_t size);
    void (*unmap_peer)(void *addr, size_t size);
    /* After every peer has mapped: remove the OS name so nothing outlives us. */
    void (*unlink)(void *handle);
    /* The desc of a segment not yet unlinked (empty string once unlinked). */
    void (*describe)(void *handle, char desc[GEXI_SEG_DESC_SIZE]);
};
GEXI_EXPORT void gexi_set_segment_provider(const struct gexi_segment_provider *p);

/* Remote segment table: what we know of (jobrank, ep index)'s bound segment. */
struct gexi_peer_segment {
    void *owneraddr;
    void *localaddr;               /* NULL when not mapped here */
    uintptr_t size;                /* 0: unknown / none */
    uint32_t kind_flags;           /* appended (issue 9): GEXI_PEER_SEG_DEVICE */
    uint32_t serial;               /* appended: the owner's gexi_segment.serial */
};
GEXI_EXPORT const struct gexi_peer_segment *gexi_peer_segment(gex_Rank_t jobrank,
                                                              gex_EP_Index_t ep);
/* Core's record of (jr, ep)'s segment without a call, for hot paths (PSHM
 * RMA, CPU atomics): the records live for the whole job and are updated in
 * place when a segment is (re)published, so a caller may also keep the
 * pointer.  size 0 (or localaddr NULL) means nothing usable is known yet;
 * NULL when no record exists for that EP index.  jr < jobsize. */
GEXI_EXPORT extern struct gexi_peer_segment *gexi_peer_ep0;
GEXI_EXPORT extern struct gexi_peer_segment *_Atomic *gexi_peer_extra;
static inline const struct gexi_peer_segment *gexi_peer_segment_record(gex_Rank_t jr,
                                                                      gex_EP_Index_t ep)
{
    if (GEXI_LIKELY(ep == 0)) return &gexi_peer_ep0[jr];
    if (GEXI_UNLIKELY(ep >= GASNET_MAXEPS)) return NULL;
    struct gexi_peer_segment *row =
        atomic_load_explicit(&gexi_peer_extra[jr], memory_order_acquire);
    return row ? &row[ep] : NULL;
}
/* Where [addr, addr+n) of (jr, ep)'s segment is mapped here, or NULL: the
 * inline twin of gexi_peer_local_addr for the hot paths. */
static inline void *gexi_peer_mapped(gex_Rank_t jr, gex_EP_Index_t ep, void *addr, size_t n)
{
    const struct gexi_peer_segment *ps = gexi_peer_segment_record(jr, ep);
    if (GEXI_UNLIKELY(!ps)) return NULL;
    const uintptr_t off = (uintptr_t)addr - (uintptr_t)ps->owneraddr;
    if (GEXI_UNLIKELY(!ps->localaddr || off > ps->size || n > ps->size - off)) return NULL;
    return (char *)ps->localaddr + off;
}
/* What this process knows of (jr, ep)'s bound segment (ours from the
 * binding, a peer's from what it published): 1 and [*base_p, +*size_p), or
 * 0 when nothing is known.  For argument checks, not hot paths. */
GEXI_EXPORT int gexi_bound_segment(gex_Rank_t jr, gex_EP_Index_t ep, uintptr_t *base_p,
                                   uintptr_t *size_p);
/* Local address of [addr, addr+len) in a peer's segment, NULL if not mapped. */
GEXI_EXPORT void *gexi_peer_local_addr(gex_Rank_t jobrank, gex_EP_Index_t ep, void *addr,
                                       size_t len);

/* ---- Bootstrap (job-wide, outside any client) ---- */
GEXI_EXPORT int gexi_bootstrap_barrier(void);
GEXI_EXPORT int gexi_bootstrap_exchange(const void *mine, size_t len, void *all);
GEXI_EXPORT int gexi_bootstrap_broadcast(void *buf, size_t len, gex_Rank_t root);

/* ---- Events, continued ---- */
/* Returns to the free list an event from gexi_event_new() that was never
 * handed to the client (its operation was refused under GEX_FLAG_IMMEDIATE
 * before anything was sent). */
GEXI_EXPORT void gexi_event_discard(struct gexi_event *ev);

/* ---- Teams beyond the primordial one (libgex-coll) ---- */
/* All-gather over the members of team tm (not a TM-pair): every member
 * passes `len` bytes (single-valued) and receives the members' blocks in
 * rank order in all[size * len].  Collective over tm, blocking.  libgex-coll
 * registers it from a constructor; gex_EP_PublishBoundSegment uses it for
 * teams other than the primordial one (core never links libgex-coll). */
typedef int gexi_team_exchange_fn(gex_TM_t tm, const void *mine, size_t len, void *all);
GEXI_EXPORT void gexi_set_team_exchange(gexi_team_exchange_fn *fn);
/* The shared-memory segment provider, or NULL (no libgex-shm, or PSHM off
 * before it registered): libgex-coll keeps its nbrhd collective state in
 * provider memory. */
GEXI_EXPORT const struct gexi_segment_provider *gexi_get_segment_provider(void);


/* ---- Memory kinds (issue 9: libgex-mk) ----
 * A segment of a kind other than GEX_MK_HOST ("device segment") has an
 * address range in its owner's address space that is NOT load/store
 * accessible: its bytes move only through the kind's copy functions.  Core
 * never gives such a segment to the PSHM provider nor maps it on peers, and
 * publishes a GEXI_PEER_SEG_DEVICE flag with it, so that libgex-rma sends
 * AM-staged transfers (libgex-rma/rma_kind.c) instead of direct copies or
 * AM Longs into unmapped memory.  libgex-mk registers the hooks below from
 * its constructor; without it only GEX_MK_HOST exists. */
#define GEXI_PEER_SEG_DEVICE 1u    /* gexi_peer_segment.kind_flags: not host memory */

/* Per-kind copy functions.  `seg_addr` lies in [s->addr, s->addr + s->size)
 * with n bytes to spare (callers check); `host` is ordinary memory.  Return
 * 0, or a GASNET_ERR_* code (the RMA layer then ends the job: RMA calls
 * have no error return).  Thread-safe: called from any thread and from AM
 * handlers. */
struct gexi_mk_ops {
    uint32_t struct_size;
    const char *class_name;        /* "FILE", "CUDA_UVA", ... for messages */
    int (*copy_in)(struct gexi_segment *s, void *seg_addr, const void *host, size_t n);
    int (*copy_out)(struct gexi_segment *s, void *host, const void *seg_addr, size_t n);
};

/* What core's gex_Segment_Create / gex_Segment_Destroy ask libgex-mk. */
struct gexi_mk_hooks {
    uint32_t struct_size;
    /* For a kind other than GEX_MK_HOST: validates kind, address and length
     * (spec: any invalid combination -> GASNET_ERR_BAD_ARG) and fills
     * s->addr, s->size, s->mk_ops, s->mk_state (s->client_allocated is set
     * by core when address != NULL).  Returns GASNET_OK or an error code;
     * reports its own message. */
    int (*segment_create)(struct gexi_segment *s, gex_MK_t kind, void *address, uintptr_t length);
    /* Releases what segment_create set up (and the segment's hold on its kind). */
    void (*segment_destroy)(struct gexi_segment *s);
};
GEXI_EXPORT void gexi_set_mk_hooks(const struct gexi_mk_hooks *hooks);

/* Number of device segments this process knows of: its own, and peers'
 * published ones.  Zero in every job without device segments, so the RMA
 * fast paths pay one load and one predictable branch for kinds.  Only ever
 * increases (a stale non-zero only costs the slow check). */
extern GEXI_EXPORT _Atomic unsigned gexi_mk_device_segments;
static inline int gexi_mk_any_device(void)
{
    return GEXI_UNLIKELY(atomic_load_explicit(&gexi_mk_device_segments, memory_order_relaxed) != 0);
}
/* The device segment bound to local EP `ep` (index), or NULL: host, none. */
static inline struct gexi_segment *gexi_mk_local_device_seg(gex_EP_Index_t ep)
{
    const struct gexi_client *c = gexi_core.client;
    if (!c || ep >= atomic_load_explicit(&c->n_eps, memory_order_acquire)) return NULL;
    const struct gexi_ep *e = c->eps[ep];
    struct gexi_segment *s = e ? e->segment : NULL;
    return s && s->mk_ops ? s : NULL;
}
/* True if (jobrank, ep)'s bound segment is a device segment (as far as
 * this process knows: its own EPs, or what a peer published). */
GEXI_EXPORT int gexi_mk_peer_is_device(gex_Rank_t jobrank, gex_EP_Index_t ep);
/* Copies between host memory and [addr, +n) of a segment of ours through
 * its kind: copy_in writes the segment, copy_out reads it; s NULL or a host
 * segment is a memcpy.  The range must lie in s, checked in every build (a
 * stray offset would reach the wrong bytes of a file or device, not
 * fault); a failed copy ends the job.  `who` names the operation in the
 * message.  The staged paths of libgex-am and libgex-rma share these. */
GEXI_EXPORT void gexi_mk_check_range(const char *who, const struct gexi_segment *s,
                                     const void *addr, size_t n);
GEXI_EXPORT void gexi_mk_copy_in(struct gexi_segment *s, void *addr, const void *host, size_t n,
                                 const char *who);
GEXI_EXPORT void gexi_mk_copy_out(struct gexi_segment *s, void *host, const void *addr, size_t n,
                                  const char *who);

/* ---- Issue 9: endpoints with their own queues, serialized endpoints ----
 * An EP made by gex_EP_Create gets the conduit's per-EP queues when it
 * offers them (GEX_CONDUIT_CAP_EP_QUEUES).  A GEX_FLAG_EP_SERIALIZED EP has
 * one owner thread, the last one to make a client call on it; only the
 * owner polls it, sends from it, and runs the collective engine for teams
 * over it, so its rings need no locks (see ep.c).  Layers call
 * gexi_ep_ser_enter() before initiating communication on an EP (it makes
 * the caller the owner) and gexi_ep_ser_leave() after; `client_call` is 0
 * for sends a progress engine makes, which debug builds then leave out of
 * the concurrent-use check (and check that the engine owns the EP).
 * A progress engine that acts for serialized EPs outside a poll brackets
 * that work with gexi_ep_ser_serve(), which returns the mask (bit = EP
 * index) of the serialized EPs the calling thread owns and may serve until
 * the matching gexi_ep_ser_unserve() (windows nest; inside gexi_poll's
 * progress hooks one is already open).  docs/endpoints.md. */
GEXI_EXPORT uint64_t gexi_ep_ser_serve(void);
GEXI_EXPORT void gexi_ep_ser_unserve(void);
GEXI_EXPORT int gexi_ep_ser_use(struct gexi_ep *ep, int client_call);
GEXI_EXPORT void gexi_ep_ser_done(struct gexi_ep *ep);
static inline int gexi_ep_ser_enter(struct gexi_ep *ep, int client_call)
{
    if (GEXI_LIKELY(!(ep->flags & GEX_FLAG_EP_SERIALIZED))) return 0;
    return gexi_ep_ser_use(ep, client_call);
}
static inline void gexi_ep_ser_leave(struct gexi_ep *ep, int entered)
{
    if (GEXI_UNLIKELY(entered)) gexi_ep_ser_done(ep);
}
/* Collective engines send with handlers of this range (libgex-coll). */
static inline int gexi_handler_is_engine(gex_AM_Index_t h)
{
    return h >= GEXI_HIDX_COLL_BASE && h < GEXI_HIDX_COLL_BASE + 16;
}

/* ---- Issue 8 (ofi follow-up): idle waits and passive-target progress ----
 * gexi_backoff (the policy of every wait) spins, then yields, then naps
 * 20 us; it never naps when the conduit offers native one-sided operations
 * (GEX_CONDUIT_CAP_RMA / _AMO) and this host runs no more ranks than it
 * has CPUs, because a peer's put, get or atomic then progresses only while
 * this rank polls and no handler announces it (GEX_IDLE_SLEEP=yes/no
 * overrides).  Conduits count completed one-sided
 * operations in poll()'s return, so waits that see them restart backoff. */

#endif /* GEX_CORE_LAYER_H */
