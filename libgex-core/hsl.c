/*
 * hsl.c: handler-safe locks (spec: "Handler-safe locks").  A thin wrapper
 * over a pthread mutex; the spec's restrictions (no communication while
 * held) are the client's to honour.
 */
#include "core_internal.h"

void gex_HSL_Init(gex_HSL_t *hsl) { pthread_mutex_init(&hsl->lock, NULL); }
void gex_HSL_Destroy(gex_HSL_t *hsl) { pthread_mutex_destroy(&hsl->lock); }
void gex_HSL_Lock(gex_HSL_t *hsl) { pthread_mutex_lock(&hsl->lock); }
void gex_HSL_Unlock(gex_HSL_t *hsl) { pthread_mutex_unlock(&hsl->lock); }
int gex_HSL_Trylock(gex_HSL_t *hsl)
{
    return pthread_mutex_trylock(&hsl->lock) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
