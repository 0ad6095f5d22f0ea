/*
 * hsl.c: handler-safe locks (spec: "Handler-safe locks").  A thin wrapper
 * over a pthread mutex.  Debug builds count the locks each thread holds
 * (gexi_hsl_depth), so that communication initiated while one is held is
 * diagnosed like communication from a handler (spec: "Calls from restricted
 * context"), and remember which ones, so that locking an HSL the thread
 * already holds (a silent deadlock otherwise) or unlocking one it does not
 * hold ends the job with a message.  Release builds: the bare mutex.
 */
#include "core_internal.h"

GEXI_EXPORT _Thread_local unsigned gexi_hsl_depth;

#ifdef GEX_DEBUG
/* Debug builds: which HSLs the calling thread holds (the first
 * GEXI_HSL_TRACKED of them; gexi_hsl_depth counts all), kept per thread so
 * that the public gex_HSL_t stays a bare mutex (its layout is ABI).  A
 * default pthread mutex locked again by its owner deadlocks silently; the
 * list turns that into a message, and tells an unlock of an HSL the thread
 * does not hold even while it holds another. */
#define GEXI_HSL_TRACKED 16
static _Thread_local gex_HSL_t *hsl_held[GEXI_HSL_TRACKED];
static _Thread_local unsigned hsl_n_held;   /* entries of hsl_held in use */

static int hsl_find(const gex_HSL_t *hsl)
{
    for (unsigned i = 0; i < hsl_n_held; i++)
        if (hsl_held[i] == hsl) return (int)i;
    return -1;
}
static void hsl_push(gex_HSL_t *hsl)
{
    if (hsl_n_held < GEXI_HSL_TRACKED) hsl_held[hsl_n_held++] = hsl;
    gexi_hsl_depth++;
}
#endif

void gex_HSL_Init(gex_HSL_t *hsl) { pthread_mutex_init(&hsl->lock, NULL); }
void gex_HSL_Destroy(gex_HSL_t *hsl) { pthread_mutex_destroy(&hsl->lock); }
void gex_HSL_Lock(gex_HSL_t *hsl)
{
#ifdef GEX_DEBUG
    if (hsl_find(hsl) >= 0)
        gexi_fatal("gex_HSL_Lock/gasnet_hsl_lock: hsl %p is already held by the calling thread "
                   "(handler-safe locks are not recursive: locking it again would deadlock)",
                   (void *)hsl);
#endif
    pthread_mutex_lock(&hsl->lock);
#ifdef GEX_DEBUG
    hsl_push(hsl);
#endif
}
void gex_HSL_Unlock(gex_HSL_t *hsl)
{
#ifdef GEX_DEBUG
    if (!gexi_hsl_depth)
        gexi_fatal("gex_HSL_Unlock/gasnet_hsl_unlock: hsl %p is not held by the calling thread "
                   "(it holds no handler-safe lock)", (void *)hsl);
    const int i = hsl_find(hsl);
    /* not listed: an error unless the thread holds more HSLs than the list
     * keeps (then it may be one of the untracked ones) */
    if (i < 0 && gexi_hsl_depth <= hsl_n_held)
        gexi_fatal("gex_HSL_Unlock/gasnet_hsl_unlock: hsl %p is not held by the calling thread "
                   "(it holds %u other handler-safe lock%s)", (void *)hsl, gexi_hsl_depth,
                   gexi_hsl_depth == 1 ? "" : "s");
    if (i >= 0) hsl_held[i] = hsl_held[--hsl_n_held];
    gexi_hsl_depth--;
#endif
    pthread_mutex_unlock(&hsl->lock);
}
int gex_HSL_Trylock(gex_HSL_t *hsl)
{
    /* (a Trylock of an HSL the thread holds fails like any busy one: no
     * deadlock, so no diagnostic) */
    if (pthread_mutex_trylock(&hsl->lock) != 0) return GASNET_ERR_NOT_READY;
#ifdef GEX_DEBUG
    hsl_push(hsl);
#endif
    return GASNET_OK;
}
