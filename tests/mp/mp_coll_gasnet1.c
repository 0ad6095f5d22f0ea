/*
 * mp_coll_gasnet1.c: the legacy GASNet-1 collectives (gasnet_coll.h, second
 * part) over GASNET_TEAM_ALL.
 *
 *  1. Every collective (broadcast, scatter, gather, gather_all, exchange) in
 *     every one of the 9 IN/OUT sync modes, sizes 0 .. 70001 bytes (several
 *     pieces with GEX_COLL_PIECE_SIZE), every kind of root (first, middle,
 *     last), buffers in the segment (with the *_IN_SEGMENT flags) and on the
 *     heap, blocking and _nb + gasnet_coll_wait_sync.  The client side of
 *     each mode is what GASNet requires of it: IN_NOSYNC fills buffers and
 *     then synchronizes before the call, OUT_NOSYNC synchronizes before it
 *     looks at results; MYSYNC modes fill right before the call and check
 *     right after it, then overwrite their src at once (already read).  One
 *     rank enters late now and then, so early data meets a late caller.
 *  2. IN_ALLSYNC: before the call each rank writes (RMA put) the input of
 *     the next rank's src and garbage into its dst; one rank does so 30 ms
 *     late.  Nothing may be read or written before everybody entered, so
 *     the results are right everywhere.
 *  3. OUT_ALLSYNC: one rank enters 30 ms late; right after its own call
 *     returns, each rank reads (RMA get) the next rank's (gather: the
 *     root's) dst, which must already be complete.
 *  4. Several _nb calls of every kind outstanding at once, mixed with
 *     gex_Coll_BroadcastNB, synced with wait_sync_all, try_sync loops and
 *     wait_sync_some.
 *  5. The team barrier (gasnet_coll_barrier_*: named, anonymous,
 *     split-phase with try, mismatch, result) and the autotuner calls.
 * The .mpt variants run it on the default paths, on the AM algorithms only
 * (GEX_FORCE_REFERENCE=coll), and with 256-byte pieces.
 */
#include "mp_util.h"
#include <gasnet_coll.h>

/* The flags are integer constants usable by the preprocessor. */
#if !(GASNET_COLL_IN_NOSYNC && GASNET_COLL_IN_MYSYNC && GASNET_COLL_IN_ALLSYNC && \
      GASNET_COLL_OUT_NOSYNC && GASNET_COLL_OUT_MYSYNC && GASNET_COLL_OUT_ALLSYNC && \
      GASNET_COLL_LOCAL && GASNET_COLL_SRC_IN_SEGMENT && GASNET_COLL_DST_IN_SEGMENT)
#error "GASNET_COLL_* flags must be non-zero integer constants"
#endif
#if (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC | \
     GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC) & \
    ~GASNET_COLL_SYNC_FLAG_MASK
#error "sync flags outside GASNET_COLL_SYNC_FLAG_MASK"
#endif
#if GASNET_COLL_SYNC_FLAG_MASK & (GASNET_COLL_LOCAL | GASNET_COLL_SRC_IN_SEGMENT | \
                                  GASNET_COLL_DST_IN_SEGMENT)
#error "GASNET_COLL_LOCAL or *_IN_SEGMENT overlaps the sync flags"
#endif

enum kind { BCAST, SCATTER, GATHER, GATHER_ALL, EXCHANGE, NKINDS };
static const char *const kind_name[NKINDS] = { "broadcast", "scatter", "gather", "gather_all",
                                               "exchange" };
static const int in_modes[3] = { GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC,
                                 GASNET_COLL_IN_ALLSYNC };
static const int out_modes[3] = { GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC,
                                  GASNET_COLL_OUT_ALLSYNC };
static const char *const mode_name[3] = { "NO", "MY", "ALL" };

#define BIG 70001
static const size_t sizes[] = { 0, 1, 13, 4099, BIG };
#define NSIZES (sizeof sizes / sizeof sizes[0])

static gex_Rank_t N, ME;
static unsigned char *seg_src, *seg_dst;   /* in the segment: N * BIG each */
static unsigned char *heap_src, *heap_dst; /* the same on the heap */
static uint32_t round_no;                  /* pattern generation: new data every call */

/* Pattern ids: block `b` of the src of rank `o` in round `r` of kind `k`. */
static uint32_t pat_a(enum kind k, gex_Rank_t o, gex_Rank_t b) { return k << 28 ^ o << 14 ^ b; }
static uint32_t pat_b(uint32_t r) { return r * 2654435761u + 1; }

static size_t src_blocks(enum kind k, gex_Rank_t me, gex_Rank_t root)
{
    if (k == EXCHANGE || (k == SCATTER && me == root)) return N;
    return 1;
}

/* Fills src as rank `o` must give it (for round r). */
static void fill_src(unsigned char *src, enum kind k, gex_Rank_t o, gex_Rank_t root, size_t nb,
                     uint32_t r)
{
    if ((k == BCAST || k == SCATTER) && o != root) return;
    for (gex_Rank_t b = 0; b < src_blocks(k, o, root); b++)
        mp_fill(src + (size_t)b * nb, nb, pat_a(k, o, b), pat_b(r));
}

static size_t dst_blocks(enum kind k, gex_Rank_t me, gex_Rank_t root)
{
    if (k == GATHER_ALL || k == EXCHANGE || (k == GATHER && me == root)) return N;
    if (k == GATHER) return 0;
    return 1;
}

/* Checks the dst of rank `me` after the call (for round r). */
static void check_dst(const unsigned char *dst, enum kind k, gex_Rank_t me, gex_Rank_t root,
                      size_t nb, uint32_t r)
{
    switch (k) {
    case BCAST: CHECK_PATTERN(dst, nb, pat_a(k, root, 0), pat_b(r)); break;
    case SCATTER: CHECK_PATTERN(dst, nb, pat_a(k, root, me), pat_b(r)); break;
    case GATHER:
        if (me != root) break;
        /* fall through */
    case GATHER_ALL:
        for (gex_Rank_t s = 0; s < N; s++)
            CHECK_PATTERN(dst + (size_t)s * nb, nb, pat_a(k, s, 0), pat_b(r));
        break;
    case EXCHANGE:
        for (gex_Rank_t s = 0; s < N; s++)
            CHECK_PATTERN(dst + (size_t)s * nb, nb, pat_a(k, s, me), pat_b(r));
        break;
    default: CHECK(0);
    }
}

static gasnet_coll_handle_t call_nb(enum kind k, gex_Rank_t root, void *dst, void *src,
                                    size_t nb, int flags)
{
    switch (k) {
    case BCAST: return gasnet_coll_broadcast_nb(GASNET_TEAM_ALL, dst, root, src, nb, flags);
    case SCATTER: return gasnet_coll_scatter_nb(GASNET_TEAM_ALL, dst, root, src, nb, flags);
    case GATHER: return gasnet_coll_gather_nb(GASNET_TEAM_ALL, root, dst, src, nb, flags);
    case GATHER_ALL: return gasnet_coll_gather_all_nb(GASNET_TEAM_ALL, dst, src, nb, flags);
    case EXCHANGE: return gasnet_coll_exchange_nb(GASNET_TEAM_ALL, dst, src, nb, flags);
    default: CHECK(0);
    }
    return GASNET_COLL_INVALID_HANDLE;
}

static void call_blocking(enum kind k, gex_Rank_t root, void *dst, void *src, size_t nb,
                          int flags)
{
    switch (k) {
    case BCAST: gasnet_coll_broadcast(GASNET_TEAM_ALL, dst, root, src, nb, flags); break;
    case SCATTER: gasnet_coll_scatter(GASNET_TEAM_ALL, dst, root, src, nb, flags); break;
    case GATHER: gasnet_coll_gather(GASNET_TEAM_ALL, root, dst, src, nb, flags); break;
    case GATHER_ALL: gasnet_coll_gather_all(GASNET_TEAM_ALL, dst, src, nb, flags); break;
    case EXCHANGE: gasnet_coll_exchange(GASNET_TEAM_ALL, dst, src, nb, flags); break;
    default: CHECK(0);
    }
}

static int is_rooted(enum kind k) { return k == BCAST || k == SCATTER || k == GATHER; }

/* ---- 1. every kind x mode x size x root ---- */

static void one_call(enum kind k, int im, int om, size_t nb, gex_Rank_t root, int inseg,
                     int use_nb, int late)
{
    unsigned char *src = inseg ? seg_src : heap_src, *dst = inseg ? seg_dst : heap_dst;
    const int flags = in_modes[im] | out_modes[om] | GASNET_COLL_LOCAL |
                      (inseg ? GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT : 0);
    const uint32_t r = ++round_no;
    const size_t dlen = dst_blocks(k, ME, root) * nb;
    /* Non-roots pass NULL where the call ignores the argument. */
    void *src_arg = ((k == BCAST || k == SCATTER) && ME != root) ? NULL : src;
    void *dst_arg = (k == GATHER && ME != root) ? NULL : dst;

    if (late && ME == (gex_Rank_t)(r % N)) usleep(10000);
    fill_src(src, k, ME, root, nb, r);
    memset(dst, 0xEE, dlen);
    if (in_modes[im] == GASNET_COLL_IN_NOSYNC) mp_barrier();
    if (use_nb) {
        gasnet_coll_handle_t h = call_nb(k, root, dst_arg, src_arg, nb, flags);
        gasnet_coll_wait_sync(h);
    } else {
        call_blocking(k, root, dst_arg, src_arg, nb, flags);
    }
    if (out_modes[om] == GASNET_COLL_OUT_NOSYNC) {
        mp_barrier();
        check_dst(dst, k, ME, root, nb, r);
        mp_barrier(); /* nobody refills before everybody checked */
    } else {
        check_dst(dst, k, ME, root, nb, r);
        /* src was read, dst will not be written again: reuse both now */
        memset(src, 0x5A, src_blocks(k, ME, root) * nb);
        memset(dst, 0xA5, dlen);
    }
}

static void test_all_modes(void)
{
    unsigned count = 0;
    for (int k = 0; k < NKINDS; k++) {
        char phase[96];
        gex_Rank_t roots[3] = { 0, N / 2, N - 1 };
        const int nroots = is_rooted((enum kind)k) ? 3 : 1;
        for (int im = 0; im < 3; im++)
            for (int om = 0; om < 3; om++) {
                snprintf(phase, sizeof phase, "%s %s/%s", kind_name[k], mode_name[im],
                         mode_name[om]);
                mp_phase(phase);
                for (size_t s = 0; s < NSIZES; s++)
                    for (int ri = 0; ri < nroots; ri++) {
                        if (ri && roots[ri] == roots[ri - 1]) continue;
                        const unsigned v = count++;
                        one_call((enum kind)k, im, om, sizes[s], roots[ri], v % 2, (v / 2) % 2,
                                 v % 7 == 3);
                    }
            }
    }
    mp_barrier();
    if (ME == 0) printf("all modes: %u calls checked\n", count);
}

/* ---- 2. IN_ALLSYNC: inputs written remotely just before entering ---- */

static void *peer_addr(gex_Rank_t peer, const unsigned char *mine)
{
    void *mybase = NULL, *pbase = NULL;
    CHECK_OK(gex_Segment_QueryBound(mp_tm, ME, &mybase, NULL, NULL));
    CHECK_OK(gex_Segment_QueryBound(mp_tm, peer, &pbase, NULL, NULL));
    return (char *)pbase + (mine - (const unsigned char *)mybase);
}

static void test_in_allsync(void)
{
    const size_t sz[2] = { 8, 5000 };
    unsigned char *tmp = malloc((size_t)N * 5000);
    CHECK(tmp);
    for (int k = 0; k < NKINDS; k++)
        for (int om = 0; om < 3; om++)
            for (int si = 0; si < 2; si++) {
                char phase[96];
                snprintf(phase, sizeof phase, "IN_ALLSYNC %s, OUT_%sSYNC, %zu bytes",
                         kind_name[k], mode_name[om], sz[si]);
                mp_phase(phase);
                const size_t nb = sz[si];
                const gex_Rank_t root = (gex_Rank_t)((k + om) % N);
                const uint32_t r = ++round_no;
                const gex_Rank_t owner = (ME + 1) % N, late = (gex_Rank_t)(r % N);
                /* Own buffers hold garbage until the writer's puts land. */
                memset(seg_src, 0x11, (size_t)N * nb);
                memset(seg_dst, 0x22, (size_t)N * nb);
                mp_barrier();
                if (ME == late) usleep(30000);
                /* The owner's input, and garbage into its dst. */
                const size_t slen = src_blocks((enum kind)k, owner, root) * nb;
                const size_t dlen = dst_blocks((enum kind)k, owner, root) * nb;
                fill_src(tmp, (enum kind)k, owner, root, nb, r);
                if ((k != BCAST && k != SCATTER) || owner == root)
                    CHECK_OK(gex_RMA_PutBlocking(mp_tm, owner, peer_addr(owner, seg_src), tmp,
                                                 slen, 0));
                memset(tmp, 0x33, dlen);
                if (dlen)
                    CHECK_OK(gex_RMA_PutBlocking(mp_tm, owner, peer_addr(owner, seg_dst), tmp,
                                                 dlen, 0));
                const int flags = GASNET_COLL_IN_ALLSYNC | out_modes[om] | GASNET_COLL_LOCAL |
                                  GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT;
                if (r % 2)
                    call_blocking((enum kind)k, root, seg_dst, seg_src, nb, flags);
                else
                    gasnet_coll_wait_sync(
                        call_nb((enum kind)k, root, seg_dst, seg_src, nb, flags));
                if (out_modes[om] == GASNET_COLL_OUT_NOSYNC) mp_barrier();
                check_dst(seg_dst, (enum kind)k, ME, root, nb, r);
                mp_barrier();
            }
    free(tmp);
}

/* ---- 3. OUT_ALLSYNC: others' results complete when the call returns ---- */

static void test_out_allsync(void)
{
    const size_t sz[2] = { 8, 5000 };
    unsigned char *tmp = malloc((size_t)N * 5000);
    CHECK(tmp);
    for (int k = 0; k < NKINDS; k++)
        for (int im = 0; im < 3; im++)
            for (int si = 0; si < 2; si++) {
                char phase[96];
                snprintf(phase, sizeof phase, "OUT_ALLSYNC %s, IN_%sSYNC, %zu bytes",
                         kind_name[k], mode_name[im], sz[si]);
                mp_phase(phase);
                const size_t nb = sz[si];
                const gex_Rank_t root = (gex_Rank_t)((k + im + 1) % N);
                const uint32_t r = ++round_no;
                /* The root enters late (gather: its dst fills up last), or the next rank. */
                const gex_Rank_t late = k == GATHER ? root : (gex_Rank_t)(r % N);
                fill_src(seg_src, (enum kind)k, ME, root, nb, r);
                memset(seg_dst, 0x44, (size_t)N * nb);
                mp_barrier();
                if (ME == late) usleep(30000);
                const int flags = in_modes[im] | GASNET_COLL_OUT_ALLSYNC | GASNET_COLL_LOCAL |
                                  GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT;
                if (r % 2)
                    call_blocking((enum kind)k, root, seg_dst, seg_src, nb, flags);
                else
                    gasnet_coll_wait_sync(
                        call_nb((enum kind)k, root, seg_dst, seg_src, nb, flags));
                const gex_Rank_t peer = k == GATHER ? root : (ME + 1) % N;
                const size_t dlen = dst_blocks((enum kind)k, peer, root) * nb;
                if (dlen)
                    CHECK_OK(gex_RMA_GetBlocking(mp_tm, tmp, peer, peer_addr(peer, seg_dst), dlen,
                                                 0));
                check_dst(tmp, (enum kind)k, peer, root, nb, r);
                check_dst(seg_dst, (enum kind)k, ME, root, nb, r);
                mp_barrier();
            }
    free(tmp);
}

/* ---- 4. many _nb calls outstanding ---- */

#define NB_SZ 777
#define NB_K 3 /* calls of each kind */

static void test_nb_outstanding(void)
{
    mp_phase("nb outstanding");
    const size_t per = (size_t)N * NB_SZ;
    unsigned char *src = malloc(NKINDS * NB_K * per), *dst = malloc(NKINDS * NB_K * per);
    unsigned char *bsrc = malloc(1000), *bdst = malloc(1000);
    CHECK(src && dst && bsrc && bdst);
    gasnet_coll_handle_t h[NKINDS * NB_K + 1];
    const int modes[4] = { GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC,
                           GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_MYSYNC,
                           GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_ALLSYNC,
                           GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC };
    for (int rep = 0; rep < 8; rep++) {
        const uint32_t r0 = round_no + 1;
        round_no += NKINDS * NB_K;
        const int flags = modes[rep % 4] | GASNET_COLL_LOCAL;
        size_t nh = 0;
        for (int j = 0; j < NB_K; j++)
            for (int k = 0; k < NKINDS; k++) {
                const size_t i = (size_t)j * NKINDS + (size_t)k;
                const gex_Rank_t root = (gex_Rank_t)((i + (size_t)rep) % N);
                fill_src(src + i * per, (enum kind)k, ME, root, NB_SZ, r0 + (uint32_t)i);
                h[nh++] = call_nb((enum kind)k, root, dst + i * per, src + i * per, NB_SZ, flags);
                if (i == NKINDS) {
                    /* a gex_Coll call among them: same sequence on the team */
                    if (ME == (gex_Rank_t)(rep % N)) mp_fill(bsrc, 1000, 99, (uint32_t)rep);
                    h[nh++] = gex_Coll_BroadcastNB(mp_tm, (gex_Rank_t)(rep % N), bdst, bsrc,
                                                   1000, 0);
                }
            }
        switch (rep % 3) {
        case 0: gasnet_coll_wait_sync_all(h, nh); break;
        case 1:
            while (gasnet_coll_try_sync_all(h, nh) != GASNET_OK) continue;
            break;
        default:
            for (size_t left = nh; left;) {
                gasnet_coll_wait_sync_some(h, nh);
                left = 0;
                for (size_t i = 0; i < nh; i++) left += h[i] != GASNET_COLL_INVALID_HANDLE;
            }
        }
        for (size_t i = 0; i < nh; i++) CHECK(h[i] == GASNET_COLL_INVALID_HANDLE || rep % 3 != 2);
        CHECK_PATTERN(bdst, 1000, 99, (uint32_t)rep);
        for (int j = 0; j < NB_K; j++)
            for (int k = 0; k < NKINDS; k++) {
                const size_t i = (size_t)j * NKINDS + (size_t)k;
                const gex_Rank_t root = (gex_Rank_t)((i + (size_t)rep) % N);
                check_dst(dst + i * per, (enum kind)k, ME, root, NB_SZ, r0 + (uint32_t)i);
            }
    }
    /* gasnet_coll_try_sync on a single handle, polled to completion */
    for (int rep = 0; rep < 5; rep++) {
        const uint32_t r = ++round_no;
        fill_src(src, GATHER_ALL, ME, 0, NB_SZ, r);
        gasnet_coll_handle_t one = gasnet_coll_gather_all_nb(
            GASNET_TEAM_ALL, dst, src, NB_SZ,
            GASNET_COLL_LOCAL | GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC);
        while (gasnet_coll_try_sync(one) == GASNET_ERR_NOT_READY) continue;
        check_dst(dst, GATHER_ALL, ME, 0, NB_SZ, r);
    }
    free(src);
    free(dst);
    free(bsrc);
    free(bdst);
    mp_barrier();
}

/* ---- 5. team barrier and autotuner calls ---- */

static void test_barrier_and_tuning(void)
{
    mp_phase("gasnet_coll_barrier");
    int id = -1;
    for (int i = 0; i < 20; i++) {
        CHECK_OK(gasnet_coll_barrier(GASNET_TEAM_ALL, 500 + i, 0));
        CHECK(gasnet_coll_barrier_result(GASNET_TEAM_ALL, &id) == 0);
        CHECK_EQ(id, 500 + i);
        CHECK_OK(gasnet_coll_barrier(GASNET_TEAM_ALL, 0, GASNET_BARRIERFLAG_ANONYMOUS));
        CHECK(gasnet_coll_barrier_result(GASNET_TEAM_ALL, &id) != 0);
    }
    for (int i = 0; i < 10; i++) {
        gasnet_coll_barrier_notify(GASNET_TEAM_ALL, i, 0);
        if ((i + (int)ME) % 2) usleep(200);
        CHECK_OK(gasnet_coll_barrier_wait(GASNET_TEAM_ALL, i, 0));
        gasnet_coll_barrier_notify(GASNET_TEAM_ALL, 0, GASNET_BARRIERFLAG_UNNAMED);
        int rc;
        while ((rc = gasnet_coll_barrier_try(GASNET_TEAM_ALL, 0, GASNET_BARRIERFLAG_UNNAMED)) ==
               GASNET_ERR_NOT_READY)
            continue;
        CHECK_OK(rc);
    }
    /* the same barrier as gasnet_barrier_*: notify with one, wait with the other */
    gasnet_barrier_notify(7, 0);
    CHECK_OK(gasnet_coll_barrier_wait(GASNET_TEAM_ALL, 7, 0));
    gasnet_coll_barrier_notify(GASNET_TEAM_ALL, 8, 0);
    CHECK_OK(gasnet_barrier_wait(8, 0));
    CHECK(gasnet_barrier_result(&id) == 0);
    CHECK_EQ(id, 8);
    if (N > 1) {
        mp_phase("gasnet_coll_barrier mismatch");
        gasnet_coll_barrier_notify(GASNET_TEAM_ALL, ME == 1 ? 1 : 2, 0);
        CHECK_RC(gasnet_coll_barrier_wait(GASNET_TEAM_ALL, ME == 1 ? 1 : 2, 0),
                 GASNET_ERR_BARRIER_MISMATCH);
        CHECK_OK(gasnet_coll_barrier(GASNET_TEAM_ALL, 3, 0));
    }

    mp_phase("autotuner calls");
    gasnet_coll_loadTuningState(NULL, GASNET_TEAM_ALL);
    gasnet_coll_dumpTuningState(NULL, GASNET_TEAM_ALL);
    gasnet_coll_dumpProfile(NULL, GASNET_TEAM_ALL);
    for (int op = 0; op < GASNET_COLL_NUM_COLL_OPTYPES; op++)
        CHECK(gasnet_coll_get_num_tree_classes(GASNET_TEAM_ALL, (gasnet_coll_optype_t)op) >= 1);
    gasnet_coll_set_tree_kind(GASNET_TEAM_ALL, 0, 2, GASNET_COLL_BROADCAST_OP);
    gasnet_coll_set_tree_kind(GASNET_TEAM_ALL, 0, 4, GASNET_COLL_GATHER_OP);
    gasnet_coll_set_dissem_limit(GASNET_TEAM_ALL, 1024, GASNET_COLL_EXCHANGE_OP);
    /* none of it changes results */
    const uint32_t r = ++round_no;
    fill_src(heap_src, EXCHANGE, ME, 0, 100, r);
    gasnet_coll_exchange(GASNET_TEAM_ALL, heap_dst, heap_src, 100,
                         GASNET_COLL_LOCAL | GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC);
    check_dst(heap_dst, EXCHANGE, ME, 0, 100, r);
    mp_barrier();
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_COLL_GASNET1", 0);
    N = mp_n;
    ME = mp_me;
    mp_watchdog(120);
    const size_t area = (size_t)N * BIG;
    uintptr_t segsz = (2 * area + 4095) / 4096 * 4096;
    mp_attach(segsz);
    void *base = NULL;
    CHECK_OK(gex_Segment_QueryBound(mp_tm, ME, &base, NULL, NULL));
    seg_src = base;
    seg_dst = seg_src + area;
    heap_src = malloc(area);
    heap_dst = malloc(area);
    CHECK(heap_src && heap_dst);
    mp_barrier();

    test_barrier_and_tuning();
    test_all_modes();
    test_in_allsync();
    test_out_allsync();
    test_nb_outstanding();

    free(heap_src);
    free(heap_dst);
    mp_finish("legacy collectives OK on %u rank(s)", (unsigned)N);
}
