#!/usr/bin/env bash
# mixed-version.sh: the single-layer upgrade matrix of docs/upgrading.md.
#
#   tests/mixed-version.sh --head PREFIX [--work DIR] [--jobs N]
#
# Builds the last release (abi/release names its commit) from this tree's
# git history and installs it beside PREFIX, the installation of the tree
# itself.  Then, for every layer library and every conduit plug-in, and in
# both directions, it runs a job on one side's installation with that one
# library taken from the other side (first on LD_LIBRARY_PATH, or first on
# GEX_CONDUIT_PATH), with two clients: one compiled against the release's
# headers and one against the tree's (pkg-config gex of each side), at 2
# ranks.  A run passes when the client reports success; the only accepted
# failure is the dynamic loader's refusal of a client or library that needs
# a symbol version the older library lacks ("version `GEX_AM_1.1' not
# found"), which names the layer and the version needed, and only where
# docs/upgrading.md says the combination is unsupported (something newer
# than what it runs on).  gex-info --layers must show the swapped library's
# release.  Prints a table and "N passed, N failed"; exit 1 on failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
head_prefix= work=$top/_build/mixed-version jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
    case $1 in
    --head) head_prefix=$2; shift 2;;
    --work) work=$2; shift 2;;
    --jobs) jobs=$2; shift 2;;
    *) echo "usage: $0 --head PREFIX [--work DIR] [--jobs N]" >&2; exit 2;;
    esac
done
[ -n "$head_prefix" ] && [ -x "$head_prefix/bin/gexrun" ] ||
    { echo "mixed-version: --head PREFIX must be an installed GEX (bin/gexrun)" >&2; exit 2; }
commit=$(sed -n 's/^commit=//p' "$top/abi/release" 2>/dev/null)
release=$(sed -n 's/^release=//p' "$top/abi/release" 2>/dev/null)
if [ -z "$commit" ]; then
    echo "mixed-version: no release recorded in abi/release; nothing to mix"
    exit 0
fi
if ! git -C "$top" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "mixed-version: SKIPPED: release $release's commit $commit is not in this clone's" \
         "history (a shallow clone?); fetch it to run the matrix"
    exit 0
fi
mkdir -p "$work"
rel=$work/release-prefix
timeout_s=${GEX_MIXED_TIMEOUT:-60}

# ---- the release, built once per commit ----
if [ "$(cat "$rel/.gex-commit" 2>/dev/null)" != "$commit" ]; then
    echo "== building release $release ($commit) (log: $work/release-build.log)"
    rm -rf "$work/release-src" "$work/release-build" "$rel"
    mkdir -p "$work/release-src" "$work/release-build"
    if ! { git -C "$top" archive "$commit" | tar -x -C "$work/release-src" &&
           (cd "$work/release-src" && autoreconf -fi) &&
           (cd "$work/release-build" && "$work/release-src/configure" --prefix="$rel" \
                --with-gasnet-view=no --disable-static) &&
           make -C "$work/release-build" -j"$jobs" install; } >"$work/release-build.log" 2>&1; then
        tail -20 "$work/release-build.log"
        echo "mixed-version: building the release failed"
        exit 1
    fi
    echo "$commit" >"$rel/.gex-commit"
    rm -rf "$work/release-src" "$work/release-build"
fi

# ---- clients, each compiled against one side's headers ----
build_client() {   # build_client SIDE-PREFIX SRC OUT
    PKG_CONFIG_PATH=$1/lib/pkgconfig cc -o "$3" "$2" \
        $(PKG_CONFIG_PATH=$1/lib/pkgconfig pkg-config --cflags --libs gex) 2>>"$work/clients.log"
}
declare -A prefix=([release]=$rel [head]=$head_prefix)
clients=()
for side in release head; do
    for c in hello compat_client; do
        src=$top/examples/hello.c
        [ $c = compat_client ] && src=$top/tests/compat/compat_client.c
        out=$work/$c.$side
        build_client "${prefix[$side]}" "$src" "$out" ||
            { echo "mixed-version: cannot build $c against the $side headers ($work/clients.log)"; exit 1; }
        clients+=("$c.$side")
    done
done

# ---- the matrix ----
pass=0 fail=0
printf '%-14s %-34s %s\n' "library" "taken from -> installation" "clients (release-built, head-built)"
ok_output() {   # ok_output CLIENT LOG
    case $1 in
    hello.*) grep -q "all 2 ranks said hello" "$2";;
    compat_client.*) grep -q "compat_client on 2 rank(s): [0-9]* passed, 0 failed" "$2";;
    esac
}
run_cell() {   # run_cell UNIT FROM ON
    local unit=$1 from=$2 on=$3 base=${prefix[$3]} other=${prefix[$2]}
    local overlay=$work/overlay
    rm -rf "$overlay" && mkdir -p "$overlay"
    local env=(env)
    case $unit in
    conduit-*)
        local cn=${unit#conduit-}
        [ -f "$other/lib/gex/libgex-conduit-$cn.so" ] && [ -f "$base/lib/gex/libgex-conduit-$cn.so" ] ||
            return 0
        ln -s "$other/lib/gex/libgex-conduit-$cn.so" "$overlay/"
        env+=(GEX_CONDUIT_PATH="$overlay" GEX_CONDUIT=$cn GASNET_SUPERNODE_MAXSIZE=1)
        [ "$cn" = ofi ] && env+=(FI_PROVIDER=sockets)
        [ "$cn" = ucx ] && env+=(UCX_TLS=tcp,self UCX_NET_DEVICES=lo)
        ;;
    *)
        local f
        for f in "$other/lib/libgex-$unit.so."*; do ln -s "$f" "$overlay/"; done
        env+=(LD_LIBRARY_PATH="$overlay:$base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
        ;;
    esac
    local verdicts=()
    for c in "${clients[@]}"; do
        local log=$work/run.$unit.$from-on-$on.$c.log
        "${env[@]}" timeout "$timeout_s" "$base/bin/gexrun" -n 2 --timeout "$timeout_s" \
            "$work/$c" >"$log" 2>&1
        local rc=$? built=${c##*.}
        if [ $rc -eq 0 ] && ok_output "$c" "$log"; then
            verdicts+=("pass"); pass=$((pass + 1))
        elif grep -q "version \`GEX_[A-Z_]*_[0-9.]*' not found" "$log" &&
             { [ "$from" = release ] || [ "$built" = head ]; }; then
            # Something newer (the client or the other layers) than the
            # release library it was given: unsupported, refused at load.
            verdicts+=("refused(ok)"); pass=$((pass + 1))
        else
            verdicts+=("FAIL"); fail=$((fail + 1))
            sed 's/^/      /' "$log" | tail -5
        fi
    done
    # gex-info must show the swapped layer's or plug-in's own release
    local file want row
    if [[ $unit == conduit-* ]]; then
        file=$(readlink -f "$overlay/libgex-conduit-${unit#conduit-}.so")
        want=$(strings "$file" | sed -n "s/^\$GEXConduit: ${unit#conduit-} \([^ ]*\) .*/\1/p")
        row="^${unit#conduit-} +${want:-unknown} .* $file: loaded\$"
    else
        file=$(readlink -f "$other/lib/libgex-$unit.so")
        want=$(strings "$file" | sed -n "s/^\$GEXLayer: libgex-$unit \([^ ]*\) .*/\1/p")
        row="^libgex-$unit +${want:-unknown} .* $file\$"
    fi
    if "${env[@]}" timeout "$timeout_s" "$base/bin/gex-info" --layers >"$work/info.log" 2>&1 &&
       grep -Eq "$row" "$work/info.log"; then
        verdicts+=("gex-info:$want"); pass=$((pass + 1))
    elif grep -q "version \`GEX_" "$work/info.log" && [ "$from" = release ]; then
        verdicts+=("gex-info:refused(ok)"); pass=$((pass + 1))
    else
        verdicts+=("gex-info:FAIL"); fail=$((fail + 1))
        sed 's/^/      /' "$work/info.log" | head -20
    fi
    printf '%-14s %-34s %s\n' "$unit" "$from -> $on" "${verdicts[*]}"
}
for unit in core shm am rma vis atomics coll mk conduit-smp conduit-ofi conduit-ucx; do
    run_cell "$unit" release head
    run_cell "$unit" head release
done
echo
echo "mixed-version (release $release vs this tree): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
