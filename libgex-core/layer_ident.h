/*
 * layer_ident.h: the identification string every GEX library and conduit
 * plug-in carries, "$GEXLayer: libgex-am 2026.12.0 2:0:1 $" (name, release,
 * libtool version-info) or "$GEXConduit: ucx 2026.12.0 1.2 $" (name,
 * release, conduit ABI major.minor).  gex-info --layers reads them from the
 * files a process has loaded, so an operator sees which release of each
 * layer a mixed installation runs; `ident` and `strings | grep '\$GEX'`
 * read them from files on disk (docs/upgrading.md).
 */
#ifndef GEXI_LAYER_IDENT_H
#define GEXI_LAYER_IDENT_H
#include "gex_versions.h"

/* The file that says GEXI_LAYER_IDENT also holds the constructor that
 * registers its layer, which no other file names.  A static link keeps an
 * archive member only when something needs one of its symbols, so each
 * layer's .pc names this file's anchor (-Wl,-u,gexi_link_anchor_<layer> in
 * Libs.private, docs/building.md).  It is hidden: no shared library exports it. */
#define GEXI_LAYER_IDENT(layer, vi)                                                   \
    __attribute__((__used__)) static const char gexi_layer_ident[] =                  \
        "$GEXLayer: libgex-" #layer " " GEXI_RELEASE_STR " " vi " $";                 \
    __attribute__((__visibility__("hidden"))) const char gexi_link_anchor_##layer = 1

#define GEXI_IDENT_STR2_(x) #x
#define GEXI_IDENT_STR_(x) GEXI_IDENT_STR2_(x)
#define GEXI_CONDUIT_IDENT(name)                                                      \
    __attribute__((__used__)) static const char gexi_conduit_ident[] =                \
        "$GEXConduit: " name " " GEXI_RELEASE_STR " " GEXI_IDENT_STR_(GEX_CONDUIT_ABI_MAJOR) \
        "." GEXI_IDENT_STR_(GEX_CONDUIT_ABI_MINOR) " $"

#endif
