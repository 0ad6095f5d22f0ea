/*
 * gex/fastpath.h: the same-node fast path of contiguous RMA, inlined into
 * the client (issue 27; docs/architecture.md, "Inline fast path ABI").
 *
 * Why: a Put or Get whose target is this process or a PSHM peer on this
 * host is a memcpy, a few nanoseconds; called out of line through
 * libgex-rma's PLT it costs as much again.  So the common forms below first
 * ask a table libgex-rma publishes (peer rank -> where that peer's segment
 * is mapped here) and do the copy themselves; anything else (another host,
 * a flag, a range outside the mapped segment, memory kinds, a debug build of
 * the library, GEX_FORCE_REFERENCE=rma, a team other than the primordial
 * one) calls the library exactly as before, which also diagnoses misuse.
 *
 * The table is ABI, frozen as version 1 (the _v1 in the symbol's name): a
 * later incompatible layout takes a new name, and libgex-rma keeps
 * exporting this one, pointing at a table that sends every call out of
 * line, for binaries built against this header.
 *
 * A client that must not inline (a tool interposing on gex_RMA_* calls, a
 * profiler counting them) defines GEX_NO_INLINE_FASTPATH before including
 * gasnetex.h.  Taking a call's address, or calling it as
 * (gex_RMA_PutBlocking)(...), always reaches the library.
 *
 * Included by gasnetex.h after gex/ext.h; do not include it directly.
 */
#ifndef GEX_FASTPATH_H
#define GEX_FASTPATH_H

#ifndef GASNETEX_H
#error "include <gasnetex.h>, not <gex/fastpath.h>"
#endif

/* One peer's record: the first three fields of libgex-core's per-rank
 * segment record (frozen; the table's stride steps over the rest). */
struct gexi_fastpath_seg {
    void *owneraddr;         /* the segment's base in its owner */
    void *localaddr;         /* the same memory mapped here; NULL: not reachable */
    uintptr_t size;          /* 0: nothing known yet */
};

/* The table, version 1.  tm == GEX_TM_INVALID (or size 0) sends every
 * call out of line. */
struct gexi_fastpath {
    gex_TM_t tm;                    /* the primordial team: rank == jobrank, EP 0 */
    gex_Rank_t size;                /* ranks in the table */
    uint32_t stride;                /* bytes from one rank's record to the next */
    const char *seg;                /* rank 0's record */
    const unsigned *device_segments; /* non-zero: memory kinds in play, go out of line */
};
extern const struct gexi_fastpath *gexi_rma_fastpath_v1;

#if defined(__GNUC__) && !defined(GEX_NO_INLINE_FASTPATH)
#define GEXI_FASTPATH_INLINE 1

/* Forced inline: left to itself GCC compiles these as local functions
 * called from a benchmark's loop (the call, its frame and the reloaded
 * arguments cost as much as the copy of a small put). */
#define GEXI_FP_INLINE static inline __attribute__((always_inline))

/* Where [addr, addr+n) of rank's segment is mapped here according to the
 * table fp, or NULL.  (The inline remote atomics of gasnet_ratomic.h read
 * the same kind of table: gex/ad_fastpath.h.) */
GEXI_FP_INLINE void *gexi_fastpath_table_addr(const struct gexi_fastpath *fp, gex_Rank_t rank,
                                             void *addr, size_t n)
{
    if (__builtin_expect(rank >= fp->size, 0)) return 0;
    if (__builtin_expect(__atomic_load_n(fp->device_segments, __ATOMIC_RELAXED) != 0, 0))
        return 0;
    const struct gexi_fastpath_seg *s =
        (const struct gexi_fastpath_seg *)(fp->seg + (size_t)rank * fp->stride);
    const uintptr_t off = (uintptr_t)addr - (uintptr_t)s->owneraddr;
    char *local = (char *)s->localaddr;
    if (__builtin_expect(!local || off > s->size || n > s->size - off, 0)) return 0;
    return local + off;
}

/* The same through libgex-rma's table, for a call on team tm. */
GEXI_FP_INLINE void *gexi_fastpath_addr(gex_TM_t tm, gex_Rank_t rank, void *addr, size_t n)
{
    const struct gexi_fastpath *fp = gexi_rma_fastpath_v1;
    if (__builtin_expect(tm != fp->tm, 0)) return 0;
    return gexi_fastpath_table_addr(fp, rank, addr, n);
}

/* lc_opt of an NBI put: one of the three constants (a pointer or NULL is
 * the library's to diagnose). */
GEXI_FP_INLINE int gexi_fastpath_lc_ok(gex_Event_t *lc_opt)
{
    return (uintptr_t)lc_opt - 1 < 3;
}

/* The copy.  Up to 64 bytes it is done here, as loads and then as many
 * stores (overlapping words cover every length between one word and two,
 * so there are only seven cases); through memcpy, whose own size dispatch
 * comes first, a 16-byte put cost 1.8x an 8-byte one (testsmall, smp) and a
 * 64-byte put 3.8 ns against 2.5 ns here and in GASNet-EX (a put loop, one
 * rank).  Longer copies are memcpy's. */
struct gexi_fastpath_16 { uint64_t lo, hi; };
GEXI_FP_INLINE void gexi_fastpath_copy(void *dst, const void *src, size_t n)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    if (n > 64) {
        __builtin_memcpy(d, s, n);
    } else if (n > 32) {
        /* 33..64: [0,32) and [n-32,n), overlapping in the middle */
        struct gexi_fastpath_16 a, b, c, e;
        __builtin_memcpy(&a, s, 16);
        __builtin_memcpy(&b, s + 16, 16);
        __builtin_memcpy(&c, s + n - 32, 16);
        __builtin_memcpy(&e, s + n - 16, 16);
        __builtin_memcpy(d, &a, 16);
        __builtin_memcpy(d + 16, &b, 16);
        __builtin_memcpy(d + n - 32, &c, 16);
        __builtin_memcpy(d + n - 16, &e, 16);
    } else if (n > 16) {
        struct gexi_fastpath_16 a, b;
        __builtin_memcpy(&a, s, 16);
        __builtin_memcpy(&b, s + n - 16, 16);
        __builtin_memcpy(d, &a, 16);
        __builtin_memcpy(d + n - 16, &b, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        __builtin_memcpy(&a, s, 8);
        __builtin_memcpy(&b, s + n - 8, 8);
        __builtin_memcpy(d, &a, 8);
        __builtin_memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        __builtin_memcpy(&a, s, 4);
        __builtin_memcpy(&b, s + n - 4, 4);
        __builtin_memcpy(d, &a, 4);
        __builtin_memcpy(d + n - 4, &b, 4);
    } else if (n) {
        const char a = s[0], b = s[n >> 1], c = s[n - 1];
        d[0] = a;
        d[n >> 1] = b;
        d[n - 1] = c;
    }
}

GEXI_FP_INLINE int gexi_fastpath_put(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                    size_t nbytes, gex_Flags_t flags)
{
    void *l;
    if (__builtin_expect(flags != 0 || !src, 0)) return 0;
    if (!(l = gexi_fastpath_addr(tm, rank, dest, nbytes))) return 0;
    gexi_fastpath_copy(l, src, nbytes);
    /* complete now: the data before whatever the caller does next */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return 1;
}

GEXI_FP_INLINE int gexi_fastpath_get(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                    size_t nbytes, gex_Flags_t flags)
{
    const void *l;
    if (__builtin_expect(flags != 0 || !dest, 0)) return 0;
    if (!(l = gexi_fastpath_addr(tm, rank, src, nbytes))) return 0;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    gexi_fastpath_copy(dest, l, nbytes);
    return 1;
}

GEXI_FP_INLINE int gexi_inline_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                          const void *src, size_t nbytes, gex_Flags_t flags)
{
    if (gexi_fastpath_put(tm, rank, dest, src, nbytes, flags)) return 0;
    return (gex_RMA_PutBlocking)(tm, rank, dest, src, nbytes, flags);
}
GEXI_FP_INLINE int gexi_inline_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                     size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags)
{
    if (gexi_fastpath_lc_ok(lc_opt) && gexi_fastpath_put(tm, rank, dest, src, nbytes, flags))
        return 0;
    return (gex_RMA_PutNBI)(tm, rank, dest, src, nbytes, lc_opt, flags);
}
/* NB: complete in the call, so GEX_EVENT_INVALID (spec: an NB call may
 * return it for an operation already complete).  lc_opt as an event
 * pointer goes to the library, which fills it in. */
GEXI_FP_INLINE gex_Event_t gexi_inline_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                             const void *src, size_t nbytes,
                                             gex_Event_t *lc_opt, gex_Flags_t flags)
{
    if ((lc_opt == GEX_EVENT_NOW || lc_opt == GEX_EVENT_DEFER) &&
        gexi_fastpath_put(tm, rank, dest, src, nbytes, flags))
        return GEX_EVENT_INVALID;
    return (gex_RMA_PutNB)(tm, rank, dest, src, nbytes, lc_opt, flags);
}
GEXI_FP_INLINE gex_Event_t gexi_inline_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank,
                                             void *src, size_t nbytes, gex_Flags_t flags)
{
    if (gexi_fastpath_get(tm, dest, rank, src, nbytes, flags)) return GEX_EVENT_INVALID;
    return (gex_RMA_GetNB)(tm, dest, rank, src, nbytes, flags);
}
GEXI_FP_INLINE int gexi_inline_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                          size_t nbytes, gex_Flags_t flags)
{
    if (gexi_fastpath_get(tm, dest, rank, src, nbytes, flags)) return 0;
    return (gex_RMA_GetBlocking)(tm, dest, rank, src, nbytes, flags);
}
GEXI_FP_INLINE int gexi_inline_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                     size_t nbytes, gex_Flags_t flags)
{
    if (gexi_fastpath_get(tm, dest, rank, src, nbytes, flags)) return 0;
    return (gex_RMA_GetNBI)(tm, dest, rank, src, nbytes, flags);
}

/* Value forms: the value's low-order nbytes, in host byte order. */
GEXI_FP_INLINE size_t gexi_fastpath_val_offset(size_t nbytes)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return sizeof(gex_RMA_Value_t) - nbytes;
#else
    (void)nbytes;
    return 0;
#endif
}
GEXI_FP_INLINE int gexi_inline_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                             gex_RMA_Value_t value, size_t nbytes,
                                             gex_Flags_t flags)
{
    if (nbytes <= sizeof(gex_RMA_Value_t) &&
        gexi_fastpath_put(tm, rank, dest, (char *)&value + gexi_fastpath_val_offset(nbytes),
                          nbytes, flags))
        return 0;
    return (gex_RMA_PutBlockingVal)(tm, rank, dest, value, nbytes, flags);
}
GEXI_FP_INLINE int gexi_inline_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                         gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags)
{
    if (nbytes <= sizeof(gex_RMA_Value_t) &&
        gexi_fastpath_put(tm, rank, dest, (char *)&value + gexi_fastpath_val_offset(nbytes),
                          nbytes, flags))
        return 0;
    return (gex_RMA_PutNBIVal)(tm, rank, dest, value, nbytes, flags);
}
GEXI_FP_INLINE gex_RMA_Value_t gexi_inline_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank,
                                                         void *src, size_t nbytes,
                                                         gex_Flags_t flags)
{
    gex_RMA_Value_t v = 0;
    /* the library ignores IMMEDIATE here: no "no op" result is expressible */
    if (nbytes <= sizeof(gex_RMA_Value_t) &&
        gexi_fastpath_get(tm, (char *)&v + gexi_fastpath_val_offset(nbytes), rank, src, nbytes,
                          flags & ~(gex_Flags_t)GEX_FLAG_IMMEDIATE))
        return v;
    return (gex_RMA_GetBlockingVal)(tm, rank, src, nbytes, flags);
}

/* Waiting on GEX_EVENT_INVALID (an operation that completed in the call,
 * as every inlined remote atomic does: gex/ad_fastpath.h) returns at once,
 * without the call into libgex-core. */
GEXI_FP_INLINE void gexi_inline_Event_Wait(gex_Event_t event)
{
    if (event != GEX_EVENT_INVALID) (gex_Event_Wait)(event);
}

#define gex_Event_Wait(event) gexi_inline_Event_Wait(event)
#define gex_RMA_PutBlocking(tm, rank, dest, src, nbytes, flags) \
    gexi_inline_PutBlocking(tm, rank, dest, src, nbytes, flags)
#define gex_RMA_PutNBI(tm, rank, dest, src, nbytes, lc_opt, flags) \
    gexi_inline_PutNBI(tm, rank, dest, src, nbytes, lc_opt, flags)
#define gex_RMA_PutNB(tm, rank, dest, src, nbytes, lc_opt, flags) \
    gexi_inline_PutNB(tm, rank, dest, src, nbytes, lc_opt, flags)
#define gex_RMA_GetNB(tm, dest, rank, src, nbytes, flags) \
    gexi_inline_GetNB(tm, dest, rank, src, nbytes, flags)
#define gex_RMA_PutNBIVal(tm, rank, dest, value, nbytes, flags) \
    gexi_inline_PutNBIVal(tm, rank, dest, value, nbytes, flags)
#define gex_RMA_GetBlocking(tm, dest, rank, src, nbytes, flags) \
    gexi_inline_GetBlocking(tm, dest, rank, src, nbytes, flags)
#define gex_RMA_GetNBI(tm, dest, rank, src, nbytes, flags) \
    gexi_inline_GetNBI(tm, dest, rank, src, nbytes, flags)
#define gex_RMA_PutBlockingVal(tm, rank, dest, value, nbytes, flags) \
    gexi_inline_PutBlockingVal(tm, rank, dest, value, nbytes, flags)
#define gex_RMA_GetBlockingVal(tm, rank, src, nbytes, flags) \
    gexi_inline_GetBlockingVal(tm, rank, src, nbytes, flags)
#endif /* __GNUC__ && !GEX_NO_INLINE_FASTPATH */

#endif /* GEX_FASTPATH_H */
