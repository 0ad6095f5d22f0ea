#!/bin/sh
# test_freeze.sh: GASNET_FREEZE_ON_ERROR (README-gasnet-user: "pause and wait
# for a debugger to attach on any fatal errors or fatal signals"),
# GASNET_FREEZE (at startup), GASNET_FREEZE_SIGNAL and
# GASNET_BACKTRACE_SIGNAL.  Runs tests/compat/crash under gexrun; a frozen
# rank must announce it, stay frozen, and go on once released with SIGCONT
# (to die, for the fatal cases).
set -u
crash=$TOP_BUILDDIR/tests/compat/crash
pass=0
fail=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT
frozen_case() { # how message-pattern [want: nonzero (default) or 0] [VAR=value]
    how=$1 pattern=$2 want=${3:-nonzero} setting=${4:-GASNET_FREEZE_ON_ERROR=1}
    # Empty the file here, before the job starts: the job's own 2>"$err"
    # truncates it only once its subshell runs, and until then the poll
    # below would find the previous case's line and take its (dead) pid.
    : >"$err"
    env "$setting" "$GEXRUN" -n 1 --timeout 90 "$crash" "$how" >/dev/null 2>"$err" &
    job=$!
    # Wait for the whole line (the pid is written after the words) while the
    # job lives, up to 60 s: a loaded machine may take long to start it.
    i=0
    while [ $i -lt 600 ] && kill -0 $job 2>/dev/null &&
          ! grep -q "frozen for a debugger.*attach to pid [0-9][0-9]* " "$err"; do
        sleep 0.1; i=$((i + 1))
    done
    pid=$(sed -n 's/.*frozen for a debugger.*attach to pid \([0-9]*\).*/\1/p' "$err" | head -n 1)
    if [ -z "$pid" ]; then
        wait $job
        rc=$?
        fail=$((fail + 1)); echo "FAIL: crash $how did not freeze (waited $i x 0.1 s; job status $rc):"
        cat "$err"
        return
    fi
    sleep 1
    if ! kill -0 $job 2>/dev/null; then
        fail=$((fail + 1)); echo "FAIL: crash $how: the job ended while frozen"; cat "$err"; return
    fi
    kill -CONT "$pid"
    wait $job
    rc=$?
    if { [ "$want" = nonzero ] && [ $rc -eq 0 ]; } || { [ "$want" = 0 ] && [ $rc -ne 0 ]; } ||
       ! grep -q "$pattern" "$err"; then
        fail=$((fail + 1)); echo "FAIL: crash $how ($setting) after SIGCONT: status $rc, want $want and '$pattern':"
        cat "$err"; return
    fi
    pass=$((pass + 1))
}
frozen_case fatal "not registered"
frozen_case segv "caught fatal signal SIGSEGV"
# GASNET_FREEZE: at startup; GASNET_FREEZE_SIGNAL: on that signal; both go
# on once released (README-gasnet-user)
frozen_case ok "(GASNET_FREEZE)" 0 GASNET_FREEZE=1
frozen_case usr2 "(GASNET_FREEZE_SIGNAL)" 0 GASNET_FREEZE_SIGNAL=SIGUSR2
# GASNET_BACKTRACE_SIGNAL: a backtrace, and the rank continues
GASNET_BACKTRACE_SIGNAL=USR1 "$GEXRUN" -n 1 --timeout 60 "$crash" usr1 >"$err" 2>&1
if [ $? -eq 0 ] && grep -q "backtrace (GASNET_BACKTRACE_SIGNAL)" "$err" &&
   grep -q "crash: rank 0 continued" "$err"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: GASNET_BACKTRACE_SIGNAL=USR1:"; cat "$err"; fi
# a name that is no signal: the job ends at init, naming the setting
# (docs/environment.md, "Unreadable values")
GASNET_BACKTRACE_SIGNAL=SIGNOTHING "$GEXRUN" -n 1 --timeout 60 "$crash" ok >"$err" 2>&1
if [ $? -eq 1 ] && grep -q "GASNET_BACKTRACE_SIGNAL='SIGNOTHING' is not a signal" "$err"; then
    pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: GASNET_BACKTRACE_SIGNAL=SIGNOTHING:"; cat "$err"; fi
# Boolean "no": no freeze
GASNET_FREEZE_ON_ERROR=no "$GEXRUN" -n 1 --timeout 60 "$crash" fatal >/dev/null 2>"$err"
if [ $? -ne 0 ] && ! grep -q "frozen" "$err"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: GASNET_FREEZE_ON_ERROR=no froze or succeeded:"; cat "$err"; fi
echo "test_freeze: $pass passed, $fail failed"
[ $fail -eq 0 ]
