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

. "$HERE/../mp/exit_jobs.sh" "$@"

# GASNet's testexit 7: a rank leaves with gasnet_exit(7) before the others
# attach, so they meet a peer that is gone (a refused connection).  They
# must leave with the job's code and print nothing GASNet's harness counts
# as a failure (no "ERROR" line from the network library, no "fatal").
# Over TCP (UCX's shared memory notices no refused connection).
echo "# quiet end: gasnet_exit(7) before attach (gexrun: $GEXRUN)"
for n in 2 4; do
    run_job gexrun ucx preattach7 "$n" 7 10 UCX_TLS=tcp,self UCX_NET_DEVICES=lo
    if grep -qE 'ERROR|fatal' "$OUT"; then
        bad "gexrun ucx preattach7 -n $n: quiet (no ERROR or fatal line)"
        sed 's/^/    | /' "$OUT" | tail -15
    else
        ok "gexrun ucx preattach7 -n $n: quiet (no ERROR or fatal line)"
    fi
done

if mpi_usable; then
    echo "# part 2 under mpirun ($MPIRUN)"
    for n in 2 4; do
        run_job mpirun ucx barrier0 "$n" 0 10
        run_job mpirun ucx barrier7 "$n" 7 10
    done
    run_job mpirun ucx kill 4 nonzero 10
fi
echo "part 2: $passed passed, $failed failed"
[ "$part1" -eq 0 ] && [ "$failed" -eq 0 ]
