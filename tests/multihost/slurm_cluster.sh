# slurm_cluster.sh: a throw-away Slurm cluster on the simulated hosts of
# mh_hosts.sh, sourced by test_multihost.sh after mh_up.  Debian's
# slurm-wlm daemons: slurmctld on mhost1, one slurmd per host (each in its
# host's namespaces, so each sees its own hostname, address and /tmp), a
# private munged for authentication; jobs start with srun --mpi=pmix
# (Slurm's PMIx plugin), run from mhost1 like a login node.  Nothing is
# written outside $SLURM_DIR, which slurm_stop removes.
#
#   slurm_can_run   says why not (missing packages) and fails, or succeeds
#   slurm_start     write slurm.conf, start the daemons, wait until every
#                   node is idle; sets SRUN_BASE (the srun command prefix)
#   slurm_stop      stop the daemons, remove $SLURM_DIR

slurm_can_run() {
    local t
    for t in slurmctld slurmd srun munged sinfo; do
        command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] ||
            { echo "$t not found (apt-get install slurmd slurmctld slurm-client munge)"; return 1; }
    done
    ls /usr/lib/*/slurm-wlm/mpi_pmix*.so >/dev/null 2>&1 || ls /usr/lib/slurm/mpi_pmix*.so >/dev/null 2>&1 ||
        { echo "Slurm's PMIx plugin (mpi_pmix.so) not found"; return 1; }
    return 0
}

slurm_start() {
    # /var/tmp, not /tmp: every host must see it (each has its own /tmp)
    SLURM_DIR=$(mktemp -d /var/tmp/gexmh-slurm.XXXXXX) || return 1
    local d=$SLURM_DIR i base=$((20000 + $$ % 20000))
    mkdir -p "$d/ctld" "$d/spool"
    export SLURM_CONF=$d/slurm.conf
    # munge: a key of our own, a socket of our own
    head -c 1024 /dev/urandom >"$d/munge.key"
    chmod 600 "$d/munge.key"
    chmod 700 "$d"
    /usr/sbin/munged --force --key-file="$d/munge.key" --socket="$d/munge.sock" \
        --pid-file="$d/munged.pid" --log-file="$d/munged.log" --seed-file="$d/munge.seed" \
        >/dev/null 2>&1 || { echo "slurm_start: munged did not start"; cat "$d/munged.log"; return 1; }
    {
        echo "ClusterName=gexmh"
        echo "SlurmctldHost=mhost1($MH_NET.1)"
        echo "SlurmctldPort=$base"
        echo "SlurmdPort=$((base + 1))"
        echo "SrunPortRange=$((base + 2))-$((base + 200))"
        echo "AuthType=auth/munge"
        echo "AuthInfo=socket=$d/munge.sock"
        echo "CredType=cred/munge"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "StateSaveLocation=$d/ctld"
        echo "SlurmdSpoolDir=$d/spool/%n"
        echo "SlurmctldPidFile=$d/slurmctld.pid"
        echo "SlurmdPidFile=$d/slurmd.%n.pid"
        echo "SlurmctldLogFile=$d/slurmctld.log"
        echo "SlurmdLogFile=$d/slurmd.%n.log"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "AccountingStorageType=accounting_storage/none"
        echo "SchedulerType=sched/builtin"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_CPU"
        echo "MpiDefault=pmix"
        echo "ReturnToService=2"
        echo "SlurmdParameters=config_overrides"
        echo "KillWait=5"
        echo "MessageTimeout=20"
        for i in $(seq 1 "$MH_N"); do
            echo "NodeName=mhost$i NodeAddr=$MH_NET.$i CPUs=8 RealMemory=1000 State=UNKNOWN"
        done
        echo "PartitionName=gex Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE"
    } >"$SLURM_CONF"
    mh_exec 1 /usr/sbin/slurmctld -i >"$d/slurmctld.out" 2>&1 ||
        { echo "slurm_start: slurmctld failed"; cat "$d/slurmctld.out" "$d/slurmctld.log" 2>/dev/null | tail -20; return 1; }
    for i in $(seq 1 "$MH_N"); do
        mkdir -p "$d/spool/mhost$i"
        mh_exec "$i" /usr/sbin/slurmd -N "mhost$i" >"$d/slurmd.$i.out" 2>&1 ||
            { echo "slurm_start: slurmd on mhost$i failed"; tail -20 "$d/slurmd.mhost$i.log" 2>/dev/null; return 1; }
    done
    SRUN_BASE=(nsenter -t "$(mh_pid 1)" -n -m -u -- srun --mpi=pmix --kill-on-bad-exit=1)
    local k idle
    for k in $(seq 60); do
        idle=$(mh_exec 1 sinfo -h -o '%t %D' 2>/dev/null | awk '$1 == "idle" { print $2 }')
        [ "${idle:-0}" = "$MH_N" ] && return 0
        sleep 0.5
    done
    echo "slurm_start: nodes not idle after 30 s:"
    mh_exec 1 sinfo 2>&1
    tail -5 "$d"/slurmctld.log "$d"/slurmd.*.log 2>/dev/null
    return 1
}

slurm_stop() {
    [ -n "${SLURM_DIR:-}" ] && [ -d "$SLURM_DIR" ] || return 0
    local f
    for f in "$SLURM_DIR"/slurmd.*.pid "$SLURM_DIR"/slurmctld.pid "$SLURM_DIR"/munged.pid; do
        [ -s "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
    done
    # (munged and the daemons exit on TERM within moments; whatever did not
    # is killed, so nothing outlives the test)
    sleep 1
    for f in "$SLURM_DIR"/slurmd.*.pid "$SLURM_DIR"/slurmctld.pid "$SLURM_DIR"/munged.pid; do
        [ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
    done
    [ -n "${SLURM_KEEP_LOGS:-}" ] && cp "$SLURM_DIR"/*.log "$SLURM_KEEP_LOGS"/ 2>/dev/null
    rm -rf "$SLURM_DIR"
    SLURM_DIR=
}
