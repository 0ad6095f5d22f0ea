/*
 * tools_only.c: a tools-only client (README-tools "Tools-Only Distribution"):
 * it includes gasnet_tools.h and nothing of GASNet communication, defines
 * GASNETT_THREAD_SAFE, and is linked with no GEX library at all (in the tree
 * by tests/compat.inc; through gasnet_tools-par.mak by
 * tests/compat/test_installed.sh).
 *
 * Four pthreads hammer the default, fixed-width and strong atomics and a
 * mutex-protected counter, so the totals must be exact; the timers must be
 * monotonic; the environment helpers, thread keys, rwlocks, condition
 * variables and system queries are checked against known answers.  Prints
 * "tools_only: N passed, M failed" and exits non-zero on any failure; an
 * alarm ends a hang.
 */
#ifndef GASNETT_THREAD_SAFE
#define GASNETT_THREAD_SAFE 1
#endif
#include <gasnet_tools.h>

#include <pthread.h>

#if defined(GASNETEX_H) || defined(GASNET_H)
#error "tools_only must not see the communication headers"
#endif
#if !GASNETT_HAVE_ATOMIC_ADD_SUB || !GASNETT_HAVE_ATOMIC_CAS || GASNETT_SPEC_VERSION_MAJOR != 1
#error "feature macros"
#endif
#if !defined(PLATFORM_OS_LINUX) || !(defined(PLATFORM_ARCH_64) || defined(PLATFORM_ARCH_32))
#error "platform macros"
#endif

static int npass, nfail;
static gasnett_mutex_t check_lock = GASNETT_MUTEX_INITIALIZER;
#define CHECK(cond, ...) do {                                                           \
        gasnett_mutex_lock(&check_lock);                                                \
        if (cond) {                                                                     \
            npass++;                                                                    \
        } else {                                                                        \
            nfail++;                                                                    \
            fprintf(stderr, "tools_only: FAIL at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
        }                                                                               \
        gasnett_mutex_unlock(&check_lock);                                              \
    } while (0)

/* README-tools: GASNETT_FORMAT_PRINTF annotates a function by wrapping its
 * definition (gcc rejects an attribute between declarator and body). */
GASNETT_FORMAT_PRINTF(format_into, 3, 4,
static int format_into(char *buf, size_t len, const char *fmt, ...))
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}

#define NTHREADS 4
#define TO_STR_(x) #x
#define TO_STR(x) TO_STR_(x)
#ifdef GASNET_DEBUG
#define TOOLS_DEBUG_STR "debug"
#else
#define TOOLS_DEBUG_STR "nodebug"
#endif
#if UINTPTR_MAX > 0xffffffffu
#define TOOLS_PTR_STR "64bit"
#else
#define TOOLS_PTR_STR "32bit"
#endif
#define ITERS 200000

static gasnett_atomic_t counter = gasnett_atomic_init(0);
static gasnett_atomic_t down = gasnett_atomic_init(NTHREADS * ITERS);
static gasnett_atomic_t cas_counter = gasnett_atomic_init(0);
static gasnett_atomic32_t c32 = gasnett_atomic32_init(0);
static gasnett_atomic64_t c64 = gasnett_atomic64_init(0);
static gasnett_strongatomic_t strong = gasnett_strongatomic_init(0);
static gasnett_atomic_t zero_hits = gasnett_atomic_init(0);
static gasnett_mutex_t plain_lock = GASNETT_MUTEX_INITIALIZER;
static long plain_counter;
static gasnett_atomic_t swap_token = gasnett_atomic_init(0);
static long swap_protected;
static gasnett_rwlock_t rw = GASNETT_RWLOCK_INITIALIZER;
static long rw_value;
GASNETT_THREADKEY_DEFINE(my_key);
static gasnett_atomic_t key_ok = gasnett_atomic_init(0);

static void *worker(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    gasnett_threadkey_set(my_key, (void *)(id + 1));
    gasnett_tick_t last = gasnett_ticks_now();
    int monotonic = 1;
    for (int i = 0; i < ITERS; i++) {
        gasnett_atomic_increment(&counter, 0);
        if (gasnett_atomic_decrement_and_test(&down, GASNETT_ATOMIC_ACQ_IF_TRUE))
            gasnett_atomic_increment(&zero_hits, 0);
        gasnett_atomic_val_t old;
        do {
            old = gasnett_atomic_read(&cas_counter, 0);
        } while (!gasnett_atomic_compare_and_swap(&cas_counter, old, old + 2, 0));
        gasnett_atomic32_add(&c32, 3, 0);
        gasnett_atomic64_add(&c64, (uint64_t)1 << 33, 0); /* past 32 bits */
        gasnett_strongatomic_increment(&strong, GASNETT_ATOMIC_MB_POST);
        if ((i & 15) == 0) {
            gasnett_mutex_lock(&plain_lock);
            plain_counter++;
            gasnett_mutex_unlock(&plain_lock);
            /* a spin lock from swap: acquire on taking, release on giving back */
            while (gasnett_atomic_swap(&swap_token, 1, GASNETT_ATOMIC_ACQ) != 0)
                gasnett_spinloop_hint();
            swap_protected++;
            gasnett_atomic_set(&swap_token, 0, GASNETT_ATOMIC_REL);
        }
        if ((i & 255) == 0) {
            gasnett_rwlock_rdlock(&rw);
            long v = rw_value;
            gasnett_rwlock_unlock(&rw);
            (void)v;
            gasnett_rwlock_wrlock(&rw);
            rw_value++;
            gasnett_rwlock_unlock(&rw);
            gasnett_tick_t now = gasnett_ticks_now();
            monotonic &= now >= last;
            last = now;
        }
    }
    if (gasnett_threadkey_get(my_key) == (void *)(id + 1)) gasnett_atomic_increment(&key_ok, 0);
    return (void *)(uintptr_t)monotonic;
}

/* Condition variable hand-off: the main thread waits for the flag. */
static gasnett_mutex_t cv_lock = GASNETT_MUTEX_INITIALIZER;
static gasnett_cond_t cv = GASNETT_COND_INITIALIZER;
static int cv_flag;
static void *signaller(void *arg)
{
    (void)arg;
    gasnett_nsleep(2000000); /* 2 ms */
    gasnett_mutex_lock(&cv_lock);
    cv_flag = 1;
    gasnett_cond_signal(&cv);
    gasnett_mutex_unlock(&cv_lock);
    return NULL;
}

static int user_bt_calls;
static int user_backtrace(int fd)
{
    (void)fd;
    user_bt_calls++;
    return 0;
}
gasnett_backtrace_type_t gasnett_backtrace_user = { "TOOLSTEST", &user_backtrace, 1 };

int main(void)
{
    alarm(120);

    /* GASNet's names for the timer's granularity and overhead (microseconds) */
    CHECK(gasnett_tick_granularityus() == gasnett_tick_granularity() &&
          gasnett_tick_overheadus() == gasnett_tick_overhead() && gasnett_tick_granularityus() > 0,
          "tick granularity/overhead");

    char fbuf[32];
    CHECK(format_into(fbuf, sizeof fbuf, "%d-%s", 7, "x") == 3 && !strcmp(fbuf, "7-x"),
          "format_into gave '%s'", fbuf);

    /* ---- threads ---- */
    pthread_t th[NTHREADS];
    for (uintptr_t t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    int monotonic = 1;
    for (int t = 0; t < NTHREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        monotonic &= (int)(uintptr_t)r;
    }
    const uint64_t total = (uint64_t)NTHREADS * ITERS;
    CHECK(gasnett_atomic_read(&counter, 0) == total, "counter %u",
          (unsigned)gasnett_atomic_read(&counter, 0));
    CHECK(gasnett_atomic_read(&down, 0) == 0 && gasnett_atomic_read(&zero_hits, 0) == 1,
          "decrement_and_test: %u left, %u zero hits", (unsigned)gasnett_atomic_read(&down, 0),
          (unsigned)gasnett_atomic_read(&zero_hits, 0));
    CHECK(gasnett_atomic_read(&cas_counter, 0) == 2 * total, "cas counter");
    CHECK(gasnett_atomic32_read(&c32, 0) == 3 * total, "atomic32");
    CHECK(gasnett_atomic64_read(&c64, 0) == total << 33, "atomic64");
    CHECK(gasnett_strongatomic_read(&strong, 0) == total, "strongatomic");
    CHECK(plain_counter == (long)(total / 16), "mutex counter %ld", plain_counter);
    CHECK(swap_protected == (long)(total / 16), "swap lock counter %ld", swap_protected);
    CHECK(rw_value == (long)(NTHREADS * ((ITERS + 255) / 256)), "rwlock counter %ld", rw_value);
    CHECK(gasnett_atomic_read(&key_ok, 0) == NTHREADS, "thread keys");
    CHECK(monotonic, "ticks went backwards in a thread");

    /* ---- atomics, single-threaded semantics ---- */
    gasnett_atomic_t a = gasnett_atomic_init(5);
    CHECK(gasnett_atomic_add(&a, 10, 0) == 15 && gasnett_atomic_subtract(&a, 20, 0) ==
          (gasnett_atomic_val_t)-5, "add/subtract return the new value");
    CHECK(gasnett_atomic_signed(gasnett_atomic_read(&a, 0)) == -5, "signed view");
    CHECK(gasnett_atomic_swap(&a, 7, 0) == (gasnett_atomic_val_t)-5, "swap returns the old value");
    CHECK(!gasnett_atomic_compare_and_swap(&a, 8, 9, 0) && gasnett_atomic_read(&a, 0) == 7 &&
          gasnett_atomic_compare_and_swap(&a, 7, 9, GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST),
          "compare_and_swap");
    gasnett_atomic_set(&a, GASNETT_ATOMIC_MAX, 0);
    gasnett_atomic_increment(&a, 0);
    CHECK(gasnett_atomic_read(&a, 0) == 0, "wraps at GASNETT_ATOMIC_MAX");
    CHECK(GASNETT_ATOMIC_SIGNED_MAX == INT32_MAX && GASNETT_ATOMIC_SIGNED_MIN == INT32_MIN,
          "signed range");
    union { double d; uint64_t u; } dbl;
    dbl.d = 0;
    gasnett_atomic64_set((gasnett_atomic64_t *)&dbl, 0x4000000000000000ull, 0); /* 2.0 */
    CHECK(dbl.d == 2.0, "atomic64 on a union with a double");
    gasnett_atomic32_t x32 = gasnett_atomic32_init(1);
    CHECK(gasnett_atomic32_decrement_and_test(&x32, 0) && gasnett_atomic32_swap(&x32, 5, 0) == 0,
          "atomic32 dec_and_test/swap");
    CHECK(sizeof(gasnett_atomic32_t) == 4 && sizeof(gasnett_atomic64_t) == 8,
          "fixed-width atomics take natural storage");

    /* ---- condition variable, trylock ---- */
    pthread_t sig;
    pthread_create(&sig, NULL, signaller, NULL);
    gasnett_mutex_lock(&cv_lock);
    while (!cv_flag) gasnett_cond_wait(&cv, &cv_lock);
    gasnett_mutex_unlock(&cv_lock);
    pthread_join(sig, NULL);
    CHECK(cv_flag == 1, "cond wait");
    gasnett_mutex_t m;
    gasnett_mutex_init(&m);
    CHECK(gasnett_mutex_trylock(&m) == 0, "trylock free mutex");
    gasnett_mutex_assertlocked(&m);
    gasnett_mutex_unlock(&m);
    gasnett_mutex_assertunlocked(&m);
    gasnett_mutex_destroy(&m);

    /* ---- timers ---- */
    gasnett_tick_t t0 = gasnett_ticks_now();
    CHECK(gasnett_nsleep(5000000) == 0, "nsleep");
    gasnett_tick_t t1 = gasnett_ticks_now();
    uint64_t ns = gasnett_ticks_to_ns(t1 - t0);
    CHECK(ns >= 5000000 && ns < 5000000000ull, "5 ms sleep measured as %llu ns",
          (unsigned long long)ns);
    CHECK(gasnett_ticks_to_us(t1 - t0) == ns / 1000, "ticks_to_us");
    CHECK(gasnett_tick_granularity() > 0 && gasnett_tick_granularity() < 1000 &&
          gasnett_tick_overhead() > 0 && gasnett_tick_overhead() < 1000, "granularity %g, "
          "overhead %g us", gasnett_tick_granularity(), gasnett_tick_overhead());
    CHECK(GASNETT_TICK_MIN < GASNETT_TICK_MAX, "tick range");

    /* ---- environment ---- */
    gasnett_setenv("TOOLS_ONLY_INT", "0x10");
    gasnett_setenv("TOOLS_ONLY_MEM", "1.5KB");
    gasnett_setenv("TOOLS_ONLY_YES", "Yes");
    gasnett_setenv("TOOLS_ONLY_DBL", "3/8");
    CHECK(gasnett_getenv_int_withdefault("TOOLS_ONLY_INT", 7, 0) == 16, "hex integer");
    CHECK(gasnett_getenv_int_withdefault("TOOLS_ONLY_MEM", 7, 1) == 1536, "memory size");
    CHECK(gasnett_getenv_int_withdefault("TOOLS_ONLY_UNSET", 7, 0) == 7, "integer default");
    CHECK(gasnett_getenv_yesno_withdefault("TOOLS_ONLY_YES", 0) == 1, "yes");
    CHECK(gasnett_getenv_yesno_withdefault("TOOLS_ONLY_UNSET", 1) == 1, "yes/no default");
    CHECK(gasnett_getenv_dbl_withdefault("TOOLS_ONLY_DBL", 1.0) == 0.375, "fraction");
    CHECK(!strcmp(gasnett_getenv_withdefault("TOOLS_ONLY_UNSET", "dflt"), "dflt"), "string");
    gasnett_unsetenv("TOOLS_ONLY_INT");
    CHECK(gasnett_getenv("TOOLS_ONLY_INT") == NULL, "unsetenv");
    CHECK(gasnett_parse_int("-42", 0) == -42 && gasnett_parse_int("2M", 1) == (2 << 20) &&
          gasnett_parse_int("64", 1024) == 65536, "parse_int");
    char buf[64];
    CHECK(!strcmp(gasnett_format_number(65536, buf, sizeof buf, 1), "64KB") &&
          !strcmp(gasnett_format_number(-12, buf, sizeof buf, 0), "-12"), "format_number");

    /* ---- system and misc ---- */
    CHECK(gasnett_cpu_count() > 0, "cpu count");
    CHECK(gasnett_getPhysMemSz(1) > (1u << 20), "physical memory");
    CHECK(gasnett_gethostname()[0] != 0, "host name");
    CHECK(strstr(gasnett_exe_name(), "tools_only") != NULL, "exe name '%s'", gasnett_exe_name());
    CHECK(gasnett_isLittleEndian() == (PLATFORM_ARCH_LITTLE_ENDIAN + 0), "endianness");
    CHECK(gasnett_count0s_uint32_t(0x00ff00ffu) == 2 && gasnett_count0s_uint64_t(0) == 8,
          "count0s of words");
    static const char zeros[] = { 1, 0, 0, 2, 0, 3, 4, 5, 0, 0, 0 };
    char copy[sizeof zeros];
    CHECK(gasnett_count0s(zeros, sizeof zeros) == 6 &&
          gasnett_count0s_copy(copy, zeros, sizeof zeros) == 6 && !memcmp(copy, zeros, sizeof zeros),
          "count0s of blocks");
    CHECK(gasnett_checksum("abc", 3) != gasnett_checksum("abd", 3), "checksum");
    CHECK(gasnett_release_version() > 0 && gasnett_release_version_str()[0], "release version");
    /* GASNet's number and string, built from GASNET_RELEASE_VERSION_*, which
     * a tools-only client sees too (gasnet_config.h) */
    CHECK(gasnett_release_version() == (uint64_t)GASNET_RELEASE_VERSION_MAJOR * 1000000u +
                                           GASNET_RELEASE_VERSION_MINOR * 10000u +
                                           GASNET_RELEASE_VERSION_PATCH &&
              GASNET_RELEASE_VERSION_MAJOR == GASNETT_RELEASE_VERSION_MAJOR &&
              GASNET_RELEASE_VERSION_MINOR == GASNETT_RELEASE_VERSION_MINOR &&
              GASNET_RELEASE_VERSION_PATCH == GASNETT_RELEASE_VERSION_PATCH,
          "release version number %" PRIu64, gasnett_release_version());
    CHECK(!strcmp(gasnett_release_version_str(),
                  TO_STR(GASNET_RELEASE_VERSION_MAJOR) "." TO_STR(GASNET_RELEASE_VERSION_MINOR) "." TO_STR(
                      GASNET_RELEASE_VERSION_PATCH)),
          "release version string '%s'", gasnett_release_version_str());
    /* GASNet's names beyond README-tools that GASNet's test.h/testtools.c use */
    CHECK(!strcmp(GASNETT_CONFIG_STRING,
                  "RELEASE=" TO_STR(GASNET_RELEASE_VERSION_MAJOR) "." TO_STR(GASNET_RELEASE_VERSION_MINOR) "." TO_STR(
                      GASNET_RELEASE_VERSION_PATCH) ",SPEC=1.20,PTR=" TOOLS_PTR_STR "," TOOLS_DEBUG_STR ",PAR"),
          "GASNETT_CONFIG_STRING '%s'", GASNETT_CONFIG_STRING);
    {
        /* time() reads glibc's coarse clock, which trails gettimeofday by
           up to a tick: just past a second's start it still says the
           previous second (seen failing once in ~200 runs), hence the 1 s */
        time_t before = time(NULL);
        uint64_t us = gasnett_gettimeofday_us();
        time_t after = time(NULL);
        CHECK(us / 1000000u >= (uint64_t)before && us / 1000000u <= (uint64_t)after + 1,
              "gettimeofday_us %" PRIu64 " outside [%lld, %lld] s", us, (long long)before,
              (long long)after);
    }
    CHECK(gasnett_maximize_rlimits(), "maximize rlimits");
    char *loc = gasnett_current_loc;
    CHECK(loc && strstr(loc, "tools_only.c") && strstr(loc, "main"), "current_loc '%s'",
          loc ? loc : "(null)");
    free(loc);
    CHECK(GASNETT_PREDICT_TRUE(1) && !GASNETT_PREDICT_FALSE(0), "predict");
    gasnett_sched_yield();
    gasnett_flush_streams();

    /* ---- backtrace: the client's mechanism is tried when named ---- */
    gasnett_setenv("GASNET_BACKTRACE_TYPE", "TOOLSTEST");
    CHECK(gasnett_print_backtrace(2) == 0 && user_bt_calls == 1, "user backtrace mechanism");
    gasnett_unsetenv("GASNET_BACKTRACE");
    CHECK((*gasnett_print_backtrace_ifenabled)(2) != 0 && user_bt_calls == 1,
          "no backtrace unless GASNET_BACKTRACE");

    printf("tools_only: %d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
