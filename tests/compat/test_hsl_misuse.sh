#!/bin/sh
# test_hsl_misuse.sh: handler-safe lock rules (spec: "Calls from restricted
# context").  Debug builds (configure --enable-debug) end the job with status
# 1 and a message for each misuse in tests/compat/hsl_misuse.c (re-locking an
# HSL the thread holds: a silent deadlock otherwise); every build runs the
# legal use to completion.  Polls and waits under an HSL (also what a
# handler returning with an HSL held leads to) are diagnosed too.
PROG=$TOP_BUILDDIR/tests/compat/hsl_misuse
. "$(dirname "$0")/../mp/fatal_check.sh"
if "$GEXRUN" -n 2 --timeout 60 "$PROG" legal >"$TMP/out" 2>"$TMP/err" </dev/null; then
    passed=$((passed + 1)); echo "ok   legal"
else
    failed=$((failed + 1)); echo "FAIL legal: exit status $?"; sed 's/^/    err: /' "$TMP/err" | head -n 20
fi
if [ $debug -eq 1 ]; then
    check unlock-unheld   "gex_HSL_Unlock/gasnet_hsl_unlock: hsl 0x[0-9a-f]+ is not held by the calling thread"
    check unlock-other    "gex_HSL_Unlock/gasnet_hsl_unlock: hsl 0x[0-9a-f]+ is not held by the calling thread \\(it holds 1 other handler-safe lock\\)"
    check relock          "gex_HSL_Lock/gasnet_hsl_lock: hsl 0x[0-9a-f]+ is already held by the calling thread \\(handler-safe locks are not recursive"
    check relock-deep     "gex_HSL_Lock/gasnet_hsl_lock: hsl 0x[0-9a-f]+ is already held by the calling thread"
    check am-under-hsl    "bad AM argument: an AM Request was issued while holding a handler-safe lock"
    check reply-under-hsl "bad AM argument: an AM Reply was issued while holding a handler-safe lock"
    check put-under-hsl   "gex_RMA_PutBlocking: .*called while holding a handler-safe lock"
    check poll-under-hsl  "gasnet_AMPoll: called while holding 1 handler-safe lock \\(spec: restricted context"
    check wait-under-hsl  "gex_NBI_Wait: called while holding 1 handler-safe lock \\(spec: restricted context"
    check handler-keeps-hsl "gasnet_AMPoll: called while holding 1 handler-safe lock"
else
    echo "skip handler-safe lock misuse checks: not a debug build (configure --enable-debug)"
fi
finish
