/*
 * hsl.c: handler-safe locks (spec: "Handler-safe locks").  A thin wrapper
 * over a pthread mutex.  Debug builds count the locks each thread holds
 * (gexi_hsl_depth), so that communication initiated while one is held is
 * diagnosed like communication from a handler (spec: "Calls from restricted
 * context"), and an unlock by a thread that holds none ends the job.
 */
#include "core_internal.h"

GEXI_EXPORT _Thread_local unsigned gexi_hsl_depth;

void gex_HSL_Init(gex_HSL_t *hsl) { pthread_mutex_init(&hsl->lock, NULL); }
void gex_HSL_Destroy(gex_HSL_t *hsl) { pthread_mutex_destroy(&hsl->lock); }
void gex_HSL_Lock(gex_HSL_t *hsl)
{
    pthread_mutex_lock(&hsl->lock);
#ifdef GEX_DEBUG
    gexi_hsl_depth++;
#endif
}
void gex_HSL_Unlock(gex_HSL_t *hsl)
{
#ifdef GEX_DEBUG
    if (!gexi_hsl_depth)
        gexi_fatal("gex_HSL_Unlock/gasnet_hsl_unlock: hsl %p is not held by the calling thread "
                   "(it holds no handler-safe lock)", (void *)hsl);
    gexi_hsl_depth--;
#endif
    pthread_mutex_unlock(&hsl->lock);
}
int gex_HSL_Trylock(gex_HSL_t *hsl)
{
    if (pthread_mutex_trylock(&hsl->lock) != 0) return GASNET_ERR_NOT_READY;
#ifdef GEX_DEBUG
    gexi_hsl_depth++;
#endif
    return GASNET_OK;
}
