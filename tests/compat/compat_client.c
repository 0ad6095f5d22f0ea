/*
 * compat_client.c: a client written the way GASNet-EX clients (runtimes,
 * their tests and benchmarks) are written, to show they build and run on
 * GEX unchanged.  It uses the GASNet-1 API of gasnet.h (gasnet_init and
 * gasnet_attach with a handler table, gasnet_AMRequest* and AMReply*,
 * GASNET_BLOCKUNTIL, gasnet_getSegmentInfo, gasnet_getNodeInfo, put/get,
 * memset, the legacy barrier, HSLs), gasnet_tools.h (timers, atomics,
 * mutexes, environment helpers) and mixes in gex_* calls on the objects
 * gasnet_QueryGexObjects returns, as transitional clients do.
 *
 * It is built twice: in the tree (tests/compat.inc, run by mp-driver, also
 * in the sanitizer build) and, by tests/compat/test_installed.sh, only
 * through the installed smp-par.mak fragment and run with the installed
 * gasnetrun_smp.  Every rank counts passed and failed checks; rank 0 prints
 * "compat_client: N passed, M failed" and the job exits non-zero if
 * anything failed anywhere.
 *
 * Environment it reads: COMPAT_ITERS (pings per peer and thread, default
 * 50), and it checks neighbourhood sizes against GASNET_SUPERNODE_MAXSIZE
 * and GEX_PSHM.
 */
#include <gasnet.h>
#include <gasnet_tools.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* As GASNet's own tests and many clients define it (gasnet.h does not). */
#define GASNET_Safe(fncall) do {                                                      \
        int _retval;                                                                  \
        if ((_retval = (fncall)) != GASNET_OK) {                                      \
            fprintf(stderr, "ERROR calling: %s\n at: %s:%i\n error: %s (%s)\n",       \
                    #fncall, __FILE__, __LINE__, gasnet_ErrorName(_retval),           \
                    gasnet_ErrorDesc(_retval));                                       \
            fflush(stderr);                                                           \
            gasnet_exit(_retval);                                                     \
        }                                                                             \
    } while (0)

/* ---- What the build conventions must have told us (compile time) ---- */
/* GASNet's include-guard names: GASNet's tests/test.h picks its GASNet-1
 * paths (the gasnet_attach wrapper that finds the primordial team) with
 * _INCLUDED_GASNET_H; without it a legacy client crashed in TEST_SEG(). */
#if !defined(_INCLUDED_GASNET_H) || !defined(_INCLUDED_GASNETEX_H) || \
    !defined(_INCLUDED_GASNET_TOOLS_H)
#error "_INCLUDED_GASNET_H / _INCLUDED_GASNETEX_H / _INCLUDED_GASNET_TOOLS_H missing"
#endif
/* exactly one conduit, named both ways (SMP without a fragment; the
 * fragment's conduit otherwise: docs/compatibility.md, "Conduit identity") */
#if (defined(GASNET_CONDUIT_SMP) + defined(GASNET_CONDUIT_OFI) + defined(GASNET_CONDUIT_UCX)) != 1
#error "not exactly one of GASNET_CONDUIT_SMP, _OFI, _UCX"
#endif
#if defined(GASNET_CONDUIT_SMP) != defined(GASNET_SMP_CONDUIT) || \
    defined(GASNET_CONDUIT_OFI) != defined(GASNET_OFI_CONDUIT) || \
    defined(GASNET_CONDUIT_UCX) != defined(GASNET_UCX_CONDUIT)
#error "GASNET_CONDUIT_<NAME> and GASNET_<NAME>_CONDUIT disagree"
#endif
#if !defined(GASNET_PSHM) || !defined(GASNET_SEGMENT_FAST) || !defined(GASNET_ALIGNED_SEGMENTS)
#error "gasnet_config.h feature macros missing"
#endif
#if defined(GASNET_DEBUG) == defined(GASNET_NDEBUG)
#error "exactly one of GASNET_DEBUG and GASNET_NDEBUG must be defined"
#endif
#if !defined(GASNET_PAR) || defined(GASNET_SEQ) || defined(GASNET_PARSYNC)
#error "compat_client is a GASNET_PAR client"
#endif
#if !defined(GASNETT_THREAD_SAFE) || defined(GASNETT_THREAD_SINGLE)
#error "a GASNET_PAR client gets thread-safe tools"
#endif
#if GASNETT_RELEASE_VERSION_MAJOR != GASNET_RELEASE_VERSION_MAJOR || \
    GASNETT_RELEASE_VERSION_MINOR != GASNET_RELEASE_VERSION_MINOR || \
    GASNETT_RELEASE_VERSION_PATCH != GASNET_RELEASE_VERSION_PATCH
#error "tools and library release numbers differ"
#endif
#if GASNET_SPEC_VERSION_MAJOR != 1 || GEX_SPEC_VERSION_MAJOR != 0
#error "spec version macros"
#endif
#if !PLATFORM_OS_LINUX || !(PLATFORM_COMPILER_GNU || PLATFORM_COMPILER_CLANG)
#error "platform macros"
#endif

/* ---- Checks ---- */
static gasnett_atomic_t n_pass = gasnett_atomic_init(0), n_fail = gasnett_atomic_init(0);
static gasnett_mutex_t print_lock = GASNETT_MUTEX_INITIALIZER;

#define CHECK(cond, ...) do {                                                           \
        if (cond) {                                                                     \
            gasnett_atomic_increment(&n_pass, 0);                                       \
        } else {                                                                        \
            gasnett_atomic_increment(&n_fail, 0);                                       \
            gasnett_mutex_lock(&print_lock);                                            \
            fprintf(stderr, "compat_client: rank %u: FAIL at %s:%d: %s: ",              \
                    (unsigned)gasnet_mynode(), __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
            gasnett_mutex_unlock(&print_lock);                                          \
        }                                                                               \
    } while (0)

static void watchdog(int sig)
{
    (void)sig;
    static const char msg[] = "compat_client: FAIL: watchdog expired\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(2);
}

/* ---- Job facts ---- */
static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seginfo;
static uintptr_t segsize;
static size_t slot;                 /* bytes per sender in each area */
#define LONG_AREA(r)  ((char *)seginfo[(r)].addr)
#define RMA_AREA(r)   ((char *)seginfo[(r)].addr + segsize / 2)

static unsigned char pattern(unsigned a, unsigned b, size_t j)
{
    return (unsigned char)(a * 131u + b * 29u + (unsigned)j * 7u + (unsigned)(j >> 8));
}
static void fill(void *buf, size_t n, unsigned a, unsigned b)
{
    for (size_t j = 0; j < n; j++) ((unsigned char *)buf)[j] = pattern(a, b, j);
}
static size_t first_bad(const void *buf, size_t n, unsigned a, unsigned b)
{
    for (size_t j = 0; j < n; j++)
        if (((const unsigned char *)buf)[j] != pattern(a, b, j)) return j;
    return (size_t)-1;
}

/* ---- Handlers (GASNet-1 table: some fixed indices, some chosen by GASNet) ---- */
enum { H_PING = 201, H_MED = 202, H_LONG = 203, H_MAXARGS = 204, H_SUM = 205, H_DONE = 206,
       H_EX = 210 };
static gasnet_handler_t h_pong, h_medrep, h_longack; /* index 0 in the table */

#define PING_MAGIC 0x5eed
static gasnett_atomic_t pongs = gasnett_atomic_init(0);
static gasnett_atomic_t medreps = gasnett_atomic_init(0);
static gasnett_atomic_t longacks = gasnett_atomic_init(0);
static gasnett_atomic_t maxargs_seen = gasnett_atomic_init(0);
static gasnett_atomic_t ex_seen = gasnett_atomic_init(0);
static gasnet_hsl_t hsl = GASNET_HSL_INITIALIZER;
static int maxargs_sum;             /* under hsl */
static gasnett_atomic_t sums_in = gasnett_atomic_init(0);
static long total_pass, total_fail; /* rank 0, under hsl */
static gasnett_atomic_t done_flag = gasnett_atomic_init(0);
static gasnett_atomic_t final_failures = gasnett_atomic_init(0);

static void h_ping_fn(gasnet_token_t token, gasnet_handlerarg_t src, gasnet_handlerarg_t seq,
                      gasnet_handlerarg_t magic)
{
    gasnet_node_t who = GEX_RANK_INVALID;
    CHECK(gasnet_AMGetMsgSource(token, &who) == GASNET_OK && who == (gasnet_node_t)src,
          "GetMsgSource %u, src arg %d", (unsigned)who, (int)src);
    CHECK(magic == PING_MAGIC, "magic %d", (int)magic);
    GASNET_Safe(gasnet_AMReplyShort2(token, h_pong, seq, (gasnet_handlerarg_t)me));
}
static void h_pong_fn(gasnet_token_t token, gasnet_handlerarg_t seq, gasnet_handlerarg_t from)
{
    gasnet_node_t who = GEX_RANK_INVALID;
    CHECK(gasnet_AMGetMsgSource(token, &who) == GASNET_OK && who == (gasnet_node_t)from,
          "pong from %u, arg %d", (unsigned)who, (int)from);
    (void)seq;
    gasnett_atomic_increment(&pongs, GASNETT_ATOMIC_REL);
}
static void h_med_fn(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t src,
                     gasnet_handlerarg_t len)
{
    CHECK(nbytes == (size_t)len, "Medium nbytes %zu, expected %d", nbytes, (int)len);
    size_t bad = first_bad(buf, nbytes, (unsigned)src, me);
    CHECK(bad == (size_t)-1, "Medium payload from %d differs at %zu", (int)src, bad);
    GASNET_Safe(gasnet_AMReplyMedium1(token, h_medrep, buf, nbytes, (gasnet_handlerarg_t)me));
}
static void h_medrep_fn(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t from)
{
    (void)token;
    size_t bad = first_bad(buf, nbytes, me, (unsigned)from);
    CHECK(bad == (size_t)-1, "Medium reply from %d differs at %zu", (int)from, bad);
    gasnett_atomic_increment(&medreps, GASNETT_ATOMIC_REL);
}
static void h_long_fn(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t src,
                      gasnet_handlerarg_t async)
{
    CHECK(buf == LONG_AREA(me) + (size_t)src * slot, "Long landed at %p", buf);
    size_t bad = first_bad(buf, nbytes, (unsigned)src, me + (async ? 1000u : 0u));
    CHECK(bad == (size_t)-1, "Long payload from %d differs at %zu", (int)src, bad);
    GASNET_Safe(gasnet_AMReplyShort1(token, h_longack, (gasnet_handlerarg_t)me));
}
static void h_longack_fn(gasnet_token_t token, gasnet_handlerarg_t from)
{
    (void)token;
    (void)from;
    gasnett_atomic_increment(&longacks, GASNETT_ATOMIC_REL);
}
static void h_maxargs_fn(gasnet_token_t token, gasnet_handlerarg_t a0, gasnet_handlerarg_t a1,
                         gasnet_handlerarg_t a2, gasnet_handlerarg_t a3, gasnet_handlerarg_t a4,
                         gasnet_handlerarg_t a5, gasnet_handlerarg_t a6, gasnet_handlerarg_t a7,
                         gasnet_handlerarg_t a8, gasnet_handlerarg_t a9, gasnet_handlerarg_t a10,
                         gasnet_handlerarg_t a11, gasnet_handlerarg_t a12, gasnet_handlerarg_t a13,
                         gasnet_handlerarg_t a14, gasnet_handlerarg_t a15)
{
    (void)token;
    const gasnet_handlerarg_t a[16] = { a0, a1, a2,  a3,  a4,  a5,  a6,  a7,
                                        a8, a9, a10, a11, a12, a13, a14, a15 };
    int ok = 1;
    for (int i = 1; i < 16; i++) ok &= a[i] == a[0] + i;
    CHECK(ok, "16 arguments arrived out of order (a0 %d)", (int)a0);
    gasnet_hsl_lock(&hsl);
    maxargs_sum += 1;
    gasnet_hsl_unlock(&hsl);
    gasnett_atomic_increment(&maxargs_seen, GASNETT_ATOMIC_REL);
}
static void h_sum_fn(gasnet_token_t token, gasnet_handlerarg_t pass, gasnet_handlerarg_t fail)
{
    (void)token;
    gasnet_hsl_lock(&hsl);
    total_pass += pass;
    total_fail += fail;
    gasnet_hsl_unlock(&hsl);
    gasnett_atomic_increment(&sums_in, GASNETT_ATOMIC_REL);
}
static void h_done_fn(gasnet_token_t token, gasnet_handlerarg_t failures)
{
    (void)token;
    gasnett_atomic_set(&final_failures, (gasnett_atomic_val_t)failures, 0);
    gasnett_atomic_set(&done_flag, 1, GASNETT_ATOMIC_REL);
}
/* Registered later with gex_EP_RegisterHandlers, reached with a GASNet-1 call. */
static void h_ex_fn(gex_Token_t token, gex_AM_Arg_t v)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(token, &info, GEX_TI_SRCRANK | GEX_TI_IS_REQ) & GEX_TI_SRCRANK,
          "gex_Token_Info");
    CHECK(v == (gex_AM_Arg_t)(info.gex_srcrank * 3 + 1), "EX handler arg %d from %u", (int)v,
          (unsigned)info.gex_srcrank);
    gasnett_atomic_increment(&ex_seen, GASNETT_ATOMIC_REL);
}

static void barrier(int id)
{
    gasnet_barrier_notify(id, 0);
    GASNET_Safe(gasnet_barrier_wait(id, 0));
}

#if GASNET_VERSION != GASNET_SPEC_VERSION_MAJOR
#error "GASNET_VERSION (GASNet-1 spec) is the spec's major version"
#endif

/* Names GASNet's headers give beyond the documents, which code written for
 * GASNet uses (its own test harness: ident strings, message macros, extern
 * "C" brackets, pthread helpers keyed on HAVE_PTHREAD_H). */
#if !HAVE_PTHREAD_H || GASNETT_MAX_THREADS < 2
#error "HAVE_PTHREAD_H and GASNETT_MAX_THREADS come with the headers"
#endif
GASNETT_BEGIN_EXTERNC
GASNETT_IDENT(compat_ident_config, "$GASNetConfig: " GASNET_CONFIG_STRING " $");
GASNETT_END_EXTERNC
static void check_ident_names(void)
{
    GASNETT_TRACE_SETSOURCELINE(__FILE__, __LINE__);
    const char *file = NULL;
    unsigned line = 1;
    GASNETT_TRACE_GETSOURCELINE(&file, &line);
    GASNETT_TRACE_SET_TRACELOCAL(GASNETT_TRACE_GET_TRACELOCAL());
    CHECK(file != NULL && line == 0, "GASNETT_TRACE_GETSOURCELINE gave %p:%u", (const void *)file,
          line);
    CHECK(strstr(compat_ident_config, "CONDUIT=" GASNET_CORE_NAME_STR "(") &&
              strstr(compat_ident_config, ",THREADMODEL=PAR,SEGMENT=FAST,") &&
              strstr(compat_ident_config, "RELEASE=" _STRINGIFY(GASNET_RELEASE_VERSION_MAJOR) "."),
          "GASNET_CONFIG_STRING is \"%s\"", GASNET_CONFIG_STRING);
}

/* ---- Threads hammering AMs (GASNET_PAR) ---- */
static int iters;
static gasnet_threadinfo_t thread_ti[2]; /* each ping thread's GASNET_GET_THREADINFO() */
static void *ping_thread(void *arg)
{
    GASNET_BEGIN_FUNCTION();
    unsigned t = (unsigned)(uintptr_t)arg;
    thread_ti[t] = GASNET_GET_THREADINFO();
    for (int i = 0; i < iters; i++)
        for (gasnet_node_t k = 0; k < nodes; k++) {
            gasnet_node_t peer = (me + k) % nodes;
            GASNET_Safe(gasnet_AMRequestShort3(peer, H_PING, (gasnet_handlerarg_t)me,
                                               (gasnet_handlerarg_t)(t * 100000u + (unsigned)i),
                                               PING_MAGIC));
        }
    return NULL;
}

static void test_ams(void)
{
    GASNET_POST_THREADINFO(GASNET_GET_THREADINFO());
    const int nthreads = 2;
    gasnett_tick_t t0 = gasnett_ticks_now();
    pthread_t th[2];
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_create(&th[t], NULL, ping_thread, (void *)(uintptr_t)t) == 0, "pthread");
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    /* GASNet's thread info names its thread: same value twice in one thread,
     * different values in different threads (GASNet's testgasnet.c). */
    CHECK(GASNET_GET_THREADINFO() == GASNET_GET_THREADINFO(), "threadinfo not stable");
    CHECK(thread_ti[0] != thread_ti[1] && thread_ti[0] != GASNET_GET_THREADINFO() &&
          thread_ti[1] != GASNET_GET_THREADINFO(), "threadinfo shared between threads");
    const gasnett_atomic_val_t want = (gasnett_atomic_val_t)(nthreads * iters * (int)nodes);
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&pongs, GASNETT_ATOMIC_ACQ) == want);
    gasnett_tick_t t1 = gasnett_ticks_now();
    CHECK(t1 >= t0, "ticks went backwards");
    CHECK(gasnett_atomic_read(&pongs, 0) == want, "pongs %u want %u",
          (unsigned)gasnett_atomic_read(&pongs, 0), (unsigned)want);

    /* Medium: largest payload GASNet-1 promises, and an empty one */
    size_t maxmed = gasnet_AMMaxMedium();
    CHECK(maxmed >= 512 && gasnet_AMMaxArgs() >= 16 && gasnet_AMMaxLongRequest() >= 512 &&
          gasnet_AMMaxLongReply() >= 512, "AM limits");
    char *mbuf = (char *)malloc(maxmed);
    for (gasnet_node_t k = 0; k < nodes; k++) {
        gasnet_node_t peer = (me + k) % nodes;
        fill(mbuf, maxmed, me, peer);
        GASNET_Safe(gasnet_AMRequestMedium2(peer, H_MED, mbuf, maxmed, (gasnet_handlerarg_t)me,
                                            (gasnet_handlerarg_t)maxmed));
        GASNET_Safe(gasnet_AMRequestMedium2(peer, H_MED, mbuf, 0, (gasnet_handlerarg_t)me, 0));
    }
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&medreps, GASNETT_ATOMIC_ACQ) == 2 * nodes);
    free(mbuf);

    /* Long and LongAsync into each peer's segment, at this rank's slot */
    size_t llen = slot < gasnet_AMMaxLongRequest() ? slot : gasnet_AMMaxLongRequest();
    char *lbuf = (char *)malloc(llen);
    for (gasnet_node_t k = 0; k < nodes; k++) {
        gasnet_node_t peer = (me + k) % nodes;
        fill(lbuf, llen, me, peer);
        GASNET_Safe(gasnet_AMRequestLong2(peer, H_LONG, lbuf, llen, LONG_AREA(peer) + me * slot,
                                          (gasnet_handlerarg_t)me, 0));
    }
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&longacks, GASNETT_ATOMIC_ACQ) == nodes);
    barrier(11); /* every Long has been checked before the async round reuses the slots */
    for (gasnet_node_t k = 0; k < nodes; k++) {
        gasnet_node_t peer = (me + k) % nodes;
        fill(lbuf, llen, me, peer + 1000u);
        GASNET_Safe(gasnet_AMRequestLongAsync2(peer, H_LONG, lbuf, llen,
                                               LONG_AREA(peer) + me * slot,
                                               (gasnet_handlerarg_t)me, 1));
    }
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&longacks, GASNETT_ATOMIC_ACQ) == 2 * nodes);
    free(lbuf);

    /* 16 arguments, through the GASNet-1 macro and through gex_AM_* on the
     * primordial team (both reach the legacy-registered handler) */
    gex_TM_t tm;
    gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
    for (gasnet_node_t k = 0; k < nodes; k++) {
        gasnet_node_t peer = (me + k) % nodes;
        int b = (int)me * 1000;
        GASNET_Safe(gasnet_AMRequestShort16(peer, H_MAXARGS, b, b + 1, b + 2, b + 3, b + 4, b + 5,
                                            b + 6, b + 7, b + 8, b + 9, b + 10, b + 11, b + 12,
                                            b + 13, b + 14, b + 15));
        GASNET_Safe(gex_AM_RequestShort16(tm, peer, H_MAXARGS, 0, b + 7, b + 8, b + 9, b + 10,
                                          b + 11, b + 12, b + 13, b + 14, b + 15, b + 16, b + 17,
                                          b + 18, b + 19, b + 20, b + 21, b + 22));
    }
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&maxargs_seen, GASNETT_ATOMIC_ACQ) == 2 * nodes);
    gasnet_hsl_lock(&hsl);
    CHECK(maxargs_sum == (int)(2 * nodes), "maxargs_sum %d", maxargs_sum);
    gasnet_hsl_unlock(&hsl);
}

/* ---- Segments and where ranks are ---- */
static void test_segments(void)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    gasnet_QueryGexObjects(&client, &ep, &tm, &seg);
    CHECK(client != GEX_CLIENT_INVALID && seg != GEX_SEGMENT_INVALID, "QueryGexObjects");
    CHECK(!strcmp(gex_Client_QueryName(client), "GASNET1"), "client name %s",
          gex_Client_QueryName(client));
    CHECK(gex_Client_QueryFlags(client) & GEX_FLAG_USES_GASNET1, "USES_GASNET1 flag");
    CHECK(gex_TM_QueryRank(tm) == me && gex_TM_QuerySize(tm) == nodes, "tm rank/size");
    CHECK(seginfo[me].addr == gex_Segment_QueryAddr(seg) && seginfo[me].size == segsize &&
          gex_Segment_QuerySize(seg) == segsize, "own segment");

    gex_RankInfo_t *nbrhd;
    gex_Rank_t nbrhd_count, nbrhd_me;
    gex_System_QueryNbrhdInfo(&nbrhd, &nbrhd_count, &nbrhd_me);
    gasnet_nodeinfo_t *ni = (gasnet_nodeinfo_t *)calloc(nodes, sizeof *ni);
    GASNET_Safe(gasnet_getNodeInfo(ni, (int)nodes));
    for (gasnet_node_t r = 0; r < nodes; r++) {
        CHECK(seginfo[r].size == segsize && seginfo[r].addr != NULL, "seginfo[%u]", (unsigned)r);
        int in_nbrhd = 0;
        for (gex_Rank_t i = 0; i < nbrhd_count; i++) in_nbrhd |= nbrhd[i].gex_jobrank == r;
        CHECK((ni[r].supernode == ni[me].supernode) == in_nbrhd, "supernode of %u", (unsigned)r);
        CHECK(ni[r].host == ni[me].host, "one host expected for rank %u", (unsigned)r);
        void *owner, *local;
        uintptr_t size;
        int bound = gex_Segment_QueryBound(tm, r, &owner, &local, &size) == GASNET_OK;
        CHECK(bound && owner == seginfo[r].addr && size == segsize, "QueryBound(%u)", (unsigned)r);
        if (bound && in_nbrhd && local)
            CHECK((char *)local == (char *)seginfo[r].addr + ni[r].offset, "offset of %u",
                  (unsigned)r);
    }
    free(ni);

    /* Neighbourhood size follows GASNET_SUPERNODE_MAXSIZE / GEX_PSHM */
    long maxsize = gasnett_getenv_int_withdefault("GASNET_SUPERNODE_MAXSIZE", 0, 0);
    const char *pshm = gasnett_getenv("GEX_PSHM");
    gex_Rank_t want = nodes;
    if ((pshm && !strcmp(pshm, "0")) || maxsize == 1) want = 1;
    else if (maxsize > 1) {
        gex_Rank_t first = me / (gex_Rank_t)maxsize * (gex_Rank_t)maxsize;
        want = nodes - first < (gex_Rank_t)maxsize ? nodes - first : (gex_Rank_t)maxsize;
    }
    CHECK(nbrhd_count == want, "nbrhd size %u, expected %u", (unsigned)nbrhd_count,
          (unsigned)want);
}

/* ---- Put/get/memset over gasnet.h's wrappers ---- */
static void test_rma(void)
{
    const gasnet_node_t right = (me + 1) % nodes, left = (me + nodes - 1) % nodes;
    const size_t n = slot / 4; /* four sub-slots per sender */
    char *rslot = RMA_AREA(right) + me * slot;       /* mine, in right's segment */
    char *src = (char *)malloc(n), *dst = (char *)malloc(n);

    fill(src, n, me, 1);
    gasnet_put(right, rslot, src, n);
    memset(dst, 0, n);
    gasnet_get(dst, right, rslot, n);
    CHECK(first_bad(dst, n, me, 1) == (size_t)-1, "put/get round trip");

    fill(src, n, me, 2);
    gasnet_handle_t h[3];
    h[0] = gasnet_put_nb_bulk(right, rslot + n, src, n);
    h[1] = gasnet_put_nb(right, rslot + 2 * n, src, n);
    gasnet_wait_syncnb_all(h, 2);
    CHECK(h[0] == GASNET_INVALID_HANDLE && h[1] == GASNET_INVALID_HANDLE, "synced handles");
    memset(dst, 0, n);
    h[2] = gasnet_get_nb_bulk(dst, right, rslot + n, n);
    while (gasnet_try_syncnb(h[2]) != GASNET_OK) {}
    CHECK(first_bad(dst, n, me, 2) == (size_t)-1, "nb put, nb get");

    fill(src, n, me, 3);
    gasnet_put_nbi_bulk(right, rslot + 3 * n, src, n);
    gasnet_wait_syncnbi_puts();
    memset(dst, 0, n);
    gasnet_get_nbi(dst, right, rslot + 3 * n, n);
    gasnet_wait_syncnbi_all();
    CHECK(first_bad(dst, n, me, 3) == (size_t)-1, "nbi put, nbi get");

    /* an access region gathers nbi operations under one handle */
    gasnet_begin_nbi_accessregion();
    gasnet_get_nbi_bulk(dst, right, rslot + 2 * n, n);
    gasnet_handle_t region = gasnet_end_nbi_accessregion();
    gasnet_wait_syncnb(region);
    fill(src, n, me, 2);
    CHECK(memcmp(dst, src, n) == 0, "access region get");

    /* values of every width */
    const size_t widths[] = { 1, 2, 4, 8 };
    for (size_t i = 0; i < 4; i++) {
        gasnet_register_value_t v = (gasnet_register_value_t)0x1122334455667788ull >>
                                    (8 * (8 - widths[i]));
        gasnet_put_val(right, rslot, v, widths[i]);
        CHECK(gasnet_get_val(right, rslot, widths[i]) == v, "put_val/get_val width %zu",
              widths[i]);
        gasnet_valget_handle_t vh = gasnet_get_nb_val(right, rslot, widths[i]);
        CHECK(gasnet_wait_syncnb_valget(vh) == v, "get_nb_val width %zu", widths[i]);
    }
    gasnet_handle_t vh2 = gasnet_put_nb_val(right, rslot + 8, 0xabcd, 2);
    gasnet_wait_syncnb(vh2);
    gasnet_put_nbi_val(right, rslot + 10, 0x77, 1);
    gasnet_wait_syncnbi_puts();
    CHECK(gasnet_get_val(right, rslot + 8, 2) == 0xabcd && gasnet_get_val(right, rslot + 10, 1) ==
          0x77, "nb/nbi put_val");

    /* memset, large enough to take the chunked path */
    gasnet_memset(right, rslot, 0x5a, slot);
    char *big = (char *)malloc(slot);
    gasnet_get_bulk(big, right, rslot, slot);
    size_t bad = (size_t)-1;
    for (size_t j = 0; j < slot && bad == (size_t)-1; j++) if (big[j] != 0x5a) bad = j;
    CHECK(bad == (size_t)-1, "memset differs at %zu", bad);
    gasnet_wait_syncnb(gasnet_memset_nb(right, rslot, 0, 64));
    gasnet_memset_nbi(right, rslot + 64, 1, 64);
    gasnet_wait_syncnbi_all();
    gasnet_get(big, right, rslot, 128);
    CHECK(big[0] == 0 && big[63] == 0 && big[64] == 1 && big[127] == 1, "memset_nb/nbi");
    free(big);

    /* a known pattern for the left neighbour to find after the barrier */
    fill(src, n, me, 9);
    gasnet_put(right, rslot, src, n);
    barrier(12);
    size_t lbad = first_bad(RMA_AREA(me) + left * slot, n, left, 9);
    CHECK(lbad == (size_t)-1, "data from left neighbour %u differs at %zu", (unsigned)left, lbad);
    free(src);
    free(dst);
}

/* ---- Calls with defined error returns ---- */
static void test_errors(gasnet_handlerentry_t *table, int n)
{
    gex_System_SetVerboseErrors(0); /* expected errors: no messages */
    CHECK(gasnet_init(NULL, NULL) == GASNET_ERR_RESOURCE, "second gasnet_init");
    CHECK(gasnet_attach(table, n, segsize, 0) == GASNET_ERR_RESOURCE, "second gasnet_attach");
    CHECK(gasnet_getSegmentInfo(seginfo, -1) == GASNET_ERR_BAD_ARG, "negative numentries");
    CHECK(gasnet_set_waitmode(GASNET_WAIT_SPINBLOCK) == GASNET_OK, "set_waitmode");
    CHECK(gasnet_set_waitmode(42) == GASNET_ERR_BAD_ARG, "bad wait mode");
    gex_System_SetVerboseErrors(1);
    CHECK(gasnet_hsl_trylock(&hsl) == GASNET_OK, "hsl trylock");
    gasnet_hsl_unlock(&hsl);
    gasnet_hold_interrupts();
    gasnet_resume_interrupts();
    CHECK(!strcmp(gasnet_ErrorName(GASNET_ERR_NOT_READY), "GASNET_ERR_NOT_READY"), "ErrorName");
}

static void test_tools(void)
{
    CHECK(gasnett_cpu_count() > 0, "cpu count");
    CHECK(gasnett_gethostname()[0] != 0, "host name");
    CHECK(gasnett_getPhysMemSz(0) > 0, "physical memory");
    CHECK(gasnett_release_version() == (uint64_t)GASNET_RELEASE_VERSION_MAJOR * 1000000u +
          GASNET_RELEASE_VERSION_MINOR * 10000u + GASNET_RELEASE_VERSION_PATCH, "release version");
    gasnett_tick_t a = gasnett_ticks_now(), b = gasnett_ticks_now();
    CHECK(b >= a && gasnett_tick_granularity() > 0 && gasnett_tick_overhead() > 0, "timers");
    gasnett_local_mb();
    char num[32];
    CHECK(!strcmp(gasnett_format_number(3 << 20, num, sizeof num, 1), "3MB") &&
          gasnett_parse_int("3MB", 1) == (3 << 20), "format/parse");
}

int main(int argc, char **argv)
{
    signal(SIGALRM, watchdog);
    alarm(150);
    GASNET_Safe(gasnet_init(&argc, &argv));
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    iters = (int)gasnett_getenv_int_withdefault("COMPAT_ITERS", 50, 0);

    gasnet_handlerentry_t table[] = {
        { H_PING, (void (*)())h_ping_fn },      { 0, (void (*)())h_pong_fn },
        { H_MED, (void (*)())h_med_fn },        { 0, (void (*)())h_medrep_fn },
        { H_LONG, (void (*)())h_long_fn },      { 0, (void (*)())h_longack_fn },
        { H_MAXARGS, (void (*)())h_maxargs_fn }, { H_SUM, (void (*)())h_sum_fn },
        { H_DONE, (void (*)())h_done_fn },
    };
    const int ntable = (int)(sizeof table / sizeof table[0]);
    const char *maxseg = gasnett_getenv("GASNET_MAX_SEGSIZE");
    if (maxseg && !strcmp(maxseg, "4MB/P"))
        CHECK(gasnet_getMaxLocalSegmentSize() == (uintptr_t)4 << 20,
              "GASNET_MAX_SEGSIZE=4MB/P gave %zu", (size_t)gasnet_getMaxLocalSegmentSize());
    segsize = (uintptr_t)(2u << 20);
    if (segsize > gasnet_getMaxLocalSegmentSize()) segsize = 64 * GASNET_PAGESIZE;
    GASNET_Safe(gasnet_attach(table, ntable, segsize, 0));
    h_pong = table[1].index;
    h_medrep = table[3].index;
    h_longack = table[5].index;
    /* index 0 entries get the highest free indices, in table order */
    CHECK(h_pong == 255 && h_medrep == 254 && h_longack == 253, "chosen indices %u %u %u",
          h_pong, h_medrep, h_longack);
    CHECK(table[0].index == H_PING, "fixed index kept");

    seginfo = (gasnet_seginfo_t *)calloc(nodes, sizeof *seginfo);
    GASNET_Safe(gasnet_getSegmentInfo(seginfo, (int)nodes));
    slot = (size_t)(segsize / 2 / nodes) & ~(size_t)63;

    /* A GASNet-EX handler next to the GASNet-1 ones (transitional client) */
    gex_EP_t ep;
    gasnet_QueryGexObjects(NULL, &ep, NULL, NULL);
    gex_AM_Entry_t ex[] = { { H_EX, (gex_AM_Fn_t)h_ex_fn, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST,
                              1, NULL, "compat_ex" } };
    GASNET_Safe(gex_EP_RegisterHandlers(ep, ex, 1));
    barrier(10); /* everyone's EX handler exists */
    for (gasnet_node_t k = 0; k < nodes; k++)
        GASNET_Safe(gasnet_AMRequestShort1(k, H_EX, (gasnet_handlerarg_t)(me * 3 + 1)));
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&ex_seen, GASNETT_ATOMIC_ACQ) == nodes);

    test_tools();
    test_segments();
    check_ident_names();
    test_ams();
    test_rma();
    test_errors(table, ntable);

    /* anonymous and named legacy barriers */
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "anonymous barrier");
    CHECK(gasnet_barrier(77, 0) == GASNET_OK, "named barrier");

    /* Totals to rank 0, which prints them and tells everyone the verdict */
    GASNET_Safe(gasnet_AMRequestShort2(0, H_SUM, (gasnet_handlerarg_t)gasnett_atomic_read(&n_pass, 0),
                                       (gasnet_handlerarg_t)gasnett_atomic_read(&n_fail, 0)));
    if (me == 0) {
        GASNET_BLOCKUNTIL(gasnett_atomic_read(&sums_in, GASNETT_ATOMIC_ACQ) == nodes);
        gasnet_hsl_lock(&hsl);
        long p = total_pass, f = total_fail;
        gasnet_hsl_unlock(&hsl);
        printf("compat_client on %u rank(s): %ld passed, %ld failed\n", (unsigned)nodes, p, f);
        fflush(stdout);
        for (gasnet_node_t r = 0; r < nodes; r++)
            GASNET_Safe(gasnet_AMRequestShort1(r, H_DONE, (gasnet_handlerarg_t)f));
    }
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&done_flag, GASNETT_ATOMIC_ACQ) == 1);
    int failures = (int)gasnett_atomic_read(&final_failures, 0);
    barrier(13); /* nobody leaves before rank 0 has printed */
    gasnet_exit(failures ? 1 : 0);
    return 0;
}
