/*
 * mk_hip.c: GEX_MK_CLASS_HIP, against the HIP runtime loaded with
 * dlopen("libamdhip64.so*") by gex_MK_Create, so this build runs where no
 * ROCm stack exists (gex_MK_Create then returns GASNET_ERR_RESOURCE).
 * Compiled only when configure found hip/hip_runtime_api.h.
 *
 * A kind names a device ordinal; GEX-allocated segments come from
 * hipMalloc on it, client-allocated ones are the client's device pointers.
 * Copies are hipMemcpy with the kind's device made current for the call
 * (and the thread's previous device restored).  Untested here: our
 * machines have no GPU.
 */
#include "mk_internal.h"
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdlib.h>

static struct {
    void *dl;
    hipError_t (*GetDeviceCount)(int *);
    hipError_t (*GetDevice)(int *);
    hipError_t (*SetDevice)(int);
    hipError_t (*Malloc)(void **, size_t);
    hipError_t (*Free)(void *);
    hipError_t (*Memcpy)(void *, const void *, size_t, hipMemcpyKind);
} hip;
static pthread_mutex_t hip_lock = PTHREAD_MUTEX_INITIALIZER;

static int hip_load(void)
{
    static const char *const libs[] = { "libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5",
                                        NULL };
    if (hip.dl) return 1;
    void *dl = gexi_mk_dlopen_first(libs);
    if (!dl) return 0;
#define LOAD(field, sym) if (!(*(void **)&hip.field = dlsym(dl, #sym))) return 0
    LOAD(GetDeviceCount, hipGetDeviceCount);
    LOAD(GetDevice, hipGetDevice);
    LOAD(SetDevice, hipSetDevice);
    LOAD(Malloc, hipMalloc);
    LOAD(Free, hipFree);
    LOAD(Memcpy, hipMemcpy);
#undef LOAD
    hip.dl = dl;
    return 1;
}

static int hip_create(struct gexi_mk *k, const gex_MK_Create_args_t *args)
{
    static const char *const nodes[] = { "/dev/kfd", NULL };
    const int ordinal = args->gex_args.gex_class_hip.gex_hipDevice;
    int n = 0;
    if (ordinal < 0) GEXI_MK_CREATE_ERR(BAD_ARG, "HIP: gex_hipDevice %d is negative", ordinal);
    if (!gexi_mk_device_node_present(nodes))
        GEXI_MK_CREATE_ERR(RESOURCE, "HIP: no AMD GPU driver on this machine (/dev/kfd is missing)");
    pthread_mutex_lock(&hip_lock);
    int ok = hip_load();
    pthread_mutex_unlock(&hip_lock);
    if (!ok) GEXI_MK_CREATE_ERR(RESOURCE, "HIP: cannot load the HIP runtime (libamdhip64.so)");
    if (hip.GetDeviceCount(&n) != hipSuccess || n == 0)
        GEXI_MK_CREATE_ERR(RESOURCE, "HIP: the HIP runtime finds no device");
    if (ordinal >= n)
        GEXI_MK_CREATE_ERR(BAD_ARG, "HIP: gex_hipDevice %d, but there are %d devices", ordinal, n);
    k->state = (void *)(intptr_t)(ordinal + 1);
    return GASNET_OK;
}

static void hip_destroy(struct gexi_mk *k) { k->state = NULL; }

static int ordinal_of(const struct gexi_mk *k) { return (int)(intptr_t)k->state - 1; }

/* The kind's device is made current on this thread around each HIP call
 * (device_enter returns the thread's previous device for device_leave). */
static int device_enter(const struct gexi_mk *k)
{
    int old = -1;
    hip.GetDevice(&old);
    hip.SetDevice(ordinal_of(k));
    return old;
}
static void device_leave(int old)
{
    if (old >= 0) hip.SetDevice(old);
}

static int hip_seg_create(struct gexi_mk *k, struct gexi_segment *s, void *address,
                          uintptr_t length)
{
    if (!address) {
        void *p = NULL;
        int old = device_enter(k);
        hipError_t r = hip.Malloc(&p, length);
        device_leave(old);
        if (r != hipSuccess)
            GEXI_MK_SEG_ERR(RESOURCE, "HIP: hipMalloc of %zu bytes failed (%d)", (size_t)length,
                            (int)r);
        address = p;
        s->mk_state = (void *)1;        /* ours to free */
    }
    s->addr = address;
    s->size = length;
    return GASNET_OK;
}

static void hip_seg_destroy(struct gexi_mk *k, struct gexi_segment *s)
{
    if (!s->mk_state) return;
    int old = device_enter(k);
    hip.Free(s->addr);
    device_leave(old);
}

static int hip_copy_in(struct gexi_segment *s, void *seg_addr, const void *host, size_t n)
{
    const struct gexi_mk *k = (const struct gexi_mk *)s->kind;
    int old = device_enter(k);
    hipError_t r = hip.Memcpy(seg_addr, host, n, hipMemcpyHostToDevice);
    device_leave(old);
    return r == hipSuccess ? GASNET_OK : GASNET_ERR_RESOURCE;
}

static int hip_copy_out(struct gexi_segment *s, void *host, const void *seg_addr, size_t n)
{
    const struct gexi_mk *k = (const struct gexi_mk *)s->kind;
    int old = device_enter(k);
    hipError_t r = hip.Memcpy(host, seg_addr, n, hipMemcpyDeviceToHost);
    device_leave(old);
    return r == hipSuccess ? GASNET_OK : GASNET_ERR_RESOURCE;
}

static const struct gexi_mk_ops hip_ops = {
    .struct_size = sizeof hip_ops, .class_name = "HIP",
    .copy_in = hip_copy_in, .copy_out = hip_copy_out,
};

const struct gexi_mk_class gexi_mk_class_hip = {
    .name = "HIP", .create = hip_create, .destroy = hip_destroy,
    .seg_create = hip_seg_create, .seg_destroy = hip_seg_destroy, .ops = &hip_ops,
};
