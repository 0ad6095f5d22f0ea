/*
 * tools_format.c: the gasnett_format_* text forms of VIS descriptors and of
 * gex_DT_t / gex_OP_t / gex_TI_t sets that gasnet_tools.h declares for
 * GASNet-EX clients (the section after its include guard).
 *
 * The layout follows GASNet-EX's trace output, so a message from a client
 * reads the same on both: addresses as "0x%08x %08x" (high and low 32-bit
 * halves) on 64-bit hosts, memvec entries as "{addr,  len}", four memvecs or
 * eight addresses to a line, a peer as "TEAM:rank".  A team is "TM0" for the
 * primordial team, "TM_PAIR(local,remote)" (endpoint indices, in hex) for a
 * TM-pair, "JOB" for GEX_TM_INVALID (job ranks) and "TM(handle)" for any
 * other team (GEX numbers no teams).
 *
 * Sizes: every *_bufsz is computed from the widest possible rendering of
 * each field (20 digits for a size_t, 20 characters for a ptrdiff_t, 19 for
 * an address), and every formatter also stops at that bound, so a buffer of
 * *_bufsz bytes is never overrun whatever the input.
 */
#include "core_internal.h"
#include <gasnet_tools.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Widest renderings (characters, no NUL). */
#define FMT_SIZE_MAX 20  /* 18446744073709551615 */
#define FMT_PTRDIFF_MAX 20 /* -9223372036854775808 */
#define FMT_ADDR_MAX 19  /* 0x00007fff ffffffff */
#define FMT_RANK_MAX 10  /* 4294967295 */
#define FMT_TM_MAX 26    /* TM_PAIR(ffffffff,ffffffff) */
#define FMT_SEP_MAX 8    /* ",\n" and six spaces of indentation */
#define FMT_INDENT "      "

#define MEMVECS_PER_LINE 4
#define ADDRS_PER_LINE 8

/* x * y + z, or SIZE_MAX when that does not fit: a bound, never a wrap. */
static size_t sat_muladd(size_t x, size_t y, size_t z)
{
    if (y && x > (SIZE_MAX - z) / y) return SIZE_MAX;
    return x * y + z;
}

static size_t sat_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

/* ---- Bounded appending ---- */
struct out {
    char *p;      /* the terminating NUL */
    size_t left;  /* bytes from p to the end of the buffer, that NUL's included */
};

static struct out out_start(char *buf, size_t cap)
{
    struct out o = { buf, cap };
    if (cap) buf[0] = 0;
    return o;
}

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
    if (o->left <= 1) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->p, o->left, fmt, ap);
    va_end(ap);
    if (n < 0) {
        o->p[0] = 0;
        return;
    }
    size_t k = (size_t)n < o->left - 1 ? (size_t)n : o->left - 1;
    o->p += k;
    o->left -= k;
}

static void put_addr(struct out *o, const void *addr)
{
    uintptr_t a = (uintptr_t)addr;
#if UINTPTR_MAX > 0xFFFFFFFFu
    put(o, "0x%08" PRIx32 " %08" PRIx32, (uint32_t)(a >> 32), (uint32_t)a);
#else
    put(o, "0x%08" PRIxPTR, a);
#endif
}

/* Low and high byte addresses of a stats range, or "[]" for nothing. */
static void put_bounds(struct out *o, const void *lo, const void *hi, int empty)
{
    if (empty) {
        put(o, "[]");
        return;
    }
    put(o, "[");
    put_addr(o, lo);
    put(o, "...");
    put_addr(o, hi);
    put(o, "]");
}

/* Between the entries of a list: a line break after every per_line. */
static void put_sep(struct out *o, size_t i, size_t count, size_t per_line)
{
    if (i + 1 == count) return;
    if ((i + 1) % per_line == 0) put(o, ",\n" FMT_INDENT);
    else put(o, ", ");
}

static void put_tm_rank(struct out *o, gex_TM_t tm, gex_Rank_t rank)
{
    if (tm == GEX_TM_INVALID) {
        put(o, "JOB");
    } else if (gexi_tm_is_pair(tm)) {
        put(o, "TM_PAIR(%x,%x)", (unsigned)gexi_pair_ep(tm)->index,
            (unsigned)gexi_pair_index(tm));
    } else if (gexi_core.client && tm == (gex_TM_t)gexi_core.client->primordial_tm) {
        put(o, "TM0");
    } else {
        put(o, "TM(0x%" PRIxPTR ")", (uintptr_t)tm);
    }
    put(o, ":%" PRIu32, (uint32_t)rank);
}

/* "(N data bytes) peer=TEAM:rank" */
#define FMT_PEER_MAX (1 + FMT_SIZE_MAX + 18 + FMT_TM_MAX + 1 + FMT_RANK_MAX)
static void put_peer(struct out *o, size_t bytes, gex_TM_t tm, gex_Rank_t rank)
{
    put(o, "(%zu data bytes) peer=", bytes);
    put_tm_rank(o, tm, rank);
}

/* ---- Vector ---- */
static gasneti_memveclist_stats_t memvec_stats(size_t count, gex_Memvec_t const *list)
{
    gasneti_memveclist_stats_t s;
    uintptr_t lo = UINTPTR_MAX, hi = 0, total = 0;
    s._minsz = SIZE_MAX;
    s._maxsz = 0;
    for (size_t i = 0; i < count; i++) {
        size_t len = list[i].gex_len;
        if (!len) continue;
        uintptr_t a = (uintptr_t)list[i].gex_addr, last = a + (len - 1);
        if (len < s._minsz) s._minsz = len;
        if (len > s._maxsz) s._maxsz = len;
        if (a < lo) lo = a;
        if (last > hi) hi = last;
        total += len;
    }
    s._totalsz = total;
    s._minaddr = (void *)lo;
    s._maxaddr = (void *)hi;
    return s;
}

/* "N entries, totalsz=T, bounds=[A...A]\nlist=[" */
#define FMT_MEMVEC_HEAD (FMT_SIZE_MAX + 18 + FMT_SIZE_MAX + 10 + 2 * FMT_ADDR_MAX + 3 + 8)
/* "{A,L}" and a separator */
#define FMT_MEMVEC_ENTRY (1 + FMT_ADDR_MAX + 1 + FMT_SIZE_MAX + 1 + FMT_SEP_MAX)

size_t gasnett_format_memveclist_bufsz(size_t count)
{
    return sat_muladd(count, FMT_MEMVEC_ENTRY, FMT_MEMVEC_HEAD + 2);
}

static gasneti_memveclist_stats_t put_memveclist(struct out *o, size_t count,
                                                 gex_Memvec_t const *list)
{
    gasneti_memveclist_stats_t s = memvec_stats(count, list);
    put(o, "%zu entries, totalsz=%zu, bounds=", count, (size_t)s._totalsz);
    put_bounds(o, s._minaddr, s._maxaddr, s._maxsz == 0);
    put(o, "\nlist=[");
    for (size_t i = 0; i < count; i++) {
        put(o, "{");
        put_addr(o, list[i].gex_addr);
        put(o, ",%5zu}", list[i].gex_len);
        put_sep(o, i, count, MEMVECS_PER_LINE);
    }
    put(o, "]");
    return s;
}

gasneti_memveclist_stats_t gasnett_format_memveclist(char *buf, size_t count,
                                                     gex_Memvec_t const *list)
{
    struct out o = out_start(buf, gasnett_format_memveclist_bufsz(count));
    return put_memveclist(&o, count, list);
}

/* "(...) peer=...\ndst: " list "\nsrc: " list */
#define FMT_PUTV_FIXED (FMT_PEER_MAX + 6 + 6 + 1)

size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount)
{
    return sat_add(sat_add(gasnett_format_memveclist_bufsz(dstcount),
                           gasnett_format_memveclist_bufsz(srccount)),
                   FMT_PUTV_FIXED);
}

size_t gasnett_format_putvgetv(char *buf, gex_TM_t tm, gex_Rank_t rank,
                               size_t dstcount, gex_Memvec_t const dstlist[],
                               size_t srccount, gex_Memvec_t const srclist[])
{
    struct out o = out_start(buf, gasnett_format_putvgetv_bufsz(dstcount, srccount));
    size_t total = (size_t)memvec_stats(dstcount, dstlist)._totalsz;
    put_peer(&o, total, tm, rank);
    put(&o, "\ndst: ");
    put_memveclist(&o, dstcount, dstlist);
    put(&o, "\nsrc: ");
    put_memveclist(&o, srccount, srclist);
    return total;
}

/* ---- Indexed ---- */
static gasneti_addrlist_stats_t addr_stats(size_t count, void * const *list, size_t len)
{
    gasneti_addrlist_stats_t s;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    if (len) {
        for (size_t i = 0; i < count; i++) {
            uintptr_t a = (uintptr_t)list[i], last = a + (len - 1);
            if (a < lo) lo = a;
            if (last > hi) hi = last;
        }
    }
    s._minaddr = (void *)lo;
    s._maxaddr = (void *)hi;
    return s;
}

/* "N entries, totalsz=T, len=L, bounds=[A...A]\nlist=[" */
#define FMT_ADDR_HEAD (FMT_SIZE_MAX + 18 + FMT_SIZE_MAX + 6 + FMT_SIZE_MAX + 10 + \
                       2 * FMT_ADDR_MAX + 3 + 8)
#define FMT_ADDR_ENTRY (FMT_ADDR_MAX + FMT_SEP_MAX)

size_t gasnett_format_addrlist_bufsz(size_t count)
{
    return sat_muladd(count, FMT_ADDR_ENTRY, FMT_ADDR_HEAD + 2);
}

static gasneti_addrlist_stats_t put_addrlist(struct out *o, size_t count, void * const *list,
                                             size_t len)
{
    gasneti_addrlist_stats_t s = addr_stats(count, list, len);
    /* count * len wraps only for lists no one can build; print it as is. */
    put(o, "%zu entries, totalsz=%zu, len=%zu, bounds=", count, count * len, len);
    put_bounds(o, s._minaddr, s._maxaddr, count == 0 || len == 0);
    put(o, "\nlist=[");
    for (size_t i = 0; i < count; i++) {
        put_addr(o, list[i]);
        put_sep(o, i, count, ADDRS_PER_LINE);
    }
    put(o, "]");
    return s;
}

gasneti_addrlist_stats_t gasnett_format_addrlist(char *buf, size_t count, void * const *list,
                                                 size_t len)
{
    struct out o = out_start(buf, gasnett_format_addrlist_bufsz(count));
    return put_addrlist(&o, count, list, len);
}

size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount)
{
    return sat_add(sat_add(gasnett_format_addrlist_bufsz(dstcount),
                           gasnett_format_addrlist_bufsz(srccount)),
                   FMT_PUTV_FIXED);
}

size_t gasnett_format_putigeti(char *buf, gex_TM_t tm, gex_Rank_t rank,
                               size_t dstcount, void * const dstlist[], size_t dstlen,
                               size_t srccount, void * const srclist[], size_t srclen)
{
    struct out o = out_start(buf, gasnett_format_putigeti_bufsz(dstcount, srccount));
    size_t total = dstcount * dstlen;
    put_peer(&o, total, tm, rank);
    put(&o, "\ndst: ");
    put_addrlist(&o, dstcount, dstlist, dstlen);
    put(&o, "\nsrc: ");
    put_addrlist(&o, srccount, srclist, srclen);
    return total;
}

/* ---- Strided ---- */
/* "[a, b, c]": entries and ", " between them, brackets, NUL. */
size_t gasnett_format_strides_bufsz(size_t count)
{
    return sat_muladd(count, FMT_PTRDIFF_MAX + 2, 3);
}

static void put_strides(struct out *o, size_t count, const ptrdiff_t *list)
{
    put(o, "[");
    for (size_t i = 0; i < count; i++) put(o, i ? ", %td" : "%td", list[i]);
    put(o, "]");
}

static void put_counts(struct out *o, size_t count, const size_t *list)
{
    put(o, "[");
    for (size_t i = 0; i < count; i++) put(o, i ? ", %zu" : "%zu", list[i]);
    put(o, "]");
}

void gasnett_format_strides(char *buf, size_t count, const ptrdiff_t *list)
{
    struct out o = out_start(buf, gasnett_format_strides_bufsz(count));
    put_strides(&o, count, list);
}

/* The first line without its lists, then per side "\nXXX: XXXaddr=A
 * XXXstrides=" (list) "\n     extent=E bounds=[A...A]". */
#define FMT_SG_HEAD (FMT_PEER_MAX + 14 + FMT_SIZE_MAX + 8 + FMT_SIZE_MAX + 7)
#define FMT_SG_SIDE (14 + FMT_ADDR_MAX + 12 + 13 + FMT_SIZE_MAX + 9 + 2 * FMT_ADDR_MAX + 3 + 1)

size_t gasnett_format_putsgets_bufsz(size_t stridelevels)
{
    size_t list = gasnett_format_strides_bufsz(stridelevels);
    return sat_add(sat_muladd(3, list, FMT_SG_HEAD + 2 * FMT_SG_SIDE), 1);
}

/* The side's lowest byte address and the bytes from it to its highest one
 * (spanned, not moved); computed in uintptr_t, so it wraps, never traps. */
static size_t strided_extent(const void *addr, const ptrdiff_t *strides, size_t elemsz,
                             const size_t *count, size_t levels, uintptr_t *lo_p)
{
    uintptr_t lo = 0, hi = 0;
    for (size_t d = 0; d < levels; d++) {
        uintptr_t span = (uintptr_t)strides[d] * (uintptr_t)(count[d] - 1);
        if (strides[d] >= 0) hi += span;
        else lo += span; /* adds a negative amount, modulo 2^N */
    }
    *lo_p = (uintptr_t)addr + lo;
    return (size_t)(hi - lo + elemsz);
}

static void put_strided_side(struct out *o, const char *side, void *addr,
                             const ptrdiff_t *strides, size_t elemsz, const size_t *count,
                             size_t levels, int empty)
{
    put(o, "\n%s: %saddr=", side, side);
    put_addr(o, addr);
    put(o, " %sstrides=", side);
    put_strides(o, levels, strides);
    if (empty) {
        put(o, "\n     extent=0 bounds=[]");
        return;
    }
    uintptr_t lo;
    size_t extent = strided_extent(addr, strides, elemsz, count, levels, &lo);
    put(o, "\n     extent=%zu bounds=", extent);
    put_bounds(o, (const void *)lo, (const void *)(lo + (extent - 1)), 0);
}

size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                               void *dstaddr, const ptrdiff_t dststrides[],
                               void *srcaddr, const ptrdiff_t srcstrides[],
                               size_t elemsz, const size_t count[], size_t stridelevels)
{
    (void)pstats;
    struct out o = out_start(buf, gasnett_format_putsgets_bufsz(stridelevels));
    size_t total = elemsz;
    for (size_t d = 0; d < stridelevels; d++) total *= count[d];
    put_peer(&o, total, tm, rank);
    put(&o, " stridelevels=%zu elemsz=%zu count=", stridelevels, elemsz);
    put_counts(&o, stridelevels, count);
    put_strided_side(&o, "dst", dstaddr, dststrides, elemsz, count, stridelevels, total == 0);
    put_strided_side(&o, "src", srcaddr, srcstrides, elemsz, count, stridelevels, total == 0);
    return total;
}

/* ---- Sets of named bits ---- */
struct named_bit {
    uint32_t bit;
    const char *name;  /* without the prefix */
};

/* Names the members of val in increasing bit order, joined by '|'; bits
 * no entry names come last as one hex number.  Returns the length with
 * the NUL; writes only when buf is not NULL. */
static size_t format_set(char *buf, uint32_t val, const char *prefix,
                         const struct named_bit *names, size_t n)
{
    char tmp[512];
    struct out o = out_start(tmp, sizeof tmp);
    if (!val) {
        put(&o, "(empty)");
    } else {
        uint32_t unnamed = val;
        for (unsigned b = 0; b < 32; b++) {
            uint32_t bit = (uint32_t)1 << b;
            if (!(val & bit)) continue;
            for (size_t i = 0; i < n; i++) {
                if (names[i].bit != bit) continue;
                put(&o, "%s%s%s", o.p == tmp ? "" : "|", prefix, names[i].name);
                unnamed &= ~bit;
                break;
            }
        }
        if (unnamed) put(&o, "%s0x%" PRIx32, o.p == tmp ? "" : "|", unnamed);
    }
    size_t len = (size_t)(o.p - tmp) + 1;
    if (buf) memcpy(buf, tmp, len);
    return len;
}

#define NB(prefix, x) { prefix##x, #x }

size_t gasnett_format_dt(char *buf, gex_DT_t dt)
{
    static const struct named_bit names[] = {
        NB(GEX_DT_, I32), NB(GEX_DT_, U32), NB(GEX_DT_, I64), NB(GEX_DT_, U64),
        NB(GEX_DT_, FLT), NB(GEX_DT_, DBL), NB(GEX_DT_, USER),
    };
    return format_set(buf, dt, "GEX_DT_", names, sizeof names / sizeof names[0]);
}

size_t gasnett_format_op(char *buf, gex_OP_t op)
{
    static const struct named_bit names[] = {
        NB(GEX_OP_, AND),  NB(GEX_OP_, FAND), NB(GEX_OP_, OR),    NB(GEX_OP_, FOR),
        NB(GEX_OP_, XOR),  NB(GEX_OP_, FXOR), NB(GEX_OP_, ADD),   NB(GEX_OP_, FADD),
        NB(GEX_OP_, SUB),  NB(GEX_OP_, FSUB), NB(GEX_OP_, MULT),  NB(GEX_OP_, FMULT),
        NB(GEX_OP_, MIN),  NB(GEX_OP_, FMIN), NB(GEX_OP_, MAX),   NB(GEX_OP_, FMAX),
        NB(GEX_OP_, INC),  NB(GEX_OP_, FINC), NB(GEX_OP_, DEC),   NB(GEX_OP_, FDEC),
        NB(GEX_OP_, SET),  NB(GEX_OP_, SWAP), NB(GEX_OP_, CAS),   NB(GEX_OP_, FCAS),
        NB(GEX_OP_, GET),  NB(GEX_OP_, USER), NB(GEX_OP_, USER_NC),
    };
    return format_set(buf, op, "GEX_OP_", names, sizeof names / sizeof names[0]);
}

size_t gasnett_format_ti(char *buf, gex_TI_t ti)
{
    static const struct named_bit names[] = {
        NB(GEX_TI_, SRCRANK), NB(GEX_TI_, EP), NB(GEX_TI_, ENTRY),
        NB(GEX_TI_, IS_REQ),  NB(GEX_TI_, IS_LONG),
    };
    return format_set(buf, ti, "GEX_TI_", names, sizeof names / sizeof names[0]);
}
