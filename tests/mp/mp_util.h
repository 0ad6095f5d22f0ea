/*
 * mp_util.h: helpers shared by the multi-process tests (tests/mp/mp_*.c).
 *
 * Every test is a plain GEX client run by tests/mp/mp-driver under gexrun.
 * It exits 0 on success; on failure it prints where and why and ends the job
 * with gasnet_exit(1).  This header provides:
 *  - CHECK macros that print file:line, the failing expression (and values)
 *    and call gasnet_exit(1);
 *  - a watchdog (alarm) that ends a hung rank with status 2, as a second
 *    guard under gexrun's own --timeout;
 *  - a reusable barrier and an all-gather built only from AMs (no collectives
 *    exist yet), on handler indices MP_H_BARRIER_ARRIVE .. MP_H_ALLGATHER;
 *  - small pattern helpers to fill and verify payloads.
 *
 * Usage: mp_init(&argc, &argv, "NAME", flags); register the test's handlers;
 * mp_attach(size) (collective with an implicit barrier); ... mp_barrier() ...;
 * mp_finish("summary").  Everything here is static: include it from exactly
 * one file per program.
 *
 * Handler registration vs the first AM: gex_Client_Init ends with a barrier
 * and mp_init registers the helpers' handlers before returning.  AMs from
 * other ranks run only when the receiver polls (hidden AM concurrency is 0;
 * an AM to oneself runs inside the sending call, docs/am.md), and a
 * test registers all its handlers before its first GEX call that polls (the
 * first mp_barrier, mp_allgather or mp_attach), so no AM can find its handler
 * missing.
 */
#ifndef MP_UTIL_H
#define MP_UTIL_H

#undef GEXI_BUILDING_GEX /* compile exactly as a client would */
#include <gasnet.h>
#include <gasnetex.h>
#include <gasnet_coll.h>

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Job objects, filled by mp_init / mp_attach ---- */
static gex_Client_t mp_client = GEX_CLIENT_INVALID;
static gex_EP_t mp_ep = GEX_EP_INVALID;
static gex_TM_t mp_tm = GEX_TM_INVALID;
static gex_Segment_t mp_seg = GEX_SEGMENT_INVALID;
static gex_Rank_t mp_me, mp_n;
static int mp_initialized;
static const char *mp_prog = "mp";
/* What the test is doing now: named in failure and watchdog messages. */
static const char *volatile mp_phase_name = "startup";

static inline void mp_phase(const char *name) { mp_phase_name = name; }

/* Rank for messages: the real one once initialised, gexrun's before that. */
static inline unsigned mp_rank_for_msg(void)
{
    if (mp_initialized) return (unsigned)mp_me;
    const char *r = getenv("GEX_JOB_RANK");
    return r ? (unsigned)atoi(r) : 0u;
}

static void mp_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
static void mp_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "%s: rank %u: FAIL at %s:%d (phase: %s): ", mp_prog,
                     mp_rank_for_msg(), file, line, mp_phase_name);
    if (n < 0) n = 0;
    va_list ap;
    va_start(ap, fmt);
    if ((size_t)n < sizeof msg) vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strlen(msg);
    if (len + 1 < sizeof msg) { msg[len++] = '\n'; msg[len] = 0; }
    fflush(stdout);
    ssize_t w = write(STDERR_FILENO, msg, len); /* one write: lines of ranks do not mix */
    (void)w;
    gasnet_exit(1);
}

#define CHECK(cond) do { \
        if (!(cond)) mp_fail(__FILE__, __LINE__, "CHECK(%s) failed", #cond); \
    } while (0)
#define CHECK_MSG(cond, ...) do { \
        if (!(cond)) mp_fail(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)
#define CHECK_EQ(a, b) do { \
        long long mp_a_ = (long long)(a), mp_b_ = (long long)(b); \
        if (mp_a_ != mp_b_) \
            mp_fail(__FILE__, __LINE__, "CHECK_EQ(%s, %s) failed: %lld != %lld", #a, #b, \
                    mp_a_, mp_b_); \
    } while (0)
#define CHECK_PTR_EQ(a, b) do { \
        const void *mp_a_ = (const void *)(a), *mp_b_ = (const void *)(b); \
        if (mp_a_ != mp_b_) \
            mp_fail(__FILE__, __LINE__, "CHECK_PTR_EQ(%s, %s) failed: %p != %p", #a, #b, \
                    mp_a_, mp_b_); \
    } while (0)
/* An int-returning GEX call must return `want` (a GASNET_* code). */
#define CHECK_RC(expr, want) do { \
        int mp_rc_ = (expr), mp_want_ = (want); \
        if (mp_rc_ != mp_want_) \
            mp_fail(__FILE__, __LINE__, "%s returned %s (%d), expected %s (%d)", #expr, \
                    gasnet_ErrorName(mp_rc_), mp_rc_, gasnet_ErrorName(mp_want_), mp_want_); \
    } while (0)
#define CHECK_OK(expr) CHECK_RC(expr, GASNET_OK)

/* ---- Watchdog: a hung rank ends itself (status 2) with a message ---- */
/* A watchdog that fires on a machine busy with other work (a parallel
 * build, the rest of the suite) is measuring the machine, not GEX: when it
 * expires while the 1-minute load average exceeds the CPUs, it grants
 * itself the same time again, up to MP_WATCHDOG_EXTENSIONS times in all, and
 * fails only on an idle-enough machine or past that.  A real hang still
 * fails, only later in proportion to the load.  ($MP_WATCHDOG, an exact
 * length a test asks for, is never extended.) */
#define MP_WATCHDOG_EXTENSIONS 4
static unsigned mp_watchdog_s, mp_watchdog_extended, mp_watchdog_extensible;

/* The 1-minute load average per online CPU, in hundredths, read with
 * async-signal-safe calls only (open/read/close, no stdio); -1 if unknown. */
static long mp_load_per_cpu_x100(void)
{
    char buf[64];
    int fd = open("/proc/loadavg", O_RDONLY);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    long whole = 0, frac = 0, digits = 0;
    const char *p = buf;
    while (*p >= '0' && *p <= '9') whole = whole * 10 + (*p++ - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9' && digits < 2; p++, digits++) frac = frac * 10 + (*p - '0');
    while (digits++ < 2) frac *= 10;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN); /* reads a cached value on glibc */
    return (whole * 100 + frac) / (ncpu > 0 ? ncpu : 1);
}

static void mp_watchdog_fired(int sig)
{
    (void)sig;
    if (mp_watchdog_extensible && mp_watchdog_extended < MP_WATCHDOG_EXTENSIONS &&
        mp_load_per_cpu_x100() > 100) {
        mp_watchdog_extended++;
        alarm(mp_watchdog_s);
        return;
    }
    char msg[256];
    /* snprintf is not formally async-signal-safe, but nothing else runs now */
    int n = snprintf(msg, sizeof msg, "%s: rank %u: FAIL: watchdog expired after %u s%s "
                     "(phase: %s)\n", mp_prog, mp_rank_for_msg(),
                     mp_watchdog_s * (mp_watchdog_extended + 1),
                     mp_watchdog_extended ? " (extended for load)" : "", mp_phase_name);
    if (n > 0) {
        ssize_t w = write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg);
        (void)w;
    }
    _exit(2);
}

/* Arms the watchdog: `seconds` times $GEX_TEST_TIME_SLACK (a whole factor,
 * for valgrind), or $MP_WATCHDOG if set (0 disables); extended under load
 * (above). */
static void mp_watchdog(unsigned seconds)
{
    const char *slack = getenv("GEX_TEST_TIME_SLACK");
    if (slack && strtoul(slack, NULL, 10) > 1) seconds *= (unsigned)strtoul(slack, NULL, 10);
    const char *e = getenv("MP_WATCHDOG");
    if (e && *e) seconds = (unsigned)strtoul(e, NULL, 10);
    mp_watchdog_s = seconds;
    mp_watchdog_extended = 0;
    mp_watchdog_extensible = !(e && *e); /* a test asking for its own length gets it exactly */
    signal(SIGALRM, mp_watchdog_fired);
    alarm(seconds);
}

/* Polls until `cond` holds, yielding the CPU after a few rounds so that
 * oversubscribed jobs (more ranks than cores) still progress, and napping
 * after many: a test suite runs several jobs at once on few cores, where
 * endless yielding only takes CPU time from the ranks with work. */
static inline void mp_poll_backoff(unsigned *spins)
{
    unsigned s = ++*spins;
    if (s > 2048) {
        struct timespec ts = { 0, 20000 };
        nanosleep(&ts, NULL);
    } else if (s > 32) {
        sched_yield();
    }
}
#define MP_POLL_UNTIL(cond) do { \
        unsigned mp_spins_ = 0; \
        while (!(cond)) { \
            gasnet_AMPoll(); \
            mp_poll_backoff(&mp_spins_); \
        } \
    } while (0)

/* ---- Barrier and all-gather from AMs ---- */
#define MP_H_BARRIER_ARRIVE  (GEX_AM_INDEX_BASE + 0)
#define MP_H_BARRIER_RELEASE (GEX_AM_INDEX_BASE + 1)
#define MP_H_ALLGATHER       (GEX_AM_INDEX_BASE + 2)
#define MP_H_FIRST_FREE      (GEX_AM_INDEX_BASE + 3) /* first index a test may use */

static uint32_t mp_barrier_gen;                    /* barriers this rank has entered */
static atomic_uint mp_barrier_arrived[2];          /* rank 0: arrivals per gen parity */
static atomic_uint mp_barrier_released;            /* highest generation released */

static void mp_h_barrier_arrive(gex_Token_t token, gex_AM_Arg_t gen)
{
    (void)token;
    /* An arrival is for rank 0's current generation or the next one: no rank
     * can be two barriers ahead of rank 0. */
    uint32_t g = (uint32_t)gen;
    CHECK_MSG(g == mp_barrier_gen || g == mp_barrier_gen + 1,
              "barrier arrival for generation %u while rank 0 is at %u", g, mp_barrier_gen);
    unsigned c = atomic_fetch_add(&mp_barrier_arrived[g & 1], 1) + 1;
    CHECK_MSG(c <= mp_n, "barrier generation %u: %u arrivals for %u ranks", g, c, (unsigned)mp_n);
}

static void mp_h_barrier_release(gex_Token_t token, gex_AM_Arg_t gen)
{
    (void)token;
    uint32_t g = (uint32_t)gen;
    CHECK_MSG(g == mp_barrier_gen, "barrier release for generation %u while at %u", g,
              mp_barrier_gen);
    atomic_store(&mp_barrier_released, g);
}

/* Everyone tells rank 0, rank 0 releases everyone: reusable any number of
 * times (the generation number tells consecutive barriers apart). */
static void mp_barrier(void)
{
    uint32_t g = ++mp_barrier_gen;
    CHECK_OK(gex_AM_RequestShort1(mp_tm, 0, MP_H_BARRIER_ARRIVE, 0, (gex_AM_Arg_t)g));
    if (mp_me == 0) {
        MP_POLL_UNTIL(atomic_load(&mp_barrier_arrived[g & 1]) == mp_n);
        atomic_store(&mp_barrier_arrived[g & 1], 0); /* gen g+2 cannot arrive before we release */
        for (gex_Rank_t r = 0; r < mp_n; r++)
            CHECK_OK(gex_AM_RequestShort1(mp_tm, r, MP_H_BARRIER_RELEASE, 0, (gex_AM_Arg_t)g));
    }
    MP_POLL_UNTIL(atomic_load(&mp_barrier_released) == g);
}

static char *mp_ag_buf;
static size_t mp_ag_len;
static atomic_uint mp_ag_count;

static void mp_h_allgather(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t src)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(token, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    CHECK_EQ(info.gex_srcrank, src);
    CHECK_MSG((gex_Rank_t)src < mp_n && nbytes == mp_ag_len && mp_ag_buf,
              "all-gather message from %d with %zu bytes (want %zu)", (int)src, nbytes,
              mp_ag_len);
    memcpy(mp_ag_buf + (size_t)src * mp_ag_len, buf, nbytes);
    atomic_fetch_add(&mp_ag_count, 1);
}

/* all[r * len .. ] receives rank r's `mine` (len <= 512, the minimum MaxMedium). */
static __attribute__((unused)) void mp_allgather(const void *mine, size_t len, void *all)
{
    CHECK(len <= 512);
    mp_ag_buf = all;
    mp_ag_len = len;
    atomic_store(&mp_ag_count, 0);
    mp_barrier(); /* every rank has set its buffer: messages may come */
    for (gex_Rank_t i = 0; i < mp_n; i++) {
        gex_Rank_t r = (mp_me + i) % mp_n;
        CHECK_OK(gex_AM_RequestMedium1(mp_tm, r, MP_H_ALLGATHER, mine, len, GEX_EVENT_NOW, 0,
                                       (gex_AM_Arg_t)mp_me));
    }
    MP_POLL_UNTIL(atomic_load(&mp_ag_count) == mp_n);
}

/* ---- Start and end ---- */

/* gex_Client_Init and the helpers' handlers (see the file comment for when
 * the first AM may be sent). */
static void mp_init(int *argc, char ***argv, const char *client_name, gex_Flags_t flags)
{
    const char *slash = strrchr((*argv)[0], '/');
    mp_prog = slash ? slash + 1 : (*argv)[0];
    if (!strncmp(mp_prog, "lt-", 3)) mp_prog += 3; /* libtool's wrapper names */
    mp_watchdog(60);
    mp_phase("gex_Client_Init");
    CHECK_OK(gex_Client_Init(&mp_client, &mp_ep, &mp_tm, client_name, argc, argv, flags));
    mp_initialized = 1;
    mp_me = gex_TM_QueryRank(mp_tm);
    mp_n = gex_TM_QuerySize(mp_tm);
    gex_AM_Entry_t h[] = {
        { MP_H_BARRIER_ARRIVE, (gex_AM_Fn_t)mp_h_barrier_arrive,
          GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "mp_barrier_arrive" },
        { MP_H_BARRIER_RELEASE, (gex_AM_Fn_t)mp_h_barrier_release,
          GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "mp_barrier_release" },
        { MP_H_ALLGATHER, (gex_AM_Fn_t)mp_h_allgather,
          GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "mp_allgather" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));
    /* No rank sends an AM to a handler another has not registered yet:
     * mp_attach's barrier does that for most tests, but some exchange AMs
     * first (mp_nodeinfo's all-gather failed that way once, over srun:
     * "AM from rank 2 for handler 128, not registered"). */
    mp_phase("init barrier");
    gex_Event_Wait(gex_Coll_BarrierNB(mp_tm, 0));
    mp_phase("setup");
}

/* gex_Segment_Attach over the primordial team: its implicit barrier is what
 * makes everyone's handler registration visible before the first AM. */
static __attribute__((unused)) void mp_attach(uintptr_t size)
{
    mp_phase("gex_Segment_Attach");
    CHECK_OK(gex_Segment_Attach(&mp_seg, mp_tm, size));
    CHECK(mp_seg != GEX_SEGMENT_INVALID);
    mp_phase("setup");
}

/* Final barrier, a one-line summary from rank 0, and gasnet_exit(0). */
static void mp_finish(const char *fmt, ...) __attribute__((noreturn, unused, format(printf, 1, 2)));
static void mp_finish(const char *fmt, ...)
{
    mp_phase("finish");
    mp_barrier();
    if (mp_me == 0) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        printf("%s: PASS on %u rank(s): %s\n", mp_prog, (unsigned)mp_n, msg);
        fflush(stdout);
    }
    mp_barrier(); /* nobody ends the job before rank 0 has printed */
    gasnet_exit(0);
}

/* ---- Payload patterns ---- */
static inline uint32_t mp_hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Byte j of the payload identified by (a, b): depends on both and on j,
 * with a period far above any payload size used (2^26 bytes). */
static inline uint32_t mp_pat_seed(uint32_t a, uint32_t b)
{
    return mp_hash32(a * 0x9e3779b1U ^ mp_hash32(b + 0x51ed27U));
}
static inline uint8_t mp_pat_byte(uint32_t seed, size_t j)
{
    return (uint8_t)((seed >> ((j & 3) * 8)) + (uint32_t)(j >> 2) * 0x3bU +
                     (uint32_t)(j >> 10) * 0x65U + (uint32_t)(j >> 18) * 0xa7U);
}
static inline uint8_t mp_pat(uint32_t a, uint32_t b, size_t j)
{
    return mp_pat_byte(mp_pat_seed(a, b), j);
}

static inline void mp_fill(void *buf, size_t n, uint32_t a, uint32_t b)
{
    uint8_t *p = buf;
    const uint32_t seed = mp_pat_seed(a, b);
    for (size_t j = 0; j < n; j++) p[j] = mp_pat_byte(seed, j);
}

/* Returns the index of the first wrong byte, or (size_t)-1 if all match. */
static inline size_t mp_verify(const void *buf, size_t n, uint32_t a, uint32_t b)
{
    const uint8_t *p = buf;
    const uint32_t seed = mp_pat_seed(a, b);
    for (size_t j = 0; j < n; j++)
        if (p[j] != mp_pat_byte(seed, j)) return j;
    return (size_t)-1;
}

#define CHECK_PATTERN(buf, n, a, b) do { \
        size_t mp_bad_ = mp_verify((buf), (n), (a), (b)); \
        if (mp_bad_ != (size_t)-1) \
            mp_fail(__FILE__, __LINE__, "payload (%zu bytes, pattern %u/%u) differs at byte " \
                    "%zu: got 0x%02x, want 0x%02x", (size_t)(n), (unsigned)(a), \
                    (unsigned)(b), mp_bad_, ((const uint8_t *)(buf))[mp_bad_], \
                    mp_pat((a), (b), mp_bad_)); \
    } while (0)

/* PSHM is on unless the environment turns it off (GEX_PSHM=0 or
 * GASNET_SUPERNODE_MAXSIZE=1, as libgex-core reads them). */
static inline int mp_pshm_enabled(void)
{
    const char *p = getenv("GEX_PSHM"), *s = getenv("GASNET_SUPERNODE_MAXSIZE");
    if (p && *p && strtol(p, NULL, 0) == 0) return 0;
    if (s && *s && strtol(s, NULL, 0) == 1) return 0;
    return 1;
}

#endif /* MP_UTIL_H */
