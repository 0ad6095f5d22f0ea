#!/bin/bash
# test_exit_ucx.sh: how jobs end on the ucx conduit.
#
# Part 1: tests/mp/test_exit.sh (exit codes, a failing rank, a rank killed
# by a signal, SIGINT/SIGQUIT, the watchdog) under gexrun, every rank its
# own node, so the ranks talk only through UCX.
# Part 2: under Open MPI's mpirun (PMIx bootstrap): gasnet_exit by one rank
# while the others wait in a barrier ends the whole job with its code, and
# a killed rank ends it with a non-zero status (skipped without mpirun or
# PMIx).  Every job's status, time, surviving processes and /dev/shm
# leftovers are checked (tests/mp/job_check.sh).
#
#   test_exit_ucx.sh [GEXRUN MP_EXIT]   (default: $GEXRUN, $TOP_BUILDDIR)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"   # arrays below
set -u
HERE=$(dirname "$0")
export GEX_CONDUIT=ucx GASNET_SUPERNODE_MAXSIZE=1

bash "$HERE/../mp/test_exit.sh" "$@"
part1=$?

TIME_SLACK=${GEX_TEST_TIME_SLACK:-2}
TOP=${TOP_BUILDDIR:-.}
GEXRUN=${1:-${GEXRUN:-$TOP/gexrun}}
PROG=${2:-$TOP/tests/mp/mp_exit}
case $GEXRUN in /*) ;; *) GEXRUN=$PWD/$GEXRUN ;; esac
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/test_exit_ucx.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out
LIMIT=60   # outer bound on any one job, far above what passing needs
seq_no=0
. "$HERE/../mp/job_check.sh"

MPIRUN=${MPIRUN:-$(command -v mpirun || true)}
if [ -z "$MPIRUN" ]; then
    echo "# SKIP the mpirun part: mpirun not found (apt-get install openmpi-bin)"
elif ! grep -q '^#define HAVE_PMIX 1' "$TOP/config.h" 2>/dev/null; then
    echo "# SKIP the mpirun part: this build has no PMIx bootstrap"
else
    # Root in a container: Open MPI refuses root without these; no ssh, no binding.
    MPI=("$MPIRUN" --allow-run-as-root --oversubscribe --bind-to none)
    export OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl_base_warn_component_unused=0
    echo "# part 2 under mpirun ($MPIRUN)"
    for n in 2 4; do
        run_job mpirun ucx barrier0 "$n" 0 10
        run_job mpirun ucx barrier7 "$n" 7 10
    done
    run_job mpirun ucx kill 4 nonzero 10
fi
echo "part 2: $passed passed, $failed failed"
[ "$part1" -eq 0 ] && [ "$failed" -eq 0 ]
