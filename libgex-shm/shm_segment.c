/*
 * shm_segment.c: the shared-memory segment provider (PSHM).
 *
 * Segment memory is a POSIX shm object "/gex-<jobid>-seg-<jobrank>-<n>",
 * mapped MAP_SHARED.  Its pages are allocated when first touched, as with
 * GASNet: reserving them all here (posix_fallocate) made a segment near
 * gasnet_getMaxLocalSegmentSize() cost seconds at attach and again at exit,
 * and committed most of the machine's RAM at once (4 ranks: 21 GB in 3 s).
 * The price is a SIGBUS at first touch if /dev/shm fills up meanwhile, so
 * the object is refused here when /dev/shm has no room for it now, and
 * GEX_PSHM_RESERVE=1 brings the full reservation back.  Core
 * exchanges the name, nbrhd peers map it, and core asks us to unlink it once
 * everyone has: from then on the object has no name and disappears with
 * the last mapping, whatever way the processes end.  gexrun removes
 * "gex-<jobid>-*" leftovers if a rank dies inside that short window.
 */
#include "shm_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "layer_ident.h"

GEXI_LAYER_IDENT(shm, GEXI_VI_SHM);

static atomic_uint seg_counter;

/* Sizes the object: every page now (GEX_PSHM_RESERVE=1), or only its
 * length once /dev/shm has the room (see above).  Returns 0 or an errno. */
static int reserve(int fd, size_t size)
{
    if (gexi_getenv_yesno("GEX_PSHM_RESERVE", 0)) return posix_fallocate(fd, 0, (off_t)size);
    struct statvfs sv;
    if (fstatvfs(fd, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize < size) return ENOSPC;
    return ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
}

static int shm_alloc(size_t size, void **addr_p, void **handle_p, char desc[GEXI_SEG_DESC_SIZE])
{
    struct gexi_shm_seg *h = calloc(1, sizeof *h);
    if (!h) return -1;
    snprintf(h->name, sizeof h->name, "/gex-%s-seg-%u-%u", gexi_core.jobid ? gexi_core.jobid : "x",
             (unsigned)gexi_core.jobrank, atomic_fetch_add(&seg_counter, 1));
    int fd = shm_open(h->name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        gexi_log(1, "PSHM: shm_open(%s): %s; using private memory", h->name, strerror(errno));
        free(h);
        return -1;
    }
    int rc = reserve(fd, size);
    if (rc != 0) {
        gexi_log(1, "PSHM: cannot reserve %zu bytes in /dev/shm for %s: %s; using private memory",
                 size, h->name, strerror(rc));
        close(fd);
        shm_unlink(h->name);
        free(h);
        return -1;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        shm_unlink(h->name);
        free(h);
        return -1;
    }
    *addr_p = p;
    *handle_p = h;
    memcpy(desc, h->name, GEXI_SEG_DESC_SIZE);
    return 0;
}

static void shm_unlink_seg(void *handle)
{
    struct gexi_shm_seg *h = handle;
    if (h->unlinked) return;
    shm_unlink(h->name);
    h->unlinked = 1;
}

static void shm_release(void *handle, void *addr, size_t size)
{
    shm_unlink_seg(handle);
    munmap(addr, size);
    free(handle);
}

static void *shm_map_peer(const char desc[GEXI_SEG_DESC_SIZE], size_t size)
{
    char name[GEXI_SEG_DESC_SIZE];
    memcpy(name, desc, sizeof name);
    name[sizeof name - 1] = 0;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        gexi_log(1, "PSHM: cannot map peer segment %s: %s", name, strerror(errno));
        return NULL;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static void shm_unmap_peer(void *addr, size_t size) { munmap(addr, size); }

static void shm_describe(void *handle, char desc[GEXI_SEG_DESC_SIZE])
{
    const struct gexi_shm_seg *h = handle;
    if (h->unlinked) desc[0] = 0;
    else memcpy(desc, h->name, GEXI_SEG_DESC_SIZE);
}

static const struct gexi_segment_provider shm_provider = {
    .struct_size = sizeof(struct gexi_segment_provider),
    .name = "pshm",
    .alloc = shm_alloc,
    .release = shm_release,
    .map_peer = shm_map_peer,
    .unmap_peer = shm_unmap_peer,
    .unlink = shm_unlink_seg,
    .describe = shm_describe,
};

/* Loading libgex-shm is what turns PSHM on (core depends on no layer). */
__attribute__((constructor)) static void gexi_shm_register(void)
{
    gexi_set_segment_provider(&shm_provider);
}
