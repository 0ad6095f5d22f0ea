#!/bin/sh
# test_env_garbage.sh: garbage in every environment variable GEX reads
# (the list is `gex-info --env`'s, so a new variable is covered at once).
#
# The rule (docs/environment.md, "Unreadable values"): unset and empty mean
# "use the default"; any other value the variable's grammar does not accept
# ends the job with a non-zero status and a message naming the variable, within
# seconds, leaving nothing in /dev/shm.  Only free-form variables (a host
# name, a folder list, OpenSHMEM's "any value" switches) accept anything.
#
# Each variable is tested with the program that reads it (found from the
# GASNET_VERBOSEENV listing of a clean run), under 2 ranks, with the values
# "zz", "-1" and "99999999999999999999999".  Variables no program of this
# build reads (the other conduits' when they are not built, the gasnetrun_*
# scripts') are listed as skipped; gexrun's own are checked here too.
set -u
GEXRUN=${GEXRUN:?set GEXRUN}
TOP=${TOP_BUILDDIR:?set TOP_BUILDDIR}
GEXINFO=$TOP/tools/gex-info
[ -x "$GEXINFO" ] || GEXINFO=$TOP/gex-info
if [ "${1:-}" != --job ]; then
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/test_env_garbage.XXXXXX") || exit 2
    trap 'rm -rf "$TMP"' EXIT
fi
passed=0 failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*"; sed 's/^/    err: /' "$TMP/err" | head -n 8; }

# Free-form: any value is valid (the job must run normally).
FREEFORM=" GEX_CONDUIT_PATH GEX_HOST_ID GASNET_BACKTRACE_TYPE SHMEM_DEBUG SHMEM_VERSION SHMEM_INFO "

# Candidate runs ("program conduit"): the programs that between them read
# every setting of the core, the layers and OpenSHMEM (checked: the
# reference layers, GEX_FORCE_REFERENCE=all, read no other), and mp_init
# under each other conduit plug-in this build has.
RUNS="tests/mp/mp_init - tests/mp/mp_atomics - tests/mp/mp_coll - tests/mp/mp_vis -
tests/shmem/shmem_ctx -"
for c in ofi ucx; do
    [ -e "$TOP/.libs/libgex-conduit-$c.so" ] && RUNS="$RUNS tests/mp/mp_init $c"
done

# The programs are linked -no-install (Makefile.am): the binary itself, no
# libtool wrapper script, which cost five times the job's own run time.
real_prog() { echo "$TOP/$1"; }

# job SLOT VAR VALUE PROG CONDUIT: one 2-rank job; its status, time and
# /dev/shm leftovers go to $TMP/SLOT.res ($0 --job runs it for xargs -P)
job() {
    slot=$1 var=$2 val=$3 prog=$4 conduit=$5
    copt=
    [ "$conduit" != - ] && copt="--conduit $conduit"
    t0=$(date +%s%3N)
    # shellcheck disable=SC2086
    env "$var=$val" "$GEXRUN" -n 2 --timeout 30 $copt "$(real_prog "$prog")" \
        >"$TMP/$slot.out" 2>"$TMP/$slot.err" </dev/null &
    pid=$!
    wait $pid
    rc=$?
    ms=$(( $(date +%s%3N) - t0 ))
    # gexrun names the job j<its pid>-...: nothing of it may stay in /dev/shm
    left=$(ls /dev/shm 2>/dev/null | grep -c "^gex-j$pid-")
    echo "$rc $ms $left" >"$TMP/$slot.res"
}
if [ "${1:-}" = --job ]; then
    TMP=$2
    shift 2
    job "$@"
    exit 0
fi

# judge SLOT VAR VALUE PROG CONDUIT: the verdict on a finished job
judge() {
    read -r rc ms left <"$TMP/$1.res"
    cp "$TMP/$1.err" "$TMP/err"
    what="$2='$3' ($4${5#-})"
    [ "$left" -eq 0 ] || bad "$what: $left /dev/shm objects left"
    [ "$ms" -le 20000 ] || bad "$what: took $ms ms"
    case $FREEFORM in
    *" $2 "*)
        if [ "$rc" -eq 0 ]; then ok; else bad "$what: exit $rc, but any value is valid"; fi ;;
    *)
        if [ "$rc" -ne 0 ] && grep -q "$2" "$TMP/err"; then ok
        else bad "$what: exit $rc, want non-zero and a message naming $2"; fi ;;
    esac
}

# ---- which run reads which variable (GASNET_VERBOSEENV's listing) ----
: >"$TMP/readers"
set -- $RUNS
while [ $# -ge 2 ]; do
    job base GASNET_VERBOSEENV 1 "$1" "$2"
    read -r rc ms left <"$TMP/base.res"
    if [ "$rc" -ne 0 ]; then cp "$TMP/base.err" "$TMP/err"; bad "clean run of $1 ($2): exit $rc"
    else
        sed -n 's/^.*GEX ENV parameter: \([A-Z0-9_]*\) = .*/\1/p' "$TMP/base.err" | sort -u |
            while read -r v; do echo "$v $1 $2"; done >>"$TMP/readers"
    fi
    shift 2
done
# OpenSHMEM reads its variables with getenv (they are not GEX settings)
[ -x "$TOP/tests/shmem/shmem_ctx" ] &&
    printf '%s tests/shmem/shmem_ctx -\n' SHMEM_SYMMETRIC_SIZE GEX_SHMEM_CTX_EP \
        SHMEM_DEBUG SHMEM_VERSION SHMEM_INFO >>"$TMP/readers"

# ---- garbage in each variable ----
skipped=
: >"$TMP/queue"
for var in $("$GEXINFO" --env | awk '{print $1}'); do
    case $var in *'*'*|GEX_RUN_TIMEOUT) continue ;; esac   # a family; gexrun's (below)
    line=$(grep "^$var " "$TMP/readers" | head -n 1)
    if [ -z "$line" ]; then skipped="$skipped $var"; continue; fi
    for val in zz -1 99999999999999999999999; do echo "$var $val ${line#* }" >>"$TMP/queue"; done
done
# a pool of four jobs at a time (most end at once, in a fatal error at init)
awk '{ print "s" NR, $0 }' "$TMP/queue" >"$TMP/jobs"
xargs -P 4 -L 1 sh "$0" --job "$TMP" <"$TMP/jobs"
while read -r slot var val prog conduit; do judge "$slot" "$var" "$val" "$prog" "$conduit"
done <"$TMP/jobs"

# ---- empty means unset: every variable empty at once, a normal run ----
set --
for var in $("$GEXINFO" --env | awk '{print $1}'); do
    case $var in *'*'*|GEX_CONDUIT_PATH) ;; *) set -- "$@" "$var=" ;; esac
done
env "$@" "$GEXRUN" -n 2 --timeout 30 "$(real_prog tests/mp/mp_init)" >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
if [ $rc -eq 0 ]; then ok; else bad "every variable empty: exit $rc, want 0"; fi

# ---- gexrun's GEX_RUN_TIMEOUT: garbage is a usage error, no job starts ----
for val in zz -1 99999999999999999999999x 1e999; do
    GEX_RUN_TIMEOUT=$val "$GEXRUN" -n 2 "$(real_prog tests/mp/mp_init)" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    if [ $rc -eq 2 ] && grep -q "GEX_RUN_TIMEOUT" "$TMP/err" && ! grep -q PASS "$TMP/out"
    then ok; else bad "GEX_RUN_TIMEOUT='$val': exit $rc, want 2, a message, no job"; fi
done
GEX_RUN_TIMEOUT= "$GEXRUN" -n 2 "$(real_prog tests/mp/mp_init)" >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
if [ $rc -eq 0 ]; then ok; else bad "GEX_RUN_TIMEOUT='': exit $rc, want 0 (empty is unset)"; fi

# ---- GASNET_PSHM_NODES: read by a program started without a launcher ----
for val in zz -1 99999999999999999999999; do
    GASNET_PSHM_NODES=$val timeout 30 "$(real_prog tests/mp/mp_init)" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q GASNET_PSHM_NODES "$TMP/err"; then ok
    else bad "GASNET_PSHM_NODES='$val' (no launcher): exit $rc, want non-zero naming it"; fi
done
# ---- the gasnetrun_smp launcher script's: refused before any rank starts ----
GASNETRUN=$TOP/compat/gasnetrun_smp
if [ -x "$GASNETRUN" ]; then
    for val in zz -1; do
        GASNET_SMP_SPAWNER=$val "$GASNETRUN" -n 2 "$(real_prog tests/mp/mp_init)" \
            >"$TMP/out" 2>"$TMP/err" </dev/null
        rc=$?
        if [ $rc -ne 0 ] && grep -q GASNET_SMP_SPAWNER "$TMP/err" && [ ! -s "$TMP/out" ]; then ok
        else bad "GASNET_SMP_SPAWNER='$val': exit $rc, want non-zero naming it, no job"; fi
        GASNET_PSHM_NODES=$val "$GASNETRUN" "$(real_prog tests/mp/mp_init)" \
            >"$TMP/out" 2>"$TMP/err" </dev/null
        rc=$?
        if [ $rc -ne 0 ] && grep -q GASNET_PSHM_NODES "$TMP/err" && [ ! -s "$TMP/out" ]; then ok
        else bad "gasnetrun_smp GASNET_PSHM_NODES='$val': exit $rc, want non-zero naming it"; fi
    done
    skipped=$(echo "$skipped" | tr ' ' '\n' | grep -vx 'GASNET_SMP_SPAWNER' | tr '\n' ' ')
fi
skipped=$(echo "$skipped" | tr ' ' '\n' | grep -vx 'GASNET_PSHM_NODES' | tr '\n' ' ')

echo "not read by any program of this build (skipped):$skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 100 ]
