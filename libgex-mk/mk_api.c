/*
 * mk_api.c: gex_MK_Create / gex_MK_Destroy (memory kinds spec section 6.3)
 * and the segment hooks core calls for kinds other than GEX_MK_HOST.
 *
 * Kinds live in a list guarded by one mutex (creation, destruction and
 * segment creation are rare calls); a gex_MK_t is checked against that
 * list, so a stray or destroyed handle is reported instead of read.
 * Destroyed kinds stay allocated, marked dead, for that reason.
 *
 * Errors (docs/memory-kinds.md has the table):
 *   gex_MK_Create: NULL kind_p/args, non-zero flags or args->gex_flags, an
 *   unknown class or a class this build does not have -> GASNET_ERR_BAD_ARG
 *   (spec 6.3; memory_kinds_implementation.md); a device class whose driver
 *   or device is absent -> GASNET_ERR_RESOURCE with a message naming it.
 *   gex_MK_Destroy (no error return): an invalid or destroyed kind, or one
 *   still used by a segment, is refused; debug builds end the job.
 *   gex_Segment_Create with a destroyed, foreign or unknown kind, or an
 *   address/length the class refuses -> GASNET_ERR_BAD_ARG.
 */
#include "mk_internal.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "layer_ident.h"

GEXI_LAYER_IDENT(mk, GEXI_VI_MK);

static pthread_mutex_t mk_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gexi_mk *all_kinds;

static const struct gexi_mk_class *class_of(gex_MK_Class_t c)
{
    switch (c) {
    case GEX_MK_CLASS_FILE: return &gexi_mk_class_file;
#ifdef GEXI_MK_HAVE_CUDA
    case GEX_MK_CLASS_CUDA_UVA: return &gexi_mk_class_cuda;
#endif
#ifdef GEXI_MK_HAVE_HIP
    case GEX_MK_CLASS_HIP: return &gexi_mk_class_hip;
#endif
#ifdef GEXI_MK_HAVE_ZE
    case GEX_MK_CLASS_ZE: return &gexi_mk_class_ze;
#endif
    default: return NULL;
    }
}

/* The live kind behind handle h, or NULL (caller holds mk_lock). */
static struct gexi_mk *find_kind(gex_MK_t h, int *dead_p)
{
    *dead_p = 0;
    for (struct gexi_mk *k = all_kinds; k; k = k->next) {
        if ((gex_MK_t)k != h) continue;
        if (k->magic == GEXI_MAGIC_MK) return k;
        *dead_p = 1;
        return NULL;
    }
    return NULL;
}

int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client, const gex_MK_Create_args_t *args,
                  gex_Flags_t flags)
{
    struct gexi_client *c = gexi_client_of(client);
    if (kind_p == NULL || args == NULL)
        GEXI_RETURN_ERR(BAD_ARG, "kind_p %p, args %p: both are required",
                        (void *)kind_p, (const void *)args);
    if (!c || c->magic != GEXI_MAGIC_CLIENT) GEXI_RETURN_ERR(BAD_ARG, "client is not valid");
    if (flags) GEXI_RETURN_ERR(BAD_ARG, "flags must be zero (got 0x%x)", (unsigned)flags);
    if (args->gex_flags)
        GEXI_RETURN_ERR(BAD_ARG, "args->gex_flags must be zero (got 0x%llx)",
                        (unsigned long long)args->gex_flags);
    if (args->gex_class == GEX_MK_CLASS_HOST) {
        /* Host memory has one kind: the predefined one. */
        *kind_p = GEX_MK_HOST;
        return GASNET_OK;
    }
    const struct gexi_mk_class *klass = class_of(args->gex_class);
    if (!klass) {
        switch (args->gex_class) {
        case GEX_MK_CLASS_CUDA_UVA:
        case GEX_MK_CLASS_HIP:
        case GEX_MK_CLASS_ZE:
            GEXI_RETURN_ERR(BAD_ARG, "memory kind class %s is not supported by this build "
                            "(configure did not find its headers)",
                            args->gex_class == GEX_MK_CLASS_CUDA_UVA ? "CUDA_UVA"
                            : args->gex_class == GEX_MK_CLASS_HIP ? "HIP" : "ZE");
        default:
            GEXI_RETURN_ERR(BAD_ARG, "unknown memory kind class %d", (int)args->gex_class);
        }
    }
    struct gexi_mk *k = calloc(1, sizeof *k);
    if (!k) GEXI_RETURN_ERR(RESOURCE, "out of memory for a memory kind");
    k->cls = args->gex_class;
    k->klass = klass;
    k->client = c;
    int rc = klass->create(k, args);
    if (rc != GASNET_OK) {
        free(k);
        return rc;
    }
    k->magic = GEXI_MAGIC_MK;
    pthread_mutex_lock(&mk_lock);
    k->next = all_kinds;
    all_kinds = k;
    pthread_mutex_unlock(&mk_lock);
    *kind_p = (gex_MK_t)k;
    return GASNET_OK;
}

/* gex_MK_Destroy cannot return an error: refuse, and end the job in debug
 * builds (STYLE: calls without an error return). */
#ifdef GEX_DEBUG
#define DESTROY_REFUSED(...) gexi_fatal("gex_MK_Destroy: " __VA_ARGS__)
#else
#define DESTROY_REFUSED(...) \
    do { GEXI_REPORT_ERR("nothing destroyed", __VA_ARGS__); return; } while (0)
#endif

void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags)
{
    if (kind == GEX_MK_HOST) return;       /* what gex_MK_Create gives for class HOST */
    if (flags) DESTROY_REFUSED("flags must be zero (got 0x%x)", (unsigned)flags);
    pthread_mutex_lock(&mk_lock);
    int dead;
    struct gexi_mk *k = find_kind(kind, &dead);
    if (!k) {
        pthread_mutex_unlock(&mk_lock);
        DESTROY_REFUSED("kind %p is %s", (void *)kind,
                        dead ? "already destroyed" : "not a kind made by gex_MK_Create");
    }
    if (k->segments) {
        unsigned n = k->segments;
        pthread_mutex_unlock(&mk_lock);
        DESTROY_REFUSED("kind %p (%s) is still used by %u segment(s): destroy them first",
                        (void *)kind, k->klass->name, n);
    }
    k->klass->destroy(k);
    k->magic = GEXI_MAGIC_MK_DEAD;
    pthread_mutex_unlock(&mk_lock);
}

/* ---- Hooks for core's gex_Segment_Create / gex_Segment_Destroy ---- */

static int seg_create(struct gexi_segment *s, gex_MK_t kind, void *address, uintptr_t length)
{
    pthread_mutex_lock(&mk_lock);
    int dead;
    struct gexi_mk *k = find_kind(kind, &dead);
    if (!k || k->client != s->client) {
        pthread_mutex_unlock(&mk_lock);
        GEXI_MK_SEG_ERR(BAD_ARG, "kind %p is %s", (void *)kind,
                        !k ? (dead ? "destroyed" : "not GEX_MK_HOST nor made by gex_MK_Create")
                           : "of another client");
    }
    int rc = k->klass->seg_create(k, s, address, length);
    if (rc == GASNET_OK) {
        s->mk_ops = k->klass->ops;
        k->segments++;
    }
    pthread_mutex_unlock(&mk_lock);
    return rc;
}

static void seg_destroy(struct gexi_segment *s)
{
    struct gexi_mk *k = (struct gexi_mk *)s->kind;
    pthread_mutex_lock(&mk_lock);
    k->klass->seg_destroy(k, s);
    k->segments--;
    pthread_mutex_unlock(&mk_lock);
}

static const struct gexi_mk_hooks hooks = {
    .struct_size = sizeof hooks,
    .segment_create = seg_create,
    .segment_destroy = seg_destroy,
};

/* For gex-info and benchmark JSON: the classes this build has. */
static const char *mk_describe(void)
{
    return "classes=FILE"
#ifdef GEXI_MK_HAVE_CUDA
           ",CUDA_UVA"
#endif
#ifdef GEXI_MK_HAVE_HIP
           ",HIP"
#endif
#ifdef GEXI_MK_HAVE_ZE
           ",ZE"
#endif
           " rma=staged(AM medium)";
}

static const struct gexi_layer mk_layer = {
    .struct_size = sizeof(struct gexi_layer),
    .name = "mk",
    .describe = mk_describe,
};

__attribute__((constructor)) static void gexi_mk_register(void)
{
    gexi_set_mk_hooks(&hooks);
    gexi_register_layer(&mk_layer);
}

/* ---- Helpers for the device classes ---- */

int gexi_mk_device_node_present(const char *const *paths)
{
    if (gexi_getenv_yesno("GEX_MK_ASSUME_DEVICE", 0)) return 1;
    for (; *paths; paths++)
        if (access(*paths, F_OK) == 0) return 1;
    return 0;
}

void *gexi_mk_dlopen_first(const char *const *names)
{
    for (; *names; names++) {
        void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
    }
    return NULL;
}
