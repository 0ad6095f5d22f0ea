/*
 * mp_badargs.c: documented error returns.  Each bad call must return its
 * code and leave every output untouched (outputs start as sentinels), and a
 * failed call must have no effect (no handler registered, no EP index used).
 *
 * Order matters: gex_Client_Init succeeds only once per process, so its
 * bad-argument cases come first, then the successful init, then a second
 * init.  Attach's bad cases come before the one successful Attach (all
 * ranks make the same calls, so the collective ones stay matched).
 */
#include "mp_util.h"
#include <fcntl.h>

/* Captures what the library prints on stderr between begin and end (a
 * temporary file stands in for fd 2). */
static int saved_stderr = -1, capture_fd = -1;
static void capture_stderr_begin(void)
{
    char path[] = "/tmp/mp_badargs_XXXXXX";
    capture_fd = mkstemp(path);
    CHECK(capture_fd >= 0);
    unlink(path);
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    CHECK(saved_stderr >= 0 && dup2(capture_fd, STDERR_FILENO) == STDERR_FILENO);
}
static void capture_stderr_end(char *buf, size_t size)
{
    fflush(stderr);
    CHECK(dup2(saved_stderr, STDERR_FILENO) == STDERR_FILENO);
    close(saved_stderr);
    ssize_t n = pread(capture_fd, buf, size - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    close(capture_fd);
}

#define H_GOOD  (MP_H_FIRST_FREE + 0)
#define H_GOOD2 (MP_H_FIRST_FREE + 1)

static void h_short0(gex_Token_t t) { (void)t; }
static void h_short1(gex_Token_t t, gex_AM_Arg_t a) { (void)t, (void)a; }

#define SENTINEL_CLIENT ((gex_Client_t)(uintptr_t)0x5e1)
#define SENTINEL_EP     ((gex_EP_t)(uintptr_t)0x5e2)
#define SENTINEL_TM     ((gex_TM_t)(uintptr_t)0x5e3)
#define SENTINEL_SEG    ((gex_Segment_t)(uintptr_t)0x5e4)

#define LONG_NAME "BADARGS_6789012345678901234567890123456789012345678901234567890" \
                  "1234567890123456789012345678901234567"
_Static_assert(sizeof LONG_NAME == 101, "LONG_NAME is 100 characters");

/* gex_Client_Init(bad...) must fail with `want` and write nothing. */
static void init_fails(int want, int use_outputs, const char *name, int *argc, char ***argv,
                       gex_Flags_t flags, const char *what)
{
    gex_Client_t c = SENTINEL_CLIENT;
    gex_EP_t e = SENTINEL_EP;
    gex_TM_t t = SENTINEL_TM;
    int rc = gex_Client_Init(use_outputs & 1 ? &c : NULL, use_outputs & 2 ? &e : NULL,
                             use_outputs & 4 ? &t : NULL, name, argc, argv, flags);
    CHECK_MSG(rc == want, "gex_Client_Init(%s) returned %s, want %s", what,
              gasnet_ErrorName(rc), gasnet_ErrorName(want));
    CHECK(c == SENTINEL_CLIENT && e == SENTINEL_EP && t == SENTINEL_TM);
}

/* Registration of `table` must fail with BAD_ARG and register nothing:
 * afterwards each of its valid fixed indices can still be registered. */
static void register_fails(gex_EP_t ep, gex_AM_Entry_t *table, size_t n, const char *what)
{
    gex_AM_Entry_t copy[8];
    CHECK(n <= 8);
    memcpy(copy, table, n * sizeof *table);
    int rc = gex_EP_RegisterHandlers(ep, table, n);
    CHECK_MSG(rc == GASNET_ERR_BAD_ARG, "gex_EP_RegisterHandlers(%s) returned %s", what,
              gasnet_ErrorName(rc));
    CHECK_MSG(!memcmp(copy, table, n * sizeof *table), "%s: table modified by a failed call",
              what);
}

int main(int argc, char **argv)
{
    mp_prog = "mp_badargs";
    mp_watchdog(60);
    int argc0 = argc;
    char **argv0 = argv;

    /* ---- Before init ---- */
    mp_phase("before init");
    CHECK_EQ(gex_System_GetVerboseErrors(), 1); /* on by default */
    gex_System_SetVerboseErrors(0);
    CHECK_EQ(gex_System_GetVerboseErrors(), 0);
    gex_System_SetVerboseErrors(1);
    CHECK_EQ(gex_System_GetVerboseErrors(), 1);
    gex_System_SetVerboseErrors(0); /* the errors below are on purpose */
    CHECK_EQ(gasnet_AMPoll(), GASNET_ERR_NOT_INIT);
    {
        gex_Segment_t s = SENTINEL_SEG;
        CHECK_RC(gex_Segment_Attach(&s, GEX_TM_INVALID, GASNET_PAGESIZE), GASNET_ERR_NOT_INIT);
        CHECK(s == SENTINEL_SEG);
        gex_Client_t c = SENTINEL_CLIENT;
        gex_EP_t e = SENTINEL_EP;
        gex_TM_t t = SENTINEL_TM;
        gex_Segment_t sg = SENTINEL_SEG;
        gasnet_QueryGexObjects(&c, &e, &t, &sg);
        CHECK(c == GEX_CLIENT_INVALID && e == GEX_EP_INVALID && t == GEX_TM_INVALID &&
              sg == GEX_SEGMENT_INVALID);
    }
    /* names outside [A-Z][A-Z0-9_]+ are accepted (mp_client_name); "" is not */
    init_fails(GASNET_ERR_BAD_ARG, 7, "", &argc, &argv, 0, "empty name");
    init_fails(GASNET_ERR_BAD_ARG, 7, NULL, &argc, &argv, 0, "NULL name");
    init_fails(GASNET_ERR_BAD_ARG, 6, "BADARGS", &argc, &argv, 0, "NULL client_p");
    init_fails(GASNET_ERR_BAD_ARG, 5, "BADARGS", &argc, &argv, 0, "NULL ep_p");
    init_fails(GASNET_ERR_BAD_ARG, 3, "BADARGS", &argc, &argv, 0, "NULL tm_p");
    init_fails(GASNET_ERR_BAD_ARG, 7, "BADARGS", &argc, NULL, 0, "argc without argv");
    init_fails(GASNET_ERR_BAD_ARG, 7, "BADARGS", NULL, &argv, 0, "argv without argc");
    init_fails(GASNET_ERR_BAD_ARG, 7, "BADARGS", &argc, &argv, (gex_Flags_t)1 << 7,
               "unknown flag");
    CHECK(argc == argc0 && argv == argv0);
    CHECK_EQ(gasnet_AMPoll(), GASNET_ERR_NOT_INIT); /* none of them initialised anything */

    /* ---- The one successful init; a second one fails ---- */
    /* The pattern has no length limit: a 100-character name is valid and
     * gex_Client_QueryName returns all of it (GEX used to reject names of
     * 64 characters or more as "not matching [A-Z][A-Z0-9_]+"). */
    mp_init(&argc, &argv, LONG_NAME, 0);
    mp_prog = "mp_badargs";
    gex_System_SetVerboseErrors(0);
    mp_phase("second gex_Client_Init");
    init_fails(GASNET_ERR_RESOURCE, 7, "BADARGS", &argc, &argv, 0, "second call");
    init_fails(GASNET_ERR_RESOURCE, 7, "OTHER_CLIENT", NULL, NULL, 0, "second client");
    CHECK(!strcmp(gex_Client_QueryName(mp_client), LONG_NAME)); /* the first client stays */

    /* ---- gex_System_QueryProgressThreads ---- */
    mp_phase("gex_System_QueryProgressThreads");
    {
        unsigned count = 77;
        const gex_ProgressThreadInfo_t *info = NULL;
        /* not initialised with GEX_FLAG_DEFER_THREADS */
        CHECK_RC(gex_System_QueryProgressThreads(mp_client, &count, &info, 0),
                 GASNET_ERR_RESOURCE);
        CHECK_RC(gex_System_QueryProgressThreads(mp_client, NULL, &info, 0), GASNET_ERR_BAD_ARG);
        CHECK_RC(gex_System_QueryProgressThreads(mp_client, &count, NULL, 0), GASNET_ERR_BAD_ARG);
        CHECK_RC(gex_System_QueryProgressThreads(mp_client, &count, &info, 1), GASNET_ERR_BAD_ARG);
    }

    /* ---- gex_Segment_Attach ---- */
    mp_phase("gex_Segment_Attach bad arguments");
    {
        const uintptr_t max = gasnet_getMaxLocalSegmentSize();
        const uintptr_t bad_sizes[] = { 0, 1, GASNET_PAGESIZE - 1, GASNET_PAGESIZE + 1,
                                        GASNET_PAGESIZE * 3 + 8,
                                        (max / GASNET_PAGESIZE + 1) * GASNET_PAGESIZE,
                                        (uintptr_t)-GASNET_PAGESIZE };
        for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
            gex_Segment_t s = SENTINEL_SEG;
            int rc = gex_Segment_Attach(&s, mp_tm, bad_sizes[i]);
            CHECK_MSG(rc == GASNET_ERR_BAD_ARG, "gex_Segment_Attach(size %zu) returned %s",
                      (size_t)bad_sizes[i], gasnet_ErrorName(rc));
            CHECK(s == SENTINEL_SEG);
        }
        CHECK_RC(gex_Segment_Attach(NULL, mp_tm, GASNET_PAGESIZE), GASNET_ERR_BAD_ARG);
        gex_Segment_t s = SENTINEL_SEG;
        CHECK_RC(gex_Segment_Attach(&s, GEX_TM_INVALID, GASNET_PAGESIZE), GASNET_ERR_BAD_ARG);
        CHECK_RC(gex_Segment_Attach(&s, gex_TM_Pair(mp_ep, 0), GASNET_PAGESIZE),
                 GASNET_ERR_BAD_ARG); /* a TM-pair is not a team */
        CHECK(s == SENTINEL_SEG);
        CHECK_PTR_EQ(gex_EP_QuerySegment(mp_ep), GEX_SEGMENT_INVALID);
    }
    mp_attach(4 * GASNET_PAGESIZE); /* still possible after the failures */
    mp_phase("second gex_Segment_Attach");
    {
        gex_Segment_t s = SENTINEL_SEG;
        int rc = gex_Segment_Attach(&s, mp_tm, 4 * GASNET_PAGESIZE);
        CHECK_MSG(rc != GASNET_OK, "a second gex_Segment_Attach succeeded");
        CHECK_RC(rc, GASNET_ERR_RESOURCE);
        CHECK(s == SENTINEL_SEG);
        CHECK_PTR_EQ(gex_EP_QuerySegment(mp_ep), mp_seg);
        CHECK_EQ(gex_Segment_QuerySize(mp_seg), 4 * GASNET_PAGESIZE);
    }
    /* destroying the attached segment is refused; it stays usable */
    gex_Segment_Destroy(mp_seg, 0);
    CHECK_PTR_EQ(gex_EP_QuerySegment(mp_ep), mp_seg);
    CHECK_EQ(gex_Segment_QuerySize(mp_seg), 4 * GASNET_PAGESIZE);
    memset(gex_Segment_QueryAddr(mp_seg), 1, 4 * GASNET_PAGESIZE);
    gex_Segment_Destroy(GEX_SEGMENT_INVALID, 0); /* reported, not fatal */

    /* ---- gex_Segment_Create ---- */
    mp_phase("gex_Segment_Create bad arguments");
    {
        char buf[256];
        struct {
            gex_Client_t client;
            void *addr;
            uintptr_t len;
            gex_MK_t kind;
            gex_Flags_t flags;
            const char *what;
        } bad[] = {
            { mp_client, NULL, 4096, GEX_MK_INVALID, 0, "kind GEX_MK_INVALID" },
            { mp_client, NULL, 4096, (gex_MK_t)(uintptr_t)0xdead0, 0, "unknown kind" },
            { mp_client, buf, sizeof buf, (gex_MK_t)(uintptr_t)0xdead0, 0, "client memory, bad kind" },
            { mp_client, NULL, 0, GEX_MK_HOST, 0, "GASNet-allocated, length 0" },
            { mp_client, buf, 0, GEX_MK_HOST, 0, "client-allocated, length 0" },
            { mp_client, NULL, 4096, GEX_MK_HOST, 1, "flags 1" },
            { mp_client, buf, sizeof buf, GEX_MK_HOST, (gex_Flags_t)1 << 20, "flags 1<<20" },
            { mp_client, NULL, gasnet_getMaxLocalSegmentSize() + GASNET_PAGESIZE, GEX_MK_HOST, 0,
              "longer than gasnet_getMaxLocalSegmentSize()" },
            { GEX_CLIENT_INVALID, NULL, 4096, GEX_MK_HOST, 0, "GEX_CLIENT_INVALID" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            gex_Segment_t s = SENTINEL_SEG;
            int rc = gex_Segment_Create(&s, bad[i].client, bad[i].addr, bad[i].len, bad[i].kind,
                                        bad[i].flags);
            CHECK_MSG(rc == GASNET_ERR_BAD_ARG, "gex_Segment_Create(%s) returned %s", bad[i].what,
                      gasnet_ErrorName(rc));
            CHECK_MSG(s == SENTINEL_SEG, "gex_Segment_Create(%s) wrote *segment_p", bad[i].what);
        }
        CHECK_RC(gex_Segment_Create(NULL, mp_client, NULL, 4096, GEX_MK_HOST, 0),
                 GASNET_ERR_BAD_ARG);
    }

    /* ---- gex_EP_Create ---- */
    mp_phase("gex_EP_Create bad arguments");
    {
        struct {
            gex_Client_t client;
            gex_EP_Capabilities_t caps;
            gex_Flags_t flags;
            const char *what;
        } bad[] = {
            { mp_client, 0, 0, "no capabilities" },
            { mp_client, (gex_EP_Capabilities_t)1 << 7, 0, "unknown capability" },
            { mp_client, GEX_EP_CAPABILITY_ALL | (gex_EP_Capabilities_t)1 << 20, 0,
              "ALL plus an unknown capability" },
            { mp_client, GEX_EP_CAPABILITY_AM, GEX_FLAG_IMMEDIATE, "flag IMMEDIATE" },
            { mp_client, GEX_EP_CAPABILITY_AM, (gex_Flags_t)1 << 30, "unknown flag" },
            { GEX_CLIENT_INVALID, GEX_EP_CAPABILITY_AM, 0, "GEX_CLIENT_INVALID" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            gex_EP_t e = SENTINEL_EP;
            int rc = gex_EP_Create(&e, bad[i].client, bad[i].caps, bad[i].flags);
            CHECK_MSG(rc == GASNET_ERR_BAD_ARG, "gex_EP_Create(%s) returned %s", bad[i].what,
                      gasnet_ErrorName(rc));
            CHECK_MSG(e == SENTINEL_EP, "gex_EP_Create(%s) wrote *ep_p", bad[i].what);
        }
        CHECK_RC(gex_EP_Create(NULL, mp_client, GEX_EP_CAPABILITY_AM, 0), GASNET_ERR_BAD_ARG);
    }
    /* failures used no index: the first new EP is still index 1 */
    gex_EP_t ep1 = SENTINEL_EP;
    CHECK_OK(gex_EP_Create(&ep1, mp_client, GEX_EP_CAPABILITY_AM, 0));
    CHECK_EQ(gex_EP_QueryIndex(ep1), 1);

    /* ---- gex_EP_BindSegment ---- */
    mp_phase("gex_EP_BindSegment");
    gex_Segment_t seg1 = SENTINEL_SEG, seg2 = SENTINEL_SEG;
    CHECK_OK(gex_Segment_Create(&seg1, mp_client, NULL, 8192, GEX_MK_HOST, 0));
    CHECK_OK(gex_Segment_Create(&seg2, mp_client, NULL, 8192, GEX_MK_HOST, 0));
    CHECK_RC(gex_EP_BindSegment(ep1, seg1, 1), GASNET_ERR_BAD_ARG); /* flags must be 0 */
    CHECK_PTR_EQ(gex_EP_QuerySegment(ep1), GEX_SEGMENT_INVALID);
    CHECK_RC(gex_EP_BindSegment(ep1, GEX_SEGMENT_INVALID, 0), GASNET_ERR_BAD_ARG);
    CHECK_RC(gex_EP_BindSegment(GEX_EP_INVALID, seg1, 0), GASNET_ERR_BAD_ARG);
    CHECK_PTR_EQ(gex_EP_QuerySegment(ep1), GEX_SEGMENT_INVALID);
    CHECK_OK(gex_EP_BindSegment(ep1, seg1, 0));
    CHECK_RC(gex_EP_BindSegment(ep1, seg2, 0), GASNET_ERR_BAD_ARG); /* already bound */
    CHECK_RC(gex_EP_BindSegment(ep1, seg1, 0), GASNET_ERR_BAD_ARG);
    CHECK_RC(gex_EP_BindSegment(mp_ep, seg2, 0), GASNET_ERR_BAD_ARG); /* has the attached one */
    CHECK_PTR_EQ(gex_EP_QuerySegment(ep1), seg1);
    CHECK_PTR_EQ(gex_EP_QuerySegment(mp_ep), mp_seg);

    /* ---- gex_EP_RegisterHandlers ---- */
    mp_phase("gex_EP_RegisterHandlers bad arguments");
    {
        const gex_AM_Entry_t good = { H_GOOD, (gex_AM_Fn_t)h_short0,
                                      GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "good" };
        const gex_AM_Entry_t good_auto = { 0, (gex_AM_Fn_t)h_short1,
                                           GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQREP, 1, NULL, "a" };
        gex_AM_Entry_t t[3];
        /* each table: a valid fixed entry, a valid automatic one, one bad entry */
#define BAD_TABLE(field_assignment, what) do { \
            t[0] = good; \
            t[1] = good_auto; \
            t[2] = good; \
            t[2].gex_index = H_GOOD2; \
            field_assignment; \
            register_fails(mp_ep, t, 3, what); \
        } while (0)
        BAD_TABLE(t[2].gex_index = 5, "index below GEX_AM_INDEX_BASE");
        BAD_TABLE(t[2].gex_index = GEX_AM_INDEX_BASE - 1, "index GEX_AM_INDEX_BASE-1");
        BAD_TABLE(t[2].gex_nargs = 17, "nargs 17");
        BAD_TABLE(t[2].gex_nargs = 1000, "nargs 1000");
        BAD_TABLE(t[2].gex_flags = 0, "flags 0");
        BAD_TABLE(t[2].gex_flags = GEX_FLAG_AM_SHORT, "no REQUEST/REPLY flag");
        BAD_TABLE(t[2].gex_flags = GEX_FLAG_AM_REQUEST, "no category flag");
        BAD_TABLE(t[2].gex_flags = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
                  "Short and Medium");
        BAD_TABLE(t[2].gex_flags = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY,
                  "Short and Long");
        BAD_TABLE(t[2].gex_flags |= (gex_Flags_t)1 << 12, "unknown flag bit");
        BAD_TABLE(t[2].gex_fnptr = NULL, "NULL handler");
        BAD_TABLE(t[2].gex_index = H_GOOD, "duplicate index in the table");
        BAD_TABLE(t[2].gex_index = MP_H_BARRIER_ARRIVE, "index already registered");
        CHECK_RC(gex_EP_RegisterHandlers(mp_ep, NULL, 2), GASNET_ERR_BAD_ARG);
        CHECK_RC(gex_EP_RegisterHandlers(GEX_EP_INVALID, t, 1), GASNET_ERR_BAD_ARG);
        CHECK_OK(gex_EP_RegisterHandlers(mp_ep, NULL, 0)); /* nothing to do */
        /* nothing was registered: the same indices are still free */
        t[0] = good;
        t[1] = good_auto;
        t[2] = good;
        t[2].gex_index = H_GOOD2;
        CHECK_OK(gex_EP_RegisterHandlers(mp_ep, t, 3));
        CHECK_EQ(t[1].gex_index, 255); /* no earlier automatic entry took 255 */
        t[0] = good;
        CHECK_RC(gex_EP_RegisterHandlers(mp_ep, t, 1), GASNET_ERR_BAD_ARG); /* now taken */
        t[0].gex_index = 255;
        CHECK_RC(gex_EP_RegisterHandlers(mp_ep, t, 1), GASNET_ERR_BAD_ARG);
        /* registration is per endpoint: ep1 has none of these */
        t[0] = good;
        CHECK_OK(gex_EP_RegisterHandlers(ep1, t, 1));
    }

    /* ---- gex_TM_Pair and translations ---- */
    mp_phase("TM-pair and translations");
    CHECK_PTR_EQ(gex_TM_Pair(mp_ep, GASNET_MAXEPS), GEX_TM_INVALID);
    CHECK_PTR_EQ(gex_TM_Pair(mp_ep, GASNET_MAXEPS + 1), GEX_TM_INVALID);
    CHECK_PTR_EQ(gex_TM_Pair(mp_ep, GEX_EP_INDEX_INVALID), GEX_TM_INVALID);
    CHECK_PTR_EQ(gex_TM_Pair(GEX_EP_INVALID, 0), GEX_TM_INVALID);
    CHECK(gex_TM_Pair(mp_ep, GASNET_MAXEPS - 1) != GEX_TM_INVALID);
    const gex_Rank_t n = mp_n;
    gex_Rank_t bad_ranks[] = { n, n + 1, GEX_RANK_INVALID, GEX_RANK_INVALID - 1 };
    for (size_t i = 0; i < sizeof bad_ranks / sizeof bad_ranks[0]; i++) {
        gex_Rank_t r = bad_ranks[i];
        CHECK_EQ(gex_TM_TranslateRankToJobrank(mp_tm, r), GEX_RANK_INVALID);
        CHECK_EQ(gex_TM_TranslateJobrankToRank(mp_tm, r), GEX_RANK_INVALID);
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(mp_tm, r, 0);
        CHECK_EQ(loc.gex_rank, GEX_RANK_INVALID);
        CHECK_EQ(loc.gex_ep_index, GEX_EP_INDEX_INVALID);
    }
    {
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(mp_tm, 0, 1); /* flags must be 0 */
        CHECK_EQ(loc.gex_rank, GEX_RANK_INVALID);
        CHECK_EQ(loc.gex_ep_index, GEX_EP_INDEX_INVALID);
    }

    /* ---- Bound-segment queries that cannot succeed ---- */
    mp_phase("unsuccessful bound-segment queries");
    {
        gex_EP_t ep2 = SENTINEL_EP;
        CHECK_OK(gex_EP_Create(&ep2, mp_client, GEX_EP_CAPABILITY_RMA, 0));
        CHECK_EQ(gex_EP_QueryIndex(ep2), 2);
        struct {
            gex_TM_t tm;
            gex_Rank_t rank;
            const char *what;
        } q[] = {
            { gex_TM_Pair(mp_ep, 2), mp_me, "own EP without a segment" },
            { gex_TM_Pair(mp_ep, 2), (mp_me + 1) % n, "peer EP 2 (no segment)" },
            { gex_TM_Pair(mp_ep, 9), mp_me, "own EP index that does not exist" },
            { gex_TM_Pair(mp_ep, 9), (mp_me + 1) % n, "peer EP index that does not exist" },
            { mp_tm, n, "rank == team size" },
            { gex_TM_Pair(mp_ep, 0), n, "jobrank == job size" },
        };
        for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
            void *o = (void *)7, *l = (void *)7;
            uintptr_t s = 7;
            CHECK_MSG(gex_Segment_QueryBound(q[i].tm, q[i].rank, &o, &l, &s) != 0,
                      "gex_Segment_QueryBound(%s) succeeded", q[i].what);
            CHECK_MSG(o == (void *)7 && l == (void *)7 && s == 7,
                      "gex_Segment_QueryBound(%s) modified its outputs", q[i].what);
            if (q[i].rank < n) { /* NB: rank must be valid */
                s = 7;
                gex_Event_t ev = gex_EP_QueryBoundSegmentNB(q[i].tm, q[i].rank, &o, &l, &s, 0);
                CHECK(ev != GEX_EVENT_NO_OP);
                gex_Event_Wait(ev);
                CHECK_MSG(s == 0, "gex_EP_QueryBoundSegmentNB(%s): size %zu, want 0",
                          q[i].what, (size_t)s);
            }
        }
        /* EP 1 has seg1 bound: its own process knows it without publication */
        void *o = NULL;
        uintptr_t s = 0;
        CHECK_OK(gex_Segment_QueryBound(gex_TM_Pair(mp_ep, 1), mp_me, &o, NULL, &s));
        CHECK_PTR_EQ(o, gex_Segment_QueryAddr(seg1));
        CHECK_EQ(s, gex_Segment_QuerySize(seg1));
    }

    /* ---- gex_EP_PublishBoundSegment ---- */
    mp_phase("gex_EP_PublishBoundSegment bad arguments");
    {
        gex_EP_t list[2] = { ep1, ep1 };
        CHECK_RC(gex_EP_PublishBoundSegment(gex_TM_Pair(mp_ep, 0), &ep1, 1, 0),
                 GASNET_ERR_BAD_ARG);
        CHECK_RC(gex_EP_PublishBoundSegment(GEX_TM_INVALID, &ep1, 1, 0), GASNET_ERR_BAD_ARG);
        CHECK_RC(gex_EP_PublishBoundSegment(mp_tm, &ep1, 1, 1), GASNET_ERR_BAD_ARG);
        CHECK_RC(gex_EP_PublishBoundSegment(mp_tm, NULL, 1, 0), GASNET_ERR_BAD_ARG);
        CHECK_RC(gex_EP_PublishBoundSegment(mp_tm, list, 2, 0), GASNET_ERR_BAD_ARG);
        list[1] = GEX_EP_INVALID;
        CHECK_RC(gex_EP_PublishBoundSegment(mp_tm, list, 2, 0), GASNET_ERR_BAD_ARG);
        /* nothing was published by those: peers still know nothing of EP 1 */
        if (n > 1) {
            uintptr_t s = 7;
            gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(mp_ep, 1), (mp_me + 1) % n,
                                                      NULL, NULL, &s, 0));
            CHECK_EQ(s, 0);
        }
        /* and a good one still works (collective) */
        CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, &ep1, 1, 0));
        uintptr_t s = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(mp_ep, 1), (mp_me + 1) % n, NULL,
                                                  NULL, &s, 0));
        CHECK_EQ(s, 8192);
    }

    /* ---- Events: GEX_EVENT_INVALID is complete ---- */
    mp_phase("events");
    {
        CHECK_EQ(gex_Event_Test(GEX_EVENT_INVALID), 0);
        gex_Event_Wait(GEX_EVENT_INVALID);
        gex_Event_t evs[3] = { GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID };
        CHECK_EQ(gex_Event_TestAll(evs, 3, 0), 0);
        CHECK_EQ(gex_Event_TestSome(evs, 3, 0), 0);
        gex_Event_WaitAll(evs, 3, 0);
        gex_Event_WaitSome(evs, 3, 0);
        CHECK(evs[0] == GEX_EVENT_INVALID && evs[1] == GEX_EVENT_INVALID &&
              evs[2] == GEX_EVENT_INVALID);
        CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
        gex_NBI_Wait(GEX_EC_ALL, 0);
    }

    /* ---- GASNET_MAXEPS endpoints, then RESOURCE ---- */
    mp_phase("endpoint exhaustion");
    {
        unsigned created = 3; /* 0, 1, 2 exist */
        for (unsigned i = 3; i < GASNET_MAXEPS; i++, created++) {
            gex_EP_t e = SENTINEL_EP;
            CHECK_OK(gex_EP_Create(&e, mp_client, GEX_EP_CAPABILITY_AM, 0));
            CHECK_EQ(gex_EP_QueryIndex(e), i);
        }
        gex_EP_t e = SENTINEL_EP;
        CHECK_RC(gex_EP_Create(&e, mp_client, GEX_EP_CAPABILITY_AM, 0), GASNET_ERR_RESOURCE);
        CHECK(e == SENTINEL_EP);
        CHECK_RC(gex_EP_Create(&e, mp_client, GEX_EP_CAPABILITY_ALL, 0), GASNET_ERR_RESOURCE);
        CHECK(e == SENTINEL_EP);
        CHECK_EQ(created, GASNET_MAXEPS);
        /* the verbose message names the call the client made (it named an
         * internal helper) */
        char msg[512];
        const int old_verbose = gex_System_GetVerboseErrors();
        gex_System_SetVerboseErrors(1);
        capture_stderr_begin();
        CHECK_RC(gex_EP_Create(&e, mp_client, GEX_EP_CAPABILITY_AM, 0), GASNET_ERR_RESOURCE);
        capture_stderr_end(msg, sizeof msg);
        gex_System_SetVerboseErrors(old_verbose);
        CHECK_MSG(strstr(msg, "gex_EP_Create") && strstr(msg, "GASNET_ERR_RESOURCE") &&
                  !strstr(msg, "gexi_"), "exhaustion message: %s", msg);
    }

    /* ---- Verbose errors do not change return codes ---- */
    mp_phase("verbose errors");
    gex_System_SetVerboseErrors(1);
    CHECK_EQ(gex_System_GetVerboseErrors(), 1);
    if (mp_me == 0) { /* one rank is enough noise */
        gex_EP_t e = SENTINEL_EP;
        CHECK_RC(gex_EP_Create(&e, mp_client, 0, 0), GASNET_ERR_BAD_ARG);
        CHECK(e == SENTINEL_EP);
    }
    gex_System_SetVerboseErrors(0);

    mp_finish("every documented error code returned, outputs untouched, failed calls had "
              "no effect");
}
