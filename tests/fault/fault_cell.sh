# shellcheck shell=bash
# fault_cell.sh: sourced by tests/fault/fault-matrix.sh; defines run_cell,
# one job of tests/fault/fault_victim with one fault, judged from outside.
# The caller sets GEXRUN, PROG, RANKS and PAUSE.  run_cell sets CELL_EXPECTED,
# CELL_STATUS, CELL_SECONDS (from the fault to the job's end), CELL_BOUND,
# CELL_LEFT, CELL_ORPHANS, CELL_VERDICT ("ok", "survived", "clean-fail" or
# "FAIL: why") and CELL_LOG (the job's output and the checks' notes).
FAULT_TMP=$(mktemp -d "${TMPDIR:-/tmp}/fault-matrix.XXXXXX") || exit 2
trap 'rm -rf "$FAULT_TMP"' EXIT
cell_no=0
# How long an ext victim waits in init and exit for the script's signal:
# ample for a loaded machine (a late SIGKILL in exit would find it gone);
# a SIGKILL ends the wait, and gexrun ends a paused rank after 4 s.
HOLD=5

. "$HERE/../conduit_env.sh"


# GASNET_EXITTIMEOUT as libgex-core/exit.c computes it, in seconds.
exit_timeout() {
    if [ -n "${GASNET_EXITTIMEOUT:-}" ]; then echo "$GASNET_EXITTIMEOUT"; return; fi
    awk -v lo="${GASNET_EXITTIMEOUT_MIN:-2}" -v f="${GASNET_EXITTIMEOUT_FACTOR:-0.1}" \
        -v hi="${GASNET_EXITTIMEOUT_MAX:-60}" -v n="$RANKS" \
        'BEGIN { t = lo + f * n; if (t > hi) t = hi; print t }'
}
CELL_BOUND=$(awk -v t="$(exit_timeout)" -v s="${GEX_TEST_TIME_SLACK:-1}" \
    'BEGIN { printf "%.1f", (t + 2 + 1) * s }')

ms_now() { date +%s%3N; }

# GEX-owned names in /dev/shm and /tmp: "gex-<jobid>-..." (libgex-shm,
# conduits/smp) and anything else named gex*.
gex_names() {
    { ls -1 /dev/shm 2>/dev/null | sed 's|^|/dev/shm/|'; ls -1 /tmp 2>/dev/null | sed 's|^|/tmp/|'; } |
        grep -i '^/[a-z/]*/gex' | grep -v '/tmp/fault-matrix\.' | sort
}

# wait_line FILE REGEX SECONDS PID: 0 when a line matches, 1 when the time
# is up or the job (PID) has ended without it.
wait_line() {
    local i
    for ((i = 0; i < $3 * 50; i++)); do
        grep -qE "$2" "$1" 2>/dev/null && return 0
        kill -0 "$4" 2>/dev/null || { grep -qE "$2" "$1" 2>/dev/null; return; }
        sleep 0.02
    done
    return 1
}

# run_cell CONDUIT PHASE FAULT VICTIM
run_cell() {
    local conduit=$1 phase=$2 fault=$3 victim=$4
    cell_no=$((cell_no + 1))
    local marker="mfault-$$-$cell_no" out=$FAULT_TMP/out.$cell_no
    local log=$FAULT_TMP/log.$cell_no hard=$((${PAUSE%.*} + 60))
    local pfault=ext want cause notes=
    case $fault in
    kill)  want=137; cause="was killed by signal 9" ;;
    stop)  want=0;   cause= ;;   # or a clean failure
    exit3) want=3;   cause="exited with status 3"; pfault=exit3 ;;
    abort) want=134; cause="was killed by signal 6"; pfault=abort ;;
    esac
    CELL_LOG=$log
    CELL_EXPECTED=$([ "$fault" = stop ] && echo "survive|clean-fail" || echo "status $want + msg")
    local before after
    before=$(gex_names)
    local t0 t_fault= t_end rc pid
    t0=$(ms_now)
    # shellcheck disable=SC2046
    env $(conduit_env "$conduit") timeout -s KILL "$hard" "$GEXRUN" -n "$RANKS" "$PROG" \
        "$phase" "$pfault" "$victim" 3 "$HOLD" "$marker" </dev/null >"$out" 2>&1 &
    local job=$!
    if [ "$pfault" = ext ]; then
        if wait_line "$out" "^fault_victim: rank $victim ready $phase\$" 60 "$job"; then
            pid=$(sed -n "s/^fault_victim: rank $victim pid \([0-9]*\) .*/\1/p" "$out" | head -1)
            t_fault=$(ms_now)
            if [ "$fault" = kill ]; then
                kill -KILL "$pid" 2>/dev/null || notes="$notes; SIGKILL not delivered"
            else
                kill -STOP "$pid" 2>/dev/null || notes="$notes; SIGSTOP not delivered"
                local until=$((t_fault + ${PAUSE%.*} * 1000))
                while [ "$(ms_now)" -lt "$until" ] && kill -0 "$job" 2>/dev/null; do sleep 0.1; done
                kill -CONT "$pid" 2>/dev/null
            fi
        else
            notes="$notes; no ready line from rank $victim"
        fi
    fi
    wait "$job"
    rc=$?
    t_end=$(ms_now)
    if [ "$pfault" != ext ]; then
        t_fault=$(sed -n "s/^fault_victim: rank $victim injecting $fault at \([0-9]*\)\$/\1/p" "$out" | head -1)
        [ -n "$t_fault" ] || notes="$notes; the victim did not announce its fault"
    fi
    [ -n "$t_fault" ] || t_fault=$t0
    CELL_STATUS=$rc
    CELL_SECONDS=$(awk -v a="$t_fault" -v b="$t_end" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
    # ---- the job's processes: none may outlive it ----
    local left_procs pids
    left_procs=$(timeout 10 pgrep -f -- "[m]${marker#m}" | tr '\n' ' ')
    pids=$(sed -n 's/^fault_victim: rank [0-9]* pid \([0-9]*\) .*/\1/p' "$out")
    for pid in $pids; do
        kill -0 "$pid" 2>/dev/null && ! grep -qw "$pid" <<<"$left_procs" && left_procs="$left_procs$pid "
    done
    left_procs=${left_procs% }
    CELL_ORPHANS=${left_procs:-none}
    # shellcheck disable=SC2086
    [ -z "$left_procs" ] || { kill -CONT $left_procs; kill -KILL $left_procs; } 2>/dev/null
    # ---- leftovers: new GEX names (of this job, or nameless of any job) ----
    local jobid
    jobid=$(sed -n 's/^fault_victim: rank [0-9]* pid [0-9]* job \(.*\)/\1/p' "$out" | head -1)
    after=$(gex_names)
    local new
    new=$(comm -13 <(echo "$before") <(echo "$after") | grep -F -- "${jobid:-@none@}" | tr '\n' ' ')
    new=${new% }
    CELL_LEFT=${new:-none}
    # ---- verdict ----
    local v=ok secs_limit
    secs_limit=$CELL_BOUND
    # a survived pause also runs the rest of the job after the SIGCONT: its
    # 3 s phase, and init for the init phase (about 4 s on ofi)
    [ "$fault" = stop ] && secs_limit=$(awk -v b="$CELL_BOUND" -v p="$PAUSE" 'BEGIN { print b + p + 10 }')
    if [ $((t_end - t0)) -ge $((hard * 1000)) ]; then
        v="FAIL: hung (hard timeout ${hard} s)"
    elif [ -n "$notes" ]; then
        v="FAIL: ${notes#; }"
    elif [ "$fault" = stop ]; then
        if [ "$rc" -eq 0 ] && grep -q "^fault_victim: PASS phase $phase " "$out"; then
            v=survived
        elif [ "$rc" -ne 0 ] && grep -qE "^gexrun: rank $victim .*(killed|exited|ended)" "$out"; then
            v=clean-fail
        else
            v="FAIL: status $rc without PASS or a gexrun line naming rank $victim"
        fi
    else
        # the victim's own status is what gexrun should report; a peer that
        # failed on the lost connection in the same instant may come first,
        # and any non-zero status with the victim's cause named is clean
        if [ "$rc" -eq 0 ]; then
            v="FAIL: status 0, want $want (non-zero)"
        elif ! grep -qE "^gexrun: rank $victim \(pid [0-9]+\) $cause" "$out"; then
            v="FAIL: no gexrun line 'rank $victim (pid P) $cause'"
        fi
    fi
    if [ "${v#FAIL}" = "$v" ]; then
        if awk -v s="$CELL_SECONDS" -v l="$secs_limit" 'BEGIN { exit !(s > l) }'; then
            v="FAIL: ${CELL_SECONDS} s > ${secs_limit} s"
        elif [ "$CELL_ORPHANS" != none ]; then
            v="FAIL: processes left: $CELL_ORPHANS"
        elif [ "$CELL_LEFT" != none ]; then
            v="FAIL: names left: $CELL_LEFT"
        elif [ "$fault" != stop ] && [ "$rc" -ne "$want" ]; then
            v="ok (status $rc: a peer's failure came first)"
        fi
    fi
    CELL_VERDICT=$v
    cp "$out" "$log"
}
