#!/bin/bash
# test_exit.sh: how GEX jobs end, seen from outside.
#
# Runs tests/mp/mp_exit under gexrun in each of its modes (see mp_exit.c) and
# checks the job's exit status, that it ended within a few seconds, that no
# process of the job survives it (found by a unique marker argument) and that
# no /dev/shm/gex-<jobid>-* object of the job is left.
#
#   test_exit.sh [GEXRUN MP_EXIT]
#
# Without arguments it uses $GEXRUN and $TOP_BUILDDIR/tests/mp/mp_exit (the
# build's test environment).  Prints one line per check and "N passed, N
# failed" last; exit status 0 only if every check passed.
set -u
# Time limits are multiplied by this on busy machines (CI builds in parallel).
TIME_SLACK=${GEX_TEST_TIME_SLACK:-2}

GEXRUN=${1:-${GEXRUN:-}}
PROG=${2:-${MP_EXIT:-${TOP_BUILDDIR:+$TOP_BUILDDIR/tests/mp/mp_exit}}}
if [ ! -x "$GEXRUN" ] || [ ! -x "$PROG" ]; then
    echo "usage: $0 GEXRUN MP_EXIT   (or set GEXRUN and TOP_BUILDDIR)" >&2
    exit 2
fi
case $GEXRUN in /*) ;; *) GEXRUN=$PWD/$GEXRUN ;; esac
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/test_exit.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out
ERR=$TMP/err
LIMIT=60   # outer bound on any one job, far above what passing needs
seq_no=0
. "$(dirname "$0")/job_check.sh"

ms_now() { date +%s%3N; }
show_output() {
    sed 's/^/    out: /' "$OUT" | head -20
    sed 's/^/    err: /' "$ERR" | head -20
}

# run MODE RANKS WANT_STATUS MAX_SECONDS [VAR=value...]
run() {
    local mode=$1 n=$2 want=$3 max_s=$4; shift 4
    seq_no=$((seq_no + 1))
    local marker="mpexit-test-$$-$seq_no" name="$mode -n $n"
    local t0 rc ms f0=$failed
    t0=$(ms_now)
    env "$@" timeout -k 5 "$LIMIT" "$GEXRUN" -n "$n" "$PROG" "$mode" "$marker" \
        </dev/null >"$OUT" 2>"$ERR"
    rc=$?
    ms=$(($(ms_now) - t0))
    job_ended "$name" "$rc" "$want" "$ms" "$max_s" "$marker" "$OUT"
    [ "$failed" -eq "$f0" ] || show_output
}

err_has() { grep -q -- "$1" "$ERR"; }

echo "# gexrun:  $GEXRUN"
echo "# mp_exit: $PROG"

# The survivor check must be able to see a process of ours.
sanity="mpexit-test-$$-sanity"
bash -c 'while :; do sleep 1; done' "$sanity" &
sanity_pid=$!
sleep 0.2
expect "pgrep finds a process by its marker" test "$(survivors_of "$sanity")" = "$sanity_pid"
kill -KILL "$sanity_pid" 2>/dev/null
wait "$sanity_pid" 2>/dev/null

for n in 1 2 4; do
    run all0 "$n" 0 10
done
for n in 1 2 4; do
    run exit3 "$n" 3 6
done
expect "exit3: gexrun names the exit code" err_has "ended the job with exit code 3"
# A non-zero code whose low 8 bits are 0 must not end a process with status 0
# (under a PMIx launcher the ranks' own statuses are what it sees).
run exit256 2 1 6
seq_no=$((seq_no + 1))
timeout -k 5 "$LIMIT" "$PROG" exit256 "mpexit-test-$$-$seq_no" </dev/null >"$OUT" 2>"$ERR"
rc=$?
expect "exit256 without gexrun: the process's own status is 1 (got $rc)" test "$rc" -eq 1
for n in 2 4; do
    run handler4 "$n" 4 6
done
for n in 1 2 4; do
    run kill "$n" 137 4
done
expect "kill: gexrun reports the signal" err_has "killed by signal 9"
for n in 2 4; do
    run return "$n" 0 6
done
run return0 4 0 6
run fail 2 1 6
expect "fail: the CHECK message names file and line" err_has "FAIL at .*mp_exit.c:[0-9]*"
expect "fail: the CHECK message says why" err_has "failing on purpose"
for n in 2 4; do
    run late0 "$n" 0 6
    expect "late0 -n $n: ranks still waiting in GEX finish their wait and print" \
        test "$(grep -c 'still running after gasnet_exit(0) elsewhere' "$OUT")" -eq $((n - 1))
done
# GASNet's SIGQUIT convention (libgex-core/quit_signal.c): SIGINT, SIGTERM
# and SIGHUP reach the client's SIGQUIT handler; without one, or when
# GASNET_NO_CATCH_SIGNAL excludes the signal, the rank dies of it (128+2).
for n in 1 2 4; do
    run sigint_quit "$n" 4 6
    expect "sigint_quit -n $n: the interrupted rank's SIGQUIT handler ran once" \
        test "$(grep -c "rank $((n - 1)): SIGQUIT handler calls gasnet_exit(4)" "$OUT")" -eq 1
done
run sigterm_quit 2 4 6
run sighup_quit 2 4 6
for n in 1 2; do
    run sigint "$n" 130 6
    expect "sigint -n $n: gexrun reports the signal" err_has "killed by signal 2"
done
run sigint_quit 2 130 6 GASNET_NO_CATCH_SIGNAL=SIGINT
# (rank 0 may run its handler when gexrun ends it with SIGTERM)
expect "GASNET_NO_CATCH_SIGNAL=SIGINT: the interrupted rank ran no SIGQUIT handler" \
    test "$(grep -c 'rank 1: SIGQUIT handler' "$OUT")" -eq 0
run sigint_quit 2 130 6 "GASNET_NO_CATCH_SIGNAL=*"
run sigterm_quit 2 4 6 GASNET_NO_CATCH_SIGNAL=INT
run sigint_own 2 5 6
expect "sigint_own: the client's own SIGINT handler ran, not the SIGQUIT one" \
    test "$(grep -c 'rank 1: SIGQUIT handler' "$OUT")" -eq 0

run watchdog 2 2 8 MP_WATCHDOG=2
# (on a loaded machine a rank may still be in an earlier phase, init over a
# network conduit, when its 2 s are up: any phase, but named)
expect "watchdog: the message names the phase" err_has "watchdog expired after 2 s (phase: [a-z]"

# A rank whose process goes on for a while after its gasnet_exit (the kernel
# freeing a large segment, valgrind's leak check and report): every rank
# called gasnet_exit(0), so gexrun waits for the ends instead of killing them
# 2 s later (which lost valgrind's leak reports).  Here a wrapper shell
# outlives the client by 3 s and then prints.
for n in 1 2; do
    seq_no=$((seq_no + 1))
    marker="mpexit-test-$$-$seq_no"
    f0=$failed
    t0=$(ms_now)
    timeout -k 5 "$LIMIT" "$GEXRUN" -n "$n" sh -c '"$0" "$@"; sleep 3; echo "slow end done"' \
        "$PROG" all0 "$marker" </dev/null >"$OUT" 2>"$ERR"
    rc=$?
    ms=$(($(ms_now) - t0))
    job_ended "slow end -n $n" "$rc" 0 "$ms" 10 "$marker" "$OUT"
    expect "slow end -n $n: every rank's end ran to completion" \
        test "$(grep -c 'slow end done' "$OUT")" -eq "$n"
    expect "slow end -n $n: gexrun ended no rank" test -z "$(grep 'ending them\|SIGKILL' "$ERR")"
    [ "$failed" -eq "$f0" ] || show_output
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
