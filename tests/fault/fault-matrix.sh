#!/bin/bash
# fault-matrix.sh: what a job does when one of its ranks meets a fault
# (issue 28, one host).  For each conduit, each phase of
# tests/fault/fault_victim (init, am, rma, barrier, team, exit) and each
# fault, one job of RANKS ranks runs under gexrun and one rank, the victim,
# meets the fault:
#   kill   the script sends it SIGKILL once the phase runs
#   stop   the script sends it SIGSTOP, then SIGCONT PAUSE seconds later
#   exit3  it calls exit(3) itself, without gasnet_exit
#   abort  it calls abort() itself
# Expected: kill, exit3 and abort end the whole job with the victim's status
# (137, 3, 134) and a gexrun line naming the rank, its pid and the cause,
# within BOUND seconds of the fault; a stopped rank is survived (status 0,
# rank 0's PASS line: every value checked after the SIGCONT too) or ends
# the job the same clean way, within PAUSE + BOUND + 10 s (the rest of the
# job's own run after the SIGCONT).  Never a hang: each job
# runs under a hard timeout (PAUSE + 60 s), which counts as a failure.
# Every cell also checks that no GEX-owned name of the job is left in
# /dev/shm or /tmp (listings before and after) and that no process of the
# job survives it (pgrep by a marker argument, and each rank's pid).
#
# BOUND = GASNET_EXITTIMEOUT (README-gasnet-user; unset: min(60, 2 + 0.1 *
# RANKS)) + gexrun's 2 s from SIGTERM to SIGKILL + 1 s for noticing the
# fault and the processes' teardown, times GEX_TEST_TIME_SLACK (default 1).
#
#   fault-matrix.sh [--quick] [--conduits "smp ofi ucx"] [--json FILE]
#                   [--pause SECONDS] [--ranks N] [--cell "CONDUIT PHASE FAULT VICTIM"]...
#
# --quick runs one phase per fault per conduit with a 3 s pause (make
# check, tests/fault.inc); the default is the full matrix (./gex-dev
# faults): every phase and fault with victim rank 2, and with victim rank 0
# the am and exit phases (stop: am).  --cell runs only the cells given.
# Conduits not built here are skipped (said); with none left, exit 77.
# Environment: GEXRUN and TOP_BUILDDIR (make check sets both; default: the
# _build beside this script).  Prints one table row per cell; exits 1 if
# any cell failed.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TOP_BUILDDIR:-$HERE/../../_build}
GEXRUN=${GEXRUN:-$TOP/gexrun}
PROG=$TOP/tests/fault/fault_victim
QUICK=0 CONDUITS="smp ofi ucx" JSON= PAUSE= RANKS=4 CELLS=()
while [ $# -gt 0 ]; do
    case $1 in
    --quick) QUICK=1 ;;
    --conduits) CONDUITS=$2; shift ;;
    --json) JSON=$2; shift ;;
    --pause) PAUSE=$2; shift ;;
    --ranks) RANKS=$2; shift ;;
    --cell) CELLS+=("$2"); shift ;;
    *) echo "usage: $0 [--quick] [--conduits LIST] [--json FILE] [--pause S] [--ranks N] [--cell CELL]..." >&2
       exit 2 ;;
    esac
    shift
done
[ -n "$PAUSE" ] || { [ "$QUICK" = 1 ] && PAUSE=3 || PAUSE=30; }
if [ ! -x "$GEXRUN" ] || [ ! -x "$PROG" ]; then
    echo "fault-matrix: $GEXRUN or $PROG not built (make -C _build tests/fault/fault_victim)" >&2
    exit 2
fi
case $GEXRUN in /*) ;; *) GEXRUN=$PWD/$GEXRUN ;; esac
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
. "$HERE/fault_cell.sh"

# ---- which conduits this build has ----
usable=
for c in $CONDUITS; do
    if have_conduit "$c"; then usable="$usable $c"; else echo "# SKIP conduit $c: not built here"; fi
done
if [ -z "$usable" ]; then
    echo "fault-matrix: no conduit of \"$CONDUITS\" is built here" >&2
    exit 77
fi

if ! command -v pgrep >/dev/null; then
    echo "fault-matrix: SKIP: pgrep not found (apt-get install procps): no orphan check" >&2
    exit 77
fi
# The orphan check must be able to see a process of ours, or every cell
# would pass it vacuously.
sanity="mfault-$$-sanity"
bash -c 'while :; do sleep 1; done' "$sanity" &
sanity_pid=$!
sleep 0.2
seen=$(timeout 10 pgrep -f -- "[m]${sanity#m}")
kill -KILL "$sanity_pid" 2>/dev/null
wait "$sanity_pid" 2>/dev/null
if [ "$seen" != "$sanity_pid" ]; then
    echo "fault-matrix: pgrep -f cannot find a process by its marker here (got '$seen')" >&2
    exit 1
fi

# ---- the cells ----
if [ ${#CELLS[@]} -eq 0 ]; then
    if [ "$QUICK" = 1 ]; then
        # one phase per fault per conduit, rotated so that every phase and
        # rank 0 as victim come up across the conduits
        for c in $usable; do
            case $c in
            smp) CELLS+=("smp init kill 2" "smp rma abort 0" "smp exit exit3 2" "smp barrier stop 2") ;;
            ofi) CELLS+=("ofi rma kill 0" "ofi team exit3 2" "ofi am abort 2" "ofi exit stop 2") ;;
            ucx) CELLS+=("ucx barrier kill 2" "ucx exit exit3 2" "ucx team abort 0" "ucx am stop 2") ;;
            esac
        done
    else
        for c in $usable; do
            for p in init am rma barrier team exit; do
                for f in kill stop exit3 abort; do CELLS+=("$c $p $f 2"); done
            done
            for p in am exit; do
                for f in kill exit3 abort; do CELLS+=("$c $p $f 0"); done
            done
            CELLS+=("$c am stop 0")
        done
    fi
fi

printf '%-7s %-8s %-6s %-6s %-22s %-6s %-8s %-9s %-7s %s\n' conduit phase fault victim \
    expected status seconds leftovers orphans verdict
nfail=0
rows=()
for cell in "${CELLS[@]}"; do
    # shellcheck disable=SC2086
    set -- $cell
    run_cell "$1" "$2" "$3" "$4"
    printf '%-7s %-8s %-6s %-6s %-22s %-6s %-8s %-9s %-7s %s\n' "$1" "$2" "$3" "$4" \
        "$CELL_EXPECTED" "$CELL_STATUS" "$CELL_SECONDS" "$CELL_LEFT" "$CELL_ORPHANS" "$CELL_VERDICT"
    if [ "${CELL_VERDICT#FAIL}" != "$CELL_VERDICT" ]; then
        nfail=$((nfail + 1))
        sed 's/^/    | /' "$CELL_LOG" | tail -12
    fi
    rows+=("$(printf '{"conduit":"%s","phase":"%s","fault":"%s","victim":%s,"expected":"%s","status":%s,"seconds":%s,"bound":%s,"leftovers":"%s","orphans":"%s","verdict":"%s"}' \
        "$1" "$2" "$3" "$4" "$CELL_EXPECTED" "$CELL_STATUS" "$CELL_SECONDS" "$CELL_BOUND" \
        "$CELL_LEFT" "$CELL_ORPHANS" "$CELL_VERDICT")")
done
if [ -n "$JSON" ]; then
    { echo "["; for i in "${!rows[@]}"; do
        printf '  %s%s\n' "${rows[$i]}" "$([ "$i" -lt $((${#rows[@]} - 1)) ] && echo ,)"; done
      echo "]"; } >"$JSON"
fi
echo "# ${#CELLS[@]} cells, $nfail failed (ranks $RANKS, pause $PAUSE s, bound $CELL_BOUND s after the fault)"
[ "$nfail" -eq 0 ]
