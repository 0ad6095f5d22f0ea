/* Remote access to static and global symmetric objects (OpenSHMEM 1.5
 * section 3: "data objects ... in the data segment are symmetric").
 *
 * The executable's .data/.bss are not in the GEX segment, and registering
 * them would make them one more segment per endpoint (which GEX does not
 * have) - so another PE's static objects are reached with Active Messages:
 * a handler at the target copies or updates its own memory at the same
 * offset from its own data start (every PE runs the same executable, so
 * offsets agree even when the addresses do not).  Operations are complete
 * on return (the requester waits for the reply), which is stronger than
 * any OpenSHMEM routine asks and keeps quiet and fence trivial for them. */
#include "shmem_internal.h"
#include <sched.h>
#include <string.h>

enum { H_PUT, H_ACK, H_GET, H_DATA, H_AMO, H_COUNT };
static gex_AM_Index_t h_index[H_COUNT];

#define HI(p) ((gex_AM_Arg_t)(uint32_t)((uint64_t)(uintptr_t)(p) >> 32))
#define LO(p) ((gex_AM_Arg_t)(uint32_t)(uint64_t)(uintptr_t)(p))
#define PTR(hi, lo) ((void *)(uintptr_t)(((uint64_t)(uint32_t)(hi) << 32) | (uint32_t)(lo)))
#define OFF(hi, lo) ((size_t)(((uint64_t)(uint32_t)(hi) << 32) | (uint32_t)(lo)))

static void done_one(void *counter)
{
    __atomic_sub_fetch((int *)counter, 1, __ATOMIC_RELEASE);
}

/* Poll for the replies; yield the core now and then, as shmem_p2p.c's
 * waits do, so a target sharing our core gets to run its handlers. */
static void wait_done(int *pending)
{
    unsigned spins = 0;
    while (__atomic_load_n(pending, __ATOMIC_ACQUIRE)) {
        gasnet_AMPoll();
        if (++spins == 64) {
            spins = 0;
            sched_yield();
        }
    }
}

static void h_put(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t oh, gex_AM_Arg_t ol,
                  gex_AM_Arg_t dh, gex_AM_Arg_t dl)
{
    memcpy(gexshm.data_lo + OFF(oh, ol), buf, n);
    atomic_thread_fence(memory_order_release);
    gex_AM_ReplyShort(t, h_index[H_ACK], 0, dh, dl);
}

static void h_ack(gex_Token_t t, gex_AM_Arg_t dh, gex_AM_Arg_t dl)
{
    (void)t;
    done_one(PTR(dh, dl));
}

static void h_get(gex_Token_t t, gex_AM_Arg_t oh, gex_AM_Arg_t ol, gex_AM_Arg_t n,
                  gex_AM_Arg_t bh, gex_AM_Arg_t bl, gex_AM_Arg_t dh, gex_AM_Arg_t dl)
{
    gex_AM_ReplyMedium(t, h_index[H_DATA], gexshm.data_lo + OFF(oh, ol), (size_t)(uint32_t)n,
                       GEX_EVENT_NOW, 0, bh, bl, dh, dl);
}

static void h_data(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t bh, gex_AM_Arg_t bl,
                   gex_AM_Arg_t dh, gex_AM_Arg_t dl)
{
    (void)t;
    if (n) memcpy(PTR(bh, bl), buf, n);
    done_one(PTR(dh, dl));
}

/* An atomic on local memory, for every dt as an unsigned integer of its
 * size (two's complement makes add the same for signed types; float and
 * double only get, set, swap and compare by bits). */
#define LOCAL_AMO(UT)                                                                    \
    do {                                                                                 \
        UT *p_ = (UT *)p, a_ = 0, b_ = 0, r_ = 0;                                        \
        if (a) memcpy(&a_, a, sizeof(UT));                                               \
        if (b) memcpy(&b_, b, sizeof(UT));                                               \
        switch (op) {                                                                    \
        case GEX_OP_GET: r_ = __atomic_load_n(p_, __ATOMIC_SEQ_CST); break;              \
        case GEX_OP_SET: __atomic_store_n(p_, a_, __ATOMIC_SEQ_CST); break;              \
        case GEX_OP_SWAP: r_ = __atomic_exchange_n(p_, a_, __ATOMIC_SEQ_CST); break;     \
        case GEX_OP_CAS: case GEX_OP_FCAS:                                               \
            r_ = a_;                                                                     \
            __atomic_compare_exchange_n(p_, &r_, b_, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            break;                                                                       \
        case GEX_OP_ADD: case GEX_OP_FADD: r_ = __atomic_fetch_add(p_, a_, __ATOMIC_SEQ_CST); break; \
        case GEX_OP_INC: case GEX_OP_FINC: r_ = __atomic_fetch_add(p_, 1, __ATOMIC_SEQ_CST); break; \
        case GEX_OP_AND: case GEX_OP_FAND: r_ = __atomic_fetch_and(p_, a_, __ATOMIC_SEQ_CST); break; \
        case GEX_OP_OR: case GEX_OP_FOR: r_ = __atomic_fetch_or(p_, a_, __ATOMIC_SEQ_CST); break; \
        case GEX_OP_XOR: case GEX_OP_FXOR: r_ = __atomic_fetch_xor(p_, a_, __ATOMIC_SEQ_CST); break; \
        default: gexshm_fatal("internal: atomic op %#x on static data", (unsigned)op);   \
        }                                                                                \
        if (res) memcpy(res, &r_, sizeof(UT));                                           \
    } while (0)

static size_t dt_size(gex_DT_t dt)
{
    return (dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_FLT) ? 4 : 8;
}

static void local_amo(gex_DT_t dt, gex_OP_t op, void *p, void *res, const void *a, const void *b)
{
    if (dt_size(dt) == 4) LOCAL_AMO(uint32_t);
    else LOCAL_AMO(uint64_t);
}

struct amo_msg {
    uint32_t dt, op;
    uint64_t a, b;
};

static void h_amo(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t oh, gex_AM_Arg_t ol,
                  gex_AM_Arg_t rh, gex_AM_Arg_t rl, gex_AM_Arg_t dh, gex_AM_Arg_t dl)
{
    struct amo_msg m;
    uint64_t old = 0;
    (void)n;
    memcpy(&m, buf, sizeof m);
    local_amo(m.dt, m.op, gexshm.data_lo + OFF(oh, ol), &old, &m.a, &m.b);
    size_t back = PTR(rh, rl) ? dt_size(m.dt) : 0;
    gex_AM_ReplyMedium(t, h_index[H_DATA], &old, back, GEX_EVENT_NOW, 0, rh, rl, dh, dl);
}

void gexshm_static_init(void)
{
    gex_AM_Entry_t table[H_COUNT] = {
        {0, (gex_AM_Fn_t)h_put, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 4, NULL, "shmem_static_put"},
        {0, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "shmem_static_ack"},
        {0, (gex_AM_Fn_t)h_get, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 7, NULL, "shmem_static_get"},
        {0, (gex_AM_Fn_t)h_data, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 4, NULL, "shmem_static_data"},
        {0, (gex_AM_Fn_t)h_amo, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 6, NULL, "shmem_static_amo"},
    };
    if (gex_EP_RegisterHandlers(gexshm.ep, table, H_COUNT) != GASNET_OK)
        gexshm_fatal("shmem_init: could not register the AM handlers for static data");
    for (int i = 0; i < H_COUNT; i++) h_index[i] = table[i].gex_index;
}

void gexshm_static_put(void *dest, const void *src, size_t n, int pe)
{
    size_t off = (size_t)((char *)dest - gexshm.data_lo);
    size_t chunk = gex_AM_MaxRequestMedium(gexshm.tm, (gex_Rank_t)pe, GEX_EVENT_NOW, 0, 4);
    int pending = (int)((n + chunk - 1) / chunk);
    for (size_t done = 0; done < n; done += chunk) {
        size_t len = n - done < chunk ? n - done : chunk;
        gex_AM_RequestMedium(gexshm.tm, (gex_Rank_t)pe, h_index[H_PUT], (const char *)src + done,
                             len, GEX_EVENT_NOW, 0, HI(off + done), LO(off + done), HI(&pending),
                             LO(&pending));
    }
    wait_done(&pending);
}

void gexshm_static_get(void *dest, const void *src, size_t n, int pe)
{
    size_t off = (size_t)((const char *)src - gexshm.data_lo);
    size_t chunk = gex_AM_LUBReplyMedium();
    int pending = (int)((n + chunk - 1) / chunk);
    for (size_t done = 0; done < n; done += chunk) {
        size_t len = n - done < chunk ? n - done : chunk;
        char *to = (char *)dest + done;
        gex_AM_RequestShort(gexshm.tm, (gex_Rank_t)pe, h_index[H_GET], 0, HI(off + done),
                            LO(off + done), (gex_AM_Arg_t)len, HI(to), LO(to), HI(&pending),
                            LO(&pending));
    }
    wait_done(&pending);
}

void gexshm_static_amo(gex_DT_t dt, gex_OP_t op, void *target, void *result, const void *op1,
                       const void *op2, int pe)
{
    if (pe == gexshm.my_pe) {
        local_amo(dt, op, target, result, op1, op2);
        return;
    }
    struct amo_msg m = {(uint32_t)dt, (uint32_t)op, 0, 0};
    size_t sz = dt_size(dt);
    if (op1) memcpy(&m.a, op1, sz);
    if (op2) memcpy(&m.b, op2, sz);
    size_t off = (size_t)((char *)target - gexshm.data_lo);
    int pending = 1;
    gex_AM_RequestMedium(gexshm.tm, (gex_Rank_t)pe, h_index[H_AMO], &m, sizeof m, GEX_EVENT_NOW,
                         0, HI(off), LO(off), HI(result), LO(result), HI(&pending), LO(&pending));
    wait_done(&pending);
}
