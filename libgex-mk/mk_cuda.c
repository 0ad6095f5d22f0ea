/*
 * mk_cuda.c: GEX_MK_CLASS_CUDA_UVA (memory kinds spec 6.5), against the
 * CUDA driver API loaded with dlopen("libcuda.so.1") by gex_MK_Create, so
 * this build runs where no CUDA driver exists (gex_MK_Create then returns
 * GASNET_ERR_RESOURCE).  Compiled only when configure found cuda.h.
 *
 * A kind holds the device's primary context (retained at creation, as the
 * spec asks); segments are cuMemAlloc'ed in it (GEX-allocated) or are the
 * client's device memory in that context (client-allocated: the address is
 * a device pointer, used as is).  Copies are cuMemcpyHtoD/DtoH with the
 * context pushed.  Untested here: our machines have no GPU.
 */
#include "mk_internal.h"
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#define GEXI_STR_(x) #x
#define GEXI_STR(x) GEXI_STR_(x)   /* expands cuda.h's _v2 renames first */

static struct {
    void *dl;
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*PrimaryCtxRelease)(CUdevice);
    CUresult (*CtxPushCurrent)(CUcontext);
    CUresult (*CtxPopCurrent)(CUcontext *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
} cu;
static pthread_mutex_t cu_lock = PTHREAD_MUTEX_INITIALIZER;

static int cu_load(void)
{
    static const char *const libs[] = { "libcuda.so.1", "libcuda.so", NULL };
    if (cu.dl) return 1;
    void *dl = gexi_mk_dlopen_first(libs);
    if (!dl) return 0;
#define LOAD(field, sym) if (!(*(void **)&cu.field = dlsym(dl, GEXI_STR(sym)))) return 0
    LOAD(Init, cuInit);
    LOAD(DeviceGetCount, cuDeviceGetCount);
    LOAD(DeviceGet, cuDeviceGet);
    LOAD(DeviceGetAttribute, cuDeviceGetAttribute);
    LOAD(PrimaryCtxRetain, cuDevicePrimaryCtxRetain);
    LOAD(PrimaryCtxRelease, cuDevicePrimaryCtxRelease);
    LOAD(CtxPushCurrent, cuCtxPushCurrent);
    LOAD(CtxPopCurrent, cuCtxPopCurrent);
    LOAD(MemAlloc, cuMemAlloc);
    LOAD(MemFree, cuMemFree);
    LOAD(MemcpyHtoD, cuMemcpyHtoD);
    LOAD(MemcpyDtoH, cuMemcpyDtoH);
#undef LOAD
    cu.dl = dl;
    return 1;
}

struct cuda_kind { CUdevice dev; CUcontext ctx; };

static int cuda_create(struct gexi_mk *k, const gex_MK_Create_args_t *args)
{
    static const char *const nodes[] = { "/dev/nvidiactl", NULL };
    const int ordinal = args->gex_args.gex_class_cuda_uva.gex_CUdevice;
    if (ordinal < 0) GEXI_MK_CREATE_ERR(BAD_ARG, "CUDA_UVA: gex_CUdevice %d is negative", ordinal);
    if (!gexi_mk_device_node_present(nodes))
        GEXI_MK_CREATE_ERR(RESOURCE, "CUDA_UVA: no NVIDIA GPU driver on this machine "
                           "(/dev/nvidiactl is missing)");
    pthread_mutex_lock(&cu_lock);
    int ok = cu_load();
    pthread_mutex_unlock(&cu_lock);
    if (!ok) GEXI_MK_CREATE_ERR(RESOURCE, "CUDA_UVA: cannot load the CUDA driver (libcuda.so.1)");
    int n = 0, uva = 0;
    CUdevice dev;
    if (cu.Init(0) != CUDA_SUCCESS || cu.DeviceGetCount(&n) != CUDA_SUCCESS || n == 0)
        GEXI_MK_CREATE_ERR(RESOURCE, "CUDA_UVA: the CUDA driver finds no device");
    if (ordinal >= n)
        GEXI_MK_CREATE_ERR(BAD_ARG, "CUDA_UVA: gex_CUdevice %d, but there are %d devices",
                           ordinal, n);
    if (cu.DeviceGet(&dev, ordinal) != CUDA_SUCCESS ||
        cu.DeviceGetAttribute(&uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev) != CUDA_SUCCESS)
        GEXI_MK_CREATE_ERR(RESOURCE, "CUDA_UVA: cannot query device %d", ordinal);
    if (!uva)
        GEXI_MK_CREATE_ERR(BAD_ARG, "CUDA_UVA: device %d lacks unified addressing (spec 6.5)",
                           ordinal);
    struct cuda_kind *ck = calloc(1, sizeof *ck);
    if (!ck) GEXI_MK_CREATE_ERR(RESOURCE, "out of memory");
    ck->dev = dev;
    if (cu.PrimaryCtxRetain(&ck->ctx, dev) != CUDA_SUCCESS) {
        free(ck);
        GEXI_MK_CREATE_ERR(RESOURCE, "CUDA_UVA: cannot retain device %d's primary context",
                           ordinal);
    }
    k->state = ck;
    return GASNET_OK;
}

static void cuda_destroy(struct gexi_mk *k)
{
    struct cuda_kind *ck = k->state;
    cu.PrimaryCtxRelease(ck->dev);
    free(ck);
}

static int cuda_seg_create(struct gexi_mk *k, struct gexi_segment *s, void *address,
                           uintptr_t length)
{
    struct cuda_kind *ck = k->state;
    if (!address) {
        CUdeviceptr p = 0;
        CUcontext old;
        cu.CtxPushCurrent(ck->ctx);
        CUresult r = cu.MemAlloc(&p, length);
        cu.CtxPopCurrent(&old);
        if (r != CUDA_SUCCESS)
            GEXI_MK_SEG_ERR(RESOURCE, "CUDA_UVA: cuMemAlloc of %zu bytes failed (%d)",
                            (size_t)length, (int)r);
        address = (void *)(uintptr_t)p;
        s->mk_state = (void *)1;        /* ours to free */
    }
    s->addr = address;
    s->size = length;
    return GASNET_OK;
}

static void cuda_seg_destroy(struct gexi_mk *k, struct gexi_segment *s)
{
    struct cuda_kind *ck = k->state;
    if (s->mk_state) {
        CUcontext old;
        cu.CtxPushCurrent(ck->ctx);
        cu.MemFree((CUdeviceptr)(uintptr_t)s->addr);
        cu.CtxPopCurrent(&old);
    }
}

static struct cuda_kind *kind_of(struct gexi_segment *s)
{
    return ((struct gexi_mk *)s->kind)->state;
}

static int cuda_copy_in(struct gexi_segment *s, void *seg_addr, const void *host, size_t n)
{
    CUcontext old;
    cu.CtxPushCurrent(kind_of(s)->ctx);
    CUresult r = cu.MemcpyHtoD((CUdeviceptr)(uintptr_t)seg_addr, host, n);
    cu.CtxPopCurrent(&old);
    return r == CUDA_SUCCESS ? GASNET_OK : GASNET_ERR_RESOURCE;
}

static int cuda_copy_out(struct gexi_segment *s, void *host, const void *seg_addr, size_t n)
{
    CUcontext old;
    cu.CtxPushCurrent(kind_of(s)->ctx);
    CUresult r = cu.MemcpyDtoH(host, (CUdeviceptr)(uintptr_t)seg_addr, n);
    cu.CtxPopCurrent(&old);
    return r == CUDA_SUCCESS ? GASNET_OK : GASNET_ERR_RESOURCE;
}

static const struct gexi_mk_ops cuda_ops = {
    .struct_size = sizeof cuda_ops, .class_name = "CUDA_UVA",
    .copy_in = cuda_copy_in, .copy_out = cuda_copy_out,
};

const struct gexi_mk_class gexi_mk_class_cuda = {
    .name = "CUDA_UVA", .create = cuda_create, .destroy = cuda_destroy,
    .seg_create = cuda_seg_create, .seg_destroy = cuda_seg_destroy, .ops = &cuda_ops,
};
