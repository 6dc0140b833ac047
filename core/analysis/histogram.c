/* The class histogram, from the per-class, per-heap tallies the index keeps. */
#include "analysis/histogram.h"
#include "hprof/hprof_view.h"
#include "util/hk_buf.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hist_cmp(const void *a, const void *b)
{
    const hk_hist_row *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The heap numbered by name, -1 for all; -2 (with err listing the dump's heaps) when absent. */
static int heap_named(const hk_dump *d, const char *heap, char *err, size_t errlen)
{
    if (!heap || !*heap) return -1;
    int h = hk_heap_index(d, heap);
    if (h >= 0) return h;
    hk_buf b;
    hk_buf_init(&b);
    hk_heap_names(d, &b);
    snprintf(err, errlen, "no heap named '%s' in this dump (heaps: %s)", heap, b.len ? hk_buf_cstr(&b) : "none");
    hk_buf_free(&b);
    return -2;
}

/* Adds one heap's tallies (or all heaps', only < 0) to a row, and keeps the row if it counts. */
static void add_row(hk_hist_row *rows, size_t *n, const char *name, hk_tally t, int only)
{
    hk_hist_row r = {name, 0, 0};
    for (int h = 0; h < HK_MAX_HEAPS; h++) {
        if (only >= 0 && h != only) continue;
        r.count += t.count[h];
        r.bytes += t.bytes[h];
    }
    if (r.count) rows[(*n)++] = r;
}

int hk_histogram(const hk_dump *d, const char *heap, hk_hist_row **rows, size_t *n, char *err, size_t errlen)
{
    static const char *const prim_names[12] = {0,         0,          0,        0,         "boolean[]", "char[]",
                                               "float[]", "double[]", "byte[]", "short[]", "int[]",     "long[]"};
    int only = heap_named(d, heap, err, errlen);
    if (only < -1) return -1;
    /* a row per class, per primitive array type (4..11) and one for the class objects */
    hk_hist_row *r = hk_xcalloc((size_t)hk_view(d)->nclasses + 9, sizeof *r);
    size_t k = 0;
    for (uint32_t c = 0; c < hk_view(d)->nclasses; c++)
        add_row(r, &k, hk_view(d)->classes[c].name, hk_class_tally(d, c), only);
    for (int t = 4; t < 12; t++) add_row(r, &k, prim_names[t], hk_prim_tally(d, t), only);
    add_row(r, &k, "java.lang.Class", hk_class_object_tally(d), only);
    qsort(r, k, sizeof *r, hist_cmp);
    *rows = r;
    *n = k;
    return 0;
}
