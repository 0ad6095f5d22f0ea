/*
 * mk_internal.h: libgex-mk's one internal header (memory kinds, issue 9;
 * spec: memory kinds section 6, GASNet-EX.txt "Memory Kinds").
 *
 * A kind (gex_MK_t) is a struct gexi_mk made by gex_MK_Create for one
 * "device" of a class.  Each class (FILE, CUDA_UVA, HIP, ZE) is a table of
 * functions (struct gexi_mk_class) in its own file: open the device, give a
 * segment an address range (GEX-allocated or the client's), free it, and
 * the two copy functions the layers use to move bytes (struct gexi_mk_ops,
 * core_layer.h): libgex-rma (rma_kind.c, which VIS goes through), libgex-am
 * (am_kind.c: AM Long payloads) and libgex-atomics (ad_kind.c).  mk_api.c holds the public calls and
 * registers the segment hooks with core from a constructor, so
 * gex_Segment_Create accepts kinds whenever this library is loaded.
 *
 * Device classes (CUDA_UVA, HIP, ZE) are compiled when configure finds the
 * vendor headers (GEXI_MK_HAVE_<CLASS>); their driver library is dlopen()ed
 * by gex_MK_Create, so a build with them runs on machines without GPUs and
 * reports GASNET_ERR_RESOURCE there.  FILE (a GEX extension) is always
 * built: a segment backed by a file, reached only through pread/pwrite.
 */
#ifndef GEX_MK_INTERNAL_H
#define GEX_MK_INTERNAL_H

#ifndef GEXI_BUILDING_GEX
#error "mk_internal.h is internal to GEX"
#endif
#include "core_layer.h"
#include <gasnet_mk.h>

#define GEXI_MAGIC_MK      0x4d4b5f5fu  /* "MK__" */
#define GEXI_MAGIC_MK_DEAD 0x4d4b4444u  /* destroyed: kept so later use is diagnosed */

struct gexi_mk;

/* One class of memory kinds.  Every function reports its own error message
 * (GEXI_RETURN_ERR) and returns a GASNET_ERR_* code or GASNET_OK. */
struct gexi_mk_class {
    const char *name;                        /* "FILE", "CUDA_UVA", ... */
    /* Opens the device named by args (class member already selected). */
    int (*create)(struct gexi_mk *k, const gex_MK_Create_args_t *args);
    void (*destroy)(struct gexi_mk *k);
    /* GEX-allocated (address NULL) or client-allocated segment: sets
     * s->addr, s->size and s->mk_state. */
    int (*seg_create)(struct gexi_mk *k, struct gexi_segment *s, void *address, uintptr_t length);
    void (*seg_destroy)(struct gexi_mk *k, struct gexi_segment *s);
    const struct gexi_mk_ops *ops;
};

struct gexi_mk {
    uint32_t magic;
    gex_MK_Class_t cls;
    const struct gexi_mk_class *klass;
    struct gexi_client *client;
    unsigned segments;                       /* live segments of this kind (under mk lock) */
    void *state;                             /* the class's per-kind state */
    struct gexi_mk *next;                    /* every kind ever made (never freed) */
};

/* GEXI_RETURN_ERR on behalf of public call `func` (class code runs inside
 * gex_MK_Create or gex_Segment_Create, whose name the message must carry). */
#define GEXI_MK_ERR(func, code, ...) do { \
        if (gexi_verbose_errors()) \
            gexi_report_err(func, GASNET_ERR_##code, __FILE__, __LINE__, __VA_ARGS__); \
        return GASNET_ERR_##code; \
    } while (0)
#define GEXI_MK_CREATE_ERR(code, ...) GEXI_MK_ERR("gex_MK_Create", code, __VA_ARGS__)
#define GEXI_MK_SEG_ERR(code, ...)    GEXI_MK_ERR("gex_Segment_Create", code, __VA_ARGS__)

extern const struct gexi_mk_class gexi_mk_class_file;
#ifdef GEXI_MK_HAVE_CUDA
extern const struct gexi_mk_class gexi_mk_class_cuda;
#endif
#ifdef GEXI_MK_HAVE_HIP
extern const struct gexi_mk_class gexi_mk_class_hip;
#endif
#ifdef GEXI_MK_HAVE_ZE
extern const struct gexi_mk_class gexi_mk_class_ze;
#endif

/* Device classes: "no such device here" check before any driver is loaded
 * (a device node such as /dev/nvidiactl).  Returns 1 if one exists;
 * GEX_MK_ASSUME_DEVICE=1 skips the check (for trying the dlopen path). */
int gexi_mk_device_node_present(const char *const *paths);
/* dlopen() the first library of `names` that loads, or NULL. */
void *gexi_mk_dlopen_first(const char *const *names);

#endif /* GEX_MK_INTERNAL_H */
