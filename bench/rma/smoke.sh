#!/bin/sh
# smoke.sh: checks that the RMA benchmark runs on 1 and 2 ranks, on the PSHM
# and the reference path, writes JSON with every test, and that
# side_by_side.sh can read it.  Speed is never checked here (`make check`
# does not measure); a run takes a fraction of a second on a quiet machine.
# Environment from the build: GEXRUN, TOP_BUILDDIR (as for tests/mp).
set -u
gexrun=${GEXRUN:-./gexrun}
top=${TOP_BUILDDIR:-.}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gex-rma-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
for n in 1 2; do
    for fr in "" rma; do
        name="rma_bench --smoke on $n rank(s)${fr:+ with GEX_FORCE_REFERENCE=$fr}"
        json=$tmp/rma-$n-${fr:-pshm}.json
        echo "== $name"
        if ! env ${fr:+GEX_FORCE_REFERENCE=$fr} "$gexrun" -n "$n" --timeout "${GEX_TEST_TIMEOUT:-60}" \
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
        if command -v python3 >/dev/null 2>&1 &&
                ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$json"; then
            echo "FAIL: $name: invalid JSON"
            status=1
        fi
    done
done
sh "$here/side_by_side.sh" "$tmp/rma-2-pshm.json" "$tmp/rma-2-rma.json" >"$tmp/table" || status=1
grep -q '^put_lat  *8 us ' "$tmp/table" || { echo "FAIL: side_by_side.sh output"; status=1; }
[ $status -eq 0 ] && echo "rma_bench smoke: ok"
exit $status
