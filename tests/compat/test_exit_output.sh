#!/bin/bash
# test_exit_output.sh: when every rank prints a line after the last barrier
# and then ends the job (return from main, gasnet_exit(0) after a line without a
# newline), every rank's line reaches the job's stdout, under gexrun and under
# Open MPI's mpirun (PMIx bootstrap), on smp and on ofi.  The first rank out
# of the barrier starts the end of the job while the others may still wait in
# it; under mpirun its exit notice used to make them leave at once, without
# printing (README: "The exiting rank flushes its output").  In "poll" the
# last rank calls gasnet_exit(0) while the others nap 10 ms between
# gasnet_AMPoll calls: they must notice the end themselves, within seconds
# and before gexrun's grace runs out (no "still running" message).
# Each mpirun case runs twice (the race is timing-dependent; before the fix
# most single runs lost a line), each gexrun case once.  Prints "N passed,
# M failed"; mpirun and ofi cases are skipped when not available.
set -u
TOP=${TOP_BUILDDIR:-.}
prog=$TOP/tests/compat/lastwords
pass=0
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
MPIRUN=$(command -v mpirun || true)
have_mpirun=0
[ -n "$MPIRUN" ] && grep -q '^#define HAVE_PMIX 1' "$TOP/config.h" 2>/dev/null && have_mpirun=1
export OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl_base_warn_component_unused=0

check() { # launcher conduit ranks how
    local launcher=$1 conduit=$2 n=$3 how=$4 i cmd rc lines tries=1
    if [ "$launcher" = mpirun ]; then
        cmd=("$MPIRUN" --allow-run-as-root --oversubscribe --bind-to none -n "$n")
        tries=2
    else
        cmd=("$GEXRUN" --timeout 60 -n "$n")
    fi
    for i in $(seq $tries); do
        GEX_CONDUIT=$conduit GASNET_SUPERNODE_MAXSIZE=1 timeout -s KILL 60 "${cmd[@]}" \
            "$prog" "$how" </dev/null >"$out" 2>&1
        rc=$?
        lines=$(grep -o "rank [0-9]* of $n: last words" "$out" | sort -u | wc -l)
        if [ $rc -ne 0 ] || [ "$lines" -ne "$n" ] || grep -q "still running" "$out"; then
            fail=$((fail + 1))
            echo "FAIL: $launcher $conduit -n $n $how (try $i): status $rc, $lines of $n ranks' lines:"
            sed 's/^/    | /' "$out" | head -20
            return
        fi
    done
    pass=$((pass + 1))
}

for launcher in gexrun mpirun; do
    if [ $launcher = mpirun ] && [ $have_mpirun = 0 ]; then
        echo "SKIP: mpirun or this build's PMIx bootstrap missing"; continue
    fi
    for conduit in smp ofi; do
        if [ $conduit = ofi ] && [ ! -e "$TOP/.libs/libgex-conduit-ofi.so" ]; then
            echo "SKIP: the ofi conduit is not built"; continue
        fi
        for n in 2 4; do
            for how in return nonl poll; do check $launcher $conduit $n $how; done
        done
    done
done
echo "test_exit_output: $pass passed, $fail failed"
[ $fail -eq 0 ]
