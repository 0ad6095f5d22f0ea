/*
 * coll_shm.c: the nbrhd fast path.  When every member of a team lives in
 * one nbrhd (processes that map each other's memory, libgex-shm), the team
 * gets a *slot*: a few KiB of shared memory in the process of its rank 0,
 * through which barriers, small broadcasts and small reductions run with
 * plain loads and stores instead of AM round trips.
 *
 * Regions.  At bind every process allocates one region (GEX_COLL_SHM_SLOTS
 * slots of GEX_COLL_SHM_SLOT_SIZE bytes) from the segment provider, the
 * descriptors are exchanged through the bootstrap, and every process maps
 * the regions of its nbrhd; the OS names go as soon as everyone has mapped
 * them.  If anything fails anywhere, the fast path is off in the whole job
 * (every process must take the same decisions).  Slot 0 of jobrank 0 belongs
 * to the primordial team.  GEX_FORCE_REFERENCE=coll turns all this off.
 *
 * Slots.  Rank 0 of a new team claims a free slot of its region (owner:
 * team id, refs: team size), and the team's construction announces the
 * choice with a broadcast over the new team; every member then knows where
 * the slot is.  Each member drops a reference in gex_TM_Destroy, the last
 * one frees the slot, so no member can still be reading it.
 *
 * Slot layout: a header line, then per member i a line with its barrier
 * arrival count, then per member i and parity p a stamp line and `area`
 * data bytes.
 *  - Barrier b: member i sets arrive[i] = b (release); the barrier is over
 *    when every arrive[j] >= b (acquire).  Per-member counters keep several
 *    outstanding barriers apart.
 *  - Data operation d (parity p = d & 1): a member may write its area[p]
 *    once done[p] counts every finish of the earlier operations of that
 *    parity, writes its data, then stamp[p] = d (release); readers wait
 *    for the stamps they need (acquire), read, and count a finish in
 *    done[p].  Two parities let consecutive operations overlap.
 *    Broadcast: the root writes, the others read the root's area.
 *    Reductions: everyone writes; the root (ToOne) or everyone (ToAll)
 *    combines areas 0..N-1 in rank order, so every member computes the
 *    bitwise same result and GEX_OP_USER_NC keeps its order.
 */
#include "coll_internal.h"
#include <stdlib.h>
#include <string.h>

#define LINE 64
#define REGION_MAGIC 0x47455843534c5431ull /* "GEXCSLT1" */

struct region_hdr {
    uint64_t magic;
    uint32_t nslots, pad;
    uint64_t slot_size;
    char fill[LINE - 24];
};

struct gexi_coll_slot {
    _Atomic uint64_t owner;            /* team id; 0 = free */
    _Atomic uint32_t refs;             /* members that have not destroyed it yet */
    uint32_t n;
    uint64_t area;
    _Atomic uint64_t done[2];          /* finishes of data operations, per parity */
    char fill[LINE - 40];
};
_Static_assert(sizeof(struct gexi_coll_slot) == LINE, "slot header is one line");

static unsigned char **regions;        /* [jobsize]: mapped regions of nbrhd peers */
static void *my_handle;
static const char *shm_state = "off";

static inline _Atomic uint64_t *arrive_of(struct gexi_coll_slot *s, gex_Rank_t i)
{
    return (_Atomic uint64_t *)((unsigned char *)s + LINE * (1 + (size_t)i));
}
static inline unsigned char *cell_of(struct gexi_coll_slot *s, gex_Rank_t i, unsigned p)
{
    return (unsigned char *)s + LINE * (1 + (size_t)s->n) + ((size_t)i * 2 + p) * (LINE + s->area);
}
static inline _Atomic uint64_t *stamp_of(struct gexi_coll_slot *s, gex_Rank_t i, unsigned p)
{
    return (_Atomic uint64_t *)cell_of(s, i, p);
}
static inline unsigned char *data_of(struct gexi_coll_slot *s, gex_Rank_t i, unsigned p)
{
    return cell_of(s, i, p) + LINE;
}

/* Data bytes per member and parity a slot offers a team of n (0: barrier only). */
static size_t area_for(gex_Rank_t n)
{
    const size_t size = gexi_coll_cfg.shm_slot_size, fixed = LINE * (1 + (size_t)n);
    if (fixed >= size) return 0;
    size_t per = (size - fixed) / (2 * (size_t)n);
    if (per <= LINE) return 0;
    per = (per - LINE) / LINE * LINE;
    return per > 4096 ? 4096 : per;
}

static struct gexi_coll_slot *slot_at(gex_Rank_t jobrank, unsigned index)
{
    return (struct gexi_coll_slot *)(regions[jobrank] + LINE +
                                     (size_t)index * gexi_coll_cfg.shm_slot_size);
}

static void slot_reset(struct gexi_coll_slot *s, uint64_t id, gex_Rank_t n)
{
    /* The previous team is gone (refs reached 0): nobody reads this memory. */
    memset((unsigned char *)s + sizeof(s->owner), 0, gexi_coll_cfg.shm_slot_size - sizeof(s->owner));
    s->n = n;
    s->area = area_for(n);
    atomic_store_explicit(&s->refs, n, memory_order_relaxed);
    atomic_store_explicit(&s->owner, id, memory_order_release);
}

int gexi_coll_shm_init(void)
{
    gexi_coll_cfg.use_shm = 0;
    const struct gexi_segment_provider *prov = gexi_get_segment_provider();
    /* Every process must reach the same decision here: nothing below may
     * depend on per-process facts until the exchanges are done. */
    if (gexi_env_forces_reference("coll")) {
        shm_state = "off (GEX_FORCE_REFERENCE)";
        return GASNET_OK;
    }
    if (!prov) {
        shm_state = "off (no PSHM)";
        return GASNET_OK;
    }
    const gex_Rank_t js = gexi_core.jobsize, me = gexi_core.jobrank;
    const size_t bytes = LINE + (size_t)gexi_coll_cfg.shm_slots * gexi_coll_cfg.shm_slot_size;
    char mydesc[GEXI_SEG_DESC_SIZE] = "";
    void *mine = NULL;
    if (gexi_core.nbrhd_size > 1 &&
        prov->alloc(bytes, &mine, &my_handle, mydesc) != 0) {
        mine = NULL;
        my_handle = NULL;
        mydesc[0] = 0;
    }
    regions = gexi_coll_xcalloc(js, sizeof *regions);
    if (mine) {
        struct region_hdr *h = mine;
        h->nslots = gexi_coll_cfg.shm_slots;
        h->slot_size = gexi_coll_cfg.shm_slot_size;
        h->magic = REGION_MAGIC;
        regions[me] = mine;
        if (me == 0 && gexi_core.nbrhd_size == js)
            slot_reset(slot_at(0, 0), GEXI_COLL_PRIMORDIAL_ID, js);
    }
    char (*descs)[GEXI_SEG_DESC_SIZE] = gexi_coll_xcalloc(js, sizeof *descs);
    if (gexi_bootstrap_exchange(mydesc, GEXI_SEG_DESC_SIZE, descs) != GASNET_OK)
        gexi_fatal("libgex-coll: bootstrap exchange failed");
    uint8_t ok = 1;
    for (gex_Rank_t i = 0; i < gexi_core.nbrhd_size; i++) {
        const gex_Rank_t r = gexi_core.nbrhd_jobranks[i];
        if (r == me || !descs[r][0]) continue;
        regions[r] = prov->map_peer(descs[r], bytes);
        if (!regions[r] || ((struct region_hdr *)regions[r])->magic != REGION_MAGIC) ok = 0;
    }
    free(descs);
    uint8_t *oks = gexi_coll_xcalloc(js, 1);
    if (gexi_bootstrap_exchange(&ok, 1, oks) != GASNET_OK)
        gexi_fatal("libgex-coll: bootstrap exchange failed");
    for (gex_Rank_t r = 0; r < js; r++) ok &= oks[r];
    free(oks);
    /* Everyone has mapped: the name can go. */
    if (my_handle) prov->unlink(my_handle);
    if (!ok) {
        shm_state = "off (a process could not map a peer's region)";
        return GASNET_OK;
    }
    gexi_coll_cfg.use_shm = 1;
    shm_state = mine ? "on" : "off (no nbrhd peers)";
    return GASNET_OK;
}

const char *gexi_coll_shm_describe(void) { return shm_state; }

int gexi_coll_shm_eligible(const struct gexi_tm *t)
{
    if (!gexi_coll_cfg.use_shm || t->size < 2 || (t->flags & GEX_FLAG_TM_NO_SCRATCH)) return 0;
    for (gex_Rank_t r = 0; r < t->size; r++) {
        gex_Rank_t jr;
        gex_EP_Index_t idx;
        gexi_tm_peer((gex_TM_t)t, r, &jr, &idx);
        if (!gexi_core.is_nbrhd[jr]) return 0;
    }
    gex_Rank_t leader;
    gex_EP_Index_t idx;
    gexi_tm_peer((gex_TM_t)t, 0, &leader, &idx);
    return regions[leader] != NULL;
}

uint64_t gexi_coll_shm_claim(struct gexi_coll_member *m)
{
    const gex_Rank_t me = gexi_core.jobrank;
    for (unsigned i = 1; i < gexi_coll_cfg.shm_slots; i++) {
        struct gexi_coll_slot *s = slot_at(me, i);
        uint64_t expect = 0;
        if (atomic_load_explicit(&s->owner, memory_order_acquire) != 0) continue;
        if (!atomic_compare_exchange_strong(&s->owner, &expect, m->id)) continue;
        slot_reset(s, m->id, m->tm->size);
        return i + 1;
    }
    if (gexi_coll_cfg.shm_strict)
        gexi_fatal("libgex-coll: no free collective slot among %u (GEX_COLL_SHM_STRICT): "
                   "teams are not being destroyed?", gexi_coll_cfg.shm_slots);
    return 0;
}

void gexi_coll_shm_attach(struct gexi_coll_member *m, uint64_t announced)
{
    m->slot = NULL;
    m->shm_area = 0;
    if (!announced || announced > gexi_coll_cfg.shm_slots) return;
    gex_Rank_t leader;
    gex_EP_Index_t idx;
    gexi_tm_peer((gex_TM_t)m->tm, 0, &leader, &idx);
    m->slot = slot_at(leader, (unsigned)(announced - 1));
    m->shm_area = area_for(m->tm->size);
}

void gexi_coll_shm_release(struct gexi_coll_member *m)
{
    struct gexi_coll_slot *s = m->slot;
    m->slot = NULL;
    if (!s || m->id == GEXI_COLL_PRIMORDIAL_ID) return;
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
        atomic_store_explicit(&s->owner, 0, memory_order_release);
}

int gexi_coll_primordial_shm(struct gexi_coll_member *m)
{
    if (!gexi_coll_cfg.use_shm || gexi_core.nbrhd_size != gexi_core.jobsize ||
        gexi_core.jobsize < 2 || !regions[0])
        return 0;
    gexi_coll_shm_attach(m, 1);
    return 1;
}

/* ---- barrier ---- */
struct shm_bar_op {
    struct gexi_coll_op op;
    struct gexi_coll_slot *s;
    uint64_t b;
    gex_Rank_t next, n;
};

static void shm_bar_advance(struct gexi_coll_op *o, struct gexi_coll_outbox *ob)
{
    struct shm_bar_op *b = (struct shm_bar_op *)o;
    while (b->next < b->n) {
        if (atomic_load_explicit(arrive_of(b->s, b->next), memory_order_acquire) < b->b) return;
        b->next++;
    }
    o->done = 1;
}

static const struct gexi_coll_op_vt shm_bar_vt = { .name = "barrier-shm", .advance = shm_bar_advance };

gex_Event_t gexi_coll_shm_barrier(gex_TM_t tm)
{
    struct gexi_coll_member *m = gexi_coll_member_of(tm);
    const struct gexi_tm *t = gexi_tm_of(tm);
    gexi_coll_next_seq(m);
    const uint64_t b = ++m->shm_bar;
    atomic_store_explicit(arrive_of(m->slot, t->rank), b, memory_order_release);
    struct shm_bar_op probe = { .s = m->slot, .b = b, .n = t->size };
    shm_bar_advance(&probe.op, NULL);
    if (probe.op.done) return GEX_EVENT_INVALID; /* we were the last to arrive */
    struct shm_bar_op *op = gexi_coll_op_alloc(sizeof *op, &shm_bar_vt, tm);
    op->s = m->slot;
    op->b = b;
    op->n = t->size;
    op->next = probe.next;
    return gexi_coll_start_polled(&op->op);
}

/* ---- broadcast and reductions ---- */
enum { K_BCAST, K_REDUCE_ONE, K_REDUCE_ALL };

struct shm_data_op {
    struct gexi_coll_op op;
    struct gexi_coll_slot *s;
    int kind, state;
    gex_Rank_t me, n, root, next;
    uint64_t d, need;                  /* operation number; done[p] needed before writing */
    unsigned p;
    void *dst;
    const void *src;
    size_t bytes, cnt;
    struct gexi_coll_redop r;
};

static void finish(struct shm_data_op *x)
{
    atomic_fetch_add_explicit(&x->s->done[x->p], 1, memory_order_acq_rel);
    x->op.done = 1;
}

static void combine(struct shm_data_op *x)
{
    unsigned char *dst = x->dst;
    if (x->r.commutative) {
        memcpy(dst, data_of(x->s, 0, x->p), x->bytes);
        for (gex_Rank_t i = 1; i < x->n; i++)
            x->r.fn(data_of(x->s, i, x->p), dst, x->cnt, x->r.cdata);
        return;
    }
    /* arg2 = arg1 (+) arg2 with the lower ranks on the left */
    unsigned char *t = gexi_coll_xmalloc(2 * x->bytes), *acc = t, *nxt = t + x->bytes;
    memcpy(acc, data_of(x->s, 0, x->p), x->bytes);
    for (gex_Rank_t i = 1; i < x->n; i++) {
        memcpy(nxt, data_of(x->s, i, x->p), x->bytes);
        x->r.fn(acc, nxt, x->cnt, x->r.cdata);
        unsigned char *sw = acc;
        acc = nxt;
        nxt = sw;
    }
    memcpy(dst, acc, x->bytes);
    free(t);
}

static void shm_data_advance(struct gexi_coll_op *o, struct gexi_coll_outbox *ob)
{
    struct shm_data_op *x = (struct shm_data_op *)o;
    if (x->state == 0) {
        const int writer = x->kind != K_BCAST || x->me == x->root;
        if (writer) {
            if (atomic_load_explicit(&x->s->done[x->p], memory_order_acquire) < x->need) return;
            memcpy(data_of(x->s, x->me, x->p), x->src, x->bytes);
            atomic_store_explicit(stamp_of(x->s, x->me, x->p), x->d, memory_order_release);
            if (x->kind == K_BCAST) {
                if (x->dst != x->src) memcpy(x->dst, x->src, x->bytes);
                finish(x);
                return;
            }
            if (x->kind == K_REDUCE_ONE && x->me != x->root) {
                finish(x);
                return;
            }
        }
        x->state = 1;
    }
    if (x->kind == K_BCAST) {
        if (atomic_load_explicit(stamp_of(x->s, x->root, x->p), memory_order_acquire) != x->d)
            return;
        memcpy(x->dst, data_of(x->s, x->root, x->p), x->bytes);
        finish(x);
        return;
    }
    while (x->next < x->n) {
        if (atomic_load_explicit(stamp_of(x->s, x->next, x->p), memory_order_acquire) != x->d)
            return;
        x->next++;
    }
    combine(x);
    finish(x);
}

static const struct gexi_coll_op_vt shm_data_vt = { .name = "data-shm", .advance = shm_data_advance };

static gex_Event_t start_data(gex_TM_t tm, int kind, gex_Rank_t root, void *dst, const void *src,
                              size_t bytes, const struct gexi_coll_redop *r, size_t cnt)
{
    struct gexi_coll_member *m = gexi_coll_member_of(tm);
    const struct gexi_tm *t = gexi_tm_of(tm);
    gexi_coll_next_seq(m);
    struct shm_data_op *x = gexi_coll_op_alloc(sizeof *x, &shm_data_vt, tm);
    x->s = m->slot;
    x->kind = kind;
    x->me = t->rank;
    x->n = t->size;
    x->root = root;
    x->d = ++m->shm_data;
    x->p = (unsigned)(x->d & 1);
    x->need = (x->d - 1) / 2 * x->n;
    x->dst = dst;
    x->src = src;
    x->bytes = bytes;
    x->cnt = cnt;
    if (r) x->r = *r;
    return gexi_coll_start_polled(&x->op);
}

gex_Event_t gexi_coll_shm_bcast(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                size_t nbytes)
{
    return start_data(tm, K_BCAST, root, dst, src, nbytes, NULL, 0);
}

gex_Event_t gexi_coll_shm_reduce(gex_TM_t tm, gex_Rank_t root, int to_all, void *dst,
                                 const void *src, const struct gexi_coll_redop *r, size_t cnt)
{
    return start_data(tm, to_all ? K_REDUCE_ALL : K_REDUCE_ONE, root, dst, src, r->esz * cnt, r,
                      cnt);
}
