/* hprofkit's own records (HPROF_HK_*), written into the dumps it builds from Perfetto heap
 * graphs: what an HPROF class record cannot say about one object or class. */
#include "hprof/hprof.h"
#include "hprof/hprof_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <string.h>

/* Moves one object's bytes from its record size to its own size in the per-class totals. */
static void recount(hk_dump *d, uint32_t i, uint64_t old, uint64_t now)
{
    int h = hk_obj_heap(d, i);
    if (h < 0) h = 0;
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    uint64_t *slot;
    if (*r == HPROF_CLASS_DUMP) {
        uint32_t *c = hk_idmap_get(&d->view.class_by_id, hk_be_id(d, r + 1));
        if (!c) return;
        h = d->view.classes[*c].heap;
        slot = d->view.class_class != HK_NONE ? &d->class_bytes[(size_t)d->view.class_class * HK_MAX_HEAPS + h]
                                              : &d->class_obj_bytes[h];
    } else {
        uint32_t c = hk_obj_class(d, i);
        if (c != HK_NONE) slot = &d->class_bytes[(size_t)c * HK_MAX_HEAPS + h];
        else if (*r == HPROF_PRIM_ARRAY_DUMP || *r == HPROF_PRIM_ARRAY_NODATA) {
            int t = r[1 + d->view.id_size + 8];
            if (t < 0 || t >= 12) return;
            slot = &d->prim_bytes[t][h];
        } else return;
    }
    *slot = *slot - old + now;
}

static int whole_pairs(const hk_dump *d, uint32_t len, uint32_t step, uint64_t off, const char *what, char *err,
                       size_t errlen)
{
    if (len % step == 0) return 0;
    snprintf(err, errlen, "%s: at offset %llu: %s record of %u bytes is not a whole number of entries", d->path,
             (unsigned long long)off, what, len);
    return -1;
}

static int apply_sizes(hk_dump *d, const uint8_t *p, uint32_t len, uint64_t off, char *err, size_t errlen)
{
    const uint32_t step = d->view.id_size + 8;
    if (whole_pairs(d, len, step, off, "object sizes", err, errlen) < 0) return -1;
    uint64_t *sizes = (uint64_t *)d->view.obj_sizes; /* the view's, written only here */
    if (!sizes) {
        d->view.obj_sizes = sizes = hk_xcalloc(d->view.nobjects ? d->view.nobjects : 1, sizeof *sizes);
        for (uint32_t i = 0; i < d->view.nobjects; i++) sizes[i] = hk_obj_record_size(d, i);
    }
    for (uint32_t k = 0; k < len; k += step) {
        uint32_t i = hk_obj_find(d, hk_be_id(d, p + k));
        if (i == HK_NONE) continue; /* a size for an object the dump lacks says nothing */
        uint64_t now = hk_be64(p + k + d->view.id_size);
        recount(d, i, sizes[i], now);
        sizes[i] = now;
    }
    return 0;
}

static int apply_kinds(hk_dump *d, const uint8_t *p, uint32_t len, uint64_t off, char *err, size_t errlen)
{
    const uint32_t step = d->view.id_size + 1;
    if (whole_pairs(d, len, step, off, "reference kinds", err, errlen) < 0) return -1;
    for (uint32_t k = 0; k < len; k += step) {
        hk_class *c = hk_class_by_id(d, hk_be_id(d, p + k));
        uint8_t kind = p[k + d->view.id_size];
        if (c && kind >= HK_REF_SOFT && kind <= HK_REF_PHANTOM) c->ref_kind = kind;
    }
    return 0;
}

int hk_ext_apply(hk_dump *d, const uint64_t *offs, size_t n, char *err, size_t errlen)
{
    for (size_t k = 0; k < n; k++) {
        const uint8_t *r = d->view.data + offs[k];
        uint32_t len = hk_be32(r + 5);
        int rc = *r == HPROF_HK_OBJECT_SIZES ? apply_sizes(d, r + 9, len, offs[k], err, errlen)
                                             : apply_kinds(d, r + 9, len, offs[k], err, errlen);
        if (rc < 0) return -1;
    }
    return 0;
}
