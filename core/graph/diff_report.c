/* Heap diff, the tallies: totals and unmatched objects by class. */
#include "graph/diff_internal.h"
#include "graph/graph.h"
#include "graph/graph_internal.h"
#include "hprof/hprof_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

/* An object's shallow size as the graph counts it (hkg_shallow), with the class the matcher
 * read: an instance's record is not read, an object array's for its length only, and a
 * primitive array's not once the dominators are known (ret: their retained sizes, or NULL),
 * as it dominates nothing: its retained size is its own. */
static uint64_t shallow(const hkd_side *s, uint32_t obj, const uint64_t *ret)
{
    const hk_dump *d = s->d;
    if (d->obj_sizes) return d->obj_sizes[obj];
    int kind = hkd_kind(s, obj);
    if (kind == HK_KIND_PRIM_ARRAY && ret) return ret[obj];
    if (kind != HK_KIND_INSTANCE && kind != HK_KIND_OBJ_ARRAY) return hk_obj_record_size(d, obj);
    uint32_t c = hkd_cls(s, obj);
    uint64_t size = c < d->nclasses ? d->classes[c].instance_size : 0;
    if (kind == HK_KIND_OBJ_ARRAY) /* ART records the array header in the class's size */
        size += (uint64_t)hk_rec_array_length(d, d->data + hk_obj_offset(d, obj)) * d->id_size;
    return size;
}

/* The tally's slot of an unmatched object: its class, then primitive arrays without a class,
 * then class objects. */
static uint32_t tally_slot(const hkd_side *sd, uint32_t i)
{
    uint32_t c = hkd_cls(sd, i), nc = sd->d->nclasses;
    if (c < nc) return c;
    if (hkd_kind(sd, i) == HK_KIND_PRIM_ARRAY) return nc + (c - HKD_PRIM(0)) % 12;
    return nc + 12;
}

/* In object order, so the records of arrays (the only ones whose size is read from the
 * record) are read front to back; also clears the matched objects' path ids. */
void hkd_tally(hk_diff *df, int side)
{
    hkd_side *sd = &df->s[side];
    if (sd->tally) return;
    hkd_find_entries(df, side);
    hk_dump *d = sd->d;
    sd->tally = hk_xcalloc((size_t)d->nclasses + 13, sizeof *sd->tally);
    sd->ent_objects = hk_xcalloc((size_t)sd->nentries + 1, sizeof *sd->ent_objects);
    sd->ent_bytes = hk_xcalloc((size_t)sd->nentries + 1, sizeof *sd->ent_bytes);
    /* with dominators, the heap's total is known: the matched bytes are what the unmatched
     * leave of it, and matched arrays' records need not be read */
    const hk_graph *g = d->graph;
    int total_known = g && (g->done & HK_GRAPH_DOM);
    const uint64_t *ret = total_known ? g->retained : NULL;
    for (uint32_t i = 0; i < d->nobjects; i++) {
        hkd_obj *o = &sd->o[i];
        if (o->match != HK_NONE) {
            if (!total_known) sd->same_bytes += shallow(sd, i, ret);
            o->pid = 0;
            continue;
        }
        uint64_t sz = shallow(sd, i, ret);
        hk_diff_class_row *t = &sd->tally[tally_slot(sd, i)];
        t->objects++;
        t->bytes += sz;
        sd->unmatched++;
        sd->unmatched_bytes += sz;
        if (o->via != HKD_UNSEEN) {
            sd->ent_objects[o->entry]++;
            sd->ent_bytes[o->entry] += sz;
        }
    }
    if (total_known) sd->same_bytes = hk_graph_total_bytes(d) - sd->unmatched_bytes;
}

void hk_diff_get_totals(hk_diff *df, hk_diff_totals *t)
{
    memset(t, 0, sizeof *t);
    for (int s = 0; s < 2; s++) {
        hkd_tally(df, s);
        t->objects[s] = df->s[s].unmatched;
        t->bytes[s] = df->s[s].unmatched_bytes;
        t->same_bytes[s] = df->s[s].same_bytes;
    }
    t->same_objects = df->nmatched;
    t->anchors_classes = df->anchors_classes;
    t->anchors_roots = df->anchors_roots;
}

static const char *const prim_names[12] = {0,         0,          0,        0,         "boolean[]", "char[]",
                                           "float[]", "double[]", "byte[]", "short[]", "int[]",     "long[]"};

static int class_row_cmp(const void *x, const void *y)
{
    const hk_diff_class_row *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes < b->bytes ? 1 : -1;
    return strcmp(a->cls, b->cls);
}

int hk_diff_by_class(hk_diff *df, int side, hk_diff_class_row **rows, uint32_t *n)
{
    hk_dump *d = df->s[side].d;
    hkd_tally(df, side);
    uint32_t nslots = d->nclasses + 13, k = 0;
    hk_diff_class_row *acc = hk_xcalloc(nslots, sizeof *acc);
    for (uint32_t s = 0; s < nslots; s++) {
        if (!df->s[side].tally[s].objects) continue;
        acc[k] = df->s[side].tally[s];
        acc[k].cls = s < d->nclasses        ? (d->classes[s].name ? d->classes[s].name : "?")
                     : s < d->nclasses + 12 ? prim_names[s - d->nclasses]
                                            : "java.lang.Class";
        if (!acc[k].cls) acc[k].cls = "?";
        k++;
    }
    if (k > 1) qsort(acc, k, sizeof *acc, class_row_cmp);
    *rows = acc;
    *n = k;
    return 0;
}
