/* Distributed locks (OpenSHMEM 1.5 section 9.11) and the deprecated cache
 * management routines (section 10).
 *
 * A lock is a symmetric long, zero when clear.  Its word on PE 0 holds the
 * owner (PE + 1) and is taken by compare-and-swap through the atomic domain,
 * so it works on every conduit and on heap or static locks alike.  Waiters
 * back off exponentially (polling meanwhile) so a contended lock does not
 * flood PE 0. */
#include "shmem_internal.h"
#include <sched.h>

#define LOCK_HOME 0

static long try_take(long *lock)
{
    return shmem_long_atomic_compare_swap(lock, 0L, (long)gexshm.my_pe + 1, LOCK_HOME);
}

void shmem_set_lock(long *lock)
{
    unsigned delay = 1;
    gexshm_require_init("shmem_set_lock");
    while (try_take(lock) != 0) {
        for (unsigned i = 0; i < delay; i++) gasnet_AMPoll();
        if (delay < 1024) delay *= 2;
        else sched_yield();
    }
    atomic_thread_fence(memory_order_acquire);
}

/* 0: the lock was clear and is now ours; 1: someone holds it. */
int shmem_test_lock(long *lock)
{
    gexshm_require_init("shmem_test_lock");
    /* a PE looping on test_lock must still serve the AM requests of the
     * others (static locks are reached through AMs, their home is PE 0) */
    gasnet_AMPoll();
    if (try_take(lock) != 0) return 1;
    atomic_thread_fence(memory_order_acquire);
    return 0;
}

/* Clearing first completes our updates (the spec: "shmem_clear_lock ...
 * ensures that all local and remote stores initiated in the critical
 * region are complete before releasing the lock"). */
void shmem_clear_lock(long *lock)
{
    gexshm_require_init("shmem_clear_lock");
    shmem_quiet();
    long me = (long)gexshm.my_pe + 1;
    long was = shmem_long_atomic_compare_swap(lock, me, 0L, LOCK_HOME);
    if (was != me)
        gexshm_fatal("shmem_clear_lock: lock %p is not held by this PE (holder: %ld)",
                     (void *)lock, was - 1);
}

/* Deprecated cache routines: GEX keeps no caches to manage. */
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }
