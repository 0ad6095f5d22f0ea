#!/bin/sh
# test_runtime_like.sh: a C++ PGAS runtime's build and launcher, mimicked,
# against the installed GEX (docs/compatibility.md, "What a runtime's build
# may rely on").  A runtime is configured with the folder of a GASNet build
# (here: the GASNet build-directory view of the staged install, see
# tests/compat.inc), and then, as such runtimes do:
#  1. checks DIR/gasnet_config.h for the GASNet-EX spec version it needs,
#     reading the first line that names EX_SPEC_VERSION_MAJOR/_MINOR;
#  2. runs `make -C DIR all` and asks `make -C DIR echovar VARNAME=CONDUITS`;
#  3. fills its own template from DIR/config.status --file=OUT:IN (PERL,
#     CONDUITS, EXESUFFIX, CC_FAMILY, CXX_FAMILY, CC_SUBFAMILY,
#     CXX_SUBFAMILY, GASNET_THREAD_DEFINES/LIBS) and checks every answer;
#  4. for smp and ucx: `make -C DIR/<conduit>-conduit seq`, then builds
#     tests/compat/runtime_like.cpp by including
#     DIR/<conduit>-conduit/<conduit>-seq.mak (the conduit macro is checked
#     at compile time), and finds the conduit in the executable's ident
#     strings, as the runtime's launcher does;
#  5. launches it as the launcher does: smp with GASNET_PSHM_NODES=N and no
#     spawner, ucx with DIR/bin/gasnetrun_ucx -n N, at 2 and 4 ranks, with
#     shared memory on and off (GEX_PSHM=0: an smp build then runs 1 rank,
#     and refuses more), with the GASNET_MAX_SEGSIZE the launcher sets;
#  6. `make -C DIR install prefix=P` writes a GASNet install tree, and the
#     program builds through P's fragment too; `make -C DIR clean` succeeds.
# Prints "test_runtime_like: N passed, M failed"; exits 77 (skipped) when
# configure found no C++ compiler or the install has no view.
set -u
builddir=${TOP_BUILDDIR:-.}
srcdir=$(cd "${srcdir:-.}" && pwd)
env_file=$builddir/tests/compat/staged.env
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "test_runtime_like: FAIL: $*"; }
finish() {
    echo "test_runtime_like: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}
[ -f "$env_file" ] || { bad "$env_file is missing (tests/compat.inc)"; finish; }
. "$env_file"
if [ -z "$GEX_VIEWDIR" ]; then echo "test_runtime_like: configured --without-gasnet-view; skipped"; exit 77; fi
if [ -z "$GEX_CLIENT_CXX" ]; then echo "test_runtime_like: no C++ compiler; skipped"; exit 77; fi
stage=$GEX_STAGE
dir=$stage$GEX_VIEWDIR
# The fragments and the view's Makefiles look up every installed path
# under GEX_DESTDIR (a make variable, taken from the environment).
GEX_DESTDIR=$stage
export GEX_DESTDIR
# an smp program started with GASNET_PSHM_NODES finds gexrun on PATH when
# the installed bindir is not there yet (staged)
PATH=$stage$GEX_BINDIR:$PATH
make=${MAKE:-make}
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$make" --no-print-directory "$@"; }
work=$builddir/tests/compat/runtime-like
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
GEX_RUN_TIMEOUT=${GEX_RUN_TIMEOUT:-120}
export GEX_RUN_TIMEOUT

# ---- 1. the spec version, read the way a runtime's configure reads it ----
if [ -r "$dir/gasnet_config.h" ]; then ok; else bad "$dir/gasnet_config.h is not readable"; finish; fi
maj=$(grep 'EX_SPEC_VERSION_MAJOR' "$dir/gasnet_config.h" | head -1 | tr '\t' ' ' | sed -n 's/.* \([0-9][0-9]*\).*/\1/p')
min=$(grep 'EX_SPEC_VERSION_MINOR' "$dir/gasnet_config.h" | head -1 | tr '\t' ' ' | sed -n 's/.* \([0-9][0-9]*\).*/\1/p')
if [ "$maj.$min" = 0.19 ]; then ok; else bad "spec version read as '$maj.$min', expected 0.19"; fi

# ---- 2. make all and echovar ----
if mk -C "$dir" all >"$work/all.log" 2>&1; then ok; else bad "make -C DIR all:"; cat "$work/all.log"; fi
eval "$(mk -C "$dir" echovar VARNAME=CONDUITS)"
case " ${CONDUITS:-} " in *" smp "*) ok;; *) bad "echovar CONDUITS gave '${CONDUITS:-}'";; esac

# ---- 3. config.status ----
cat >"$work/runtime_config.mak.in" <<'EOF'
PERL = @PERL@
CONDUITS = @CONDUITS@
EXESUFFIX = @EXESUFFIX@
GASNET_CC_FAMILY = @CC_FAMILY@
GASNET_CXX_FAMILY = @CXX_FAMILY@
GASNET_CC_SUBFAMILY = @CC_SUBFAMILY@
GASNET_CXX_SUBFAMILY = @CXX_SUBFAMILY@
TEST_THREADED_FLAGS = @GASNET_THREAD_DEFINES@ @GASNET_THREAD_LIBS@
EOF
if (cd "$work" && "$dir/config.status" --file=runtime_config.mak:runtime_config.mak.in) \
        >"$work/config.log" 2>&1; then ok
else bad "config.status --file failed:"; cat "$work/config.log"; fi
if grep -q '@' "$work/runtime_config.mak" 2>/dev/null; then
    bad "config.status left a variable unanswered:"; cat "$work/runtime_config.mak"
else ok; fi
perl=$(sed -n 's/^PERL = //p' "$work/runtime_config.mak")
if [ -n "$perl" ] && "$perl" -e 'exit 0' 2>/dev/null; then ok; else bad "PERL='$perl' does not run"; fi
cc_family=$(sed -n 's/^GASNET_CC_FAMILY = //p' "$work/runtime_config.mak")
cxx_family=$(sed -n 's/^GASNET_CXX_FAMILY = //p' "$work/runtime_config.mak")
case $("${CC:-cc}" --version 2>/dev/null | head -1) in
    *clang*) want_family=Clang;;
    *gcc*|*GCC*) want_family=GNU;;
    *) want_family=$cc_family;;
esac
if [ "$cc_family" = "$want_family" ] && [ -n "$cxx_family" ] && [ "$cxx_family" != Unknown ]; then ok
else bad "CC_FAMILY='$cc_family' (expected $want_family), CXX_FAMILY='$cxx_family'"; fi
if [ "$(echo @CONDUITS@ | "$dir/config.status" --file=-)" = "$CONDUITS" ]; then ok
else bad "echo @CONDUITS@ | config.status --file=- disagrees with echovar"; fi
if "$dir/config.status" --version | grep -q "GEX"; then ok; else bad "config.status --version"; fi

# ---- 4 and 5: build and launch per conduit ----
cat >"$work/Makefile" <<'EOF'
# the runtime's way: include the conduit's fragment from the GASNet folder
include $(GASNET)/$(CONDUIT)-conduit/$(CONDUIT)-seq.mak
include runtime_config.mak
runtime_like$(EXESUFFIX): runtime_like.o
	$(GASNET_CXX) $(GASNET_LDFLAGS) -o $@ runtime_like.o $(GASNET_LIBS)
runtime_like.o: $(SRC)
	$(GASNET_CXX) $(GASNET_CXXCPPFLAGS) $(GASNET_CXXFLAGS) -std=c++11 -c -o $@ $(SRC)
EOF
src=$srcdir/tests/compat/runtime_like.cpp
build() { # conduit, GASNet folder, work folder
    cuc=$(echo "$1" | tr a-z A-Z)
    mkdir -p "$3"
    cp "$work/Makefile" "$work/runtime_config.mak" "$3/"
    (cd "$3" && mk GASNET="$2" CONDUIT="$1" SRC="$src" MANUAL_DEFINES="-DEXPECT_CONDUIT_$cuc") \
        >"$3/build.log" 2>&1
}
launch() { # label, expected neighbourhood ("all" or "one"), command...
    label=$1; nb=$2; shift 2
    if env GASNET_MAX_SEGSIZE=128.0MB/P "$@" "$nb" >"$cwork/run.log" 2>&1 &&
       grep -q "^runtime_like: .* ranks, nbrhd .*: OK" "$cwork/run.log"; then
        ok; grep "^runtime_like:" "$cwork/run.log"
    else
        bad "$label:"; cat "$cwork/run.log"
    fi
}
for c in smp ucx; do
    case " $CONDUITS " in *" $c "*) ;; *) continue;; esac
    cwork=$work/$c
    if mk -C "$dir/$c-conduit" seq >"$work/seq-$c.log" 2>&1 &&
       mk -C "$dir/$c-conduit" "$c-seq.mak" >>"$work/seq-$c.log" 2>&1; then ok
    else bad "make -C DIR/$c-conduit seq:"; cat "$work/seq-$c.log"; fi
    if build "$c" "$dir" "$cwork"; then ok
    else bad "building through DIR/$c-conduit/$c-seq.mak failed:"; cat "$cwork/build.log"; continue; fi
    prog=$cwork/runtime_like
    # the launcher's test: the conduit named by the ident strings
    conduit=$(tr -c '[:print:]' '\n' <"$prog" | tr '$' '\n' | sed -n 's/^GASNetConduitName: *\([A-Za-z]*\).*/\1/p' |
              head -1 | tr A-Z a-z)
    if [ "$conduit" = "$c" ]; then ok; else bad "ident GASNetConduitName is '$conduit', expected $c"; fi
    case $c in
    smp)
        for n in 2 4; do
            launch "GASNET_PSHM_NODES=$n ./runtime_like" all env GASNET_PSHM_NODES=$n "$prog"
        done
        launch "GEX_PSHM=0 GASNET_PSHM_NODES=1 ./runtime_like" one \
            env GEX_PSHM=0 GASNET_PSHM_NODES=1 "$prog"
        if env GEX_PSHM=0 GASNET_PSHM_NODES=2 "$prog" one >"$cwork/refuse.log" 2>&1; then
            bad "an smp build ran 2 ranks with shared memory off"
        elif grep -q "needs every rank" "$cwork/refuse.log"; then ok
        else bad "smp build, 2 ranks, shared memory off: no clear refusal:"; cat "$cwork/refuse.log"; fi
        ;;
    *)
        spawner=$dir/bin/gasnetrun_$c
        [ -x "$spawner" ] || spawner=$dir/$c-conduit/contrib/gasnetrun_$c
        for n in 2 4; do
            launch "gasnetrun_$c -n $n" all "$spawner" -n $n "$prog"
            launch "GEX_PSHM=0 gasnetrun_$c -n $n" one env GEX_PSHM=0 "$spawner" -n $n "$prog"
        done
        ;;
    esac
done

# ---- 6. make install prefix=P, and clean ----
inst=$work/gasnet-install
if mk -C "$dir" install prefix="$inst" >"$work/install.log" 2>&1 &&
   [ -f "$inst/include/smp-conduit/smp-seq.mak" ] && [ -x "$inst/bin/gasnetrun_smp" ] &&
   [ -f "$inst/include/gasnetex.h" ] && [ -f "$inst/lib/pkgconfig/gasnet-smp-seq.pc" ]; then ok
else bad "make -C DIR install prefix=$inst:"; cat "$work/install.log"; ls -R "$inst" 2>&1 | head -20; fi
cwork=$work/installed-smp
if build smp "$inst/include" "$cwork"; then
    ok
    launch "built through the installed tree's smp-seq.mak, GASNET_PSHM_NODES=2" all \
        env GASNET_PSHM_NODES=2 "$cwork/runtime_like"
else bad "building through $inst/include/smp-conduit/smp-seq.mak:"; cat "$cwork/build.log"; fi
if mk -C "$dir" clean >"$work/clean.log" 2>&1 && [ -f "$dir/config.status" ]; then ok
else bad "make -C DIR clean:"; cat "$work/clean.log"; fi
finish
