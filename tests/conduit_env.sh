# conduit_env.sh: sourced by the job-level test scripts that run one program
# per conduit under gexrun (tests/fault/fault-matrix.sh, tests/soak/run-soak.sh).
# Needs $TOP (the build tree).
#   have_conduit C   is conduit C built here?
#   conduit_env C    the environment a job on C gets: on ofi and ucx every
#                    rank is its own node (GASNET_SUPERNODE_MAXSIZE=1), so
#                    the traffic really crosses the network transport
have_conduit() {
    case $1 in
    smp) return 0 ;;
    ofi) grep -q '^#define HAVE_OFI 1' "$TOP/config.h" 2>/dev/null ;;
    ucx) grep -q '^#define HAVE_UCX 1' "$TOP/config.h" 2>/dev/null ;;
    *) return 1 ;;
    esac
}
conduit_env() {
    case $1 in
    smp) echo "GEX_CONDUIT=smp" ;;
    ofi) echo "GEX_CONDUIT=ofi FI_PROVIDER=tcp;ofi_rxm GASNET_SUPERNODE_MAXSIZE=1" ;;
    ucx) echo "GEX_CONDUIT=ucx UCX_TLS=tcp,self UCX_NET_DEVICES=lo GASNET_SUPERNODE_MAXSIZE=1" ;;
    esac
}
