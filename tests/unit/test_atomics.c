/*
 * test_atomics.c: libgex-atomics pieces that need no second process.
 *
 *  - selection (ad_select.c, compiled into this test): made-up conduits
 *    that support the whole declared (type, ops) set, all but one pair, or
 *    have no AMO capability; FAVOR hints; GEX_FORCE_REFERENCE;
 *  - the conduit-offload path end to end: in a singleton job the test
 *    swaps core's conduit ops for a copy that adds a test-only amo_query /
 *    amo (performing the operation itself and completing it only at the
 *    next poll, like a NIC), then checks that a domain whose set the fake
 *    supports sends EVERY operation (self-targeted ones too) through amo
 *    with exact results, that one unsupported opcode keeps the whole domain
 *    on CPU atomics (amo never called), and IMMEDIATE refusal;
 *  - argument diagnostics: an opcode outside the declared set, a call of
 *    the wrong type, invalid creation arguments end the job naming them.
 * No fake is ever installed in a real conduit: it lives in this file only.
 */
#include "atomics_internal.h"
#include "unit_child.h"
#include <gex/ext.h>

extern const char *gexi_ad_query_impl(gex_AD_t ad);

/* ---- A made-up conduit for the selection tests ---- */
static gex_OP_t fake_supported;     /* opcodes amo_query accepts (for any type) */
static gex_DT_t fake_types;
static int fake_amo_query(struct gex_conduit *c, uint32_t dt, uint32_t op)
{
    (void)c;
    return (dt & fake_types) && (op & fake_supported) ? GEX_CONDUIT_OK : GEX_CONDUIT_ENOTSUP;
}
static int fake_amo_unused(struct gex_conduit *c, gex_EP_Index_t lep, gex_Rank_t jr,
                           gex_EP_Index_t ep, void *addr, uint32_t dt, uint32_t op,
                           const void *o1, const void *o2, void *res,
                           const struct gex_conduit_cpl *cpl, gex_Flags_t flags)
{
    (void)c, (void)lep, (void)jr, (void)ep, (void)addr, (void)dt, (void)op, (void)o1, (void)o2;
    (void)res, (void)cpl, (void)flags;
    return GEX_CONDUIT_ENOTSUP;
}

static struct gex_conduit_ops sel_ops;
static void setup_sel_ops(void)
{
    memset(&sel_ops, 0, sizeof sel_ops);
    sel_ops.struct_size = sizeof sel_ops;
    sel_ops.amo_query = fake_amo_query;
    sel_ops.amo = fake_amo_unused;
    fake_types = GEX_DT_U64 | GEX_DT_I64;
    fake_supported = GEX_OP_FADD | GEX_OP_ADD | GEX_OP_GET | GEX_OP_SET | GEX_OP_FCAS;
}

static enum gexi_ad_impl sel(gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags, gex_Rank_t size,
                             int all_local, int forced, uint64_t caps)
{
    struct gexi_ad_select_in in = {
        .ops = &sel_ops, .conduit = NULL, .cap_flags = caps, .dt = dt, .opset = ops,
        .flags = flags, .team_size = size, .all_local = all_local, .forced = forced,
    };
    return gexi_ad_select(&in);
}

START_TEST(test_select_full_set_offloads)
{
    setup_sel_ops();
    const uint64_t amo = GEX_CONDUIT_CAP_AMO;
    ck_assert_int_eq(gexi_ad_conduit_covers(&sel_ops, NULL, amo, GEX_DT_U64,
                                            GEX_OP_FADD | GEX_OP_GET), 1);
    /* a team spanning hosts, no hint: the conduit */
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET, 0, 8, 0, 0, amo), GEXI_AD_CONDUIT);
    ck_assert_int_eq(sel(GEX_DT_I64, fake_supported, 0, 8, 0, 0, amo), GEXI_AD_CONDUIT);
    /* explicit FAVOR_REMOTE even on an all-local team */
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD, GEX_FLAG_AD_FAVOR_REMOTE, 4, 1, 0, amo),
                     GEXI_AD_CONDUIT);
}
END_TEST

START_TEST(test_select_one_pair_unsupported)
{
    setup_sel_ops();
    const uint64_t amo = GEX_CONDUIT_CAP_AMO;
    /* FMULT is not supported: the whole domain stays on CPU atomics */
    ck_assert_int_eq(gexi_ad_conduit_covers(&sel_ops, NULL, amo, GEX_DT_U64,
                                            GEX_OP_FADD | GEX_OP_FMULT), 0);
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD | GEX_OP_FMULT, 0, 8, 0, 0, amo),
                     GEXI_AD_REFERENCE);
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD | GEX_OP_FMULT, GEX_FLAG_AD_FAVOR_REMOTE, 4, 1,
                         0, amo), GEXI_AD_SHM);
    /* supported ops, unsupported type */
    ck_assert_int_eq(sel(GEX_DT_U32, GEX_OP_FADD, 0, 8, 0, 0, amo), GEXI_AD_REFERENCE);
}
END_TEST

START_TEST(test_select_caps_hints_forced)
{
    setup_sel_ops();
    const uint64_t amo = GEX_CONDUIT_CAP_AMO;
    /* the ops are there but the capability bit is not */
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD, 0, 8, 0, 0, 0), GEXI_AD_REFERENCE);
    /* a conduit whose ops struct is too old to have amo */
    struct gex_conduit_ops old = sel_ops;
    old.struct_size = GEX_CONDUIT_OPS_1_1_SIZE;
    ck_assert_int_eq(gexi_ad_conduit_covers(&old, NULL, amo, GEX_DT_U64, GEX_OP_FADD), 0);
    /* forced reference wins over everything */
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD, 0, 8, 0, 1, amo), GEXI_AD_REFERENCE);
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD, 0, 4, 1, 1, amo), GEXI_AD_REFERENCE);
    /* all-local teams favour the neighbourhood by default: shared memory */
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD, 0, 4, 1, 0, amo), GEXI_AD_SHM);
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD, 0, 1, 1, 0, amo), GEXI_AD_SHM);
    /* a local-favouring hint keeps a mixed team on CPU atomics */
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD, GEX_FLAG_AD_FAVOR_MY_NBRHD, 8, 0, 0, amo),
                     GEXI_AD_REFERENCE);
    ck_assert_int_eq(sel(GEX_DT_U64, GEX_OP_FADD, GEX_FLAG_AD_FAVOR_MY_RANK, 8, 0, 0, amo),
                     GEXI_AD_REFERENCE);
    ck_assert_str_eq(gexi_ad_impl_name(GEXI_AD_CONDUIT), "conduit");
}
END_TEST

/* ---- The offload path end to end, in a child singleton job ---- */
static struct gex_conduit_ops swapped;
static const struct gex_conduit_ops *real_ops;
static unsigned amo_calls;
/* Completions the fake "NIC" delivers at the next poll. */
static _Atomic uint32_t *pending_rc[64];
static unsigned n_pending;

static int e2e_amo_query(struct gex_conduit *c, uint32_t dt, uint32_t op)
{
    (void)c;
    if (!(dt & (GEX_DT_U64 | GEX_DT_DBL))) return GEX_CONDUIT_ENOTSUP;
    return op & (GEX_OP_FMULT | GEX_OP_MULT) ? GEX_CONDUIT_ENOTSUP : GEX_CONDUIT_OK;
}

static int e2e_amo(struct gex_conduit *c, gex_EP_Index_t lep, gex_Rank_t jr, gex_EP_Index_t ep,
                   void *addr, uint32_t dt, uint32_t op, const void *o1, const void *o2,
                   void *res, const struct gex_conduit_cpl *cpl, gex_Flags_t flags)
{
    (void)c, (void)lep, (void)ep;
    CHILD_CHECK(jr == 0 && cpl->lc == NULL && cpl->rc != NULL);
    if (flags & GEX_FLAG_IMMEDIATE) return GEX_CONDUIT_EAGAIN; /* "no resources" */
    amo_calls++;
    union gexi_ad_val a, b;
    a.bits = b.bits = 0;
    /* operands are given exactly when the opcode takes them */
    CHILD_CHECK((o1 != NULL) == !(op & GEXI_AD_OPS_NO_OPERAND));
    CHILD_CHECK((o2 != NULL) == !!(op & GEXI_AD_OPS_TWO_OPERANDS));
    CHILD_CHECK((res != NULL) == !!(op & GEXI_AD_OPS_FETCHING));
    if (o1) memcpy(&a, o1, gexi_ad_dt_size(dt));
    if (o2) memcpy(&b, o2, gexi_ad_dt_size(dt));
    /* the "NIC": a plain read-modify-write (this test is single-threaded) */
    union gexi_ad_val r;
    r.bits = 0;
    if (dt == GEX_DT_U64) r.U64 = gexi_ad_cpu_U64(addr, op, a.U64, b.U64);
    else r.DBL = gexi_ad_cpu_DBL(addr, op, a.DBL, b.DBL);
    if (res) memcpy(res, &r, gexi_ad_dt_size(dt));
    CHILD_CHECK(n_pending < 64);
    pending_rc[n_pending++] = cpl->rc;
    return GEX_CONDUIT_OK;
}

static int e2e_poll(struct gex_conduit *c)
{
    unsigned n = n_pending;
    for (unsigned i = 0; i < n; i++)
        atomic_fetch_sub_explicit(pending_rc[i], 1, memory_order_release);
    n_pending = 0;
    return real_ops->poll(c) + (int)n;
}

static void e2e_child(void *arg)
{
    (void)arg;
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    CHILD_CHECK_EQ(gex_Client_Init(&client, &ep, &tm, "TEST_ATOMICS", NULL, NULL, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_Segment_Attach(&seg, tm, 65536), GASNET_OK);
    uint64_t *w = gex_Segment_QueryAddr(seg);
    double *d = (double *)(w + 8);

    real_ops = gexi_core.ops;
    swapped = *real_ops;
    swapped.struct_size = sizeof swapped;
    swapped.amo_query = e2e_amo_query;
    swapped.amo = e2e_amo;
    swapped.poll = e2e_poll;
    gexi_core.ops = &swapped;
    gexi_core.caps.flags |= GEX_CONDUIT_CAP_AMO;

    /* one team member and no hint would favour this rank (CPU atomics);
     * FAVOR_REMOTE asks for the network */
    gex_AD_t ad;
    gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_SET | GEX_OP_GET | GEX_OP_FADD | GEX_OP_FCAS |
                  GEX_OP_INC, GEX_FLAG_AD_FAVOR_REMOTE);
    CHILD_CHECK(!strcmp(gexi_ad_query_impl(ad), "conduit"));
    uint64_t r = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, 0, w, GEX_OP_SET, 40, 0, 0));
    gex_Event_t e = gex_AD_OpNB_U64(ad, &r, 0, w, GEX_OP_FADD, 2, 0, GEX_FLAG_AD_MY_RANK);
    CHILD_CHECK(e != GEX_EVENT_INVALID && e != GEX_EVENT_NO_OP); /* completes at a poll */
    CHILD_CHECK(gex_Event_Test(e) == GASNET_ERR_NOT_READY || r == 40);
    gex_Event_Wait(e);
    CHILD_CHECK_EQ(r, 40);
    CHILD_CHECK_EQ(gex_AD_OpNBI_U64(ad, NULL, 0, w, GEX_OP_INC, 0, 0, 0), 0);
    gex_NBI_Wait(GEX_EC_RMW, 0);
    CHILD_CHECK_EQ(gex_AD_OpNBI_U64(ad, &r, 0, w, GEX_OP_FCAS, 43, 7, 0), 0);
    gex_NBI_Wait(GEX_EC_RMW, 0);
    CHILD_CHECK_EQ(r, 43);
    CHILD_CHECK_EQ(gex_AD_OpNBI_U64(ad, &r, 0, w, GEX_OP_GET, 0, 0, 0), 0);
    gex_NBI_Wait(GEX_EC_GET, 0);
    CHILD_CHECK_EQ(r, 7);
    CHILD_CHECK_EQ(amo_calls, 5);
    /* IMMEDIATE refused by the conduit: a no-op, nothing counted */
    CHILD_CHECK(gex_AD_OpNB_U64(ad, &r, 0, w, GEX_OP_FADD, 1, 0, GEX_FLAG_IMMEDIATE) ==
                GEX_EVENT_NO_OP);
    CHILD_CHECK(gex_AD_OpNBI_U64(ad, &r, 0, w, GEX_OP_FADD, 1, 0, GEX_FLAG_IMMEDIATE) != 0);
    CHILD_CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), GASNET_OK);
    CHILD_CHECK_EQ(*w, 7);
    gex_AD_Destroy(ad);

    /* doubles, by the network as well */
    gex_AD_t adf;
    gex_AD_Create(&adf, tm, GEX_DT_DBL, GEX_OP_SET | GEX_OP_FADD | GEX_OP_FMIN,
                  GEX_FLAG_AD_FAVOR_REMOTE);
    CHILD_CHECK(!strcmp(gexi_ad_query_impl(adf), "conduit"));
    double x = 0;
    gex_Event_Wait(gex_AD_OpNB_DBL(adf, NULL, 0, d, GEX_OP_SET, 1.5, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_DBL(adf, &x, 0, d, GEX_OP_FADD, 0.25, 0, 0));
    CHILD_CHECK(x == 1.5);
    gex_Event_Wait(gex_AD_OpNB_DBL(adf, &x, 0, d, GEX_OP_FMIN, -2.0, 0, 0));
    CHILD_CHECK(x == 1.75 && *d == -2.0);
    CHILD_CHECK_EQ(amo_calls, 8);
    gex_AD_Destroy(adf);

    /* one opcode the fake does not support: no network atomics at all */
    gex_AD_t adm;
    gex_AD_Create(&adm, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_MULT, GEX_FLAG_AD_FAVOR_REMOTE);
    CHILD_CHECK(!strcmp(gexi_ad_query_impl(adm), "shm"));
    *w = 3;
    CHILD_CHECK(gex_AD_OpNB_U64(adm, &r, 0, w, GEX_OP_FADD, 4, 0, 0) == GEX_EVENT_INVALID);
    CHILD_CHECK_EQ(r, 3);
    CHILD_CHECK_EQ(gex_AD_OpNBI_U64(adm, NULL, 0, w, GEX_OP_MULT, 5, 0, 0), 0);
    CHILD_CHECK_EQ(*w, 35);
    CHILD_CHECK_EQ(amo_calls, 8);
    gex_AD_Destroy(adm);
    /* a type the fake does not support */
    gex_AD_Create(&adm, tm, GEX_DT_I32, GEX_OP_FADD, GEX_FLAG_AD_FAVOR_REMOTE);
    CHILD_CHECK(!strcmp(gexi_ad_query_impl(adm), "shm"));
    gex_AD_Destroy(adm);
    gexi_core.ops = real_ops;
}

START_TEST(test_offload_end_to_end)
{
    struct child_result res;
    run_child(e2e_child, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

/* ---- Argument diagnostics (every build: the checks are cheap) ---- */
static gex_TM_t misuse_setup(uint64_t **w)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    CHILD_CHECK_EQ(gex_Client_Init(&client, &ep, &tm, "TEST_ATOMICS", NULL, NULL, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_Segment_Attach(&seg, tm, 65536), GASNET_OK);
    *w = gex_Segment_QueryAddr(seg);
    return tm;
}

static void misuse_child(void *arg)
{
    const int which = *(const int *)arg;
    uint64_t *w;
    gex_TM_t tm = misuse_setup(&w);
    gex_AD_t ad;
    gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET, 0);
    uint64_t r;
    switch (which) {
    case 0: gex_AD_OpNB_U64(ad, &r, 0, w, GEX_OP_SUB, 1, 0, 0); break;
    case 1: gex_AD_OpNBI_I64(ad, (int64_t *)&r, 0, w, GEX_OP_FADD, 1, 0, 0); break;
    case 2: gex_AD_OpNB_U64(ad, &r, 0, w, GEX_OP_FADD | GEX_OP_GET, 1, 0, 0); break;
    case 3: gex_AD_OpNB_U64(ad, NULL, 0, w, GEX_OP_FADD, 1, 0, 0); break;
    case 4: gex_AD_OpNB_U64(ad, &r, 1, w, GEX_OP_FADD, 1, 0, 0); break;
    case 5: gex_AD_OpNB_U64(ad, &r, 0, (char *)w + 4, GEX_OP_FADD, 1, 0, 0); break;
    case 6: gex_AD_Create(&ad, tm, GEX_DT_FLT, GEX_OP_FADD | GEX_OP_XOR, 0); break;
    case 7: gex_AD_Create(&ad, tm, GEX_DT_USER, GEX_OP_FADD, 0); break;
    case 8:
        gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD,
                      GEX_FLAG_AD_FAVOR_REMOTE | GEX_FLAG_AD_FAVOR_MY_RANK);
        break;
    case 9:
        gex_AD_Destroy(ad);
        gex_AD_OpNB_U64(ad, &r, 0, w, GEX_OP_FADD, 1, 0, 0);
        break;
    case 10: gex_AD_Create(&ad, gex_TM_Pair(gex_TM_QueryEP(tm), 0), GEX_DT_U64, GEX_OP_ADD, 0);
        break;
    }
    CHILD_CHECK(!"the bad call returned");
}

START_TEST(test_misuse)
{
    static const char *const want[] = {
        "gex_AD_OpNB_U64: bad argument: opcode GEX_OP_SUB is not in the set",
        "gex_AD_OpNBI_I64: bad argument: the domain's data type is GEX_DT_U64",
        "gex_AD_OpNB_U64: bad argument: opcode 0x1000080 is not a single GEX_OP_* value",
        "gex_AD_OpNB_U64: bad argument: result_p is NULL for the fetching opcode GEX_OP_FADD",
        "gex_AD_OpNB_U64: bad argument: tgt_rank 1 is not below the size 1",
        "gex_AD_OpNB_U64: bad argument: tgt_addr",
        "gex_AD_Create: bad argument: ops 0x",
        "gex_AD_Create: bad argument: dt 0x40",
        "mutually exclusive GEX_FLAG_AD_FAVOR_* hints",
        "gex_AD_OpNB_U64: bad argument: ad",
        "gex_AD_Create: bad argument: tm is a TM-pair",
    };
    for (int i = 0; i < (int)(sizeof want / sizeof want[0]); i++) {
#ifndef GEX_DEBUG
        if (i == 9) continue; /* use after destroy is detected in debug builds only */
#endif
        struct child_result res;
        run_child(misuse_child, &i, &res);
        ck_assert_child_exit(&res, 1, want[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("atomics");
    TCase *tc = tcase_create("select");
    tcase_add_test(tc, test_select_full_set_offloads);
    tcase_add_test(tc, test_select_one_pair_unsupported);
    tcase_add_test(tc, test_select_caps_hints_forced);
    suite_add_tcase(s, tc);
    tc = tcase_create("offload");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_offload_end_to_end);
    suite_add_tcase(s, tc);
    tc = tcase_create("misuse");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_misuse);
    suite_add_tcase(s, tc);
    return run_suite(s) ? 1 : 0;
}
