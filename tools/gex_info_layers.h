/* gex_info_layers.h: gex-info's report of the loaded layers and the conduit
 * plug-ins (gex_info_layers.c). */
#ifndef GEX_INFO_LAYERS_H
#define GEX_INFO_LAYERS_H
#include <stdio.h>
/* Prints a table (json = 0) or a JSON object.  conduit and dispatch: the
 * running job's conduit and gexi_describe_layers(), or NULL outside a job. */
void gexinfo_print_layers(FILE *out, int json, const char *conduit, const char *dispatch);
#endif
