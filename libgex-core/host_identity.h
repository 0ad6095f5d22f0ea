/*
 * host_identity.h: which ranks share a host, as a 64-bit key every rank
 * computes for itself and all-gathers (libgex-core/system.c for the
 * host/nbrhd queries and PSHM, the ofi conduit for its idle-wait choice).
 * A header of static functions, not an export, so a conduit plug-in and the
 * core agree without a symbol between them.
 *
 * The key hashes the hostname (or a name forced for tests), the kernel's
 * boot id, the network namespace and the /dev/shm file system.  Hosts
 * simulated on one kernel (containers, network namespaces:
 * tests/multihost) share the boot id and may share a hostname, yet a rank in
 * one cannot map another's /dev/shm or reach its loopback; they never share
 * the namespace or /dev/shm.  On a plain machine every process has the same
 * of both, so the key is what hostname and boot id alone would give.
 */
#ifndef GEXI_HOST_IDENTITY_H
#define GEXI_HOST_IDENTITY_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static inline uint64_t gexi_host_fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

/* forced_name: a name to use instead of the hostname (GEX_HOST_ID), or NULL */
static inline uint64_t gexi_host_identity(const char *forced_name)
{
    char name[256] = "";
    gethostname(name, sizeof name - 1);
    uint64_t h = gexi_host_fnv1a(0xcbf29ce484222325ull, forced_name ? forced_name : name);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        char boot[64] = "";
        if (fgets(boot, sizeof boot, f)) h = gexi_host_fnv1a(h, boot);
        fclose(f);
    }
    char ns[64] = "";
    ssize_t len = readlink("/proc/self/ns/net", ns, sizeof ns - 1);
    if (len > 0) {
        ns[len] = 0;
        h = gexi_host_fnv1a(h, ns);
    }
    struct stat st;
    if (stat("/dev/shm", &st) == 0) {
        char id[48];
        snprintf(id, sizeof id, "/dev/shm:%llx:%llx", (unsigned long long)st.st_dev,
                 (unsigned long long)st.st_ino);
        h = gexi_host_fnv1a(h, id);
    }
    return h;
}

#endif /* GEXI_HOST_IDENTITY_H */
