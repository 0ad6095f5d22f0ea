/*
 * test_rma_events.c: Check unit tests of the event machinery in libgex-core
 * (event.c) that RMA relies on, driven through core_layer.h so that every
 * completion happens exactly when the test says (gexi_counter_done), not
 * when a peer polls.  Each test runs a singleton job in a child
 * (unit_child.h).
 *
 *  - roots with an LC leaf: a root is not complete before its leaf;
 *    gex_Event_QueryLeaf is a query (same answer twice);
 *  - arrays mixing a root and its own leaf in either order (spec: allowed),
 *    GEX_EVENT_INVALID entries, TestSome/TestAll return codes and
 *    overwriting; a root completing while its leaf is listed retires both;
 *  - a leaf or root handle used after its root was synchronized is
 *    diagnosed (stale handle), as is GEX_EVENT_NO_OP inside an array;
 *  - gexi_event_discard returns an unused event to the free list;
 *  - NBI counters by category, and access regions redirecting them to the
 *    region's event; the region event has an LC leaf;
 *  - events are recycled: a million NB-style events allocate nothing new
 *    (the free list is reused).
 */
#include "core_layer.h" /* gexi_event_new & co; needs -DGEXI_BUILDING_GEX */
#include <gasnetex.h>

#include "unit_child.h"

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm;

static void start_job(void)
{
    CHILD_CHECK_EQ(gex_Client_Init(&client, &ep, &tm, "UNIT_EVENTS", NULL, NULL, 0), GASNET_OK);
}

static size_t live(const gex_Event_t *e, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += e[i] != GEX_EVENT_INVALID;
    return c;
}

/* ---- roots and leaves ---- */
static void leaf_child(void *arg)
{
    (void)arg;
    start_job();
    struct gexi_event *ev = gexi_event_new(GEX_EC_PUT, 1, 1);
    gex_Event_t root = gexi_event_handle(ev);
    gex_Event_t leaf = gex_Event_QueryLeaf(root, GEX_EC_LC);
    CHILD_CHECK(leaf != GEX_EVENT_INVALID && leaf == gex_Event_QueryLeaf(root, GEX_EC_LC));
    CHILD_CHECK_EQ(gex_Event_Test(leaf), GASNET_ERR_NOT_READY);
    gexi_counter_done(&ev->h.pending, 1);
    /* remote part done, LC not: the root is not complete */
    CHILD_CHECK_EQ(gex_Event_Test(root), GASNET_ERR_NOT_READY);
    gexi_counter_done(&ev->lc.pending, 1);
    CHILD_CHECK_EQ(gex_Event_Test(leaf), GASNET_OK);
    CHILD_CHECK_EQ(gex_Event_Test(leaf), GASNET_OK); /* a leaf may be tested again */
    CHILD_CHECK_EQ(gex_Event_Test(root), GASNET_OK);
    /* (a root without an LC leaf: test_bad_args) */
}
START_TEST(test_leaf)
{
    struct child_result res;
    run_child(leaf_child, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

/* ---- arrays ---- */
static void array_child(void *arg)
{
    (void)arg;
    start_job();
    for (int order = 0; order < 2; order++) {
        struct gexi_event *a = gexi_event_new(GEX_EC_PUT, 1, 1), *b = gexi_event_new(GEX_EC_GET, 1, 0);
        gex_Event_t ra = gexi_event_handle(a), la = gex_Event_QueryLeaf(ra, GEX_EC_LC);
        gex_Event_t arr[6] = { GEX_EVENT_INVALID, order ? la : ra, gexi_event_handle(b),
                               order ? ra : la, GEX_EVENT_INVALID, GEX_EVENT_INVALID };
        CHILD_CHECK_EQ(gex_Event_TestSome(arr, 6, 0), GASNET_ERR_NOT_READY);
        CHILD_CHECK_EQ(gex_Event_TestAll(arr, 6, 0), GASNET_ERR_NOT_READY);
        CHILD_CHECK_EQ(live(arr, 6), 3);
        /* only the leaf completes: TestSome retires it alone */
        gexi_counter_done(&a->lc.pending, 1);
        CHILD_CHECK_EQ(gex_Event_TestSome(arr, 6, 0), GASNET_OK);
        CHILD_CHECK_EQ(live(arr, 6), 2);
        CHILD_CHECK_EQ(gex_Event_TestSome(arr, 6, 0), GASNET_ERR_NOT_READY);
        gexi_counter_done(&b->h.pending, 1);
        gexi_counter_done(&a->h.pending, 1);
        CHILD_CHECK_EQ(gex_Event_TestAll(arr, 6, 0), GASNET_OK);
        CHILD_CHECK_EQ(live(arr, 6), 0);
        CHILD_CHECK_EQ(gex_Event_TestSome(arr, 6, 0), GASNET_OK); /* all INVALID */
    }
    /* A root and its pending leaf listed together, completing at once: the
     * root retires its leaf's entry too, in either order, with no stale
     * handle left behind for the next call. */
    for (int order = 0; order < 2; order++) {
        struct gexi_event *a = gexi_event_new(GEX_EC_PUT, 1, 1);
        gex_Event_t ra = gexi_event_handle(a), la = gex_Event_QueryLeaf(ra, GEX_EC_LC);
        gex_Event_t arr[3] = { order ? la : ra, GEX_EVENT_INVALID, order ? ra : la };
        gexi_counter_done(&a->lc.pending, 1);
        gexi_counter_done(&a->h.pending, 1);
        gex_Event_WaitSome(arr, 3, 0);
        CHILD_CHECK_EQ(live(arr, 3), 0);
        gex_Event_WaitAll(arr, 3, 0);
    }
    gex_Event_t none[1] = { GEX_EVENT_INVALID };
    CHILD_CHECK_EQ(gex_Event_TestAll(none, 1, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_Event_TestSome(none, 0, 0), GASNET_OK);
}
START_TEST(test_arrays)
{
    struct child_result res;
    run_child(array_child, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

/* ---- misuse ---- */
static void stale_leaf_child(void *arg)
{
    (void)arg;
    start_job();
    struct gexi_event *a = gexi_event_new(GEX_EC_PUT, 0, 0);
    a->h.flags |= GEXI_EVF_HAS_LC;  /* an LC leaf that was born complete */
    gex_Event_t leaf = gex_Event_QueryLeaf(gexi_event_handle(a), GEX_EC_LC);
    gex_Event_Wait(gexi_event_handle(a));
    gex_Event_Test(leaf); /* its root is synchronized: stale */
    CHILD_CHECK(0);
}
static void stale_root_child(void *arg)
{
    (void)arg;
    start_job();
    gex_Event_t e = gexi_event_handle(gexi_event_new(GEX_EC_GET, 0, 0));
    gex_Event_Wait(e);
    gex_Event_Wait(e);
    CHILD_CHECK(0);
}
static void noop_array_child(void *arg)
{
    (void)arg;
    start_job();
    gex_Event_t arr[2] = { GEX_EVENT_INVALID, GEX_EVENT_NO_OP };
    gex_Event_TestAll(arr, 2, 0);
    CHILD_CHECK(0);
}
static void discarded_child(void *arg)
{
    (void)arg;
    start_job();
    struct gexi_event *a = gexi_event_new(GEX_EC_PUT, 1, 0);
    gexi_event_discard(a);
    /* the free list is LIFO: the next event is the same object */
    struct gexi_event *b = gexi_event_new(GEX_EC_GET, 0, 0);
    CHILD_CHECK(a == b);
    gex_Event_Wait(gexi_event_handle(b));
    gex_Event_Test(gexi_event_handle(a)); /* now stale */
    CHILD_CHECK(0);
}
START_TEST(test_misuse)
{
    struct child_result res;
    run_child(stale_leaf_child, NULL, &res);
    ck_assert_child_exit(&res, 1, "gex_Event_Test: ");
    ck_assert_child_exit(&res, 1, "is not a live event");
    run_child(stale_root_child, NULL, &res);
    ck_assert_child_exit(&res, 1, "gex_Event_Wait: ");
    run_child(noop_array_child, NULL, &res);
    ck_assert_child_exit(&res, 1, "GEX_EVENT_NO_OP may not be tested or waited on");
    run_child(discarded_child, NULL, &res);
    ck_assert_child_exit(&res, 1, "is not a live event");
}
END_TEST

/* ---- bad arguments to calls without an error return ----
 * The spec gives gex_Event_TestAll/TestSome and gex_NBI_Test no error code
 * (non-zero means "not done yet"), gex_NBI_Begin/EndAccessRegion and
 * gex_Event_QueryLeaf none either, and says their flags "must currently be
 * zero".  Debug builds end the job naming the call and the argument; other
 * builds say what they do instead (never "returning GASNET_ERR_BAD_ARG",
 * which these calls cannot return), once per call site, and go on. */
static void noleaf_child(void *arg)
{
    (void)arg;
    start_job();
    struct gexi_event *ev = gexi_event_new(GEX_EC_GET, 0, 0);  /* a get: no LC leaf */
    for (int i = 0; i < 2; i++)
        CHILD_CHECK(gex_Event_QueryLeaf(gexi_event_handle(ev), GEX_EC_LC) == GEX_EVENT_INVALID);
    gex_Event_Wait(gexi_event_handle(ev));
}
static void leaf_category_child(void *arg)
{
    (void)arg;
    start_job();
    struct gexi_event *ev = gexi_event_new(GEX_EC_PUT, 0, 1);
    CHILD_CHECK(gex_Event_QueryLeaf(gexi_event_handle(ev), GEX_EC_ALL) == GEX_EVENT_INVALID);
    gexi_counter_done(&ev->lc.pending, 1);
    gex_Event_Wait(gexi_event_handle(ev));
}
static void nbi_test_flags_child(void *arg)
{
    (void)arg;
    start_job();
    for (int i = 0; i < 3; i++) CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 1), GASNET_OK);
}
static void nbi_wait_flags_child(void *arg)
{
    (void)arg;
    start_job();
    gex_NBI_Wait(GEX_EC_PUT, 2);
    gex_NBI_Wait(GEX_EC_PUT, 2);
    gex_Event_t arr[1] = { GEX_EVENT_INVALID };
    gex_Event_WaitAll(arr, 1, 8);
}
static void nbi_test_mask_child(void *arg)
{
    (void)arg;
    start_job();
    CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_ALL | 0x40000000u, 0), GASNET_OK);
}
static void testall_flags_child(void *arg)
{
    (void)arg;
    start_job();
    gex_Event_t arr[2] = { GEX_EVENT_INVALID, GEX_EVENT_INVALID };
    CHILD_CHECK_EQ(gex_Event_TestAll(arr, 2, 4), GASNET_OK);
    CHILD_CHECK_EQ(gex_Event_TestSome(arr, 2, 4), GASNET_OK);
}
static void region_flags_child(void *arg)
{
    (void)arg;
    start_job();
    gex_NBI_BeginAccessRegion(1);
    gex_Event_t e = gex_NBI_EndAccessRegion(0);
    CHILD_CHECK(e != GEX_EVENT_NO_OP);
    gex_Event_Wait(e);
}
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}
/* Debug: exit status 1 and "<call>: bad argument: <what>".  Release: the
 * child runs to the end and printed "<call>: bad argument: <what>..." exactly
 * once, ending with "; <then>". */
static void expect_bad_arg(void (*fn)(void *), const char *call_what, const char *then)
{
    struct child_result res;
    run_child(fn, NULL, &res);
    ck_assert_msg(strstr(res.err, "returning GASNET_ERR") == NULL, "misleading message:\n%s",
                  res.err);
#ifdef GEX_DEBUG
    (void)then;
    ck_assert_child_exit(&res, 1, call_what);
#else
    ck_assert_child_ok(&res);
    ck_assert_msg(count_of(res.err, call_what) == 1, "want \"%s\" once in:\n%s", call_what,
                  res.err);
    char want[128];
    snprintf(want, sizeof want, "; %s\n", then);
    ck_assert_msg(strstr(res.err, want) != NULL, "want \"%s\" in:\n%s", then, res.err);
#endif
}
START_TEST(test_bad_args)
{
    expect_bad_arg(noleaf_child, "gex_Event_QueryLeaf: bad argument: root has no "
                   "local-completion leaf", "returning GEX_EVENT_INVALID");
    expect_bad_arg(leaf_category_child, "gex_Event_QueryLeaf: bad argument: event_category "
                   "0x", "returning GEX_EVENT_INVALID");
    expect_bad_arg(nbi_test_flags_child, "gex_NBI_Test: bad argument: flags must be zero (got "
                   "0x1)", "flags ignored");
    /* the waits name themselves, not the test they loop on */
    expect_bad_arg(nbi_wait_flags_child, "gex_NBI_Wait: bad argument: flags must be zero (got "
                   "0x2)", "flags ignored");
    expect_bad_arg(nbi_test_mask_child, "gex_NBI_Test: bad argument: event_mask 0x",
                   "unknown bits ignored");
    expect_bad_arg(testall_flags_child, "gex_Event_TestAll: bad argument: flags must be zero "
                   "(got 0x4)", "flags ignored");
    expect_bad_arg(region_flags_child, "gex_NBI_BeginAccessRegion: bad argument: flags must "
                   "be zero (got 0x1)", "flags ignored");
}
END_TEST

/* ---- NBI and access regions ---- */
static void nbi_child(void *arg)
{
    (void)arg;
    start_job();
    _Atomic uint32_t *put = gexi_nbi_counter(GEX_EC_PUT), *lc = gexi_nbi_lc_counter();
    atomic_fetch_add(put, 2);
    atomic_fetch_add(lc, 1);
    CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_PUT, 0), GASNET_ERR_NOT_READY);
    CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_LC, 0), GASNET_ERR_NOT_READY);
    CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_GET | GEX_EC_AM | GEX_EC_RMW, 0), GASNET_OK);
    gexi_counter_done(lc, 1);
    CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_LC, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_ERR_NOT_READY);
    gexi_counter_done(put, 2);
    gex_NBI_Wait(GEX_EC_ALL, 0);

    /* Inside a region every category counts in the region's event. */
    gex_NBI_BeginAccessRegion(0);
    _Atomic uint32_t *r1 = gexi_nbi_counter(GEX_EC_GET), *r2 = gexi_nbi_counter(GEX_EC_PUT);
    CHILD_CHECK(r1 == r2 && r1 != put);
    atomic_fetch_add(r1, 3);
    gex_Event_t reg = gex_NBI_EndAccessRegion(0);
    CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK); /* not the thread's counters */
    CHILD_CHECK(gexi_nbi_counter(GEX_EC_PUT) == put);        /* region closed */
    gex_Event_t leaf = gex_Event_QueryLeaf(reg, GEX_EC_LC);  /* a region has an LC leaf */
    CHILD_CHECK(leaf != GEX_EVENT_INVALID && leaf != GEX_EVENT_NO_OP);
    CHILD_CHECK_EQ(gex_Event_Test(leaf), GASNET_OK);
    CHILD_CHECK_EQ(gex_Event_Test(reg), GASNET_ERR_NOT_READY);
    gexi_counter_done(r1, 3);
    gex_Event_t arr[2] = { reg, leaf };
    gex_Event_WaitAll(arr, 2, 0);
}
START_TEST(test_nbi)
{
    struct child_result res;
    run_child(nbi_child, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

/* ---- recycling ---- */
static void recycle_child(void *arg)
{
    (void)arg;
    start_job();
    struct gexi_event *first = gexi_event_new(GEX_EC_PUT, 0, 0);
    gex_Event_Wait(gexi_event_handle(first));
    for (int i = 0; i < 1000000; i++) {
        struct gexi_event *e = gexi_event_new(GEX_EC_PUT, 1, 0);
        CHILD_CHECK(e == first); /* the same object every time: no allocation */
        gexi_counter_done(&e->h.pending, 1);
        CHILD_CHECK_EQ(gex_Event_Test(gexi_event_handle(e)), GASNET_OK);
    }
}
START_TEST(test_recycle)
{
    struct child_result res;
    run_child(recycle_child, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("events");
    TCase *tc = tcase_create("events");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_leaf);
    tcase_add_test(tc, test_arrays);
    tcase_add_test(tc, test_misuse);
    tcase_add_test(tc, test_bad_args);
    tcase_add_test(tc, test_nbi);
    tcase_add_test(tc, test_recycle);
    suite_add_tcase(s, tc);
    return run_suite(s) == 0 ? 0 : 1;
}
