/*
 * ad_offload.c: domains whose whole (type, ops) set the conduit performs in
 * the network (conduit ABI 1.2: amo_query / amo, GEX_CONDUIT_CAP_AMO; the
 * choice is ad_select.c's).  Every operation of such a domain goes through
 * ops->amo, self-targeted ones included: network atomics need not be
 * coherent with the CPU's, so a conduit domain never uses a CPU atomic.
 *
 * The conduit signals completion by decrementing cpl.rc once (release),
 * after it has stored a fetched value at *result_p (the client's output
 * location itself: no bounce buffer).  cpl.rc is the NB root event's
 * pending count or the thread's NBI (access region) count, pre-loaded with
 * 1; cpl.lc is unused.  The operands are handed over by address and read
 * by the conduit before amo returns.
 *
 * A self-targeted operation polls now and then first (gexi_ad_direct_poll),
 * as the reference path's direct ones do.
 *
 * REL/ACQ: a release fence before the injection orders the caller's earlier
 * accesses before the operation; the acquire side is the acquire load of
 * the counter in gex_Event_Wait / gex_NBI_Wait (the conduit signals it with
 * a release once the operation has been performed).
 */
#include "atomics_internal.h"

gex_Event_t gexi_ad_conduit_op(struct gexi_ad *a, void *result_p, gex_Rank_t jobrank,
                               gex_EP_Index_t ep, void *tgt_addr, gex_OP_t op,
                               const union gexi_ad_val *o1, const union gexi_ad_val *o2,
                               gex_Flags_t flags, enum gexi_ad_sync sync)
{
    _Atomic uint32_t *ctr;
    struct gexi_event *ev = gexi_ad_counter_setup(sync, gexi_ad_category(op), &ctr);
    const struct gex_conduit_cpl cpl = { .lc = NULL, .rc = ctr };
    const void *x1 = (op & GEXI_AD_OPS_NO_OPERAND) ? NULL : (const void *)o1;
    const void *x2 = (op & GEXI_AD_OPS_TWO_OPERANDS) ? (const void *)o2 : NULL;
    /* Self-targeted: the conduit may complete it at once (UCX's self
     * transport), and a rank spinning on its own word must still run the AM
     * handlers of peers' operations on it (a put that travels as an AM:
     * GEX_RMA_PUT_AM_MAX), as on the reference path. */
    if (jobrank == gexi_core.jobrank) gexi_ad_direct_poll();
    gexi_ad_fence_before(flags);
    const int rc = gexi_core.ops->amo(gexi_core.conduit, gexi_tm_local_ep(a->tm)->index, jobrank,
                                      ep, tgt_addr, a->dt, op, x1, x2,
                                      (op & GEXI_AD_OPS_FETCHING) ? result_p : NULL, &cpl,
                                      flags & (GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_ACQ |
                                               GEX_FLAG_AD_REL));
    if (GEXI_LIKELY(rc == GEX_CONDUIT_OK)) return ev ? gexi_event_handle(ev) : GEX_EVENT_INVALID;
    if (rc == GEX_CONDUIT_EAGAIN && (flags & GEX_FLAG_IMMEDIATE))
        return gexi_ad_counter_undo(sync, ev, ctr);
    /* Anything else cannot be retried with CPU atomics (that would mix the
     * two in one domain): the target is outside every published segment or
     * the conduit failed. */
    gexi_fatal("gex_AD_Op: the conduit's network atomic %s on %s at jobrank %u, endpoint %u, "
               "address %p failed (conduit code %d)%s", gexi_ad_op_name(op),
               gexi_ad_dt_name(a->dt), (unsigned)jobrank, (unsigned)ep, tgt_addr, rc,
               rc == GEX_CONDUIT_EINVAL ? ": the target is in no published bound segment" : "");
}
