#!/bin/bash
# run-soak.sh: runs tests/soak/soak (issue 28) for SECONDS on each conduit
# under gexrun and prints one summary row per conduit.
#
#   run-soak.sh [--seconds S] [--conduits "smp ofi ucx"] [--ranks N] [-- SOAK-ARGS...]
#
# Defaults: 600 s, smp only, 4 ranks (./gex-dev soak).  Each conduit gets the
# full S seconds: the point of a soak is time under load on one transport,
# and splitting 600 s three ways would make each run too short to show slow
# growth.  Network conduits run with GASNET_SUPERNODE_MAXSIZE=1 so every
# byte really crosses the network (ofi: FI_PROVIDER='tcp;ofi_rxm'; ucx:
# UCX_TLS=tcp,self over lo).  A job passes when it exits 0 within its hard
# timeout (S + max(120, S/2) seconds: the last round and the exit come after
# S), rank 0 printed PASS, and nothing named after the job is left in
# /dev/shm.  Conduits not built here are skipped (said).  Environment:
# GEXRUN and TOP_BUILDDIR (default: the _build beside this script).
# Exits 0 when every conduit run passed, 1 otherwise, 77 if none could run.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TOP_BUILDDIR:-$HERE/../../_build}
GEXRUN=${GEXRUN:-$TOP/gexrun}
PROG=$TOP/tests/soak/soak
SECONDS_=600 CONDUITS=smp RANKS=4
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) SECONDS_=$2; shift ;;
    --conduits) CONDUITS=$2; shift ;;
    --ranks) RANKS=$2; shift ;;
    --) shift; break ;;
    *) echo "usage: $0 [--seconds S] [--conduits LIST] [--ranks N] [-- SOAK-ARGS...]" >&2
       exit 2 ;;
    esac
    shift
done
case $SECONDS_ in ''|*[!0-9]*) echo "run-soak: --seconds wants a whole number" >&2; exit 2 ;; esac
if [ ! -x "$GEXRUN" ] || [ ! -x "$PROG" ]; then
    echo "run-soak: $GEXRUN or $PROG not built (make -C _build gexrun tests/soak/soak)" >&2
    exit 2
fi

. "$HERE/../conduit_env.sh"
# field NAME: NAME=<digits> from rank 0's PASS line ($pass)
field() { echo "$pass" | sed -n "s/.*[ :]$1=\([0-9]*\).*/\1/p"; }

TMP=$(mktemp -d /tmp/run-soak.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
hard=$((SECONDS_ + (SECONDS_ / 2 > 120 ? SECONDS_ / 2 : 120)))
rows=() status=0 ran=0
for c in $CONDUITS; do
    if ! have_conduit "$c"; then echo "# SKIP conduit $c: not built here"; continue; fi
    ran=$((ran + 1))
    out=$TMP/out.$c
    echo "== soak on $c: $RANKS ranks, $SECONDS_ s ($(conduit_env "$c"))"
    # shellcheck disable=SC2046
    env $(conduit_env "$c") timeout -k 10 $((hard + 30)) \
        "$GEXRUN" -n "$RANKS" --timeout "$hard" "$PROG" --seconds "$SECONDS_" "$@" \
        >"$out" 2>&1
    rc=$?
    grep -v '^soak: rank [0-9]*: rounds=' "$out" | tail -n 20
    grep '^soak: rank [0-9]*: rounds=' "$out" | sort -t' ' -k3n
    verdict=PASS why=
    [ $rc -eq 0 ] || { verdict=FAIL why="exit $rc"; }
    grep -q '^soak: PASS on ' "$out" || { verdict=FAIL why="${why:+$why, }no PASS line"; }
    jobid=$(sed -n 's/^soak: job id \([^,]*\),.*/\1/p' "$out" | head -n 1)
    if [ -n "$jobid" ] && [ "$jobid" != "?" ]; then
        left=$(compgen -G "/dev/shm/gex-$jobid-*")
        [ -z "$left" ] || { verdict=FAIL why="${why:+$why, }left in /dev/shm: $left"; }
    fi
    pass=$(grep '^soak: PASS on ' "$out")
    rows+=("$(printf '%-7s %8s %7s %11s %13s %10s %9s %9s  %s' "$c" "$(field seconds)" \
        "$(field rounds)" "$(field messages)" "$(field bytes)" "$(field atomics)" \
        "$(field rss_start_max_kib)" "$(field rss_end_max_kib)" "$verdict${why:+ ($why)}")")
    [ "$verdict" = PASS ] || status=1
done
[ $ran -gt 0 ] || { echo "run-soak: no conduit of \"$CONDUITS\" is built here" >&2; exit 77; }
echo
printf '%-7s %8s %7s %11s %13s %10s %9s %9s  %s\n' conduit seconds rounds messages \
    "AM bytes" atomics "RSS0 KiB" "RSS1 KiB" verdict
for r in "${rows[@]}"; do echo "$r"; done
exit $status
