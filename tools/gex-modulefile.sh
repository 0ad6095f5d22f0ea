#!/bin/sh
# gex-modulefile.sh: writes (install) or removes (uninstall) the environment
# modules of a GEX installation:
#   DATADIR/gex/modulefiles/gex/VERSION.lua    for Lmod
#   DATADIR/gex/modulefiles-tcl/gex/VERSION    Tcl (#%Module1.0), for
#                                              Environment Modules, or Lmod
# so that `module use DATADIR/gex/modulefiles` (or modulefiles-tcl) and
# `module load gex` put the installation on PATH, MANPATH, PKG_CONFIG_PATH
# and LD_LIBRARY_PATH (each only when it is not a system folder already
# searched), and set GEX_HOME (the prefix), GEX_VERSION and, when there is
# a GASNet build-directory view, GASNET_PREFIX (what a runtime's
# --with-gasnet= should point at; tools/gasnet-view.sh).
#
# Usage (from tools/modulefiles.inc at make install / make uninstall):
#   gex-modulefile.sh install|uninstall
# with these in the environment: DESTDIR, PREFIX, BINDIR, LIBDIR,
# INCLUDEDIR, MANDIR, PKGCONFIGDIR, DATADIR, VERSION, GASNETVIEWDIR (may be
# empty) and CC (for -print-multiarch; default cc).  The files are written
# under $DESTDIR but record the final paths.  Running install again
# rewrites them; uninstall removes only files this script wrote (marked
# GEX_MODULEFILE) and the folders under DATADIR/gex it leaves empty.
set -eu

action=${1-}
case $action in
install|uninstall) ;;
*) echo "usage: $0 install|uninstall" >&2; exit 2;;
esac

DESTDIR=${DESTDIR-}
for v in PREFIX BINDIR LIBDIR MANDIR PKGCONFIGDIR DATADIR VERSION; do
    eval "val=\${$v-}"
    [ -n "$val" ] || { echo "$0: $v is not set" >&2; exit 2; }
done
INCLUDEDIR=${INCLUDEDIR-}
GASNETVIEWDIR=${GASNETVIEWDIR-}
case $VERSION in
*/*|.*) echo "$0: '$VERSION' cannot name a modulefile" >&2; exit 2;;
esac

nl='
'
for v in PREFIX BINDIR LIBDIR INCLUDEDIR MANDIR PKGCONFIGDIR DATADIR VERSION GASNETVIEWDIR; do
    eval "val=\$$v"
    case $val in
    *"$nl"*) echo "$0: $v contains a newline" >&2; exit 2;;
    esac
done

lua_dir=$DATADIR/gex/modulefiles/gex
tcl_dir=$DATADIR/gex/modulefiles-tcl/gex
lua_file=$lua_dir/$VERSION.lua
tcl_file=$tcl_dir/$VERSION
marker=GEX_MODULEFILE

# Remove FILE (staged path) if this script wrote it.
remove_ours() {
    if [ -f "$1" ] && grep -q "$marker" "$1" 2>/dev/null; then
        rm -f "$1"
    fi
}
# rmdir the staged DIR and its parents up to (and including) DATADIR/gex,
# as long as they are empty.
prune() {
    d=$1
    while :; do
        rmdir "$DESTDIR$d" 2>/dev/null || return 0
        [ "$d" = "$DATADIR/gex" ] && return 0
        d=$(dirname "$d")
    done
}

if [ "$action" = uninstall ]; then
    remove_ours "$DESTDIR$lua_file"
    remove_ours "$DESTDIR$tcl_file"
    prune "$lua_dir"
    prune "$tcl_dir"
    exit 0
fi

# ---- which folders the system searches already ----
# A path as written, without repeated or trailing slashes and /./.
norm() {
    printf '%s\n' "$1" | sed -e 's|//*|/|g' -e ':a' -e 's|/\./|/|' -e 'ta' -e 's|/\.$||' -e 's|\(.\)/$|\1|'
}
multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null) || multiarch=
case $multiarch in
*[!A-Za-z0-9_.+-]*|'') multiarch=;;
esac
system_dirs="/usr/bin /bin /usr/lib /usr/lib64 /lib /lib64 /usr/share/man /usr/lib/pkgconfig /usr/share/pkgconfig"
if [ -n "$multiarch" ]; then
    system_dirs="$system_dirs /usr/lib/$multiarch /lib/$multiarch /usr/lib/$multiarch/pkgconfig"
fi
is_system() {
    n=$(norm "$1")
    for s in $system_dirs; do
        [ "$n" = "$s" ] && return 0
    done
    return 1
}

# ---- quoting ----
# A Lua string literal: "..." with \ and " escaped.
luaq() {
    printf '"%s"' "$(printf '%s\n' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"
}
# A Tcl word: "..." with \ " $ [ ] { } escaped, so nothing is substituted.
tclq() {
    printf '"%s"' "$(printf '%s\n' "$1" | sed -e 's/[][\\$"{}]/\\&/g')"
}

# ---- what the modules do ----
# The search paths the installation's folders go on, as "VAR DIR" calls of
# the writer's function: a system folder, or one with ':' (which no search
# path can hold), is left out.
each_prepend() {  # each_prepend FUNCTION
    for pair in "PATH:$BINDIR" "MANPATH:$MANDIR" "PKG_CONFIG_PATH:$PKGCONFIGDIR" \
                "LD_LIBRARY_PATH:$LIBDIR"; do
        var=${pair%%:*}
        dir=${pair#*:}
        is_system "$dir" && continue
        case $dir in
        *:*) echo "$0: warning: not adding '$dir' to $var: it contains ':'" >&2; continue;;
        esac
        "$1" "$var" "$dir"
    done
}

desc="GEX $VERSION: the GASNet-EX communication library (all layers), installed in $PREFIX"
sets="GEX_HOME, GEX_VERSION"
help_lines="GEX $VERSION, a GASNet-EX communication library for PGAS runtimes.

  Installed in:    $PREFIX
  Build a client:  cc app.c \$(pkg-config --cflags --libs gex)
  Run it:          gexrun -n 4 ./app
  What was built:  gex-info"
if [ -n "$GASNETVIEWDIR" ]; then
    sets="$sets, GASNET_PREFIX"
    help_lines="$help_lines
  GASNet view:     $GASNETVIEWDIR
                   (for a runtime's --with-gasnet=\$GASNET_PREFIX)"
fi
help_lines="$help_lines

Sets $sets; puts the installation's folders first on PATH,
MANPATH, PKG_CONFIG_PATH and LD_LIBRARY_PATH, except system folders."

lua_prepend() { printf 'prepend_path(%s, %s)\n' "$(luaq "$1")" "$(luaq "$2")"; }
write_lua() {
    printf -- '-- -*- lua -*-\n'
    printf -- '-- %s: Lmod modulefile of GEX %s, written by make install\n' "$marker" "$VERSION"
    printf -- '-- (tools/gex-modulefile.sh).  Use:  module use %s; module load gex\n\n' \
        "$DATADIR/gex/modulefiles"
    # help(): Lmod joins its arguments, so each line carries its own \n.
    printf 'help('
    sep=
    printf '%s\n' "$help_lines" | while IFS= read -r line; do
        printf '%s%s' "$sep" "$(luaq "$line" | sed -e 's/"$/\\n"/')"
        sep=",
     "
    done
    printf ')\n'
    printf 'whatis(%s)\n' "$(luaq "Name: gex")"
    printf 'whatis(%s)\n' "$(luaq "Version: $VERSION")"
    printf 'whatis(%s)\n' "$(luaq "Description: $desc")"
    # One gex at a time: Lmod's one-name rule swaps gex/<version>s already;
    # the family makes that hold for any other module of family "gex" too.
    # (Not conflict("gex"): that is for modules of other names.)
    printf '\nfamily("gex")\n\n'
    each_prepend lua_prepend
    printf 'setenv("GEX_HOME", %s)\n' "$(luaq "$PREFIX")"
    printf 'setenv("GEX_VERSION", %s)\n' "$(luaq "$VERSION")"
    if [ -n "$GASNETVIEWDIR" ]; then
        printf 'setenv("GASNET_PREFIX", %s)\n' "$(luaq "$GASNETVIEWDIR")"
    fi
}

tcl_prepend() { printf 'prepend-path %s %s\n' "$1" "$(tclq "$2")"; }
write_tcl() {
    printf '#%%Module1.0\n'
    printf '# %s: Tcl modulefile of GEX %s, written by make install\n' "$marker" "$VERSION"
    printf '# (tools/gex-modulefile.sh).  Use:  module use %s; module load gex\n\n' \
        "$DATADIR/gex/modulefiles-tcl"
    printf 'proc ModulesHelp { } {\n'
    printf '%s\n' "$help_lines" | while IFS= read -r line; do
        printf '    puts stderr %s\n' "$(tclq "$line")"
    done
    printf '}\n'
    printf 'module-whatis %s\n' "$(tclq "Name: gex")"
    printf 'module-whatis %s\n' "$(tclq "Version: $VERSION")"
    printf 'module-whatis %s\n' "$(tclq "Description: $desc")"
    # One gex at a time (Environment Modules: a module does not conflict
    # with itself; Lmod swaps versions before this is checked).
    printf '\nconflict gex\n\n'
    each_prepend tcl_prepend
    printf 'setenv GEX_HOME %s\n' "$(tclq "$PREFIX")"
    printf 'setenv GEX_VERSION %s\n' "$(tclq "$VERSION")"
    if [ -n "$GASNETVIEWDIR" ]; then
        printf 'setenv GASNET_PREFIX %s\n' "$(tclq "$GASNETVIEWDIR")"
    fi
}

# Write through a temporary file, so that a failed install leaves no half file.
put() {  # put FILE(final path) WRITER
    f=$DESTDIR$1
    mkdir -p "$(dirname "$f")"
    "$2" >"$f.tmp$$" || { rm -f "$f.tmp$$"; exit 1; }
    chmod 644 "$f.tmp$$"
    mv -f "$f.tmp$$" "$f"
}
put "$lua_file" write_lua
put "$tcl_file" write_tcl

# Lmod (8.6 at least) reads a Tcl modulefile by translating it to Lua, and
# does not escape " or \ in a prepend-path value: say so, where it matters.
case $BINDIR$MANDIR$PKGCONFIGDIR$LIBDIR in
*[\"\\]*)
    echo "$0: note: a folder of this installation contains \" or \\; Lmod mis-reads such" >&2
    echo "  paths in the Tcl modulefile $tcl_file: with Lmod, use $DATADIR/gex/modulefiles" >&2;;
esac
