/* shmem_ctx.c: communication contexts and threads.
 * Checks shmem_ctx_create with options 0, SHMEM_CTX_PRIVATE,
 * SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE (return 0), put/get/p/g/nbi and
 * AMOs on each context, ctx_fence ordering, ctx_quiet completion,
 * ctx_destroy; (1.5) shmem_ctx_get_team of SHMEM_CTX_DEFAULT and of a created
 * context is SHMEM_TEAM_WORLD; with SHMEM_THREAD_MULTIPLE (when provided)
 * two threads per PE, each on its own private context doing puts + ctx_quiet,
 * then both threads sharing SHMEM_CTX_DEFAULT with puts and fetch_adds; exact
 * data and count checks. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "shmem_check.h"

#define NT 2
#define NPUT 500
static long data[4][1024];
static long flag[4];
static long tdata[NT][NPUT];
static long counter;
static long sdata[NT][NPUT];

static void ctx_basic(long opts, const char *name)
{
    char w[120];
    shmem_ctx_t ctx;
    snprintf(w, sizeof w, "ctx_create(%s) rc", name);
    CHECK(w, shmem_ctx_create(opts, &ctx), 0);
#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
    shmem_team_t t = SHMEM_TEAM_INVALID;
    snprintf(w, sizeof w, "ctx_get_team(%s) rc", name);
    CHECK(w, shmem_ctx_get_team(ctx, &t), 0);
    snprintf(w, sizeof w, "ctx_get_team(%s) is world", name);
    CHECK(w, t == SHMEM_TEAM_WORLD, 1);
#endif
    long buf[1024];
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < 1024; i++) { data[0][i] = -1; buf[i] = rep * 100000L + me * 1000L + i; }
        flag[0] = 0;
        shmem_barrier_all();
        shmem_ctx_long_put(ctx, data[0], buf, 1000, right);
        shmem_ctx_fence(ctx);
        shmem_ctx_long_p(ctx, &flag[0], rep + 1, right);
        shmem_long_wait_until(&flag[0], SHMEM_CMP_EQ, rep + 1);
        snprintf(w, sizeof w, "ctx %s put+fence+p data (rep %d)", name, rep);
        for (int i = 0; i < 1000; i++) if (data[0][i] != rep * 100000L + left * 1000L + i) CHECK(w, data[0][i], rep * 100000L + left * 1000L + i);
        CHECK(w, data[0][1000], -1);
        shmem_barrier_all();
        shmem_ctx_long_put_nbi(ctx, data[1], buf, 700, right);
        shmem_ctx_quiet(ctx);
        shmem_ctx_long_atomic_add(ctx, &flag[1], 1, right);
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
        snprintf(w, sizeof w, "ctx %s put_nbi+quiet data (rep %d)", name, rep);
        for (int i = 0; i < 700; i++) if (data[1][i] != rep * 100000L + left * 1000L + i) CHECK(w, data[1][i], rep * 100000L + left * 1000L + i);
        snprintf(w, sizeof w, "ctx %s atomic_add count (rep %d)", name, rep);
        CHECK(w, flag[1], rep + 1);
        long got[700];
        shmem_ctx_long_get(ctx, got, data[1], 700, right);
        snprintf(w, sizeof w, "ctx %s get (rep %d)", name, rep);
        for (int i = 0; i < 700; i++) if (got[i] != rep * 100000L + me * 1000L + i) CHECK(w, got[i], rep * 100000L + me * 1000L + i);
        shmem_ctx_long_get_nbi(ctx, got, data[0], 5, left);
        shmem_ctx_quiet(ctx);
        CHECK(w, got[4], rep * 100000L + ((left + npes - 1) % npes) * 1000L + 4);
        snprintf(w, sizeof w, "ctx %s g / fetch_add / compare_swap (rep %d)", name, rep);
        CHECK(w, shmem_ctx_long_g(ctx, &flag[0], right), rep + 1);
        long old = shmem_ctx_long_atomic_fetch_add(ctx, &flag[2], 10, right);
        CHECK(w, old, rep * 10);
        CHECK(w, shmem_ctx_long_atomic_compare_swap(ctx, &flag[3], rep, rep + 1, right), rep);
        shmem_barrier_all();
    }
    flag[1] = flag[2] = flag[3] = 0;
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
}

static shmem_ctx_t tctx[NT];

static void *thread_private(void *arg)
{
    int t = (int)(long)arg;
    long v[NPUT];
    /* a private context belongs to the thread that creates it */
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &tctx[t]) != 0) fail("ctx_create(PRIVATE) in a thread", 1, 0);
    for (int i = 0; i < NPUT; i++) v[i] = (long)t * 1000000 + me * 1000 + i;
    /* element by element and in one block, all on this thread's context */
    for (int i = 0; i < NPUT / 2; i++) shmem_ctx_long_p(tctx[t], &tdata[t][i], v[i], right);
    shmem_ctx_long_put_nbi(tctx[t], &tdata[t][NPUT / 2], &v[NPUT / 2], NPUT - NPUT / 2, right);
    shmem_ctx_quiet(tctx[t]);
    shmem_ctx_destroy(tctx[t]);
    return NULL;
}

static void *thread_default(void *arg)
{
    int t = (int)(long)arg;
    long v[NPUT];
    for (int i = 0; i < NPUT; i++) v[i] = (long)t * 7000000 + me * 1000 + i;
    for (int i = 0; i < NPUT; i += 50) shmem_long_put(&sdata[t][i], &v[i], 50, right);
    for (int i = 0; i < 100; i++) shmem_long_atomic_fetch_add(&counter, 1, 0);
    return NULL;
}

int main(void)
{
    int provided = -1;
    CHECK("shmem_init_thread rc", shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
    shmem_team_t dt = SHMEM_TEAM_INVALID;
    CHECK("ctx_get_team(SHMEM_CTX_DEFAULT) rc", shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &dt), 0);
    CHECK("ctx_get_team(SHMEM_CTX_DEFAULT) is world", dt == SHMEM_TEAM_WORLD, 1);
#endif
    ctx_basic(0, "0");
    ctx_basic(SHMEM_CTX_PRIVATE, "PRIVATE");
    ctx_basic(SHMEM_CTX_SERIALIZED, "SERIALIZED");
    ctx_basic(SHMEM_CTX_NOSTORE, "NOSTORE");
    ctx_basic(SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE, "PRIVATE|NOSTORE");

    /* many contexts alive at once */
    shmem_ctx_t many[8];
    int nmany = 0;
    for (int i = 0; i < 8; i++) if (shmem_ctx_create(0, &many[nmany]) == 0) nmany++;
    if (nmany < 1) fail("at least one extra context", nmany, 8);
    for (int i = 0; i < nmany; i++) shmem_ctx_long_p(many[i], &data[2][i], 100 + i + me, right);
    for (int i = 0; i < nmany; i++) shmem_ctx_quiet(many[i]);
    shmem_barrier_all();
    for (int i = 0; i < nmany; i++) CHECK("put on one of many contexts", data[2][i], 100 + i + left);
    for (int i = 0; i < nmany; i++) shmem_ctx_destroy(many[i]);
    shmem_barrier_all();

    if (provided == SHMEM_THREAD_MULTIPLE) {
        pthread_t th[NT];
        for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, thread_private, (void *)(long)t);
        for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
        shmem_barrier_all();
        for (int t = 0; t < NT; t++)
            for (int i = 0; i < NPUT; i++)
                if (tdata[t][i] != (long)t * 1000000 + left * 1000 + i) CHECK("thread context put", tdata[t][i], (long)t * 1000000 + left * 1000 + i);
        counter = 0;
        shmem_barrier_all();
        for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, thread_default, (void *)(long)t);
        for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
        shmem_barrier_all();
        for (int t = 0; t < NT; t++)
            for (int i = 0; i < NPUT; i++)
                if (sdata[t][i] != (long)t * 7000000 + left * 1000 + i) CHECK("threads sharing the default context: put", sdata[t][i], (long)t * 7000000 + left * 1000 + i);
        if (me == 0) CHECK("threads sharing the default context: fetch_add count", counter, (long)npes * NT * 100);
    } else if (me == 0) {
        printf("note: SHMEM_THREAD_MULTIPLE not provided (got %d): thread part skipped\n", provided);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
