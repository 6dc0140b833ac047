/* Which layout a HotSpot dump was made under, from the dump itself: its object ids are the
 * objects' addresses, and after the full GC a dump starts with, the heap is packed, so most
 * objects sit exactly their own size before the next one.  Each candidate layout predicts those
 * sizes; the one that predicts most of them is the JVM's. */
#include "hprof/hprof_layout.h"
#include "hprof/hprof_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const hk_layout candidates[] = {
    {12, 4, 8, 0},  /* JDK default: compressed oops and class pointers */
    {12, 8, 8, 0},  /* -XX:-UseCompressedOops (JDK 15+) */
    {16, 4, 8, 0},  /* -XX:-UseCompressedClassPointers */
    {16, 8, 8, 0},  /* neither, or a heap over 32 GiB */
    {8, 4, 8, 1},   /* compact object headers (JDK 24+) */
    {8, 8, 8, 1},   /* compact headers without compressed oops */
    {16, 4, 8, 1},  /* JDK 22+ arrays without compressed class pointers */
    {16, 8, 8, 1},  /* the same without compressed oops */
    {12, 4, 16, 0}, /* -XX:ObjectAlignmentInBytes=16 */
};
enum { NCAND = sizeof candidates / sizeof candidates[0], WINDOWS = 16, WINDOW = 4096 };

/* One sampled object: what its size depends on, and the distance to the next id. */
typedef struct sample {
    uint64_t gap;
    uint32_t cls; /* instance: its class; class object: the class it is */
    uint32_t len;
    uint8_t kind, esz;
} sample;

static int sample_of(const hk_dump *d, uint32_t i, sample *s)
{
    uint64_t gap = hk_obj_id(d, i + 1) - hk_obj_id(d, i);
    if (!gap || gap > (1u << 24)) return 0;
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    s->gap = gap;
    s->kind = *r;
    s->esz = 0;
    s->len = 0;
    s->cls = HK_NONE;
    const uint32_t *c;
    switch (*r) {
    case HPROF_INSTANCE_DUMP: c = hk_idmap_get(&d->view.class_by_id, hk_rec_instance_class(d, r)); break;
    case HPROF_CLASS_DUMP: c = hk_idmap_get(&d->view.class_by_id, hk_obj_id(d, i)); break;
    case HPROF_OBJ_ARRAY_DUMP: s->len = hk_rec_array_length(d, r); return 1;
    default:
        s->len = hk_rec_array_length(d, r);
        s->esz = (uint8_t)hk_type_size_fast(8, r[1 + d->view.id_size + 8]);
        return 1;
    }
    if (!c) return 0;
    s->cls = *c;
    return 1;
}

static uint64_t predict(const hk_layout *L, const sample *s, const uint32_t *isz, const uint64_t *msz)
{
    switch (s->kind) {
    case HPROF_INSTANCE_DUMP: return isz[s->cls];
    case HPROF_CLASS_DUMP: return msz[s->cls];
    case HPROF_OBJ_ARRAY_DUMP: return hk_layout_array(L, L->ref, s->len);
    default: return hk_layout_array(L, s->esz, s->len);
    }
}

/* Up to WINDOWS runs of WINDOW neighbours, spread over the object table. */
static size_t take_samples(const hk_dump *d, sample *out)
{
    size_t n = 0;
    if (d->view.nobjects < 2) return 0;
    uint32_t last = d->view.nobjects - 1, step = last / WINDOWS;
    for (uint32_t w = 0; w < WINDOWS; w++) {
        uint32_t from = w * step;
        for (uint32_t i = from; i < last && i < from + WINDOW; i++)
            if (sample_of(d, i, &out[n])) n++;
        if (!step) break;
    }
    return n;
}

int hk_layout_detect(const hk_dump *d, int jdk, hk_layout *out, char *why, size_t whylen)
{
    sample *s = hk_xmalloc((size_t)WINDOWS * WINDOW * sizeof *s);
    size_t n = take_samples(d, s), score[NCAND] = {0};
    uint32_t nc = d->view.nclasses ? d->view.nclasses : 1;
    uint32_t *isz = hk_xmalloc(nc * sizeof *isz);
    uint64_t *msz = hk_xmalloc(nc * sizeof *msz);
    for (size_t k = 0; k < NCAND && n; k++) {
        hk_layout_classes(d, &candidates[k], jdk, isz, msz);
        for (size_t i = 0; i < n; i++) score[k] += predict(&candidates[k], &s[i], isz, msz) == s[i].gap;
    }
    free(s);
    free(isz);
    free(msz);
    size_t best = 0, second = NCAND;
    for (size_t k = 1; k < NCAND; k++)
        if (score[k] > score[best]) best = k;
    for (size_t k = 0; k < NCAND; k++)
        if (k != best && (second == NCAND || score[k] > score[second])) second = k;
    if (!n || score[best] * 4 < n) return 0;
    *out = candidates[best];
    const hk_layout *o = &candidates[second];
    snprintf(why, whylen,
             "%zu of %zu neighbouring objects sit exactly this layout's size apart in the heap (the next best, "
             "header %u, references %u, alignment %u%s: %zu)",
             score[best], n, o->header, o->ref, o->align, o->elem_aligned && o->header == 16 ? ", JDK 22+ arrays" : "",
             score[second]);
    return 1;
}
