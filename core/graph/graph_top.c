/* The largest objects by one key (retained, shallow, native or retained native bytes): a
 * bounded min-heap of the best n while the objects are walked once, so `top --sort` never
 * builds a row per object. */
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>

typedef struct top_entry {
    uint64_t key, retained;
    uint32_t obj;
} top_entry;

static uint64_t key_of(hk_dump *d, const hk_graph *g, enum hk_top_key key, uint32_t i)
{
    switch (key) {
    case HK_TOP_SHALLOW: return hk_obj_shallow_size(d, i);
    case HK_TOP_NATIVE: return hk_graph_native_size(d, i);
    case HK_TOP_RETAINED_NATIVE: return hk_graph_retained_native(d, i);
    default: return hkg_retained(g, i);
    }
}

/* a ranks below b: a smaller key, then a smaller retained size, then a higher index */
static int below(const top_entry *a, const top_entry *b)
{
    if (a->key != b->key) return a->key < b->key;
    if (a->retained != b->retained) return a->retained < b->retained;
    return a->obj > b->obj;
}

static int best_first(const void *a, const void *b)
{
    return below(a, b) ? 1 : below(b, a) ? -1 : 0;
}

/* Puts e in the heap h[0..*n) of at most want entries whose root ranks lowest. */
static void heap_offer(top_entry *h, uint32_t *n, uint32_t want, top_entry e)
{
    uint32_t k;
    if (*n < want) {
        for (k = (*n)++; k && below(&e, &h[(k - 1) / 2]); k = (k - 1) / 2) h[k] = h[(k - 1) / 2];
    } else {
        for (k = 0;;) {
            uint32_t c = 2 * k + 1;
            if (c >= *n) break;
            if (c + 1 < *n && below(&h[c + 1], &h[c])) c++;
            if (!below(&h[c], &e)) break;
            h[k] = h[c];
            k = c;
        }
    }
    h[k] = e;
}

uint32_t hk_graph_top(hk_dump *d, uint32_t want, enum hk_top_key key, int live_only, hk_obj_filter keep, void *ctx,
                      uint32_t *out)
{
    hk_graph *g = hkg_of(d);
    if (!g || !g->retained || !want) return 0;
    if (live_only && !(g->done & HK_GRAPH_REACH)) return 0;
    top_entry *h = hk_xmalloc((size_t)want * sizeof *h);
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        top_entry e = {key_of(d, g, key, i), hkg_retained(g, i), i};
        if (n == want && !below(&h[0], &e)) continue;
        if (live_only && hkg_reach(g, i) != HK_REACH_STRONG) continue;
        if (keep && !keep(d, i, ctx)) continue;
        heap_offer(h, &n, want, e);
    }
    qsort(h, n, sizeof *h, best_first);
    for (uint32_t i = 0; i < n; i++) out[i] = h[i].obj;
    free(h);
    return n;
}
