#!/bin/sh
# bench/am/icount.sh: instructions per negotiated-payload (np) and
# fixed-payload (fp) AM Medium and Long, counted by callgrind
# (deterministic: no load, no timer), on the smp path and under
# GEX_FORCE_REFERENCE=am.
# `make bench-am-np-icount` runs it from the build folder; by hand:
#     bench/am/icount.sh [N]        (N round trips per size and mode, default 200)
# It runs bench/am/npam_icount on one rank (its AMs to itself through the
# conduit, GEX_AM_LOOPBACK=conduit) under
# `valgrind --tool=callgrind` and prints, per size, the inclusive
# instruction count per message of:
#   req   the Request: generating the payload and the AM call(s)
#         (fp: generate + gex_AM_RequestMedium0; np: Prepare + SrcDescAddr +
#         generate + Commit), the comparison of issue #3;
#   rep   the same for the Reply (inside the Request handler);
#   recv  both deliveries and the handlers, without rep (gasnet_AMPoll
#         until the Reply arrived, minus rep);
# and np - fp for each; a table for Mediums, one for Longs (into this
# rank's segment, dest_addr at the Prepare).  Environment: GEXRUN, TOP_BUILDDIR (default .),
# VALGRIND (default valgrind), ICOUNT_OUT (a folder to keep the callgrind
# files in; default: a scratch folder).
set -u
gexrun=${GEXRUN:-./gexrun}
top=${TOP_BUILDDIR:-.}
vg=${VALGRIND:-valgrind}
n=${1:-200}
if ! command -v "$vg" >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
    echo "icount.sh: needs valgrind and callgrind_annotate" >&2
    exit 77
fi
out=${ICOUNT_OUT:-}
if [ -z "$out" ]; then
    out=$(mktemp -d "${TMPDIR:-/tmp}/gex-icount.XXXXXX") || exit 1
    trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
status=0
for path in smp ref; do
    fr=$( [ $path = ref ] && echo am)
    # libtool's execute mode runs the real binary of the uninstalled wrapper
    # LD_BIND_NOW: no lazy symbol resolution inside the counted calls
    # GEX_AM_LOOPBACK=conduit: the messages to self take the conduit's path,
    # the one a peer's messages take (by default they would run inside the
    # sending call: docs/am.md, "AMs to oneself")
    if ! env LD_BIND_NOW=1 GEX_AM_LOOPBACK=conduit ${fr:+GEX_FORCE_REFERENCE=$fr} \
            "$gexrun" -n 1 --timeout 600 \
            "$top/libtool" --mode=execute "$vg" --tool=callgrind \
            --callgrind-out-file="$out/callgrind.$path" \
            "$top/bench/am/npam_icount" "$n" >"$out/run.$path" 2>&1; then
        cat "$out/run.$path"
        echo "icount.sh: the $path run failed" >&2
        exit 1
    fi
    callgrind_annotate --inclusive=yes --threshold=100 "$out/callgrind.$path" \
        >"$out/annotate.$path" 2>&1
    for cat in Medium Long; do
    pfx=$( [ $cat = Long ] && echo l)
    echo "== $path path ($( [ $path = ref ] && echo 'GEX_FORCE_REFERENCE=am' || echo 'specialized')), $cat:" \
        "instructions per message, $n round trips per size"
    awk -v n="$n" -v p="$pfx" '
        # lines look like "  12,345 (1.2%)  file.c:req_np_128 [/path/prog]"
        {
            ir = $1; gsub(",", "", ir)
            if (ir !~ /^[0-9]+$/) next
            for (i = 2; i <= NF; i++) {
                f = $i; sub(/^.*:/, "", f)
                if (f ~ ("^" p "(req|rep|drain)_(fp|np)_[0-9]+$")) { c[f] = ir; sizes[f] = 1 }
            }
        }
        END {
            printf "%6s %7s %7s %6s | %7s %7s %6s | %7s %7s %6s | %7s %7s %6s\n", "size",
                   "req fp", "req np", "np-fp", "rep fp", "rep np", "np-fp",
                   "recv fp", "recv np", "np-fp", "all fp", "all np", "np-fp"
            split("0 16 64 128 256 512 1024 2048 4096", S, " ")
            for (k = 1; k <= 9; k++) {
                s = S[k]
                if (!((p "req_fp_" s) in c)) continue
                for (m = 0; m < 2; m++) {
                    md = m ? "np" : "fp"
                    q[m] = c[p "req_" md "_" s] / n; r[m] = c[p "rep_" md "_" s] / n
                    v[m] = c[p "drain_" md "_" s] / n - r[m]
                    a[m] = q[m] + r[m] + v[m]
                }
                printf "%6d %7.1f %7.1f %+6.1f | %7.1f %7.1f %+6.1f | %7.1f %7.1f %+6.1f | %7.1f %7.1f %+6.1f\n",
                       s, q[0], q[1], q[1] - q[0], r[0], r[1], r[1] - r[0],
                       v[0], v[1], v[1] - v[0], a[0], a[1], a[1] - a[0]
                rows++
            }
            if (!rows) { print "no counts found"; exit 1 }
        }' "$out/annotate.$path" || status=1
    done
done
exit $status
