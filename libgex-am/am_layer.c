/*
 * am_layer.c: registers libgex-am with core and binds its dispatch table at
 * client init.  The fixed-payload reference path *is* the conduit's AM
 * send, so bind() points the table at the conduit's ops; later issues add
 * specialized slots (e.g. NP-AM in the smp queue) here, overridable with
 * GEX_FORCE_REFERENCE=am.
 */
#include "am_internal.h"
#include <stdarg.h>

static int unbound_request(struct gex_conduit *c, gex_Rank_t r, const struct gex_conduit_am *m,
                           gex_Flags_t f)
{
    gexi_fatal("AM Request before gex_Client_Init");
}
static int unbound_reply(struct gex_conduit *c, void *ctx, const struct gex_conduit_am *m,
                         gex_Flags_t f)
{
    gexi_fatal("AM Reply before gex_Client_Init");
}

struct gexi_am_impl gexi_am = { unbound_request, unbound_reply, "none", "none" };

void gexi_am_bad_arg(const char *what, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, what);
    vsnprintf(msg, sizeof msg, what, ap);
    va_end(ap);
    gexi_fatal("bad AM argument: %s", msg);
}

static int am_bind(void)
{
    gexi_am.request = gexi_core.ops->am_request;
    gexi_am.reply = gexi_core.ops->am_reply;
    gexi_am.request_from = gexi_am.reply_from = gexi_core.ops->name;
    return GASNET_OK;
}

static const char *am_describe(void)
{
    static char buf[128];
    snprintf(buf, sizeof buf, "request=%s reply=%s", gexi_am.request_from, gexi_am.reply_from);
    return buf;
}

static const struct gexi_layer am_layer = {
    .struct_size = sizeof(struct gexi_layer),
    .name = "am",
    .bind = am_bind,
    .describe = am_describe,
};

__attribute__((constructor)) static void gexi_am_register(void)
{
    gexi_register_layer(&am_layer);
}
