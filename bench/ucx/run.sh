#!/bin/sh
# bench/ucx/run.sh: the ucx conduit beside the other conduits, 2 ranks,
# every rank its own node (GASNET_SUPERNODE_MAXSIZE=1: no PSHM, all traffic
# through the conduit).  `make bench-ucx` runs it from the build folder:
#     bench/ucx/run.sh SRCDIR [am_bench/rma_bench args, e.g. --quick]
# am_bench and rma_bench (RMA by libgex-rma's AM reference path: the ucx
# conduit offers AMs only) run on ucx and on ofi (when built, provider
# tcp;ofi_rxm), and am_bench on smp with PSHM as the same-node yardstick.
# Results: bench/results/ucx-{am,rma}.json, ofi-am-ref.json, ofi-rma-ref.json,
# smp-am.json; bench/compare.sh prints ucx beside each (ratio ucx/other).
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
run ucx-rma.json rma/rma_bench GEX_CONDUIT=ucx $net -- --only put_lat,get_lat,put_bulk,get_nb "$@"
run smp-am.json am/am_bench GEX_CONDUIT=smp -- "$@"
if [ -e .libs/libgex-conduit-ofi.so ]; then
    run ofi-am-ref.json am/am_bench GEX_CONDUIT=ofi "FI_PROVIDER=tcp;ofi_rxm" $net -- "$@"
    run ofi-rma-ref.json rma/rma_bench GEX_CONDUIT=ofi "FI_PROVIDER=tcp;ofi_rxm" $net \
        GEX_FORCE_REFERENCE=rma -- --only put_lat,get_lat,put_bulk,get_nb "$@"
fi
echo "== AM: smp with PSHM (a) beside ucx without (b)"
sh "$src/bench/compare.sh" --json-a "$out/smp-am.json" --json-b "$out/ucx-am.json"
if [ -e "$out/ofi-am-ref.json" ]; then
    echo "== AM: ofi tcp;ofi_rxm (a) beside ucx (b), both without PSHM"
    sh "$src/bench/compare.sh" --json-a "$out/ofi-am-ref.json" --json-b "$out/ucx-am.json"
fi
