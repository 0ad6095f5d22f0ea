/*
 * rank_groups.h: job ranks grouped by a 64-bit key (system.c: hosts, then
 * neighbourhoods), in O(n log n) for the largest jobs.  Self-contained (C11
 * only) so that tests/unit/test_rank_groups.c can compile rank_groups.c
 * alone and compare it with the obvious quadratic definition.
 */
#ifndef GEX_RANK_GROUPS_H
#define GEX_RANK_GROUPS_H

#ifndef GEXI_BUILDING_GEX
#error "rank_groups.h is internal to GEX"
#endif

#include <stdint.h>

struct gexi_rank_groups {
    uint32_t count;    /* number of distinct keys */
    /* [n]: the group of each rank; groups are numbered 0.. in the order of
     * their lowest rank (GASNet's supernode numbering) */
    uint32_t *group;
    /* [n]: how many ranks below this one have the same key */
    uint32_t *index;
};

/* Fills g for keys[0..n) (n >= 1).  Returns 0, or -1 when out of memory
 * (g then holds nothing to free). */
int gexi_rank_groups(const uint64_t *keys, uint32_t n, struct gexi_rank_groups *g);
void gexi_rank_groups_free(struct gexi_rank_groups *g);

#endif /* GEX_RANK_GROUPS_H */
