#!/bin/sh
# test_verboseenv.sh: GASNET_VERBOSEENV's once-per-job notes come once, from
# rank 0, under its own rank: the clientName note, the smp conduit's line and
# the listing of GASNET_BACKTRACE (read with plain getenv before init).  The clientName note ("lastwords" does not
# match the spec's [A-Z][A-Z0-9_]+) was printed by every rank before the
# bootstrap had started, each calling itself "rank 0".
set -u
TOP=${TOP_BUILDDIR:-.}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
pass=0
for n in 1 2 4; do
    GASNET_VERBOSEENV=1 "$GEXRUN" --timeout 60 -n $n "$TOP/tests/compat/lastwords" >"$out" 2>&1
    rc=$?
    count=$(grep -c "clientName 'lastwords' does not match" "$out")
    rank0=$(grep -c "^GEX rank 0: clientName 'lastwords' does not match" "$out")
    # settings read with plain getenv (crash handling) are listed too, once
    bt=$(grep -c "^GEX ENV parameter: GASNET_BACKTRACE = " "$out")
    smp=$(grep -c "smp conduit: rank 0 of $n," "$out")
    if [ $rc -ne 0 ] || [ "$count" -ne 1 ] || [ "$rank0" -ne 1 ] || [ "$bt" -ne 1 ] ||
       [ "$smp" -ne 1 ] || [ "$(grep -c "smp conduit: rank" "$out")" -ne 1 ]; then
        fail=$((fail + 1))
        echo "FAIL: -n $n: status $rc, the clientName note $count times ($rank0 from rank 0)," \
             "GASNET_BACKTRACE listed $bt times, the smp conduit line $smp times:"
        cat "$out"
    else
        pass=$((pass + 1))
    fi
done
echo "test_verboseenv: $pass passed, $fail failed"
[ $fail -eq 0 ]
