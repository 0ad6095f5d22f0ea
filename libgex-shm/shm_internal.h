/*
 * shm_internal.h: libgex-shm's internal interface.  libgex-shm provides
 * PSHM: segment memory that every process of the nbrhd can map, registered
 * with core as its segment provider when this library loads.
 */
#ifndef GEX_SHM_INTERNAL_H
#define GEX_SHM_INTERNAL_H

#ifndef GEXI_BUILDING_GEX
#error "shm_internal.h is internal to GEX"
#endif
#include "core_layer.h"

/* A provider segment: the POSIX shm name is kept until every peer mapped it. */
struct gexi_shm_seg {
    char name[GEXI_SEG_DESC_SIZE];
    int unlinked;
};

#endif /* GEX_SHM_INTERNAL_H */
