/*
 * mp_ad_inline.c: the inline same-node path of the remote atomics
 * (gex/ad_fastpath.h, issue 27) against the library's out-of-line calls.
 *
 *  1. A domain is cleared for the inline path exactly when it must be: a
 *     shared-memory domain ("shm") on the primordial team in a release
 *     build; not a reference domain (GEX_FORCE_REFERENCE=atomics, or
 *     GEX_PSHM=0 on more than one rank), not a domain on another team, not
 *     in a debug build; the frozen fields hold the domain's type and ops.
 *  2. Where it is cleared, the inline path takes exactly the calls it may
 *     (every target rank's segment word, no flag or ACQ/REL), and leaves
 *     the others to the library: an opcode outside the domain's set or
 *     outside the inline set, a misaligned word, a word outside the
 *     segment, GEX_FLAG_RANK_IS_JOBRANK, a NULL result_p for a fetching op.
 *  3. Values: every inlined opcode on every type, at every rank's
 *     word, alternating inline and (gex_AD_OpNB_<T>)(...) calls on the same
 *     word, each result checked against a value computed here (FLT and DBL
 *     with their operations: compare-and-swap loops inline as in the
 *     library); then every rank hammers one word of rank 0 with FADD,
 *     inline and out of line in turn, and the total is exact.
 *  4. Combining (ad_combine.c): NBI ADDs this thread holds in a batch (the
 *     library's NBI function) are performed before its next NB or NBI call
 *     on the word, even an inlinable one (the domain is out of line while
 *     the batch exists, and back after).
 */
#include "mp_util.h"
#include <gasnet_ratomic.h>

#define SEGSZ ((uintptr_t)1 << 16)
#define HOT_ITERS 2000

extern const char *gexi_ad_query_impl(gex_AD_t ad);

static void *seg_owner[64];
static unsigned long n_checked;

static int forced_reference(void)
{
    const char *f = getenv("GEX_FORCE_REFERENCE");
    return f && (strstr(f, "atomics") || strstr(f, "all"));
}

static const struct gexi_ad_fastpath_v1 *pub(gex_AD_t ad)
{
    return (const struct gexi_ad_fastpath_v1 *)(const void *)ad;
}

static int cleared(gex_AD_t ad) { return pub(ad)->inline_magic == GEXI_AD_INLINE_V1; }

/* This writer's word in rank r's segment for type slot t. */
static void *word(gex_Rank_t r, unsigned t)
{
    return (char *)seg_owner[r] + 64 * (1 + mp_me) + 8 * t;
}

static void check_clearance(gex_TM_t team)
{
    mp_phase("clearance");
    const gex_OP_t ops = GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET | GEX_OP_MULT;
    gex_AD_t ad, other;
    gex_AD_Create(&ad, mp_tm, GEX_DT_U64, ops, 0);
    gex_AD_Create(&other, team, GEX_DT_U64, ops, 0);
    const int shm = !strcmp(gexi_ad_query_impl(ad), "shm");
#ifdef GEX_DEBUG
    const int expect = 0;
#else
    const int expect = shm && !forced_reference();
#endif
    CHECK(pub(ad)->dt == GEX_DT_U64 && pub(ad)->ops == ops && pub(ad)->batches == 0);
    CHECK_MSG(cleared(ad) == expect, "primordial-team %s domain %s for the inline path",
              gexi_ad_query_impl(ad), cleared(ad) ? "cleared" : "not cleared");
    CHECK_MSG(!cleared(other), "a domain on a split team is cleared for the inline path");
    if (forced_reference()) CHECK(!shm);
    if (!mp_pshm_enabled() && mp_n > 1) CHECK(!shm);
    if (expect) {
        uint64_t r = 0;
        for (gex_Rank_t t = 0; t < mp_n; t++) {
            void *w = word(t, 3);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, &r, t, w, GEX_OP_FADD, 0) != NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, &r, t, w, GEX_OP_SET,
                                      GEX_FLAG_AD_REL | GEX_FLAG_AD_ACQ) != NULL);
            /* what stays out of line */
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, &r, t, w, GEX_OP_MULT, 0) == NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, &r, t, w, GEX_OP_SWAP, 0) == NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, &r, t, w, GEX_OP_FADD | GEX_OP_SET,
                                      0) == NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U32, 8, &r, t, w, GEX_OP_FADD, 0) == NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, NULL, t, w, GEX_OP_FADD, 0) == NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, NULL, t, w, GEX_OP_SET, 0) != NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, &r, t, (char *)w + 4, GEX_OP_FADD,
                                      0) == NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, &r, t, (char *)seg_owner[t] + SEGSZ * 64,
                                      GEX_OP_FADD, 0) == NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, &r, t, w, GEX_OP_FADD,
                                      GEX_FLAG_RANK_IS_JOBRANK) == NULL);
            CHECK(gexi_ad_inline_word(ad, GEX_DT_U64, 8, &r, mp_n, w, GEX_OP_FADD, 0) == NULL);
            n_checked += 12;
        }
    }
    /* floating point: the arithmetic too, not MULT/MIN/MAX */
    gex_AD_t fp;
    gex_AD_Create(&fp, mp_tm, GEX_DT_DBL, GEX_OP_FADD | GEX_OP_FCAS | GEX_OP_MAX, 0);
    CHECK(cleared(fp) == expect && pub(fp)->dt == GEX_DT_DBL);
    if (expect) {
        double r = 0;
        void *w = word(mp_n - 1, 6);
        CHECK(gexi_ad_inline_word(fp, GEX_DT_DBL, 8, &r, mp_n - 1, w, GEX_OP_FADD, 0) != NULL);
        CHECK(gexi_ad_inline_word(fp, GEX_DT_DBL, 8, &r, mp_n - 1, w, GEX_OP_FCAS, 0) != NULL);
        CHECK(gexi_ad_inline_word(fp, GEX_DT_DBL, 8, &r, mp_n - 1, w, GEX_OP_MAX, 0) == NULL);
        CHECK(gexi_ad_inline_word(fp, GEX_DT_FLT, 4, &r, mp_n - 1, w, GEX_OP_FADD, 0) == NULL);
        n_checked += 4;
    }
    mp_barrier();
    gex_AD_Destroy(fp);
    gex_AD_Destroy(other);
    gex_AD_Destroy(ad);
}

/* One operation, waited for, through path `how`: 0 the inline NB macro,
 * 1 the library's NB function, 2 the inline NBI macro, 3 the library's NBI
 * function. */
static const char *const how_name[] = { "inline NB", "call NB", "inline NBI", "call NBI" };
#define OP_CALL(N, how, ...) \
    do { \
        switch (how) { \
        case 0: gex_Event_Wait(gex_AD_OpNB_##N(__VA_ARGS__)); break; \
        case 1: gex_Event_Wait((gex_AD_OpNB_##N)(__VA_ARGS__)); break; \
        case 2: CHECK(gex_AD_OpNBI_##N(__VA_ARGS__) == 0); gex_NBI_Wait(GEX_EC_ALL, 0); break; \
        default: CHECK((gex_AD_OpNBI_##N)(__VA_ARGS__) == 0); gex_NBI_Wait(GEX_EC_ALL, 0); \
        } \
    } while (0)

/* Every inlined opcode on type T at every rank, alternating the inline
 * macros and the library's functions, NB and NBI (OP_CALL). */
#define VALUES(T, N, DT, SLOT) \
    static void values_##N(void) \
    { \
        gex_AD_t ad; \
        gex_AD_Create(&ad, mp_tm, DT, GEXI_AD_INLINE_OPS, 0); \
        for (gex_Rank_t t = 0; t < mp_n; t++) { \
            T *w = (T *)word(t, SLOT), got = 0, v = (T)(0x1234 + t + 7 * mp_me); \
            const T a = (T)(3 + t), b = (T)0x5a; \
            for (int how = 0; how < 4; how++) { \
                OP_CALL(N, how, ad, NULL, t, w, GEX_OP_SET, v, 0, 0); \
                const T x = (T)(((v & a) | b) ^ a); \
                /* in sequence from v: opcode, operands, fetched value, word after */ \
                const struct { gex_OP_t op; T o1, o2, want_fetch, want_after; } k[] = { \
                    { GEX_OP_GET, 0, 0, v, v }, \
                    { GEX_OP_FADD, a, 0, v, (T)(v + a) }, \
                    { GEX_OP_ADD, a, 0, 0, (T)(v + a + a) }, \
                    { GEX_OP_FSUB, a, 0, (T)(v + a + a), (T)(v + a) }, \
                    { GEX_OP_SUB, a, 0, 0, v }, \
                    { GEX_OP_FINC, 0, 0, v, (T)(v + 1) }, \
                    { GEX_OP_INC, 0, 0, 0, (T)(v + 2) }, \
                    { GEX_OP_FDEC, 0, 0, (T)(v + 2), (T)(v + 1) }, \
                    { GEX_OP_DEC, 0, 0, 0, v }, \
                    { GEX_OP_FAND, a, 0, v, (T)(v & a) }, \
                    { GEX_OP_FOR, b, 0, (T)(v & a), (T)((v & a) | b) }, \
                    { GEX_OP_FXOR, a, 0, (T)((v & a) | b), x }, \
                    { GEX_OP_SWAP, a, 0, x, a }, \
                    { GEX_OP_FCAS, a, b, a, b },     /* equal: swapped */ \
                    { GEX_OP_FCAS, a, v, b, b },     /* not equal: unchanged */ \
                    { GEX_OP_CAS, b, a, 0, a }, \
                    { GEX_OP_AND, b, 0, 0, (T)(a & b) }, \
                    { GEX_OP_OR, v, 0, 0, (T)((a & b) | v) }, \
                    { GEX_OP_XOR, a, 0, 0, (T)(((a & b) | v) ^ a) }, \
                }; \
                for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) { \
                    const gex_OP_t op = k[i].op; \
                    const T o1 = k[i].o1, o2 = k[i].o2; \
                    got = (T)0x77; \
                    OP_CALL(N, how, ad, &got, t, w, op, o1, o2, 0); \
                    T after = 0; \
                    gex_Event_Wait((gex_AD_OpNB_##N)(ad, &after, t, w, GEX_OP_GET, 0, 0, 0)); \
                    if (op & GEXI_AD_INLINE_FETCHING) \
                        CHECK_MSG(got == k[i].want_fetch, "%s %s #%zu at rank %u (%s): fetched " \
                                  "%llx, want %llx", #N, how_name[how], i, \
                                  (unsigned)t, "fetch", (unsigned long long)got, \
                                  (unsigned long long)k[i].want_fetch); \
                    else \
                        CHECK_MSG(got == (T)0x77, "%s #%zu: a non-fetching op wrote result_p", \
                                  #N, i); \
                    CHECK_MSG(after == k[i].want_after, "%s %s #%zu at rank %u: word %llx, want " \
                              "%llx", #N, how_name[how], i, (unsigned)t, \
                              (unsigned long long)after, (unsigned long long)k[i].want_after); \
                    n_checked++; \
                } \
            } \
        } \
        mp_barrier(); \
        gex_AD_Destroy(ad); \
    }

VALUES(int32_t, I32, GEX_DT_I32, 0)
VALUES(uint32_t, U32, GEX_DT_U32, 1)
VALUES(int64_t, I64, GEX_DT_I64, 2)
VALUES(uint64_t, U64, GEX_DT_U64, 3)

/* The same for FLT and DBL: the ops a floating-point domain may declare
 * and the inline path takes, with values that are exact in binary. */
#define FP_OPS \
    (GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS | GEX_OP_ADD | \
     GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_INC | GEX_OP_FINC | GEX_OP_DEC | GEX_OP_FDEC)
#define VALUES_FP(T, N, DT, SLOT) \
    static void values_##N(void) \
    { \
        gex_AD_t ad; \
        gex_AD_Create(&ad, mp_tm, DT, FP_OPS, 0); \
        for (gex_Rank_t t = 0; t < mp_n; t++) { \
            T *w = (T *)word(t, SLOT), got = 0, v = (T)(1234.5 + t + 7 * mp_me); \
            const T a = (T)(3.25 + t), b = (T)-90.0; \
            for (int how = 0; how < 4; how++) { \
                OP_CALL(N, how, ad, NULL, t, w, GEX_OP_SET, v, 0, 0); \
                const struct { gex_OP_t op; T o1, o2, want_fetch, want_after; } k[] = { \
                    { GEX_OP_GET, 0, 0, v, v }, \
                    { GEX_OP_FADD, a, 0, v, v + a }, \
                    { GEX_OP_ADD, a, 0, 0, v + a + a }, \
                    { GEX_OP_FSUB, a, 0, v + a + a, v + a }, \
                    { GEX_OP_SUB, a, 0, 0, v }, \
                    { GEX_OP_FINC, 0, 0, v, v + 1 }, \
                    { GEX_OP_INC, 0, 0, 0, v + 2 }, \
                    { GEX_OP_FDEC, 0, 0, v + 2, v + 1 }, \
                    { GEX_OP_DEC, 0, 0, 0, v }, \
                    { GEX_OP_SWAP, a, 0, v, a }, \
                    { GEX_OP_FCAS, a, b, a, b },     /* equal: swapped */ \
                    { GEX_OP_FCAS, a, v, b, b },     /* not equal: unchanged */ \
                    { GEX_OP_CAS, b, a, 0, a }, \
                    { GEX_OP_ADD, b, 0, 0, a + b }, \
                }; \
                for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) { \
                    const gex_OP_t op = k[i].op; \
                    const T o1 = k[i].o1, o2 = k[i].o2; \
                    got = (T)0.5; \
                    OP_CALL(N, how, ad, &got, t, w, op, o1, o2, 0); \
                    T after = 0; \
                    gex_Event_Wait((gex_AD_OpNB_##N)(ad, &after, t, w, GEX_OP_GET, 0, 0, 0)); \
                    if (op & GEXI_AD_INLINE_FETCHING) \
                        CHECK_MSG(got == k[i].want_fetch, "%s %s #%zu at rank %u: fetched %g, " \
                                  "want %g", #N, how_name[how], i, (unsigned)t, \
                                  (double)got, (double)k[i].want_fetch); \
                    else \
                        CHECK_MSG(got == (T)0.5, "%s #%zu: a non-fetching op wrote result_p", \
                                  #N, i); \
                    CHECK_MSG(after == k[i].want_after, "%s %s #%zu at rank %u: word %g, want " \
                              "%g", #N, how_name[how], i, (unsigned)t, (double)after, \
                              (double)k[i].want_after); \
                    n_checked++; \
                } \
            } \
        } \
        mp_barrier(); \
        gex_AD_Destroy(ad); \
    }

VALUES_FP(float, FLT, GEX_DT_FLT, 5)
VALUES_FP(double, DBL, GEX_DT_DBL, 6)

/* Every rank adds to one word of rank 0, inline and out of line in turn;
 * ACQ/REL on some. */
static void hot_word(void)
{
    mp_phase("hot word");
    gex_AD_t ad;
    gex_AD_Create(&ad, mp_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
    uint64_t *w = (uint64_t *)seg_owner[0];
    if (mp_me == 0) gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, 0, w, GEX_OP_SET, 0, 0, 0));
    mp_barrier();
    uint64_t got, last = 0;
    for (int i = 0; i < HOT_ITERS; i++) {
        const gex_Flags_t f = (i % 5 == 0) ? GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL : 0;
        gex_Event_Wait((i & 1) ? (gex_AD_OpNB_U64)(ad, &got, 0, w, GEX_OP_FADD, mp_me + 1, 0, f)
                               : gex_AD_OpNB_U64(ad, &got, 0, w, GEX_OP_FADD, mp_me + 1, 0, f));
        CHECK_MSG(i == 0 || got > last, "FADD fetched %llu after %llu", (unsigned long long)got,
                  (unsigned long long)last);
        last = got;
    }
    mp_barrier();
    if (mp_me == 0) {
        uint64_t total = 0;
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &total, 0, w, GEX_OP_GET, 0, 0, 0));
        const uint64_t want = (uint64_t)HOT_ITERS * mp_n * (mp_n + 1) / 2;
        CHECK_MSG(total == want, "hot word holds %llu, want %llu", (unsigned long long)total,
                  (unsigned long long)want);
        n_checked++;
    }
    mp_barrier();
    gex_AD_Destroy(ad);
}

/* NBI ADDs held in this thread's batch (the library's NBI function
 * combines them), then an inlinable NB FADD and NBI ADD. */
static void combining(void)
{
    mp_phase("combining");
    gex_AD_t ad;
    gex_AD_Create(&ad, mp_tm, GEX_DT_U64, GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
    const int was_cleared = cleared(ad);
    const int shm = !strcmp(gexi_ad_query_impl(ad), "shm");
    const char *ce = getenv("GEX_AD_COMBINE");
    const int combines = shm && !(ce && (ce[0] == '0' || ce[0] == 'n' || ce[0] == 'N'));
    for (gex_Rank_t t = 0; t < mp_n; t++) {
        uint64_t *w = (uint64_t *)word(t, 4), got = 0;
        gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, t, w, GEX_OP_SET, 100, 0, 0));
        for (uint64_t k = 1; k <= 3; k++) (gex_AD_OpNBI_U64)(ad, NULL, t, w, GEX_OP_ADD, k, 0, 0);
        /* the batch is on the domain: the inline path steps aside */
        if (combines) CHECK_MSG(pub(ad)->batches == 1, "3 NBI ADDs: %u batches, want 1",
                                (unsigned)pub(ad)->batches);
        /* AMs on a reference domain carry no order the spec promises */
        if (!shm) gex_NBI_Wait(GEX_EC_ALL, 0);
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &got, t, w, GEX_OP_FADD, 10, 0, 0));
        CHECK_MSG(got == 106, "NB FADD after 3 NBI ADDs (rank %u) fetched %llu, want 106",
                  (unsigned)t, (unsigned long long)got);
        /* again, with the inline NBI call after the batch */
        for (uint64_t k = 1; k <= 3; k++) (gex_AD_OpNBI_U64)(ad, NULL, t, w, GEX_OP_ADD, k, 0, 0);
        if (!shm) gex_NBI_Wait(GEX_EC_ALL, 0);
        CHECK(gex_AD_OpNBI_U64(ad, &got, t, w, GEX_OP_FADD, 100, 0, 0) == 0);
        gex_NBI_Wait(GEX_EC_ALL, 0);
        CHECK_MSG(got == 122, "NBI FADD after 3 NBI ADDs (rank %u) fetched %llu, want 122",
                  (unsigned)t, (unsigned long long)got);
        CHECK_MSG(pub(ad)->batches == 0, "a batch still counted after gex_NBI_Wait");
        CHECK(cleared(ad) == was_cleared);
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &got, t, w, GEX_OP_GET, 0, 0, 0));
        CHECK(got == 222);
        n_checked += 4 + combines;
    }
    mp_barrier();
    gex_AD_Destroy(ad);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_AD_INLINE", 0);
    CHECK(mp_n <= 64);
    mp_attach(SEGSZ);
    void *mine = gex_Segment_QueryAddr(mp_seg);
    mp_allgather(&mine, sizeof mine, seg_owner);
    gex_TM_t team;
    mp_phase("gex_TM_Split");
    (void)gex_TM_Split(&team, mp_tm, 0, mp_n - 1 - mp_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    CHECK(team != GEX_TM_INVALID);
    check_clearance(team);
    values_I32();
    values_U32();
    values_I64();
    values_U64();
    values_FLT();
    values_DBL();
    hot_word();
    combining();
    gex_AD_t probe;
    gex_AD_Create(&probe, mp_tm, GEX_DT_U64, GEX_OP_FADD, 0);
    const int live = cleared(probe);
    gex_AD_Destroy(probe);
    mp_finish("%lu checks; inline atomics %s", n_checked, live ? "live" : "off");
}
