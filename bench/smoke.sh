#!/bin/sh
# smoke.sh: checks that the AM benchmark runs on 1 and 2 ranks and writes a
# valid JSON file with no verification errors.  Speed is not checked (it
# never is in `make check`); a run takes well under a second when the machine
# is not overloaded.  The shared steps are in bench/smoke_common.sh.
. "$(cd "$(dirname "$0")" && pwd)/smoke_common.sh"
smoke_init am
for n in 1 2; do
    smoke_run "am_bench --smoke on $n rank(s)" "" 60 "$n" "$top/bench/am/am_bench" \
        --smoke --json "$tmp/am.json" || continue
    cat "$tmp/out"
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$tmp/am.json" "$n" <<'PYEOF' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
names = {t["name"] for t in d["tests"]}
want = {"short_rtt", "medium_rtt", "long_rtt", "flood_short", "flood_medium", "flood_long"}
ok = (d["benchmark"] == "am" and d["ranks"] == int(sys.argv[2]) and
      d["verification_errors"] == 0 and want <= names and
      all(t["median_us"] > 0 and t["iterations"] > 0 for t in d["tests"]))
print("JSON ok" if ok else "FAIL: unexpected JSON content")
sys.exit(0 if ok else 1)
PYEOF
    elif ! grep -q '"benchmark": "am"' "$tmp/am.json" ||
            ! grep -q '"verification_errors": 0' "$tmp/am.json" ||
            ! smoke_closed "$tmp/am.json"; then
        smoke_fail "unexpected JSON content"
    fi
done
exit $status
