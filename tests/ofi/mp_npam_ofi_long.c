/*
 * mp_npam_ofi_long.c: negotiated-payload AM Longs on the ofi conduit
 * (conduits/ofi/ofi_np.c, GEX_CONDUIT_CAP_NPAM_LONG): a library-buffer Long
 * of at most one message (MaxLongReply bytes) is prepared in a send buffer
 * and committed as a one-message Long; client buffers and anything bigger
 * go to libgex-am's reference path.  Checked on whichever path is bound
 * (gex-info "np_long=ofi", or "reference" under GEX_FORCE_REFERENCE=am):
 *
 *  1. Sweep: Requests to every rank (self included) and their Replies, for
 *     sizes across the send buffer (most > 512, so not libgex-am's small
 *     path, and a few small ones under IMMEDIATE), 0, 3 and 16 arguments
 *     (payload offsets 48, 64, 112 in the message), dest_addr at Prepare or
 *     only at Commit, shorter Commits, Commit_v2, a Cancel first.  The
 *     buffer is 16-byte aligned and SrcDescSize is min(most, MaxLongReply);
 *     the handler finds the payload and args at its dest_addr and the bytes
 *     past nbytes untouched (a prepared send buffer is not the destination:
 *     what the client wrote past nbytes, or before a Cancel, never lands).
 *     Client buffers, of one message and of several (Requests), take the
 *     reference path and arrive alike.
 *  2. IMMEDIATE against a sleeping peer: even ranks send N Longs with
 *     IMMEDIATE Prepares (and IMMEDIATE Commit_v2s) to an odd rank that does
 *     not poll for a while; once the credit window is used up the conduit's
 *     Prepare refuses (NO_OP, no side effects).  Each message arrives exactly
 *     once with its payload; nothing else arrives.  (With the sockets provider
 *     a send completes only once the receiver reads, so the refusal is a race
 *     there and only counted.)
 *  3. Cancel gives the credit and the send buffer back: many IMMEDIATE
 *     Prepare/Cancel pairs to a peer in a row, no poll, never refused (and
 *     Medium library buffers, 0..16 args, are 16-byte aligned as well).
 * Run by tests/ofi/mp_npam_ofi_long_*.mpt (GEX_CONDUIT=ofi).
 */
#include "../mp/mp_util.h"

#include <time.h>

extern const char *gexi_describe_layers(void);

enum { H_REQ = MP_H_FIRST_FREE, H_REP = H_REQ + 3, H_IMM = H_REP + 3 };
static const unsigned nargs_of[3] = { 0, 3, 16 };

static gex_Rank_t me, n;
static size_t chunk;        /* MaxLongReply: one message */
static size_t slot;         /* bytes per landing slot */
static char *my_base;
static void **owner_base;
static int native;          /* np_long=ofi */
static const unsigned char GUARD = 0x5a;

/* Landing slots in every rank's segment: [s] Requests from rank s, [n]
 * the Replies to this rank's Requests. */
static atomic_uint got_req, got_rep, got_imm;
static uint32_t cur_seq;          /* pattern number of the Request in flight */
static size_t alloc;              /* LEAST_ALLOC maximum (the reference buffer) */

static void check_guard(const char *p, size_t len)
{
    for (size_t j = 0; j < len; j++)
        CHECK_MSG((unsigned char)p[j] == GUARD, "byte %zu past the payload changed to 0x%02x", j,
                  (unsigned char)p[j]);
}

/* One negotiated-payload Long of `nb` bytes (library buffer unless client
 * is given) with `most`, to rank r (Request) or on token t (Reply). */
static void np_long(int is_req, gex_Token_t t, gex_Rank_t r, void *dest, size_t least,
                    size_t most, size_t nb, unsigned ki, uint32_t seq, int hint, int cancel_first,
                    int v2, gex_Flags_t pfl, char *client)
{
    const unsigned nargs = nargs_of[ki];
    gex_Event_t *lcp = client ? GEX_EVENT_NOW : NULL;
    if (cancel_first) {
        gex_AM_SrcDesc_t sd0 = is_req
            ? gex_AM_PrepareRequestLong(mp_tm, r, client, least, most, hint ? dest : NULL, lcp,
                                        0, nargs)
            : gex_AM_PrepareReplyLong(t, client, least, most, hint ? dest : NULL, lcp, 0, nargs);
        CHECK(sd0 != GEX_AM_SRCDESC_NO_OP);
        if (!client) memset(gex_AM_SrcDescAddr(sd0), 0xee, gex_AM_SrcDescSize(sd0));
        CHECK_OK(is_req ? gex_AM_CancelRequestLong(sd0, 0) : gex_AM_CancelReplyLong(sd0, 0));
    }
    gex_AM_SrcDesc_t sd = GEX_AM_SRCDESC_NO_OP;
    while (sd == GEX_AM_SRCDESC_NO_OP) {
        sd = is_req ? gex_AM_PrepareRequestLong(mp_tm, r, client, least, most, hint ? dest : NULL,
                                                lcp, pfl, nargs)
                    : gex_AM_PrepareReplyLong(t, client, least, most, hint ? dest : NULL, lcp, pfl,
                                              nargs);
        if (sd == GEX_AM_SRCDESC_NO_OP) {
            CHECK(pfl & GEX_FLAG_IMMEDIATE);
            pfl = 0;   /* one refusal is enough here (phase 2 counts them) */
        }
    }
    char *buf = gex_AM_SrcDescAddr(sd);
    const size_t size = gex_AM_SrcDescSize(sd);
    CHECK_MSG(size >= least && size <= most, "SrcDescSize %zu outside [%zu, %zu]", size, least,
              most);
    if (client) {
        CHECK_PTR_EQ(buf, client);
    } else {
        CHECK_MSG(((uintptr_t)buf & 15) == 0, "library buffer %p not 16-byte aligned",
                  (void *)buf);
        if (native) {
            const size_t want = most < chunk ? most : chunk;
            CHECK_MSG(size == want, "SrcDescSize %zu, want min(most %zu, MaxLongReply %zu)",
                      size, most, chunk);
        }
    }
    CHECK(nb <= size);
    /* the whole offer is written: what lies past nb must never land */
    if (!client) memset(buf + nb, 0xee, size - nb);
    mp_fill(buf, nb, is_req ? 100 + me : 200 + me, seq);
    gex_AM_Arg_t a[16];
    for (unsigned j = 0; j < nargs; j++) a[j] = (gex_AM_Arg_t)(seq * 31u + j);
    const gex_AM_Index_t h = (gex_AM_Index_t)((is_req ? H_REQ : H_REP) + ki);
    if (v2) {
#define V2(FL, M, ...) \
    (is_req ? gex_AM_CommitRequestLong##M##_v2(sd, h, nb, dest, FL, ##__VA_ARGS__) \
            : gex_AM_CommitReplyLong##M##_v2(sd, h, nb, dest, FL, ##__VA_ARGS__))
#define V2K(FL) (ki == 0 ? V2(FL, 0) : ki == 1 ? V2(FL, 3, a[0], a[1], a[2]) \
                 : V2(FL, 16, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], \
                      a[10], a[11], a[12], a[13], a[14], a[15]))
        /* bounded IMMEDIATE retries (no poll in between), then a blocking Commit */
        unsigned refused = 0;
        int rc;
        while ((rc = V2K(GEX_FLAG_IMMEDIATE)) != 0 && ++refused < 1000) sched_yield();
        if (rc) rc = V2K(0);
#undef V2K
#undef V2
        CHECK_EQ(rc, 0);
    } else if (is_req) {
        if (ki == 0) gex_AM_CommitRequestLong0(sd, h, nb, dest);
        else if (ki == 1) gex_AM_CommitRequestLong3(sd, h, nb, dest, a[0], a[1], a[2]);
        else gex_AM_CommitRequestLong16(sd, h, nb, dest, a[0], a[1], a[2], a[3], a[4], a[5],
                                        a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
                                        a[14], a[15]);
    } else {
        if (ki == 0) gex_AM_CommitReplyLong0(sd, h, nb, dest);
        else if (ki == 1) gex_AM_CommitReplyLong3(sd, h, nb, dest, a[0], a[1], a[2]);
        else gex_AM_CommitReplyLong16(sd, h, nb, dest, a[0], a[1], a[2], a[3], a[4], a[5], a[6],
                                      a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
    }
    if (client) memset(client, 0xdd, nb);   /* ours again on return */
}

static void on_long(gex_Token_t t, void *buf, size_t nb, unsigned ki, int is_req,
                    const gex_AM_Arg_t *a)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    const gex_Rank_t s = info.gex_srcrank;
    char *want = is_req ? my_base + (size_t)s * slot : my_base + (size_t)n * slot;
    CHECK_PTR_EQ(buf, want);
    /* the pattern number: arg j is k * 31 + j; a 0-arg Request's k is its
     * nbytes (unique per case); a Reply's is its Request's */
    const uint32_t k = !is_req ? cur_seq : nargs_of[ki] ? (uint32_t)a[0] / 31u : (uint32_t)nb;
    for (unsigned j = 0; j < nargs_of[ki]; j++) CHECK_EQ(a[j], (gex_AM_Arg_t)(k * 31u + j));
    CHECK_PATTERN(buf, nb, is_req ? 100 + s : 200 + s, k);
    check_guard((char *)buf + nb, 64);
    memset(buf, GUARD, nb);
    if (!is_req) {
        atomic_fetch_add(&got_rep, 1);
        return;
    }
    atomic_fetch_add(&got_req, 1);
    /* Reply: half the Request (at most the library buffer), same args;
     * dest_addr at Prepare for even sizes, only at Commit for odd ones */
    const size_t rn = nb / 2 < alloc ? nb / 2 : alloc;
    np_long(0, t, s, owner_base[s] + (size_t)n * slot, rn, chunk, rn, ki, k, (nb & 1) == 0,
            (nb % 3) == 0, (nb % 5) == 0, 0, NULL);
}

#define HL(name, K, isreq, ...) \
    static void name(gex_Token_t t, void *buf, size_t nb, ##__VA_ARGS__)
HL(hreq0, 0, 1) { on_long(t, buf, nb, 0, 1, NULL); }
HL(hrep0, 0, 0) { on_long(t, buf, nb, 0, 0, NULL); }
HL(hreq3, 3, 1, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2)
{
    const gex_AM_Arg_t a[3] = { a0, a1, a2 };
    on_long(t, buf, nb, 1, 1, a);
}
HL(hrep3, 3, 0, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2)
{
    const gex_AM_Arg_t a[3] = { a0, a1, a2 };
    on_long(t, buf, nb, 1, 0, a);
}
#define A16 gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, \
    gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9, \
    gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13, gex_AM_Arg_t a14, \
    gex_AM_Arg_t a15
#define V16 { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 }
HL(hreq16, 16, 1, A16)
{
    const gex_AM_Arg_t a[16] = V16;
    on_long(t, buf, nb, 2, 1, a);
}
HL(hrep16, 16, 0, A16)
{
    const gex_AM_Arg_t a[16] = V16;
    on_long(t, buf, nb, 2, 0, a);
}

/* ---- Phase 2 ---- */

#define IMM_N 120
#define IMM_STRIDE 2048
static size_t imm_off;              /* where the IMMEDIATE area starts in the segment */
static size_t imm_sz = 2000;        /* at most the LEAST_ALLOC maximum */
static uint8_t seen[IMM_N];

static void h_imm(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    CHECK(seq >= 0 && seq < IMM_N);
    CHECK_EQ(nb, imm_sz);
    CHECK_PTR_EQ(buf, my_base + imm_off + (size_t)seq * IMM_STRIDE);
    CHECK_PATTERN(buf, nb, 300 + info.gex_srcrank, (uint32_t)seq);
    check_guard((char *)buf + nb, IMM_STRIDE - imm_sz);
    CHECK_MSG(!seen[seq], "IMMEDIATE Long %d arrived twice", (int)seq);
    seen[seq] = 1;
    atomic_fetch_add(&got_imm, 1);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "NPLONG", 0);
    me = mp_me;
    n = mp_n;
    const char *slack_s = getenv("GEX_TEST_TIME_SLACK");
    double slack = slack_s && *slack_s ? atof(slack_s) : 1;
    if (!(slack >= 1 && slack <= 100)) slack = 1;
    mp_watchdog(120);   /* times GEX_TEST_TIME_SLACK */
    gex_AM_Entry_t h[] = {
        { H_REQ + 0, (gex_AM_Fn_t)hreq0, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 0, NULL, "req0" },
        { H_REQ + 1, (gex_AM_Fn_t)hreq3, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 3, NULL, "req3" },
        { H_REQ + 2, (gex_AM_Fn_t)hreq16, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 16, NULL,
          "req16" },
        { H_REP + 0, (gex_AM_Fn_t)hrep0, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 0, NULL, "rep0" },
        { H_REP + 1, (gex_AM_Fn_t)hrep3, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 3, NULL, "rep3" },
        { H_REP + 2, (gex_AM_Fn_t)hrep16, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 16, NULL, "rep16" },
        { H_IMM, (gex_AM_Fn_t)h_imm, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "imm" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));

    /* ---- Phase 0: what is bound ---- */
    const char *layers = gexi_describe_layers();
    native = strstr(layers, "np_long=ofi") != NULL;
    const char *fr = getenv("GEX_FORCE_REFERENCE");
    if (fr && strstr(fr, "am")) CHECK_MSG(!native, "GEX_FORCE_REFERENCE=am, yet %s", layers);
    else CHECK_MSG(native, "the ofi conduit's NP Longs are not bound: %s", layers);
    chunk = gex_AM_MaxReplyLong(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16);
    const size_t max_req = gex_AM_MaxRequestLong(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16);
    CHECK(chunk >= 512 && max_req >= chunk);
    alloc = gex_AM_MaxRequestLong(mp_tm, GEX_RANK_INVALID, NULL,
                                               GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 16);
    CHECK(alloc >= 512 && alloc <= chunk);   /* the reference buffer: at most one message */
    if (imm_sz > alloc) imm_sz = alloc;
    size_t big = 3 * chunk + 100;            /* client-buffer Requests in pieces */
    if (big > max_req) big = max_req;
    slot = (big + 64 + 4095) & ~(size_t)4095;

    imm_off = (size_t)(n + 1) * slot;
    mp_attach((uintptr_t)(imm_off + (size_t)IMM_N * IMM_STRIDE));
    my_base = gex_Segment_QueryAddr(mp_seg);
    memset(my_base, GUARD, imm_off + (size_t)IMM_N * IMM_STRIDE);
    owner_base = calloc(n, sizeof *owner_base);
    char *client = malloc(big);
    CHECK(owner_base && client);
    for (gex_Rank_t r = 0; r < n; r++) {
        void *owner = NULL;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &owner, NULL, NULL, 0));
        owner_base[r] = owner;
    }
    mp_barrier();   /* every segment is guarded */

    /* ---- Phase 1: sweep ---- */
    mp_phase("sweep");
    const size_t sizes[] = { 513, 1000, 4096, 100, 8, chunk - 24, chunk, 0 };
    const size_t nsz = sizeof sizes / sizeof sizes[0];
    unsigned long trips = 0, cases = 0;
    for (unsigned ci = 0; ci < 3 * nsz * 4; ci++, cases++) {
        const unsigned ki = ci % 3, v = (ci / 3) % 4;
        size_t sz = sizes[(ci / 12) % nsz];
        if (sz > chunk) sz = chunk;
        const int imm = sz <= 512 || v == 2;   /* small sizes: past libgex-am's small path */
        size_t least = sz, most = sz, nb = sz;
        if (v == 1) most = (size_t)-1, nb = sz;                 /* most far above: chunk offered */
        if (v == 3 && sz > 13) nb = sz - 13;                    /* shorter Commit */
        /* a 0-arg Request names its pattern by its nbytes: vary it */
        if (ki == 0) nb = nb > 64 ? nb - (ci % 64) : nb;
        if (nb < 2) nb = 2 + ci % 7;
        if (least > nb) least = nb;
        if (most < nb) most = nb;
        for (gex_Rank_t i = 1; i <= n; i++) {
            const gex_Rank_t r = (me + i) % n;   /* self last */
            const unsigned rep0 = atomic_load(&got_rep);
            cur_seq = ki ? ci : (uint32_t)nb;
            np_long(1, NULL, r, (char *)owner_base[r] + (size_t)me * slot, least, most, nb, ki,
                    ki ? ci : (uint32_t)nb, (int)(ci & 1), ci % 5 == 1, ci % 3 == 2,
                    imm ? GEX_FLAG_IMMEDIATE : 0, NULL);
            MP_POLL_UNTIL(atomic_load(&got_rep) == rep0 + 1);
            trips++;
        }
    }
    /* client buffers: one message and several (reference path) */
    const size_t csz[] = { 600, chunk, big };
    for (unsigned ci = 0; ci < 3; ci++) {
        for (gex_Rank_t i = 1; i <= n; i++) {
            const gex_Rank_t r = (me + i) % n;
            const unsigned rep0 = atomic_load(&got_rep);
            cur_seq = 1000 + ci;
            np_long(1, NULL, r, (char *)owner_base[r] + (size_t)me * slot, csz[ci], csz[ci],
                    csz[ci], 1, 1000 + ci, (int)(ci & 1), 0, ci == 1, 0, client);
            MP_POLL_UNTIL(atomic_load(&got_rep) == rep0 + 1);
            trips++;
        }
    }
    mp_barrier();
    CHECK_EQ(atomic_load(&got_req), (unsigned)(trips));   /* every rank sent as many */

    /* ---- Phase 2: IMMEDIATE against a sleeping peer ---- */
    mp_phase("IMMEDIATE vs sleeping peer");
    const int sender = me % 2 == 0 && me + 1 < n, sleeper = me % 2 == 1;
    unsigned long noop_prep = 0, noop_commit = 0;
    mp_barrier();
    if (sender) {
        const gex_Rank_t peer = me + 1;
        char *pdest = (char *)owner_base[peer] + imm_off;
        for (unsigned s = 0; s < IMM_N; s++) {
            unsigned tries = 0;
            gex_AM_SrcDesc_t sd;
            for (;;) {
                const gex_Flags_t fl = tries < 200000 ? GEX_FLAG_IMMEDIATE : 0;
                sd = gex_AM_PrepareRequestLong(mp_tm, peer, NULL, imm_sz, imm_sz,
                                               pdest + (size_t)s * IMM_STRIDE, NULL, fl, 1);
                if (sd != GEX_AM_SRCDESC_NO_OP) break;
                noop_prep++;
                tries++;
                gasnet_AMPoll();
            }
            CHECK_EQ(gex_AM_SrcDescSize(sd), imm_sz);
            mp_fill(gex_AM_SrcDescAddr(sd), imm_sz, 300 + me, s);
            unsigned refused = 0;
            while (refused < 1000 &&
                   gex_AM_CommitRequestLong1_v2(sd, H_IMM, imm_sz, pdest + (size_t)s * IMM_STRIDE,
                                                GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)s)) {
                noop_commit++;
                refused++;
                sched_yield();
            }
            if (refused == 1000)
                CHECK_EQ(gex_AM_CommitRequestLong1_v2(sd, H_IMM, imm_sz,
                                                      pdest + (size_t)s * IMM_STRIDE, 0,
                                                      (gex_AM_Arg_t)s), 0);
        }
        /* The window was used up while the peer slept: something was
         * refused.  Not asserted with the sockets provider, whose sends
         * complete only once the receiver reads its queue: there the
         * sender blocks inside a Commit until the sleeper wakes, and a
         * refusal then depends on how that race goes. */
        const char *prov = getenv("FI_PROVIDER");
        if (!prov || !strstr(prov, "sockets")) {
            CHECK_MSG(noop_prep + noop_commit > 0, "no IMMEDIATE refusal against a sleeping peer");
            if (native) CHECK_MSG(noop_prep > 0, "the conduit's Prepare never refused");
        }
    } else if (sleeper) {
        const struct timespec nap = { 0, (long)(500e6 * (slack > 1.9 ? 1.9 : slack)) };
        nanosleep(&nap, NULL);   /* no poll: the sender's credits run out */
        MP_POLL_UNTIL(atomic_load(&got_imm) == IMM_N);
    }
    mp_barrier();
    for (int i = 0; i < 200; i++) gasnet_AMPoll();
    if (sleeper) {
        CHECK_EQ(atomic_load(&got_imm), (unsigned)IMM_N);
        for (unsigned s = 0; s < IMM_N; s++) CHECK(seen[s]);
    } else {
        CHECK_EQ(atomic_load(&got_imm), 0u);
    }

    /* ---- Phase 3: Cancel returns what the Prepare took ---- */
    mp_phase("Cancel returns credit and buffer");
    if (n > 1) {
        const gex_Rank_t peer = (me + 1) % n;
        for (unsigned k = 0; k < 500; k++) {
            gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestLong(
                mp_tm, peer, NULL, 1024, 4096, (char *)owner_base[peer] + (size_t)me * slot, NULL,
                GEX_FLAG_IMMEDIATE, 2);
            CHECK_MSG(sd != GEX_AM_SRCDESC_NO_OP, "IMMEDIATE Prepare #%u refused after Cancels", k);
            memset(gex_AM_SrcDescAddr(sd), 0xee, gex_AM_SrcDescSize(sd));
            CHECK_OK(gex_AM_CancelRequestLong(sd, 0));
            /* the conduit's Medium buffers are aligned for any type too */
            sd = gex_AM_PrepareRequestMedium(mp_tm, peer, NULL, 600, 600, NULL,
                                             GEX_FLAG_IMMEDIATE, k % 17);
            CHECK_MSG(sd != GEX_AM_SRCDESC_NO_OP, "IMMEDIATE Medium Prepare #%u refused", k);
            CHECK_MSG(((uintptr_t)gex_AM_SrcDescAddr(sd) & 15) == 0,
                      "Medium buffer %p (%u args) not 16-byte aligned", gex_AM_SrcDescAddr(sd),
                      k % 17);
            CHECK_OK(gex_AM_CancelRequestMedium(sd, 0));
        }
    }
    mp_barrier();
    for (int i = 0; i < 200; i++) gasnet_AMPoll();
    CHECK_EQ(atomic_load(&got_req), (unsigned)trips);   /* a Cancel sent nothing */
    check_guard(my_base, (size_t)(n + 1) * slot);       /* every slot back to the guard */
    mp_finish("%s path: %lu round trips (%lu cases), IMMEDIATE refusals prepare/commit %lu/%lu",
              native ? "ofi" : "reference", trips, cases, noop_prep, noop_commit);
}
