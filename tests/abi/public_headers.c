/*
 * public_headers.c: every installed public header in one translation unit,
 * built with all its types kept in the debug information, so that abidw can
 * record the types clients compile against, including those only inline
 * functions and macros touch, which no library symbol reaches
 * (tests/check-abi-release.sh, "public headers").
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_mk.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <gasnet_tools.h>
#include <gex/conduit.h>

/* Something to export: abidw needs a symbol table to read the object. */
__attribute__((visibility("default"))) int gex_abi_public_headers(void)
{
    return GEX_SPEC_VERSION_MAJOR;
}
