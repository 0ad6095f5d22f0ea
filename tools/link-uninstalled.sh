#!/bin/sh
# link-uninstalled.sh: links a program that is never installed (a test or a
# benchmark) against the build tree's libtool libraries with the compiler
# alone.  Makefile.am's LINK calls it: COMPILER [FLAGS...] -o PROG OBJS LIBS.
#
# Why not libtool: its link mode is a large shell script that walks every
# .la file the program names and each one's dependency_libs; that costs
# 1.5-2.5 s of CPU per program in this VM, against 0.1 s for gcc, and make
# check links ~130 programs (native, ASan/UBSan and TSan builds): over
# 4 minutes of CPU (issue 28, docs/testing.md).
#
# What libtool's -no-install link produced, this produces too: a binary that
# runs from the build tree without a wrapper, with an RUNPATH to each
# uninstalled library's .libs folder.  Each X.la argument becomes
#   - a shared library: X's .libs/<its dlname>, the RUNPATH entry, and an
#     -rpath-link for each -L folder its dependency_libs names (so the
#     linker finds libpmix and friends behind it);
#   - a convenience (static only) library: its archive followed by its
#     dependency_libs, converted the same way.
# -no-install is dropped (it means this); every other argument passes
# through unchanged, in order.
set -eu

# Every output word goes through the positional parameters (set --), so
# arguments with spaces survive.  $rpaths and $rpath_links collect folders
# once each, in the order first seen.  No command substitution below: each
# would fork, and forks are what made libtool slow here.
rpaths=
rpath_links=
words=      # one link word per line, from the .la file being expanded

add_once() {   # add_once VAR FOLDER: appends FOLDER to VAR's list unless there
    eval "case \"|\$$1|\" in *\"|$2|\"*) ;; *) $1=\"\${$1}|$2\" ;; esac"
}

emit() { words="$words$1
"; }

# la_dir FILE: sets $d to the absolute folder holding FILE
la_dir() {
    case $1 in */*) d=${1%/*} ;; *) d=$PWD ;; esac
    case $d in /*) ;; *) d=$PWD/$d ;; esac
}

# expand_la FILE: appends the link words for one .la to $words.  The .la
# file is a shell fragment libtool wrote; sourcing it sets dlname,
# old_library and dependency_libs (and names this script does not use).
expand_la() {
    la_dir "$1"
    dir=$d/.libs
    dlname= old_library= dependency_libs=
    case $1 in /*) . "$1" ;; *) . "./$1" ;; esac   # `.` searches PATH without a slash
    if [ -n "$dlname" ]; then
        emit "$dir/$dlname"
        add_once rpaths "$dir"
        for w in $dependency_libs; do
            case $w in
                -L*) add_once rpath_links "${w#-L}" ;;
                *.la) la_dir "$w"; add_once rpaths "$d/.libs" ;;
            esac
        done
    elif [ -n "$old_library" ]; then
        emit "$dir/$old_library"
        for w in $dependency_libs; do   # the list is expanded before any recursion
            case $w in
                *.la) expand_la "$w" ;;
                *) emit "$w" ;;
            esac
        done
    else
        echo "link-uninstalled.sh: $1 names neither a shared nor a static library" >&2
        exit 1
    fi
}

n=$#
while [ "$n" -gt 0 ]; do
    a=$1
    shift
    n=$((n - 1))
    case $a in
        -no-install) ;;
        *.la)
            words=
            expand_la "$a"
            old_ifs=$IFS
            IFS='
'
            for w in $words; do set -- "$@" "$w"; done   # paths here hold no newline
            IFS=$old_ifs
            ;;
        *) set -- "$@" "$a" ;;
    esac
done

old_ifs=$IFS
IFS='|'
for d in $rpaths; do [ -n "$d" ] && set -- "$@" "-Wl,-rpath,$d"; done
for d in $rpath_links; do [ -n "$d" ] && set -- "$@" "-Wl,-rpath-link,$d"; done
IFS=$old_ifs
exec "$@"
