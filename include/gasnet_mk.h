/*
 * gasnet_mk.h: memory kinds (memory kinds spec section 6.3), implemented in
 * libgex-mk.  gex_MK_t, GEX_MK_INVALID and GEX_MK_HOST come from gasnetex.h;
 * this header adds the classes and the constructor and destructor of
 * per-device kinds, which gex_Segment_Create() then accepts.
 *
 * GASNET_HAVE_MK_CLASS_<CLASS> is 1 when this build supports that class and
 * undefined otherwise; GASNET_HAVE_MK_CLASS_MULTIPLE is 1 when any class
 * besides host memory is supported.  They are written by configure into
 * gasnet_config.h (included by gasnetex.h, as the spec requires):
 * CUDA_UVA, HIP and ZE are defined when configure found that vendor's
 * headers (the driver itself is loaded at gex_MK_Create time, so without a
 * device there gex_MK_Create returns GASNET_ERR_RESOURCE); FILE, a GEX
 * extension, is always defined, and so therefore is MULTIPLE.
 * See docs/memory-kinds.md.
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

/* Classes of memory kinds.  All enumerators are defined whether or not this
 * build supports the class.  Values are part of the ABI: append only. */
typedef enum {
    GEX_MK_CLASS_HOST = 0,      /* ordinary host memory, as GEX_MK_HOST */
    GEX_MK_CLASS_CUDA_UVA = 1,  /* CUDA device memory with unified addressing */
    GEX_MK_CLASS_HIP = 2,       /* HIP device memory */
    GEX_MK_CLASS_ZE = 3,        /* oneAPI Level Zero device memory [EXPERIMENTAL] */
    /* GEX extension (not in the spec): memory in a file, reached only
     * through pread/pwrite, never by load/store (docs/memory-kinds.md). */
    GEX_MK_CLASS_FILE = 1000
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
        struct {                            /* GEX extension: GEX_MK_CLASS_FILE */
            int      gex_fd;                /* open O_RDWR, seekable */
            uint64_t gex_offset;            /* file offset of the first segment */
        } gex_class_file;
        /* Room for the arguments of classes added later without changing
         * the size of this struct (it is caller-allocated). */
        uint64_t gexi_reserved[8];
    } gex_args;
} gex_MK_Create_args_t;

/* Creates a kind for one device (not collective).  flags and
 * args->gex_flags reserved, must be 0.  Returns GASNET_OK;
 * GASNET_ERR_BAD_ARG for bad arguments or a class this build does not
 * support; GASNET_ERR_RESOURCE when the class's driver or device is absent
 * or cannot be opened.  *kind_p is untouched on error.  Class HOST yields
 * GEX_MK_HOST. */
extern int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client,
                         const gex_MK_Create_args_t *args, gex_Flags_t flags);
/* Destroys a kind created by gex_MK_Create() (not collective).  flags
 * reserved, must be 0.  Every segment created with the kind must have been
 * destroyed first (otherwise the call is refused; debug builds end the
 * job).  gex_MK_Destroy(GEX_MK_HOST, 0) does nothing. */
extern void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags);

#ifdef __cplusplus
}
#endif

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* GASNET_MK_H */
