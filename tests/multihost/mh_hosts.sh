# mh_hosts.sh: simulated hosts on one Linux kernel, sourced by the
# multi-host tests (tests/multihost/test_*.sh) and ./gex-dev multihost.
#
# A host is a network namespace (its own interfaces: lo and eth0 on a veth
# pair) plus a UTS namespace (its own hostname) plus a mount namespace with
# its own tmpfs on /dev/shm and /tmp, so shared memory, PMIx rendezvous
# files and launcher session directories are private to it, as on a real
# node.  A holder process ("sleep infinity") keeps the namespaces alive;
# mh_exec enters them with nsenter.  The hosts' eth0s hang off one bridge
# in the caller's namespace, which also gets an address (.254) so launchers
# running there (mpirun, slurmctld) reach every host.
#
#   mh_up N        create N hosts mhost1..mhostN at $MH_NET.1 .. .N
#   mh_exec I CMD  run CMD on host I (1-based)
#   mh_leftovers I print what is left in host I's /dev/shm and /tmp
#   mh_down        kill everything on the hosts, remove the namespaces
# State lives in $MH_STATE (a directory in the caller's /tmp): holder pids,
# so nsrsh (the rsh agent for Open MPI) can find a host by name or address.
# Needs root (or CAP_SYS_ADMIN + CAP_NET_ADMIN), ip (iproute2), nsenter and
# unshare (util-linux); mh_can_run says why not, for a skip.

mh_can_run() {
    if [ "$(id -u)" -ne 0 ]; then echo "needs root (network and mount namespaces)"; return 1; fi
    local t
    for t in ip nsenter unshare; do
        command -v "$t" >/dev/null || { echo "$t not found (apt-get install iproute2 util-linux)"; return 1; }
    done
    local probe="gexmhprobe$$"
    if ! ip netns add "$probe" 2>/dev/null; then echo "cannot create a network namespace here"; return 1; fi
    ip netns del "$probe"
    if ! unshare --mount --uts true 2>/dev/null; then echo "cannot create mount/UTS namespaces here"; return 1; fi
    return 0
}

# Names are unique per run so two runs (a distcheck beside a check) never
# collide; the subnet too (10.231-250.X.0/24 from the pid).
mh_up() {
    local n=$1 i
    MH_ID=$(( $$ % 100000 ))
    MH_NET=10.$(( 231 + $$ % 20 )).$(( ($$ / 20) % 250 ))
    MH_BR=gxm${MH_ID}b
    MH_N=$n
    MH_STATE=$(mktemp -d "${TMPDIR:-/tmp}/gexmh.XXXXXX") || return 1
    export MH_STATE MH_NET MH_N
    ip link add "$MH_BR" type bridge || return 1
    ip addr add "$MH_NET.254/24" dev "$MH_BR"
    ip link set "$MH_BR" up
    for i in $(seq 1 "$n"); do
        local ns=gxm${MH_ID}n$i veth=gxm${MH_ID}v$i
        ip netns add "$ns" || return 1
        ip link add "$veth" type veth peer name "${veth}p" || return 1
        ip link set "${veth}p" netns "$ns"
        ip -n "$ns" link set "${veth}p" name eth0
        ip -n "$ns" addr add "$MH_NET.$i/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        ip link set "$veth" master "$MH_BR"
        ip link set "$veth" up
        echo "$ns" >"$MH_STATE/ns.$i"
        # The holder: new UTS and mount namespaces inside the network one.
        # A sysfs of the new network namespace goes over /sys (as ip netns
        # exec does), with the cgroup file systems slurmd needs moved onto
        # it; the pid is written before /tmp is covered ($MH_STATE may be
        # there).
        (nsenter --net="/run/netns/$ns" unshare --uts --mount --propagation private --fork \
            sh -c "hostname mhost$i && mount -t tmpfs -o mode=1777 mh-shm /dev/shm &&
                   echo \$\$ >'$MH_STATE/pid.$i.new' && mount -t tmpfs -o mode=1777 mh-tmp /tmp &&
                   mkdir /tmp/.mh-cg && mount --rbind /sys/fs/cgroup /tmp/.mh-cg &&
                   mount -t sysfs mh-sys /sys && mount --move /tmp/.mh-cg /sys/fs/cgroup &&
                   rmdir /tmp/.mh-cg && exec sleep infinity" </dev/null >/dev/null 2>&1 &)
        for k in $(seq 100); do [ -s "$MH_STATE/pid.$i.new" ] && break; sleep 0.05; done
        sleep 0.2   # the mounts after the pid
        mv "$MH_STATE/pid.$i.new" "$MH_STATE/pid.$i" 2>/dev/null
        [ -s "$MH_STATE/pid.$i" ] || { echo "mh_up: host $i did not come up" >&2; return 1; }
        echo "mhost$i $MH_NET.$i" >>"$MH_STATE/hosts"
    done
    # every host resolves every other by name, like a cluster's /etc/hosts
    # (written into each host's own /tmp and bound over /etc/hosts there)
    for i in $(seq 1 "$n"); do
        { echo "127.0.0.1 localhost"; sed 's/^\(mhost[0-9]*\) \(.*\)/\2 \1/' "$MH_STATE/hosts"; } |
            mh_exec "$i" sh -c 'cat >/tmp/.mh-hosts && mount --bind /tmp/.mh-hosts /etc/hosts'
    done
}

mh_pid() { cat "$MH_STATE/pid.$1"; }

mh_exec() {
    local i=$1; shift
    nsenter -t "$(mh_pid "$i")" -n -m -u -- "$@"
}

# Everything in the host's /dev/shm and /tmp but the harness's own files.
mh_leftovers() {
    mh_exec "$1" sh -c 'ls -A /dev/shm; ls -A /tmp | grep -v "^\.mh-"' 2>/dev/null
}

# Processes still running on a host other than its holder (an orphan rank,
# a daemon the test did not stop): they share the holder's mount namespace.
mh_processes() {
    local i=$1 holder parent mnt
    holder=$(mh_pid "$i")
    parent=$(awk '{print $4}' "/proc/$holder/stat" 2>/dev/null)   # unshare --fork's own
    mnt=$(readlink "/proc/$holder/ns/mnt")
    mnt=${mnt#mnt:[}
    mnt=${mnt%]}
    ps -e -o pid= -o mntns= -o args= |
        awk -v m="$mnt" -v h="$holder" -v p="$parent" -v me="$$" \
            '$2 == m && $1 != h && $1 != p && $1 != me { $2 = ""; sub("  ", " "); print }'
}

mh_down() {
    [ -n "${MH_STATE:-}" ] && [ -d "$MH_STATE" ] || return 0
    local i p
    for i in $(seq 1 "${MH_N:-0}"); do
        [ -s "$MH_STATE/pid.$i" ] || continue
        for p in $(mh_processes "$i" | cut -d' ' -f1); do kill -KILL "$p" 2>/dev/null; done
        p=$(mh_pid "$i")
        local parent
        parent=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)
        # the holder's parent is unshare --fork, unless it was already reaped
        [ -n "$parent" ] && [ "$(cat "/proc/$parent/comm" 2>/dev/null)" = unshare ] &&
            kill -KILL "$parent" 2>/dev/null
        kill -KILL "$p" 2>/dev/null
    done
    for i in $(seq 1 "${MH_N:-0}"); do
        [ -s "$MH_STATE/ns.$i" ] && ip netns del "$(cat "$MH_STATE/ns.$i")" 2>/dev/null
    done
    ip link del "$MH_BR" 2>/dev/null
    rm -rf "$MH_STATE"
    MH_STATE=
}
