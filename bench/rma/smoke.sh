#!/bin/sh
# smoke.sh: checks that the RMA benchmark runs on 1 and 2 ranks, on the PSHM
# and the reference path, writes JSON with every test, and that
# side_by_side.sh can read it.  Speed is never checked here (`make check`
# does not measure); a run takes a fraction of a second on a quiet machine.
# The shared steps are in bench/smoke_common.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../smoke_common.sh"
smoke_init rma
check() {
    tests=$(grep -c '"name": .*"kind": ' "$json")
    smoke_closed "$json" && [ "$tests" -eq 32 ] ||
        smoke_fail "$name: unexpected JSON ($tests tests, want 32)"
    smoke_json_valid "$name" "$json"
}
smoke_each rma/rma_bench rma pshm 60 check
sh "$here/side_by_side.sh" "$tmp/rma-2-pshm.json" "$tmp/rma-2-rma.json" >"$tmp/table" || status=1
grep -q '^put_lat  *8 us ' "$tmp/table" || smoke_fail "side_by_side.sh output"
smoke_end rma_bench
