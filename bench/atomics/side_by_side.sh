#!/bin/sh
# side_by_side.sh A.json B.json...: prints atomics_bench results of several
# runs (the shared-memory path and GEX_FORCE_REFERENCE=atomics, later a
# conduit's network atomics) as one table: latency rows in us per
# operation, throughput rows in millions of operations per second; one
# column per file, headed by the run's "path".  Relies on atomics_bench
# writing one test per line; needs only awk.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 A.json [B.json...]" >&2; exit 2; }
awk '
FNR == 1 { f++; path[f] = "?" }
/^  "path": / { p = $0; sub(/.*"path": "/, "", p); sub(/".*/, "", p); path[f] = p }
/"name": .*"kind": / {
    n = $0; sub(/.*"name": "/, "", n); sub(/".*/, "", n)
    t = $0; sub(/.*"type": "/, "", t); sub(/".*/, "", t)
    k = $0; sub(/.*"kind": "/, "", k); sub(/".*/, "", k)
    ar = $0; sub(/.*"active_ranks": /, "", ar); sub(/,.*/, "", ar)
    v = $0
    if (k == "latency") sub(/.*"median_us": /, "", v)
    else sub(/.*"median_Mops_per_s": /, "", v)
    sub(/,.*/, "", v)
    key = n SUBSEP t SUBSEP ar
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key; kind[key] = k }
    val[key, f] = v
}
END {
    printf "%-10s %-4s %6s %-6s", "test", "type", "ranks", "unit"
    for (i = 1; i <= f; i++) printf " %12s", path[i]
    if (f == 2) printf " %9s", "ratio"
    printf "\n"
    for (j = 1; j <= nk; j++) {
        key = order[j]; split(key, a, SUBSEP)
        unit = kind[key] == "latency" ? "us" : "Mop/s"
        printf "%-10s %-4s %6s %-6s", a[1], a[2], a[3], unit
        for (i = 1; i <= f; i++) printf " %12s", ((key, i) in val) ? val[key, i] : "-"
        if (f == 2 && ((key, 1) in val) && ((key, 2) in val) && val[key, 1] + 0 > 0)
            printf " %9.2f", val[key, 2] / val[key, 1]
        printf "\n"
    }
    if (f == 2) printf "(ratio = column 2 / column 1)\n"
}' "$@"
