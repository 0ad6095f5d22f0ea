/* shmem_team.c (OpenSHMEM 1.5 only): teams.
 * Checks SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED (my_pe/n_pes, translation to
 * the world), shmem_team_split_strided (even PEs, odd PEs, a single PE, a
 * stride larger than the team so only the start PE is in it), split_2d (x and
 * y teams, their sizes and ranks), translate_pe (both ways, -1 for non
 * members), get_config, team_sync, destroy, collectives on the new teams, and
 * team contexts (shmem_team_create_ctx): PE numbers given to RMA/AMO on such a
 * context are team-relative.  Built against a 1.4 library it exits 77. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me = -1, npes = -1;

static void fail(const char *what, long long got, long long exp)
{
    printf("FAIL: %s (pe %d): got %lld expected %lld\n", what, me, got, exp);
    fflush(stdout);
    shmem_global_exit(1);
    exit(1);
}
#define CHECK(what, got, exp)                                          \
    do {                                                               \
        long long g_ = (long long)(got), e_ = (long long)(exp);        \
        if (g_ != e_) fail(what, g_, e_);                              \
    } while (0)

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
static long box[64];
static long sums[8];

/* checks a strided team: start, stride, size in world numbering */
static void check_strided(shmem_team_t t, int start, int stride, int size, const char *name)
{
    char w[120];
    int member = me >= start && (me - start) % stride == 0 && (me - start) / stride < size;
    if (!member) {
        snprintf(w, sizeof w, "%s: non-member gets SHMEM_TEAM_INVALID", name);
        CHECK(w, t == SHMEM_TEAM_INVALID, 1);
        return;
    }
    int idx = (me - start) / stride;
    snprintf(w, sizeof w, "%s team_my_pe", name);
    CHECK(w, shmem_team_my_pe(t), idx);
    snprintf(w, sizeof w, "%s team_n_pes", name);
    CHECK(w, shmem_team_n_pes(t), size);
    for (int k = 0; k < size; k++) {
        snprintf(w, sizeof w, "%s translate_pe %d -> world", name, k);
        CHECK(w, shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD), start + k * stride);
        snprintf(w, sizeof w, "%s translate_pe world -> team", name);
        CHECK(w, shmem_team_translate_pe(SHMEM_TEAM_WORLD, start + k * stride, t), k);
    }
    for (int pe = 0; pe < npes; pe++) {
        int in = pe >= start && (pe - start) % stride == 0 && (pe - start) / stride < size;
        if (!in) {
            snprintf(w, sizeof w, "%s translate_pe of non-member world PE %d", name, pe);
            CHECK(w, shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, t), -1);
        }
    }
    snprintf(w, sizeof w, "%s translate_pe out of range", name);
    CHECK(w, shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD), -1);
    shmem_team_sync(t);
    /* a reduction over the team: sum of world PE numbers */
    long mine = me, got = -1;
    static long rsrc, rdst;
    rsrc = mine;
    shmem_team_sync(t);
    snprintf(w, sizeof w, "%s long_sum_reduce rc", name);
    CHECK(w, shmem_long_sum_reduce(t, &rdst, &rsrc, 1), 0);
    got = rdst;
    long exp = 0;
    for (int k = 0; k < size; k++) exp += start + k * stride;
    snprintf(w, sizeof w, "%s long_sum_reduce", name);
    CHECK(w, got, exp);
    /* team context: PE numbers are team-relative */
    shmem_ctx_t ctx;
    snprintf(w, sizeof w, "%s team_create_ctx rc", name);
    CHECK(w, shmem_team_create_ctx(t, 0, &ctx), 0);
    shmem_team_t back = SHMEM_TEAM_INVALID;
    snprintf(w, sizeof w, "%s ctx_get_team rc", name);
    CHECK(w, shmem_ctx_get_team(ctx, &back), 0);
    snprintf(w, sizeof w, "%s ctx_get_team gives the team", name);
    CHECK(w, back == t, 1);
    for (int i = 0; i < 64; i++) box[i] = -1;
    shmem_team_sync(t);
    int tright = (idx + 1) % size;
    long val = 5000 + me;
    shmem_ctx_long_put(ctx, &box[idx], &val, 1, tright);
    shmem_ctx_long_atomic_add(ctx, &box[63], 1, 0);    /* team PE 0 */
    shmem_ctx_quiet(ctx);
    shmem_team_sync(t);
    int tleft = (idx + size - 1) % size;
    snprintf(w, sizeof w, "%s put on team ctx lands on team-relative PE", name);
    CHECK(w, box[tleft], 5000 + shmem_team_translate_pe(t, tleft, SHMEM_TEAM_WORLD));
    if (idx == 0) {
        snprintf(w, sizeof w, "%s atomic_add on team ctx to team PE 0", name);
        CHECK(w, box[63], -1 + size);
    }
    snprintf(w, sizeof w, "%s g on team ctx", name);
    CHECK(w, shmem_ctx_long_g(ctx, &box[tleft == idx ? idx : (tleft + size - 1) % size], tleft) , size == 1 ? 5000 + me : 5000 + shmem_team_translate_pe(t, (tleft + size - 1) % size, SHMEM_TEAM_WORLD));
    shmem_team_sync(t);
    shmem_ctx_destroy(ctx);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    char w[120];

    CHECK("world team_my_pe", shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK("world team_n_pes", shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    int smy = shmem_team_my_pe(SHMEM_TEAM_SHARED), sn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    if (sn < 1 || sn > npes) fail("shared team_n_pes in 1..n_pes", sn, 1);
    if (smy < 0 || smy >= sn) fail("shared team_my_pe in range", smy, 0);
    CHECK("shared -> world translation of myself", shmem_team_translate_pe(SHMEM_TEAM_SHARED, smy, SHMEM_TEAM_WORLD), me);
    /* heap memory of SHMEM_TEAM_SHARED members is load/store accessible
     * (static data need not be, so the check uses a heap object) */
    long *hobj = shmem_malloc(sizeof(long));
    for (int k = 0; k < sn; k++) {
        int wpe = shmem_team_translate_pe(SHMEM_TEAM_SHARED, k, SHMEM_TEAM_WORLD);
        if (wpe < 0 || wpe >= npes) fail("shared member translates to a world PE", wpe, 0);
        /* members of the shared team are directly load/store accessible */
        CHECK("shmem_ptr to a shared-team member's heap non-NULL", shmem_ptr(hobj, wpe) != NULL, 1);
    }
    shmem_free(hobj);
    CHECK("translate_pe invalid team", shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
    CHECK("team_my_pe invalid team", shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    CHECK("team_n_pes invalid team", shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);

    /* split_strided: even, odd, single PE, stride larger than the team */
    shmem_team_t even, odd = SHMEM_TEAM_INVALID, single, big;
    shmem_team_config_t conf = {0};
    conf.num_contexts = 2;
    CHECK("split even rc", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &conf, SHMEM_TEAM_NUM_CONTEXTS, &even), 0);
    check_strided(even, 0, 2, (npes + 1) / 2, "even");
    if (even != SHMEM_TEAM_INVALID) {
        shmem_team_config_t got;
        memset(&got, 0, sizeof got);
        CHECK("team_get_config rc", shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
        CHECK("team_get_config num_contexts", got.num_contexts, 2);
    }
    if (npes >= 2) {
        CHECK("split odd rc", shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd), 0);
        check_strided(odd, 1, 2, npes / 2, "odd");
    }
    CHECK("split single rc", shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, 1, 1, NULL, 0, &single), 0);
    check_strided(single, npes - 1, 1, 1, "single");
    CHECK("split big-stride rc", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, npes + 3, 1, NULL, 0, &big), 0);
    check_strided(big, 0, npes + 3, 1, "big stride");
    /* a team split from a split team: the even PEs of the even team */
    if (even != SHMEM_TEAM_INVALID) {
        shmem_team_t sub;
        int esz = (npes + 1) / 2;
        CHECK("split of a split rc", shmem_team_split_strided(even, 0, 2, (esz + 1) / 2, NULL, 0, &sub), 0);
        int eidx = shmem_team_my_pe(even);
        if (eidx % 2 == 0) {
            CHECK("split of a split my_pe", shmem_team_my_pe(sub), eidx / 2);
            CHECK("split of a split translate to world", shmem_team_translate_pe(sub, shmem_team_my_pe(sub), SHMEM_TEAM_WORLD), me);
            CHECK("split of a split translate to parent", shmem_team_translate_pe(sub, 0, even), 0);
            shmem_team_sync(sub);
            shmem_team_destroy(sub);
        } else CHECK("split of a split non-member", sub == SHMEM_TEAM_INVALID, 1);
    }
    shmem_barrier_all();

    /* split_2d: xrange 2 */
    shmem_team_t xt, yt;
    int xr = npes >= 2 ? 2 : 1;
    CHECK("split_2d rc", shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &xt, NULL, 0, &yt), 0);
    int ysz = (npes + xr - 1) / xr;
    CHECK("2d x team_my_pe", shmem_team_my_pe(xt), me % xr);
    int xsz = (me / xr == ysz - 1 && npes % xr) ? npes % xr : xr;
    CHECK("2d x team_n_pes", shmem_team_n_pes(xt), xsz);
    CHECK("2d y team_my_pe", shmem_team_my_pe(yt), me / xr);
    int ycount = 0;
    for (int pe = me % xr; pe < npes; pe += xr) ycount++;
    CHECK("2d y team_n_pes", shmem_team_n_pes(yt), ycount);
    CHECK("2d y translate_pe", shmem_team_translate_pe(yt, 0, SHMEM_TEAM_WORLD), me % xr);
    static long xs, xd;
    xs = me;
    shmem_team_sync(xt);
    CHECK("2d x sum_reduce rc", shmem_long_sum_reduce(xt, &xd, &xs, 1), 0);
    long ex = 0;
    for (int k = 0; k < xsz; k++) ex += (me / xr) * xr + k;
    CHECK("2d x sum_reduce", xd, ex);
    shmem_team_sync(yt);
    CHECK("2d y sum_reduce rc", shmem_long_sum_reduce(yt, &xd, &xs, 1), 0);
    ex = 0;
    for (int pe = me % xr; pe < npes; pe += xr) ex += pe;
    CHECK("2d y sum_reduce", xd, ex);

    /* destroy and split again, many times (no leak of team resources) */
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
    if (odd != SHMEM_TEAM_INVALID) shmem_team_destroy(odd);
    if (single != SHMEM_TEAM_INVALID) shmem_team_destroy(single);
    if (big != SHMEM_TEAM_INVALID) shmem_team_destroy(big);
    for (int r = 0; r < 40; r++) {
        shmem_team_t t;
        snprintf(w, sizeof w, "split/destroy round %d rc", r);
        CHECK(w, shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
        sums[0] = me;
        shmem_team_sync(t);
        CHECK(w, shmem_long_sum_reduce(t, &sums[1], &sums[0], 1), 0);
        snprintf(w, sizeof w, "split/destroy round %d sum", r);
        CHECK(w, sums[1], (long)npes * (npes - 1) / 2);
        shmem_team_destroy(t);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
#else
int main(void)
{
    printf("SKIP: shmem_team needs OpenSHMEM 1.5 (header says %d.%d)\n", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    return 77;
}
#endif
