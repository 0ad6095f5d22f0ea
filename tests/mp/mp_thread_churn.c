/*
 * mp_thread_churn.c: many short-lived threads of a GASNET_PAR client, one
 * after another, each using the primordial endpoint once: AM Short and
 * Medium requests with replies, a negotiated-payload Medium, NB put and get
 * with events, an NBI put.  That touches the per-thread state of core
 * (event pool, NBI state) and libgex-am (negotiated-payload buffers), which
 * thread exit must hand back.
 *
 * What is checked:
 *  - exact data and counts for every operation;
 *  - under valgrind (tests/valgrind-check.sh runs every tests/mp test and
 *    the ofi *_rxm ones with --leak-check=full): per-thread state that thread
 *    exit does not release is a definite leak;
 *  - with glibc's allocator: the bytes in use (mallinfo2, all arenas) after
 *    the last thread exceed those after thread WARM by at most SLACK, i.e.
 *    about 20 bytes per thread, where a per-thread leak costs at least one
 *    block (32 bytes or more) per thread.  (Not RSS: on ofi, libfabric's preallocated
 *    completion rings and buffer pools are first touched progressively as
 *    messages flow, a few hundred bytes per message until they wrap, with
 *    or without threads; the allocator does not see that.)
 */
#include "mp_util.h"
#include <pthread.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif

#define NTH 230                 /* threads, one after another */
#define WARM 30                 /* threads before the allocator baseline */
#define SLACK 4096              /* bytes the heap may grow over NTH - WARM threads */
#define H_REQ (MP_H_FIRST_FREE + 0)
#define H_MED (MP_H_FIRST_FREE + 1)
#define H_ACK (MP_H_FIRST_FREE + 2)
#define MED_LEN 64

static atomic_long acks, got_req;
static char *peer_seg;          /* the next rank's segment (its address) */
static gex_Rank_t peer;

static void h_req(gex_Token_t tok, gex_AM_Arg_t k)
{
    atomic_fetch_add(&got_req, 1);
    gex_AM_ReplyShort1(tok, H_ACK, 0, k);
}

static void h_med(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t k)
{
    CHECK_EQ(nbytes, MED_LEN);
    CHECK_PATTERN(buf, nbytes, 7u, (uint32_t)k);
    atomic_fetch_add(&got_req, 1);
    gex_AM_ReplyShort1(tok, H_ACK, 0, k);
}

static void h_ack(gex_Token_t tok, gex_AM_Arg_t k)
{
    (void)tok;
    (void)k;
    atomic_fetch_add(&acks, 1);
}

/* One thread's work: 3 AMs answered, then RMA on this rank's 16-byte slot
 * of the next rank's segment. */
static void *one_thread(void *arg)
{
    const int k = (int)(intptr_t)arg;
    const long base = atomic_load(&acks);
    unsigned char buf[MED_LEN];

    CHECK_OK(gex_AM_RequestShort1(mp_tm, peer, H_REQ, 0, k));
    mp_fill(buf, sizeof buf, 7u, (uint32_t)k);
    CHECK_OK(gex_AM_RequestMedium1(mp_tm, peer, H_MED, buf, sizeof buf, GEX_EVENT_NOW, 0, k));
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(mp_tm, peer, NULL, MED_LEN, MED_LEN, NULL,
                                                      0, 1);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    mp_fill(gex_AM_SrcDescAddr(sd), MED_LEN, 7u, (uint32_t)k);
    gex_AM_CommitRequestMedium1(sd, H_MED, MED_LEN, k);
    MP_POLL_UNTIL(atomic_load(&acks) >= base + 3);

    char *slot = peer_seg + 16 * mp_me;
    const uint64_t v = 0x1000000ull * (uint64_t)mp_me + (uint64_t)k;
    uint64_t back = 0, v2 = v + 1;
    gex_Event_Wait(gex_RMA_PutNB(mp_tm, peer, slot, (void *)&v, sizeof v, GEX_EVENT_DEFER, 0));
    gex_Event_Wait(gex_RMA_GetNB(mp_tm, &back, peer, slot, sizeof back, 0));
    CHECK_EQ(back, v);
    CHECK_OK(gex_RMA_PutNBI(mp_tm, peer, slot + 8, &v2, sizeof v2, GEX_EVENT_NOW, 0));
    gex_NBI_Wait(GEX_EC_PUT, 0);
    CHECK_OK(gex_RMA_GetBlocking(mp_tm, &back, peer, slot + 8, sizeof back, 0));
    CHECK_EQ(back, v2);
    return NULL;
}

static size_t heap_in_use(void)
{
#if defined(HAVE_MALLINFO2)
    return mallinfo2().uordblks;
#else
    return 0;
#endif
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_THREAD_CHURN", 0);
    gex_AM_Entry_t h[] = {
        { H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "req" },
        { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "med" },
        { H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "ack" },
    };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, h, sizeof h / sizeof h[0]));
    mp_attach(1 << 16);          /* its barrier: everyone's handlers are registered */
    peer = (mp_me + 1) % mp_n;
    void *owner = NULL, *local = NULL;
    uintptr_t size = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, peer, &owner, &local, &size, 0));
    CHECK(owner != NULL && size >= 16 * (uintptr_t)mp_n);
    peer_seg = owner;

    mp_phase("threads");
    size_t at_warm = 0;
    for (int k = 0; k < NTH; k++) {
        pthread_t t;
        CHECK_EQ(pthread_create(&t, NULL, one_thread, (void *)(intptr_t)k), 0);
        CHECK_EQ(pthread_join(t, NULL), 0);
        if (k + 1 == WARM) at_warm = heap_in_use();
    }
    const size_t at_end = heap_in_use();
    CHECK_EQ(atomic_load(&acks), 3 * NTH);
    CHECK_MSG(at_end <= at_warm + SLACK,
              "heap in use grew by %zu bytes over %d short-lived threads (from %zu to %zu)",
              at_end - at_warm, NTH - WARM, at_warm, at_end);

    /* the previous rank's threads sent 3 AMs each here */
    mp_phase("counts");
    MP_POLL_UNTIL(atomic_load(&got_req) >= 3 * NTH);
    CHECK_EQ(atomic_load(&got_req), 3 * NTH);
    mp_finish("%d short-lived threads x (3 AMs, NB put/get, NBI put): exact data; heap in use "
              "after thread %d grew by %ld bytes by thread %d", NTH, WARM,
              (long)at_end - (long)at_warm, NTH);
}
