/*
 * ad_combine.c: combining of NBI ADD/FADD on one word (the rule and why it
 * is correct: atomics_internal.h, "Combining").
 *
 * The batch lives on the heap behind one initial-exec TLS pointer, so the
 * "is anything pending?" test every atomic makes is one load; the batch is
 * allocated the first time a thread combines.  Progress (gexi_poll from any
 * wait) performs the calling thread's batch: the NBI counters a batch
 * counts in belong to that thread, so it is the thread that will wait.
 */
#include "atomics_internal.h"
#include <pthread.h>
#include <stdlib.h>

__thread struct gexi_ad_batch *gexi_ad_tls_batch __attribute__((tls_model("initial-exec")));

/* A thread that ends performs what it still holds (its NBI counter then
 * drops as if it had synced) and frees its batch: a pthread key
 * destructor, run while the thread's TLS is still valid. */
static pthread_key_t batch_key;
static int batch_key_once_failed;   /* no key: never combine (nothing to free at exit) */
static pthread_once_t batch_key_once = PTHREAD_ONCE_INIT;

static void batch_release(void *p)
{
    struct gexi_ad_batch *b = p;
    gexi_ad_batch_flush(b);
    gexi_ad_tls_batch = NULL;
    free(b);
}

static void make_batch_key(void)
{
    if (pthread_key_create(&batch_key, batch_release) != 0) batch_key_once_failed = 1;
}

void gexi_ad_batch_flush(struct gexi_ad_batch *b)
{
    const unsigned n = b->n;
    if (!n) return;
    b->n = 0;
    if (b->ad->dt_size == 4) {
        const uint32_t old = __atomic_fetch_add((uint32_t *)b->word, (uint32_t)b->sum,
                                                __ATOMIC_RELAXED);
        for (unsigned i = 0; i < n; i++)
            if (b->result[i]) {
                const uint32_t v = old + (uint32_t)b->prefix[i];
                memcpy(b->result[i], &v, 4);
            }
    } else {
        const uint64_t old = __atomic_fetch_add((uint64_t *)b->word, b->sum, __ATOMIC_RELAXED);
        for (unsigned i = 0; i < n; i++)
            if (b->result[i]) {
                const uint64_t v = old + b->prefix[i];
                memcpy(b->result[i], &v, 8);
            }
    }
    /* The client's inline path (gex/ad_fastpath.h) may serve this domain
     * again once no thread holds a batch on it. */
    __atomic_fetch_sub(&((struct gexi_ad *)b->ad)->pub.batches, 1, __ATOMIC_RELEASE);
    gexi_counter_done(b->ctr, 1);
}

int gexi_ad_combine(const struct gexi_ad *a, void *word, void *result_p, uint64_t operand)
{
    struct gexi_ad_batch *b = gexi_ad_tls_batch;
    if (GEXI_UNLIKELY(!b)) {
        if (!gexi_ad_state.combine) return 0;
        pthread_once(&batch_key_once, make_batch_key);
        if (batch_key_once_failed || !(b = calloc(1, sizeof *b))) return 0;
        pthread_setspecific(batch_key, b);
        gexi_ad_tls_batch = b;
    }
    if (b->n && (b->ad != a || b->word != word || b->n == GEXI_AD_BATCH_MAX))
        gexi_ad_batch_flush(b);
    if (!b->n) {
        /* Inside an access region every category shares the region's
         * counter: do not combine there. */
        _Atomic uint32_t *c = gexi_nbi_counter(GEX_EC_RMW);
        if (c == gexi_nbi_counter(GEX_EC_PUT)) return 0;
        atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
        b->ctr = c;
        b->ad = a;
        __atomic_fetch_add(&((struct gexi_ad *)a)->pub.batches, 1, __ATOMIC_RELAXED);
        b->word = word;
        b->sum = 0;
    }
    b->result[b->n] = result_p;
    b->prefix[b->n] = b->sum;
    b->sum += operand;
    b->n++;
    return 1;
}

void gexi_ad_combine_progress(void) { gexi_ad_flush_pending(); }
