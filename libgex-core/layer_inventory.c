/*
 * layer_inventory.c: which GEX libraries this process loaded, by file, with
 * the release and libtool version-info each carries in its identification
 * string (layer_ident.h).  gex-info --layers prints it, and with
 * GASNET_VERBOSEENV rank 0 reports it at init, so that an operator of a
 * mixed-version installation (docs/upgrading.md) sees what a job ran.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memmem, dl_iterate_phdr */
#endif
#include "core_internal.h"
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GEXI_EXPORT int gexi_read_ident(const char *path, const char *key, char *out, size_t outlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char *buf = NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    int found = 0;
    /* Libraries are a few MB: read the file whole and search it. */
    if (size > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size)) &&
        fread(buf, 1, (size_t)size, f) == (size_t)size) {
        char pat[64];
        int plen = snprintf(pat, sizeof pat, "$%s: ", key);
        char *p = memmem(buf, (size_t)size, pat, (size_t)plen);
        char *v = p ? p + plen : NULL;
        char *end = v ? memchr(v, '$', (size_t)(buf + size - v)) : NULL;
        if (end && end - v < 200) {
            while (end > v && end[-1] == ' ') end--;
            snprintf(out, outlen, "%.*s", (int)(end - v), v);
            found = 1;
        }
    }
    free(buf);
    fclose(f);
    return found;
}

static void copy_str(char *dst, size_t n, const char *src, size_t len)
{
    if (len >= n) len = n - 1;
    memcpy(dst, src, len);
    dst[len] = 0;
}

struct inventory {
    struct gexi_loaded_layer *rows;
    unsigned max, n;
};

static int add_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct inventory *inv = arg;
    const char *path = info->dlpi_name;
    if (!path || !*path) return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strncmp(base, "libgex-", 7) != 0 || strncmp(base, "libgex-conduit-", 15) == 0) return 0;
    if (inv->n++ >= inv->max) return 0;
    struct gexi_loaded_layer *r = &inv->rows[inv->n - 1];
    memset(r, 0, sizeof *r);
    if (!realpath(path, r->file)) copy_str(r->file, sizeof r->file, path, strlen(path));
    const char *dot = strstr(base, ".so");
    copy_str(r->name, sizeof r->name, base, (size_t)((dot ? dot : base + strlen(base)) - base));
    char ident[256], name[32];
    unsigned cur = 0, rev = 0, age = 0;
    if (gexi_read_ident(path, "GEXLayer", ident, sizeof ident) &&
        sscanf(ident, "%31s %31s %31s", name, r->release, r->version_info) == 3 &&
        sscanf(r->version_info, "%u:%u:%u", &cur, &rev, &age) == 3 && age <= cur) {
        copy_str(r->name, sizeof r->name, name, strlen(name));
        snprintf(r->soname, sizeof r->soname, "%s.so.%u", name, cur - age);
    } else {
        /* Built before libraries carried their release (2026.12.0). */
        copy_str(r->release, sizeof r->release, "unknown", 7);
        copy_str(r->version_info, sizeof r->version_info, "unknown", 7);
        copy_str(r->soname, sizeof r->soname, base, strlen(base));
    }
    return 0;
}

GEXI_EXPORT unsigned gexi_loaded_layers(struct gexi_loaded_layer *rows, unsigned max,
                                        size_t row_size)
{
    /* A caller built against a different layout gets nothing rather than
     * rows it would misread. */
    if (row_size != sizeof(struct gexi_loaded_layer)) return 0;
    struct inventory inv = { rows, max, 0 };
    dl_iterate_phdr(add_loaded, &inv);
    return inv.n;
}

void gexi_report_loaded_layers(void)
{
    struct gexi_loaded_layer rows[16];
    unsigned n = gexi_loaded_layers(rows, 16, sizeof rows[0]);
    for (unsigned i = 0; i < n && i < 16; i++)
        gexi_log(2, "loaded %s release %s (version-info %s, %s) from %s", rows[i].name,
                 rows[i].release, rows[i].version_info, rows[i].soname, rows[i].file);
}
