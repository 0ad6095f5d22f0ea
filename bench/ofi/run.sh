#!/bin/sh
# run.sh: `make bench-ofi`'s runs.  On the ofi conduit (FI_PROVIDER from
# BENCH_OFI_PROVIDER, no shared memory, 2 ranks) it runs, RUNS times in turn
# so that a load that drifts during the session hits both paths alike:
#   rma_bench      native RMA, then GEX_FORCE_REFERENCE=rma (flood sizes
#                  8 B .. 8 MiB with 8 KiB among them)
#   atomics_bench  the conduit's atomics, then GEX_FORCE_REFERENCE=atomics
# then am_bench once, prints run 1 side by side and the issue-8 targets from
# the median over all runs (targets.py).  JSON: bench/results/ofi-rma-
# {native,reference}-N.json, ofi-atomics-{network,reference}-N.json,
# ofi-am.json; run 1 is also copied to the names without -N.
# Usage: run.sh SRCDIR RUNS [rma_bench/atomics_bench options...]
set -eu
src=$1
runs=$2
shift 2
out=bench/results
mkdir -p "$out"
# rma_bench's default flood sizes skip 8 KiB, where the issue's "every size
# from 8 KiB up" starts: name the sizes (quick: 8 KiB, 64 KiB (the largest
# put whose source the conduit copies) and the two largest of the default
# quick list; --smoke keeps its own).
sizes=8,4K,8K,32K,64K,256K,1M,4M,8M
for a in "$@"; do
    case $a in
    --quick) sizes=8,4K,8K,64K,1M,8M ;;
    --smoke) sizes= ;;
    esac
done
export GEX_CONDUIT=ofi FI_PROVIDER="${BENCH_OFI_PROVIDER:-tcp;ofi_rxm}" GASNET_SUPERNODE_MAXSIZE=1
unset GEX_FORCE_REFERENCE
rn="" rr="" an="" ar=""
i=1
while [ "$i" -le "$runs" ]; do
    echo "== ofi ($FI_PROVIDER) run $i/$runs: RMA native, RMA reference, atomics network, atomics reference ($(uptime | sed 's/.*load/load/'))"
    ./gexrun -n 2 bench/rma/rma_bench ${sizes:+--sizes $sizes} --json "$out/ofi-rma-native-$i.json" \
        "$@" >"$out/ofi-rma-native-$i.txt"
    GEX_FORCE_REFERENCE=rma ./gexrun -n 2 bench/rma/rma_bench ${sizes:+--sizes $sizes} \
        --json "$out/ofi-rma-reference-$i.json" "$@" >"$out/ofi-rma-reference-$i.txt"
    ./gexrun -n 2 bench/atomics/atomics_bench --json "$out/ofi-atomics-network-$i.json" "$@" \
        >"$out/ofi-atomics-network-$i.txt"
    GEX_FORCE_REFERENCE=atomics ./gexrun -n 2 bench/atomics/atomics_bench \
        --json "$out/ofi-atomics-reference-$i.json" "$@" >"$out/ofi-atomics-reference-$i.txt"
    rn="$rn${rn:+,}$out/ofi-rma-native-$i.json"
    rr="$rr${rr:+,}$out/ofi-rma-reference-$i.json"
    an="$an${an:+,}$out/ofi-atomics-network-$i.json"
    ar="$ar${ar:+,}$out/ofi-atomics-reference-$i.json"
    i=$((i + 1))
done
for f in rma-native rma-reference atomics-network atomics-reference; do
    cp "$out/ofi-$f-1.json" "$out/ofi-$f.json"
done
echo "== ofi ($FI_PROVIDER), AM"
./gexrun -n 2 bench/am/am_bench --json "$out/ofi-am.json" "$@"
echo "== RMA on ofi, run 1: reference vs native"
sh "$src/bench/rma/side_by_side.sh" "$out/ofi-rma-reference.json" "$out/ofi-rma-native.json"
echo "== atomics on ofi, run 1: reference vs network"
sh "$src/bench/atomics/side_by_side.sh" "$out/ofi-atomics-reference.json" \
    "$out/ofi-atomics-network.json"
echo "== targets (issue 8), median over $runs run(s) of each path"
python3 "$src/bench/ofi/targets.py" rma "$rr" "$rn"
python3 "$src/bench/ofi/targets.py" atomics "$ar" "$an"
uptime
