#!/bin/sh
# smoke.sh: the ofi benchmark runs (`make bench-ofi`) in miniature: rma_bench
# --smoke on the ofi conduit (tcp;ofi_rxm, no shared memory, 2 ranks) with the
# conduit's native RMA and with GEX_FORCE_REFERENCE=rma; checks that each
# run took the path it should, wrote JSON with every test, and that
# targets.py reads it; and that rma_bench --sizes (run.sh names the flood
# sizes) measures exactly the sizes named.  Speed is never checked here.
# Environment from the build: GEXRUN, TOP_BUILDDIR (as for tests/mp).
set -u
gexrun=${GEXRUN:-./gexrun}
top=${TOP_BUILDDIR:-.}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gex-ofi-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export GEX_CONDUIT=ofi FI_PROVIDER='tcp;ofi_rxm' GASNET_SUPERNODE_MAXSIZE=1
status=0
for fr in "" rma; do
    want=${fr:+reference}
    want=${want:-native}
    name="rma_bench --smoke on ofi, 2 ranks, $want path"
    json=$tmp/ofi-rma-$want.json
    echo "== $name"
    if ! env ${fr:+GEX_FORCE_REFERENCE=$fr} "$gexrun" -n 2 --timeout "${GEX_TEST_TIMEOUT:-60}" \
            "$top/bench/rma/rma_bench" --smoke --json "$json" >"$tmp/out" 2>&1; then
        cat "$tmp/out"
        echo "FAIL: $name exited with an error"
        status=1
        continue
    fi
    tests=$(grep -c '"name": .*"kind": ' "$json")
    if [ "$(tail -n 1 "$json")" != "}" ] || [ "$tests" -ne 32 ]; then
        echo "FAIL: $name: unexpected JSON ($tests tests, want 32)"
        status=1
    fi
    if ! grep -q "^  \"path\": \"$want\"" "$json"; then
        echo "FAIL: $name: the JSON does not record the $want path:"
        grep '"path"\|"layers"' "$json"
        status=1
    fi
done
if [ $status -eq 0 ] && command -v python3 >/dev/null 2>&1; then
    # two "runs" per side: the comma form make bench-ofi uses (BENCH_OFI_RUNS)
    python3 "$here/targets.py" rma "$tmp/ofi-rma-reference.json,$tmp/ofi-rma-reference.json" \
        "$tmp/ofi-rma-native.json,$tmp/ofi-rma-native.json" \
        >"$tmp/targets" || { cat "$tmp/targets"; echo "FAIL: targets.py"; status=1; }
    grep -q '^TARGET native put/get' "$tmp/targets" || { echo "FAIL: targets.py output"; status=1; }
fi
# the flood sizes run.sh names (--sizes): exactly those rows, in that order
name="rma_bench --smoke --only put_nbi --sizes 8K,1M on ofi, native path"
echo "== $name"
if "$gexrun" -n 2 --timeout "${GEX_TEST_TIMEOUT:-60}" "$top/bench/rma/rma_bench" --smoke \
        --only put_nbi --sizes 8K,1M --json "$tmp/sizes.json" >"$tmp/out" 2>&1; then
    got=$(grep '"name": "put_nbi"' "$tmp/sizes.json" | sed 's/.*"size": \([0-9]*\),.*/\1/' |
          tr '\n' ' ')
    if [ "$got" != "8192 1048576 " ]; then
        echo "FAIL: $name: flood sizes '$got', want '8192 1048576 '"
        status=1
    fi
else
    cat "$tmp/out"
    echo "FAIL: $name exited with an error"
    status=1
fi
[ $status -eq 0 ] && echo "ofi bench smoke: ok"
exit $status
