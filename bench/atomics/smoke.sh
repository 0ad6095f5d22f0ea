#!/bin/sh
# smoke.sh: checks that the atomics benchmark runs on 1 and 2 ranks, on the
# shared-memory and the reference path, verifies its words (no verification
# errors), writes JSON with every test, and that side_by_side.sh can read
# it.  Speed is never checked here (`make check` does not measure).
# The shared steps are in bench/smoke_common.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../smoke_common.sh"
smoke_init atomics
check() {
    # 6 types x (latency, out-of-line latency, throughput) + one hot-spot
    # row per active rank count
    want=$((18 + n))
    tests=$(grep -c '"name": .*"kind": ' "$json")
    if ! smoke_closed "$json" || [ "$tests" -ne "$want" ] ||
            ! grep -q '"verification_errors": 0' "$json"; then
        cat "$tmp/out"
        smoke_fail "$name: unexpected JSON ($tests tests, want $want, or verification errors)"
    fi
    smoke_path_is "$name" "$json" "$([ -n "$fr" ] && echo reference || echo shm)"
    smoke_json_valid "$name" "$json"
}
smoke_each atomics/atomics_bench atomics shm 60 check
sh "$here/side_by_side.sh" "$tmp/atomics-2-shm.json" "$tmp/atomics-2-atomics.json" >"$tmp/table" ||
    status=1
cat "$tmp/table"
grep -q '^fadd_lat   U64  *1 us ' "$tmp/table" || smoke_fail "side_by_side.sh output"
grep -q '^test .* shm  *reference' "$tmp/table" || smoke_fail "side_by_side.sh header"
smoke_end atomics_bench
