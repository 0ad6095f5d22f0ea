/*
 * gex/gasnet1_ex.h: the GASNet-1 names that stay visible to a client of
 * gasnetex.h alone (GASNet-EX keeps them there too: its own tests use them
 * without gasnet.h).  gasnetex.h includes this header; never include it
 * directly.  The rest of the GASNet-1 API (gasnet_init/attach, put/get, the
 * gasnet_AM* injection macros) needs gasnet.h, whose guard
 * _INCLUDED_GASNET_H tells code which of the two it has.
 */
#ifndef GEX_GASNET1_EX_H
#define GEX_GASNET1_EX_H
#ifndef GASNETEX_H
#error "include <gasnetex.h>, not <gex/gasnet1_ex.h>"
#endif
#include <errno.h>
#include <sched.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GEXI_G1_UNUSED __attribute__((__unused__))
#else
#define GEXI_G1_UNUSED
#endif

/* MIN and MAX, which GASNet's headers give every client of gasnetex.h
 * (unless the client has its own). */
#ifndef MIN
#define MIN(x, y) ((x) < (y) ? (x) : (y))
#endif
#ifndef MAX
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#endif

/* ---- Types interoperable with their GASNet-EX counterparts ---- */
typedef gex_Rank_t      gasnet_node_t;
typedef gex_Event_t     gasnet_handle_t;
typedef gex_Token_t     gasnet_token_t;
typedef gex_AM_Index_t  gasnet_handler_t;
typedef gex_AM_Arg_t    gasnet_handlerarg_t;
typedef gex_RMA_Value_t gasnet_register_value_t;
#define SIZEOF_GASNET_REGISTER_VALUE_T SIZEOF_GEX_RMA_VALUE_T

/* One handler for gasnet_attach(); index 0 lets GASNet choose it (the
 * chosen index is written back into the table). */
typedef struct {
    gasnet_handler_t index;
    gex_AM_Fn_t      fnptr;
} gasnet_handlerentry_t;

/* A rank's segment as gasnet_getSegmentInfo() reports it: its address in
 * that rank's own address space. */
typedef struct {
    void     *addr;
    uintptr_t size;
} gasnet_seginfo_t;

/* Where a rank runs, as gasnet_getNodeInfo() reports it: its host and
 * neighbourhood ("supernode") numbered as gex_System_QueryMyPosition()
 * numbers sets, and the value to add to an address in its segment to get
 * the local address of the same byte (0 when not mapped here). */
typedef struct {
    gasnet_node_t host;
    gasnet_node_t supernode;
    intptr_t      offset;
} gasnet_nodeinfo_t;

/* ---- Waiting ----
 * GASNET_BLOCKUNTIL polls until cond holds; after a short spin it yields
 * the CPU between polls, so ranks that outnumber cores still progress.  The
 * wait mode is accepted and recorded for every value the spec defines; GEX
 * always waits that way (spin, then yield), never sleeping in the kernel. */
#define GASNET_WAIT_SPIN      0
#define GASNET_WAIT_BLOCK     1
#define GASNET_WAIT_SPINBLOCK 2
extern int gasnet_set_waitmode(int wait_mode);

static inline void gexi_gasnet1_pause(unsigned *spins)
{
    if (++*spins > 64) sched_yield();
}
#define GASNET_BLOCKUNTIL(cond) do { \
        unsigned gexi_g1_spins_ = 0; \
        while (!(cond)) { \
            (void)gasnet_AMPoll(); \
            gexi_gasnet1_pause(&gexi_g1_spins_); \
        } \
    } while (0)

/* Thread-info caching (a GASNet-1 optimization hook): GEX needs none, so
 * these only keep client code compiling (as declarations, so they may open
 * a block in C89-style code).  The value still names the calling thread, as
 * GASNet's does (GASNet's testgasnet.c checks two threads' values differ):
 * the address of errno, which C11 gives thread storage duration and which is
 * the same object in every translation unit. */
typedef void *gasnet_threadinfo_t;
#define GASNET_GET_THREADINFO() ((gasnet_threadinfo_t)&errno)
#define GASNET_POST_THREADINFO(info) \
    typedef char gexi_g1_posted_threadinfo_t[sizeof(info)] GEXI_G1_UNUSED
#define GASNET_BEGIN_FUNCTION() typedef char gexi_g1_begin_function_t GEXI_G1_UNUSED

/* ---- Legacy split-phase barrier over the primordial team.  Must not run
 * concurrently with gex_Coll_* on that team (spec: "Collectives (Coll)"). ---- */
/* gex_Coll_BarrierNB waited for at once (GASNet-EX has it, undocumented;
 * its own testbarrier uses it). */
static inline void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags)
{
    gex_Event_Wait(gex_Coll_BarrierNB(tm, flags));
}

#define GASNET_BARRIERFLAG_ANONYMOUS 1  /* matches any id */
#define GASNET_BARRIERFLAG_MISMATCH  2  /* force a mismatch error */
#define GASNET_BARRIERFLAG_UNNAMED   4  /* no id: every caller must pass it */
extern void gasnet_barrier_notify(int id, int flags);
/* wait, try and the blocking gasnet_barrier return GASNET_OK,
 * GASNET_ERR_BARRIER_MISMATCH or (try only) GASNET_ERR_NOT_READY. */
extern int gasnet_barrier_wait(int id, int flags);
extern int gasnet_barrier_try(int id, int flags);
extern int gasnet_barrier(int id, int flags);
/* After a completed wait/try/barrier: non-zero iff that barrier was anonymous
 * (every caller notified with GASNET_BARRIERFLAG_ANONYMOUS); for a named one,
 * *id receives its id. */
extern int gasnet_barrier_result(int *id);

#ifdef __cplusplus
}
#endif
#endif /* GEX_GASNET1_EX_H */
