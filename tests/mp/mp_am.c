/*
 * mp_am.c: fixed-payload Active Messages between every pair of ranks.
 *
 *  1. Sweep: every category (Short, Medium, Long) x every argument count
 *     0..16, to self and every peer, each Request answered by a Reply of the
 *     same category and argument count.  Argument values depend on sender,
 *     category, argument count, direction and a sequence number; payloads
 *     (Medium/Long sizes 0, 1, 7, 8, 63, 512, 4096, 16389, 65536 and
 *     gex_AM_MaxRequestMedium) carry a pattern of sender and size; Longs
 *     land at varying offsets of the target's segment and the handler checks
 *     the address and the bytes.  Every handler checks gex_Token_Info
 *     (srcrank, ep, entry index/nargs/fnptr/flags/cdata, is_req, is_long).
 *     Requests alternate lc_opt GEX_EVENT_NOW, an event pointer (which must
 *     read GEX_EVENT_INVALID on return) and GEX_EVENT_GROUP (then
 *     gex_NBI_Wait/Test), and the [M] functions with the M-inferring macros;
 *     the source buffer is overwritten as soon as local completion allows.
 *     Replies use NOW or an event pointer, sometimes GEX_FLAG_IMMEDIATE.
 *     Exact per-sender counts of every (category, nargs) are checked.
 *  2. Longs of gex_AM_MaxRequestLong bytes (request and reply).
 *  3. GEX_FLAG_IMMEDIATE floods of Shorts and Mediums (retry with polling
 *     until accepted) and IMMEDIATE Longs: every message arrives exactly once.
 *  4. Many-to-one flood: every rank sends MP_AM_FLOOD (20000) Mediums of 256
 *     bytes to rank 0, which checks the exact count and a checksum.
 * Handlers of phase 1 are registered with index 0 and must receive the
 * highest free indices in table order.
 */
#include "mp_util.h"

enum { CAT_S, CAT_M, CAT_L, NCAT };
static const char *const cat_name[NCAT] = { "Short", "Medium", "Long" };
#define NK 17 /* argument counts 0..16 */

/* ---- Segment layout (every rank the same) ----
 *   [0, n*SLOT)           Long requests of sender s at s*SLOT + offset
 *   [n*SLOT, (n+1)*SLOT)  Long replies to this rank (one outstanding at a time)
 *   big_req_off           maximal Long requests (one sender at a time)
 *   big_rep_off           maximal Long replies */
#define SMALL_MAX 65536
#define SLOT (SMALL_MAX + 8192)
static size_t big_len, big_slot, rep_off, big_req_off, big_rep_off, seg_size;
static char *my_base;
static char **owner_base; /* every rank's segment, in its own address space */

static const size_t long_offsets[] = { 0, 1, 3, 8, 61, 4093 };
static size_t long_off(unsigned k, size_t nbytes) { return long_offsets[(k + nbytes) % 6]; }
static size_t req_dest_off(gex_Rank_t sender, unsigned k, size_t nbytes)
{
    return (nbytes > SMALL_MAX ? big_req_off : (size_t)sender * SLOT) + long_off(k, nbytes);
}
static size_t rep_dest_off(unsigned k, size_t nbytes)
{
    return (nbytes > SMALL_MAX ? big_rep_off : rep_off) + long_off(k, nbytes);
}

/* ---- Argument values and payload patterns ---- */
static gex_AM_Arg_t argval(gex_Rank_t sender, int cat, unsigned k, int is_req, uint32_t seq,
                           unsigned i)
{
    if (i == 0) return (gex_AM_Arg_t)seq;
    return (gex_AM_Arg_t)mp_hash32(sender * 0x1000193U ^ ((uint32_t)cat << 24) ^ (k << 16) ^
                                   ((uint32_t)is_req << 8) ^ i ^ mp_hash32(seq));
}
static uint32_t pat_a(gex_Rank_t sender, int cat, int is_req)
{
    return sender | (uint32_t)is_req << 16 | (uint32_t)cat << 20;
}
static uint32_t pat_b(size_t nbytes, unsigned k) { return (uint32_t)nbytes ^ (k << 24); }

/* ---- Handler descriptors: [cat][nargs][is_req] ---- */
struct hdesc {
    int cat;
    unsigned k;
    int is_req;
    gex_AM_Index_t index;
    gex_Flags_t flags;
    gex_AM_Fn_t fn;
};
static struct hdesc desc[NCAT][NK][2];

/* ---- State of phase 1 and 2 ---- */
static unsigned *count_req, *count_rep; /* [cat][k][rank] */
#define CNT(a, cat, k, r) (a)[((size_t)(cat) * NK + (k)) * mp_n + (r)]
static volatile int reply_pending;
static gex_Rank_t exp_src;
static int exp_cat;
static unsigned exp_k;
static uint32_t exp_seq;
static size_t exp_nbytes;
static char *rep_buf;
static unsigned replies_immediate, replies_immediate_noop, replies_macro;

/* The reply's lc_opt and size: both sides can compute them. */
static int reply_uses_event(unsigned k, size_t nbytes) { return (k + nbytes) % 2; }
static size_t reply_size(int cat, unsigned k, size_t req_nbytes, size_t max_reply)
{
    (void)k;
    if (cat == CAT_S) return 0;
    return req_nbytes < max_reply ? req_nbytes : max_reply;
}

/* ---- Sending with any [M]: explicit functions or the inferring macros ---- */
#define AV_0
#define AV_1 , a[0]
#define AV_2 AV_1, a[1]
#define AV_3 AV_2, a[2]
#define AV_4 AV_3, a[3]
#define AV_5 AV_4, a[4]
#define AV_6 AV_5, a[5]
#define AV_7 AV_6, a[6]
#define AV_8 AV_7, a[7]
#define AV_9 AV_8, a[8]
#define AV_10 AV_9, a[9]
#define AV_11 AV_10, a[10]
#define AV_12 AV_11, a[11]
#define AV_13 AV_12, a[12]
#define AV_14 AV_13, a[13]
#define AV_15 AV_14, a[14]
#define AV_16 AV_15, a[15]
/* Expands the argument list first, so the macro sees the real count. */
#define AM_CALL(m, ...) m(__VA_ARGS__)

#define REQ_CASE(k) \
    case k: \
        if (cat == CAT_S) \
            rc = macro ? AM_CALL(gex_AM_RequestShort, tm, r, h, fl AV_##k) \
                       : gex_AM_RequestShort##k(tm, r, h, fl AV_##k); \
        else if (cat == CAT_M) \
            rc = macro ? AM_CALL(gex_AM_RequestMedium, tm, r, h, src, nb, lc, fl AV_##k) \
                       : gex_AM_RequestMedium##k(tm, r, h, src, nb, lc, fl AV_##k); \
        else \
            rc = macro ? AM_CALL(gex_AM_RequestLong, tm, r, h, src, nb, dest, lc, fl AV_##k) \
                       : gex_AM_RequestLong##k(tm, r, h, src, nb, dest, lc, fl AV_##k); \
        break;
#define REP_CASE(k) \
    case k: \
        if (cat == CAT_S) \
            rc = macro ? AM_CALL(gex_AM_ReplyShort, t, h, fl AV_##k) \
                       : gex_AM_ReplyShort##k(t, h, fl AV_##k); \
        else if (cat == CAT_M) \
            rc = macro ? AM_CALL(gex_AM_ReplyMedium, t, h, src, nb, lc, fl AV_##k) \
                       : gex_AM_ReplyMedium##k(t, h, src, nb, lc, fl AV_##k); \
        else \
            rc = macro ? AM_CALL(gex_AM_ReplyLong, t, h, src, nb, dest, lc, fl AV_##k) \
                       : gex_AM_ReplyLong##k(t, h, src, nb, dest, lc, fl AV_##k); \
        break;
#define ALL_CASES(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) \
    X(13) X(14) X(15) X(16)

static int send_request(int cat, unsigned k, int macro, gex_TM_t tm, gex_Rank_t r,
                        gex_AM_Index_t h, const void *src, size_t nb, void *dest,
                        gex_Event_t *lc, gex_Flags_t fl, const gex_AM_Arg_t *a)
{
    int rc = -1;
    switch (k) {
        ALL_CASES(REQ_CASE)
    default: CHECK(0);
    }
    return rc;
}

static int send_reply(int cat, unsigned k, int macro, gex_Token_t t, gex_AM_Index_t h,
                      const void *src, size_t nb, void *dest, gex_Event_t *lc, gex_Flags_t fl,
                      const gex_AM_Arg_t *a)
{
    int rc = -1;
    switch (k) {
        ALL_CASES(REP_CASE)
    default: CHECK(0);
    }
    return rc;
}

/* ---- The 102 handlers of phase 1 ---- */
static void on_am(gex_Token_t t, int cat, unsigned k, int is_req, void *buf, size_t nbytes,
                  const gex_AM_Arg_t *a, gex_AM_Fn_t self);

#define P_0
#define P_1 , gex_AM_Arg_t a0
#define P_2 P_1, gex_AM_Arg_t a1
#define P_3 P_2, gex_AM_Arg_t a2
#define P_4 P_3, gex_AM_Arg_t a3
#define P_5 P_4, gex_AM_Arg_t a4
#define P_6 P_5, gex_AM_Arg_t a5
#define P_7 P_6, gex_AM_Arg_t a6
#define P_8 P_7, gex_AM_Arg_t a7
#define P_9 P_8, gex_AM_Arg_t a8
#define P_10 P_9, gex_AM_Arg_t a9
#define P_11 P_10, gex_AM_Arg_t a10
#define P_12 P_11, gex_AM_Arg_t a11
#define P_13 P_12, gex_AM_Arg_t a12
#define P_14 P_13, gex_AM_Arg_t a13
#define P_15 P_14, gex_AM_Arg_t a14
#define P_16 P_15, gex_AM_Arg_t a15
#define V_0 0
#define V_1 a0
#define V_2 V_1, a1
#define V_3 V_2, a2
#define V_4 V_3, a3
#define V_5 V_4, a4
#define V_6 V_5, a5
#define V_7 V_6, a6
#define V_8 V_7, a7
#define V_9 V_8, a8
#define V_10 V_9, a9
#define V_11 V_10, a10
#define V_12 V_11, a11
#define V_13 V_12, a12
#define V_14 V_13, a13
#define V_15 V_14, a14
#define V_16 V_15, a15

#define DEF_HANDLERS(k) \
    static void s_req_##k(gex_Token_t t P_##k) \
    { \
        const gex_AM_Arg_t a[NK] = { V_##k }; \
        on_am(t, CAT_S, k, 1, NULL, 0, a, (gex_AM_Fn_t)s_req_##k); \
    } \
    static void s_rep_##k(gex_Token_t t P_##k) \
    { \
        const gex_AM_Arg_t a[NK] = { V_##k }; \
        on_am(t, CAT_S, k, 0, NULL, 0, a, (gex_AM_Fn_t)s_rep_##k); \
    } \
    static void m_req_##k(gex_Token_t t, void *buf, size_t nb P_##k) \
    { \
        const gex_AM_Arg_t a[NK] = { V_##k }; \
        on_am(t, CAT_M, k, 1, buf, nb, a, (gex_AM_Fn_t)m_req_##k); \
    } \
    static void m_rep_##k(gex_Token_t t, void *buf, size_t nb P_##k) \
    { \
        const gex_AM_Arg_t a[NK] = { V_##k }; \
        on_am(t, CAT_M, k, 0, buf, nb, a, (gex_AM_Fn_t)m_rep_##k); \
    } \
    static void l_req_##k(gex_Token_t t, void *buf, size_t nb P_##k) \
    { \
        const gex_AM_Arg_t a[NK] = { V_##k }; \
        on_am(t, CAT_L, k, 1, buf, nb, a, (gex_AM_Fn_t)l_req_##k); \
    } \
    static void l_rep_##k(gex_Token_t t, void *buf, size_t nb P_##k) \
    { \
        const gex_AM_Arg_t a[NK] = { V_##k }; \
        on_am(t, CAT_L, k, 0, buf, nb, a, (gex_AM_Fn_t)l_rep_##k); \
    }
ALL_CASES(DEF_HANDLERS)

#define FNS_S(k) { (gex_AM_Fn_t)s_rep_##k, (gex_AM_Fn_t)s_req_##k },
#define FNS_M(k) { (gex_AM_Fn_t)m_rep_##k, (gex_AM_Fn_t)m_req_##k },
#define FNS_L(k) { (gex_AM_Fn_t)l_rep_##k, (gex_AM_Fn_t)l_req_##k },
static const gex_AM_Fn_t handler_fns[NCAT][NK][2] = {
    { ALL_CASES(FNS_S) }, { ALL_CASES(FNS_M) }, { ALL_CASES(FNS_L) } };

static void on_am(gex_Token_t t, int cat, unsigned k, int is_req, void *buf, size_t nbytes,
                  const gex_AM_Arg_t *a, gex_AM_Fn_t self)
{
    const struct hdesc *d = &desc[cat][k][is_req];
    gex_Token_Info_t info;
    memset(&info, 0xa5, sizeof info);
    gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK((got & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP));
    CHECK(info.gex_srcrank < mp_n);
    CHECK_PTR_EQ(info.gex_ep, mp_ep);
    if (got & GEX_TI_ENTRY) {
        const gex_AM_Entry_t *e = info.gex_entry;
        CHECK(e != NULL);
        CHECK_EQ(e->gex_index, d->index);
        CHECK_EQ(e->gex_nargs, k);
        CHECK_EQ(e->gex_flags, d->flags);
        CHECK(e->gex_fnptr == self);
        CHECK_PTR_EQ(e->gex_cdata, d);
    }
    if (got & GEX_TI_IS_REQ) CHECK_EQ(info.gex_is_req, is_req);
    if (got & GEX_TI_IS_LONG) CHECK_EQ(info.gex_is_long, cat == CAT_L);
    const gex_Rank_t s = info.gex_srcrank;
    if (cat == CAT_S) CHECK_EQ(nbytes, 0);

    if (!is_req) { /* a Reply: exactly the one we wait for */
        CHECK_MSG(reply_pending, "unexpected %s Reply (%u args) from %u", cat_name[cat], k,
                  (unsigned)s);
        CHECK_EQ(s, exp_src);
        CHECK_EQ(cat, exp_cat);
        CHECK_EQ(k, exp_k);
        CHECK_EQ(nbytes, exp_nbytes);
    }
    const uint32_t seq = k ? (uint32_t)a[0] : is_req ? 0 : exp_seq;
    if (!is_req && k) CHECK_EQ(seq, exp_seq);
    for (unsigned i = 1; i < k; i++)
        CHECK_MSG(a[i] == argval(s, cat, k, is_req, seq, i), "%s %s with %u args from %u: "
                  "arg %u is %d, want %d", cat_name[cat], is_req ? "Request" : "Reply", k,
                  (unsigned)s, i, (int)a[i], (int)argval(s, cat, k, is_req, seq, i));
    if (cat == CAT_L) {
        char *want = my_base + (is_req ? req_dest_off(s, k, nbytes) : rep_dest_off(k, nbytes));
        CHECK_PTR_EQ(buf, want); /* dest_addr as given, even for 0 bytes */
    }
    if (cat != CAT_S && nbytes) CHECK_PATTERN(buf, nbytes, pat_a(s, cat, is_req), pat_b(nbytes, k));

    if (!is_req) {
        CNT(count_rep, cat, k, s)++;
        reply_pending = 0;
        return;
    }
    CNT(count_req, cat, k, s)++;

    /* Reply with the same category and argument count */
    gex_Event_t ev = (gex_Event_t)(uintptr_t)0xbad0;
    const int use_ev = reply_uses_event(k, nbytes);
    gex_Event_t *lc = use_ev ? &ev : GEX_EVENT_NOW;
    size_t max = 0;
    if (cat == CAT_M) {
        max = gex_Token_MaxReplyMedium(t, lc, 0, k);
        CHECK_EQ(max, gex_AM_MaxReplyMedium(mp_tm, s, lc, 0, k));
    } else if (cat == CAT_L) {
        max = gex_Token_MaxReplyLong(t, lc, 0, k);
        CHECK_EQ(max, gex_AM_MaxReplyLong(mp_tm, s, lc, 0, k));
    }
    const size_t rn = reply_size(cat, k, nbytes, max);
    gex_AM_Arg_t ra[NK];
    for (unsigned i = 0; i < k; i++) ra[i] = argval(mp_me, cat, k, 0, seq, i);
    if (rn) mp_fill(rep_buf, rn, pat_a(mp_me, cat, 0), pat_b(rn, k));
    void *dest = cat == CAT_L ? owner_base[s] + rep_dest_off(k, rn) : NULL;
    const int macro = (seq + nbytes) % 4 == 3;
    const int immediate = (CNT(count_req, cat, k, s) % 5) == 4;
    replies_macro += macro;
    int rc = send_reply(cat, k, macro, t, desc[cat][k][0].index, rep_buf, rn, dest, lc,
                        immediate ? GEX_FLAG_IMMEDIATE : 0, ra);
    if (immediate) {
        replies_immediate++;
        if (rc) { /* a no-op: nothing was sent, so reply again without IMMEDIATE */
            replies_immediate_noop++;
            rc = send_reply(cat, k, macro, t, desc[cat][k][0].index, rep_buf, rn, dest, lc, 0,
                            ra);
        }
    }
    CHECK_EQ(rc, 0);
    if (cat != CAT_S && use_ev) CHECK_PTR_EQ(ev, GEX_EVENT_INVALID); /* complete at return */
    if (rn) memset(rep_buf, 0xee, rn); /* locally complete: the buffer is ours again */
}

/* ---- Phase 3: IMMEDIATE floods ---- */
#define H_IMM_S   (MP_H_FIRST_FREE + 0)
#define H_IMM_M   (MP_H_FIRST_FREE + 1)
#define H_IMM_L   (MP_H_FIRST_FREE + 2)
#define H_IMM_ACK (MP_H_FIRST_FREE + 3)
#define H_FLOOD   (MP_H_FIRST_FREE + 4)
#define IMM_S_COUNT 3000
#define IMM_M_COUNT 600
#define IMM_M_SIZE 1000
static uint8_t *imm_seen_s, *imm_seen_m; /* [sender][seq] */
static atomic_uint imm_count_s, imm_count_m, imm_long_count;
static volatile int imm_ack;

static void h_imm_s(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t src)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    CHECK_EQ(info.gex_srcrank, src);
    CHECK(seq >= 0 && seq < IMM_S_COUNT);
    uint8_t *seen = &imm_seen_s[(size_t)src * IMM_S_COUNT + (size_t)seq];
    CHECK_MSG(!*seen, "IMMEDIATE Short %d from %d arrived twice", (int)seq, (int)src);
    *seen = 1;
    atomic_fetch_add(&imm_count_s, 1);
}

static void h_imm_m(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    const gex_Rank_t src = info.gex_srcrank;
    CHECK(seq >= 0 && seq < IMM_M_COUNT);
    CHECK_EQ(nbytes, IMM_M_SIZE);
    CHECK_PATTERN(buf, nbytes, 3000 + src, (uint32_t)seq);
    uint8_t *seen = &imm_seen_m[(size_t)src * IMM_M_COUNT + (size_t)seq];
    CHECK_MSG(!*seen, "IMMEDIATE Medium %d from %u arrived twice", (int)seq, (unsigned)src);
    *seen = 1;
    atomic_fetch_add(&imm_count_m, 1);
}

static void h_imm_l(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq, gex_AM_Arg_t src)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK | GEX_TI_IS_LONG);
    CHECK_EQ(info.gex_srcrank, src);
    CHECK_PTR_EQ(buf, my_base + (size_t)src * SLOT + 5);
    CHECK_PATTERN(buf, nbytes, 4000 + (uint32_t)src, (uint32_t)seq);
    atomic_fetch_add(&imm_long_count, 1);
    CHECK_OK(gex_AM_ReplyShort1(t, H_IMM_ACK, 0, seq));
}

static void h_imm_ack(gex_Token_t t, gex_AM_Arg_t seq)
{
    (void)t, (void)seq;
    CHECK(!imm_ack);
    imm_ack = 1;
}

/* ---- Phase 4: many-to-one flood ---- */
#define FLOOD_SIZE 256
static unsigned flood_n;
static uint8_t *flood_seen;        /* rank 0: [sender][seq] */
static unsigned *flood_count;      /* rank 0: [sender] */
static uint64_t flood_sum;         /* rank 0: sum of every payload byte */
static atomic_uint flood_total;

static void h_flood(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq, gex_AM_Arg_t src)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    CHECK_EQ(info.gex_srcrank, src);
    CHECK(mp_me == 0);
    CHECK_EQ(nbytes, FLOOD_SIZE);
    CHECK(seq >= 0 && (unsigned)seq < flood_n);
    uint8_t *seen = &flood_seen[(size_t)src * flood_n + (size_t)seq];
    CHECK_MSG(!*seen, "flood message %d from %d arrived twice", (int)seq, (int)src);
    *seen = 1;
    flood_count[src]++;
    const uint8_t *p = buf;
    uint64_t sum = 0;
    for (size_t j = 0; j < nbytes; j++) sum += p[j];
    flood_sum += sum;
    atomic_fetch_add(&flood_total, 1);
}

static gex_Event_t *lc_for(unsigned variant, gex_Event_t *ev)
{
    return variant == 0 ? GEX_EVENT_NOW : variant == 1 ? ev : GEX_EVENT_GROUP;
}

/* After a Medium/Long Request returned: wait for local completion as the
 * lc_opt variant requires, then reuse (poison) the source buffer. */
static void complete_and_poison(unsigned variant, gex_Event_t ev, void *src, size_t nb)
{
    if (variant == 1) {
        CHECK_PTR_EQ(ev, GEX_EVENT_INVALID); /* complete on return */
        CHECK_EQ(gex_Event_Test(ev), 0);
        gex_Event_Wait(ev);
    } else if (variant == 2) {
        gex_NBI_Wait(GEX_EC_AM, 0);
        CHECK_EQ(gex_NBI_Test(GEX_EC_AM | GEX_EC_LC, 0), 0);
    }
    if (nb) memset(src, 0xdd, nb);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_AM", 0);
    const gex_Rank_t me = mp_me, n = mp_n;
    const char *fe = getenv("MP_AM_FLOOD");
    flood_n = fe && *fe ? (unsigned)strtoul(fe, NULL, 10) : 20000;

    /* ---- Handlers: phase 1 with automatic indices, the rest fixed ---- */
    mp_phase("register handlers");
    gex_AM_Entry_t table[NCAT * NK * 2];
    size_t ti = 0;
    for (int cat = 0; cat < NCAT; cat++) {
        for (unsigned k = 0; k < NK; k++) {
            for (int is_req = 1; is_req >= 0; is_req--) {
                struct hdesc *d = &desc[cat][k][is_req];
                static const gex_Flags_t catf[NCAT] = { GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM,
                                                        GEX_FLAG_AM_LONG };
                *d = (struct hdesc){ cat, k, is_req, 0,
                                     catf[cat] | (is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY),
                                     handler_fns[cat][k][is_req] };
                table[ti++] = (gex_AM_Entry_t){ 0, d->fn, d->flags, k, d, NULL };
            }
        }
    }
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, table, ti));
    ti = 0;
    for (int cat = 0; cat < NCAT; cat++)
        for (unsigned k = 0; k < NK; k++)
            for (int is_req = 1; is_req >= 0; is_req--, ti++) {
                /* zero entries get the highest free index, in table order */
                CHECK_EQ(table[ti].gex_index, 255 - ti);
                CHECK(table[ti].gex_fnptr == handler_fns[cat][k][is_req]); /* rest untouched */
                CHECK_EQ(table[ti].gex_nargs, k);
                desc[cat][k][is_req].index = table[ti].gex_index;
            }
    gex_AM_Entry_t fixed[] = {
        { H_IMM_S, (gex_AM_Fn_t)h_imm_s, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "imm_s" },
        { H_IMM_M, (gex_AM_Fn_t)h_imm_m, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "imm_m" },
        { H_IMM_L, (gex_AM_Fn_t)h_imm_l, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQREP, 2, NULL, "imm_l" },
        { H_IMM_ACK, (gex_AM_Fn_t)h_imm_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "ack" },
        { H_FLOOD, (gex_AM_Fn_t)h_flood, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "flood" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, fixed, sizeof fixed / sizeof fixed[0]));

    /* ---- Limits and segment ---- */
    size_t max_req_long = gex_AM_MaxRequestLong(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16);
    size_t max_rep_long = gex_AM_MaxReplyLong(mp_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16);
    big_len = max_req_long < max_rep_long ? max_req_long : max_rep_long;
    if (big_len > ((size_t)64 << 20)) big_len = (size_t)64 << 20; /* test at most 64 MiB */
    CHECK(big_len >= 512);
    big_slot = (big_len + 4096 + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    rep_off = (size_t)n * SLOT;
    big_req_off = rep_off + SLOT;
    big_rep_off = big_req_off + big_slot;
    seg_size = (big_rep_off + big_slot + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    mp_attach(seg_size);
    my_base = gex_Segment_QueryAddr(mp_seg);
    owner_base = calloc(n, sizeof *owner_base);
    count_req = calloc((size_t)NCAT * NK * n, sizeof *count_req);
    count_rep = calloc((size_t)NCAT * NK * n, sizeof *count_rep);
    size_t buf_len = big_len > SLOT ? big_len : SLOT;
    rep_buf = malloc(buf_len);
    char *req_buf = malloc(buf_len);
    CHECK(owner_base && count_req && count_rep && rep_buf && req_buf);
    for (gex_Rank_t r = 0; r < n; r++) {
        uintptr_t sz = 0;
        void *owner = NULL;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, r, &owner, NULL, &sz, 0));
        CHECK_EQ(sz, seg_size);
        owner_base[r] = owner;
    }

    /* ---- Phase 1: every category x nargs x destination x size ---- */
    mp_phase("sweep");
    static const size_t m_sizes[] = { 0, 1, 7, 8, 63, 512, 4096, 0 /* = MaxRequestMedium */ };
    static const size_t l_sizes[] = { 0, 1, 7, 8, 63, 512, 4096, 16389, SMALL_MAX };
    const unsigned n_msizes = sizeof m_sizes / sizeof m_sizes[0];
    const unsigned n_lsizes = sizeof l_sizes / sizeof l_sizes[0];
    uint32_t seq = 0;
    unsigned sent = 0, sent_macro = 0, lc_variants[3] = { 0, 0, 0 };
    size_t max_medium_seen = 0;
    for (int cat = 0; cat < NCAT; cat++) {
        for (unsigned k = 0; k < NK; k++) {
            for (gex_Rank_t i = 0; i < n; i++) {
                const gex_Rank_t r = (me + i) % n;
                const unsigned nsizes = cat == CAT_S ? 1 : cat == CAT_M ? n_msizes : n_lsizes;
                for (unsigned si = 0; si < nsizes; si++, seq++) {
                    const unsigned variant = seq % 3;
                    gex_Event_t ev = (gex_Event_t)(uintptr_t)0xbad1;
                    gex_Event_t *lc = lc_for(variant, &ev);
                    size_t nb = 0;
                    if (cat == CAT_M) {
                        /* the fixed sizes, at most MaxRequestMedium; then the maximum */
                        const size_t max = gex_AM_MaxRequestMedium(mp_tm, r, lc, 0, k);
                        nb = si == n_msizes - 1 || m_sizes[si] > max ? max : m_sizes[si];
                        if (nb > max_medium_seen) max_medium_seen = nb;
                    } else if (cat == CAT_L) {
                        nb = l_sizes[si];
                        CHECK(nb <= gex_AM_MaxRequestLong(mp_tm, r, lc, 0, k));
                    }
                    gex_AM_Arg_t a[NK];
                    for (unsigned j = 0; j < k; j++) a[j] = argval(me, cat, k, 1, seq, j);
                    if (nb) mp_fill(req_buf, nb, pat_a(me, cat, 1), pat_b(nb, k));
                    void *dest = cat == CAT_L ? owner_base[r] + req_dest_off(me, k, nb) : NULL;
                    /* what the Reply will be */
                    gex_Event_t rev;
                    gex_Event_t *rlc = reply_uses_event(k, nb) ? &rev : GEX_EVENT_NOW;
                    size_t rmax = cat == CAT_M ? gex_AM_MaxReplyMedium(mp_tm, r, rlc, 0, k)
                                : cat == CAT_L ? gex_AM_MaxReplyLong(mp_tm, r, rlc, 0, k) : 0;
                    exp_src = r;
                    exp_cat = cat;
                    exp_k = k;
                    exp_seq = seq;
                    exp_nbytes = reply_size(cat, k, nb, rmax);
                    reply_pending = 1;
                    const int macro = seq % 4 == 3;
                    CHECK_EQ(send_request(cat, k, macro, mp_tm, r, desc[cat][k][1].index,
                                          req_buf, nb, dest, lc, 0, a), 0);
                    if (cat != CAT_S) {
                        complete_and_poison(variant, ev, req_buf, nb);
                        lc_variants[variant]++;
                    }
                    sent++;
                    sent_macro += macro;
                    MP_POLL_UNTIL(!reply_pending);
                }
            }
        }
    }
    mp_barrier();

    /* ---- Phase 2: maximal Longs, to self, then to the right neighbour ---- */
    mp_phase("maximal Long");
    const unsigned big_k[2] = { 0, 16 };
    for (int step = 0; step < 2; step++) {
        if (step == 1 && n == 1) break;
        const gex_Rank_t r = step == 0 ? me : (me + 1) % n;
        for (unsigned bi = 0; bi < 2; bi++, seq++) {
            const unsigned k = big_k[bi];
            gex_AM_Arg_t a[NK];
            for (unsigned j = 0; j < k; j++) a[j] = argval(me, CAT_L, k, 1, seq, j);
            mp_fill(req_buf, big_len, pat_a(me, CAT_L, 1), pat_b(big_len, k));
            exp_src = r;
            exp_cat = CAT_L;
            exp_k = k;
            exp_seq = seq;
            exp_nbytes = big_len;
            reply_pending = 1;
            const unsigned variant = seq % 3;
            gex_Event_t ev = (gex_Event_t)(uintptr_t)0xbad2;
            CHECK_EQ(send_request(CAT_L, k, bi, mp_tm, r, desc[CAT_L][k][1].index, req_buf,
                                  big_len, owner_base[r] + req_dest_off(me, k, big_len),
                                  lc_for(variant, &ev), 0, a), 0);
            complete_and_poison(variant, ev, req_buf, big_len);
            MP_POLL_UNTIL(!reply_pending);
        }
        mp_barrier(); /* one sender per big region at a time */
    }

    /* ---- Exact counts of phases 1 and 2 ---- */
    mp_phase("sweep counts");
    const gex_Rank_t left = (me + n - 1) % n, right = (me + 1) % n;
    for (int cat = 0; cat < NCAT; cat++) {
        for (unsigned k = 0; k < NK; k++) {
            for (gex_Rank_t r = 0; r < n; r++) {
                unsigned want = cat == CAT_S ? 1 : cat == CAT_M ? n_msizes : n_lsizes;
                unsigned big_in = 0, big_out = 0;
                if (cat == CAT_L && (k == 0 || k == 16)) {
                    big_in = (r == me) + (n > 1 && r == left);
                    big_out = (r == me) + (n > 1 && r == right);
                }
                CHECK_MSG(CNT(count_req, cat, k, r) == want + big_in,
                          "%s Requests with %u args from rank %u: got %u, want %u",
                          cat_name[cat], k, (unsigned)r, CNT(count_req, cat, k, r), want + big_in);
                CHECK_MSG(CNT(count_rep, cat, k, r) == want + big_out,
                          "%s Replies with %u args from rank %u: got %u, want %u",
                          cat_name[cat], k, (unsigned)r, CNT(count_rep, cat, k, r), want + big_out);
            }
        }
    }

    /* ---- Phase 3: IMMEDIATE with polling peers ---- */
    mp_phase("IMMEDIATE floods");
    imm_seen_s = calloc((size_t)n * IMM_S_COUNT, 1);
    imm_seen_m = calloc((size_t)n * IMM_M_COUNT, 1);
    char *imm_buf = malloc(SMALL_MAX);
    CHECK(imm_seen_s && imm_seen_m && imm_buf);
    mp_barrier(); /* buffers exist everywhere before the first message */
    unsigned long noop_s = 0, noop_m = 0, noop_l = 0;
    for (int s = 0; s < IMM_S_COUNT; s++) {
        for (gex_Rank_t i = 0; i < n; i++) {
            gex_Rank_t r = (me + i + (gex_Rank_t)s) % n;
            unsigned spins = 0;
            while (gex_AM_RequestShort2(mp_tm, r, H_IMM_S, GEX_FLAG_IMMEDIATE, s,
                                        (gex_AM_Arg_t)me)) {
                noop_s++;
                gasnet_AMPoll();
                if (++spins > 8) sched_yield();
            }
            if (s < IMM_M_COUNT) {
                mp_fill(imm_buf, IMM_M_SIZE, 3000 + me, (uint32_t)s);
                spins = 0;
                while (gex_AM_RequestMedium1(mp_tm, r, H_IMM_M, imm_buf, IMM_M_SIZE,
                                             GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE, s)) {
                    noop_m++;
                    gasnet_AMPoll();
                    if (++spins > 8) sched_yield();
                }
                memset(imm_buf, 0xcc, IMM_M_SIZE);
            }
        }
    }
    MP_POLL_UNTIL(atomic_load(&imm_count_s) == n * IMM_S_COUNT &&
                  atomic_load(&imm_count_m) == n * IMM_M_COUNT);
    /* IMMEDIATE Longs, one at a time to each rank */
    static const size_t imm_l_sizes[] = { 1, 512, 4096, 8 };
    unsigned imm_long_sent = 0;
    for (gex_Rank_t i = 0; i < n; i++) {
        gex_Rank_t r = (me + i) % n;
        for (unsigned si = 0; si < sizeof imm_l_sizes / sizeof imm_l_sizes[0]; si++) {
            const size_t nb = imm_l_sizes[si];
            mp_fill(imm_buf, nb, 4000 + me, (uint32_t)si);
            imm_ack = 0;
            unsigned spins = 0;
            while (gex_AM_RequestLong2(mp_tm, r, H_IMM_L, imm_buf, nb,
                                       owner_base[r] + (size_t)me * SLOT + 5, GEX_EVENT_NOW,
                                       GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)si, (gex_AM_Arg_t)me)) {
                noop_l++;
                gasnet_AMPoll();
                if (++spins > 8) sched_yield();
            }
            memset(imm_buf, 0xcc, nb);
            imm_long_sent++;
            MP_POLL_UNTIL(imm_ack);
        }
    }
    mp_barrier();
    CHECK_EQ(atomic_load(&imm_long_count), imm_long_sent); /* same sizes from every rank */
    for (size_t j = 0; j < (size_t)n * IMM_S_COUNT; j++) CHECK(imm_seen_s[j]);
    for (size_t j = 0; j < (size_t)n * IMM_M_COUNT; j++) CHECK(imm_seen_m[j]);
    CHECK_EQ(atomic_load(&imm_count_s), n * IMM_S_COUNT); /* exactly once */
    CHECK_EQ(atomic_load(&imm_count_m), n * IMM_M_COUNT);

    /* ---- Phase 4: many-to-one Medium flood into rank 0 ---- */
    mp_phase("many-to-one flood");
    if (me == 0) {
        flood_seen = calloc((size_t)n * flood_n, 1);
        flood_count = calloc(n, sizeof *flood_count);
        CHECK(flood_seen && flood_count);
    }
    mp_barrier();
    char flood_buf[FLOOD_SIZE];
    for (unsigned s = 0; s < flood_n; s++) {
        mp_fill(flood_buf, FLOOD_SIZE, 7000 + me, s);
        CHECK_OK(gex_AM_RequestMedium2(mp_tm, 0, H_FLOOD, flood_buf, FLOOD_SIZE, GEX_EVENT_NOW,
                                       0, (gex_AM_Arg_t)s, (gex_AM_Arg_t)me));
    }
    if (me == 0) {
        MP_POLL_UNTIL(atomic_load(&flood_total) == n * flood_n);
        uint64_t want_sum = 0;
        for (gex_Rank_t r = 0; r < n; r++) {
            CHECK_MSG(flood_count[r] == flood_n, "flood: %u messages from rank %u, want %u",
                      flood_count[r], (unsigned)r, flood_n);
            for (unsigned s = 0; s < flood_n; s++) {
                mp_fill(flood_buf, FLOOD_SIZE, 7000 + r, s);
                for (size_t j = 0; j < FLOOD_SIZE; j++) want_sum += (uint8_t)flood_buf[j];
            }
        }
        CHECK_EQ(flood_sum, want_sum);
        for (size_t j = 0; j < (size_t)n * flood_n; j++) CHECK(flood_seen[j]);
    }
    mp_barrier();
    CHECK_EQ(atomic_load(&flood_total), me == 0 ? n * flood_n : 0);

    free(req_buf);
    free(imm_buf);
    mp_finish("%u round trips (%u via macros, lc NOW/event/GROUP %u/%u/%u), max Medium %zu, "
              "max Long %zu; IMMEDIATE %u Shorts + %u Mediums + %u Longs per rank exactly once "
              "(%lu/%lu/%lu no-ops retried), replies %u IMMEDIATE (%u no-ops); flood %u x %u",
              sent, sent_macro, lc_variants[0], lc_variants[1], lc_variants[2],
              max_medium_seen, big_len, n * IMM_S_COUNT, n * IMM_M_COUNT, imm_long_sent,
              noop_s, noop_m, noop_l, replies_immediate, replies_immediate_noop,
              (unsigned)n, flood_n);
}
