/*
 * am_loopback.c: AMs a process sends to itself (am_internal.h, "Loopback").
 *
 * GASNet runs the handler of an AM to the sending process inside the
 * sending call, and programs written for it count on that: a thread that
 * sends itself a Request and then waits, without polling, for another
 * thread to see the handler's effect (GASNet's testcontend) hangs when the
 * AM waits in a queue for the next poll.  The spec promises neither
 * behaviour, so GEX does what GASNet does, for every conduit, and
 * GEX_AM_LOOPBACK=conduit sends such AMs through the conduit instead
 * (docs/am.md).  It is also the cheaper path: no queue, no poll.
 *
 * Payload: a Medium is copied into a buffer of the call's own (the
 * handler may not see the sender's buffer, which it could outlive or
 * which may be the descriptor's own scratch space), on the stack up to
 * LOOPBACK_STACK bytes, else from the heap; a Long is copied to dest_addr
 * (memmove: a client may send from a segment onto itself).  Both are done
 * before the handler runs, so lc_opt is complete at return as for any
 * send.  Handlers nest at most as the spec allows them to (a Request
 * handler's Reply runs inside it), and each level has its own buffer.
 *
 * Serialized EPs (docs/endpoints.md) have their handlers run only by their
 * owner thread, so a Request to another EP of this process that is
 * serialized goes through the conduit, whose owner polls it.
 */
#include "am_internal.h"
#include <stdlib.h>
#include <string.h>

/* Weak: an older libgex-core (mixed-version installs) does not export it,
 * and loopback then stays off. */
extern void gexi_deliver_am(void *core_ctx, const struct gex_conduit_am *m, void *reply_ctx)
    __attribute__((weak));

/* Its address is the reply_ctx of loopback tokens (GEXI_AM_LOOPBACK_CTX);
 * no conduit hands out a pointer into libgex-am. */
const char gexi_am_loopback_tag;

#define LOOPBACK_STACK 1024

static int loopback_deliver(const struct gex_conduit_am *m)
{
    struct gex_conduit_am d = *m;
    d.src_jobrank = gexi_core.jobrank;
    _Alignas(64) unsigned char stack_buf[LOOPBACK_STACK];
    void *heap = NULL;
    if (m->category == GEX_CONDUIT_AM_MEDIUM) {
        void *buf = stack_buf;
        if (m->nbytes > sizeof stack_buf) {
            buf = heap = malloc(m->nbytes);
            if (!buf) gexi_fatal("AM to self: out of memory for a %zu-byte Medium", m->nbytes);
        }
        if (m->nbytes) memcpy(buf, m->payload, m->nbytes);
        d.payload = buf;
    } else if (m->category == GEX_CONDUIT_AM_LONG) {
        if (m->nbytes && m->payload != m->dest_addr) memmove(m->dest_addr, m->payload, m->nbytes);
        d.payload = m->dest_addr;
    } else {
        d.payload = NULL;
        d.nbytes = 0;
    }
    gexi_deliver_am(NULL, &d, GEXI_AM_LOOPBACK_CTX);
    free(heap);
    return GEX_CONDUIT_OK;
}

/* A Request to an EP of this process is delivered here unless that EP is
 * serialized and not the sender's (file comment). */
static int request_stays_here(const struct gex_conduit_am *m)
{
    if (m->dst_ep == m->src_ep) return 1;
    const struct gexi_ep *ep = m->dst_ep < GASNET_MAXEPS ? gexi_core.client->eps[m->dst_ep] : NULL;
    return !ep || !(ep->flags & GEX_FLAG_EP_SERIALIZED);
}

int gexi_am_loopback_request(gex_Rank_t jobrank, const struct gex_conduit_am *m,
                             gex_Flags_t flags)
{
    if (GEXI_UNLIKELY(!request_stays_here(m)))
        return gexi_am.request(gexi_core.conduit, jobrank, m, flags);
    return loopback_deliver(m);
}

int gexi_am_loopback_reply(const struct gex_conduit_am *m)
{
    return loopback_deliver(m);
}

/* Negotiated-payload Longs to oneself (am_np.c, np_prepare, where the
 * conduit's own Long slots are bound and it is a shared-memory conduit,
 * whose Long Prepare hands out a mapped destination itself; elsewhere the
 * reference buffer, as the conduit's send buffer would not be the
 * destination either): with a library buffer and a 16-byte
 * aligned dest_addr given at Prepare whose min(most, MaxLong) bytes lie in
 * the destination EP's bound segment, the buffer is the destination itself,
 * as the smp conduit does for a mapped peer: the client assembles the
 * payload in place and the Commit runs the handler with nothing to copy.
 * Other cases decline (GEX_CONDUIT_ENOTSUP), and am_np.c then prepares on
 * the reference slots, whose Commit also delivers here. */
static int loopback_np_prepare(struct gex_conduit *c, gex_Rank_t jobrank, void *reply_ctx,
                               const struct gex_conduit_am *m, size_t least, size_t most,
                               gex_Flags_t flags, struct gex_conduit_np *np)
{
    (void)c;
    (void)least;
    (void)flags;   /* IMMEDIATE: nothing here can run out */
    if (m->payload || !m->dest_addr || ((uintptr_t)m->dest_addr & 15))
        return GEX_CONDUIT_ENOTSUP;
    if (m->is_request ? !request_stays_here(m) : reply_ctx != GEXI_AM_LOOPBACK_CTX)
        return GEX_CONDUIT_ENOTSUP;   /* the conduit would copy the destination onto itself */
    const size_t max = gexi_am_max_payload(GEX_CONDUIT_AM_LONG, m->is_request);
    const size_t size = most < max ? most : max;
    if (size && !gexi_peer_local_addr(gexi_core.jobrank, m->dst_ep, m->dest_addr, size))
        return GEX_CONDUIT_ENOTSUP;
    np->buf = m->dest_addr;
    np->size = size;
    np->priv[0] = m->is_request ? (uintptr_t)jobrank : (uintptr_t)reply_ctx;
    return GEX_CONDUIT_OK;
}

static int loopback_np_cancel(struct gex_conduit *c, struct gex_conduit_np *np)
{
    (void)c;
    (void)np;
    return GEX_CONDUIT_OK;   /* nothing reserved; the client's bytes stay where it wrote them */
}

const struct gexi_am_np_slots gexi_am_np_loopback_long_slots = {
    /* The reference Commit sends np->priv[0]'s way, which delivers here. */
    loopback_np_prepare, gexi_am_np_ref_commit, loopback_np_cancel, "loopback"
};

/* GEX_AM_LOOPBACK: "sync" (the default) or "conduit". */
void gexi_am_loopback_bind(void)
{
    const char *v = gexi_getenv("GEX_AM_LOOPBACK");
    int on = 1;
    if (v && *v) {
        if (!strcmp(v, "conduit")) on = 0;
        else if (strcmp(v, "sync"))
            gexi_fatal("environment variable GEX_AM_LOOPBACK='%s' is not sync or conduit", v);
    }
    gexi_am.loopback_rank = on && gexi_deliver_am ? gexi_core.jobrank : GEX_RANK_INVALID;
    gexi_am.np_loopback_zero_copy =
        gexi_am.np[GEXI_AM_NP_LONG].prepare != gexi_am_np_ref_prepare &&
        (gexi_core.caps.flags & GEX_CONDUIT_CAP_SHARED_MEMORY) != 0;
}
