/* The histogram's bytes under a layout, from what the index counted: instances by count, arrays
 * by their summed lengths and the lengths' residues (the alignment padding depends on them). */
#include "hprof/hprof_layout.h"
#include "hprof/hprof_internal.h"

#include <string.h>

/* Arrays of one class: n[h] of them in heap h, own[h] the dump's bytes for them (the elements
 * at src bytes each, on top of base_own bytes an array), res the lengths mod 16. */
typedef struct arrays {
    const uint32_t *n;
    const uint64_t *own;
    uint64_t base_own;
    uint32_t src, esz;
    const uint32_t *res;
} arrays;

static void count_arrays(const hk_layout *L, const arrays *a, uint64_t *out)
{
    uint32_t base = hk_layout_array_base(L, a->esz);
    int most = 0;
    for (int h = 0; h < HK_MAX_HEAPS; h++) {
        uint64_t len = (a->own[h] - a->n[h] * a->base_own) / a->src;
        out[h] = (uint64_t)a->n[h] * base + len * a->esz;
        if (a->n[h] > a->n[most]) most = h;
    }
    /* the padding by residue; HotSpot dumps have one heap, so all of it goes there */
    for (uint32_t r = 0; r < 16; r++)
        if (a->res && a->res[r])
            out[most] += (uint64_t)a->res[r] * (hk_layout_array(L, a->esz, r) - base - (uint64_t)r * a->esz);
}

static int prim_type_of(const hk_dump *d, uint32_t c)
{
    for (int t = 4; t < 12; t++)
        if (d->view.prim_array_class[t] == c) return t;
    return 0;
}

static void count_class(hk_dump *d, const hk_layout_state *st, const hk_layout *L, uint32_t c)
{
    const hk_class *k = &d->view.classes[c];
    const uint32_t *n = &d->class_counts[(size_t)c * HK_MAX_HEAPS];
    uint64_t *out = &d->class_bytes[(size_t)c * HK_MAX_HEAPS];
    const uint32_t *res = d->array_res ? &d->array_res[(size_t)c * 16] : NULL;
    size_t len = strlen(k->obf_name);
    int t = prim_type_of(d, c);
    if (t || (len > 2 && !strcmp(k->obf_name + len - 2, "[]"))) {
        uint32_t esz = t ? (uint32_t)hk_type_size_fast(8, t) : L->ref, src = t ? esz : d->view.id_size;
        arrays a = {n, &st->class_bytes[(size_t)c * HK_MAX_HEAPS], st->instance_size[c], src, esz, res};
        count_arrays(L, &a, out);
        return;
    }
    for (int h = 0; h < HK_MAX_HEAPS; h++) out[h] = (uint64_t)n[h] * k->instance_size;
}

void hk_layout_recount(hk_dump *d, const hk_layout_state *st, const hk_layout *L)
{
    for (uint32_t c = 0; c < d->view.nclasses; c++) count_class(d, st, L, c);
    /* class objects: java.lang.Class's row counts them beside its instances */
    uint64_t *objs = d->view.class_class != HK_NONE ? &d->class_bytes[(size_t)d->view.class_class * HK_MAX_HEAPS]
                                                    : d->class_obj_bytes;
    if (d->view.class_class == HK_NONE) memset(d->class_obj_bytes, 0, sizeof d->class_obj_bytes);
    for (uint32_t c = 0; c < d->view.nclasses; c++) {
        const hk_class *k = &d->view.classes[c];
        if (d->view.class_class != HK_NONE) objs[k->heap] -= d->view.classes[d->view.class_class].instance_size;
        objs[k->heap] += k->static_bytes;
    }
    for (int t = 4; t < 12; t++) {
        uint32_t esz = (uint32_t)hk_type_size_fast(8, t);
        arrays a = {d->prim_counts[t],
                    st->prim_bytes[t],
                    0,
                    esz,
                    esz,
                    d->array_res ? &d->array_res[((size_t)d->view.nclasses + (size_t)t) * 16] : NULL};
        count_arrays(L, &a, d->prim_bytes[t]);
    }
}
