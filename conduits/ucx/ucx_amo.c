/*
 * ucx_amo.c: network atomics on the ucx conduit (conduit ABI 1.2,
 * GEX_CONDUIT_CAP_AMO): ucp_atomic_op_nbx on a word of a peer's published
 * segment (keys as for RMA, ucx_rma.c).
 *
 * UCP offers ADD, AND, OR, XOR, SWAP and CSWAP on 32- and 64-bit words.
 * GEX's operations map onto them: SUB, INC and DEC are ADDs of -x, 1 and
 * -1 (two's complement wraps as GEX's integer arithmetic does), SET is a
 * SWAP whose old value is dropped, GET a fetching OR of 0, CAS and FCAS a
 * CSWAP.  MULT, MIN and MAX have no UCP form; nor do arithmetic and
 * compare-and-swap on FLT and DBL (CSWAP compares bits, GEX compares values:
 * +0.0 and -0.0, NaN), while SET, GET and SWAP move the bits and are offered
 * for them.  amo_query refuses the rest, so a domain declaring any of them
 * stays on the AM reference path.
 *
 * Every operation is issued in its fetching form, into a reply word of its
 * own: its completion then means it was performed at the target (remote
 * completion, cpl->rc), with no flush; the old value is copied to *result
 * for the fetching GEX operations first.
 */
#include "ucx_internal.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum gexc_ucx_opnd { GEXC_UCX_AS_IS, GEXC_UCX_NEGATE, GEXC_UCX_PLUS1, GEXC_UCX_MINUS1,
                     GEXC_UCX_ZERO, GEXC_UCX_COMPARE };

struct gexc_ucx_amo_map {
    int ok;
    ucp_atomic_op_t uop;
    enum gexc_ucx_opnd opnd;
    int fetches;             /* the GEX operation returns the old value */
    int integer_only;
};

static struct gexc_ucx_amo_map gexc_ucx_amo_op(uint32_t op)
{
    struct gexc_ucx_amo_map m = { 1, UCP_ATOMIC_OP_ADD, GEXC_UCX_AS_IS, 0, 1 };
    switch (op) {
    case GEX_OP_FADD: m.fetches = 1; /* fall through */
    case GEX_OP_ADD: break;
    case GEX_OP_FSUB: m.fetches = 1; /* fall through */
    case GEX_OP_SUB: m.opnd = GEXC_UCX_NEGATE; break;
    case GEX_OP_FINC: m.fetches = 1; /* fall through */
    case GEX_OP_INC: m.opnd = GEXC_UCX_PLUS1; break;
    case GEX_OP_FDEC: m.fetches = 1; /* fall through */
    case GEX_OP_DEC: m.opnd = GEXC_UCX_MINUS1; break;
    case GEX_OP_FAND: m.fetches = 1; /* fall through */
    case GEX_OP_AND: m.uop = UCP_ATOMIC_OP_AND; break;
    case GEX_OP_FOR: m.fetches = 1; /* fall through */
    case GEX_OP_OR: m.uop = UCP_ATOMIC_OP_OR; break;
    case GEX_OP_FXOR: m.fetches = 1; /* fall through */
    case GEX_OP_XOR: m.uop = UCP_ATOMIC_OP_XOR; break;
    case GEX_OP_SWAP: m.fetches = 1; /* fall through */
    case GEX_OP_SET: m.uop = UCP_ATOMIC_OP_SWAP; m.integer_only = 0; break;
    case GEX_OP_GET: m.uop = UCP_ATOMIC_OP_OR; m.opnd = GEXC_UCX_ZERO; m.fetches = 1;
        m.integer_only = 0; break;
    case GEX_OP_FCAS: m.fetches = 1; /* fall through */
    case GEX_OP_CAS: m.uop = UCP_ATOMIC_OP_CSWAP; m.opnd = GEXC_UCX_COMPARE; break;
    default: m.ok = 0; break;   /* MULT, MIN, MAX and their fetching forms, USER */
    }
    return m;
}

/* The word's size for dt, or 0. */
static size_t gexc_ucx_amo_size(uint32_t dt)
{
    switch (dt) {
    case GEX_DT_I32: case GEX_DT_U32: case GEX_DT_FLT: return 4;
    case GEX_DT_I64: case GEX_DT_U64: case GEX_DT_DBL: return 8;
    default: return 0;
    }
}

int gexc_ucx_amo_query(struct gex_conduit *c, uint32_t dt, uint32_t op)
{
    const struct gexc_ucx_amo_map m = gexc_ucx_amo_op(op);
    const int is_fp = dt == GEX_DT_FLT || dt == GEX_DT_DBL;
    if (!c->has_amo || !gexc_ucx_amo_size(dt) || !m.ok || (is_fp && m.integer_only))
        return GEX_CONDUIT_ENOTSUP;
    return GEX_CONDUIT_OK;
}

/* A size-byte word (4 or 8) read as an integer, and stored back, in the
 * first bytes of a uint64_t buffer whatever the byte order. */
static uint64_t gexc_ucx_word(const void *p, size_t size)
{
    if (size == 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        return w;
    }
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}
static void gexc_ucx_put_word(uint64_t *dst, uint64_t v, size_t size)
{
    if (size == 4) {
        const uint32_t w = (uint32_t)v;
        memcpy(dst, &w, 4);
    } else {
        *dst = v;
    }
}

/* One operation in flight: the operand and the reply word live here until
 * it completes. */
struct gexc_ucx_amo {
    uint64_t operand;
    uint64_t reply;          /* CSWAP: the value to write going in */
    void *result;            /* the GEX result pointer, or NULL */
    size_t size;
    GEX_CONDUIT_ATOMIC_U32 *rc;
};

static void gexc_ucx_amo_finish(struct gexc_ucx_amo *a)
{
    if (a->result) memcpy(a->result, &a->reply, a->size);
    if (a->rc) atomic_fetch_sub_explicit(a->rc, 1, memory_order_release);
    free(a);
}

static struct gex_conduit *gexc_ucx_amo_owner;   /* for errors inside callbacks */
static uint64_t gexc_ucx_amo_self_bitwise(struct gex_conduit *c, ucp_atomic_op_t uop,
                                          uint64_t x, uintptr_t addr, ucp_rkey_h key,
                                          size_t size);

static void gexc_ucx_amo_done(void *request, ucs_status_t st, void *user_data)
{
    if (GEXC_UCX_UNLIKELY(st != UCS_OK))
        gexc_ucx_comm_failed(gexc_ucx_amo_owner, "rank %u: a remote atomic failed: %s",
                             (unsigned)gexc_ucx_amo_owner->me, ucs_status_string(st));
    gexc_ucx_amo_finish(user_data);
    ucp_request_free(request);
}

int gexc_ucx_amo(struct gex_conduit *c, gex_EP_Index_t local_ep, gex_Rank_t tgt,
                 gex_EP_Index_t tgt_ep, void *tgt_addr, uint32_t dt, uint32_t op,
                 const void *operand1, const void *operand2, void *result,
                 const struct gex_conduit_cpl *cpl, gex_Flags_t flags)
{
    (void)local_ep;
    const struct gexc_ucx_amo_map m = gexc_ucx_amo_op(op);
    const size_t size = gexc_ucx_amo_size(dt);
    if (GEXC_UCX_UNLIKELY(gexc_ucx_amo_query(c, dt, op) != GEX_CONDUIT_OK || tgt >= c->n))
        return GEX_CONDUIT_EINVAL;
    struct gexc_ucx_amo *a = malloc(sizeof *a);
    if (!a) return GEX_CONDUIT_ENOMEM;
    a->operand = a->reply = 0;
    a->result = m.fetches ? result : NULL;
    a->size = size;
    a->rc = cpl ? cpl->rc : NULL;
    /* the operand UCP sees, as a size-byte integer */
    uint64_t v = 0;
    switch (m.opnd) {
    case GEXC_UCX_AS_IS: v = gexc_ucx_word(operand1, size); break;
    case GEXC_UCX_NEGATE: v = (uint64_t)0 - gexc_ucx_word(operand1, size); break;
    case GEXC_UCX_PLUS1: v = 1; break;
    case GEXC_UCX_MINUS1: v = (uint64_t)0 - 1; break;
    case GEXC_UCX_ZERO: break;
    case GEXC_UCX_COMPARE:
        /* GEX: operand1 is compared, operand2 written; UCP's CSWAP compares
         * the operand buffer and writes what the reply buffer holds */
        v = gexc_ucx_word(operand1, size);
        gexc_ucx_put_word(&a->reply, gexc_ucx_word(operand2, size), size);
        break;
    }
    gexc_ucx_put_word(&a->operand, v, size);
    int st;
    gexc_ucx_lock(c);
    /* A rank that spins on atomics (a flag it reads with GET) must still
     * serve the operations peers aim at it: UCX performs those in software,
     * at the target, when its worker progresses (ucx_rma.c, "passive"). */
    ucp_worker_progress(c->worker);
    ucp_rkey_h key = gexc_ucx_rkey_lookup(c, tgt, tgt_ep, (uintptr_t)tgt_addr, size,
                                          (flags & GEX_FLAG_IMMEDIATE) != 0, &st);
    if (!key) {
        gexc_ucx_unlock(c);
        free(a);
        return st;
    }
    if (tgt == c->me && (m.uop == UCP_ATOMIC_OP_AND || m.uop == UCP_ATOMIC_OP_OR ||
                         m.uop == UCP_ATOMIC_OP_XOR)) {
        a->reply = 0;
        gexc_ucx_put_word(&a->reply, gexc_ucx_amo_self_bitwise(c, m.uop, v,
                                                               (uintptr_t)tgt_addr, key, size),
                          size);
        gexc_ucx_amo_finish(a);
        gexc_ucx_unlock(c);
        return GEX_CONDUIT_OK;
    }
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                     UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.cb.send = gexc_ucx_amo_done;
    p.user_data = a;
    p.datatype = ucp_dt_make_contig(size);
    p.reply_buffer = &a->reply;
    ucs_status_ptr_t r = ucp_atomic_op_nbx(gexc_ucx_ep(c, tgt), m.uop, &a->operand, 1,
                                           (uint64_t)(uintptr_t)tgt_addr, key, &p);
    if (GEXC_UCX_UNLIKELY(UCS_PTR_IS_ERR(r)))
        gexc_ucx_comm_failed(c, "rank %u: a remote atomic on rank %u failed: %s",
                             (unsigned)c->me, (unsigned)tgt,
                             ucs_status_string(UCS_PTR_STATUS(r)));
    if (!r) gexc_ucx_amo_finish(a);   /* done at once; else the callback finishes it */
    gexc_ucx_unlock(c);
    return GEX_CONDUIT_OK;
}

/* One fetching operation on (ep, addr), waited for (lock held); returns the
 * old value (CSWAP: `in` is the value to write; the operand is compared). */
static uint64_t gexc_ucx_amo_now(struct gex_conduit *c, ucp_ep_h ep, ucp_atomic_op_t uop,
                                 uint64_t operand, uint64_t in, uintptr_t addr, ucp_rkey_h key,
                                 size_t size)
{
    uint64_t opnd = 0, reply = 0;
    gexc_ucx_put_word(&opnd, operand, size);
    gexc_ucx_put_word(&reply, in, size);
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.datatype = ucp_dt_make_contig(size);
    p.reply_buffer = &reply;
    ucs_status_ptr_t r = ucp_atomic_op_nbx(ep, uop, &opnd, 1, (uint64_t)addr, key, &p);
    ucs_status_t st = UCS_PTR_IS_ERR(r) ? UCS_PTR_STATUS(r) : r ? gexc_ucx_wait(c, r) : UCS_OK;
    if (GEXC_UCX_UNLIKELY(st != UCS_OK))
        c->host.fatal("ucx conduit: rank %u: a remote atomic on itself failed: %s",
                      (unsigned)c->me, ucs_status_string(st));
    return gexc_ucx_word(&reply, size);
}

/* AND, OR and XOR on a word of this process: UCX 1.13's "self" transport
 * computes them with the old value in place of the operand (AND and OR
 * leave the word, XOR zeroes it), so they are done as a compare-and-swap
 * loop, which it gets right, still through UCX (the same path as every
 * other operation on the word, so the domain stays coherent).  Returns
 * the old value. */
static uint64_t gexc_ucx_amo_self_bitwise(struct gex_conduit *c, ucp_atomic_op_t uop,
                                          uint64_t x, uintptr_t addr, ucp_rkey_h key, size_t size)
{
    ucp_ep_h ep = gexc_ucx_ep(c, c->me);
    const uint64_t mask = size == 4 ? 0xffffffffu : ~(uint64_t)0;
    uint64_t old = gexc_ucx_amo_now(c, ep, UCP_ATOMIC_OP_ADD, 0, 0, addr, key, size);
    for (;;) {
        const uint64_t want = (uop == UCP_ATOMIC_OP_AND ? old & x
                               : uop == UCP_ATOMIC_OP_OR ? old | x : old ^ x) & mask;
        const uint64_t seen = gexc_ucx_amo_now(c, ep, UCP_ATOMIC_OP_CSWAP, old, want, addr, key,
                                               size);
        if (seen == old) return old;
        old = seen;
    }
}

void gexc_ucx_amo_setup(struct gex_conduit *c)
{
    gexc_ucx_amo_owner = c;
}
