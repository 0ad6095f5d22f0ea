/*
 * client.c: gex_Client_Init and the client object.  Init order matters:
 * bootstrap (who are we) -> host/nbrhd discovery -> objects -> conduit ->
 * layers bind -> barrier.  Only one client per process is supported, as the
 * spec currently allows ("Currently supports only one call per job").
 */
#include "core_internal.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

GEXI_EXPORT struct gexi_core_state gexi_core = { .struct_size = sizeof(struct gexi_core_state) };

static char jobid[64];
static struct gex_host_services host;
static void *conduit_dl;
/* A failed init is final: the bootstrap has already joined the job. */
static int init_attempted;

/* The spec's pattern for client names.  A name outside it is accepted (see
 * gexi_Client_Init_v1); only NULL and "" are refused. */
static int name_matches_pattern(const char *s)
{
    if (!(s[0] >= 'A' && s[0] <= 'Z') || !s[1]) return 0;
    for (const char *p = s + 1; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return 0;
    return 1;
}

/* The conduit the program was built for (gex/idents.h): defined by the
 * client executable when its build named one, otherwise null.  Default
 * visibility, so the libraries' -fvisibility=hidden does not bind it
 * locally. */
extern const char gexi_client_conduit_ident[] __attribute__((weak, visibility("default")));

/* "$GASNetConduitName: UCX $" -> "ucx"; "" when the program names none. */
static void bound_conduit(char *out, size_t outsz)
{
    out[0] = 0;
    if (!gexi_client_conduit_ident) return;
    const char *p = strchr(gexi_client_conduit_ident, ':');
    if (!p) return;
    p++;
    while (*p == ' ') p++;
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '$' && n + 1 < outsz) {
        char ch = p[n];
        out[n] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
        n++;
    }
    out[n] = 0;
}

/* The conduit identity rule (docs/compatibility.md): a program built for a
 * conduit runs on that conduit and no other, and one built for smp, whose
 * code may assume that every rank shares its memory, runs only when every
 * rank is in this rank's neighbourhood.  Every rank reaches the same
 * verdict (same program, same environment, same job), so the job ends as
 * a whole, at start, with this message. */
static int choose_conduit(const char **name_p)
{
    static char bound[32];
    const char *env = gexi_getenv("GEX_CONDUIT");
    bound_conduit(bound, sizeof bound);
    if (!bound[0]) {
        *name_p = (env && *env) ? env : GEX_DEFAULT_CONDUIT;
        return GASNET_OK;
    }
    if (env && *env && strcmp(env, bound) != 0) {
        if (gexi_core.jobrank == 0)
            gexi_log(0, "this program was built for the %s conduit (its %s-conduit fragment), "
                     "but GEX_CONDUIT=%s asks for another: rebuild it with the %s-conduit "
                     "fragment, or unset GEX_CONDUIT", bound, bound, env, env);
        return GASNET_ERR_RESOURCE;
    }
    if (strcmp(bound, "smp") == 0) {
        gex_Rank_t nbrhd_size = 0, nbrhd_rank = 0, host_size = 0, host_rank = 0;
        gex_System_QueryMyPosition(&nbrhd_size, &nbrhd_rank, &host_size, &host_rank);
        if (nbrhd_size != 1) {
            if (gexi_core.jobrank == 0)
                gexi_log(0, "this program was built for the smp conduit, which needs every rank "
                         "to share memory, but the job's %u ranks form %u shared-memory "
                         "neighbourhoods (GASNET_SUPERNODE_MAXSIZE, GEX_PSHM or several "
                         "hosts): run it on one host with shared memory on, or rebuild it "
                         "with the ofi or ucx conduit fragment",
                         (unsigned)gexi_core.jobsize, (unsigned)nbrhd_size);
            /* Every rank comes here (the layout is the job's), and any rank's
             * failed init ends the job: wait until rank 0 has said why. */
            (void)gexi_bootstrap_barrier();
            return GASNET_ERR_RESOURCE;
        }
    }
    *name_p = bound;
    return GASNET_OK;
}

/* GASNET_PSHM_NODES=N ./prog, GASNet's way of starting an smp-conduit job
 * without a launcher: a program started alone (singleton bootstrap) that
 * will run on smp and finds N > 1 replaces itself by `gexrun -n N prog
 * args`, whose ranks then start normally (they have a launcher).  Returns
 * only if there is nothing to do or the exec failed. */
static int relaunch_pshm_nodes(int *argc, char ***argv)
{
    if (gexi_bootstrap != &gexi_bootstrap_singleton) return GASNET_OK;
    long n = gexi_getenv_int_range("GASNET_PSHM_NODES", 1, 1, GEX_RANK_INVALID - 1);
    if (n <= 1) return GASNET_OK;
    char bound[32];
    const char *env = gexi_getenv("GEX_CONDUIT");
    bound_conduit(bound, sizeof bound);
    const char *conduit = bound[0] ? bound : (env && *env) ? env : GEX_DEFAULT_CONDUIT;
    if (strcmp(conduit, "smp") != 0) return GASNET_OK;   /* GASNet's network conduits ignore it */

    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) GEXI_RETURN_ERR(RESOURCE, "GASNET_PSHM_NODES=%ld: cannot find this program", n);
    exe[len] = 0;
    /* the arguments: the client's argv, else the kernel's copy */
    char **args = argv ? *argv : NULL;
    int nargs = argc ? *argc : 0;
    static char cmdline[65536];
    char *cmd_argv[1024];
    if (!args) {
        FILE *f = fopen("/proc/self/cmdline", "r");
        size_t got = f ? fread(cmdline, 1, sizeof cmdline - 1, f) : 0;
        if (f) fclose(f);
        cmdline[got] = 0;
        nargs = 0;
        for (size_t i = 0; i < got && nargs < 1023; i += strlen(cmdline + i) + 1)
            cmd_argv[nargs++] = cmdline + i;
        args = cmd_argv;
    }
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "%ld", n);
    char **av = calloc((size_t)nargs + 6, sizeof *av);
    if (!av) GEXI_RETURN_ERR(RESOURCE, "out of memory");
    int k = 0;
    av[k++] = "gexrun";
    av[k++] = "-n";
    av[k++] = nbuf;
    av[k++] = "--";
    av[k++] = exe;
    for (int i = 1; i < nargs; i++) av[k++] = args[i];
    av[k] = NULL;
    fflush(NULL);
    execv(GEX_BINDIR "/gexrun", av);
    execvp("gexrun", av);   /* not installed yet (a build tree): the one on PATH */
    free(av);
    GEXI_RETURN_ERR(RESOURCE, "GASNET_PSHM_NODES=%ld: cannot start gexrun (%s/gexrun or PATH)",
                    n, GEX_BINDIR);
}

static int start_conduit(void)
{
    const char *name;
    int crc = choose_conduit(&name);
    if (crc != GASNET_OK) return crc;
    int rc = gexi_conduit_load(name, &gexi_core.ops, &conduit_dl);
    if (rc != GASNET_OK) {
        gexi_log(0, "conduit '%s' not found (GEX_CONDUIT); searched GEX_CONDUIT_PATH, the "
                 "folder of libgex-core and %s/gex", name, GEX_LIBDIR);
        return GASNET_ERR_RESOURCE;
    }
    host = (struct gex_host_services){
        .struct_size = sizeof host,
        .abi_major = GEX_CONDUIT_ABI_MAJOR,
        .jobrank = gexi_core.jobrank,
        .jobsize = gexi_core.jobsize,
        .jobid = jobid,
        .thread_safe = gexi_core.thread_mode != 0,
        .core_ctx = NULL,
        .deliver_am = gexi_deliver_am,
        .log = gexi_log,
        .fatal = gexi_fatal,
        .getenv = gexi_getenv,
        .exchange = gexi_bootstrap_exchange,
        .barrier = gexi_bootstrap_barrier,
        .peer_local_addr = gexi_peer_local_addr,
        .backoff = gexi_backoff,
    };
    gexi_core.caps = (struct gex_conduit_caps){ .struct_size = sizeof gexi_core.caps };
    rc = gexi_core.ops->init(&host, &gexi_core.conduit, &gexi_core.caps);
    if (rc != GEX_CONDUIT_OK) {
        gexi_log(0, "conduit %s failed to initialise (code %d)", gexi_core.ops->name, rc);
        return GASNET_ERR_RESOURCE;
    }
    if (gexi_core.caps.am_max_args < 16 || gexi_core.caps.am_max_medium < 512 ||
        gexi_core.caps.am_max_long_request < 512 || gexi_core.caps.am_max_long_reply < 512) {
        gexi_log(0, "conduit %s reports limits below the spec's minimums", gexi_core.ops->name);
        return GASNET_ERR_RESOURCE;
    }
    return GASNET_OK;
}

static struct gexi_client *new_client(const char *name, gex_Flags_t flags)
{
    struct gexi_client *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->magic = GEXI_MAGIC_CLIENT;
    /* Any length: "[A-Z][A-Z0-9_]+" has no upper bound.  The client lives
     * until the process ends (one per process), so the copy is never freed. */
    snprintf(c->name, sizeof c->name, "%s", name);
    c->full_name = strdup(name);
    if (!c->full_name) {
        free(c);
        return NULL;
    }
    c->flags = flags;
    return c;
}

int gexi_Client_Init_v1(unsigned header_version, int thread_mode, gex_Client_t *client_p,
                        gex_EP_t *ep_p, gex_TM_t *tm_p, const char *clientName, int *argc,
                        char ***argv, gex_Flags_t flags)
{
    unsigned hdr_major = header_version >> 16, hdr_minor = header_version & 0xFFFF;
    if (hdr_major != GEX_ABI_MAJOR || hdr_minor > GEX_ABI_MINOR) {
        fprintf(stderr, "GEX: program was compiled against gasnetex.h ABI %u.%u but "
                "libgex-core provides ABI %u.%u\n", hdr_major, hdr_minor, GEX_ABI_MAJOR,
                GEX_ABI_MINOR);
        return GASNET_ERR_RESOURCE;
    }
    if (!client_p) GEXI_RETURN_ERR(BAD_ARG, "client_p is NULL");
    if (!ep_p) GEXI_RETURN_ERR(BAD_ARG, "ep_p is NULL");
    if (!tm_p) GEXI_RETURN_ERR(BAD_ARG, "tm_p is NULL");
    if (!clientName || !*clientName) GEXI_RETURN_ERR(BAD_ARG, "clientName is NULL or empty");
    if ((argc == NULL) != (argv == NULL))
        GEXI_RETURN_ERR(BAD_ARG, "argc and argv must both be NULL or both non-NULL");
    if (flags & ~(GEX_FLAG_USES_GASNET1 | GEX_FLAG_DEFER_THREADS))
        GEXI_RETURN_ERR(BAD_ARG, "flags 0x%x include bits gex_Client_Init does not accept",
                        (unsigned)flags);
    if (gexi_core.initialized)
        GEXI_RETURN_ERR(RESOURCE, "only one client per process is supported (already '%s')",
                        gexi_core.client->full_name);
    if (init_attempted)
        GEXI_RETURN_ERR(RESOURCE, "a previous gex_Client_Init failed; GEX cannot start again");
    init_attempted = 1;

    gexi_core.thread_mode = thread_mode < 0 ? 0 : thread_mode > 2 ? 2 : thread_mode;
    gexi_freeze_at_startup();
    gexi_core.verbose = gexi_env_bool(getenv("GASNET_VERBOSEENV"));
#ifdef GEX_DEBUG
    gexi_core.verbose = 1;
#endif
    /* "[A-Z][A-Z0-9_]+" is a rule for the client, with no error the spec
     * asks us to return, and GEX does not use the name for anything but
     * gex_Client_QueryName and messages.  GASNet's own tests and clients
     * pass names like "testhello" or "chapel", so other names are accepted;
     * GASNET_VERBOSEENV and debug builds say so, once per job (rank 0: the
     * rank is known only once the bootstrap has started). */
    if (gexi_bootstrap_select() != GASNET_OK) GEXI_RETURN_ERR(RESOURCE, "no bootstrap applies");
    int rc = relaunch_pshm_nodes(argc, argv);
    if (rc != GASNET_OK) return rc;
    rc = gexi_bootstrap->init(&gexi_core.jobrank, &gexi_core.jobsize, jobid, sizeof jobid);
    if (rc != GASNET_OK) {
        gexi_log(0, "bootstrap %s failed to start", gexi_bootstrap->name);
        return rc;
    }
    if (!name_matches_pattern(clientName) && gexi_core.jobrank == 0)
        gexi_log(2, "clientName '%s' does not match [A-Z][A-Z0-9_]+ (spec); accepted",
                 clientName);
    gexi_core.jobid = jobid;
    gexi_env_announce_crash_settings();
    gexi_idle_sleep_read_env();
    gexi_exit_init();
    if ((rc = gexi_system_init()) != GASNET_OK) return rc;

    struct gexi_client *c = new_client(clientName, flags);
    if (!c) GEXI_RETURN_ERR(RESOURCE, "out of memory creating the client");
    gexi_core.client = c;
    if ((rc = gexi_segments_init()) != GASNET_OK) return rc;

    gex_EP_t ep;
    rc = gexi_ep_create(c, GEX_EP_CAPABILITY_ALL, 0, &ep);
    if (rc != GASNET_OK) return rc;
    struct gexi_tm *tm = gexi_tm_new_primordial(c, gexi_ep_of(ep));
    if (!tm) GEXI_RETURN_ERR(RESOURCE, "out of memory creating the primordial team");
    c->primordial_tm = tm;

    if ((rc = start_conduit()) != GASNET_OK) return rc;
    if ((rc = gexi_layers_bind()) != GASNET_OK) return rc;
    if (gexi_core.verbose && gexi_core.jobrank == 0) gexi_report_loaded_layers();
    gexi_core.initialized = 1;
    gexi_quit_signals_install();
    /* spec: implicit barrier before return, so every peer's resources exist. */
    gexi_bootstrap_barrier();

    *client_p = (gex_Client_t)c;
    *ep_p = ep;
    *tm_p = (gex_TM_t)tm;
    return GASNET_OK;
}

/* The plain symbol, for callers that cannot use the header macro (FFI). */
int (gex_Client_Init)(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                      const char *clientName, int *argc, char ***argv, gex_Flags_t flags)
{
    return gexi_Client_Init_v1(GEXI_HEADER_VERSION, 2, client_p, ep_p, tm_p, clientName, argc,
                               argv, flags);
}

gex_Flags_t gex_Client_QueryFlags(gex_Client_t client)
{
    GEXI_CHECK_CLIENT(client);
    return gexi_client_of(client)->flags;
}
const char *gex_Client_QueryName(gex_Client_t client)
{
    GEXI_CHECK_CLIENT(client);
    return gexi_client_of(client)->full_name;
}
void gex_Client_SetCData(gex_Client_t client, const void *val)
{
    GEXI_CHECK_CLIENT(client);
    gexi_client_of(client)->cdata = (void *)val;
}
void *gex_Client_QueryCData(gex_Client_t client)
{
    GEXI_CHECK_CLIENT(client);
    return gexi_client_of(client)->cdata;
}

int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                    const gex_ProgressThreadInfo_t **info_p, gex_Flags_t flags)
{
    if (!count_p) GEXI_RETURN_ERR(BAD_ARG, "count_p is NULL");
    if (!info_p) GEXI_RETURN_ERR(BAD_ARG, "info_p is NULL");
    if (flags) GEXI_RETURN_ERR(BAD_ARG, "flags must be zero (got 0x%x)", (unsigned)flags);
    if (!client || !(gexi_client_of(client)->flags & GEX_FLAG_DEFER_THREADS))
        GEXI_RETURN_ERR(RESOURCE, "client was not initialised with GEX_FLAG_DEFER_THREADS");
    *count_p = 0; /* neither smp nor the reference layers run progress threads */
    *info_p = NULL;
    return GASNET_OK;
}

#include <gasnet.h>
void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                            gex_Segment_t *segment_p)
{
    struct gexi_client *c = gexi_core.client;
    if (client_p) *client_p = (gex_Client_t)c;
    if (endpoint_p) *endpoint_p = c ? (gex_EP_t)c->eps[0] : GEX_EP_INVALID;
    if (tm_p) *tm_p = c ? (gex_TM_t)c->primordial_tm : GEX_TM_INVALID;
    if (segment_p) *segment_p = c && c->eps[0] ? (gex_Segment_t)c->eps[0]->segment
                                               : GEX_SEGMENT_INVALID;
}
