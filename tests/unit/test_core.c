/*
 * test_core.c: Check unit tests of libgex-core that need no launcher.
 *
 *  - gasnet_ErrorName/Desc for every code (and unknown ones);
 *  - gex_System_Get/SetVerboseErrors;
 *  - a singleton job (no gexrun) in a child: jobrank 0 of 1, host and nbrhd
 *    of one, Attach, AM Short/Medium/Long Request and Reply to self,
 *    bound-segment queries, a second gex_Client_Init, gasnet_exit(0);
 *  - GASNET_MAX_SEGSIZE limiting the segment size of a singleton;
 *  - gex_EP_RegisterHandlers index rules: fixed indices first, then zero
 *    entries in table order take the highest free index; per endpoint; a
 *    full table;
 *  - gex_TM_Pair equality rules;
 *  - internal environment parsing (core_layer.h): gexi_getenv_size,
 *    gexi_getenv_int and GEX_FORCE_REFERENCE (gexi_env_forces_reference).
 */
#include "core_layer.h" /* gexi_getenv_*; needs -DGEXI_BUILDING_GEX */
#include <gasnet.h>
#include <gasnetex.h>

#include "unit_child.h"

/* ---- Error names and descriptions ---- */
START_TEST(test_error_names)
{
    static const struct {
        int code;
        const char *name;
    } codes[] = {
        { GASNET_OK, "GASNET_OK" },
        { GASNET_ERR_NOT_INIT, "GASNET_ERR_NOT_INIT" },
        { GASNET_ERR_RESOURCE, "GASNET_ERR_RESOURCE" },
        { GASNET_ERR_BAD_ARG, "GASNET_ERR_BAD_ARG" },
        { GASNET_ERR_NOT_READY, "GASNET_ERR_NOT_READY" },
        { GASNET_ERR_BARRIER_MISMATCH, "GASNET_ERR_BARRIER_MISMATCH" },
    };
    const size_t n = sizeof codes / sizeof codes[0];
    /* GASNet-1 values */
    ck_assert_int_eq(GASNET_ERR_NOT_INIT, 10001);
    ck_assert_int_eq(GASNET_ERR_BARRIER_MISMATCH, 10005);
    for (size_t i = 0; i < n; i++) {
        const char *name = gasnet_ErrorName(codes[i].code);
        const char *desc = gasnet_ErrorDesc(codes[i].code);
        ck_assert_ptr_nonnull(name);
        ck_assert_str_eq(name, codes[i].name);
        ck_assert_ptr_nonnull(desc);
        ck_assert_msg(strlen(desc) > 3, "description of %s is '%s'", name, desc);
        for (size_t j = 0; j < i; j++) /* every code described differently */
            ck_assert_str_ne(desc, gasnet_ErrorDesc(codes[j].code));
    }
    /* unknown codes still get strings, which name no known code */
    const int unknown[] = { -1, 1, 9999, 10000, 10006, 123456 };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *name = gasnet_ErrorName(unknown[i]);
        const char *desc = gasnet_ErrorDesc(unknown[i]);
        ck_assert_ptr_nonnull(name);
        ck_assert_ptr_nonnull(desc);
        for (size_t j = 0; j < n; j++) {
            ck_assert_str_ne(name, codes[j].name);
            ck_assert_str_ne(desc, gasnet_ErrorDesc(codes[j].code));
        }
    }
}
END_TEST

START_TEST(test_verbose_errors)
{
    ck_assert_int_eq(gex_System_GetVerboseErrors(), 1); /* on by default */
    gex_System_SetVerboseErrors(0);
    ck_assert_int_eq(gex_System_GetVerboseErrors(), 0);
    gex_System_SetVerboseErrors(0);
    ck_assert_int_eq(gex_System_GetVerboseErrors(), 0);
    gex_System_SetVerboseErrors(1);
    ck_assert_int_eq(gex_System_GetVerboseErrors(), 1);
    gex_System_SetVerboseErrors(0);
    ck_assert_int_eq(gex_System_GetVerboseErrors(), 0);
}
END_TEST

/* ---- A singleton job: init, queries, AMs to self ---- */
static volatile int got_short, got_medium, got_long, got_short_rep, got_medium_rep, got_long_rep;
static char *seg_base;

static void h_short(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b)
{
    gex_Token_Info_t info;
    CHILD_CHECK((gex_Token_Info(t, &info, GEX_TI_ALL) & GEX_TI_SRCRANK) != 0);
    CHILD_CHECK_EQ(info.gex_srcrank, 0);
    CHILD_CHECK(info.gex_is_req == 1 && info.gex_is_long == 0);
    CHILD_CHECK(a == -7 && b == 0x7fffffff);
    got_short++;
    CHILD_CHECK_EQ(gex_AM_ReplyShort1(t, GEX_AM_INDEX_BASE + 1, 0, a + b), 0);
}
static void h_short_rep(gex_Token_t t, gex_AM_Arg_t s)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_ALL);
    CHILD_CHECK(info.gex_is_req == 0);
    CHILD_CHECK_EQ(s, 0x7fffffff - 7);
    got_short_rep++;
}
static void h_medium(gex_Token_t t, void *buf, size_t n)
{
    CHILD_CHECK_EQ(n, 1000);
    for (size_t i = 0; i < n; i++) CHILD_CHECK_EQ(((unsigned char *)buf)[i], (i * 7) & 0xff);
    got_medium++;
    char r[300];
    memset(r, 0x3c, sizeof r);
    CHILD_CHECK_EQ(gex_AM_ReplyMedium0(t, GEX_AM_INDEX_BASE + 3, r, sizeof r, GEX_EVENT_NOW, 0),
                   0);
}
static void h_medium_rep(gex_Token_t t, void *buf, size_t n)
{
    (void)t;
    CHILD_CHECK_EQ(n, 300);
    for (size_t i = 0; i < n; i++) CHILD_CHECK_EQ(((unsigned char *)buf)[i], 0x3c);
    got_medium_rep++;
}
static void h_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t off)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_ALL);
    CHILD_CHECK(info.gex_is_long == 1);
    CHILD_CHECK(buf == seg_base + off);
    CHILD_CHECK_EQ(n, 5000);
    for (size_t i = 0; i < n; i++) CHILD_CHECK_EQ(((unsigned char *)buf)[i], (i * 13 + 1) & 0xff);
    got_long++;
    CHILD_CHECK_EQ(gex_AM_ReplyLong1(t, GEX_AM_INDEX_BASE + 5, buf, 100, seg_base + 20000,
                                     GEX_EVENT_NOW, 0, off), 0);
}
static void h_long_rep(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t off)
{
    (void)t;
    CHILD_CHECK(buf == seg_base + 20000);
    CHILD_CHECK_EQ(n, 100);
    CHILD_CHECK(!memcmp(buf, seg_base + off, 100));
    got_long_rep++;
}

#define POLL_UNTIL(cond) do { while (!(cond)) gasnet_AMPoll(); } while (0)

static void singleton_job(void *arg)
{
    (void)arg;
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    CHILD_CHECK_EQ(gex_Client_Init(&client, &ep, &tm, "UNIT_CORE", NULL, NULL, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_System_QueryJobRank(), 0);
    CHILD_CHECK_EQ(gex_System_QueryJobSize(), 1);
    CHILD_CHECK_EQ(gex_TM_QueryRank(tm), 0);
    CHILD_CHECK_EQ(gex_TM_QuerySize(tm), 1);
    gex_RankInfo_t *info;
    gex_Rank_t count, mine;
    gex_System_QueryHostInfo(&info, &count, &mine);
    CHILD_CHECK(count == 1 && mine == 0 && info[0].gex_jobrank == 0);
    gex_System_QueryNbrhdInfo(&info, &count, &mine);
    CHILD_CHECK(count == 1 && mine == 0 && info[0].gex_jobrank == 0);
    gex_Rank_t a = 9, b = 9, c = 9, d = 9;
    gex_System_QueryMyPosition(&a, &b, &c, &d);
    CHILD_CHECK(a == 1 && b == 0 && c == 1 && d == 0);
    /* a second client in the same process is refused */
    gex_Client_t c2 = (gex_Client_t)1;
    gex_EP_t e2 = (gex_EP_t)1;
    gex_TM_t t2 = (gex_TM_t)1;
    gex_System_SetVerboseErrors(0);
    CHILD_CHECK_EQ(gex_Client_Init(&c2, &e2, &t2, "UNIT_CORE", NULL, NULL, 0),
                   GASNET_ERR_RESOURCE);
    CHILD_CHECK(c2 == (gex_Client_t)1 && e2 == (gex_EP_t)1 && t2 == (gex_TM_t)1);

    gex_AM_Entry_t h[] = {
        { GEX_AM_INDEX_BASE + 0, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, NULL },
        { GEX_AM_INDEX_BASE + 1, (gex_AM_Fn_t)h_short_rep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, NULL },
        { GEX_AM_INDEX_BASE + 2, (gex_AM_Fn_t)h_medium, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, NULL },
        { GEX_AM_INDEX_BASE + 3, (gex_AM_Fn_t)h_medium_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, NULL },
        { GEX_AM_INDEX_BASE + 4, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, NULL },
        { GEX_AM_INDEX_BASE + 5, (gex_AM_Fn_t)h_long_rep, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 1, NULL, NULL },
    };
    CHILD_CHECK_EQ(gex_EP_RegisterHandlers(ep, h, 6), GASNET_OK);
    gex_Segment_t seg;
    CHILD_CHECK_EQ(gex_Segment_Attach(&seg, tm, 64 * 1024), GASNET_OK);
    seg_base = gex_Segment_QueryAddr(seg);
    CHILD_CHECK(seg_base != NULL && gex_Segment_QuerySize(seg) == 64 * 1024);
    void *owner = NULL, *local = NULL;
    uintptr_t size = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, 0, &owner, &local, &size, 0));
    CHILD_CHECK(owner == seg_base && local == seg_base && size == 64 * 1024);

    CHILD_CHECK_EQ(gex_AM_RequestShort2(tm, 0, GEX_AM_INDEX_BASE + 0, 0, -7, 0x7fffffff), 0);
    POLL_UNTIL(got_short_rep);
    char buf[5000];
    for (size_t i = 0; i < 1000; i++) buf[i] = (char)((i * 7) & 0xff);
    CHILD_CHECK_EQ(gex_AM_RequestMedium0(tm, 0, GEX_AM_INDEX_BASE + 2, buf, 1000, GEX_EVENT_NOW,
                                         0), 0);
    memset(buf, 0, sizeof buf);
    POLL_UNTIL(got_medium_rep);
    for (size_t i = 0; i < 5000; i++) buf[i] = (char)((i * 13 + 1) & 0xff);
    CHILD_CHECK_EQ(gex_AM_RequestLong1(tm, 0, GEX_AM_INDEX_BASE + 4, buf, 5000, seg_base + 3,
                                       GEX_EVENT_NOW, 0, 3), 0);
    POLL_UNTIL(got_long_rep);
    CHILD_CHECK(got_short == 1 && got_medium == 1 && got_long == 1);
    CHILD_CHECK(got_short_rep == 1 && got_medium_rep == 1 && got_long_rep == 1);
    gasnet_exit(0);
}

START_TEST(test_singleton_job)
{
    struct child_result res;
    run_child(singleton_job, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

/* ---- GASNET_MAX_SEGSIZE in a singleton ---- */
static void max_segsize_job(void *arg)
{
    (void)arg;
    setenv("GASNET_MAX_SEGSIZE", "1M", 1);
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    CHILD_CHECK_EQ(gex_Client_Init(&client, &ep, &tm, "UNIT_CORE", NULL, NULL, 0), GASNET_OK);
    CHILD_CHECK_EQ(gasnet_getMaxLocalSegmentSize(), 1 << 20);
    CHILD_CHECK_EQ(gasnet_getMaxGlobalSegmentSize(), 1 << 20);
    gex_System_SetVerboseErrors(0);
    gex_Segment_t seg = (gex_Segment_t)1;
    CHILD_CHECK_EQ(gex_Segment_Attach(&seg, tm, 2 << 20), GASNET_ERR_BAD_ARG);
    CHILD_CHECK(seg == (gex_Segment_t)1);
    CHILD_CHECK_EQ(gex_Segment_Attach(&seg, tm, 1 << 20), GASNET_OK);
    CHILD_CHECK_EQ(gex_Segment_QuerySize(seg), 1 << 20);
}

START_TEST(test_max_segsize_env)
{
    struct child_result res;
    run_child(max_segsize_job, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

/* ---- Handler registration rules ---- */
static volatile int which_ran;
static const gex_AM_Entry_t *ran_entry;
static void note(gex_Token_t t, int which)
{
    gex_Token_Info_t info;
    CHILD_CHECK(gex_Token_Info(t, &info, GEX_TI_ENTRY) & GEX_TI_ENTRY);
    ran_entry = info.gex_entry;
    which_ran = which;
}
static void f1(gex_Token_t t) { note(t, 1); }
static void f2(gex_Token_t t) { note(t, 2); }
static void f3(gex_Token_t t) { note(t, 3); }
static void f4(gex_Token_t t) { note(t, 4); }
static void f5(gex_Token_t t) { note(t, 5); }
static void fx(gex_Token_t t) { note(t, 100); }

/* Sends a Short to handler `idx` of `to` and returns which fn ran. */
static int ran_by(gex_TM_t tm, gex_AM_Index_t idx)
{
    which_ran = 0;
    CHILD_CHECK_EQ(gex_AM_RequestShort0(tm, 0, idx, 0), 0);
    POLL_UNTIL(which_ran);
    CHILD_CHECK_EQ(ran_entry->gex_index, idx);
    return which_ran;
}

#define SHORT_REQ (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST)

static void registration_job(void *arg)
{
    (void)arg;
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    CHILD_CHECK_EQ(gex_Client_Init(&client, &ep, &tm, "UNIT_CORE", NULL, NULL, 0), GASNET_OK);
    static int cd1, cd3;
    gex_AM_Entry_t ta[] = {
        { 0, (gex_AM_Fn_t)f1, SHORT_REQ, 0, &cd1, "f1" },
        { 255, (gex_AM_Fn_t)f2, SHORT_REQ, 0, NULL, "f2" },
        { 0, (gex_AM_Fn_t)f3, SHORT_REQ, 0, &cd3, "f3" },
        { 253, (gex_AM_Fn_t)f4, SHORT_REQ, 0, NULL, "f4" },
    };
    CHILD_CHECK_EQ(gex_EP_RegisterHandlers(ep, ta, 4), GASNET_OK);
    /* fixed indices are registered first; then zero entries, in table order,
     * take the highest free index */
    CHILD_CHECK_EQ(ta[0].gex_index, 254);
    CHILD_CHECK_EQ(ta[1].gex_index, 255);
    CHILD_CHECK_EQ(ta[2].gex_index, 252);
    CHILD_CHECK_EQ(ta[3].gex_index, 253);
    gex_AM_Entry_t tb[] = { { 0, (gex_AM_Fn_t)f5, SHORT_REQ, 0, NULL, "f5" } };
    CHILD_CHECK_EQ(gex_EP_RegisterHandlers(ep, tb, 1), GASNET_OK);
    CHILD_CHECK_EQ(tb[0].gex_index, 251);
    gex_AM_Entry_t tc[] = { { 0, (gex_AM_Fn_t)fx, SHORT_REQ, 0, NULL, "fx0" },
                            { 200, (gex_AM_Fn_t)fx, SHORT_REQ, 0, NULL, "fx200" } };
    CHILD_CHECK_EQ(gex_EP_RegisterHandlers(ep, tc, 2), GASNET_OK);
    CHILD_CHECK_EQ(tc[0].gex_index, 250);
    CHILD_CHECK_EQ(gex_EP_RegisterHandlers(ep, NULL, 0), GASNET_OK);
    gex_Segment_t seg;
    CHILD_CHECK_EQ(gex_Segment_Attach(&seg, tm, 4096), GASNET_OK);
    /* the AMs reach the right functions, and the token's entry is theirs */
    CHILD_CHECK_EQ(ran_by(tm, 254), 1);
    CHILD_CHECK(ran_entry->gex_cdata == &cd1 && ran_entry->gex_fnptr == (gex_AM_Fn_t)f1);
    CHILD_CHECK(!strcmp(ran_entry->gex_name, "f1"));
    CHILD_CHECK_EQ(ran_by(tm, 255), 2);
    CHILD_CHECK_EQ(ran_by(tm, 252), 3);
    CHILD_CHECK(ran_entry->gex_cdata == &cd3);
    CHILD_CHECK_EQ(ran_by(tm, 253), 4);
    CHILD_CHECK_EQ(ran_by(tm, 251), 5);
    CHILD_CHECK_EQ(ran_by(tm, 200), 100);

    /* fill the table: the remaining free indices, highest first */
    unsigned char used[256] = { 0 };
    used[255] = used[254] = used[253] = used[252] = used[251] = used[250] = used[200] = 1;
    gex_AM_Entry_t fill[128];
    size_t nfill = 0;
    for (unsigned i = GEX_AM_INDEX_BASE; i < 256; i++) nfill += !used[i];
    CHILD_CHECK_EQ(nfill, 128 - 7);
    for (size_t i = 0; i < nfill; i++)
        fill[i] = (gex_AM_Entry_t){ 0, (gex_AM_Fn_t)fx, SHORT_REQ, 0, NULL, NULL };
    CHILD_CHECK_EQ(gex_EP_RegisterHandlers(ep, fill, nfill), GASNET_OK);
    unsigned want = 256;
    for (size_t i = 0; i < nfill; i++) {
        do want--; while (used[want]);
        CHILD_CHECK_EQ(fill[i].gex_index, want);
    }
    CHILD_CHECK_EQ(want, GEX_AM_INDEX_BASE);
    CHILD_CHECK_EQ(ran_by(tm, GEX_AM_INDEX_BASE), 100);
    /* full: one more fails (the spec leaves it undefined; GEX refuses) */
    gex_System_SetVerboseErrors(0);
    gex_AM_Entry_t more = { 0, (gex_AM_Fn_t)fx, SHORT_REQ, 0, NULL, NULL };
    CHILD_CHECK(gex_EP_RegisterHandlers(ep, &more, 1) != GASNET_OK);
    CHILD_CHECK_EQ(more.gex_index, 0);
    more.gex_index = 130;
    CHILD_CHECK_EQ(gex_EP_RegisterHandlers(ep, &more, 1), GASNET_ERR_BAD_ARG);

    /* another endpoint has a table of its own */
    gex_EP_t ep1;
    CHILD_CHECK_EQ(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_AM, 0), GASNET_OK);
    gex_AM_Entry_t te[] = { { 0, (gex_AM_Fn_t)f3, SHORT_REQ, 0, NULL, NULL },
                            { 254, (gex_AM_Fn_t)f2, SHORT_REQ, 0, NULL, NULL } };
    CHILD_CHECK_EQ(gex_EP_RegisterHandlers(ep1, te, 2), GASNET_OK);
    CHILD_CHECK_EQ(te[0].gex_index, 255);
    gex_TM_t to_ep1 = gex_TM_Pair(ep, 1);
    CHILD_CHECK_EQ(ran_by(to_ep1, 255), 3); /* EP 1's 255, not EP 0's */
    CHILD_CHECK_EQ(ran_by(to_ep1, 254), 2);
    CHILD_CHECK_EQ(ran_by(tm, 254), 1);     /* EP 0 unchanged */
}

START_TEST(test_handler_registration)
{
    struct child_result res;
    run_child(registration_job, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

/* ---- TM-pair equality ---- */
static void tm_pair_job(void *arg)
{
    (void)arg;
    gex_Client_t client;
    gex_EP_t ep[3];
    gex_TM_t tm;
    CHILD_CHECK_EQ(gex_Client_Init(&client, &ep[0], &tm, "UNIT_CORE", NULL, NULL, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_EP_Create(&ep[1], client, GEX_EP_CAPABILITY_ALL, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_EP_Create(&ep[2], client, GEX_EP_CAPABILITY_RMA, 0), GASNET_OK);
    static gex_TM_t p[3][GASNET_MAXEPS];
    for (int e = 0; e < 3; e++) {
        for (unsigned i = 0; i < GASNET_MAXEPS; i++) {
            p[e][i] = gex_TM_Pair(ep[e], i);
            CHILD_CHECK(p[e][i] != GEX_TM_INVALID);
            CHILD_CHECK(p[e][i] != tm); /* never equal to a real team */
            CHILD_CHECK(p[e][i] == gex_TM_Pair(ep[e], i)); /* same arguments: equal */
        }
    }
    for (int e = 0; e < 3; e++)
        for (unsigned i = 0; i < GASNET_MAXEPS; i++)
            for (int f = 0; f < 3; f++)
                for (unsigned j = 0; j < GASNET_MAXEPS; j++)
                    CHILD_CHECK((p[e][i] == p[f][j]) == (e == f && i == j));
    /* a TM-pair names (jobrank, remote index) through the local EP */
    gex_Segment_t seg;
    CHILD_CHECK_EQ(gex_Segment_Attach(&seg, tm, 4096), GASNET_OK);
    uintptr_t size = 0;
    CHILD_CHECK_EQ(gex_Segment_QueryBound(p[2][0], 0, NULL, NULL, &size), 0);
    CHILD_CHECK_EQ(size, 4096);
    gex_System_SetVerboseErrors(0);
    CHILD_CHECK(gex_Segment_QueryBound(p[0][1], 0, NULL, NULL, &size) != 0);
}

START_TEST(test_tm_pair)
{
    struct child_result res;
    run_child(tm_pair_job, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

/* ---- Environment parsing ---- */
#define VAR "GEX_UNIT_TEST_VALUE"
static uint64_t size_of(const char *v, uint64_t dflt)
{
    if (v) setenv(VAR, v, 1);
    else unsetenv(VAR);
    return gexi_getenv_size(VAR, dflt);
}

START_TEST(test_env_size)
{
    ck_assert_uint_eq(size_of("64K", 1), 65536);
    ck_assert_uint_eq(size_of("64k", 1), 65536);
    ck_assert_uint_eq(size_of("2M", 1), 2u << 20);
    ck_assert_uint_eq(size_of("1G", 1), 1u << 30);
    ck_assert_uint_eq(size_of("3T", 1), 3ull << 40);
    ck_assert_uint_eq(size_of("4KB", 1), 4096);
    ck_assert_uint_eq(size_of("1.5K", 1), 1536);
    ck_assert_uint_eq(size_of("123", 1), 123);
    ck_assert_uint_eq(size_of("0", 1), 0);
    ck_assert_uint_eq(size_of("64KiB", 1), 65536);
    ck_assert_uint_eq(size_of(" 2M ", 1), 2u << 20);
    ck_assert_uint_eq(size_of("512B", 1), 512);
    ck_assert_uint_eq(size_of(".5K", 1), 512);
    ck_assert_uint_eq(size_of("1.5", 1), 1);
    ck_assert_uint_eq(size_of("16777215T", 1), 16777215ull << 40);
    /* unset or empty: the default */
    ck_assert_uint_eq(size_of(NULL, 777), 777);
    ck_assert_uint_eq(size_of("", 777), 777);
    unsetenv(VAR);
}
END_TEST

/* An unreadable size ends the process with status 1 (docs/environment.md,
 * "Unreadable values"): one forked child per value (an exit test). */
static const char *const bad_sizes[] = { "abc", "12Q", "5KX", "5KBB", "-5", "-1M", "K", ".",
                                         "5Ki", "99999999999999999999", "16777216T", "zz" };
START_TEST(test_env_size_bad)
{
    (void)size_of(bad_sizes[_i], 777);
    ck_abort_msg("gexi_getenv_size accepted '%s'", bad_sizes[_i]);
}
END_TEST

static const char *const bad_ints[] = { "12abc", "zz", "99999999999999999999999", "0x", "1.5" };
START_TEST(test_env_int_bad)
{
    setenv(VAR, bad_ints[_i], 1);
    (void)gexi_getenv_int(VAR, 5);
    ck_abort_msg("gexi_getenv_int accepted '%s'", bad_ints[_i]);
}
END_TEST

START_TEST(test_env_yesno)
{
    const char *yes[] = { "1", "y", "Y", "yes", "YES", "true", "True" };
    const char *no[] = { "0", "n", "N", "no", "No", "false", "FALSE" };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        setenv(VAR, yes[i], 1);
        ck_assert_int_eq(gexi_getenv_yesno(VAR, 0), 1);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        setenv(VAR, no[i], 1);
        ck_assert_int_eq(gexi_getenv_yesno(VAR, 1), 0);
    }
    setenv(VAR, "", 1);
    ck_assert_int_eq(gexi_getenv_yesno(VAR, 1), 1);
    unsetenv(VAR);
    ck_assert_int_eq(gexi_getenv_yesno(VAR, 0), 0);
    setenv(VAR, "7", 1);
    ck_assert_int_eq(gexi_getenv_int_range(VAR, 0, 0, 7), 7);
    unsetenv(VAR);
}
END_TEST

static const char *const bad_yesno[] = { "zz", "2", "-1", "yess", "ye", "on", " 1" };
START_TEST(test_env_yesno_bad)
{
    setenv(VAR, bad_yesno[_i], 1);
    (void)gexi_getenv_yesno(VAR, 0);
    ck_abort_msg("gexi_getenv_yesno accepted '%s'", bad_yesno[_i]);
}
END_TEST

START_TEST(test_env_range_bad)
{
    setenv(VAR, _i ? "8" : "-1", 1);
    (void)gexi_getenv_int_range(VAR, 0, 0, 7);
    ck_abort_msg("gexi_getenv_int_range accepted %s", _i ? "8" : "-1");
}
END_TEST

START_TEST(test_env_int)
{
    setenv(VAR, "42", 1);
    ck_assert_int_eq(gexi_getenv_int(VAR, 5), 42);
    setenv(VAR, "-3", 1);
    ck_assert_int_eq(gexi_getenv_int(VAR, 5), -3);
    setenv(VAR, "0x10", 1);
    ck_assert_int_eq(gexi_getenv_int(VAR, 5), 16);
    setenv(VAR, "", 1);
    ck_assert_int_eq(gexi_getenv_int(VAR, 5), 5);
    unsetenv(VAR);
    ck_assert_int_eq(gexi_getenv_int(VAR, 5), 5);
    ck_assert_ptr_null(gexi_getenv(VAR));
    setenv(VAR, "x y", 1);
    ck_assert_str_eq(gexi_getenv(VAR), "x y");
    ck_assert_str_eq(gasnet_getenv(VAR), "x y");
    unsetenv(VAR);
}
END_TEST

static int forces(const char *value, const char *layer)
{
    if (value) setenv("GEX_FORCE_REFERENCE", value, 1);
    else unsetenv("GEX_FORCE_REFERENCE");
    return gexi_env_forces_reference(layer);
}

START_TEST(test_force_reference)
{
    ck_assert_int_eq(forces(NULL, "am"), 0);
    ck_assert_int_eq(forces("", "am"), 0);
    ck_assert_int_eq(forces("am", "am"), 1);
    ck_assert_int_eq(forces("am", "rma"), 0);
    ck_assert_int_eq(forces("rma,am", "am"), 1);
    ck_assert_int_eq(forces("rma,am", "rma"), 1);
    ck_assert_int_eq(forces("rma,am", "vis"), 0);
    ck_assert_int_eq(forces("all", "coll"), 1);
    ck_assert_int_eq(forces("vis,all", "am"), 1);
    ck_assert_int_eq(forces(",am,", "am"), 1);
    unsetenv("GEX_FORCE_REFERENCE");
}
END_TEST

/* whole layer names only, and an item that names no layer ends the process
 * (a misspelt layer must not silently benchmark the conduit's code) */
static const char *const bad_forces[] = { "amx", "a", "rm", "allx", "xam", "zz", "am,zz" };
START_TEST(test_force_reference_bad)
{
    (void)forces(bad_forces[_i], "am");
    ck_abort_msg("GEX_FORCE_REFERENCE='%s' accepted", bad_forces[_i]);
}
END_TEST

/* The wait policy (gexi_backoff): spin, yield, nap; a short yield phase on
 * an oversubscribed host (issue 27), no nap where napping is not allowed. */
START_TEST(test_wait_policy)
{
    for (unsigned r = 1; r < GEXI_WAIT_SPIN_ROUNDS; r++) {
        ck_assert_int_eq(gexi_wait_step(r, 0, 1), GEXI_WAIT_SPIN);
        ck_assert_int_eq(gexi_wait_step(r, 1, 1), GEXI_WAIT_SPIN);
        ck_assert_int_eq(gexi_wait_step(r, 1, 0), GEXI_WAIT_SPIN);
    }
    unsigned yields = 0, yields_over = 0;
    for (unsigned r = GEXI_WAIT_SPIN_ROUNDS; r < 2 * GEXI_WAIT_YIELD_ROUNDS; r++) {
        yields += gexi_wait_step(r, 0, 1) == GEXI_WAIT_YIELD;
        yields_over += gexi_wait_step(r, 1, 1) == GEXI_WAIT_YIELD;
        ck_assert_int_eq(gexi_wait_step(r, 1, 0), GEXI_WAIT_YIELD);   /* never a nap */
        ck_assert_int_eq(gexi_wait_step(r, 0, 0), GEXI_WAIT_YIELD);
    }
    /* alone on its cores a wait yields until round 4096, then naps */
    ck_assert_uint_eq(yields, GEXI_WAIT_YIELD_ROUNDS - GEXI_WAIT_SPIN_ROUNDS);
    ck_assert_int_eq(gexi_wait_step(GEXI_WAIT_YIELD_ROUNDS - 1, 0, 1), GEXI_WAIT_YIELD);
    ck_assert_int_eq(gexi_wait_step(GEXI_WAIT_YIELD_ROUNDS, 0, 1), GEXI_WAIT_NAP);
    /* oversubscribed: 192 yields, then every round naps */
    ck_assert_uint_eq(yields_over, GEXI_WAIT_YIELD_ROUNDS_OVER - GEXI_WAIT_SPIN_ROUNDS);
    ck_assert_int_eq(gexi_wait_step(GEXI_WAIT_YIELD_ROUNDS_OVER - 1, 1, 1), GEXI_WAIT_YIELD);
    ck_assert_int_eq(gexi_wait_step(GEXI_WAIT_YIELD_ROUNDS_OVER, 1, 1), GEXI_WAIT_NAP);
}
END_TEST

static Suite *core_suite(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("errors");
    tcase_add_test(tc, test_error_names);
    tcase_add_test(tc, test_verbose_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("singleton");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_singleton_job);
    tcase_add_test(tc, test_max_segsize_env);
    tcase_add_test(tc, test_handler_registration);
    tcase_add_test(tc, test_tm_pair);
    tcase_add_test(tc, test_wait_policy);
    suite_add_tcase(s, tc);
    tc = tcase_create("environment");
    tcase_add_test(tc, test_env_size);
    tcase_add_test(tc, test_env_int);
    tcase_add_test(tc, test_force_reference);
    tcase_add_test(tc, test_env_yesno);
#define N_OF(a) (int)(sizeof a / sizeof a[0])
    tcase_add_loop_exit_test(tc, test_env_size_bad, 1, 0, N_OF(bad_sizes));
    tcase_add_loop_exit_test(tc, test_env_int_bad, 1, 0, N_OF(bad_ints));
    tcase_add_loop_exit_test(tc, test_env_yesno_bad, 1, 0, N_OF(bad_yesno));
    tcase_add_loop_exit_test(tc, test_env_range_bad, 1, 0, 2);
    tcase_add_loop_exit_test(tc, test_force_reference_bad, 1, 0, N_OF(bad_forces));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(core_suite()) == 0 ? 0 : 1;
}
