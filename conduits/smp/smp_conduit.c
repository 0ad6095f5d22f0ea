/*
 * smp_conduit.c: the smp conduit's plug-in face: the one exported entry
 * point, the ops table, configuration from GEX_SMP_* variables, capabilities,
 * and the bootstrap of the shared memory the rings live in (smp_queue.c moves
 * the messages).  The plug-in never links libgex-core: all it needs arrives
 * in struct gex_host_services at init (include/gex/conduit.h).
 *
 * Shared memory.  Each rank creates one POSIX shm object holding its inbound
 * rings, "/gex-<jobid>-smp-<jobrank>", sized and zeroed by ftruncate, and
 * maps it.  After a barrier every rank maps all its peers' objects (names are
 * derivable, so nothing is exchanged), then all ranks agree on success with
 * one all-gather, and each unlinks its own name at once: from then on the
 * memory lives only as long as the mappings, so nothing is left in /dev/shm
 * even if the job later crashes.  Every rank walks through every collective
 * step even after a local failure, so a failure on one rank becomes an error
 * on all of them rather than a hang.
 *
 * Memory use: each rank maps jobsize regions of 2 * jobsize rings, and /dev/shm
 * holds jobsize^2 * 2 * GEX_SMP_RING_SIZE bytes in all (pages are allocated
 * as rings are used).  With the default rings (256 KiB up to 32 ranks, 128
 * KiB beyond: gexc_smp_ring_default): 2 ranks 2 MiB, 4 ranks 8 MiB, 8 ranks
 * 32 MiB, 16 ranks 128 MiB, 64 ranks 1 GiB (per rank: 2 * jobsize rings,
 * 4 MiB at 8 ranks).
 */
#include "smp_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "layer_ident.h"

GEXI_CONDUIT_IDENT("smp");

/* Host services up to the ABI 1.0 marker: what this conduit needs. */
#define GEXC_SMP_HOST_1_0_SIZE \
    (offsetof(struct gex_host_services, backoff) + sizeof(void (*)(void)))
#define GEXC_SMP_CAPS_1_0_SIZE \
    (offsetof(struct gex_conduit_caps, am_max_long_reply) + sizeof(size_t))
_Static_assert(GEXC_SMP_HOST_1_0_SIZE == sizeof(struct gex_host_services),
               "host services grew: decide which new fields smp needs");
_Static_assert(GEXC_SMP_CAPS_1_0_SIZE == sizeof(struct gex_conduit_caps),
               "caps grew: fill the new fields");
_Static_assert(offsetof(struct gex_conduit_ops, mem_deregister) + sizeof(void (*)(void)) ==
               GEX_CONDUIT_OPS_1_0_SIZE, "ABI 1.0 ops moved");
_Static_assert(sizeof(struct gex_conduit_ops) == GEX_CONDUIT_OPS_1_2_SIZE,
               "ops grew past ABI 1.2: decide which new slots smp fills");

#define GEXC_SMP_PAGE 4096u   /* ring data alignment inside a region */

/* ---- Configuration ---- */

/* Reads a size (gex_conduit_parse_size's grammar, docs/environment.md).
 * Returns 0 and sets *set_p when the variable is present. */
static int gexc_smp_env_size(struct gex_conduit *c, const char *name, uint64_t dflt,
                             uint64_t *val_p, int *set_p)
{
    const char *s = c->host.getenv(name);
    *val_p = dflt;
    *set_p = 0;
    if (!s || !*s) return GEX_CONDUIT_OK;
    if (gex_conduit_parse_size(s, val_p)) {
        *val_p = dflt;
        c->host.log(0, "smp conduit: %s=\"%s\" is not a size (expected a number with an "
                    "optional K, M, G or T suffix)", name, s);
        return GEX_CONDUIT_EINVAL;
    }
    *set_p = 1;
    return GEX_CONDUIT_OK;
}

/* The default ring size for a job of n ranks: 256 KiB, which takes two
 * Mediums of the default MaxMedium (64 KiB) whatever the wrap position,
 * and 128 KiB past GEXC_SMP_RING_BIG_MAX_RANKS ranks, where 2 * n rings per
 * rank would otherwise grow past 16 MiB (MaxMedium is then 65,432 bytes
 * unless set).  Every rank computes the same from the job size, so the
 * regions agree (gexc_smp_map_peer checks). */
static uint64_t gexc_smp_ring_default(gex_Rank_t n)
{
    return n > GEXC_SMP_RING_BIG_MAX_RANKS ? GEXC_SMP_RING_SIZE_DEFAULT_BIG_JOB
                                           : GEXC_SMP_RING_SIZE_DEFAULT;
}
_Static_assert(((((GEXC_SMP_RING_SIZE_DEFAULT - 8) / 2 - 96) & ~(uint64_t)7) >=
                GEXC_SMP_MAX_MEDIUM_DEFAULT) &&
               GEXC_SMP_HDR_LONG + 4 * GEXC_SMP_MAX_ARGS == 96,
               "the default ring carries two Mediums of the default MaxMedium");
_Static_assert((((GEXC_SMP_RING_SIZE_DEFAULT_BIG_JOB - 8) / 2 - 96) & ~(uint64_t)7) >= 65416,
               "MaxMedium of large jobs stays at least GASNet-EX's on smp (65,416)");

/* Fills ring size, limits, poll budget and the hint choice from the
 * environment, checking that they fit together. */
static int gexc_smp_configure(struct gex_conduit *c, int *use_hints_p)
{
    uint64_t ring, medium, lng, budget;
    int set, medium_set;
    int rc;

    if ((rc = gexc_smp_env_size(c, "GEX_SMP_RING_SIZE", gexc_smp_ring_default(c->n), &ring,
                                &set)))
        return rc;
    if (ring < GEXC_SMP_RING_SIZE_MIN || ring > GEXC_SMP_RING_SIZE_MAX || (ring & (ring - 1))) {
        c->host.log(0, "smp conduit: GEX_SMP_RING_SIZE=%llu must be a power of two between "
                    "%llu and %llu (ring positions are masked, never divided)",
                    (unsigned long long)ring, (unsigned long long)GEXC_SMP_RING_SIZE_MIN,
                    (unsigned long long)GEXC_SMP_RING_SIZE_MAX);
        return GEX_CONDUIT_EINVAL;
    }

    /* Two largest records + the zeroed word must fit: then an empty ring
     * always takes one, wherever its tail stands. */
    const uint64_t medium_limit =
        ((ring - 8) / 2 - gexc_smp_align8(GEXC_SMP_HDR_LONG + 4u * GEXC_SMP_MAX_ARGS)) & ~(uint64_t)7;
    if ((rc = gexc_smp_env_size(c, "GEX_SMP_MAX_MEDIUM", GEXC_SMP_MAX_MEDIUM_DEFAULT, &medium,
                                &medium_set)))
        return rc;
    if (!medium_set && medium > medium_limit) medium = medium_limit;   /* small ring, default */
    if (medium < GEXC_SMP_MAX_MEDIUM_MIN || medium > medium_limit) {
        c->host.log(0, "smp conduit: GEX_SMP_MAX_MEDIUM=%llu must be between %llu and %llu "
                    "with GEX_SMP_RING_SIZE=%llu (two maximal messages must fit in a ring)",
                    (unsigned long long)medium, (unsigned long long)GEXC_SMP_MAX_MEDIUM_MIN,
                    (unsigned long long)medium_limit, (unsigned long long)ring);
        return GEX_CONDUIT_EINVAL;
    }
    _Static_assert(GEXC_SMP_RING_SIZE_MIN / 2 - 8 - GEXC_SMP_HDR_LONG - 4 * GEXC_SMP_MAX_ARGS >=
                   GEXC_SMP_MAX_MEDIUM_MIN, "the smallest ring must carry MaxMedium >= 512");

    if ((rc = gexc_smp_env_size(c, "GEX_SMP_MAX_LONG", GEXC_SMP_MAX_LONG_DEFAULT, &lng, &set)))
        return rc;
    if (lng < GEXC_SMP_MAX_MEDIUM_MIN || lng > GEXC_SMP_MAX_LONG_MAX) {
        c->host.log(0, "smp conduit: GEX_SMP_MAX_LONG=%llu must be between %llu and %llu",
                    (unsigned long long)lng, (unsigned long long)GEXC_SMP_MAX_MEDIUM_MIN,
                    (unsigned long long)GEXC_SMP_MAX_LONG_MAX);
        return GEX_CONDUIT_EINVAL;
    }

    if ((rc = gexc_smp_env_size(c, "GEX_SMP_POLL_BUDGET", GEXC_SMP_POLL_BUDGET_DEFAULT, &budget,
                                &set)))
        return rc;
    if (budget < 1 || budget > (1u << 20)) {
        c->host.log(0, "smp conduit: GEX_SMP_POLL_BUDGET=%llu must be between 1 and %u",
                    (unsigned long long)budget, 1u << 20);
        return GEX_CONDUIT_EINVAL;
    }

    uint64_t prefetch;
    if ((rc = gexc_smp_env_size(c, "GEX_SMP_NP_PREFETCH", GEXC_SMP_NP_PREFETCH_DEFAULT,
                                &prefetch, &set)))
        return rc;

    const char *h = c->host.getenv("GEX_SMP_HINTS");
    if (!h || !*h || !strcasecmp(h, "auto")) {
        *use_hints_p = c->n >= GEXC_SMP_HINTS_AUTO_MIN_RANKS;
    } else if (!strcasecmp(h, "yes") || !strcmp(h, "1")) {
        *use_hints_p = 1;
    } else if (!strcasecmp(h, "no") || !strcmp(h, "0")) {
        *use_hints_p = 0;
    } else {
        c->host.log(0, "smp conduit: GEX_SMP_HINTS=\"%s\" must be auto, yes or no", h);
        return GEX_CONDUIT_EINVAL;
    }

    c->ring_size = ring;
    c->ring_mask = ring - 1;
    c->max_medium = (size_t)medium;
    c->max_long = (size_t)lng;
    c->chunk = (size_t)(medium & ~(uint64_t)7);
    c->poll_budget = (unsigned)budget;
    c->np_prefetch = prefetch > medium ? (size_t)medium : (size_t)prefetch;
    /* the largest most_payload whose record, padded for a cache-line aligned
     * payload with 16 args, stays within gexc_smp_max_record(max_medium) */
    c->np_fast_most = (size_t)(gexc_smp_max_record(medium) -
                               gexc_smp_align8(GEXC_SMP_HDR_MEDIUM + 4u * GEXC_SMP_MAX_ARGS) -
                               (GEXC_SMP_NP_ALIGN - 8)) & ~(size_t)7;
    return GEX_CONDUIT_OK;
}

/* Region offsets; fails on arithmetic overflow (absurd jobsize * ring size). */
static int gexc_smp_compute_layout(struct gex_conduit *c)
{
    struct gexc_smp_layout *L = &c->layout;
    const uint64_t nrings = 2 * (uint64_t)c->n;
    uint64_t rings_bytes;
    L->off_heads = GEXC_SMP_CACHELINE;   /* after struct gexc_smp_region_hdr */
    L->off_hints = L->off_heads + nrings * sizeof(struct gexc_smp_head);
    L->off_rings = (L->off_hints + nrings * sizeof(uint32_t) + GEXC_SMP_PAGE - 1) &
                   ~(uint64_t)(GEXC_SMP_PAGE - 1);
    if (__builtin_mul_overflow(nrings, c->ring_size, &rings_bytes) ||
        __builtin_add_overflow(L->off_rings, rings_bytes, &L->region_size) ||
        L->region_size > (uint64_t)SIZE_MAX / 2 || L->region_size > (uint64_t)INT64_MAX) {
        c->host.log(0, "smp conduit: %u ranks with GEX_SMP_RING_SIZE=%llu need too much "
                    "memory per rank; lower GEX_SMP_RING_SIZE",
                    (unsigned)c->n, (unsigned long long)c->ring_size);
        return GEX_CONDUIT_ENOMEM;
    }
    _Static_assert(sizeof(struct gexc_smp_region_hdr) <= GEXC_SMP_CACHELINE, "header fits a line");
    return GEX_CONDUIT_OK;
}

/* "/gex-<jobid>-smp-<rank>"; a '/' in the job id would make a path. */
static int gexc_smp_shm_name(struct gex_conduit *c, gex_Rank_t r, char *buf, size_t len)
{
    int w = snprintf(buf, len, "/gex-%s-smp-%u", c->host.jobid, (unsigned)r);
    if (w < 0 || (size_t)w >= len) {
        c->host.log(0, "smp conduit: job id \"%s\" is too long for a shared-memory name",
                    c->host.jobid);
        return GEX_CONDUIT_EINVAL;
    }
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') *p = '_';
    return GEX_CONDUIT_OK;
}

/* Creates, sizes and maps this rank's region and writes its header. */
static int gexc_smp_create_own(struct gex_conduit *c, int use_hints, const char *name,
                               int *created_p)
{
    const uint64_t size = c->layout.region_size;
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) {
        /* Only a crashed earlier job with the same id leaves one behind
         * (we unlink right after setup); it cannot be ours to share. */
        c->host.log(1, "smp conduit: removing stale shared memory %s", name);
        shm_unlink(name);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd < 0) {
        c->host.log(0, "smp conduit: shm_open(%s): %s", name, strerror(errno));
        return GEX_CONDUIT_EIO;
    }
    *created_p = 1;
    if (ftruncate(fd, (off_t)size) != 0) {
        c->host.log(0, "smp conduit: sizing %s to %llu bytes: %s", name,
                    (unsigned long long)size, strerror(errno));
        close(fd);
        return GEX_CONDUIT_ENOMEM;
    }
    /* Pages come on first use, so a full /dev/shm shows up later as SIGBUS:
     * say so now, once per job, with what to change. */
    struct statvfs vfs;
    const uint64_t total = size * c->n;
    if (c->me == 0 && fstatvfs(fd, &vfs) == 0 &&
        (uint64_t)vfs.f_bavail * vfs.f_frsize < total)
        c->host.log(1, "smp conduit: /dev/shm has %llu bytes free but the job's rings may use "
                    "%llu (jobsize^2 * 2 * GEX_SMP_RING_SIZE); lower GEX_SMP_RING_SIZE",
                    (unsigned long long)vfs.f_bavail * vfs.f_frsize, (unsigned long long)total);
    void *addr = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    if (addr == MAP_FAILED) {
        c->host.log(0, "smp conduit: mapping %s (%llu bytes): %s", name,
                    (unsigned long long)size, strerror(err));
        return GEX_CONDUIT_ENOMEM;
    }
    c->maps[c->me] = addr;
    struct gexc_smp_region_hdr *h = addr;
    h->layout_version = GEXC_SMP_LAYOUT_VERSION;
    h->jobrank = c->me;
    h->jobsize = c->n;
    h->use_hints = (uint32_t)use_hints;
    h->ring_size = c->ring_size;
    h->max_medium = c->max_medium;
    h->region_size = size;
    h->magic = GEXC_SMP_MAGIC;   /* peers read it only after the barrier */
    return GEX_CONDUIT_OK;
}

/* Maps peer r's region and checks that it was built with the same settings. */
static int gexc_smp_map_peer(struct gex_conduit *c, gex_Rank_t r)
{
    char name[256];
    const uint64_t size = c->layout.region_size;
    int rc = gexc_smp_shm_name(c, r, name, sizeof name);
    if (rc) return rc;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        c->host.log(0, "smp conduit: cannot open rank %u's shared memory %s: %s "
                    "(did that rank fail to start?)", (unsigned)r, name, strerror(errno));
        return GEX_CONDUIT_EIO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != size) {
        c->host.log(0, "smp conduit: rank %u's shared memory %s has %lld bytes, expected %llu: "
                    "GEX_SMP_RING_SIZE must be the same on every rank", (unsigned)r, name,
                    (long long)st.st_size, (unsigned long long)size);
        close(fd);
        return GEX_CONDUIT_EINVAL;
    }
    void *addr = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    if (addr == MAP_FAILED) {
        c->host.log(0, "smp conduit: mapping rank %u's shared memory %s: %s", (unsigned)r, name,
                    strerror(err));
        return GEX_CONDUIT_ENOMEM;
    }
    c->maps[r] = addr;
    const struct gexc_smp_region_hdr *h = addr;
    if (h->magic != GEXC_SMP_MAGIC || h->layout_version != GEXC_SMP_LAYOUT_VERSION ||
        h->jobrank != r || h->jobsize != c->n || h->region_size != size) {
        c->host.log(0, "smp conduit: rank %u's shared memory %s is not a version %u smp region "
                    "of a %u-rank job (another GEX build?)", (unsigned)r, name,
                    GEXC_SMP_LAYOUT_VERSION, (unsigned)c->n);
        return GEX_CONDUIT_EINVAL;
    }
    if (h->ring_size != c->ring_size || h->max_medium != c->max_medium) {
        c->host.log(0, "smp conduit: rank %u uses GEX_SMP_RING_SIZE=%llu GEX_SMP_MAX_MEDIUM=%llu, "
                    "this rank %llu and %llu: set the same values on every rank", (unsigned)r,
                    (unsigned long long)h->ring_size, (unsigned long long)h->max_medium,
                    (unsigned long long)c->ring_size, (unsigned long long)c->max_medium);
        return GEX_CONDUIT_EINVAL;
    }
    return GEX_CONDUIT_OK;
}

/* All-gather of the local status, doubling as the barrier after which no
 * rank will open another's region.  Returns the status for this rank. */
static int gexc_smp_agree(struct gex_conduit *c, int st)
{
    int32_t mine = st;
    int32_t *all = c->host.exchange ? calloc(c->n, sizeof *all) : NULL;
    if (!all) {
        /* no all-gather: still synchronize; each rank keeps its own view */
        if (c->host.barrier() != 0 && !st) st = GEX_CONDUIT_EIO;
        return st;
    }
    if (c->host.exchange(&mine, sizeof mine, all) != 0) {
        c->host.log(0, "smp conduit: the bootstrap all-gather failed");
        free(all);
        return st ? st : GEX_CONDUIT_EIO;
    }
    if (!st) {
        for (gex_Rank_t r = 0; r < c->n; r++) {
            if (all[r]) {
                c->host.log(1, "smp conduit: rank %u failed to set up shared memory (error %d); "
                            "see its messages", (unsigned)r, (int)all[r]);
                st = GEX_CONDUIT_EIO;
                break;
            }
        }
    }
    free(all);
    return st;
}

static void gexc_smp_free(struct gex_conduit *c)
{
    if (!c) return;
    gexc_smp_ep_free(c);
    if (c->maps) {
        for (gex_Rank_t r = 0; r < c->n; r++)
            if (c->maps[r]) munmap(c->maps[r], (size_t)c->layout.region_size);
        free(c->maps);
    }
    free(c->tx);
    free(c->rx);
    free(c);
}

static void *gexc_smp_alloc_aligned(size_t n)
{
    size_t sz = (n + GEXC_SMP_CACHELINE - 1) & ~(size_t)(GEXC_SMP_CACHELINE - 1);
    void *p = aligned_alloc(GEXC_SMP_CACHELINE, sz ? sz : GEXC_SMP_CACHELINE);
    if (p) memset(p, 0, sz);
    return p;
}

/* ---- Ops ---- */

static int gexc_smp_init(const struct gex_host_services *host, struct gex_conduit **c_p,
                         struct gex_conduit_caps *caps)
{
    if (!host || !c_p || !caps) return GEX_CONDUIT_EINVAL;
    const int can_log = host->struct_size >= offsetof(struct gex_host_services, log) +
                        sizeof host->log && host->log;
    if (host->struct_size < GEXC_SMP_HOST_1_0_SIZE) {
        if (can_log)
            host->log(0, "smp conduit: host services of %u bytes predate conduit ABI 1.0 "
                      "(%zu bytes)", (unsigned)host->struct_size, GEXC_SMP_HOST_1_0_SIZE);
        return GEX_CONDUIT_EINVAL;
    }
    if (host->abi_major != GEX_CONDUIT_ABI_MAJOR || !host->deliver_am || !host->fatal ||
        !host->getenv || !host->barrier || !host->peer_local_addr || !host->backoff ||
        !host->jobid || !*host->jobid || host->jobsize == 0 || host->jobrank >= host->jobsize) {
        if (can_log)
            host->log(0, "smp conduit: unusable host services (ABI %u, conduit ABI %u, "
                      "rank %u of %u, or a missing service)", (unsigned)host->abi_major,
                      GEX_CONDUIT_ABI_MAJOR, (unsigned)host->jobrank, (unsigned)host->jobsize);
        return GEX_CONDUIT_EINVAL;
    }
    if (!can_log) return GEX_CONDUIT_EINVAL;
    /* caps: the core may say how big its struct is; 0 means "the ABI 1.0 one" */
    if (caps->struct_size != 0 && caps->struct_size < GEXC_SMP_CAPS_1_0_SIZE) {
        host->log(0, "smp conduit: caps struct of %u bytes predates conduit ABI 1.0 (%zu bytes)",
                  (unsigned)caps->struct_size, GEXC_SMP_CAPS_1_0_SIZE);
        return GEX_CONDUIT_EINVAL;
    }

    struct gex_conduit *c = gexc_smp_alloc_aligned(sizeof *c);
    if (!c) {
        host->log(0, "smp conduit: out of memory");
        return GEX_CONDUIT_ENOMEM;
    }
    /* A newer core's struct is longer: take the part this build knows. */
    memcpy(&c->host, host, host->struct_size < sizeof c->host ? host->struct_size : sizeof c->host);
    c->me = host->jobrank;
    c->n = host->jobsize;
    c->thread_safe = host->thread_safe != 0;

    /* From here on every rank takes part in every collective step, failed or
     * not (see the file comment). */
    int use_hints = 0, created = 0;
    char name[256];
    int st = gexc_smp_configure(c, &use_hints);
    if (!st) st = gexc_smp_compute_layout(c);
    if (!st) st = gexc_smp_shm_name(c, c->me, name, sizeof name);
    if (!st) {
        c->maps = calloc(c->n, sizeof *c->maps);
        c->tx = gexc_smp_alloc_aligned(2 * (size_t)c->n * sizeof *c->tx);
        c->rx = gexc_smp_alloc_aligned(2 * (size_t)c->n * sizeof *c->rx);
        if (!c->maps || !c->tx || !c->rx) {
            c->host.log(0, "smp conduit: out of memory for %u peers", (unsigned)c->n);
            st = GEX_CONDUIT_ENOMEM;
        }
    }
    if (!st) st = gexc_smp_create_own(c, use_hints, name, &created);

    if (c->host.barrier() != 0) {
        c->host.log(0, "smp conduit: bootstrap barrier failed");
        if (created) shm_unlink(name);
        gexc_smp_free(c);
        return st ? st : GEX_CONDUIT_EIO;
    }
    for (gex_Rank_t r = 0; !st && r < c->n; r++)
        if (r != c->me) st = gexc_smp_map_peer(c, r);
    st = gexc_smp_agree(c, st);
    /* Every peer has mapped us or given up: the name is no longer needed. */
    if (created) shm_unlink(name);
    if (st) {
        gexc_smp_free(c);
        return st;
    }

    gexc_smp_queue_setup(c);
    if (gexc_smp_ep_setup(c) != GEX_CONDUIT_OK) {
        c->host.log(0, "smp conduit: out of memory for the endpoint tables");
        gexc_smp_free(c);
        return GEX_CONDUIT_ENOMEM;
    }

    struct gex_conduit_caps mine;
    memset(&mine, 0, sizeof mine);
    mine.struct_size = sizeof mine;
    mine.am_max_args = GEXC_SMP_MAX_ARGS;
    mine.flags = GEX_CONDUIT_CAP_SHARED_MEMORY | GEX_CONDUIT_CAP_IMMEDIATE |
                 GEX_CONDUIT_CAP_NPAM_MEDIUM |  /* am_prepare/commit/cancel below */
                 GEX_CONDUIT_CAP_NPAM_LONG |    /* zero copy to mapped destinations (smp_queue.c) */
                 GEX_CONDUIT_CAP_EP_QUEUES;     /* ep_open/ep_close/poll_ep (smp_ep.c) */
    mine.am_max_medium = c->max_medium;
    mine.am_max_long_request = c->max_long;
    mine.am_max_long_reply = c->max_long;
    size_t give = caps->struct_size && caps->struct_size < sizeof mine ? caps->struct_size
                                                                        : sizeof mine;
    mine.struct_size = (uint32_t)give;
    memcpy(caps, &mine, give);

    /* every rank of a node has the same settings: said once, like the ENV
     * listing (ofi's line stays per rank: its NIC can differ by host) */
    if (c->me == 0)
        c->host.log(2, "smp conduit: rank %u of %u, ring %llu bytes x %u, MaxMedium %zu, "
                    "MaxLong %zu, poll budget %u, arrival hints %s, %s",
                    (unsigned)c->me, (unsigned)c->n, (unsigned long long)c->ring_size,
                    (unsigned)(2 * c->n), c->max_medium, c->max_long, c->poll_budget,
                    use_hints ? "on" : "off", c->thread_safe ? "thread-safe" : "single-threaded");
    *c_p = c;
    return GEX_CONDUIT_OK;
}

static void gexc_smp_fini(struct gex_conduit *c)
{
    gexc_smp_free(c);
}

/* Shared memory needs no registration: every segment is reached by copy. */
static int gexc_smp_mem_register(struct gex_conduit *c, void *addr, size_t len, uint64_t *key_p)
{
    if (key_p) *key_p = 0;
    return GEX_CONDUIT_OK;
}

static int gexc_smp_mem_deregister(struct gex_conduit *c, uint64_t key)
{
    return GEX_CONDUIT_OK;
}

static const struct gex_conduit_ops gexc_smp_ops = {
    .abi_major = GEX_CONDUIT_ABI_MAJOR,
    .struct_size = sizeof(struct gex_conduit_ops),
    .name = "smp",
    .init = gexc_smp_init,
    .fini = gexc_smp_fini,
    .am_request = gexc_smp_am_request,
    .am_reply = gexc_smp_am_reply,
    .poll = gexc_smp_poll,
    .mem_register = gexc_smp_mem_register,
    .mem_deregister = gexc_smp_mem_deregister,
    /* ABI 1.1: negotiated-payload Mediums (GEX_CONDUIT_CAP_NPAM_MEDIUM) */
    .am_prepare = gexc_smp_am_prepare,
    .am_commit = gexc_smp_am_commit,
    .am_cancel = gexc_smp_am_cancel,
    /* ABI 1.2: per-endpoint queues (GEX_CONDUIT_CAP_EP_QUEUES); no native RMA or atomics */
    .ep_open = gexc_smp_ep_open,
    .ep_close = gexc_smp_ep_close,
    .poll_ep = gexc_smp_poll_ep,
};

/* The plug-in's only exported symbol (STYLE section 2).  Declared through
 * the ABI's typedef so that a signature drift fails to compile. */
__attribute__((visibility("default"))) gex_conduit_entry_fn gex_conduit_entry_v1;
const struct gex_conduit_ops *gex_conduit_entry_v1(void)
{
    return &gexc_smp_ops;
}
