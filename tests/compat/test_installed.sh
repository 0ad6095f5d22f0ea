#!/bin/sh
# test_installed.sh: GEX used exactly as a GASNet client uses an installed
# GASNet.  `make check` first installs GEX into a staging tree
# (make install DESTDIR=$TOP_BUILDDIR/_compat_destdir, see tests/compat.inc)
# and records where in tests/compat/staged.env.  This script then:
#  1. checks the installed names: gasnet.h, gasnet_tools.h, gasnet_config.h,
#     smp-conduit/smp-{seq,par,parsync}.mak, gasnet-smp-*.pc,
#     gasnet_tools-{seq,par}.{mak,pc}, libgasnet_tools-*.a, gasnetrun_smp;
#  2. builds compat_client.c only through smp-par.mak and tools_only.c only
#     through gasnet_tools-par.mak (tests/compat/Makefile.client), with
#     GEX_DESTDIR pointing the fragments at the staging tree;
#  3. checks the pkg-config files give the fragments' answers;
#  4. runs tools_only, then compat_client with the installed gasnetrun_smp
#     at 1, 2 and 4 ranks (and once with -n from GASNET_PSHM_NODES), started
#     directly with GASNET_PSHM_NODES=3 (no launcher), and
#     gasnetrun_smp's option handling;
#  5. builds examples/hello.c with `pkg-config --cflags --libs gex` (the
#     README's way) and with a bare -L, and runs both on 4 ranks with gexrun
#     and no LD_LIBRARY_PATH (gex-core.pc's rpath; gexrun's library folder);
#     The same for examples/shmem_ring.c with `pkg-config gex-shmem`;
#  6. conduit identity (docs/compatibility.md): for every conduit whose
#     fragments are installed, compat_client built through <conduit>-par.mak
#     carries GASNet's ident strings naming that conduit, runs on it with
#     gasnetrun_<conduit> (network conduits with shared memory on and off),
#     and refuses at start, with a message and a non-zero status, to run on
#     another conduit; an smp-built program refuses a job whose ranks do not
#     all share memory.
# Prints "test_installed: N passed, M failed"; every job has a time limit
# (GEX_RUN_TIMEOUT, default 120 s).
set -u
builddir=${TOP_BUILDDIR:-.}
srcdir=$(cd "${srcdir:-.}" && pwd)  # absolute: the build below runs in another folder
env_file=$builddir/tests/compat/staged.env
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "test_installed: FAIL: $*"; }
finish() {
    echo "test_installed: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}

if [ ! -f "$env_file" ]; then
    bad "$env_file is missing: the staged install (tests/compat.inc) did not run"
    finish
fi
. "$env_file"
stage=$GEX_STAGE
inc=$stage$GEX_INCLUDEDIR
lib=$stage$GEX_LIBDIR
bin=$stage$GEX_BINDIR
pcdir=$stage$GEX_PKGCONFIGDIR

# ---- 1. installed names ----
for f in "$inc/gasnet.h" "$inc/gasnetex.h" "$inc/gasnet_tools.h" "$inc/gasnet_config.h" \
         "$inc/gasnet_portable_platform.h" "$inc/gex/gasnet1_am.h" \
         "$inc/smp-conduit/smp-seq.mak" "$inc/smp-conduit/smp-par.mak" \
         "$inc/smp-conduit/smp-parsync.mak" "$inc/gasnet_tools-seq.mak" \
         "$inc/gasnet_tools-par.mak" "$pcdir/gasnet-smp-seq.pc" "$pcdir/gasnet-smp-par.pc" \
         "$pcdir/gasnet-smp-parsync.pc" "$pcdir/gasnet_tools-seq.pc" "$pcdir/gasnet_tools-par.pc" \
         "$lib/libgasnet_tools-seq.a" "$lib/libgasnet_tools-par.a" "$bin/gexrun"; do
    if [ -f "$f" ]; then ok; else bad "not installed: $f"; fi
done
if [ -x "$bin/gasnetrun_smp" ]; then ok; else bad "not installed (executable): $bin/gasnetrun_smp"; fi
for mode in seq par parsync; do
    mode_uc=$(echo $mode | tr a-z A-Z)
    if grep -q "^GASNET_DEFINES = -DGASNET_$mode_uc -DGASNET_CONDUIT_SMP" \
            "$inc/smp-conduit/smp-$mode.mak"; then ok
    else bad "smp-$mode.mak does not define GASNET_$mode_uc"; fi
done

# ---- 2. build through the fragments only ----
work=$builddir/tests/compat/installed-build
rm -rf "$work"
mkdir -p "$work"
make=${MAKE:-make}
# A clean make: not the jobserver or flags of the make running the tests.
if (cd "$work" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$make" -f "$srcdir/tests/compat/Makefile.client" \
        GASNET_MAK="$inc/smp-conduit/smp-par.mak" TOOLS_MAK="$inc/gasnet_tools-par.mak" \
        GEX_DESTDIR="$stage" SRCDIR="$(cd "$srcdir/tests/compat" && pwd)" all) \
        >"$work/build.log" 2>&1; then
    ok
else
    bad "building through smp-par.mak / gasnet_tools-par.mak failed:"
    cat "$work/build.log"
    finish
fi
# The programs must need no GEX library from the build tree.
if grep -q "$(cd "$builddir" && pwd)/\.libs" "$work/build.log"; then
    bad "the fragment build referred to the build tree's libraries"
else ok; fi
if ldd "$work/tools_only_fragment" 2>/dev/null | grep -q "libgex"; then
    bad "tools_only (fragment build) links a GEX library"
else ok; fi

# ---- 3. pkg-config gives the same answers ----
if command -v pkg-config >/dev/null 2>&1; then
    pc() { PKG_CONFIG_PATH=$pcdir pkg-config --define-prefix "$@"; }
    mak_cc=$(sed -n 's/^GASNET_CC = //p' "$inc/smp-conduit/smp-par.mak")
    if [ "$(pc gasnet-smp-par --variable=GASNET_CC)" = "$mak_cc" ]; then ok
    else bad "gasnet-smp-par.pc GASNET_CC differs from smp-par.mak ($mak_cc)"; fi
    cflags=$(pc gasnet-smp-par --cflags)
    case $cflags in *"-DGASNET_PAR"*"-I$inc"*) ok;;
        *) bad "gasnet-smp-par.pc --cflags is '$cflags'";; esac
    libs=$(pc gasnet-smp-par --libs)
    case $libs in *"-L$lib"*"-lgex-core"*) ok;;
        *) bad "gasnet-smp-par.pc --libs is '$libs'";; esac
    case $(pc gasnet_tools-seq --cflags) in *GASNETT_THREAD_SINGLE*) ok;;
        *) bad "gasnet_tools-seq.pc does not select GASNETT_THREAD_SINGLE";; esac
else
    echo "test_installed: pkg-config not found; .pc checks skipped"
fi

# ---- 4. run ----
GEX_RUN_TIMEOUT=${GEX_RUN_TIMEOUT:-120}
export GEX_RUN_TIMEOUT
if "$work/tools_only_fragment" >"$work/tools.log" 2>&1; then ok
else bad "tools_only (fragment build) failed:"; cat "$work/tools.log"; fi
cat "$work/tools.log"

run_client() { # label, then the launcher command
    label=$1
    shift
    if "$@" "$work/compat_client" >"$work/run.log" 2>&1 &&
       grep -q "compat_client on [0-9]* rank(s): [0-9]* passed, 0 failed" "$work/run.log"; then
        ok
        grep "compat_client on" "$work/run.log"
    else
        bad "compat_client $label:"
        cat "$work/run.log"
    fi
}
for n in 1 2 4; do
    run_client "gasnetrun_smp -n $n" "$bin/gasnetrun_smp" -n "$n"
done
run_client "GASNET_PSHM_NODES=3 gasnetrun_smp" env GASNET_PSHM_NODES=3 "$bin/gasnetrun_smp"
run_client "gasnetrun_smp -np 2 -N 1 -E X,Y" "$bin/gasnetrun_smp" -np 2 -N 1 -E X,Y -v
# GASNet's smp-conduit way, with no launcher: the program starts the job
run_client "GASNET_PSHM_NODES=3 ./prog" env GASNET_PSHM_NODES=3 PATH="$bin:$PATH"
if env GASNET_PSHM_NODES=3 PATH="$bin:$PATH" "$work/compat_client" 2>&1 |
        grep -q "compat_client on 3 rank(s)"; then ok
else bad "GASNET_PSHM_NODES=3 ./compat_client did not run 3 ranks"; fi

# Option handling
out=$("$bin/gasnetrun_smp" -t -n 2 ./prog a b 2>&1)
case $out in *"gexrun -n 2 --conduit smp ./prog a b"*) ok;; *) bad "gasnetrun_smp -t printed '$out'";; esac
if "$bin/gasnetrun_smp" -N 2 -n 2 /bin/true >/dev/null 2>&1; then
    bad "gasnetrun_smp accepted -N 2"
else ok; fi
if env -u GASNET_PSHM_NODES "$bin/gasnetrun_smp" /bin/true >/dev/null 2>&1; then
    bad "gasnetrun_smp ran without -n or GASNET_PSHM_NODES"
else ok; fi
if "$bin/gasnetrun_smp" -n 1 /bin/false >/dev/null 2>&1; then
    bad "gasnetrun_smp hid a failing program's status"
else ok; fi

# ---- 5. the README's way: pkg-config gex and gexrun, no LD_LIBRARY_PATH ----
# The staged prefix is outside the linker's search path, like a module tree.
# A client linked through gex.pc must start from its rpath; one linked with a
# bare -L must start because gexrun adds its own library folder.
run_hello() { # label, program, gexrun (the environment has no LD_LIBRARY_PATH)
    if env -u LD_LIBRARY_PATH "$3" -n 4 --timeout "$GEX_RUN_TIMEOUT" "$2" >"$work/hello.log" 2>&1 &&
       grep -q "all 4 ranks said hello" "$work/hello.log"; then ok
    else bad "$1:"; cat "$work/hello.log"; fi
}
if command -v pkg-config >/dev/null 2>&1; then
    pc() { PKG_CONFIG_PATH=$pcdir pkg-config --define-prefix "$@"; }
    case $(pc --libs gex) in
        *"-Wl,-rpath,$lib "*|*"-Wl,-rpath,$lib") rpath=yes;;
        *) rpath=no;;
    esac
    # configure adds the rpath unless libdir is a system folder (never in tests)
    if [ "$rpath" = yes ]; then ok; else bad "pkg-config --libs gex has no -Wl,-rpath,$lib: '$(pc --libs gex)'"; fi
    if ${CC:-cc} -o "$work/hello_pc" "$srcdir/examples/hello.c" $(pc --cflags --libs gex) \
            >"$work/hello_pc.log" 2>&1; then
        ok
        # another gexrun (the build tree's) adds nothing: the rpath alone must do
        run_hello "hello linked by pkg-config gex, run by the build tree's gexrun" \
            "$work/hello_pc" "$builddir/gexrun"
        run_hello "hello linked by pkg-config gex, run by the installed gexrun" \
            "$work/hello_pc" "$bin/gexrun"
    else
        bad "cc \$(pkg-config --cflags --libs gex) failed:"; cat "$work/hello_pc.log"
    fi
    # OpenSHMEM (docs/shmem.md): examples/shmem_ring.c through pkg-config
    # gex-shmem, 4 PEs; every PE checks its neighbour's put, the reduction
    # and the atomic count, and prints them
    if ${CC:-cc} -o "$work/shmem_ring" "$srcdir/examples/shmem_ring.c" \
            $(pc --cflags --libs gex-shmem) >"$work/shmem_pc.log" 2>&1; then
        ok
        if env -u LD_LIBRARY_PATH "$bin/gexrun" -n 4 --timeout "$GEX_RUN_TIMEOUT" \
                "$work/shmem_ring" >"$work/shmem.log" 2>&1 &&
           [ "$(grep -c 'sum of PEs 6, count 4$' "$work/shmem.log")" = 4 ]; then ok
        else bad "shmem_ring on 4 PEs (pkg-config gex-shmem):"; cat "$work/shmem.log"; fi
    else
        bad "cc \$(pkg-config --cflags --libs gex-shmem) failed:"; cat "$work/shmem_pc.log"
    fi
fi
if ${CC:-cc} -o "$work/hello_bare" "$srcdir/examples/hello.c" -I"$inc" -L"$lib" \
        -lgex-coll -lgex-am -lgex-core >"$work/hello_bare.log" 2>&1; then
    ok
    run_hello "hello linked with a bare -L, run by the installed gexrun" \
        "$work/hello_bare" "$bin/gexrun"
else
    bad "cc -L$lib failed:"; cat "$work/hello_bare.log"
fi

# ---- 6. conduit identity ----
expect_refusal() { # label, message part, command...
    label=$1; want=$2; shift 2
    if "$@" >"$work/refuse.log" 2>&1; then
        bad "$label: ran, expected a refusal at start"; cat "$work/refuse.log"
    elif grep -q "$want" "$work/refuse.log"; then ok
    else bad "$label: failed without saying '$want':"; cat "$work/refuse.log"; fi
}
for c in smp ofi ucx; do
    [ -f "$inc/$c-conduit/$c-par.mak" ] || continue
    cuc=$(echo $c | tr a-z A-Z)
    cwork=$work/conduit-$c
    mkdir -p "$cwork"
    if (cd "$cwork" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$make" \
            -f "$srcdir/tests/compat/Makefile.client" GASNET_MAK="$inc/$c-conduit/$c-par.mak" \
            TOOLS_MAK="$inc/gasnet_tools-par.mak" GEX_DESTDIR="$stage" \
            SRCDIR="$(cd "$srcdir/tests/compat" && pwd)" compat_client) >"$cwork/build.log" 2>&1; then
        ok
    else
        bad "building compat_client through $c-par.mak failed:"; cat "$cwork/build.log"; continue
    fi
    if grep -q "^GASNET_DEFINES = -DGASNET_PAR -DGASNET_CONDUIT_$cuc " "$inc/$c-conduit/$c-par.mak"
    then ok; else bad "$c-par.mak does not define GASNET_CONDUIT_$cuc alone"; fi
    idents=$(strings "$cwork/compat_client" | grep -F '$GASNet')
    for want in "\$GASNetConduitName: $cuc \$" "\$GASNetThreadModel: GASNET_PAR \$" \
                "\$GASNetConfig: " "\$GASNetEXAPIVersion: 0.19 \$"; do
        if printf '%s\n' "$idents" | grep -qF "$want"; then ok
        else bad "$c build: no ident string '$want' in the executable"; fi
    done
    case $c in
    smp) runs="default";;
    *) runs="default GASNET_SUPERNODE_MAXSIZE=1";;
    esac
    for extra in $runs; do
        [ "$extra" = default ] && extra=
        if env $extra "$bin/gasnetrun_$c" -n 2 "$cwork/compat_client" >"$cwork/run.log" 2>&1 &&
           grep -q "compat_client on 2 rank(s): [0-9]* passed, 0 failed" "$cwork/run.log"; then ok
        else bad "compat_client ($c build) under gasnetrun_$c -n 2 $extra:"; cat "$cwork/run.log"; fi
    done
    other=smp; [ "$c" = smp ] && other=ucx
    expect_refusal "$c build run with GEX_CONDUIT=$other" "was built for the $c conduit" \
        env GEX_CONDUIT=$other "$bin/gexrun" -n 2 "$cwork/compat_client"
    if [ "$c" = smp ]; then
        expect_refusal "smp build, 2 ranks without shared memory" "needs every rank" \
            env GASNET_SUPERNODE_MAXSIZE=1 "$bin/gexrun" -n 2 "$cwork/compat_client"
        if env GASNET_SUPERNODE_MAXSIZE=1 "$bin/gexrun" -n 1 "$cwork/compat_client" \
                >"$cwork/run1.log" 2>&1; then ok
        else bad "smp build, 1 rank without shared memory:"; cat "$cwork/run1.log"; fi
    fi
done
finish
