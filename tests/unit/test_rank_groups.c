/*
 * test_rank_groups.c: libgex-core's grouping of job ranks by host and
 * neighbourhood key (libgex-core/rank_groups.c, compiled into this test)
 * against the quadratic definition: a rank's group is numbered by the order
 * of the groups' lowest ranks, and its index counts the lower ranks with
 * its key.  Shapes: one rank, one group, every rank alone, a few hosts with
 * ranks interleaved or in blocks, random keys with few and with many
 * distinct values, and keys that differ only in their high bits.
 */
#include "rank_groups.h"
#include <check.h>
#include <stdlib.h>

/* The definition, as libgex-core computed it before (O(n^2)). */
static void naive(const uint64_t *keys, uint32_t n, uint32_t *group, uint32_t *index,
                  uint32_t *count)
{
    uint32_t groups = 0;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t q = 0, below = 0;
        while (keys[q] != keys[r]) q++;
        for (uint32_t p = 0; p < r; p++) below += keys[p] == keys[r];
        group[r] = q == r ? groups++ : group[q];
        index[r] = below;
    }
    *count = groups;
}

static void check_against_naive(const uint64_t *keys, uint32_t n)
{
    uint32_t *group = malloc(n * sizeof *group), *index = malloc(n * sizeof *index), count;
    ck_assert_ptr_nonnull(group);
    ck_assert_ptr_nonnull(index);
    naive(keys, n, group, index, &count);
    struct gexi_rank_groups g;
    ck_assert_int_eq(gexi_rank_groups(keys, n, &g), 0);
    ck_assert_uint_eq(g.count, count);
    for (uint32_t r = 0; r < n; r++) {
        ck_assert_msg(g.group[r] == group[r], "n=%u rank %u: group %u, want %u", n, r,
                      g.group[r], group[r]);
        ck_assert_msg(g.index[r] == index[r], "n=%u rank %u: index %u, want %u", n, r,
                      g.index[r], index[r]);
    }
    gexi_rank_groups_free(&g);
    ck_assert_ptr_null(g.group);
    free(group);
    free(index);
}

START_TEST(test_shapes)
{
    enum { N = 3000 };
    uint64_t *k = malloc(N * sizeof *k);
    ck_assert_ptr_nonnull(k);
    k[0] = 42;
    check_against_naive(k, 1);
    for (uint32_t r = 0; r < N; r++) k[r] = 7;               /* one host */
    check_against_naive(k, N);
    for (uint32_t r = 0; r < N; r++) k[r] = N - r;           /* every rank alone, keys falling */
    check_against_naive(k, N);
    for (uint32_t r = 0; r < N; r++) k[r] = (r % 5) * 1000003u;   /* round-robin hosts */
    check_against_naive(k, N);
    for (uint32_t r = 0; r < N; r++) k[r] = 99 - r / 64;     /* blocks of 64, later hosts smaller */
    check_against_naive(k, N);
    for (uint32_t r = 0; r < N; r++) k[r] = (uint64_t)(r % 3) << 63 | 5;   /* high bits only */
    check_against_naive(k, N);
    free(k);
}
END_TEST

START_TEST(test_random)
{
    enum { N = 2500 };
    uint64_t *k = malloc(N * sizeof *k);
    ck_assert_ptr_nonnull(k);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (unsigned distinct = 2; distinct <= 4096; distinct *= 8) {
        for (uint32_t n = 1; n <= N; n = n * 3 + 1) {
            for (uint32_t r = 0; r < n; r++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                k[r] = (x % distinct) * 0x100000001b3ull;
            }
            check_against_naive(k, n);
        }
    }
    free(k);
}
END_TEST

static Suite *rank_groups_suite(void)
{
    Suite *s = suite_create("rank_groups");
    TCase *tc = tcase_create("grouping");
    tcase_add_test(tc, test_shapes);
    tcase_add_test(tc, test_random);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rank_groups_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
