/*
 * test_tools_format.c: Check unit tests of the gasnett_format_* helpers
 * (libgex-core/tools_format.c) that gasnet_tools.h declares for GASNet-EX
 * clients.
 *
 *  - the exact text of each formatter for representative inputs (64-bit
 *    hosts: the expected addresses are written as "0x%08x %08x");
 *  - the statistics and return values (bytes moved, stats structs);
 *  - every *_bufsz bound against the widest inputs (largest sizes, lowest
 *    strides, highest addresses and ranks): the text fits with room to
 *    spare (so nothing was cut) and no byte past the bound is written;
 *  - gasnett_format_dt/op/ti: names joined by '|', "(empty)", unnamed bits,
 *    the NULL-buffer length query, every subset of the DT and TI sets;
 *  - the peer names of the primordial team and of TM-pairs (in a singleton
 *    job in a child process).
 *
 * gasnet_tools.h is included before gasnetex.h on purpose: the formatting
 * section must still appear when gasnetex.h comes second.
 */
#define GASNETT_THREAD_SAFE 1
#include <gasnet_tools.h>
#include <gasnetex.h>

#include "unit_child.h"

#ifndef GEXI_TOOLS_FORMAT_DECLARED
#error "gasnet_tools.h then gasnetex.h: the gasnett_format_* section is missing"
#endif

#define A(x) ((void *)(uintptr_t)(x))
#define GUARD 64
#define CANARY 0x5a

/* A buffer of exactly n bytes followed by GUARD canary bytes. */
static char *guarded(size_t n)
{
    char *b = malloc(n + GUARD);
    ck_assert_ptr_nonnull(b);
    memset(b, CANARY, n + GUARD);
    return b;
}

/* The text and its NUL fit the bound (with exact == 0, with a byte to
 * spare: a text cut short would fill the buffer to its last byte) and
 * nothing past the bound was touched. */
static void check_fits_ex(const char *b, size_t n, const char *what, int exact)
{
    size_t len = strlen(b);
    ck_assert_msg(len + (exact ? 1 : 2) <= n, "%s: %zu characters for a bound of %zu", what,
                  len, n);
    for (size_t i = n; i < n + GUARD; i++)
        ck_assert_msg((unsigned char)b[i] == CANARY, "%s: byte %zu past the bound written", what,
                      i - n);
}
#define check_fits(b, n, what) check_fits_ex(b, n, what, 0)

#if UINTPTR_MAX > 0xFFFFFFFFu
#define HAVE_64 1
#else
#define HAVE_64 0
#endif

/* ---- Vector ---- */
START_TEST(test_memveclist)
{
    gex_Memvec_t list[5] = {
        { A(0x1000), 16 }, { A(0x2000), 0 }, { A(0x0ff0), 8 }, { A(0x3000), 100 }, { A(0x5000), 1 },
    };
    size_t n = gasnett_format_memveclist_bufsz(5);
    char *b = guarded(n);
    gasneti_memveclist_stats_t s = gasnett_format_memveclist(b, 5, list);
    check_fits(b, n, "memveclist");
    ck_assert_uint_eq(s._totalsz, 125);
    ck_assert_uint_eq(s._minsz, 1);
    ck_assert_uint_eq(s._maxsz, 100);
    ck_assert_ptr_eq(s._minaddr, A(0x0ff0));
    ck_assert_ptr_eq(s._maxaddr, A(0x5000));
    if (HAVE_64)
        ck_assert_str_eq(b,
            "5 entries, totalsz=125, bounds=[0x00000000 00000ff0...0x00000000 00005000]\n"
            "list=[{0x00000000 00001000,   16}, {0x00000000 00002000,    0}, "
            "{0x00000000 00000ff0,    8}, {0x00000000 00003000,  100},\n"
            "      {0x00000000 00005000,    1}]");
    free(b);

    /* empty list, and a list of empty entries */
    n = gasnett_format_memveclist_bufsz(0);
    b = guarded(n);
    s = gasnett_format_memveclist(b, 0, NULL);
    check_fits(b, n, "memveclist(0)");
    ck_assert_str_eq(b, "0 entries, totalsz=0, bounds=[]\nlist=[]");
    ck_assert_uint_eq(s._totalsz, 0);
    ck_assert_uint_eq(s._minsz, SIZE_MAX);
    ck_assert_uint_eq(s._maxsz, 0);
    ck_assert_ptr_eq(s._minaddr, A(UINTPTR_MAX));
    ck_assert_ptr_null(s._maxaddr);
    free(b);
    n = gasnett_format_memveclist_bufsz(1);
    b = guarded(n);
    gasnett_format_memveclist(b, 1, list + 1);
    if (HAVE_64)
        ck_assert_str_eq(b, "1 entries, totalsz=0, bounds=[]\nlist=[{0x00000000 00002000,    0}]");
    free(b);
}
END_TEST

START_TEST(test_putvgetv)
{
    gex_Memvec_t dst[1] = { { A(0x1000), 8 } };
    gex_Memvec_t src[2] = { { A(0x2000), 4 }, { A(0x3000), 4 } };
    size_t n = gasnett_format_putvgetv_bufsz(1, 2);
    char *b = guarded(n);
    size_t bytes = gasnett_format_putvgetv(b, GEX_TM_INVALID, 3, 1, dst, 2, src);
    check_fits(b, n, "putvgetv");
    ck_assert_uint_eq(bytes, 8);
    if (HAVE_64)
        ck_assert_str_eq(b,
            "(8 data bytes) peer=JOB:3\n"
            "dst: 1 entries, totalsz=8, bounds=[0x00000000 00001000...0x00000000 00001007]\n"
            "list=[{0x00000000 00001000,    8}]\n"
            "src: 2 entries, totalsz=8, bounds=[0x00000000 00002000...0x00000000 00003003]\n"
            "list=[{0x00000000 00002000,    4}, {0x00000000 00003000,    4}]");
    free(b);

    /* a team handle GEX does not know as the primordial team or a pair */
    n = gasnett_format_putvgetv_bufsz(0, 0);
    b = guarded(n);
    bytes = gasnett_format_putvgetv(b, (gex_TM_t)A(0x1230), 7, 0, NULL, 0, NULL);
    check_fits(b, n, "putvgetv(0,0)");
    ck_assert_uint_eq(bytes, 0);
    ck_assert_str_eq(b, "(0 data bytes) peer=TM(0x1230):7\n"
                        "dst: 0 entries, totalsz=0, bounds=[]\nlist=[]\n"
                        "src: 0 entries, totalsz=0, bounds=[]\nlist=[]");
    free(b);
}
END_TEST

/* ---- Indexed ---- */
START_TEST(test_addrlist)
{
    void *list[9];
    for (int i = 0; i < 8; i++) list[i] = A(0x1000 + 0x10 * i);
    list[8] = HAVE_64 ? A((uintptr_t)0x7fff12345678u) : A(0x12345678);
    size_t n = gasnett_format_addrlist_bufsz(9);
    char *b = guarded(n);
    gasneti_addrlist_stats_t s = gasnett_format_addrlist(b, 9, list, 4);
    check_fits(b, n, "addrlist");
    ck_assert_ptr_eq(s._minaddr, A(0x1000));
    ck_assert_ptr_eq(s._maxaddr, (char *)list[8] + 3);
    if (HAVE_64)
        ck_assert_str_eq(b,
            "9 entries, totalsz=36, len=4, bounds=[0x00000000 00001000...0x00007fff 1234567b]\n"
            "list=[0x00000000 00001000, 0x00000000 00001010, 0x00000000 00001020, "
            "0x00000000 00001030, 0x00000000 00001040, 0x00000000 00001050, "
            "0x00000000 00001060, 0x00000000 00001070,\n"
            "      0x00007fff 12345678]");
    free(b);

    n = gasnett_format_addrlist_bufsz(0);
    b = guarded(n);
    s = gasnett_format_addrlist(b, 0, NULL, 8);
    check_fits(b, n, "addrlist(0)");
    ck_assert_str_eq(b, "0 entries, totalsz=0, len=8, bounds=[]\nlist=[]");
    ck_assert_ptr_eq(s._minaddr, A(UINTPTR_MAX));
    ck_assert_ptr_null(s._maxaddr);
    free(b);
}
END_TEST

START_TEST(test_putigeti)
{
    void *dst[2] = { A(0x1000), A(0x1100) };
    void *src[4] = { A(0x2000), A(0x2004), A(0x2008), A(0x200c) };
    size_t n = gasnett_format_putigeti_bufsz(2, 4);
    char *b = guarded(n);
    size_t bytes = gasnett_format_putigeti(b, GEX_TM_INVALID, 0, 2, dst, 8, 4, src, 4);
    check_fits(b, n, "putigeti");
    ck_assert_uint_eq(bytes, 16);
    if (HAVE_64)
        ck_assert_str_eq(b,
            "(16 data bytes) peer=JOB:0\n"
            "dst: 2 entries, totalsz=16, len=8, bounds=[0x00000000 00001000...0x00000000 00001107]\n"
            "list=[0x00000000 00001000, 0x00000000 00001100]\n"
            "src: 4 entries, totalsz=16, len=4, bounds=[0x00000000 00002000...0x00000000 0000200f]\n"
            "list=[0x00000000 00002000, 0x00000000 00002004, 0x00000000 00002008, "
            "0x00000000 0000200c]");
    free(b);
}
END_TEST

/* ---- Strided ---- */
START_TEST(test_strides)
{
    const ptrdiff_t list[4] = { 8, -16, 0, PTRDIFF_MIN };
    size_t n = gasnett_format_strides_bufsz(4);
    char *b = guarded(n);
    gasnett_format_strides(b, 4, list);
    check_fits(b, n, "strides");
    if (PTRDIFF_MIN == INT64_MIN) ck_assert_str_eq(b, "[8, -16, 0, -9223372036854775808]");
    free(b);
    n = gasnett_format_strides_bufsz(1);
    b = guarded(n);
    gasnett_format_strides(b, 1, list + 1);
    ck_assert_str_eq(b, "[-16]");
    free(b);
    n = gasnett_format_strides_bufsz(0);
    b = guarded(n);
    gasnett_format_strides(b, 0, NULL);
    check_fits_ex(b, n, "strides(0)", 1); /* "[]": the bound is exact */
    ck_assert_str_eq(b, "[]");
    free(b);
}
END_TEST

START_TEST(test_putsgets)
{
    const ptrdiff_t dststrides[2] = { 16, 256 }, srcstrides[2] = { -8, 64 };
    const size_t count[2] = { 3, 2 };
    size_t n = gasnett_format_putsgets_bufsz(2);
    char *b = guarded(n);
    size_t bytes = gasnett_format_putsgets(b, NULL, GEX_TM_INVALID, 1, A(0x10000), dststrides,
                                           A(0x20000), srcstrides, 4, count, 2);
    check_fits(b, n, "putsgets");
    ck_assert_uint_eq(bytes, 24);
    if (HAVE_64)
        ck_assert_str_eq(b,
            "(24 data bytes) peer=JOB:1 stridelevels=2 elemsz=4 count=[3, 2]\n"
            "dst: dstaddr=0x00000000 00010000 dststrides=[16, 256]\n"
            "     extent=292 bounds=[0x00000000 00010000...0x00000000 00010123]\n"
            "src: srcaddr=0x00000000 00020000 srcstrides=[-8, 64]\n"
            "     extent=84 bounds=[0x00000000 0001fff0...0x00000000 00020043]");
    free(b);

    /* no stride levels: one element */
    n = gasnett_format_putsgets_bufsz(0);
    b = guarded(n);
    bytes = gasnett_format_putsgets(b, NULL, GEX_TM_INVALID, 0, A(0x1000), NULL, A(0x2000), NULL,
                                    8, NULL, 0);
    check_fits(b, n, "putsgets(0)");
    ck_assert_uint_eq(bytes, 8);
    if (HAVE_64)
        ck_assert_str_eq(b,
            "(8 data bytes) peer=JOB:0 stridelevels=0 elemsz=8 count=[]\n"
            "dst: dstaddr=0x00000000 00001000 dststrides=[]\n"
            "     extent=8 bounds=[0x00000000 00001000...0x00000000 00001007]\n"
            "src: srcaddr=0x00000000 00002000 srcstrides=[]\n"
            "     extent=8 bounds=[0x00000000 00002000...0x00000000 00002007]");
    free(b);

    /* empty transfer: a zero count */
    const size_t zero[2] = { 3, 0 };
    n = gasnett_format_putsgets_bufsz(2);
    b = guarded(n);
    bytes = gasnett_format_putsgets(b, NULL, GEX_TM_INVALID, 2, A(0x10000), dststrides,
                                    A(0x20000), srcstrides, 4, zero, 2);
    check_fits(b, n, "putsgets(empty)");
    ck_assert_uint_eq(bytes, 0);
    if (HAVE_64)
        ck_assert_str_eq(b,
            "(0 data bytes) peer=JOB:2 stridelevels=2 elemsz=4 count=[3, 0]\n"
            "dst: dstaddr=0x00000000 00010000 dststrides=[16, 256]\n"
            "     extent=0 bounds=[]\n"
            "src: srcaddr=0x00000000 00020000 srcstrides=[-8, 64]\n"
            "     extent=0 bounds=[]");
    free(b);
}
END_TEST

/* ---- Bounds: the widest possible inputs ---- */
#define WIDE 13
START_TEST(test_bufsz_worst_case)
{
    gex_Memvec_t mv[WIDE];
    void *al[WIDE];
    ptrdiff_t st[WIDE];
    size_t cnt[WIDE];
    for (int i = 0; i < WIDE; i++) {
        mv[i].gex_addr = A(UINTPTR_MAX - 1);
        mv[i].gex_len = SIZE_MAX;
        al[i] = A(UINTPTR_MAX);
        st[i] = PTRDIFF_MIN;
        cnt[i] = SIZE_MAX;
    }
    gex_TM_t widest_tm = (gex_TM_t)A(UINTPTR_MAX - 1); /* "TM(0xff...fe)" */
    const gex_Rank_t rank = GEX_RANK_INVALID;
    for (size_t k = 0; k <= WIDE; k++) {
        size_t n = gasnett_format_memveclist_bufsz(k);
        char *b = guarded(n);
        gasnett_format_memveclist(b, k, mv);
        check_fits(b, n, "memveclist");
        ck_assert(b[strlen(b) - 1] == ']');
        free(b);

        n = gasnett_format_putvgetv_bufsz(k, WIDE - k);
        b = guarded(n);
        gasnett_format_putvgetv(b, widest_tm, rank, k, mv, WIDE - k, mv);
        check_fits(b, n, "putvgetv");
        ck_assert(b[strlen(b) - 1] == ']');
        free(b);

        n = gasnett_format_addrlist_bufsz(k);
        b = guarded(n);
        gasnett_format_addrlist(b, k, al, SIZE_MAX);
        check_fits(b, n, "addrlist");
        ck_assert(b[strlen(b) - 1] == ']');
        free(b);

        n = gasnett_format_putigeti_bufsz(WIDE - k, k);
        b = guarded(n);
        gasnett_format_putigeti(b, widest_tm, rank, WIDE - k, al, SIZE_MAX, k, al, SIZE_MAX);
        check_fits(b, n, "putigeti");
        ck_assert(b[strlen(b) - 1] == ']');
        free(b);

        n = gasnett_format_strides_bufsz(k);
        b = guarded(n);
        gasnett_format_strides(b, k, st);
        check_fits_ex(b, n, "strides", k == 0);
        /* whole: k numbers of 20 characters, ", " between, brackets */
        if (PTRDIFF_MIN == INT64_MIN) ck_assert_uint_eq(strlen(b), k ? 22 * k : 2);
        free(b);

        /* SIZE_MAX everywhere: the widest counts, sizes and extents */
        n = gasnett_format_putsgets_bufsz(k);
        b = guarded(n);
        gasnett_format_putsgets(b, NULL, widest_tm, rank, A(UINTPTR_MAX), st, A(UINTPTR_MAX), st,
                                SIZE_MAX, cnt, k);
        check_fits(b, n, "putsgets");
        ck_assert(b[strlen(b) - 1] == ']');
        free(b);
    }
}
END_TEST

/* ---- Sets ---- */
typedef size_t (*set_fn)(char *, uint32_t);

/* fn(buf, v) writes `want` and returns its size with the NUL, which is
 * also what fn(NULL, v) returns. */
static void check_set(set_fn fn, uint32_t v, const char *want)
{
    size_t n = fn(NULL, v);
    char *b = guarded(n);
    size_t rc = fn(b, v);
    ck_assert_uint_eq(rc, n);
    ck_assert_uint_eq(strlen(b) + 1, n);
    for (size_t i = n; i < n + GUARD; i++) ck_assert_int_eq((unsigned char)b[i], CANARY);
    if (want) ck_assert_str_eq(b, want);
    free(b);
}

static size_t fmt_dt(char *b, uint32_t v) { return gasnett_format_dt(b, (gex_DT_t)v); }
static size_t fmt_op(char *b, uint32_t v) { return gasnett_format_op(b, (gex_OP_t)v); }
static size_t fmt_ti(char *b, uint32_t v) { return gasnett_format_ti(b, (gex_TI_t)v); }

START_TEST(test_format_dt)
{
    check_set(fmt_dt, 0, "(empty)");
    ck_assert_uint_eq(gasnett_format_dt(NULL, 0), sizeof "(empty)");
    check_set(fmt_dt, GEX_DT_I32, "GEX_DT_I32");
    check_set(fmt_dt, GEX_DT_U32, "GEX_DT_U32");
    check_set(fmt_dt, GEX_DT_I64, "GEX_DT_I64");
    check_set(fmt_dt, GEX_DT_U64, "GEX_DT_U64");
    check_set(fmt_dt, GEX_DT_FLT, "GEX_DT_FLT");
    check_set(fmt_dt, GEX_DT_DBL, "GEX_DT_DBL");
    check_set(fmt_dt, GEX_DT_USER, "GEX_DT_USER");
    check_set(fmt_dt, GEX_DT_I32 | GEX_DT_DBL, "GEX_DT_I32|GEX_DT_DBL");
    check_set(fmt_dt, GEX_DT_I32 | GEX_DT_U32 | GEX_DT_I64 | GEX_DT_U64 | GEX_DT_FLT | GEX_DT_DBL |
                      GEX_DT_USER,
              "GEX_DT_I32|GEX_DT_U32|GEX_DT_I64|GEX_DT_U64|GEX_DT_FLT|GEX_DT_DBL|GEX_DT_USER");
    check_set(fmt_dt, GEX_DT_I64 | 0x80000000u, "GEX_DT_I64|0x80000000");
    check_set(fmt_dt, 0x80000000u, "0x80000000");
    check_set(fmt_dt, 0xFFFFFFFFu, NULL);
    /* every subset */
    const uint32_t all = GEX_DT_I32 | GEX_DT_U32 | GEX_DT_I64 | GEX_DT_U64 | GEX_DT_FLT |
                         GEX_DT_DBL | GEX_DT_USER;
    for (uint32_t v = all;; v = (v - 1) & all) {
        check_set(fmt_dt, v, NULL);
        if (!v) break;
    }
}
END_TEST

START_TEST(test_format_op)
{
    check_set(fmt_op, 0, "(empty)");
    check_set(fmt_op, GEX_OP_ADD, "GEX_OP_ADD");
    check_set(fmt_op, GEX_OP_FADD, "GEX_OP_FADD");
    check_set(fmt_op, GEX_OP_CSWAP, "GEX_OP_FCAS");
    check_set(fmt_op, GEX_OP_USER_NC, "GEX_OP_USER_NC");
    check_set(fmt_op, GEX_OP_AND | GEX_OP_CAS | GEX_OP_GET, "GEX_OP_AND|GEX_OP_CAS|GEX_OP_GET");
    check_set(fmt_op, GEX_OP_SET | GEX_OP_SWAP, "GEX_OP_SET|GEX_OP_SWAP");
    static const struct { gex_OP_t op; const char *name; } ops[] = {
#define OP(x) { GEX_OP_##x, "GEX_OP_" #x }
        OP(AND), OP(OR), OP(XOR), OP(ADD), OP(SUB), OP(MULT), OP(MIN), OP(MAX), OP(INC),
        OP(DEC), OP(SET), OP(CAS), OP(FAND), OP(FOR), OP(FXOR), OP(FADD), OP(FSUB), OP(FMULT),
        OP(FMIN), OP(FMAX), OP(FINC), OP(FDEC), OP(SWAP), OP(FCAS), OP(GET), OP(USER),
        OP(USER_NC),
#undef OP
    };
    gex_OP_t every = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        check_set(fmt_op, ops[i].op, ops[i].name);
        every |= ops[i].op;
    }
    check_set(fmt_op, every, NULL);
    check_set(fmt_op, 0xFFFFFFFFu, NULL);
    /* all of them, each name once */
    char buf[1024];
    ck_assert_uint_lt(gasnett_format_op(NULL, every), sizeof buf);
    gasnett_format_op(buf, every);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char needle[32];
        snprintf(needle, sizeof needle, "|%s|", ops[i].name);
        char hay[1100];
        snprintf(hay, sizeof hay, "|%s|", buf);
        ck_assert_msg(strstr(hay, needle), "%s missing from %s", ops[i].name, buf);
    }
}
END_TEST

START_TEST(test_format_ti)
{
    check_set(fmt_ti, 0, "(empty)");
    check_set(fmt_ti, GEX_TI_SRCRANK, "GEX_TI_SRCRANK");
    check_set(fmt_ti, GEX_TI_EP, "GEX_TI_EP");
    check_set(fmt_ti, GEX_TI_ENTRY, "GEX_TI_ENTRY");
    check_set(fmt_ti, GEX_TI_IS_REQ, "GEX_TI_IS_REQ");
    check_set(fmt_ti, GEX_TI_IS_LONG, "GEX_TI_IS_LONG");
    check_set(fmt_ti, GEX_TI_ALL,
              "GEX_TI_SRCRANK|GEX_TI_EP|GEX_TI_ENTRY|GEX_TI_IS_REQ|GEX_TI_IS_LONG");
    for (uint32_t v = GEX_TI_ALL;; v = (v - 1) & GEX_TI_ALL) {
        check_set(fmt_ti, v, NULL);
        if (!v) break;
    }
}
END_TEST

/* gasnett_format_number (gasnet_tools.h inline) hands back the buffer. */
START_TEST(test_format_number)
{
    char buf[32];
    ck_assert_ptr_eq(gasnett_format_number(3 << 20, buf, sizeof buf, 1), buf);
    ck_assert_str_eq(buf, "3MB");
    ck_assert_ptr_eq(gasnett_format_number(-7, buf, sizeof buf, 0), buf);
    ck_assert_str_eq(buf, "-7");
}
END_TEST

/* ---- Peers in a job: the primordial team and TM-pairs ---- */
static void peer_of(char *out, size_t outsz, gex_TM_t tm, gex_Rank_t rank)
{
    size_t n = gasnett_format_putvgetv_bufsz(0, 0);
    char *b = malloc(n);
    CHILD_CHECK(b != NULL);
    gasnett_format_putvgetv(b, tm, rank, 0, NULL, 0, NULL);
    const char *p = strstr(b, "peer=");
    CHILD_CHECK(p != NULL);
    p += 5;
    size_t len = strcspn(p, "\n");
    CHILD_CHECK(len < outsz);
    memcpy(out, p, len);
    out[len] = 0;
    free(b);
}

static void peer_job(void *arg)
{
    (void)arg;
    gex_Client_t client;
    gex_EP_t ep0, ep1;
    gex_TM_t tm;
    char peer[64];
    CHILD_CHECK_EQ(gex_Client_Init(&client, &ep0, &tm, "UNIT_FMT", NULL, NULL, 0), GASNET_OK);
    CHILD_CHECK_EQ(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0), GASNET_OK);
    peer_of(peer, sizeof peer, tm, 0);
    CHILD_CHECK(strcmp(peer, "TM0:0") == 0);
    peer_of(peer, sizeof peer, gex_TM_Pair(ep0, 3), 0);
    CHILD_CHECK(strcmp(peer, "TM_PAIR(0,3):0") == 0);
    peer_of(peer, sizeof peer, gex_TM_Pair(ep1, 10), 0);
    CHILD_CHECK(strcmp(peer, "TM_PAIR(1,a):0") == 0);
    peer_of(peer, sizeof peer, GEX_TM_INVALID, 0);
    CHILD_CHECK(strcmp(peer, "JOB:0") == 0);
    /* a strided descriptor on the primordial team */
    const ptrdiff_t strides[1] = { 8 };
    const size_t count[1] = { 2 };
    size_t n = gasnett_format_putsgets_bufsz(1);
    char *b = malloc(n);
    CHILD_CHECK(b != NULL);
    CHILD_CHECK_EQ(gasnett_format_putsgets(b, NULL, tm, 0, A(0x100), strides, A(0x200), strides,
                                           8, count, 1),
                   16);
    CHILD_CHECK(strncmp(b, "(16 data bytes) peer=TM0:0 stridelevels=1 elemsz=8 count=[2]\n", 61) ==
                0);
    free(b);
}

START_TEST(test_peer_names)
{
    struct child_result res;
    run_child(peer_job, NULL, &res);
    ck_assert_child_ok(&res);
}
END_TEST

static Suite *format_suite(void)
{
    Suite *s = suite_create("tools_format");
    TCase *tc = tcase_create("vis");
    tcase_add_test(tc, test_memveclist);
    tcase_add_test(tc, test_putvgetv);
    tcase_add_test(tc, test_addrlist);
    tcase_add_test(tc, test_putigeti);
    tcase_add_test(tc, test_strides);
    tcase_add_test(tc, test_putsgets);
    tcase_add_test(tc, test_bufsz_worst_case);
    suite_add_tcase(s, tc);
    tc = tcase_create("sets");
    tcase_add_test(tc, test_format_dt);
    tcase_add_test(tc, test_format_op);
    tcase_add_test(tc, test_format_ti);
    tcase_add_test(tc, test_format_number);
    suite_add_tcase(s, tc);
    tc = tcase_create("job");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_peer_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(format_suite()) == 0 ? 0 : 1;
}
