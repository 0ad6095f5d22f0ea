/*
 * vis_wire.c: the metadata of VIS AMs (vis_internal.h, struct
 * gexi_vis_wire): written by the initiator into each AM, read back by the
 * target's handlers (vis_am.c).  The target runs whatever a payload
 * describes, so gexi_vis_wire_read checks all of it first: a payload
 * shorter than its header or metadata, an unknown kind, a count of 0
 * (a division in the cursor), a start past the pieces, or more data than
 * the pieces hold is refused instead of read or written out of bounds.
 * tests/fuzz/fuzz_vis_meta.c runs the reader on arbitrary bytes.
 */
#include "vis_internal.h"

size_t gexi_vis_wire_write(char *buf, const struct gexi_vis_side *s, const struct gexi_vis_cur *c,
                           size_t bytes, size_t npieces)
{
    struct gexi_vis_wire *w = (struct gexi_vis_wire *)buf;
    w->kind = s->kind;
    w->nbytes = bytes;
    char *m = buf + sizeof *w;
    if (s->kind == GEXI_VIS_STR) {
        w->n = s->dims;
        w->len = s->len;
        w->i = c->i;
        w->off = c->off;
        w->base = s->base;
        w->nelem = s->n;
        uint64_t *cnt = (uint64_t *)m;
        int64_t *str = (int64_t *)(m + s->dims * sizeof(uint64_t));
        for (unsigned d = 0; d < s->dims; d++) {
            cnt[d] = s->count[d];
            str[d] = s->stride[d];
        }
        return sizeof *w + s->dims * (sizeof(uint64_t) + sizeof(int64_t));
    }
    w->n = (uint32_t)npieces;
    w->len = s->len;
    w->i = 0;
    w->off = c->off;
    w->base = 0;
    w->nelem = 0;
    /* The pieces from the cursor on, zero-length Vector entries left out. */
    struct gexi_vis_cur k = *c;
    if (s->kind == GEXI_VIS_VEC) {
        gex_Memvec_t *v = (gex_Memvec_t *)m;
        char *p;
        w->off = 0;
        size_t left = bytes;
        for (size_t j = 0; j < npieces; j++) {
            size_t r = gexi_vis_run(s, &k, &p);
            if (r > left) r = left;
            v[j].gex_addr = p; /* peer address (no delta on this path) */
            v[j].gex_len = r;
            left -= r;
            k.i++;
            k.off = 0;
        }
        return sizeof *w + npieces * sizeof(gex_Memvec_t);
    }
    uint64_t *a = (uint64_t *)m;
    for (size_t j = 0; j < npieces; j++) a[j] = (uint64_t)(uintptr_t)s->idx[k.i + j];
    return sizeof *w + npieces * sizeof(uint64_t);
}

/* a * b into *r unless it overflows size_t */
static int mul_ok(size_t a, size_t b, size_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

const char *gexi_vis_wire_read(const void *buf, size_t nbytes, int with_data, size_t max_data,
                               struct gexi_vis_wire_side *ws, struct gexi_vis_cur *c,
                               size_t *meta_len, size_t *data_n)
{
    const struct gexi_vis_wire *w = (const struct gexi_vis_wire *)buf;
    if (nbytes < sizeof *w) return "shorter than the VIS header";
    const char *m = (const char *)buf + sizeof *w;
    const size_t room = nbytes - sizeof *w;
    struct gexi_vis_side *s = &ws->s;
    memset(s, 0, sizeof *s);
    s->len = (size_t)w->len;
    size_t meta, held;   /* metadata bytes; data bytes the pieces hold from the start on */
    switch (w->kind) {
    case GEXI_VIS_VEC: {
        meta = (size_t)w->n * sizeof(gex_Memvec_t);
        if (meta > room) return "Vector list longer than the payload";
        const gex_Memvec_t *v = (const gex_Memvec_t *)m;
        size_t total = 0;
        for (uint32_t j = 0; j < w->n; j++)
            if (__builtin_add_overflow(total, v[j].gex_len, &total)) return "Vector lengths overflow";
        if (w->off > (w->n ? v[0].gex_len : 0)) return "start past the first Vector piece";
        held = total - (size_t)w->off;
        s->kind = GEXI_VIS_VEC;
        s->n = w->n;
        s->vec = v;
        gexi_vis_seek(s, c, 0, (size_t)w->off);
        break;
    }
    case GEXI_VIS_IDX: {
        meta = (size_t)w->n * sizeof(uint64_t);
        if (meta > room) return "Indexed list longer than the payload";
        size_t total;
        if (!mul_ok(w->n, s->len, &total)) return "Indexed size overflows";
        if (w->n ? (s->len ? w->off >= s->len : w->off != 0) : w->off != 0)
            return "start outside the first Indexed piece";
        held = total - (size_t)w->off;
        s->kind = GEXI_VIS_IDX;
        s->n = w->n;
        s->idx = (void *const *)m;
        gexi_vis_seek(s, c, 0, (size_t)w->off);
        break;
    }
    case GEXI_VIS_STR: {
        if (w->n > GEXI_VIS_MAXDIM) return "too many Strided dimensions";
        meta = (size_t)w->n * (sizeof(uint64_t) + sizeof(int64_t));
        if (meta > room) return "Strided section longer than the payload";
        const uint64_t *cnt = (const uint64_t *)m;
        const int64_t *str = (const int64_t *)(m + w->n * sizeof(uint64_t));
        size_t elems = 1;
        for (unsigned d = 0; d < w->n; d++) {
            if (!cnt[d]) return "a Strided count of 0";
            if (!mul_ok(elems, (size_t)cnt[d], &elems)) return "Strided element count overflows";
            ws->count[d] = (size_t)cnt[d];
            ws->stride[d] = (ptrdiff_t)str[d];
        }
        if (w->nelem > elems) return "more Strided elements than the counts span";
        if (w->i > w->nelem || (w->i == w->nelem && w->off)) return "start past the Strided section";
        if (s->len ? w->off >= s->len : w->off != 0) return "start outside a Strided element";
        size_t total;
        if (!mul_ok((size_t)(w->nelem - w->i), s->len, &total)) return "Strided size overflows";
        held = total - (size_t)w->off;
        s->kind = GEXI_VIS_STR;
        s->n = (size_t)w->nelem;
        s->base = (uintptr_t)w->base;
        s->dims = w->n;
        s->count = ws->count;
        s->stride = ws->stride;
        gexi_vis_seek(s, c, (size_t)w->i, (size_t)w->off);
        break;
    }
    default:
        return "unknown VIS metadata kind";
    }
    if (w->nbytes > held) return "more data than the pieces hold";
    if (w->nbytes > max_data) return "more data than one AM carries";
    if (with_data ? w->nbytes != room - meta : meta != room)
        return "payload size disagrees with its header";
    *meta_len = sizeof *w + meta;
    *data_n = (size_t)w->nbytes;
    return NULL;
}
