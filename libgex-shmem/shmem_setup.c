/* Library setup, exit and queries (OpenSHMEM 1.5 sections 9.1 and 9.2).
 *
 * shmem_init_thread is where the GEX client comes to life: client and
 * primordial endpoint, the AM handlers for static data, the heap segment
 * (SHMEM_SYMMETRIC_SIZE), every PE's segment address, the six atomic
 * domains, the default context and the predefined teams. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "shmem_internal.h"
#include <shmemx.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ctype.h>

struct gexshm_state gexshm;
struct gexshm_ctx gexshm_ctx_default;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

void gexshm_fatal(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "libgex-shmem (PE %d): ", gexshm.initialized ? gexshm.my_pe : -1);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    if (gexshm.initialized) gasnet_exit(1);
    exit(1);
}

void gexshm_require_init(const char *what)
{
    if (!gexshm.initialized)
        gexshm_fatal("%s called %s shmem_init", what,
                     gexshm.finalized ? "after shmem_finalize, without a new" : "before");
}

/* SHMEM_SYMMETRIC_SIZE: a number with an optional k/K, m/M, g/G or t/T
 * suffix (powers of 1024), as the specification's environment section
 * says.  0 means "not given or not valid" (the caller reports). */
static size_t parse_size(const char *s)
{
    char *end;
    double v;
    if (!s || !*s) return 0;
    v = strtod(s, &end);
    if (end == s || v <= 0) return 0;
    while (isspace((unsigned char)*end)) end++;
    switch (*end) {
    case 'k': case 'K': v *= 1024.0; end++; break;
    case 'm': case 'M': v *= 1024.0 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': v *= 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B') end++;
    if (*end) return 0;
    /* 2^64, inf and nan would overflow the conversion (undefined behaviour) */
    if (!(v < 18446744073709551616.0) || v < 1) return 0;
    return (size_t)v;
}

/* The executable's writable PT_LOAD segments (.data, .bss) hold the static
 * and global symmetric objects: the first dl_iterate_phdr entry is the
 * executable itself. */
static int find_data(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) continue;
        char *lo = (char *)(info->dlpi_addr + ph->p_vaddr);
        char *hi = lo + ph->p_memsz;
        if (!gexshm.data_lo || lo < gexshm.data_lo) gexshm.data_lo = lo;
        if (hi > gexshm.data_hi) gexshm.data_hi = hi;
    }
    return 1; /* the executable only */
}

static char *heap_start(void *segment)
{
    uintptr_t a = (uintptr_t)segment;
    return (char *)((a + GEXSHM_HEAP_ALIGN - 1) & ~(uintptr_t)(GEXSHM_HEAP_ALIGN - 1));
}

static void create_domains(void)
{
    const gex_OP_t int_ops = GEX_OP_GET | GEX_OP_SET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_CAS |
                             GEX_OP_ADD | GEX_OP_FADD | GEX_OP_INC | GEX_OP_FINC | GEX_OP_AND |
                             GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR;
    const gex_OP_t fp_ops = GEX_OP_GET | GEX_OP_SET | GEX_OP_SWAP | GEX_OP_FCAS;
    gex_AD_Create(&gexshm.ad_i32, gexshm.tm, GEX_DT_I32, int_ops, 0);
    gex_AD_Create(&gexshm.ad_u32, gexshm.tm, GEX_DT_U32, int_ops, 0);
    gex_AD_Create(&gexshm.ad_i64, gexshm.tm, GEX_DT_I64, int_ops, 0);
    gex_AD_Create(&gexshm.ad_u64, gexshm.tm, GEX_DT_U64, int_ops, 0);
    gex_AD_Create(&gexshm.ad_flt, gexshm.tm, GEX_DT_FLT, fp_ops, 0);
    gex_AD_Create(&gexshm.ad_dbl, gexshm.tm, GEX_DT_DBL, fp_ops, 0);
}

static void print_info(void)
{
    printf("OpenSHMEM library: %s, OpenSHMEM %d.%d, on GEX %s\n", SHMEM_VENDOR_STRING,
           SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, GEX_SHMEM_VERSION);
    printf("  SHMEM_SYMMETRIC_SIZE  heap bytes per PE (default %d MiB); now %zu\n",
           GEXSHM_DEFAULT_HEAP_MIB, gexshm.heap_size);
    printf("  SHMEM_DEBUG           non-empty: report failed allocations and bad arguments\n");
    printf("  SHMEM_VERSION         non-empty: PE 0 prints the library version at start\n");
    printf("  SHMEM_INFO            non-empty: PE 0 prints this list at start\n");
    fflush(stdout);
}

/* A program that leaves without shmem_finalize (exit(1) after a failed
 * check, say) must not block in a barrier its peers will never reach: only
 * its own outstanding operations are completed, then GEX's exit handling
 * ends the job as for any GEX client. */
static void atexit_flush(void)
{
    if (gexshm.initialized) gexshm_ctx_quiet(&gexshm_ctx_default);
}

int gexshm_debug;

void shmem_init_thread_impl(int requested, int *provided);
void shmem_init_thread_impl(int requested, int *provided)
{
    pthread_mutex_lock(&init_lock);
    if (gexshm.initialized) { /* 1.5: later calls have no effect */
        if (provided) *provided = gexshm.thread_level;
        pthread_mutex_unlock(&init_lock);
        return;
    }
    if (requested < SHMEM_THREAD_SINGLE) requested = SHMEM_THREAD_SINGLE;
    if (requested > SHMEM_THREAD_MULTIPLE) requested = SHMEM_THREAD_MULTIPLE;
    gexshm.thread_level = requested;
    if (gexshm.finalized) {
        /* A new init after finalize: GEX (client, segment, domains) stayed
         * up; the library starts afresh on it - an empty heap, the default
         * context, the predefined teams. */
        gexshm_heap_init();
        gexshm_ctx_setup(&gexshm_ctx_default, &gexshm_team_world, 0, 0);
        gexshm.initialized = 1;
        gexshm.finalized = 0;
        gexshm_team_init();
        if (provided) *provided = gexshm.thread_level;
        pthread_mutex_unlock(&init_lock);
        gexshm_tm_barrier(gexshm.tm);
        return;
    }
    gexshm_debug = getenv("SHMEM_DEBUG") && *getenv("SHMEM_DEBUG");

    int rc = gex_Client_Init(&gexshm.client, &gexshm.ep, &gexshm.tm, "GEXSHMEM", NULL, NULL, 0);
    if (rc != GASNET_OK) gexshm_fatal("shmem_init: gex_Client_Init failed (%d)", rc);
    gexshm.my_pe = (int)gex_TM_QueryRank(gexshm.tm);
    gexshm.n_pes = (int)gex_TM_QuerySize(gexshm.tm);
    gexshm_static_init();

    const char *sz = getenv("SHMEM_SYMMETRIC_SIZE");
    size_t heap = (size_t)GEXSHM_DEFAULT_HEAP_MIB << 20;
    if (sz && *sz) {
        heap = parse_size(sz);
        if (!heap)
            gexshm_fatal("shmem_init: SHMEM_SYMMETRIC_SIZE=\"%s\" is not a size (a number with "
                         "an optional K, M, G or T suffix)", sz);
    }
    heap = (heap + GEXSHM_HEAP_ALIGN - 1) & ~(size_t)(GEXSHM_HEAP_ALIGN - 1);
    /* one alignment unit more than asked: every PE starts its heap at the
     * first GEXSHM_HEAP_ALIGN boundary of its segment, so shmem_align gets
     * equal offsets and aligned addresses on all PEs alike */
    rc = gex_Segment_Attach(&gexshm.seg, gexshm.tm, heap + GEXSHM_HEAP_ALIGN);
    if (rc != GASNET_OK)
        gexshm_fatal("shmem_init: a symmetric heap of %zu bytes (SHMEM_SYMMETRIC_SIZE) could not "
                     "be attached: %s", heap, gasnet_ErrorDesc(rc));
    gexshm.heap_base = heap_start(gex_Segment_QueryAddr(gexshm.seg));
    gexshm.heap_size = heap;
    gexshm.peer_heap = calloc((size_t)gexshm.n_pes, sizeof(char *));
    gexshm.peer_local = calloc((size_t)gexshm.n_pes, sizeof(char *));
    if (!gexshm.peer_heap || !gexshm.peer_local) gexshm_fatal("shmem_init: out of memory");
    for (int pe = 0; pe < gexshm.n_pes; pe++) {
        void *owner = NULL, *local = NULL;
        uintptr_t size = 0;
        gex_Segment_QueryBound(gexshm.tm, (gex_Rank_t)pe, &owner, &local, &size);
        gexshm.peer_heap[pe] = heap_start(owner);
        gexshm.peer_local[pe] = local ? (char *)local + (heap_start(owner) - (char *)owner) : NULL;
    }
    gexshm.peer_local[gexshm.my_pe] = gexshm.heap_base;
    dl_iterate_phdr(find_data, NULL);
    gexshm_heap_init();
    create_domains();
    gexshm_ctx_setup(&gexshm_ctx_default, &gexshm_team_world, 0, 0);
    gexshm.initialized = 1;
    gexshm.finalized = 0;
    gexshm_team_init();
    if (provided) *provided = gexshm.thread_level;
    pthread_mutex_unlock(&init_lock);

    static int registered;
    if (!registered) {
        registered = 1;
        atexit(atexit_flush);
    }
    if (gexshm.my_pe == 0) {
        const char *v = getenv("SHMEM_VERSION");
        if (v && *v) printf("%s (OpenSHMEM %d.%d)\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION,
                            SHMEM_MINOR_VERSION);
        const char *info = getenv("SHMEM_INFO");
        if (info && *info) print_info();
    }
    gexshm_tm_barrier(gexshm.tm);
}

int shmem_init_thread(int requested, int *provided)
{
    shmem_init_thread_impl(requested, provided);
    return 0;
}

void shmem_init(void)
{
    shmem_init_thread_impl(SHMEM_THREAD_SINGLE, NULL);
}

void start_pes(int npes)
{
    (void)npes; /* ignored, as the specification says */
    shmem_init();
}

void shmem_query_thread(int *provided)
{
    if (provided) *provided = gexshm.thread_level;
}

/* Finalize: everything outstanding completes, then a barrier; GEX itself
 * stays up (it has no finalize), so the process goes on to exit normally
 * and GEX's exit coordination ends the job with main's status. */
void shmem_finalize(void)
{
    pthread_mutex_lock(&init_lock);
    if (!gexshm.initialized) {
        pthread_mutex_unlock(&init_lock);
        return;
    }
    gexshm_ctx_quiet(&gexshm_ctx_default);
    gexshm_tm_barrier(gexshm.tm);
    gexshm_team_fini();
    gexshm.initialized = 0;
    gexshm.finalized = 1;
    pthread_mutex_unlock(&init_lock);
}

void shmem_global_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    gasnet_exit(status);
}

int shmem_my_pe(void) { return gexshm.initialized ? gexshm.my_pe : -1; }
int shmem_n_pes(void) { return gexshm.initialized ? gexshm.n_pes : -1; }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }

int shmem_pe_accessible(int pe)
{
    return gexshm.initialized && pe >= 0 && pe < gexshm.n_pes;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    return shmem_pe_accessible(pe) && gexshm_where(addr) != GEXSHM_NOT_SYMMETRIC;
}

void *shmem_ptr(const void *dest, int pe)
{
    if (!shmem_pe_accessible(pe)) return NULL;
    switch (gexshm_where(dest)) {
    case GEXSHM_HEAP:
        if (!gexshm.peer_local[pe]) return NULL;
        return gexshm.peer_local[pe] + ((const char *)dest - gexshm.heap_base);
    case GEXSHM_STATIC:
        return pe == gexshm.my_pe ? (void *)dest : NULL;
    default:
        return NULL;
    }
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major) *major = SHMEM_MAJOR_VERSION;
    if (minor) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (!name) return;
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}

/* Profiling control: there is no profiling interface to steer. */
void shmem_pcontrol(int level, ...)
{
    (void)level;
}

double shmemx_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
