/*
 * ucx_conduit.c: the ucx conduit's set-up and tear-down (docs/ucx.md): one
 * UCP context and worker per process, every rank's worker address
 * exchanged through the bootstrap at init, endpoints to peers created at
 * the first message to each.  Which UCX transports carry the messages
 * (shared memory, TCP, InfiniBand, ...) is UCX's choice, steered by its own
 * environment (UCX_TLS, UCX_NET_DEVICES).
 */
#include "ucx_internal.h"
#include <ucs/config/global_opts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "layer_ident.h"

GEXI_CONDUIT_IDENT("ucx");

#define GEXC_UCX_HOST_1_0_SIZE \
    (offsetof(struct gex_host_services, backoff) + sizeof(void (*)(void)))
#define GEXC_UCX_CAPS_1_0_SIZE \
    (offsetof(struct gex_conduit_caps, am_max_long_reply) + sizeof(size_t))

/* A size setting (gex_conduit_parse_size's grammar) within [lo, hi]. */
static int gexc_ucx_env_size(struct gex_conduit *c, const char *name, size_t dflt, size_t lo,
                             size_t hi, size_t *out)
{
    const char *v = c->host.getenv(name);
    *out = dflt;
    if (!v || !*v) return GEX_CONDUIT_OK;
    uint64_t x;
    if (gex_conduit_parse_size(v, &x) != 0 || x < lo || x > hi) {
        c->host.log(0, "ucx conduit: %s='%s' is not a size from %zu to %zu", name, v, lo, hi);
        return GEX_CONDUIT_EINVAL;
    }
    *out = (size_t)x;
    return GEX_CONDUIT_OK;
}

/* A yes/no setting: unset or empty gives dflt; anything but 1/0, y/n,
 * yes/no ends the job (every rank reads the same value, so all of them
 * stop here alike). */
static int gexc_ucx_env_yesno(struct gex_conduit *c, const char *name, int dflt)
{
    const char *v = c->host.getenv(name);
    if (!v || !*v) return dflt;
    if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "y")) return 1;
    if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "n")) return 0;
    c->host.fatal("ucx conduit: environment variable %s='%s' is not yes or no", name, v);
    return dflt; /* not reached */
}

static void gexc_ucx_free(struct gex_conduit *c)
{
    if (c->worker) {
        gexc_ucx_lock(c);
        c->closing = 1;
        gexc_ucx_rma_free(c);   /* keys before the endpoints they were unpacked on */
        /* Force-close: at the end of a job peers may already be gone, and a
         * flush would wait for them. */
        for (gex_Rank_t r = 0; c->eps && r < c->n; r++) {
            if (!c->eps[r]) continue;
            ucp_request_param_t p;
            memset(&p, 0, sizeof p);
            p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
            p.flags = UCP_EP_CLOSE_FLAG_FORCE;
            ucs_status_ptr_t req = ucp_ep_close_nbx(c->eps[r], &p);
            if (req && !UCS_PTR_IS_ERR(req)) gexc_ucx_wait(c, req);
            c->eps[r] = NULL;
        }
        gexc_ucx_drop_queue(c);
        gexc_ucx_unlock(c);
        ucp_worker_destroy(c->worker);
    }
    if (c->ctx) ucp_cleanup(c->ctx);
    free(c->eps);
    free(c->imm_ok);
    free(c->cred);
    free(c->owed);
    free(c->rkeys);
    free(c->segs);
    free(c->addrs);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->deliver_lock);
    free(c);
}

/* Every rank's worker address, addr_len bytes apart (collective: two
 * all-gathers, the lengths and then the addresses padded to the longest).
 * A rank that failed before takes part with length 0, so that every rank
 * learns of the failure instead of waiting for it. */
static int gexc_ucx_exchange_addresses(struct gex_conduit *c, int st)
{
    ucp_address_t *mine = NULL;
    size_t len = 0;
    if (!st) {
        ucs_status_t us = ucp_worker_get_address(c->worker, &mine, &len);
        if (us != UCS_OK) {
            c->host.log(0, "ucx conduit: ucp_worker_get_address: %s", ucs_status_string(us));
            st = GEX_CONDUIT_EIO;
        }
    }
    uint64_t my_len = st ? 0 : (uint64_t)len, *lens = calloc(c->n, sizeof *lens);
    if (!lens) c->host.fatal("ucx conduit: out of memory for %u address lengths", (unsigned)c->n);
    if (c->host.exchange(&my_len, sizeof my_len, lens) != 0 && !st) st = GEX_CONDUIT_EIO;
    size_t maxlen = 1;
    gex_Rank_t failed = c->n;
    for (gex_Rank_t r = 0; r < c->n; r++) {
        if (lens[r] == 0 && failed == c->n) failed = r;
        if (lens[r] > maxlen) maxlen = (size_t)lens[r];
    }
    free(lens);
    if (failed < c->n && !st) {
        c->host.log(0, "ucx conduit: rank %u could not start UCX", (unsigned)failed);
        st = GEX_CONDUIT_EIO;
    }
    unsigned char *pad = calloc(1, maxlen);
    c->addrs = calloc(c->n, maxlen);
    if (!pad || !c->addrs)
        c->host.fatal("ucx conduit: out of memory for %u addresses of %zu bytes", (unsigned)c->n,
                      maxlen);
    if (mine) memcpy(pad, mine, len);
    if (c->host.exchange(pad, maxlen, c->addrs) != 0 && !st) st = GEX_CONDUIT_EIO;
    c->addr_len = maxlen;
    free(pad);
    if (mine) ucp_worker_release_address(c->worker, mine);
    return st;
}

static int gexc_ucx_open_worker(struct gex_conduit *c);

static int gexc_ucx_open(struct gex_conduit *c)
{
    /* UCX logs its own view of every failure (a connection refused by a
     * peer that has left, an endpoint timeout) as "UCX ERROR" lines; GEX
     * reports the failures that matter itself, and a rank whose peer left
     * because the job is ending must leave quietly (gexc_ucx_comm_failed).
     * So unless the user chose a level, UCX prints only its fatal errors. */
    const char *lvl = getenv("UCX_LOG_LEVEL");
    if (!lvl || !*lvl) (void)ucs_global_opts_set_value("LOG_LEVEL", "fatal");
    /* Over TCP UCX has no one-sided transport: puts and gets travel as its
     * own messages of at most one TCP segment buffer each (8 KiB by
     * default), each a send, a receive and a completion, so a 2 MiB put
     * became 256 of them (0.3-0.6 GB/s on loopback).  256 KiB buffers move
     * it in 8 and run testlarge 2-3x faster (docs/ucx.md).  The buffers come
     * from pools that grow with the messages in flight.  Both sides must
     * agree, so only when the user set neither.  UCX reads these from the
     * environment when it opens its transports (ucp_worker_create); they are
     * removed again once the worker exists. */
    const char *tx = getenv("UCX_TCP_TX_SEG_SIZE"), *rx = getenv("UCX_TCP_RX_SEG_SIZE");
    const int set_seg = (!tx || !*tx) && (!rx || !*rx) &&
                        !setenv("UCX_TCP_TX_SEG_SIZE", GEXC_UCX_TCP_SEG, 1) &&
                        !setenv("UCX_TCP_RX_SEG_SIZE", GEXC_UCX_TCP_SEG, 1);
    int rc = gexc_ucx_open_worker(c);
    if (set_seg) {
        unsetenv("UCX_TCP_TX_SEG_SIZE");
        unsetenv("UCX_TCP_RX_SEG_SIZE");
    }
    return rc;
}

static int gexc_ucx_open_worker(struct gex_conduit *c)
{
    ucp_config_t *config;
    ucs_status_t us = ucp_config_read(NULL, NULL, &config);
    if (us != UCS_OK) {
        c->host.log(0, "ucx conduit: ucp_config_read: %s", ucs_status_string(us));
        return GEX_CONDUIT_EIO;
    }
    ucp_params_t p;
    memset(&p, 0, sizeof p);
    p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
    p.features = UCP_FEATURE_AM | (c->idle_wait ? UCP_FEATURE_WAKEUP : 0) | (c->has_rma ? UCP_FEATURE_RMA : 0) |
                 (c->has_amo ? UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 : 0);
    p.estimated_num_eps = c->n;
    us = ucp_init(&p, config, &c->ctx);
    ucp_config_release(config);
    if (us != UCS_OK) {
        c->ctx = NULL;
        c->host.log(0, "ucx conduit: ucp_init: %s", ucs_status_string(us));
        return GEX_CONDUIT_EIO;
    }
    ucp_worker_params_t wp;
    memset(&wp, 0, sizeof wp);
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;   /* the conduit's lock serializes */
    us = ucp_worker_create(c->ctx, &wp, &c->worker);
    if (us != UCS_OK) {
        c->worker = NULL;
        c->host.log(0, "ucx conduit: ucp_worker_create: %s", ucs_status_string(us));
        return GEX_CONDUIT_EIO;
    }
    if (c->idle_wait && ucp_worker_get_efd(c->worker, &c->efd) != UCS_OK) c->efd = -1;
    ucp_worker_attr_t wa;
    memset(&wa, 0, sizeof wa);
    wa.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
    us = ucp_worker_query(c->worker, &wa);
    c->max_header = us == UCS_OK ? wa.max_am_header : 0;
    if (c->max_header < sizeof(struct gexc_ucx_hdr)) {
        c->host.log(0, "ucx conduit: UCP allows AM headers of %zu bytes; the conduit needs %zu",
                    c->max_header, sizeof(struct gexc_ucx_hdr));
        return GEX_CONDUIT_ENOTSUP;
    }
    return gexc_ucx_am_setup(c);
}

/* Idle waits (ucx_am.c, gexc_ucx_poll): a rank that finds nothing to do
 * for GEXC_UCX_IDLE_POLLS polls in a row sleeps on the worker's event fd
 * (at most GEXC_UCX_IDLE_MS) until a message arrives.  Where ranks outnumber
 * the host's CPUs, a waiting rank that spins or yields keeps the CPU from
 * the rank whose answer it waits for, and every put, get or AM round trip
 * then costs scheduler time slices; asleep in the kernel it frees the CPU
 * and is woken by the message itself.  With a CPU per rank spinning is
 * faster, and UCX's wake-up support slows its shared-memory transports, so:
 * GEX_UCX_IDLE_WAIT=yes/no, default (auto) yes only when this host runs
 * more ranks than it has CPUs or is already busy with other work (1-minute
 * load average at least 1.5 per CPU: the same starvation, from other
 * processes).  Collective: every rank takes part in one exchange (host
 * names), whatever failed before. */
static void gexc_ucx_choose_idle_wait(struct gex_conduit *c)
{
    char name[256] = "";
    (void)gethostname(name, sizeof name - 1);
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *q = name; *q; q++) h = (h ^ (uint8_t)*q) * 0x100000001b3ull;
    uint64_t *all = calloc(c->n, sizeof *all);
    if (!all) c->host.fatal("ucx conduit: out of memory for %u host names", (unsigned)c->n);
    gex_Rank_t on_host = 0;
    if (c->host.exchange(&h, sizeof h, all) == 0)
        for (gex_Rank_t r = 0; r < c->n; r++) on_host += all[r] == h;
    free(all);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double load = 0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1) load = 0;
        fclose(f);
    }
    c->idle_wait = c->n > 1 && ncpu > 0 && ((long)on_host > ncpu || load >= 1.5 * (double)ncpu);
    c->idle_need = GEXC_UCX_IDLE_POLLS;
    const char *v = c->host.getenv("GEX_UCX_IDLE_WAIT");
    if (v && *v && strcasecmp(v, "auto")) {
        if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "y")) c->idle_wait = 1;
        else if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "n")) c->idle_wait = 0;
        else /* a typo must not run silently with auto (docs/environment.md) */
            c->host.fatal("ucx conduit: environment variable GEX_UCX_IDLE_WAIT='%s' is not "
                          "yes, no or auto", v);
    }
}

static int gexc_ucx_init(const struct gex_host_services *host, struct gex_conduit **c_p,
                         struct gex_conduit_caps *caps)
{
    if (!host || !c_p || !caps) return GEX_CONDUIT_EINVAL;
    const int can_log = host->struct_size >= offsetof(struct gex_host_services, log) +
                        sizeof host->log && host->log;
    if (host->struct_size < GEXC_UCX_HOST_1_0_SIZE || host->abi_major != GEX_CONDUIT_ABI_MAJOR ||
        !host->deliver_am || !host->fatal || !host->getenv || !host->barrier ||
        !host->exchange || !host->backoff || host->jobsize == 0 ||
        host->jobrank >= host->jobsize) {
        if (can_log)
            host->log(0, "ucx conduit: unusable host services (%u bytes, ABI %u, rank %u of %u, "
                      "or a missing service)", (unsigned)host->struct_size,
                      (unsigned)host->abi_major, (unsigned)host->jobrank,
                      (unsigned)host->jobsize);
        return GEX_CONDUIT_EINVAL;
    }
    if (!can_log) return GEX_CONDUIT_EINVAL;
    if (caps->struct_size != 0 && caps->struct_size < GEXC_UCX_CAPS_1_0_SIZE) {
        host->log(0, "ucx conduit: caps struct of %u bytes predates conduit ABI 1.0 (%zu bytes)",
                  (unsigned)caps->struct_size, GEXC_UCX_CAPS_1_0_SIZE);
        return GEX_CONDUIT_EINVAL;
    }
    struct gex_conduit *c = calloc(1, sizeof *c);
    if (!c) {
        host->log(0, "ucx conduit: out of memory");
        return GEX_CONDUIT_ENOMEM;
    }
    memcpy(&c->host, host, host->struct_size < sizeof c->host ? host->struct_size : sizeof c->host);
    c->me = host->jobrank;
    c->n = host->jobsize;
    c->thread_safe = host->thread_safe != 0;
    c->efd = -1;
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->deliver_lock, NULL);

    /* Every rank takes part in both exchanges, whatever failed before. */
    int st = gexc_ucx_env_size(c, "GEX_UCX_MAX_MEDIUM", GEXC_UCX_MAX_MEDIUM, 512, 1u << 20,
                               &c->max_medium);
    int st2 = gexc_ucx_env_size(c, "GEX_UCX_MAX_LONG", GEXC_UCX_MAX_LONG, 512, 1u << 30,
                                &c->max_long);
    if (!st) st = st2;
    size_t credits;
    st2 = gexc_ucx_env_size(c, "GEX_UCX_CREDITS", GEXC_UCX_CREDITS, 1, 65536, &credits);
    if (!st) st = st2;
    c->credits = (uint32_t)credits;
    c->cost_max = c->credits / 2 ? c->credits / 2 : 1;
    if (!st) {
        c->eps = calloc(c->n, sizeof *c->eps);
        c->imm_ok = calloc(c->n, sizeof *c->imm_ok);
        c->cred = calloc(c->n, sizeof *c->cred);
        c->owed = calloc(c->n, sizeof *c->owed);
        c->rkeys = calloc(c->n, sizeof *c->rkeys);
        c->segs = calloc(c->n, sizeof *c->segs);
        for (gex_Rank_t r = 0; c->cred && r < c->n; r++) c->cred[r] = c->credits;
        if (!c->eps || !c->imm_ok || !c->cred || !c->owed || !c->rkeys || !c->segs) {
            c->host.log(0, "ucx conduit: out of memory for %u peers", (unsigned)c->n);
            st = GEX_CONDUIT_ENOMEM;
        }
    }
    c->has_rma = 1;
    c->has_rma = gexc_ucx_env_yesno(c, "GEX_UCX_RMA", 1);
    /* puts share flushes (ucx_rma.c); 1/yes: one flush per put, to compare */
    c->flush_each = gexc_ucx_env_yesno(c, "GEX_UCX_FLUSH_EACH", 0);
    /* Network atomics are opt-in (docs/ucx.md): where UCX performs them in
     * software (between processes of a host, over TCP) they are slower than
     * libgex-atomics' own AM path; NICs with atomics (InfiniBand) want them. */
    c->has_amo = gexc_ucx_env_yesno(c, "GEX_UCX_AMO", 0) && c->has_rma;
    gexc_ucx_rma_setup(c);
    gexc_ucx_amo_setup(c);
    gexc_ucx_choose_idle_wait(c);
    if (!st) st = gexc_ucx_open(c);
    st = gexc_ucx_exchange_addresses(c, st);
    if (st) {
        gexc_ucx_free(c);
        return st;
    }

    if (caps->struct_size == 0) caps->struct_size = (uint32_t)sizeof *caps;
    caps->am_max_args = GEXC_UCX_MAX_ARGS;
    /* AMs and poll (ABI 1.0), native RMA and atomics (1.2); every other
     * layer's reference code does the rest */
    caps->flags = GEX_CONDUIT_CAP_IMMEDIATE | (c->has_rma ? GEX_CONDUIT_CAP_RMA : 0) |
                  (c->has_amo ? GEX_CONDUIT_CAP_AMO : 0);
    caps->am_max_medium = c->max_medium;
    caps->am_max_long_request = c->max_long;
    caps->am_max_long_reply = c->max_long;
    c->host.log(2, "ucx conduit: rank %u of %u, UCX %s, max medium %zu, max long %zu, "
                "%u credits per peer, %s, idle waits %s", (unsigned)c->me, (unsigned)c->n,
                ucp_get_version_string(), c->max_medium, c->max_long, (unsigned)c->credits,
                c->thread_safe ? "thread-safe" : "single-threaded",
                c->efd >= 0 ? "on" : "off");
    *c_p = c;
    return GEX_CONDUIT_OK;
}

static void gexc_ucx_fini(struct gex_conduit *c)
{
    gexc_ucx_free(c);
}

static const struct gex_conduit_ops gexc_ucx_ops = {
    .abi_major = GEX_CONDUIT_ABI_MAJOR,
    .struct_size = sizeof(struct gex_conduit_ops),
    .name = "ucx",
    .init = gexc_ucx_init,
    .fini = gexc_ucx_fini,
    .am_request = gexc_ucx_am_request,
    .am_reply = gexc_ucx_am_reply,
    .poll = gexc_ucx_poll,
    .mem_register = gexc_ucx_mem_register,
    .mem_deregister = gexc_ucx_mem_deregister,
    /* ABI 1.2 native RMA (ucx_rma.c) and network atomics (ucx_amo.c);
     * negotiated payload and per-EP queues are not offered (NULL):
     * libgex-am's and core's reference paths */
    .seg_publish = gexc_ucx_seg_publish,
    .rma_put = gexc_ucx_rma_put,
    .rma_get = gexc_ucx_rma_get,
    .amo_query = gexc_ucx_amo_query,
    .amo = gexc_ucx_amo,
};

/* The plug-in's only exported symbol. */
__attribute__((visibility("default"))) gex_conduit_entry_fn gex_conduit_entry_v1;
const struct gex_conduit_ops *gex_conduit_entry_v1(void)
{
    return &gexc_ucx_ops;
}
