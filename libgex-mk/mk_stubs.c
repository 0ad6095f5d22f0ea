/*
 * mk_stubs.c: placeholders for the memory kinds API of gasnet_mk.h (memory
 * kinds spec section 6.3).  No device class is compiled in, so gex_MK_Create
 * already gives the documented answer for every device class,
 * GASNET_ERR_BAD_ARG; creating a host-class kind reports "not implemented"
 * and returns GASNET_ERR_RESOURCE.  gex_MK_Destroy cannot fail visibly and
 * ends the job.  The issue that implements libgex-mk replaces this file.
 */
#include "core_layer.h"
#include <gasnet_mk.h>

int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client, const gex_MK_Create_args_t *args,
                  gex_Flags_t flags)
{
    if (kind_p == NULL || args == NULL)
        GEXI_RETURN_ERR(BAD_ARG, "kind_p %p, args %p: both are required",
                        (void *)kind_p, (const void *)args);
    switch (args->gex_class) {
    case GEX_MK_CLASS_CUDA_UVA:
    case GEX_MK_CLASS_HIP:
    case GEX_MK_CLASS_ZE:
        /* memory kinds implementation status: unsupported class -> BAD_ARG */
        GEXI_RETURN_ERR(BAD_ARG, "memory kind class %d is not supported by this build",
                        (int)args->gex_class);
    case GEX_MK_CLASS_HOST:
        break;
    default:
        GEXI_RETURN_ERR(BAD_ARG, "unknown memory kind class %d", (int)args->gex_class);
    }
    GEXI_NOT_IMPLEMENTED();
}

void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags)
{
    GEXI_NOT_IMPLEMENTED_FATAL();
}
