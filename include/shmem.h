/* shmem.h: OpenSHMEM 1.5 C API of libgex-shmem (OpenSHMEM on GEX).
 *
 * The per-type routines are declared from the type tables in
 * <gex/shmem_types.h>, the same tables the library defines them from.
 * Helper macros of this header are all named GEXSHMEM_*; they are not part
 * of the OpenSHMEM API.  The C11 type-generic interfaces (shmem_put(...),
 * shmem_atomic_fetch(...), ...) are macros built on _Generic and are only
 * available to C11 (or later) C compilers, not to C++ or C99. */
#ifndef GEXSHMEM_SHMEM_H
#define GEXSHMEM_SHMEM_H

#include <stddef.h>
#include <stdint.h>
#include <gex/shmem_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Library handles and constants
 * ====================================================================== */

typedef struct gexshm_ctx *shmem_ctx_t;
typedef struct gexshm_team *shmem_team_t;

#define SHMEM_CTX_DEFAULT  ((shmem_ctx_t)(uintptr_t)1)
#define SHMEM_CTX_INVALID  ((shmem_ctx_t)0)

#define SHMEM_TEAM_WORLD   ((shmem_team_t)(uintptr_t)1)
#define SHMEM_TEAM_SHARED  ((shmem_team_t)(uintptr_t)2)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

typedef struct {
    int num_contexts;
} shmem_team_config_t;

#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Thread levels (shmem_init_thread, shmem_query_thread). */
#define SHMEM_THREAD_SINGLE     0
#define SHMEM_THREAD_FUNNELED   1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE   3

/* Context options (shmem_ctx_create, shmem_team_create_ctx). */
#define SHMEM_CTX_PRIVATE    (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)

/* Comparison operators (wait_until, test, signal_wait_until). */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_LE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_GE 5

/* Signal operators (put_signal). */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Memory hints (shmem_malloc_with_hints). */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

/* Library version and name. */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN  256
#define SHMEM_VENDOR_STRING "GEX OpenSHMEM"

/* Deprecated active-set collectives: pSync/pWrk sizes and initial value. */
#define SHMEM_SYNC_VALUE               0L
#define SHMEM_SYNC_SIZE                64
#define SHMEM_BCAST_SYNC_SIZE          64
#define SHMEM_BARRIER_SYNC_SIZE        64
#define SHMEM_REDUCE_SYNC_SIZE         64
#define SHMEM_COLLECT_SYNC_SIZE        64
#define SHMEM_ALLTOALL_SYNC_SIZE       64
#define SHMEM_ALLTOALLS_SYNC_SIZE      64
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE  16

/* Deprecated names of the constants above. */
#define _SHMEM_MAJOR_VERSION           SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION           SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN            SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING           SHMEM_VENDOR_STRING
#define _SHMEM_SYNC_VALUE              SHMEM_SYNC_VALUE
#define _SHMEM_SYNC_SIZE               SHMEM_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE         SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE       SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE        SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE       SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE      SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE     SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ                  SHMEM_CMP_EQ
#define _SHMEM_CMP_NE                  SHMEM_CMP_NE
#define _SHMEM_CMP_GT                  SHMEM_CMP_GT
#define _SHMEM_CMP_LE                  SHMEM_CMP_LE
#define _SHMEM_CMP_LT                  SHMEM_CMP_LT
#define _SHMEM_CMP_GE                  SHMEM_CMP_GE

/* ======================================================================
 * Library setup, exit and query
 * ====================================================================== */

void shmem_init(void);
void shmem_finalize(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
void shmem_pcontrol(int level, ...);

/* Deprecated. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);

/* ======================================================================
 * Memory management
 * ====================================================================== */

void *shmem_malloc(size_t size);
void shmem_free(void *ptr);
void *shmem_realloc(void *ptr, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmem_calloc(size_t count, size_t size);

/* Deprecated. */
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

/* ======================================================================
 * Teams
 * ====================================================================== */

int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask,
                          shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe,
                            shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride,
                             int size, const shmem_team_config_t *config,
                             long config_mask, shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team,
                        const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);

/* ======================================================================
 * Communication contexts
 * ====================================================================== */

int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ======================================================================
 * Remote memory access
 * ====================================================================== */

#define GEXSHMEM_DECL_RMA(T, N)                                                  \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);      \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source,         \
                             size_t nelems, int pe);                            \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);      \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source,         \
                             size_t nelems, int pe);                            \
    void shmem_##N##_p(T *dest, T value, int pe);                               \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);          \
    T shmem_##N##_g(const T *source, int pe);                                   \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);              \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst,              \
                          ptrdiff_t sst, size_t nelems, int pe);                \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source,        \
                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems,      \
                              int pe);                                          \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst,              \
                          ptrdiff_t sst, size_t nelems, int pe);                \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source,        \
                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems,      \
                              int pe);                                          \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);  \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source,     \
                                 size_t nelems, int pe);                        \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);  \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source,     \
                                 size_t nelems, int pe);
GEXSHMEM_RMA_TYPES(GEXSHMEM_DECL_RMA)

#define GEXSHMEM_DECL_RMA_SIZED(B)                                               \
    void shmem_put##B(void *dest, const void *source, size_t nelems, int pe);   \
    void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source,      \
                          size_t nelems, int pe);                               \
    void shmem_get##B(void *dest, const void *source, size_t nelems, int pe);   \
    void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source,      \
                          size_t nelems, int pe);                               \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst,           \
                       ptrdiff_t sst, size_t nelems, int pe);                   \
    void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source,     \
                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems,         \
                           int pe);                                             \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst,           \
                       ptrdiff_t sst, size_t nelems, int pe);                   \
    void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source,     \
                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems,         \
                           int pe);                                             \
    void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems,      \
                            int pe);                                            \
    void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest,                    \
                                const void *source, size_t nelems, int pe);     \
    void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems,      \
                            int pe);                                            \
    void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest,                    \
                                const void *source, size_t nelems, int pe);
GEXSHMEM_RMA_SIZES(GEXSHMEM_DECL_RMA_SIZED)

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source,
                      size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source,
                      size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                          size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                          size_t nelems, int pe);

/* ======================================================================
 * Signaling operations
 * ====================================================================== */

#define GEXSHMEM_DECL_SIGNAL(T, N)                                               \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems,        \
                                uint64_t *sig_addr, uint64_t signal,            \
                                int sig_op, int pe);                            \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source,  \
                                    size_t nelems, uint64_t *sig_addr,          \
                                    uint64_t signal, int sig_op, int pe);       \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,    \
                                    uint64_t *sig_addr, uint64_t signal,        \
                                    int sig_op, int pe);                        \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest,               \
                                        const T *source, size_t nelems,         \
                                        uint64_t *sig_addr, uint64_t signal,    \
                                        int sig_op, int pe);
GEXSHMEM_RMA_TYPES(GEXSHMEM_DECL_SIGNAL)

#define GEXSHMEM_DECL_SIGNAL_SIZED(B)                                            \
    void shmem_put##B##_signal(void *dest, const void *source, size_t nelems,   \
                               uint64_t *sig_addr, uint64_t signal,             \
                               int sig_op, int pe);                             \
    void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void *dest,                 \
                                   const void *source, size_t nelems,           \
                                   uint64_t *sig_addr, uint64_t signal,         \
                                   int sig_op, int pe);                         \
    void shmem_put##B##_signal_nbi(void *dest, const void *source,              \
                                   size_t nelems, uint64_t *sig_addr,           \
                                   uint64_t signal, int sig_op, int pe);        \
    void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void *dest,             \
                                       const void *source, size_t nelems,       \
                                       uint64_t *sig_addr, uint64_t signal,     \
                                       int sig_op, int pe);
GEXSHMEM_RMA_SIZES(GEXSHMEM_DECL_SIGNAL_SIZED)

void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
                         uint64_t *sig_addr, uint64_t signal, int sig_op,
                         int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source,
                             size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op,
                             int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest,
                                 const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal,
                                 int sig_op, int pe);

uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp,
                                 uint64_t cmp_value);

/* ======================================================================
 * Atomic memory operations
 * ====================================================================== */

/* Extended AMOs: fetch, set, swap (+ nbi). */
#define GEXSHMEM_DECL_AMO_EXT(T, N)                                              \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                        \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);   \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                      \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe); \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);                        \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);   \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);       \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch,            \
                                          const T *source, int pe);             \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);       \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest,    \
                                         T value, int pe);
GEXSHMEM_AMO_EXT_TYPES(GEXSHMEM_DECL_AMO_EXT)

/* Standard AMOs: compare_swap, fetch_inc, inc, fetch_add, add (+ nbi). */
#define GEXSHMEM_DECL_AMO_STD(T, N)                                              \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);        \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond,     \
                                          T value, int pe);                     \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                            \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);       \
    void shmem_##N##_atomic_inc(T *dest, int pe);                               \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);          \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                   \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value,       \
                                       int pe);                                 \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);                      \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe); \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond,         \
                                             T value, int pe);                  \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch,     \
                                                 T *dest, T cond, T value,      \
                                                 int pe);                       \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);           \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch,        \
                                              T *dest, int pe);                 \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);  \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch,        \
                                              T *dest, T value, int pe);
GEXSHMEM_AMO_STD_TYPES(GEXSHMEM_DECL_AMO_STD)

/* Bitwise AMOs: fetch_and, and, fetch_or, or, fetch_xor, xor (+ nbi). */
#define GEXSHMEM_DECL_AMO_BIT_OP(T, N, OP)                                       \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                  \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value,      \
                                        int pe);                                \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                     \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value,         \
                                     int pe);                                   \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value,        \
                                             int pe);                           \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch,     \
                                                 T *dest, T value, int pe);
#define GEXSHMEM_DECL_AMO_BIT(T, N)                                              \
    GEXSHMEM_DECL_AMO_BIT_OP(T, N, and)                                         \
    GEXSHMEM_DECL_AMO_BIT_OP(T, N, or)                                          \
    GEXSHMEM_DECL_AMO_BIT_OP(T, N, xor)
GEXSHMEM_AMO_BIT_TYPES(GEXSHMEM_DECL_AMO_BIT)

/* Deprecated AMO names. */
#define GEXSHMEM_DECL_AMO_DEPR(T, N)                                             \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                      \
    T shmem_##N##_finc(T *dest, int pe);                                        \
    void shmem_##N##_inc(T *dest, int pe);                                      \
    T shmem_##N##_fadd(T *dest, T value, int pe);                               \
    void shmem_##N##_add(T *dest, T value, int pe);
GEXSHMEM_AMO_DEPR_TYPES(GEXSHMEM_DECL_AMO_DEPR)

#define GEXSHMEM_DECL_AMO_DEPR_EXT(T, N)                                         \
    T shmem_##N##_swap(T *dest, T value, int pe);                               \
    T shmem_##N##_fetch(const T *source, int pe);                               \
    void shmem_##N##_set(T *dest, T value, int pe);
GEXSHMEM_AMO_DEPR_EXT_TYPES(GEXSHMEM_DECL_AMO_DEPR_EXT)

/* ======================================================================
 * Point-to-point synchronization
 * ====================================================================== */

#define GEXSHMEM_DECL_P2P(T, N)                                                  \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                 \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems,                    \
                                    const int *status, int cmp, T cmp_value);   \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems,                  \
                                      const int *status, int cmp,               \
                                      T cmp_value);                             \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems,                 \
                                       size_t *indices, const int *status,      \
                                       int cmp, T cmp_value);                   \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems,             \
                                           const int *status, int cmp,          \
                                           const T *cmp_values);                \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems,           \
                                             const int *status, int cmp,        \
                                             const T *cmp_values);              \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems,          \
                                              size_t *indices,                  \
                                              const int *status, int cmp,       \
                                              const T *cmp_values);             \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                        \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status,        \
                             int cmp, T cmp_value);                             \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status,     \
                                int cmp, T cmp_value);                          \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,      \
                                 const int *status, int cmp, T cmp_value);      \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems,                    \
                                    const int *status, int cmp,                 \
                                    const T *cmp_values);                       \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems,                 \
                                       const int *status, int cmp,              \
                                       const T *cmp_values);                    \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems,                \
                                        size_t *indices, const int *status,     \
                                        int cmp, const T *cmp_values);
GEXSHMEM_P2P_TYPES(GEXSHMEM_DECL_P2P)

/* Deprecated. */
void shmem_wait(long *ivar, long cmp_value);
void shmem_wait_until(long *ivar, int cmp, long cmp_value);
#define GEXSHMEM_DECL_WAIT_DEPR(T, N)                                            \
    void shmem_##N##_wait(T *ivar, T cmp_value);
GEXSHMEM_WAIT_DEPR_TYPES(GEXSHMEM_DECL_WAIT_DEPR)

/* ======================================================================
 * Memory ordering
 * ====================================================================== */

void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ======================================================================
 * Distributed locking
 * ====================================================================== */

void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ======================================================================
 * Cache management (deprecated; no-ops)
 * ====================================================================== */

void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);

/* ======================================================================
 * Collective operations
 * ====================================================================== */

void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);

/* Deprecated active-set barrier and sync. */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);

/* Team-based data movement. */
#define GEXSHMEM_DECL_COLL(T, N)                                                 \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source,      \
                              size_t nelems, int PE_root);                      \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source,        \
                            size_t nelems);                                     \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source,       \
                             size_t nelems);                                    \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source,       \
                             size_t nelems);                                    \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source,      \
                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
GEXSHMEM_RMA_TYPES(GEXSHMEM_DECL_COLL)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source,
                       size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source,
                     size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source,
                      size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source,
                      size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source,
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems);

/* Team-based reductions. */
#define GEXSHMEM_DECL_REDUCE_OP(T, N, OP)                                        \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,  \
                                  size_t nreduce);
#define GEXSHMEM_DECL_REDUCE_BIT(T, N)                                           \
    GEXSHMEM_DECL_REDUCE_OP(T, N, and)                                          \
    GEXSHMEM_DECL_REDUCE_OP(T, N, or)                                           \
    GEXSHMEM_DECL_REDUCE_OP(T, N, xor)
#define GEXSHMEM_DECL_REDUCE_MINMAX(T, N)                                        \
    GEXSHMEM_DECL_REDUCE_OP(T, N, max)                                          \
    GEXSHMEM_DECL_REDUCE_OP(T, N, min)
#define GEXSHMEM_DECL_REDUCE_ARITH(T, N)                                         \
    GEXSHMEM_DECL_REDUCE_OP(T, N, sum)                                          \
    GEXSHMEM_DECL_REDUCE_OP(T, N, prod)
GEXSHMEM_REDUCE_BIT_TYPES(GEXSHMEM_DECL_REDUCE_BIT)
GEXSHMEM_REDUCE_MINMAX_TYPES(GEXSHMEM_DECL_REDUCE_MINMAX)
GEXSHMEM_REDUCE_ARITH_TYPES(GEXSHMEM_DECL_REDUCE_ARITH)

/* Deprecated active-set data movement. */
#define GEXSHMEM_DECL_COLL_DEPR(B)                                               \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems,      \
                            int PE_root, int PE_start, int logPE_stride,        \
                            int PE_size, long *pSync);                          \
    void shmem_collect##B(void *dest, const void *source, size_t nelems,        \
                          int PE_start, int logPE_stride, int PE_size,          \
                          long *pSync);                                         \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems,       \
                           int PE_start, int logPE_stride, int PE_size,         \
                           long *pSync);                                        \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems,       \
                           int PE_start, int logPE_stride, int PE_size,         \
                           long *pSync);                                        \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst,      \
                            ptrdiff_t sst, size_t nelems, int PE_start,         \
                            int logPE_stride, int PE_size, long *pSync);
GEXSHMEM_DECL_COLL_DEPR(32)
GEXSHMEM_DECL_COLL_DEPR(64)

/* Deprecated active-set reductions. */
#define GEXSHMEM_DECL_TOALL_OP(T, N, OP)                                         \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce,       \
                                   int PE_start, int logPE_stride,              \
                                   int PE_size, T *pWrk, long *pSync);
#define GEXSHMEM_DECL_TOALL_BIT(T, N)                                            \
    GEXSHMEM_DECL_TOALL_OP(T, N, and)                                           \
    GEXSHMEM_DECL_TOALL_OP(T, N, or)                                            \
    GEXSHMEM_DECL_TOALL_OP(T, N, xor)
#define GEXSHMEM_DECL_TOALL_MINMAX(T, N)                                         \
    GEXSHMEM_DECL_TOALL_OP(T, N, max)                                           \
    GEXSHMEM_DECL_TOALL_OP(T, N, min)
#define GEXSHMEM_DECL_TOALL_ARITH(T, N)                                          \
    GEXSHMEM_DECL_TOALL_OP(T, N, sum)                                           \
    GEXSHMEM_DECL_TOALL_OP(T, N, prod)
GEXSHMEM_TOALL_BIT_TYPES(GEXSHMEM_DECL_TOALL_BIT)
GEXSHMEM_TOALL_MINMAX_TYPES(GEXSHMEM_DECL_TOALL_MINMAX)
GEXSHMEM_TOALL_ARITH_TYPES(GEXSHMEM_DECL_TOALL_ARITH)

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ======================================================================
 * C11 type-generic interfaces
 *
 * Each generic name selects the typed routine with _Generic on the type
 * pointed to by its dest (or ivars) argument; the routines that also come
 * with a leading shmem_ctx_t argument select the shmem_ctx_* form by the
 * number of arguments.  Only the distinct C types are listed; int32_t,
 * uint64_t, size_t, ptrdiff_t, ... select the routine of the type they are
 * a typedef of (for instance shmem_long_put for an int64_t on LP64).
 * ====================================================================== */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus) \
    && !defined(GEXSHMEM_NO_GENERICS)

/* Argument counting (1 to 10 arguments) and dispatch to NAME<count>. */
#define GEXSHMEM_NARGS(...)                                                      \
    GEXSHMEM_NARGS_I(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define GEXSHMEM_NARGS_I(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, n, ...) n
#define GEXSHMEM_CAT(a, b) GEXSHMEM_CAT_I(a, b)
#define GEXSHMEM_CAT_I(a, b) a##b
#define GEXSHMEM_DISPATCH(NAME, ...)                                             \
    GEXSHMEM_CAT(NAME, GEXSHMEM_NARGS(__VA_ARGS__))(__VA_ARGS__)

/* One _Generic association: `, TYPE: <P><TYPENAME><S>`. */
#define GEXSHMEM_GA(T, P, N, S) , T: P##N##S

/* Association lists, one per type table, of distinct C types only. */
#define GEXSHMEM_GL_RMA(P, S)                                                    \
    GEXSHMEM_GA(char, P, char, S)                                               \
    GEXSHMEM_GA(signed char, P, schar, S)                                       \
    GEXSHMEM_GA(unsigned char, P, uchar, S)                                     \
    GEXSHMEM_GA(short, P, short, S)                                             \
    GEXSHMEM_GA(unsigned short, P, ushort, S)                                   \
    GEXSHMEM_GA(int, P, int, S)                                                 \
    GEXSHMEM_GA(unsigned int, P, uint, S)                                       \
    GEXSHMEM_GA(long, P, long, S)                                               \
    GEXSHMEM_GA(unsigned long, P, ulong, S)                                     \
    GEXSHMEM_GA(long long, P, longlong, S)                                      \
    GEXSHMEM_GA(unsigned long long, P, ulonglong, S)                            \
    GEXSHMEM_GA(float, P, float, S)                                             \
    GEXSHMEM_GA(double, P, double, S)                                           \
    GEXSHMEM_GA(long double, P, longdouble, S)
#define GEXSHMEM_GL_AMO_STD(P, S)                                                \
    GEXSHMEM_GA(int, P, int, S)                                                 \
    GEXSHMEM_GA(unsigned int, P, uint, S)                                       \
    GEXSHMEM_GA(long, P, long, S)                                               \
    GEXSHMEM_GA(unsigned long, P, ulong, S)                                     \
    GEXSHMEM_GA(long long, P, longlong, S)                                      \
    GEXSHMEM_GA(unsigned long long, P, ulonglong, S)
#define GEXSHMEM_GL_AMO_EXT(P, S)                                                \
    GEXSHMEM_GL_AMO_STD(P, S)                                                   \
    GEXSHMEM_GA(float, P, float, S)                                             \
    GEXSHMEM_GA(double, P, double, S)
/* The bitwise AMO table has no int/long/long long names, only the exact
 * width signed ones, so those are listed by their typedef names. */
#define GEXSHMEM_GL_AMO_BIT(P, S)                                                \
    GEXSHMEM_GA(unsigned int, P, uint, S)                                       \
    GEXSHMEM_GA(unsigned long, P, ulong, S)                                     \
    GEXSHMEM_GA(unsigned long long, P, ulonglong, S)                            \
    GEXSHMEM_GA(int32_t, P, int32, S)                                           \
    GEXSHMEM_GA(int64_t, P, int64, S)
#define GEXSHMEM_GL_AMO_DEPR(P, S)                                               \
    GEXSHMEM_GA(int, P, int, S)                                                 \
    GEXSHMEM_GA(long, P, long, S)                                               \
    GEXSHMEM_GA(long long, P, longlong, S)
#define GEXSHMEM_GL_AMO_DEPR_EXT(P, S)                                           \
    GEXSHMEM_GL_AMO_DEPR(P, S)                                                  \
    GEXSHMEM_GA(float, P, float, S)                                             \
    GEXSHMEM_GA(double, P, double, S)
#define GEXSHMEM_GL_P2P(P, S)                                                    \
    GEXSHMEM_GA(short, P, short, S)                                             \
    GEXSHMEM_GA(unsigned short, P, ushort, S)                                   \
    GEXSHMEM_GA(int, P, int, S)                                                 \
    GEXSHMEM_GA(unsigned int, P, uint, S)                                       \
    GEXSHMEM_GA(long, P, long, S)                                               \
    GEXSHMEM_GA(unsigned long, P, ulong, S)                                     \
    GEXSHMEM_GA(long long, P, longlong, S)                                      \
    GEXSHMEM_GA(unsigned long long, P, ulonglong, S)
/* Like the bitwise AMOs: the signed types only by exact width names. */
#define GEXSHMEM_GL_REDUCE_BIT(P, S)                                             \
    GEXSHMEM_GA(unsigned char, P, uchar, S)                                     \
    GEXSHMEM_GA(unsigned short, P, ushort, S)                                   \
    GEXSHMEM_GA(unsigned int, P, uint, S)                                       \
    GEXSHMEM_GA(unsigned long, P, ulong, S)                                     \
    GEXSHMEM_GA(unsigned long long, P, ulonglong, S)                            \
    GEXSHMEM_GA(int8_t, P, int8, S)                                             \
    GEXSHMEM_GA(int16_t, P, int16, S)                                           \
    GEXSHMEM_GA(int32_t, P, int32, S)                                           \
    GEXSHMEM_GA(int64_t, P, int64, S)
#define GEXSHMEM_GL_REDUCE_MINMAX(P, S) GEXSHMEM_GL_RMA(P, S)
#define GEXSHMEM_GL_REDUCE_ARITH(P, S)                                           \
    GEXSHMEM_GL_RMA(P, S)                                                       \
    GEXSHMEM_GA(double _Complex, P, complexd, S)                                \
    GEXSHMEM_GA(float _Complex, P, complexf, S)

/* Select shmem_<P><TYPENAME><S> on the type *A1 (GEXSHMEM_G1), *A2
 * (GEXSHMEM_G2) or *A3 (GEXSHMEM_G3) and call it with all the arguments.
 * The controlling expression is not evaluated; its lvalue conversion drops
 * const/volatile, and going through ?: keeps GCC's -Wstrict-aliasing quiet
 * about arguments like (double *)long_array. */
#define GEXSHMEM_DEREF(p) (*(1 ? (p) : (p)))
#define GEXSHMEM_G1(L, P, S, a1, ...)                                            \
    _Generic(GEXSHMEM_DEREF(a1) L(P, S))(a1, __VA_ARGS__)
#define GEXSHMEM_G2(L, P, S, a1, a2, ...)                                        \
    _Generic(GEXSHMEM_DEREF(a2) L(P, S))(a1, a2, __VA_ARGS__)
#define GEXSHMEM_G3(L, P, S, a1, a2, a3, ...)                                    \
    _Generic(GEXSHMEM_DEREF(a3) L(P, S))(a1, a2, a3, __VA_ARGS__)

/* ---- RMA and signaling: [ctx,] dest, ... --------------------------------- */
#define shmem_put(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_PUT_, __VA_ARGS__)
#define GEXSHMEM_G_PUT_4(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _put, __VA_ARGS__)
#define GEXSHMEM_G_PUT_5(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _put, __VA_ARGS__)
#define shmem_get(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_GET_, __VA_ARGS__)
#define GEXSHMEM_G_GET_4(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _get, __VA_ARGS__)
#define GEXSHMEM_G_GET_5(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _get, __VA_ARGS__)
#define shmem_p(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_P_, __VA_ARGS__)
#define GEXSHMEM_G_P_3(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _p, __VA_ARGS__)
#define GEXSHMEM_G_P_4(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _p, __VA_ARGS__)
#define shmem_g(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_G_, __VA_ARGS__)
#define GEXSHMEM_G_G_2(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _g, __VA_ARGS__)
#define GEXSHMEM_G_G_3(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _g, __VA_ARGS__)
#define shmem_iput(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_IPUT_, __VA_ARGS__)
#define GEXSHMEM_G_IPUT_6(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _iput, __VA_ARGS__)
#define GEXSHMEM_G_IPUT_7(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _iput, __VA_ARGS__)
#define shmem_iget(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_IGET_, __VA_ARGS__)
#define GEXSHMEM_G_IGET_6(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _iget, __VA_ARGS__)
#define GEXSHMEM_G_IGET_7(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _iget, __VA_ARGS__)
#define shmem_put_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_PUT_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_PUT_NBI_4(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _put_nbi, __VA_ARGS__)
#define GEXSHMEM_G_PUT_NBI_5(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_GET_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_GET_NBI_4(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _get_nbi, __VA_ARGS__)
#define GEXSHMEM_G_GET_NBI_5(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _get_nbi, __VA_ARGS__)
#define shmem_put_signal(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_PUT_SIGNAL_, __VA_ARGS__)
#define GEXSHMEM_G_PUT_SIGNAL_7(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _put_signal, __VA_ARGS__)
#define GEXSHMEM_G_PUT_SIGNAL_8(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_PUT_SIGNAL_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_PUT_SIGNAL_NBI_7(...) GEXSHMEM_G1(GEXSHMEM_GL_RMA, shmem_, _put_signal_nbi, __VA_ARGS__)
#define GEXSHMEM_G_PUT_SIGNAL_NBI_8(...) GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_ctx_, _put_signal_nbi, __VA_ARGS__)

/* ---- AMOs: [ctx,] dest, ...  and the nbi forms [ctx,] fetch, dest, ... --- */
#define shmem_atomic_fetch(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_2(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_EXT, shmem_, _atomic_fetch, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_3(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_EXT, shmem_ctx_, _atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_SET_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_SET_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_EXT, shmem_, _atomic_set, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_SET_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_EXT, shmem_ctx_, _atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_SWAP_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_SWAP_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_EXT, shmem_, _atomic_swap, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_SWAP_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_EXT, shmem_ctx_, _atomic_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_COMPARE_SWAP_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_COMPARE_SWAP_4(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_STD, shmem_, _atomic_compare_swap, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_COMPARE_SWAP_5(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_STD, shmem_ctx_, _atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_INC_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_INC_2(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_STD, shmem_, _atomic_fetch_inc, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_INC_3(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_STD, shmem_ctx_, _atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_INC_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_INC_2(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_STD, shmem_, _atomic_inc, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_INC_3(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_STD, shmem_ctx_, _atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_ADD_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_ADD_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_STD, shmem_, _atomic_fetch_add, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_ADD_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_STD, shmem_ctx_, _atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_ADD_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_ADD_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_STD, shmem_, _atomic_add, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_ADD_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_STD, shmem_ctx_, _atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_AND_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_AND_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_BIT, shmem_, _atomic_fetch_and, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_AND_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_BIT, shmem_ctx_, _atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_AND_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_AND_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_BIT, shmem_, _atomic_and, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_AND_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_BIT, shmem_ctx_, _atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_OR_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_OR_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_BIT, shmem_, _atomic_fetch_or, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_OR_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_BIT, shmem_ctx_, _atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_OR_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_OR_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_BIT, shmem_, _atomic_or, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_OR_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_BIT, shmem_ctx_, _atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_XOR_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_XOR_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_BIT, shmem_, _atomic_fetch_xor, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_XOR_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_BIT, shmem_ctx_, _atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_XOR_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_XOR_3(...) GEXSHMEM_G1(GEXSHMEM_GL_AMO_BIT, shmem_, _atomic_xor, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_XOR_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_BIT, shmem_ctx_, _atomic_xor, __VA_ARGS__)

/* Non-blocking fetching AMOs: selected on dest (fetch_nbi: on source). */
#define shmem_atomic_fetch_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_NBI_3(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_EXT, shmem_, _atomic_fetch_nbi, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_NBI_4(...) GEXSHMEM_G3(GEXSHMEM_GL_AMO_EXT, shmem_ctx_, _atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_SWAP_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_SWAP_NBI_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_EXT, shmem_, _atomic_swap_nbi, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_SWAP_NBI_5(...) GEXSHMEM_G3(GEXSHMEM_GL_AMO_EXT, shmem_ctx_, _atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_COMPARE_SWAP_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_COMPARE_SWAP_NBI_5(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_STD, shmem_, _atomic_compare_swap_nbi, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_COMPARE_SWAP_NBI_6(...) GEXSHMEM_G3(GEXSHMEM_GL_AMO_STD, shmem_ctx_, _atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_INC_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_INC_NBI_3(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_STD, shmem_, _atomic_fetch_inc_nbi, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_INC_NBI_4(...) GEXSHMEM_G3(GEXSHMEM_GL_AMO_STD, shmem_ctx_, _atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_ADD_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_ADD_NBI_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_STD, shmem_, _atomic_fetch_add_nbi, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_ADD_NBI_5(...) GEXSHMEM_G3(GEXSHMEM_GL_AMO_STD, shmem_ctx_, _atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_AND_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_AND_NBI_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_BIT, shmem_, _atomic_fetch_and_nbi, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_AND_NBI_5(...) GEXSHMEM_G3(GEXSHMEM_GL_AMO_BIT, shmem_ctx_, _atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_OR_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_OR_NBI_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_BIT, shmem_, _atomic_fetch_or_nbi, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_OR_NBI_5(...) GEXSHMEM_G3(GEXSHMEM_GL_AMO_BIT, shmem_ctx_, _atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_ATOMIC_FETCH_XOR_NBI_, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_XOR_NBI_4(...) GEXSHMEM_G2(GEXSHMEM_GL_AMO_BIT, shmem_, _atomic_fetch_xor_nbi, __VA_ARGS__)
#define GEXSHMEM_G_ATOMIC_FETCH_XOR_NBI_5(...) GEXSHMEM_G3(GEXSHMEM_GL_AMO_BIT, shmem_ctx_, _atomic_fetch_xor_nbi, __VA_ARGS__)

/* Deprecated generic AMO names (OpenSHMEM 1.3), without contexts. */
#define shmem_cswap(dest, cond, value, pe)                                       \
    GEXSHMEM_G1(GEXSHMEM_GL_AMO_DEPR, shmem_, _cswap, dest, cond, value, pe)
#define shmem_finc(dest, pe)                                                     \
    GEXSHMEM_G1(GEXSHMEM_GL_AMO_DEPR, shmem_, _finc, dest, pe)
#define shmem_inc(dest, pe)                                                      \
    GEXSHMEM_G1(GEXSHMEM_GL_AMO_DEPR, shmem_, _inc, dest, pe)
#define shmem_fadd(dest, value, pe)                                              \
    GEXSHMEM_G1(GEXSHMEM_GL_AMO_DEPR, shmem_, _fadd, dest, value, pe)
#define shmem_add(dest, value, pe)                                               \
    GEXSHMEM_G1(GEXSHMEM_GL_AMO_DEPR, shmem_, _add, dest, value, pe)
#define shmem_swap(dest, value, pe)                                              \
    GEXSHMEM_G1(GEXSHMEM_GL_AMO_DEPR_EXT, shmem_, _swap, dest, value, pe)
#define shmem_fetch(source, pe)                                                  \
    GEXSHMEM_G1(GEXSHMEM_GL_AMO_DEPR_EXT, shmem_, _fetch, source, pe)
#define shmem_set(dest, value, pe)                                               \
    GEXSHMEM_G1(GEXSHMEM_GL_AMO_DEPR_EXT, shmem_, _set, dest, value, pe)

/* ---- Point-to-point synchronization: ivar(s), ... ------------------------ */
#define shmem_wait_until(ivar, cmp, cmp_value)                                   \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _wait_until, ivar, cmp, cmp_value)
#define shmem_wait_until_all(ivars, nelems, status, cmp, cmp_value)              \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _wait_until_all, ivars, nelems,         \
                status, cmp, cmp_value)
#define shmem_wait_until_any(ivars, nelems, status, cmp, cmp_value)              \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _wait_until_any, ivars, nelems,         \
                status, cmp, cmp_value)
#define shmem_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value)    \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _wait_until_some, ivars, nelems,        \
                indices, status, cmp, cmp_value)
#define shmem_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values)      \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _wait_until_all_vector, ivars, nelems,  \
                status, cmp, cmp_values)
#define shmem_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values)      \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _wait_until_any_vector, ivars, nelems,  \
                status, cmp, cmp_values)
#define shmem_wait_until_some_vector(ivars, nelems, indices, status, cmp,        \
                                     cmp_values)                                 \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _wait_until_some_vector, ivars, nelems, \
                indices, status, cmp, cmp_values)
#define shmem_test(ivar, cmp, cmp_value)                                         \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _test, ivar, cmp, cmp_value)
#define shmem_test_all(ivars, nelems, status, cmp, cmp_value)                    \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _test_all, ivars, nelems, status, cmp,  \
                cmp_value)
#define shmem_test_any(ivars, nelems, status, cmp, cmp_value)                    \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _test_any, ivars, nelems, status, cmp,  \
                cmp_value)
#define shmem_test_some(ivars, nelems, indices, status, cmp, cmp_value)          \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _test_some, ivars, nelems, indices,     \
                status, cmp, cmp_value)
#define shmem_test_all_vector(ivars, nelems, status, cmp, cmp_values)            \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _test_all_vector, ivars, nelems,        \
                status, cmp, cmp_values)
#define shmem_test_any_vector(ivars, nelems, status, cmp, cmp_values)            \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _test_any_vector, ivars, nelems,        \
                status, cmp, cmp_values)
#define shmem_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values)  \
    GEXSHMEM_G1(GEXSHMEM_GL_P2P, shmem_, _test_some_vector, ivars, nelems,       \
                indices, status, cmp, cmp_values)

/* ---- Collectives: team, dest, ... ---------------------------------------- */
/* shmem_sync(team) is shmem_team_sync; with four arguments it is still the
 * deprecated active-set shmem_sync routine. */
#define shmem_sync(...) GEXSHMEM_DISPATCH(GEXSHMEM_G_SYNC_, __VA_ARGS__)
#define GEXSHMEM_G_SYNC_1(team) shmem_team_sync(team)
#define GEXSHMEM_G_SYNC_4(PE_start, logPE_stride, PE_size, pSync)                \
    (shmem_sync)(PE_start, logPE_stride, PE_size, pSync)

#define shmem_broadcast(team, dest, source, nelems, PE_root)                     \
    GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_, _broadcast, team, dest, source, nelems, \
                PE_root)
#define shmem_collect(team, dest, source, nelems)                                \
    GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_, _collect, team, dest, source, nelems)
#define shmem_fcollect(team, dest, source, nelems)                               \
    GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_, _fcollect, team, dest, source, nelems)
#define shmem_alltoall(team, dest, source, nelems)                               \
    GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_, _alltoall, team, dest, source, nelems)
#define shmem_alltoalls(team, dest, source, dst, sst, nelems)                    \
    GEXSHMEM_G2(GEXSHMEM_GL_RMA, shmem_, _alltoalls, team, dest, source, dst,    \
                sst, nelems)

#define shmem_and_reduce(team, dest, source, nreduce)                            \
    GEXSHMEM_G2(GEXSHMEM_GL_REDUCE_BIT, shmem_, _and_reduce, team, dest, source, \
                nreduce)
#define shmem_or_reduce(team, dest, source, nreduce)                             \
    GEXSHMEM_G2(GEXSHMEM_GL_REDUCE_BIT, shmem_, _or_reduce, team, dest, source,  \
                nreduce)
#define shmem_xor_reduce(team, dest, source, nreduce)                            \
    GEXSHMEM_G2(GEXSHMEM_GL_REDUCE_BIT, shmem_, _xor_reduce, team, dest, source, \
                nreduce)
#define shmem_max_reduce(team, dest, source, nreduce)                            \
    GEXSHMEM_G2(GEXSHMEM_GL_REDUCE_MINMAX, shmem_, _max_reduce, team, dest,      \
                source, nreduce)
#define shmem_min_reduce(team, dest, source, nreduce)                            \
    GEXSHMEM_G2(GEXSHMEM_GL_REDUCE_MINMAX, shmem_, _min_reduce, team, dest,      \
                source, nreduce)
#define shmem_sum_reduce(team, dest, source, nreduce)                            \
    GEXSHMEM_G2(GEXSHMEM_GL_REDUCE_ARITH, shmem_, _sum_reduce, team, dest,       \
                source, nreduce)
#define shmem_prod_reduce(team, dest, source, nreduce)                           \
    GEXSHMEM_G2(GEXSHMEM_GL_REDUCE_ARITH, shmem_, _prod_reduce, team, dest,      \
                source, nreduce)

#endif /* C11 generics */

#endif /* GEXSHMEM_SHMEM_H */
