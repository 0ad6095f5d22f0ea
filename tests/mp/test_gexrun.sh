#!/bin/bash
# test_gexrun.sh: end-to-end tests of gexrun and the embedded bootstrap.
#
# Runs tests/mp/bootstrap_probe under gexrun with 1 to 8 ranks and checks
# what a user relies on: exit statuses, that a failing rank ends the whole
# job within seconds, that no process of the job survives it, that stdin
# reaches rank 0 only, and that no /dev/shm/gex-<jobid>-* object is left
# (the probe leaves one per rank on purpose).
#
#   test_gexrun.sh [GEXRUN PROBE]
#
# Without arguments it uses $GEXRUN and $PROBE; PROBE defaults to
# $TOP_BUILDDIR/tests/mp/bootstrap_probe (the build's test environment).
#
# Exit status 0 only if every check passed.
set -u
# Time limits are multiplied by this on busy machines (CI builds in parallel).
TIME_SLACK=${GEX_TEST_TIME_SLACK:-2}

GEXRUN=${1:-${GEXRUN:-}}
PROBE=${2:-${PROBE:-${TOP_BUILDDIR:+$TOP_BUILDDIR/tests/mp/bootstrap_probe}}}
if [ ! -x "$GEXRUN" ] || [ ! -x "$PROBE" ]; then
    echo "usage: $0 GEXRUN PROBE   (or set GEXRUN and PROBE to the two programs)" >&2
    exit 2
fi
case $GEXRUN in /*) ;; *) GEXRUN=$PWD/$GEXRUN ;; esac
case $PROBE in /*) ;; *) PROBE=$PWD/$PROBE ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/test_gexrun.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out
ERR=$TMP/err
LIMIT=60                # outer bound on any one job, far above what passing needs
passed=0
failed=0
seq_no=0

ok()  { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
expect() {   # expect DESCRIPTION CONDITION...
    local what=$1; shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}
ms_now() { date +%s%3N; }
# Processes whose command line has the marker.  "[g]" keeps the pattern from
# matching the command lines of pgrep and timeout themselves.
job_survivors() { timeout 10 pgrep -f -- "[g]${1#g}"; }

# Prints the job's output when a check failed, to help whoever reads the log.
show_output() {
    sed 's/^/    out: /' "$OUT" | head -20
    sed 's/^/    err: /' "$ERR" | head -20
}

# The job id rank 0 of the probe printed ("probe: rank 0 joined job j...").
job_id() { grep -o 'joined job j[0-9]*-[0-9a-f]*' "$OUT" | head -1 | cut -d' ' -f3; }
runs_probe() {
    local a
    for a in "$@"; do [ "$a" = "$PROBE" ] && return 0; done
    return 1
}

# run NAME WANT_STATUS MAX_SECONDS STDIN gexrun-args...
# Appends a unique marker argument (the probe ignores it) and checks the
# status, the time taken, that nothing with the marker survives and that the
# job's shm objects are gone.
run() {
    local name=$1 want=$2 max_s=$3 input=$4; shift 4
    seq_no=$((seq_no + 1))
    local marker="gexrun-test-$$-$seq_no"
    local t0 t1 rc ms jobid survivors f0=$failed
    t0=$(ms_now)
    timeout -k 5 "$LIMIT" "$GEXRUN" "$@" "$marker" <"$input" >"$OUT" 2>"$ERR"
    rc=$?
    t1=$(ms_now)
    ms=$((t1 - t0))
    expect "$name: exit status $rc (want $want)" test "$rc" -eq "$want"
    expect "$name: ended in ${ms} ms (limit ${max_s} s)" test "$ms" -le $((max_s * 1000 * TIME_SLACK))
    survivors=$(job_survivors "$marker")
    expect "$name: no process of the job survives${survivors:+ (left: $survivors)}" \
        test -z "$survivors"
    if [ -n "$survivors" ]; then
        kill -KILL $survivors 2>/dev/null
    fi
    jobid=$(job_id)
    if [ -n "$jobid" ]; then
        expect "$name: no /dev/shm/gex-$jobid-* left" \
            test -z "$(ls /dev/shm 2>/dev/null | grep -F -- "gex-$jobid-")"
    elif runs_probe "$@" && [ "$want" != 2 ] && [ "$want" != 127 ]; then
        bad "$name: rank 0 did not print its job id"
    fi
    [ "$failed" -eq "$f0" ] || show_output
}

# Like run, but signals gexrun itself once the ranks are up.
run_signal() {
    local sig=$1 want=$2 n=$3
    seq_no=$((seq_no + 1))
    local marker="gexrun-test-$$-$seq_no" name="SIG$sig to gexrun -n $n"
    local tpid gpid rc t0 ms survivors jobid i
    # Emptied here, not only by the background job's own redirection (which
    # may run after the first poll): else the poll finds the previous job's
    # 'rank(s) OK', and the signal goes out before gexrun even exists.
    : >"$OUT"
    : >"$ERR"
    timeout -k 5 "$LIMIT" "$GEXRUN" -n "$n" "$PROBE" hang "$marker" </dev/null >"$OUT" 2>"$ERR" &
    tpid=$!
    for i in $(seq 100); do   # wait until rank 0 has printed (the job is up)
        grep -q 'rank(s) OK' "$OUT" 2>/dev/null && break
        sleep 0.05
    done
    gpid=$(pgrep -P "$tpid" | head -1)
    t0=$(ms_now)
    if [ -n "$gpid" ]; then kill -"$sig" "$gpid"; fi
    wait "$tpid"
    rc=$?
    ms=$(($(ms_now) - t0))
    expect "$name: exit status $rc (want $want)" test "$rc" -eq "$want"
    expect "$name: ended in ${ms} ms" test "$ms" -le 4000
    survivors=$(job_survivors "$marker")
    expect "$name: no process of the job survives" test -z "$survivors"
    [ -z "$survivors" ] || kill -KILL $survivors 2>/dev/null
    jobid=$(job_id)
    expect "$name: no /dev/shm/gex-$jobid-* left" \
        test -n "$jobid" -a -z "$(ls /dev/shm 2>/dev/null | grep -F -- "gex-$jobid-")"
}

out_has() { grep -q -- "$1" "$OUT"; }
err_has() { grep -q -- "$1" "$ERR"; }
count_lines() { grep -c -- "$1" "$OUT"; }

echo "# gexrun: $GEXRUN"
echo "# probe:  $PROBE"

# ---- The survivor check itself must be able to see a process ----
sanity_marker="gexrun-test-$$-sanity"
env -u GEX_JOB_FD "$PROBE" hang "$sanity_marker" >/dev/null 2>&1 &
sanity_pid=$!
sleep 0.2
expect "pgrep finds a process by its marker" test "$(job_survivors "$sanity_marker")" = "$sanity_pid"
kill -KILL "$sanity_pid" 2>/dev/null
wait "$sanity_pid" 2>/dev/null

# ---- Healthy jobs ----
for n in 1 2 4 8; do
    run "normal -n $n" 0 20 /dev/null -n "$n" "$PROBE" normal
    expect "normal -n $n: probe reports $n ranks" out_has "probe: $n rank(s) OK"
done
timeout 20 "$PROBE" normal >"$OUT" 2>"$ERR"
expect "probe without gexrun runs as a singleton" test $? -eq 0
expect "singleton bootstrap is used without gexrun" out_has "bootstrap singleton"
for n in 2 8; do
    run "gasnet_exit(0) on every rank -n $n" 0 10 /dev/null -n "$n" "$PROBE" gexit0
done
run "-np spelling" 0 20 /dev/null -np 3 "$PROBE" normal
run "--conduit" 0 20 /dev/null -n 2 --conduit probe-conduit "$PROBE" env
expect "--conduit sets GEX_CONDUIT in the ranks" out_has "GEX_CONDUIT=probe-conduit"

# ---- stdin reaches rank 0 only ----
echo "hello-from-stdin-$$" >"$TMP/input"
run "stdin -n 4" 0 20 "$TMP/input" -n 4 "$PROBE" stdin
expect "stdin: rank 0 read it" out_has "rank 0 stdin: hello-from-stdin-$$"
expect "stdin: the other 3 ranks see EOF" test "$(count_lines 'stdin: EOF')" -eq 3

# ---- Oversubscription: 8 ranks on one core must still be quick ----
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
    PROBE_ITERS=2000 run "8 ranks on 1 core" 0 20 /dev/null -n 8 taskset -c 0 "$PROBE" normal
    # (taskset wraps the probe so every rank is pinned to cpu 0)
else
    echo "skip 8 ranks on 1 core (no taskset)"
fi

# ---- A rank fails: the whole job ends, quickly ----
for n in 1 2 4 8; do
    run "gasnet_exit(3) on one rank -n $n" 3 3 /dev/null -n "$n" "$PROBE" exit3
done
expect "gasnet_exit(3): gexrun names the rank and code" err_has "ended the job with exit code 3"
expect "gasnet_exit(3): the other ranks leave with exit_code() 3" \
    test "$(grep -c 'barrier ended: aborting=1 exit_code=3' "$ERR")" -eq 7
for n in 2 4 8; do
    run "rank 1 SIGKILLs itself -n $n" 137 4 /dev/null -n "$n" "$PROBE" kill1
done
expect "SIGKILL: gexrun reports the signal" err_has "rank 1 (pid [0-9]*) was killed by signal 9"
for n in 2 4 8; do
    run "rank 1 hangs ignoring SIGTERM, rank 0 exits 5 -n $n" 5 6 /dev/null -n "$n" "$PROBE" hang1
done
expect "hang: gexrun escalated to SIGKILL" err_has "sending SIGKILL"
run "rank 0 gasnet_exit(0) while rank 1 hangs" 0 8 /dev/null -n 4 "$PROBE" exit0hang
run "rank 0 leaves without gasnet_exit" 0 2 /dev/null -n 4 "$PROBE" leave0
expect "leaving without gasnet_exit: the others see the job end" \
    test "$(grep -c 'barrier ended: aborting=1 exit_code=0' "$ERR")" -eq 3
run "non-zero exit of a non-GEX rank" 1 5 /dev/null -n 3 sh -c 'exit $((GEX_JOB_RANK == 2))'

# ---- Descendants of ranks do not outlive the job ----
strays='env -u GEX_JOB_FD "$1" hang "$2" >/dev/null & exec "$1" "$3" "$2"'
run "stray child of a killed rank" 137 8 /dev/null -n 2 sh -c "$strays" sh "$PROBE" X kill1
run "stray child of a finished job" 0 8 /dev/null -n 2 sh -c "$strays" sh "$PROBE" X normal

# ---- Timeout ----
run "--timeout 1" 124 5 /dev/null -n 4 --timeout 1 "$PROBE" hang
expect "--timeout: message names the timeout" err_has "timeout"
GEX_RUN_TIMEOUT=1 run "GEX_RUN_TIMEOUT=1" 124 5 /dev/null -n 2 "$PROBE" hang
late='if [ "$GEX_JOB_RANK" = 1 ]; then sleep 30; else exec "$1" normal "$2"; fi'
run "--timeout with a rank that never joins" 124 5 /dev/null -n 3 --timeout 1 \
    sh -c "$late" sh "$PROBE"
expect "--timeout: names the rank that never started GEX" err_has "never started GEX: 1$"

# ---- Signals to gexrun ----
run_signal INT 130 4
run_signal TERM 143 2
run_signal HUP 129 8

# ---- Errors ----
run "program not found" 127 5 /dev/null -n 2 gexrun-no-such-program-$$
expect "program not found: clear message" err_has "^gexrun: .*command not found"
run "-n 0" 2 5 /dev/null -n 0 "$PROBE" normal
run "-n abc" 2 5 /dev/null -n abc "$PROBE" normal
expect "bad -n: usage hint" err_has "^gexrun: -n needs"
timeout 10 "$GEXRUN" -n 2 >"$OUT" 2>"$ERR"
expect "missing program: exit status 2" test $? -eq 2
run "unknown option" 2 5 /dev/null --no-such-option -n 2 "$PROBE"
expect "unknown option: names it, usage hint" err_has "^gexrun: unknown option '--no-such-option'"
# Garbage options (issue #28): status 2, a message naming the option and
# value, the usage hint, and no rank started (the probe prints nothing)
no_job() { test ! -s "$OUT"; }
bad_opt() {   # bad_opt NAME MESSAGE-REGEX gexrun-args...
    local name=$1 want=$2; shift 2
    run "$name" 2 5 /dev/null "$@"
    expect "$name: message" err_has "$want"
    expect "$name: usage hint" err_has "^Try 'gexrun --help'"
    expect "$name: no rank started" no_job
}
bad_opt "-n -3" "^gexrun: -n needs a number of ranks from 1 to [0-9]*, not '-3'" -n -3 "$PROBE" normal
bad_opt "-n 99999999999" "not '99999999999'" -n 99999999999 "$PROBE" normal
bad_opt "-n 1e2" "not '1e2'" -n 1e2 "$PROBE" normal
bad_opt "-n without a value" "^gexrun: -n needs a number of ranks" -n
bad_opt "--timeout zz" "^gexrun: --timeout must be a number of seconds >= 0, not 'zz'" \
    --timeout zz -n 2 "$PROBE" normal
bad_opt "--timeout -1" "not '-1'" --timeout=-1 -n 2 "$PROBE" normal
bad_opt "--conduit eating -n" "^gexrun: --conduit needs a conduit name, not '-n'" \
    --conduit -n 2 "$PROBE" normal
GEX_RUN_TIMEOUT=zz bad_opt "GEX_RUN_TIMEOUT=zz" "^gexrun: GEX_RUN_TIMEOUT must be a number" \
    -n 2 "$PROBE" normal
: >"$TMP/noexec"
chmod 644 "$TMP/noexec"
run "non-executable program" 126 5 /dev/null -n 2 "$TMP/noexec"
expect "non-executable program: clear message" err_has "noexec: not an executable file"
run "a folder as the program" 126 5 /dev/null -n 2 "$TMP"
timeout 10 "$GEXRUN" --help >"$OUT" 2>"$ERR"
expect "--help exits 0" test $? -eq 0
expect "--help prints usage" out_has "^Usage: gexrun"
timeout 10 "$GEXRUN" --version >"$OUT" 2>"$ERR"
expect "--version exits 0" test $? -eq 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
