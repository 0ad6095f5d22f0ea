/*
 * mk_ze.c: GEX_MK_CLASS_ZE (oneAPI Level Zero, EXPERIMENTAL in the spec),
 * against the loader dlopen()ed by gex_MK_Create (libze_loader.so.1), so
 * this build runs where no Level Zero driver exists (gex_MK_Create then
 * returns GASNET_ERR_RESOURCE).  Compiled only when configure found
 * level_zero/ze_api.h.
 *
 * The client passes its device and context handles and a memory ordinal.
 * GEX-allocated segments come from zeMemAllocDevice; copies run on one
 * synchronous immediate command list per kind (serialized by a mutex:
 * command lists are not thread-safe).  Untested here: no GPU.
 */
#include "mk_internal.h"
#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <pthread.h>
#include <stdlib.h>

static struct {
    void *dl;
    ze_result_t (*Init)(ze_init_flags_t);
    ze_result_t (*MemAllocDevice)(ze_context_handle_t, const ze_device_mem_alloc_desc_t *, size_t,
                                  size_t, ze_device_handle_t, void **);
    ze_result_t (*MemFree)(ze_context_handle_t, void *);
    ze_result_t (*CommandListCreateImmediate)(ze_context_handle_t, ze_device_handle_t,
                                              const ze_command_queue_desc_t *,
                                              ze_command_list_handle_t *);
    ze_result_t (*CommandListDestroy)(ze_command_list_handle_t);
    ze_result_t (*CommandListAppendMemoryCopy)(ze_command_list_handle_t, void *, const void *,
                                               size_t, ze_event_handle_t, uint32_t,
                                               ze_event_handle_t *);
} ze;
static pthread_mutex_t ze_load_lock = PTHREAD_MUTEX_INITIALIZER;

static int ze_load(void)
{
    static const char *const libs[] = { "libze_loader.so.1", "libze_loader.so", NULL };
    if (ze.dl) return 1;
    void *dl = gexi_mk_dlopen_first(libs);
    if (!dl) return 0;
#define LOAD(field, sym) if (!(*(void **)&ze.field = dlsym(dl, #sym))) return 0
    LOAD(Init, zeInit);
    LOAD(MemAllocDevice, zeMemAllocDevice);
    LOAD(MemFree, zeMemFree);
    LOAD(CommandListCreateImmediate, zeCommandListCreateImmediate);
    LOAD(CommandListDestroy, zeCommandListDestroy);
    LOAD(CommandListAppendMemoryCopy, zeCommandListAppendMemoryCopy);
#undef LOAD
    ze.dl = dl;
    return 1;
}

struct ze_kind {
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    uint32_t ordinal;
    ze_command_list_handle_t list;
    pthread_mutex_t lock;
};

static int ze_create(struct gexi_mk *k, const gex_MK_Create_args_t *args)
{
    static const char *const nodes[] = { "/dev/dri/renderD128", "/dev/dri/renderD129", NULL };
    const void *dev = args->gex_args.gex_class_ze.gex_zeDevice;
    const void *ctx = args->gex_args.gex_class_ze.gex_zeContext;
    if (!dev || !ctx)
        GEXI_MK_CREATE_ERR(BAD_ARG, "ZE: gex_zeDevice %p and gex_zeContext %p are both required",
                           dev, ctx);
    if (!gexi_mk_device_node_present(nodes))
        GEXI_MK_CREATE_ERR(RESOURCE, "ZE: no GPU render node on this machine (/dev/dri/renderD*)");
    pthread_mutex_lock(&ze_load_lock);
    int ok = ze_load();
    pthread_mutex_unlock(&ze_load_lock);
    if (!ok) GEXI_MK_CREATE_ERR(RESOURCE, "ZE: cannot load the Level Zero loader (libze_loader.so.1)");
    if (ze.Init(ZE_INIT_FLAG_GPU_ONLY) != ZE_RESULT_SUCCESS)
        GEXI_MK_CREATE_ERR(RESOURCE, "ZE: zeInit finds no GPU driver");
    struct ze_kind *zk = calloc(1, sizeof *zk);
    if (!zk) GEXI_MK_CREATE_ERR(RESOURCE, "out of memory");
    zk->dev = (ze_device_handle_t)args->gex_args.gex_class_ze.gex_zeDevice;
    zk->ctx = (ze_context_handle_t)args->gex_args.gex_class_ze.gex_zeContext;
    zk->ordinal = args->gex_args.gex_class_ze.gex_zeMemoryOrdinal;
    ze_command_queue_desc_t qd = { .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                   .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS };
    if (ze.CommandListCreateImmediate(zk->ctx, zk->dev, &qd, &zk->list) != ZE_RESULT_SUCCESS) {
        free(zk);
        GEXI_MK_CREATE_ERR(RESOURCE, "ZE: cannot create a command list on the device");
    }
    pthread_mutex_init(&zk->lock, NULL);
    k->state = zk;
    return GASNET_OK;
}

static void ze_destroy(struct gexi_mk *k)
{
    struct ze_kind *zk = k->state;
    ze.CommandListDestroy(zk->list);
    pthread_mutex_destroy(&zk->lock);
    free(zk);
}

static int ze_seg_create(struct gexi_mk *k, struct gexi_segment *s, void *address,
                         uintptr_t length)
{
    struct ze_kind *zk = k->state;
    if (!address) {
        ze_device_mem_alloc_desc_t d = { .stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
                                         .ordinal = zk->ordinal };
        void *p = NULL;
        ze_result_t r = ze.MemAllocDevice(zk->ctx, &d, length, GASNET_PAGESIZE, zk->dev, &p);
        if (r != ZE_RESULT_SUCCESS)
            GEXI_MK_SEG_ERR(RESOURCE, "ZE: zeMemAllocDevice of %zu bytes failed (0x%x)",
                            (size_t)length, (unsigned)r);
        address = p;
        s->mk_state = (void *)1;        /* ours to free */
    }
    s->addr = address;
    s->size = length;
    return GASNET_OK;
}

static void ze_seg_destroy(struct gexi_mk *k, struct gexi_segment *s)
{
    struct ze_kind *zk = k->state;
    if (s->mk_state) ze.MemFree(zk->ctx, s->addr);
}

static int ze_copy(struct gexi_segment *s, void *dst, const void *src, size_t n)
{
    struct ze_kind *zk = ((struct gexi_mk *)s->kind)->state;
    pthread_mutex_lock(&zk->lock);
    ze_result_t r = ze.CommandListAppendMemoryCopy(zk->list, dst, src, n, NULL, 0, NULL);
    pthread_mutex_unlock(&zk->lock);
    return r == ZE_RESULT_SUCCESS ? GASNET_OK : GASNET_ERR_RESOURCE;
}

static int ze_copy_in(struct gexi_segment *s, void *seg_addr, const void *host, size_t n)
{
    return ze_copy(s, seg_addr, host, n);
}

static int ze_copy_out(struct gexi_segment *s, void *host, const void *seg_addr, size_t n)
{
    return ze_copy(s, host, seg_addr, n);
}

static const struct gexi_mk_ops ze_ops = {
    .struct_size = sizeof ze_ops, .class_name = "ZE",
    .copy_in = ze_copy_in, .copy_out = ze_copy_out,
};

const struct gexi_mk_class gexi_mk_class_ze = {
    .name = "ZE", .create = ze_create, .destroy = ze_destroy,
    .seg_create = ze_seg_create, .seg_destroy = ze_seg_destroy, .ops = &ze_ops,
};
