/* shmem_ring.c: an OpenSHMEM 1.5 program for GEX's libgex-shmem.
 *
 *   gexshmem-cc -o shmem_ring shmem_ring.c   (or: cc ... $(pkg-config --cflags --libs gex-shmem))
 *   gexrun -n 4 ./shmem_ring
 *
 * Every PE puts its number into its right neighbour's symmetric variable,
 * adds one to a counter on PE 0 with an atomic, and the team sums the PE
 * numbers with a reduction; each PE prints what it received. */
#include <shmem.h>
#include <stdio.h>

static long from_left = -1;   /* static data is symmetric too */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *count = shmem_calloc(1, sizeof *count);   /* on the symmetric heap */
    int *mine = shmem_malloc(sizeof *mine), *sum = shmem_malloc(sizeof *sum);

    shmem_long_p(&from_left, me, (me + 1) % n);
    shmem_long_atomic_inc(count, 0);
    *mine = me;
    shmem_barrier_all();
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, sum, mine, 1);

    printf("PE %d of %d: left neighbour %ld, sum of PEs %d, count %ld\n", me, n, from_left,
           *sum, me == 0 ? *count : (long)n);
    int ok = from_left == (me + n - 1) % n && *sum == n * (n - 1) / 2 && (me || *count == n);
    shmem_free(sum);
    shmem_free(mine);
    shmem_free(count);
    shmem_finalize();
    return ok ? 0 : 1;
}
