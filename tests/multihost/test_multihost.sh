#!/bin/bash
# test_multihost.sh: GEX jobs spread over simulated hosts (network, UTS and
# mount namespaces on one kernel: tests/multihost/mh_hosts.sh), started by
# real launchers: Open MPI's mpirun over an rsh agent that enters a host
# (nsrsh), and Slurm's srun --mpi=pmix with one slurmd per host
# (slurm_cluster.sh).  Ranks talk over the ofi (tcp;ofi_rxm) and ucx (tcp)
# conduits across hosts and through shared memory inside each host only.
# Each job must pass, and leave nothing in any host's /dev/shm or /tmp and
# no process behind.  Then jobs whose rank dies (SIGKILL, exit(3) without
# gasnet_exit) on another host than the launcher's first must end the whole
# job promptly with a non-zero status, and a job must survive a host's
# link going down for a moment.
#
#   test_multihost.sh [--launchers "mpirun srun"] [--conduits "ofi ucx"]
#                     [--hosts N] [--ranks-per-host R] [--quick]
#                     [--programs "mp_am mp_rma"|none] [--netem]
#   test_multihost.sh --list-programs [options]
# Uses $TOP_BUILDDIR (the build's test programs).  --list-programs prints
# the programs those options run, as make targets of the build tree
# (./gex-dev builds only these, not every check program).  Needs root;
# skips (77) with the reason when it cannot make namespaces or no launcher
# is usable.
# tc netem (delay, jitter, loss, reordering on the links) runs when the
# kernel has it (sch_netem), with --netem; without it that pass is skipped
# with a message.
set -u
here=$(cd "$(dirname "$0")" && pwd)
TOP=${TOP_BUILDDIR:-$(pwd)}
TOP=$(cd "$TOP" && pwd)
launchers="mpirun srun"
conduits="ofi ucx"
nhosts=2
per_host=2
quick=0
netem=0
programs=
list_programs=0
while [ $# -gt 0 ]; do
    case $1 in
    --launchers) launchers=$2; shift 2 ;;
    --conduits) conduits=$2; shift 2 ;;
    --hosts) nhosts=$2; shift 2 ;;
    --ranks-per-host) per_host=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --netem) netem=1; shift ;;
    --programs) programs=$2; shift 2 ;;   # instead of the default list ("none": faults only)
    --list-programs) list_programs=1; shift ;;
    *) echo "usage: $0 [--launchers L] [--conduits C] [--hosts N] [--ranks-per-host R] [--quick] [--netem]" >&2
       exit 2 ;;
    esac
done
conformance="mp_nodeinfo mp_init mp_am mp_rma mp_atomics mp_vis mp_coll mp_team"
shmem_tests="shmem_amo shmem_coll"
benches="am"
exits="kill exit3"
if [ "$quick" = 1 ]; then
    conformance="mp_nodeinfo mp_rma mp_coll"; shmem_tests="shmem_rma"; benches=; exits=kill
fi
if [ -n "$programs" ]; then
    conformance=${programs#none}; shmem_tests=; benches=; exits=
fi
if [ "$list_programs" = 1 ]; then
    {   for t in $conformance; do echo "tests/mp/$t"; done
        for t in $shmem_tests; do echo "tests/shmem/$t"; done
        for b in $benches; do echo "bench/$b/${b}_bench"; done
        [ -n "$exits" ] && echo tests/mp/mp_exit
        echo tests/mp/mp_nodeinfo      # every host named alike
        echo tests/fault/fault_victim  # the faults across hosts
    } | sort -u
    exit 0
fi
# only the network conduits this build has
built=
for c in $conduits; do [ -e "$TOP/.libs/libgex-conduit-$c.so" ] && built="$built $c"; done
conduits=${built# }
[ -n "$conduits" ] || { echo "SKIP: this build has neither the ofi nor the ucx conduit"; exit 77; }
. "$here/mh_hosts.sh"
. "$here/slurm_cluster.sh"
if ! why=$(mh_can_run); then echo "SKIP: simulated hosts: $why"; exit 77; fi
if ! grep -q '^#define HAVE_PMIX 1' "$TOP/config.h" 2>/dev/null; then
    echo "SKIP: this build has no PMIx bootstrap (both launchers need it)"; exit 77
fi

passed=0 failed=0 skipped=0
ok()  { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
OUT=$(mktemp "${TMPDIR:-/tmp}/test_multihost.XXXXXX") || exit 2
cleanup() { slurm_stop; mh_down; rm -f "$OUT"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

mh_up "$nhosts" || { echo "FAIL: could not create $nhosts hosts"; exit 1; }
n=$((nhosts * per_host))
echo "# $nhosts hosts (mhost1..$nhosts at $MH_NET.1..$nhosts), $per_host ranks each"

# The conduit's settings; the launcher carries them to every host.
conduit_env() {
    case $1 in
    ofi) echo "GEX_CONDUIT=ofi FI_PROVIDER=tcp;ofi_rxm" ;;
    ucx) echo "GEX_CONDUIT=ucx UCX_TLS=tcp,self UCX_NET_DEVICES=eth0" ;;
    esac
}

MPI_BASE=(mpirun --allow-run-as-root --bind-to none --hostfile "$MH_STATE/hostfile"
          --mca plm_rsh_agent "$here/nsrsh" --mca oob_tcp_if_include "$MH_NET.0/24"
          --mca btl_base_warn_component_unused 0)
for i in $(seq 1 "$nhosts"); do echo "$MH_NET.$i slots=$per_host"; done >"$MH_STATE/hostfile"

# launch_cmd LAUNCHER CONDUIT EXTRA_ENV... -- : the command prefix in CMD
launch_cmd() {
    local launcher=$1 conduit=$2; shift 2
    local kv
    CMD=()
    case $launcher in
    mpirun)
        CMD=("${MPI_BASE[@]}" -n "$n" --map-by "ppr:$per_host:node")
        for kv in $(conduit_env "$conduit") "$@"; do CMD+=(-x "$kv"); done ;;
    srun)
        CMD=(env)
        for kv in $(conduit_env "$conduit") "$@"; do CMD+=("$kv"); done
        CMD+=("${SRUN_BASE[@]}" -N "$nhosts" -n "$n" --ntasks-per-node="$per_host") ;;
    esac
}

# Nothing may outlive a job on any host: no file in /dev/shm or /tmp (but
# the launcher's own daemons' state), no process but Slurm's daemons.
DAEMONS='^[0-9]+ (/usr/sbin/slurmd|/usr/sbin/slurmctld|slurmctld: )' 
check_clean() {
    local what=$1 i left procs dirty=0 k
    for i in $(seq 1 "$nhosts"); do
        # Slurm's step daemon and its PMIx directory may take a few seconds
        # to go after the job's status is in (KillWait); a rank process or a
        # GEX file gets two.
        for k in $(seq 30); do
            left=$(mh_leftovers "$i")
            procs=$(mh_processes "$i" | grep -v -E "$DAEMONS" || true)
            [ -z "$left" ] && [ -z "$procs" ] && break
            [ "$k" -ge 4 ] && echo "$left$procs" | grep -q -v -E 'spmix|slurmstepd' && break
            sleep 0.5
        done
        [ -z "$left" ] && [ -z "$procs" ] && continue
        dirty=1
        [ -n "$left" ] && echo "    | mhost$i left files: $(echo $left)"
        [ -n "$procs" ] && echo "    | mhost$i left processes: $(echo "$procs" | cut -c1-200)"
        mh_exec "$i" sh -c 'rm -rf /dev/shm/* /tmp/[!.]*' 2>/dev/null
        for p in $(echo "$procs" | cut -d' ' -f1); do kill -KILL "$p" 2>/dev/null; done
    done
    [ "$dirty" = 0 ] || { bad "$what: leftovers"; return 1; }
}

# run NAME WANT(0|fail|status) MAX_S LAUNCHER CONDUIT [ENV=..]... -- PROGRAM ARGS
run() {
    local name=$1 want=$2 max_s=$3 launcher=$4 conduit=$5; shift 5
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    launch_cmd "$launcher" "$conduit" "${envs[@]}"
    local what="$launcher $conduit $name ($n ranks on $nhosts hosts)" t0 rc ms
    t0=$(date +%s%3N)
    # (a job over max_s fails on time, so timeout's own 137 is never taken
    # for the status of a killed rank)
    timeout -s KILL $((max_s + 30)) "${CMD[@]}" "$@" </dev/null >"$OUT" 2>&1
    rc=$?
    ms=$(($(date +%s%3N) - t0))
    if [ "$want" = 0 ] && [ "$rc" = 0 ] && ! grep -q FAIL "$OUT"; then
        ok "$what: passed in $ms ms"
    elif { { [ "$want" = fail ] && [ "$rc" != 0 ]; } || { [ "$want" != 0 ] && [ "$rc" = "$want" ]; }; } &&
         [ "$ms" -le $((max_s * 1000)) ] && grep -q "^mp_exit: job" "$OUT"; then
        ok "$what: status $rc in $ms ms"
    else
        bad "$what: status $rc after $ms ms (want $want within $max_s s)"
        sed 's/^/    | /' "$OUT" | tail -15
    fi
    check_clean "$what"
}


run_suite() {
    local launcher=$1 conduit=$2 t
    for t in $conformance; do
        run "$t" 0 90 "$launcher" "$conduit" MP_EXPECT_HOSTS="$nhosts" MP_EXPECT_PER_HOST="$per_host" \
            -- "$TOP/tests/mp/$t"
    done
    for t in $shmem_tests; do
        [ -x "$TOP/tests/shmem/$t" ] || continue
        run "$t" 0 90 "$launcher" "$conduit" -- "$TOP/tests/shmem/$t"
    done
    local b
    for b in $benches; do
        [ -x "$TOP/bench/$b/${b}_bench" ] || continue   # (built by make check and make bench)
        run "${b}_bench --smoke" 0 90 "$launcher" "$conduit" -- "$TOP/bench/$b/${b}_bench" --smoke \
            --json /dev/stdout
    done
    # a rank on the last host dies: the job ends, everywhere, promptly
    case " $exits " in *" kill "*)
        run "mp_exit kill (last rank SIGKILLed)" fail 30 "$launcher" "$conduit" \
            -- "$TOP/tests/mp/mp_exit" kill multihost-kill ;;
    esac
    case " $exits " in *" exit3 "*)
        run "mp_exit exit3 (last rank calls gasnet_exit(3))" 3 30 "$launcher" "$conduit" \
            -- "$TOP/tests/mp/mp_exit" exit3 multihost-exit3 ;;
    esac
}

# Faults across hosts (tests/fault/fault_victim: a phase in rounds, every
# value checked; each rank prints its pid, then "ready" after round 1).  The
# victim is the last rank, on the last host.
#   kill      SIGKILL from outside during RMA,
#   exit3     the victim calls exit(3) without gasnet_exit during RMA,
#   abort     the victim calls abort() during team split + collectives:
#             the job must end within 20 s of the fault, non-zero, the
#             launcher naming that rank (Open MPI says "rank 3", Slurm
#             "task 3"), clean on every host;
#   stop      SIGSTOP for 10 s during the AM flood, then SIGCONT,
#   linkdown  the last host's link down for 10 s during barrier rounds:
#             the job survives (PASS, status 0, every round checked) or
#             fails the clean way within 20 s of the fault's end; never hangs.
fault_cell() {
    local action=$1 launcher=$2 conduit=$3 victim=$((n - 1)) phase fault=ext who=none secs=20
    local job t_fault rc ms k vpid
    case $action in
    kill) phase=rma ;;
    exit3) phase=rma; fault=exit3; who=$victim ;;
    abort) phase=team; fault=abort; who=$victim ;;
    # the phase runs SECS from its start: a few seconds of rounds, every
    # value checked, after the 10 s pause or outage (not 10-15 s more: these
    # two cells were half of the stage's time)
    stop) phase=am; secs=13 ;;
    linkdown) phase=barrier; secs=16 ;;
    esac
    local prog=$TOP/tests/fault/fault_victim
    [ -x "$prog" ] || { skip "$launcher $conduit fault $action: $prog not built"; return; }
    launch_cmd "$launcher" "$conduit"
    local what="$launcher $conduit fault: $action during $phase ($n ranks on $nhosts hosts)"
    timeout -s KILL 150 "${CMD[@]}" "$prog" "$phase" "$fault" "$who" "$secs" </dev/null >"$OUT" 2>&1 &
    job=$!
    if [ "$fault" = ext ]; then
        for k in $(seq 600); do
            grep -q "rank $victim ready" "$OUT" && break
            kill -0 "$job" 2>/dev/null || break
            sleep 0.1
        done
        if ! grep -q "rank $victim ready" "$OUT"; then
            wait "$job"
            bad "$what: the job never got ready (status $?)"
            sed 's/^/    | /' "$OUT" | tail -10
            check_clean "$what"
            return
        fi
        vpid=$(sed -n "s/^fault_victim: rank $victim pid \([0-9]*\).*/\1/p" "$OUT" | head -1)
    fi
    t_fault=$(date +%s%3N)
    case $action in
    kill) kill -KILL "$vpid" ;;
    stop)
        kill -STOP "$vpid"
        sleep 10
        kill -CONT "$vpid"
        t_fault=$(date +%s%3N) ;;   # (the bound counts from the fault's end)
    linkdown)
        ip link set "gxm${MH_ID}v$nhosts" down
        sleep 10
        ip link set "gxm${MH_ID}v$nhosts" up
        t_fault=$(date +%s%3N) ;;
    esac
    wait "$job"
    rc=$?
    ms=$(($(date +%s%3N) - t_fault))
    case $action in exit3|abort)   # from the victim's own announcement
        k=$(sed -n "s/^fault_victim: rank $victim injecting [a-z0-9]* at \([0-9]*\).*/\1/p" "$OUT" | head -1)
        [ -n "$k" ] && ms=$(($(date +%s%3N) - k)) ;;
    esac
    case $action in
    kill|exit3|abort)
        if [ "$rc" != 0 ] && [ "$ms" -le 20000 ] && grep -q -E "rank $victim|task $victim" "$OUT"; then
            ok "$what: status $rc, $ms ms after the fault"
        else
            bad "$what: status $rc, $ms ms after the fault"
            sed 's/^/    | /' "$OUT" | grep -v ' ready \| pid ' | tail -12
        fi ;;
    stop|linkdown)
        if [ "$rc" = 0 ] && grep -q "PASS phase $phase" "$OUT"; then
            ok "$what: survived (status 0, every round checked), $ms ms after the fault's end"
        elif [ "$rc" != 0 ] && [ "$rc" != 137 ] && [ "$ms" -le 20000 ]; then
            ok "$what: failed cleanly, status $rc, $ms ms after the fault's end"
        else
            bad "$what: status $rc, $ms ms after the fault's end"
            sed 's/^/    | /' "$OUT" | grep -v ' ready \| pid ' | tail -12
        fi ;;
    esac
    check_clean "$what"
}

# Hosts must be told apart by more than their names: with every host
# called alike (and the same boot id: one kernel), ranks on different hosts
# must still not be grouped as one host (mp_nodeinfo checks the counts).
same_hostname() {
    local launcher=$1 conduit=$2 i
    for i in $(seq 1 "$nhosts"); do mh_exec "$i" hostname mhost-alike; done
    run "mp_nodeinfo, every host named alike" 0 90 "$launcher" "$conduit" \
        MP_EXPECT_HOSTS="$nhosts" MP_EXPECT_PER_HOST="$per_host" -- "$TOP/tests/mp/mp_nodeinfo"
    for i in $(seq 1 "$nhosts"); do mh_exec "$i" hostname "mhost$i"; done
}

# tc netem on every link, both ways: 1 ms delay with 0.5 ms jitter, 1% loss,
# 5% reordering.  Needs the kernel's sch_netem.
netem_on() {
    local i
    for i in $(seq 1 "$nhosts"); do
        tc qdisc add dev "gxm${MH_ID}v$i" root netem delay 1ms 500us loss 1% reorder 5% 50% || return 1
        mh_exec "$i" tc qdisc add dev eth0 root netem delay 1ms 500us loss 1% reorder 5% 50% || return 1
    done
}
netem_off() {
    local i
    for i in $(seq 1 "$nhosts"); do
        tc qdisc del dev "gxm${MH_ID}v$i" root 2>/dev/null
        mh_exec "$i" tc qdisc del dev eth0 root 2>/dev/null
    done
}

# --quick (make check): each conduit under one launcher; else every pair
if [ "$quick" = 1 ]; then
    pairs="mpirun:ofi srun:ucx"
else
    pairs=
    for launcher in $launchers; do for conduit in $conduits; do pairs="$pairs $launcher:$conduit"; done; done
fi
for launcher in $launchers; do
    echo " $pairs " | grep -q " $launcher:" || continue
    case $launcher in
    mpirun)
        if ! command -v mpirun >/dev/null; then skip "mpirun: not found (apt-get install openmpi-bin)"; continue; fi ;;
    srun)
        if ! why=$(slurm_can_run); then skip "srun: $why"; continue; fi
        if ! slurm_start; then bad "srun: the Slurm cluster did not come up"; slurm_stop; continue; fi
        slurm_up=1 ;;
    esac
    for conduit in $conduits; do
        echo " $pairs " | grep -q " $launcher:$conduit " || continue
        run_suite "$launcher" "$conduit"
        if [ "$quick" = 0 ]; then
            same_hostname "$launcher" "$conduit"
            for f in kill exit3 abort stop linkdown; do fault_cell "$f" "$launcher" "$conduit"; done
        fi
        if [ "$netem" = 1 ]; then
            if netem_on 2>"$OUT"; then
                echo "# netem on every link: delay 1ms 500us loss 1% reorder 5% 50%"
                saved=$conformance
                conformance="mp_am mp_rma mp_coll"
                run_suite "$launcher" "$conduit"
                conformance=$saved
            else
                skip "$launcher $conduit under tc netem: $(head -1 "$OUT") (the kernel has no sch_netem)"
            fi
            netem_off
        fi
    done
    if [ "$launcher" = srun ] && [ -n "${slurm_up:-}" ]; then slurm_stop; slurm_up=; fi
done

echo "# multi-host: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
exit 0
