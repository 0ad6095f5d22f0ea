/* shmem_coll_ops.h: element-wise reduction operators shared by the team
 * reductions (shmem_coll.c) and the deprecated *_to_all routines
 * (shmem_coll_legacy.c).  Private to libgex-shmem.
 *
 * GEXSHM_REDUCE_OP(T, N, OP) defines
 *     static void gexshm_op_<N>_<OP>(const void *in, void *inout, size_t n,
 *                                    const void *cdata)
 * computing inout[i] = in[i] OP inout[i]: the gex_Coll_ReduceFn_t shape,
 * so the same function serves as a GEX_OP_USER operator and as the local
 * combine step.  Elements are moved with memcpy because GEX does not
 * promise alignment of the buffers it hands to a user operator. */
#ifndef GEXSHM_COLL_OPS_H
#define GEXSHM_COLL_OPS_H

#include <gasnetex.h>
#include <stddef.h>
#include <string.h>

#define GEXSHM_EXPR_and(a, b)  ((a) & (b))
#define GEXSHM_EXPR_or(a, b)   ((a) | (b))
#define GEXSHM_EXPR_xor(a, b)  ((a) ^ (b))
#define GEXSHM_EXPR_max(a, b)  ((a) > (b) ? (a) : (b))
#define GEXSHM_EXPR_min(a, b)  ((a) < (b) ? (a) : (b))
#define GEXSHM_EXPR_sum(a, b)  ((a) + (b))
#define GEXSHM_EXPR_prod(a, b) ((a) * (b))

/* The GEX built-in operator of each reduction (used when the type has a
 * built-in GEX_DT_*). */
#define GEXSHM_GEXOP_and  GEX_OP_AND
#define GEXSHM_GEXOP_or   GEX_OP_OR
#define GEXSHM_GEXOP_xor  GEX_OP_XOR
#define GEXSHM_GEXOP_max  GEX_OP_MAX
#define GEXSHM_GEXOP_min  GEX_OP_MIN
#define GEXSHM_GEXOP_sum  GEX_OP_ADD
#define GEXSHM_GEXOP_prod GEX_OP_MULT

#define GEXSHM_REDUCE_OP(T, N, OP)                                                    \
    static void gexshm_op_##N##_##OP(const void *in, void *inout, size_t n,          \
                                     const void *cdata)                              \
    {                                                                                 \
        const unsigned char *x = in;                                                  \
        unsigned char *y = inout;                                                     \
        (void)cdata;                                                                  \
        for (size_t i = 0; i < n; i++) {                                              \
            T a, b;                                                                   \
            memcpy(&a, x + i * sizeof(T), sizeof(T));                                 \
            memcpy(&b, y + i * sizeof(T), sizeof(T));                                 \
            b = (T)GEXSHM_EXPR_##OP(a, b);                                            \
            memcpy(y + i * sizeof(T), &b, sizeof(T));                                 \
        }                                                                             \
    }

/* The GEX built-in data type of a C type, or GEX_DT_USER (1- and 2-byte
 * integers, long double, complex).  Signedness comes from the _Generic
 * branch, the width from sizeof, so typedefs (int64_t, size_t, ...) land on
 * the right one whatever they are on this platform. */
#define GEXSHM_DT_S(T) (sizeof(T) == 4 ? GEX_DT_I32 : sizeof(T) == 8 ? GEX_DT_I64 : GEX_DT_USER)
#define GEXSHM_DT_U(T) (sizeof(T) == 4 ? GEX_DT_U32 : sizeof(T) == 8 ? GEX_DT_U64 : GEX_DT_USER)
#define GEXSHM_DT(T)                                                                  \
    ((gex_DT_t)_Generic((T)0,                                                         \
        signed char: GEXSHM_DT_S(signed char), short: GEXSHM_DT_S(short),             \
        int: GEXSHM_DT_S(int), long: GEXSHM_DT_S(long),                               \
        long long: GEXSHM_DT_S(long long),                                            \
        unsigned char: GEXSHM_DT_U(unsigned char),                                    \
        unsigned short: GEXSHM_DT_U(unsigned short),                                  \
        unsigned int: GEXSHM_DT_U(unsigned int),                                      \
        unsigned long: GEXSHM_DT_U(unsigned long),                                    \
        unsigned long long: GEXSHM_DT_U(unsigned long long),                          \
        float: GEX_DT_FLT, double: GEX_DT_DBL,                                        \
        default: GEX_DT_USER))

#endif /* GEXSHM_COLL_OPS_H */
