/*
 * gasnet1_stubs.c: placeholders for the GASNet-1 initialization calls of
 * gasnet.h, gasnet_init() and gasnet_attach(), so that they link.  Both return
 * error codes, so they report "not implemented" and return
 * GASNET_ERR_RESOURCE.  The issue that builds the GASNet-1 layer over
 * gex_Client_Init (with GEX_FLAG_USES_GASNET1) and gex_Segment_Attach
 * replaces this file.
 */
#include "core_layer.h"
#include <gasnet.h>

int gasnet_init(int *argc, char ***argv)
{
    GEXI_NOT_IMPLEMENTED();
}

int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                  uintptr_t minheapoffset)
{
    GEXI_NOT_IMPLEMENTED();
}
