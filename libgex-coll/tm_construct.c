/*
 * tm_construct.c: team construction and destruction (spec: gex_TM_Split,
 * gex_TM_Create, gex_TM_Destroy; seed 003 section 5: gex_TM_Dup, Create,
 * Destroy, single-valued scratch-size queries).
 *
 * Team ids.  Members of a new team must agree on its id without talking:
 * it is a hash of the parent's id, the parent's count of constructions so
 * far (every parent member makes the same construction calls in the same
 * order, so the count agrees) and what tells sibling teams of one call
 * apart: the color (Split) or the first member (Create; two teams of one
 * call are disjoint).  Messages for a team that does not exist here yet
 * wait as early arrivals (coll_engine.c), so construction needs no
 * synchronization of its own except:
 *  - Split all-gathers (color, key) over the parent (coll_allgather.c);
 *  - Create runs a barrier over the parent first: the endpoints it names
 *    may have been created just before the call, and no message may reach
 *    an endpoint before its process has entered the call;
 *  - a team that can use the nbrhd fast path learns where rank 0 put its
 *    slot through a broadcast over the new team;
 *  - Create with GEX_FLAG_TM_LOCAL_SCRATCH barriers over each new team, as
 *    the spec requires.
 * Cost per member: the membership table (O(team size)), its index sorted
 * by jobrank for gex_TM_TranslateJobrankToRank (O(size log size)), plus
 * the parent's all-gather for Split; nothing proportional to the job size.
 *
 * Scratch.  The AM and shared-memory algorithms need no client scratch, but
 * the API is honoured: size queries return constants (trivially single
 * valued), scratch is checked to lie in the endpoint's bound segment, kept,
 * and handed back by gex_TM_Destroy.  Collectives over a team created by
 * gex_TM_Create (or gex_TM_Dup) with GEX_FLAG_TM_NO_SCRATCH are prohibited by
 * the spec: debug builds stop, the others report it once and go on.  A team
 * made by gex_TM_Split with GEX_FLAG_TM_NO_SCRATCH may run collectives (spec:
 * the flag "will most likely degrade the performance of collectives"); it
 * simply never uses the nbrhd slot.
 */
#include "coll_internal.h"
#include <stdlib.h>
#include <string.h>

#define SCRATCH_MIN         ((size_t)1024)
#define SCRATCH_RECOMMENDED ((size_t)4096)

enum { KIND_SPLIT = 0x53, KIND_DUP = 0x44, KIND_CREATE = 0x43 };

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t child_id(uint64_t parent, uint32_t cseq, unsigned kind, uint64_t a, uint64_t b)
{
    uint64_t h = mix64(parent);
    h = mix64(h ^ cseq);
    h = mix64(h ^ ((uint64_t)kind << 56));
    h = mix64(h ^ a);
    h = mix64(h ^ b);
    return h == 0 || h == GEXI_COLL_PRIMORDIAL_ID ? 1 : h;
}

/* ---- checks ---- */

static struct gexi_tm *valid_team(const char *func, gex_TM_t tm, const char *what)
{
    if (!tm) gexi_coll_bad_arg(func, "%s is GEX_TM_INVALID", what);
    if (gexi_tm_is_pair(tm))
        gexi_coll_bad_arg(func, "%s is a TM-pair (gex_TM_Pair), not valid in collective calls",
                          what);
    struct gexi_tm *t = gexi_tm_of(tm);
    if (t->magic != GEXI_MAGIC_TM || !t->coll_state)
        gexi_coll_bad_arg(func, "%s is not a valid team (destroyed?)", what);
    return t;
}

struct gexi_coll_member *gexi_coll_check_tm(const char *func, gex_TM_t tm)
{
    struct gexi_tm *t = valid_team(func, tm, "tm");
    struct gexi_coll_member *m = t->coll_state;
    if (GEXI_UNLIKELY(m->coll_prohibited)) {
#ifdef GEX_DEBUG
        gexi_coll_bad_arg(func, "collectives over a team created with GEX_FLAG_TM_NO_SCRATCH "
                          "are prohibited (spec: gex_TM_Create)");
#else
        if (!m->noscratch_reported && gexi_verbose_errors()) {
            m->noscratch_reported = 1;
            gexi_bad_arg_msg(0, func, "running it anyway",
                             "collectives over a team created with GEX_FLAG_TM_NO_SCRATCH are "
                             "prohibited (spec: gex_TM_Create)");
        }
#endif
    }
    return m;
}

static size_t query_result(const char *func, gex_Flags_t flags, int member)
{
    if ((flags & GEX_FLAG_TM_SCRATCH_SIZE_MIN) && (flags & GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED))
        gexi_coll_bad_arg(func, "GEX_FLAG_TM_SCRATCH_SIZE_MIN and _RECOMMENDED are mutually "
                          "exclusive");
    if (flags & GEX_FLAG_TM_SCRATCH_SIZE_MIN) {
        static _Atomic int warned;
        if (!atomic_exchange(&warned, 1))
            gexi_log(1, "%s: GEX_FLAG_TM_SCRATCH_SIZE_MIN is deprecated (spec 0.11); use "
                     "GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED", func);
        return member ? SCRATCH_MIN : 0;
    }
    return member ? SCRATCH_RECOMMENDED : 0;
}

static int one_scratch_mode(gex_Flags_t flags, gex_Flags_t allowed)
{
    gex_Flags_t modes = flags & allowed & (GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH |
                                           GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_NO_SCRATCH);
    return modes && !(modes & (modes - 1));
}

/* Records client scratch for t (whose EP is set), checking it lies in the
 * EP's bound segment (spec: "Scratch space ... must always reside in a
 * bound segment with kind GEX_MK_HOST"). */
static void set_scratch(const char *func, struct gexi_tm *t, void *addr, size_t size,
                        int seg_offset)
{
    const struct gexi_segment *seg = t->ep->segment;
    if (!seg)
        gexi_coll_bad_arg(func, "scratch space must lie in the bound segment of endpoint %u, "
                          "which has none (or pass GEX_FLAG_TM_NO_SCRATCH)", t->ep->index);
    if (seg->kind != GEX_MK_HOST)
        gexi_coll_bad_arg(func, "scratch space must lie in a GEX_MK_HOST segment");
    if (size < SCRATCH_MIN)
        gexi_coll_bad_arg(func, "scratch size %zu is below the minimum %zu "
                          "(GEX_FLAG_TM_SCRATCH_SIZE_MIN)", size, SCRATCH_MIN);
    if (seg_offset) addr = (char *)seg->addr + (uintptr_t)addr;
    const uintptr_t lo = (uintptr_t)seg->addr, a = (uintptr_t)addr;
    if (a < lo || a - lo > seg->size || size > seg->size - (a - lo))
        gexi_coll_bad_arg(func, "scratch [%p, +%zu) is not inside the bound segment [%p, +%zu) "
                          "of endpoint %u", addr, size, seg->addr, (size_t)seg->size,
                          t->ep->index);
    t->scratch_addr = addr;
    t->scratch_size = size;
    t->scratch_from_client = 1;
}

/* ---- team objects ---- */

struct jr_pair {
    gex_Rank_t jr, r;
};
static int cmp_jr(const void *a, const void *b)
{
    const struct jr_pair *x = a, *y = b;
    if (x->jr != y->jr) return x->jr < y->jr ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

/* A new local member of team `id`, adopting a record that early arrivals
 * may have created.  `members` becomes the team's (NULL: identity).  Lock
 * held. */
static struct gexi_tm *team_new_locked(const char *func, uint64_t id, struct gexi_ep *ep,
                                       gex_Rank_t rank, gex_Rank_t size,
                                       gex_EP_Location_t *members, gex_Flags_t flags)
{
    struct gexi_coll_member *m = gexi_coll_member_get(id, ep->index, 1);
    if (m->tm)
        gexi_fatal("%s: endpoint %u is already a member of a team with this id (two callers "
                   "created the same team?)", func, ep->index);
    struct gexi_tm *t = gexi_coll_xcalloc(1, sizeof *t);
    t->magic = GEXI_MAGIC_TM;
    t->rank = rank;
    t->size = size;
    t->flags = flags;
    t->ep = ep;
    t->client = ep->client;
    t->members = members;
    m->members_owned = members;
    if (members && size > 1) {
        struct jr_pair *pairs = gexi_coll_xmalloc(size * sizeof *pairs);
        for (gex_Rank_t r = 0; r < size; r++) pairs[r] = (struct jr_pair){ members[r].gex_rank, r };
        qsort(pairs, size, sizeof *pairs, cmp_jr);
        gex_Rank_t *idx = gexi_coll_xmalloc(size * sizeof *idx);
        for (gex_Rank_t r = 0; r < size; r++) idx[r] = pairs[r].r;
        free(pairs);
        t->by_jobrank = idx;
        m->by_jobrank_owned = idx;
    }
    m->tm = t;
    t->coll_state = m;
    return t;
}

/* Collective over the new team, by every caller for its local members:
 * rank 0 claims a slot when the team qualifies for the nbrhd fast path and
 * announces it.  The caller marks the members ready when it has finished
 * every collective of the construction (see set_ready). */
struct announce {
    uint64_t value;
};
static void team_finish(struct gexi_tm **ts, size_t k)
{
    if (k && gexi_coll_shm_eligible(ts[0])) {
        struct announce *an = gexi_coll_xcalloc(k, sizeof *an);
        gex_Event_t *ev = gexi_coll_xcalloc(k, sizeof *ev);
        for (size_t i = 0; i < k; i++) {
            struct gexi_coll_member *m = ts[i]->coll_state;
            if (ts[i]->rank == 0) an[i].value = gexi_coll_shm_claim(m);
            ev[i] = gexi_coll_tree_bcast((gex_TM_t)ts[i], 0, &an[i].value, &an[i].value,
                                         sizeof an[i].value);
        }
        gex_Event_WaitAll(ev, k, 0);
        for (size_t i = 0; i < k; i++) gexi_coll_shm_attach(ts[i]->coll_state, an[i].value);
        free(an);
        free(ev);
    }
}

/* Another caller of this process sharing these members (gex_TM_Create) may
 * use them from now on: no construction collective is left on them. */
static void set_ready(struct gexi_tm **ts, size_t k)
{
    for (size_t i = 0; i < k; i++)
        atomic_store_explicit(&((struct gexi_coll_member *)ts[i]->coll_state)->ready, 1,
                              memory_order_release);
}


static uint32_t take_cseq(struct gexi_coll_member *m)
{
    gexi_coll_lock_take();
    uint32_t c = m->cseq++;
    gexi_coll_lock_give();
    return c;
}

/* ---- the primordial team ---- */

int gexi_coll_primordial_init(void)
{
    struct gexi_tm *t = gexi_core.client->primordial_tm;
    gexi_coll_lock_take();
    struct gexi_coll_member *m = gexi_coll_member_get(GEXI_COLL_PRIMORDIAL_ID, t->ep->index, 1);
    m->tm = t;
    t->coll_state = m;
    gexi_coll_lock_give();
    gexi_coll_primordial_shm(m);
    atomic_store(&m->ready, 1);
    return GASNET_OK;
}

/* ---- Split ---- */

struct split_entry {
    int32_t color, key;
};
struct split_sort {
    int32_t key;
    gex_Rank_t r;
};
static int cmp_split(const void *a, const void *b)
{
    const struct split_sort *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                    void *scratch_addr, size_t scratch_size, gex_Flags_t flags)
{
    struct gexi_tm *pt = valid_team(__func__, parent_tm, "parent_tm");
    struct gexi_coll_member *pm = pt->coll_state;
    const gex_Flags_t allowed = GEX_FLAG_TM_NO_SCRATCH | GEX_FLAG_TM_SCRATCH_SIZE_MIN |
                                GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED;
    if (flags & ~allowed)
        gexi_coll_bad_arg(__func__, "flags 0x%x: only GEX_FLAG_TM_NO_SCRATCH and the "
                          "GEX_FLAG_TM_SCRATCH_SIZE_* queries apply", (unsigned)flags);
    /* A NULL new_tm_p or a negative color (MPI_UNDEFINED style) joins no team. */
    const int joins = new_tm_p != NULL && color >= 0;
    if (flags & (GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED))
        return query_result(__func__, flags, joins);
    if (joins && !(flags & GEX_FLAG_TM_NO_SCRATCH) && (!scratch_addr || !scratch_size))
        gexi_coll_bad_arg(__func__, "no scratch space given (scratch_addr %p, scratch_size %zu) "
                          "and no GEX_FLAG_TM_NO_SCRATCH", scratch_addr, scratch_size);

    const gex_Rank_t n = pt->size;
    struct split_entry mine = { joins ? color : -1, key };
    struct split_entry *all = gexi_coll_xmalloc(n * sizeof *all);
    gex_Event_Wait(gexi_coll_allgather(parent_tm, all, &mine, sizeof mine));
    const uint32_t cseq = take_cseq(pm);
    if (!joins) {
        free(all);
        if (new_tm_p) *new_tm_p = GEX_TM_INVALID;
        return 0;
    }
    gex_Rank_t size = 0;
    for (gex_Rank_t r = 0; r < n; r++) size += all[r].color == color;
    struct split_sort *order = gexi_coll_xmalloc(size * sizeof *order);
    size = 0;
    for (gex_Rank_t r = 0; r < n; r++)
        if (all[r].color == color) order[size++] = (struct split_sort){ all[r].key, r };
    free(all);
    qsort(order, size, sizeof *order, cmp_split);
    gex_EP_Location_t *members = gexi_coll_xmalloc(size * sizeof *members);
    gex_Rank_t myrank = 0;
    for (gex_Rank_t i = 0; i < size; i++) {
        gexi_tm_peer(parent_tm, order[i].r, &members[i].gex_rank, &members[i].gex_ep_index);
        if (order[i].r == pt->rank) myrank = i;
    }
    free(order);
    const uint64_t id = child_id(pm->id, cseq, KIND_SPLIT, (uint32_t)color, 0);
    gexi_coll_lock_take();
    struct gexi_tm *t = team_new_locked(__func__, id, pt->ep, myrank, size, members,
                                        flags & GEX_FLAG_TM_NO_SCRATCH);
    gexi_coll_lock_give();
    if (!(flags & GEX_FLAG_TM_NO_SCRATCH)) set_scratch(__func__, t, scratch_addr, scratch_size, 0);
    team_finish(&t, 1);
    set_ready(&t, 1);
    *new_tm_p = (gex_TM_t)t;
    return 0;
}

/* ---- Dup ---- */

size_t gex_TM_Dup(gex_TM_t *new_tm_p, gex_TM_t orig_tm, gex_Addr_t scratch_addr,
                  size_t scratch_len, gex_Flags_t flags)
{
    struct gexi_tm *ot = valid_team(__func__, orig_tm, "orig_tm");
    struct gexi_coll_member *om = ot->coll_state;
    const gex_Flags_t modes = GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH |
                              GEX_FLAG_TM_NO_SCRATCH,
                      allowed = modes | GEX_FLAG_SCRATCH_SEG_OFFSET |
                                GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED;
    if (flags & ~allowed)
        gexi_coll_bad_arg(__func__, "flags 0x%x include bits gex_TM_Dup does not accept",
                          (unsigned)flags);
    if (flags & (GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED))
        return query_result(__func__, flags, 1);
    if (!one_scratch_mode(flags, modes))
        gexi_coll_bad_arg(__func__, "flags 0x%x: exactly one of GEX_FLAG_TM_SYMMETRIC_SCRATCH, "
                          "GEX_FLAG_TM_LOCAL_SCRATCH or GEX_FLAG_TM_NO_SCRATCH is required "
                          "(seed 003, 5.2)", (unsigned)flags);
    if (!new_tm_p) gexi_coll_bad_arg(__func__, "new_tm_p is NULL");
    const int noscratch = (flags & GEX_FLAG_TM_NO_SCRATCH) != 0;
    if (!noscratch && !scratch_len)
        gexi_coll_bad_arg(__func__, "scratch_len is zero without GEX_FLAG_TM_NO_SCRATCH");
    const uint32_t cseq = take_cseq(om);
    const uint64_t id = child_id(om->id, cseq, KIND_DUP, 0, 0);
    gex_EP_Location_t *members = NULL;
    if (ot->members) {
        members = gexi_coll_xmalloc(ot->size * sizeof *members);
        memcpy(members, ot->members, ot->size * sizeof *members);
    }
    gexi_coll_lock_take();
    struct gexi_tm *t = team_new_locked(__func__, id, ot->ep, ot->rank, ot->size, members,
                                        flags & ~GEX_FLAG_SCRATCH_SEG_OFFSET);
    ((struct gexi_coll_member *)t->coll_state)->coll_prohibited = noscratch;
    gexi_coll_lock_give();
    if (!noscratch)
        set_scratch(__func__, t, scratch_addr, scratch_len,
                    (flags & GEX_FLAG_SCRATCH_SEG_OFFSET) != 0);
    team_finish(&t, 1);
    set_ready(&t, 1);
    *new_tm_p = (gex_TM_t)t;
    return 0;
}

/* ---- Create ---- */

static int cmp_loc(const void *a, const void *b)
{
    const gex_EP_Location_t *x = a, *y = b;
    if (x->gex_rank != y->gex_rank) return x->gex_rank < y->gex_rank ? -1 : 1;
    return (x->gex_ep_index > y->gex_ep_index) - (x->gex_ep_index < y->gex_ep_index);
}

size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                     gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                     size_t scratch_size, gex_Flags_t flags)
{
    static const char func[] = "gex_TM_Create";
    struct gexi_tm *pt = valid_team(func, parent_tm, "parent_tm");
    struct gexi_coll_member *pm = pt->coll_state;
    const gex_Flags_t modes = GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH |
                              GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_NO_SCRATCH,
                      allowed = modes | GEX_FLAG_SCRATCH_SEG_OFFSET | GEX_FLAG_RANK_IS_JOBRANK |
                                GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED;
    if (flags & ~allowed)
        gexi_coll_bad_arg(func, "flags 0x%x include bits gex_TM_Create does not accept",
                          (unsigned)flags);
    if (flags & (GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED))
        return query_result(func, flags, numargs > 0);

    if (numargs == 0) { /* no team for this caller, but the call is collective */
        take_cseq(pm);
        gex_Event_Wait(gexi_coll_barrier_any(parent_tm));
        return 0;
    }
    if (!args) gexi_coll_bad_arg(func, "args is NULL with numargs %zu", numargs);
    if (!one_scratch_mode(flags, modes))
        gexi_coll_bad_arg(func, "flags 0x%x: exactly one of GEX_FLAG_TM_{SYMMETRIC,LOCAL,GLOBAL,"
                          "NO}_SCRATCH is required", (unsigned)flags);
    if (numargs > GASNET_MAXNODES) gexi_coll_bad_arg(func, "numargs %zu is too large", numargs);
    const gex_Rank_t size = (gex_Rank_t)numargs, me = gexi_core.jobrank;
    gex_EP_Location_t *members = gexi_coll_xmalloc(numargs * sizeof *members);
    size_t nlocal = 0;
    for (size_t i = 0; i < numargs; i++) {
        gex_Rank_t jr = args[i].gex_rank;
        if (flags & GEX_FLAG_RANK_IS_JOBRANK) {
            if (jr >= gexi_core.jobsize)
                gexi_coll_bad_arg(func, "args[%zu].gex_rank %u is not a jobrank (job size %u)", i,
                                  (unsigned)jr, (unsigned)gexi_core.jobsize);
        } else {
            if (jr >= pt->size)
                gexi_coll_bad_arg(func, "args[%zu].gex_rank %u is not a rank of parent_tm (size "
                                  "%u)", i, (unsigned)jr, (unsigned)pt->size);
            gex_EP_Index_t ignored;
            gexi_tm_peer(parent_tm, jr, &jr, &ignored);
        }
        if (args[i].gex_ep_index >= GASNET_MAXEPS)
            gexi_coll_bad_arg(func, "args[%zu].gex_ep_index %u is not an endpoint index", i,
                              (unsigned)args[i].gex_ep_index);
        members[i] = (gex_EP_Location_t){ jr, args[i].gex_ep_index };
        if (jr == me) {
            const struct gexi_client *c = pt->client;
            if (args[i].gex_ep_index >= atomic_load(&c->n_eps) || !c->eps[args[i].gex_ep_index])
                gexi_coll_bad_arg(func, "args[%zu] names endpoint %u of this process, which "
                                  "does not exist", i, (unsigned)args[i].gex_ep_index);
            nlocal++;
        }
    }
    { /* distinct elements (spec) */
        gex_EP_Location_t *sorted = gexi_coll_xmalloc(numargs * sizeof *sorted);
        memcpy(sorted, members, numargs * sizeof *sorted);
        qsort(sorted, numargs, sizeof *sorted, cmp_loc);
        for (size_t i = 1; i < numargs; i++)
            if (!cmp_loc(&sorted[i - 1], &sorted[i]))
                gexi_coll_bad_arg(func, "args[] names endpoint (%u, %u) twice",
                                  (unsigned)sorted[i].gex_rank, (unsigned)sorted[i].gex_ep_index);
        free(sorted);
    }
    if (nlocal != num_new_tms)
        gexi_coll_bad_arg(func, "num_new_tms is %zu but args[] names %zu endpoints of this "
                          "process", num_new_tms, nlocal);
    if (nlocal && !new_tms) gexi_coll_bad_arg(func, "new_tms is NULL");
    const int noscratch = (flags & GEX_FLAG_TM_NO_SCRATCH) != 0;
    if (!noscratch && nlocal && (!scratch_addrs || !scratch_size))
        gexi_coll_bad_arg(func, "no scratch space given and no GEX_FLAG_TM_NO_SCRATCH");

    const uint32_t cseq = take_cseq(pm);
    const uint64_t id = child_id(pm->id, cseq, KIND_CREATE, members[0].gex_rank,
                                 members[0].gex_ep_index);
    /* Every process named has entered the call, so its endpoints exist. */
    gex_Event_Wait(gexi_coll_barrier_any(parent_tm));
    if (!nlocal) {
        free(members);
        return 0;
    }

    struct gexi_tm **ts = gexi_coll_xcalloc(nlocal, sizeof *ts);
    size_t k = 0;
    int shared = 0;
    gexi_coll_lock_take();
    for (gex_Rank_t r = 0; r < size; r++) {
        if (members[r].gex_rank != me) continue;
        /* Another caller of this process (one per member of parent_tm) names
         * the same team and has created its local members already: both
         * callers get the same handles (seed 003 5.3 items 9, 10, 13).  The
         * creator makes all of them at once, so the first one tells. */
        const struct gexi_coll_member *first = gexi_coll_member_get(id, members[r].gex_ep_index, 0);
        shared = first && first->tm;
        break;
    }
    for (gex_Rank_t r = 0; r < size; r++) {
        if (members[r].gex_rank != me) continue;
        if (shared) {
            struct gexi_coll_member *m = gexi_coll_member_get(id, members[r].gex_ep_index, 0);
            if (!m || !m->tm)
                gexi_fatal("%s: callers of one process name the same team differently", func);
            ts[k++] = m->tm;
            continue;
        }
        gex_EP_Location_t *copy = members;
        if (k + 1 < nlocal) { /* each member owns its table */
            copy = gexi_coll_xmalloc(numargs * sizeof *copy);
            memcpy(copy, members, numargs * sizeof *copy);
        }
        struct gexi_ep *ep = pt->client->eps[members[r].gex_ep_index];
        ts[k] = team_new_locked(func, id, ep, r, size, copy,
                                flags & ~GEX_FLAG_SCRATCH_SEG_OFFSET);
        /* spec, gex_TM_Create: "collectives over this team are prohibited" */
        ((struct gexi_coll_member *)ts[k++]->coll_state)->coll_prohibited = noscratch;
    }
    gexi_coll_lock_give();

    if (shared) {
        free(members);
        for (size_t i = 0; i < k; i++) {
            struct gexi_coll_member *m = ts[i]->coll_state;
            GEXI_POLL_UNTIL(atomic_load_explicit(&m->ready, memory_order_acquire));
        }
    } else {
        if (!noscratch) {
            const int off = (flags & GEX_FLAG_SCRATCH_SEG_OFFSET) != 0;
            for (size_t i = 0; i < k; i++) {
                void *a = (flags & GEX_FLAG_TM_SYMMETRIC_SCRATCH) ? scratch_addrs[0]
                          : (flags & GEX_FLAG_TM_LOCAL_SCRATCH)   ? scratch_addrs[i]
                                                                  : scratch_addrs[ts[i]->rank];
                set_scratch(func, ts[i], a, scratch_size, off);
            }
        }
        team_finish(ts, k);
        if (flags & GEX_FLAG_TM_LOCAL_SCRATCH) { /* spec: barrier over each new team */
            gex_Event_t *ev = gexi_coll_xcalloc(k, sizeof *ev);
            for (size_t i = 0; i < k; i++) ev[i] = gexi_coll_barrier_any((gex_TM_t)ts[i]);
            gex_Event_WaitAll(ev, k, 0);
            free(ev);
        }
        set_ready(ts, k);
    }
    for (size_t i = 0; i < k; i++) new_tms[i] = (gex_TM_t)ts[i];
    free(ts);
    return 0;
}

/* ---- Destroy ---- */

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags)
{
    if (!tm || gexi_tm_is_pair(tm) || gexi_tm_of(tm)->magic != GEXI_MAGIC_TM) {
        GEXI_BAD_ARG_NORET("nothing destroyed, returning 0", "tm is not a valid team");
        return 0;
    }
    struct gexi_tm *t = gexi_tm_of(tm);
    if (t == t->client->primordial_tm) {
        GEXI_BAD_ARG_NORET("nothing destroyed, returning 0",
                           "the primordial team cannot be destroyed (spec)");
        return 0;
    }
    if (flags & ~(GEX_FLAG_GLOBALLY_QUIESCED | GEX_FLAG_SCRATCH_SEG_OFFSET)) {
        GEXI_BAD_ARG_NORET("nothing destroyed, returning 0",
                           "flags 0x%x include bits gex_TM_Destroy does not accept",
                           (unsigned)flags);
        return 0;
    }
    struct gexi_coll_member *m = t->coll_state;
    /* No synchronization is needed (spec: permitted, not required), with or
     * without GEX_FLAG_GLOBALLY_QUIESCED: once this member's collectives are
     * complete, every message addressed to it has arrived (coll_engine.c),
     * and the slot stays allocated until every member has destroyed. */
    gexi_coll_lock_take();
    if (m->ops || m->npolled) {
        const char *what = m->ops ? m->ops->vt->name : "shared-memory";
        gexi_coll_lock_give();
        gexi_fatal("gex_TM_Destroy: team is not locally quiesced: a collective (%s) over it is "
                   "still in flight", what);
    }
    unsigned dropped = gexi_coll_member_remove(m);
    gexi_coll_lock_give();
    if (dropped)
        gexi_log(1, "gex_TM_Destroy: %u message(s) for collectives this member never started "
                 "were dropped (collective calls do not match across the team)", dropped);
    gexi_coll_shm_release(m);
    int rc = 0;
    if (scratch_p && t->scratch_from_client) {
        uintptr_t a = (uintptr_t)t->scratch_addr;
        if ((flags & GEX_FLAG_SCRATCH_SEG_OFFSET) && t->ep->segment)
            a -= (uintptr_t)t->ep->segment->addr;
        scratch_p->gex_addr = (void *)a;
        scratch_p->gex_len = t->scratch_size;
        rc = 1;
    }
    free(m->members_owned);
    free(m->by_jobrank_owned);
    free(m);
    t->magic = 0;
    t->coll_state = NULL;
    free(t);
    return rc;
}
