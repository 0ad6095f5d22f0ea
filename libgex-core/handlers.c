/*
 * handlers.c: AM handler tables and delivery.
 *
 * Every EP holds 256 handler slots: [1, GEX_AM_INDEX_BASE) for GEX's own
 * layers (registered once, copied into every EP) and [GEX_AM_INDEX_BASE,
 * 255] for the client (spec: gex_EP_RegisterHandlers).  The conduit calls
 * gexi_deliver_am() for every arriving AM; it builds the token on the stack
 * and runs the handler.
 */
#include "core_internal.h"
#include "handler_call.h"
#include <pthread.h>
#include <string.h>

static struct gexi_handler internal[GEX_AM_INDEX_BASE];
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

/* Depth of handler nesting on this thread: communication other than a
 * Reply is prohibited inside handlers (spec: "Calls from restricted context").
 * Only debug builds maintain it. */
GEXI_EXPORT _Thread_local unsigned gexi_handler_depth;

static int valid_reg_flags(gex_Flags_t f)
{
    gex_Flags_t cat = f & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG);
    gex_Flags_t rr = f & GEX_FLAG_AM_REQREP;
    if (f & ~(GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQREP)) return 0;
    return (cat == GEX_FLAG_AM_SHORT || cat == GEX_FLAG_AM_MEDIUM || cat == GEX_FLAG_AM_LONG ||
            cat == GEX_FLAG_AM_MEDLONG) && rr != 0;
}

/* Installs an entry in a handler slot: the entry first, then the flag that
 * delivering threads check (see struct gexi_handler). */
static void handler_publish(struct gexi_handler *slot, const gex_AM_Entry_t *entry)
{
    slot->entry = *entry;
    atomic_store_explicit(&slot->registered, 1, memory_order_release);
}

GEXI_EXPORT int gexi_register_internal_handler(gex_AM_Index_t index, gex_AM_Fn_t fn,
                                               gex_Flags_t flags, unsigned nargs,
                                               const char *name)
{
    if (index == 0 || index >= GEX_AM_INDEX_BASE || !fn || nargs > 16 || !valid_reg_flags(flags))
        gexi_fatal("bad internal handler registration %u (%s)", index, name ? name : "?");
    pthread_mutex_lock(&reg_lock);
    struct gexi_handler *h = &internal[index];
    if (h->registered && h->entry.gex_fnptr != fn)
        gexi_fatal("internal handler index %u claimed twice (%s, %s)", index,
                   h->entry.gex_name, name);
    handler_publish(h, &(gex_AM_Entry_t){ index, fn, flags, nargs, NULL, name });
    struct gexi_client *c = gexi_core.client;
    if (c) /* EPs created before this registration get it too */
        for (unsigned i = 0; i < atomic_load(&c->n_eps); i++)
            if (c->eps[i]) handler_publish(&c->eps[i]->handlers[index], &h->entry);
    pthread_mutex_unlock(&reg_lock);
    return GASNET_OK;
}

void gexi_install_internal_handlers(struct gexi_ep *ep)
{
    pthread_mutex_lock(&reg_lock);
    memcpy(ep->handlers, internal, sizeof internal);
    pthread_mutex_unlock(&reg_lock);
}

int gex_EP_RegisterHandlers(gex_EP_t ep_h, gex_AM_Entry_t *table, size_t numentries)
{
    struct gexi_ep *ep = gexi_ep_of(ep_h);
    if (!ep || ep->magic != GEXI_MAGIC_EP) GEXI_RETURN_ERR(BAD_ARG, "ep is not a valid endpoint");
    if (numentries && !table) GEXI_RETURN_ERR(BAD_ARG, "table is NULL with numentries %zu",
                                              numentries);
    /* issue 9: registering handlers makes this thread a serialized EP's user */
    gexi_ep_ser_leave(ep, gexi_ep_ser_enter(ep, 1));
    /* Validate everything first so a failed call registers nothing. */
    for (size_t i = 0; i < numentries; i++) {
        const gex_AM_Entry_t *e = &table[i];
        if (e->gex_index != 0 && e->gex_index < GEX_AM_INDEX_BASE)
            GEXI_RETURN_ERR(BAD_ARG, "table[%zu].gex_index %u is below GEX_AM_INDEX_BASE (%u)",
                            i, e->gex_index, GEX_AM_INDEX_BASE);
        if (!e->gex_fnptr) GEXI_RETURN_ERR(BAD_ARG, "table[%zu].gex_fnptr is NULL", i);
        if (e->gex_nargs > 16)
            GEXI_RETURN_ERR(BAD_ARG, "table[%zu].gex_nargs %u > gex_AM_MaxArgs()", i,
                            e->gex_nargs);
        if (!valid_reg_flags(e->gex_flags))
            GEXI_RETURN_ERR(BAD_ARG, "table[%zu].gex_flags 0x%x needs one category and "
                            "REQUEST/REPLY flags", i, (unsigned)e->gex_flags);
        for (size_t j = 0; j < i; j++)
            if (e->gex_index && table[j].gex_index == e->gex_index)
                GEXI_RETURN_ERR(BAD_ARG, "index %u appears twice in table", e->gex_index);
    }
    pthread_mutex_lock(&reg_lock);
    unsigned free_slots = 0;
    for (unsigned idx = GEX_AM_INDEX_BASE; idx < 256; idx++) free_slots += !ep->handlers[idx].registered;
    size_t want_auto = 0;
    for (size_t i = 0; i < numentries; i++) {
        if (table[i].gex_index == 0) { want_auto++; continue; }
        if (ep->handlers[table[i].gex_index].registered) {
            pthread_mutex_unlock(&reg_lock);
            GEXI_RETURN_ERR(BAD_ARG, "handler index %u is already registered on this endpoint",
                            table[i].gex_index);
        }
    }
    if (numentries > free_slots || want_auto > free_slots) {
        pthread_mutex_unlock(&reg_lock);
        GEXI_RETURN_ERR(RESOURCE, "not enough free handler indices (%u free)", free_slots);
    }
    for (size_t i = 0; i < numentries; i++) {
        if (!table[i].gex_index) continue;
        handler_publish(&ep->handlers[table[i].gex_index], &table[i]);
    }
    /* spec: zero-index entries, in table order, take the highest free index. */
    for (size_t i = 0; i < numentries; i++) {
        if (table[i].gex_index) continue;
        unsigned idx = 255;
        while (ep->handlers[idx].registered) idx--;
        table[i].gex_index = (gex_AM_Index_t)idx;
        handler_publish(&ep->handlers[idx], &table[i]);
    }
    pthread_mutex_unlock(&reg_lock);
    return GASNET_OK;
}

void gexi_deliver_am(void *core_ctx, const struct gex_conduit_am *m, void *reply_ctx)
{
    (void)core_ctx;
    struct gexi_client *c = gexi_core.client;
    struct gexi_ep *ep = m->dst_ep < GASNET_MAXEPS ? c->eps[m->dst_ep] : NULL;
    if (GEXI_UNLIKELY(!ep))
        gexi_fatal("AM from rank %u for endpoint %u, which does not exist here",
                   m->src_jobrank, m->dst_ep);
    const struct gexi_handler *h = gexi_handler_for(ep, m->handler);
    if (GEXI_UNLIKELY(!h))
        gexi_fatal("AM from rank %u for handler %u, not registered on endpoint %u",
                   m->src_jobrank, m->handler, m->dst_ep);
    struct gexi_token tok = {
        .reply_ctx = reply_ctx, .src_jobrank = m->src_jobrank, .src_ep = m->src_ep, .ep = ep,
        .entry = &h->entry, .is_req = m->is_request,
        .is_long = m->category == GEX_CONDUIT_AM_LONG, .replied = 0,
    };
    /* Every build: a handler run with another category or argument count
     * than it was registered for reads its arguments from the wrong
     * registers and its payload from nowhere; a few compares per AM are
     * cheap beside that (docs/reliability.md). */
    static const gex_Flags_t cat_flag[3] = { GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM,
                                             GEX_FLAG_AM_LONG };
    if ((h->entry.gex_flags & GEXI_AM_FLAGS_LEGACY) != GEXI_AM_FLAGS_LEGACY &&
        (!(h->entry.gex_flags & cat_flag[m->category]) ||
         !(h->entry.gex_flags & (m->is_request ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY)) ||
         h->entry.gex_nargs != m->nargs))
        gexi_fatal("AM for handler %u ('%s') violates its registration (flags 0x%x nargs %u; got "
                   "category %u %s with %u args)", m->handler,
                   h->entry.gex_name ? h->entry.gex_name : "", (unsigned)h->entry.gex_flags,
                   h->entry.gex_nargs, m->category, m->is_request ? "request" : "reply",
                   m->nargs);
#ifdef GEX_DEBUG
    gexi_handler_depth++;
#endif
    gex_Token_t t = (gex_Token_t)&tok;
    if (m->category == GEX_CONDUIT_AM_SHORT)
        gexi_call_short(h->entry.gex_fnptr, t, m->nargs, m->args);
    else
        gexi_call_medlong(h->entry.gex_fnptr, t, m->payload, m->nbytes, m->nargs, m->args);
#ifdef GEX_DEBUG
    gexi_handler_depth--;
#endif
}
