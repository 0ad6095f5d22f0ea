/* Point-to-point synchronization (OpenSHMEM 1.5 section 9.9) and
 * shmem_signal_wait_until.
 *
 * Waiting polls GEX (updates may arrive as Active Messages: the reference
 * paths, static objects) and, after a while, yields the core: with more PEs
 * than cores a spinning waiter would otherwise take the time slice the PE
 * it waits for needs. */
#include "shmem_internal.h"
#include <sched.h>
#include <stdint.h>

#define SPINS_BEFORE_YIELD 64

static inline void backoff(unsigned *spins)
{
    gasnet_AMPoll();
    if (++*spins >= SPINS_BEFORE_YIELD) {
        *spins = 0;
        sched_yield();
    }
}

static void bad_cmp(const char *what, int cmp)
{
    gexshm_fatal("%s: comparison %d is not one of SHMEM_CMP_EQ/NE/GT/GE/LT/LE", what, cmp);
}

#define CMP(v, cmp, x)                                                                   \
    ((cmp) == SHMEM_CMP_EQ ? (v) == (x) : (cmp) == SHMEM_CMP_NE ? (v) != (x)             \
     : (cmp) == SHMEM_CMP_GT ? (v) > (x) : (cmp) == SHMEM_CMP_GE ? (v) >= (x)            \
     : (cmp) == SHMEM_CMP_LT ? (v) < (x) : (v) <= (x))
#define CMP_OK(cmp) ((cmp) >= SHMEM_CMP_EQ && (cmp) <= SHMEM_CMP_GE)
#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ACTIVE(status, i) (!(status) || !(status)[i])

#define P2P(T, N)                                                                         \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                  \
    {                                                                                     \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_test", cmp);                              \
        gasnet_AMPoll();                                                                  \
        return CMP(LOAD(ivar), cmp, cmp_value) ? 1 : 0;                                   \
    }                                                                                     \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                            \
    {                                                                                     \
        unsigned s = 0;                                                                   \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_wait_until", cmp);                        \
        while (!CMP(LOAD(ivar), cmp, cmp_value)) backoff(&s);                             \
    }                                                                                     \
    /* _all: every active element satisfies (none active: true) */                       \
    static int N##_all(T *ivars, size_t n, const int *status, int cmp, const T *vals,     \
                       T val)                                                             \
    {                                                                                     \
        for (size_t i = 0; i < n; i++)                                                    \
            if (ACTIVE(status, i) && !CMP(LOAD(&ivars[i]), cmp, vals ? vals[i] : val))    \
                return 0;                                                                 \
        return 1;                                                                         \
    }                                                                                     \
    /* _any: the first active element that satisfies, or SIZE_MAX */                     \
    static size_t N##_any(T *ivars, size_t n, const int *status, int cmp, const T *vals,  \
                          T val)                                                          \
    {                                                                                     \
        for (size_t i = 0; i < n; i++)                                                    \
            if (ACTIVE(status, i) && CMP(LOAD(&ivars[i]), cmp, vals ? vals[i] : val))     \
                return i;                                                                 \
        return SIZE_MAX;                                                                  \
    }                                                                                     \
    /* _some: every active element that satisfies, into indices */                       \
    static size_t N##_some(T *ivars, size_t n, size_t *indices, const int *status, int cmp, \
                           const T *vals, T val)                                          \
    {                                                                                     \
        size_t k = 0;                                                                     \
        for (size_t i = 0; i < n; i++)                                                    \
            if (ACTIVE(status, i) && CMP(LOAD(&ivars[i]), cmp, vals ? vals[i] : val))     \
                indices[k++] = i;                                                         \
        return k;                                                                         \
    }                                                                                     \
    static int N##_any_active(size_t n, const int *status)                                \
    {                                                                                     \
        for (size_t i = 0; i < n; i++)                                                    \
            if (ACTIVE(status, i)) return 1;                                              \
        return 0;                                                                         \
    }                                                                                     \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,  \
                                    T cmp_value)                                          \
    {                                                                                     \
        unsigned s = 0;                                                                   \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_wait_until_all", cmp);                    \
        while (!N##_all(ivars, nelems, status, cmp, NULL, cmp_value)) backoff(&s);        \
    }                                                                                     \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,    \
                                           int cmp, const T *cmp_values)                        \
    {                                                                                     \
        unsigned s = 0;                                                                   \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_wait_until_all_vector", cmp);             \
        while (!N##_all(ivars, nelems, status, cmp, cmp_values, 0)) backoff(&s);          \
    }                                                                                     \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, \
                                      T cmp_value)                                        \
    {                                                                                     \
        unsigned s = 0;                                                                   \
        size_t r;                                                                         \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_wait_until_any", cmp);                    \
        if (!N##_any_active(nelems, status)) return SIZE_MAX;                             \
        while ((r = N##_any(ivars, nelems, status, cmp, NULL, cmp_value)) == SIZE_MAX)    \
            backoff(&s);                                                                  \
        return r;                                                                         \
    }                                                                                     \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,  \
                                             int cmp, const T *cmp_values)                      \
    {                                                                                     \
        unsigned s = 0;                                                                   \
        size_t r;                                                                         \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_wait_until_any_vector", cmp);             \
        if (!N##_any_active(nelems, status)) return SIZE_MAX;                             \
        while ((r = N##_any(ivars, nelems, status, cmp, cmp_values, 0)) == SIZE_MAX)      \
            backoff(&s);                                                                  \
        return r;                                                                         \
    }                                                                                     \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,          \
                                       const int *status, int cmp, T cmp_value)           \
    {                                                                                     \
        unsigned s = 0;                                                                   \
        size_t k;                                                                         \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_wait_until_some", cmp);                   \
        if (!N##_any_active(nelems, status)) return 0;                                    \
        while (!(k = N##_some(ivars, nelems, indices, status, cmp, NULL, cmp_value)))     \
            backoff(&s);                                                                  \
        return k;                                                                         \
    }                                                                                     \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,   \
                                              const int *status, int cmp, const T *cmp_values)  \
    {                                                                                     \
        unsigned s = 0;                                                                   \
        size_t k;                                                                         \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_wait_until_some_vector", cmp);            \
        if (!N##_any_active(nelems, status)) return 0;                                    \
        while (!(k = N##_some(ivars, nelems, indices, status, cmp, cmp_values, 0)))       \
            backoff(&s);                                                                  \
        return k;                                                                         \
    }                                                                                     \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,         \
                             T cmp_value)                                                 \
    {                                                                                     \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_test_all", cmp);                          \
        gasnet_AMPoll();                                                                  \
        return N##_all(ivars, nelems, status, cmp, NULL, cmp_value);                      \
    }                                                                                     \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                    const T *cmp_values)                                        \
    {                                                                                     \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_test_all_vector", cmp);                   \
        gasnet_AMPoll();                                                                  \
        return N##_all(ivars, nelems, status, cmp, cmp_values, 0);                        \
    }                                                                                     \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,      \
                                T cmp_value)                                              \
    {                                                                                     \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_test_any", cmp);                          \
        gasnet_AMPoll();                                                                  \
        return N##_any(ivars, nelems, status, cmp, NULL, cmp_value);                      \
    }                                                                                     \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,        \
                                       int cmp, const T *cmp_values)                            \
    {                                                                                     \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_test_any_vector", cmp);                   \
        gasnet_AMPoll();                                                                  \
        return N##_any(ivars, nelems, status, cmp, cmp_values, 0);                        \
    }                                                                                     \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,                \
                                 const int *status, int cmp, T cmp_value)                 \
    {                                                                                     \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_test_some", cmp);                         \
        gasnet_AMPoll();                                                                  \
        return N##_some(ivars, nelems, indices, status, cmp, NULL, cmp_value);            \
    }                                                                                     \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,         \
                                        const int *status, int cmp, const T *cmp_values)        \
    {                                                                                     \
        if (!CMP_OK(cmp)) bad_cmp("shmem_" #N "_test_some_vector", cmp);                  \
        gasnet_AMPoll();                                                                  \
        return N##_some(ivars, nelems, indices, status, cmp, cmp_values, 0);              \
    }
GEXSHMEM_P2P_TYPES(P2P)

/* Deprecated: shmem_<T>_wait waits while *ivar == cmp_value. */
#define WAIT_DEPR(T, N)                                                                   \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                           \
    {                                                                                     \
        shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                            \
    }
GEXSHMEM_WAIT_DEPR_TYPES(WAIT_DEPR)

void shmem_wait(long *ivar, long cmp_value)
{
    shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value);
}

/* The C11 generic macro of the same name hides this deprecated function. */
#undef shmem_wait_until
void shmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    unsigned s = 0;
    uint64_t v;
    if (!CMP_OK(cmp)) bad_cmp("shmem_signal_wait_until", cmp);
    while (!CMP((v = LOAD(sig_addr)), cmp, cmp_value)) backoff(&s);
    return v;
}
