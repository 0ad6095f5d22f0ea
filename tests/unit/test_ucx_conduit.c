/*
 * test_ucx_conduit.c: unit tests of the ucx conduit plug-in (conduits/ucx),
 * driven only through the conduit ABI (include/gex/conduit.h) by a fake
 * core of one rank: AMs to itself go through UCX (its self transport), so
 * the header, argument and payload encoding, the queue between UCX's
 * callback and poll, Replies from a handler, the credits, IMMEDIATE and
 * native RMA (keys, publication, completion counts) are checked without a
 * launcher.  The .mpt files of tests/ucx cover the
 * multi-process behaviour.
 *
 * The test dlopen()s the built plug-in ($TOP_BUILDDIR/.libs/
 * libgex-conduit-ucx.so, or argv[1]); exit 77 (skipped) without one.
 */
#include <check.h>
#include <gex/conduit.h>

#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H_REQ 200      /* Requests the fake core answers with a Short Reply */
#define H_PLAIN 201    /* Requests and Replies that only get recorded */
#define MAXGOT 64

static const struct gex_conduit_ops *ops;

/* ---- the fake core ---- */
struct got {
    struct gex_conduit_am m;
    gex_conduit_arg_t args[16];
    unsigned char *data;     /* copy of the payload */
    void *payload;           /* where the conduit delivered it */
};
static struct got got[MAXGOT];
static unsigned ngot;
static struct gex_conduit *cd;
static const char *env_names[8], *env_values[8];
static char last_log[512];

static void fake_deliver(void *core_ctx, const struct gex_conduit_am *m, void *reply_ctx)
{
    (void)core_ctx;
    ck_assert_uint_lt(ngot, MAXGOT);
    struct got *g = &got[ngot++];
    g->m = *m;
    memcpy(g->args, m->args, m->nargs * sizeof *m->args);
    g->payload = m->payload;
    g->data = m->nbytes ? malloc(m->nbytes) : NULL;
    if (m->nbytes) memcpy(g->data, m->payload, m->nbytes);
    if (m->is_request && m->handler == H_REQ) {
        gex_conduit_arg_t a = (gex_conduit_arg_t)m->nbytes;
        struct gex_conduit_am r = { GEX_CONDUIT_AM_SHORT, 0, H_PLAIN, 1, m->dst_ep, m->src_ep,
                                    0, &a, NULL, 0, NULL };
        ck_assert_int_eq(ops->am_reply(cd, reply_ctx, &r, 0), GEX_CONDUIT_OK);
    }
}
static void fake_log(int level, const char *fmt, ...)
{
    (void)level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_log, sizeof last_log, fmt, ap);
    va_end(ap);
}
static void fake_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_log, sizeof last_log, fmt, ap);
    va_end(ap);
    ck_abort_msg("conduit fatal: %s", last_log);
    abort();
}
static const char *fake_getenv(const char *name)
{
    for (int i = 0; i < 8 && env_names[i]; i++)
        if (!strcmp(env_names[i], name)) return env_values[i];
    return NULL;
}
static int fake_exchange(const void *mine, size_t len, void *all)
{
    memcpy(all, mine, len);   /* one rank */
    return 0;
}
static int fake_barrier(void) { return 0; }
static void *fake_peer_local_addr(gex_Rank_t r, gex_EP_Index_t ep, void *addr, size_t len)
{
    (void)r, (void)ep, (void)len;
    return addr;
}
static void fake_backoff(unsigned *spins)
{
    if (++*spins > 100) sched_yield();
}

static struct gex_host_services host = {
    .struct_size = sizeof(struct gex_host_services), .abi_major = GEX_CONDUIT_ABI_MAJOR,
    .jobrank = 0, .jobsize = 1, .jobid = "ucxunit", .thread_safe = 1,
    .deliver_am = fake_deliver, .log = fake_log, .fatal = fake_fatal, .getenv = fake_getenv,
    .exchange = fake_exchange, .barrier = fake_barrier,
    .peer_local_addr = fake_peer_local_addr, .backoff = fake_backoff,
};

static void set_env(const char *name, const char *value)
{
    int i = 0;
    while (i < 7 && env_names[i]) i++;
    env_names[i] = name;
    env_values[i] = value;
}

static struct gex_conduit_caps caps;
static void start(void)
{
    caps = (struct gex_conduit_caps){ .struct_size = sizeof caps };
    ck_assert_int_eq(ops->init(&host, &cd, &caps), GEX_CONDUIT_OK);
}
/* polls until n messages have been recorded (bounded) */
static void poll_until(unsigned n)
{
    for (long i = 0; ngot < n && i < 2000000; i++) ops->poll(cd);
    ck_assert_uint_eq(ngot, n);
}
static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(seed * 131u + i * 7u);
}

/* ---- tests ---- */

START_TEST(test_caps_and_settings)
{
    start();
    ck_assert_uint_eq(caps.am_max_args, 16);
    ck_assert_uint_eq(caps.flags, GEX_CONDUIT_CAP_IMMEDIATE | GEX_CONDUIT_CAP_RMA);
    ck_assert_int_eq(ops->amo_query(cd, GEX_DT_U64, GEX_OP_FADD), GEX_CONDUIT_ENOTSUP);
    ops->fini(cd);

    set_env("GEX_UCX_AMO", "yes");   /* network atomics are opt-in */
    start();
    ck_assert_uint_eq(caps.flags,
                      GEX_CONDUIT_CAP_IMMEDIATE | GEX_CONDUIT_CAP_RMA | GEX_CONDUIT_CAP_AMO);
    ck_assert_int_eq(ops->amo_query(cd, GEX_DT_U64, GEX_OP_FADD), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->amo_query(cd, GEX_DT_I32, GEX_OP_FXOR), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->amo_query(cd, GEX_DT_DBL, GEX_OP_SWAP), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->amo_query(cd, GEX_DT_U64, GEX_OP_MIN), GEX_CONDUIT_ENOTSUP);
    ck_assert_int_eq(ops->amo_query(cd, GEX_DT_DBL, GEX_OP_FADD), GEX_CONDUIT_ENOTSUP);
    ck_assert_int_eq(ops->amo_query(cd, GEX_DT_FLT, GEX_OP_FCAS), GEX_CONDUIT_ENOTSUP);
    ck_assert_uint_eq(caps.am_max_medium, 65536);   /* default (issue #27; GASNet-EX: 65,512) */
    ck_assert_uint_eq(caps.am_max_long_request, 4u << 20);
    ck_assert_uint_eq(caps.am_max_long_reply, 4u << 20);
    ops->fini(cd);

    set_env("GEX_UCX_MAX_MEDIUM", "8K");
    set_env("GEX_UCX_MAX_LONG", "64KiB");
    set_env("GEX_UCX_RMA", "no");
    start();
    ck_assert_uint_eq(caps.am_max_medium, 8192);
    ck_assert_uint_eq(caps.am_max_long_request, 65536);
    ck_assert_uint_eq(caps.flags, GEX_CONDUIT_CAP_IMMEDIATE);   /* AMs only */
    ck_assert_int_eq(ops->amo_query(cd, GEX_DT_U64, GEX_OP_FADD), GEX_CONDUIT_ENOTSUP);
    uint64_t key = 99;
    ck_assert_int_eq(ops->mem_register(cd, &key, sizeof key, &key), GEX_CONDUIT_OK);
    ck_assert_uint_eq(key, 0);   /* nothing registered: nothing to name */
    ops->fini(cd);
}
END_TEST

START_TEST(test_bad_setting)
{
    set_env("GEX_UCX_CREDITS", "0");
    caps = (struct gex_conduit_caps){ .struct_size = sizeof caps };
    ck_assert_int_ne(ops->init(&host, &cd, &caps), GEX_CONDUIT_OK);
    ck_assert_msg(strstr(last_log, "GEX_UCX_CREDITS") != NULL, "log: %s", last_log);
}
END_TEST

START_TEST(test_every_category_to_self)
{
    start();
    gex_conduit_arg_t args[16];
    for (unsigned i = 0; i < 16; i++) args[i] = (gex_conduit_arg_t)(0x10203040u * (i + 1));
    static unsigned char med[65536], longsrc[8192], longdst[8192 + 16];   /* med: MaxMedium */
    fill(med, sizeof med, 1);
    fill(longsrc, sizeof longsrc, 2);
    struct gex_conduit_am s = { GEX_CONDUIT_AM_SHORT, 1, H_PLAIN, 16, 3, 5, 0, args, NULL, 0, NULL };
    struct gex_conduit_am m0 = { GEX_CONDUIT_AM_MEDIUM, 1, H_PLAIN, 0, 0, 0, 0, args, med, 0, NULL };
    struct gex_conduit_am m1 = { GEX_CONDUIT_AM_MEDIUM, 1, H_PLAIN, 7, 0, 0, 0, args, med, 1, NULL };
    struct gex_conduit_am mx = { GEX_CONDUIT_AM_MEDIUM, 1, H_PLAIN, 2, 0, 0, 0, args, med,
                                 sizeof med, NULL };
    struct gex_conduit_am l = { GEX_CONDUIT_AM_LONG, 1, H_PLAIN, 1, 0, 0, 0, args, longsrc,
                                sizeof longsrc, longdst + 3 };
    ck_assert_int_eq(ops->am_request(cd, 0, &s, 0), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->am_request(cd, 0, &m0, 0), GEX_CONDUIT_OK);
    const unsigned char first = med[0];
    ck_assert_int_eq(ops->am_request(cd, 0, &m1, 0), GEX_CONDUIT_OK);
    med[0] ^= 0xff;   /* the payload is free at return: m1 keeps what it had */
    ck_assert_int_eq(ops->am_request(cd, 0, &mx, 0), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->am_request(cd, 0, &l, 0), GEX_CONDUIT_OK);
    poll_until(5);
    /* in order, every field */
    ck_assert_uint_eq(got[0].m.category, GEX_CONDUIT_AM_SHORT);
    ck_assert_uint_eq(got[0].m.nargs, 16);
    ck_assert_uint_eq(got[0].m.src_ep, 3);
    ck_assert_uint_eq(got[0].m.dst_ep, 5);
    ck_assert_uint_eq(got[0].m.src_jobrank, 0);
    ck_assert_uint_eq(got[0].m.is_request, 1);
    ck_assert_uint_eq(got[0].m.nbytes, 0);
    ck_assert_mem_eq(got[0].args, args, sizeof args);
    ck_assert_uint_eq(got[1].m.nbytes, 0);
    ck_assert_uint_eq(got[2].m.nargs, 7);
    ck_assert_uint_eq(got[2].m.nbytes, 1);
    ck_assert_uint_eq(got[2].data[0], first);
    ck_assert_uint_eq(got[3].m.nbytes, sizeof med);
    ck_assert_mem_eq(got[3].data, med, sizeof med);
    ck_assert_uint_eq((uintptr_t)got[3].payload & 7, 0);   /* Medium payloads are 8-aligned */
    ck_assert_uint_eq(got[4].m.category, GEX_CONDUIT_AM_LONG);
    ck_assert_ptr_eq(got[4].payload, longdst + 3);
    ck_assert_ptr_eq(got[4].m.dest_addr, longdst + 3);
    ck_assert_mem_eq(longdst + 3, longsrc, sizeof longsrc);
    ck_assert_uint_eq(longdst[2], 0);
    ck_assert_uint_eq(longdst[3 + sizeof longsrc], 0);
    ops->fini(cd);
}
END_TEST

START_TEST(test_reply_from_handler)
{
    start();
    static unsigned char buf[300];
    fill(buf, sizeof buf, 3);
    struct gex_conduit_am m = { GEX_CONDUIT_AM_MEDIUM, 1, H_REQ, 0, 0, 0, 0, NULL, buf,
                                sizeof buf, NULL };
    ck_assert_int_eq(ops->am_request(cd, 0, &m, 0), GEX_CONDUIT_OK);
    poll_until(2);   /* the Request, then the Reply its handler sent */
    ck_assert_uint_eq(got[1].m.is_request, 0);
    ck_assert_uint_eq(got[1].m.handler, H_PLAIN);
    ck_assert_uint_eq(got[1].m.nargs, 1);
    ck_assert_int_eq(got[1].args[0], 300);
    /* a reply_ctx the conduit never handed out */
    struct gex_conduit_am r = { GEX_CONDUIT_AM_SHORT, 0, H_PLAIN, 0, 0, 0, 0, NULL, NULL, 0, NULL };
    ck_assert_int_eq(ops->am_reply(cd, NULL, &r, 0), GEX_CONDUIT_EINVAL);
    ck_assert_int_eq(ops->am_reply(cd, (void *)(uintptr_t)2, &r, 0), GEX_CONDUIT_EINVAL);
    ops->fini(cd);
}
END_TEST

START_TEST(test_bad_requests)
{
    start();
    static unsigned char big[65537];   /* MaxMedium + 1 */
    struct gex_conduit_am m = { GEX_CONDUIT_AM_MEDIUM, 1, H_PLAIN, 0, 0, 0, 0, NULL, big,
                                sizeof big, NULL };
    ck_assert_int_eq(ops->am_request(cd, 0, &m, 0), GEX_CONDUIT_EINVAL);   /* > MaxMedium */
    m.nbytes = 1;
    ck_assert_int_eq(ops->am_request(cd, 1, &m, 0), GEX_CONDUIT_EINVAL);   /* no rank 1 */
    m.nargs = 17;
    ck_assert_int_eq(ops->am_request(cd, 0, &m, 0), GEX_CONDUIT_EINVAL);
    for (int i = 0; i < 100; i++) ops->poll(cd);
    ck_assert_uint_eq(ngot, 0);   /* nothing was sent */
    ops->fini(cd);
}
END_TEST

/* With 2 credits, a third Request waits for the first two to be delivered:
 * IMMEDIATE is refused without side effects until a poll delivered them and
 * the credits came back. */
START_TEST(test_credits_and_immediate)
{
    set_env("GEX_UCX_CREDITS", "2");
    start();
    static unsigned char buf[1000];
    struct gex_conduit_am m = { GEX_CONDUIT_AM_MEDIUM, 1, H_PLAIN, 0, 0, 0, 0, NULL, buf,
                                sizeof buf, NULL };
    ck_assert_int_eq(ops->am_request(cd, 0, &m, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->am_request(cd, 0, &m, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_OK);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ops->am_request(cd, 0, &m, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_EAGAIN);
    ck_assert_uint_eq(ngot, 0);
    poll_until(2);
    /* the credits return in a message of their own (nothing else goes back) */
    int rc = GEX_CONDUIT_EAGAIN;
    for (long i = 0; rc == GEX_CONDUIT_EAGAIN && i < 2000000; i++) {
        rc = ops->am_request(cd, 0, &m, GEX_FLAG_IMMEDIATE);
        if (rc == GEX_CONDUIT_EAGAIN) ops->poll(cd);
    }
    ck_assert_int_eq(rc, GEX_CONDUIT_OK);
    /* without IMMEDIATE a Request waits, polling, instead of failing */
    ck_assert_int_eq(ops->am_request(cd, 0, &m, 0), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->am_request(cd, 0, &m, 0), GEX_CONDUIT_OK);
    poll_until(5);
    for (unsigned i = 0; i < ngot; i++) ck_assert_uint_eq(got[i].m.nbytes, sizeof buf);
    ops->fini(cd);
}
END_TEST

/* A Medium Request takes one credit per started 16 KiB of payload, at most
 * half the window: with 8 credits a 64 KiB one takes 4, a 20,000-byte one
 * 2, a small one 1; with 2 credits every Request takes 1 (a window smaller
 * than a Medium's cost would never let it go). */
START_TEST(test_credit_cost_of_large_mediums)
{
    set_env("GEX_UCX_CREDITS", "8");
    start();
    static unsigned char big[65536], mid[20000], small[100];
    fill(big, sizeof big, 4);
    struct gex_conduit_am mb = { GEX_CONDUIT_AM_MEDIUM, 1, H_PLAIN, 0, 0, 0, 0, NULL, big,
                                 sizeof big, NULL };
    struct gex_conduit_am mm = mb, ms = mb;
    mm.payload = mid, mm.nbytes = sizeof mid;
    ms.payload = small, ms.nbytes = sizeof small;
    ck_assert_int_eq(ops->am_request(cd, 0, &mb, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_OK);   /* 4 */
    ck_assert_int_eq(ops->am_request(cd, 0, &mm, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_OK);   /* 2 */
    ck_assert_int_eq(ops->am_request(cd, 0, &mb, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_EAGAIN);
    ck_assert_int_eq(ops->am_request(cd, 0, &mm, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_OK);   /* 2 */
    ck_assert_int_eq(ops->am_request(cd, 0, &ms, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_EAGAIN);
    ck_assert_uint_eq(ngot, 0);
    poll_until(3);   /* 8 credits owed: returned at once */
    int rc = GEX_CONDUIT_EAGAIN;
    for (long i = 0; rc == GEX_CONDUIT_EAGAIN && i < 2000000; i++) {
        rc = ops->am_request(cd, 0, &mb, GEX_FLAG_IMMEDIATE);
        if (rc == GEX_CONDUIT_EAGAIN) ops->poll(cd);
    }
    ck_assert_int_eq(rc, GEX_CONDUIT_OK);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(ops->am_request(cd, 0, &ms, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->am_request(cd, 0, &ms, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_EAGAIN);
    /* without IMMEDIATE a Request waits, polling, for the credits it needs */
    ck_assert_int_eq(ops->am_request(cd, 0, &mb, 0), GEX_CONDUIT_OK);
    poll_until(9);
    ck_assert_uint_eq(got[0].m.nbytes, sizeof big);
    ck_assert_mem_eq(got[0].data, big, sizeof big);
    ck_assert_uint_eq(got[1].m.nbytes, sizeof mid);
    ck_assert_uint_eq(got[3].m.nbytes, sizeof big);
    ck_assert_uint_eq(got[8].m.nbytes, sizeof big);
    ops->fini(cd);

    env_names[0] = NULL;
    set_env("GEX_UCX_CREDITS", "2");
    ngot = 0;
    start();
    ck_assert_int_eq(ops->am_request(cd, 0, &mb, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->am_request(cd, 0, &mb, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->am_request(cd, 0, &mb, GEX_FLAG_IMMEDIATE), GEX_CONDUIT_EAGAIN);
    ck_assert_int_eq(ops->am_request(cd, 0, &mb, 0), GEX_CONDUIT_OK);
    poll_until(3);
    ops->fini(cd);
}
END_TEST

/* polls until *ctr is 0 (bounded) */
static void wait_ctr(GEX_CONDUIT_ATOMIC_U32 *ctr)
{
    for (long i = 0; *ctr && i < 2000000; i++) ops->poll(cd);
    ck_assert_uint_eq(*ctr, 0);
}

/* Native RMA on one rank: a segment registered, published to ourselves
 * (its number as the key), puts and gets of several sizes into and out of
 * it through UCX, with local and remote completion counted exactly once;
 * ranges outside it are refused with EINVAL, as the ABI asks. */
START_TEST(test_rma_to_self)
{
    start();
    static unsigned char seg[1 << 20], src[300000], back[300000];
    uint64_t key = 0;
    ck_assert_int_eq(ops->mem_register(cd, seg, sizeof seg, &key), GEX_CONDUIT_OK);
    ck_assert_uint_ne(key, 0);
    ck_assert_int_eq(ops->seg_publish(cd, 0, 0, seg, sizeof seg, key), GEX_CONDUIT_OK);
    static const size_t sizes[] = { 1, 8, 100, 4096, 65537, sizeof src };
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = sizes[i], off = 7 + i * 1000;
        fill(src, n, 10 + i);
        GEX_CONDUIT_ATOMIC_U32 lc = 1, rc = 1;
        struct gex_conduit_cpl cpl = { &lc, &rc };
        ck_assert_int_eq(ops->rma_put(cd, 0, 0, 0, seg + off, src, n, &cpl, 0), GEX_CONDUIT_OK);
        wait_ctr(&lc);
        wait_ctr(&rc);
        ck_assert_mem_eq(seg + off, src, n);
        memset(back, 0, n);
        GEX_CONDUIT_ATOMIC_U32 grc = 1;
        struct gex_conduit_cpl gcpl = { NULL, &grc };
        ck_assert_int_eq(ops->rma_get(cd, 0, back, 0, 0, seg + off, n, &gcpl, 0),
                         GEX_CONDUIT_OK);
        wait_ctr(&grc);
        ck_assert_mem_eq(back, src, n);
        for (int k = 0; k < 1000; k++) ops->poll(cd);
        ck_assert_uint_eq(lc, 0);   /* signalled once, never again */
        ck_assert_uint_eq(rc, 0);
        ck_assert_uint_eq(grc, 0);
    }
    GEX_CONDUIT_ATOMIC_U32 rc = 1;
    struct gex_conduit_cpl cpl = { NULL, &rc };
    ck_assert_int_eq(ops->rma_put(cd, 0, 0, 0, seg + sizeof seg - 4, src, 8, &cpl, 0),
                     GEX_CONDUIT_EINVAL);   /* runs past the segment */
    ck_assert_int_eq(ops->rma_put(cd, 0, 0, 1, seg, src, 8, &cpl, 0),
                     GEX_CONDUIT_EINVAL);   /* endpoint 1 published nothing */
    ck_assert_int_eq(ops->rma_get(cd, 0, back, 0, 0, src, 8, &cpl, 0),
                     GEX_CONDUIT_EINVAL);   /* not in the segment */
    ck_assert_uint_eq(rc, 1);
    ck_assert_uint_eq(ngot, 0);   /* no handler ran for any of it */
    ck_assert_int_eq(ops->mem_deregister(cd, key), GEX_CONDUIT_OK);
    ops->fini(cd);
}
END_TEST

/* Network atomics on a word of this process (UCX's self transport),
 * among them the bitwise ones it gets wrong on its own (ucx_amo.c). */
static uint64_t amo64(uint64_t *w, uint32_t op, uint64_t a, uint64_t b)
{
    uint64_t got = 0xdead;
    GEX_CONDUIT_ATOMIC_U32 rc = 1;
    struct gex_conduit_cpl cpl = { NULL, &rc };
    ck_assert_int_eq(ops->amo(cd, 0, 0, 0, w, GEX_DT_U64, op, &a, &b, &got, &cpl, 0),
                     GEX_CONDUIT_OK);
    wait_ctr(&rc);
    return got;
}
START_TEST(test_atomics_to_self)
{
    set_env("GEX_UCX_AMO", "yes");
    start();
    static uint64_t seg[64];
    static int32_t *w32;
    uint64_t key = 0;
    ck_assert_int_eq(ops->mem_register(cd, seg, sizeof seg, &key), GEX_CONDUIT_OK);
    ck_assert_int_eq(ops->seg_publish(cd, 0, 0, seg, sizeof seg, key), GEX_CONDUIT_OK);
    uint64_t *w = &seg[3];
    *w = 100;
    ck_assert_uint_eq(amo64(w, GEX_OP_FADD, 5, 0), 100);
    ck_assert_uint_eq(*w, 105);
    ck_assert_uint_eq(amo64(w, GEX_OP_FSUB, 10, 0), 105);
    ck_assert_uint_eq(*w, 95);
    ck_assert_uint_eq(amo64(w, GEX_OP_FCAS, 95, 7), 95);   /* matches: 7 written */
    ck_assert_uint_eq(*w, 7);
    ck_assert_uint_eq(amo64(w, GEX_OP_FCAS, 95, 9), 7);    /* does not match */
    ck_assert_uint_eq(*w, 7);
    ck_assert_uint_eq(amo64(w, GEX_OP_FAND, 6, 0), 7);
    ck_assert_uint_eq(*w, 6);
    ck_assert_uint_eq(amo64(w, GEX_OP_FOR, 0x30, 0), 6);
    ck_assert_uint_eq(*w, 0x36);
    ck_assert_uint_eq(amo64(w, GEX_OP_FXOR, 0x3f, 0), 0x36);
    ck_assert_uint_eq(*w, 0x09);
    ck_assert_uint_eq(amo64(w, GEX_OP_SWAP, 1234, 0), 0x09);
    ck_assert_uint_eq(amo64(w, GEX_OP_GET, 0, 0), 1234);
    ck_assert_uint_eq(*w, 1234);
    /* a 32-bit word next to others: only its 4 bytes change */
    seg[8] = 0x1111111111111111ull;
    w32 = (int32_t *)&seg[8];
    int32_t a = -3, old = 0;
    GEX_CONDUIT_ATOMIC_U32 rc = 1;
    struct gex_conduit_cpl cpl = { NULL, &rc };
    ck_assert_int_eq(ops->amo(cd, 0, 0, 0, w32, GEX_DT_I32, GEX_OP_FADD, &a, NULL, &old, &cpl, 0),
                     GEX_CONDUIT_OK);
    wait_ctr(&rc);
    ck_assert_int_eq(old, 0x11111111);
    ck_assert_int_eq(w32[0], 0x11111111 - 3);
    ck_assert_int_eq(w32[1], 0x11111111);
    /* outside the segment */
    rc = 1;
    ck_assert_int_eq(ops->amo(cd, 0, 0, 0, &a, GEX_DT_I32, GEX_OP_ADD, &a, NULL, NULL, &cpl, 0),
                     GEX_CONDUIT_EINVAL);
    ck_assert_uint_eq(rc, 1);
    ops->fini(cd);
}
END_TEST

int main(int argc, char **argv)
{
    char path[4096];
    const char *top = getenv("TOP_BUILDDIR");
    if (argc > 1) snprintf(path, sizeof path, "%s", argv[1]);
    else if (top) snprintf(path, sizeof path, "%s/.libs/libgex-conduit-ucx.so", top);
    else {
        fprintf(stderr, "test_ucx_conduit: set TOP_BUILDDIR or pass the plug-in's path\n");
        return 77;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        fprintf(stderr, "test_ucx_conduit: dlopen(%s): %s\n", path, dlerror());
        return 1;
    }
    gex_conduit_entry_fn *entry = (gex_conduit_entry_fn *)dlsym(dl, GEX_CONDUIT_ENTRY_SYMBOL);
    if (!entry || !(ops = entry()) || strcmp(ops->name, "ucx")) {
        fprintf(stderr, "test_ucx_conduit: %s is not the ucx conduit\n", path);
        return 1;
    }
    Suite *s = suite_create("ucx_conduit");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_caps_and_settings);
    tcase_add_test(tc, test_bad_setting);
    tcase_add_test(tc, test_every_category_to_self);
    tcase_add_test(tc, test_reply_from_handler);
    tcase_add_test(tc, test_bad_requests);
    tcase_add_test(tc, test_credits_and_immediate);
    tcase_add_test(tc, test_credit_cost_of_large_mediums);
    tcase_add_test(tc, test_rma_to_self);
    tcase_add_test(tc, test_atomics_to_self);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
