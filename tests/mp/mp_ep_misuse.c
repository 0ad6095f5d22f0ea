/*
 * mp_ep_misuse.c: breaks the GEX_FLAG_EP_SERIALIZED promise on purpose (two
 * threads send through one serialized endpoint at once).  Debug builds must
 * end the job with a message naming the endpoint; driven by mp_ep_misuse.sh,
 * which skips in non-debug builds (there the misuse is undefined).
 */
#include "mp_util.h"
#include <pthread.h>

static gex_EP_t ep;
static atomic_uint delivered;

static void h_nop(gex_Token_t tok) { (void)tok; atomic_fetch_add(&delivered, 1); }

static void *sender(void *arg)
{
    (void)arg;
    gex_TM_t pair = gex_TM_Pair(ep, 0);   /* from the serialized EP to EP 0 of this rank */
    for (long i = 0; i < 50000000; i++) {
        CHECK_OK(gex_AM_RequestShort0(pair, mp_me, MP_H_FIRST_FREE, 0));
        if ((i & 63) == 0) gasnet_AMPoll();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_EP_MISUSE", 0);
    gex_AM_Entry_t h = { MP_H_FIRST_FREE, (gex_AM_Fn_t)h_nop,
                         GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "nop" };
    CHECK_OK(gex_EP_RegisterHandlers(mp_ep, &h, 1));
    CHECK_OK(gex_EP_Create(&ep, mp_client, GEX_EP_CAPABILITY_ALL, GEX_FLAG_EP_SERIALIZED));
    pthread_t a, b;
    CHECK(pthread_create(&a, NULL, sender, NULL) == 0);
    CHECK(pthread_create(&b, NULL, sender, NULL) == 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    mp_finish("the concurrent use went unnoticed (%u AMs)", atomic_load(&delivered));
}
