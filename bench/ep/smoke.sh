#!/bin/sh
# smoke.sh: the endpoint benchmark runs on 1 and 2 ranks, PSHM and reference
# RMA, and writes JSON with all six results (speed is never checked).
# The shared steps are in bench/smoke_common.sh.
. "$(cd "$(dirname "$0")" && pwd)/../smoke_common.sh"
smoke_init ep
check() {
    results=$(grep -c '"name": "put8_' "$json")
    smoke_closed "$json" && [ "$results" -eq 6 ] ||
        smoke_fail "$name: unexpected JSON ($results results, want 6)"
    smoke_json_valid "$name" "$json" 'all(r["median"] > 0 for r in d["results"])'
    grep -q '^4 ' "$tmp/out" || smoke_fail "$name: no table row for 4 threads"
}
smoke_each ep/ep_bench rma pshm 60 check
smoke_end ep_bench
