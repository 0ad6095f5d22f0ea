#!/bin/sh
# mp_ep_misuse.sh: in debug builds, two threads using one serialized
# endpoint at once end the job with a message naming it (tests/mp/mp_ep_misuse).
# Non-debug builds do not check (the misuse is undefined there): skipped.
set -u
GEXRUN=${GEXRUN:?set GEXRUN}
PROG=$TOP_BUILDDIR/tests/mp/mp_ep_misuse
grep -q '^GEX_OPT_CFLAGS = .*-DGEX_DEBUG' "$TOP_BUILDDIR/Makefile" 2>/dev/null || {
    echo "SKIP: not a debug build"; exit 77; }
err=$(mktemp "${TMPDIR:-/tmp}/mp_ep_misuse.XXXXXX") || exit 2
trap 'rm -f "$err"' EXIT
"$GEXRUN" -n 1 --timeout "${GEX_TEST_TIMEOUT:-120}" "$PROG" >/dev/null 2>"$err" </dev/null
rc=$?
want='endpoint 1 was created with GEX_FLAG_EP_SERIALIZED but (two threads are using it at once|another thread is using it while this one polls it)'
if [ $rc -ne 0 ] && grep -Eq "$want" "$err"; then
    echo "ok: $(grep -E "$want" "$err" | head -n 1)"
    exit 0
fi
echo "FAIL: exit status $rc, stderr should match: $want"
sed 's/^/    err: /' "$err" | head -n 20
exit 1
