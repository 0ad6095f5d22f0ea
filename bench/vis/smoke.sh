#!/bin/sh
# smoke.sh: checks that the VIS benchmark runs on 1 and 2 ranks, on the
# optimized and the reference path, writes JSON with every test and both
# targets, and that side_by_side.sh can read it.  Speed is never checked
# here (`make check` does not measure).
# The shared steps are in bench/smoke_common.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../smoke_common.sh"
smoke_init vis
# --smoke: sizes 16 or 64, 4 KiB, 2 MiB for elem 8 and 64, 9 series each;
# paired ratios at 3 + 2 sizes for puts and gets, and 2 indexed/contiguous
want=54
check() {
    tests=$(grep -c '"name": .*"kind": "flood"' "$json")
    targets=$(grep -c '"limit": .*"result": ' "$json")
    ratios=$(grep -c '"kind": "ratio"' "$json")
    if ! smoke_closed "$json" || [ "$tests" -ne $want ] || [ "$targets" -ne 2 ] ||
            [ "$ratios" -ne 12 ]; then
        smoke_fail "$name: unexpected JSON ($tests tests, want $want; $ratios ratios," \
            "want 12; $targets targets, want 2)"
    fi
    smoke_path_is "$name" "$json" "$([ -n "$fr" ] && echo reference || echo optimized)"
    smoke_json_valid "$name" "$json"
}
smoke_each vis/vis_bench vis optimized 120 check
sh "$here/side_by_side.sh" "$tmp/vis-2-optimized.json" "$tmp/vis-2-vis.json" >"$tmp/table" ||
    status=1
grep -q '^strided_put  *8  *32  *4096 ' "$tmp/table" &&
    grep -q '^indexed_put/contig_put  *64  *2097152 ' "$tmp/table" ||
    { smoke_fail "side_by_side.sh output"; cat "$tmp/table"; }
smoke_end vis_bench
