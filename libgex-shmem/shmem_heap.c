/* The symmetric heap (OpenSHMEM 1.5 section 9.3).
 *
 * The heap is the GEX segment attached at init.  Allocation is collective:
 * every PE makes the same calls with the same arguments, so a deterministic
 * allocator gives every PE the same offsets and an address is translated to
 * a peer's by its offset alone.  The bookkeeping lives outside the heap (in
 * ordinary memory), so the heap holds nothing but user data and no remote
 * write can corrupt the allocator.
 *
 * Blocks are kept in one array sorted by offset that covers the heap
 * exactly: free and used extents alternate as they come; first fit,
 * neighbouring free blocks merge on free. */
#include "shmem_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAP_MIN_ALIGN 64 /* cache line: no false sharing between allocations */

struct block {
    size_t off, len;
    int used;
};

static struct block *blocks;
static size_t nblocks, capblocks;
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

void gexshm_heap_init(void)
{
    free(blocks);
    capblocks = 64;
    blocks = malloc(capblocks * sizeof *blocks);
    if (!blocks) gexshm_fatal("shmem_init: out of memory");
    blocks[0] = (struct block){0, gexshm.heap_size, 0};
    nblocks = 1;
}

static int insert_at(size_t i, struct block b)
{
    if (nblocks == capblocks) {
        struct block *nb = realloc(blocks, 2 * capblocks * sizeof *blocks);
        if (!nb) return -1;
        blocks = nb;
        capblocks *= 2;
    }
    memmove(&blocks[i + 1], &blocks[i], (nblocks - i) * sizeof *blocks);
    blocks[i] = b;
    nblocks++;
    return 0;
}

static void remove_at(size_t i)
{
    memmove(&blocks[i], &blocks[i + 1], (nblocks - i - 1) * sizeof *blocks);
    nblocks--;
}

/* First fit: returns the offset, or (size_t)-1. */
static size_t heap_alloc(size_t size, size_t align)
{
    if (align < HEAP_MIN_ALIGN) align = HEAP_MIN_ALIGN;
    size = (size + HEAP_MIN_ALIGN - 1) & ~(size_t)(HEAP_MIN_ALIGN - 1);
    for (size_t i = 0; i < nblocks; i++) {
        struct block *b = &blocks[i];
        if (b->used) continue;
        /* Alignment is computed on the offset, so every PE pads alike;
         * heaps start 2 MiB-aligned (GEXSHM_HEAP_ALIGN), so addresses are
         * aligned too for any alignment up to that. */
        size_t pad = (align - (b->off % align)) % align;
        if (b->len < pad || b->len - pad < size) continue;
        size_t off = b->off + pad;
        size_t rest = b->len - pad - size;
        if (pad) {
            b->len = pad; /* the padding stays a free block */
            if (insert_at(i + 1, (struct block){off, size, 1})) return (size_t)-1;
            i++;
        } else {
            b->len = size;
            b->used = 1;
        }
        if (rest && insert_at(i + 1, (struct block){off + size, rest, 0})) return (size_t)-1;
        return off;
    }
    return (size_t)-1;
}

static long find_used(size_t off)
{
    size_t lo = 0, hi = nblocks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (blocks[mid].off < off) lo = mid + 1;
        else hi = mid;
    }
    if (lo < nblocks && blocks[lo].off == off && blocks[lo].used) return (long)lo;
    return -1;
}

static void heap_free(size_t i)
{
    blocks[i].used = 0;
    if (i + 1 < nblocks && !blocks[i + 1].used) {
        blocks[i].len += blocks[i + 1].len;
        remove_at(i + 1);
    }
    if (i > 0 && !blocks[i - 1].used) {
        blocks[i - 1].len += blocks[i].len;
        remove_at(i);
    }
}

static long block_of(const void *ptr, const char *what)
{
    if (gexshm_where(ptr) != GEXSHM_HEAP)
        gexshm_fatal("%s: %p is not in the symmetric heap", what, ptr);
    long i = find_used((size_t)((const char *)ptr - gexshm.heap_base));
    if (i < 0) gexshm_fatal("%s: %p is not the start of a live symmetric allocation", what, ptr);
    return i;
}

static void *alloc_locked(size_t size, size_t align, const char *what)
{
    pthread_mutex_lock(&heap_lock);
    size_t off = heap_alloc(size, align);
    pthread_mutex_unlock(&heap_lock);
    if (off == (size_t)-1) {
        if (gexshm_debug)
            fprintf(stderr, "libgex-shmem (PE %d): %s(%zu): symmetric heap exhausted "
                    "(SHMEM_SYMMETRIC_SIZE=%zu)\n", gexshm.my_pe, what, size, gexshm.heap_size);
        return NULL;
    }
    return gexshm.heap_base + off;
}

/* Every allocating routine ends with a barrier (so no PE writes into a
 * peer's block before the peer has it); shmem_free starts with one (so no
 * PE frees a block a peer still writes into). */
static void *collective_alloc(size_t size, size_t align, const char *what)
{
    gexshm_require_init(what);
    void *p = size ? alloc_locked(size, align, what) : NULL;
    gexshm_tm_barrier(gexshm.tm);
    return p;
}

void *shmem_malloc(size_t size)
{
    return collective_alloc(size, HEAP_MIN_ALIGN, "shmem_malloc");
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints; /* every block is remotely accessible for every operation */
    return collective_alloc(size, HEAP_MIN_ALIGN, "shmem_malloc_with_hints");
}

void *shmem_calloc(size_t count, size_t size)
{
    size_t bytes = 0;
    if (count && size && __builtin_mul_overflow(count, size, &bytes)) bytes = (size_t)-1;
    gexshm_require_init("shmem_calloc");
    void *p = bytes && bytes != (size_t)-1 ? alloc_locked(bytes, HEAP_MIN_ALIGN, "shmem_calloc")
                                           : NULL;
    if (p) memset(p, 0, bytes);
    gexshm_tm_barrier(gexshm.tm);
    return p;
}

void *shmem_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1))) {
        if (gexshm_debug)
            fprintf(stderr, "libgex-shmem: shmem_align: alignment %zu is not a power of two\n",
                    alignment);
        gexshm_require_init("shmem_align");
        gexshm_tm_barrier(gexshm.tm);
        return NULL;
    }
    return collective_alloc(size, alignment, "shmem_align");
}

void shmem_free(void *ptr)
{
    gexshm_require_init("shmem_free");
    if (!ptr) return;
    shmem_quiet();
    gexshm_tm_barrier(gexshm.tm);
    pthread_mutex_lock(&heap_lock);
    heap_free((size_t)block_of(ptr, "shmem_free"));
    pthread_mutex_unlock(&heap_lock);
}

/* Barrier on entry and on exit: the block may move, and peers must neither
 * write into the old one nor into the new one too early. */
void *shmem_realloc(void *ptr, size_t size)
{
    if (!ptr) return shmem_malloc(size);
    if (!size) {
        shmem_free(ptr);
        return NULL;
    }
    gexshm_require_init("shmem_realloc");
    shmem_quiet();
    gexshm_tm_barrier(gexshm.tm);
    pthread_mutex_lock(&heap_lock);
    long i = block_of(ptr, "shmem_realloc");
    size_t old = blocks[i].len;
    size_t want = (size + HEAP_MIN_ALIGN - 1) & ~(size_t)(HEAP_MIN_ALIGN - 1);
    void *res = ptr;
    if (want <= old) {
        /* shrink in place; the tail becomes free */
        if (want < old) {
            blocks[i].len = want;
            if (insert_at((size_t)i + 1, (struct block){blocks[i].off + want, old - want, 0}) == 0)
                heap_free((size_t)i + 1);
            else
                blocks[i].len = old;
        }
    } else if ((size_t)i + 1 < nblocks && !blocks[i + 1].used &&
               blocks[i + 1].len >= want - old) {
        /* grow in place into the free neighbour */
        size_t take = want - old;
        blocks[i].len = want;
        blocks[i + 1].off += take;
        blocks[i + 1].len -= take;
        if (!blocks[i + 1].len) remove_at((size_t)i + 1);
    } else {
        size_t off = heap_alloc(size, HEAP_MIN_ALIGN);
        if (off == (size_t)-1) {
            res = NULL; /* the old block stays valid, as with realloc(3) */
        } else {
            res = gexshm.heap_base + off;
            memcpy(res, ptr, old < size ? old : size);
            heap_free((size_t)block_of(ptr, "shmem_realloc"));
        }
    }
    pthread_mutex_unlock(&heap_lock);
    gexshm_tm_barrier(gexshm.tm);
    return res;
}

/* Deprecated names (OpenSHMEM 1.2 and earlier). */
void *shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void *ptr) { shmem_free(ptr); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
