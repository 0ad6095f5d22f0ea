/*
 * mp_segment.c: segments and endpoints across processes.
 *
 *  1. gex_Segment_Attach with a different size per rank; every rank queries
 *     every bound segment (gex_EP_QueryBoundSegmentNB, with and without
 *     IMMEDIATE, gex_Segment_QueryBound, through the team and through
 *     TM-pairs) and compares with what the owner reports; localaddr is
 *     non-NULL for peers iff PSHM is on, and then really aliases the owner's
 *     memory (data written by peers is verified by the owner and back).
 *  2. Non-primordial endpoints (indices 1..4) and created segments
 *     (GASNet-allocated and client-allocated), bound and published over the
 *     primordial team; queries through gex_TM_Pair(ep0, idx) on every rank;
 *     AM Shorts and Longs addressed to those endpoints through TM-pairs.
 *  3. gex_Segment_Create / gex_Segment_Destroy 50 times: no growth in this
 *     job's /dev/shm entries or in the process's mappings.
 */
#include "mp_util.h"
#include <dirent.h>

#define H_PAIR_REQ  (MP_H_FIRST_FREE + 0)
#define H_PAIR_REP  (MP_H_FIRST_FREE + 1)
#define H_PAIR_LONG (MP_H_FIRST_FREE + 2)

#define NEPS 4                      /* created endpoints: indices 1..4 */
static gex_EP_t eps[NEPS + 1];      /* eps[0] = primordial */
static gex_Segment_t seg_g, seg_c;  /* GASNet- and client-allocated */
static atomic_uint pair_req_count[NEPS + 1], pair_long_count[NEPS + 1], pair_rep_count;
static size_t chunk_g, chunk_c;     /* per-sender regions of seg_g / seg_c for Longs */

/* Short Request to a created EP: (sender, the EP index it addressed). */
static void h_pair_req(gex_Token_t token, gex_AM_Arg_t src, gex_AM_Arg_t idx)
{
    gex_Token_Info_t info;
    gex_TI_t got = gex_Token_Info(token, &info, GEX_TI_ALL);
    CHECK((got & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP));
    CHECK_EQ(info.gex_srcrank, src);
    CHECK(idx >= 1 && idx <= NEPS);
    CHECK_PTR_EQ(info.gex_ep, eps[idx]); /* delivered to the addressed endpoint */
    CHECK_EQ(gex_EP_QueryIndex(info.gex_ep), idx);
    atomic_fetch_add(&pair_req_count[idx], 1);
    CHECK_OK(gex_AM_ReplyShort1(token, H_PAIR_REP, 0, idx));
}

/* Replies come back to the requesting endpoint: the primordial one. */
static void h_pair_rep(gex_Token_t token, gex_AM_Arg_t idx)
{
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_EP);
    CHECK_PTR_EQ(info.gex_ep, mp_ep);
    CHECK(idx >= 1 && idx <= NEPS);
    atomic_fetch_add(&pair_rep_count, 1);
}

/* Long into the bound segment of a created endpoint: (sender, EP index). */
static void h_pair_long(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t src,
                        gex_AM_Arg_t idx)
{
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_ALL);
    CHECK_EQ(info.gex_srcrank, src);
    CHECK(idx == 1 || idx == 2);
    CHECK_PTR_EQ(info.gex_ep, eps[idx]);
    CHECK(info.gex_is_long);
    gex_Segment_t s = gex_EP_QuerySegment(info.gex_ep);
    CHECK_PTR_EQ(s, idx == 1 ? seg_g : seg_c);
    size_t chunk = idx == 1 ? chunk_g : chunk_c;
    CHECK_EQ(nbytes, chunk);
    CHECK_PTR_EQ(buf, (char *)gex_Segment_QueryAddr(s) + (size_t)src * chunk);
    CHECK_PATTERN(buf, nbytes, 1000 + (uint32_t)src, (uint32_t)idx);
    atomic_fetch_add(&pair_long_count[idx], 1);
    CHECK_OK(gex_AM_ReplyShort1(token, H_PAIR_REP, 0, idx));
}

/* /dev/shm entries of this job (gexrun names them gex-<GEX_JOB_ID>-*). */
/* This job's id: gexrun exports it; under another launcher (mpirun) it is
 * read off one of our own mappings of "/dev/shm/gex-<jobid>-<what>".  NULL
 * if neither tells (then nothing of this job is in /dev/shm to count). */
static const char *job_id(void)
{
    static char id[96];
    const char *env = getenv("GEX_JOB_ID");
    if (env && *env) return env;
    if (id[0]) return id;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return NULL;
    char line[512];
    while (!id[0] && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "/dev/shm/gex-");
        if (!p) continue;
        p += strlen("/dev/shm/gex-");
        const char *end = strstr(p, "-seg-");
        if (!end) end = strstr(p, "-smp-");
        if (end && (size_t)(end - p) < sizeof id) memcpy(id, p, (size_t)(end - p));
    }
    fclose(f);
    return id[0] ? id : NULL;
}

static unsigned count_shm_entries(void)
{
    const char *id = job_id();
    if (!id) return 0;
    char prefix[128];
    snprintf(prefix, sizeof prefix, "gex-%s-", id);
    unsigned n = 0;
    DIR *d = opendir("/dev/shm");
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix))) n++;
    closedir(d);
    return n;
}

static unsigned count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return 0;
    unsigned n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

/* One bound-segment query through every interface, checked against the
 * expected owner address and size (size 0: expect "no segment known"). */
static void *check_bound(gex_TM_t tm, gex_Rank_t r, void *want_owner, uintptr_t want_size,
                         int want_local /* -1: self (== owner), 0: NULL, 1: non-NULL, 2: any */)
{
    void *owner = (void *)1, *local = (void *)1;
    uintptr_t size = 12345;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(tm, r, &owner, &local, &size, 0);
    CHECK(ev != GEX_EVENT_NO_OP);
    gex_Event_Wait(ev);
    if (!want_size) {
        CHECK_EQ(size, 0); /* unsuccessful */
        void *o2 = (void *)7, *l2 = (void *)7;
        uintptr_t s2 = 7;
        CHECK(gex_Segment_QueryBound(tm, r, &o2, &l2, &s2) != 0);
        CHECK(o2 == (void *)7 && l2 == (void *)7 && s2 == 7); /* untouched */
        return NULL;
    }
    CHECK_EQ(size, want_size);
    CHECK_PTR_EQ(owner, want_owner);
    if (want_local == -1) CHECK_PTR_EQ(local, owner);
    else if (want_local == 0) CHECK_PTR_EQ(local, NULL);
    else if (want_local == 1) CHECK(local != NULL);
    /* IMMEDIATE: INVALID (same answers) or NO_OP; always INVALID for self */
    void *o3 = NULL, *l3 = NULL;
    uintptr_t s3 = 0;
    gex_Event_t ev3 = gex_EP_QueryBoundSegmentNB(tm, r, &o3, &l3, &s3, GEX_FLAG_IMMEDIATE);
    CHECK(ev3 == GEX_EVENT_INVALID || ev3 == GEX_EVENT_NO_OP);
    if (r == mp_me) /* (tm, r) names an endpoint of this process */
        CHECK(ev3 == GEX_EVENT_INVALID);
    if (ev3 == GEX_EVENT_INVALID) {
        CHECK_PTR_EQ(o3, owner);
        CHECK_PTR_EQ(l3, local);
        CHECK_EQ(s3, size);
    }
    /* the deprecated blocking form agrees */
    void *o4 = NULL, *l4 = NULL;
    uintptr_t s4 = 0;
    CHECK_EQ(gex_Segment_QueryBound(tm, r, &o4, &l4, &s4), 0);
    CHECK_PTR_EQ(o4, owner);
    CHECK_PTR_EQ(l4, local);
    CHECK_EQ(s4, size);
    /* every output is optional */
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, r, NULL, NULL, NULL, 0));
    uintptr_t s5 = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, r, NULL, NULL, &s5, 0));
    CHECK_EQ(s5, size);
    return local;
}

struct seg_facts {
    uint64_t attach_addr, attach_size;
    uint64_t g_addr, g_size, c_addr, c_size;
};

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_SEGMENT", 0);
    const gex_Rank_t me = mp_me, n = mp_n;
    const int pshm = mp_pshm_enabled();
    gex_System_SetVerboseErrors(0); /* unsuccessful queries below are on purpose */

    /* ---- Before any segment: every query is unsuccessful ---- */
    mp_phase("queries before attach");
    CHECK_PTR_EQ(gex_EP_QuerySegment(mp_ep), GEX_SEGMENT_INVALID);
    for (gex_Rank_t r = 0; r < n; r++) check_bound(mp_tm, r, NULL, 0, 0);

    /* ---- Endpoints 1..4 (no segment yet) ---- */
    mp_phase("gex_EP_Create");
    eps[0] = mp_ep;
    const gex_EP_Capabilities_t caps[NEPS + 1] = {
        0, GEX_EP_CAPABILITY_RMA | GEX_EP_CAPABILITY_AM, GEX_EP_CAPABILITY_ALL,
        GEX_EP_CAPABILITY_AM, GEX_EP_CAPABILITY_AM | GEX_EP_CAPABILITY_VIS };
    const gex_Flags_t ep_flags[NEPS + 1] = { 0, 0, GEX_FLAG_HINT_ACCEL_ALL,
                                             GEX_FLAG_HINT_ACCEL_AD, GEX_FLAG_HINT_ACCEL_COLL };
    for (unsigned i = 1; i <= NEPS; i++) {
        CHECK_OK(gex_EP_Create(&eps[i], mp_client, caps[i], ep_flags[i]));
        CHECK(eps[i] != GEX_EP_INVALID);
        CHECK_EQ(gex_EP_QueryIndex(eps[i]), i); /* 1, 2, ... in creation order */
        CHECK_PTR_EQ(gex_EP_QueryClient(eps[i]), mp_client);
        CHECK_EQ(gex_EP_QueryFlags(eps[i]), ep_flags[i]);
        CHECK_PTR_EQ(gex_EP_QuerySegment(eps[i]), GEX_SEGMENT_INVALID);
        CHECK_PTR_EQ(gex_EP_QueryCData(eps[i]), NULL);
        gex_EP_SetCData(eps[i], &eps[i]);
        for (unsigned j = 0; j < i; j++) CHECK(eps[j] != eps[i]);
    }
    for (unsigned i = 0; i <= NEPS; i++) CHECK_PTR_EQ(gex_EP_QueryCData(eps[i]), i ? &eps[i] : NULL);
    /* AM handlers on the created EPs (registration is per endpoint) */
    for (unsigned i = 1; i <= NEPS; i++) {
        gex_AM_Entry_t h[] = {
            { H_PAIR_REQ, (gex_AM_Fn_t)h_pair_req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2,
              NULL, "pair_req" },
            { H_PAIR_LONG, (gex_AM_Fn_t)h_pair_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2,
              NULL, "pair_long" },
        };
        CHECK_OK(gex_EP_RegisterHandlers(eps[i], h, 2));
    }
    gex_AM_Entry_t hrep = { H_PAIR_REP, (gex_AM_Fn_t)h_pair_rep,
                            GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "pair_rep" };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, &hrep, 1));

    /* ---- Attach: size differs per rank ---- */
    const uintptr_t attach_size = (uintptr_t)65536 * (1 + me % 3);
    mp_attach(attach_size);
    mp_phase("attached segment");
    char *my_base = gex_Segment_QueryAddr(mp_seg);
    CHECK(my_base != NULL);
    CHECK_EQ(gex_Segment_QuerySize(mp_seg), attach_size);
    CHECK_PTR_EQ(gex_Segment_QueryClient(mp_seg), mp_client);
    CHECK_PTR_EQ(gex_Segment_QueryKind(mp_seg), GEX_MK_HOST);
    CHECK_EQ(gex_Segment_QueryFlags(mp_seg), 0);
    CHECK_PTR_EQ(gex_EP_QuerySegment(mp_ep), mp_seg);
    for (unsigned i = 1; i <= NEPS; i++)
        CHECK_PTR_EQ(gex_EP_QuerySegment(eps[i]), GEX_SEGMENT_INVALID); /* only ep 0 */
    memset(my_base, 0, attach_size); /* the whole segment is ours to write */

    /* ---- Segments created with gex_Segment_Create, bound to EPs 1..3 ---- */
    mp_phase("gex_Segment_Create");
    const uintptr_t len_g = 3 * 4096 + 100 + 8 * me;
    CHECK_OK(gex_Segment_Create(&seg_g, mp_client, NULL, len_g, GEX_MK_HOST, 0));
    char *g_base = gex_Segment_QueryAddr(seg_g);
    const uintptr_t size_g = gex_Segment_QuerySize(seg_g);
    CHECK(g_base != NULL && size_g >= len_g); /* may be rounded up */
    CHECK_PTR_EQ(gex_Segment_QueryKind(seg_g), GEX_MK_HOST);
    CHECK_PTR_EQ(gex_Segment_QueryClient(seg_g), mp_client);
    CHECK_PTR_EQ(gex_Segment_QueryCData(seg_g), NULL);
    memset(g_base, 0x5a, size_g);
    const uintptr_t len_c = 5000 + me;
    char *c_mem = malloc(len_c + 16);
    CHECK(c_mem);
    char *c_base = c_mem + 3; /* no alignment is required of client memory */
    mp_fill(c_base, len_c, 77, me);
    CHECK_OK(gex_Segment_Create(&seg_c, mp_client, c_base, len_c, GEX_MK_HOST, 0));
    CHECK_PTR_EQ(gex_Segment_QueryAddr(seg_c), c_base);
    CHECK_EQ(gex_Segment_QuerySize(seg_c), len_c); /* exactly the client's range */
    CHECK_PTR_EQ(gex_Segment_QueryKind(seg_c), GEX_MK_HOST);
    CHECK_PATTERN(c_base, len_c, 77, me); /* creation does not touch the memory */
    CHECK_OK(gex_EP_BindSegment(eps[1], seg_g, 0));
    CHECK_OK(gex_EP_BindSegment(eps[2], seg_c, 0));
    CHECK_OK(gex_EP_BindSegment(eps[3], seg_g, 0)); /* one segment, two endpoints */
    CHECK_PTR_EQ(gex_EP_QuerySegment(eps[1]), seg_g);
    CHECK_PTR_EQ(gex_EP_QuerySegment(eps[2]), seg_c);
    CHECK_PTR_EQ(gex_EP_QuerySegment(eps[3]), seg_g);
    CHECK_PTR_EQ(gex_EP_QuerySegment(eps[4]), GEX_SEGMENT_INVALID);
    /* endpoints of the calling process: known before any publication */
    check_bound(gex_TM_Pair(mp_ep, 1), me, g_base, size_g, -1);
    check_bound(gex_TM_Pair(mp_ep, 2), me, c_base, len_c, -1);
    check_bound(gex_TM_Pair(mp_ep, 3), me, g_base, size_g, -1);
    check_bound(gex_TM_Pair(mp_ep, 4), me, NULL, 0, 0);
    check_bound(gex_TM_Pair(eps[2], 0), me, my_base, attach_size, -1);

    /* ---- Publish over the primordial team ---- */
    mp_phase("gex_EP_PublishBoundSegment");
    gex_EP_t to_publish[NEPS] = { eps[1], eps[2], eps[3], eps[4] };
    CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, to_publish, NEPS, 0));
    CHECK_OK(gex_EP_PublishBoundSegment(mp_tm, NULL, 0, 0)); /* nothing: still collective */

    /* ---- What every rank says about its segments ---- */
    struct seg_facts mine = { (uintptr_t)my_base, attach_size, (uintptr_t)g_base, size_g,
                              (uintptr_t)c_base, len_c };
    struct seg_facts *all = calloc(n, sizeof *all);
    CHECK(all);
    mp_allgather(&mine, sizeof mine, all);
    CHECK_EQ(all[me].attach_addr, (uintptr_t)my_base);

    mp_phase("queries of every rank");
    void **peer_attach = calloc(n, sizeof *peer_attach), **peer_g = calloc(n, sizeof *peer_g);
    void **peer_g3 = calloc(n, sizeof *peer_g3);
    CHECK(peer_attach && peer_g && peer_g3);
    for (gex_Rank_t r = 0; r < n; r++) {
        const struct seg_facts *f = &all[r];
        CHECK_EQ(f->attach_size, (uintptr_t)65536 * (1 + r % 3));
        int want_local = r == me ? -1 : pshm ? 1 : 0;
        peer_attach[r] = check_bound(mp_tm, r, (void *)(uintptr_t)f->attach_addr,
                                     f->attach_size, want_local);
        /* the same endpoint named through TM-pairs from several local EPs */
        CHECK_PTR_EQ(check_bound(gex_TM_Pair(mp_ep, 0), r, (void *)(uintptr_t)f->attach_addr,
                                 f->attach_size, want_local), peer_attach[r]);
        CHECK_PTR_EQ(check_bound(gex_TM_Pair(eps[1], 0), r, (void *)(uintptr_t)f->attach_addr,
                                 f->attach_size, want_local), peer_attach[r]);
        /* created segments: GASNet-allocated may be mapped (then it must
         * alias, checked below); client-allocated memory cannot be */
        peer_g[r] = check_bound(gex_TM_Pair(mp_ep, 1), r, (void *)(uintptr_t)f->g_addr,
                                f->g_size, r == me ? -1 : pshm ? 2 : 0);
        /* EP 3 shares seg_g: its localaddr may differ (a second mapping) but
         * must alias the same memory, checked below */
        peer_g3[r] = check_bound(gex_TM_Pair(mp_ep, 3), r, (void *)(uintptr_t)f->g_addr,
                                 f->g_size, r == me ? -1 : peer_g[r] ? 1 : 2);
        CHECK_PTR_EQ(peer_g3[r], peer_g[r]);   /* one segment on two EPs: mapped once */
        check_bound(gex_TM_Pair(mp_ep, 2), r, (void *)(uintptr_t)f->c_addr, f->c_size,
                    r == me ? -1 : 0);
        check_bound(gex_TM_Pair(mp_ep, 4), r, NULL, 0, 0); /* published without a segment */
    }

    /* ---- localaddr aliases the owner's memory (PSHM) ---- */
    mp_phase("write through localaddr");
    size_t chunk = 4096;
    if ((size_t)n * chunk > 65536) chunk = (65536 / n) & ~(size_t)7;
    for (gex_Rank_t r = 0; r < n; r++) /* me writes region `me` of every segment */
        if (peer_attach[r]) mp_fill((char *)peer_attach[r] + (size_t)me * chunk, chunk, me, r);
    mp_barrier();
    unsigned aliased = 0;
    for (gex_Rank_t w = 0; w < n; w++) {
        char *region = my_base + (size_t)w * chunk;
        if (w == me || pshm) {
            CHECK_PATTERN(region, chunk, w, me);
            aliased += w != me;
        } else {
            for (size_t j = 0; j < chunk; j++) CHECK_EQ(region[j], 0); /* nobody could write */
        }
    }
    /* and the other way: the owner writes, peers read through their mapping */
    mp_fill(my_base + (size_t)n * chunk, chunk, 5000 + me, 1);
    mp_fill(g_base, 256, 6000 + me, 2);
    mp_barrier();
    for (gex_Rank_t r = 0; r < n; r++) {
        if (peer_attach[r]) CHECK_PATTERN((char *)peer_attach[r] + (size_t)n * chunk, chunk,
                                          5000 + r, 1);
        if (peer_g[r]) CHECK_PATTERN(peer_g[r], 256, 6000 + r, 2);
        if (peer_g3[r]) CHECK_PATTERN(peer_g3[r], 256, 6000 + r, 2);
    }
    /* Long regions for the next phase, set before the barrier after which
     * peers may send (their handlers run here as soon as we poll) */
    chunk_g = (size_g / n) & ~(size_t)7;
    if (chunk_g > 2048) chunk_g = 2048;
    chunk_c = (5000 / n) & ~(size_t)7;
    if (chunk_c > 512) chunk_c = 512;
    mp_barrier(); /* reads done before anyone reuses the memory */

    /* ---- AMs to created endpoints through TM-pairs ---- */
    mp_phase("AM through TM-pairs");
    char *src = malloc(2048);
    CHECK(src);
    unsigned expect_replies = 0;
    for (gex_Rank_t i = 0; i < n; i++) {
        gex_Rank_t r = (me + i) % n;
        for (gex_AM_Arg_t e = 1; e <= NEPS; e++) {
            CHECK_OK(gex_AM_RequestShort2(gex_TM_Pair(mp_ep, (gex_EP_Index_t)e), r, H_PAIR_REQ,
                                          0, (gex_AM_Arg_t)me, e));
            expect_replies++;
        }
        for (gex_AM_Arg_t e = 1; e <= 2; e++) {
            /* published segment of a peer's EP e: the Long lands in it */
            size_t ch = e == 1 ? chunk_g : chunk_c;
            char *dest = (char *)(uintptr_t)(e == 1 ? all[r].g_addr : all[r].c_addr) +
                         (size_t)me * ch;
            mp_fill(src, ch, 1000 + me, (uint32_t)e);
            gex_TM_t pair = gex_TM_Pair(mp_ep, (gex_EP_Index_t)e);
            CHECK(gex_AM_MaxRequestLong(pair, r, GEX_EVENT_NOW, 0, 2) >= ch);
            CHECK_OK(gex_AM_RequestLong2(pair, r, H_PAIR_LONG, src, ch, dest, GEX_EVENT_NOW, 0,
                                         (gex_AM_Arg_t)me, e));
            memset(src, 0xee, ch); /* GEX_EVENT_NOW: the source is free again */
            expect_replies++;
        }
    }
    MP_POLL_UNTIL(atomic_load(&pair_rep_count) == expect_replies);
    mp_barrier();
    for (unsigned e = 1; e <= NEPS; e++) CHECK_EQ(atomic_load(&pair_req_count[e]), n);
    CHECK_EQ(atomic_load(&pair_long_count[1]), n);
    CHECK_EQ(atomic_load(&pair_long_count[2]), n);
    CHECK_EQ(atomic_load(&pair_long_count[3]) + atomic_load(&pair_long_count[4]), 0);
    CHECK_EQ(atomic_load(&pair_rep_count), expect_replies);
    free(src);

    /* ---- Create / destroy 50 times: nothing accumulates ---- */
    mp_phase("create/destroy loop");
    /* one round first, so allocator set-up (ASan's, malloc arenas) is not
     * counted; /dev/shm is job-wide: count while every rank is between loops */
    {
        gex_Segment_t s = GEX_SEGMENT_INVALID;
        CHECK_OK(gex_Segment_Create(&s, mp_client, NULL, 65536, GEX_MK_HOST, 0));
        gex_Segment_Destroy(s, 0);
        char *buf = malloc(8192);
        CHECK(buf);
        CHECK_OK(gex_Segment_Create(&s, mp_client, buf, 8192, GEX_MK_HOST, 0));
        gex_Segment_Destroy(s, 0);
        free(buf);
    }
    mp_barrier();
    const unsigned shm_before = count_shm_entries(), maps_before = count_mappings();
    mp_barrier();
    const char *rounds_env = getenv("MP_SEGMENT_ROUNDS");
    const unsigned rounds = rounds_env && *rounds_env ? (unsigned)atoi(rounds_env) : 50;
    for (unsigned i = 0; i < rounds; i++) {
        gex_Segment_t s = GEX_SEGMENT_INVALID;
        uintptr_t len = 65536 + (i % 7) * 4096 + 1 + i;
        CHECK_OK(gex_Segment_Create(&s, mp_client, NULL, len, GEX_MK_HOST, 0));
        char *a = gex_Segment_QueryAddr(s);
        uintptr_t sz = gex_Segment_QuerySize(s);
        CHECK(a != NULL && sz >= len);
        CHECK_PTR_EQ(gex_Segment_QueryCData(s), NULL);
        gex_Segment_SetCData(s, &s);
        CHECK_PTR_EQ(gex_Segment_QueryCData(s), &s);
        a[0] = 1;
        a[sz - 1] = 2;
        mp_fill(a + len / 2, 64, i, me);
        CHECK_PATTERN(a + len / 2, 64, i, me);
        gex_Segment_Destroy(s, 0);
        if (i % 5 == 0) {
            char *buf = malloc(4096 + i);
            CHECK(buf);
            mp_fill(buf, 4096 + i, i, 99);
            CHECK_OK(gex_Segment_Create(&s, mp_client, buf, 4096 + i, GEX_MK_HOST, 0));
            gex_Segment_Destroy(s, 0);
            CHECK_PATTERN(buf, 4096 + i, i, 99); /* the client's memory stays as it was */
            free(buf);
        }
    }
    mp_barrier();
    const unsigned shm_after = count_shm_entries(), maps_after = count_mappings();
    CHECK_MSG(shm_after == shm_before, "/dev/shm entries of this job: %u before, %u after %u "
              "create/destroy", shm_before, shm_after, rounds);
    /* a leak would add one mapping per round; allow allocator noise */
    CHECK_MSG(maps_after <= maps_before + 10, "mappings: %u before, %u after %u create/destroy",
              maps_before, maps_after, rounds);

    /* ---- Tear down the created segments (nobody uses them any more) ---- */
    mp_barrier();
    gex_Segment_Destroy(seg_c, 0);
    gex_Segment_Destroy(seg_g, 0);
    free(c_mem);
    free(all);
    free(peer_attach);
    free(peer_g);
    free(peer_g3);
    mp_finish("attach + %d created segments on %d EPs, %u aliased regions verified, "
              "%u create/destroy (shm %u->%u, maps %u->%u)", 2, NEPS, aliased, rounds,
              shm_before, shm_after, maps_before, maps_after);
}
