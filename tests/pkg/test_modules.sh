#!/bin/bash
# test_modules.sh: the environment modules of an installed GEX
# (tools/gex-modulefile.sh) under Debian's Lmod.
#
#   tests/pkg/test_modules.sh --prefix P [--bindir D] [--mandir D]
#                             [--modulefiles D] [--tcl-modulefiles D] [--keep]
#
# P is an installed GEX (P/bin/gexrun, P/lib/pkgconfig/gex.pc and
# P/share/gex/modulefiles{,-tcl}; the options name other folders).  For
# the Lmod (.lua) modulefile and then the Tcl one, in a clean environment
# (env -i HOME PATH=/usr/bin:/bin) with Lmod's shell set-up sourced:
# `module use`, `module load gex`, gexrun, pkg-config and man come from the
# installation, a hello client builds with `pkg-config --cflags --libs gex`
# and runs on 4 ranks under gexrun, and `module unload gex` puts PATH,
# MANPATH, PKG_CONFIG_PATH, LD_LIBRARY_PATH and GEX_HOME back as they were.
#
# Prints PASS:/FAIL:/SKIP: lines; exits 1 if any check failed, 77 if Lmod
# is not installed (apt-get install lmod), 0 otherwise.  Without tclsh
# (apt-get install tcl) Lmod cannot read Tcl modulefiles: that part is
# skipped, with a SKIP: line.
set -u

prefix='' bindir='' mandir='' moddir='' tclmoddir='' keep=0
usage() { echo "usage: $0 --prefix P [--bindir D] [--mandir D] [--modulefiles D] [--tcl-modulefiles D] [--keep]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --prefix) prefix=${2-}; shift;;
    --prefix=*) prefix=${1#*=};;
    --bindir) bindir=${2-}; shift;;
    --bindir=*) bindir=${1#*=};;
    --mandir) mandir=${2-}; shift;;
    --mandir=*) mandir=${1#*=};;
    --modulefiles) moddir=${2-}; shift;;
    --modulefiles=*) moddir=${1#*=};;
    --tcl-modulefiles) tclmoddir=${2-}; shift;;
    --tcl-modulefiles=*) tclmoddir=${1#*=};;
    --keep) keep=1;;
    -h|--help) usage;;
    *) usage;;
    esac
    shift
done
[ -n "$prefix" ] || usage
prefix=$(realpath -m "$prefix")
bindir=$(realpath -m "${bindir:-$prefix/bin}")
mandir=$(realpath -m "${mandir:-$prefix/share/man}")
moddir=$(realpath -m "${moddir:-$prefix/share/gex/modulefiles}")
tclmoddir=$(realpath -m "${tclmoddir:-$prefix/share/gex/modulefiles-tcl}")

# Lmod's shell set-up: Debian's profile (MODULEPATH, MANPATH, the module
# function), else the bare bash initialisation.
lmod_init=
for f in /etc/profile.d/lmod.sh /usr/share/lmod/lmod/init/profile /usr/share/lmod/lmod/init/bash; do
    if [ -f "$f" ] && grep -q lmod "$f"; then lmod_init=$f; break; fi
done
if [ -z "$lmod_init" ] || [ ! -d /usr/share/lmod/lmod ]; then
    echo "SKIP: Lmod is not installed (apt-get install lmod)"
    exit 77
fi
echo "# Lmod set-up: $lmod_init"

fails=0
[ -e "$bindir/gexrun" ] || { echo "FAIL: $bindir/gexrun is missing: $prefix is not an installed GEX"; fails=1; }
# gex.pc in P/lib/pkgconfig, or for a system prefix (a Debian package) in
# P/lib/<multiarch>/pkgconfig
found_pc=0
for f in "$prefix"/lib/pkgconfig/gex.pc "$prefix"/lib/*/pkgconfig/gex.pc; do
    [ -e "$f" ] && found_pc=1
done
[ $found_pc = 1 ] || { echo "FAIL: no gex.pc under $prefix/lib: $prefix is not an installed GEX"; fails=1; }
[ $fails = 0 ] || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/gex-modules.XXXXXX")
[ $keep = 1 ] || trap 'rm -rf "$work"' EXIT

# The client: the README's demo (examples/hello.c), as a user would build it.
cp "$(cd "$(dirname "$0")/../.." && pwd)/examples/hello.c" "$work/hello.c" ||
    { echo "FAIL: examples/hello.c not found beside this script"; exit 1; }

# What runs in the clean shell: inner.sh LABEL MODDIR
cat >"$work/inner.sh" <<'EOF'
label=$1 moddir=$2
fails=0
pass() { echo "PASS: [$label] $*"; }
fail() { echo "FAIL: [$label] $*"; fails=$((fails + 1)); }
skip() { echo "SKIP: [$label] $*"; }
check() {  # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
same() { [ -n "$1" ] && [ -n "$2" ] && [ "$(realpath -m -- "$1")" = "$(realpath -m -- "$2")" ]; }
first() { printf '%s\n' "${1%%:*}"; }   # first entry of a search path
vars="PATH MANPATH PKG_CONFIG_PATH LD_LIBRARY_PATH GEX_HOME GEX_VERSION GASNET_PREFIX"
snapshot() { local v; for v in $vars; do if [ -n "${!v+x}" ]; then printf '%s=%s\n' "$v" "${!v}"; else printf '%s unset\n' "$v"; fi; done; }

. "$LMOD_INIT" >/dev/null 2>&1
if ! type module >/dev/null 2>&1; then fail "sourcing $LMOD_INIT defines module"; exit 1; fi
pass "sourcing $LMOD_INIT defines module ($(module --version 2>&1 | grep -o 'Version [0-9.]*' | head -1))"
before=$(snapshot)

# module must run in this shell (it changes its environment): its messages
# go through a file, not $(...)
msgs=$WORK/$label.module.out
runmod() { module "$@" >"$msgs" 2>&1; }
check "module use $moddir" runmod use "$moddir"
if ! runmod load gex; then
    fail "module load gex: $(cat "$msgs")"
    exit 1
fi
[ -s "$msgs" ] && sed 's/^/# /' "$msgs"
case :${LOADEDMODULES-}: in
*:gex/*) pass "module load gex (${LOADEDMODULES})";;
*) fail "module load gex: gex is not in LOADEDMODULES='${LOADEDMODULES-}'";;
esac
# loading it again is harmless (the module does not conflict with itself)
check "module load gex again" runmod load gex

check "which gexrun is $BINDIR/gexrun (got $(type -P gexrun))" same "$(type -P gexrun)" "$BINDIR/gexrun"
check "GEX_HOME=${GEX_HOME-} is the prefix $PREFIX" same "${GEX_HOME-}" "$PREFIX"
if v=$(pkg-config --modversion gex 2>&1); then
    pass "pkg-config --modversion gex: $v"
    check "GEX_VERSION=${GEX_VERSION-} is gex.pc's version" [ "${GEX_VERSION-}" = "$v" ]
else
    fail "pkg-config --modversion gex: $v"
fi
check "pkg-config finds the gex.pc of $PREFIX" same "$(pkg-config --variable=prefix gex)" "$PREFIX"
libdir=$(pkg-config --variable=libdir gex)
case $libdir in
/usr/lib|/usr/lib64|/lib|/usr/lib/*-*-*) skip "$libdir is a system folder: not on LD_LIBRARY_PATH";;
*) check "LD_LIBRARY_PATH starts with $libdir" same "$(first "${LD_LIBRARY_PATH-}")" "$libdir";;
esac
case $MANDIR in
/usr/share/man) skip "$MANDIR is a system folder: not on MANPATH";;
*) check "MANPATH starts with $MANDIR" same "$(first "${MANPATH-}")" "$MANDIR";;
esac
gexrun_page=$MANDIR/man1/gexrun.1
[ -f "$gexrun_page" ] || gexrun_page=$gexrun_page.gz   # as Debian installs it
if [ ! -f "$gexrun_page" ]; then
    check "gexrun(1) is installed in $MANDIR/man1" false
elif ! type -P man >/dev/null; then
    skip "man -w gexrun: no man (apt-get install man-db)"
else
    check "man -w gexrun is $gexrun_page (got $(man -w gexrun 2>&1))" \
        same "$(man -w gexrun 2>/dev/null)" "$gexrun_page"
fi
if [ -n "${GASNET_PREFIX-}" ]; then
    check "GASNET_PREFIX=$GASNET_PREFIX holds the GASNet view (gasnet_config.h)" \
        test -e "$GASNET_PREFIX/gasnet_config.h"
else
    skip "GASNET_PREFIX: this installation has no GASNet view"
fi
check "module help gex" eval 'module help gex 2>&1 | grep -q "gexrun -n 4"'
# shellcheck disable=SC2016  # expanded by eval
check "module whatis gex" eval 'module whatis gex 2>&1 | grep -q "Version: ${GEX_VERSION-}"'

rm -rf "${WORK:?}/$label" && mkdir -p "$WORK/$label" && cd "$WORK/$label" || exit 1
# shellcheck disable=SC2046  # the flags are words
if out=$(cc "$WORK/hello.c" $(pkg-config --cflags --libs gex) 2>&1); then
    pass "cc hello.c \$(pkg-config --cflags --libs gex)"
    if out=$(gexrun -n 4 --timeout 60 ./a.out 2>&1); then
        pass "gexrun -n 4 --timeout 60 ./a.out"
    else
        fail "gexrun -n 4 --timeout 60 ./a.out: status $?"
    fi
    printf '%s\n' "$out" | sed 's/^/# /'
    # rank r got its left neighbour's greeting, each rank exactly once
    ranks=$(printf '%s\n' "$out" | sed -n 's/^rank \([0-3]\) received: "hello from rank \([0-3]\) of 4"$/\1 \2/p' |
        awk '($2 + 1) % 4 == $1 {print $1}' | sort -n | tr '\n' ' ')
    check "4 distinct ranks printed (${ranks:-none})" [ "$ranks" = "0 1 2 3 " ]
else
    fail "cc hello.c \$(pkg-config --cflags --libs gex)"
    printf '%s\n' "$out" | sed 's/^/# /'
fi
cd "$WORK" || exit 1

if runmod unload gex; then pass "module unload gex"; else fail "module unload gex: $(cat "$msgs")"; fi
case :${LOADEDMODULES-}: in
*:gex/*) fail "gex is still in LOADEDMODULES='${LOADEDMODULES}'";;
esac
# Lmod writes a search path that ends in an empty entry ("dir:", which for
# MANPATH means "and then the system's") as "dir::" once it has changed it:
# the same search path, so trailing colons compare as one.
trail() { sed -e 's/::*$/:/'; }
after=$(snapshot)
for v in $vars; do
    b=$(printf '%s\n' "$before" | grep "^${v}[ =]")
    a=$(printf '%s\n' "$after" | grep "^${v}[ =]")
    if [ "$a" = "$b" ]; then
        pass "after unload, $v is as before ($b)"
    elif [ "$(printf '%s\n' "$a" | trail)" = "$(printf '%s\n' "$b" | trail)" ]; then
        pass "after unload, $v is as before ($b; now '${a#*=}', the same search path)"
    else
        fail "after unload, $v is '$a', not '$b'"
    fi
done
[ $fails = 0 ]
EOF

# run_part LABEL MODDIR
run_part() {
    local label=$1 dir=$2
    echo "# ---- $label modulefile: $dir"
    if [ ! -d "$dir/gex" ]; then
        echo "FAIL: [$label] $dir/gex is missing (no modulefile installed)"
        fails=$((fails + 1))
        return
    fi
    env -i HOME="$HOME" PATH=/usr/bin:/bin LMOD_INIT="$lmod_init" WORK="$work" \
        PREFIX="$prefix" BINDIR="$bindir" MANDIR="$mandir" \
        bash --noprofile --norc "$work/inner.sh" "$label" "$dir" || fails=$((fails + 1))
}

run_part lua "$moddir"
# Lmod reads a Tcl modulefile through tclsh (or its tcl2lua.so built on libtcl)
if env -i PATH=/usr/bin:/bin bash -c 'type -P tclsh' >/dev/null; then
    run_part tcl "$tclmoddir"
else
    echo "SKIP: [tcl] no tclsh, so Lmod cannot read Tcl modulefiles (apt-get install tcl)"
fi

if [ $fails = 0 ]; then
    echo "# all module checks passed"
    exit 0
fi
echo "# module checks failed"
exit 1
