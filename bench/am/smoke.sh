#!/bin/sh
# bench/am/smoke.sh: runs npam_bench briefly on 1 and 2 ranks and checks
# that its JSON is sound (every row has positive fixed and negotiated
# times, Medium and Long) and that --merge reads it.  Speed is never
# checked.  Environment from the build: GEXRUN, TOP_BUILDDIR (as for
# tests/mp); outside `make check` they default to the current folder.
set -u
gexrun=${GEXRUN:-./gexrun}
top=${TOP_BUILDDIR:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gex-npam-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
for n in 1 2; do
    for ref in 0 1; do
        tag="$n rank(s)$( [ $ref = 1 ] && echo ', GEX_FORCE_REFERENCE=am')"
        echo "== npam_bench --quick on $tag"
        if [ $ref = 1 ]; then export GEX_FORCE_REFERENCE=am; else unset GEX_FORCE_REFERENCE; fi
        if ! "$gexrun" -n "$n" --timeout "${GEX_TEST_TIMEOUT:-120}" "$top/bench/am/npam_bench" \
                --quick --budget 1 --json "$tmp/np-$n-$ref.json" >"$tmp/out" 2>&1; then
            cat "$tmp/out"
            echo "FAIL: npam_bench on $tag exited with an error"
            status=1
            continue
        fi
        cat "$tmp/out"
        if command -v python3 >/dev/null 2>&1; then
            python3 - "$tmp/np-$n-$ref.json" "$n" "$ref" <<'PYEOF' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
ref = sys.argv[3] == "1"
rows = d["rows"]
ok = (d["bench"] == "npam" and d["ranks"] == int(sys.argv[2]) and len(rows) >= 10 and
      rows[0]["size"] == 0 and
      d["np_path"] == ("reference" if ref else "smp") and
      d["np_long_path"] == ("reference" if ref else "smp") and
      all(r[f] > 0 for r in rows for f in ("fp_us", "np_us", "fp_med", "np_med", "lfp_us",
                                            "lnp_us")) and
      all(r["samples"] >= 20 and r["batch"] >= 1 for r in rows))
print("JSON ok" if ok else "FAIL: unexpected JSON content")
sys.exit(0 if ok else 1)
PYEOF
        elif ! grep -q '"bench": "npam"' "$tmp/np-$n-$ref.json" ||
                [ "$(tail -n 1 "$tmp/np-$n-$ref.json")" != "]}" ]; then
            echo "FAIL: unexpected JSON content"
            status=1
        fi
    done
done
unset GEX_FORCE_REFERENCE
if [ $status = 0 ]; then
    echo "== npam_bench --merge"
    if ! "$top/bench/am/npam_bench" --merge --native "$tmp"/np-2-0.json \
            --reference "$tmp"/np-2-1.json >"$tmp/merge" 2>&1 ||
            ! grep -q "miss the target" "$tmp/merge"; then
        cat "$tmp/merge"
        echo "FAIL: --merge"
        status=1
    else
        cat "$tmp/merge"
    fi
fi
exit $status
