#!/bin/sh
# test_backtrace.sh: GASNET_BACKTRACE (README-gasnet-user) on a fatal signal,
# on a fatal GEX error and on gasnett_fatalerror, and nothing without it.
# Runs tests/compat/crash under gexrun; prints "N passed, M failed".
set -u
crash=$TOP_BUILDDIR/tests/compat/crash
pass=0
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
expect() { # want_backtrace(0|1) message-pattern env... -- how
    want=$1 pattern=$2
    shift 2
    env "$@" "$GEXRUN" -n 1 --timeout 60 "$crash" "$how" >"$out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        fail=$((fail + 1)); echo "FAIL: crash $how exited 0 ($*)"; return
    fi
    if ! grep -q "$pattern" "$out"; then
        fail=$((fail + 1)); echo "FAIL: crash $how ($*): no '$pattern' in:"; cat "$out"; return
    fi
    has=0
    grep -qi "backtrace" "$out" && has=1
    if [ $has -ne "$want" ]; then
        fail=$((fail + 1)); echo "FAIL: crash $how ($*): backtrace shown=$has, wanted $want:"
        cat "$out"; return
    fi
    pass=$((pass + 1))
}
how=segv;  expect 1 "caught fatal signal SIGSEGV" GASNET_BACKTRACE=1
how=segv;  expect 0 "" GASNET_BACKTRACE=0
how=segv;  expect 0 "" GASNET_BACKTRACE=1 GASNET_NO_CATCH_SIGNAL=SEGV
how=fatal; expect 1 "not registered" GASNET_BACKTRACE=yes
how=fatal; expect 0 "not registered" GASNET_BACKTRACE=1 GASNET_BACKTRACE_NODES=5-7
how=tools; expect 1 "deliberate failure 42" GASNET_BACKTRACE=1
how=tools; expect 0 "deliberate failure 42" GASNET_BACKTRACE=no
echo "test_backtrace: $pass passed, $fail failed"
[ $fail -eq 0 ]
