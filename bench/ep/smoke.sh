#!/bin/sh
# smoke.sh: the endpoint benchmark runs on 1 and 2 ranks, PSHM and reference
# RMA, and writes JSON with all six results (speed is never checked).
# Environment from the build: GEXRUN, TOP_BUILDDIR (as for tests/mp).
set -u
gexrun=${GEXRUN:-./gexrun}
top=${TOP_BUILDDIR:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gex-ep-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
for n in 1 2; do
    for fr in "" rma; do
        name="ep_bench --smoke on $n rank(s)${fr:+ with GEX_FORCE_REFERENCE=$fr}"
        json=$tmp/ep-$n-${fr:-pshm}.json
        echo "== $name"
        if ! env ${fr:+GEX_FORCE_REFERENCE=$fr} "$gexrun" -n "$n" --timeout "${GEX_TEST_TIMEOUT:-60}" \
                "$top/bench/ep/ep_bench" --smoke --json "$json" >"$tmp/out" 2>&1; then
            cat "$tmp/out"
            echo "FAIL: $name exited with an error"
            status=1
            continue
        fi
        results=$(grep -c '"name": "put8_' "$json")
        if [ "$(tail -n 1 "$json")" != "}" ] || [ "$results" -ne 6 ]; then
            echo "FAIL: $name: unexpected JSON ($results results, want 6)"
            status=1
        fi
        if command -v python3 >/dev/null 2>&1 &&
                ! python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert all(r["median"] > 0 for r in d["results"])' "$json"; then
            echo "FAIL: $name: invalid JSON"
            status=1
        fi
        grep -q '^4 ' "$tmp/out" || { echo "FAIL: $name: no table row for 4 threads"; status=1; }
    done
done
[ $status -eq 0 ] && echo "ep_bench smoke: ok"
exit $status
