#!/bin/sh
# test-programs.sh SRCDIR TEST...: the check programs the given tests run,
# relative to the build tree, one per line, each once: a .mpt file's
# `program:` line (tests/mp/mp-driver), and every $TOP_BUILDDIR/tests/...
# path a .sh test names, or a .sh file it sources from its own directory.
# The sanitizer builds (sanitizer-check.sh, tsan-check.sh) build only these
# instead of every check program.
set -eu
src=$1
shift
sh_programs() {
    sed -n 's|.*\$TOP_BUILDDIR}\{0,1\}/\(tests/[A-Za-z0-9_/]*\).*|\1|p' "$1"
    for inc in $(sed -n 's|^\. "\$(dirname "\$0")/\([A-Za-z0-9_.-]*\.sh\)".*|\1|p' "$1"); do
        sh_programs "$(dirname "$1")/$inc"
    done
}
for t in "$@"; do
    case $t in
    *.mpt) sed -n 's/^program:[[:space:]]*//p' "$src/$t" | head -n 1 ;;
    *.sh) sh_programs "$src/$t" ;;
    *) echo "$t" ;;   # a test that is itself a program
    esac
done | awk 'NF && !seen[$0]++'
