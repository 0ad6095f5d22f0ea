#!/bin/sh
# sanitizer-check.sh SRCDIR BUILDDIR 'TEST...': builds GEX a second time with
# AddressSanitizer and UndefinedBehaviorSanitizer and runs the given tests
# there (make check passes the multi-process tests, MP_TESTS, and a few of
# the ucx conduit's).  Only what they need is built: the libraries, the
# conduits, gexrun and the tests' programs (tests/test-programs.sh), and
# the libraries shared only: the tests never link a static archive, which
# would compile every library object a second time.
# Called by `make check`.
set -eu
src=$1
build=$2
tests=$3
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
    "$src/configure" --disable-sanitizers --enable-debug --disable-static \
        CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
        LDFLAGS="-fsanitize=address,undefined" >configure.log 2>&1 ||
        { cat configure.log; exit 1; }
fi
progs=$(sh "$src/tests/test-programs.sh" "$src" $tests)
make -j"$jobs" sanitizer-deps >make.log 2>&1 || { tail -50 make.log; exit 1; }
# shellcheck disable=SC2086
make -j"$jobs" $progs >>make.log 2>&1 || { tail -50 make.log; exit 1; }
# ASan reserves a huge shadow; detect_leaks covers memory lost in GEX itself.
# Instrumented code runs 2-3x slower: the tests' time limits get a slack.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
GEX_TEST_TIME_SLACK=${GEX_TEST_TIME_SLACK:-2} \
    make check-TESTS-only TESTS="$tests"
