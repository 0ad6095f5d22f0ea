/*
 * coll_stubs.c: placeholders for what libgex-coll will provide: team
 * construction and destruction and gex_Coll_BarrierNB (declared by
 * gasnetex.h), the collectives of gasnet_coll.h, and the GASNet-1 barrier of
 * gasnet.h.  The legacy barrier's wait/try/barrier return error codes, so they
 * report "not implemented" and return GASNET_ERR_RESOURCE; every other call
 * ends the job, because no return value could look like success (the int of
 * gex_TM_Destroy and gasnet_barrier_result is not an error code).  The issue
 * that implements libgex-coll replaces this file.
 */
#include "core_layer.h"
#include <gasnet.h>
#include <gasnet_coll.h>

/* ---- Teams ---- */
size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                    void *scratch_addr, size_t scratch_size, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                     gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                     size_t scratch_size, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

size_t gex_TM_Dup(gex_TM_t *new_tm_p, gex_TM_t orig_tm, gex_Addr_t scratch_addr,
                  size_t scratch_len, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

/* ---- Collectives ---- */
gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                   gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

/* ---- GASNet-1 barrier ---- */
void gasnet_barrier_notify(int id, int flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}

int gasnet_barrier_wait(int id, int flags)
{
    GEXI_NOT_IMPLEMENTED();
}

int gasnet_barrier_try(int id, int flags)
{
    GEXI_NOT_IMPLEMENTED();
}

int gasnet_barrier(int id, int flags)
{
    GEXI_NOT_IMPLEMENTED();
}

int gasnet_barrier_result(int *id)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}
