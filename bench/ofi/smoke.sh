#!/bin/sh
# smoke.sh: the ofi benchmark runs (`make bench-ofi`) in miniature: rma_bench
# --smoke on the ofi conduit (tcp;ofi_rxm, no shared memory, 2 ranks) with the
# conduit's native RMA and with GEX_FORCE_REFERENCE=rma; checks that each
# run took the path it should, wrote JSON with every test, and that
# targets.py reads it; and that rma_bench --sizes (run.sh names the flood
# sizes) measures exactly the sizes named.  Speed is never checked here.
# The shared steps are in bench/smoke_common.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../smoke_common.sh"
smoke_init ofi
export GEX_CONDUIT=ofi FI_PROVIDER='tcp;ofi_rxm' GASNET_SUPERNODE_MAXSIZE=1
for fr in "" rma; do
    want=${fr:+reference}
    want=${want:-native}
    name="rma_bench --smoke on ofi, 2 ranks, $want path"
    json=$tmp/ofi-rma-$want.json
    smoke_run "$name" "$fr" 60 2 "$top/bench/rma/rma_bench" --smoke --json "$json" || continue
    tests=$(grep -c '"name": .*"kind": ' "$json")
    if ! smoke_closed "$json" || [ "$tests" -ne 32 ]; then
        smoke_fail "$name: unexpected JSON ($tests tests, want 32)"
    fi
    if ! grep -q "^  \"path\": \"$want\"" "$json"; then
        smoke_fail "$name: the JSON does not record the $want path:"
        grep '"path"\|"layers"' "$json"
    fi
done
if [ $status -eq 0 ] && command -v python3 >/dev/null 2>&1; then
    # two "runs" per side: the comma form make bench-ofi uses (BENCH_OFI_RUNS)
    python3 "$here/targets.py" rma "$tmp/ofi-rma-reference.json,$tmp/ofi-rma-reference.json" \
        "$tmp/ofi-rma-native.json,$tmp/ofi-rma-native.json" \
        >"$tmp/targets" || { cat "$tmp/targets"; smoke_fail "targets.py"; }
    grep -q '^TARGET native put/get' "$tmp/targets" || smoke_fail "targets.py output"
fi
# the flood sizes run.sh names (--sizes): exactly those rows, in that order
name="rma_bench --smoke --only put_nbi --sizes 8K,1M on ofi, native path"
if smoke_run "$name" "" 60 2 "$top/bench/rma/rma_bench" --smoke --only put_nbi --sizes 8K,1M \
        --json "$tmp/sizes.json"; then
    got=$(grep '"name": "put_nbi"' "$tmp/sizes.json" | sed 's/.*"size": \([0-9]*\),.*/\1/' |
          tr '\n' ' ')
    [ "$got" = "8192 1048576 " ] || smoke_fail "$name: flood sizes '$got', want '8192 1048576 '"
fi
smoke_end "ofi bench"
