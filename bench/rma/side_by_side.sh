#!/bin/sh
# side_by_side.sh A.json B.json...: prints rma_bench results of several runs
# (e.g. the PSHM bypass and GEX_FORCE_REFERENCE=rma, later a native conduit)
# as one table: latency rows in us per call, flood rows in MB/s, paired rows
# as the share of memcpy's bandwidth; one column per file, headed by the
# run's "path".  Relies on rma_bench writing one test
# per line; needs only awk.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 A.json [B.json...]" >&2; exit 2; }
awk '
FNR == 1 { f++; path[f] = "?" }
/^  "path": / { p = $0; sub(/.*"path": "/, "", p); sub(/".*/, "", p); path[f] = p }
/"name": .*"kind": / {
    n = $0; sub(/.*"name": "/, "", n); sub(/".*/, "", n)
    k = $0; sub(/.*"kind": "/, "", k); sub(/".*/, "", k)
    s = $0; sub(/.*"size": /, "", s); sub(/,.*/, "", s)
    v = $0
    if (k == "latency") sub(/.*"median_us": /, "", v)
    else if (k == "ratio") sub(/.*"median_share_of_memcpy": /, "", v)
    else sub(/.*"median_MB_per_s": /, "", v)
    sub(/,.*/, "", v)
    key = n SUBSEP s
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key; kind[key] = k }
    val[key, f] = v
}
END {
    printf "%-18s %9s %-6s", "test", "bytes", "unit"
    for (i = 1; i <= f; i++) printf " %14s", path[i]
    if (f == 2) printf " %9s", "ratio"
    printf "\n"
    for (j = 1; j <= nk; j++) {
        key = order[j]; split(key, a, SUBSEP)
        unit = kind[key] == "latency" ? "us" : kind[key] == "ratio" ? "share" : "MB/s"
        printf "%-18s %9s %-6s", a[1], a[2], unit
        for (i = 1; i <= f; i++) printf " %14s", ((key, i) in val) ? val[key, i] : "-"
        if (f == 2 && ((key, 1) in val) && ((key, 2) in val) && val[key, 1] + 0 > 0)
            printf " %9.2f", val[key, 2] / val[key, 1]
        printf "\n"
    }
    if (f == 2) printf "(ratio = column 2 / column 1)\n"
}' "$@"
