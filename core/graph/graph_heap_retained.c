/* Retained bytes within one heap, as ahat defines them (AhatInstance.getRetainedSize(heap)):
 * the shallow bytes of an object's dominator subtree that lie in that heap.  A class's figure
 * for the heap sums them over its instances in the heap that no other instance of the class
 * dominates, as the whole-dump figure is defined (graph_class_retained.c). */
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

/* An object's heap and class; a class object's heap is its class's, its class java.lang.Class
 * (HK_NONE without one), as the histogram counts them. */
static void heap_and_class(const hk_dump *d, uint32_t i, hk_class_memo *m, int *heap, uint32_t *cls)
{
    const uint8_t *r = hk_obj_record(d, i);
    *heap = hk_obj_heap(d, i);
    *cls = hk_obj_class_memo(d, i, m);
    if (*r == HPROF_CLASS_DUMP) {
        const uint32_t *c = hk_idmap_get(&hk_view(d)->class_by_id, hk_be_id(d, r + 1));
        if (c) *heap = hk_view(d)->classes[*c].heap;
    }
    if (*heap < 0) *heap = 0; /* a dump without heap records: one heap, as the index counts it */
}

/* A node on the walk: its next child, its class, its bytes in the heap so far, and whether it
 * is a topmost instance of its class in the heap (its figure counts). */
typedef struct heap_frame {
    uint32_t next, c;
    int top;
    uint64_t acc;
} heap_frame;

typedef struct heap_walk {
    const hk_dump *d;
    const hk_graph *g;
    int heap;
    hkg_sizer sz;
    hk_class_memo memo;
    uint32_t *open; /* instances of each class on the path (slot nclasses: none) */
    uint64_t *per;  /* per class (slot nclasses: none) */
} heap_walk;

static heap_frame enter(heap_walk *w, uint32_t v)
{
    int h;
    uint32_t c;
    heap_and_class(w->d, v, &w->memo, &h, &c);
    if (c == HK_NONE) c = hk_view(w->d)->nclasses;
    heap_frame f = {w->g->kids[v].first, c, 0, 0};
    if (h == w->heap) {
        f.acc = hkg_shallow(w->d, &w->sz, v);
        f.top = !w->open[c];
    }
    w->open[c]++;
    return f;
}

/* Depth first from the virtual root's children, without recursion: a chain can be millions
 * deep. */
static void walk(heap_walk *w)
{
    const hk_graph *g = w->g;
    heap_frame *st = NULL;
    size_t cap = 0, sp = 0;
    for (uint32_t k = 0; k < g->nroot_kids; k++) {
        st = hk_grow(st, &cap, 1, sizeof *st);
        st[sp++] = enter(w, g->root_kids[k]);
        while (sp) {
            heap_frame *t = &st[sp - 1];
            if (t->next != HK_NONE) {
                uint32_t v = t->next;
                t->next = g->kids[v].next;
                st = hk_grow(st, &cap, sp + 1, sizeof *st);
                st[sp++] = enter(w, v);
                continue;
            }
            w->open[t->c]--;
            if (t->top) w->per[t->c] += t->acc;
            if (--sp) st[sp - 1].acc += t->acc;
        }
    }
    free(st);
}

int hk_graph_class_retained_heap(hk_dump *d, int heap, uint64_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (hk_graph_ensure(d, HK_GRAPH_DOM, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    if (!g->kids) hkg_build_kids(g, NULL);
    heap_walk w = {d,
                   g,
                   heap,
                   {0},
                   HK_CLASS_MEMO,
                   hk_xcalloc((size_t)hk_view(d)->nclasses + 1, sizeof(uint32_t)),
                   hk_xcalloc((size_t)hk_view(d)->nclasses + 1, sizeof(uint64_t))};
    walk(&w);
    free(w.open);
    *out = w.per;
    return 0;
}
