#!/bin/sh
# Every version node of every layer's version script has its line in the
# layer's Debian symbols file (debian/libgex-<layer>1.symbols), and no line
# names a node the script lacks: a package built against GEX then depends on
# the release that introduced the newest node it uses (docs/building.md).
# The SONAME the symbols file names is the one the layer's version-info gives.
srcdir=${srcdir:-$(dirname "$0")/../..}
fails=0
for layer in core shm am rma vis atomics coll mk shmem; do
    map=$srcdir/libgex-$layer/libgex-$layer.map
    vi=$(sed -n "s/^m4_define(\[GEX_VI_$(echo $layer | tr a-z A-Z)\], *\[\([0-9:]*\)\]).*/\1/p" "$srcdir/m4/gex_versions.m4")
    cur=${vi%%:*} age=${vi##*:}
    major=$((cur - age))
    sym=$srcdir/debian/libgex-$layer$major.symbols
    if [ ! -f "$sym" ]; then
        echo "FAIL: $layer: version-info $vi gives libgex-$layer.so.$major, but $sym does not exist"
        fails=$((fails + 1)); continue
    fi
    head -1 "$sym" | grep -q "^libgex-$layer.so.$major libgex-$layer$major " ||
        { echo "FAIL: $sym: first line must be 'libgex-$layer.so.$major libgex-$layer$major #MINVER#'"; fails=$((fails + 1)); }
    nodes=$(grep -o '^GEX_[A-Z0-9_.]*' "$map" | sort -u)
    listed=$(sed -n 's/^ (symver)\(GEX_[A-Z0-9_.]*\) .*/\1/p' "$sym" | sort -u)
    for n in $nodes; do
        echo "$listed" | grep -qx "$n" || { echo "FAIL: $layer: node $n of $map has no '(symver)$n <release>' line in $sym"; fails=$((fails + 1)); }
    done
    for n in $listed; do
        echo "$nodes" | grep -qx "$n" || { echo "FAIL: $layer: $sym names $n, which $map does not define"; fails=$((fails + 1)); }
    done
done
[ $fails -eq 0 ] && echo "PASS: debian symbols files match the version scripts of all 9 libraries"
[ $fails -eq 0 ]
