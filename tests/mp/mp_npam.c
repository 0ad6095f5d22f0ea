/*
 * mp_npam.c: negotiated-payload Active Messages (spec: "Negotiated-payload
 * AM APIs") between every pair of ranks, on whichever path the run binds
 * (the smp conduit's ring slots by default, the reference path under
 * GEX_FORCE_REFERENCE=am; the .mpt files run both).
 *
 *  1. Limits: gex_AM_Max* with GEX_FLAG_AM_PREPARE_LEAST_CLIENT / _ALLOC,
 *     symmetric and at least 512; the bound path (gexi_describe_layers)
 *     agrees with GASNET_NATIVE_NP_ALLOC_* and GEX_FORCE_REFERENCE.
 *  2. Integrity sweep: Medium and Long x Request (and, from each Request
 *     handler, a Reply of the same kind) x client and library buffers x
 *     nargs 0, 2, 16 x (least, most, committed length) cases, to self and
 *     every peer: a commit shorter than the offer, most above the maximum,
 *     least at the LEAST_CLIENT / LEAST_ALLOC maximum, Cancel before the
 *     real Prepare, IMMEDIATE Prepares, Commit and Commit_v2 with the [M]
 *     functions and the M-inferring macros, Long dest_addr given at Prepare
 *     or only at Commit.  Client buffers use every legal lc_opt (Requests:
 *     NOW, an event pointer, GROUP; Replies: NOW, a pointer) and are
 *     overwritten as soon as local completion allows.  Payloads, args,
 *     Long destinations and gex_AM_SrcDescSize are checked, counts exactly.
 *  3. IMMEDIATE against sleeping peers: even ranks send to the next odd
 *     rank, which alternates 2 ms sleeps with one poll.  Fixed-payload
 *     IMMEDIATE Mediums, IMMEDIATE Prepares and Commit*_v2 with IMMEDIATE
 *     are retried after a poll when they report a no-op; every message
 *     must arrive exactly once with its payload, and on the smp ring path
 *     a refused injection must have returned at once (not waited for the
 *     peer).
 *  4. Threads: two threads per rank prepare and commit library-buffer
 *     Requests to every rank at once (descriptors are per thread; the ring
 *     is held from Prepare to Commit); the handler replies with a
 *     negotiated-payload Reply.
 */
#include "mp_util.h"
#include <pthread.h>
#include <stddef.h>
#include <time.h>

/* libgex-core's description of what each layer bound (as gex-info prints) */
extern const char *gexi_describe_layers(void);

enum { CM, CL };   /* category: Medium, Long */
static const char *const cname[2] = { "Medium", "Long" };
static const unsigned nargs_set[3] = { 0, 2, 16 };

/* ---- Handlers: [cat][nargs index][is_req] ---- */
#define H_BASE (MP_H_FIRST_FREE)
static gex_AM_Index_t hidx(int cat, unsigned ki, int is_req)
{
    return (gex_AM_Index_t)(H_BASE + (cat * 3 + ki) * 2 + is_req);
}
#define H_IMM     (H_BASE + 12)
#define H_TH_REQ  (H_BASE + 13)
#define H_TH_REP  (H_BASE + 14)
#define H_ZL      (H_BASE + 15)

/* ---- Segment layout: [0, n*SLOT) requests of sender s at s*SLOT;
 * [n*SLOT, (n+1)*SLOT) replies to this rank ---- */
#define SLOT ((size_t)1 << 20)
static char *my_base;
static char **owner_base;
static gex_Rank_t me, n;
static int reference_path;   /* GEX_FORCE_REFERENCE names am */
static int np_med_native;    /* a conduit's NP Mediums are bound (layers: np_medium=smp|ofi) */
/* smp zero-copy NP Longs (np_long=smp): where each rank's segment is mapped
 * here (NULL: not mapped) and its size */
static int native_long;
static char **local_base;
static uintptr_t *seg_size;
static unsigned long n_direct;
static size_t small_long;   /* GEX_AM_NP_SMALL_LONG in effect (gex-info "np_small=M/L") */
static size_t max_med_req, max_med_rep, max_long_req, max_long_rep;
static size_t alloc_long_req, alloc_long_rep, client_long;

/* ---- The sweep's cases ---- */
struct ncase {
    int cat, lib;        /* library buffer? */
    unsigned ki;         /* nargs index */
    size_t least, most, nb;
    int cancel_first, imm_prepare, v2, macro, dest_at_prepare;
    unsigned lc;         /* client buffer: 0 NOW, 1 pointer, 2 GROUP */
};
#define MAXC 512
static struct ncase cases[MAXC];
static unsigned ncases;

/* size symbols resolved per case */
#define S_MAX  ((size_t)-1)   /* least/most: the LEAST_* maximum of the mode */
#define S_HUGE ((size_t)-2)   /* most: far above any maximum */
#define S_M13  ((size_t)-3)   /* nb: the offered size minus 13 */
#define S_ALL  ((size_t)-4)   /* nb: the whole offer */

static size_t least_max(int cat, int lib, int is_req)
{
    if (cat == CM) return is_req ? max_med_req : max_med_rep;
    if (lib) return is_req ? alloc_long_req : alloc_long_rep;
    return client_long;
}

static void build_cases(void)
{
    static const size_t sz[][3] = {
        { 1, 7, 7 },
        { 0, 64, 0 },
        { 8, 4096, 4000 },
        { 512, S_HUGE, S_M13 },
        { S_MAX, S_MAX, S_ALL },
        { 100, 300, S_ALL },
        /* both sides of the default small-path limit (GEX_AM_NP_SMALL and
         * GEX_AM_NP_SMALL_LONG, 512): a copy below, a ring slot or the
         * mapped destination above */
        { 1, 512, S_ALL },
        { 0, 513, S_ALL },
    };
    unsigned i = 0;
    for (int cat = 0; cat < 2; cat++)
        for (int lib = 0; lib < 2; lib++)
            for (unsigned ki = 0; ki < 3; ki++)
                for (unsigned s = 0; s < sizeof sz / sizeof sz[0]; s++, i++) {
                    struct ncase *c = &cases[ncases++];
                    c->cat = cat;
                    c->lib = lib;
                    c->ki = ki;
                    c->least = sz[s][0];
                    c->most = sz[s][1];
                    c->nb = sz[s][2];
                    c->cancel_first = i % 5 == 1;
                    c->imm_prepare = i % 4 == 2;
                    c->v2 = i % 3 == 0;
                    c->macro = i % 7 >= 4;
                    c->dest_at_prepare = i % 2;
                    c->lc = i % 3;
                }
}

/* resolved sizes of a case for a Request (is_req) or its Reply */
static size_t r_least(const struct ncase *c, int is_req)
{
    return c->least == S_MAX ? least_max(c->cat, c->lib, is_req) : c->least;
}
static size_t r_most(const struct ncase *c, int is_req)
{
    return c->most == S_MAX ? least_max(c->cat, c->lib, is_req) : c->most == S_HUGE ? SIZE_MAX
                                                                               : c->most;
}
/* what gex_AM_SrcDescSize must say: min(most, what the mode can offer) */
static size_t expect_size(const struct ncase *c, int is_req, size_t most)
{
    size_t cap = c->cat == CM ? (is_req ? max_med_req : max_med_rep)
               : c->lib ? (is_req ? alloc_long_req : alloc_long_rep)
                        : (is_req ? max_long_req : max_long_rep);
    return most < cap ? most : cap;
}
static size_t r_nb(const struct ncase *c, size_t size)
{
    size_t nb = c->nb == S_ALL ? size : c->nb == S_M13 ? size - 13 : c->nb;
    if (nb > size) nb = size;   /* small MaxMedium (GEX_SMP_RING_SIZE) */
    if (c->cat == CL && nb > SLOT - 8192) nb = SLOT - 8192;   /* stays in its slot */
    return nb;
}

/* ---- Patterns and args ---- */
static uint32_t pa(gex_Rank_t src, int cat, int is_req) { return 9000 + src * 8 + cat * 2 + is_req; }
static gex_AM_Arg_t argv_of(gex_Rank_t src, unsigned k, int is_req, unsigned j)
{
    if (j == 0) return (gex_AM_Arg_t)k;
    return (gex_AM_Arg_t)mp_hash32(src * 31u + k * 1009u + (unsigned)is_req * 7u + j);
}

/* ---- Commit with any [M] (explicit functions or the inferring macros) ---- */
#define AM_CALL(m, ...) m(__VA_ARGS__)
#define ARGS_0
#define ARGS_2 , a[0], a[1]
#define ARGS_16 , a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], \
    a[12], a[13], a[14], a[15]
#define COMMIT_FAM(FAM, K, DEST) \
    if (v2) \
        rc = macro ? AM_CALL(gex_AM_Commit##FAM##_v2, sd, h, nb DEST, cf ARGS_##K) \
                   : gex_AM_Commit##FAM##K##_v2(sd, h, nb DEST, cf ARGS_##K); \
    else if (macro) \
        AM_CALL(gex_AM_Commit##FAM, sd, h, nb DEST ARGS_##K); \
    else \
        gex_AM_Commit##FAM##K(sd, h, nb DEST ARGS_##K);
#define NO_DEST
#define WITH_DEST , dest
#define COMMIT_K(K) \
    case K: \
        if (cat == CM && is_req) { COMMIT_FAM(RequestMedium, K, NO_DEST) } \
        else if (cat == CM) { COMMIT_FAM(ReplyMedium, K, NO_DEST) } \
        else if (is_req) { COMMIT_FAM(RequestLong, K, WITH_DEST) } \
        else { COMMIT_FAM(ReplyLong, K, WITH_DEST) } \
        break;

static int commit_any(int cat, int is_req, int v2, int macro, gex_AM_SrcDesc_t sd,
                      gex_AM_Index_t h, size_t nb, void *dest, gex_Flags_t cf, unsigned nargs,
                      const gex_AM_Arg_t *a)
{
    int rc = 0;
    switch (nargs) {
        COMMIT_K(0)
        COMMIT_K(2)
        COMMIT_K(16)
    default: CHECK(0);
    }
    return rc;
}

/* ---- Prepare of a Request or Reply of case c ---- */
static gex_AM_SrcDesc_t prepare_any(const struct ncase *c, int is_req, gex_Token_t t,
                                    gex_Rank_t r, const void *client, size_t least, size_t most,
                                    void *dest_hint, gex_Event_t *lc, gex_Flags_t fl)
{
    const unsigned nargs = nargs_set[c->ki];
    if (c->cat == CM)
        return is_req ? gex_AM_PrepareRequestMedium(mp_tm, r, client, least, most, lc, fl, nargs)
                      : gex_AM_PrepareReplyMedium(t, client, least, most, lc, fl, nargs);
    return is_req ? gex_AM_PrepareRequestLong(mp_tm, r, client, least, most, dest_hint, lc, fl,
                                              nargs)
                  : gex_AM_PrepareReplyLong(t, client, least, most, dest_hint, lc, fl, nargs);
}
static int cancel_any(int cat, int is_req, gex_AM_SrcDesc_t sd)
{
    if (cat == CM)
        return is_req ? gex_AM_CancelRequestMedium(sd, 0) : gex_AM_CancelReplyMedium(sd, 0);
    return is_req ? gex_AM_CancelRequestLong(sd, 0) : gex_AM_CancelReplyLong(sd, 0);
}

/* The Reply to a Request of nb bytes: same kind, half the Request (at
 * most the Reply maximum). */
static size_t reply_len(const struct ncase *c, size_t nb)
{
    size_t rmax = least_max(c->cat, c->lib, 0);
    if (c->cat == CL && !c->lib && rmax > SLOT - 8192) rmax = SLOT - 8192;
    return nb / 2 < rmax ? nb / 2 : rmax;
}

/* ---- State of the sweep ---- */
static char *req_client, *rep_client;
static unsigned *got_req;            /* [sender]: next case index expected */
static volatile int reply_pending;
static gex_Rank_t exp_src;
static unsigned exp_k;
static size_t exp_rep_nb;
static unsigned long n_cancel, n_imm_prep, n_imm_noop, n_v2, n_macro, n_lib, n_client;

/* One negotiated-payload send (Request to r, or Reply on token t) of case
 * c, sequence k, from `client` or a library buffer.  Returns the length. */
/* Where a library-buffer Long Prepare on the smp path hands out the
 * destination itself (conduits/smp/smp_queue.c): dest_addr given at
 * Prepare, 16-byte aligned, [dest, dest + min(most, MaxLong)) mapped here,
 * and not served by libgex-am's small path.  Returns that address or NULL. */
static char *direct_buf(const struct ncase *c, int is_req, gex_Rank_t r, void *hint, size_t most,
                        gex_Flags_t fl)
{
    if (!native_long || c->cat != CL || !c->lib || !hint || ((uintptr_t)hint & 15) ||
        !local_base[r])
        return NULL;
    if (small_long && most <= small_long && !(fl & GEX_FLAG_IMMEDIATE))   /* 0: off */
        return NULL;   /* libgex-am small path */
    const size_t maxl = is_req ? max_long_req : max_long_rep;
    const size_t size = most < maxl ? most : maxl;
    const uintptr_t off = (uintptr_t)hint - (uintptr_t)owner_base[r];
    if (off > seg_size[r] || size > seg_size[r] - off) return NULL;
    return local_base[r] + off;
}

static size_t np_send(const struct ncase *c, unsigned k, int is_req, gex_Token_t t, gex_Rank_t r,
                      char *client, size_t want_nb, void *dest)
{
    const unsigned nargs = nargs_set[c->ki];
    size_t least = r_least(c, is_req), most = r_most(c, is_req);
    if (!is_req) least = most = want_nb;   /* replies: exactly the length decided */
    gex_Event_t ev = (gex_Event_t)(uintptr_t)0xbad1;
    gex_Event_t *lc = NULL;
    if (!c->lib) lc = c->lc == 0 || (!is_req && c->lc == 2) ? GEX_EVENT_NOW
                    : c->lc == 1 ? &ev : GEX_EVENT_GROUP;
    const void *cb = c->lib ? NULL : client;
    void *hint = c->cat == CL && c->dest_at_prepare ? dest : NULL;
    if (c->cancel_first) {
        gex_AM_SrcDesc_t sd0 = prepare_any(c, is_req, t, r, cb, least, most, hint, lc, 0);
        CHECK(sd0 != GEX_AM_SRCDESC_NO_OP);
        size_t s0 = gex_AM_SrcDescSize(sd0);
        if (c->lib && s0) memset(gex_AM_SrcDescAddr(sd0), 0x77, s0 < 64 ? s0 : 64);
        CHECK_OK(cancel_any(c->cat, is_req, sd0));
        n_cancel++;
    }
    gex_AM_SrcDesc_t sd = GEX_AM_SRCDESC_NO_OP;
    if (c->imm_prepare) {
        n_imm_prep++;
        sd = prepare_any(c, is_req, t, r, cb, least, most, hint, lc, GEX_FLAG_IMMEDIATE);
        if (sd == GEX_AM_SRCDESC_NO_OP) n_imm_noop++;
    }
    gex_Flags_t used_fl = sd == GEX_AM_SRCDESC_NO_OP ? 0 : GEX_FLAG_IMMEDIATE;
    if (sd == GEX_AM_SRCDESC_NO_OP) sd = prepare_any(c, is_req, t, r, cb, least, most, hint, lc, 0);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    const size_t size = gex_AM_SrcDescSize(sd);
    char *buf = gex_AM_SrcDescAddr(sd);
    /* the inline queries (ext.h) and the exported functions agree */
    CHECK_PTR_EQ((gex_AM_SrcDescAddr)(sd), buf);
    CHECK_EQ((gex_AM_SrcDescSize)(sd), size);
    CHECK_MSG(size >= least && size <= most, "%s %s #%u: SrcDescSize %zu outside [%zu, %zu]",
              cname[c->cat], is_req ? "Request" : "Reply", k, size, least, most);
    char *direct = direct_buf(c, is_req, r, hint, most, used_fl);
    if (direct) {   /* zero copy: the buffer is the destination, the offer min(most, MaxLong) */
        const size_t maxl = is_req ? max_long_req : max_long_rep;
        CHECK_MSG(buf == direct && size == (most < maxl ? most : maxl),
                  "Long %s #%u to %u: buffer %p size %zu, want the destination %p, size %zu",
                  is_req ? "Request" : "Reply", k, (unsigned)r, (void *)buf, size, (void *)direct,
                  most < maxl ? most : maxl);
        n_direct++;
    } else if (is_req)
        CHECK_MSG(size == expect_size(c, 1, most), "%s Request #%u (%s buffer): size %zu, want %zu",
                  cname[c->cat], k, c->lib ? "library" : "client", size, expect_size(c, 1, most));
    if (c->lib) {
        /* "suitably aligned to hold any data type" (spec): max_align_t, 16 bytes on
         * x86-64, also with 16 args and a payload close to MaxMedium */
        CHECK_MSG(buf != NULL && ((uintptr_t)buf % _Alignof(max_align_t)) == 0,
                  "%s %s #%u (%u args, size %zu): library buffer %p not aligned to %zu",
                  cname[c->cat], is_req ? "Request" : "Reply", k, nargs, size, (void *)buf,
                  (size_t)_Alignof(max_align_t));
        n_lib++;
    } else {
        CHECK_PTR_EQ(buf, client);
        n_client++;
    }
    const size_t nb = is_req ? r_nb(c, size) : want_nb;
    CHECK(nb <= size);
    /* the Reply the handler will send (a Request to oneself runs it, and
     * the Reply's handler, inside the Commit below) */
    if (is_req) exp_rep_nb = reply_len(c, nb);
    /* the payload is generated in place (client: it may be ready before) */
    mp_fill(buf, nb, pa(me, c->cat, is_req), k);
    gex_AM_Arg_t a[16];
    for (unsigned j = 0; j < nargs; j++) a[j] = argv_of(me, k, is_req, j);
    const gex_AM_Index_t h = hidx(c->cat, c->ki, is_req);
    int rc = commit_any(c->cat, is_req, c->v2, c->macro, sd, h, nb, dest, 0, nargs, a);
    CHECK_EQ(rc, 0);
    n_v2 += c->v2;
    n_macro += c->macro;
    if (!c->lib) {   /* local completion as lc_opt asks, then the buffer is ours */
        if (lc == &ev) {
            CHECK_PTR_EQ(ev, GEX_EVENT_INVALID);
            CHECK_EQ(gex_Event_Test(ev), GASNET_OK);
        } else if (lc == GEX_EVENT_GROUP) {
            CHECK_EQ(gex_NBI_Test(GEX_EC_AM, 0), GASNET_OK);
            gex_NBI_Wait(GEX_EC_AM | GEX_EC_LC, 0);
        }
        if (nb) memset(client, 0xdd, nb);
    }
    return nb;
}

static void on_np(gex_Token_t t, int cat, unsigned ki, int is_req, void *buf, size_t nb,
                  const gex_AM_Arg_t *a)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    const gex_Rank_t s = info.gex_srcrank;
    const unsigned nargs = nargs_set[ki];
    unsigned k;
    if (is_req) {
        k = got_req[s]++;
        CHECK_MSG(k < ncases, "extra Request %u from %u", k, (unsigned)s);
    } else {
        CHECK_MSG(reply_pending && s == exp_src, "unexpected Reply from %u", (unsigned)s);
        k = exp_k;
        CHECK_EQ(nb, exp_rep_nb);
    }
    const struct ncase *c = &cases[k];
    CHECK_MSG(c->cat == cat && c->ki == ki, "%s %s #%u from %u: case is %s with %u args",
              cname[cat], is_req ? "Request" : "Reply", k, (unsigned)s, cname[c->cat],
              nargs_set[c->ki]);
    if (nargs) CHECK_EQ(a[0], (gex_AM_Arg_t)k);
    for (unsigned j = 1; j < nargs; j++) CHECK_EQ(a[j], argv_of(s, k, is_req, j));
    if (cat == CL) {
        char *want = is_req ? my_base + (size_t)s * SLOT : my_base + (size_t)n * SLOT;
        CHECK_PTR_EQ(buf, want);
    }
    CHECK_PATTERN(buf, nb, pa(s, cat, is_req), k);
    if (!is_req) {
        reply_pending = 0;
        return;
    }
    const size_t rn = reply_len(c, nb);
    void *dest = cat == CL ? owner_base[s] + (size_t)n * SLOT : NULL;
    np_send(c, k, 0, t, s, rep_client, rn, dest);
}

/* handler wrappers: every (category, nargs, direction) */
#define P0
#define P2 , gex_AM_Arg_t a0, gex_AM_Arg_t a1
#define P16 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, \
    gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, \
    gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13, \
    gex_AM_Arg_t a14, gex_AM_Arg_t a15
#define V0 0
#define V2 a0, a1
#define V16 a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
#define DEF_H(name, cat, ki, isreq, K) \
    static void name(gex_Token_t t, void *buf, size_t nb P##K) \
    { \
        const gex_AM_Arg_t a[17] = { V##K }; \
        on_np(t, cat, ki, isreq, buf, nb, a); \
    }
DEF_H(hm_req0, CM, 0, 1, 0) DEF_H(hm_rep0, CM, 0, 0, 0)
DEF_H(hm_req2, CM, 1, 1, 2) DEF_H(hm_rep2, CM, 1, 0, 2)
DEF_H(hm_req16, CM, 2, 1, 16) DEF_H(hm_rep16, CM, 2, 0, 16)
DEF_H(hl_req0, CL, 0, 1, 0) DEF_H(hl_rep0, CL, 0, 0, 0)
DEF_H(hl_req2, CL, 1, 1, 2) DEF_H(hl_rep2, CL, 1, 0, 2)
DEF_H(hl_req16, CL, 2, 1, 16) DEF_H(hl_rep16, CL, 2, 0, 16)
static const gex_AM_Fn_t hfn[2][3][2] = {
    { { (gex_AM_Fn_t)hm_rep0, (gex_AM_Fn_t)hm_req0 }, { (gex_AM_Fn_t)hm_rep2, (gex_AM_Fn_t)hm_req2 },
      { (gex_AM_Fn_t)hm_rep16, (gex_AM_Fn_t)hm_req16 } },
    { { (gex_AM_Fn_t)hl_rep0, (gex_AM_Fn_t)hl_req0 }, { (gex_AM_Fn_t)hl_rep2, (gex_AM_Fn_t)hl_req2 },
      { (gex_AM_Fn_t)hl_rep16, (gex_AM_Fn_t)hl_req16 } },
};

/* ---- Phase 3: IMMEDIATE against a sleeping peer ---- */
#define IMM_N 1500
#define IMM_SIZE_MAX 4000
static size_t IMM_SIZE = IMM_SIZE_MAX;   /* at most MaxMedium (small rings) */
static uint8_t *imm_seen;
static atomic_uint imm_got;

static void h_imm(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t mode)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    CHECK(seq >= 0 && seq < IMM_N && mode >= 0 && mode < 3);
    CHECK_EQ((unsigned)mode, mp_hash32((uint32_t)seq) % 3);
    CHECK_EQ(nb, IMM_SIZE);
    CHECK_PATTERN(buf, nb, 5000 + info.gex_srcrank, (uint32_t)seq);
    CHECK_MSG(!imm_seen[seq], "IMMEDIATE message %d (mode %d) arrived twice", (int)seq, (int)mode);
    imm_seen[seq] = 1;
    atomic_fetch_add(&imm_got, 1);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* ---- Phase 5: negotiated-payload Longs with a library buffer and
 * dest_addr at Prepare (the smp zero-copy case) to every rank: a commit
 * shorter than the offer, IMMEDIATE Prepare and Commit_v2 retried after a
 * poll, a Cancel after writing.  Where the destination is mapped (PSHM, or
 * self) the buffer must be the destination itself and the bytes written
 * past nbytes are at the target too (docs/am.md); elsewhere the reference
 * buffer is used and only [0, nbytes) may change. ---- */
#define ZL_OFFER 4096u
#define ZL_SENT 1000u
#define ZL_AREA (SLOT / 2)     /* in the sender's request slot, clear of the sweep */
static atomic_uint zl_got;

static void h_zl(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t direct)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    const gex_Rank_t s = info.gex_srcrank;
    char *want = my_base + (size_t)s * SLOT + ZL_AREA + (size_t)k * ZL_OFFER;
    CHECK_PTR_EQ(buf, want);
    CHECK_EQ(nb, (size_t)ZL_SENT);
    CHECK_PATTERN(buf, nb, 7000 + s, (uint32_t)k);
    /* zero copy: the client wrote the whole offer into the destination */
    if (direct) CHECK_PATTERN(buf, ZL_OFFER, 7000 + s, (uint32_t)k);
    else CHECK((unsigned char)want[ZL_SENT] == 0xee);   /* untouched past nbytes */
    atomic_fetch_add(&zl_got, 1);
}

/* ---- Phase 4: threads ---- */
#define TH_N 2
#define TH_MSGS 3000
static atomic_uint th_got, th_replies[TH_N];
static unsigned *th_next;   /* [sender * TH_N + thread]: next i (handlers run one at a time) */
static pthread_mutex_t th_lock = PTHREAD_MUTEX_INITIALIZER;

static void h_th_req(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t tid, gex_AM_Arg_t i)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    const gex_Rank_t s = info.gex_srcrank;
    CHECK(tid >= 0 && tid < TH_N);
    pthread_mutex_lock(&th_lock);   /* handlers may run in any polling thread */
    unsigned *nx = &th_next[s * TH_N + (unsigned)tid];
    CHECK_MSG((unsigned)i >= *nx, "thread message %d from %u/%d out of order", (int)i,
              (unsigned)s, (int)tid);
    *nx = (unsigned)i + 1;
    pthread_mutex_unlock(&th_lock);
    CHECK_EQ(nb, (size_t)(i % 200));
    CHECK_PATTERN(buf, nb, 6000 + s * TH_N + (uint32_t)tid, (uint32_t)i);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, 8, 8, NULL, 0, 1);
    memcpy(gex_AM_SrcDescAddr(sd), "threads!", 8);
    gex_AM_CommitReplyMedium1(sd, H_TH_REP, 8, tid);
    atomic_fetch_add(&th_got, 1);
}

static void h_th_rep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t tid)
{
    (void)t;
    CHECK(nb == 8 && !memcmp(buf, "threads!", 8) && tid >= 0 && tid < TH_N);
    atomic_fetch_add(&th_replies[tid], 1);
}

static void *th_main(void *arg)
{
    const unsigned tid = (unsigned)(uintptr_t)arg;
    for (unsigned i = 0; i < TH_MSGS; i++) {
        const gex_Rank_t r = (me + i + tid) % n;
        const size_t nb = i % 200;
        gex_AM_SrcDesc_t sd;
        unsigned spins = 0;
        while ((sd = gex_AM_PrepareRequestMedium(mp_tm, r, NULL, nb, 200, NULL,
                                                 i % 2 ? GEX_FLAG_IMMEDIATE : 0, 2)) ==
               GEX_AM_SRCDESC_NO_OP) {
            gasnet_AMPoll();
            if (++spins > 8) sched_yield();
        }
        CHECK(gex_AM_SrcDescSize(sd) >= nb);
        mp_fill(gex_AM_SrcDescAddr(sd), nb, 6000 + me * TH_N + tid, i);
        gex_AM_CommitRequestMedium2(sd, H_TH_REQ, nb, (gex_AM_Arg_t)tid, (gex_AM_Arg_t)i);
    }
    MP_POLL_UNTIL(atomic_load(&th_replies[tid]) == TH_MSGS);
    return NULL;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_NPAM", 0);
    me = mp_me;
    n = mp_n;
    reference_path = 0;
    const char *fr = getenv("GEX_FORCE_REFERENCE");
    if (fr && (strstr(fr, "am") || strstr(fr, "all"))) reference_path = 1;

    mp_phase("register handlers");
    gex_AM_Entry_t table[17];
    unsigned ti = 0;
    for (int cat = 0; cat < 2; cat++)
        for (unsigned ki = 0; ki < 3; ki++)
            for (int is_req = 0; is_req < 2; is_req++)
                table[ti++] = (gex_AM_Entry_t){
                    hidx(cat, ki, is_req), hfn[cat][ki][is_req],
                    (cat == CM ? GEX_FLAG_AM_MEDIUM : GEX_FLAG_AM_LONG) |
                        (is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY),
                    nargs_set[ki], NULL, NULL };
    table[ti++] = (gex_AM_Entry_t){ H_IMM, (gex_AM_Fn_t)h_imm,
                                    GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "imm" };
    table[ti++] = (gex_AM_Entry_t){ H_ZL, (gex_AM_Fn_t)h_zl,
                                    GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "zl" };
    table[ti++] = (gex_AM_Entry_t){ H_TH_REQ, (gex_AM_Fn_t)h_th_req,
                                    GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "th_req" };
    table[ti++] = (gex_AM_Entry_t){ H_TH_REP, (gex_AM_Fn_t)h_th_rep,
                                    GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "th_rep" };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, table, ti));

    /* ---- Phase 1: limits and the bound path ---- */
    mp_phase("limits");
    const gex_Flags_t LC = GEX_FLAG_AM_PREPARE_LEAST_CLIENT, LA = GEX_FLAG_AM_PREPARE_LEAST_ALLOC;
    max_med_req = gex_AM_MaxRequestMedium(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16);
    max_med_rep = gex_AM_MaxReplyMedium(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16);
    max_long_req = gex_AM_MaxRequestLong(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16);
    max_long_rep = gex_AM_MaxReplyLong(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16);
    alloc_long_req = gex_AM_MaxRequestLong(mp_tm, GEX_RANK_INVALID, NULL, LA, 16);
    alloc_long_rep = gex_AM_MaxReplyLong(mp_tm, GEX_RANK_INVALID, NULL, LA, 16);
    for (gex_Rank_t r = 0; r < n; r++) {
        CHECK_EQ(gex_AM_MaxRequestMedium(mp_tm, r, NULL, LC, 0), max_med_req);
        CHECK_EQ(gex_AM_MaxRequestMedium(mp_tm, r, NULL, LA, 0), max_med_req);
        CHECK_EQ(gex_AM_MaxReplyMedium(mp_tm, r, NULL, LA, 2), max_med_rep);
        CHECK_EQ(gex_AM_MaxRequestLong(mp_tm, r, NULL, LC, 2), max_long_req);
        CHECK_EQ(gex_AM_MaxReplyLong(mp_tm, r, NULL, LC, 2), max_long_rep);
        CHECK_EQ(gex_AM_MaxRequestLong(mp_tm, r, NULL, LA, 0), alloc_long_req);
        CHECK_EQ(gex_AM_MaxReplyLong(mp_tm, r, NULL, LA, 0), alloc_long_rep);
    }
    CHECK(alloc_long_req >= 512 && alloc_long_req <= max_long_req);
    CHECK(alloc_long_rep >= 512 && alloc_long_rep <= max_long_rep);
    CHECK(max_med_req >= 512 && max_med_rep >= 512);
    CHECK(gex_AM_LUBRequestMedium() <= max_med_req && gex_AM_LUBRequestLong() <= max_long_req);
    const char *env_lb = getenv("GEX_AM_NP_LONG_BUFFER");
    if (env_lb && *env_lb) CHECK_EQ(alloc_long_req, strtoul(env_lb, NULL, 10));
    client_long = max_long_req < max_long_rep ? max_long_req : max_long_rep;
    if (client_long > SLOT - 8192) client_long = SLOT - 8192;   /* our landing slots */
    const char *layers = gexi_describe_layers();
    CHECK(layers != NULL);
    /* a conduit's NP Mediums: smp's ring slots, or ofi's send buffers (issue 8) */
    const int native_med = strstr(layers, "np_medium=smp") || strstr(layers, "np_medium=ofi");
    np_med_native = native_med;
    CHECK_MSG(native_med || strstr(layers, "np_medium=reference"), "layers: %s", layers);
    native_long = strstr(layers, "np_long=smp") != NULL;   /* zero copy where mapped */
    const int ref_long = strstr(layers, "np_long=reference") != NULL;
    const char *ns = strstr(layers, "np_small=");
    size_t small_med = 0;
    CHECK_MSG(ns && sscanf(ns, "np_small=%zu/%zu", &small_med, &small_long) == 2, "layers: %s",
              layers);
    if (ref_long) CHECK_EQ(small_long, 0);   /* the small path fronts a conduit's slots only */
    CHECK_MSG(native_long || ref_long || strstr(layers, "np_long=ofi"), "layers: %s", layers);
    if (reference_path)
        CHECK_MSG(!native_med && !native_long, "GEX_FORCE_REFERENCE=am, yet %s", layers);
#if defined(GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM) && defined(GASNET_NATIVE_NP_ALLOC_REP_MEDIUM)
    /* the header's claim holds for the default configuration */
    if (!reference_path && !getenv("GEX_CONDUIT")) CHECK_MSG(native_med, "layers: %s", layers);
#else
    CHECK_MSG(!native_med, "native NP Mediums bound but GASNET_NATIVE_NP_ALLOC_*_MEDIUM unset");
#endif
#if defined(GASNET_NATIVE_NP_ALLOC_REQ_LONG) && defined(GASNET_NATIVE_NP_ALLOC_REP_LONG)
    /* native "under the right conditions": the smp zero-copy path is bound */
    if (!reference_path && !getenv("GEX_CONDUIT")) CHECK_MSG(native_long, "layers: %s", layers);
#else
    CHECK_MSG(!native_long, "native NP Longs bound but GASNET_NATIVE_NP_ALLOC_*_LONG unset");
#endif

    /* ---- Segment ---- */
    mp_attach((uintptr_t)(n + 1) * SLOT);
    my_base = gex_Segment_QueryAddr(mp_seg);
    owner_base = calloc(n, sizeof *owner_base);
    got_req = calloc(n, sizeof *got_req);
    req_client = malloc(SLOT);
    rep_client = malloc(SLOT);
    CHECK(owner_base && got_req && req_client && rep_client);
    local_base = calloc(n, sizeof *local_base);
    seg_size = calloc(n, sizeof *seg_size);
    CHECK(local_base && seg_size);
    for (gex_Rank_t r = 0; r < n; r++) {
        void *owner = NULL, *local = NULL;
        uintptr_t sz = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &owner, &local, &sz, 0));
        owner_base[r] = owner;
        local_base[r] = local;
        seg_size[r] = sz;
    }
    build_cases();
    CHECK(ncases <= MAXC);

    /* ---- Phase 2: the sweep ---- */
    mp_phase("sweep");
    unsigned long trips = 0;
    for (unsigned k = 0; k < ncases; k++) {
        const struct ncase *c = &cases[k];
        for (gex_Rank_t i = 1; i <= n; i++) {
            const gex_Rank_t r = (me + i) % n;   /* self last */
            void *dest = c->cat == CL ? owner_base[r] + (size_t)me * SLOT : NULL;
            /* the Reply of this case: the handler sends half of the request */
            exp_src = r;
            exp_k = k;
            reply_pending = 1;
            np_send(c, k, 1, NULL, r, req_client, 0, dest);
            MP_POLL_UNTIL(!reply_pending);
            trips++;
        }
    }
    mp_barrier();
    for (gex_Rank_t r = 0; r < n; r++)
        CHECK_MSG(got_req[r] == ncases, "%u Requests from rank %u, want %u", got_req[r],
                  (unsigned)r, ncases);

    /* ---- Phase 3: IMMEDIATE against sleeping peers ---- */
    mp_phase("IMMEDIATE vs sleeping peer");
    imm_seen = calloc(IMM_N, 1);
    if (IMM_SIZE > max_med_req) IMM_SIZE = max_med_req;
    char *imm_buf = malloc(IMM_SIZE_MAX);
    CHECK(imm_seen && imm_buf);
    mp_barrier();
    unsigned long noop[3] = { 0, 0, 0 };
    double fail_us[3] = { 0, 0, 0 };
    const int sender = me % 2 == 0 && me + 1 < n, sleeper = me % 2 == 1;
    if (sender) {
        const gex_Rank_t peer = me + 1;
        for (unsigned s = 0; s < IMM_N; s++) {
            /* modes in a scrambled order, so that each meets the full ring */
            const unsigned mode = mp_hash32(s) % 3;
            unsigned tries = 0, spins = 0;
            if (mode == 0) mp_fill(imm_buf, IMM_SIZE, 5000 + me, s);
            for (;;) {
                /* bounded IMMEDIATE retries (immediate.txt), then a blocking call */
                const gex_Flags_t fl = tries < 1000 ? GEX_FLAG_IMMEDIATE : 0;
                const double t0 = now_us();
                int failed;
                if (mode == 0) {   /* fixed payload */
                    failed = gex_AM_RequestMedium2(mp_tm, peer, H_IMM, imm_buf, IMM_SIZE,
                                                   GEX_EVENT_NOW, fl, (gex_AM_Arg_t)s, 0) != 0;
                } else if (mode == 1) {   /* IMMEDIATE Prepare, library buffer */
                    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(mp_tm, peer, NULL, IMM_SIZE,
                                                                      IMM_SIZE, NULL, fl, 2);
                    failed = sd == GEX_AM_SRCDESC_NO_OP;
                    if (!failed) {
                        mp_fill(gex_AM_SrcDescAddr(sd), IMM_SIZE, 5000 + me, s);
                        gex_AM_CommitRequestMedium2(sd, H_IMM, IMM_SIZE, (gex_AM_Arg_t)s, 1);
                    }
                } else {   /* Commit_v2 with IMMEDIATE, client buffer */
                    gex_Event_t lc;
                    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(mp_tm, peer, imm_buf,
                                                                      IMM_SIZE, IMM_SIZE, &lc,
                                                                      fl, 2);
                    failed = sd == GEX_AM_SRCDESC_NO_OP;
                    if (!failed) {
                        mp_fill(imm_buf, IMM_SIZE, 5000 + me, s);
                        /* The spec promises no retry will ever succeed (resources
                         * may come back only by polling, which is not allowed
                         * between Prepare and Commit): bounded IMMEDIATE
                         * retries, then a blocking Commit. */
                        unsigned refused = 0;
                        while (refused < 1000 &&
                               gex_AM_CommitRequestMedium2_v2(sd, H_IMM, IMM_SIZE,
                                                              GEX_FLAG_IMMEDIATE,
                                                              (gex_AM_Arg_t)s, 2)) {
                            noop[2]++;   /* the descriptor stays valid: commit again */
                            refused++;
                            CHECK(gex_AM_SrcDescSize(sd) == IMM_SIZE);
                            sched_yield();   /* no poll here: nothing may communicate */
                        }
                        if (refused == 1000)
                            CHECK_EQ(gex_AM_CommitRequestMedium2_v2(sd, H_IMM, IMM_SIZE, 0,
                                                                    (gex_AM_Arg_t)s, 2), 0);
                        CHECK_PTR_EQ(lc, GEX_EVENT_INVALID);
                    }
                }
                if (!failed) break;
                fail_us[mode] += now_us() - t0;
                noop[mode]++;
                tries++;
                gasnet_AMPoll();   /* one poll, then retry (immediate.txt) */
                if (++spins > 16) sched_yield();
            }
            memset(imm_buf, 0xcc, IMM_SIZE);
        }
    } else if (sleeper) {
        const struct timespec nap = { 0, 2000000 };
        while (atomic_load(&imm_got) < IMM_N) {
            nanosleep(&nap, NULL);
            gasnet_AMPoll();
        }
    }
    mp_barrier();
    for (int i = 0; i < 200; i++) gasnet_AMPoll();   /* nothing else may arrive */
    if (sleeper) {
        CHECK_EQ(atomic_load(&imm_got), IMM_N);
        for (unsigned s = 0; s < IMM_N; s++) CHECK_MSG(imm_seen[s], "message %u lost", s);
    } else {
        CHECK_EQ(atomic_load(&imm_got), 0);
    }
    if (sender) {
        /* the ring (64 KiB, ~15 messages) fills while the peer sleeps */
        CHECK_MSG(noop[0] > 0, "no fixed-payload IMMEDIATE was refused by a sleeping peer");
        /* only a conduit's NP Mediums reserve room at Prepare (the ucx
         * conduit has none: its Commits refuse instead) */
        if (!reference_path && np_med_native)
            CHECK_MSG(noop[1] > 0, "no IMMEDIATE Prepare was refused by a sleeping peer");
        /* a refusal must not wait for the peer (it sleeps 2 ms between polls) */
        for (int m = 0; m < 2; m++)
            if (noop[m])
                CHECK_MSG(fail_us[m] / noop[m] < 200.0, "mode %d: refused IMMEDIATE calls took "
                          "%.1f us on average", m, fail_us[m] / noop[m]);
    }

    /* ---- Phase 5: zero-copy Longs (see h_zl) ---- */
    mp_phase("np Long to mapped destinations");
    memset(my_base, 0xee, (size_t)n * SLOT);   /* every sender's area: past nbytes stays 0xee */
    mp_barrier();
    unsigned long zl_direct = 0;
    for (gex_Rank_t i = 0; i < n; i++) {
        const gex_Rank_t r = (me + i) % n;
        for (unsigned k = 0; k < 3; k++) {   /* k: 0 plain, 1 IMMEDIATE, 2 after a Cancel */
            char *dest = owner_base[r] + (size_t)me * SLOT + ZL_AREA + (size_t)k * ZL_OFFER;
            const gex_Flags_t fl = k == 1 ? GEX_FLAG_IMMEDIATE : 0;
            if (k == 2) {
                gex_AM_SrcDesc_t sd0 = gex_AM_PrepareRequestLong(mp_tm, r, NULL, ZL_OFFER,
                                                                 ZL_OFFER, dest, NULL, 0, 2);
                CHECK(sd0 != GEX_AM_SRCDESC_NO_OP);
                mp_fill(gex_AM_SrcDescAddr(sd0), ZL_OFFER, 7100, k);   /* overwritten below */
                CHECK_OK(gex_AM_CancelRequestLong(sd0, 0));
            }
            gex_AM_SrcDesc_t sd;
            unsigned spins = 0;
            while ((sd = gex_AM_PrepareRequestLong(mp_tm, r, NULL, ZL_SENT, ZL_OFFER, dest, NULL,
                                                   fl, 2)) == GEX_AM_SRCDESC_NO_OP) {
                CHECK(fl & GEX_FLAG_IMMEDIATE);
                gasnet_AMPoll();
                if (++spins > 8) sched_yield();
            }
            char *buf = gex_AM_SrcDescAddr(sd);
            char *direct = native_long && local_base[r]
                         ? local_base[r] + (dest - owner_base[r]) : NULL;
            CHECK(((uintptr_t)buf & 15) == 0);
            if (direct) {
                CHECK_PTR_EQ(buf, direct);
                CHECK_EQ(gex_AM_SrcDescSize(sd), (size_t)ZL_OFFER);
                zl_direct++;
            } else {
                CHECK(gex_AM_SrcDescSize(sd) >= ZL_SENT);
            }
            const size_t fill = gex_AM_SrcDescSize(sd) < ZL_OFFER ? gex_AM_SrcDescSize(sd)
                                                                   : ZL_OFFER;
            mp_fill(buf, fill, 7000 + me, k);
            if (k == 1) {
                unsigned refused = 0;   /* bounded, no poll: see phase 3 */
                while (refused < 1000 &&
                       gex_AM_CommitRequestLong2_v2(sd, H_ZL, ZL_SENT, dest, GEX_FLAG_IMMEDIATE,
                                                    (gex_AM_Arg_t)k, direct != NULL) != 0)
                    refused++;
                if (refused == 1000)
                    CHECK_EQ(gex_AM_CommitRequestLong2_v2(sd, H_ZL, ZL_SENT, dest, 0,
                                                          (gex_AM_Arg_t)k, direct != NULL), 0);
            } else {
                gex_AM_CommitRequestLong2(sd, H_ZL, ZL_SENT, dest, (gex_AM_Arg_t)k,
                                          direct != NULL);
            }
        }
    }
    while (atomic_load(&zl_got) < 3 * n) gasnet_AMPoll();
    mp_barrier();
    CHECK_EQ(atomic_load(&zl_got), 3 * n);
    if (native_long) CHECK(zl_direct >= 3);   /* self is always mapped */
    if (reference_path) CHECK_EQ(zl_direct, 0);

    /* ---- Phase 4: threads ---- */
    mp_phase("threads");
    th_next = calloc((size_t)n * TH_N, sizeof *th_next);
    CHECK(th_next);
    mp_barrier();
    pthread_t th[TH_N];
    for (unsigned i = 0; i < TH_N; i++)
        CHECK(pthread_create(&th[i], NULL, th_main, (void *)(uintptr_t)i) == 0);
    for (unsigned i = 0; i < TH_N; i++) pthread_join(th[i], NULL);
    mp_barrier();
    CHECK_EQ(atomic_load(&th_got), TH_N * TH_MSGS);

    /* every run has zero-copy candidates: Longs to self at least */
    if (native_long) CHECK_MSG(n_direct > 0, "no zero-copy NP Long was prepared");
    char summary[600];
    snprintf(summary, sizeof summary,
             "%s path: %lu round trips (%lu library / %lu client buffers, %lu cancels, %lu "
             "IMMEDIATE prepares with %lu no-ops, %lu v2, %lu macros, %lu + %lu zero-copy Longs); "
             "IMMEDIATE vs sleeping peer: "
             "no-ops fp/np-prepare/np-commit %lu/%lu/%lu, refusals took %.2f/%.2f us; threads %u x %u",
             native_med ? "conduit" : "reference", trips, n_lib, n_client, n_cancel, n_imm_prep,
             n_imm_noop, n_v2, n_macro, n_direct, zl_direct, noop[0], noop[1], noop[2],
             noop[0] ? fail_us[0] / noop[0] : 0.0, noop[1] ? fail_us[1] / noop[1] : 0.0, TH_N,
             TH_MSGS);
    free(imm_buf);
    mp_finish("%s", summary);
}
