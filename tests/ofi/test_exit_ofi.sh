#!/bin/bash
# test_exit_ofi.sh: how jobs end on the ofi conduit, under gexrun and under
# a PMIx launcher (Open MPI's mpirun).
#
# Part 1: tests/mp/test_exit.sh (every way a job ends: exit codes, a
# failing rank, a rank killed by a signal, the watchdog) under gexrun, with
# every rank its own node so the job's ranks talk only through libfabric.
#
# Part 2 (issue 8): gasnet_exit by one rank while the others wait must end
# the whole job promptly with that code, under both launchers.  Under PMIx
# the launcher does not end a job for a rank that exits 0, so GEX's own exit
# notices (libgex-core/exit.c) do it; a regression there hangs mpirun, which
# the time limits turn into a failure.  Modes of tests/mp/mp_exit:
#   barrier0  rank 0 gasnet_exit(0), the others in a barrier   -> 0
#   barrier7  rank 1 gasnet_exit(7), the others in a barrier   -> 7
#   exit0     rank 0 gasnet_exit(0), the others in AMPoll      -> 0
#   all0      every rank gasnet_exit(0) at once                -> 0
#   return0   rank 0 returns from main, the others poll        -> 0
#   busy0     rank 0 gasnet_exit(0), the others never call GEX -> 0, the
#             launcher ends them after GASNET_EXITTIMEOUT (1 s here)
#   kill      a rank dies of SIGKILL                           -> non-zero
# under mpirun on ofi (tcp;ofi_rxm and sockets, no shared memory) and smp,
# and barrier0/barrier7 under gexrun on ofi.  Every run checks the status,
# the time, that no process of the job survives and that no
# /dev/shm/gex-<jobid>-* object is left.  The mpirun part is skipped
# without mpirun or without PMIx support in this build.
#
#   test_exit_ofi.sh [GEXRUN MP_EXIT]   (default: $GEXRUN, $TOP_BUILDDIR)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"   # arrays below
set -u
HERE=$(dirname "$0")
export GEX_CONDUIT=ofi GASNET_SUPERNODE_MAXSIZE=1

bash "$HERE/../mp/test_exit.sh" "$@"
part1=$?

. "$HERE/../mp/exit_jobs.sh" "$@"

# GASNet's testexit 7: a rank leaves with gasnet_exit(7) before the others
# attach, so they meet a peer that is gone (a refused connection).  They
# must leave with the job's code and print nothing GASNet's harness counts
# as a failure (no "ERROR" line from the network library, no "fatal").
echo "# quiet end: gasnet_exit(7) before attach (gexrun: $GEXRUN)"
for n in 2 4; do
    run_job gexrun rxm preattach7 "$n" 7 10
    if grep -qE 'ERROR|fatal' "$OUT"; then
        bad "gexrun rxm preattach7 -n $n: quiet (no ERROR or fatal line)"
        sed 's/^/    | /' "$OUT" | tail -15
    else
        ok "gexrun rxm preattach7 -n $n: quiet (no ERROR or fatal line)"
    fi
done

echo "# part 2: gasnet_exit while the others wait (gexrun: $GEXRUN)"
for n in 1 2 4; do
    run_job gexrun rxm barrier0 "$n" 0 6
    run_job gexrun rxm barrier7 "$n" 7 6
done

if mpi_usable; then
    for cfg in "rxm GEX_CONDUIT=ofi FI_PROVIDER=tcp;ofi_rxm" "sockets GEX_CONDUIT=ofi FI_PROVIDER=sockets" \
               "smp GEX_CONDUIT=smp GASNET_SUPERNODE_MAXSIZE=0"; do
        # shellcheck disable=SC2086
        set -- $cfg
        what=$1; shift
        echo "# part 2 under mpirun ($MPIRUN), $what"
        for n in 2 4; do
            run_job mpirun "$what" barrier0 "$n" 0 10 "$@"
            run_job mpirun "$what" barrier7 "$n" 7 10 "$@"
        done
        run_job mpirun "$what" exit0 4 0 10 "$@"
        run_job mpirun "$what" all0 4 0 10 "$@"
        run_job mpirun "$what" return0 4 0 10 "$@"
        run_job mpirun "$what" busy0 2 0 12 GASNET_EXITTIMEOUT=1 "$@"
        run_job mpirun "$what" kill 4 nonzero 10 "$@"
    done
fi
echo "part 2: $passed passed, $failed failed"
[ "$part1" -eq 0 ] && [ "$failed" -eq 0 ]
