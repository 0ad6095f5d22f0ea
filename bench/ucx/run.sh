#!/bin/sh
# bench/ucx/run.sh: the ucx conduit beside the other conduits, 2 ranks,
# every rank its own node (GASNET_SUPERNODE_MAXSIZE=1: no PSHM, all traffic
# through the conduit).  `make bench-ucx` runs it from the build folder:
#     bench/ucx/run.sh SRCDIR [am_bench/rma_bench args, e.g. --quick]
# am_bench runs on ucx, on ofi (when built, provider tcp;ofi_rxm) and on smp
# with PSHM (the same-node yardstick); rma_bench runs on ucx with its native
# RMA (UCP puts and gets) and with GEX_FORCE_REFERENCE=rma (AM Longs);
# atomics_bench with UCP atomics (GEX_UCX_AMO=yes) and with
# GEX_FORCE_REFERENCE=atomics.
# Results: bench/results/ucx-am.json, ucx-rma-{native,reference}.json,
# ucx-atomics-{network,reference}.json,
# ofi-am-ref.json, smp-am.json; the tables are rma_bench's side by side
# (bench/rma/side_by_side.sh) and bench/compare.sh's for AM.
set -eu
src=${1:?usage: run.sh SRCDIR [bench args]}
shift
out=bench/results
mkdir -p "$out"
net="GASNET_SUPERNODE_MAXSIZE=1"
run() {   # run JSON PROGRAM ENV... -- ARGS...
    json=$1 prog=$2
    shift 2
    envs=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs="$envs $1"; shift; done
    [ $# -gt 0 ] && shift
    echo "== $prog:$envs"
    # shellcheck disable=SC2086
    env $envs ./gexrun -n 2 --timeout 900 "./bench/$prog" --json "$out/$json" "$@"
}
run ucx-am.json am/am_bench GEX_CONDUIT=ucx $net -- "$@"
rma_only="--only put_lat,get_lat,put_bulk,get_nb"
run ucx-rma-native.json rma/rma_bench GEX_CONDUIT=ucx $net -- $rma_only "$@"
run ucx-rma-reference.json rma/rma_bench GEX_CONDUIT=ucx $net GEX_FORCE_REFERENCE=rma -- \
    $rma_only "$@"
run ucx-atomics-network.json atomics/atomics_bench GEX_CONDUIT=ucx $net GEX_UCX_AMO=yes -- "$@"
run ucx-atomics-reference.json atomics/atomics_bench GEX_CONDUIT=ucx $net \
    GEX_FORCE_REFERENCE=atomics -- "$@"
run smp-am.json am/am_bench GEX_CONDUIT=smp -- "$@"
if [ -e .libs/libgex-conduit-ofi.so ]; then
    run ofi-am-ref.json am/am_bench GEX_CONDUIT=ofi "FI_PROVIDER=tcp;ofi_rxm" $net -- "$@"
fi
echo "== atomics on ucx: UCP atomics beside GEX_FORCE_REFERENCE=atomics"
sh "$src/bench/atomics/side_by_side.sh" "$out/ucx-atomics-network.json" \
    "$out/ucx-atomics-reference.json" || echo "(side_by_side.sh failed)"
echo "== RMA on ucx: native (a) beside GEX_FORCE_REFERENCE=rma (b)"
sh "$src/bench/rma/side_by_side.sh" "$out/ucx-rma-native.json" "$out/ucx-rma-reference.json" ||
    echo "(side_by_side.sh failed)"
echo "== AM: smp with PSHM (a) beside ucx without (b)"
sh "$src/bench/compare.sh" --json-a "$out/smp-am.json" --json-b "$out/ucx-am.json"
if [ -e "$out/ofi-am-ref.json" ]; then
    echo "== AM: ofi tcp;ofi_rxm (a) beside ucx (b), both without PSHM"
    sh "$src/bench/compare.sh" --json-a "$out/ofi-am-ref.json" --json-b "$out/ucx-am.json"
fi
