#!/bin/sh
# side_by_side.sh A.json B.json...: prints vis_bench results of several runs
# (the optimized path and GEX_FORCE_REFERENCE=vis) as one table in MB/s,
# one column per file headed by the run's "path", then each run's targets.
# Relies on vis_bench writing one test per line; needs only awk.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 A.json [B.json...]" >&2; exit 2; }
awk '
function field(line, key,   v) {
    v = line; sub(".*\"" key "\": ", "", v); sub(/[,}].*/, "", v); gsub(/"/, "", v); return v
}
FNR == 1 { f++; path[f] = "?" }
/^  "path": / { path[f] = field($0, "path") }
/"name": .*"kind": "flood"/ {
    key = field($0, "name") SUBSEP field($0, "elem") SUBSEP field($0, "dims") SUBSEP field($0, "size")
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
    val[key, f] = field($0, "median_MB_per_s")
}
/"kind": "ratio"/ {
    key = field($0, "name") SUBSEP field($0, "elem") SUBSEP field($0, "size")
    if (!(key in rseen)) { rseen[key] = 1; rorder[++nr] = key }
    rval[key, f] = field($0, "median_ratio")
}
/"limit": .*"result": / { tgt[f, ++nt[f]] = field($0, "name") ": " field($0, "value") " (limit " field($0, "limit") ") " field($0, "result") }
END {
    printf "%-12s %5s %4s %9s", "test", "elem", "dims", "bytes"
    for (i = 1; i <= f; i++) printf " %12s", path[i]
    if (f == 2) printf " %8s", "speedup"
    printf "   (MB/s)\n"
    for (j = 1; j <= nk; j++) {
        key = order[j]; split(key, a, SUBSEP)
        printf "%-12s %5s %4s %9s", a[1], a[2], a[3], a[4]
        for (i = 1; i <= f; i++) printf " %12s", ((key, i) in val) ? val[key, i] : "-"
        if (f == 2 && ((key, 1) in val) && ((key, 2) in val) && val[key, 2] + 0 > 0)
            printf " %8.2f", val[key, 1] / val[key, 2]
        printf "\n"
    }
    if (f == 2) printf "(speedup = column 1 / column 2)\n"
    if (nr) {
        printf "\n%-24s %5s %9s", "paired ratio", "elem", "bytes"
        for (i = 1; i <= f; i++) printf " %12s", path[i]
        printf "\n"
        for (j = 1; j <= nr; j++) {
            key = rorder[j]; split(key, a, SUBSEP)
            printf "%-24s %5s %9s", a[1], a[2], a[3]
            for (i = 1; i <= f; i++) printf " %12s", ((key, i) in rval) ? rval[key, i] : "-"
            printf "\n"
        }
    }
    for (i = 1; i <= f; i++)
        for (k = 1; k <= nt[i]; k++) printf "%s target %s\n", path[i], tgt[i, k]
}' "$@"
