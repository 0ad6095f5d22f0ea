/*
 * ad_kind.c: remote atomics on device segments (memory kinds, issue 9;
 * docs/memory-kinds.md "Atomics").
 *
 * The spec lets a team contain endpoints bound to device segments
 * (gex_TM_Create with GEX_FLAG_TM_NO_SCRATCH, seed 003 section 5.3) and an
 * atomic domain be created over any team; a target address is then a
 * device address when the target endpoint's bound segment is a device
 * segment (as for RMA, Extended API NOTE 4).  Such a word faults on load
 * and store, so neither a CPU atomic nor a NIC atomic reaches it.
 *
 * Every operation whose target endpoint has a device segment therefore
 * takes the AM reference path (ad_ref.c), whatever the domain's
 * implementation: the target's handler, seeing a device segment, performs
 * the read-modify-write here, through the kind's copy functions (copy_out
 * the word, run the type's CPU kernel on the copy, copy_in the result)
 * under one process-wide lock.  An operation on this process's own device
 * word runs the same function directly.  Every access to a device word
 * goes through that lock in its owner process, so operations are atomic
 * with respect to each other (the spec's guarantee is per domain; this is
 * stronger).  The choice is per operation, not per domain, so a segment
 * bound and published after gex_AD_Create is served too, and the rest of
 * a conduit domain keeps its network atomics (they never touch a device
 * word, so the two mechanisms never meet on one location).
 *
 * result_p is host memory (AD calls have no local-address rule like RMA's
 * NOTE 3).  Cost for jobs without device segments: one load and a
 * predictable branch per operation (gexi_mk_any_device()).
 */
#include "atomics_internal.h"
#include <pthread.h>

static pthread_mutex_t kind_lock = PTHREAD_MUTEX_INITIALIZER;

union gexi_ad_val gexi_ad_kind_rmw(struct gexi_segment *s, gex_DT_t dt, void *addr, gex_OP_t op,
                                   union gexi_ad_val o1, union gexi_ad_val o2, gex_Flags_t flags)
{
    const size_t n = gexi_ad_dt_size(dt);
    const uintptr_t a = (uintptr_t)addr, b = (uintptr_t)s->addr;
    if (a < b || n > s->size || a - b > s->size - n)   /* every build: a file or device */
        gexi_fatal("atomic %s on %s: %p is outside the %s device segment [%p, %p) it must lie "
                   "in", gexi_ad_op_name(op), gexi_ad_dt_name(dt), addr, s->mk_ops->class_name,
                   s->addr, (void *)(b + s->size));
    union gexi_ad_val word;
    word.bits = 0;
    pthread_mutex_lock(&kind_lock);
    int rc = s->mk_ops->copy_out(s, &word, addr, n);
    union gexi_ad_val r = { 0 };
    if (!rc) {
        r = gexi_ad_cpu_any(dt, &word, op, o1, o2, flags);
        if (op != GEX_OP_GET) rc = s->mk_ops->copy_in(s, addr, &word, n);
    }
    pthread_mutex_unlock(&kind_lock);
    if (rc)
        gexi_fatal("atomic %s on %s at %p of a %s segment: the kind's copy failed: %s",
                   gexi_ad_op_name(op), gexi_ad_dt_name(dt), addr, s->mk_ops->class_name,
                   gasnet_ErrorDesc(rc));
    return r;
}

gex_Event_t gexi_ad_kind_op(struct gexi_ad *a, void *result_p, gex_Rank_t trank,
                            gex_Rank_t jobrank, gex_EP_Index_t ep, void *tgt_addr, gex_OP_t op,
                            const union gexi_ad_val *o1, const union gexi_ad_val *o2,
                            gex_Flags_t flags, enum gexi_ad_sync sync)
{
    if (jobrank != gexi_core.jobrank)
        return gexi_ad_ref_remote(a, result_p, trank, tgt_addr, op, o1, o2, flags, sync);
    (void)gexi_poll();   /* as the reference direct path: peers' operations progress */
    const union gexi_ad_val r =
        gexi_ad_kind_rmw(gexi_mk_local_device_seg(ep), a->dt, tgt_addr, op, *o1, *o2, flags);
    if (op & GEXI_AD_OPS_FETCHING) memcpy(result_p, &r, a->dt_size);
    return GEX_EVENT_INVALID;
}
