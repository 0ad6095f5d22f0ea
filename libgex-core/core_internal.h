/*
 * core_internal.h: libgex-core's own internal interface (not for other
 * layers: they use core_layer.h).  Bootstrap, conduit loading, segments
 * table and handler dispatch meet here.
 */
#ifndef GEX_CORE_INTERNAL_H
#define GEX_CORE_INTERNAL_H

#include "core_layer.h"

/* ---- Debug builds: handle arguments of the object queries ----
 * The gex_{Client,EP,Segment,TM}_Query* and CData calls have no error return,
 * so a debug build ends the job with a message naming the call and the
 * argument when a handle is INVALID (NULL), not a live object of its kind, or
 * (for the gex_TM_ calls the spec closes to them) a TM-pair; other builds
 * stay one load per query.  gex_TM_QueryEP and gex_TM_QueryClient accept a
 * TM-pair (its local endpoint and client). */
void gexi_check_handle(const char *func, const char *arg, const void *h,
                       uint32_t magic, int pair_ok);
#ifdef GEX_DEBUG
#define GEXI_DEBUG_CHECK_HANDLE(arg, h, magic, pair_ok) \
    gexi_check_handle(__func__, arg, (const void *)(h), magic, pair_ok)
#else
#define GEXI_DEBUG_CHECK_HANDLE(arg, h, magic, pair_ok) ((void)0)
#endif
#define GEXI_CHECK_CLIENT(c) GEXI_DEBUG_CHECK_HANDLE("client", c, GEXI_MAGIC_CLIENT, 0)
#define GEXI_CHECK_EP(e)     GEXI_DEBUG_CHECK_HANDLE("ep", e, GEXI_MAGIC_EP, 0)
#define GEXI_CHECK_SEG(s)    GEXI_DEBUG_CHECK_HANDLE("seg", s, GEXI_MAGIC_SEGMENT, 0)
#define GEXI_CHECK_TM(t, pair_ok) GEXI_DEBUG_CHECK_HANDLE("tm", t, GEXI_MAGIC_TM, pair_ok)

/* ---- Bootstrap: how the processes of a job find each other ----
 * The embedded implementation (bootstrap_embedded.c) talks to gexrun through
 * a shared "job region"; a PMIx implementation (ofi issue) fills the same
 * table.  All calls are collective over the whole job except abort. */
struct gexi_bootstrap_ops {
    const char *name;
    /* Returns 1 if this bootstrap applies to the current environment. */
    int (*detect)(void);
    int (*init)(gex_Rank_t *rank_p, gex_Rank_t *size_p, char *jobid, size_t jobid_len);
    int (*barrier)(void);
    int (*exchange)(const void *mine, size_t len, void *all); /* all-gather */
    int (*broadcast)(void *buf, size_t len, gex_Rank_t root);
    /* Tells the launcher the job must end with `exitcode` (gasnet_exit or a
     * fatal error); does not itself exit. */
    void (*abort)(int exitcode);
    /* Non-zero once the launcher or another rank has ended the job. */
    int (*aborting)(void);
    /* The code the job is ending with (valid once aborting() is non-zero). */
    int (*exit_code)(void);
    void (*fini)(void);
    /* Set when the launcher ends a job only for a failure (PMIx): then
     * gasnet_exit tells the other ranks itself (exit.c's exit notices), a
     * rank that leaves for a notice calls fini() before _exit, and abort()
     * is used for every code, 0 included. */
    int exit_notice;
};
extern const struct gexi_bootstrap_ops gexi_bootstrap_embedded;  /* gexrun */
extern const struct gexi_bootstrap_ops gexi_bootstrap_singleton; /* no launcher: 1 rank */
extern const struct gexi_bootstrap_ops gexi_bootstrap_pmix;      /* PMIx launcher (HAVE_PMIX) */
extern const struct gexi_bootstrap_ops *gexi_bootstrap;          /* the one in use */
int gexi_bootstrap_select(void);

/* ---- Conduit loading (conduit_loader.c) ---- */
/* Finds libgex-conduit-<name>.so (GEX_CONDUIT, default smp) in
 * GEX_CONDUIT_PATH or $libdir/gex next to libgex-core, checks its ABI. */
int gexi_conduit_load(const char *name, const struct gex_conduit_ops **ops_p, void **dl_p);

/* ---- AM delivery (handlers.c): gexi_deliver_am (core_layer.h) ---- */
void gexi_install_internal_handlers(struct gexi_ep *ep);
/* gex_flags of a handler registered by gasnet_attach (gasnet1.c): GASNet-1
 * tables give no category or argument count, so the entry claims every
 * category and the debug-build check accepts it for any AM. */
#define GEXI_AM_FLAGS_LEGACY (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQREP)

/* ---- Endpoints and teams (ep.c, tm.c) ---- */
int gexi_ep_create(struct gexi_client *c, gex_EP_Capabilities_t caps, gex_Flags_t flags,
                   gex_EP_t *ep_p);
struct gexi_tm *gexi_tm_new_primordial(struct gexi_client *c, struct gexi_ep *ep);

/* ---- Segments (segment.c) ---- */
/* True if a shared-memory segment provider is (or can be) loaded. */
int gexi_segment_provider_available(void);
int gexi_segments_init(void);
void gexi_segments_fini(void);
void gexi_peer_segment_set(gex_Rank_t jobrank, gex_EP_Index_t ep,
                           const struct gexi_peer_segment *ps);

/* ---- Host and neighbourhood (system.c) ---- */
int gexi_system_init(void);
/* Host and neighbourhood set ranks of any job rank (valid after init). */
void gexi_system_rank_position(gex_Rank_t jobrank, gex_Rank_t *host_set_rank_p,
                               gex_Rank_t *nbrhd_set_rank_p);

/* ---- Layers (layers.c) ---- */
int gexi_layers_bind(void);
void gexi_report_loaded_layers(void);   /* GASNET_VERBOSEENV: rank 0 at init (layer_inventory.c) */
void gexi_layers_fini(void);

/* ---- GASNet environment conventions (gasnet1_env.c) ---- */
/* gexi_env_bool, gexi_signal_excluded and the other value grammars */
#include "env_parse.h"
void gexi_env_announce_crash_settings(void); /* GASNET_VERBOSEENV: the getenv-only settings */
void gexi_idle_sleep_read_env(void);         /* GEX_IDLE_SLEEP, at client init */
/* quit_signal.c: SIGINT, SIGTERM and SIGHUP raise the client's SIGQUIT
 * handler (GASNet's convention); called once the client is initialised. */
void gexi_quit_signals_install(void);
/* GASNET_BACKTRACE: if set true (and GASNET_BACKTRACE_NODES admits this
 * rank), prints the calling thread's backtrace to fd; returns 0 if printed. */
int gexi_backtrace_ifenabled(int fd);
/* GASNET_FREEZE_ON_ERROR: if set true, waits for a debugger (or SIGCONT). */
void gexi_freeze_ifenabled(void);
void gexi_freeze_at_startup(void);   /* GASNET_FREEZE */
/* GASNET_MAX_SEGSIZE in README-gasnet-user's form ("4GB/P", "0.85/H", ...):
 * the per-process limit it sets, or 0 when unset or unreadable. */
uint64_t gexi_env_max_segsize(uint64_t phys_bytes, gex_Rank_t ranks_on_host);

/* ---- Exit (exit.c) ---- */
void gexi_exit_init(void);
/* Releases conduit resources of created EPs at process end (ep.c). */
void gexi_eps_close(void);
/* The job is ending (another rank exited or failed): leave now with the
 * job's exit code. */
void gexi_exit_now_aborting(void) __attribute__((noreturn));
/* Every wait (gexi_backoff) and gasnet_AMPoll call this: leaves if the job
 * is ending (an exit notice arrived, or bootstrap aborting()); in the thread
 * running gasnet_exit it bounds that thread's own waits. */
void gexi_exit_check(void);
/* Non-zero once another rank's exit notice arrived (cheap to test often). */
extern atomic_int gexi_exit_noticed;

/* Debug builds: explicit polls and waits are prohibited while the thread
 * holds a handler-safe lock (spec: "Calls from restricted context":
 * "...prohibits all communication initiation ..., explicit polling and
 * test/wait operations on handles/events").  Left unchecked, a poll under an
 * HSL can run a handler that takes the same lock (a silent deadlock), and a
 * handler that returns still holding an HSL leaves the thread hung in its
 * next wait.  Checked in gasnet_AMPoll (so GASNET_BLOCKUNTIL) and the
 * gex_Event_Wait* / gex_NBI_Wait calls; not in the Test calls, which layers'
 * progress hooks also use (a poll inside gasnet_exit, legal under an HSL,
 * runs them).  Release builds: nothing (the polling fast paths stay as they
 * are). */
#ifdef GEX_DEBUG
static inline void gexi_check_wait_ctx(const char *func)
{
    if (GEXI_UNLIKELY(gexi_hsl_depth))
        gexi_fatal("%s: called while holding %u handler-safe lock%s (spec: restricted context: "
                   "no explicit polling or waiting under an HSL)", func,
                   gexi_hsl_depth, gexi_hsl_depth == 1 ? "" : "s");
}
#else
#define gexi_check_wait_ctx(func) ((void)0)
#endif
/* Core's internal AM handlers (range GEXI_HIDX_CORE_BASE, core_layer.h). */
#define GEXI_HIDX_EXIT_NOTICE (GEXI_HIDX_CORE_BASE + 0)  /* exit.c */
#define GEXI_HIDX_EXIT_DONE   (GEXI_HIDX_CORE_BASE + 1)  /* exit.c */

#endif /* GEX_CORE_INTERNAL_H */
