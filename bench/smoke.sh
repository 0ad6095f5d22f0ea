#!/bin/sh
# smoke.sh: checks that the AM benchmark runs on 1 and 2 ranks and writes a
# valid JSON file with no verification errors.  Speed is not checked (it
# never is in `make check`); a run takes well under a second when the machine
# is not overloaded.  Environment from the build: GEXRUN, TOP_BUILDDIR (as
# for tests/mp); outside `make check` they default to the current folder.
set -u
gexrun=${GEXRUN:-./gexrun}
top=${TOP_BUILDDIR:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gex-am-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
for n in 1 2; do
    echo "== am_bench --smoke on $n rank(s)"
    if ! "$gexrun" -n "$n" --timeout "${GEX_TEST_TIMEOUT:-60}" "$top/bench/am/am_bench" \
            --smoke --json "$tmp/am.json" >"$tmp/out" 2>&1; then
        cat "$tmp/out"
        echo "FAIL: am_bench --smoke on $n rank(s) exited with an error"
        status=1
        continue
    fi
    cat "$tmp/out"
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$tmp/am.json" "$n" <<'EOF' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
names = {t["name"] for t in d["tests"]}
want = {"short_rtt", "medium_rtt", "long_rtt", "flood_short", "flood_medium", "flood_long"}
ok = (d["benchmark"] == "am" and d["ranks"] == int(sys.argv[2]) and
      d["verification_errors"] == 0 and want <= names and
      all(t["median_us"] > 0 and t["iterations"] > 0 for t in d["tests"]))
print("JSON ok" if ok else "FAIL: unexpected JSON content")
sys.exit(0 if ok else 1)
EOF
    elif ! grep -q '"benchmark": "am"' "$tmp/am.json" ||
            ! grep -q '"verification_errors": 0' "$tmp/am.json" ||
            [ "$(tail -n 1 "$tmp/am.json")" != "}" ]; then
        echo "FAIL: unexpected JSON content"
        status=1
    fi
done
exit $status
