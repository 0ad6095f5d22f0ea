# shellcheck shell=bash
# job_check.sh: sourced by the tests that watch whole jobs end from outside
# (tests/mp/test_exit.sh; through exit_jobs.sh, the conduits' exit tests).
# Defines the check counters and ok/bad/expect, survivors_of (processes whose
# command line has a job's marker), job_ended, the checks every ended job
# gets, and run_job (one tests/mp/mp_exit job under gexrun or mpirun).  The
# caller sets TIME_SLACK before calling job_ended.
passed=0
failed=0
ok()  { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
expect() {   # expect DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}
# "[m]" keeps pgrep and timeout from matching their own command lines
# (markers start with "m").
survivors_of() { timeout 10 pgrep -f -- "[m]${1#m}"; }

# job_ended NAME STATUS WANT(number|nonzero) MS MAX_SECONDS MARKER OUTFILE:
# the status is WANT, the job took at most MAX_SECONDS (times TIME_SLACK), no
# process with MARKER survives (any left are killed), rank 0 printed the job
# id in OUTFILE ("mp_exit: job ID mode ...") and no /dev/shm/gex-ID-* is left.
job_ended() {
    local name=$1 rc=$2 want=$3 ms=$4 max_s=$5 marker=$6 out=$7 survivors jobid left
    if [ "$want" = nonzero ]; then
        expect "$name: exit status $rc (want non-zero)" test "$rc" -ne 0
    else
        expect "$name: exit status $rc (want $want)" test "$rc" -eq "$want"
    fi
    expect "$name: ended in $ms ms (limit $max_s s)" test "$ms" -le $((max_s * 1000 * TIME_SLACK))
    survivors=$(survivors_of "$marker")
    expect "$name: no process of the job survives${survivors:+ (left: $survivors)}" \
        test -z "$survivors"
    [ -z "$survivors" ] || kill -KILL $survivors 2>/dev/null
    jobid=$(sed -n 's/^mp_exit: job \([^ ]*\) mode .*/\1/p' "$out" | head -1)
    expect "$name: rank 0 reported the job id" test -n "$jobid" -a "$jobid" != "-"
    if [ -n "$jobid" ]; then
        left=$(ls /dev/shm 2>/dev/null | grep -F -- "gex-$jobid-")
        expect "$name: no /dev/shm/gex-$jobid-* left${left:+ (left: $left)}" test -z "$left"
    fi
}

# run_job LAUNCHER WHAT MODE RANKS WANT(status|nonzero) MAX_SECONDS [VAR=value...]:
# one job of $PROG (tests/mp/mp_exit) in MODE, then job_ended.  LAUNCHER is
# gexrun ($GEXRUN) or mpirun (the array MPI); WHAT names the configuration
# in messages.  The caller sets GEXRUN, PROG, OUT, LIMIT and seq_no.
run_job() {
    local launcher=$1 what=$2 mode=$3 n=$4 want=$5 max_s=$6; shift 6
    seq_no=$((seq_no + 1))
    local marker="mpexit-run-$$-$seq_no" name="$launcher $what $mode -n $n"
    local cmd t0 rc ms f0=$failed
    if [ "$launcher" = mpirun ]; then cmd=("${MPI[@]}" -n "$n"); else cmd=("$GEXRUN" -n "$n"); fi
    t0=$(date +%s%3N)
    env "$@" timeout -s KILL "$LIMIT" "${cmd[@]}" "$PROG" "$mode" "$marker" </dev/null >"$OUT" 2>&1
    rc=$?
    ms=$(($(date +%s%3N) - t0))
    job_ended "$name" "$rc" "$want" "$ms" "$max_s" "$marker" "$OUT"
    [ "$failed" -eq "$f0" ] || sed 's/^/    | /' "$OUT" | tail -15
}
