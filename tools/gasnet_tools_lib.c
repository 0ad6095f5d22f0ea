/*
 * gasnet_tools_lib.c: the whole of libgasnet_tools-seq.a and
 * libgasnet_tools-par.a.  GEX's gasnet_tools.h is self-contained (every tool
 * is a macro or a static inline function), so these archives exist only so
 * that link lines written for GASNet's tools-only distribution
 * (README-tools: -lgasnet_tools-par) keep working.  Compiling the header here
 * in both modes also keeps it building with GEX's own warning flags.
 */
#include <gasnet_tools.h>

#if defined(GASNETT_THREAD_SAFE)
GASNETT_IDENT(gexi_gasnet_tools_par_ident, "$GEXTools: par " GEX_PACKAGE_VERSION_STR " $");
#else
GASNETT_IDENT(gexi_gasnet_tools_seq_ident, "$GEXTools: seq " GEX_PACKAGE_VERSION_STR " $");
#endif
