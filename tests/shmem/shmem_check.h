/* shmem_check.h: what the tests/shmem programs share: this PE's place in
 * the ring (set by each program after shmem_init) and the check that ends
 * the whole job with "FAIL: <what> (pe N): got X expected Y".  Plain
 * OpenSHMEM, so the programs still build with another implementation
 * (tests/shmem/run-oshmem.sh). */
#ifndef SHMEM_CHECK_H
#define SHMEM_CHECK_H
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static int me = -1, npes = -1, right = -1, left = -1;

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
#endif
