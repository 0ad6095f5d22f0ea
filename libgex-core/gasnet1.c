/*
 * gasnet1.c: the GASNet-1 calls of gasnet.h that need core state:
 * gasnet_init, gasnet_attach, gasnet_getSegmentInfo, gasnet_getNodeInfo and
 * gasnet_set_waitmode.  Everything else in gasnet.h is a macro or an inline
 * function over the GASNet-EX API.
 *
 * gasnet_init is gex_Client_Init with GEX_FLAG_USES_GASNET1 (spec:
 * "Hybrid/transitional client support"); gasnet_attach is
 * gex_EP_RegisterHandlers on the primordial endpoint plus gex_Segment_Attach
 * on the primordial team, whose implicit barrier makes every rank's handlers
 * registered before any AM can reach them (GASNet-1: attach is collective).
 * The behaviour differences gasnet1_differences.md lists are followed: a
 * zero segsize means one page and minheapoffset is ignored.
 *
 * GASNet-1 handler tables say nothing of a handler's category or argument
 * count, so their entries are marked GEXI_AM_FLAGS_LEGACY, which the
 * debug-build registration check in handlers.c accepts for any AM.
 */
#include "core_internal.h"
#include <gasnet.h>
#include <stdlib.h>
#include <string.h>

static int g1_inited;     /* gasnet_init succeeded */
static int g1_attached;   /* gasnet_attach succeeded */
static _Atomic int g1_waitmode = GASNET_WAIT_SPIN;


int gexi_gasnet_init_v1(unsigned header_version, int thread_mode, int *argc, char ***argv)
{
    if (g1_inited || gexi_core.initialized) {
        /* reported under the name the client called */
        if (gexi_verbose_errors())
            gexi_report_err("gasnet_init", GASNET_ERR_RESOURCE, __FILE__, __LINE__,
                            "GASNet is already initialised (gasnet_init and gex_Client_Init "
                            "may be called once per process, together)");
        return GASNET_ERR_RESOURCE;
    }
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    int rc = gexi_Client_Init_v1(header_version, thread_mode, &client, &ep, &tm, "GASNET1", argc,
                                 argv, GEX_FLAG_USES_GASNET1);
    if (rc != GASNET_OK) return rc;
    g1_inited = 1;
    return GASNET_OK;
}

/* The plain symbol, for callers that cannot use the header macro. */
int (gasnet_init)(int *argc, char ***argv)
{
    return gexi_gasnet_init_v1(GEXI_HEADER_VERSION, 2, argc, argv);
}

/* Registers the GASNet-1 table on ep; on success table[i].index holds the
 * index each entry got (chosen ones included, as GASNet-1 specifies). */
static int register_table(struct gexi_ep *ep, gasnet_handlerentry_t *table, int numentries)
{
    if (numentries == 0) return GASNET_OK;
    gex_AM_Entry_t *entries = calloc((size_t)numentries, sizeof *entries);
    if (!entries) GEXI_RETURN_ERR(RESOURCE, "out of memory for %d handler entries", numentries);
    for (int i = 0; i < numentries; i++) {
        /* A valid placeholder registration, widened below. */
        entries[i] = (gex_AM_Entry_t){ table[i].index, table[i].fnptr,
                                       GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQREP, 0, NULL,
                                       "gasnet_attach" };
    }
    int rc = gex_EP_RegisterHandlers((gex_EP_t)ep, entries, (size_t)numentries);
    if (rc == GASNET_OK) {
        for (int i = 0; i < numentries; i++) {
            table[i].index = entries[i].gex_index;
            /* No AM can use these indices before attach's barrier: peers
             * have not learnt of them yet. */
            ep->handlers[entries[i].gex_index].entry.gex_flags = GEXI_AM_FLAGS_LEGACY;
        }
    }
    free(entries);
    return rc;
}

int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                  uintptr_t minheapoffset)
{
    (void)minheapoffset; /* ignored (gasnet1_differences.md) */
    if (!g1_inited) {
        if (gexi_core.initialized)
            GEXI_RETURN_ERR(NOT_INIT, "gasnet_attach follows gasnet_init; a client started with "
                            "gex_Client_Init attaches with gex_Segment_Attach");
        GEXI_RETURN_ERR(NOT_INIT, "gasnet_init has not been called");
    }
    if (g1_attached) GEXI_RETURN_ERR(RESOURCE, "gasnet_attach may be called once per process");
    if (numentries < 0) GEXI_RETURN_ERR(BAD_ARG, "numentries %d is negative", numentries);
    if (numentries > 0 && !table)
        GEXI_RETURN_ERR(BAD_ARG, "table is NULL with numentries %d", numentries);
    /* A zero-length segment is silently one page (gasnet1_differences.md). */
    if (segsize == 0) segsize = GASNET_PAGESIZE;
    if (segsize % GASNET_PAGESIZE)
        GEXI_RETURN_ERR(BAD_ARG, "segsize %zu is not a multiple of GASNET_PAGESIZE (%d)",
                        (size_t)segsize, GASNET_PAGESIZE);
    if (segsize > gasnet_getMaxLocalSegmentSize())
        GEXI_RETURN_ERR(BAD_ARG, "segsize %zu exceeds gasnet_getMaxLocalSegmentSize() = %zu",
                        (size_t)segsize, (size_t)gasnet_getMaxLocalSegmentSize());

    struct gexi_client *c = gexi_core.client;
    int rc = register_table(c->eps[0], table, numentries);
    if (rc != GASNET_OK) return rc;


    gex_Segment_t seg; /* its barrier ends attach (GASNet-1: collective) */
    rc = gex_Segment_Attach(&seg, (gex_TM_t)c->primordial_tm, segsize);
    if (rc != GASNET_OK) return rc;
    g1_attached = 1;
    return GASNET_OK;
}

/* Owner address and size of rank r's primordial-endpoint segment. */
static void segment_of(gex_Rank_t r, void **addr_p, uintptr_t *size_p)
{
    *addr_p = NULL;
    *size_p = 0;
    if (r == gexi_core.jobrank) {
        const struct gexi_segment *s = gexi_core.client->eps[0]->segment;
        if (s) {
            *addr_p = s->addr;
            *size_p = s->size;
        }
        return;
    }
    const struct gexi_peer_segment *ps = gexi_peer_segment(r, 0);
    if (ps) {
        *addr_p = ps->owneraddr;
        *size_p = ps->size;
    }
}

int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries)
{
    if (!gexi_core.initialized) GEXI_RETURN_ERR(NOT_INIT, "GASNet is not initialised");
    if (!gexi_core.client->eps[0]->segment)
        GEXI_RETURN_ERR(NOT_INIT, "no segment is attached yet (gasnet_attach)");
    if (numentries < 0) GEXI_RETURN_ERR(BAD_ARG, "numentries %d is negative", numentries);
    if (numentries > 0 && !seginfo_table)
        GEXI_RETURN_ERR(BAD_ARG, "seginfo_table is NULL with numentries %d", numentries);
    for (int i = 0; i < numentries; i++) {
        if ((gex_Rank_t)i < gexi_core.jobsize)
            segment_of((gex_Rank_t)i, &seginfo_table[i].addr, &seginfo_table[i].size);
        else
            seginfo_table[i] = (gasnet_seginfo_t){ NULL, 0 };
    }
    return GASNET_OK;
}

int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries)
{
    if (!gexi_core.initialized) GEXI_RETURN_ERR(NOT_INIT, "GASNet is not initialised");
    if (numentries < 0) GEXI_RETURN_ERR(BAD_ARG, "numentries %d is negative", numentries);
    if (numentries > 0 && !nodeinfo_table)
        GEXI_RETURN_ERR(BAD_ARG, "nodeinfo_table is NULL with numentries %d", numentries);
    for (int i = 0; i < numentries; i++) {
        gasnet_nodeinfo_t *ni = &nodeinfo_table[i];
        if ((gex_Rank_t)i >= gexi_core.jobsize) {
            *ni = (gasnet_nodeinfo_t){ 0, 0, 0 };
            continue;
        }
        const gex_Rank_t r = (gex_Rank_t)i;
        gex_Rank_t host, nbrhd;
        gexi_system_rank_position(r, &host, &nbrhd);
        ni->host = host;
        ni->supernode = nbrhd;
        ni->offset = 0;
        const struct gexi_peer_segment *ps = r == gexi_core.jobrank ? NULL : gexi_peer_segment(r, 0);
        if (ps && ps->localaddr)
            ni->offset = (intptr_t)((uintptr_t)ps->localaddr - (uintptr_t)ps->owneraddr);
    }
    return GASNET_OK;
}

int gasnet_set_waitmode(int wait_mode)
{
    if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
        wait_mode != GASNET_WAIT_SPINBLOCK)
        GEXI_RETURN_ERR(BAD_ARG, "wait_mode %d is not GASNET_WAIT_SPIN, _BLOCK or _SPINBLOCK",
                        wait_mode);
    atomic_store(&g1_waitmode, wait_mode);
    return GASNET_OK;
}
