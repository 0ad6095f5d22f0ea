#!/bin/sh
# smoke.sh: checks that the atomics benchmark runs on 1 and 2 ranks, on the
# shared-memory and the reference path, verifies its words (no verification
# errors), writes JSON with every test, and that side_by_side.sh can read
# it.  Speed is never checked here (`make check` does not measure).
# Environment from the build: GEXRUN, TOP_BUILDDIR (as for tests/mp).
set -u
gexrun=${GEXRUN:-./gexrun}
top=${TOP_BUILDDIR:-.}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gex-atomics-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
for n in 1 2; do
    for fr in "" atomics; do
        name="atomics_bench --smoke on $n rank(s)${fr:+ with GEX_FORCE_REFERENCE=$fr}"
        json=$tmp/atomics-$n-${fr:-shm}.json
        echo "== $name"
        if ! env ${fr:+GEX_FORCE_REFERENCE=$fr} "$gexrun" -n "$n" --timeout "${GEX_TEST_TIMEOUT:-60}" \
                "$top/bench/atomics/atomics_bench" --smoke --json "$json" >"$tmp/out" 2>&1; then
            cat "$tmp/out"
            echo "FAIL: $name exited with an error"
            status=1
            continue
        fi
        # 6 types x (latency, throughput) + one hot-spot row per active rank count
        want=$((12 + n))
        tests=$(grep -c '"name": .*"kind": ' "$json")
        if [ "$(tail -n 1 "$json")" != "}" ] || [ "$tests" -ne "$want" ] ||
                ! grep -q '"verification_errors": 0' "$json"; then
            cat "$tmp/out"
            echo "FAIL: $name: unexpected JSON ($tests tests, want $want, or verification errors)"
            status=1
        fi
        want_path=shm
        [ -n "$fr" ] && want_path=reference
        grep -q "^  \"path\": \"$want_path\"" "$json" ||
            { echo "FAIL: $name: path is not $want_path"; status=1; }
        if command -v python3 >/dev/null 2>&1 &&
                ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$json"; then
            echo "FAIL: $name: invalid JSON"
            status=1
        fi
    done
done
sh "$here/side_by_side.sh" "$tmp/atomics-2-shm.json" "$tmp/atomics-2-atomics.json" >"$tmp/table" ||
    status=1
cat "$tmp/table"
grep -q '^fadd_lat   U64  *1 us ' "$tmp/table" || { echo "FAIL: side_by_side.sh output"; status=1; }
grep -q '^test .* shm  *reference' "$tmp/table" || { echo "FAIL: side_by_side.sh header"; status=1; }
[ $status -eq 0 ] && echo "atomics_bench smoke: ok"
exit $status
