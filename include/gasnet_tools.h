/*
 * gasnet_tools.h: the GASNet tools (README-tools, tools specification 1.20)
 * for GEX clients and for tools-only programs: platform identification,
 * timers, memory fences, atomics, mutexes and condition variables, thread
 * keys, environment queries, backtraces and the small system helpers.
 *
 * Everything here is a macro or a static inline function (README-tools
 * allows either and forbids taking their addresses), so a tools-only client
 * links no GEX library:
 *     cc -DGASNETT_THREAD_SAFE=1 -I$prefix/include prog.c -pthread
 * A client of the communication library includes gasnetex.h (or gasnet.h)
 * first; its thread mode then selects the tools' mode: GASNET_SEQ gives
 * GASNETT_THREAD_SINGLE, GASNET_PAR and GASNET_PARSYNC give
 * GASNETT_THREAD_SAFE.  A tools-only client must define exactly one of the
 * two itself.
 *
 * Modes (README-tools "Atomic operations", "Error-checking System Mutexes"):
 *  - GASNETT_THREAD_SAFE: gasnett_atomic_* are atomic; mutexes lock.
 *  - GASNETT_THREAD_SINGLE: gasnett_atomic_* are plain arithmetic and
 *    mutexes do nothing (unless GASNETT_USE_TRUE_MUTEXES=1); the
 *    gasnett_strongatomic_* family stays atomic, and signal-safe, in both.
 * Debug checks (recursive locking, unlocking a mutex one does not hold,
 * gasnett_assume) are on when GEX was configured with --enable-debug
 * (GASNET_DEBUG in gasnet_config.h).
 *
 * Process-wide state a library would keep once (the verbose-environment
 * "already reported" list, cached timer calibration, host and executable
 * names) is kept per translation unit here; the only visible effect is that
 * a GASNET_VERBOSEENV line may appear once per translation unit.
 */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H
/* GASNet's own guard name, which code written for GASNet may test. */
#define _INCLUDED_GASNET_TOOLS_H 1

/* First: it may set feature-test macros for the system headers (POSIX
 * interfaces even in a strict ISO mode), and it has the release numbers. */
#include <gasnet_config.h>

/* ---- Thread mode ----
 * README-tools: a client chooses GASNETT_THREAD_SAFE, GASNETT_THREAD_SINGLE
 * or GASNETT_LITE_MODE (at most one).  A client of gasnetex.h gets its
 * GASNET_SEQ (single) or GASNET_PAR/PARSYNC (safe) mode.  A tools-only
 * client that chose nothing, as GASNet allows, is thread-safe when it is
 * compiled for threads (_REENTRANT, _THREAD_SAFE, or pthread.h already
 * included) and single otherwise.  LITE_MODE is GASNet's threading-neutral
 * subset for tools-only clients; GEX gives such a client the whole header,
 * thread-safe, which serves every thread layout. */
#if (defined(GASNETT_THREAD_SAFE) + defined(GASNETT_THREAD_SINGLE) + defined(GASNETT_LITE_MODE)) > 1
#error "define at most one of GASNETT_THREAD_SAFE, GASNETT_THREAD_SINGLE, GASNETT_LITE_MODE"
#endif
#if defined(GASNETT_LITE_MODE)
#if defined(GASNETEX_H)
#error "GASNETT_LITE_MODE is for tools-only clients, not clients of gasnetex.h"
#endif
#undef GASNETT_LITE_MODE
#define GASNETT_LITE_MODE 1
#define GASNETT_THREAD_SAFE 1
#elif !defined(GASNETT_THREAD_SAFE) && !defined(GASNETT_THREAD_SINGLE)
#if defined(GASNETEX_H)
#if defined(GASNET_SEQ)
#define GASNETT_THREAD_SINGLE 1
#else
#define GASNETT_THREAD_SAFE 1
#endif
#elif defined(_REENTRANT) || defined(_THREAD_SAFE) || defined(PTHREAD_MUTEX_INITIALIZER)
#define GASNETT_THREAD_SAFE 1
#else
#define GASNETT_THREAD_SINGLE 1
#endif
#endif
#if defined(GASNETT_THREAD_SAFE)
#define GEXI_TT_THREADED 1
#else
#define GEXI_TT_THREADED 0
#endif
#if GEXI_TT_THREADED || (defined(GASNETT_USE_TRUE_MUTEXES) && GASNETT_USE_TRUE_MUTEXES)
#define GEXI_TT_LOCKING 1
#else
#define GEXI_TT_LOCKING 0
#endif

#include <gasnet_portable_platform.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<execinfo.h>)
#include <execinfo.h>
#define GEXI_TT_HAVE_EXECINFO 1
#endif
#endif

#if defined(GASNET_DEBUG)
#define GEXI_TT_DEBUG 1
#else
#define GEXI_TT_DEBUG 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions ---- */
#ifndef GASNETT_SPEC_VERSION_MAJOR
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20
#endif
/* GASNETT_RELEASE_VERSION_{MAJOR,MINOR,PATCH}: gasnet_config.h */

/* ====================================================================
 * Compiler annotations (README-tools "Compiler annotations", "Feature
 * control").  Each GASNETT_USE_* may be defined to 0 or 1 by the client
 * before inclusion; by default it is 1 for compilers that speak GNU C.
 * ==================================================================== */
#if defined(__GNUC__)
#define GEXI_TT_GNUC 1
#else
#define GEXI_TT_GNUC 0
#endif
#if defined(__has_attribute)
#define GEXI_TT_HAS_ATTR(a) __has_attribute(a)
#else
#define GEXI_TT_HAS_ATTR(a) 0
#endif

#ifndef GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE
#define GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_NOINLINE
#define GASNETT_USE_GCC_ATTRIBUTE_NOINLINE GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_MALLOC
#define GASNETT_USE_GCC_ATTRIBUTE_MALLOC GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT
#define GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_USED
#define GASNETT_USE_GCC_ATTRIBUTE_USED GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS
#define GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_NORETURN
#define GASNETT_USE_GCC_ATTRIBUTE_NORETURN GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_PURE
#define GASNETT_USE_GCC_ATTRIBUTE_PURE GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_CONST
#define GASNETT_USE_GCC_ATTRIBUTE_CONST GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED
#define GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT
#define GASNETT_USE_GCC_ATTRIBUTE_FORMAT GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR
#define GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR_ARG
#define GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR_ARG GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_CONSTANT_P
#define GASNETT_USE_BUILTIN_CONSTANT_P GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_PREFETCH
#define GASNETT_USE_BUILTIN_PREFETCH GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_EXPECT
#define GASNETT_USE_BUILTIN_EXPECT GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_UNREACHABLE
#define GASNETT_USE_BUILTIN_UNREACHABLE GEXI_TT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_ASSUME
#if defined(__clang__)
#define GASNETT_USE_BUILTIN_ASSUME 1
#else
#define GASNETT_USE_BUILTIN_ASSUME 0
#endif
#endif
#ifndef GASNETT_USE_ASSUME
#define GASNETT_USE_ASSUME 0
#endif
#ifndef GASNETT_USE_PRAGMA_GCC_DIAGNOSTIC
#define GASNETT_USE_PRAGMA_GCC_DIAGNOSTIC GEXI_TT_GNUC
#endif

#if GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE
#define GASNETT_INLINE(fnname) __attribute__((__always_inline__)) static inline
#else
#define GASNETT_INLINE(fnname) static inline
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_NOINLINE
#define GASNETT_NEVER_INLINE(fnname, definition) __attribute__((__noinline__)) definition
#else
#define GASNETT_NEVER_INLINE(fnname, definition) definition
#endif

#if defined(GASNETT_USE_RESTRICT)
#define GASNETT_RESTRICT GASNETT_USE_RESTRICT
#elif defined(__cplusplus) && GEXI_TT_GNUC
#define GASNETT_RESTRICT __restrict__
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define GASNETT_RESTRICT restrict
#else
#define GASNETT_RESTRICT
#endif

/* The attribute goes first: README-tools says the macro wraps a function's
 * definition, and gcc accepts no attribute between a definition's declarator
 * and its body. */
#if GASNETT_USE_GCC_ATTRIBUTE_FORMAT
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#else
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) declarator
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR
#define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) \
    declarator __attribute__((__format__(__printf__, fmtarg, firstvararg)))
#else
#define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) declarator
#endif

#if GASNETT_USE_GCC_ATTRIBUTE_NORETURN
#define GASNETT_NORETURN __attribute__((__noreturn__))
#else
#define GASNETT_NORETURN
#endif
#define GASNETT_NORETURNP(fnname)
#if GASNETT_USE_GCC_ATTRIBUTE_MALLOC
#define GASNETT_MALLOC __attribute__((__malloc__))
#else
#define GASNETT_MALLOC
#endif
#define GASNETT_MALLOCP(fnname)
#if GASNETT_USE_GCC_ATTRIBUTE_PURE
#define GASNETT_PURE __attribute__((__pure__))
#else
#define GASNETT_PURE
#endif
#define GASNETT_PUREP(fnname)
#if GASNETT_USE_GCC_ATTRIBUTE_CONST
#define GASNETT_CONST __attribute__((__const__))
#else
#define GASNETT_CONST
#endif
#define GASNETT_CONSTP(fnname)
#if GEXI_TT_HAS_ATTR(__hot__) || (defined(__GNUC__) && !defined(__clang__))
#define GASNETT_HOT __attribute__((__hot__))
#define GASNETT_COLD __attribute__((__cold__))
#else
#define GASNETT_HOT
#define GASNETT_COLD
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED
#define GASNETT_DEPRECATED __attribute__((__deprecated__))
#else
#define GASNETT_DEPRECATED
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT
#define GASNETT_WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
#else
#define GASNETT_WARN_UNUSED_RESULT
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_USED
#define GASNETT_USED __attribute__((__used__))
#else
#define GASNETT_USED
#endif

#if GASNETT_USE_BUILTIN_EXPECT
#define GASNETT_PREDICT_TRUE(expr)  __builtin_expect(!!(expr), 1)
#define GASNETT_PREDICT_FALSE(expr) __builtin_expect(!!(expr), 0)
#else
#define GASNETT_PREDICT_TRUE(expr)  (!!(expr))
#define GASNETT_PREDICT_FALSE(expr) (!!(expr))
#endif
#ifndef if_pf
#define if_pf(cond) if (GASNETT_PREDICT_FALSE(cond))
#endif
#ifndef if_pt
#define if_pt(cond) if (GASNETT_PREDICT_TRUE(cond))
#endif

#if GASNETT_USE_BUILTIN_CONSTANT_P
#define gasnett_constant_p(expr) __builtin_constant_p(expr)
#else
#define gasnett_constant_p(expr) 0
#endif
#if GASNETT_USE_BUILTIN_UNREACHABLE
#define gasnett_unreachable() __builtin_unreachable()
#else
#define gasnett_unreachable() ((void)0)
#endif
#if GEXI_TT_DEBUG
#define gasnett_assume(cond) \
    (GASNETT_PREDICT_TRUE(cond) ? (void)0 : gasnett_fatalerror("assumption failed: %s", #cond))
#elif GASNETT_USE_BUILTIN_ASSUME
#define gasnett_assume(cond) __builtin_assume(cond)
#elif GASNETT_USE_BUILTIN_UNREACHABLE
#define gasnett_assume(cond) (GASNETT_PREDICT_TRUE(cond) ? (void)0 : __builtin_unreachable())
#else
#define gasnett_assume(cond) ((void)0)
#endif

#if defined(__cplusplus) && __cplusplus >= 201703L
#define GASNETT_FALLTHROUGH [[fallthrough]];
#elif GEXI_TT_HAS_ATTR(__fallthrough__)
#define GASNETT_FALLTHROUGH __attribute__((__fallthrough__));
#else
#define GASNETT_FALLTHROUGH
#endif

#define GASNETT_CURRENT_FUNCTION __func__

#define GASNETT_UNUSED_ARGS1(a1) ((void)(a1))
#define GASNETT_UNUSED_ARGS2(a1, a2) ((void)(a1), (void)(a2))
#define GASNETT_UNUSED_ARGS3(a1, a2, a3) ((void)(a1), (void)(a2), (void)(a3))
#define GASNETT_UNUSED_ARGS4(a1, a2, a3, a4) ((void)(a1), (void)(a2), (void)(a3), (void)(a4))
#define GASNETT_UNUSED_ARGS5(a1, a2, a3, a4, a5) \
    (GASNETT_UNUSED_ARGS4(a1, a2, a3, a4), (void)(a5))
#define GASNETT_UNUSED_ARGS6(a1, a2, a3, a4, a5, a6) \
    (GASNETT_UNUSED_ARGS4(a1, a2, a3, a4), (void)(a5), (void)(a6))
#define GASNETT_UNUSED_ARGS7(a1, a2, a3, a4, a5, a6, a7) \
    (GASNETT_UNUSED_ARGS4(a1, a2, a3, a4), (void)(a5), (void)(a6), (void)(a7))
#define GASNETT_UNUSED_ARGS8(a1, a2, a3, a4, a5, a6, a7, a8) \
    (GASNETT_UNUSED_ARGS4(a1, a2, a3, a4), GASNETT_UNUSED_ARGS4(a5, a6, a7, a8))

/* C/C++ linkage brackets as GASNet's headers name them (not in README-tools;
 * clients' shared headers use them). */
#ifdef __cplusplus
#define GASNETT_BEGIN_EXTERNC extern "C" {
#define GASNETT_END_EXTERNC }
#define GASNETT_EXTERNC extern "C"
#else
#define GASNETT_BEGIN_EXTERNC
#define GASNETT_END_EXTERNC
#define GASNETT_EXTERNC extern
#endif
/* GASNet's stringizing helper (gasnet_basic.h there), used by client code
 * written against GASNet; left alone if the client has its own. */
#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif
/* The tools' configuration in GASNet's field order (GASNet's gasnet_tools.h
 * gives it; not in README-tools): GASNet's test.h prints it in tools-only
 * programs as it prints GASNET_CONFIG_STRING in the others. */
#if GEXI_TT_THREADED
#define GEXI_TT_THREAD_CONFIG_STR "PAR"
#else
#define GEXI_TT_THREAD_CONFIG_STR "SEQ"
#endif
#define GASNETT_CONFIG_STRING                                                                \
    "RELEASE=" GEXI_RELEASE_CONFIG_STR ",SPEC=" _STRINGIFY(GASNETT_SPEC_VERSION_MAJOR) "."      \
    _STRINGIFY(GASNETT_SPEC_VERSION_MINOR) ",PTR=" GEXI_PTR_CONFIG_STR "," GEXI_DEBUG_CONFIG_STR \
    "," GEXI_TT_THREAD_CONFIG_STR
/* The number of threads a client may create, for clients that size tables
 * by it: GEX keeps per-thread state in TLS and has no limit of its own, so
 * this is GASNet's default. */
#define GASNETT_MAX_THREADS 256

/* Embeds identText in the executable (for `ident`). */
#define GASNETT_IDENT(identName, identText) \
    GASNETT_USED static const char identName[] = identText

/* ====================================================================
 * System properties
 * ==================================================================== */
#if PLATFORM_ARCH_POWERPC
#define GASNETT_CACHE_LINE_BYTES 128
#else
#define GASNETT_CACHE_LINE_BYTES 64
#endif
#if defined(GASNET_PAGESIZE)
#define GASNETT_PAGESIZE GASNET_PAGESIZE
#else
#define GASNETT_PAGESIZE 4096
#endif
#if GASNETT_PAGESIZE == 65536
#define GASNETT_PAGESHIFT 16
#else
#define GASNETT_PAGESHIFT 12
#endif

/* ====================================================================
 * Fatal errors and backtraces (declared early: the rest uses them)
 * ==================================================================== */
typedef struct {
    const char *name;             /* GASNET_BACKTRACE_TYPE entry naming it */
    int (*fnp)(int fd);           /* writes a backtrace to fd; 0 on success */
    int threadsupport;            /* handles multi-threaded executables */
} gasnett_backtrace_type_t;
#if GEXI_TT_GNUC
/* Defined by clients that add a backtrace mechanism (README-tools). */
extern gasnett_backtrace_type_t gasnett_backtrace_user __attribute__((__weak__));
#endif

static inline int gexi_tt_yesno(const char *v, int dflt, int *ok_p)
{
    if (ok_p) *ok_p = 1;
    if (!v) return dflt;
    char w[8];
    size_t n = 0;
    while (v[n] && n < sizeof w - 1) {
        w[n] = (char)toupper((unsigned char)v[n]);
        n++;
    }
    w[n] = 0;
    if (!v[n]) {
        if (!strcmp(w, "Y") || !strcmp(w, "YES") || !strcmp(w, "1")) return 1;
        if (!strcmp(w, "N") || !strcmp(w, "NO") || !strcmp(w, "0")) return 0;
    }
    if (ok_p) *ok_p = 0;
    return dflt;
}

static inline void gasnett_flush_streams(void)
{
    fflush(stdout);
    fflush(stderr);
}

static inline void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    fprintf(stderr, "Process %ld on %s is frozen for a debugger: attach to it and set %s = 0 "
            "to continue.\n", (long)getpid(), host, flagsymname ? flagsymname : "the flag");
    fflush(stderr);
    while (*flag) sleep(1);
}

static inline void gasnett_freezeForDebuggerErr(void)
{
    static volatile int gasnett_frozen = 1;
    if (gexi_tt_yesno(getenv("GASNET_FREEZE_ON_ERROR"), 0, NULL))
        gasnett_freezeForDebuggerNow(&gasnett_frozen, "gasnett_frozen");
}

static inline void gasnett_backtrace_init(const char *exename) { (void)exename; }

static inline int gexi_tt_backtrace_execinfo(int fd)
{
#if defined(GEXI_TT_HAVE_EXECINFO)
    static const char head[] = "Backtrace (EXECINFO):\n";
    void *frames[64];
    int n = backtrace(frames, 64);
    if (n <= 0) return 1;
    if (write(fd, head, sizeof head - 1) < 0) return 1;
    backtrace_symbols_fd(frames, n, fd);
    return 0;
#else
    (void)fd;
    return 1;
#endif
}

/* Tries the mechanisms named by GASNET_BACKTRACE_TYPE in order (default:
 * EXECINFO, then a client's gasnett_backtrace_user); 0 once one worked. */
static inline int gasnett_print_backtrace(int fd)
{
    const char *user = NULL;
#if GEXI_TT_GNUC
    if (&gasnett_backtrace_user && gasnett_backtrace_user.name && gasnett_backtrace_user.fnp)
        user = gasnett_backtrace_user.name;
#endif
    const char *list = getenv("GASNET_BACKTRACE_TYPE");
    char dflt[128];
    if (!list || !*list) {
        snprintf(dflt, sizeof dflt, "EXECINFO%s%s", user ? "," : "", user ? user : "");
        list = dflt;
    }
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == 8 && !strncmp(p, "EXECINFO", 8)) {
            if (gexi_tt_backtrace_execinfo(fd) == 0) return 0;
        }
#if GEXI_TT_GNUC
        else if (user && len == strlen(user) && !strncmp(p, user, len)) {
            if (gasnett_backtrace_user.fnp(fd) == 0) return 0;
        }
#endif
        p += len;
        if (*p == ',') p++;
    }
    return 1;
}

static inline int gexi_tt_print_backtrace_ifenabled(int fd)
{
    if (!gexi_tt_yesno(getenv("GASNET_BACKTRACE"), 0, NULL)) return 1;
    return gasnett_print_backtrace(fd);
}
/* The hook GASNet errors call (README-tools): replaceable by the client. */
#if GEXI_TT_GNUC
__attribute__((__weak__)) int (*gasnett_print_backtrace_ifenabled)(int fd) =
    gexi_tt_print_backtrace_ifenabled;
#else
static int (*gasnett_print_backtrace_ifenabled)(int fd) = gexi_tt_print_backtrace_ifenabled;
#endif

static inline void gexi_tt_fatal_tail(void) GASNETT_NORETURN;
static inline void gexi_tt_fatal_tail(void)
{
    gasnett_flush_streams();
    gasnett_freezeForDebuggerErr();
    (*gasnett_print_backtrace_ifenabled)(2);
    gasnett_flush_streams();
    signal(SIGABRT, SIG_DFL); /* the backtrace is out: no second one from a handler */
    abort();
}

static inline void gexi_tt_fatalerror(const char *func, const char *file, int line,
                                      const char *fmt, ...) GASNETT_NORETURN
#if GASNETT_USE_GCC_ATTRIBUTE_FORMAT
    __attribute__((__format__(__printf__, 4, 5)))
#endif
    ;
static inline void gexi_tt_fatalerror(const char *func, const char *file, int line,
                                      const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (file)
        fprintf(stderr, "*** FATAL ERROR: %s\n    at %s:%d in %s()\n", msg, file, line,
                func ? func : "?");
    else
        fprintf(stderr, "*** FATAL ERROR: %s\n", msg);
    gexi_tt_fatal_tail();
}
#define gasnett_fatalerror(...) \
    gexi_tt_fatalerror(GASNETT_CURRENT_FUNCTION, __FILE__, __LINE__, __VA_ARGS__)
#define gasnett_fatalerror_nopos(...) gexi_tt_fatalerror(NULL, NULL, 0, __VA_ARGS__)

/* "func at file:line" in a malloc'ed string (the caller frees it). */
static inline char *gexi_tt_current_loc(const char *file, int line, const char *func)
{
    size_t n = strlen(file) + strlen(func) + 32;
    char *s = (char *)malloc(n);
    if (s) snprintf(s, n, "%s at %s:%d", func, file, line);
    return s;
}
#define gasnett_current_loc gexi_tt_current_loc(__FILE__, __LINE__, GASNETT_CURRENT_FUNCTION)

static inline void gasnett_killmyprocess(int exitcode) GASNETT_NORETURN;
static inline void gasnett_killmyprocess(int exitcode) { _exit(exitcode); }

/* ====================================================================
 * Timers (README-tools "Timers"): CLOCK_MONOTONIC, one tick = 1 ns, so
 * no calibration (GASNET_TSC_RATE* are not consulted).
 * ==================================================================== */
typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)

static inline gasnett_tick_t gasnett_ticks_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (gasnett_tick_t)ts.tv_sec * 1000000000u + (gasnett_tick_t)ts.tv_nsec;
}
static inline uint64_t gasnett_ticks_to_ns(gasnett_tick_t ticks) { return ticks; }
static inline uint64_t gasnett_ticks_to_us(gasnett_tick_t ticks) { return ticks / 1000u; }
static inline double gasnett_ticks_to_sec(gasnett_tick_t ticks) { return (double)ticks * 1e-9; }

/* Smallest observable positive tick interval, in microseconds. */
static inline double gasnett_tick_granularity(void)
{
    static double cached;
    double g = cached;
    if (g > 0) return g;
    gasnett_tick_t best = GASNETT_TICK_MAX;
    for (int i = 0; i < 1000; i++) {
        gasnett_tick_t a = gasnett_ticks_now(), b;
        while ((b = gasnett_ticks_now()) == a) {}
        if (b - a < best) best = b - a;
    }
    g = (double)gasnett_ticks_to_ns(best) / 1000.0;
    cached = g;
    return g;
}
/* Cost of one gasnett_ticks_now() call, in microseconds. */
static inline double gasnett_tick_overhead(void)
{
    static double cached;
    double o = cached;
    if (o > 0) return o;
    const int calls = 10000;
    gasnett_tick_t start = gasnett_ticks_now(), last = start;
    for (int i = 0; i < calls; i++) last = gasnett_ticks_now();
    o = (double)gasnett_ticks_to_ns(last - start) / 1000.0 / calls;
    if (o <= 0) o = 1e-6;
    cached = o;
    return o;
}
/* GASNet's spellings of the two above (GASNet's test harness, test.h, prints
 * them in every performance test). */
#define gasnett_tick_granularityus() gasnett_tick_granularity()
#define gasnett_tick_overheadus() gasnett_tick_overhead()
/* Wall-clock microseconds since the Epoch (gettimeofday), as GASNet's
 * gasnet_tools.h offers it (not in README-tools): GASNet's testtools.c checks
 * the tick timer against it. */
static inline uint64_t gasnett_gettimeofday_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* Sleeps at least ns_delay ns; non-zero (errno EINTR) if a signal cut it short. */
static inline int gasnett_nsleep(uint64_t ns_delay)
{
    if (!ns_delay) return 0;
    struct timespec ts;
    ts.tv_sec = (time_t)(ns_delay / 1000000000u);
    ts.tv_nsec = (long)(ns_delay % 1000000000u);
    return nanosleep(&ts, NULL) == 0 ? 0 : -1;
}

/* ====================================================================
 * Memory fences (README-tools "Memory barriers"), as C11 fences:
 * write barrier = release, read barrier = acquire, full = sequentially
 * consistent.  The weak_ forms vanish in GASNETT_THREAD_SINGLE mode.
 * ==================================================================== */
#if GEXI_TT_GNUC
#define gasnett_compiler_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gasnett_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define gasnett_local_mb()  __atomic_thread_fence(__ATOMIC_SEQ_CST)
#else
#error "gasnet_tools.h needs a compiler with the GNU __atomic builtins (GCC, Clang, icx)"
#endif
#if GEXI_TT_THREADED
#define gasnett_weak_wmb() gasnett_local_wmb()
#define gasnett_weak_rmb() gasnett_local_rmb()
#define gasnett_weak_mb()  gasnett_local_mb()
#else
#define gasnett_weak_wmb() gasnett_compiler_fence()
#define gasnett_weak_rmb() gasnett_compiler_fence()
#define gasnett_weak_mb()  gasnett_compiler_fence()
#endif

#if defined(__x86_64__) || defined(__i386__)
#define gasnett_spinloop_hint() (__builtin_ia32_pause(), gasnett_compiler_fence())
#elif defined(__aarch64__) || (defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7)
#define gasnett_spinloop_hint() __asm__ __volatile__("yield" ::: "memory")
#else
#define gasnett_spinloop_hint() gasnett_compiler_fence()
#endif

/* ====================================================================
 * Atomics (README-tools "Atomic operations").  Every operation but _init
 * takes fence flags; the fences requested are issued around a relaxed
 * operation, which is never weaker than asked (a full MB where both a
 * read and a write fence are asked on one side).
 * ==================================================================== */
#define GASNETT_ATOMIC_NONE              0
#define GASNETT_ATOMIC_RMB_PRE           (1 << 0)
#define GASNETT_ATOMIC_WMB_PRE           (1 << 1)
#define GASNETT_ATOMIC_MB_PRE            (GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_PRE)
#define GASNETT_ATOMIC_RMB_POST          (1 << 2)
#define GASNETT_ATOMIC_WMB_POST          (1 << 3)
#define GASNETT_ATOMIC_MB_POST           (GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_WMB_POST)
#define GASNETT_ATOMIC_RMB_POST_IF_TRUE  (1 << 4)
#define GASNETT_ATOMIC_RMB_POST_IF_FALSE (1 << 5)
#define GASNETT_ATOMIC_REL               GASNETT_ATOMIC_WMB_PRE
#define GASNETT_ATOMIC_ACQ               GASNETT_ATOMIC_RMB_POST
#define GASNETT_ATOMIC_ACQ_IF_TRUE       GASNETT_ATOMIC_RMB_POST_IF_TRUE
#define GASNETT_ATOMIC_ACQ_IF_FALSE      GASNETT_ATOMIC_RMB_POST_IF_FALSE

/* Fences around one operation.  `real` is 0 for the non-atomic family of
 * GASNETT_THREAD_SINGLE mode (compiler fences suffice: no other thread). */
static inline void gexi_tt_fence_pre(int flags, int real)
{
    if (!(flags & GASNETT_ATOMIC_MB_PRE)) return;
    if (!real) gasnett_compiler_fence();
    else if ((flags & GASNETT_ATOMIC_MB_PRE) == GASNETT_ATOMIC_MB_PRE) gasnett_local_mb();
    else if (flags & GASNETT_ATOMIC_WMB_PRE) gasnett_local_wmb();
    else gasnett_local_rmb();
}
static inline void gexi_tt_fence_post(int flags, int real)
{
    if (!(flags & GASNETT_ATOMIC_MB_POST)) return;
    if (!real) gasnett_compiler_fence();
    else if ((flags & GASNETT_ATOMIC_MB_POST) == GASNETT_ATOMIC_MB_POST) gasnett_local_mb();
    else if (flags & GASNETT_ATOMIC_RMB_POST) gasnett_local_rmb();
    else gasnett_local_wmb();
}
static inline void gexi_tt_fence_bool(int flags, int real, int result)
{
    if ((result && (flags & GASNETT_ATOMIC_RMB_POST_IF_TRUE)) ||
        (!result && (flags & GASNETT_ATOMIC_RMB_POST_IF_FALSE))) {
        if (real) gasnett_local_rmb();
        else gasnett_compiler_fence();
    }
}

/* One family of operations: PFX_{set,read,increment,decrement,
 * decrement_and_test,add,subtract,compare_and_swap,swap} on struct T
 * holding a V; REAL 1 for atomic instructions, 0 for plain arithmetic. */
#define GEXI_TT_ATOMIC_FAMILY(PFX, T, V, REAL)                                               \
    static inline void PFX##_set(T *p, V v, int flags)                                      \
    {                                                                                      \
        gexi_tt_fence_pre(flags, REAL);                                                     \
        if (REAL) __atomic_store_n(&p->gexi_ctr, v, __ATOMIC_RELAXED);                      \
        else p->gexi_ctr = v;                                                              \
        gexi_tt_fence_post(flags, REAL);                                                    \
    }                                                                                      \
    static inline V PFX##_read(T *p, int flags)                                             \
    {                                                                                      \
        gexi_tt_fence_pre(flags, REAL);                                                     \
        V r = REAL ? __atomic_load_n(&p->gexi_ctr, __ATOMIC_RELAXED) : p->gexi_ctr;          \
        gexi_tt_fence_post(flags, REAL);                                                    \
        return r;                                                                          \
    }                                                                                      \
    static inline V PFX##_add(T *p, V v, int flags)                                         \
    {                                                                                      \
        gexi_tt_fence_pre(flags, REAL);                                                     \
        V r = REAL ? __atomic_add_fetch(&p->gexi_ctr, v, __ATOMIC_RELAXED)                   \
                   : (p->gexi_ctr = (V)(p->gexi_ctr + v));                                  \
        gexi_tt_fence_post(flags, REAL);                                                    \
        return r;                                                                          \
    }                                                                                      \
    static inline V PFX##_subtract(T *p, V v, int flags)                                    \
    {                                                                                      \
        gexi_tt_fence_pre(flags, REAL);                                                     \
        V r = REAL ? __atomic_sub_fetch(&p->gexi_ctr, v, __ATOMIC_RELAXED)                   \
                   : (p->gexi_ctr = (V)(p->gexi_ctr - v));                                  \
        gexi_tt_fence_post(flags, REAL);                                                    \
        return r;                                                                          \
    }                                                                                      \
    static inline void PFX##_increment(T *p, int flags) { (void)PFX##_add(p, 1, flags); }   \
    static inline void PFX##_decrement(T *p, int flags) { (void)PFX##_subtract(p, 1, flags); } \
    static inline int PFX##_decrement_and_test(T *p, int flags)                             \
    {                                                                                      \
        int z = PFX##_subtract(p, 1, flags & (GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST)) \
                == 0;                                                                      \
        gexi_tt_fence_bool(flags, REAL, z);                                                 \
        return z;                                                                          \
    }                                                                                      \
    static inline int PFX##_compare_and_swap(T *p, V oldval, V newval, int flags)           \
    {                                                                                      \
        int ok;                                                                            \
        gexi_tt_fence_pre(flags, REAL);                                                     \
        if (REAL) {                                                                        \
            V expect = oldval;                                                             \
            ok = __atomic_compare_exchange_n(&p->gexi_ctr, &expect, newval, 0,               \
                                             __ATOMIC_RELAXED, __ATOMIC_RELAXED);          \
        } else {                                                                           \
            ok = p->gexi_ctr == oldval;                                                    \
            if (ok) p->gexi_ctr = newval;                                                  \
        }                                                                                  \
        gexi_tt_fence_post(flags, REAL);                                                    \
        gexi_tt_fence_bool(flags, REAL, ok);                                                \
        return ok;                                                                         \
    }                                                                                      \
    static inline V PFX##_swap(T *p, V newval, int flags)                                   \
    {                                                                                      \
        V old;                                                                             \
        gexi_tt_fence_pre(flags, REAL);                                                     \
        if (REAL) {                                                                        \
            old = __atomic_exchange_n(&p->gexi_ctr, newval, __ATOMIC_RELAXED);              \
        } else {                                                                           \
            old = p->gexi_ctr;                                                             \
            p->gexi_ctr = newval;                                                          \
        }                                                                                  \
        gexi_tt_fence_post(flags, REAL);                                                    \
        return old;                                                                        \
    }

/* gasnett_atomic_t: an unsigned 32-bit counter (README: "at least 24 bits") */
typedef uint32_t gasnett_atomic_val_t;
typedef int32_t gasnett_atomic_sval_t;
#define GASNETT_ATOMIC_MAX        ((gasnett_atomic_val_t)UINT32_MAX)
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)INT32_MIN)
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)INT32_MAX)
#define gasnett_atomic_signed(v)  ((gasnett_atomic_sval_t)(gasnett_atomic_val_t)(v))
#define GASNETT_HAVE_ATOMIC_ADD_SUB 1
#define GASNETT_HAVE_ATOMIC_CAS 1
#define GASNETT_HAVE_STRONGATOMIC_ADD_SUB 1
#define GASNETT_HAVE_STRONGATOMIC_CAS 1
/* Lock-free everywhere GEX builds, hence signal-safe: the
 * GASNETT_STRONGATOMIC*_NOT_SIGNALSAFE macros are defined only where the
 * compiler says a width is not always lock-free. */
#if defined(__GCC_ATOMIC_INT_LOCK_FREE) && __GCC_ATOMIC_INT_LOCK_FREE != 2
#define GASNETT_STRONGATOMIC_NOT_SIGNALSAFE 1
#define GASNETT_STRONGATOMIC32_NOT_SIGNALSAFE 1
#endif
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE != 2
#define GASNETT_STRONGATOMIC64_NOT_SIGNALSAFE 1
#endif

typedef struct { gasnett_atomic_val_t gexi_ctr; } gasnett_atomic_t;
typedef struct { gasnett_atomic_val_t gexi_ctr; } gasnett_strongatomic_t;
typedef struct { uint32_t gexi_ctr; } gasnett_atomic32_t;
typedef struct { uint32_t gexi_ctr; } gasnett_strongatomic32_t;
typedef struct { uint64_t gexi_ctr; } gasnett_atomic64_t;
typedef struct { uint64_t gexi_ctr; } gasnett_strongatomic64_t;
#define gasnett_atomic_init(v)         { (gasnett_atomic_val_t)(v) }
#define gasnett_strongatomic_init(v)   { (gasnett_atomic_val_t)(v) }
#define gasnett_atomic32_init(v)       { (uint32_t)(v) }
#define gasnett_strongatomic32_init(v) { (uint32_t)(v) }
#define gasnett_atomic64_init(v)       { (uint64_t)(v) }
#define gasnett_strongatomic64_init(v) { (uint64_t)(v) }

GEXI_TT_ATOMIC_FAMILY(gasnett_atomic, gasnett_atomic_t, gasnett_atomic_val_t, GEXI_TT_THREADED)
GEXI_TT_ATOMIC_FAMILY(gasnett_atomic32, gasnett_atomic32_t, uint32_t, GEXI_TT_THREADED)
GEXI_TT_ATOMIC_FAMILY(gasnett_atomic64, gasnett_atomic64_t, uint64_t, GEXI_TT_THREADED)
GEXI_TT_ATOMIC_FAMILY(gasnett_strongatomic, gasnett_strongatomic_t, gasnett_atomic_val_t, 1)
GEXI_TT_ATOMIC_FAMILY(gasnett_strongatomic32, gasnett_strongatomic32_t, uint32_t, 1)
GEXI_TT_ATOMIC_FAMILY(gasnett_strongatomic64, gasnett_strongatomic64_t, uint64_t, 1)

/* ====================================================================
 * Mutexes, condition variables, reader/writer locks (README-tools): the
 * same layout in every mode, so objects may be shared between translation
 * units compiled differently.  Debug builds record the owner to catch
 * recursive locking and foreign unlocks.
 * ==================================================================== */
typedef struct {
    pthread_mutex_t gexi_lock;
    uintptr_t gexi_owner;          /* debug builds: holder's thread id, 0 if none */
} gasnett_mutex_t;
#define GASNETT_MUTEX_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, 0 }
typedef struct {
    pthread_cond_t gexi_cond;
} gasnett_cond_t;
#define GASNETT_COND_INITIALIZER { PTHREAD_COND_INITIALIZER }
typedef struct {
    pthread_rwlock_t gexi_rwlock;
    uintptr_t gexi_writer;         /* debug builds: write holder's thread id */
} gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER { PTHREAD_RWLOCK_INITIALIZER, 0 }

static inline uintptr_t gexi_tt_self(void) { return (uintptr_t)pthread_self() | 1u; }
static inline uintptr_t gexi_tt_owner(const uintptr_t *o) { return __atomic_load_n(o, __ATOMIC_RELAXED); }
static inline void gexi_tt_set_owner(uintptr_t *o, uintptr_t v) { __atomic_store_n(o, v, __ATOMIC_RELAXED); }

static inline void gasnett_mutex_init(gasnett_mutex_t *m)
{
    pthread_mutex_init(&m->gexi_lock, NULL);
    m->gexi_owner = 0;
}
static inline void gasnett_mutex_destroy(gasnett_mutex_t *m)
{
    int rc = pthread_mutex_destroy(&m->gexi_lock);
    if (GEXI_TT_DEBUG && rc) gasnett_fatalerror("gasnett_mutex_destroy: %s", strerror(rc));
}
static inline int gasnett_mutex_destroy_ignoreerr(gasnett_mutex_t *m)
{
    return pthread_mutex_destroy(&m->gexi_lock);
}
static inline void gasnett_mutex_lock(gasnett_mutex_t *m)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&m->gexi_owner) == gexi_tt_self())
        gasnett_fatalerror("gasnett_mutex_lock: recursive locking of a mutex this thread holds");
    if (GEXI_TT_LOCKING) pthread_mutex_lock(&m->gexi_lock);
    if (GEXI_TT_DEBUG) gexi_tt_set_owner(&m->gexi_owner, gexi_tt_self());
}
static inline int gasnett_mutex_trylock(gasnett_mutex_t *m)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&m->gexi_owner) == gexi_tt_self())
        gasnett_fatalerror("gasnett_mutex_trylock: recursive locking of a mutex this thread holds");
    if (GEXI_TT_LOCKING && pthread_mutex_trylock(&m->gexi_lock) != 0) return EBUSY;
    if (GEXI_TT_DEBUG) gexi_tt_set_owner(&m->gexi_owner, gexi_tt_self());
    return 0;
}
static inline void gasnett_mutex_unlock(gasnett_mutex_t *m)
{
    if (GEXI_TT_DEBUG) {
        if (gexi_tt_owner(&m->gexi_owner) != gexi_tt_self())
            gasnett_fatalerror("gasnett_mutex_unlock: this thread does not hold the mutex");
        gexi_tt_set_owner(&m->gexi_owner, 0);
    }
    if (GEXI_TT_LOCKING) pthread_mutex_unlock(&m->gexi_lock);
}
static inline void gasnett_mutex_assertlocked(gasnett_mutex_t *m)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&m->gexi_owner) != gexi_tt_self())
        gasnett_fatalerror("gasnett_mutex_assertlocked: mutex not held by this thread");
}
static inline void gasnett_mutex_assertunlocked(gasnett_mutex_t *m)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&m->gexi_owner) == gexi_tt_self())
        gasnett_fatalerror("gasnett_mutex_assertunlocked: mutex held by this thread");
}

static inline void gasnett_cond_init(gasnett_cond_t *c) { pthread_cond_init(&c->gexi_cond, NULL); }
static inline void gasnett_cond_destroy(gasnett_cond_t *c) { pthread_cond_destroy(&c->gexi_cond); }
static inline void gasnett_cond_signal(gasnett_cond_t *c)
{
    if (GEXI_TT_LOCKING) pthread_cond_signal(&c->gexi_cond);
}
static inline void gasnett_cond_broadcast(gasnett_cond_t *c)
{
    if (GEXI_TT_LOCKING) pthread_cond_broadcast(&c->gexi_cond);
}
static inline void gasnett_cond_wait(gasnett_cond_t *c, gasnett_mutex_t *m)
{
    if (!GEXI_TT_LOCKING)
        gasnett_fatalerror("gasnett_cond_wait in a single-threaded build would never return");
    gasnett_mutex_assertlocked(m);
    if (GEXI_TT_DEBUG) gexi_tt_set_owner(&m->gexi_owner, 0);
    pthread_cond_wait(&c->gexi_cond, &m->gexi_lock);
    if (GEXI_TT_DEBUG) gexi_tt_set_owner(&m->gexi_owner, gexi_tt_self());
}

static inline void gasnett_rwlock_init(gasnett_rwlock_t *l)
{
    pthread_rwlock_init(&l->gexi_rwlock, NULL);
    l->gexi_writer = 0;
}
static inline void gasnett_rwlock_destroy(gasnett_rwlock_t *l)
{
    pthread_rwlock_destroy(&l->gexi_rwlock);
}
static inline void gasnett_rwlock_rdlock(gasnett_rwlock_t *l)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&l->gexi_writer) == gexi_tt_self())
        gasnett_fatalerror("gasnett_rwlock_rdlock: this thread holds the write lock");
    /* a reader-count limit (EAGAIN) is waited out, as README-tools asks */
    if (GEXI_TT_LOCKING)
        while (pthread_rwlock_rdlock(&l->gexi_rwlock) == EAGAIN) sched_yield();
}
static inline void gasnett_rwlock_wrlock(gasnett_rwlock_t *l)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&l->gexi_writer) == gexi_tt_self())
        gasnett_fatalerror("gasnett_rwlock_wrlock: recursive write locking");
    if (GEXI_TT_LOCKING) pthread_rwlock_wrlock(&l->gexi_rwlock);
    if (GEXI_TT_DEBUG) gexi_tt_set_owner(&l->gexi_writer, gexi_tt_self());
}
static inline int gasnett_rwlock_tryrdlock(gasnett_rwlock_t *l)
{
    return GEXI_TT_LOCKING ? pthread_rwlock_tryrdlock(&l->gexi_rwlock) : 0;
}
static inline int gasnett_rwlock_trywrlock(gasnett_rwlock_t *l)
{
    int rc = GEXI_TT_LOCKING ? pthread_rwlock_trywrlock(&l->gexi_rwlock) : 0;
    if (GEXI_TT_DEBUG && rc == 0) gexi_tt_set_owner(&l->gexi_writer, gexi_tt_self());
    return rc;
}
static inline void gasnett_rwlock_unlock(gasnett_rwlock_t *l)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&l->gexi_writer) == gexi_tt_self())
        gexi_tt_set_owner(&l->gexi_writer, 0);
    if (GEXI_TT_LOCKING) pthread_rwlock_unlock(&l->gexi_rwlock);
}
/* Debug builds can tell the write holder; read holders are not tracked,
 * so the read and "either" forms only check what that allows. */
static inline void gasnett_rwlock_assertwrlocked(gasnett_rwlock_t *l)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&l->gexi_writer) != gexi_tt_self())
        gasnett_fatalerror("gasnett_rwlock_assertwrlocked: no write lock held by this thread");
}
static inline void gasnett_rwlock_assertrdlocked(gasnett_rwlock_t *l)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&l->gexi_writer) == gexi_tt_self())
        gasnett_fatalerror("gasnett_rwlock_assertrdlocked: this thread holds the write lock");
}
static inline void gasnett_rwlock_assertlocked(gasnett_rwlock_t *l) { (void)l; }
static inline void gasnett_rwlock_assertunlocked(gasnett_rwlock_t *l)
{
    if (GEXI_TT_DEBUG && gexi_tt_owner(&l->gexi_writer) == gexi_tt_self())
        gasnett_fatalerror("gasnett_rwlock_assertunlocked: this thread holds the write lock");
}

/* ====================================================================
 * Thread-specific data (README-tools): a __thread pointer per key in
 * GASNETT_THREAD_SAFE mode, a plain global otherwise; no set-up needed.
 * ==================================================================== */
#if GEXI_TT_THREADED
#define GASNETT_THREADKEY_DEFINE(key)  __thread void *gexi_threadkey_##key
#define GASNETT_THREADKEY_DECLARE(key) extern __thread void *gexi_threadkey_##key
#else
#define GASNETT_THREADKEY_DEFINE(key)  void *gexi_threadkey_##key
#define GASNETT_THREADKEY_DECLARE(key) extern void *gexi_threadkey_##key
#endif
#define gasnett_threadkey_init(key)             ((void)0)
#define gasnett_threadkey_get(key)              ((void *)gexi_threadkey_##key)
#define gasnett_threadkey_get_noinit(key)       ((void *)gexi_threadkey_##key)
#define gasnett_threadkey_set(key, val)         ((void)(gexi_threadkey_##key = (void *)(val)))
#define gasnett_threadkey_set_noinit(key, val)  ((void)(gexi_threadkey_##key = (void *)(val)))

/* ====================================================================
 * Environment (README-tools "Environment utilities").  Settings are
 * reported on stderr in GASNET_VERBOSEENV mode, once per key (per
 * translation unit), by the job's rank 0 when the library is in use.
 * ==================================================================== */
static inline char *gasnett_getenv(const char *keyname) { return getenv(keyname); }
static inline void gasnett_setenv(const char *key, const char *value) { setenv(key, value, 1); }
static inline void gasnett_unsetenv(const char *key) { unsetenv(key); }

static inline int gasnett_verboseenv(void)
{
    if (!gexi_tt_yesno(getenv("GASNET_VERBOSEENV"), 0, NULL)) return 0;
#if defined(GASNETEX_H)
    return gex_System_QueryJobRank() == 0;
#else
    return 1;
#endif
}

/* 1 the first time key is seen in this translation unit. */
static inline int gexi_tt_env_first(const char *key)
{
    static const char *seen[64];
    static unsigned nseen;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int first = 1;
    if (GEXI_TT_LOCKING) pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < nseen && first; i++) first = strcmp(seen[i], key) != 0;
    if (first && nseen < sizeof seen / sizeof seen[0]) seen[nseen++] = key;
    if (GEXI_TT_LOCKING) pthread_mutex_unlock(&lock);
    return first;
}

static inline void gasnett_envstr_display(const char *key, const char *val, int is_dflt)
{
    if (!gasnett_verboseenv() || !gexi_tt_env_first(key)) return;
    fprintf(stderr, "GEX ENV parameter: %s = %s%s\n", key, val ? val : "(null)",
            is_dflt ? "   (default)" : "");
}

/* Human-friendly integer: memory sizes get the largest exact binary unit. */
static inline char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size)
{
    static const char *const units[] = { "B", "KB", "MB", "GB", "TB" };
    if (!is_mem_size) {
        snprintf(buf, bufsz, "%" PRId64, val);
        return buf;
    }
    int u = 0;
    int64_t v = val;
    while (u < 4 && v != 0 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, bufsz, "%" PRId64 "%s", v, units[u]);
    return buf;
}

static inline void gasnett_envint_display(const char *key, int64_t val, int is_dflt,
                                          int is_mem_size)
{
    char num[64];
    if (!gasnett_verboseenv() || !gexi_tt_env_first(key)) return;
    fprintf(stderr, "GEX ENV parameter: %s = %s%s\n", key,
            gasnett_format_number(val, num, sizeof num, is_mem_size), is_dflt ? "   (default)" : "");
}

static inline void gasnett_envdbl_display(const char *key, double val, int is_dflt)
{
    if (!gasnett_verboseenv() || !gexi_tt_env_first(key)) return;
    fprintf(stderr, "GEX ENV parameter: %s = %g%s\n", key, val, is_dflt ? "   (default)" : "");
}

/* An integer, or with mem_size_multiplier != 0 a (possibly fractional)
 * memory size with an optional B/KB/MB/GB/TB (or K/M/G/T) suffix;
 * mem_size_multiplier is the unit of a bare number.  Fatal if unreadable. */
static inline int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier)
{
    const char *s = str;
    char *end;
    while (isspace((unsigned char)*s)) s++;
    if (!mem_size_multiplier) {
        int neg = *s == '-';
        const char *digits = (*s == '-' || *s == '+') ? s + 1 : s;
        int hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
        errno = 0;
        uint64_t mag = strtoull(hex ? digits + 2 : digits, &end, hex ? 16 : 10);
        while (isspace((unsigned char)*end)) end++;
        if (errno || end == (hex ? digits + 2 : digits) || *end)
            gasnett_fatalerror("'%s' is not an integer", str);
        return neg ? -(int64_t)mag : (int64_t)mag;
    }
    errno = 0;
    double d = strtod(s, &end);
    if (errno || end == s) gasnett_fatalerror("'%s' is not a memory size", str);
    while (isspace((unsigned char)*end)) end++;
    uint64_t mult = mem_size_multiplier;
    switch (toupper((unsigned char)*end)) {
    case 'B': mult = 1; break;
    case 'K': mult = 1ull << 10; break;
    case 'M': mult = 1ull << 20; break;
    case 'G': mult = 1ull << 30; break;
    case 'T': mult = 1ull << 40; break;
    case 0: break;
    default: gasnett_fatalerror("'%s' has an unknown memory-size suffix", str);
    }
    if (*end) {
        end++;
        if (mult > 1 && toupper((unsigned char)*end) == 'B') end++;
        while (isspace((unsigned char)*end)) end++;
        if (*end) gasnett_fatalerror("'%s' is not a memory size", str);
    }
    return (int64_t)(d * (double)mult);
}

static inline char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval)
{
    char *v = getenv(keyname);
    gasnett_envstr_display(keyname, v ? v : defaultval, v == NULL);
    return v ? v : (char *)defaultval;
}

static inline int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval)
{
    const char *v = getenv(keyname);
    int ok;
    int r = gexi_tt_yesno(v, defaultval ? 1 : 0, &ok);
    if (!ok) gasnett_fatalerror("environment %s='%s': expected yes or no (1/0, y/n)", keyname, v);
    gasnett_envstr_display(keyname, r ? "YES" : "NO", v == NULL);
    return r;
}

static inline int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                                     uint64_t mem_size_multiplier)
{
    const char *v = getenv(keyname);
    int64_t r = (v && *v) ? gasnett_parse_int(v, mem_size_multiplier) : defaultval;
    gasnett_envint_display(keyname, r, !(v && *v), mem_size_multiplier != 0);
    return r;
}

/* A floating-point value or a fraction such as "3/8". */
static inline double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval)
{
    const char *v = getenv(keyname);
    double r = defaultval;
    if (v && *v) {
        char *end;
        r = strtod(v, &end);
        if (end == v) gasnett_fatalerror("environment %s='%s' is not a number", keyname, v);
        while (isspace((unsigned char)*end)) end++;
        if (*end == '/') {
            const char *den_s = end + 1;
            double den = strtod(den_s, &end);
            if (end == den_s || den == 0)
                gasnett_fatalerror("environment %s='%s' is not a fraction", keyname, v);
            r /= den;
            while (isspace((unsigned char)*end)) end++;
        }
        if (*end) gasnett_fatalerror("environment %s='%s' is not a number", keyname, v);
    }
    gasnett_envdbl_display(keyname, r, !(v && *v));
    return r;
}

/* ====================================================================
 * Miscellaneous tools
 * ==================================================================== */
static inline void gasnett_sched_yield(void) { sched_yield(); }
static inline void gasnett_close_streams(void)
{
    fclose(stdin);
    fclose(stdout);
    fclose(stderr);
}

typedef void (*gasnett_sighandlerfn_t)(int);
static inline gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fp;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sigtocatch, &sa, &old) != 0)
        gasnett_fatalerror("gasnett_reghandler(%d): %s", sigtocatch, strerror(errno));
    return old.sa_handler;
}

/* 64-bit FNV-1a: quick, not cryptographic. */
static inline uint64_t gasnett_checksum(const void *p, int numbytes)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < numbytes; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Zero bytes in a word: a byte b is zero iff the high bit of
 * ((b & 0x7f) + 0x7f) | b is clear. */
static inline int gasnett_count0s_uint64_t(uint64_t x)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t nz = (((x & lo7) + lo7) | x) & ~lo7;
    return 8 - __builtin_popcountll(nz);
}
static inline int gasnett_count0s_uint32_t(uint32_t x)
{
    const uint32_t lo7 = 0x7f7f7f7fu;
    uint32_t nz = (((x & lo7) + lo7) | x) & ~lo7;
    return 4 - __builtin_popcount(nz);
}
static inline int gasnett_count0s_uintptr_t(uintptr_t x)
{
    return sizeof(uintptr_t) == 8 ? gasnett_count0s_uint64_t((uint64_t)x)
                                  : gasnett_count0s_uint32_t((uint32_t)x);
}
static inline size_t gasnett_count0s(const void *p, size_t numbytes)
{
    const unsigned char *b = (const unsigned char *)p;
    size_t n = 0, i = 0;
    for (; i + 8 <= numbytes; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        n += (size_t)gasnett_count0s_uint64_t(w);
    }
    for (; i < numbytes; i++) n += b[i] == 0;
    return n;
}
static inline size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst,
                                          const void *GASNETT_RESTRICT src, size_t numbytes)
{
    memcpy(dst, src, numbytes);
    return gasnett_count0s(dst, numbytes);
}

/* Soft limit up to the hard one; GASNET_MAXIMIZE_<lim_desc>=no skips it. */
static inline int gasnett_maximize_rlimit(int res, const char *lim_desc)
{
    char key[128];
    snprintf(key, sizeof key, "GASNET_MAXIMIZE_%s", lim_desc ? lim_desc : "");
    if (!gexi_tt_yesno(getenv(key), 1, NULL)) return 1;
    struct rlimit rl;
    if (getrlimit(res, &rl) != 0) return 0;
    if (rl.rlim_cur == rl.rlim_max) return 1;
    rl.rlim_cur = rl.rlim_max;
    return setrlimit(res, &rl) == 0;
}
static inline int gasnett_maximize_rlimits(void)
{
    int ok = 1;
    ok &= gasnett_maximize_rlimit(RLIMIT_CPU, "RLIMIT_CPU");
    ok &= gasnett_maximize_rlimit(RLIMIT_DATA, "RLIMIT_DATA");
    ok &= gasnett_maximize_rlimit(RLIMIT_STACK, "RLIMIT_STACK");
    ok &= gasnett_maximize_rlimit(RLIMIT_AS, "RLIMIT_AS");
#if defined(RLIMIT_RSS)
    ok &= gasnett_maximize_rlimit(RLIMIT_RSS, "RLIMIT_RSS");
#endif
#if defined(RLIMIT_MEMLOCK)
    ok &= gasnett_maximize_rlimit(RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK");
#endif
    return ok;
}

/* Deprecated (README-tools): pins the calling thread to CPU rank % ncpus. */
#if defined(__linux__) && defined(CPU_SET)
#define GASNETT_SET_AFFINITY_SUPPORT 1
static inline int gasnett_set_affinity(int rank)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    if (n <= 0 || rank < 0) return 1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)(rank % n), &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : 1;
}
#else
static inline int gasnett_set_affinity(int rank) { (void)rank; return 1; }
#endif

static inline int gasnett_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 0;
}

static inline uint64_t gasnett_getPhysMemSz(int failureIsFatal)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psize <= 0) {
        if (failureIsFatal) gasnett_fatalerror("cannot determine the physical memory size");
        return 0;
    }
    return (uint64_t)pages * (uint64_t)psize;
}

static inline int gasnett_isLittleEndian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* The host name, computed once per translation unit (a second thread
 * racing the first computes the same bytes). */
static inline const char *gasnett_gethostname(void)
{
    static char name[256];
    if (!__atomic_load_n(&name[0], __ATOMIC_ACQUIRE)) {
        char tmp[sizeof name];
        if (gethostname(tmp, sizeof tmp - 1) != 0 || !tmp[0]) strcpy(tmp, "localhost");
        tmp[sizeof tmp - 1] = 0;
        memcpy(name + 1, tmp + 1, sizeof name - 1);
        __atomic_store_n(&name[0], tmp[0], __ATOMIC_RELEASE);
    }
    return name;
}

static inline const char *gasnett_exe_name(void)
{
    static char path[4096];
    if (!__atomic_load_n(&path[0], __ATOMIC_ACQUIRE)) {
        char tmp[sizeof path];
        ssize_t n = readlink("/proc/self/exe", tmp, sizeof tmp - 1);
        if (n <= 0) return "";
        tmp[n] = 0;
        memcpy(path + 1, tmp + 1, (size_t)n);
        __atomic_store_n(&path[0], tmp[0], __ATOMIC_RELEASE);
    }
    return path;
}

static inline const char *gasnett_performance_warning_str(void)
{
#if GEXI_TT_DEBUG
    return "GEX was configured with --enable-debug: extra checks slow every call\n";
#else
    return "";
#endif
}

static inline const char *gasnett_release_version_str(void) { return GEX_PACKAGE_VERSION_STR; }
/* GASNet's encoding, MAJOR*10^6 + MINOR*10^4 + PATCH (2026.11.0 ->
 * 2026110000): README-tools asks only for a monotonic integer, but clients
 * and GASNet's testtools compare it against numbers built that way. */
static inline uint64_t gasnett_release_version(void)
{
    return (uint64_t)GASNETT_RELEASE_VERSION_MAJOR * 1000000u +
           (uint64_t)GASNETT_RELEASE_VERSION_MINOR * 10000u + GASNETT_RELEASE_VERSION_PATCH;
}

/* ====================================================================
 * Trace/stats (README-tools): GEX has neither, so these are the
 * "compile away" forms that section allows.
 * ==================================================================== */
#define GASNETT_TRACE_GETMASK() ""
#define GASNETT_STATS_GETMASK() ""
#define GASNETT_TRACE_SETMASK(newmask) ((void)(newmask))
#define GASNETT_STATS_SETMASK(newmask) ((void)(newmask))
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_TRACE_PRINTF(...) ((void)0)
#define GASNETT_TRACE_PRINTF_FORCE(...) ((void)0)
#define GASNETT_STATS_PRINTF(...) ((void)0)
#define GASNETT_STATS_PRINTF_FORCE(...) ((void)0)
#define GASNETT_STATS_DUMP(reset) ((void)(reset))
/* GASNet's source-line bookkeeping for its tracer, which clients' message
 * macros call (GASNet's own test harness does): nothing to record here, as
 * in a GASNet build without tracing.  README-tools does not name them. */
#define GASNETT_TRACE_SETSOURCELINE(file, line) ((void)0)
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) ((void)(*(pfile) = "", *(pline) = 0))
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_GET_TRACELOCAL() 0
#define GASNETT_TRACE_SET_TRACELOCAL(val) ((void)(val))

#ifdef __cplusplus
}
#endif
#endif /* GASNET_TOOLS_H */

/* ====================================================================
 * GASNet-EX clients only: text forms of VIS descriptors and of gex_DT_t,
 * gex_OP_t and gex_TI_t sets, as GASNet-EX's gasnet_tools.h offers them to
 * clients of the communication library (not to tools-only programs).
 * Unlike the rest of this header these are functions of libgex-core, so the
 * section exists only once gasnetex.h has been seen.  It sits outside the
 * include guard above: with gasnet_tools.h included first and gasnetex.h
 * later, gasnetex.h's own #include of this header still reaches it.
 *
 * Each *_bufsz(n) bounds the bytes (the terminating NUL included) the
 * matching formatter writes for n list entries (or n stride levels),
 * whatever the values.  gasnett_format_dt/op/ti(buf, set) name the members
 * of set joined by '|' ("GEX_DT_I32|GEX_DT_DBL"), "(empty)" for 0, and
 * bits GEX does not define as a trailing hex number; they return the bytes
 * written, NUL included, and with buf == NULL only that count.
 * Output format and return values: docs/compatibility.md.
 * ==================================================================== */
#if defined(GASNETEX_H) && !defined(GEXI_TOOLS_FORMAT_DECLARED)
#define GEXI_TOOLS_FORMAT_DECLARED 1

#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
#ifdef __cplusplus
extern "C" {
#endif

/* What the memvec and address-list formatters learn on the way, under
 * GASNet's names.  Empty entries (length 0) do not count; with none left,
 * _minsz is SIZE_MAX, _maxsz 0, _minaddr the highest address and _maxaddr
 * NULL.  _maxaddr is the last byte covered, not one past it. */
typedef struct {
    size_t _minsz;
    size_t _maxsz;
    uintptr_t _totalsz;
    void *_minaddr;
    void *_maxaddr;
} gasneti_memveclist_stats_t;
typedef struct {
    void *_minaddr;
    void *_maxaddr;
} gasneti_addrlist_stats_t;

/* Vector: one list, or a whole Put/Get (returns the bytes of dstlist). */
extern size_t gasnett_format_memveclist_bufsz(size_t count);
extern gasneti_memveclist_stats_t gasnett_format_memveclist(char *buf, size_t count,
                                                            gex_Memvec_t const *list);
extern size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putvgetv(char *buf, gex_TM_t tm, gex_Rank_t rank,
                                      size_t dstcount, gex_Memvec_t const dstlist[],
                                      size_t srccount, gex_Memvec_t const srclist[]);

/* Indexed: count addresses of len bytes each (putigeti returns
 * dstcount * dstlen). */
extern size_t gasnett_format_addrlist_bufsz(size_t count);
extern gasneti_addrlist_stats_t gasnett_format_addrlist(char *buf, size_t count,
                                                        void * const *list, size_t len);
extern size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putigeti(char *buf, gex_TM_t tm, gex_Rank_t rank,
                                      size_t dstcount, void * const dstlist[], size_t dstlen,
                                      size_t srccount, void * const srclist[], size_t srclen);

/* Strided: a stride (or count) list "[a, b, c]", or a whole Put/Get in the
 * specification's form (elemsz, count[stridelevels]); returns the bytes
 * moved.  pstats exists for GASNet's signature and is ignored (may be
 * NULL). */
extern size_t gasnett_format_strides_bufsz(size_t count);
extern void gasnett_format_strides(char *buf, size_t count, const ptrdiff_t *list);
extern size_t gasnett_format_putsgets_bufsz(size_t stridelevels);
extern size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                                      void *dstaddr, const ptrdiff_t dststrides[],
                                      void *srcaddr, const ptrdiff_t srcstrides[],
                                      size_t elemsz, const size_t count[], size_t stridelevels);

/* Sets of data types, operations and token-info fields. */
extern size_t gasnett_format_dt(char *buf, gex_DT_t dt);
extern size_t gasnett_format_op(char *buf, gex_OP_t op);
extern size_t gasnett_format_ti(char *buf, gex_TI_t ti);

#ifdef __cplusplus
}
#endif
#if defined(GEXI_BUILDING_GEX) && defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* GASNETEX_H && !GEXI_TOOLS_FORMAT_DECLARED */
