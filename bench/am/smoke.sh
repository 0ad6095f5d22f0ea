#!/bin/sh
# bench/am/smoke.sh: runs npam_bench briefly on 1 and 2 ranks and checks
# that its JSON is sound (every row has positive fixed and negotiated
# times, Medium and Long) and that --merge reads it.  Speed is never
# checked.  The shared steps are in bench/smoke_common.sh.
. "$(cd "$(dirname "$0")" && pwd)/../smoke_common.sh"
smoke_init npam
unset GEX_FORCE_REFERENCE
for n in 1 2; do
    for ref in 0 1; do
        fr=$( [ $ref = 1 ] && echo am)
        name="npam_bench --quick on $n rank(s)${fr:+, GEX_FORCE_REFERENCE=$fr}"
        smoke_run "$name" "$fr" 120 "$n" "$top/bench/am/npam_bench" --quick --budget 1 \
            --json "$tmp/np-$n-$ref.json" || continue
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
            smoke_fail "unexpected JSON content"
        fi
    done
done
if [ $status = 0 ]; then
    echo "== npam_bench --merge"
    if ! "$top/bench/am/npam_bench" --merge --native "$tmp"/np-2-0.json \
            --reference "$tmp"/np-2-1.json >"$tmp/merge" 2>&1 ||
            ! grep -q "miss the target" "$tmp/merge"; then
        cat "$tmp/merge"
        smoke_fail "--merge"
    else
        cat "$tmp/merge"
    fi
fi
exit $status
