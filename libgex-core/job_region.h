/*
 * job_region.h: the protocol between gexrun and the embedded bootstrap
 * (libgex-core/bootstrap_embedded.c).
 *
 * gexrun creates one anonymous shared memory object (memfd, so it never has
 * a name in /dev/shm) before forking the ranks, lays it out as described
 * here and hands its descriptor to every rank through the environment
 * (GEXI_JOB_ENV_*).  The ranks map it and use it for their bootstrap
 * collectives (barrier, all-gather, broadcast) and to tell gexrun that the
 * job must end; gexrun uses it to tell the ranks that the job is ending.
 *
 * This header is shared by a program that does not link libgex-core, so it
 * must stay self-contained: only standard C11 headers, no core headers.
 * The layout is versioned: change anything below and bump
 * GEXI_JOB_VERSION, since a rank built from a different release than gexrun
 * must fail with a clear message rather than misread the region.
 */
#ifndef GEX_JOB_REGION_H
#define GEX_JOB_REGION_H

#ifndef GEXI_BUILDING_GEX
#error "job_region.h is internal to GEX"
#endif

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- Environment gexrun passes to every rank ---- */
#define GEXI_JOB_ENV_FD   "GEX_JOB_FD"    /* descriptor of the region (inherited) */
#define GEXI_JOB_ENV_RANK "GEX_JOB_RANK"  /* 0 .. size-1 */
#define GEXI_JOB_ENV_SIZE "GEX_JOB_SIZE"  /* number of ranks */
#define GEXI_JOB_ENV_ID   "GEX_JOB_ID"    /* job id, also stored in the region */

#define GEXI_JOB_MAGIC   0x4745584a4f425247ull  /* "GEXJOBRG" */
#define GEXI_JOB_VERSION 1u

/* Longest job id plus its NUL.  Job ids are filename-safe and prefix every
 * named OS object of the job ("/gex-<jobid>-<what>"). */
#define GEXI_JOB_ID_MAX 32
#define GEXI_JOB_MAX_RANKS 4096u

/* Cache-line size used to keep independently written words apart. */
#define GEXI_JOB_LINE 64

/* Exchange slot of each rank: two halves used alternately, so one barrier
 * per round is enough (a rank writes half k%2 only after everyone passed
 * the barrier that ended their reads of round k-2). */
#define GEXI_JOB_SLOT_BYTES 8192u
#define GEXI_JOB_CHUNK_BYTES (GEXI_JOB_SLOT_BYTES / 2)
#define GEXI_JOB_PAGE 4096u

/* Why the job is ending (gexi_job_header.ending); 0 while it runs. */
#define GEXI_JOB_END_EXIT        1u  /* a rank called abort (gasnet_exit or fatal error) */
#define GEXI_JOB_END_RANK_FAILED 2u  /* gexrun saw a rank die or exit non-zero */
#define GEXI_JOB_END_TIMEOUT     4u  /* --timeout expired */
#define GEXI_JOB_END_SIGNAL      8u  /* gexrun got SIGINT, SIGTERM or SIGHUP */
#define GEXI_JOB_END_LAUNCH     16u  /* gexrun could not start every rank */

/* Per-rank progress (gexi_job_rank.state), bits only ever set. */
#define GEXI_JOB_RANK_JOINED   1u  /* bootstrap init done */
#define GEXI_JOB_RANK_EXIT_REQ 2u  /* abort(exit_code) called: the job must end */
#define GEXI_JOB_RANK_DETACHED 4u  /* bootstrap fini done */

/* Processes share these words, so they must be lock-free (a lock inside a
 * non-lock-free atomic would be private to each process). */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "job region needs lock-free int atomics");

struct gexi_job_header {
    /* Written by gexrun before the first fork; read-only afterwards. */
    uint64_t magic;              /* GEXI_JOB_MAGIC */
    uint32_t version;            /* GEXI_JOB_VERSION */
    uint32_t header_size;        /* sizeof(struct gexi_job_header) */
    uint32_t nranks;
    uint32_t slot_bytes;         /* GEXI_JOB_SLOT_BYTES */
    uint64_t region_size;        /* gexi_job_region_size(nranks) */
    char jobid[GEXI_JOB_ID_MAX];
    /* Ending state: its own line, polled by every waiting loop. */
    alignas(GEXI_JOB_LINE) atomic_uint ending;   /* GEXI_JOB_END_* bits */
    atomic_uint exit_rank;       /* 1 + first rank that aborted with a non-zero code */
    /* Central sense (epoch) barrier: count of arrivals, bumped epoch. */
    alignas(GEXI_JOB_LINE) atomic_uint bar_count;
    atomic_uint bar_epoch;
};

struct gexi_job_rank {
    alignas(GEXI_JOB_LINE) atomic_uint state;    /* GEXI_JOB_RANK_* bits */
    atomic_int exit_code;        /* valid once state has GEXI_JOB_RANK_EXIT_REQ */
    atomic_uint pid;             /* process that joined as this rank, 0 before */
};

/* Freeze the layout: a change here is a protocol change (bump the version). */
_Static_assert(offsetof(struct gexi_job_header, jobid) == 32, "job header moved");
_Static_assert(offsetof(struct gexi_job_header, ending) == 1 * GEXI_JOB_LINE, "job header moved");
_Static_assert(offsetof(struct gexi_job_header, bar_count) == 2 * GEXI_JOB_LINE,
               "job header moved");
_Static_assert(sizeof(struct gexi_job_header) == 3 * GEXI_JOB_LINE, "job header size");
_Static_assert(sizeof(struct gexi_job_rank) == GEXI_JOB_LINE, "job rank size");

/* Region layout: header, rank array, then (page aligned) the exchange area
 * of GEXI_JOB_SLOT_BYTES per rank. */
static inline size_t gexi_job_exch_offset(uint32_t nranks)
{
    size_t end = sizeof(struct gexi_job_header) + (size_t)nranks * sizeof(struct gexi_job_rank);
    return (end + GEXI_JOB_PAGE - 1) / GEXI_JOB_PAGE * GEXI_JOB_PAGE;
}

static inline size_t gexi_job_region_size(uint32_t nranks)
{
    return gexi_job_exch_offset(nranks) + (size_t)nranks * GEXI_JOB_SLOT_BYTES;
}

static inline struct gexi_job_rank *gexi_job_rank_of(struct gexi_job_header *h, uint32_t rank)
{
    return (struct gexi_job_rank *)(h + 1) + rank;
}

/* Half `half` (0 or 1) of `rank`'s exchange slot. */
static inline unsigned char *gexi_job_chunk(struct gexi_job_header *h, uint32_t rank,
                                            unsigned half)
{
    return (unsigned char *)h + gexi_job_exch_offset(h->nranks) +
           (size_t)rank * GEXI_JOB_SLOT_BYTES + (size_t)half * GEXI_JOB_CHUNK_BYTES;
}

/* ---- Validation of what a rank reads (bootstrap_embedded.c) ----
 * Pure checks, so tests/fuzz/fuzz_job_region.c runs the same code on
 * arbitrary bytes.  A job variable: a decimal in [0, max], all of it. */
static inline int gexi_job_parse_uint(const char *s, unsigned long max, unsigned long *val_p)
{
    if (!s || *s < '0' || *s > '9') return -1;   /* strtoul would take "-1" or " 1" */
    unsigned long v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (max - (unsigned long)(*s - '0')) / 10) return -1;
        v = v * 10 + (unsigned long)(*s - '0');
    }
    if (*s) return -1;
    *val_p = v;
    return 0;
}

/* What a region header may be wrong in, in the order checked. */
enum gexi_job_region_fault {
    GEXI_JOB_REGION_OK = 0,
    GEXI_JOB_REGION_NOT_OURS,    /* bad magic or header size */
    GEXI_JOB_REGION_VERSION,     /* another release's layout */
    GEXI_JOB_REGION_SHAPE,       /* ranks, slot size or byte size disagree */
    GEXI_JOB_REGION_JOBID        /* another job's region */
};

/* Checks the header of a region of `mapped` bytes that a rank of a job of
 * `nranks` ranks (at most GEXI_JOB_MAX_RANKS) named `jobid` maps.  Once it
 * passes, every rank record and exchange slot of the layout lies inside
 * the mapping. */
static inline enum gexi_job_region_fault
gexi_job_region_check(const struct gexi_job_header *h, size_t mapped, unsigned long nranks,
                      const char *jobid)
{
    if (mapped < sizeof(*h) || h->magic != GEXI_JOB_MAGIC || h->header_size != sizeof(*h))
        return GEXI_JOB_REGION_NOT_OURS;
    if (h->version != GEXI_JOB_VERSION) return GEXI_JOB_REGION_VERSION;
    if (nranks > GEXI_JOB_MAX_RANKS || h->nranks != nranks ||
        h->slot_bytes != GEXI_JOB_SLOT_BYTES || h->region_size != mapped ||
        mapped != gexi_job_region_size(h->nranks))
        return GEXI_JOB_REGION_SHAPE;
    /* strncmp stops at sizeof(h->jobid): the region's copy need not end in NUL */
    if (strncmp(h->jobid, jobid, sizeof(h->jobid)) != 0) return GEXI_JOB_REGION_JOBID;
    return GEXI_JOB_REGION_OK;
}

#endif /* GEX_JOB_REGION_H */
