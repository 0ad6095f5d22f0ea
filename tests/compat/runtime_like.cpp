// runtime_like.cpp: the GASNet-EX calls a C++ PGAS runtime makes, in the
// shape such a runtime makes them (tests/compat/test_runtime_like.sh builds
// it the way a runtime's own build does, through the GASNet build-directory
// view of an installed GEX, and starts it the way its launcher does).
//
// What it does, each result checked exactly:
//  - the local team: a runtime splits the world team by neighbourhood and,
//    for peers in it, writes through the address gex_EP_QueryBoundSegmentNB
//    gives (shared memory); the neighbourhood must be what the launch asked
//    for (argv[1]: "all" = every rank shares memory, "one" = none does);
//  - remote puts and gets (gex_RMA_PutNBI/GetNB) to every rank;
//  - an RPC round trip over AM Medium request and Short reply;
//  - a remote fetch-and-add counter (gex_AD) every rank bumps ITERS times;
//  - a broadcast and an all-reduce on the world team.
// Rank 0 prints "runtime_like: N ranks, nbrhd K: OK" when every rank passed;
// any failure prints the check and ends the job with status 1.
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// The conduit the build chose, known at compile time as a runtime knows it.
#if (defined(GASNET_CONDUIT_SMP) + defined(GASNET_CONDUIT_OFI) + defined(GASNET_CONDUIT_UCX)) != 1
#error "not exactly one GASNET_CONDUIT_<NAME>"
#endif
#if defined(EXPECT_CONDUIT_SMP) && !defined(GASNET_CONDUIT_SMP)
#error "built through smp-conduit but GASNET_CONDUIT_SMP is not defined"
#endif
#if defined(EXPECT_CONDUIT_UCX) && !defined(GASNET_CONDUIT_UCX)
#error "built through ucx-conduit but GASNET_CONDUIT_UCX is not defined"
#endif
#if defined(EXPECT_CONDUIT_OFI) && !defined(GASNET_CONDUIT_OFI)
#error "built through ofi-conduit but GASNET_CONDUIT_OFI is not defined"
#endif
#if !defined(GASNET_SEQ) || GEX_SPEC_VERSION_MAJOR != 0 || GEX_SPEC_VERSION_MINOR < 19
#error "seq fragment or spec version 0.19+ expected"
#endif

namespace {

const int ITERS = 100;
const size_t SEG_BYTES = 1 << 20;
const size_t SLOT = 256;   // bytes each rank owns in every segment's put area

enum { H_RPC = GEX_AM_INDEX_BASE, H_RPC_REPLY };

gex_TM_t world;
gex_Rank_t me, nranks;
volatile int rpc_replies;
uint64_t rpc_sum, rpc_servers;

void fail(const char *what, long got, long want)
{
    std::fprintf(stderr, "runtime_like: rank %u: %s: got %ld, expected %ld\n", (unsigned)me, what,
                 got, want);
    std::fflush(stderr);
    gasnet_exit(1);
}

void check(bool ok, const char *what)
{
    if (!ok) fail(what, 0, 1);
}

// RPC: checks who sent it, sums the payload's bytes and replies with the
// sum and the serving rank.
void rpc_request(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t requester)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < nbytes; i++) sum += static_cast<unsigned char *>(buf)[i];
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    if (info.gex_srcrank != (gex_Rank_t)requester) fail("rpc source rank", info.gex_srcrank, requester);
    gex_AM_ReplyShort2(token, H_RPC_REPLY, 0, (gex_AM_Arg_t)sum, (gex_AM_Arg_t)me);
}

void rpc_reply(gex_Token_t, gex_AM_Arg_t sum, gex_AM_Arg_t server)
{
    rpc_sum += (uint32_t)sum;
    rpc_servers += (uint32_t)server;
    rpc_replies = rpc_replies + 1;
}

}  // namespace

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    if (gex_Client_Init(&client, &ep, &world, "runtime_like", &argc, &argv, 0) != GASNET_OK) {
        std::fprintf(stderr, "runtime_like: gex_Client_Init failed\n");
        return 1;
    }
    me = gex_TM_QueryRank(world);
    nranks = gex_TM_QuerySize(world);
    const char *expect = argc > 1 ? argv[1] : "all";

    gex_AM_Entry_t handlers[] = {
        {H_RPC, (gex_AM_Fn_t)rpc_request, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, nullptr, "rpc"},
        {H_RPC_REPLY, (gex_AM_Fn_t)rpc_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, nullptr,
         "rpc_reply"},
    };
    check(gex_EP_RegisterHandlers(ep, handlers, 2) == GASNET_OK, "gex_EP_RegisterHandlers");
    gex_Segment_t seg;
    check(gex_Segment_Attach(&seg, world, SEG_BYTES) == GASNET_OK, "gex_Segment_Attach");
    char *mine = static_cast<char *>(gex_Segment_QueryAddr(seg));
    std::memset(mine, 0, SEG_BYTES);
    uint64_t *counter = reinterpret_cast<uint64_t *>(mine + SEG_BYTES - 64);

    // ---- the local team, as a runtime builds it ----
    gex_RankInfo_t *nbrhd;
    gex_Rank_t nbrhd_size, my_index;
    gex_System_QueryNbrhdInfo(&nbrhd, &nbrhd_size, &my_index);
    gex_Rank_t want_nbrhd = std::strcmp(expect, "one") == 0 ? 1 : nranks;
    if (nbrhd_size != want_nbrhd) fail("neighbourhood size", nbrhd_size, want_nbrhd);
    if (nbrhd[my_index].gex_jobrank != me) fail("my neighbourhood entry", nbrhd[my_index].gex_jobrank, me);
    // as a runtime does: ask for the recommended scratch size, then grant it
    // inside the bound segment when it fits, else split without scratch
    gex_TM_t local_tm;
    const int color = (int)nbrhd[0].gex_jobrank;
    size_t scratch = gex_TM_Split(&local_tm, world, color, (int)me, nullptr, 0,
                                  GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    const size_t SCRATCH_AT = SEG_BYTES / 2, SCRATCH_MAX = SEG_BYTES / 4;
    if (scratch && scratch <= SCRATCH_MAX)
        gex_TM_Split(&local_tm, world, color, (int)me, mine + SCRATCH_AT, scratch, 0);
    else
        gex_TM_Split(&local_tm, world, color, (int)me, nullptr, 0, GEX_FLAG_TM_NO_SCRATCH);
    if (gex_TM_QuerySize(local_tm) != nbrhd_size)
        fail("local team size", gex_TM_QuerySize(local_tm), nbrhd_size);
    gex_Event_Wait(gex_Coll_BarrierNB(world, 0));

    // shared-memory writes into every neighbour's segment
    for (gex_Rank_t i = 0; i < nbrhd_size; i++) {
        gex_Rank_t peer = nbrhd[i].gex_jobrank;
        void *owner_addr, *local_addr;
        uintptr_t size;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(world, peer, &owner_addr, &local_addr, &size, 0));
        check(local_addr != nullptr, "a neighbour's segment is not mapped locally");
        check(size >= SEG_BYTES, "a neighbour's segment is too small");
        char *slot = static_cast<char *>(local_addr) + me * SLOT;
        for (size_t b = 0; b < SLOT; b++) slot[b] = (char)(me * 7 + b + 1);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(world, 0));
    for (gex_Rank_t i = 0; i < nbrhd_size; i++) {
        gex_Rank_t peer = nbrhd[i].gex_jobrank;
        for (size_t b = 0; b < SLOT; b++)
            if (mine[peer * SLOT + b] != (char)(peer * 7 + b + 1))
                fail("shared-memory write from a neighbour", mine[peer * SLOT + b], peer);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(world, 0));

    // ---- puts and gets to every rank ----
    const size_t PUT_BASE = 64 * 1024;
    std::vector<char> src(SLOT), back(SLOT);
    for (size_t b = 0; b < SLOT; b++) src[b] = (char)(me * 13 + b + 5);
    for (gex_Rank_t peer = 0; peer < nranks; peer++) {
        void *base;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(world, peer, &base, nullptr, nullptr, 0));
        gex_RMA_PutNBI(world, peer, static_cast<char *>(base) + PUT_BASE + me * SLOT, src.data(), SLOT,
                       GEX_EVENT_DEFER, 0);
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    gex_Event_Wait(gex_Coll_BarrierNB(world, 0));
    for (gex_Rank_t peer = 0; peer < nranks; peer++) {
        for (size_t b = 0; b < SLOT; b++)
            if (mine[PUT_BASE + peer * SLOT + b] != (char)(peer * 13 + b + 5))
                fail("put data", mine[PUT_BASE + peer * SLOT + b], peer);
        void *base;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(world, peer, &base, nullptr, nullptr, 0));
        gex_Event_Wait(gex_RMA_GetNB(world, back.data(), peer, static_cast<char *>(base) + PUT_BASE + me * SLOT,
                                     SLOT, 0));
        if (std::memcmp(back.data(), src.data(), SLOT) != 0) fail("get returned other bytes", peer, me);
    }

    // ---- RPC round trips ----
    unsigned char payload[100];
    uint64_t want_sum = 0;
    for (size_t b = 0; b < sizeof payload; b++) want_sum += payload[b] = (unsigned char)(b * 3 + me);
    uint64_t want_servers = 0;
    for (int it = 0; it < ITERS; it++) {
        gex_Rank_t peer = (me + 1 + it) % nranks;
        want_servers += peer;
        gex_AM_RequestMedium1(world, peer, H_RPC, payload, sizeof payload, GEX_EVENT_NOW, 0,
                              (gex_AM_Arg_t)me);
    }
    GASNET_BLOCKUNTIL(rpc_replies == ITERS);
    if (rpc_sum != want_sum * ITERS) fail("rpc sums", (long)rpc_sum, (long)(want_sum * ITERS));
    if (rpc_servers != want_servers) fail("rpc servers", (long)rpc_servers, (long)want_servers);

    // ---- remote atomics: a counter on rank 0 ----
    gex_AD_t ad;
    gex_AD_Create(&ad, world, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET, 0);
    void *counter0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(world, 0, &counter0, nullptr, nullptr, 0));
    counter0 = static_cast<char *>(counter0) + SEG_BYTES - 64;
    uint64_t last = 0;
    for (int it = 0; it < ITERS; it++) {
        uint64_t old;
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, 0, counter0, GEX_OP_FADD, 1, 0, 0));
        if (it && old <= last) fail("fetch-add went backwards", (long)old, (long)last);
        last = old;
    }
    gex_Event_Wait(gex_Coll_BarrierNB(world, 0));
    uint64_t total;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &total, 0, counter0, GEX_OP_GET, 0, 0, 0));
    if (total != (uint64_t)ITERS * nranks) fail("fetch-add total", (long)total, (long)ITERS * nranks);
    if (me == 0 && *counter != total) fail("counter in rank 0's segment", (long)*counter, (long)total);
    gex_Event_Wait(gex_Coll_BarrierNB(world, 0));
    gex_AD_Destroy(ad);

    // ---- collectives ----
    uint64_t root_value = me == 0 ? 0x1234567887654321ull : 0, got_value = 0;
    gex_Event_Wait(gex_Coll_BroadcastNB(world, 0, &got_value, &root_value, sizeof got_value, 0));
    if (got_value != 0x1234567887654321ull) fail("broadcast", (long)got_value, 0);
    uint64_t contrib = me + 1, sum = 0;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(world, &sum, &contrib, GEX_DT_U64, sizeof contrib, 1, GEX_OP_ADD,
                                          nullptr, nullptr, 0));
    if (sum != (uint64_t)nranks * (nranks + 1) / 2) fail("all-reduce", (long)sum, (long)nranks * (nranks + 1) / 2);

    gex_Event_Wait(gex_Coll_BarrierNB(world, 0));
    if (me == 0) {
        std::printf("runtime_like: %u ranks, nbrhd %u: OK\n", (unsigned)nranks, (unsigned)nbrhd_size);
        std::fflush(stdout);
    }
    gasnet_exit(0);
    return 0;
}
