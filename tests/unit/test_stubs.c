/*
 * test_stubs.c: the placeholders of layers that are not implemented yet.
 *
 * A stub whose spec return value is an error code reports "not implemented
 * yet" and returns GASNET_ERR_RESOURCE; every other stub ends the process
 * with status 1 and that message (a return value could look like success).
 * Each test runs a singleton job in a child (unit_child.h) and checks how
 * the child ended and what it printed.  Also checked: what events must
 * handle (GEX_EVENT_INVALID, empty NBI state, empty access regions) and
 * refuse (GEX_EVENT_NO_OP, access-region misuse).
 */
#include <gasnet.h>
#include <gasnet_coll.h>
#include <gasnet_mk.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <gasnetex.h>

#include "unit_child.h"

#define NOT_IMPL "not implemented yet"

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm;
static gex_Segment_t seg;
static char *base;

static void start_job(void)
{
    CHILD_CHECK_EQ(gex_Client_Init(&client, &ep, &tm, "UNIT_STUBS", NULL, NULL, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_Segment_Attach(&seg, tm, 64 * 1024), GASNET_OK);
    base = gex_Segment_QueryAddr(seg);
}

/* Runs the body (...) in a child; it must end with status 1 and name `func`. */
#define FATAL_STUB_TEST(name, func, ...) \
    static void name##_child(void *arg) \
    { \
        (void)arg; \
        start_job(); \
        __VA_ARGS__; \
        fprintf(stderr, "CHILD FAIL: %s returned\n", func); \
        _exit(CHILD_FAIL_STATUS); \
    } \
    START_TEST(name) \
    { \
        struct child_result res; \
        run_child(name##_child, NULL, &res); \
        ck_assert_child_exit(&res, 1, func ": " NOT_IMPL); \
    } \
    END_TEST

/* ---- rma: implemented (libgex-rma, tests/mp/mp_rma.c); in a singleton job
 * every RMA targets this process, so it is a plain copy, and nothing may
 * report "not implemented". ---- */
static void rma_child(void *arg)
{
    (void)arg;
    start_job();
    const uint64_t v = 0x0102030405060708ull;
    uint64_t w = 0;
    CHILD_CHECK_EQ(gex_RMA_PutBlocking(tm, 0, base, &v, 8, 0), 0);
    CHILD_CHECK_EQ(gex_RMA_GetBlocking(tm, &w, 0, base, 8, 0), 0);
    CHILD_CHECK(w == v);
    w = 0;
    gex_Event_Wait(gex_RMA_GetNB(tm, &w, 0, base, 8, 0));
    CHILD_CHECK(w == v);
    CHILD_CHECK_EQ(gex_RMA_PutNBIVal(tm, 0, base + 64, 42, 8, 0), 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    CHILD_CHECK(gex_RMA_GetBlockingVal(tm, 0, base + 64, 8, 0) == 42);
}
START_TEST(test_rma_singleton)
{
    struct child_result res;
    run_child(rma_child, NULL, &res);
    ck_assert_child_ok(&res);
    ck_assert_ptr_null(strstr(res.err, NOT_IMPL));
}
END_TEST

/* ---- atomics: implemented (tests/mp/mp_atomics.c, tests/unit/test_atomics.c) ---- */

/* ---- GASNet-1 init (the collectives of libgex-coll are implemented:
 * tests/mp/mp_coll*.c, mp_team*.c) ---- */
/* gasnet_init/attach after gex_Client_Init: error codes, the job goes on */
static void gasnet1_child(void *arg)
{
    (void)arg;
    start_job();
    CHILD_CHECK_EQ(gasnet_init(NULL, NULL), GASNET_ERR_RESOURCE);
    CHILD_CHECK_EQ(gasnet_attach(NULL, 0, 4096, 0), GASNET_ERR_NOT_INIT);
}
START_TEST(test_gasnet1_codes)
{
    struct child_result res;
    run_child(gasnet1_child, NULL, &res);
    ck_assert_child_ok(&res);
    ck_assert_ptr_nonnull(strstr(res.err, "gasnet_init returning GASNET_ERR_RESOURCE"));
    ck_assert_ptr_nonnull(strstr(res.err, "gasnet_attach returning GASNET_ERR_NOT_INIT"));
}
END_TEST

/* The GASNet-1 start-up itself (tests/compat covers it in depth) */
static void gasnet1_init_child(void *arg)
{
    (void)arg;
    gasnet_seginfo_t si = { NULL, 0 };
    CHILD_CHECK_EQ(gasnet_getSegmentInfo(&si, 1), GASNET_ERR_NOT_INIT);
    CHILD_CHECK_EQ(gasnet_attach(NULL, 0, 0, 0), GASNET_ERR_NOT_INIT);
    CHILD_CHECK_EQ(gasnet_init(NULL, NULL), GASNET_OK);
    CHILD_CHECK_EQ(gasnet_attach(NULL, 0, 4096 + 1, 0), GASNET_ERR_BAD_ARG);
    CHILD_CHECK_EQ(gasnet_attach(NULL, 0, 0, 0), GASNET_OK); /* 0: one page */
    CHILD_CHECK_EQ(gasnet_getSegmentInfo(&si, 1), GASNET_OK);
    CHILD_CHECK(si.addr != NULL && si.size == GASNET_PAGESIZE);
}
START_TEST(test_gasnet1_init)
{
    struct child_result res;
    run_child(gasnet1_init_child, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

/* ---- mk: implemented (libgex-mk; tests/unit/test_mk.c, tests/mp/mp_mk.c) ---- */

/* ---- am: negotiated-payload AM: implemented (libgex-am; tests/mp/mp_npam.c).
 * In a singleton job every AM goes to this process: a library-buffer
 * Prepare/Commit reaches the handler, a Cancel succeeds, a Cancel of
 * GEX_AM_SRCDESC_NO_OP is an error (not a "not implemented"), and a Commit
 * of GEX_AM_SRCDESC_NO_OP ends the job with a message naming the misuse. ---- */
static volatile int npam_got;
static void npam_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0)
{
    (void)t;
    const unsigned char *p = buf;
    int ok = nbytes == 100 && a0 == 7;
    for (size_t i = 0; ok && i < nbytes; i++) ok = p[i] == (unsigned char)i;
    npam_got = ok ? 1 : -1;
}
static void npam_child(void *arg)
{
    (void)arg;
    start_job();
    gex_AM_Entry_t h = { GEX_AM_INDEX_BASE, (gex_AM_Fn_t)npam_handler,
                         GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "npam" };
    CHILD_CHECK_EQ(gex_EP_RegisterHandlers(ep, &h, 1), GASNET_OK);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 100, 200, NULL, 0, 1);
    CHILD_CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    CHILD_CHECK(gex_AM_SrcDescSize(sd) >= 100 && gex_AM_SrcDescSize(sd) <= 200);
    unsigned char *p = gex_AM_SrcDescAddr(sd);
    for (int i = 0; i < 100; i++) p[i] = (unsigned char)i;
    gex_AM_CommitRequestMedium1(sd, GEX_AM_INDEX_BASE, 100, 7);
    while (!npam_got) gasnet_AMPoll();
    CHILD_CHECK_EQ(npam_got, 1);
    sd = gex_AM_PrepareRequestLong(tm, 0, NULL, 8, 8, base, NULL, 0, 0);
    CHILD_CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    CHILD_CHECK_EQ(gex_AM_CancelRequestLong(sd, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_AM_CancelRequestMedium(GEX_AM_SRCDESC_NO_OP, 0), GASNET_ERR_BAD_ARG);
    CHILD_CHECK_EQ(gex_AM_CancelReplyLong(GEX_AM_SRCDESC_NO_OP, 0), GASNET_ERR_BAD_ARG);
}
START_TEST(test_npam_singleton)
{
    struct child_result res;
    run_child(npam_child, NULL, &res);
    ck_assert_child_ok(&res);
    ck_assert_ptr_null(strstr(res.err, NOT_IMPL));
}
END_TEST
static void npam_commit_noop_child(void *arg)
{
    (void)arg;
    start_job();
    gex_AM_CommitRequestMedium0(GEX_AM_SRCDESC_NO_OP, GEX_AM_INDEX_BASE, 0);
    fprintf(stderr, "CHILD FAIL: gex_AM_CommitRequestMedium0 returned\n");
    _exit(CHILD_FAIL_STATUS);
}
START_TEST(test_npam_commit_noop)
{
    struct child_result res;
    run_child(npam_commit_noop_child, NULL, &res);
    ck_assert_child_exit(&res, 1, "gex_AM_CommitRequestMedium0: sd is GEX_AM_SRCDESC_NO_OP");
}
END_TEST

/* ---- core: events ----
 * Events are being replaced by real ones (libgex-core/event.c), so only what
 * holds for both is checked: GEX_EVENT_NO_OP and access-region misuse are
 * fatal, GEX_EVENT_INVALID is complete, and nothing NBI is outstanding.  (An
 * arbitrary non-INVALID value is erroneous; the stubs end the job, real
 * events may crash, so it is not tested.) */
/* GEX_EVENT_NO_OP may not be tested or waited on: fatal with its own message */
static void event_noop_child(void *arg)
{
    (void)arg;
    start_job();
    gex_Event_Wait(GEX_EVENT_NO_OP);
    CHILD_CHECK(0);
}
START_TEST(test_event_noop)
{
    struct child_result res;
    run_child(event_noop_child, NULL, &res);
    ck_assert_child_exit(&res, 1, "GEX_EVENT_NO_OP may not be tested or waited on");
}
END_TEST

/* What already works for real: GEX_EVENT_INVALID and empty NBI state */
static void event_invalid_child(void *arg)
{
    (void)arg;
    start_job();
    CHILD_CHECK_EQ(gex_Event_Test(GEX_EVENT_INVALID), 0);
    gex_Event_Wait(GEX_EVENT_INVALID);
    gex_Event_t evs[4] = { GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID,
                           GEX_EVENT_INVALID };
    CHILD_CHECK_EQ(gex_Event_TestAll(evs, 4, 0), 0);
    CHILD_CHECK_EQ(gex_Event_TestSome(evs, 4, 0), 0);
    CHILD_CHECK_EQ(gex_Event_TestAll(evs, 0, 0), 0); /* empty array: only INVALIDs */
    gex_Event_WaitAll(evs, 4, 0);
    gex_Event_WaitSome(evs, 4, 0);
    for (int i = 0; i < 4; i++) CHILD_CHECK(evs[i] == GEX_EVENT_INVALID);
    CHILD_CHECK(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC) == GEX_EVENT_INVALID);
    CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    gex_NBI_BeginAccessRegion(0);
    gex_Event_t r = gex_NBI_EndAccessRegion(0);
    CHILD_CHECK_EQ(gex_Event_Test(r), 0); /* an empty region is complete (Test syncs it) */
    gex_NBI_BeginAccessRegion(0);
    gex_Event_Wait(gex_NBI_EndAccessRegion(0));
}
START_TEST(test_event_invalid)
{
    struct child_result res;
    run_child(event_invalid_child, NULL, &res);
    ck_assert_child_ok(&res);
    ck_assert_ptr_null(strstr(res.err, NOT_IMPL));
}
END_TEST

/* Access regions do not nest, and End needs a Begin. */
static void region_end_child(void *arg)
{
    (void)arg;
    start_job();
    gex_NBI_EndAccessRegion(0);
    CHILD_CHECK(0);
}
static void region_nest_child(void *arg)
{
    (void)arg;
    start_job();
    gex_NBI_BeginAccessRegion(0);
    gex_NBI_BeginAccessRegion(0);
    CHILD_CHECK(0);
}
START_TEST(test_access_region_misuse)
{
    struct child_result res;
    run_child(region_end_child, NULL, &res);
    ck_assert_child_exit(&res, 1, "fatal: gex_NBI_EndAccessRegion");
    run_child(region_nest_child, NULL, &res);
    ck_assert_child_exit(&res, 1, "fatal: gex_NBI_BeginAccessRegion");
}
END_TEST

static Suite *stubs_suite(void)
{
    Suite *s = suite_create("stubs");
    struct {
        const char *name;
        const TTest *tests[8];
    } cases[] = {
        { "rma", { test_rma_singleton } },
        { "gasnet1", { test_gasnet1_codes, test_gasnet1_init } },
        { "am-npam", { test_npam_singleton, test_npam_commit_noop } },
        { "core-events", { test_event_noop, test_event_invalid, test_access_region_misuse } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TCase *tc = tcase_create(cases[i].name);
        tcase_set_timeout(tc, 60);
        for (size_t j = 0; j < 8 && cases[i].tests[j]; j++) tcase_add_test(tc, cases[i].tests[j]);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    return run_suite(stubs_suite()) == 0 ? 0 : 1;
}
