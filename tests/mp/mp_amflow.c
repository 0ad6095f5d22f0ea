/*
 * mp_amflow.c: AM flow control never deadlocks and never loses or
 * duplicates a message.  Senders use blocking (non-IMMEDIATE) injections
 * only, so every phase would hang (and the watchdog would fail it) if a
 * sender waiting for room could not make progress.
 *
 *  A. Busy handler: every other rank floods rank 0 with Mediums (fixed
 *     payload and negotiated payload in library buffers, alternately)
 *     while rank 0 sits 300 ms inside the handler of the first one, without
 *     polling; the flood must drain once the handler returns.
 *  B. Deaf peer: the last rank does not poll at all for 400 ms while every
 *     other rank floods it with Requests whose handlers reply; afterwards
 *     every Request and every Reply arrives.
 *  C. All-to-all at full speed: every rank sends AMF_A2A Requests to every
 *     rank (itself included), cycling fixed-payload and negotiated-payload
 *     Mediums (library and client buffers, up to MaxMedium) and small Longs,
 *     and every handler replies (fixed or negotiated payload, up to
 *     MaxMedium), so both ring kinds of every pair are under back-pressure
 *     at once.
 * Every message carries (sender, sequence) and a payload pattern; receivers
 * check per-sender order (one ring per pair is FIFO), the payload, and the
 * exact count per sender.
 */
#include "mp_util.h"
#include <time.h>

#define H_A      (MP_H_FIRST_FREE + 0)
#define H_B_REQ  (MP_H_FIRST_FREE + 1)
#define H_B_REP  (MP_H_FIRST_FREE + 2)
#define H_C_REQ  (MP_H_FIRST_FREE + 3)
#define H_C_REP  (MP_H_FIRST_FREE + 4)
#define H_C_LREQ (MP_H_FIRST_FREE + 5)

static gex_Rank_t me, n;
static unsigned flood_a, flood_b, a2a;
static size_t max_med;
static char *my_base;
static char **owner_base;
/* Phase C Longs: every one has its own landing place, (sender, seq / 4),
 * because nothing tells a sender when an earlier Long's handler has run. */
#define LPIECE 256
static size_t lregion;   /* bytes per sender */
static size_t c_long_off(gex_Rank_t sender, unsigned seq)
{
    return (size_t)sender * lregion + (size_t)(seq / 4) * LPIECE;
}

static gex_Rank_t src_of(gex_Token_t t)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    return info.gex_srcrank;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts)) {}
}

/* Sends a Medium Request of nb bytes with pattern (a, b), fixed or
 * negotiated payload (library buffer), 2 args (seq, aux). */
static void send_med(gex_Rank_t r, gex_AM_Index_t h, int np, char *buf, size_t nb, uint32_t a,
                     uint32_t seq, gex_AM_Arg_t aux)
{
    if (!np) {
        mp_fill(buf, nb, a, seq);
        CHECK_OK(gex_AM_RequestMedium2(mp_tm, r, h, buf, nb, GEX_EVENT_NOW, 0,
                                       (gex_AM_Arg_t)seq, aux));
        return;
    }
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(mp_tm, r, NULL, nb, nb, NULL, 0, 2);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) == nb);
    mp_fill(gex_AM_SrcDescAddr(sd), nb, a, seq);
    gex_AM_CommitRequestMedium2(sd, h, nb, (gex_AM_Arg_t)seq, aux);
}

/* ---- A ---- */
static unsigned *a_next;
static atomic_uint a_count;
static int a_slept;
static void h_a(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t aux)
{
    const gex_Rank_t s = src_of(t);
    if (!a_slept) {   /* the first handler keeps rank 0 busy: no polls, no drains */
        a_slept = 1;
        sleep_ms(300);
    }
    CHECK_MSG((unsigned)seq == a_next[s], "A: %d from %u, want %u", (int)seq, (unsigned)s,
              a_next[s]);
    a_next[s]++;
    CHECK_EQ(nb, 1000 + (size_t)(seq % 7) * 300);
    CHECK_PATTERN(buf, nb, 100 + s, (uint32_t)seq);
    atomic_fetch_add(&a_count, 1);
}

/* ---- B ---- */
static unsigned *b_next, *b_rep_next;
static atomic_uint b_count, b_replies;
static void h_b_req(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t aux)
{
    const gex_Rank_t s = src_of(t);
    CHECK_MSG((unsigned)seq == b_next[s], "B: %d from %u, want %u", (int)seq, (unsigned)s,
              b_next[s]);
    b_next[s]++;
    CHECK_EQ(nb, (size_t)(seq % 500));
    CHECK_PATTERN(buf, nb, 200 + s, (uint32_t)seq);
    char rep[256];
    mp_fill(rep, sizeof rep, 300 + me, (uint32_t)seq);
    CHECK_OK(gex_AM_ReplyMedium1(t, H_B_REP, rep, sizeof rep, GEX_EVENT_NOW, 0, seq));
    atomic_fetch_add(&b_count, 1);
}
static void h_b_rep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq)
{
    const gex_Rank_t s = src_of(t);
    CHECK_EQ(nb, 256);
    CHECK_PATTERN(buf, nb, 300 + s, (uint32_t)seq);
    CHECK_EQ((unsigned)seq, b_rep_next[s]);
    b_rep_next[s]++;
    atomic_fetch_add(&b_replies, 1);
}

/* ---- C ---- */
static unsigned *c_next, *c_rep_next;
static atomic_uint c_count, c_replies;
static char *c_rep_buf;
static size_t c_req_size(unsigned seq) { return seq % 11 == 0 ? max_med : (seq * 37) % 3000; }
static size_t c_rep_size(unsigned seq) { return seq % 13 == 0 ? max_med : (seq * 53) % 2000; }

static void c_reply(gex_Token_t t, unsigned seq)
{
    const size_t rn = c_rep_size(seq);
    if (seq % 2) {   /* negotiated payload, library buffer */
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, rn, rn, NULL, 0, 1);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) == rn);
        mp_fill(gex_AM_SrcDescAddr(sd), rn, 500 + me, seq);
        gex_AM_CommitReplyMedium1(sd, H_C_REP, rn, (gex_AM_Arg_t)seq);
    } else {
        mp_fill(c_rep_buf, rn, 500 + me, seq);
        CHECK_OK(gex_AM_ReplyMedium1(t, H_C_REP, c_rep_buf, rn, GEX_EVENT_NOW, 0,
                                     (gex_AM_Arg_t)seq));
    }
}
static void c_check_req(gex_Token_t t, gex_AM_Arg_t seq)
{
    const gex_Rank_t s = src_of(t);
    CHECK_MSG((unsigned)seq == c_next[s], "C: %d from %u, want %u", (int)seq, (unsigned)s,
              c_next[s]);
    c_next[s]++;
    atomic_fetch_add(&c_count, 1);
}
static void h_c_req(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t aux)
{
    const gex_Rank_t s = src_of(t);
    c_check_req(t, seq);
    CHECK_EQ(nb, c_req_size((unsigned)seq));
    CHECK_PATTERN(buf, nb, 400 + s, (uint32_t)seq);
    c_reply(t, (unsigned)seq);
}
static void h_c_lreq(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t aux)
{
    const gex_Rank_t s = src_of(t);
    c_check_req(t, seq);
    CHECK_PTR_EQ(buf, my_base + c_long_off(s, (unsigned)seq));
    CHECK_EQ(nb, (size_t)(seq % LPIECE));
    CHECK_PATTERN(buf, nb, 400 + s, (uint32_t)seq);
    c_reply(t, (unsigned)seq);
}
static void h_c_rep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq)
{
    const gex_Rank_t s = src_of(t);
    CHECK_MSG((unsigned)seq == c_rep_next[s], "C reply %d from %u, want %u", (int)seq,
              (unsigned)s, c_rep_next[s]);
    c_rep_next[s]++;
    CHECK_EQ(nb, c_rep_size((unsigned)seq));
    CHECK_PATTERN(buf, nb, 500 + s, (uint32_t)seq);
    atomic_fetch_add(&c_replies, 1);
}

static unsigned env_count(const char *name, unsigned dflt)
{
    const char *e = getenv(name);
    return e && *e ? (unsigned)strtoul(e, NULL, 10) : dflt;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_AMFLOW", 0);
    me = mp_me;
    n = mp_n;
    flood_a = env_count("MP_AMFLOW_A", 6000);
    flood_b = env_count("MP_AMFLOW_B", 4000);
    a2a = env_count("MP_AMFLOW_C", 3000);
    gex_AM_Entry_t h[] = {
        { H_A, (gex_AM_Fn_t)h_a, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "a" },
        { H_B_REQ, (gex_AM_Fn_t)h_b_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "b" },
        { H_B_REP, (gex_AM_Fn_t)h_b_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "br" },
        { H_C_REQ, (gex_AM_Fn_t)h_c_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "c" },
        { H_C_REP, (gex_AM_Fn_t)h_c_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "cr" },
        { H_C_LREQ, (gex_AM_Fn_t)h_c_lreq, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "cl" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));
    max_med = gex_AM_MaxRequestMedium(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 2);
    const size_t max_rep = gex_AM_MaxReplyMedium(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 1);
    if (max_rep < max_med) max_med = max_rep;
    lregion = ((size_t)a2a / 4 + 1) * LPIECE;
    mp_attach((uintptr_t)((n * lregion + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE));
    my_base = gex_Segment_QueryAddr(mp_seg);
    owner_base = calloc(n, sizeof *owner_base);
    a_next = calloc(n, sizeof *a_next);
    b_next = calloc(n, sizeof *b_next);
    b_rep_next = calloc(n, sizeof *b_rep_next);
    c_next = calloc(n, sizeof *c_next);
    c_rep_next = calloc(n, sizeof *c_rep_next);
    c_rep_buf = malloc(max_med);
    char *buf = malloc(max_med > 4000 ? max_med : 4000);
    CHECK(owner_base && a_next && b_next && b_rep_next && c_next && c_rep_next && c_rep_buf && buf);
    for (gex_Rank_t r = 0; r < n; r++) {
        void *owner = NULL;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &owner, NULL, NULL, 0));
        owner_base[r] = owner;
    }
    struct timespec t0, t1;

    /* ---- A: flood into a rank that is busy inside a handler ---- */
    mp_phase("A: busy handler");
    mp_barrier();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (me != 0) {
        for (unsigned s = 0; s < flood_a; s++)
            send_med(0, H_A, s % 2, buf, 1000 + (size_t)(s % 7) * 300, 100 + me, s, 0);
    } else if (n > 1) {
        MP_POLL_UNTIL(atomic_load(&a_count) == (n - 1) * flood_a);
        CHECK(a_slept);
    }
    mp_barrier();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double ta = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    for (int i = 0; i < 100; i++) gasnet_AMPoll();
    CHECK_EQ(atomic_load(&a_count), me == 0 ? (n - 1) * flood_a : 0);
    if (me == 0) for (gex_Rank_t r = 1; r < n; r++) CHECK_EQ(a_next[r], flood_a);

    /* ---- B: flood into a rank that does not poll for a while ---- */
    mp_phase("B: deaf peer");
    const gex_Rank_t deaf = n - 1;
    mp_barrier();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (me == deaf) {
        sleep_ms(400);   /* no poll at all: every sender's ring to us fills */
        MP_POLL_UNTIL(atomic_load(&b_count) == (n - 1) * flood_b);
    } else {
        for (unsigned s = 0; s < flood_b; s++)
            send_med(deaf, H_B_REQ, s % 3 == 1, buf, s % 500, 200 + me, s, 0);
        MP_POLL_UNTIL(atomic_load(&b_replies) == flood_b);
    }
    mp_barrier();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double tb = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    for (int i = 0; i < 100; i++) gasnet_AMPoll();
    CHECK_EQ(atomic_load(&b_count), me == deaf ? (n - 1) * flood_b : 0);
    CHECK_EQ(atomic_load(&b_replies), me == deaf ? 0 : flood_b);

    /* ---- C: all-to-all, every handler replies ---- */
    mp_phase("C: all-to-all");
    mp_barrier();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned s = 0; s < a2a; s++) {
        for (gex_Rank_t i = 0; i < n; i++) {
            const gex_Rank_t r = (me + i + s) % n;
            const unsigned kind = s % 4;
            if (kind == 3) {   /* a small Long to its own place at r */
                const size_t nb = s % LPIECE;
                mp_fill(buf, nb, 400 + me, s);
                CHECK_OK(gex_AM_RequestLong2(mp_tm, r, H_C_LREQ, buf, nb,
                                             owner_base[r] + c_long_off(me, s), GEX_EVENT_NOW,
                                             0, (gex_AM_Arg_t)s, 0));
            } else if (kind == 2) {   /* negotiated payload, client buffer */
                const size_t nb = c_req_size(s);
                mp_fill(buf, nb, 400 + me, s);
                gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(mp_tm, r, buf, nb, nb,
                                                                  GEX_EVENT_NOW, 0, 2);
                CHECK(sd != GEX_AM_SRCDESC_NO_OP);
                gex_AM_CommitRequestMedium2(sd, H_C_REQ, nb, (gex_AM_Arg_t)s, 0);
            } else {
                send_med(r, H_C_REQ, kind == 1, buf, c_req_size(s), 400 + me, s, 0);
            }
        }
    }
    MP_POLL_UNTIL(atomic_load(&c_replies) == n * a2a);
    MP_POLL_UNTIL(atomic_load(&c_count) == n * a2a);
    mp_barrier();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double tc = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    for (int i = 0; i < 100; i++) gasnet_AMPoll();
    CHECK_EQ(atomic_load(&c_count), n * a2a);
    CHECK_EQ(atomic_load(&c_replies), n * a2a);
    for (gex_Rank_t r = 0; r < n; r++) {
        CHECK_EQ(c_next[r], a2a);
        CHECK_EQ(c_rep_next[r], a2a);
    }

    free(buf);
    mp_finish("A %u x %u Mediums into a handler busy 300 ms (%.2f s); B %u x %u Request/Reply "
              "pairs into a peer deaf for 400 ms (%.2f s); C %u x %u x %u all-to-all with "
              "replies, MaxMedium %zu (%.2f s)",
              (unsigned)(n - 1), flood_a, ta, (unsigned)(n - 1), flood_b, tb, (unsigned)n,
              (unsigned)n, a2a, max_med, tc);
}
