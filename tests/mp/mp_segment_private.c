/*
 * mp_segment_private.c: where segment memory comes from.
 *
 * A segment is put in shared memory (/dev/shm) only when some nbrhd peer can
 * map it; its pages there are allocated at first touch, unless
 * GEX_PSHM_RESERVE=1 reserves them all at creation.  A process alone in its nbrhd (one
 * rank, GEX_PSHM=0, GASNET_SUPERNODE_MAXSIZE=1) gets private anonymous memory,
 * reserved lazily: a segment of gasnet_getMaxLocalSegmentSize() then costs
 * neither RAM nor seconds at attach and at exit (it used to reserve most of
 * the machine's memory in /dev/shm).
 *
 * Checks, on every rank: the mapping that holds the attached segment (and a
 * gex_Segment_Create segment) is a /dev/shm object exactly when the nbrhd has
 * other members; RMA to every peer's last byte; a segment of the maximum
 * size is created, its first and last pages written, and destroyed.  With a
 * shared nbrhd, rank 0 checks how much of /dev/shm the new object holds:
 * (almost) nothing, since pages come at first touch, or with
 * GEX_PSHM_RESERVE=1 all of a 256 MiB segment.
 */
#include "mp_util.h"
#include <sys/stat.h>

/* Bytes of /dev/shm allocated to the object mapped at addr: the file's
 * st_blocks, through /proc/self/map_files (the object may be unlinked
 * already); -1 if the kernel does not let us look. */
static int64_t shm_allocated(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[1024];
    unsigned long lo = 0, hi = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && (uintptr_t)addr >= lo &&
            (uintptr_t)addr < hi)
            break;
        lo = hi = 0;
    }
    fclose(f);
    CHECK_MSG(hi != 0, "no mapping holds address %p", addr);
    char path[96];
    snprintf(path, sizeof path, "/proc/self/map_files/%lx-%lx", lo, hi);
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    return (int64_t)st.st_blocks * 512;
}

/* 1 if the mapping holding addr is a file under /dev/shm (GEX's shared
 * segments), 0 if anonymous; fails the test if no mapping holds addr. */
static int mapped_from_shm(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[1024];
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        int off = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &off) < 2) continue;
        if ((uintptr_t)addr < lo || (uintptr_t)addr >= hi) continue;
        found = off > 0 && strstr(line + off, "/gex-") != NULL;
    }
    fclose(f);
    CHECK_MSG(found >= 0, "no mapping holds address %p", addr);
    return found;
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, "MP_SEGMENT_PRIVATE", 0);
    gex_Rank_t nbrhd_size = 0;
    gex_System_QueryNbrhdInfo(NULL, &nbrhd_size, NULL);
    const int shared = nbrhd_size > 1;
    const uintptr_t size = 64u << 20;
    mp_attach(size);
    uint8_t *base = gex_Segment_QueryAddr(mp_seg);

    mp_phase("attached segment's memory");
    CHECK_MSG(mapped_from_shm(base) == shared,
              "attached segment %s shared memory with a nbrhd of %u", shared ? "is not in" : "is in",
              (unsigned)nbrhd_size);
    mp_phase("created segment's memory");
    gex_Segment_t s;
    CHECK_OK(gex_Segment_Create(&s, mp_client, NULL, 1u << 20, GEX_MK_HOST, 0));
    CHECK_MSG(mapped_from_shm(gex_Segment_QueryAddr(s)) == shared,
              "created segment %s shared memory with a nbrhd of %u",
              shared ? "is not in" : "is in", (unsigned)nbrhd_size);
    gex_Segment_Destroy(s, 0);

    mp_phase("RMA to the last byte of every peer's segment");
    for (gex_Rank_t k = 0; k < mp_n; k++) {
        gex_Rank_t p = (mp_me + k) % mp_n;
        void *addr = NULL;
        uintptr_t len = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(mp_tm, p, &addr, NULL, &len, 0));
        CHECK_EQ(len, size);
        uint8_t v = (uint8_t)(0x40 + mp_me), got = 0;
        CHECK_OK(gex_RMA_PutBlocking(mp_tm, p, (uint8_t *)addr + len - 1 - mp_me, &v, 1, 0));
        CHECK_OK(gex_RMA_GetBlocking(mp_tm, &got, p, (uint8_t *)addr + len - 1 - mp_me, 1, 0));
        CHECK_EQ(got, v);
    }
    mp_barrier();
    for (gex_Rank_t r = 0; r < mp_n; r++) CHECK_EQ(base[size - 1 - r], (uint8_t)(0x40 + r));

    if (!shared || mp_me == 0) {
        /* Lazily reserved: only the two pages written below cost memory. */
        mp_phase("segment of gasnet_getMaxLocalSegmentSize()");
        const char *rv = getenv("GEX_PSHM_RESERVE");
        const int reserve = shared && rv && atoi(rv) != 0;
        const uintptr_t max = reserve ? (uintptr_t)256 << 20 : gasnet_getMaxLocalSegmentSize();
        CHECK_OK(gex_Segment_Create(&s, mp_client, NULL, max, GEX_MK_HOST, 0));
        uint8_t *m = gex_Segment_QueryAddr(s);
        CHECK_EQ(gex_Segment_QuerySize(s), max);
        CHECK_MSG(mapped_from_shm(m) == shared, "the %zu-byte segment %s shared memory",
                  (size_t)max, shared ? "is not in" : "is in");
        const int64_t got = shared ? shm_allocated(m) : -1;
        if (got >= 0 && reserve)
            CHECK_MSG(got >= (int64_t)max, "GEX_PSHM_RESERVE=1: a %zu-byte segment has only "
                      "%lld bytes of /dev/shm", (size_t)max, (long long)got);
        else if (got >= 0)
            CHECK_MSG(got < (int64_t)(max / 4), "a new %zu-byte segment has %lld bytes of "
                      "/dev/shm already (pages are allocated at first touch)", (size_t)max,
                      (long long)got);
        m[0] = 1;
        m[max - 1] = 2;
        CHECK(m[0] == 1 && m[max - 1] == 2);
        gex_Segment_Destroy(s, 0);
    }
    mp_barrier();
    mp_finish("nbrhd of %u, segment in %s memory", (unsigned)nbrhd_size,
              shared ? "shared" : "private");
}
