/*
 * rank_groups.c: rank_groups.h.  The definition is quadratic (a rank's group
 * is that of the lowest rank with its key; its index counts the lower ranks
 * with its key); at 10^5 ranks on distinct hosts that is 5 * 10^9 key
 * compares in every rank's gex_Client_Init.  Sorting (key, rank) pairs puts
 * each group in one run, in rank order, which gives both at once.
 */
#include "rank_groups.h"
#include <stdlib.h>

struct keyed_rank {
    uint64_t key;
    uint32_t rank;
};

static int by_key_then_rank(const void *a, const void *b)
{
    const struct keyed_rank *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int gexi_rank_groups(const uint64_t *keys, uint32_t n, struct gexi_rank_groups *g)
{
    struct keyed_rank *sorted = malloc((size_t)n * sizeof *sorted);
    g->group = malloc((size_t)n * sizeof *g->group);
    g->index = malloc((size_t)n * sizeof *g->index);
    if (!sorted || !g->group || !g->index) {
        free(sorted);
        gexi_rank_groups_free(g);
        return -1;
    }
    for (uint32_t r = 0; r < n; r++) sorted[r] = (struct keyed_rank){ keys[r], r };
    qsort(sorted, n, sizeof *sorted, by_key_then_rank);
    /* each run of one key: its lowest rank first */
    for (uint32_t i = 0, start = 0; i < n; i++) {
        if (sorted[i].key != sorted[start].key) start = i;
        g->group[sorted[i].rank] = sorted[start].rank;   /* for now: the run's lowest rank */
        g->index[sorted[i].rank] = i - start;
    }
    free(sorted);
    /* number the groups by their lowest rank: a rank's lowest same-key rank
     * is at or below it, so it is already renumbered when we get there */
    g->count = 0;
    for (uint32_t r = 0; r < n; r++) {
        const uint32_t lowest = g->group[r];
        g->group[r] = lowest == r ? g->count++ : g->group[lowest];
    }
    return 0;
}

void gexi_rank_groups_free(struct gexi_rank_groups *g)
{
    free(g->group);
    free(g->index);
    g->group = g->index = NULL;
}
