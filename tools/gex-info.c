/*
 * gex-info: prints what this GEX installation is and what it chose at run
 * time: versions, the conduit loaded (GEX_CONDUIT), its limits, which
 * implementation each layer bound (reference or specialized, see
 * GEX_FORCE_REFERENCE), and the job layout.  Run it alone (a one-rank job)
 * or under gexrun.  `gex-info --env` lists the environment variables GEX reads;
 * `--layers` which file, release and ABI of each layer and conduit plug-in
 * this process loaded (docs/upgrading.md); `--json` the same as JSON.
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_mk.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include "core_layer.h"
#include "gex_info_layers.h"
#include <stdio.h>
#include <string.h>

/* One function of each layer, so that the linker keeps every layer gex-info
 * is linked with: with --as-needed (the default of many toolchains) a library
 * no symbol is taken from is dropped, its constructor never registers the
 * layer, and "layers" below would describe only the AM layer.  libgex-shm
 * needs nothing: core loads it itself. */
typedef void (*gexi_info_fn)(void);
const gexi_info_fn gexi_info_layer_anchor[] = {
    (gexi_info_fn)gex_RMA_PutNBI, (gexi_info_fn)gex_VIS_VectorPutNBI,
    (gexi_info_fn)gex_AD_Create,  (gexi_info_fn)gex_Coll_BarrierNB,
    (gexi_info_fn)gex_MK_Create,
};

static const char *const env_doc[][2] = {
    /* conduit and layers */
    { "GEX_CONDUIT", "conduit plug-in to load: smp, ofi, ucx (default: " GEX_DEFAULT_CONDUIT ")" },
    { "GEX_CONDUIT_PATH", "colon-separated folders searched first for conduit plug-ins" },
    { "GEX_FORCE_REFERENCE", "comma list of layers (am,rma,...) or 'all': use reference code" },
    { "GEX_IDLE_SLEEP", "yes/no/auto: may idle waits nap (auto: no with native RMA/atomics)" },
    /* shared memory and the job's layout */
    { "GEX_PSHM", "0 disables cross-mapping of segments between processes of a host" },
    { "GEX_PSHM_RESERVE", "1: a PSHM segment reserves its /dev/shm pages at creation (default 0)" },
    { "GASNET_SUPERNODE_MAXSIZE", "1 disables PSHM; k > 1: at most k processes per nbrhd" },
    { "GASNET_MAX_SEGSIZE", "bound on gasnet_getMaxLocalSegmentSize: 2G, 4GB/P, 0.85/H" },
    /* debugging and signals */
    { "GASNET_VERBOSEENV", "print every environment setting GEX consults, on rank 0" },
    { "GASNET_BACKTRACE", "yes: backtrace on fatal errors and signals" },
    { "GASNET_BACKTRACE_NODES", "ranks that may print backtraces (0,2-4; default all)" },
    { "GASNET_BACKTRACE_SIGNAL", "signal (USR1, 10): print a backtrace and go on (default unset)" },
    { "GASNET_BACKTRACE_TYPE", "gasnet_tools: backtrace methods (default EXECINFO,client's)" },
    { "GASNET_NO_CATCH_SIGNAL", "signals GEX leaves alone: fatal ones (SEGV,BUS) and INT,TERM,HUP (to SIGQUIT), or *" },
    { "GASNET_FREEZE", "yes: each rank waits for a debugger (or SIGCONT) at init (default no)" },
    { "GASNET_FREEZE_ON_ERROR", "yes: wait for a debugger (or SIGCONT) on fatal errors and signals" },
    { "GASNET_FREEZE_SIGNAL", "signal (name or number) that freezes the rank (default unset)" },
    { "GASNET_MAXIMIZE_RLIMIT_*", "no: gasnet_tools leaves it (CPU,DATA,STACK,AS,RSS,MEMLOCK)" },
    /* ending a job under a PMIx launcher */
    { "GASNET_EXITTIMEOUT", "PMIx: seconds exit waits for other ranks (default MIN+FACTOR*ranks)" },
    { "GASNET_EXITTIMEOUT_MIN", "PMIx: base of the default GASNET_EXITTIMEOUT (default 2)" },
    { "GASNET_EXITTIMEOUT_FACTOR", "PMIx: seconds added per rank to it (default 0.1)" },
    { "GASNET_EXITTIMEOUT_MAX", "PMIx: cap of the default GASNET_EXITTIMEOUT (default 60)" },
    { "GASNET_CATCH_EXIT", "PMIx: 0/no/false: exit() ends this rank only (default: the job)" },
    /* libgex-shmem (OpenSHMEM, docs/shmem.md) */
    { "SHMEM_SYMMETRIC_SIZE", "OpenSHMEM: symmetric heap bytes per PE, K/M/G/T suffixes (default 128M)" },
    { "SHMEM_DEBUG", "OpenSHMEM: non-empty: report failed allocations (default unset)" },
    { "SHMEM_VERSION", "OpenSHMEM: non-empty: PE 0 prints the library version at init" },
    { "SHMEM_INFO", "OpenSHMEM: non-empty: PE 0 prints these OpenSHMEM variables at init" },
    { "GEX_SHMEM_CTX_EP", "OpenSHMEM: 0/no: contexts share the primordial endpoint (default: own)" },
    /* launchers */
    { "GEX_RUN_TIMEOUT", "gexrun: end the job after this many seconds" },
    { "GASNET_PSHM_NODES", "ranks for gasnetrun_* without -n; lone smp program re-runs in gexrun" },
    { "GASNET_SMP_SPAWNER", "gasnetrun_smp: fork (gexrun) or pmi (mpirun, srun) (default fork)" },
    { "GASNET_OFI_SPAWNER", "gasnetrun_ofi: fork (gexrun) or pmi (mpirun, srun) (default fork)" },
    { "GASNET_UCX_SPAWNER", "gasnetrun_ucx: fork (gexrun) or pmi (mpirun, srun) (default fork)" },
    { "GEXRUN", "gasnetrun_*: the gexrun to use (default: beside it, bindir's, PATH's)" },
    { "MPIRUN_CMD", "gasnetrun_* pmi: launcher (default srun in Slurm, mpirun, prterun)" },
    /* Active Messages */
    { "GEX_AM_LOOPBACK", "sync (default): AMs to self run inside the send; conduit: at a poll" },
    { "GEX_AM_NP_SMALL", "negotiated-payload Mediums up to this size skip the ring reservation" },
    { "GEX_AM_NP_SMALL_LONG", "negotiated-payload Longs up to this size skip zero copy" },
    { "GEX_AM_NP_INLINE", "0: small NP-AM Prepares call the library, no inline Prepare (default 1; debug 0)" },
    { "GEX_AM_NP_LONG_BUFFER", "reference NP-AM: per-thread Long buffer size (default 64K)" },
    /* RMA, VIS, atomics, collectives, memory kinds */
    { "GEX_RMA_PUT_CHUNK", "reference RMA: bytes per AM chunk of a put" },
    { "GEX_RMA_GET_CHUNK", "reference RMA: bytes per AM chunk of a get" },
    { "GEX_RMA_PUT_AM_MAX", "native RMA: puts up to this size go as an AM (ucx: 4096)" },
    { "GEX_AD_COMBINE", "atomics: 0 stops combining a thread's NBI ADD/FADD on one word" },
    { "GEX_VIS_RMA_MIN", "VIS: pieces of at least this many bytes go as one RMA each" },
    { "GEX_VIS_AM_CHUNK", "VIS: payload bytes per packed AM" },
    { "GEX_COLL_PIECE_SIZE", "coll: payload bytes per AM, 64 to MaxMedium (default MaxMedium)" },
    { "GEX_COLL_RD_MAX", "coll: ReduceToAll by recursive doubling up to this size (default 8K)" },
    { "GEX_COLL_SHM_MAX", "coll: nbrhd shared-memory slots for data up to this size (default 4K)" },
    { "GEX_COLL_SHM_SLOTS", "coll: shared-memory slots per process, 0: none (default 64)" },
    { "GEX_COLL_SHM_SLOT_SIZE", "coll: bytes per shared-memory slot, at least 1K (default 16K)" },
    { "GEX_COLL_SHM_STRICT", "coll, testing: 1: running out of slots is fatal (default 0)" },
    { "GEX_MK_CHUNK", "memory kinds: bytes per staged AM to or from a device segment" },
    { "GEX_MK_ASSUME_DEVICE", "testing: dlopen the vendor driver even without a device node" },
    { "GEX_HOST_ID", "testing: pretend this process is on a host with this name" },
    /* the smp conduit */
    { "GEX_SMP_RING_SIZE", "smp: bytes per shared-memory ring (one per direction and peer; default 256K, 128K above 32 ranks)" },
    { "GEX_SMP_MAX_MEDIUM", "smp: AM Medium payload limit (default 64K, lowered to fit the ring)" },
    { "GEX_SMP_MAX_LONG", "smp: AM Long payload limit" },
    { "GEX_SMP_POLL_BUDGET", "smp: messages one poll handles at most, 1 to 1M (default 64)" },
    { "GEX_SMP_NP_PREFETCH", "smp: prepared NP-AM payload bytes prefetched, 0: off (default 16K)" },
    { "GEX_SMP_HINTS", "smp: yes/no/auto: arrival hints for empty polls (auto: from 16 ranks)" },
    /* the ofi conduit */
    { "GEX_OFI_IFACE", "ofi: interface to use (default lo on one host, else provider's first)" },
    { "GEX_OFI_MAX_MEDIUM", "ofi: AM Medium and Long reply payload limit (default 16K)" },
    { "GEX_OFI_MAX_LONG", "ofi: AM Long request payload limit (default 4M)" },
    { "GEX_OFI_CREDITS", "ofi: request messages to one peer not yet handled there (default 32)" },
    { "GEX_OFI_TX_BUFS", "ofi: send buffers for messages too big for the stack (default 16)" },
    { "GEX_OFI_MULTI_RECV", "ofi: yes/no/auto: multi-receive buffers (auto: when offered)" },
    { "GEX_OFI_RX_BUFS", "ofi: number of multi-receive buffers (default 8)" },
    { "GEX_OFI_RX_BUF_SIZE", "ofi: bytes per multi-receive buffer (default 1M)" },
    { "GEX_OFI_RX_POOL", "ofi: receive buffers without multi-receive (default 128)" },
    { "GEX_OFI_POLL_BUDGET", "ofi: messages one poll handles at most (default 64)" },
    { "GEX_OFI_SHM_LONG", "ofi: no: Longs to PSHM-mapped peers go by network (default yes)" },
    { "GEX_OFI_RMA_PIECE", "ofi: largest single RMA write/read of a put or get (default 512K)" },
    { "GEX_OFI_RMA_INFLIGHT", "ofi: put/get bytes in flight per peer, 0: no limit (default 2M)" },
    { "GEX_OFI_LONG_RMA", "ofi: yes/no/auto: Long Requests by RMA write (auto: if RMA offered)" },
    { "GEX_OFI_LONG_RMA_MIN", "ofi: smallest Long Request sent by RMA (default MaxMedium + 1)" },
    { "GEX_OFI_IDLE_WAIT", "ofi: yes/no/auto: idle polls sleep on CQ fds (auto: rxm when overloaded)" },
    /* the ucx conduit */
    { "GEX_UCX_CREDITS", "ucx: AM Requests outstanding to one peer (default 64)" },
    { "GEX_UCX_MAX_MEDIUM", "ucx: AM Medium payload limit (default 64K)" },
    { "GEX_UCX_MAX_LONG", "ucx: AM Long payload limit (default 4M)" },
    { "GEX_UCX_RMA", "ucx: no turns native RMA off (puts and gets by AMs)" },
    { "GEX_UCX_FLUSH_EACH", "ucx: yes: flush after every put (default: puts share flushes)" },
    { "GEX_UCX_AMO", "ucx: yes turns UCP network atomics on (default no: AM atomics)" },
    { "GEX_UCX_IDLE_WAIT", "ucx: yes/no/auto: idle polls sleep on worker fd (auto: when overloaded)" },
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gex-info [--layers] [--json] | --env | --version | --help\n"
            "  (no option)  this installation and the job: release, conduit, limits,\n"
            "               which code each layer runs (alone, or under gexrun -n N)\n"
            "  --layers     each loaded layer's file, release and ABI, the conduit\n"
            "               plug-ins found and whether each loads, and every layer's\n"
            "               dispatch (reference or a conduit's specialization)\n"
            "  --json       the --layers report as JSON\n"
            "  --env        the environment variables GEX reads\n"
            "  --version    gex-info's release and the GASNet-EX spec version\n");
}

int main(int argc, char **argv)
{
    int layers = 0, json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--env")) {
            for (size_t k = 0; k < sizeof env_doc / sizeof env_doc[0]; k++)
                printf("%-26s %s\n", env_doc[k][0], env_doc[k][1]);
            return 0;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--version")) {
            printf("gex-info (GEX) %d.%d.%d, GASNet-EX spec %d.%d\n",
                   GASNET_RELEASE_VERSION_MAJOR, GASNET_RELEASE_VERSION_MINOR,
                   GASNET_RELEASE_VERSION_PATCH, GEX_SPEC_VERSION_MAJOR, GEX_SPEC_VERSION_MINOR);
            return 0;
        } else if (!strcmp(argv[i], "--layers")) {
            layers = 1;
        } else if (!strcmp(argv[i], "--json")) {
            layers = json = 1;
        } else {
            fprintf(stderr, "gex-info: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    if (gex_Client_Init(&client, &ep, &tm, "GEX_INFO", &argc, &argv, 0) != GASNET_OK) return 1;
    if (gex_System_QueryJobRank() == 0 && layers) {
        gexinfo_print_layers(stdout, json, gexi_core.ops->name, gexi_describe_layers());
    } else if (gex_System_QueryJobRank() == 0) {
        gex_Rank_t nbrhd, hosts;
        gex_System_QueryNbrhdInfo(NULL, &nbrhd, NULL);
        gex_System_QueryMyPosition(NULL, NULL, &hosts, NULL);
        printf("GEX release          %d.%d.%d (GASNet-EX spec %d.%d)\n",
               GASNET_RELEASE_VERSION_MAJOR, GASNET_RELEASE_VERSION_MINOR,
               GASNET_RELEASE_VERSION_PATCH, GEX_SPEC_VERSION_MAJOR, GEX_SPEC_VERSION_MINOR);
        printf("conduit              %s\n", gexi_core.ops->name);
        printf("job                  %u ranks on %u host(s); nbrhd of rank 0: %u\n",
               (unsigned)gex_System_QueryJobSize(), (unsigned)hosts, (unsigned)nbrhd);
        printf("AM max medium        %zu\n", gex_AM_LUBRequestMedium());
        printf("AM max long          request %zu, reply %zu\n", gex_AM_LUBRequestLong(),
               gex_AM_LUBReplyLong());
        printf("segment max          local %zu, global %zu\n",
               (size_t)gasnet_getMaxLocalSegmentSize(), (size_t)gasnet_getMaxGlobalSegmentSize());
        printf("layers               %s\n", gexi_describe_layers());
    }
    gasnet_exit(0);
}
