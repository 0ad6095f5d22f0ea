# gex_deps.m4: GEX's own configure macros.

# GEX_CHECK_DEP(id, title, pkg-config name, header, function, library, what it is for)
# Adds --with-<id>[=DIR]: auto by default (missing disables the feature),
# yes/DIR (missing is an error), no (disabled).  Sets gex_have_<id>,
# <ID>_CFLAGS/<ID>_LIBS, the HAVE_<ID> conditional and define.
AC_DEFUN([GEX_CHECK_DEP], [
  m4_pushdef([UP], m4_toupper([$1]))
  AC_ARG_WITH([$1], [AS_HELP_STRING([--with-$1@<:@=DIR@:>@], [use $2 for $7 (default: if found; DIR: its prefix; --without-$1: not)])],
              [gex_want_$1=$withval], [gex_want_$1=auto])
  gex_have_$1=no
  AS_IF([test "x$gex_want_$1" != xno], [
    AS_CASE(["$gex_want_$1"],
      [yes|auto], [PKG_CHECK_MODULES(UP, [$3], [gex_have_$1=yes], [gex_have_$1=no])],
      [UP[]_CFLAGS="-I$gex_want_$1/include"
       UP[]_LIBS="-L$gex_want_$1/lib -L$gex_want_$1/lib64 -l$6"
       gex_have_$1=yes])
    AS_IF([test "x$gex_have_$1" = xyes], [
      gex_save_CPPFLAGS=$CPPFLAGS; gex_save_LIBS=$LIBS
      CPPFLAGS="$CPPFLAGS $UP[]_CFLAGS"; LIBS="$UP[]_LIBS $LIBS"
      AC_CHECK_HEADER([$4], [], [gex_have_$1=no])
      AS_IF([test "x$gex_have_$1" = xyes],
            [AC_MSG_CHECKING([for $5 in $2]);
             AC_LINK_IFELSE([AC_LANG_CALL([], [$5])], [AC_MSG_RESULT([yes])],
                            [AC_MSG_RESULT([no]); gex_have_$1=no])])
      CPPFLAGS=$gex_save_CPPFLAGS; LIBS=$gex_save_LIBS])
    AS_IF([test "x$gex_have_$1" = xno && test "x$gex_want_$1" != xauto],
          [AC_MSG_ERROR([--with-$1 was requested but $2 was not found])])
  ])
  AC_SUBST(UP[]_CFLAGS)
  AC_SUBST(UP[]_LIBS)
  AM_CONDITIONAL([HAVE_]UP, [test "x$gex_have_$1" = xyes])
  AS_IF([test "x$gex_have_$1" = xyes], [AC_DEFINE([HAVE_]UP, [1], [$2 available])])
  m4_popdef([UP])
])

# GEX_CHECK_HEADER_DEP(id, title, header[, fallback prefixes[, cppflags]]):
# GPU run-time plug-ins need only their headers at build time; the library
# is dlopen()ed at run time.  With auto/yes, the prefixes (e.g.
# /usr/local/cuda) are tried after the default include path; cppflags are
# what the header needs to compile (e.g. -D__HIP_PLATFORM_AMD__).  Sets
# <ID>_CPPFLAGS (the -I needed, if any).
AC_DEFUN([GEX_CHECK_HEADER_DEP], [
  m4_pushdef([UP], m4_toupper([$1]))
  AC_ARG_WITH([$1], [AS_HELP_STRING([--with-$1@<:@=DIR@:>@], [build the $2 (default: auto)])],
              [gex_want_$1=$withval], [gex_want_$1=auto])
  gex_have_$1=no
  UP[]_CPPFLAGS=
  AS_IF([test "x$gex_want_$1" != xno], [
    gex_save_CPPFLAGS=$CPPFLAGS
    AS_CASE(["$gex_want_$1"], [yes|auto], [gex_dirs_$1="none $4"], [gex_dirs_$1="$gex_want_$1"])
    for gex_dir in $gex_dirs_$1; do
      AS_IF([test "x$gex_dir" = xnone], [gex_inc=], [gex_inc="-I$gex_dir/include"])
      CPPFLAGS="$gex_save_CPPFLAGS $gex_inc $5"
      AS_UNSET([AS_TR_SH([ac_cv_header_$3])])
      AC_CHECK_HEADER([$3], [gex_have_$1=yes], [gex_have_$1=no])
      AS_IF([test "x$gex_have_$1" = xyes], [UP[]_CPPFLAGS=$gex_inc; break])
    done
    CPPFLAGS=$gex_save_CPPFLAGS
    AS_IF([test "x$gex_have_$1" = xno && test "x$gex_want_$1" != xauto],
          [AC_MSG_ERROR([--with-$1 was requested but $3 was not found])])])
  AC_SUBST(UP[]_CPPFLAGS)
  AM_CONDITIONAL([HAVE_]UP, [test "x$gex_have_$1" = xyes])
  m4_popdef([UP])
])

# AX_PTHREAD_SIMPLE: -pthread works with gcc and clang on our targets.
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  CFLAGS="$CFLAGS -pthread"; LDFLAGS="$LDFLAGS -pthread"
])
