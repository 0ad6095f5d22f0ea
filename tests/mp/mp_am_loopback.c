/*
 * mp_am_loopback.c: AMs a rank sends to itself (docs/am.md, "AMs to
 * oneself").  By default their handler runs inside the sending call, as
 * in GASNet: when gex_AM_Request* / Commit returns, the Request handler has
 * run, and so has the Reply handler if it replied.  Every rank talks only to
 * itself, so the counts below are exact and need no poll.
 *
 * Covered: Short, Medium (0 B to MaxRequestMedium, across the stack/heap
 * boundary of the copy) and Long Requests, each answered by every kind of
 * Reply (fixed and negotiated payload); negotiated-payload Requests on the
 * small path, the conduit's path and with a client buffer; a Long whose
 * source overlaps its destination; IMMEDIATE never refused; a second thread
 * that waits for the handler's effect while the sender makes no GEX call
 * (GASNet's testcontend); a second EP of this process; a serialized EP
 * (its handlers run only in its owner's polls, so it goes through the
 * conduit).  Payloads and the Token_Info of every handler are checked, and
 * a Medium handler scribbles on its buffer, which must not be the sender's.
 *
 * argv[1] "conduit" (with GEX_AM_LOOPBACK=conduit): the same traffic goes
 * through the conduit and runs at the next poll; the test then polls for
 * each handler and checks that the first one had not run at return.
 */
#include "mp_util.h"
#include <pthread.h>
#include <time.h>

enum {
    H_REQ_SHORT = MP_H_FIRST_FREE, H_REQ_MED, H_REQ_LONG,
    H_REP_SHORT, H_REP_MED, H_REP_LONG, H_COUNT_END
};
/* How the Request handler answers (its second argument). */
enum { R_NONE, R_SHORT, R_MED, R_LONG, R_NP_MED, R_NP_LONG, R_KINDS };
static const char *const reply_name[R_KINDS] = { "none", "Short", "Medium", "Long",
                                                 "NP Medium", "NP Long" };

#define SEGSZ (1u << 20)
#define REP_DEST_OFF (SEGSZ / 2)     /* Replies' Longs land here; Requests' below */
#define LONG_MAX_TEST (SEGSZ / 4)

static int sync_mode = 1;
static int nested = 1;               /* the Request itself was delivered in the call */
static atomic_uint n_req, n_rep;
static char *seg;
static gex_EP_t want_ep;             /* the EP a Request handler must see */
static size_t want_len, rep_len;     /* payload sizes of the Request and of its Reply */
static void *want_dest;              /* a Long Request's destination */
static size_t max_rep_med, max_rep_long, max_np_rep_long;
static unsigned char rep_src[65536];

static void check_token(gex_Token_t t, int is_req, int is_long)
{
    gex_Token_Info_t info;
    const gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK((got & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP));
    CHECK_EQ(info.gex_srcrank, mp_me);
    CHECK(info.gex_ep == (is_req ? want_ep : mp_ep));
    if (got & GEX_TI_IS_REQ) CHECK_EQ(!!info.gex_is_req, is_req);
    if (got & GEX_TI_IS_LONG) CHECK_EQ(!!info.gex_is_long, is_long);
}

/* ---- Replies (from the Request handlers) ---- */
static void send_reply(gex_Token_t t, unsigned kind, uint32_t seed)
{
    const unsigned before = atomic_load(&n_rep);
    void *dest = seg + REP_DEST_OFF;
    gex_AM_SrcDesc_t sd;
    switch (kind) {
    case R_NONE:
        return;
    case R_SHORT:
        CHECK_OK(gex_AM_ReplyShort1(t, H_REP_SHORT, 0, (gex_AM_Arg_t)seed));
        break;
    case R_MED:
        mp_fill(rep_src, rep_len, seed, 2);
        CHECK_OK(gex_AM_ReplyMedium1(t, H_REP_MED, rep_src, rep_len, GEX_EVENT_NOW, 0,
                                     (gex_AM_Arg_t)seed));
        break;
    case R_LONG:
        mp_fill(rep_src, rep_len, seed, 2);
        CHECK_OK(gex_AM_ReplyLong1(t, H_REP_LONG, rep_src, rep_len, dest, GEX_EVENT_NOW, 0,
                                   (gex_AM_Arg_t)seed));
        break;
    case R_NP_MED:
        sd = gex_AM_PrepareReplyMedium(t, NULL, rep_len, rep_len, NULL, 0, 1);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) >= rep_len);
        mp_fill(gex_AM_SrcDescAddr(sd), rep_len, seed, 2);
        gex_AM_CommitReplyMedium1(sd, H_REP_MED, rep_len, (gex_AM_Arg_t)seed);
        break;
    case R_NP_LONG:
        sd = gex_AM_PrepareReplyLong(t, NULL, rep_len, rep_len, dest, NULL, 0, 1);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) >= rep_len);
        mp_fill(gex_AM_SrcDescAddr(sd), rep_len, seed, 2);
        gex_AM_CommitReplyLong1(sd, H_REP_LONG, rep_len, dest, (gex_AM_Arg_t)seed);
        break;
    }
    /* nested: the Reply handler ran inside the Reply call */
    if (sync_mode && nested) CHECK_EQ(atomic_load(&n_rep), before + 1);
}

static void h_req_short(gex_Token_t t, gex_AM_Arg_t seed, gex_AM_Arg_t kind)
{
    check_token(t, 1, 0);
    atomic_fetch_add(&n_req, 1);
    send_reply(t, (unsigned)kind, (uint32_t)seed);
}

static void h_req_med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed, gex_AM_Arg_t kind)
{
    check_token(t, 1, 0);
    CHECK_EQ(n, want_len);
    CHECK_PATTERN(buf, n, (uint32_t)seed, 1);
    memset(buf, 0x5a, n);   /* the handler's copy: the sender's buffer must not change */
    atomic_fetch_add(&n_req, 1);
    send_reply(t, (unsigned)kind, (uint32_t)seed);
}

static void h_req_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed, gex_AM_Arg_t kind)
{
    check_token(t, 1, 1);
    CHECK_EQ(n, want_len);
    if (n) CHECK_PTR_EQ(buf, want_dest);
    CHECK_PATTERN(buf, n, (uint32_t)seed, 1);
    atomic_fetch_add(&n_req, 1);
    send_reply(t, (unsigned)kind, (uint32_t)seed);
}

static void h_rep_short(gex_Token_t t, gex_AM_Arg_t seed)
{
    (void)seed;
    check_token(t, 0, 0);
    atomic_fetch_add(&n_rep, 1);
}

static void h_rep_med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    check_token(t, 0, 0);
    CHECK_EQ(n, rep_len);
    CHECK_PATTERN(buf, n, (uint32_t)seed, 2);
    atomic_fetch_add(&n_rep, 1);
}

static void h_rep_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    check_token(t, 0, 1);
    CHECK_EQ(n, rep_len);
    if (n) CHECK_PTR_EQ(buf, seg + REP_DEST_OFF);
    CHECK_PATTERN(buf, n, (uint32_t)seed, 2);
    atomic_fetch_add(&n_rep, 1);
}

static gex_AM_Entry_t handlers[] = {
    { H_REQ_SHORT, (gex_AM_Fn_t)h_req_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL,
      "req_short" },
    { H_REQ_MED, (gex_AM_Fn_t)h_req_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL,
      "req_med" },
    { H_REQ_LONG, (gex_AM_Fn_t)h_req_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL,
      "req_long" },
    { H_REP_SHORT, (gex_AM_Fn_t)h_rep_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL,
      "rep_short" },
    { H_REP_MED, (gex_AM_Fn_t)h_rep_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL,
      "rep_med" },
    { H_REP_LONG, (gex_AM_Fn_t)h_rep_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 1, NULL,
      "rep_long" },
};

/* ---- Requests ---- */
enum how { FP_SHORT, FP_MED, FP_LONG, NP_MED_LIB, NP_MED_CLIENT, NP_LONG_LIB, HOWS };
static const char *const how_name[HOWS] = { "Short", "Medium", "Long", "NP Medium",
                                            "NP Medium (client buffer)", "NP Long" };
static unsigned char req_src[65536];
static uint32_t seq;
static int checked_deferred;

/* Waits for (conduit mode) or checks (sync mode) the handlers' counts. */
static void expect_counts(unsigned req, unsigned rep)
{
    if (sync_mode) {
        CHECK_EQ(atomic_load(&n_req), req);
        CHECK_EQ(atomic_load(&n_rep), rep);
    } else {
        if (!checked_deferred) {   /* nothing polled since the send */
            CHECK_EQ(atomic_load(&n_req), req - 1);
            checked_deferred = 1;
        }
        MP_POLL_UNTIL(atomic_load(&n_req) == req && atomic_load(&n_rep) == rep);
    }
}

/* One Request of size n to (tm, rank), answered with a Reply of kind. */
static void request(gex_TM_t tm, gex_Rank_t rank, enum how how, size_t n, unsigned kind)
{
    const uint32_t seed = ++seq;
    const unsigned req0 = atomic_load(&n_req), rep0 = atomic_load(&n_rep);
    const gex_AM_Arg_t a = (gex_AM_Arg_t)seed, k = (gex_AM_Arg_t)kind;
    gex_AM_SrcDesc_t sd;
    char *dest = seg;
    want_len = n;
    want_dest = dest;
    switch (how) {
    case FP_SHORT:
        want_len = 0;
        CHECK_OK(gex_AM_RequestShort2(tm, rank, H_REQ_SHORT, 0, a, k));
        break;
    case FP_MED:
        mp_fill(req_src, n, seed, 1);
        CHECK_OK(gex_AM_RequestMedium2(tm, rank, H_REQ_MED, req_src, n, GEX_EVENT_NOW, 0, a, k));
        break;
    case FP_LONG:
        mp_fill(req_src, n, seed, 1);
        CHECK_OK(gex_AM_RequestLong2(tm, rank, H_REQ_LONG, req_src, n, dest, GEX_EVENT_NOW, 0,
                                     a, k));
        break;
    case NP_MED_LIB:
        sd = gex_AM_PrepareRequestMedium(tm, rank, NULL, n, n, NULL, 0, 2);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) >= n);
        mp_fill(gex_AM_SrcDescAddr(sd), n, seed, 1);
        gex_AM_CommitRequestMedium2(sd, H_REQ_MED, n, a, k);
        break;
    case NP_MED_CLIENT: {
        /* most_payload above what is committed: the Commit sends less */
        mp_fill(req_src, n, seed, 1);
        gex_Event_t lc = GEX_EVENT_NO_OP;
        sd = gex_AM_PrepareRequestMedium(tm, rank, req_src, 0, n + 16 < sizeof req_src ? n + 16 : n,
                                         &lc, 0, 2);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) >= n);
        CHECK_PTR_EQ(gex_AM_SrcDescAddr(sd), req_src);
        gex_AM_CommitRequestMedium2(sd, H_REQ_MED, n, a, k);
        CHECK(lc == GEX_EVENT_INVALID);
        break;
    }
    case NP_LONG_LIB:
        sd = gex_AM_PrepareRequestLong(tm, rank, NULL, n, n, dest, NULL, 0, 2);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) >= n);
        mp_fill(gex_AM_SrcDescAddr(sd), n, seed, 1);
        gex_AM_CommitRequestLong2(sd, H_REQ_LONG, n, dest, a, k);
        break;
    default:
        CHECK(0);
    }
    expect_counts(req0 + 1, rep0 + (kind != R_NONE));
    if (how == FP_MED || how == NP_MED_CLIENT) CHECK_PATTERN(req_src, n, seed, 1);
}

/* The sizes each kind of Request is tried with (0-terminated after the first). */
static size_t sizes_of(enum how how, size_t *out)
{
    const size_t max_med = gex_AM_MaxRequestMedium(mp_tm, mp_me, GEX_EVENT_NOW, 0, 2);
    size_t max_long = gex_AM_MaxRequestLong(mp_tm, mp_me, GEX_EVENT_NOW, 0, 2);
    if (max_long > LONG_MAX_TEST) max_long = LONG_MAX_TEST;
    const size_t np_long = gex_AM_MaxRequestLong(mp_tm, mp_me, NULL,
                                                 GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 2);
    size_t k = 0;
    switch (how) {
    case FP_SHORT:
        out[k++] = 0;
        break;
    case FP_MED:
    case NP_MED_LIB:
    case NP_MED_CLIENT: {
        static const size_t s[] = { 0, 1, 64, 100, 512, 1024, 1025, 4096 };
        for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
            if (s[i] <= max_med) out[k++] = s[i];
        out[k++] = max_med < sizeof req_src ? max_med : sizeof req_src;
        break;
    }
    case FP_LONG:
    case NP_LONG_LIB: {
        const size_t lim = how == FP_LONG ? max_long : (np_long < max_long ? np_long : max_long);
        static const size_t s[] = { 0, 8, 512, 4096, 65536 };
        for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
            if (s[i] <= lim && s[i] <= sizeof req_src) out[k++] = s[i];
        break;
    }
    default:
        break;
    }
    return k;
}

static void sweep(gex_TM_t tm, gex_Rank_t rank, int with_long)
{
    size_t sizes[16];
    const size_t rep_sizes[] = { 0, 7, 1500 };
    for (enum how how = 0; how < HOWS; how++) {
        if (!with_long && (how == FP_LONG || how == NP_LONG_LIB)) continue;
        const size_t ns = sizes_of(how, sizes);
        for (size_t i = 0; i < ns; i++)
            for (unsigned kind = 0; kind < R_KINDS; kind++) {
                size_t lim = kind == R_MED || kind == R_NP_MED ? max_rep_med
                           : kind == R_LONG ? max_rep_long : max_np_rep_long;
                rep_len = rep_sizes[(i + kind) % 3] < lim ? rep_sizes[(i + kind) % 3] : lim;
                char phase[96];
                snprintf(phase, sizeof phase, "%s of %zu bytes, Reply %s of %zu", how_name[how],
                         sizes[i], reply_name[kind], rep_len);
                mp_phase(phase);
                request(tm, rank, how, sizes[i], kind);
            }
    }
}

/* ---- GASNet's testcontend pattern: another thread waits for the effect ---- */
static atomic_uint watched_target;
static void *watcher(void *arg)
{
    (void)arg;
    const time_t give_up = time(NULL) + 30;
    while (atomic_load(&n_req) < atomic_load(&watched_target))
        if (time(NULL) > give_up) return (void *)1;
    return NULL;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_AM_LOOPBACK", 0);
    if (argc > 1 && !strcmp(argv[1], "conduit")) sync_mode = 0;
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, handlers, sizeof handlers / sizeof handlers[0]));
    mp_attach(SEGSZ);
    seg = gex_Segment_QueryAddr(mp_seg);
    CHECK(seg != NULL);
    want_ep = mp_ep;
    max_rep_med = gex_AM_MaxReplyMedium(mp_tm, mp_me, GEX_EVENT_NOW, 0, 1);
    if (max_rep_med > sizeof rep_src) max_rep_med = sizeof rep_src;
    max_rep_long = gex_AM_MaxReplyLong(mp_tm, mp_me, GEX_EVENT_NOW, 0, 1);
    if (max_rep_long > sizeof rep_src) max_rep_long = sizeof rep_src;
    max_np_rep_long = gex_AM_MaxReplyLong(mp_tm, mp_me, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 1);
    if (max_np_rep_long > max_rep_long) max_np_rep_long = max_rep_long;

    sweep(mp_tm, mp_me, 1);

    if (sync_mode) {
        mp_phase("Long whose source overlaps its destination");
        const uint32_t seed = ++seq;
        const unsigned req0 = atomic_load(&n_req);
        mp_fill(seg, 4000, seed, 1);
        want_len = 4000;
        want_dest = seg + 100;
        CHECK_OK(gex_AM_RequestLong2(mp_tm, mp_me, H_REQ_LONG, seg, 4000, seg + 100,
                                     GEX_EVENT_NOW, 0, (gex_AM_Arg_t)seed, R_NONE));
        CHECK_EQ(atomic_load(&n_req), req0 + 1);

        mp_phase("IMMEDIATE is never refused");
        const unsigned r0 = atomic_load(&n_req);
        for (unsigned i = 0; i < 20000; i++)
            CHECK_RC(gex_AM_RequestShort2(mp_tm, mp_me, H_REQ_SHORT, GEX_FLAG_IMMEDIATE,
                                          (gex_AM_Arg_t)i, R_NONE), 0);
        CHECK_EQ(atomic_load(&n_req), r0 + 20000);

        mp_phase("another thread sees the handler's effect without a poll");
        atomic_store(&watched_target, atomic_load(&n_req) + 1);
        pthread_t th;
        CHECK_EQ(pthread_create(&th, NULL, watcher, NULL), 0);
        want_len = 0;
        CHECK_OK(gex_AM_RequestShort2(mp_tm, mp_me, H_REQ_SHORT, 0, 1, R_NONE));
        void *th_rc;
        CHECK_EQ(pthread_join(th, &th_rc), 0);   /* no GEX call while it waits */
        CHECK(th_rc == NULL);
    }

    mp_phase("a second endpoint of this process");
    gex_EP_t ep2;
    CHECK_OK(gex_EP_Create(&ep2, mp_client, GEX_EP_CAPABILITY_ALL, 0));
    CHECK_OK(gex_EP_RegisterHandlers(ep2, handlers, sizeof handlers / sizeof handlers[0]));
    want_ep = ep2;
    sweep(gex_TM_Pair(mp_ep, gex_EP_QueryIndex(ep2)), mp_me, 0);

    mp_phase("a serialized endpoint (through the conduit, served by its owner's polls)");
    gex_EP_t ep3;
    CHECK_OK(gex_EP_Create(&ep3, mp_client, GEX_EP_CAPABILITY_ALL, GEX_FLAG_EP_SERIALIZED));
    CHECK_OK(gex_EP_RegisterHandlers(ep3, handlers, sizeof handlers / sizeof handlers[0]));
    want_ep = ep3;
    nested = 0;
    const gex_TM_t pair3 = gex_TM_Pair(mp_ep, gex_EP_QueryIndex(ep3));
    for (unsigned kind = R_NONE; kind <= R_MED; kind++) {
        const unsigned req0 = atomic_load(&n_req), rep0 = atomic_load(&n_rep);
        rep_len = 10;
        want_len = 0;
        CHECK_OK(gex_AM_RequestShort2(pair3, mp_me, H_REQ_SHORT, 0, (gex_AM_Arg_t)++seq, kind));
        MP_POLL_UNTIL(atomic_load(&n_req) == req0 + 1 &&
                      atomic_load(&n_rep) == rep0 + (kind != R_NONE));
    }
    want_ep = mp_ep;
    mp_finish("AMs to oneself (%s): %u Requests, %u Replies", sync_mode ? "sync" : "conduit",
              atomic_load(&n_req), atomic_load(&n_rep));
}
