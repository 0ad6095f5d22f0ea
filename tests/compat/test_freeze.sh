#!/bin/sh
# test_freeze.sh: GASNET_FREEZE_ON_ERROR (README-gasnet-user: "pause and wait
# for a debugger to attach on any fatal errors or fatal signals").  Runs
# tests/compat/crash under gexrun; the rank must announce that it is frozen,
# stay frozen, and finish dying once released with SIGCONT.
set -u
crash=$TOP_BUILDDIR/tests/compat/crash
pass=0
fail=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT
frozen_case() { # how message-pattern
    how=$1 pattern=$2
    # Empty the file here, before the job starts: the job's own 2>"$err"
    # truncates it only once its subshell runs, and until then the poll
    # below would find the previous case's line and take its (dead) pid.
    : >"$err"
    GASNET_FREEZE_ON_ERROR=1 "$GEXRUN" -n 1 --timeout 90 "$crash" "$how" >/dev/null 2>"$err" &
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
    if [ $rc -eq 0 ] || ! grep -q "$pattern" "$err"; then
        fail=$((fail + 1)); echo "FAIL: crash $how after SIGCONT: status $rc, want non-zero and '$pattern':"
        cat "$err"; return
    fi
    pass=$((pass + 1))
}
frozen_case fatal "not registered"
frozen_case segv "caught fatal signal SIGSEGV"
# Boolean "no": no freeze
GASNET_FREEZE_ON_ERROR=no "$GEXRUN" -n 1 --timeout 60 "$crash" fatal >/dev/null 2>"$err"
if [ $? -ne 0 ] && ! grep -q "frozen" "$err"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: GASNET_FREEZE_ON_ERROR=no froze or succeeded:"; cat "$err"; fi
echo "test_freeze: $pass passed, $fail failed"
[ $fail -eq 0 ]
