#!/bin/sh
# test_signals.sh: a rank that dies of a fatal signal ends the job with status
# 128 + signal (gexrun --help), with no backtrace unless GASNET_BACKTRACE asks
# for one, and gex_Client_Init leaves the process's signal handlers alone, on
# smp and, when it is built, on the ofi conduit with both providers.  (Debian's
# libfabric loads libinfinipath, whose constructor installs backtrace handlers
# for SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGINT and SIGTERM that exit(1).
# GEX's own SIGINT/SIGTERM/SIGHUP handlers are tested by tests/mp/test_exit.sh.)
# Runs tests/compat/crash; prints "N passed, M failed".
set -u
crash=$TOP_BUILDDIR/tests/compat/crash
pass=0
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
check() { # label want_status how env...
    label=$1 want=$2 how=$3
    shift 3
    env GASNET_SUPERNODE_MAXSIZE=1 "$@" "$GEXRUN" -n 2 --timeout 60 $conduit "$crash" "$how" \
        >"$out" 2>&1
    rc=$?
    if [ $rc -ne "$want" ]; then
        fail=$((fail + 1)); echo "FAIL: $label: crash $how ended with $rc, wanted $want:"
        cat "$out"; return
    fi
    if [ "$how" = segv ] && grep -qi "backtrace" "$out"; then
        fail=$((fail + 1)); echo "FAIL: $label: a backtrace without GASNET_BACKTRACE:"
        cat "$out"; return
    fi
    pass=$((pass + 1))
}
for c in smp ofi; do
    conduit="--conduit $c"
    if [ $c = ofi ] && [ ! -e "$TOP_BUILDDIR/.libs/libgex-conduit-ofi.so" ]; then
        echo "SKIP: the ofi conduit is not built"; continue
    fi
    providers="-"
    [ $c = ofi ] && providers="tcp;ofi_rxm sockets"
    for p in $providers; do
        penv="GEX_TEST_UNUSED=1"
        [ "$p" != - ] && penv="FI_PROVIDER=$p"
        check "$c $p SIGSEGV" 139 segv "$penv"
        # GEX itself takes SIGINT, SIGTERM and SIGHUP once initialised
        # (libgex-core/quit_signal.c); GASNET_NO_CATCH_SIGNAL keeps it off
        # them, so that any change is a conduit library's
        check "$c $p own handler kept" 42 keep "$penv" GASNET_NO_CATCH_SIGNAL=INT,TERM,HUP
    done
done
# SIGBUS: gexrun points at /dev/shm (segment pages are allocated at first
# touch, so a full /dev/shm shows up this way; docs/environment.md)
conduit="--conduit smp"
check "smp SIGBUS" 135 bus GEX_TEST_UNUSED=1
if grep -q "killed by signal 7 .*is /dev/shm full" "$out"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL: smp SIGBUS: gexrun gave no hint about /dev/shm:"; cat "$out"
fi
echo "test_signals: $pass passed, $fail failed"
[ $fail -eq 0 ]
