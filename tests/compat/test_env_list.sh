#!/bin/sh
# test_env_list.sh: `gex-info --env` and docs/environment.md name exactly the
# environment variables GEX's code reads (docs/environment.md says so; #28's
# bad-input campaign relies on it).  The names in the code are found where
# they are read: getenv and GEX's helpers that take a name, gexrun's job
# variables, gasnet1_env.c's table, gasnet_tools.h's GASNET_MAXIMIZE_*, and
# gasnetrun.in.  Other software's variables (FI_*, UCX_*, PMIX_*, SLURM_*,
# PATH, ...) and gexrun's own GEX_JOB_* protocol are not user settings.
set -u
top=${srcdir:-.}
info=${TOP_BUILDDIR:-.}/gex-info
command -v perl >/dev/null || { echo "SKIP: perl is needed to read the sources"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
EXCLUDE='^(FI_|UCX_|PMIX_|SLURM_|GEX_JOB_)|^(LD_LIBRARY_PATH|PATH|HOME|TMPDIR)$'
(
    cd "$top" || exit 1
    perl -0777 -ne 'while (/\b(?:getenv|gexi_getenv(?:_int|_size|_yesno|_int_range)?|env_seconds|env_uint|install_named_signal|chunk_size|gexc_(?:smp|ofi|ucx)_env_(?:size|tristate|yesno))\s*\(\s*(?:c\s*,\s*)?"([A-Za-z_][A-Za-z0-9_]*)"/g) { print "$1\n" }' \
        libgex-*/*.c libgex-*/*.h conduits/*/*.c conduits/*/*.h tools/*.c include/*.h include/gex/*.h
    sed -n 's/^#define GEXI_JOB_ENV_[A-Z]* *"\([A-Z_]*\)".*/\1/p' libgex-core/job_region.h
    perl -0777 -ne 'if (/char \*const names\[\] = \{(.*?)\};/s) { print "$_\n" for ($1 =~ /"([A-Z_]+)"/g) }' \
        libgex-core/gasnet1_env.c
    perl -ne 'print "GASNET_MAXIMIZE_$1\n" if /gasnett_maximize_rlimit\(RLIMIT_\w+, "(RLIMIT_\w+)"\)/' \
        include/gasnet_tools.h
    for uc in SMP OFI UCX; do
        grep -o '\${[A-Z%][A-Za-z0-9_%]*' tools/gasnetrun.in | sed "s/^\\\${//; s/%CONDUIT_UC%/$uc/"
    done
) | sort -u | grep -Ev "$EXCLUDE" >"$t/code"
[ "$(wc -l <"$t/code")" -gt 50 ] || { echo "FAIL: found only $(wc -l <"$t/code") names in the sources"; exit 1; }
# gex-info --env: the first column; NAME_* stands for the code's names it prefixes
"$info" --env | awk '{print $1}' >"$t/doc_raw" || { echo "FAIL: gex-info --env"; exit 1; }
: >"$t/doc"
while read -r n; do
    case $n in
    *\*) grep -E "^${n%\*}[A-Z0-9_]+\$" "$t/code" >>"$t/doc" || echo "$n" >>"$t/doc" ;;
    *) echo "$n" >>"$t/doc" ;;
    esac
done <"$t/doc_raw"
sort -u -o "$t/doc" "$t/doc"
# docs/environment.md: the backticked names of its tables' first column
# (`_X` continues the previous name's prefix)
awk -F' [|] ' '/^[|] `/ {print $1}' "$top/docs/environment.md" |
    grep -oE '`[A-Z_][A-Z0-9_]*`' | tr -d '`' |
    awk '/^_/ {print prefix substr($0, 2); next} {print; p=$0; sub(/_[A-Z0-9]+$/, "_", p); prefix=p}' |
    sort -u >"$t/md"
rc=0
for pair in "code doc" "code md"; do
    set -- $pair
    only1=$(comm -23 "$t/$1" "$t/$2" | tr '\n' ' ')
    only2=$(comm -13 "$t/$1" "$t/$2" | tr '\n' ' ')
    what=$([ "$2" = doc ] && echo "gex-info --env" || echo "docs/environment.md")
    if [ -z "$only1$only2" ]; then
        echo "PASS: $what names the $(wc -l <"$t/code") variables the code reads"
    else
        rc=1
        [ -n "$only1" ] && echo "FAIL: read by the code, missing from $what: $only1"
        [ -n "$only2" ] && echo "FAIL: in $what, read nowhere in the code: $only2"
    fi
done
exit $rc
