/*
 * hello.c: the README demo.  Every rank writes a greeting into its right
 * neighbour's segment with an AM Long, the neighbour acknowledges with a
 * Short reply, and each rank prints what it received.  Build against an
 * installed GEX with:  cc hello.c $(pkg-config --cflags --libs gex)
 * and run with:       gexrun -n 4 ./a.out
 */
#include <gasnetex.h>
#include <stdio.h>
#include <string.h>

#define H_GREET (GEX_AM_INDEX_BASE + 0)
#define H_ACK   (GEX_AM_INDEX_BASE + 1)

static volatile int greeted, acked;
static char *my_seg;

static void greet(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t from)
{
    greeted = 1;
    gex_AM_ReplyShort0(token, H_ACK, 0);
}
static void ack(gex_Token_t token) { acked = 1; }

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "HELLO", &argc, &argv, 0) != GASNET_OK) return 1;
    gex_AM_Entry_t handlers[] = {
        { H_GREET, (gex_AM_Fn_t)greet, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "greet" },
        { H_ACK, (gex_AM_Fn_t)ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "ack" },
    };
    gex_EP_RegisterHandlers(ep, handlers, 2);
    if (gex_Segment_Attach(&seg, tm, 64 * 1024) != GASNET_OK) return 1;
    my_seg = gex_Segment_QueryAddr(seg);

    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm), right = (me + 1) % n;
    void *right_seg;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, right, &right_seg, NULL, NULL, 0));
    char msg[64];
    snprintf(msg, sizeof msg, "hello from rank %u of %u", (unsigned)me, (unsigned)n);
    gex_AM_RequestLong1(tm, right, H_GREET, msg, strlen(msg) + 1, right_seg, GEX_EVENT_NOW, 0,
                        (gex_AM_Arg_t)me);
    while (!greeted || !acked) gasnet_AMPoll();
    printf("rank %u received: \"%s\"\n", (unsigned)me, my_seg);
    fflush(stdout);

    /* gasnet_exit by any rank ends the whole job, so wait for everyone first */
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    if (me == 0) printf("all %u ranks said hello\n", (unsigned)n);
    gasnet_exit(0);
}
