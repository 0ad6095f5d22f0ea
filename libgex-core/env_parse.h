/*
 * env_parse.h: the pure parsers behind environment settings (env.c,
 * gasnet1_env.c): text in, value out, no getenv, no logging, no globals.
 * Kept apart so tests/fuzz/fuzz_env.c can compile env_parse.c on its own
 * and feed the exact code the library runs with arbitrary bytes.
 * Self-contained: standard headers only.  Internal (hidden symbols).
 */
#ifndef GEXI_ENV_PARSE_H
#define GEXI_ENV_PARSE_H

#include <stdint.h>

/* A README-gasnet-user "Boolean" setting: true for "1", "y", "yes" (any
 * case); false when unset, for "0", "n", "no" and anything else. */
int gexi_env_bool(const char *v);

/* A whole decimal/octal/hex integer (strtol base 0) into *out: 0, or -1 for
 * an empty, partial or out-of-range value (nothing stored). */
int gexi_env_parse_long(const char *v, long *out);

/* GASNET_BACKTRACE_NODES: "0,2-4,6"; NULL, empty or "*" admits every rank. */
int gexi_env_rank_listed(const char *list, long rank);

/* A comma list (GEX_FORCE_REFERENCE) names item exactly, or names `all`. */
int gexi_env_list_has(const char *list, const char *item, const char *all);

/* "SIGUSR1", "usr1" or a number in [1, NSIG): the signal, 0 if none. */
int gexi_env_signal_by_name(const char *v);

/* GASNET_NO_CATCH_SIGNAL's list (value `list`) names signal sig, called
 * name ("SIGSEGV"), or is "*". */
int gexi_signal_excluded(const char *list, int sig, const char *name);

/* GASNET_MAX_SEGSIZE ("4GB/P", "0.85/H", "1e9"): the per-process limit in
 * *out (0: none), or -1 when unreadable (nothing stored).  A fraction up to
 * 1 means a share of phys_bytes; "/H" divides among ranks_on_host. */
int gexi_env_parse_max_segsize(const char *v, uint64_t phys_bytes, uint32_t ranks_on_host,
                               uint64_t *out);

#endif /* GEXI_ENV_PARSE_H */
