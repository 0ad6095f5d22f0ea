/*
 * env_parse.c: the environment value grammars (env_parse.h).  Every setting
 * that is more than a plain string is read by a function here, so the
 * library and the fuzz harness (tests/fuzz/fuzz_env.c) run the same code.
 */
#include "env_parse.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int gexi_env_bool(const char *v)
{
    if (!v) return 0;
    return !strcmp(v, "1") || !strcasecmp(v, "y") || !strcasecmp(v, "yes");
}

int gexi_env_parse_long(const char *v, long *out)
{
    if (!v || !*v) return -1;
    errno = 0;
    char *end;
    long r = strtol(v, &end, 0);
    if (errno || end == v || *end) return -1;
    *out = r;
    return 0;
}

int gexi_env_rank_listed(const char *list, long rank)
{
    if (!list || !*list || !strcmp(list, "*")) return 1;
    const char *p = list;
    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p) return 0;
        if (*end == '-') {
            p = end + 1;
            hi = strtol(p, &end, 10);
            if (end == p) return 0;
        }
        if (rank >= lo && rank <= hi) return 1;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return 0;
    }
    return 0;
}

int gexi_env_list_has(const char *list, const char *item, const char *all)
{
    if (!list) return 0;
    const size_t n = strlen(item), na = all ? strlen(all) : 0;
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if ((len == n && !strncmp(p, item, n)) || (all && len == na && !strncmp(p, all, na)))
            return 1;
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

int gexi_env_signal_by_name(const char *v)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        { SIGHUP, "HUP" },   { SIGINT, "INT" },   { SIGQUIT, "QUIT" }, { SIGTRAP, "TRAP" },
        { SIGUSR1, "USR1" }, { SIGUSR2, "USR2" }, { SIGPIPE, "PIPE" }, { SIGALRM, "ALRM" },
        { SIGTERM, "TERM" }, { SIGTSTP, "TSTP" }, { SIGTTIN, "TTIN" }, { SIGTTOU, "TTOU" },
        { SIGURG, "URG" },   { SIGXCPU, "XCPU" }, { SIGXFSZ, "XFSZ" }, { SIGVTALRM, "VTALRM" },
        { SIGPROF, "PROF" }, { SIGWINCH, "WINCH" }, { SIGIO, "IO" },   { SIGSYS, "SYS" },
    };
    while (isspace((unsigned char)*v)) v++;
    if (isdigit((unsigned char)*v)) {
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        return !errno && *end == 0 && n > 0 && n < NSIG ? (int)n : 0;
    }
    if (!strncasecmp(v, "SIG", 3)) v += 3;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(v, names[i].name)) return names[i].sig;
    return 0;
}

int gexi_signal_excluded(const char *list, int sig, const char *name)
{
    if (!list || !*list) return 0;
    if (!strcmp(list, "*")) return 1;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        char item[32];
        if (len < sizeof item) {
            memcpy(item, p, len);
            item[len] = 0;
            const char *s = item;
            while (isspace((unsigned char)*s)) s++;
            if (!strncasecmp(s, "SIG", 3)) s += 3;
            if (isdigit((unsigned char)*s) ? atoi(s) == sig : !strcasecmp(s, name + 3)) return 1;
        }
        p += len;
        if (*p == ',') p++;
    }
    return 0;
}

int gexi_env_parse_max_segsize(const char *v, uint64_t phys_bytes, uint32_t ranks_on_host,
                               uint64_t *out)
{
    char *end;
    double d = strtod(v, &end);
    /* "inf" and "nan" are strtod numbers but no size (and UB to convert) */
    if (end == v || !(d >= 0) || d == HUGE_VAL) return -1;
    while (isspace((unsigned char)*end)) end++;
    double bytes;
    uint64_t mult = 0;
    switch (toupper((unsigned char)*end)) {
    case 'B': mult = 1; break;
    case 'K': mult = 1ull << 10; break;
    case 'M': mult = 1ull << 20; break;
    case 'G': mult = 1ull << 30; break;
    case 'T': mult = 1ull << 40; break;
    default: break;
    }
    if (mult) {
        end++;
        if (mult > 1 && toupper((unsigned char)*end) == 'B') end++;
        bytes = d * (double)mult;
    } else if (d <= 1.0) {
        bytes = d * (double)phys_bytes; /* a fraction of physical memory */
    } else {
        bytes = d;                      /* plain bytes */
    }
    while (isspace((unsigned char)*end)) end++;
    int host_wide = 0;
    if (*end == '/') {
        end++;
        while (isspace((unsigned char)*end)) end++;
        if (toupper((unsigned char)*end) == 'H') host_wide = 1;
        else if (toupper((unsigned char)*end) != 'P') return -1;
        end++;
    }
    while (isspace((unsigned char)*end)) end++;
    if (*end) return -1;
    if (host_wide) bytes /= (double)(ranks_on_host ? ranks_on_host : 1);
    /* 2^64 bytes and beyond is no size a machine has: refused like any
     * other unreadable value (converting it would be UB: found by
     * tests/fuzz/fuzz_env.c, "888...8K"). */
    if (!(bytes < 18446744073709551616.0)) return -1;
    *out = bytes < 1.0 ? 0 : (uint64_t)bytes;
    return 0;
}
