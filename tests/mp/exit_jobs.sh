# shellcheck shell=bash
# exit_jobs.sh [GEXRUN MP_EXIT]: sourced (after part 1) by the conduits'
# exit tests (tests/ofi/test_exit_ofi.sh, tests/ucx/test_exit_ucx.sh), which
# then end jobs of tests/mp/mp_exit with run_job (job_check.sh).  Sets
# TIME_SLACK, TOP, GEXRUN, PROG, a scratch OUT removed at exit, LIMIT and
# seq_no, sources job_check.sh, and defines mpi_usable: true, with the
# array MPI set to Open MPI's mpirun and its options for a container, when
# mpirun exists and this build has the PMIx bootstrap; else it prints why
# the mpirun part is skipped.
TIME_SLACK=${GEX_TEST_TIME_SLACK:-2}
TOP=${TOP_BUILDDIR:-.}
GEXRUN=${1:-${GEXRUN:-$TOP/gexrun}}
PROG=${2:-$TOP/tests/mp/mp_exit}
case $GEXRUN in /*) ;; *) GEXRUN=$PWD/$GEXRUN ;; esac
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/exit_jobs.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out
LIMIT=60   # outer bound on any one job, far above what passing needs
seq_no=0
. "$(dirname "${BASH_SOURCE[0]}")/job_check.sh"

mpi_usable() {
    MPIRUN=${MPIRUN:-$(command -v mpirun || true)}
    if [ -z "$MPIRUN" ]; then
        echo "# SKIP the mpirun part: mpirun not found (apt-get install openmpi-bin)"
        return 1
    fi
    if ! grep -q '^#define HAVE_PMIX 1' "$TOP/config.h" 2>/dev/null; then
        echo "# SKIP the mpirun part: this build has no PMIx bootstrap"
        return 1
    fi
    # Root in a container: Open MPI refuses root without these; no ssh, no binding.
    MPI=("$MPIRUN" --allow-run-as-root --oversubscribe --bind-to none)
    export OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl_base_warn_component_unused=0
    return 0
}
