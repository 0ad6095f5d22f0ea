#!/bin/sh
# build-fuzzers.sh SRCDIR CONFDIR OUTDIR [NAME...]
# Builds the libFuzzer harnesses tests/fuzz/fuzz_NAME.c (all of them, or the
# NAMEs given) with clang into OUTDIR, compiling the library sources each one
# tests straight in (no libgex-* is linked: a harness needs only the decoder).
# CONFDIR is a configured build tree (gasnet_config.h, config.h); the source
# tree is only read.  Exit status: 0 built, 77 when clang or libFuzzer is
# missing (the reason on stderr), 1 when a harness does not compile.
# Used by tests/fuzz/run-fuzzers.sh (make check) and `./gex-dev fuzz`.
set -u
src=$1 conf=$2 out=$3
shift 3
CLANG=${CLANG:-clang}

# The decoder sources of each harness, besides tests/fuzz/fuzz_NAME.c.
sources() {
    case $1 in
    env)        echo "libgex-core/env_parse.c" ;;
    gexrun)     echo "tools/gexrun_args.c" ;;
    job_region) echo "" ;;
    am_header)  echo "" ;;
    vis_meta)   echo "libgex-vis/vis_wire.c libgex-vis/vis_copy.c" ;;
    *) return 1 ;;
    esac
}
ALL="env gexrun job_region am_header vis_meta"
[ $# -gt 0 ] || set -- $ALL

command -v "$CLANG" >/dev/null 2>&1 || { echo "build-fuzzers: $CLANG not found (Debian: apt-get install clang)" >&2; exit 77; }
mkdir -p "$out" || exit 1
# libFuzzer ships with clang's runtime (Debian: libclang-rt-14-dev).
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$out/probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined -o "$out/probe" "$out/probe.c" 2>"$out/probe.log"; then
    echo "build-fuzzers: $CLANG cannot link -fsanitize=fuzzer,address,undefined (Debian: apt-get install libclang-rt-14-dev):" >&2
    sed 's/^/  /' "$out/probe.log" | head -5 >&2
    rm -f "$out/probe" "$out/probe.c" "$out/probe.log"
    exit 77
fi
rm -f "$out/probe" "$out/probe.c" "$out/probe.log"

FLAGS="-std=c11 -g -O1 -Wall -Wextra -fno-omit-frame-pointer \
 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 -DGEXI_BUILDING_GEX -DHAVE_CONFIG_H -I$src/include -I$conf -I$src/libgex-core -I$conf/libgex-core \
 -I$src/libgex-vis -I$src/conduits/smp -I$src/conduits/ofi -I$src/conduits/ucx -I$src/tools -D_GNU_SOURCE"
rc=0
for name in "$@"; do
    extra=$(sources "$name") || { echo "build-fuzzers: no harness '$name' (one of: $ALL)" >&2; exit 1; }
    files="$src/tests/fuzz/fuzz_$name.c"
    for f in $extra; do files="$files $src/$f"; done
    # shellcheck disable=SC2086 # word splitting of the lists is intended
    if ! "$CLANG" $FLAGS -o "$out/fuzz_$name" $files; then
        echo "build-fuzzers: fuzz_$name does not build" >&2
        rc=1
    fi
done
exit $rc
