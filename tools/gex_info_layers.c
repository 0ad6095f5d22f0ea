/*
 * gex_info_layers.c: what `gex-info --layers` reports about the libraries a
 * process actually loaded, so that an operator of a mixed-version
 * installation (one layer upgraded alone, docs/upgrading.md) sees which
 * release of each layer runs: the file the dynamic loader chose, the
 * release and libtool version-info from the identification string the
 * library carries (libgex-core's gexi_loaded_layers), and the conduit
 * plug-ins found on the loader's search path with whether each would load.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memmem, dl_iterate_phdr */
#endif
#include "gex_info_layers.h"
#include "core_layer.h"
#include <gex/conduit.h>
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct gexi_loaded_layer rows[32];
static unsigned n_rows;

struct conduit_row {
    char name[32], release[32], abi[16], file[PATH_MAX], status[160];
};
static struct conduit_row crows[32];
static unsigned n_crows;

/* Would libgex-core take this plug-in?  The same test as its loader. */
static void probe_conduit(struct conduit_row *c, const char *loaded_conduit_file)
{
    for (const struct conduit_row *e = crows; e < c; e++)
        if (!strcmp(e->name, c->name)) {   /* the loader takes the first one found */
            size_t n = strlen(e->file);
            const size_t room = sizeof c->status - sizeof "shadowed by ";
            memcpy(c->status, "shadowed by ", sizeof "shadowed by " - 1);
            if (n > room) n = room;
            memcpy(c->status + sizeof "shadowed by " - 1, e->file, n);
            c->status[sizeof "shadowed by " - 1 + n] = 0;
            return;
        }
    if (loaded_conduit_file && !strcmp(loaded_conduit_file, c->file)) {
        snprintf(c->status, sizeof c->status, "loaded");
        return;
    }
    void *dl = dlopen(c->file, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        snprintf(c->status, sizeof c->status, "does not load: %s", dlerror());
        return;
    }
    gex_conduit_entry_fn *entry;
    *(void **)&entry = dlsym(dl, GEX_CONDUIT_ENTRY_SYMBOL);
    const struct gex_conduit_ops *ops = entry ? entry() : NULL;
    if (!ops)
        snprintf(c->status, sizeof c->status, "not a GEX conduit (no %s)",
                 GEX_CONDUIT_ENTRY_SYMBOL);
    else if (!gexi_conduit_ops_acceptable(ops))
        snprintf(c->status, sizeof c->status, "refused: conduit ABI %u, this core needs %u",
                 (unsigned)ops->abi_major, (unsigned)GEX_CONDUIT_ABI_MAJOR);
    else
        snprintf(c->status, sizeof c->status, "loads");
    dlclose(dl);
}

/* Lists the plug-ins of one folder of the loader's search path. */
static int scan_dir(const char *dir, void *arg)
{
    (void)arg;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) && n_crows < sizeof crows / sizeof crows[0]) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "libgex-conduit-", 15) != 0 || len < 19 ||
            strcmp(e->d_name + len - 3, ".so") != 0)
            continue;
        struct conduit_row *c = &crows[n_crows];
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!realpath(path, c->file)) continue;
        int dup = 0;
        for (unsigned i = 0; i < n_crows; i++) dup |= !strcmp(crows[i].file, c->file);
        if (dup) continue;
        snprintf(c->name, sizeof c->name, "%.*s", (int)(len - 18), e->d_name + 15);
        char ident[256];
        if (!gexi_read_ident(c->file, "GEXConduit", ident, sizeof ident) ||
            sscanf(ident, "%*31s %31s %15s", c->release, c->abi) != 2) {
            snprintf(c->release, sizeof c->release, "unknown");
            snprintf(c->abi, sizeof c->abi, "unknown");
        }
        n_crows++;
    }
    closedir(d);
    return 0;   /* every folder, not only up to the first plug-in */
}


static int loaded_conduit(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    if (base && !strncmp(base + 1, "libgex-conduit-", 15) && realpath(info->dlpi_name, arg))
        return 1;
    return 0;
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(out, "\\u%04x", *s);
        else fputc(*s, out);
    }
    fputc('"', out);
}

/* One {"key": "value", ...} element of a JSON array. */
static void json_object(FILE *out, int first, const char *const *keys, const char *const *vals,
                        unsigned n)
{
    fprintf(out, "%s\n    {", first ? "" : ",");
    for (unsigned k = 0; k < n; k++) {
        fprintf(out, "%s\"%s\": ", k ? ", " : "", keys[k]);
        json_str(out, vals[k]);
    }
    fprintf(out, "}");
}

void gexinfo_print_layers(FILE *out, int json, const char *conduit, const char *dispatch)
{
    n_crows = 0;
    n_rows = gexi_loaded_layers(rows, sizeof rows / sizeof rows[0], sizeof rows[0]);
    if (n_rows > sizeof rows / sizeof rows[0]) n_rows = sizeof rows / sizeof rows[0];
    char conduit_file[PATH_MAX] = "";
    if (!dl_iterate_phdr(loaded_conduit, conduit_file)) conduit_file[0] = 0;
    gexi_conduit_search_path(scan_dir, NULL);
    for (unsigned i = 0; i < n_crows; i++) probe_conduit(&crows[i], conduit_file);

    if (!json) {
        fprintf(out, "%-16s %-11s %-13s %-20s %s\n", "layer", "release", "version-info",
                "ABI (SONAME)", "file");
        for (unsigned i = 0; i < n_rows; i++)
            fprintf(out, "%-16s %-11s %-13s %-20s %s\n", rows[i].name, rows[i].release,
                    rows[i].version_info, rows[i].soname, rows[i].file);
        fprintf(out, "\n%-16s %-11s %-13s %s\n", "conduit plug-in", "release", "conduit ABI",
                "file: status");
        for (unsigned i = 0; i < n_crows; i++)
            fprintf(out, "%-16s %-11s %-13s %s: %s\n", crows[i].name, crows[i].release,
                    crows[i].abi, crows[i].file, crows[i].status);
        if (conduit) {
            fprintf(out, "\ndispatch (conduit %s; reference = the layer's own code over AMs)\n",
                    conduit);
            /* "am: request=smp reply=smp; rma: put=reference ..." one layer a line */
            const char *p = dispatch;
            while (p && *p) {
                const char *end = strstr(p, "; ");
                int n = end ? (int)(end - p) : (int)strlen(p);
                fprintf(out, "  %.*s\n", n, p);
                p = end ? end + 2 : NULL;
            }
        }
        return;
    }
    fprintf(out, "{\n  \"layers\": [");
    for (unsigned i = 0; i < n_rows; i++) {
        const char *keys[] = { "name", "release", "version_info", "soname", "file" };
        const char *vals[] = { rows[i].name, rows[i].release, rows[i].version_info,
                               rows[i].soname, rows[i].file };
        json_object(out, i == 0, keys, vals, 5);
    }
    fprintf(out, "\n  ],\n  \"conduit_plugins\": [");
    for (unsigned i = 0; i < n_crows; i++) {
        const char *keys[] = { "name", "release", "abi", "status", "file" };
        const char *vals[] = { crows[i].name, crows[i].release, crows[i].abi, crows[i].status,
                               crows[i].file };
        json_object(out, i == 0, keys, vals, 5);
    }
    fprintf(out, "\n  ],\n  \"conduit\": ");
    json_str(out, conduit ? conduit : "");
    fprintf(out, ",\n  \"dispatch\": {");
    const char *p = dispatch;
    int first = 1;
    while (p && *p) {
        const char *end = strstr(p, "; ");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', n);
        if (colon) {
            char key[64], val[512];
            snprintf(key, sizeof key, "%.*s", (int)(colon - p), p);
            const char *v = colon + 1;
            while (*v == ' ') v++;
            snprintf(val, sizeof val, "%.*s", (int)(p + n - v), v);
            fprintf(out, "%s\n    ", first ? "" : ",");
            json_str(out, key);
            fprintf(out, ": ");
            json_str(out, val);
            first = 0;
        }
        p = end ? end + 2 : NULL;
    }
    fprintf(out, "\n  }\n}\n");
}
