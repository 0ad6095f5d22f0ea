/*
 * lastwords.c: every rank waits in a barrier, prints one line (without
 * flushing) and ends, for tests/compat/test_exit_output.sh.
 *   lastwords return   returns 0 from main
 *   lastwords exit     calls gasnet_exit(0)
 *   lastwords nonl     prints without a newline, then gasnet_exit(0)
 *   lastwords poll     the last rank calls gasnet_exit(0); the others wait in
 *                      a gasnet_AMPoll loop that naps 10 ms between polls
 * The first rank out of the barrier starts the end of the job while the
 * others may still be waiting in it: their lines must not be lost.
 */
#include <gasnetex.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    if (gex_Client_Init(&client, &ep, &tm, "lastwords", &argc, &argv, 0) != GASNET_OK) return 3;
    const char *how = argc > 1 ? argv[1] : "return";
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    printf("rank %u of %u: last words%s", (unsigned)gex_TM_QueryRank(tm),
           (unsigned)gex_TM_QuerySize(tm), strcmp(how, "nonl") ? "\n" : ";");
    if (!strcmp(how, "poll") && gex_TM_QueryRank(tm) + 1 < gex_TM_QuerySize(tm)) {
        for (int i = 0; i < 3000; i++) {   /* 30 s: far beyond the job's end */
            gasnet_AMPoll();
            struct timespec nap = { 0, 10000000 };
            nanosleep(&nap, NULL);
        }
        return 5;
    }
    if (strcmp(how, "return")) gasnet_exit(0);
    return 0;
}
