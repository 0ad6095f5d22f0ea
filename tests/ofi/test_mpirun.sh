#!/bin/bash
# test_mpirun.sh: GEX programs started by a PMIx launcher (Open MPI's
# mpirun) instead of gexrun: the PMIx bootstrap (libgex-core/bootstrap_pmix.c)
# gives every rank its rank, the job size and the address exchange.  Runs
# multi-process tests on the ofi conduit with every rank its own node
# (tcp;ofi_rxm over loopback), and checks that a job whose rank is killed or
# fails ends promptly with a non-zero status.  Skips (77) without mpirun or
# without PMIx support in this build.
#   test_mpirun.sh            uses $TOP_BUILDDIR (the build's test environment)
set -u
TOP=${TOP_BUILDDIR:-.}
MPIRUN=${MPIRUN:-$(command -v mpirun || true)}
if [ -z "$MPIRUN" ]; then echo "SKIP: mpirun not found (apt-get install openmpi-bin)"; exit 77; fi
if ! grep -q '^#define HAVE_PMIX 1' "$TOP/config.h" 2>/dev/null; then
    echo "SKIP: this build has no PMIx bootstrap (configure found no PMIx)"; exit 77
fi
# Root in a container: Open MPI refuses root without these; no ssh, no binding.
MPI=("$MPIRUN" --allow-run-as-root --oversubscribe --bind-to none)
export OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl_base_warn_component_unused=0
export GEX_CONDUIT=ofi FI_PROVIDER='tcp;ofi_rxm' GASNET_SUPERNODE_MAXSIZE=1
LIMIT=120
passed=0
failed=0
ok()  { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
OUT=$(mktemp "${TMPDIR:-/tmp}/test_mpirun.XXXXXX") || exit 2
trap 'rm -f "$OUT"' EXIT

# run NAME WANT_STATUS|killed MAX_SECONDS PROGRAM [ARGS...], at $n ranks
run() {
    local name=$1 want=$2 max_s=$3; shift 3
    local t0 rc ms
    t0=$(date +%s%3N)
    timeout -s KILL "$LIMIT" "${MPI[@]}" -n "$n" "$@" </dev/null >"$OUT" 2>&1
    rc=$?
    ms=$(($(date +%s%3N) - t0))
    local good=0
    case $want in
    killed) [ "$rc" -ne 0 ] && good=1 ;;   # mpirun reports the signal its own way
    *) [ "$rc" = "$want" ] && good=1 ;;
    esac
    if [ "$good" = 1 ]; then
        if [ "$ms" -le $((max_s * 1000)) ]; then
            ok "$name -n $n: status $rc in $ms ms"
            return
        fi
        bad "$name -n $n: status $rc but took $ms ms (limit $max_s s)"
    else
        bad "$name -n $n: status $rc (want $want) after $ms ms"
    fi
    sed 's/^/    | /' "$OUT" | tail -15
}

for n in 2 4; do
    for t in mp_init mp_segment mp_am mp_rma mp_coll; do
        run "$t" 0 90 "$TOP/tests/mp/$t"
    done
    run "mp_exit exit3" 3 20 "$TOP/tests/mp/mp_exit" exit3 mpirun-exit3
    run "mp_exit kill (a rank dies of SIGKILL)" killed 20 "$TOP/tests/mp/mp_exit" kill mpirun-kill
    run "mp_exit fail" 1 20 "$TOP/tests/mp/mp_exit" fail mpirun-fail
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
