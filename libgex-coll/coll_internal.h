/*
 * coll_internal.h: libgex-coll's one internal header.  libgex-coll sits on
 * libgex-am (it talks only through public AM Requests) and libgex-core
 * (objects, events, progress hooks); it owns team construction (Split, Dup,
 * Create, Destroy), every collective (gex_Coll_*), the legacy GASNet-1
 * barrier and collectives (gasnet_coll_*, coll_gasnet1.c), and the team-wide
 * exchange core uses to publish segments over a non-primordial team.  docs/collectives.md describes the design; in short:
 *
 *  - A team has a 64-bit id that every member derives without talking (from
 *    the parent's id, the parent's count of constructions so far and the
 *    color or first member).  Each local member of a team has a *member
 *    record*, found by (team id, local EP index) in a hash table.
 *  - Every collective call takes the member's next sequence number.  AM
 *    messages carry (team id, sequence, step, piece) and are matched to the
 *    operation in flight with that sequence; a message for a team or an
 *    operation not started here yet is kept as an *early arrival* and
 *    replayed when the operation starts.
 *  - Operations are state machines advanced by one engine (coll_engine.c),
 *    which runs at initiation and from core's progress hook (every poll).
 *    AM handlers only record what arrived; sends happen outside the lock.
 *  - Teams whose members all share memory (one nbrhd) get a *slot* in
 *    shared memory from their rank 0's process (coll_shm.c): barrier,
 *    small broadcasts and small reductions then run through it.  The AM
 *    algorithms remain for everything else and as the reference
 *    (GEX_FORCE_REFERENCE=coll).
 */
#ifndef GEX_COLL_INTERNAL_H
#define GEX_COLL_INTERNAL_H

#ifndef GEXI_BUILDING_GEX
#error "coll_internal.h is internal to GEX"
#endif

#include "core_layer.h"
#include <gasnet.h>
#include <gasnet_coll.h>
#include <pthread.h>
#include <stdbool.h>

/* ---- AM handlers: (id_lo, id_hi, seq, step, piece) [+ payload] ---- */
#define GEXI_COLL_H_SHORT  (GEXI_HIDX_COLL_BASE + 0)
#define GEXI_COLL_H_MEDIUM (GEXI_HIDX_COLL_BASE + 1)

/* step = phase << 24 | sub (round, child bit, ring step, ...) */
#define GEXI_COLL_STEP(phase, sub) ((uint32_t)(phase) << 24 | (uint32_t)(sub))
#define GEXI_COLL_PHASE(step)      ((step) >> 24)
#define GEXI_COLL_SUB(step)        ((step) & 0xffffffu)

/* ---- Configuration (coll_layer.c), fixed at bind ---- */
struct gexi_coll_config {
    size_t piece;        /* payload bytes per Medium (GEX_COLL_PIECE_SIZE, <= MaxMedium) */
    size_t rd_max;       /* ReduceToAll: recursive doubling up to this size (GEX_COLL_RD_MAX) */
    size_t shm_max;      /* nbrhd data path up to this size (GEX_COLL_SHM_MAX) */
    int use_shm;         /* nbrhd slots exist (PSHM on, not GEX_FORCE_REFERENCE=coll) */
    unsigned shm_slots;  /* slots per process (GEX_COLL_SHM_SLOTS) */
    size_t shm_slot_size;/* bytes per slot (GEX_COLL_SHM_SLOT_SIZE) */
    int shm_strict;      /* GEX_COLL_SHM_STRICT: running out of slots is fatal (tests) */
};
extern struct gexi_coll_config gexi_coll_cfg;

/* ---- Member records and operations (coll_engine.c) ---- */
struct gexi_coll_op;
struct gexi_coll_msg;
struct gexi_coll_slot;

struct gexi_coll_member {
    uint64_t id;                       /* team id, equal on every member */
    gex_EP_Index_t ep_index;           /* the local EP this record belongs to */
    struct gexi_coll_member *hnext;    /* hash chain */
    struct gexi_tm *tm;                /* NULL while only early arrivals exist */
    uint32_t seq;                      /* collectives initiated on this member */
    uint32_t cseq;                     /* teams constructed from this one */
    struct gexi_coll_op *ops;          /* AM operations in flight */
    unsigned npolled;                  /* shared-memory operations in flight */
    struct gexi_coll_msg *early;       /* arrivals for operations not started yet */
    struct gexi_coll_msg **early_tail;
    /* nbrhd fast path (coll_shm.c): NULL = AM algorithms only */
    struct gexi_coll_slot *slot;
    size_t shm_area;                   /* data bytes per member in the slot */
    uint64_t shm_bar;                  /* shm barriers initiated */
    uint64_t shm_data;                 /* shm data operations initiated */
    /* team construction bookkeeping */
    _Atomic int ready;                 /* gex_TM_Create: set-up finished (sharing callers) */
    /* created by gex_TM_Create (or gex_TM_Dup) with GEX_FLAG_TM_NO_SCRATCH: the spec
     * prohibits collectives over it; a gex_TM_Split team without scratch may run them */
    int coll_prohibited;
    int noscratch_reported;
    gex_EP_Location_t *members_owned;  /* what tm->members points to, if ours */
    gex_Rank_t *by_jobrank_owned;
};

/* The lock that protects member records, operations and early arrivals.
 * Never held while sending (a blocked send polls, and handlers take it). */
extern pthread_mutex_t gexi_coll_lock;
static inline void gexi_coll_lock_take(void) { pthread_mutex_lock(&gexi_coll_lock); }
static inline void gexi_coll_lock_give(void) { pthread_mutex_unlock(&gexi_coll_lock); }

/* Record of (id, ep), created if absent (lock held). */
struct gexi_coll_member *gexi_coll_member_get(uint64_t id, gex_EP_Index_t ep, int create);
/* Removes a record from the table and frees its early arrivals (lock held).
 * Returns the number of early arrivals that were dropped. */
unsigned gexi_coll_member_remove(struct gexi_coll_member *m);
static inline struct gexi_coll_member *gexi_coll_member_of(gex_TM_t tm)
{
    return (struct gexi_coll_member *)gexi_tm_of(tm)->coll_state;
}

/* An outbox collects the sends an operation's advance() wants; the engine
 * performs them after releasing the lock. */
#define GEXI_COLL_OUTBOX_MAX 64
struct gexi_coll_send {
    struct gexi_coll_op *op;
    gex_Rank_t rank;
    uint32_t step, idx;
    const void *payload;               /* NULL: Short */
    size_t nbytes;
};
struct gexi_coll_outbox {
    unsigned n;
    int full;                          /* an advance() found no room: requeue it */
    struct gexi_coll_send s[GEXI_COLL_OUTBOX_MAX];
};
/* Queues a send; false (and nothing queued) when the outbox is full: the
 * operation must stop advancing and will be called again. */
bool gexi_coll_send(struct gexi_coll_outbox *ob, struct gexi_coll_op *op, gex_Rank_t rank,
                    uint32_t step, uint32_t idx, const void *payload, size_t nbytes);
bool gexi_coll_send_short(struct gexi_coll_outbox *ob, struct gexi_coll_op *op, gex_Rank_t rank,
                          uint32_t step, uint32_t idx);

struct gexi_coll_op_vt {
    const char *name;
    /* A message for this operation arrived (handler, or replay at start). */
    void (*on_msg)(struct gexi_coll_op *op, uint32_t step, uint32_t idx, const void *payload,
                   size_t nbytes);
    /* Moves the operation forward; called with no send of it outstanding,
     * so every buffer it sent from may be reused.  Sets op->done when all
     * its messages have arrived and all its sends have been queued.  ob is
     * NULL when called from a handler: gexi_coll_send then refuses, and the
     * operation must stop where it would have sent (the engine resumes). */
    void (*advance)(struct gexi_coll_op *op, struct gexi_coll_outbox *ob);
    /* Frees what the operation allocated (the op itself is freed by the engine). */
    void (*fini)(struct gexi_coll_op *op);
};

struct gexi_coll_op {
    const struct gexi_coll_op_vt *vt;
    struct gexi_coll_member *m;
    struct gexi_tm *tm;
    struct gexi_coll_op *mnext;        /* m->ops */
    struct gexi_coll_op *lnext;        /* dirty list or shm list */
    uint32_t seq;
    uint8_t dirty, done, is_shm;
    uint8_t lane;                      /* engine lane: 0, or the serialized EP's index */
    uint32_t sending;                  /* queued or running sends */
    struct gexi_event *ev;             /* completed when the operation retires */
};

/* Allocates an operation of `size` bytes (a struct starting with the op). */
void *gexi_coll_op_alloc(size_t size, const struct gexi_coll_op_vt *vt, gex_TM_t tm);
/* Starts an AM operation: takes the member's next sequence number, replays
 * early arrivals, runs the engine once.  Returns its event. */
gex_Event_t gexi_coll_start(struct gexi_coll_op *op);
/* Starts a polled (shared-memory) operation; the sequence number must
 * already be taken (gexi_coll_next_seq). */
gex_Event_t gexi_coll_start_polled(struct gexi_coll_op *op);
/* Takes a sequence number without an AM operation (shm paths, trivial ops). */
uint32_t gexi_coll_next_seq(struct gexi_coll_member *m);
/* Runs the engine now if no other thread does. */
void gexi_coll_progress(void);

/* Handlers (registered by bind). */
void gexi_coll_h_short(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                       gex_AM_Arg_t a3, gex_AM_Arg_t a4);
void gexi_coll_h_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0,
                        gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4);

/* ---- Piece layout: how a vector travels in AM Mediums ----
 * The vector (cnt elements of esz bytes) is cut into blocks of whole
 * elements, the unit of reduction; a block is one piece, or, when one
 * element is larger than a piece, that element is cut into pieces. */
struct gexi_coll_layout {
    size_t esz, cnt;
    size_t epb;        /* elements per block */
    size_t ppb;        /* pieces per block */
    size_t psz;        /* bytes per full piece */
    size_t nblocks, npieces;
};
void gexi_coll_layout_init(struct gexi_coll_layout *L, size_t esz, size_t cnt);
static inline size_t gexi_coll_block_of(const struct gexi_coll_layout *L, size_t piece)
{
    return piece / L->ppb;
}
static inline size_t gexi_coll_block_off(const struct gexi_coll_layout *L, size_t b)
{
    return b * L->epb * L->esz;
}
static inline size_t gexi_coll_block_elems(const struct gexi_coll_layout *L, size_t b)
{
    size_t first = b * L->epb;
    return L->cnt - first < L->epb ? L->cnt - first : L->epb;
}
/* Byte range of a piece. */
static inline void gexi_coll_piece(const struct gexi_coll_layout *L, size_t p, size_t *off,
                                   size_t *len)
{
    size_t b = p / L->ppb, j = p % L->ppb;
    size_t bbytes = gexi_coll_block_elems(L, b) * L->esz;
    *off = gexi_coll_block_off(L, b) + j * L->psz;
    *len = bbytes - j * L->psz < L->psz ? bbytes - j * L->psz : L->psz;
}

/* ---- Reduction operators (coll_reduce.c) ---- */
struct gexi_coll_redop {
    gex_Coll_ReduceFn_t fn;            /* built-in combine or the user's function */
    const void *cdata;
    size_t esz;
    int commutative;
};
/* Validates (dt, dt_sz, op, user_op) as the spec requires; fills *r or
 * ends the job with a message naming the bad argument. */
void gexi_coll_redop_init(struct gexi_coll_redop *r, const char *func, gex_DT_t dt,
                          size_t dt_sz, gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                          void *user_cdata);
/* ReduceToAll over tm with an already validated operator (used by the legacy
 * barrier): no argument checks. */
gex_Event_t gexi_coll_reduce_all(gex_TM_t tm, void *dst, const void *src,
                                 const struct gexi_coll_redop *r, size_t cnt);

/* ---- Algorithms (AM) ---- */
gex_Event_t gexi_coll_barrier_am(gex_TM_t tm);                               /* coll_barrier.c */
/* Barrier for internal use: like gex_Coll_BarrierNB without the tm checks. */
gex_Event_t gexi_coll_barrier_any(gex_TM_t tm);
/* Binomial-tree broadcast/reduction (coll_bcast.c). */
gex_Event_t gexi_coll_tree_bcast(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes);
gex_Event_t gexi_coll_tree_reduce(gex_TM_t tm, gex_Rank_t root, int to_all, void *dst,
                                  const void *src, const struct gexi_coll_redop *r, size_t cnt);
gex_Event_t gexi_coll_rd_allreduce(gex_TM_t tm, void *dst, const void *src,
                                   const struct gexi_coll_redop *r, size_t cnt);
gex_Event_t gexi_coll_ring_allreduce(gex_TM_t tm, void *dst, const void *src,
                                     const struct gexi_coll_redop *r, size_t cnt);
/* Bruck all-gather of len bytes per member into all[size * len] (coll_allgather.c). */
gex_Event_t gexi_coll_allgather(gex_TM_t tm, void *all, const void *mine, size_t len);
int gexi_coll_team_exchange(gex_TM_t tm, const void *mine, size_t len, void *all);

/* ---- nbrhd fast path (coll_shm.c) ---- */
int gexi_coll_shm_init(void);                 /* bind: regions, primordial slot */
int gexi_coll_shm_eligible(const struct gexi_tm *t);
/* bind: the primordial team uses slot 0 of jobrank 0 when all are one nbrhd. */
int gexi_coll_primordial_shm(struct gexi_coll_member *m);
/* Rank 0: claims a free slot of its process for team m (0 if none); the
 * returned value is what rank 0 announces (slot index + 1, or 0). */
uint64_t gexi_coll_shm_claim(struct gexi_coll_member *m);
/* Every member: attaches to the slot announced by rank 0. */
void gexi_coll_shm_attach(struct gexi_coll_member *m, uint64_t announced);
void gexi_coll_shm_release(struct gexi_coll_member *m);
gex_Event_t gexi_coll_shm_barrier(gex_TM_t tm);
/* Data operations, when gexi_coll_shm_fits(m, bytes). */
static inline bool gexi_coll_shm_fits(const struct gexi_coll_member *m, size_t bytes)
{
    return m->slot && bytes <= m->shm_area && bytes <= gexi_coll_cfg.shm_max;
}
gex_Event_t gexi_coll_shm_bcast(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                size_t nbytes);
gex_Event_t gexi_coll_shm_reduce(gex_TM_t tm, gex_Rank_t root, int to_all, void *dst,
                                 const void *src, const struct gexi_coll_redop *r, size_t cnt);
const char *gexi_coll_shm_describe(void);

/* ---- Teams (tm_construct.c) ---- */
#define GEXI_COLL_PRIMORDIAL_ID 0x50524d4f52444c31ull /* "PRMORDL1" */
int gexi_coll_primordial_init(void);
/* The checks every gex_Coll_* entry point makes on tm. */
struct gexi_coll_member *gexi_coll_check_tm(const char *func, gex_TM_t tm);

/* ---- Small helpers ---- */
void gexi_coll_bad_arg(const char *func, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
void *gexi_coll_xmalloc(size_t n);
void *gexi_coll_xcalloc(size_t n, size_t sz);
static inline unsigned gexi_coll_ceil_log2(gex_Rank_t n)
{
    unsigned k = 0;
    while (((gex_Rank_t)1 << k) < n) k++;
    return k;
}
static inline gex_Rank_t gexi_coll_lowbit(gex_Rank_t v) { return v & (~v + 1); }

#endif /* GEX_COLL_INTERNAL_H */
