#!/bin/sh
# run-fuzzers.sh: builds the libFuzzer harnesses (build-fuzzers.sh, with
# clang) and runs each for FUZZ_SECONDS (default 5) on its stored corpus
# tests/fuzz/corpus/NAME (docs/fuzzing.md).  Exit 0 when no harness found a
# crash, 1 when one did (the input is kept and its path printed), 77 when
# clang or libFuzzer is missing.
#   make check:     srcdir and TOP_BUILDDIR from the test environment; the
#                   source tree is only read and the scratch folder removed.
#   ./gex-dev fuzz: FUZZ_WORKDIR names a folder kept between runs: its
#                   corpus/NAME copies of the stored corpus grow with what
#                   the fuzzer finds, crashes go to its crashes/.
# FUZZ_NAMES limits the run to some harnesses (default: all).
set -u
src=$(cd "${srcdir:-$(dirname "$0")/../..}" && pwd)
top=${TOP_BUILDDIR:-$(pwd)}
secs=${FUZZ_SECONDS:-5}
names=${FUZZ_NAMES:-"env gexrun job_region am_header vis_meta"}

if [ -n "${FUZZ_WORKDIR:-}" ]; then
    work=$FUZZ_WORKDIR
    mkdir -p "$work" || exit 1
    keep=1
else
    mkdir -p "$top/tests/fuzz" || exit 1
    work=$(mktemp -d "$top/tests/fuzz/run.XXXXXX") || exit 1
    keep=0
fi
cleanup() { [ "$keep" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# shellcheck disable=SC2086 # names is a list
sh "$src/tests/fuzz/build-fuzzers.sh" "$src" "$top" "$work/bin" $names
rc=$?
[ "$rc" = 77 ] && echo "run-fuzzers: skipped: libFuzzer harnesses cannot be built here (see above)"
[ "$rc" = 0 ] || exit "$rc"

failed=
for name in $names; do
    if [ "$keep" = 1 ]; then
        # the working corpus: the stored one plus what earlier runs found
        mkdir -p "$work/corpus/$name" "$work/crashes"
        cp "$src/tests/fuzz/corpus/$name"/* "$work/corpus/$name/" 2>/dev/null
        dirs="$work/corpus/$name"
        crashes=$work/crashes
    else
        # new inputs go to scratch; the stored corpus is only read
        mkdir -p "$work/new/$name"
        dirs="$work/new/$name $src/tests/fuzz/corpus/$name"
        crashes=$top/tests/fuzz/crashes
        mkdir -p "$crashes"
    fi
    # gexrun's parser prints usage errors: closing the target's stdout and
    # stderr keeps the log small (libFuzzer and the sanitizers keep theirs)
    mask=0
    [ "$name" = gexrun ] && mask=3
    echo "run-fuzzers: fuzz_$name for ${secs}s"
    # shellcheck disable=SC2086 # dirs is a list
    if ! "$work/bin/fuzz_$name" -max_total_time="$secs" -timeout=10 -close_fd_mask=$mask \
        -print_final_stats=1 -artifact_prefix="$crashes/$name-" $dirs >"$work/$name.log" 2>&1; then
        tail -n 40 "$work/$name.log"
        saved=$(sed -n 's/.*Test unit written to //p' "$work/$name.log" | tail -n 1)
        echo "run-fuzzers: fuzz_$name FAILED; the input is saved as ${saved:-(none: see the log above)}"
        # (make check's scratch folder, binaries included, goes away)
        echo "run-fuzzers: reproduce with: ./gex-dev fuzz 1, then _build/fuzz/bin/fuzz_$name ${saved:-INPUT}"
        failed="$failed $name"
        continue
    fi
    grep -E '^stat::number_of_executed_units|^Done' "$work/$name.log" | tr '\n' ' '
    echo
done
if [ -n "$failed" ]; then
    echo "run-fuzzers: crashes in:$failed"
    exit 1
fi
# an empty crashes folder from this run need not stay
[ "$keep" = 1 ] || rmdir "$top/tests/fuzz/crashes" 2>/dev/null
exit 0
