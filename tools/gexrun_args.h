/*
 * gexrun_args.h: gexrun's command line (gexrun_args.c), apart from the
 * launcher so tests/fuzz/fuzz_gexrun.c can run the parser on arbitrary
 * argument vectors without starting a job.
 */
#ifndef GEXRUN_ARGS_H
#define GEXRUN_ARGS_H

#define EXIT_USAGE    2

struct options {
    unsigned nranks;          /* 0 until -n is seen */
    const char *conduit;      /* NULL: leave GEX_CONDUIT alone */
    double timeout;           /* seconds, 0: none */
    char **argv;              /* program and its arguments */
};

/* Fills `o` from argv (argv[argc] is NULL); `timeout` is GEX_RUN_TIMEOUT's
 * value (NULL: unset), which --timeout overrides.  Returns -1 to go on and
 * start o->argv, or the exit status for main (help, version, usage error,
 * each already printed). */
int gexrun_parse_args(int argc, char **argv, const char *timeout, struct options *o);

#endif /* GEXRUN_ARGS_H */
