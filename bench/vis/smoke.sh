#!/bin/sh
# smoke.sh: checks that the VIS benchmark runs on 1 and 2 ranks, on the
# optimized and the reference path, writes JSON with every test and both
# targets, and that side_by_side.sh can read it.  Speed is never checked
# here (`make check` does not measure).
# Environment from the build: GEXRUN, TOP_BUILDDIR (as for tests/mp).
set -u
gexrun=${GEXRUN:-./gexrun}
top=${TOP_BUILDDIR:-.}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gex-vis-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
# --smoke: sizes 16 or 64, 4 KiB, 2 MiB for elem 8 and 64, 9 series each;
# paired ratios at 3 + 2 sizes for puts and gets, and 2 indexed/contiguous
want=54
for n in 1 2; do
    for fr in "" vis; do
        name="vis_bench --smoke on $n rank(s)${fr:+ with GEX_FORCE_REFERENCE=$fr}"
        json=$tmp/vis-$n-${fr:-optimized}.json
        echo "== $name"
        if ! env ${fr:+GEX_FORCE_REFERENCE=$fr} "$gexrun" -n "$n" --timeout "${GEX_TEST_TIMEOUT:-120}" \
                "$top/bench/vis/vis_bench" --smoke --json "$json" >"$tmp/out" 2>&1; then
            cat "$tmp/out"
            echo "FAIL: $name exited with an error"
            status=1
            continue
        fi
        tests=$(grep -c '"name": .*"kind": "flood"' "$json")
        targets=$(grep -c '"limit": .*"result": ' "$json")
        ratios=$(grep -c '"kind": "ratio"' "$json")
        if [ "$(tail -n 1 "$json")" != "}" ] || [ "$tests" -ne $want ] || [ "$targets" -ne 2 ] ||
                [ "$ratios" -ne 12 ]; then
            echo "FAIL: $name: unexpected JSON ($tests tests, want $want; $ratios ratios, want 12;" \
                "$targets targets, want 2)"
            status=1
        fi
        want_path=optimized
        [ -n "$fr" ] && want_path=reference
        grep -q "^  \"path\": \"$want_path\"" "$json" || { echo "FAIL: $name: path is not $want_path"; status=1; }
        if command -v python3 >/dev/null 2>&1 &&
                ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$json"; then
            echo "FAIL: $name: invalid JSON"
            status=1
        fi
    done
done
sh "$here/side_by_side.sh" "$tmp/vis-2-optimized.json" "$tmp/vis-2-vis.json" >"$tmp/table" || status=1
grep -q '^strided_put  *8  *32  *4096 ' "$tmp/table" &&
    grep -q '^indexed_put/contig_put  *64  *2097152 ' "$tmp/table" ||
    { echo "FAIL: side_by_side.sh output"; cat "$tmp/table"; status=1; }
[ $status -eq 0 ] && echo "vis_bench smoke: ok"
exit $status
