#!/bin/sh
# valgrind-check.sh: each multi-process program of tests/mp at 2 ranks, plus
# the ofi conduit's own tests when it is built, with every rank under
# valgrind's memcheck (invalid reads and writes, uses of uninitialised
# values, bad frees, and memory GEX definitely leaks, thread exits included).
# Run by `make check` (tests/Makefile.inc) in the normal build; skipped when
# valgrind is not installed.  gexrun returns the job's gasnet_exit code, not
# a rank's process status, so valgrind's verdict is read from its output:
# with -q it prints nothing unless it found something.
set -u
if ! command -v valgrind >/dev/null 2>&1; then
    echo "skip: valgrind is not installed"
    exit 77
fi
src=$(cd "$(dirname "$0")/.." && pwd)
# GEX_VALGRIND_TESTS: .mpt files (paths relative to the source tree) instead
if [ -n "${GEX_VALGRIND_TESTS:-}" ]; then
    tests=$GEX_VALGRIND_TESTS
else
    # One run per program (issue 28: the suite's time): its plain .mpt when
    # there is one, else its first.  The variants that only change the
    # environment (_nopshm, _reference, _smallring, ...) run under
    # ASan/UBSan (tests/sanitizer-check.sh), every one, and only there
    # (GEX_TEST_SANITIZED in tests/Makefile.inc).
    tests=$(cd "$src" && for f in tests/mp/*.mpt; do
                p=$(sed -n 's/^program: *//p' "$f" | head -1)
                echo "$p $f"
            done | awk '{ base = $1; sub(/.*\//, "", base)
                          if (!($1 in pick) || $2 == "tests/mp/" base ".mpt") pick[$1] = $2 }
                        END { for (p in pick) print pick[p] }' | LC_ALL=C sort)
    # the ofi conduit's tests on tcp;ofi_rxm (2 ranks; its other providers
    # and modes run natively only)
    if [ -f "${TOP_BUILDDIR:-.}/.libs/libgex-conduit-ofi.so" ]; then
        tests="$tests $(cd "$src" && ls tests/ofi/mp_*_rxm.mpt tests/ofi/mp_*_rxm_tiny.mpt 2>/dev/null)"
    fi
fi
GEX_TEST_RANKS=2
GEX_TEST_TIMEOUT=${GEX_TEST_TIMEOUT:-300}
GEX_TEST_TIME_SLACK=${GEX_TEST_TIME_SLACK:-8}
GEX_TEST_WRAPPER="valgrind -q --leak-check=full --show-leak-kinds=definite \
--errors-for-leak-kinds=definite --num-callers=20"
export GEX_TEST_RANKS GEX_TEST_TIMEOUT GEX_TEST_TIME_SLACK GEX_TEST_WRAPPER
log=$(mktemp "${TMPDIR:-/tmp}/gex-valgrind.XXXXXX") || exit 99
trap 'rm -f "$log"' EXIT
failed=0
for t in $tests; do
    sh "$src/tests/mp/mp-driver" "$src/$t" >"$log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || grep -q '^==[0-9]*== ' "$log"; then
        echo "FAIL: $t under valgrind (status $rc):"
        cat "$log"
        failed=1
    else
        echo "ok   $t: $(grep -m 1 'PASS on' "$log")"
    fi
done
exit $failed
