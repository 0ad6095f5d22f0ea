/*
 * layers.c: the registry through which the layers above core plug in.
 * Each layer registers itself from an ELF constructor when its .so loads;
 * gex_Client_Init then calls every layer's bind() once the conduit is up,
 * which is where a layer swaps its reference code for a conduit's
 * specialized code (STYLE.md section 5).  Core never links a layer.
 */
#include "core_internal.h"
#include <string.h>
#include "layer_ident.h"

GEXI_LAYER_IDENT(core, GEXI_VI_CORE);

#define GEXI_MAX_LAYERS 16
static const struct gexi_layer *layers[GEXI_MAX_LAYERS];
static unsigned n_layers;
static int layers_bound;

GEXI_EXPORT void gexi_register_layer(const struct gexi_layer *layer)
{
    for (unsigned i = 0; i < n_layers; i++)
        if (layers[i] == layer || !strcmp(layers[i]->name, layer->name)) return;
    if (n_layers == GEXI_MAX_LAYERS) gexi_fatal("too many layers registered (%s)", layer->name);
    layers[n_layers++] = layer;
    /* A layer dlopen()ed after init still gets bound. */
    if (layers_bound && layer->bind) {
        int rc = layer->bind();
        if (rc != GASNET_OK) gexi_fatal("layer %s failed to bind: %s", layer->name,
                                        gasnet_ErrorName(rc));
    }
}

int gexi_layers_bind(void)
{
    for (unsigned i = 0; i < n_layers; i++) {
        if (!layers[i]->bind) continue;
        int rc = layers[i]->bind();
        if (rc != GASNET_OK) {
            gexi_log(0, "layer %s failed to bind: %s", layers[i]->name, gasnet_ErrorName(rc));
            return rc;
        }
    }
    layers_bound = 1;
    return GASNET_OK;
}

void gexi_layers_fini(void)
{
    for (unsigned i = n_layers; i-- > 0;)
        if (layers[i]->fini) layers[i]->fini();
}

/* "am: request=smp reply=smp; rma: put=reference ..." for gex-info and JSON. */
GEXI_EXPORT const char *gexi_describe_layers(void)
{
    static char buf[2048];
    size_t off = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < n_layers && off < sizeof buf; i++) {
        const char *d = layers[i]->describe ? layers[i]->describe() : "";
        int n = snprintf(buf + off, sizeof buf - off, "%s%s: %s", off ? "; " : "",
                         layers[i]->name, d);
        if (n < 0) break;
        off += (size_t)n;
    }
    return buf;
}
