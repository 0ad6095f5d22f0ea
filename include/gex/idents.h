/*
 * gex/idents.h: the identification strings a GASNet program carries, in the
 * "$Keyword: value $" form of RCS idents that `ident` and `strings | grep`
 * find (README-gasnet-user; launchers of runtimes built on GASNet read
 * $GASNetConduitName$ and $GASNetThreadModel$ from an executable before
 * starting it).  GASNet links them in from its static library; GEX's
 * libraries are shared, so gasnetex.h defines them in the client itself.
 * Every translation unit that includes gasnetex.h emits the same weak
 * definitions, and the link keeps one of each.
 *
 * gexi_client_conduit_ident is also how a program tells libgex-core which
 * conduit it was built for: present only when the build named a conduit
 * (a conduit's fragment passes -DGASNET_CONDUIT_<NAME>), it is read at
 * gex_Client_Init (docs/compatibility.md, "Conduit identity").
 *
 * Included by gasnetex.h; never include it directly.
 */
#ifndef GEX_IDENTS_H
#define GEX_IDENTS_H
#if !defined(GEXI_BUILDING_GEX) && !defined(GEX_NO_IDENTS) && defined(__GNUC__)

#define GEXI_IDENT(sym, text) \
    GEXI_IDENT_LINKAGE const char sym[] __attribute__((__weak__, __used__)) = text

#ifdef __cplusplus
#define GEXI_IDENT_LINKAGE extern "C"
#else
#define GEXI_IDENT_LINKAGE
#endif

#ifdef GEXI_CONDUIT_BOUND
GEXI_IDENT(gexi_client_conduit_ident, "$GASNetConduitName: " GASNET_CONDUIT_NAME_STR " $");
#else
GEXI_IDENT(gexi_ident_conduit_default, "$GASNetConduitName: " GASNET_CONDUIT_NAME_STR " $");
#endif
GEXI_IDENT(gexi_ident_thread_model, "$GASNetThreadModel: GASNET_" GEXI_THREAD_MODEL_STR " $");
GEXI_IDENT(gexi_ident_config, "$GASNetConfig: (libgex) " GASNET_CONFIG_STRING " $");
GEXI_IDENT(gexi_ident_segment, "$GASNetSegment: GASNET_SEGMENT_FAST $");
GEXI_IDENT(gexi_ident_api_version, "$GASNetAPIVersion: " GEXI_STR(GASNET_SPEC_VERSION_MAJOR) " $");
GEXI_IDENT(gexi_ident_ex_api_version,
           "$GASNetEXAPIVersion: " GEXI_STR(GEX_SPEC_VERSION_MAJOR) "." GEXI_STR(GEX_SPEC_VERSION_MINOR) " $");
GEXI_IDENT(gexi_ident_core_name, "$GASNetCoreLibraryName: " GASNET_CORE_NAME_STR " $");
GEXI_IDENT(gexi_ident_core_version, "$GASNetCoreLibraryVersion: " GASNET_CORE_VERSION_STR " $");
GEXI_IDENT(gexi_ident_extended_name, "$GASNetExtendedLibraryName: " GASNET_EXTENDED_NAME_STR " $");
GEXI_IDENT(gexi_ident_extended_version,
           "$GASNetExtendedLibraryVersion: " GASNET_EXTENDED_VERSION_STR " $");
GEXI_IDENT(gexi_ident_system_tuple, "$GASNetSystemTuple: " GASNETT_SYSTEM_TUPLE " $");
GEXI_IDENT(gexi_ident_pshm, "$GASNetPSHM: posix $");
GEXI_IDENT(gexi_ident_release, "$GASNetReleaseVersion: " GEXI_RELEASE_CONFIG_STR " $");
GEXI_IDENT(gexi_ident_implementation, "$GEXVersion: " GEX_PACKAGE_VERSION_STR " $");

#undef GEXI_IDENT_LINKAGE
#undef GEXI_IDENT
#endif
#endif /* GEX_IDENTS_H */
