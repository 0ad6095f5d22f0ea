#!/bin/sh
# gasnet-view.sh: writes (install) or removes (uninstall) the GASNet
# build-directory view of a GEX installation (docs/compatibility.md, "What a
# runtime's build may rely on").
#
# Runtimes that sit on GASNet-EX (UPC++, for one) are configured against a
# GASNet *build* directory: they read DIR/gasnet_config.h, run
# `make -C DIR all|install|clean` and `make -C DIR echovar VARNAME=X`, ask
# DIR/config.status for configure's answers, include
# DIR/<conduit>-conduit/<conduit>-<mode>.mak and look for launchers in
# DIR/bin and DIR/<conduit>-conduit/contrib.  The view gives them all of
# that over the installed GEX, without a copy of anything: the headers,
# fragments and launchers are links to the installed ones; Makefile and
# config.status are small generated files that answer from this install.
#
# Usage (from the top Makefile's install-data-hook / uninstall-hook):
#   gasnet-view.sh install|uninstall
# with these in the environment: DESTDIR, VIEWDIR, PREFIX, INCLUDEDIR,
# LIBDIR, BINDIR, PKGCONFIGDIR, CONDUITS, VERSION, CC, CXX, CFLAGS, LDFLAGS,
# LIBS, PERL, AR, EXESUFFIX, CC_FAMILY, CXX_FAMILY, CC_SUBFAMILY,
# CXX_SUBFAMILY, CONFIGURE_ARGS.
set -eu
action=$1
view=$DESTDIR$VIEWDIR
modes="seq par parsync"

# The names the view owns, for uninstall (and for reinstall over an old one).
owned="Makefile config.status gasnet_config.h gasnet_tools-seq.mak gasnet_tools-par.mak"

remove_view() {
    [ -d "$view" ] || return 0
    for f in $owned; do
        if [ -f "$view/$f" ] || [ -L "$view/$f" ]; then
            # only what the view wrote: a Makefile or config.status of ours
            case $f in
            Makefile|config.status)
                grep -q 'GEX_GASNET_VIEW' "$view/$f" 2>/dev/null && rm -f "$view/$f";;
            *) [ -L "$view/$f" ] && rm -f "$view/$f";;
            esac
        fi
    done
    for c in smp ofi ucx; do
        d=$view/$c-conduit
        [ -f "$d/Makefile" ] && grep -q 'GEX_GASNET_VIEW' "$d/Makefile" || continue
        rm -rf "$d"
    done
    for l in bin include lib; do
        [ -L "$view/$l" ] && rm -f "$view/$l"
    done
    # lib as a folder of links (a view inside LIBDIR)
    if [ -d "$view/lib" ] && [ -z "$(find "$view/lib" ! -type l ! -path "$view/lib" -print -quit)" ]; then
        rm -rf "$view/lib"
    fi
    rmdir "$view" 2>/dev/null || true
}

if [ "$action" = uninstall ]; then
    remove_view
    exit 0
fi
[ "$action" = install ] || { echo "usage: $0 install|uninstall" >&2; exit 2; }

# Within the prefix a link is relative, so that a DESTDIR install works
# where it is staged and where it lands; elsewhere it is absolute.
link() {  # link TARGET(final path) LINKNAME(staged path)
    rel=$1
    case $1/:$VIEWDIR/ in
    "$PREFIX"/*:"$PREFIX"/*)
        rel=$(realpath -m --relative-to="$(dirname "$2")" "$DESTDIR$1" 2>/dev/null) || rel=$1;;
    esac
    rm -f "$2"
    ln -s "$rel" "$2"
}

# sed replacement text: escape \, & and the | delimiter
esc() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }
# a shell single-quoted word
shq() { printf "'%s'" "$(printf '%s' "$1" | sed -e "s/'/'\\\\''/g")"; }

mkdir -p "$view"
link "$INCLUDEDIR/gasnet_config.h" "$view/gasnet_config.h"
for m in seq par; do
    link "$INCLUDEDIR/gasnet_tools-$m.mak" "$view/gasnet_tools-$m.mak"
done
# A view outside the prefix gets the prefix's include, lib and bin too.
if [ "$VIEWDIR" != "$PREFIX" ]; then
    [ -e "$view/include" ] || link "$INCLUDEDIR" "$view/include"
    case $VIEWDIR/ in
    "$LIBDIR"/*)
        # A view inside LIBDIR (a system prefix: LIBDIR/gex/gasnet) linking
        # lib to LIBDIR would contain itself: lib is a folder of links to
        # what a GASNet install tree's lib holds, the libraries and pkgconfig.
        mkdir -p "$view/lib"
        link "$PKGCONFIGDIR" "$view/lib/pkgconfig"
        for f in "$DESTDIR$LIBDIR"/libgex-*.so "$DESTDIR$LIBDIR"/libgex-*.a "$DESTDIR$LIBDIR"/libgasnet_tools-*.a; do
            [ -e "$f" ] && link "$LIBDIR/${f##*/}" "$view/lib/${f##*/}"
        done;;
    *) [ -e "$view/lib" ] || link "$LIBDIR" "$view/lib";;
    esac
    [ -e "$view/bin" ] || link "$BINDIR" "$view/bin"
fi

for c in $CONDUITS; do
    d=$view/$c-conduit
    mkdir -p "$d/contrib"
    for m in $modes; do
        link "$INCLUDEDIR/$c-conduit/$c-$m.mak" "$d/$c-$m.mak"
        link "$PKGCONFIGDIR/gasnet-$c-$m.pc" "$d/gasnet-$c-$m.pc"
    done
    link "$BINDIR/gasnetrun_$c" "$d/contrib/gasnetrun_$c"
    cat >"$d/Makefile" <<EOF
# GEX_GASNET_VIEW: $c-conduit of the GASNet build-directory view of GEX $VERSION
# (docs/compatibility.md).  GEX's libraries are built and installed already:
# the targets a GASNet conduit directory has (seq, par, parsync, all and the
# fragments) check that this conduit's installed pieces are present.
GEX_DESTDIR ?=
CONDUIT = $c
FRAGMENTS = \$(foreach m,$modes,\$(GEX_DESTDIR)$INCLUDEDIR/$c-conduit/$c-\$(m).mak)
LAUNCHER = \$(GEX_DESTDIR)$BINDIR/gasnetrun_$c

all: seq par parsync
seq par parsync:
	@test -f \$(GEX_DESTDIR)$INCLUDEDIR/$c-conduit/$c-\$@.mak && test -x \$(LAUNCHER) || \\
	  { echo "GEX $VERSION: the $c conduit's installed \$@ pieces are missing" >&2; exit 1; }
$c-seq.mak $c-par.mak $c-parsync.mak: ; @:
clean distclean: ; @:
echovar:
	@echo \$(VARNAME)=\"\$(\$(VARNAME))\"
.PHONY: all seq par parsync clean distclean echovar
EOF
done

# ---- Makefile ----
cat >"$view/Makefile" <<EOF
# GEX_GASNET_VIEW: the GASNet build-directory view of GEX $VERSION, installed
# in $PREFIX (docs/compatibility.md, "What a runtime's build may rely on").
# GEX is built and installed already, so:
#   make all        checks that every installed piece is present
#   make install prefix=DIR [DESTDIR=D]
#                   writes a GASNet install tree in DIR: include/ (the
#                   headers and every conduit's fragments), bin/gasnetrun_*
#                   and lib/pkgconfig/gasnet-*.pc, all naming this GEX
#   make clean      nothing to remove
#   make echovar VARNAME=X   prints X="value" (CONDUITS, CC_FAMILY, ...)
GEX_DESTDIR ?=
GEX_PREFIX = $PREFIX
GEX_INCLUDEDIR = $INCLUDEDIR
GEX_LIBDIR = $LIBDIR
GEX_BINDIR = $BINDIR
GEX_PKGCONFIGDIR = $PKGCONFIGDIR
prefix = $PREFIX
DESTDIR =

VERSION = $VERSION
CONDUITS = $CONDUITS
PERL = $PERL
AR = $AR
EXESUFFIX = $EXESUFFIX
CC = $CC
CXX = $CXX
CC_FAMILY = $CC_FAMILY
CXX_FAMILY = $CXX_FAMILY
CC_SUBFAMILY = $CC_SUBFAMILY
CXX_SUBFAMILY = $CXX_SUBFAMILY
GASNET_THREAD_DEFINES = -D_REENTRANT
GASNET_THREAD_LIBS = -lpthread
MODES = $modes

all:
	@for c in \$(CONDUITS); do for m in \$(MODES); do \\
	   f=\$(GEX_DESTDIR)\$(GEX_INCLUDEDIR)/\$\$c-conduit/\$\$c-\$\$m.mak; \\
	   test -f \$\$f || { echo "GEX \$(VERSION): \$\$f is missing" >&2; exit 1; }; \\
	 done; \\
	 test -x \$(GEX_DESTDIR)\$(GEX_BINDIR)/gasnetrun_\$\$c || { echo "GEX \$(VERSION): gasnetrun_\$\$c is missing" >&2; exit 1; }; \\
	 done; \\
	 test -f \$(GEX_DESTDIR)\$(GEX_LIBDIR)/libgex-core.so || { echo "GEX \$(VERSION): libgex-core is missing" >&2; exit 1; }; \\
	 echo "GEX \$(VERSION) is installed in \$(GEX_PREFIX) (conduits: \$(CONDUITS)): nothing to build"

install: all
	@if [ "\$(prefix)" = "\$(GEX_PREFIX)" ] && [ -z "\$(DESTDIR)" ]; then \\
	   echo "GEX \$(VERSION) is installed in \$(GEX_PREFIX) already"; exit 0; fi; \\
	 set -e; d=\$(DESTDIR)\$(prefix); \\
	 mkdir -p \$\$d/include \$\$d/bin \$\$d/lib/pkgconfig; \\
	 cp -R \$(GEX_DESTDIR)\$(GEX_INCLUDEDIR)/. \$\$d/include/; \\
	 for c in \$(CONDUITS); do cp \$(GEX_DESTDIR)\$(GEX_BINDIR)/gasnetrun_\$\$c \$\$d/bin/; done; \\
	 cp \$(GEX_DESTDIR)\$(GEX_PKGCONFIGDIR)/gasnet-*.pc \$(GEX_DESTDIR)\$(GEX_PKGCONFIGDIR)/gasnet_tools-*.pc \$\$d/lib/pkgconfig/; \\
	 echo "GASNet install tree for GEX \$(VERSION) written to \$\$d (it uses the libraries in \$(GEX_LIBDIR))"

clean distclean:
	@echo "GEX \$(VERSION): nothing to clean (the libraries are installed in \$(GEX_PREFIX))"

echovar:
	@echo \$(VARNAME)=\"\$(\$(VARNAME))\"

.PHONY: all install clean distclean echovar
EOF

# ---- config.status ----
# configure's answers, as @NAME@ substitutions on any input, the way
# `echo @CONDUITS@ | ./config.status --file=-` or
# `./config.status --file=out.mak:in.mak.in` use a GASNet build's.
subst=
add() { subst="$subst -e $(shq "s|@$1@|$(esc "$2")|g")"; }
add PERL "$PERL"; add AR "$AR"; add CONDUITS "$CONDUITS"; add EXESUFFIX "$EXESUFFIX"
add EXEEXT "$EXESUFFIX"
add CC_FAMILY "$CC_FAMILY"; add CXX_FAMILY "$CXX_FAMILY"
add CC_SUBFAMILY "$CC_SUBFAMILY"; add CXX_SUBFAMILY "$CXX_SUBFAMILY"
add CC "$CC"; add CXX "$CXX"; add CFLAGS "$CFLAGS"; add CXXFLAGS "$CFLAGS"
add LDFLAGS "$LDFLAGS"; add LIBS "$LIBS"
add GASNET_THREAD_DEFINES "-D_REENTRANT"; add GASNET_THREAD_LIBS "-lpthread"
add VERSION "$VERSION"; add PACKAGE_VERSION "$VERSION"; add PACKAGE_NAME "GEX"
add prefix "$PREFIX"; add exec_prefix "$PREFIX"; add bindir "$BINDIR"; add libdir "$LIBDIR"
add includedir "$INCLUDEDIR"; add top_builddir "$VIEWDIR"; add abs_top_builddir "$VIEWDIR"
add top_srcdir "$VIEWDIR"; add abs_top_srcdir "$VIEWDIR"; add SHELL /bin/sh
add CONFIGURE_ARGS "$CONFIGURE_ARGS"

cat >"$view/config.status" <<EOF
#!/bin/sh
# GEX_GASNET_VIEW: config.status of the GASNet build-directory view of
# GEX $VERSION (docs/compatibility.md).  It substitutes configure's answers
# for @NAME@ in files, as autoconf's config.status --file does; nothing
# else is regenerated, since GEX is installed already.
me=config.status
usage() {
    echo "Usage: ./\$me [--file=OUT[:IN...]]... [--version] [--config] [--help]"
    echo "  --file=OUT[:IN...]  write OUT ('-': stdout) from IN ('-': stdin;"
    echo "                      default OUT.in) with @NAME@ replaced by its value"
}
subst() { sed$subst; }
one_file() {
    out=\${1%%:*}
    case \$1 in *:*) ins=\${1#*:};; -) ins=-;; *) ins=\$out.in;; esac
    tmp=\${TMPDIR:-/tmp}/gex-config-status.\$\$
    : >"\$tmp"
    old_ifs=\$IFS; IFS=:
    for src in \$ins; do
        IFS=\$old_ifs
        if [ "\$src" = - ]; then cat >>"\$tmp"
        elif [ -f "\$src" ]; then cat "\$src" >>"\$tmp"
        else echo "\$me: error: cannot find input file: '\$src'" >&2; rm -f "\$tmp"; exit 1
        fi
    done
    IFS=\$old_ifs
    if [ "\$out" = - ]; then subst <"\$tmp"
    else subst <"\$tmp" >"\$out.tmp\$\$" && mv -f "\$out.tmp\$\$" "\$out"
        [ -n "\$quiet" ] || echo "\$me: creating \$out"
    fi
    rm -f "\$tmp"
}
quiet=
files=
while [ \$# -gt 0 ]; do
    case \$1 in
    --file=*) files="\$files
\${1#--file=}";;
    --file) shift; files="\$files
\$1";;
    -q|--quiet|--silent) quiet=1;;
    -V|--version) echo "GEX $VERSION config.status (GASNet build-directory view)"; exit 0;;
    --config) printf '%s\\n' $(shq "$CONFIGURE_ARGS"); exit 0;;
    -h|--help) usage; exit 0;;
    --recheck) echo "\$me: GEX is installed; nothing to recheck"; exit 0;;
    --header=*|--header) echo "\$me: error: this view writes no headers (include <gasnet_config.h>)" >&2; exit 1;;
    *) echo "\$me: error: unrecognized option: '\$1'" >&2; usage >&2; exit 1;;
    esac
    shift
done
[ -n "\$files" ] || { [ -n "\$quiet" ] || echo "\$me: GEX $VERSION is installed; nothing to regenerate"; exit 0; }
old_ifs=\$IFS; IFS='
'
for f in \$files; do
    IFS=\$old_ifs
    [ -n "\$f" ] && one_file "\$f"
done
exit 0
EOF
chmod +x "$view/config.status"
