/*
 * mp_mk_util.h: what the memory-kinds tests (mp_mk*) share: a
 * GEX_MK_CLASS_FILE kind over an unlinked temporary file, so that every
 * byte a test moves into "device" memory can be checked with pread.
 * Include after mp_util.h.
 */
#ifndef MP_MK_UTIL_H
#define MP_MK_UTIL_H

#include <gasnet_mk.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Creates the kind over a new temporary file (its descriptor in *fd_p),
 * mapping segment byte 0 to file offset `offset`. */
static inline gex_MK_t mp_file_kind(const char *tag, off_t offset, int *fd_p)
{
    char path[96];
    snprintf(path, sizeof path, "/tmp/gex-%s-XXXXXX", tag);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);   /* gone when the process ends, however it ends */
    gex_MK_Create_args_t args;
    memset(&args, 0, sizeof args);
    args.gex_class = GEX_MK_CLASS_FILE;
    args.gex_args.gex_class_file.gex_fd = fd;
    args.gex_args.gex_class_file.gex_offset = offset;
    gex_MK_t kind = GEX_MK_INVALID;
    CHECK_OK(gex_MK_Create(&kind, mp_client, &args, 0));
    CHECK(kind != GEX_MK_INVALID && kind != GEX_MK_HOST);
    *fd_p = fd;
    return kind;
}

/* After the collective PublishBoundSegment of a device-bound EP 1 on every
 * rank: each rank's device segment address (peer_dev[r]) and, when
 * peer_host is not NULL, its host segment (EP 0's, peer_host[r]). */
static inline void mp_query_peer_segments(void **peer_dev, void **peer_host)
{
    for (gex_Rank_t r = 0; r < mp_n; r++) {
        void *owner, *local;
        uintptr_t size;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(mp_ep, 1), r, &owner, &local,
                                                  &size, 0));
        peer_dev[r] = owner;
        if (peer_host) CHECK_OK(gex_Segment_QueryBound(mp_tm, r, &peer_host[r], NULL, NULL));
    }
}

#endif /* MP_MK_UTIL_H */
