// test_headers_cxx.cc: every public header must compile as C++11 and give C
// linkage to the API.  Compiling this file is the test; the [M]-inferring
// macros are expanded once, in code that never runs, since they are the part
// of the headers most likely to differ between the C and C++ preprocessors.
#undef GEXI_BUILDING_GEX
#include <gasnet.h>
#include <gasnet_coll.h>
#include <gasnet_fwd.h>
#include <gasnet_mk.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <gasnetex.h>

static_assert(GEX_OP_TO_FETCHING(GEX_OP_SET) == GEX_OP_SWAP, "SET -> SWAP");
static_assert(GEX_VIS_MAX_PEERCOMPLETION >= 127, "spec: at least 127 bytes");

int main(int argc, char **)
{
    if (argc < 0) {
        gex_AM_SrcDesc_t sd = GEX_AM_SRCDESC_NO_OP;
        gex_AM_RequestShort(GEX_TM_INVALID, 0, GEX_AM_INDEX_BASE, 0, 1);
        gex_AM_CommitRequestMedium(sd, GEX_AM_INDEX_BASE, 0, 1, 2);
        (void)gex_AM_CommitReplyLong_v2(sd, GEX_AM_INDEX_BASE, 0, nullptr, 0);
        gex_Event_Wait(gex_Coll_BarrierNB(GEX_TM_INVALID, 0));
        gex_MK_Create_args_t args = {};
        args.gex_class = GEX_MK_CLASS_HIP;
        (void)args;
    }
    return 0;
}
