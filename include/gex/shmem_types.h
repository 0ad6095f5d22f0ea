/* gex/shmem_types.h: the OpenSHMEM 1.5 type tables, as X-macro lists.
 *
 * <shmem.h> declares, and libgex-shmem defines, one function per (type,
 * operation) pair the OpenSHMEM 1.5 specification lists; these tables are
 * the one place those pairs are written down, so the header and the library
 * cannot drift apart.  Each list calls X(TYPE, TYPENAME) once per row, where
 * TYPENAME is the spec's name for TYPE in function names
 * (shmem_<TYPENAME>_put, ...).  Not part of the OpenSHMEM API itself. */
#ifndef GEX_SHMEM_TYPES_H
#define GEX_SHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Table 5 of OpenSHMEM 1.5: standard RMA types (put, get, p, g, iput, iget,
 * nbi forms, put_signal, broadcast, collect, fcollect, alltoall(s)). */
#define GEXSHMEM_RMA_TYPES(X)                                                     \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)    \
    X(signed char, schar) X(short, short) X(int, int) X(long, long)               \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)      \
    X(unsigned int, uint) X(unsigned long, ulong)                                 \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)            \
    X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)     \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Sized RMA (shmem_put<SIZE>, ...): X(BITS) with the element width in bits. */
#define GEXSHMEM_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* Table 6: standard AMO types (fetch, set, compare_swap, swap, fetch_inc,
 * inc, fetch_add, add, and their _nbi fetching forms). */
#define GEXSHMEM_AMO_STD_TYPES(X)                                                 \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)        \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)    \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)    \
    X(ptrdiff_t, ptrdiff)

/* Table 7: extended AMO types (fetch, set, swap): the standard ones plus
 * float and double. */
#define GEXSHMEM_AMO_EXT_TYPES(X) GEXSHMEM_AMO_STD_TYPES(X) X(float, float) X(double, double)

/* Table 8: bitwise AMO types (fetch_and, and, fetch_or, or, fetch_xor, xor). */
#define GEXSHMEM_AMO_BIT_TYPES(X)                                                 \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Table 10: point-to-point synchronization types (wait_until, test and their
 * _all/_any/_some and _vector forms). */
#define GEXSHMEM_P2P_TYPES(X)                                                     \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)              \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)       \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)          \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Table 11 (team reductions): and/or/xor types. */
#define GEXSHMEM_REDUCE_BIT_TYPES(X)                                              \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)       \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)      \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)       \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)

/* max/min types. */
#define GEXSHMEM_REDUCE_MINMAX_TYPES(X)                                           \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar)          \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)       \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)            \
    X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)     \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(float, float)       \
    X(double, double) X(long double, longdouble)

/* sum/prod types: the max/min ones plus the two complex types. */
#define GEXSHMEM_REDUCE_ARITH_TYPES(X)                                            \
    GEXSHMEM_REDUCE_MINMAX_TYPES(X) X(double _Complex, complexd)                  \
    X(float _Complex, complexf)

/* Deprecated active-set reductions (shmem_<TYPENAME>_<op>_to_all). */
#define GEXSHMEM_TOALL_BIT_TYPES(X)                                               \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define GEXSHMEM_TOALL_MINMAX_TYPES(X)                                            \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)              \
    X(float, float) X(double, double) X(long double, longdouble)
#define GEXSHMEM_TOALL_ARITH_TYPES(X)                                             \
    GEXSHMEM_TOALL_MINMAX_TYPES(X) X(double _Complex, complexd)                   \
    X(float _Complex, complexf)

/* Deprecated AMO names (shmem_<TYPENAME>_{cswap,finc,inc,fadd,add}) and
 * (with float/double) {swap,fetch,set}. */
#define GEXSHMEM_AMO_DEPR_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define GEXSHMEM_AMO_DEPR_EXT_TYPES(X)                                            \
    GEXSHMEM_AMO_DEPR_TYPES(X) X(float, float) X(double, double)

/* Deprecated shmem_<TYPENAME>_wait / wait_until. */
#define GEXSHMEM_WAIT_DEPR_TYPES(X)                                               \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)

#endif /* GEX_SHMEM_TYPES_H */
