# shellcheck shell=bash
# job_check.sh: sourced by the tests that watch whole jobs end from outside
# (tests/mp/test_exit.sh, tests/ofi/test_exit_ofi.sh).  Defines the check
# counters and ok/bad/expect, survivors_of (processes whose command line has
# a job's marker) and job_ended, the checks every ended job gets.  The caller
# sets TIME_SLACK before calling job_ended.
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
