#!/bin/sh
# run-oshmem.sh: manual cross-check of the tests/shmem programs against a
# known-good OpenSHMEM (Open MPI's OSHMEM: oshcc/oshrun).  Not part of
# "make check".  Builds every shmem_*.c here with oshcc and runs it at 1, 2
# and 4 PEs; prints PASS/FAIL/SKIP per program and PE count (SKIP: the
# program exited 77, i.e. it needs OpenSHMEM 1.5 and the library is older).
# Exits 77 when oshcc is missing, 1 when anything failed, 0 otherwise.
# Environment:
#   OSHRUN_ARGS  extra oshrun options (default "--mca btl ^uct": on this
#                kind of machine OSHMEM 4.1 with the uct btl segfaults in
#                shmem_finalize)
#   SHMEM_PES    PE counts to run (default "1 2 4")
#   TIMEOUT      seconds per run (default 60)
set -u
here=$(cd "$(dirname "$0")" && pwd)
command -v oshcc >/dev/null 2>&1 || { echo "SKIP: oshcc not found"; exit 77; }
command -v oshrun >/dev/null 2>&1 || { echo "SKIP: oshrun not found"; exit 77; }
args=${OSHRUN_ARGS:---mca btl ^uct}
pes=${SHMEM_PES:-1 2 4}
to=${TIMEOUT:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/shmem-oshmem.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
status=0
for src in "$here"/shmem_*.c; do
    name=$(basename "$src" .c)
    if ! oshcc -std=c11 -O1 -o "$work/$name" "$src" -lpthread >"$work/$name.build" 2>&1; then
        echo "FAIL: $name (build)"; sed -n 1,20p "$work/$name.build"; status=1; continue
    fi
    for n in $pes; do
        # shellcheck disable=SC2086
        timeout "$to" oshrun $root --oversubscribe $args -np "$n" "$work/$name" >"$work/$name.$n.out" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then echo "PASS: $name at $n PE(s)"
        elif [ $rc -eq 77 ]; then echo "SKIP: $name at $n PE(s): $(grep -m1 SKIP "$work/$name.$n.out")"
        else
            echo "FAIL: $name at $n PE(s) (exit $rc)"
            grep -m5 -E "FAIL|rror|fault" "$work/$name.$n.out"
            status=1
        fi
    done
done
exit $status
