/*
 * am_np_ref.c: the reference negotiated-payload AM, for any conduit: it
 * needs only the fixed-payload send of conduit ABI 1.0.  Its three functions
 * have the conduit ABI 1.1 signatures (am_prepare / am_commit / am_cancel)
 * so that bind() can put them or a conduit's own ops into the same slots of
 * gexi_am.np (am_layer.c); they are reached only through that table.
 *
 * Prepare reserves nothing in the conduit.  It offers the client's buffer
 * as is (size min(most, the fixed-payload maximum)), or a library buffer:
 * one per thread and direction (a Request's Commit may run Request handlers
 * that prepare a Reply while it waits), of MaxMedium bytes for Mediums and
 * GEX_AM_NP_LONG_BUFFER bytes (default 64 KiB, at most MaxLong) for Longs,
 * allocated on first use and freed when the thread exits.  Commit is then a
 * fixed-payload AM of that buffer, so a library buffer costs the client one
 * copy more than it saves: this path is correct everywhere and fast
 * nowhere, which is why conduits specialize it.
 *
 * GEX_FLAG_IMMEDIATE: the Prepare has no conduit resource to check and so
 * always succeeds (the spec lets an implementation ignore the flag where it
 * cannot tell); a Commit*_v2 with GEX_FLAG_IMMEDIATE passes it to the
 * fixed-payload send, which fails without side effects when the conduit is
 * short of room, leaving the descriptor prepared.
 *
 * np->priv: [0] destination jobrank (Request) or reply_ctx (Reply).
 */
#include "am_internal.h"
#include <pthread.h>
#include <stdlib.h>

#define GEXI_AM_NP_LONG_BUFFER_DEFAULT ((size_t)64 << 10)

size_t gexi_am_np_ref_long_buf = GEXI_AM_NP_LONG_BUFFER_DEFAULT;

/* Library buffers of the calling thread: [0] Requests, [1] Replies. */
struct np_ref_bufs {
    void *buf[2];
    size_t cap;
};
static __thread struct np_ref_bufs np_bufs __attribute__((tls_model("initial-exec")));
static pthread_key_t np_key;
static pthread_once_t np_key_once = PTHREAD_ONCE_INIT;

static void np_bufs_free(void *arg)
{
    struct np_ref_bufs *b = arg;
    free(b->buf[0]);
    free(b->buf[1]);
    b->buf[0] = b->buf[1] = NULL;
}

static void np_key_create(void)
{
    if (pthread_key_create(&np_key, np_bufs_free) != 0)
        gexi_fatal("negotiated-payload AM: pthread_key_create failed");
}

void gexi_am_np_ref_bind(void)
{
    size_t max_long = gexi_core.caps.am_max_long_request < gexi_core.caps.am_max_long_reply
                    ? gexi_core.caps.am_max_long_request : gexi_core.caps.am_max_long_reply;
    size_t v = (size_t)gexi_getenv_size("GEX_AM_NP_LONG_BUFFER", GEXI_AM_NP_LONG_BUFFER_DEFAULT);
    if (v < 512) v = 512;                  /* spec: the Max* queries answer >= 512 */
    if (v > max_long) v = max_long;
    gexi_am_np_ref_long_buf = v;
    pthread_once(&np_key_once, np_key_create);
}

__attribute__((noinline))
static void *np_ref_alloc(int dir)
{
    struct np_ref_bufs *b = &np_bufs;
    if (!b->cap) {
        size_t cap = gexi_core.caps.am_max_medium;
        if (gexi_am_np_ref_long_buf > cap) cap = gexi_am_np_ref_long_buf;
        b->cap = (cap + 63) & ~(size_t)63;
        pthread_setspecific(np_key, b);
    }
    void *p = aligned_alloc(64, b->cap);   /* "suitably aligned to hold any data type" */
    if (!p) gexi_fatal("negotiated-payload AM: out of memory for a %zu-byte buffer", b->cap);
    b->buf[dir] = p;
    return p;
}

int gexi_am_np_ref_prepare(struct gex_conduit *c, gex_Rank_t dst_jobrank, void *reply_ctx,
                           const struct gex_conduit_am *m, size_t least, size_t most,
                           gex_Flags_t flags, struct gex_conduit_np *np)
{
    (void)c;
    (void)least;   /* checked by the caller against the same limits */
    (void)flags;   /* IMMEDIATE: nothing to reserve (file comment) */
    size_t cap;
    if (m->payload) {
        cap = gexi_am_max_payload(m->category, m->is_request);
        np->buf = m->payload;
    } else {
        const int dir = !m->is_request;
        cap = m->category == GEX_CONDUIT_AM_LONG ? gexi_am_np_ref_long_buf
                                                 : gexi_core.caps.am_max_medium;
        void *p = np_bufs.buf[dir];
        np->buf = GEXI_LIKELY(p != NULL) ? p : np_ref_alloc(dir);
    }
    np->size = most < cap ? most : cap;
    np->priv[0] = m->is_request ? (uintptr_t)dst_jobrank : (uintptr_t)reply_ctx;
    return GEX_CONDUIT_OK;
}

int gexi_am_np_ref_commit(struct gex_conduit *c, struct gex_conduit_np *np,
                          const struct gex_conduit_am *m, gex_Flags_t flags)
{
    (void)c;   /* gexi_core.conduit; the sends also serve loopback */
    if (m->is_request) return gexi_am_send_request((gex_Rank_t)np->priv[0], m, flags);
    return gexi_am_send_reply((void *)np->priv[0], m, flags);
}

int gexi_am_np_ref_cancel(struct gex_conduit *c, struct gex_conduit_np *np)
{
    (void)c;
    (void)np;   /* nothing was reserved */
    return GEX_CONDUIT_OK;
}
