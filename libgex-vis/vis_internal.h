/*
 * vis_internal.h: libgex-vis's one internal header.  The layer implements
 * the spec's "Vector/Indexed/Strided (VIS)" calls (gasnet_vis.h) above
 * libgex-core (objects, events, NBI counters, PSHM mappings), libgex-am
 * (negotiated-payload Mediums) and libgex-rma (contiguous gex_RMA_* calls).
 *
 * Model.  Every VIS call describes the same thing: a stream of bytes read
 * from one list of contiguous pieces and written to another.  Each end is a
 * "side" (struct gexi_vis_side): a Vector list (address, length), an Indexed
 * list (addresses, one length) or a Strided section (base, element size,
 * per-dimension counts and byte strides).  A cursor walks a side piece by
 * piece; the two ends of a Vector or Indexed call may have different shapes
 * (only the total byte counts must agree).  Strided metadata is first
 * normalized by the stride optimizer (vis_stride.c), which rewrites both
 * ends jointly into the fewest, peer-ascending dimensions.
 *
 * Mechanisms, chosen per call (vis_api.c):
 *   1. direct copy (vis_copy.c): the peer is this process or a nbrhd peer
 *      whose bound segment core has cross-mapped here (PSHM): copy loops,
 *      complete on return;
 *   2. AM pack/unpack (vis_am.c): small pieces travel packed in
 *      negotiated-payload Medium AMs, written straight into the library's
 *      buffer, many in flight; gets send metadata and the target packs
 *      into its replies;
 *   3. one contiguous RMA per piece (vis_rma.c) when the pieces are large
 *      (at least GEX_VIS_RMA_MIN bytes);
 *   GEX_FORCE_REFERENCE=vis uses 3 for every call and every peer (the
 *   "plain" path), still after the optimizer.
 */
#ifndef GEX_VIS_INTERNAL_H
#define GEX_VIS_INTERNAL_H

/* Calls into libgex-rma go out of line: a layer must load against the
 * libgex-rma of the release it was built for or any later one, and the
 * inline fast path's table is younger (include/gex/fastpath.h). */
#ifndef GEX_NO_INLINE_FASTPATH
#define GEX_NO_INLINE_FASTPATH 1
#endif

#ifndef GEXI_BUILDING_GEX
#error "vis_internal.h is internal to GEX"
#endif
/* The AM path's negotiated-payload Prepares call libgex-am's functions, not
 * gasnetex.h's inline Prepare, whose symbols (GEX_AM_1.1) would tie this
 * library to a libgex-am at least as new: layers upgrade one at a time. */
#define GEX_AM_NP_NO_INLINE 1
#include "core_layer.h"
#include <gasnet_vis.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- Internal AM handlers (core_layer.h: GEXI_HIDX_VIS_BASE..+15) ---- */
#define GEXI_VIS_H_PUT     (GEXI_HIDX_VIS_BASE + 0) /* Medium req: wire+meta+data -> ack */
#define GEXI_VIS_H_PUT_ACK (GEXI_HIDX_VIS_BASE + 1) /* Short reply: counter done */
#define GEXI_VIS_H_GET     (GEXI_HIDX_VIS_BASE + 2) /* Medium req: wire+meta -> packed reply */
#define GEXI_VIS_H_GET_REP (GEXI_HIDX_VIS_BASE + 3) /* Medium reply: unpack, op done */
#define GEXI_VIS_H_PC      (GEXI_HIDX_VIS_BASE + 4) /* Medium req: run a peer-completion hdlr */

/* ---- Strided metadata, normalized (vis_stride.c) ----
 * A dimension of count 1 carries no information, so at most 64 dimensions
 * survive null-dimension removal before the element count overflows. */
#define GEXI_VIS_MAXDIM 64
struct gexi_vis_strided {
    size_t elemsz;                       /* contiguous bytes per element (folded) */
    size_t nelem;                        /* product of count[]; 0: nothing to do */
    unsigned dims;                       /* 0: one element */
    uintptr_t lbase, pbase;              /* local and peer address of element 0 */
    size_t count[GEXI_VIS_MAXDIM];       /* dimension 0 varies fastest */
    ptrdiff_t lstride[GEXI_VIS_MAXDIM];  /* local side: any sign, any order */
    ptrdiff_t pstride[GEXI_VIS_MAXDIM];  /* peer side: >= 0, non-decreasing */
};
/* Rewrites (elemsz, count[levels], strides) into *out (see vis_stride.c for
 * the passes).  Returns 0, or -1 if the element count overflows size_t. */
int gexi_vis_stride_optimize(struct gexi_vis_strided *out, void *laddr,
                             const ptrdiff_t lstrides[], void *paddr,
                             const ptrdiff_t pstrides[], size_t elemsz, const size_t count[],
                             size_t levels);
/* The same rewrite by the separate general passes, which the fused pass
 * above falls back to when the levels are not in peer-stride order
 * (exported for tests/unit/test_vis_stride.c, which compares the two). */
int gexi_vis_stride_optimize_general(struct gexi_vis_strided *out, void *laddr,
                                     const ptrdiff_t lstrides[], void *paddr,
                                     const ptrdiff_t pstrides[], size_t elemsz,
                                     const size_t count[], size_t levels);

/* ---- Sides and cursors (vis_copy.c) ---- */
enum gexi_vis_kind { GEXI_VIS_VEC = 1, GEXI_VIS_IDX = 2, GEXI_VIS_STR = 3 };

struct gexi_vis_side {
    enum gexi_vis_kind kind;
    size_t n;                    /* VEC/IDX: pieces; STR: elements */
    size_t len;                  /* IDX: bytes per piece; STR: elemsz */
    const gex_Memvec_t *vec;     /* VEC */
    void *const *idx;            /* IDX */
    uintptr_t base;              /* STR: element 0 */
    unsigned dims;               /* STR */
    const size_t *count;         /* STR: [dims] */
    const ptrdiff_t *stride;     /* STR: [dims] */
    uintptr_t delta;             /* added to every address (PSHM translation), mod 2^N */
};

/* Position in a side: piece (or element) i, byte off inside it. */
struct gexi_vis_cur {
    size_t i, off;
    uintptr_t eaddr;                 /* STR: address of element i (without delta) */
    size_t idx[GEXI_VIS_MAXDIM];     /* STR: coordinates of element i */
};

/* Places c at (piece i, byte off); off < the piece's length (or 0). */
void gexi_vis_seek(const struct gexi_vis_side *s, struct gexi_vis_cur *c, size_t i, size_t off);
/* Contiguous bytes left in the current piece (0 at the end) and where. */
size_t gexi_vis_run(const struct gexi_vis_side *s, struct gexi_vis_cur *c, char **p);
/* Advances by n bytes, any number of pieces. */
void gexi_vis_skip(const struct gexi_vis_side *s, struct gexi_vis_cur *c, size_t n);

/* Byte stream copies; n bytes, from the cursors' positions (advanced). */
void gexi_vis_gather(const struct gexi_vis_side *s, struct gexi_vis_cur *c, void *buf, size_t n);
void gexi_vis_scatter(const struct gexi_vis_side *s, struct gexi_vis_cur *c, const void *buf,
                      size_t n);
void gexi_vis_copy(const struct gexi_vis_side *d, struct gexi_vis_cur *dc,
                   const struct gexi_vis_side *s, struct gexi_vis_cur *sc, size_t n);
/* Whole-operation copy between two sides (fast loops for Strided with a
 * shared shape and for Indexed with equal lengths). */
void gexi_vis_copy_all(const struct gexi_vis_side *d, const struct gexi_vis_side *s,
                       size_t total);
/* Strided side of a normalized section: local (is_peer 0) or peer end. */
void gexi_vis_side_strided(struct gexi_vis_side *side, const struct gexi_vis_strided *st,
                           int is_peer);

/* ---- One operation ---- */
enum gexi_vis_sync {
    GEXI_VIS_BLOCKING = 0,
    GEXI_VIS_NB = 1,
    GEXI_VIS_NBI = 2
};

struct gexi_vis_op {
    int is_put;
    enum gexi_vis_sync sync;
    gex_TM_t tm;
    gex_Rank_t rank, jobrank;
    gex_EP_Index_t ep;
    gex_Flags_t flags;
    size_t total;                       /* bytes moved */
    size_t min_piece;                   /* smallest contiguous piece (mechanism choice) */
    struct gexi_vis_side loc, peer;     /* put: loc -> peer; get: peer -> loc */
    struct gexi_vis_strided *st;        /* Strided: the normalized section (else NULL) */
};

/* Each mechanism returns GEX_EVENT_NO_OP (IMMEDIATE refused, nothing
 * done), the NB root event, or GEX_EVENT_INVALID (done, or counted NBI). */
gex_Event_t gexi_vis_am_run(struct gexi_vis_op *op);        /* vis_am.c */
/* Whether one AM holds the op's per-chunk metadata (a Strided section of
 * many levels may not fit a small MaxMedium: such calls go by RMA). */
int gexi_vis_am_fits(const struct gexi_vis_op *op);
gex_Event_t gexi_vis_rma_run(struct gexi_vis_op *op);       /* vis_rma.c */
int gexi_vis_am_register(void);                            /* vis_am.c: handlers */
int gexi_vis_pc_register(void);                            /* vis_api.c: peer completion */
void gexi_vis_rma_progress(void);                          /* vis_rma.c: NB completion */
/* Memory kinds (issue 9): either side in device memory -> per-piece RMA. */
int gexi_vis_kind_applies(const struct gexi_vis_op *op);   /* vis_kind.c */

/* ---- AM metadata on the wire (vis_wire.c) ----
 * The header of every VIS AM payload, then per kind: VEC n (address,
 * length) pairs; IDX n addresses; STR n counts then n strides (vis_am.c's
 * file comment says what a chunk's metadata describes). */
struct gexi_vis_wire {
    uint32_t kind;       /* enum gexi_vis_kind */
    uint32_t n;          /* VEC/IDX: pieces that follow; STR: dims */
    uint64_t len;        /* IDX: piece length; STR: elemsz */
    uint64_t i, off;     /* start: piece (element) and byte inside it */
    uint64_t nbytes;     /* data bytes of the chunk */
    uint64_t base;       /* STR: peer address of element 0 */
    uint64_t nelem;      /* STR: elements of the section */
};
/* The side a wire header describes, rebuilt at the target. */
struct gexi_vis_wire_side {
    struct gexi_vis_side s;
    size_t count[GEXI_VIS_MAXDIM];
    ptrdiff_t stride[GEXI_VIS_MAXDIM];
};
/* Writes the header and metadata of the chunk of `bytes` data bytes and
 * npieces pieces at *c into buf; returns its size. */
size_t gexi_vis_wire_write(char *buf, const struct gexi_vis_side *s, const struct gexi_vis_cur *c,
                           size_t bytes, size_t npieces);
/* Decodes an AM payload of nbytes bytes at buf (8-byte aligned): a put's
 * (with_data: header, metadata, then exactly the chunk's data) or a get
 * request's (header and metadata only, asking for at most max_data bytes,
 * what one reply carries).  On success returns NULL and sets
 * *ws, *c, *meta_len and *data_n, the chunk's data bytes, which the side
 * from *c on is guaranteed to hold; else returns what is wrong, and the
 * payload must not be used. */
const char *gexi_vis_wire_read(const void *buf, size_t nbytes, int with_data, size_t max_data,
                               struct gexi_vis_wire_side *ws, struct gexi_vis_cur *c,
                               size_t *meta_len, size_t *data_n);

/* ---- Layer state (vis_bind.c) ---- */
struct gexi_vis_config {
    int forced;              /* GEX_FORCE_REFERENCE=vis: per-piece RMA everywhere */
    int pshm;                /* direct copies to nbrhd peers */
    size_t rma_min;          /* GEX_VIS_RMA_MIN: pieces this large go by RMA */
    size_t am_chunk;         /* GEX_VIS_AM_CHUNK: cap on data bytes per AM (0: none) */
};
extern struct gexi_vis_config gexi_vis;

/* Calls without an error return end the job with a message naming the
 * argument (vis_api.c). */
void gexi_vis_bad_arg(const char *func, const char *fmt, ...)
    __attribute__((noreturn, cold, format(printf, 2, 3)));

/* Pointer <-> two AM arguments. */
static inline gex_AM_Arg_t gexi_vis_lo(uint64_t v) { return (gex_AM_Arg_t)(uint32_t)v; }
static inline gex_AM_Arg_t gexi_vis_hi(uint64_t v) { return (gex_AM_Arg_t)(uint32_t)(v >> 32); }
static inline uint64_t gexi_vis_join(gex_AM_Arg_t lo, gex_AM_Arg_t hi)
{
    return (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
}

#endif /* GEX_VIS_INTERNAL_H */
