/*
 * mk_file.c: GEX_MK_CLASS_FILE, a GEX extension (not in the spec): memory
 * that lives in a file and is reached only through pread/pwrite.
 *
 * It behaves as device memory does for GEX: a segment has an address range
 * in its owner's address space, that range faults on load and store, and
 * its bytes move only through the kind's copy functions.  So it exercises,
 * on any machine, exactly the paths GPU memory needs (no PSHM mapping,
 * staged RMA, publication of the kind, binding rules), and tests check the
 * data by reading the file afterwards.
 *
 * Kind: args->gex_args.gex_class_file = { gex_fd, gex_offset }.  The fd
 * must be open for reading and writing and seekable (a regular file, a
 * memfd); the kind keeps its own dup(), so the client may close its fd.
 * Segments of a kind take consecutive byte ranges of the file, in creation
 * order, starting at gex_offset: segment i starts at gex_offset + the sum
 * of the lengths of segments 0..i-1 (GEX-allocated lengths are rounded up
 * to GASNET_PAGESIZE; a destroyed segment's range is not reused).  Byte
 * `addr` of a segment is file byte base + (addr - segment address).  The
 * file is extended (ftruncate) to cover each new segment, so unwritten
 * bytes read as zero.
 *
 * GEX-allocated segment (address NULL): GEX reserves a fresh address range
 * with mmap(PROT_NONE), unique in the process and faulting on any access.
 * Client-allocated segment: the client passes the start of an address range
 * of at least `length` bytes that it has reserved the same way (e.g.
 * mmap(NULL, len, PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)) and keeps
 * reserved until the segment is destroyed; that is FILE's meaning of
 * "mapped" (spec: gex_Segment_Create item 4).  GEX never touches it.
 */
#include "mk_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct file_kind {
    int fd;                 /* our dup of the client's fd */
    uint64_t next;          /* file offset of the next segment */
};

struct file_seg {
    int fd;
    uint64_t base;          /* file offset of the segment's first byte */
    int reserved_here;      /* the address range is our mmap(PROT_NONE) */
};

static int file_create(struct gexi_mk *k, const gex_MK_Create_args_t *args)
{
    const int fd = args->gex_args.gex_class_file.gex_fd;
    const uint64_t off = args->gex_args.gex_class_file.gex_offset;
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (fl < 0) GEXI_MK_CREATE_ERR(BAD_ARG, "FILE kind: gex_fd %d is not an open file", fd);
    if ((fl & O_ACCMODE) != O_RDWR)
        GEXI_MK_CREATE_ERR(BAD_ARG, "FILE kind: gex_fd %d is not open for reading and writing "
                           "(O_RDWR)", fd);
    if (off > (uint64_t)INT64_MAX / 2)
        GEXI_MK_CREATE_ERR(BAD_ARG, "FILE kind: gex_offset %llu is too large",
                           (unsigned long long)off);
    if (lseek(fd, 0, SEEK_CUR) < 0)
        GEXI_MK_CREATE_ERR(BAD_ARG, "FILE kind: gex_fd %d is not seekable (pread/pwrite)", fd);
    struct file_kind *fk = calloc(1, sizeof *fk);
    if (!fk) GEXI_MK_CREATE_ERR(RESOURCE, "out of memory");
    fk->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (fk->fd < 0) {
        free(fk);
        GEXI_MK_CREATE_ERR(RESOURCE, "FILE kind: dup of gex_fd %d failed: %s", fd,
                           strerror(errno));
    }
    fk->next = off;
    k->state = fk;
    return GASNET_OK;
}

static void file_destroy(struct gexi_mk *k)
{
    struct file_kind *fk = k->state;
    close(fk->fd);
    free(fk);
    k->state = NULL;
}

static int file_seg_create(struct gexi_mk *k, struct gexi_segment *s, void *address,
                           uintptr_t length)
{
    struct file_kind *fk = k->state;
    if (address && (uintptr_t)address + length < (uintptr_t)address)
        GEXI_MK_SEG_ERR(BAD_ARG, "FILE segment: [%p, +%zu) wraps around the address space",
                        address, (size_t)length);
    if (!address) {
        if (length > gasnet_getMaxLocalSegmentSize())
            GEXI_MK_SEG_ERR(BAD_ARG, "length %zu exceeds gasnet_getMaxLocalSegmentSize() = %zu",
                            (size_t)length, (size_t)gasnet_getMaxLocalSegmentSize());
        length = (length + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    }
    if (fk->next + length > (uint64_t)INT64_MAX)
        GEXI_MK_SEG_ERR(BAD_ARG, "FILE segment: file offset %llu + length %zu is too large",
                        (unsigned long long)fk->next, (size_t)length);
    struct file_seg *fs = calloc(1, sizeof *fs);
    if (!fs) GEXI_MK_SEG_ERR(RESOURCE, "out of memory");
    struct stat st;
    if (fstat(fk->fd, &st) == 0 && (S_ISREG(st.st_mode)) &&
        (uint64_t)st.st_size < fk->next + length &&
        ftruncate(fk->fd, (off_t)(fk->next + length)) != 0) {
        int e = errno;
        free(fs);
        GEXI_MK_SEG_ERR(RESOURCE, "FILE segment: cannot extend the file to %llu bytes: %s",
                        (unsigned long long)(fk->next + length), strerror(e));
    }
    if (!address) {
        void *p = mmap(NULL, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            free(fs);
            GEXI_MK_SEG_ERR(RESOURCE, "FILE segment: cannot reserve %zu bytes of address space",
                            (size_t)length);
        }
        address = p;
        fs->reserved_here = 1;
    }
    fs->fd = fk->fd;
    fs->base = fk->next;
    fk->next += length;
    s->addr = address;
    s->size = length;
    s->mk_state = fs;
    return GASNET_OK;
}

static void file_seg_destroy(struct gexi_mk *k, struct gexi_segment *s)
{
    struct file_seg *fs = s->mk_state;
    (void)k;
    if (fs->reserved_here) munmap(s->addr, s->size);
    free(fs);
    s->mk_state = NULL;
}

static int file_copy_in(struct gexi_segment *s, void *seg_addr, const void *host, size_t n)
{
    const struct file_seg *fs = s->mk_state;
    off_t off = (off_t)(fs->base + ((uintptr_t)seg_addr - (uintptr_t)s->addr));
    const char *p = host;
    while (n) {
        ssize_t w = pwrite(fs->fd, p, n, off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return GASNET_ERR_RESOURCE;
        p += w;
        off += w;
        n -= (size_t)w;
    }
    return GASNET_OK;
}

static int file_copy_out(struct gexi_segment *s, void *host, const void *seg_addr, size_t n)
{
    const struct file_seg *fs = s->mk_state;
    off_t off = (off_t)(fs->base + ((uintptr_t)seg_addr - (uintptr_t)s->addr));
    char *p = host;
    while (n) {
        ssize_t r = pread(fs->fd, p, n, off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return GASNET_ERR_RESOURCE;
        if (r == 0) {               /* past the end (the file was shrunk): zeros */
            memset(p, 0, n);
            break;
        }
        p += r;
        off += r;
        n -= (size_t)r;
    }
    return GASNET_OK;
}

static const struct gexi_mk_ops file_ops = {
    .struct_size = sizeof file_ops,
    .class_name = "FILE",
    .copy_in = file_copy_in,
    .copy_out = file_copy_out,
};

const struct gexi_mk_class gexi_mk_class_file = {
    .name = "FILE",
    .create = file_create,
    .destroy = file_destroy,
    .seg_create = file_seg_create,
    .seg_destroy = file_seg_destroy,
    .ops = &file_ops,
};
