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

/* ---- rma ---- */
FATAL_STUB_TEST(test_rma_put, "gex_RMA_PutBlocking",
                gex_RMA_PutBlocking(tm, 0, base, base + 64, 8, 0))
FATAL_STUB_TEST(test_rma_getnb, "gex_RMA_GetNB",
                gex_Event_Wait(gex_RMA_GetNB(tm, base, 0, base + 64, 8, 0)))
FATAL_STUB_TEST(test_rma_putval, "gex_RMA_PutNBIVal",
                gex_RMA_PutNBIVal(tm, 0, base, 42, 8, 0))

/* ---- vis ---- */
FATAL_STUB_TEST(test_vis_vector, "gex_VIS_VectorPutBlocking", {
    gex_Memvec_t d = { base, 16 }, s = { base + 32, 16 };
    gex_VIS_VectorPutBlocking(tm, 0, 1, &d, 1, &s, 0);
})

/* ---- atomics ---- */
FATAL_STUB_TEST(test_ad_create, "gex_AD_Create", {
    gex_AD_t ad;
    gex_AD_Create(&ad, tm, GEX_DT_I32, GEX_OP_ADD, 0);
})

/* ---- coll ---- */
FATAL_STUB_TEST(test_coll_barrier, "gex_Coll_BarrierNB", gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)))
FATAL_STUB_TEST(test_tm_split, "gex_TM_Split", {
    gex_TM_t t;
    gex_TM_Split(&t, tm, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
})

/* GASNet-1 barrier wait returns an error code: RESOURCE, the job goes on */
static void gasnet1_child(void *arg)
{
    (void)arg;
    start_job();
    CHILD_CHECK_EQ(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS), GASNET_ERR_RESOURCE);
    CHILD_CHECK_EQ(gasnet_init(NULL, NULL), GASNET_ERR_RESOURCE);
    CHILD_CHECK_EQ(gasnet_attach(NULL, 0, 4096, 0), GASNET_ERR_RESOURCE);
}
START_TEST(test_gasnet1_codes)
{
    struct child_result res;
    run_child(gasnet1_child, NULL, &res);
    ck_assert_child_ok(&res);
    ck_assert_ptr_nonnull(strstr(res.err, "gasnet_barrier_wait: " NOT_IMPL));
    ck_assert_ptr_nonnull(strstr(res.err, "gasnet_init: " NOT_IMPL));
    ck_assert_ptr_nonnull(strstr(res.err, "gasnet_attach: " NOT_IMPL));
}
END_TEST

/* ---- mk ---- */
static void mk_child(void *arg)
{
    (void)arg;
    start_job();
    gex_System_SetVerboseErrors(0);
    gex_MK_Create_args_t args;
    memset(&args, 0, sizeof args);
    gex_MK_t kind = (gex_MK_t)(uintptr_t)0x77;
    args.gex_class = GEX_MK_CLASS_HOST; /* valid, not implemented: RESOURCE */
    CHILD_CHECK_EQ(gex_MK_Create(&kind, client, &args, 0), GASNET_ERR_RESOURCE);
    CHILD_CHECK(kind == (gex_MK_t)(uintptr_t)0x77);
    const gex_MK_Class_t unsupported[] = { GEX_MK_CLASS_CUDA_UVA, GEX_MK_CLASS_HIP,
                                           GEX_MK_CLASS_ZE, (gex_MK_Class_t)77 };
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        args.gex_class = unsupported[i];
        CHILD_CHECK_EQ(gex_MK_Create(&kind, client, &args, 0), GASNET_ERR_BAD_ARG);
        CHILD_CHECK(kind == (gex_MK_t)(uintptr_t)0x77);
    }
    CHILD_CHECK_EQ(gex_MK_Create(&kind, client, NULL, 0), GASNET_ERR_BAD_ARG);
    CHILD_CHECK_EQ(gex_MK_Create(NULL, client, &args, 0), GASNET_ERR_BAD_ARG);
    CHILD_CHECK(kind == (gex_MK_t)(uintptr_t)0x77);
}
START_TEST(test_mk_create)
{
    struct child_result res;
    run_child(mk_child, NULL, &res);
    ck_assert_child_ok(&res);
    ck_assert_ptr_nonnull(strstr(res.err, "gex_MK_Create: " NOT_IMPL));
}
END_TEST
FATAL_STUB_TEST(test_mk_destroy, "gex_MK_Destroy", gex_MK_Destroy(GEX_MK_HOST, 0))

/* ---- am: negotiated-payload AM ---- */
FATAL_STUB_TEST(test_npam_prepare, "gex_AM_PrepareRequestMedium",
                gex_AM_PrepareRequestMedium(tm, 0, NULL, 0, 16, NULL, 0, 0))
FATAL_STUB_TEST(test_npam_commit, "gex_AM_CommitRequestMedium0",
                gex_AM_CommitRequestMedium0(GEX_AM_SRCDESC_NO_OP, GEX_AM_INDEX_BASE, 0))
static void npam_cancel_child(void *arg)
{
    (void)arg;
    start_job();
    CHILD_CHECK_EQ(gex_AM_CancelRequestMedium(GEX_AM_SRCDESC_NO_OP, 0), GASNET_ERR_RESOURCE);
    CHILD_CHECK_EQ(gex_AM_CancelReplyLong(GEX_AM_SRCDESC_NO_OP, 0), GASNET_ERR_RESOURCE);
}
START_TEST(test_npam_cancel)
{
    struct child_result res;
    run_child(npam_cancel_child, NULL, &res);
    ck_assert_child_ok(&res);
    ck_assert_ptr_nonnull(strstr(res.err, "gex_AM_CancelRequestMedium: " NOT_IMPL));
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
        { "rma", { test_rma_put, test_rma_getnb, test_rma_putval } },
        { "vis", { test_vis_vector } },
        { "atomics", { test_ad_create } },
        { "coll", { test_coll_barrier, test_tm_split, test_gasnet1_codes } },
        { "mk", { test_mk_create, test_mk_destroy } },
        { "am-npam", { test_npam_prepare, test_npam_commit, test_npam_cancel } },
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
