/*
 * gasnet_mk.h: memory kinds (memory kinds spec section 6.3), implemented in
 * libgex-mk.  gex_MK_t, GEX_MK_INVALID and GEX_MK_HOST come from gasnetex.h;
 * this header adds the device classes and the constructor and destructor of
 * per-device kinds, which gex_Segment_Create() then accepts.
 *
 * GASNET_HAVE_MK_CLASS_<CLASS> is 1 when this build supports that device
 * class and undefined otherwise; GASNET_HAVE_MK_CLASS_MULTIPLE is 1 when any
 * class besides host memory is supported.  No device class is supported yet,
 * so all of them stay undefined, and gex_MK_Create() refuses every device
 * class with GASNET_ERR_BAD_ARG, as the spec asks of unsupported classes.
 */
#ifndef GASNET_MK_H
#define GASNET_MK_H

#include <gasnetex.h>

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* #undef GASNET_HAVE_MK_CLASS_CUDA_UVA */
/* #undef GASNET_HAVE_MK_CLASS_HIP */
/* #undef GASNET_HAVE_MK_CLASS_ZE */
/* #undef GASNET_HAVE_MK_CLASS_MULTIPLE */

/* Classes of memory kinds.  All enumerators are defined whether or not this
 * build supports the class.  Values are part of the ABI: append only. */
typedef enum {
    GEX_MK_CLASS_HOST = 0,      /* ordinary host memory, as GEX_MK_HOST */
    GEX_MK_CLASS_CUDA_UVA = 1,  /* CUDA device memory with unified addressing */
    GEX_MK_CLASS_HIP = 2,       /* HIP device memory */
    GEX_MK_CLASS_ZE = 3         /* oneAPI Level Zero device memory [EXPERIMENTAL] */
} gex_MK_Class_t;

/* Tagged union: gex_class selects the member of gex_args that is read.
 * Device handles are type-erased so that no vendor header is needed here. */
typedef struct {
    uint64_t       gex_flags;   /* reserved, must be 0 */
    gex_MK_Class_t gex_class;
    union {
        struct {
            int gex_CUdevice;               /* CUdevice ordinal */
        } gex_class_cuda_uva;
        struct {
            int gex_hipDevice;              /* hipDevice_t ordinal */
        } gex_class_hip;
        struct {
            void    *gex_zeDevice;          /* ze_device_handle_t */
            void    *gex_zeContext;         /* ze_context_handle_t */
            uint32_t gex_zeMemoryOrdinal;
        } gex_class_ze;
        /* Room for the arguments of classes added later without changing
         * the size of this struct (it is caller-allocated). */
        uint64_t gexi_reserved[8];
    } gex_args;
} gex_MK_Create_args_t;

/* Creates a kind for one device (not collective).  flags reserved, must be
 * 0.  Returns GASNET_OK, or GASNET_ERR_BAD_ARG for a class this build does
 * not support, leaving *kind_p untouched on error. */
extern int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client,
                         const gex_MK_Create_args_t *args, gex_Flags_t flags);
/* Destroys a kind created by gex_MK_Create() (not collective).  flags
 * reserved, must be 0. */
extern void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags);

#ifdef __cplusplus
}
#endif

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* GASNET_MK_H */
