#!/bin/sh
# tsan-check.sh SRCDIR BUILDDIR 'MPT...': builds GEX a third time with
# ThreadSanitizer (the libraries, the conduits, gexrun and the tests'
# programs only: tests/test-programs.sh; no static archives) and runs the
# given multi-process tests there.  Called by `make check` (check-local)
# like sanitizer-check.sh; GEX_TSAN=0 skips it.
# Shared memory written by another process is invisible to TSan; what it
# checks is the threads of each process against each other.
set -eu
src=$1
build=$2
tests=$3
if [ "${GEX_TSAN:-1}" = 0 ]; then echo "tsan-check: skipped (GEX_TSAN=0)"; exit 0; fi
# A compiler or runtime without TSan skips rather than fails.
probe=$(mktemp -d)
printf 'int main(void){return 0;}\n' > "$probe/t.c"
if ! ${CC:-cc} -fsanitize=thread "$probe/t.c" -o "$probe/t" 2>/dev/null || ! "$probe/t"; then
    rm -rf "$probe"
    echo "tsan-check: skipped (no ThreadSanitizer here)"
    exit 0
fi
rm -rf "$probe"
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
    "$src/configure" --disable-sanitizers --enable-debug --disable-static \
        CFLAGS="-O1 -g -fsanitize=thread -fno-omit-frame-pointer" \
        LDFLAGS="-fsanitize=thread" >configure.log 2>&1 ||
        { cat configure.log; exit 1; }
fi
progs=$(sh "$src/tests/test-programs.sh" "$src" $tests)
# Only what the tests need: the libraries, the conduits, gexrun, the programs.
make -j2 sanitizer-deps >make.log 2>&1 || { tail -50 make.log; exit 1; }
# shellcheck disable=SC2086
make -j2 $progs >>make.log 2>&1 || { tail -50 make.log; exit 1; }
# halt_on_error: a report fails the rank, hence the test.
TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1} \
GEX_TEST_TIMEOUT=${GEX_TEST_TIMEOUT:-300} \
GEX_TEST_TIME_SLACK=${GEX_TEST_TIME_SLACK:-4} \
    make check-TESTS-only TESTS="$tests"
