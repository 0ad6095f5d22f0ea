/*
 * smp_internal.h: the one internal header of the smp conduit, the default
 * conduit for jobs whose ranks all live on one host.  It sits below
 * libgex-core, behind the ABI of include/gex/conduit.h, and is built as the
 * plug-in libgex-conduit-smp.so.  This header holds what smp_conduit.c
 * (bootstrap: shared-memory setup, configuration, capabilities, ops table)
 * and smp_queue.c (the AM transport: bounded lock-free rings, send, poll)
 * share: the shared-memory layout every rank must agree on, the record
 * format inside a ring, and the conduit's private state.
 *
 * Transport in one paragraph.  Every ordered pair of ranks (src, dst) has two
 * single-producer/single-consumer byte rings living in dst's shared-memory
 * region: one carries requests, one replies, so a reply never waits behind
 * requests.  A record is 8-byte aligned and starts with one 64-bit word
 * (length, kind, handler, nargs) that the producer stores last, with release
 * order: a non-zero word at the consumer's head means "a record is here".
 * The producer keeps that true by zeroing the word just past each record it
 * writes (the next record's header) before publishing, so stale bytes of an
 * older lap are never mistaken for a record and no separate tail index has
 * to cross between caches.  See smp_queue.c for the protocol in full.
 */
#ifndef GEXC_SMP_INTERNAL_H
#define GEXC_SMP_INTERNAL_H

#ifndef GEXI_BUILDING_GEX
#error "smp_internal.h is internal to GEX"
#endif

#include <gex/conduit.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Everything but gex_conduit_entry_v1 stays inside the plug-in, even when it
 * is built without -fvisibility=hidden. */
#define GEXC_SMP_HIDDEN __attribute__((visibility("hidden")))
#define GEXC_SMP_LIKELY(x)   __builtin_expect(!!(x), 1)
#define GEXC_SMP_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define GEXC_SMP_CACHELINE 64

/* ---- Limits and defaults (each overridable by the GEX_SMP_* variable named) ---- */
#define GEXC_SMP_MAX_ARGS              16
/* GEX_SMP_RING_SIZE: bytes per ring, a power of two.  Memory use of a job is
 * jobsize^2 * 2 * ring size (each rank maps jobsize * 2 inbound rings).  The
 * default is the smallest ring that takes two maximal records of the
 * default MaxMedium (64 KiB: 256 KiB rings, so 2 MiB per rank at 4 ranks,
 * 4 MiB at 8, 16 MiB at 32); past GEXC_SMP_RING_BIG_MAX_RANKS ranks it is
 * halved (16 MiB per rank at 64 ranks, 32 MiB at 128), which lowers the
 * default MaxMedium to what two records in that ring allow (65,432 bytes,
 * still above GASNet-EX's 65,416 on smp): see gexc_smp_ring_default. */
#define GEXC_SMP_RING_SIZE_DEFAULT     ((uint64_t)256 << 10)
#define GEXC_SMP_RING_SIZE_DEFAULT_BIG_JOB ((uint64_t)128 << 10)
#define GEXC_SMP_RING_BIG_MAX_RANKS    32u
#define GEXC_SMP_RING_SIZE_MIN         ((uint64_t)4 << 10)
#define GEXC_SMP_RING_SIZE_MAX         ((uint64_t)1 << 30)
/* GEX_SMP_MAX_MEDIUM: largest Medium payload; also the chunk size of Long
 * payloads that cannot be copied directly (see smp_queue.c).  When unset
 * it is lowered to what the ring allows (gexc_smp_configure). */
#define GEXC_SMP_MAX_MEDIUM_DEFAULT    ((uint64_t)64 << 10)
#define GEXC_SMP_MAX_MEDIUM_MIN        ((uint64_t)512)  /* spec: MaxMedium >= 512 */
/* GEX_SMP_MAX_LONG: largest Long payload, requests and replies alike.  The
 * record carries it in 32 bits. */
#define GEXC_SMP_MAX_LONG_DEFAULT      ((uint64_t)4 << 20)
#define GEXC_SMP_MAX_LONG_MAX          ((uint64_t)1 << 31)
/* GEX_SMP_POLL_BUDGET: records one poll call handles at most, so that a
 * flood from peers cannot keep the caller inside gex_AM_Poll. */
#define GEXC_SMP_POLL_BUDGET_DEFAULT   64u
/* GEX_SMP_NP_PREFETCH: bytes of a negotiated-payload ring buffer that
 * am_prepare prefetches with write intent (0: none; at most MaxMedium);
 * see gexc_smp_prefetch_for_write in smp_queue.c.  The default is the old
 * MaxMedium, 16 KiB: every buffer up to that is prefetched whole, as
 * before, and a larger one (MaxMedium is 64 KiB since issue #27, and a
 * Prepare with a large most_payload gets all of it even when the client
 * then writes a few bytes) costs no more prefetches than a 16 KiB one;
 * prefetching more than L1 holds would evict the first lines before the
 * client writes them anyway. */
#define GEXC_SMP_NP_PREFETCH_DEFAULT   ((uint64_t)16 << 10)
/* GEX_SMP_HINTS=auto|yes|no: arrival hints (see the region layout below) pay
 * off only when an empty poll would otherwise look at many rings. */
#define GEXC_SMP_HINTS_AUTO_MIN_RANKS  16u

/* ---- Record format inside a ring ----
 * word0 (stored last, release):
 *   bits  0..7  kind (enum below)      bits 16..23 handler index
 *   bits  8..15 is_request             bits 24..31 nargs
 *   bits 32..63 record length in bytes (multiple of 8, includes padding)
 * Then src_ep, dst_ep; Medium and Long add nbytes and chunk_len, Long adds
 * dest_addr.  Args follow the header; the payload follows the args at the
 * next multiple of 8, so a Medium handler gets an 8-aligned buffer; or, in a
 * Medium record whose chunk_len is not 0 (layout version 2), at offset
 * chunk_len: a negotiated-payload record puts its payload on a cache line
 * of its own (GEXC_SMP_NP_ALIGN) for the client to write in place. */
enum gexc_smp_kind {
    GEXC_SMP_K_SHORT = GEX_CONDUIT_AM_SHORT,
    GEXC_SMP_K_MEDIUM = GEX_CONDUIT_AM_MEDIUM,
    GEXC_SMP_K_LONG = GEX_CONDUIT_AM_LONG,
    GEXC_SMP_K_LONGDATA = 3,   /* a non-final piece of a Long sent through the ring
                                  (handler index: the Long's, for the receiver's check) */
    GEXC_SMP_K_SKIP = 4        /* padding up to the end of the ring: records never wrap */
};

struct gexc_smp_rec {
    uint64_t word0;
    uint32_t src_ep;
    uint32_t dst_ep;
    /* Medium and Long only */
    uint32_t nbytes;       /* Medium: payload size; Long: total payload size */
    uint32_t chunk_len;    /* Long/LONGDATA: payload bytes carried in this record;
                              Medium: 0, or the payload's offset in the record */
    /* Long and LONGDATA only: receiver's address (LONGDATA: where this piece goes) */
    uint64_t dest_addr;
};
#define GEXC_SMP_HDR_SHORT  16u
#define GEXC_SMP_HDR_MEDIUM 24u
#define GEXC_SMP_HDR_LONG   32u
_Static_assert(offsetof(struct gexc_smp_rec, nbytes) == GEXC_SMP_HDR_SHORT, "record layout");
_Static_assert(offsetof(struct gexc_smp_rec, dest_addr) == GEXC_SMP_HDR_MEDIUM, "record layout");
_Static_assert(sizeof(struct gexc_smp_rec) == GEXC_SMP_HDR_LONG, "record layout");
_Static_assert(sizeof(_Atomic uint64_t) == sizeof(uint64_t), "word0 is accessed as an atomic");
_Static_assert(sizeof(gex_conduit_arg_t) == 4, "args are 4 bytes");


#define GEXC_SMP_W_KIND(w)    ((unsigned)((w) & 0xffu))
#define GEXC_SMP_W_ISREQ(w)   ((unsigned)(((w) >> 8) & 0xffu))
#define GEXC_SMP_W_HANDLER(w) ((unsigned)(((w) >> 16) & 0xffu))
#define GEXC_SMP_W_NARGS(w)   ((unsigned)(((w) >> 24) & 0xffu))
#define GEXC_SMP_W_LEN(w)     ((uint32_t)((w) >> 32))
#define GEXC_SMP_WORD0(kind, isreq, handler, nargs, len) \
    ((uint64_t)(kind) | (uint64_t)(isreq) << 8 | (uint64_t)(handler) << 16 | \
     (uint64_t)(nargs) << 24 | (uint64_t)(len) << 32)

/* Alignment of the payload of a negotiated-payload Medium record in a ring
 * buffer: 16 bytes ("suitably aligned to hold any data type", spec), and a
 * cache line from GEXC_SMP_NP_LINE_MIN bytes on, so that a client writing
 * a large payload in place never splits a store across lines. */
#define GEXC_SMP_NP_ALIGN 64u
#define GEXC_SMP_NP_LINE_MIN 256u

/* The largest record a sender may build: Long header, 16 args, a payload of
 * max_medium bytes.  Two of them plus the zeroed word must fit in a ring so
 * that an empty ring always accepts one, whatever the wrap position.  (A
 * negotiated-payload record may be up to GEXC_SMP_NP_ALIGN - 8 bytes longer
 * than the Medium it carries; its header is shorter than a Long's by 8 and
 * configure leaves room for the rest: see gexc_smp_configure.) */
static inline uint64_t gexc_smp_align8(uint64_t x) { return (x + 7) & ~(uint64_t)7; }
static inline uint64_t gexc_smp_max_record(uint64_t max_medium)
{
    return gexc_smp_align8(GEXC_SMP_HDR_LONG + 4u * GEXC_SMP_MAX_ARGS) + gexc_smp_align8(max_medium);
}

/* ---- Shared-memory region of one rank: its inbound rings ----
 * Named "/gex-<jobid>-smp-<jobrank>", created by its owner and unlinked as
 * soon as every peer has mapped it.  Ring (kind, src) has index
 * kind * jobsize + src; kind 0 carries requests, 1 replies. */
enum { GEXC_SMP_RING_REQ = 0, GEXC_SMP_RING_REP = 1 };

/* ---- Checking a record before it is trusted ----
 * The consumer reads word0 and the header from shared memory that the peer
 * writes; a record that breaks the format (a peer of another build, a
 * stray write) must end the job, not index past the record.  Pure: the
 * drain (smp_queue.c) and tests/fuzz/fuzz_am_header.c run this same code. */
struct gexc_smp_view {
    unsigned kind;         /* GEXC_SMP_K_* */
    uint32_t len;          /* record length (word0) */
    uint32_t args_off;     /* SHORT..LONG: first argument */
    uint32_t payload_off;  /* MEDIUM: the payload's offset in the record */
    uint32_t copy_off;     /* LONG, LONGDATA: offset of the carried piece (copy_len bytes) */
    uint32_t copy_len;
    uint32_t nbytes;       /* MEDIUM, LONG: r->nbytes as checked (the ring is shared:
                              the consumer uses this copy, never a second read) */
};

/* Checks the record at p whose word0 is w, with room bytes left before the
 * end of the ring, read from a ring of kind k (GEXC_SMP_RING_REQ or
 * _REP).  Returns NULL and fills *v, or says what is wrong.  On success
 * every byte the consumer then reads (header, args, Medium payload, Long
 * piece) lies within [p, p + v->len), and v->len <= room. */
static inline const char *gexc_smp_check_rec(const unsigned char *p, uint64_t w, uint64_t room,
                                             unsigned k, struct gexc_smp_view *v)
{
    const struct gexc_smp_rec *r = (const struct gexc_smp_rec *)p;
    const uint32_t len = GEXC_SMP_W_LEN(w);
    const unsigned kind = GEXC_SMP_W_KIND(w), nargs = GEXC_SMP_W_NARGS(w);
    v->kind = kind;
    v->len = len;
    v->args_off = v->payload_off = v->copy_off = v->copy_len = v->nbytes = 0;
    if (kind == GEXC_SMP_K_SKIP)   /* exactly the rest of the ring */
        return len == room && len >= 8 && !(len & 7) ? NULL : "bad SKIP record length";
    if ((len & 7) || len < GEXC_SMP_HDR_SHORT || len > room) return "bad record length";
    if (kind == GEXC_SMP_K_LONGDATA) {
        const uint32_t cl = len >= GEXC_SMP_HDR_LONG ? r->chunk_len : 0;
        if (len < GEXC_SMP_HDR_LONG || cl > len - GEXC_SMP_HDR_LONG)
            return "Long piece longer than its record";
        v->copy_off = GEXC_SMP_HDR_LONG;
        v->copy_len = cl;
        return NULL;
    }
    if (kind > GEXC_SMP_K_LONG) return "unknown record kind";
    const uint32_t hdr = kind == GEXC_SMP_K_SHORT ? GEXC_SMP_HDR_SHORT
                       : kind == GEXC_SMP_K_MEDIUM ? GEXC_SMP_HDR_MEDIUM : GEXC_SMP_HDR_LONG;
    const uint32_t poff = (uint32_t)gexc_smp_align8(hdr + 4u * nargs);
    if (nargs > GEXC_SMP_MAX_ARGS || poff > len || GEXC_SMP_W_ISREQ(w) != (k == GEXC_SMP_RING_REQ))
        return "bad nargs, length or request flag";
    v->args_off = hdr;
    if (kind == GEXC_SMP_K_SHORT) return NULL;
    const uint32_t nbytes = r->nbytes, cl = r->chunk_len;
    v->nbytes = nbytes;
    if (kind == GEXC_SMP_K_MEDIUM) {
        if (cl) {   /* layout version 2: the payload was placed further on */
            /* poff <= cl and cl + nbytes <= len in one test (cl - poff wraps far
             * past len - poff when cl < poff), and cl a multiple of 8 */
            if ((uint64_t)(uint32_t)(cl - poff) + nbytes > len - poff || (cl & 7))
                return "Medium payload offset outside its record";
            v->payload_off = cl;
        } else {
            if (nbytes > len - poff) return "Medium payload longer than its record";
            v->payload_off = poff;
        }
    } else {   /* LONG */
        if (cl > nbytes || cl > len - poff) return "Long piece longer than its record";
        v->copy_off = poff;   /* the last piece of a ring-borne Long */
        v->copy_len = cl;
    }
    return NULL;
}

#define GEXC_SMP_MAGIC          0x474558534d505231ull  /* "GEXSMPR1" */
#define GEXC_SMP_LAYOUT_VERSION 2u   /* 2: Medium payload offset in chunk_len */

struct gexc_smp_region_hdr {
    uint64_t magic;          /* written last by the owner before the first barrier */
    uint32_t layout_version;
    uint32_t jobrank;        /* owner */
    uint32_t jobsize;
    uint32_t use_hints;      /* producers must publish arrival hints into this region */
    uint64_t ring_size;
    uint64_t max_medium;
    uint64_t region_size;
};

/* Consumer-published head of one ring: the producer reads it only when its
 * cached copy says the ring is full, so each has its own cache line. */
struct gexc_smp_head {
    _Alignas(GEXC_SMP_CACHELINE) _Atomic uint64_t head;
};
_Static_assert(sizeof(struct gexc_smp_head) == GEXC_SMP_CACHELINE, "one head per line");

/* Offsets inside every region; equal on all ranks because they depend only
 * on jobsize and ring size, which init checks are equal. */
struct gexc_smp_layout {
    uint64_t off_heads;      /* struct gexc_smp_head[2 * jobsize] */
    uint64_t off_hints;      /* _Atomic uint32_t[2 * jobsize]: low 32 bits of each ring's tail */
    uint64_t off_rings;      /* ring data, 2 * jobsize rings of ring_size bytes */
    uint64_t region_size;
};

/* ---- Private state ---- */

/* Producer side of one outbound ring (lives in this process only: one
 * process produces into a given ring, so only its own threads contend). */
struct gexc_smp_tx {
    _Alignas(GEXC_SMP_CACHELINE) atomic_uint lock; /* taken only when use_lock */
    uint8_t use_lock;                 /* threaded client, and not a serialized EP's ring */
    uint8_t src_ep;                   /* EP ring: the sending local EP (0 for shared rings) */
    uint64_t tail;                    /* next byte position to write */
    uint64_t head_cache;              /* last consumer head seen */
    unsigned char *data;              /* ring bytes, in the peer's region */
    _Atomic uint64_t *head;           /* consumer-published head, in the peer's region */
    _Atomic uint32_t *hint;           /* NULL unless the peer polls with hints */
};

/* Consumer side of one inbound ring. */
struct gexc_smp_rx {
    uint64_t head;                    /* next byte position to read */
    unsigned char *data;
    _Atomic uint64_t *head_pub;       /* where the producer sees head */
};

struct gexc_smp_poll_lock {
    _Alignas(GEXC_SMP_CACHELINE) atomic_uint busy;
    unsigned rr;                      /* round-robin start (sender index) */
};

/* ---- Per-endpoint queues (conduit ABI 1.2, smp_ep.c) ----
 * An endpoint opened with ep_open (index >= 1) owns a shared-memory object
 * "/gex-<jobid>-smp-<jobrank>-ep<index>" holding its inbound rings: one
 * request and one reply ring per possible sender (source jobrank, source
 * EP index), so that every ring has exactly one producing EP and one
 * consuming EP and a serialized EP needs no lock on either side.  Slot of
 * (src, src_ep, kind): (src * GEXC_SMP_MAX_EPS + src_ep) * 2 + kind.  The
 * object is sized for all slots but its pages are only allocated as rings
 * are used.  A sender maps the object the first time it addresses the EP
 * (the name is derivable: EP creation needs no collective) and registers
 * its slot in the object's active list, which is all the consumer scans.
 * The object's name is removed by the last peer to map it (or by gexrun at
 * the end of the job when some peer never did). */
#define GEXC_SMP_MAX_EPS 64u          /* GASNET_MAXEPS */
#define GEXC_SMP_EP_MAGIC 0x474558534d504531ull  /* "GEXSMPE1" */

struct gexc_smp_ep_hdr {
    uint64_t magic;                   /* written last by the owner, before ep_open returns */
    uint32_t jobrank, ep;
    uint32_t jobsize, nslots;
    uint64_t ring_size;
    uint64_t obj_size;
    _Alignas(GEXC_SMP_CACHELINE) _Atomic uint32_t nactive;  /* slots producers registered */
    _Atomic uint32_t attached;        /* peers that mapped the object */
};
_Static_assert(sizeof(struct gexc_smp_ep_hdr) == 2 * GEXC_SMP_CACHELINE, "EP header layout");

/* Offsets inside an EP object (depend only on jobsize and ring size). */
struct gexc_smp_ep_layout {
    uint32_t nslots;
    uint64_t off_active;              /* _Atomic uint32_t[nslots]: slot + 1, in registration order */
    uint64_t off_heads;               /* struct gexc_smp_head[nslots] */
    uint64_t off_rings;               /* nslots rings */
    uint64_t size;
};

/* A peer EP object mapped here (peer's own EP or one of ours). */
struct gexc_smp_peer_ep {
    unsigned char *base;
    struct gexc_smp_ep_hdr *hdr;
};

/* Consumer state of one local EP with its own queues. */
struct gexc_smp_lep {
    gex_EP_Index_t index;
    int serialized;                   /* GEX_CONDUIT_EP_SERIALIZED: poll() leaves it alone */
    int threaded;                     /* atomic consumer flags: thread-safe client */
    unsigned char *base;
    struct gexc_smp_ep_hdr *hdr;
    _Atomic uint32_t *active;
    struct gexc_smp_rx *rx;           /* [nslots], set up as slots are adopted */
    struct gexc_smp_lep_kind {
        struct gexc_smp_poll_lock pl; /* consumer lock of this kind (threaded only) */
        uint32_t nseen;               /* entries of the active list examined */
        uint32_t nlist;
        uint32_t *list;               /* adopted slots of this kind */
    } kind[2];
};

struct gex_conduit {
    /* read on every call: keep together */
    uint64_t ring_size;
    uint64_t ring_mask;
    gex_Rank_t me, n;
    int thread_safe;
    unsigned poll_budget;
    size_t max_medium, max_long;
    size_t chunk;                     /* LONGDATA payload size (multiple of 8) */
    size_t np_prefetch;               /* GEX_SMP_NP_PREFETCH (bytes) */
    size_t np_fast_most;              /* am_prepare's fast path: most_payload up to this */
    struct gexc_smp_tx *tx;           /* [2 * n], index kind * n + dst */
    struct gexc_smp_rx *rx;           /* [2 * n], index kind * n + src */
    _Atomic uint32_t *hints;          /* own region's hints, NULL without hints */
    struct gexc_smp_poll_lock poll[2];/* per ring kind: replies drain independently */
    /* per-EP queues (smp_ep.c); poll() serves the non-serialized ones */
    _Atomic uint32_t n_polled_leps;   /* entries of polled_leps in use */
    struct gexc_smp_lep *_Atomic polled_leps[GEXC_SMP_MAX_EPS];
    struct gexc_smp_lep *_Atomic leps[GEXC_SMP_MAX_EPS];     /* [index], NULL: shared queues */
    struct gexc_smp_tx *_Atomic *_Atomic eptx[GEXC_SMP_MAX_EPS]; /* [src_ep][slot of (dst, ep, k)] */
    struct gexc_smp_peer_ep *_Atomic *peer_eps;               /* [dst * MAX_EPS + ep] */
    struct gexc_smp_ep_layout ep_layout;
    /* bootstrap state */
    struct gex_host_services host;    /* copy; fields the core did not provide are 0 */
    struct gexc_smp_layout layout;
    void **maps;                      /* [n]: each rank's region, mapped here */
};

/* ---- smp_queue.c: the ops that move AMs ---- */
GEXC_SMP_HIDDEN int gexc_smp_am_request(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                                        const struct gex_conduit_am *m, gex_Flags_t flags);
GEXC_SMP_HIDDEN int gexc_smp_am_reply(struct gex_conduit *c, void *reply_ctx,
                                      const struct gex_conduit_am *m, gex_Flags_t flags);
GEXC_SMP_HIDDEN int gexc_smp_poll(struct gex_conduit *c);
GEXC_SMP_HIDDEN int gexc_smp_poll_shared(struct gex_conduit *c);
/* ABI 1.1: negotiated-payload Mediums reserved in the destination ring. */
GEXC_SMP_HIDDEN int gexc_smp_am_prepare(struct gex_conduit *c, gex_Rank_t dst_jobrank,
                                        void *reply_ctx, const struct gex_conduit_am *m,
                                        size_t least, size_t most, gex_Flags_t flags,
                                        struct gex_conduit_np *np);
GEXC_SMP_HIDDEN int gexc_smp_am_commit(struct gex_conduit *c, struct gex_conduit_np *np,
                                       const struct gex_conduit_am *m, gex_Flags_t flags);
GEXC_SMP_HIDDEN int gexc_smp_am_cancel(struct gex_conduit *c, struct gex_conduit_np *np);
/* Points c->tx / c->rx at the mapped regions (init, after all are mapped). */
GEXC_SMP_HIDDEN void gexc_smp_queue_setup(struct gex_conduit *c);
/* Consumes up to *budget records of one ring; returns handlers run. */
GEXC_SMP_HIDDEN int gexc_smp_drain_ring(struct gex_conduit *c, struct gexc_smp_rx *rx, unsigned k,
                                        gex_Rank_t src, unsigned *budget);
/* Consumer lock of one ring kind (see smp_queue.c). */
static inline int gexc_smp_poll_trylock_t(int threaded, struct gexc_smp_poll_lock *pl)
{
    if (atomic_load_explicit(&pl->busy, memory_order_relaxed)) return 0;
    if (threaded) return !atomic_exchange_explicit(&pl->busy, 1, memory_order_acquire);
    atomic_store_explicit(&pl->busy, 1, memory_order_relaxed);
    return 1;
}
static inline void gexc_smp_poll_unlock(struct gexc_smp_poll_lock *pl)
{
    atomic_store_explicit(&pl->busy, 0, memory_order_release);
}

/* ---- smp_ep.c: per-endpoint queues (conduit ABI 1.2) ---- */
GEXC_SMP_HIDDEN int gexc_smp_ep_open(struct gex_conduit *c, gex_EP_Index_t ep, uint32_t ep_flags);
GEXC_SMP_HIDDEN void gexc_smp_ep_close(struct gex_conduit *c, gex_EP_Index_t ep);
GEXC_SMP_HIDDEN int gexc_smp_poll_ep(struct gex_conduit *c, gex_EP_Index_t ep);
/* Drains ring kind k of one local EP (budgeted); 0 if another thread is. */
GEXC_SMP_HIDDEN int gexc_smp_lep_poll_kind(struct gex_conduit *c, struct gexc_smp_lep *l, unsigned k,
                                           unsigned *budget);
/* The non-serialized EPs' rings, for poll(). */
GEXC_SMP_HIDDEN int gexc_smp_poll_leps(struct gex_conduit *c, unsigned k, unsigned *budget);
/* Producer state of the ring from local EP src_ep to (dst, dst_ep >= 1),
 * kind k, created on first use; the shared ring to dst when dst has no
 * such EP object (erroneous addressing: core then reports the bad EP). */
GEXC_SMP_HIDDEN struct gexc_smp_tx *gexc_smp_ep_tx_slow(struct gex_conduit *c, gex_EP_Index_t src_ep,
                                                        gex_Rank_t dst, gex_EP_Index_t dst_ep,
                                                        unsigned k);
GEXC_SMP_HIDDEN int gexc_smp_ep_setup(struct gex_conduit *c);
GEXC_SMP_HIDDEN void gexc_smp_ep_free(struct gex_conduit *c);

static inline uint32_t gexc_smp_ep_slot(gex_Rank_t src, gex_EP_Index_t src_ep, unsigned k)
{
    return ((uint32_t)src * GEXC_SMP_MAX_EPS + src_ep) * 2u + k;
}

/* The ring a message from local EP m->src_ep to (dst, m->dst_ep) travels
 * in: the process pair's shared ring for EP 0, else the destination EP's
 * own inbound ring for this sender. */
static inline struct gexc_smp_tx *gexc_smp_tx_for(struct gex_conduit *c, gex_Rank_t dst, unsigned k,
                                                  gex_EP_Index_t src_ep, gex_EP_Index_t dst_ep)
{
    if (GEXC_SMP_LIKELY(dst_ep == 0) || GEXC_SMP_UNLIKELY(src_ep >= GEXC_SMP_MAX_EPS ||
                                                          dst_ep >= GEXC_SMP_MAX_EPS))
        return &c->tx[(size_t)k * c->n + dst];
    struct gexc_smp_tx *_Atomic *tab = atomic_load_explicit(&c->eptx[src_ep], memory_order_acquire);
    if (GEXC_SMP_LIKELY(tab != NULL)) {
        struct gexc_smp_tx *tx = atomic_load_explicit(&tab[gexc_smp_ep_slot(dst, dst_ep, k)],
                                                      memory_order_acquire);
        if (GEXC_SMP_LIKELY(tx != NULL)) return tx;
    }
    return gexc_smp_ep_tx_slow(c, src_ep, dst, dst_ep, k);
}

/* reply_ctx handed to deliver_am: the requester's jobrank + 1, so that it is
 * never NULL. */
static inline void *gexc_smp_reply_ctx(gex_Rank_t src) { return (void *)((uintptr_t)src + 1); }

#endif /* GEXC_SMP_INTERNAL_H */
