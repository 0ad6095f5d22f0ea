/*
 * ad_ref.c: the reference implementation of remote atomics over Active
 * Messages (the paper's "AM reference": the operation travels to the
 * target, whose handler performs it with a CPU atomic instruction and
 * replies).  It needs only AM Short request/reply, which every conduit has,
 * and goes through libgex-am's public calls.
 *
 * Request (11 args): target address (2), code = type | opcode | ACQ/REL
 * (1), operand1 (2), operand2 (2), the initiator's result_p (2) and its
 * completion counter (2).  The handler runs the kernel of the type on the
 * word (with the requested fences around it: a release before, so the
 * initiator's earlier writes that reached this process are ordered first,
 * an acquire after), then replies: Short 2 (counter) for a non-fetching op,
 * Short 7 (value, result_p, size, counter) for a fetching one, whose
 * handler stores the value at *result_p before it signals the counter
 * (release), so a thread that sees the operation complete sees the value.
 *
 * The counter is the NB root event's pending count or the thread's NBI
 * (access region) count, pre-loaded with 1.  GEX_FLAG_IMMEDIATE is passed
 * to the request; if the conduit refuses it nothing was sent and the
 * counter is restored: the spec's "no op".
 */
#include "atomics_internal.h"

static inline gex_AM_Arg_t lo32(uint64_t v) { return (gex_AM_Arg_t)(uint32_t)v; }
static inline gex_AM_Arg_t hi32(uint64_t v) { return (gex_AM_Arg_t)(uint32_t)(v >> 32); }
static inline uint64_t join64(gex_AM_Arg_t lo, gex_AM_Arg_t hi)
{
    return (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
}
static inline uint64_t ptr64(const volatile void *p) { return (uint64_t)(uintptr_t)p; }
static inline void *ptr_of(uint64_t v) { return (void *)(uintptr_t)v; }

/* code: bits 0..7 the type's bit index, 8..15 the opcode's bit index,
 * 16: ACQ, 17: REL. */
static inline gex_AM_Arg_t encode(gex_DT_t dt, gex_OP_t op, gex_Flags_t flags)
{
    uint32_t c = (uint32_t)__builtin_ctz(dt) | (uint32_t)__builtin_ctz(op) << 8;
    if (flags & GEX_FLAG_AD_ACQ) c |= 1u << 16;
    if (flags & GEX_FLAG_AD_REL) c |= 1u << 17;
    return (gex_AM_Arg_t)c;
}

union gexi_ad_val gexi_ad_cpu_any(gex_DT_t dt, void *p, gex_OP_t op, union gexi_ad_val o1,
                                  union gexi_ad_val o2, gex_Flags_t flags)
{
    union gexi_ad_val r;
    r.bits = 0;
    gexi_ad_fence_before(flags);
    switch (dt) {
    case GEX_DT_I32: r.I32 = gexi_ad_cpu_I32(p, op, o1.I32, o2.I32); break;
    case GEX_DT_U32: r.U32 = gexi_ad_cpu_U32(p, op, o1.U32, o2.U32); break;
    case GEX_DT_I64: r.I64 = gexi_ad_cpu_I64(p, op, o1.I64, o2.I64); break;
    case GEX_DT_U64: r.U64 = gexi_ad_cpu_U64(p, op, o1.U64, o2.U64); break;
    case GEX_DT_FLT: r.FLT = gexi_ad_cpu_FLT(p, op, o1.FLT, o2.FLT); break;
    default: r.DBL = gexi_ad_cpu_DBL(p, op, o1.DBL, o2.DBL); break;
    }
    gexi_ad_fence_after(flags);
    return r;
}

/* ---- Handlers ---- */

static void h_op(gex_Token_t t, gex_AM_Arg_t alo, gex_AM_Arg_t ahi, gex_AM_Arg_t code,
                 gex_AM_Arg_t x1lo, gex_AM_Arg_t x1hi, gex_AM_Arg_t x2lo, gex_AM_Arg_t x2hi,
                 gex_AM_Arg_t rlo, gex_AM_Arg_t rhi, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    const uint32_t c = (uint32_t)code;
    const gex_DT_t dt = (gex_DT_t)1u << (c & 0xff);
    const gex_OP_t op = (gex_OP_t)1u << ((c >> 8) & 0xff);
    const gex_Flags_t flags = ((c & (1u << 16)) ? GEX_FLAG_AD_ACQ : 0) |
                              ((c & (1u << 17)) ? GEX_FLAG_AD_REL : 0);
    void *addr = ptr_of(join64(alo, ahi));
#ifdef GEX_DEBUG
    /* Second line of the bounds check: inside the bound segment of the EP
     * the request arrived at. */
    const struct gexi_token *tok = gexi_token_of(t);
    const struct gexi_segment *s = tok->ep->segment;
    const uintptr_t a = (uintptr_t)addr, n = gexi_ad_dt_size(dt);
    if (!s || a < (uintptr_t)s->addr || n > s->size || a - (uintptr_t)s->addr > s->size - n)
        gexi_fatal("atomic %s on %s from rank %u: %p is outside endpoint %u's bound segment",
                   gexi_ad_op_name(op), gexi_ad_dt_name(dt), (unsigned)tok->src_jobrank, addr,
                   (unsigned)tok->ep->index);
#endif
    union gexi_ad_val o1, o2;
    o1.bits = join64(x1lo, x1hi);
    o2.bits = join64(x2lo, x2hi);
    struct gexi_segment *ks = gexi_token_of(t)->ep->segment;   /* issue 9: ad_kind.c */
    const union gexi_ad_val r = ks && ks->mk_ops ? gexi_ad_kind_rmw(ks, dt, addr, op, o1, o2, flags)
                                                 : gexi_ad_cpu_any(dt, addr, op, o1, o2, flags);
    if (op & GEXI_AD_OPS_FETCHING)
        gex_AM_ReplyShort7(t, GEXI_AD_H_FETCHED, 0, lo32(r.bits), hi32(r.bits), rlo, rhi,
                           (gex_AM_Arg_t)gexi_ad_dt_size(dt), clo, chi);
    else
        gex_AM_ReplyShort2(t, GEXI_AD_H_DONE, 0, clo, chi);
}

static void h_done(gex_Token_t t, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    (void)t;
    gexi_counter_done(ptr_of(join64(clo, chi)), 1);
}

static void h_fetched(gex_Token_t t, gex_AM_Arg_t vlo, gex_AM_Arg_t vhi, gex_AM_Arg_t rlo,
                      gex_AM_Arg_t rhi, gex_AM_Arg_t size, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    (void)t;
    union gexi_ad_val v;
    v.bits = join64(vlo, vhi);
    void *result_p = ptr_of(join64(rlo, rhi));
    if (size == 4) memcpy(result_p, &v.U32, 4);
    else memcpy(result_p, &v.U64, 8);
    gexi_counter_done(ptr_of(join64(clo, chi)), 1);
}

int gexi_ad_ref_register(void)
{
    gexi_register_internal_handler(GEXI_AD_H_OP, (gex_AM_Fn_t)h_op,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 11, "gexi_ad_op");
    gexi_register_internal_handler(GEXI_AD_H_DONE, (gex_AM_Fn_t)h_done,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, "gexi_ad_done");
    gexi_register_internal_handler(GEXI_AD_H_FETCHED, (gex_AM_Fn_t)h_fetched,
                                   GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 7, "gexi_ad_fetched");
    return GASNET_OK;
}

/* ---- Initiation ---- */

gex_Event_t gexi_ad_remote(struct gexi_ad *a, void *result_p, gex_Rank_t trank,
                           gex_Rank_t jobrank, gex_EP_Index_t ep, void *tgt_addr, gex_OP_t op,
                           const union gexi_ad_val *o1, const union gexi_ad_val *o2,
                           gex_Flags_t flags, enum gexi_ad_sync sync)
{
    if (a->impl == GEXI_AD_CONDUIT)
        return gexi_ad_conduit_op(a, result_p, jobrank, ep, tgt_addr, op, o1, o2, flags, sync);
    return gexi_ad_ref_remote(a, result_p, trank, tgt_addr, op, o1, o2, flags, sync);
}

gex_Event_t gexi_ad_ref_remote(struct gexi_ad *a, void *result_p, gex_Rank_t trank,
                               void *tgt_addr, gex_OP_t op, const union gexi_ad_val *o1,
                               const union gexi_ad_val *o2, gex_Flags_t flags,
                               enum gexi_ad_sync sync)
{
    _Atomic uint32_t *ctr;
    struct gexi_event *ev = gexi_ad_counter_setup(sync, gexi_ad_category(op), &ctr);
    /* REL: our earlier accesses are ordered before the request is visible. */
    gexi_ad_fence_before(flags);
    const uint64_t ad = ptr64(tgt_addr), r = ptr64(result_p), c = ptr64(ctr);
    if (gex_AM_RequestShort11(a->tm, trank, GEXI_AD_H_OP, flags & GEX_FLAG_IMMEDIATE,
                              lo32(ad), hi32(ad), encode(a->dt, op, flags), lo32(o1->bits),
                              hi32(o1->bits), lo32(o2->bits), hi32(o2->bits), lo32(r), hi32(r),
                              lo32(c), hi32(c)))
        return gexi_ad_counter_undo(sync, ev, ctr);
    return ev ? gexi_event_handle(ev) : GEX_EVENT_INVALID;
}
