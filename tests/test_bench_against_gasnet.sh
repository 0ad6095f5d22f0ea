#!/bin/sh
# The side-by-side tool's parsers and ratio (tools/bench-against-gasnet.py
# --self-test; docs/benchmarks.md).  Running it for real needs GASNet-EX's
# tarball and minutes: ./gex-dev bench --against-gasnet.
srcdir=${srcdir:-$(dirname "$0")/..}
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
exec python3 "$srcdir/tools/bench-against-gasnet.py" --self-test
