#!/usr/bin/env bash
# gasnet-tests.sh: GASNet-EX's own test programs, built unmodified against an
# installed GEX through its GASNet-style fragments and run with its
# gasnetrun_<conduit> launchers (docs/compatibility.md, "GASNet's test
# suite").  Usage:
#
#   tools/gasnet-tests.sh [--prefix P] [--conduit C]... [--ranks "1 2 4"]
#                         [--timeout S] [--only "testa testb"] [--work DIR] [SUITE_DIR]
#
# SUITE_DIR is GASNet's tests/ directory (default: ../shared/gasnet-tests
# beside this tree).  Every program of GASNet's seq list is built with
# <conduit>-seq.mak, every program of its par list with <conduit>-par.mak,
# the tools-only ones with gasnet_tools-{seq,par}.mak, exactly as GASNet's
# tests/Makefile builds them (its extra objects and include folders too).
# Each runs at every rank count (except where GASNet's harness fixes one),
# with GASNet's harness arguments (smaller where the harness's would take
# minutes on two cores), under a time limit.  A run passes when it exits 0
# and prints no line GASNet's harness counts as a failure (ERROR, "fatal
# signal").  Prints a table and "N passed, N failed"; exit status 1 if any
# failed.  Conduits ofi and ucx run over loopback with shared memory off,
# so every message crosses the network.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$top/_prefix
conduits=()
ranks="1 2 4"
timeout_s=120
only=
work=
suite=

while [ $# -gt 0 ]; do
    case $1 in
    --prefix) prefix=$2; shift 2;;
    --conduit) conduits+=("$2"); shift 2;;
    --ranks) ranks=$2; shift 2;;
    --timeout) timeout_s=$2; shift 2;;
    --only) only=$2; shift 2;;
    --work) work=$2; shift 2;;
    -h|--help) sed -n '2,21p' "$0"; exit 0;;
    -*) echo "gasnet-tests: unknown option $1" >&2; exit 2;;
    *) suite=$1; shift;;
    esac
done
[ ${#conduits[@]} -gt 0 ] || conduits=(smp)
[ -n "$suite" ] || suite=$top/../shared/gasnet-tests
[ -d "$suite" ] && [ -f "$suite/test.h" ] || {
    echo "gasnet-tests: no GASNet test suite at $suite (give its tests/ folder)" >&2; exit 2; }
suite=$(cd "$suite" && pwd)
[ -x "$prefix/bin/gexrun" ] || { echo "gasnet-tests: no GEX installed in $prefix" >&2; exit 2; }
[ -n "$work" ] || work=$top/_build/gasnet-tests
mkdir -p "$work"
work=$(cd "$work" && pwd)

# GASNet's lists (its tests/Makefile.in: testprograms_seq, testprograms_par,
# CXX_TESTS; testmpi needs GASNet's mpi-conduit and is not in GEX's).
seq_tests="testgasnet testlegacy testtools testinternal testenv testhsl testsmall testlarge
 testval testam testmisc testcore1 testcore2 testcore3 testcore4 testcore5 testslice
 testbarrier testbarrierconf testbarrierlate testlogGP testalign testrand testexit testvis
 testcoll testcollperf testteambarrier testteambcast testreduce testteam testnbr testvisperf
 testqueue testratomic testfaddperf testimm testsplit testacc testsegment testtmpair
 testreadonly testalltoall testtoken testcudauva testhip testze testprogthr
 testcxx testlegacycxx testtoolscxx"
par_tests="testthreads testcontend testlockcontend"
# The one permitted exclusion: GASNet's internal diagnostics
# (gasnett_run_diagnostics exercises GASNet's own internals).
excluded="testinternal"
# Programs that do not use the conduit: run once, directly.
nongasnet="testtools testtoolscxx"

if [ -n "$only" ]; then
    keep() { case " $only " in *" $1 "*) return 0;; esac; return 1; }
    s=; for t in $seq_tests; do keep "$t" && s="$s $t"; done; seq_tests=$s
    s=; for t in $par_tests; do keep "$t" && s="$s $t"; done; par_tests=$s
fi

# Arguments: GASNet's harness (TEST_PARAMS in its tests/Makefile.in), with
# iteration counts cut where the default would run for minutes here.
test_args() {
    case $1 in
    testcore1) echo 1000;;
    testhsl) echo 0;;
    testrand) echo 1024;;
    testlogGP) echo "1000 0 8 65536";;
    testthreads) echo 2;;
    testqueue) echo "1 256 262144";;
    testvisperf) echo "-maxdata 131072 -maxcontig 512 10";;
    testslice) echo "1024000 10 10";;
    testcollperf) echo "-szfactor 4 16384 2 50 0";;
    testenv) echo "GASNet is \"Global Address Space Networking\"";;
    # latency-bound: every iteration is several dependent round trips, a
    # few ns each in shared memory but ~25 us over loopback TCP, so the
    # defaults (100000 and 1000) take minutes at 4 ranks on two cores
    testacc) echo 10000;;
    testratomic) echo 100;;
    # its run is ~25 times its barrier's latency x iterations: 10000 took
    # 46 s at 4 ranks on two cores (178 us per oversubscribed barrier)
    testbarrierlate) echo 2000;;
    *) echo;;
    esac
}
# Rank counts GASNet's harness fixes.
test_ranks() {
    case $1 in
    testmisc) echo 1;;
    testbarrierconf) echo 3;;
    *) echo "$ranks";;
    esac
}

write_makefile() { # dir mode conduit
    cat >"$1/Makefile" <<EOF
# written by tools/gasnet-tests.sh: GASNet's tests/Makefile build rules
srcdir = $suite
include $prefix/include/$3-conduit/$3-$2.mak
include $prefix/include/gasnet_tools-$( [ "$2" = seq ] && echo seq || echo par ).mak
AMX_INC = -I\$(srcdir)/amx
testgasnet_extraincs = \$(AMX_INC)
testlegacy_extraincs = \$(AMX_INC)
testcxx_extraincs = \$(AMX_INC)
testlegacycxx_extraincs = \$(AMX_INC)
testlogGP_extraobjs = delay.o
testbarrierlate_extraobjs = delay.o
testprogthr_extralibs = -lpthread
testlogGP testbarrierlate: delay.o
delay.o:
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_MISC_CFLAGS) -O0 -c -o \$@ \$(srcdir)/delay.c
testtools:
	\$(GASNETTOOLS_CC) \$(GASNETTOOLS_CPPFLAGS) \$(GASNETTOOLS_CFLAGS) -c -o \$@.o \$(srcdir)/\$@.c
	\$(GASNETTOOLS_LD) \$(GASNETTOOLS_LDFLAGS) -o \$@ \$@.o \$(GASNETTOOLS_LIBS)
testtoolscxx:
	\$(GASNETTOOLS_CXX) \$(GASNETTOOLS_CPPFLAGS) \$(GASNETTOOLS_CXXFLAGS) -c -o \$@.o \$(srcdir)/\$@.cc
	\$(GASNETTOOLS_CXX) \$(GASNETTOOLS_CXXFLAGS) \$(GASNETTOOLS_LDFLAGS) -o \$@ \$@.o \$(GASNETTOOLS_LIBS)
testcxx testlegacycxx:
	\$(GASNET_CXX) -I\$(srcdir) \$(\$@_extraincs) \$(GASNET_CXXCPPFLAGS) \$(GASNET_CXXFLAGS) -c -o \$@.o \$(srcdir)/\$@.cc
	\$(GASNET_CXX) \$(GASNET_CXXFLAGS) \$(GASNET_LDFLAGS) -o \$@ \$@.o \$(\$@_extraobjs) \$(GASNET_LIBS) \$(\$@_extralibs)
test%:
	\$(GASNET_CC) -I\$(srcdir) \$(\$@_extraincs) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -c -o \$@.o \$(srcdir)/\$@.c
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o \$@ \$@.o \$(\$@_extraobjs) \$(GASNET_LIBS) \$(\$@_extralibs)
EOF
}

# Network conduits on one host: loopback, and no shared memory, so that
# every message takes the conduit (as GASNet's anchors are run here).
conduit_env() {
    case $1 in
    ucx) echo "UCX_TLS=tcp,self UCX_NET_DEVICES=lo GASNET_SUPERNODE_MAXSIZE=1";;
    ofi) echo "GASNET_SUPERNODE_MAXSIZE=1";;
    *) echo;;
    esac
}

# testexit is run as GASNet's run-testexit runs it: once per exit test
# (1..15 in a seq build), each of which must end the whole job with its own
# number as the exit status.  Prints each case; fails if any case differs.
run_testexit() { # dir conduit launcher-command...
    local d=$1 c=$2; shift 2
    local bad=0 k rc
    for k in $(seq 1 15); do
        (cd "$d" && env $(conduit_env "$c") GEX_RUN_TIMEOUT=60 timeout -k 5 75 "$@" "$k")
        rc=$?
        if [ "$rc" -eq "$k" ]; then echo "testexit $k: result=$rc (ok)"
        else echo "testexit $k: result=$rc, expected $k: FAILED"; bad=1; fi
    done
    return $bad
}

pass=0
fail=0
failed_list=
jobs=$(nproc 2>/dev/null || echo 2)
for conduit in "${conduits[@]}"; do
    [ -f "$prefix/include/$conduit-conduit/$conduit-seq.mak" ] || {
        echo "gasnet-tests: GEX in $prefix has no $conduit conduit fragments" >&2; fail=$((fail + 1)); continue; }
    launcher=$prefix/bin/gasnetrun_$conduit
    for mode in seq par; do
        d=$work/$conduit-$mode
        mkdir -p "$d"
        write_makefile "$d" "$mode" "$conduit"
        list=$seq_tests; [ "$mode" = par ] && list=$par_tests
        [ -n "${list// /}" ] || continue
        echo "== building $conduit-$mode: $(echo $list | wc -w) programs (log: $d/build.log)"
        (cd "$d" && rm -f $list && make -k -j"$jobs" $list) >"$d/build.log" 2>&1
    done
    # The tools-only programs do not use the conduit and mostly sleep (GASNet's
    # timer and nsleep checks: ~21 s each, a few ms of CPU): they run in the
    # background from here, beside the others, and their row waits for them.
    # Their status file is written on exit, with the seconds they took.
    d=$work/$conduit-seq
    for t in $nongasnet; do
        case " $seq_tests " in *" $t "*) ;; *) continue;; esac
        rm -f "$d/$t.1.status"
        [ -x "$d/$t" ] || continue
        (start=$(date +%s.%N)
         (cd "$d" && eval "env $(conduit_env "$conduit") GASNET_DUMMY='GASNet dummy value' \
             GEX_RUN_TIMEOUT=$timeout_s timeout -k 5 $((timeout_s + 15)) ./$t $(test_args "$t")") \
             >"$d/$t.1.log" 2>&1 </dev/null
         rc=$?
         echo "$rc $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" >"$d/$t.1.status") &
    done
    printf '\n%-18s %-6s' "$conduit" "build"
    for n in $ranks; do printf ' %-12s' "$n rank(s)"; done
    printf '\n'
    for mode in seq par; do
        d=$work/$conduit-$mode
        list=$seq_tests; [ "$mode" = par ] && list=$par_tests
        for t in $list; do
            printf '%-18s' "$t"
            case " $excluded " in *" $t "*) printf ' %-6s excluded (GASNet internals)\n' "-"; continue;; esac
            if [ ! -x "$d/$t" ]; then
                printf ' %-6s\n' "FAIL"; fail=$((fail + 1)); failed_list="$failed_list $conduit/$t(build)"; continue
            fi
            printf ' %-6s' ok
            args=$(test_args "$t")
            case " $nongasnet " in *" $t "*) rlist=1;; *) rlist=$(test_ranks "$t");; esac
            for n in $rlist; do
                log=$d/$t.$n.log
                start=$(date +%s.%N)
                case " $nongasnet " in
                *" $t "*) cmd=("./$t");;
                *) cmd=("$launcher" -n "$n" "./$t");;
                esac
                case " $nongasnet " in *" $t "*)   # started in the background above
                    while [ ! -s "$d/$t.$n.status" ]; do sleep 0.2; done
                    read -r rc secs <"$d/$t.$n.status"
                    rm -f "$d/$t.$n.status"
                    ;;
                *)
                if [ "$t" = testexit ]; then
                    run_testexit "$d" "$conduit" "${cmd[@]}" >"$log" 2>&1 </dev/null
                    rc=$?
                else
                    (cd "$d" && eval "env $(conduit_env "$conduit") GASNET_DUMMY='GASNet dummy value' \
                        GEX_RUN_TIMEOUT=$timeout_s timeout -k 5 $((timeout_s + 15)) \
                        \"\${cmd[@]}\" $args") >"$log" 2>&1 </dev/null
                    rc=$?
                fi
                secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
                ;;
                esac
                if [ $rc -eq 0 ] && ! grep -E 'ERROR|fatal signal' "$log" \
                        | grep -qvE 'Retrying allocation|GASNET_FREEZE_ON_ERROR'; then
                    printf ' %-12s' "$(printf 'pass %.1fs' "$secs")"
                    pass=$((pass + 1))
                else
                    printf ' %-12s' "$(printf 'FAIL %.1fs' "$secs")"
                    fail=$((fail + 1))
                    failed_list="$failed_list $conduit/$t@$n"
                fi
            done
            printf '\n'
        done
    done
done
echo
[ -z "$failed_list" ] || echo "failed:$failed_list (logs: $work/<conduit>-<mode>/<test>.<ranks>.log)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
