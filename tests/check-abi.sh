#!/bin/sh
# check-abi.sh: compares the exported symbols (name@version) of every layer
# library with the committed libgex-<layer>/libgex-<layer>.abilist, so an
# accidental export, removal or version-node change fails `make check`.
# After an intentional change: `make update-abilist` and commit the lists.
set -u
srcdir=${srcdir:-.}
builddir=${TOP_BUILDDIR:-.}
mode=${1:-check}
fail=0
pass=0
for layer in core shm am rma vis atomics coll mk shmem; do
    lib="$builddir/.libs/libgex-$layer.so"
    list="$srcdir/libgex-$layer/libgex-$layer.abilist"
    now=$(nm -D --defined-only "$lib" | awk '{print $2, $3}' | LC_ALL=C sort)
    if [ "$mode" = update ]; then
        printf '%s\n' "$now" >"$list"
        continue
    fi
    if printf '%s\n' "$now" | diff -u "$list" - >/dev/null; then
        pass=$((pass + 1))
    else
        echo "ABI of libgex-$layer differs from $list:"
        printf '%s\n' "$now" | diff -u "$list" -
        fail=$((fail + 1))
    fi
done
[ "$mode" = update ] && exit 0
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
