/*
 * hsl_misuse.c: a GASNet-1 client (gasnet.h) that breaks one handler-safe
 * lock rule, chosen by argv[1]; tests/compat/test_hsl_misuse.sh checks that
 * debug builds end the job with status 1 and a message naming the rule.
 * Spec (GASNet-EX.txt, "Calls from restricted context"): "All other functions
 * are prohibited to be called from a thread within the dynamic context of an
 * AM handler, or while holding a handler-safe lock", and Replies are allowed
 * only to a Request handler "not holding a handler-safe lock".
 *   legal          lock, trylock, unlock, then communicate: exits 0 (every build)
 *   unlock-unheld  gasnet_hsl_unlock of a lock this thread does not hold
 *   unlock-other   the same while the thread holds another HSL
 *   relock         gasnet_hsl_lock of a lock this thread already holds (a
 *                  silent deadlock before: HSLs are not recursive)
 *   relock-deep    gex_HSL_Lock of the first of 20 HSLs the thread holds
 *                  (more than debug builds track per thread: unchecked
 *                  beyond that, but the first ones still are)
 *   am-under-hsl   gasnet_AMRequestShort0 while holding an HSL
 *   reply-under-hsl  gasnet_AMReplyShort0 from a Request handler holding an HSL
 *   put-under-hsl  gasnet_put while holding an HSL
 *   poll-under-hsl GASNET_BLOCKUNTIL (gasnet_AMPoll) while holding an HSL
 *                  (spec: "explicit polling ... prohibited"; a silent hang
 *                  before when a handler then wanted the same lock)
 *   wait-under-hsl gex_NBI_Wait while holding an HSL ("test/wait operations
 *                  on handles/events" are prohibited too)
 *   handler-keeps-hsl  a Request handler returns still holding an HSL, and
 *                  the target then polls under it (before: such a target
 *                  went on polling, as in GASNet's testhsl case 8, which hung
 *                  until the timeout)
 */
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H_REQ 200
#define H_REP 201
static const char *mode = "";
static gasnet_hsl_t lock = GASNET_HSL_INITIALIZER;
static gasnet_hsl_t kept = GASNET_HSL_INITIALIZER;
static volatile int replies, requests;

static void h_req(gasnet_token_t t)
{
    gasnet_hsl_lock(&lock);
    if (!strcmp(mode, "reply-under-hsl")) gasnet_AMReplyShort0(t, H_REP);
    gasnet_hsl_unlock(&lock);
    gasnet_AMReplyShort0(t, H_REP);
    if (!strcmp(mode, "handler-keeps-hsl")) gasnet_hsl_lock(&kept); /* never unlocked */
    requests++;
}
static void h_rep(gasnet_token_t t)
{
    (void)t;
    gasnet_hsl_lock(&lock);
    replies++;
    gasnet_hsl_unlock(&lock);
}

int main(int argc, char **argv)
{
    if (gasnet_init(&argc, &argv) != GASNET_OK) return 2;
    if (argc > 1) mode = argv[1];
    gasnet_handlerentry_t tab[] = { { H_REQ, (void (*)())h_req }, { H_REP, (void (*)())h_rep } };
    if (gasnet_attach(tab, 2, GASNET_PAGESIZE, 0) != GASNET_OK) return 2;
    gasnet_node_t peer = (gasnet_mynode() + 1) % gasnet_nodes();
    gasnet_seginfo_t *si = calloc(gasnet_nodes(), sizeof *si);
    if (!si || gasnet_getSegmentInfo(si, gasnet_nodes()) != GASNET_OK) return 2;
    int v = 1;

    if (gasnet_mynode() == 0) {
        if (!strcmp(mode, "unlock-unheld")) {
            gasnet_hsl_t other;
            gasnet_hsl_init(&other);
            gasnet_hsl_unlock(&other);
        } else if (!strcmp(mode, "unlock-other")) {
            gasnet_hsl_t other;
            gasnet_hsl_init(&other);
            gasnet_hsl_lock(&lock);
            gasnet_hsl_unlock(&other);
        } else if (!strcmp(mode, "relock")) {
            gasnet_hsl_lock(&lock);
            gasnet_hsl_lock(&lock);
        } else if (!strcmp(mode, "relock-deep")) {
            static gex_HSL_t many[20];
            for (int i = 0; i < 20; i++) {
                gex_HSL_Init(&many[i]);
                gex_HSL_Lock(&many[i]);
            }
            /* out of order, and past the tracked ones: legal */
            gex_HSL_Unlock(&many[19]);
            gex_HSL_Unlock(&many[3]);
            gex_HSL_Lock(&many[3]);
            gex_HSL_Lock(&many[0]);
        } else if (!strcmp(mode, "am-under-hsl")) {
            gasnet_hsl_lock(&lock);
            gasnet_AMRequestShort0(peer, H_REQ);
            gasnet_hsl_unlock(&lock);
        } else if (!strcmp(mode, "put-under-hsl")) {
            gasnet_hsl_lock(&lock);
            gasnet_put(peer, si[peer].addr, &v, sizeof v);
            gasnet_hsl_unlock(&lock);
        } else if (!strcmp(mode, "poll-under-hsl")) {
            gasnet_hsl_lock(&lock);
            GASNET_BLOCKUNTIL(replies == 1);   /* nothing was sent: the poll must end the job */
            gasnet_hsl_unlock(&lock);
        } else if (!strcmp(mode, "wait-under-hsl")) {
            gex_HSL_Lock(&lock);
            gex_NBI_Wait(GEX_EC_ALL, 0);
            gex_HSL_Unlock(&lock);
        }
    }
    if (!strcmp(mode, "handler-keeps-hsl")) {
        if (gasnet_mynode() == 0) {
            /* one Request only (a second one could run in the same poll and
             * Reply under 'kept'), then wait for rank 1 to end the job */
            gasnet_AMRequestShort0(peer, H_REQ);
            GASNET_BLOCKUNTIL(replies == 1);
            gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
            gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
            gasnet_exit(0);
        } else if (gasnet_mynode() == 1) {
            GASNET_BLOCKUNTIL(requests == 1);  /* the handler ran in one of these polls */
            gasnet_AMPoll();                   /* ... and left 'kept' held: must end the job */
        }
    }
    /* legal use (and, for reply-under-hsl, the Request whose handler errs) */
    gasnet_hsl_lock(&lock);
    gasnet_hsl_unlock(&lock);
    if (gasnet_hsl_trylock(&lock) != GASNET_OK) return 3;
    gasnet_hsl_unlock(&lock);
    gasnet_AMRequestShort0(peer, H_REQ);
    GASNET_BLOCKUNTIL(replies == 1);
    gasnet_put(peer, si[peer].addr, &v, sizeof v);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
    return 0;
}
