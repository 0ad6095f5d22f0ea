/*
 * gasnet_portable_platform.h: uniform names for the compiler, operating
 * system and CPU architecture a translation unit is compiled for (README-tools,
 * "Portable platform defines"), so tests read
 *     #if PLATFORM_COMPILER_GNU && PLATFORM_OS_LINUX && PLATFORM_ARCH_X86_64
 * gasnet_tools.h includes it; it may also be included on its own, from C or
 * C++, and needs nothing else.
 *
 * For each of COMPILER, OS and ARCH exactly one PLATFORM_<KIND>_<NAME> is
 * defined to 1 (..._UNKNOWN when nothing matched), together with
 * PLATFORM_<KIND>_FAMILYNAME (a bare token) and PLATFORM_<KIND>_NAME (a
 * string).  Also: PLATFORM_COMPILER_VERSION (an integer, larger is newer),
 * PLATFORM_COMPILER_VERSION_STR, PLATFORM_COMPILER_VERSION_{GT,GE,EQ,LT,LE}
 * (maj, min, pat), PLATFORM_COMPILER_C_LANGLVL or _CXX_LANGLVL (the
 * __STDC_VERSION__ or __cplusplus of this compilation; the other one is
 * undefined), PLATFORM_COMPILER_FAMILYID and PLATFORM_COMPILER_ID (GASNet's
 * numbers), PLATFORM_COMPILER_C or _CXX, PLATFORM_COMPILER_IDSTR,
 * PLATFORM_ARCH_32 or PLATFORM_ARCH_64, and
 * PLATFORM_ARCH_LITTLE_ENDIAN or PLATFORM_ARCH_BIG_ENDIAN.
 *
 * The macro names are GASNet's public ones; the detection below is GEX's,
 * from each compiler's documented predefined macros.  Clang and the
 * compilers built on it are tested before GCC because they also define
 * __GNUC__.
 */
#ifndef GASNET_PORTABLE_PLATFORM_H
#define GASNET_PORTABLE_PLATFORM_H

#define GEXI_PP_STR_(x) #x
#define GEXI_PP_STR(x) GEXI_PP_STR_(x)
/* (maj, min, pat) as one comparable integer */
#define GEXI_PP_VERSION(maj, min, pat) (((maj) << 20) | ((min) << 10) | (pat))

/* ---- Compiler ---- */
#if defined(__NVCOMPILER)
#define PLATFORM_COMPILER_NVHPC 1
#define PLATFORM_COMPILER_FAMILYNAME NVHPC
#define PLATFORM_COMPILER_FAMILYID 20
#define PLATFORM_COMPILER_NAME "NVIDIA HPC SDK"
#define PLATFORM_COMPILER_VERSION \
    GEXI_PP_VERSION(__NVCOMPILER_MAJOR__, __NVCOMPILER_MINOR__, __NVCOMPILER_PATCHLEVEL__)
#elif defined(__PGI)
#define PLATFORM_COMPILER_PGI 1
#define PLATFORM_COMPILER_FAMILYNAME PGI
#define PLATFORM_COMPILER_FAMILYID 4
#define PLATFORM_COMPILER_NAME "PGI"
#define PLATFORM_COMPILER_VERSION \
    GEXI_PP_VERSION(__PGIC__, __PGIC_MINOR__, __PGIC_PATCHLEVEL__)
#elif defined(__INTEL_LLVM_COMPILER)
#define PLATFORM_COMPILER_INTEL 1
#define PLATFORM_COMPILER_FAMILYNAME INTEL
#define PLATFORM_COMPILER_FAMILYID 2
#define PLATFORM_COMPILER_NAME "Intel oneAPI"
#define PLATFORM_COMPILER_VERSION \
    GEXI_PP_VERSION(__INTEL_LLVM_COMPILER / 10000, (__INTEL_LLVM_COMPILER / 100) % 100, \
                    __INTEL_LLVM_COMPILER % 100)
#elif defined(__INTEL_COMPILER)
#define PLATFORM_COMPILER_INTEL 1
#define PLATFORM_COMPILER_FAMILYNAME INTEL
#define PLATFORM_COMPILER_FAMILYID 2
#define PLATFORM_COMPILER_NAME "Intel"
#define PLATFORM_COMPILER_VERSION \
    GEXI_PP_VERSION(__INTEL_COMPILER / 100, (__INTEL_COMPILER / 10) % 10, __INTEL_COMPILER % 10)
#elif defined(_CRAYC)
#define PLATFORM_COMPILER_CRAY 1
#define PLATFORM_COMPILER_FAMILYNAME CRAY
#define PLATFORM_COMPILER_FAMILYID 10
#define PLATFORM_COMPILER_NAME "Cray"
#define PLATFORM_COMPILER_VERSION GEXI_PP_VERSION(_RELEASE_MAJOR, _RELEASE_MINOR, 0)
#elif defined(__ibmxl__) || defined(__xlC__)
#define PLATFORM_COMPILER_XLC 1
#define PLATFORM_COMPILER_FAMILYNAME XLC
#define PLATFORM_COMPILER_FAMILYID 5
#define PLATFORM_COMPILER_NAME "IBM XL"
#define PLATFORM_COMPILER_VERSION 0
#elif defined(__clang__)
#define PLATFORM_COMPILER_CLANG 1
#define PLATFORM_COMPILER_FAMILYNAME CLANG
#define PLATFORM_COMPILER_FAMILYID 19
#define PLATFORM_COMPILER_NAME "Clang"
#define PLATFORM_COMPILER_VERSION \
    GEXI_PP_VERSION(__clang_major__, __clang_minor__, __clang_patchlevel__)
#elif defined(__GNUC__)
#define PLATFORM_COMPILER_GNU 1
#define PLATFORM_COMPILER_FAMILYNAME GNU
#define PLATFORM_COMPILER_FAMILYID 1
#define PLATFORM_COMPILER_NAME "GNU"
#define PLATFORM_COMPILER_VERSION \
    GEXI_PP_VERSION(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
#else
#define PLATFORM_COMPILER_UNKNOWN 1
#define PLATFORM_COMPILER_FAMILYNAME UNKNOWN
#define PLATFORM_COMPILER_FAMILYID 0
#define PLATFORM_COMPILER_NAME "unknown"
#define PLATFORM_COMPILER_VERSION 0
#endif
/* FAMILYID numbers each family as GASNet does (clients compare them with
 * values they stored, e.g. in a build record); ID tells C (FAMILYID) from
 * C++ (10000 + FAMILYID). */
#ifdef __cplusplus
#define PLATFORM_COMPILER_ID (10000 + PLATFORM_COMPILER_FAMILYID)
#define PLATFORM_COMPILER_CXX 1
#else
#define PLATFORM_COMPILER_ID PLATFORM_COMPILER_FAMILYID
#define PLATFORM_COMPILER_C 1
#endif
#if defined(__VERSION__)
#define PLATFORM_COMPILER_VERSION_STR __VERSION__
#else
#define PLATFORM_COMPILER_VERSION_STR GEXI_PP_STR(PLATFORM_COMPILER_VERSION)
#endif
#define PLATFORM_COMPILER_VERSION_GT(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION > GEXI_PP_VERSION(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_GE(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION >= GEXI_PP_VERSION(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_EQ(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION == GEXI_PP_VERSION(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LT(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION < GEXI_PP_VERSION(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LE(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION <= GEXI_PP_VERSION(maj, min, pat))
/* The language standard of this compilation: exactly one of the two is
 * defined, as in GASNet. */
#if defined(__cplusplus)
#define PLATFORM_COMPILER_CXX_LANGLVL __cplusplus
#define GEXI_PP_STD "__cplusplus=" GEXI_PP_STR(__cplusplus)
#elif defined(__STDC_VERSION__)
#define PLATFORM_COMPILER_C_LANGLVL __STDC_VERSION__
#define GEXI_PP_STD "__STDC_VERSION__=" GEXI_PP_STR(__STDC_VERSION__)
#else
#define PLATFORM_COMPILER_C_LANGLVL 198900L
#define GEXI_PP_STD "C89"
#endif
/* One string naming the compiler, its version and language level, to tell
 * two builds' compilers apart (GASNet puts it in $GASNetCompilerID$). */
#define PLATFORM_COMPILER_IDSTR                                                     \
    "|COMPILER_FAMILY:" GEXI_PP_STR(PLATFORM_COMPILER_FAMILYNAME)                   \
    "|COMPILER_VERSION:" PLATFORM_COMPILER_VERSION_STR                              \
    "|COMPILER_FAMILYID:" GEXI_PP_STR(PLATFORM_COMPILER_FAMILYID) "|STD:" GEXI_PP_STD "|"

/* ---- Operating system ---- */
#if defined(__CRAYXT_COMPUTE_LINUX_TARGET)
#define PLATFORM_OS_CNL 1
#define PLATFORM_OS_FAMILYNAME CNL
#elif defined(__linux__)
#define PLATFORM_OS_LINUX 1
#define PLATFORM_OS_FAMILYNAME LINUX
#elif defined(__APPLE__) && defined(__MACH__)
#define PLATFORM_OS_DARWIN 1
#define PLATFORM_OS_FAMILYNAME DARWIN
#elif defined(__FreeBSD__)
#define PLATFORM_OS_FREEBSD 1
#define PLATFORM_OS_FAMILYNAME FREEBSD
#elif defined(__NetBSD__)
#define PLATFORM_OS_NETBSD 1
#define PLATFORM_OS_FAMILYNAME NETBSD
#elif defined(__OpenBSD__)
#define PLATFORM_OS_OPENBSD 1
#define PLATFORM_OS_FAMILYNAME OPENBSD
#elif defined(__sun)
#define PLATFORM_OS_SOLARIS 1
#define PLATFORM_OS_FAMILYNAME SOLARIS
#elif defined(_AIX)
#define PLATFORM_OS_AIX 1
#define PLATFORM_OS_FAMILYNAME AIX
#elif defined(__CYGWIN__)
#define PLATFORM_OS_CYGWIN 1
#define PLATFORM_OS_FAMILYNAME CYGWIN
#else
#define PLATFORM_OS_UNKNOWN 1
#define PLATFORM_OS_FAMILYNAME UNKNOWN
#endif
#define PLATFORM_OS_NAME GEXI_PP_STR(PLATFORM_OS_FAMILYNAME)

/* ---- CPU architecture ---- */
#if defined(__x86_64__) || defined(__x86_64) || defined(__amd64__) || defined(_M_X64)
#define PLATFORM_ARCH_X86_64 1
#define PLATFORM_ARCH_FAMILYNAME X86_64
#elif defined(__i386__) || defined(__i386) || defined(_M_IX86)
#define PLATFORM_ARCH_X86 1
#define PLATFORM_ARCH_FAMILYNAME X86
#elif defined(__aarch64__)
#define PLATFORM_ARCH_AARCH64 1
#define PLATFORM_ARCH_FAMILYNAME AARCH64
#elif defined(__arm__)
#define PLATFORM_ARCH_ARM 1
#define PLATFORM_ARCH_FAMILYNAME ARM
#elif defined(__powerpc__) || defined(__powerpc64__) || defined(__ppc__) || defined(__PPC__)
#define PLATFORM_ARCH_POWERPC 1
#define PLATFORM_ARCH_FAMILYNAME POWERPC
#elif defined(__riscv)
#define PLATFORM_ARCH_RISCV 1
#define PLATFORM_ARCH_FAMILYNAME RISCV
#elif defined(__sparc__) || defined(__sparc)
#define PLATFORM_ARCH_SPARC 1
#define PLATFORM_ARCH_FAMILYNAME SPARC
#elif defined(__mips__)
#define PLATFORM_ARCH_MIPS 1
#define PLATFORM_ARCH_FAMILYNAME MIPS
#elif defined(__s390__)
#define PLATFORM_ARCH_S390 1
#define PLATFORM_ARCH_FAMILYNAME S390
#else
#define PLATFORM_ARCH_UNKNOWN 1
#define PLATFORM_ARCH_FAMILYNAME UNKNOWN
#endif
#define PLATFORM_ARCH_NAME GEXI_PP_STR(PLATFORM_ARCH_FAMILYNAME)

#if defined(__LP64__) || defined(_LP64) || defined(_WIN64) || \
    (defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8)
#define PLATFORM_ARCH_64 1
#else
#define PLATFORM_ARCH_32 1
#endif

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PLATFORM_ARCH_BIG_ENDIAN 1
#elif defined(__BIG_ENDIAN__) || defined(_BIG_ENDIAN)
#define PLATFORM_ARCH_BIG_ENDIAN 1
#else
#define PLATFORM_ARCH_LITTLE_ENDIAN 1
#endif

#endif /* GASNET_PORTABLE_PLATFORM_H */
