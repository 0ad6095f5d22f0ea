/*
 * mp_npam_inline.c: the inline Prepare of small negotiated-payload AMs
 * (gex/ext.h; docs/am.md, "Inline Prepare").  Checks, at 1, 2 and 4 ranks:
 *   - which Prepares the inline path serves: a library buffer with
 *     most_payload up to the limits gex-info reports as np_inline=M/L (0:
 *     off), and no others (the descriptor's state byte says who prepared it);
 *   - all-to-all integrity (oneself included) of Requests prepared inline
 *     and through the exported function, [M] = 2, 3, 8 and 16, shorter
 *     Commits, Replies prepared inline in the handlers, Cancels of both:
 *     every payload and argument checked, exact counts of everything;
 *   - the same for Longs into the peers' segments (oneself included),
 *     dest_addr given at the Prepare or only at the Commit, Long Replies;
 *   - Commit_v2 with GEX_FLAG_IMMEDIATE against a peer that sleeps: a
 *     refusal leaves the descriptor prepared and unchanged, and every
 *     message arrives exactly once.
 */
#include "mp_util.h"

extern const char *gexi_describe_layers(void);   /* libgex-core: gex-info's layer line */

#define H_REP (MP_H_FIRST_FREE + 0)
#define H_IMM (MP_H_FIRST_FREE + 1)
#define H_LREQ (MP_H_FIRST_FREE + 2)
#define H_LREP (MP_H_FIRST_FREE + 3)
#define H_REQ (MP_H_FIRST_FREE + 4)   /* + 0..3: [M] = 2, 3, 8, 16 */

enum { N_PER_PEER = 600, IMM_N = 3000, IMM_SIZE = 448 };
static const size_t sizes[] = { 0, 1, 7, 8, 63, 64, 65, 255, 256, 300, 511, 512, 513, 700, 1024 };
#define N_SIZES (sizeof sizes / sizeof sizes[0])

static size_t inline_max;          /* np_inline=M/L from gex-info's layer line; 0: off */
static size_t inline_max_long;
static unsigned char *req_seen;    /* [src * N_PER_PEER + seq] */
static unsigned char *rep_seen;    /* [dst * N_PER_PEER + seq] */
static atomic_ulong n_req, n_rep, n_imm, n_inline_rep, n_rep_cancel;

/* Who prepared sd: 3 the inline Prepare of ext.h, 1 libgex-am. */
static unsigned sd_state(gex_AM_SrcDesc_t sd)
{
#ifdef GEXI_AM_SD_INLINE
    return ((const struct gexi_am_sd_public *)sd)->key & 0xffu;
#else
    (void)sd;
    return 1;   /* compiled without the inline Prepare */
#endif
}

static size_t size_of(gex_Rank_t src, unsigned seq)
{
    return sizes[mp_hash32(src * 7919u + seq) % N_SIZES];
}

static gex_AM_Arg_t arg_of(unsigned seq, unsigned i) { return (gex_AM_Arg_t)(seq * 31u + i * 7u); }

/* Checks that a Prepare of least..most bytes (library buffer) took the path
 * it should: inline exactly when most is within the limit, and then with
 * SrcDescSize = most; the library's paths may offer less (the smp ring:
 * what fits now), never below least. */
static void check_prepared_cat(gex_AM_SrcDesc_t sd, size_t least, size_t most, int via_function,
                               int is_long)
{
    const size_t lim = is_long ? inline_max_long : inline_max;
    CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    CHECK(((uintptr_t)gex_AM_SrcDescAddr(sd) & 15u) == 0);
    const unsigned want = !via_function && lim && most <= lim ? 3u : 1u;
    const size_t size = gex_AM_SrcDescSize(sd);
    if (want == 3u) CHECK_EQ(size, most);
    else CHECK_MSG(size >= least && (is_long || size <= most), "size %zu, least %zu, most %zu",
                   size, least, most);   /* a zero-copy Long offers min(most, MaxLong) */
    CHECK_MSG(sd_state(sd) == want, "%s most %zu: state %u, expected %u (np_inline=%zu/%zu)",
              is_long ? "Long" : "Medium", most, sd_state(sd), want, inline_max, inline_max_long);
}
static void check_prepared(gex_AM_SrcDesc_t sd, size_t least, size_t most, int via_function)
{
    check_prepared_cat(sd, least, most, via_function, 0);
}

/* The Request handlers, one per [M] the sweep uses: a[0] the sequence
 * number, a[1] = M, a[i] = arg_of(seq, i). */
static const unsigned req_nargs[] = { 2, 3, 8, 16 };
static void req_common(gex_Token_t t, const void *buf, size_t nb, const gex_AM_Arg_t *a,
                       unsigned nargs)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    const unsigned seq = a[0];
    CHECK(seq < N_PER_PEER && (unsigned)a[1] == nargs);
    for (unsigned i = 2; i < nargs; i++) CHECK_EQ(a[i], arg_of(seq, i));
    const size_t want = size_of(info.gex_srcrank, seq);
    CHECK_EQ(nb, want);
    CHECK_PATTERN(buf, nb, info.gex_srcrank, seq);
    unsigned char *seen = &req_seen[info.gex_srcrank * N_PER_PEER + seq];
    CHECK_MSG(*seen == 0, "Request %u from rank %u arrived twice", (unsigned)seq,
              (unsigned)info.gex_srcrank);
    *seen = 1;
    atomic_fetch_add(&n_req, 1);
    /* the Reply: prepared inline (unless too large), one in five cancelled */
    const size_t rn = size_of(mp_me + 1000u, seq), most = rn + (seq % 2 ? 24 : 0);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, rn, most, NULL, 0, 1);
    check_prepared(sd, rn, most, 0);
    if (seq % 5 == 4) {
        CHECK_OK(gex_AM_CancelReplyMedium(sd, 0));
        atomic_fetch_add(&n_rep_cancel, 1);
        return;
    }
    if (sd_state(sd) == 3) atomic_fetch_add(&n_inline_rep, 1);
    mp_fill(gex_AM_SrcDescAddr(sd), rn, mp_me + 1000u, seq);
    gex_AM_CommitReplyMedium1(sd, H_REP, rn, seq);
}
#define A2 gex_AM_Arg_t a0, gex_AM_Arg_t a1
#define A3 A2, gex_AM_Arg_t a2
#define A8 A3, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7
#define A16 A8, gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, \
    gex_AM_Arg_t a12, gex_AM_Arg_t a13, gex_AM_Arg_t a14, gex_AM_Arg_t a15
static void h_req2(gex_Token_t t, void *buf, size_t nb, A2)
{
    const gex_AM_Arg_t a[] = { a0, a1 };
    req_common(t, buf, nb, a, 2);
}
static void h_req3(gex_Token_t t, void *buf, size_t nb, A3)
{
    const gex_AM_Arg_t a[] = { a0, a1, a2 };
    req_common(t, buf, nb, a, 3);
}
static void h_req8(gex_Token_t t, void *buf, size_t nb, A8)
{
    const gex_AM_Arg_t a[] = { a0, a1, a2, a3, a4, a5, a6, a7 };
    req_common(t, buf, nb, a, 8);
}
static void h_req16(gex_Token_t t, void *buf, size_t nb, A16)
{
    const gex_AM_Arg_t a[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14,
                               a15 };
    req_common(t, buf, nb, a, 16);
}

static void h_rep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    CHECK(seq < N_PER_PEER && seq % 5 != 4);
    CHECK_EQ(nb, size_of(info.gex_srcrank + 1000u, seq));
    CHECK_PATTERN(buf, nb, info.gex_srcrank + 1000u, seq);
    unsigned char *seen = &rep_seen[info.gex_srcrank * N_PER_PEER + seq];
    CHECK(*seen == 0);
    *seen = 1;
    atomic_fetch_add(&n_rep, 1);
}

/* ---- Longs: rank s's k-th Request lands at slot s * L_N + k of the
 * target's request area, its Reply at slot (replier * L_N + k) of the
 * requester's reply area ---- */
enum { L_N = 120, L_SLOT = 1024 };
static char **seg_of;              /* every rank's segment, as mapped (or named) here */
static unsigned char *lreq_seen, *lrep_seen;
static atomic_ulong n_lreq, n_lrep, n_inline_lrep;
#define L_REQ_AREA(r) (seg_of[r])
#define L_REP_AREA(r) (seg_of[r] + (size_t)mp_n * L_N * L_SLOT)
static size_t lsize_of(gex_Rank_t src, unsigned k)
{
    static const size_t ls[] = { 0, 1, 8, 64, 100, 256, 511, 512, 513, 1000 };
    return ls[mp_hash32(src * 104729u + k) % (sizeof ls / sizeof ls[0])];
}

static void h_lreq(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t tag)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    const gex_Rank_t src = info.gex_srcrank;
    CHECK(k < L_N && (unsigned)tag == 0x10u + k);
    CHECK_PTR_EQ(buf, (void *)(L_REQ_AREA(mp_me) + ((size_t)src * L_N + k) * L_SLOT));
    CHECK_EQ(nb, lsize_of(src, k));
    CHECK_PATTERN(buf, nb, 3000u + src, k);
    unsigned char *seen = &lreq_seen[src * L_N + k];
    CHECK(*seen == 0);
    *seen = 1;
    atomic_fetch_add(&n_lreq, 1);
    /* the Reply: into the requester's reply area; one in four cancelled */
    const size_t rn = lsize_of(mp_me + 500u, k);
    char *dest = L_REP_AREA(src) + ((size_t)mp_me * L_N + k) * L_SLOT;
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyLong(t, NULL, rn, rn, k % 2 ? dest : NULL, NULL, 0, 1);
    check_prepared_cat(sd, rn, rn, 0, 1);
    if (k % 4 == 3) {
        CHECK_OK(gex_AM_CancelReplyLong(sd, 0));
        return;
    }
    if (sd_state(sd) == 3) atomic_fetch_add(&n_inline_lrep, 1);
    mp_fill(gex_AM_SrcDescAddr(sd), rn, 4000u + mp_me, k);
    gex_AM_CommitReplyLong1(sd, H_LREP, rn, dest, k);
}

static void h_lrep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t k)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    const gex_Rank_t from = info.gex_srcrank;
    CHECK(k < L_N && k % 4 != 3);
    CHECK_PTR_EQ(buf, (void *)(L_REP_AREA(mp_me) + ((size_t)from * L_N + k) * L_SLOT));
    CHECK_EQ(nb, lsize_of(from + 500u, k));
    CHECK_PATTERN(buf, nb, 4000u + from, k);
    unsigned char *seen = &lrep_seen[from * L_N + k];
    CHECK(*seen == 0);
    *seen = 1;
    atomic_fetch_add(&n_lrep, 1);
}

static void send_long(gex_Rank_t dst, unsigned k)
{
    const size_t n = lsize_of(mp_me, k);
    char *dest = L_REQ_AREA(dst) + ((size_t)mp_me * L_N + k) * L_SLOT;
    const int via_function = k % 5 == 4;
    void *const pdest = k % 3 ? dest : NULL;   /* at the Prepare, or only at the Commit */
    gex_AM_SrcDesc_t sd = via_function
        ? (gex_AM_PrepareRequestLong)(mp_tm, dst, NULL, n, n, pdest, NULL, 0, 2)
        : gex_AM_PrepareRequestLong(mp_tm, dst, NULL, n, n, pdest, NULL, 0, 2);
    check_prepared_cat(sd, n, n, via_function, 1);
    mp_fill(gex_AM_SrcDescAddr(sd), n, 3000u + mp_me, k);
    gex_AM_CommitRequestLong2(sd, H_LREQ, n, dest, k, 0x10 + k);
}

static unsigned char imm_seen[IMM_N];
static void h_imm(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq)
{
    (void)t;
    CHECK(seq < IMM_N && nb == IMM_SIZE);
    CHECK_PATTERN(buf, nb, 77, seq);
    CHECK_MSG(imm_seen[seq] == 0, "IMMEDIATE message %u arrived twice", (unsigned)seq);
    imm_seen[seq] = 1;
    atomic_fetch_add(&n_imm, 1);
}

/* One Request of the sweep: every fourth through the exported function. */
static void send_one(gex_Rank_t dst, unsigned seq)
{
    const size_t n = size_of(mp_me, seq), most = n + (seq % 3 == 0 ? 16 : 0);
    const unsigned k = seq % 4, nargs = req_nargs[k];
    const int via_function = seq % 4 == 3;
    gex_AM_SrcDesc_t sd = via_function
        ? (gex_AM_PrepareRequestMedium)(mp_tm, dst, NULL, n, most, NULL, 0, nargs)
        : gex_AM_PrepareRequestMedium(mp_tm, dst, NULL, n, most, NULL, 0, nargs);
    check_prepared(sd, n, most, via_function);
    if (seq % 7 == 6) {   /* cancelled, then sent again */
        CHECK_OK(gex_AM_CancelRequestMedium(sd, 0));
        sd = gex_AM_PrepareRequestMedium(mp_tm, dst, NULL, n, most, NULL, 0, nargs);
        check_prepared(sd, n, most, 0);
    }
    mp_fill(gex_AM_SrcDescAddr(sd), n, mp_me, seq);
    gex_AM_Arg_t a[16];
    a[0] = seq;
    a[1] = nargs;
    for (unsigned i = 2; i < 16; i++) a[i] = arg_of(seq, i);
    switch (nargs) {   /* the [M] forms; 3 through the counting macro */
    case 2: gex_AM_CommitRequestMedium2(sd, H_REQ + k, n, a[0], a[1]); break;
    case 3: gex_AM_CommitRequestMedium(sd, H_REQ + k, n, a[0], a[1], a[2]); break;
    case 8: gex_AM_CommitRequestMedium8(sd, H_REQ + k, n, a[0], a[1], a[2], a[3], a[4], a[5], a[6],
                                        a[7]); break;
    default: gex_AM_CommitRequestMedium16(sd, H_REQ + k, n, a[0], a[1], a[2], a[3], a[4], a[5],
                                          a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
                                          a[14], a[15]); break;
    }
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_NPAM_INLINE", 0);
    gex_AM_Entry_t h[] = {
        { H_REQ + 0, (gex_AM_Fn_t)h_req2, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "req2" },
        { H_REQ + 1, (gex_AM_Fn_t)h_req3, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3, NULL, "req3" },
        { H_REQ + 2, (gex_AM_Fn_t)h_req8, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 8, NULL, "req8" },
        { H_REQ + 3, (gex_AM_Fn_t)h_req16, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 16, NULL,
          "req16" },
        { H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "rep" },
        { H_IMM, (gex_AM_Fn_t)h_imm, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "imm" },
        { H_LREQ, (gex_AM_Fn_t)h_lreq, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "lreq" },
        { H_LREP, (gex_AM_Fn_t)h_lrep, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 1, NULL, "lrep" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));
    const size_t seg_size = ((size_t)2 * mp_n * L_N * L_SLOT + 4095) & ~(size_t)4095;
    mp_attach(seg_size);
    seg_of = calloc(mp_n, sizeof *seg_of);
    lreq_seen = calloc((size_t)mp_n * L_N, 1);
    lrep_seen = calloc((size_t)mp_n * L_N, 1);
    CHECK(seg_of && lreq_seen && lrep_seen);
    for (gex_Rank_t r = 0; r < mp_n; r++)
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, (void **)&seg_of[r], NULL, NULL, 0));
    const char *layers = gexi_describe_layers();
    const char *ni = layers ? strstr(layers, "np_inline=") : NULL;
    CHECK_MSG(ni && sscanf(ni, "np_inline=%zu/%zu", &inline_max, &inline_max_long) == 2,
              "layers: %s", layers);
    const char *want = getenv("MP_NPAM_INLINE_EXPECT");   /* the .mpt's expectation */
    if (want && *want) {
        CHECK_EQ(inline_max, strtoul(want, NULL, 10));
        CHECK_EQ(inline_max_long, strtoul(want, NULL, 10));
    }
    req_seen = calloc((size_t)mp_n * N_PER_PEER, 1);
    rep_seen = calloc((size_t)mp_n * N_PER_PEER, 1);
    CHECK(req_seen && rep_seen);

    mp_phase("all-to-all");
    unsigned long sent_rep_expect = 0;
    for (unsigned seq = 0; seq < N_PER_PEER; seq++) {
        for (gex_Rank_t k = 0; k < mp_n; k++) send_one((mp_me + k) % mp_n, seq);
        if (seq % 5 != 4) sent_rep_expect += mp_n;
        if (seq % 8 == 7) gasnet_AMPoll();
    }
    MP_POLL_UNTIL(atomic_load(&n_req) == (unsigned long)mp_n * N_PER_PEER &&
                  atomic_load(&n_rep) == sent_rep_expect);
    mp_barrier();
    CHECK_EQ(atomic_load(&n_req), (unsigned long)mp_n * N_PER_PEER);
    CHECK_EQ(atomic_load(&n_rep), sent_rep_expect);
    CHECK_EQ(atomic_load(&n_rep_cancel), (unsigned long)mp_n * (N_PER_PEER / 5));
    if (inline_max) CHECK(atomic_load(&n_inline_rep) > 0);

    /* Longs, all to all */
    mp_phase("longs");
    unsigned long lrep_expect = 0;
    for (unsigned k = 0; k < L_N; k++) {
        for (gex_Rank_t j = 0; j < mp_n; j++) send_long((mp_me + j) % mp_n, k);
        if (k % 4 != 3) lrep_expect += mp_n;
        if (k % 8 == 7) gasnet_AMPoll();
    }
    MP_POLL_UNTIL(atomic_load(&n_lreq) == (unsigned long)mp_n * L_N &&
                  atomic_load(&n_lrep) == lrep_expect);
    mp_barrier();
    CHECK_EQ(atomic_load(&n_lreq), (unsigned long)mp_n * L_N);
    CHECK_EQ(atomic_load(&n_lrep), lrep_expect);
    if (inline_max_long) CHECK(atomic_load(&n_inline_lrep) > 0);

    /* IMMEDIATE Commits of inline-prepared Requests to a sleeping peer */
    mp_phase("immediate");
    unsigned long refused = 0;
    const int sender = mp_me % 2 == 0 && mp_me + 1 < mp_n, sleeper = mp_me % 2 == 1;
    if (sender) {
        for (unsigned seq = 0; seq < IMM_N; seq++) {
            gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(mp_tm, mp_me + 1, NULL, IMM_SIZE,
                                                              IMM_SIZE, NULL, 0, 1);
            check_prepared(sd, IMM_SIZE, IMM_SIZE, 0);
            void *const addr = gex_AM_SrcDescAddr(sd);
            mp_fill(addr, IMM_SIZE, 77, seq);
            unsigned tries = 0;
            while (gex_AM_CommitRequestMedium1_v2(sd, H_IMM, IMM_SIZE, GEX_FLAG_IMMEDIATE, seq)) {
                /* a no-op: still prepared, same buffer and size, same state */
                refused++;
                CHECK_PTR_EQ(gex_AM_SrcDescAddr(sd), addr);
                CHECK_EQ(gex_AM_SrcDescSize(sd), (size_t)IMM_SIZE);
                CHECK_EQ(sd_state(sd), inline_max >= IMM_SIZE ? 3u : 1u);
                if (++tries == 200) {   /* bounded: then a blocking Commit */
                    CHECK_EQ(gex_AM_CommitRequestMedium1_v2(sd, H_IMM, IMM_SIZE, 0, seq), 0);
                    break;
                }
                sched_yield();   /* no poll: nothing may communicate before the Commit */
            }
        }
    } else if (sleeper) {
        /* first 50 ms deaf, so that the ring fills however slowly the
         * sender runs (valgrind, sanitizers), then a poll every 1 ms */
        const struct timespec deaf = { 0, 50000000 }, nap = { 0, 1000000 };
        nanosleep(&deaf, NULL);
        while (atomic_load(&n_imm) < IMM_N) {
            nanosleep(&nap, NULL);
            gasnet_AMPoll();
        }
        for (unsigned s = 0; s < IMM_N; s++) CHECK(imm_seen[s] == 1);
    }
    mp_barrier();
    if (sender) CHECK_MSG(refused > 0, "no IMMEDIATE Commit was refused by a sleeping peer");
    if (sleeper) CHECK_EQ(atomic_load(&n_imm), (unsigned long)IMM_N);
    mp_finish("np_inline=%zu/%zu, %lu Medium and %lu Long Replies prepared inline, %lu IMMEDIATE "
              "refusals", inline_max, inline_max_long, atomic_load(&n_inline_rep),
              atomic_load(&n_inline_lrep), refused);
}
