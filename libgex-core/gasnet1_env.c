/*
 * gasnet1_env.c: the GASNet environment conventions of README-gasnet-user
 * that core honours beyond plain lookups:
 *  - GASNET_BACKTRACE (with GASNET_BACKTRACE_NODES): a backtrace of the
 *    failing thread on fatal errors (gexi_fatal) and, through handlers
 *    installed when the library loads, on fatal signals;
 *    GASNET_NO_CATCH_SIGNAL leaves the listed signals (or "*" all) alone;
 *  - GASNET_FREEZE_ON_ERROR: the same two places wait for a debugger;
 *    GASNET_FREEZE at the start of gex_Client_Init too;
 *  - GASNET_BACKTRACE_SIGNAL, GASNET_FREEZE_SIGNAL: a signal that prints
 *    a backtrace and continues, or freezes;
 *  - GASNET_MAX_SEGSIZE in GASNet's "size_spec[/P|/H]" form.
 * Backtraces come from glibc's backtrace(); where it is missing,
 * GASNET_BACKTRACE is read but nothing is printed.
 */
#include "core_internal.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<execinfo.h>)
#include <execinfo.h>
#define GEXI_HAVE_EXECINFO 1
#endif
#endif

/* Rank for messages and GASNET_BACKTRACE_NODES: the job rank once known,
 * else what gexrun told this process. */
static long my_rank(void)
{
    if (gexi_core.initialized) return (long)gexi_core.jobrank;
    const char *r = getenv("GEX_JOB_RANK");
    return r ? strtol(r, NULL, 10) : 0;
}

static int backtrace_wanted(void)
{
    return gexi_env_bool(getenv("GASNET_BACKTRACE")) &&
           gexi_env_rank_listed(getenv("GASNET_BACKTRACE_NODES"), my_rank());
}

/* Writes without stdio: this also runs in signal handlers. */
static void write_str(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void write_num(int fd, long r)
{
    char num[24];
    int i = (int)sizeof num - 1;
    num[i] = 0;
    do {
        num[--i] = (char)('0' + r % 10);
        r /= 10;
    } while (r && i > 0);
    write_str(fd, num + i);
}

static void write_rank_prefix(int fd)
{
    write_str(fd, "GEX rank ");
    write_num(fd, my_rank());
    write_str(fd, ": ");
}

/* Prints the calling thread's backtrace, labelled with the setting that
 * asked for it; 0 if one was printed. */
static int print_backtrace(int fd, const char *setting)
{
#if defined(GEXI_HAVE_EXECINFO)
    void *frames[64];
    int n = backtrace(frames, 64);
    write_rank_prefix(fd);
    write_str(fd, "backtrace (");
    write_str(fd, setting);
    write_str(fd, "):\n");
    backtrace_symbols_fd(frames, n, fd);
    return 0;
#else
    write_rank_prefix(fd);
    write_str(fd, setting);
    write_str(fd, ": no backtrace support on this platform\n");
    return 1;
#endif
}

int gexi_backtrace_ifenabled(int fd)
{
    if (!backtrace_wanted()) return 1;
    return print_backtrace(fd, "GASNET_BACKTRACE");
}

/* GASNET_FREEZE_ON_ERROR (README-gasnet-user): "pause and wait for a
 * debugger to attach on any fatal errors or fatal signals".  The process
 * waits until a debugger sets gexi_frozen to 0 or it receives SIGCONT
 * (which is also how a script releases it).  Signal-handler safe. */
static volatile sig_atomic_t gexi_frozen;
static void on_sigcont(int sig)
{
    (void)sig;
    gexi_frozen = 0;
}

/* Waits for the debugger (or SIGCONT); `setting` names who asked.  The
 * client's own SIGCONT disposition is back in place afterwards. */
static void freeze_now(const char *setting)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigcont;
    sigemptyset(&sa.sa_mask);
    gexi_frozen = 1;
    const int have_old = sigaction(SIGCONT, &sa, &old) == 0;
    write_rank_prefix(STDERR_FILENO);
    write_str(STDERR_FILENO, "frozen for a debugger (");
    write_str(STDERR_FILENO, setting);
    write_str(STDERR_FILENO, "): attach to pid ");
    write_num(STDERR_FILENO, (long)getpid());
    write_str(STDERR_FILENO, " and set gexi_frozen = 0, or send it SIGCONT, to continue\n");
    while (gexi_frozen) sleep(1);
    if (have_old) sigaction(SIGCONT, &old, NULL);
}

void gexi_freeze_ifenabled(void)
{
    if (gexi_env_bool(getenv("GASNET_FREEZE_ON_ERROR"))) freeze_now("GASNET_FREEZE_ON_ERROR");
}

/* GASNET_FREEZE (README-gasnet-user): "pause and wait for a debugger to
 * attach on startup"; called at the start of gex_Client_Init. */
void gexi_freeze_at_startup(void)
{
    if (gexi_env_bool(getenv("GASNET_FREEZE"))) freeze_now("GASNET_FREEZE");
}

/* ---- GASNET_BACKTRACE_SIGNAL, GASNET_FREEZE_SIGNAL ----
 * README-gasnet-user: a signal that makes the process print a backtrace
 * "and then continue executing", or freeze and await a debugger.  The
 * handlers stay installed; the signal is named as in "SIGUSR1", "USR1"
 * or by its number. */
static void on_backtrace_signal(int sig)
{
    (void)sig;
    const int saved = errno;
    print_backtrace(STDERR_FILENO, "GASNET_BACKTRACE_SIGNAL");
    errno = saved;
}

static void on_freeze_signal(int sig)
{
    (void)sig;
    const int saved = errno;
    freeze_now("GASNET_FREEZE_SIGNAL");
    errno = saved;
}

/* Installs handler for the signal named by the setting; SIGKILL and
 * SIGSTOP cannot be caught and SIGCONT releases a freeze. */
static void install_named_signal(const char *setting, void (*handler)(int))
{
    const char *v = getenv(setting);
    if (!v || !*v) return;
    const int sig = gexi_env_signal_by_name(v);
    if (sig == 0 || sig == SIGKILL || sig == SIGSTOP || sig == SIGCONT) {
        write_rank_prefix(STDERR_FILENO);
        write_str(STDERR_FILENO, setting);
        write_str(STDERR_FILENO, "='");
        write_str(STDERR_FILENO, v);
        write_str(STDERR_FILENO, "' is not a signal this setting can use; ignored\n");
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* ---- fatal signals ---- */

static const struct {
    int sig;
    const char *name;
} fatal_signals[] = {
    { SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGILL, "SIGILL" },
    { SIGFPE, "SIGFPE" },   { SIGABRT, "SIGABRT" },
};

static void on_fatal_signal(int sig)
{
    const char *name = "signal";
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        if (fatal_signals[i].sig == sig) name = fatal_signals[i].name;
    write_rank_prefix(STDERR_FILENO);
    write_str(STDERR_FILENO, "caught fatal signal ");
    write_str(STDERR_FILENO, name);
    write_str(STDERR_FILENO, "\n");
    gexi_backtrace_ifenabled(STDERR_FILENO);
    gexi_freeze_ifenabled();
    /* The handler was one-shot (SA_RESETHAND): die of the signal itself, so
     * gexrun reports it as before. */
    raise(sig);
}

/* GASNET_BACKTRACE_NODES syntax: "*" or a comma list of N and N-M. */
static int rank_list_valid(const char *list)
{
    if (!strcmp(list, "*")) return 1;
    for (const char *p = list;;) {
        char *end;
        if (!isdigit((unsigned char)*p)) return 0;
        errno = 0;
        unsigned long lo = strtoul(p, &end, 10), hi = lo;
        if (*end == '-') {
            p = end + 1;
            if (!isdigit((unsigned char)*p)) return 0;
            hi = strtoul(p, &end, 10);
        }
        if (errno || hi < lo) return 0;
        if (!*end) return 1;
        if (*end != ',') return 0;
        p = end + 1;
    }
}

/* GASNET_NO_CATCH_SIGNAL syntax: "*" or a comma list of signal names or
 * numbers. */
/* The signals GASNet catches to report a crash (the ones
 * GASNET_NO_CATCH_SIGNAL exists to leave alone): not in the table of
 * signals a user may send (gexi_env_signal_by_name), valid in this list. */
static int is_crash_signal_name(const char *item)
{
    static const char *const crash[] = { "SEGV", "BUS", "ILL", "FPE", "ABRT" };
    while (isspace((unsigned char)*item)) item++;
    if (!strncasecmp(item, "SIG", 3)) item += 3;
    for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++)
        if (!strcasecmp(item, crash[i])) return 1;
    return 0;
}

static int signal_list_valid(const char *list)
{
    if (!strcmp(list, "*")) return 1;
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        char item[32];
        if (len == 0 || len >= sizeof item) return 0;
        memcpy(item, p, len);
        item[len] = 0;
        if (gexi_env_signal_by_name(item) == 0 && !is_crash_signal_name(item)) return 0;
        if (!p[len]) return 1;
        p += len + 1;
    }
}

/* The constructor cannot stop a job over a bad value (no rank, no
 * launcher yet: it ignores the value); client init, which can, checks them
 * here so a typo ends the job with a message instead of silently turning
 * the setting off (docs/environment.md, "Unreadable values"). */
static void env_check_crash_settings(void)
{
    static const char *const yesno[] = { "GASNET_BACKTRACE", "GASNET_FREEZE_ON_ERROR",
                                         "GASNET_FREEZE", "GASNET_VERBOSEENV" };
    for (size_t i = 0; i < sizeof yesno / sizeof yesno[0]; i++)
        (void)gexi_getenv_yesno(yesno[i], 0);
    static const char *const sigs[] = { "GASNET_BACKTRACE_SIGNAL", "GASNET_FREEZE_SIGNAL" };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        const char *v = getenv(sigs[i]);
        if (!v || !*v) continue;
        const int sig = gexi_env_signal_by_name(v);
        if (sig == 0 || sig == SIGKILL || sig == SIGSTOP || sig == SIGCONT)
            gexi_fatal("environment variable %s='%s' is not a signal this setting can use "
                       "(a name such as USR1 or a number, not KILL, STOP or CONT)", sigs[i], v);
    }
    const char *v = getenv("GASNET_BACKTRACE_NODES");
    if (v && *v && !rank_list_valid(v))
        gexi_fatal("environment variable GASNET_BACKTRACE_NODES='%s' is not * or a list of "
                   "ranks such as 0,2-4", v);
    v = getenv("GASNET_NO_CATCH_SIGNAL");
    if (v && *v && !signal_list_valid(v))
        gexi_fatal("environment variable GASNET_NO_CATCH_SIGNAL='%s' is not * or a list of "
                   "signals such as SEGV,BUS or 11", v);
}

/* The settings above are read with plain getenv (in a constructor, before
 * the rank is known, and in signal handlers), which GASNET_VERBOSEENV's
 * listing does not see; client init lists them once the rank is known. */
void gexi_env_announce_crash_settings(void)
{
    static const char *const names[] = {
        "GASNET_BACKTRACE", "GASNET_BACKTRACE_NODES", "GASNET_FREEZE_ON_ERROR",
        "GASNET_NO_CATCH_SIGNAL", "GASNET_FREEZE", "GASNET_FREEZE_SIGNAL",
        "GASNET_BACKTRACE_SIGNAL",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) (void)gexi_getenv(names[i]);
    env_check_crash_settings();
}

/* Installed when libgex-core loads, so a crash anywhere (before init too)
 * is covered, and a process hung in init can be asked for a backtrace;
 * nothing is touched unless GASNET_BACKTRACE, GASNET_FREEZE_ON_ERROR or a
 * *_SIGNAL setting asks for it. */
__attribute__((constructor)) static void gexi_backtrace_install(void)
{
    install_named_signal("GASNET_BACKTRACE_SIGNAL", on_backtrace_signal);
    install_named_signal("GASNET_FREEZE_SIGNAL", on_freeze_signal);
#if defined(GEXI_HAVE_EXECINFO)
    if (getenv("GASNET_BACKTRACE_SIGNAL")) {
        void *warm[2];
        (void)backtrace(warm, 2); /* loads the unwinder now, not in a handler */
    }
#endif
    if (!gexi_env_bool(getenv("GASNET_BACKTRACE")) &&
        !gexi_env_bool(getenv("GASNET_FREEZE_ON_ERROR")))
        return;
#if defined(GEXI_HAVE_EXECINFO)
    void *warm[2];
    (void)backtrace(warm, 2); /* loads the unwinder now, not in a handler */
#endif
    const char *nocatch = getenv("GASNET_NO_CATCH_SIGNAL");
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        if (gexi_signal_excluded(nocatch, fatal_signals[i].sig, fatal_signals[i].name)) continue;
        struct sigaction old, sa;
        if (sigaction(fatal_signals[i].sig, NULL, &old) != 0) continue;
        if (old.sa_handler != SIG_DFL) continue; /* someone else's: keep it */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = (int)SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i].sig, &sa, NULL);
    }
}

/* ---- GASNET_MAX_SEGSIZE ---- */

uint64_t gexi_env_max_segsize(uint64_t phys_bytes, gex_Rank_t ranks_on_host)
{
    const char *v = gexi_getenv("GASNET_MAX_SEGSIZE");
    if (!v || !*v) return 0;
    uint64_t r;
    if (!gexi_env_parse_max_segsize(v, phys_bytes, ranks_on_host, &r)) return r;
    /* a typo must not leave the job running with the default bound */
    gexi_fatal("environment variable GASNET_MAX_SEGSIZE='%s' is not a size such as 4GB/P, "
               "0.85/H or 2G (below 2^64 bytes)", v);
}
