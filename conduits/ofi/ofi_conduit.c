/*
 * ofi_conduit.c: the ofi conduit's plug-in face: the one exported entry
 * point, the ops table, configuration from GEX_OFI_* variables, the choice
 * of libfabric provider and interface, endpoint set-up and the exchange of
 * endpoint names, and memory registration (ofi_am.c moves the messages).
 * The plug-in never links libgex-core: all it needs arrives in struct
 * gex_host_services at init (include/gex/conduit.h).
 *
 * Provider.  FI_PROVIDER, when set, is libfabric's own filter and we take
 * what it leaves.  Otherwise we ask for "tcp;ofi_rxm", then "sockets",
 * then anything offering reliable datagrams.  Capabilities are asked for
 * in decreasing order (multi-receive and RMA, multi-receive, plain
 * messages), always with send-after-send ordering when offered.
 *
 * Interface.  A provider lists one fabric per network interface.  We take
 * GEX_OFI_IFACE's when set; else, when every rank runs on this host and
 * FI_TCP_IFACE / FI_SOCKETS_IFACE are unset, the loopback interface ("lo"),
 * so single-host jobs (tests, CI) never touch a real network; else the
 * provider's first (IPv4 preferred).
 *
 * Collective set-up.  Every rank walks through every collective step even
 * after a local failure (it contributes a failure status instead), so one
 * rank's failure becomes an error on all of them rather than a hang.
 */
#include "ofi_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "host_identity.h"
#include "layer_ident.h"

GEXI_CONDUIT_IDENT("ofi");

#define GEXC_OFI_HOST_1_0_SIZE \
    (offsetof(struct gex_host_services, backoff) + sizeof(void (*)(void)))
#define GEXC_OFI_CAPS_1_0_SIZE \
    (offsetof(struct gex_conduit_caps, am_max_long_reply) + sizeof(size_t))

/* ---- Configuration ---- */

/* Reads a size (gex_conduit_parse_size) into *val_p
 * (dflt when unset).  Logs and returns EINVAL when unreadable or outside
 * [lo, hi]. */
static int gexc_ofi_env_size(struct gex_conduit *c, const char *name, uint64_t dflt, uint64_t lo,
                             uint64_t hi, uint64_t *val_p)
{
    const char *s = c->host.getenv(name);
    *val_p = dflt;
    if (!s || !*s) return GEX_CONDUIT_OK;
    uint64_t v;
    if (gex_conduit_parse_size(s, &v)) goto bad;   /* the grammar of docs/environment.md */
    if (v < lo || v > hi) {
        c->host.log(0, "ofi conduit: %s=%s must be between %llu and %llu", name, s,
                    (unsigned long long)lo, (unsigned long long)hi);
        return GEX_CONDUIT_EINVAL;
    }
    *val_p = v;
    return GEX_CONDUIT_OK;
bad:
    c->host.log(0, "ofi conduit: %s=\"%s\" is not a size (expected a number with an optional "
                "K, M, G or T suffix)", name, s);
    return GEX_CONDUIT_EINVAL;
}

/* yes/no/auto variable: 1, 0, or -1 for auto. */
static int gexc_ofi_env_tristate(struct gex_conduit *c, const char *name, int *val_p)
{
    const char *s = c->host.getenv(name);
    *val_p = -1;
    if (!s || !*s || !strcasecmp(s, "auto")) return GEX_CONDUIT_OK;
    if (!strcasecmp(s, "yes") || !strcmp(s, "1")) *val_p = 1;
    else if (!strcasecmp(s, "no") || !strcmp(s, "0")) *val_p = 0;
    else {
        c->host.log(0, "ofi conduit: %s=\"%s\" must be auto, yes or no", name, s);
        return GEX_CONDUIT_EINVAL;
    }
    return GEX_CONDUIT_OK;
}

struct gexc_ofi_config {
    uint64_t max_medium, max_long, credits, tx_bufs, rx_bufs, rx_buf_size, rx_pool, budget;
    int multi_recv;      /* -1 auto */
    int shm_long;        /* -1 auto (= yes) */
    uint64_t rma_piece;  /* GEX_OFI_RMA_PIECE */
    int rma_piece_set;   /* ... given by the user */
    uint64_t rma_inflight; /* GEX_OFI_RMA_INFLIGHT (0: no window) */
    uint64_t long_rma_min; /* GEX_OFI_LONG_RMA_MIN (0: off) */
    int long_rma;        /* GEX_OFI_LONG_RMA: -1 auto (= yes when the provider has RMA) */
    const char *iface;   /* GEX_OFI_IFACE or NULL */
};

static int gexc_ofi_configure(struct gex_conduit *c, struct gexc_ofi_config *cfg)
{
    int rc;
    if ((rc = gexc_ofi_env_size(c, "GEX_OFI_MAX_MEDIUM", GEXC_OFI_MAX_MEDIUM_DEFAULT,
                                GEXC_OFI_MAX_MEDIUM_MIN, GEXC_OFI_MAX_MEDIUM_MAX,
                                &cfg->max_medium)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_MAX_LONG", GEXC_OFI_MAX_LONG_DEFAULT, 512,
                                GEXC_OFI_MAX_LONG_MAX, &cfg->max_long)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_CREDITS", GEXC_OFI_CREDITS_DEFAULT, 1,
                                GEXC_OFI_CREDITS_MAX, &cfg->credits)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_TX_BUFS", GEXC_OFI_TX_BUFS_DEFAULT, 2, 1u << 16,
                                &cfg->tx_bufs)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_RX_BUFS", GEXC_OFI_RX_BUFS_DEFAULT, 2, 1024,
                                &cfg->rx_bufs)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_RX_BUF_SIZE", GEXC_OFI_RX_BUF_SIZE_DEFAULT, 4096,
                                (uint64_t)1 << 30, &cfg->rx_buf_size)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_RX_POOL", GEXC_OFI_RX_POOL_DEFAULT, 2, 1u << 16,
                                &cfg->rx_pool)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_POLL_BUDGET", GEXC_OFI_POLL_BUDGET_DEFAULT, 1,
                                1u << 20, &cfg->budget)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_RMA_PIECE", GEXC_OFI_RMA_PIECE_DEFAULT, 8,
                                (uint64_t)1 << 40, &cfg->rma_piece)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_RMA_INFLIGHT", GEXC_OFI_RMA_INFLIGHT_DEFAULT, 0,
                                (uint64_t)1 << 40, &cfg->rma_inflight)) ||
        (rc = gexc_ofi_env_size(c, "GEX_OFI_LONG_RMA_MIN", 0, 0, (uint64_t)1 << 40,
                                &cfg->long_rma_min)) ||
        (rc = gexc_ofi_env_tristate(c, "GEX_OFI_LONG_RMA", &cfg->long_rma)) ||
        (rc = gexc_ofi_env_tristate(c, "GEX_OFI_MULTI_RECV", &cfg->multi_recv)) ||
        (rc = gexc_ofi_env_tristate(c, "GEX_OFI_SHM_LONG", &cfg->shm_long)))
        return rc;
    const char *piece = c->host.getenv("GEX_OFI_RMA_PIECE");
    cfg->rma_piece_set = piece && *piece;
    cfg->max_medium &= ~(uint64_t)7;   /* pieces of Longs stay 8-aligned */
    if (cfg->max_long < cfg->max_medium) cfg->max_long = cfg->max_medium;
    cfg->iface = c->host.getenv("GEX_OFI_IFACE");
    if (cfg->iface && !*cfg->iface) cfg->iface = NULL;
    return GEX_CONDUIT_OK;
}

/* ---- Provider choice ---- */

/* This host, as system.c identifies it (libgex-core/host_identity.h). */
static uint64_t gexc_ofi_host_id(struct gex_conduit *c)
{
    return gexi_host_identity(c->host.getenv("GEX_HOST_ID"));
}

static struct fi_info *gexc_ofi_hints(struct gex_conduit *c, const char *prov, uint64_t caps,
                                      int ordered, int manual)
{
    struct fi_info *h = fi_allocinfo();
    if (!h) return NULL;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = caps;
    h->mode = FI_CONTEXT;
    if (ordered) {
        h->tx_attr->msg_order = FI_ORDER_SAS;
        h->rx_attr->msg_order = FI_ORDER_SAS;
    }
    /* what this conduit can cope with */
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                              FI_MR_ENDPOINT;
    h->domain_attr->threading = c->thread_safe ? FI_THREAD_SAFE : FI_THREAD_DOMAIN;
    /* We poll anyway; a provider's own progress thread (sockets) only adds
     * latency and competes for the cores. */
    if (manual) h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    if (prov) {
        h->fabric_attr->prov_name = strdup(prov);
        if (!h->fabric_attr->prov_name) {
            fi_freeinfo(h);
            return NULL;
        }
    }
    return h;
}

/* Ranks of the job all on this host?  (collective)  Also decides the idle
 * waits (ofi_am.c, gexc_ofi_poll): where this host runs more ranks than it
 * has CPUs, a rank that spins or yields while it waits keeps the CPU from
 * the rank whose answer it waits for, and every round trip then costs
 * scheduler time slices; asleep on the completion queues' fds it frees the
 * CPU and the message wakes it.  With a CPU per rank spinning is faster
 * (and a CQ with a wait fd costs a signal per completion), so
 * GEX_OFI_IDLE_WAIT=yes/no, default (auto) yes only when oversubscribed
 * or when the host is already busy (1-minute load average at least 1.5 per
 * CPU), and on ofi_rxm only (gexc_ofi_init).  idle_wait 2: forced. */
static int gexc_ofi_single_host(struct gex_conduit *c, int *single_p)
{
    uint64_t mine = gexc_ofi_host_id(c);
    uint64_t *all = calloc(c->n, sizeof *all);
    *single_p = 0;
    if (!all) return GEX_CONDUIT_ENOMEM;
    if (c->host.exchange(&mine, sizeof mine, all) != 0) {
        free(all);
        c->host.log(0, "ofi conduit: the bootstrap all-gather failed");
        return GEX_CONDUIT_EIO;
    }
    int single = 1;
    gex_Rank_t on_host = 0;
    for (gex_Rank_t r = 0; r < c->n; r++) {
        single &= all[r] == mine;
        on_host += all[r] == mine;
    }
    free(all);
    *single_p = single;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double load = 0;   /* a host already busy with other work starves waiters alike */
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1) load = 0;
        fclose(f);
    }
    c->idle_wait = c->n > 1 && ncpu > 0 &&
                   ((long)on_host > ncpu || load >= 1.5 * (double)ncpu);
    c->idle_need = GEXC_OFI_IDLE_POLLS;
    const char *v = c->host.getenv("GEX_OFI_IDLE_WAIT");
    if (v && *v && strcasecmp(v, "auto")) {
        if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "y")) c->idle_wait = 2;
        else if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "n")) c->idle_wait = 0;
        else /* a typo must not run silently with auto (docs/environment.md) */
            c->host.fatal("ofi conduit: environment variable GEX_OFI_IDLE_WAIT='%s' is not "
                          "yes, no or auto", v);
    }
    return GEX_CONDUIT_OK;
}

/* Score of one fabric entry: higher is better, < 0 unusable. */
static int gexc_ofi_score(const struct fi_info *i, const char *iface, int want_lo)
{
    const char *dom = i->domain_attr && i->domain_attr->name ? i->domain_attr->name : "";
    if (iface) return strcmp(dom, iface) == 0 ? 2 + (i->addr_format == FI_SOCKADDR_IN) : -1;
    int s = i->addr_format == FI_SOCKADDR_IN ? 1 : 0;
    if (want_lo && !strcmp(dom, "lo")) s += 2;
    return s;
}

/* Picks the provider, capabilities and interface; *info_p gets our own copy. */
static int gexc_ofi_choose(struct gex_conduit *c, const struct gexc_ofi_config *cfg, int single,
                           struct fi_info **info_p)
{
    static const char *const prefs[] = { "tcp;ofi_rxm", "sockets", NULL };
    const int prov_env = getenv("FI_PROVIDER") && *getenv("FI_PROVIDER");
    const int want_lo = single && !cfg->iface && !getenv("FI_TCP_IFACE") &&
                        !getenv("FI_SOCKETS_IFACE");
    const uint64_t caps_try[] = { FI_MSG | FI_MULTI_RECV | FI_RMA | FI_ATOMIC,
                                  FI_MSG | FI_MULTI_RECV | FI_RMA, FI_MSG | FI_MULTI_RECV,
                                  FI_MSG | FI_RMA | FI_ATOMIC, FI_MSG | FI_RMA, FI_MSG };
    const size_t first_caps = cfg->multi_recv == 0 ? 3 : 0;
    const size_t nprov = prov_env ? 1 : sizeof prefs / sizeof prefs[0];

    for (size_t p = 0; p < nprov; p++) {
        const char *prov = prov_env ? NULL : prefs[p];
        for (int attempt = 0; attempt < 4; attempt++) {
            const int manual = !(attempt & 1), ordered = !(attempt & 2);
            for (size_t k = first_caps; k < sizeof caps_try / sizeof caps_try[0]; k++) {
                if (cfg->multi_recv == 1 && !(caps_try[k] & FI_MULTI_RECV)) continue;
                struct fi_info *hints = gexc_ofi_hints(c, prov, caps_try[k], ordered, manual);
                struct fi_info *list = NULL;
                if (!hints) return GEX_CONDUIT_ENOMEM;
                int rc = fi_getinfo(GEXC_OFI_FI_VERSION, NULL, NULL, 0, hints, &list);
                fi_freeinfo(hints);
                if (rc || !list) continue;
                const struct fi_info *best = NULL;
                int best_score = -1;
                for (const struct fi_info *i = list; i; i = i->next) {
                    int s = gexc_ofi_score(i, cfg->iface, want_lo);
                    if (s > best_score) {
                        best = i;
                        best_score = s;
                    }
                }
                if (!best) {
                    fi_freeinfo(list);
                    continue;   /* GEX_OFI_IFACE not offered by this provider */
                }
                *info_p = fi_dupinfo(best);
                fi_freeinfo(list);
                if (!*info_p) return GEX_CONDUIT_ENOMEM;
                return GEX_CONDUIT_OK;
            }
        }
    }
    c->host.log(0, "ofi conduit: no libfabric provider offers reliable datagram endpoints%s%s%s "
                "(FI_PROVIDER=%s)", cfg->iface ? " on interface " : "",
                cfg->iface ? cfg->iface : "", cfg->iface ? " (GEX_OFI_IFACE)" : "", getenv("FI_PROVIDER") ? getenv("FI_PROVIDER")
                                                                       : "unset: tried tcp;ofi_rxm, "
                                                                         "sockets, any");
    return GEX_CONDUIT_ENOTSUP;
}

/* ---- Endpoint set-up ---- */

static int gexc_ofi_fail(struct gex_conduit *c, const char *what, int rc)
{
    c->host.log(0, "ofi conduit: rank %u: %s: %s", (unsigned)c->me, what, gexc_ofi_strerror(rc));
    return GEX_CONDUIT_EIO;
}

static int gexc_ofi_reg_local(struct gex_conduit *c, void *buf, size_t len, uint64_t access,
                              struct fid_mr **mr_p, void **desc_p)
{
    *mr_p = NULL;
    *desc_p = NULL;
    if (!(c->info->domain_attr->mr_mode & FI_MR_LOCAL)) return GEX_CONDUIT_OK;
    int rc = fi_mr_reg(c->domain, buf, len, access, 0, c->next_key++, 0, mr_p, NULL);
    if (rc) return gexc_ofi_fail(c, "registering message buffers", rc);
    if (c->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(*mr_p, &c->ep->fid, 0)) || (rc = fi_mr_enable(*mr_p)))
            return gexc_ofi_fail(c, "binding message buffers to the endpoint", rc);
    }
    *desc_p = fi_mr_desc(*mr_p);
    return GEX_CONDUIT_OK;
}

/* Opens fabric, domain, address vector, queues and endpoint, and posts the
 * receive buffers.  Everything opened is closed by gexc_ofi_free. */
static int gexc_ofi_open(struct gex_conduit *c, const struct gexc_ofi_config *cfg)
{
    struct fi_info *info = c->info;
    int rc;
    if ((rc = fi_fabric(info->fabric_attr, &c->fabric, NULL)))
        return gexc_ofi_fail(c, "fi_fabric", rc);
    if ((rc = fi_domain(c->fabric, info, &c->domain, NULL)))
        return gexc_ofi_fail(c, "fi_domain", rc);
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE, .count = c->n };
    if ((rc = fi_av_open(c->domain, &av_attr, &c->av, NULL)))
        return gexc_ofi_fail(c, "fi_av_open", rc);
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE,
                                  .size = info->tx_attr->size };
    if (c->idle_wait) {   /* queues with wait fds (gexc_ofi_single_host), if the provider can */
        cq_attr.wait_obj = FI_WAIT_FD;
        if (fi_cq_open(c->domain, &cq_attr, &c->txcq, NULL) == 0 &&
            fi_control(&c->txcq->fid, FI_GETWAIT, &c->txfd) == 0) {
            cq_attr.size = info->rx_attr->size;
            if (fi_cq_open(c->domain, &cq_attr, &c->rxcq, NULL) != 0 ||
                fi_control(&c->rxcq->fid, FI_GETWAIT, &c->rxfd) != 0) {
                if (c->rxcq) fi_close(&c->rxcq->fid);
                c->rxcq = NULL;
            }
        }
        if (!c->rxcq) {
            if (c->txcq) fi_close(&c->txcq->fid);
            c->txcq = NULL;
            c->rxfd = c->txfd = -1;
            c->idle_wait = 0;
            c->host.log(2, "ofi conduit: provider %s has no completion queues with wait fds; "
                        "no idle waits", c->prov_name);
        }
        cq_attr.wait_obj = FI_WAIT_NONE;
        cq_attr.size = info->tx_attr->size;
    }
    if (!c->txcq && (rc = fi_cq_open(c->domain, &cq_attr, &c->txcq, NULL)))
        return gexc_ofi_fail(c, "fi_cq_open (send)", rc);
    cq_attr.size = info->rx_attr->size;
    if (!c->rxcq && (rc = fi_cq_open(c->domain, &cq_attr, &c->rxcq, NULL)))
        return gexc_ofi_fail(c, "fi_cq_open (receive)", rc);
    if ((rc = fi_endpoint(c->domain, info, &c->ep, NULL)))
        return gexc_ofi_fail(c, "fi_endpoint", rc);
    if ((rc = fi_ep_bind(c->ep, &c->av->fid, 0)) ||
        (rc = fi_ep_bind(c->ep, &c->txcq->fid, FI_TRANSMIT)) ||
        (rc = fi_ep_bind(c->ep, &c->rxcq->fid, FI_RECV)))
        return gexc_ofi_fail(c, "fi_ep_bind", rc);
    if ((rc = fi_enable(c->ep))) return gexc_ofi_fail(c, "fi_enable", rc);

    c->multi_recv = (info->caps & FI_MULTI_RECV) && cfg->multi_recv != 0;
    if (c->multi_recv) {
        size_t min = c->msg_max;
        if ((rc = fi_setopt(&c->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min,
                            sizeof min))) {
            c->host.log(1, "ofi conduit: FI_OPT_MIN_MULTI_RECV refused (%s): using single-message "
                        "receive buffers", gexc_ofi_strerror(rc));
            c->multi_recv = 0;
        }
    }
    size_t rx_size = c->multi_recv ? (size_t)cfg->rx_buf_size : c->msg_max;
    if (c->multi_recv && rx_size < 4 * c->msg_max) rx_size = 4 * c->msg_max;
    rx_size = gexc_ofi_align8(rx_size);
    c->nrx = c->multi_recv ? (unsigned)cfg->rx_bufs : (unsigned)cfg->rx_pool;
    if (!c->multi_recv && c->nrx > info->rx_attr->size && info->rx_attr->size >= 2)
        c->nrx = (unsigned)info->rx_attr->size;

    /* message buffers */
    /* 64-aligned slots: a negotiated payload (ofi_np.c) sits 16-aligned in
     * its message, so in memory too */
    const size_t tx_slot = (c->msg_max + 63) & ~(size_t)63;
    c->ntx = (unsigned)cfg->tx_bufs;
    if (c->ntx > info->tx_attr->size && info->tx_attr->size >= 2)
        c->ntx = (unsigned)info->tx_attr->size;
    c->tx_mem_size = tx_slot * c->ntx;
    c->rx_mem_size = rx_size * c->nrx;
    c->tx_mem = aligned_alloc(4096, (c->tx_mem_size + 4095) & ~(size_t)4095);
    c->rx_mem = aligned_alloc(4096, (c->rx_mem_size + 4095) & ~(size_t)4095);
    c->txbufs = calloc(c->ntx, sizeof *c->txbufs);
    c->rx = calloc(c->nrx, sizeof *c->rx);
    c->scratch = aligned_alloc(64, (c->msg_max + 63) & ~(size_t)63);
    if (!c->tx_mem || !c->rx_mem || !c->txbufs || !c->rx || !c->scratch) {
        c->host.log(0, "ofi conduit: out of memory for %zu + %zu bytes of message buffers",
                    c->tx_mem_size, c->rx_mem_size);
        return GEX_CONDUIT_ENOMEM;
    }
    if ((rc = gexc_ofi_reg_local(c, c->tx_mem, c->tx_mem_size, FI_SEND, &c->tx_mr,
                                 &c->tx_mr_desc)) ||
        (rc = gexc_ofi_reg_local(c, c->rx_mem, c->rx_mem_size, FI_RECV, &c->rx_mr,
                                 &c->rx_mr_desc)))
        return rc;
    for (unsigned i = 0; i < c->ntx; i++) {
        c->txbufs[i].data = c->tx_mem + (size_t)i * tx_slot;
        c->txbufs[i].next = c->tx_free;
        c->tx_free = &c->txbufs[i];
    }
    c->tx_nfree = c->ntx;
    for (unsigned i = 0; i < c->nrx; i++) {
        c->rx[i].data = c->rx_mem + (size_t)i * rx_size;
        c->rx[i].size = rx_size;
        if ((rc = gexc_ofi_post_rx(c, i))) return rc;
    }
    return GEX_CONDUIT_OK;
}

/* One rank's contribution to the address exchange. */
struct gexc_ofi_card {
    int32_t status;
    uint32_t namelen;
    uint64_t prov_hash;
    uint64_t msg_max;
    char name[GEXC_OFI_NAME_MAX];
};

/* Exchanges endpoint names and statuses; fills the address vector.
 * Collective; returns the job-wide verdict for this rank. */
static int gexc_ofi_connect(struct gex_conduit *c, int st)
{
    struct gexc_ofi_card mine, *all = calloc(c->n, sizeof *all);
    memset(&mine, 0, sizeof mine);
    if (!all && !st) st = GEX_CONDUIT_ENOMEM;
    if (!st) {
        size_t len = sizeof mine.name;
        int rc = fi_getname(&c->ep->fid, mine.name, &len);
        if (rc) st = gexc_ofi_fail(c, "fi_getname", rc);
        else mine.namelen = (uint32_t)len;
        mine.prov_hash = gexi_host_fnv1a(0xcbf29ce484222325ull, c->prov_name);
        mine.msg_max = c->msg_max;
    }
    mine.status = st;
    if (!all) {
        /* still take part, with a throw-away buffer per round */
        struct gexc_ofi_card *tmp = malloc(sizeof mine * (size_t)c->n);
        if (tmp) c->host.exchange(&mine, sizeof mine, tmp);
        else c->host.barrier();
        free(tmp);
        return st;
    }
    if (c->host.exchange(&mine, sizeof mine, all) != 0) {
        c->host.log(0, "ofi conduit: the bootstrap all-gather failed");
        free(all);
        return st ? st : GEX_CONDUIT_EIO;
    }
    for (gex_Rank_t r = 0; !st && r < c->n; r++) {
        if (all[r].status) {
            c->host.log(1, "ofi conduit: rank %u failed to open its endpoint (error %d); see its "
                        "messages", (unsigned)r, (int)all[r].status);
            st = GEX_CONDUIT_EIO;
        } else if (all[r].prov_hash != mine.prov_hash || all[r].msg_max != mine.msg_max) {
            c->host.log(0, "ofi conduit: rank %u chose another provider or message size than "
                        "rank %u (%s, %llu bytes): set FI_PROVIDER and GEX_OFI_MAX_MEDIUM the "
                        "same on every rank", (unsigned)r, (unsigned)c->me, c->prov_name,
                        (unsigned long long)c->msg_max);
            st = GEX_CONDUIT_EINVAL;
        }
    }
    for (gex_Rank_t r = 0; !st && r < c->n; r++) {
        fi_addr_t a = FI_ADDR_NOTAVAIL;
        int rc = fi_av_insert(c->av, all[r].name, 1, &a, 0, NULL);
        if (rc != 1) {
            c->host.log(0, "ofi conduit: rank %u: inserting rank %u's address: %s", (unsigned)c->me,
                        (unsigned)r, rc < 0 ? gexc_ofi_strerror(rc) : "refused");
            st = GEX_CONDUIT_EIO;
        }
        c->peers[r].addr = a;
    }
    free(all);
    /* agree once more: address insertion can fail locally */
    int32_t s32 = st, *sts = calloc(c->n, sizeof *sts);
    if (!sts || c->host.exchange(&s32, sizeof s32, sts) != 0) {
        free(sts);
        return st ? st : GEX_CONDUIT_EIO;
    }
    for (gex_Rank_t r = 0; !st && r < c->n; r++)
        if (sts[r]) st = GEX_CONDUIT_EIO;
    free(sts);
    return st;
}

static void gexc_ofi_close(struct fid *f)
{
    if (f) fi_close(f);
}

static void gexc_ofi_free(struct gex_conduit *c)
{
    if (!c) return;
    for (struct gexc_ofi_mr *r = c->mrs, *next; r; r = next) {
        next = r->next;
        gexc_ofi_close(&r->mr->fid);
        free(r);
    }
    gexc_ofi_rma_free(c);
    if (c->ep) gexc_ofi_close(&c->ep->fid);
    if (c->tx_mr) gexc_ofi_close(&c->tx_mr->fid);
    if (c->rx_mr) gexc_ofi_close(&c->rx_mr->fid);
    if (c->txcq) gexc_ofi_close(&c->txcq->fid);
    if (c->rxcq) gexc_ofi_close(&c->rxcq->fid);
    if (c->av) gexc_ofi_close(&c->av->fid);
    if (c->domain) gexc_ofi_close(&c->domain->fid);
    if (c->fabric) gexc_ofi_close(&c->fabric->fid);
    if (c->info) fi_freeinfo(c->info);
    free(c->tx_mem);
    free(c->rx_mem);
    free(c->txbufs);
    free(c->rx);
    free(c->scratch);
    for (int k = 0; k < 2; k++) {
        for (struct gexc_ofi_asm *a = k ? c->asm_free : c->asm_list, *next; a; a = next) {
            next = a->next;
            free(a);
        }
    }
    free(c->peers);
    free(c->credit_q);
    pthread_mutex_destroy(&c->txlock);
    pthread_mutex_destroy(&c->txcq_lock);
    pthread_mutex_destroy(&c->mr_lock);
    pthread_mutex_destroy(&c->op_lock);
    free(c);
}

/* ---- Ops ---- */

static int gexc_ofi_init(const struct gex_host_services *host, struct gex_conduit **c_p,
                         struct gex_conduit_caps *caps)
{
    if (!host || !c_p || !caps) return GEX_CONDUIT_EINVAL;
    const int can_log = host->struct_size >= offsetof(struct gex_host_services, log) +
                        sizeof host->log && host->log;
    if (host->struct_size < GEXC_OFI_HOST_1_0_SIZE) {
        if (can_log)
            host->log(0, "ofi conduit: host services of %u bytes predate conduit ABI 1.0 "
                      "(%zu bytes)", (unsigned)host->struct_size, GEXC_OFI_HOST_1_0_SIZE);
        return GEX_CONDUIT_EINVAL;
    }
    if (host->abi_major != GEX_CONDUIT_ABI_MAJOR || !host->deliver_am || !host->fatal ||
        !host->getenv || !host->barrier || !host->exchange || !host->peer_local_addr ||
        !host->backoff || host->jobsize == 0 || host->jobrank >= host->jobsize) {
        if (can_log)
            host->log(0, "ofi conduit: unusable host services (ABI %u, conduit ABI %u, rank %u "
                      "of %u, or a missing service)", (unsigned)host->abi_major,
                      GEX_CONDUIT_ABI_MAJOR, (unsigned)host->jobrank, (unsigned)host->jobsize);
        return GEX_CONDUIT_EINVAL;
    }
    if (!can_log) return GEX_CONDUIT_EINVAL;
    if (caps->struct_size != 0 && caps->struct_size < GEXC_OFI_CAPS_1_0_SIZE) {
        host->log(0, "ofi conduit: caps struct of %u bytes predates conduit ABI 1.0 (%zu bytes)",
                  (unsigned)caps->struct_size, GEXC_OFI_CAPS_1_0_SIZE);
        return GEX_CONDUIT_EINVAL;
    }
    struct gex_conduit *c = calloc(1, sizeof *c);
    if (!c) {
        host->log(0, "ofi conduit: out of memory");
        return GEX_CONDUIT_ENOMEM;
    }
    memcpy(&c->host, host, host->struct_size < sizeof c->host ? host->struct_size : sizeof c->host);
    c->me = host->jobrank;
    c->n = host->jobsize;
    c->thread_safe = host->thread_safe != 0;
    pthread_mutex_init(&c->txlock, NULL);
    pthread_mutex_init(&c->txcq_lock, NULL);
    pthread_mutex_init(&c->mr_lock, NULL);
    pthread_mutex_init(&c->op_lock, NULL);
    atomic_init(&c->rx_busy, 0);
    c->rxfd = c->txfd = -1;
    atomic_init(&c->ops_out, 0);
    atomic_init(&c->rma_queued, 0);
    atomic_init(&c->next_long_id, 1);
    c->next_key = 1;

    /* Every rank takes part in every collective step from here on. */
    struct gexc_ofi_config cfg;
    int single = 0;
    int st = gexc_ofi_configure(c, &cfg);
    int st2 = gexc_ofi_single_host(c, &single);   /* collective */
    if (!st) st = st2;
    if (!st) {
        c->peers = calloc(c->n, sizeof *c->peers);
        c->credit_q = calloc(c->n, sizeof *c->credit_q);
        if (!c->peers || !c->credit_q) {
            c->host.log(0, "ofi conduit: out of memory for %u peers", (unsigned)c->n);
            st = GEX_CONDUIT_ENOMEM;
        }
    }
    if (!st) {
        /* ofi_rxm sends messages above its buffer size (16 KiB by default)
         * by rendezvous, which needs more round trips and the peer's help
         * to complete: make our largest message eager, unless the user
         * chose.  libfabric reads this at its first fi_getinfo. */
        char sz[32];
        snprintf(sz, sizeof sz, "%zu", (size_t)(gexc_ofi_payload_off(GEXC_OFI_K_LONG,
                 GEXC_OFI_MAX_ARGS) + cfg.max_medium + 256));
        setenv("FI_OFI_RXM_BUFFER_SIZE", sz, 0);
        st = gexc_ofi_choose(c, &cfg, single, &c->info);
    }
    if (!st) {
        const struct fi_info *i = c->info;
        snprintf(c->prov_name, sizeof c->prov_name, "%s", i->fabric_attr->prov_name);
        c->max_medium = (size_t)cfg.max_medium;
        c->chunk = c->max_medium;
        c->msg_max = gexc_ofi_payload_off(GEXC_OFI_K_LONG, GEXC_OFI_MAX_ARGS) + c->max_medium;
        if (c->msg_max > i->ep_attr->max_msg_size) {
            c->host.log(0, "ofi conduit: provider %s carries at most %zu bytes per message; lower "
                        "GEX_OFI_MAX_MEDIUM", c->prov_name, i->ep_attr->max_msg_size);
            st = GEX_CONDUIT_EINVAL;
        }
        c->max_long = (size_t)cfg.max_long;
        c->max_long_reply = c->chunk;
        c->stack_max = GEXC_OFI_STACK_MSG;
        c->poll_budget = (unsigned)cfg.budget;
        c->credits_init = (uint32_t)cfg.credits;
        c->credit_threshold = (c->credits_init + 1) / 2;
        c->use_shm_long = cfg.shm_long != 0;
        /* rxm progresses the whole endpoint from either queue */
        c->progress_rx = strstr(c->prov_name, "ofi_rxm") == NULL;
        /* Idle waits by default only on ofi_rxm, whose wait set holds its
         * sockets: sockets (manual progress) signals its queues' fds only
         * from progress, which our reads make, so a sleeping poll sat out its
         * whole timeout (testsmall at 4 ranks 1.6x slower).  =yes forces. */
        if (c->idle_wait == 1 && c->progress_rx) c->idle_wait = 0;
        for (gex_Rank_t r = 0; r < c->n; r++) c->peers[r].credits = c->credits_init;
        /* one-sided operations (ofi_rma.c) */
        const uint64_t mm = i->domain_attr->mr_mode;
        c->has_rma = (i->caps & FI_RMA) != 0;
        c->has_amo = c->has_rma && (i->caps & FI_ATOMIC) != 0;
        c->mr_virt = (mm & FI_MR_VIRT_ADDR) != 0;
        c->mr_local = (mm & FI_MR_LOCAL) != 0;
        c->rma_piece = (size_t)cfg.rma_piece;
        if (c->rma_piece > i->ep_attr->max_msg_size) c->rma_piece = i->ep_attr->max_msg_size;
        c->long_rma_piece = c->rma_piece;
        if (!cfg.rma_piece_set) {   /* a Long is one write, as large as the provider takes */
            c->long_rma_piece = (size_t)1 << 30;
            if (c->long_rma_piece > i->ep_attr->max_msg_size)
                c->long_rma_piece = i->ep_attr->max_msg_size;
        }
        c->rma_window = (size_t)cfg.rma_inflight;
        /* Longs by RMA: by default those that would otherwise go in pieces */
        c->long_rma_min = 0;
        if (c->has_rma && cfg.long_rma != 0)
            c->long_rma_min = cfg.long_rma_min ? (size_t)cfg.long_rma_min : c->chunk + 1;
        c->rsegs = calloc(c->n, sizeof *c->rsegs);
        c->rmaq = calloc(c->n, sizeof *c->rmaq);
        if (!c->rsegs || !c->rmaq) st = GEX_CONDUIT_ENOMEM;
    }
    if (!st) st = gexc_ofi_open(c, &cfg);
    st = gexc_ofi_connect(c, st);   /* collective */
    if (!st) st = gexc_ofi_connect_all(c);   /* collective: every rank got here */
    if (st) {
        gexc_ofi_free(c);
        return st;
    }

    struct gex_conduit_caps mine;
    memset(&mine, 0, sizeof mine);
    mine.struct_size = sizeof mine;
    mine.am_max_args = GEXC_OFI_MAX_ARGS;
    mine.flags = GEX_CONDUIT_CAP_IMMEDIATE | GEX_CONDUIT_CAP_NPAM_MEDIUM |
                 GEX_CONDUIT_CAP_NPAM_LONG;   /* ofi_np.c */
    if (c->has_rma) mine.flags |= GEX_CONDUIT_CAP_RMA;
    if (c->has_amo) mine.flags |= GEX_CONDUIT_CAP_AMO;
    if (c->long_rma_min) mine.flags |= GEX_CONDUIT_CAP_AM_LONG_RMA;
    mine.am_max_medium = c->max_medium;
    mine.am_max_long_request = c->max_long;
    mine.am_max_long_reply = c->max_long_reply;
    size_t give = caps->struct_size && caps->struct_size < sizeof mine ? caps->struct_size
                                                                        : sizeof mine;
    mine.struct_size = (uint32_t)give;
    memcpy(caps, &mine, give);

    c->host.log(2, "ofi conduit: rank %u of %u, provider %s on %s (%s), %s receive buffers "
                "%u x %zu bytes, %u send buffers, credits %u, MaxMedium %zu, "
                "MaxLong %zu (replies %zu), %s, RMA %s, atomics %s", (unsigned)c->me, (unsigned)c->n, c->prov_name,
                c->info->domain_attr->name ? c->info->domain_attr->name : "?",
                c->info->fabric_attr->name ? c->info->fabric_attr->name : "?",
                c->multi_recv ? "multi-receive" : "single-message", c->nrx,
                c->nrx ? c->rx[0].size : 0, c->ntx, (unsigned)c->credits_init,
                c->max_medium, c->max_long, c->max_long_reply, c->thread_safe ? "thread-safe" : "single-threaded",
                c->has_rma ? (c->mr_virt ? "yes (virtual addresses)" : "yes (offsets)") : "no",
                c->has_amo ? "yes" : "no");
    if (c->long_rma_min)
        c->host.log(2, "ofi conduit: AM Long requests of %zu bytes and more go by RMA into "
                    "published segments", c->long_rma_min);
    if (c->has_rma)
        c->host.log(2, "ofi conduit: puts and gets in pieces of %zu bytes, %zu bytes in flight "
                    "per peer (0: no limit)", c->rma_piece, c->rma_window);
    *c_p = c;
    return GEX_CONDUIT_OK;
}

static void gexc_ofi_fini(struct gex_conduit *c)
{
    gexc_ofi_free(c);
}

/* Registers [addr, addr+len) for remote access when the provider offers RMA
 * (the key is what a peer names it by); without RMA there is nothing to
 * register and the key is 0. */
static int gexc_ofi_mem_register(struct gex_conduit *c, void *addr, size_t len, uint64_t *key_p)
{
    if (key_p) *key_p = 0;
    if (!(c->info->caps & FI_RMA) || !len) return GEX_CONDUIT_OK;
    struct gexc_ofi_mr *r = calloc(1, sizeof *r);
    if (!r) return GEX_CONDUIT_ENOMEM;
    int rc = gexc_ofi_mr_reg(c, addr, len,
                             FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE, &r->mr);
    if (rc) {
        free(r);
        c->host.log(0, "ofi conduit: registering %zu bytes at %p: %s", len, addr,
                    gexc_ofi_strerror(rc));
        return rc == -FI_ENOMEM ? GEX_CONDUIT_ENOMEM : GEX_CONDUIT_EIO;
    }
    r->key = fi_mr_key(r->mr);
    r->addr = addr;
    r->len = len;
    pthread_mutex_lock(&c->mr_lock);
    r->next = c->mrs;
    c->mrs = r;
    pthread_mutex_unlock(&c->mr_lock);
    if (key_p) *key_p = r->key;
    return GEX_CONDUIT_OK;
}

static int gexc_ofi_mem_deregister(struct gex_conduit *c, uint64_t key)
{
    if (!(c->info->caps & FI_RMA)) return GEX_CONDUIT_OK;
    pthread_mutex_lock(&c->mr_lock);
    for (struct gexc_ofi_mr **pp = &c->mrs; *pp; pp = &(*pp)->next) {
        if ((*pp)->key == key) {
            struct gexc_ofi_mr *r = *pp;
            *pp = r->next;
            pthread_mutex_unlock(&c->mr_lock);
            int rc = fi_close(&r->mr->fid);
            free(r);
            return rc ? GEX_CONDUIT_EIO : GEX_CONDUIT_OK;
        }
    }
    pthread_mutex_unlock(&c->mr_lock);
    return GEX_CONDUIT_EINVAL;
}

static const struct gex_conduit_ops gexc_ofi_ops = {
    .abi_major = GEX_CONDUIT_ABI_MAJOR,
    .struct_size = sizeof(struct gex_conduit_ops),
    .name = "ofi",
    .init = gexc_ofi_init,
    .fini = gexc_ofi_fini,
    .am_request = gexc_ofi_am_request,
    .am_reply = gexc_ofi_am_reply,
    .poll = gexc_ofi_poll,
    .mem_register = gexc_ofi_mem_register,
    .mem_deregister = gexc_ofi_mem_deregister,
    /* negotiated-payload Mediums in the send buffers (ABI 1.1, ofi_np.c);
     * Longs stay with libgex-am's reference code, and per-endpoint queues
     * (ABI 1.2 ep_open/ep_close/poll_ep) are not offered */
    .am_prepare = gexc_ofi_am_prepare,
    .am_commit = gexc_ofi_am_commit,
    .am_cancel = gexc_ofi_am_cancel,
    .seg_publish = gexc_ofi_seg_publish,
    .rma_put = gexc_ofi_rma_put,
    .rma_get = gexc_ofi_rma_get,
    .amo_query = gexc_ofi_amo_query,
    .amo = gexc_ofi_amo,
};

/* The plug-in's only exported symbol.  Declared through the ABI's typedef so
 * that a signature drift fails to compile. */
__attribute__((visibility("default"))) gex_conduit_entry_fn gex_conduit_entry_v1;
const struct gex_conduit_ops *gex_conduit_entry_v1(void)
{
    return &gexc_ofi_ops;
}
