#!/usr/bin/env bash
# The Debian packages as a user gets them (docs/building.md, "Debian packages"):
#   tests/pkg/test_debs.sh --debs DIR [--src TOP]
# installs every package of DIR with apt on this machine, then, from a scratch
# folder with no source tree on any search path:
#   - builds a client with `pkg-config --cflags --libs gex`, one through the smp
#     conduit's makefile fragment, and one linked with the static archives, and
#     runs each with `gexrun -n 4`;
#   - reads the man pages with `man -l` and `man -w`;
#   - loads the environment module with Debian's Lmod (tests/pkg/test_modules.sh);
#   - removes libgex-dev, upgrades one layer's package alone (libgex-am1 from
#     a newer build: the same files under a higher version) and runs the
#     client again;
#   - purges every package and checks that nothing GEX installed is left.
# Needs root (apt-get); exits 77 when it cannot install packages.
set -u
debs= src=$(cd "$(dirname "$0")/../.." && pwd)
while [ $# -gt 0 ]; do
    case $1 in
    --debs) debs=$(cd "$2" && pwd); shift 2 ;;
    --src) src=$2; shift 2 ;;
    *) echo "usage: $0 --debs DIR [--src TOP]" >&2; exit 2 ;;
    esac
done
[ -n "$debs" ] || { echo "usage: $0 --debs DIR" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: installing packages needs root"
    exit 77
fi

fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() {  # check "what" command...
    local what=$1; shift
    if "$@" >"$work/out" 2>&1; then pass "$what"; else fail "$what"; sed 's/^/    /' "$work/out" | tail -20; fi
}

work=$(mktemp -d /tmp/gex-debtest.XXXXXX)
trap 'rm -rf "$work"' EXIT
export DEBIAN_FRONTEND=noninteractive
# Only the system's folders: nothing from a build tree or an earlier install.
clean_env=(env -i HOME="$work" PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TMPDIR=/tmp)

mapfile -t pkgs < <(ls "$debs"/*.deb | grep -v -- '-dbgsym_')
names=()
for d in "${pkgs[@]}"; do names+=("$(dpkg-deb -f "$d" Package)"); done
echo "packages: ${names[*]}"

# A clean start: no GEX package from an earlier run.
apt-get purge -y "${names[@]}" >/dev/null 2>&1 || true

check "apt installs all ${#pkgs[@]} packages" apt-get install -y --no-install-recommends "${pkgs[@]}"
for n in "${names[@]}"; do
    dpkg-query -W -f='${Status}' "$n" 2>/dev/null | grep -q 'install ok installed' ||
        fail "package $n is not installed"
done

# ---- a client through pkg-config, run on 4 ranks ----
# The client: the README's demo as gex-doc installs it.
cp /usr/share/doc/gex-doc/examples/hello.c "$work/hello.c" ||
    fail "gex-doc installs examples/hello.c"
four_ranks() {  # four_ranks BINARY: runs it on 4 ranks, checks each rank spoke once
    (cd "$work" && "${clean_env[@]}" gexrun -n 4 --timeout 60 "$1") >"$work/run.out" 2>&1 || {
        cat "$work/run.out"; return 1; }
    # rank r got its left neighbour's greeting, each rank exactly once
    [ "$(sed -n 's/^rank \([0-3]\) received: "hello from rank \([0-3]\) of 4"$/\1 \2/p' "$work/run.out" |
        awk '($2 + 1) % 4 == $1 {print $1}' | sort -un | wc -l)" = 4 ] &&
        [ "$(grep -c '^rank' "$work/run.out")" = 4 ] || { cat "$work/run.out"; return 1; }
}
build_pc() {
    cd "$work" && "${clean_env[@]}" sh -c 'cc -o hello-pc hello.c $(pkg-config --cflags --libs gex)'
}
check "cc hello.c \$(pkg-config --cflags --libs gex)" build_pc
check "gexrun -n 4 ./hello-pc" four_ranks ./hello-pc
check "the client resolves libgex from /usr/lib (no rpath)" \
    sh -c "! readelf -d '$work/hello-pc' | grep -q 'R.*PATH'"
check "gex-info runs" "${clean_env[@]}" gex-info

# ---- through a conduit's GASNet-style makefile fragment ----
frag=$("${clean_env[@]}" sh -c 'ls /usr/include/smp-conduit/smp-par.mak 2>/dev/null')
if [ -n "$frag" ]; then
    cat >"$work/Makefile" <<EOF
include $frag
hello-mak: hello.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -c -o hello-mak.o hello.c
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o hello-mak hello-mak.o \$(GASNET_LIBS)
EOF
    check "make with $frag" "${clean_env[@]}" make -C "$work" hello-mak
    check "gexrun -n 4 ./hello-mak" four_ranks ./hello-mak
else
    fail "no smp-conduit/smp-par.mak under /usr/include"
fi

# ---- static archives ----
build_static() {
    cd "$work" && "${clean_env[@]}" sh -c \
        'cc -o hello-static hello.c $(pkg-config --cflags gex) -Wl,-Bstatic $(pkg-config --static --libs gex)'
}
check "static link with pkg-config --static" build_static
check "the static client needs no libgex shared library" \
    sh -c "! ldd '$work/hello-static' | grep -q libgex"
check "gexrun -n 4 ./hello-static" four_ranks ./hello-static

# ---- man pages ----
for page in gexrun.1 gex-info.1 gasnetrun_smp.1 gex.7; do
    sec=${page##*.}
    f=$(ls /usr/share/man/man$sec/$page* 2>/dev/null | head -1)
    if [ -z "$f" ]; then fail "man page $page not installed"; continue; fi
    check "man -l $f renders" sh -c "MANWIDTH=80 man -l '$f' | grep -q ."
    check "man -w ${page%.*} finds it" sh -c "man -w $sec ${page%.*} | grep -q /usr/share/man"
done

# ---- environment module (Debian's Lmod) ----
if [ -f "$src/tests/pkg/test_modules.sh" ]; then
    bash "$src/tests/pkg/test_modules.sh" --prefix /usr >"$work/mod.out" 2>&1
    rc=$?
    grep -E '^(PASS|FAIL|SKIP)' "$work/mod.out" | sed 's/^/  module: /'
    case $rc in
    0) pass "environment module under Lmod" ;;
    77) echo "SKIP: environment module (no Lmod)" ;;
    *) fail "environment module under Lmod"; tail -20 "$work/mod.out" ;;
    esac
fi

# ---- one layer upgraded alone ----
am=$(ls "$debs"/libgex-am1_*.deb | head -1)
ver=$(dpkg-deb -f "$am" Version)
newver="$ver+upgrade1"
mkdir -p "$work/repack"
dpkg-deb -R "$am" "$work/repack/am"
sed -i "s/^Version: .*/Version: $newver/" "$work/repack/am/DEBIAN/control"
dpkg-deb -b "$work/repack/am" "$work/repack/libgex-am1_${newver}.deb" >/dev/null
# The development package pins every layer to one build; a deployment
# upgrading its run-time libraries does not have it.
check "apt removes libgex-dev" apt-get remove -y libgex-dev
before=$(dpkg-query -W -f='${Package} ${Version}\n' 'libgex-*' 'gex-*' 2>/dev/null | grep -v '^libgex-am1 ' | sort)
check "apt upgrades libgex-am1 alone to $newver" apt-get install -y --no-install-recommends "$work/repack/libgex-am1_${newver}.deb"
after=$(dpkg-query -W -f='${Package} ${Version}\n' 'libgex-*' 'gex-*' 2>/dev/null | grep -v '^libgex-am1 ' | sort)
[ "$(dpkg-query -W -f='${Version}' libgex-am1)" = "$newver" ] && [ "$before" = "$after" ] &&
    pass "only libgex-am1 changed version" || fail "only libgex-am1 changed version"
check "gexrun -n 4 ./hello-pc after the upgrade" four_ranks ./hello-pc
layers_show_am() { "${clean_env[@]}" gex-info --layers 2>&1 | grep -q libgex-am; }
check "gex-info --layers shows libgex-am" layers_show_am

# ---- purge: nothing left ----
mapfile -t installed < <(dpkg-query -W -f='${Package}\n' 'libgex-*' 'gex-*' 2>/dev/null |
    while read -r p; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed && echo "$p"; done)
check "apt purges ${#installed[@]} packages" apt-get purge -y "${installed[@]}"
left=$(ls -d /usr/lib/*/gex /usr/lib/*/libgex-* /usr/include/gasnet* /usr/include/gex \
    /usr/include/*-conduit /usr/share/gex /usr/share/doc/gex-* /usr/share/doc/libgex-* \
    /usr/bin/gexrun /usr/bin/gex-info /usr/bin/gasnetrun_* /usr/share/man/man1/gexrun.1* \
    /usr/share/man/man7/gex.7* /dev/shm/gex* 2>/dev/null)
[ -z "$left" ] && pass "nothing left after purge" || { fail "left after purge:"; echo "$left" | sed 's/^/    /'; }

echo "test_debs: $fails failed"
[ "$fails" -eq 0 ]
