/* shmem_team.c: OpenSHMEM 1.5 teams ("Team Management Routines").
 *
 * A team is a set of world PEs (struct gexshm_team, shmem_internal.h) plus
 * a GEX team over exactly those PEs, made by gex_TM_Split over the parent's
 * GEX team; the collectives of shmem_coll.c run on that GEX team.  Every
 * split is collective over the parent, as gex_TM_Split is, so each split
 * here is one gex_TM_Split per new team dimension; non-members take part
 * with a NULL new_tm_p (GEX: "callers passing NULL for new_tm_p do not
 * participate in team creation") and receive SHMEM_TEAM_INVALID.
 *
 * The predefined teams are static objects: WORLD is the world GEX team,
 * SHARED the PEs of this PE's GEX neighbourhood (the processes whose
 * shared memory is mapped here, i.e. what shmem_ptr can reach). */
#include "shmem_internal.h"

#include <stdlib.h>
#include <string.h>

struct gexshm_team gexshm_team_world;
struct gexshm_team gexshm_team_shared;

static void *team_alloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) gexshm_fatal("out of memory allocating a team (%zu bytes)", n);
    return p;
}

/* Records start/stride when pes[] is an arithmetic progression, so
 * translations need no search. */
static void team_set_strided(struct gexshm_team *t)
{
    t->start = t->pes[0];
    t->stride = t->n_pes > 1 ? t->pes[1] - t->pes[0] : 1;
    t->strided = 1;
    for (int i = 1; i < t->n_pes; i++)
        if (t->pes[i] != t->start + i * t->stride) {
            t->strided = 0;
            break;
        }
}

/* Team PE number of world PE `wpe` in `t`, or -1 if not a member. */
static int team_of_world(const struct gexshm_team *t, int wpe)
{
    if (t->strided) {
        int d = wpe - t->start;
        if (d % t->stride != 0) return -1;   /* stride != 0: see team_set_strided */
        int i = d / t->stride;
        return i >= 0 && i < t->n_pes ? i : -1;
    }
    for (int i = 0; i < t->n_pes; i++)
        if (t->pes[i] == wpe) return i;
    return -1;
}

/* Only SHMEM_TEAM_NUM_CONTEXTS exists in 1.5; fields not in the mask take
 * their defaults (num_contexts = 0). */
static void team_set_config(struct gexshm_team *t, const shmem_team_config_t *config, long mask)
{
    memset(&t->config, 0, sizeof t->config);
    t->config_mask = 0;
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS)) {
        t->config.num_contexts = config->num_contexts;
        t->config_mask |= SHMEM_TEAM_NUM_CONTEXTS;
    }
}

/* The team object of the parent PEs start + i*stride, i < size, over the
 * GEX team `tm` that the caller (one of them) just received. */
static struct gexshm_team *team_new(const struct gexshm_team *parent, int start, int stride,
                                    int size, gex_TM_t tm, const shmem_team_config_t *config,
                                    long mask)
{
    struct gexshm_team *t = team_alloc(sizeof *t);
    t->tm = tm;
    t->n_pes = size;
    t->my_pe = (int)gex_TM_QueryRank(tm);
    if ((int)gex_TM_QuerySize(tm) != size)
        gexshm_fatal("team split: GEX team has %u members, expected %d",
                     (unsigned)gex_TM_QuerySize(tm), size);
    t->pes = team_alloc((size_t)size * sizeof *t->pes);
    for (int i = 0; i < size; i++) t->pes[i] = parent->pes[start + i * stride];
    team_set_strided(t);
    team_set_config(t, config, mask);
    return t;
}

void gexshm_team_init(void)
{
    struct gexshm_team *w = &gexshm_team_world, *s = &gexshm_team_shared;

    memset(w, 0, sizeof *w);
    w->tm = gexshm.tm;
    w->my_pe = gexshm.my_pe;
    w->n_pes = gexshm.n_pes;
    w->pes = team_alloc((size_t)w->n_pes * sizeof *w->pes);
    for (int i = 0; i < w->n_pes; i++) w->pes[i] = i;
    team_set_strided(w);

    /* SHARED: one GEX team per neighbourhood (the nbrhd rank is the same
     * for all its members and distinct between nbrhds: a valid color);
     * key = world PE keeps world order. */
    gex_Rank_t nbrhd = 0;
    gex_System_QueryMyPosition(NULL, &nbrhd, NULL, NULL);
    memset(s, 0, sizeof *s);
    gex_TM_Split(&s->tm, gexshm.tm, (int)nbrhd, gexshm.my_pe, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    s->n_pes = (int)gex_TM_QuerySize(s->tm);
    s->my_pe = (int)gex_TM_QueryRank(s->tm);
    s->pes = team_alloc((size_t)s->n_pes * sizeof *s->pes);
    for (int i = 0; i < s->n_pes; i++)
        s->pes[i] = (int)gex_TM_TranslateJobrankToRank(
            gexshm.tm, gex_TM_TranslateRankToJobrank(s->tm, (gex_Rank_t)i));
    team_set_strided(s);
}

void gexshm_team_fini(void)
{
    if (gexshm_team_shared.tm) gex_TM_Destroy(gexshm_team_shared.tm, NULL, 0);
    free(gexshm_team_shared.pes);
    free(gexshm_team_world.pes);
    memset(&gexshm_team_shared, 0, sizeof gexshm_team_shared);
    memset(&gexshm_team_world, 0, sizeof gexshm_team_world);
}

/* ---- queries ---- */

int shmem_team_my_pe(shmem_team_t team)
{
    return team == SHMEM_TEAM_INVALID ? -1 : gexshm_team(team)->my_pe;
}

int shmem_team_n_pes(shmem_team_t team)
{
    return team == SHMEM_TEAM_INVALID ? -1 : gexshm_team(team)->n_pes;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (team == SHMEM_TEAM_INVALID || !config) return -1;
    const struct gexshm_team *t = gexshm_team(team);
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = t->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID) return -1;
    const struct gexshm_team *s = gexshm_team(src_team);
    if (src_pe < 0 || src_pe >= s->n_pes) return -1;
    return team_of_world(gexshm_team(dest_team), s->pes[src_pe]);
}

/* ---- splits ---- */

/* Spec: start + i*stride must be a parent PE for every i < size; stride
 * may be negative (reversed order), and 0 only with size 1.  The arguments
 * are the same on every parent PE, so all of them reach the same verdict
 * without communicating. */
static int triplet_ok(int n, int start, int stride, int size)
{
    if (size < 1 || start < 0 || start >= n) return 0;
    if (size == 1) return 1;
    if (stride == 0) return 0;
    long long last = (long long)start + (long long)(size - 1) * stride;
    return last >= 0 && last < n;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    gexshm_require_init("shmem_team_split_strided");
    if (new_team) *new_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID || !new_team) return -1;
    const struct gexshm_team *p = gexshm_team(parent_team);
    if (!triplet_ok(p->n_pes, start, stride, size)) return -1;

    /* My index in the new team, or -1. */
    int d = p->my_pe - start, idx = -1;
    if (size == 1 || stride == 0) idx = d == 0 ? 0 : -1;
    else if (d % stride == 0 && d / stride >= 0 && d / stride < size) idx = d / stride;

    gex_TM_t tm = GEX_TM_INVALID;
    gex_TM_Split(idx >= 0 ? &tm : NULL, p->tm, 0, idx, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    if (idx >= 0)
        *new_team = (shmem_team_t)team_new(p, start, size == 1 ? 1 : stride, size, tm, config,
                                           config_mask);
    return 0;
}

/* Parent PE p sits at (x, y) = (p % xrange, p / xrange): the x team is
 * its row (consecutive parent PEs), the y team its column.  Two splits,
 * in the same order on every parent PE. */
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team,
                        const shmem_team_config_t *yaxis_config, long yaxis_mask,
                        shmem_team_t *yaxis_team)
{
    gexshm_require_init("shmem_team_split_2d");
    if (xaxis_team) *xaxis_team = SHMEM_TEAM_INVALID;
    if (yaxis_team) *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID || xrange < 1 || !xaxis_team || !yaxis_team)
        return -1;
    const struct gexshm_team *p = gexshm_team(parent_team);
    int n = p->n_pes;
    if (xrange > n) xrange = n;
    int x = p->my_pe % xrange, y = p->my_pe / xrange;

    gex_TM_t xtm, ytm;
    gex_TM_Split(&xtm, p->tm, y, x, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    int xsize = n - y * xrange < xrange ? n - y * xrange : xrange;
    *xaxis_team = (shmem_team_t)team_new(p, y * xrange, 1, xsize, xtm, xaxis_config, xaxis_mask);

    gex_TM_Split(&ytm, p->tm, x, y, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    int ysize = (n - x + xrange - 1) / xrange;
    *yaxis_team = (shmem_team_t)team_new(p, x, xrange, ysize, ytm, yaxis_config, yaxis_mask);
    return 0;
}

/* Destroying a predefined team is undefined in the spec: ignored here.
 * No synchronization is needed: every collective on the team completed
 * locally before it returned, and gex_TM_Destroy needs no more. */
void shmem_team_destroy(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID || team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        return;
    struct gexshm_team *t = gexshm_team(team);
    gex_TM_Destroy(t->tm, NULL, 0);
    free(t->pes);
    free(t->scratch);
    free(t);
}
