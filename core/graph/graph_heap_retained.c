/* Retained bytes within one heap, as ahat defines them (AhatInstance.getRetainedSize(heap)):
 * the shallow bytes of an object's dominator subtree that lie in that heap.  A class's figure
 * for the heap sums them over its instances in the heap that no other instance of the class
 * dominates, as the whole-dump figure is defined (graph_class_retained.c). */
#include "graph/graph_internal.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdlib.h>

/* The walk goes depth first and meets the objects at random, so it reads no record nor the
 * index: an object's class comes from the codes, whether it is in the heap from a bit an
 * object made first in object order, and its shallow bytes from the retained sizes (its own
 * less its children's, which the walk reads as it enters them).  The whole dump's figure by
 * class comes on the way (a topmost instance's retained bytes), kept for its query. */
enum { BIT_PARTS = 32, WALK_PARTS = 16 };

typedef struct heap_walk {
    const hk_dump *d;
    const hk_graph *g;
    int heap;
    hkg_codes cs;
    uint64_t *in;              /* a bit an object: in the heap */
    uint64_t *per[WALK_PARTS]; /* per class and part (slot none: objects without a class) */
    uint64_t *all[WALK_PARTS]; /* the same for the whole dump's figure, found on the way */
} heap_walk;

/* The bits of objects [64 lo, 64 hi) from their records' offsets, which come in file order:
 * the heap is looked up once a run of them. */
static void bit_part(void *ctx, int k)
{
    heap_walk *w = ctx;
    const hk_dump *d = w->d;
    uint32_t lo, hi, n = w->g->n;
    hk_part_range((n + 63) / 64, k, BIT_PARTS, &lo, &hi);
    uint64_t from = 1, to = 0; /* the offsets of heap h's run: none yet */
    int h = -1;
    for (uint32_t x = lo; x < hi; x++) {
        uint64_t word = 0;
        for (uint32_t i = x * 64, e = i + 64 < n ? i + 64 : n; i < e; i++) {
            uint64_t off = hk_obj_offset(d, i);
            if (off < from || off >= to) h = hk_heap_at(d, off, &from, &to);
            /* a dump without heap records has one heap, as the index counts it */
            word |= (uint64_t)((h < 0 ? 0 : h) == w->heap) << (i & 63);
        }
        w->in[x] = word;
    }
}

/* A class object's heap is its class's (the histogram counts it there). */
static void class_bits(heap_walk *w)
{
    const hk_dump_view *v = hk_view(w->d);
    for (uint32_t c = 0; c < v->nclasses; c++) {
        uint32_t o = v->classes[c].object;
        if (o >= w->g->n) continue;
        const uint8_t *r = hk_obj_record(w->d, o);
        const uint32_t *k = *r == HPROF_CLASS_DUMP ? hk_idmap_get(&v->class_by_id, hk_be_id(w->d, r + 1)) : NULL;
        if (!k) continue;
        if (v->classes[*k].heap == w->heap) w->in[o / 64] |= 1ull << (o & 63);
        else w->in[o / 64] &= ~(1ull << (o & 63));
    }
}

/* A node on the walk: its next child, its class, whether it is in the heap and a topmost
 * instance of its class there (its figure counts), its retained bytes less its children's so
 * far (its shallow bytes once they are all entered), and its bytes in the heap so far. */
typedef struct heap_frame {
    uint32_t next, c;
    uint8_t in, top;
    uint64_t own, acc;
} heap_frame;

static heap_frame enter(const heap_walk *w, const uint32_t *open, uint32_t v)
{
    uint32_t c = hkg_code_at(&w->cs, v);
    uint8_t in = w->in[v / 64] >> (v & 63) & 1;
    return (heap_frame){w->g->kids[v].first, c, in, in && !open[c], hkg_retained(w->g, v), 0};
}

/* Depth first from a run of the virtual root's children, without recursion: a chain can be
 * millions deep.  No class is open above them, so each run is counted on its own; the parts'
 * sums are added in part order (integers: the same for any number of threads). */
static void walk_part(void *ctx, int k)
{
    heap_walk *w = ctx;
    const hk_graph *g = w->g;
    const hkg_kid *kids = g->kids;
    uint32_t lo, hi, nc = w->cs.none + 1;
    hk_part_range(g->nroot_kids, k, WALK_PARTS, &lo, &hi);
    uint64_t *per = w->per[k] = hk_xcalloc(nc, sizeof *per), *all = w->all[k] = hk_xcalloc(nc, sizeof *all);
    uint32_t *open = hk_xcalloc(nc, sizeof *open);
    heap_frame *st = NULL;
    size_t cap = 0, sp = 0;
    for (uint32_t r = lo; r < hi; r++) {
        st = hk_grow(st, &cap, 1, sizeof *st);
        st[sp] = enter(w, open, g->root_kids[r]);
        all[st[sp].c] += st[sp].own;
        open[st[sp++].c]++;
        while (sp) {
            heap_frame *t = &st[sp - 1];
            if (t->next != HK_NONE) {
                uint32_t v = t->next;
                t->next = kids[v].next;
                if (sp == cap) st = hk_grow(st, &cap, sp + 1, sizeof *st);
                st[sp] = enter(w, open, v);
                t = &st[sp - 1];
                t->own -= st[sp].own;
                if (!open[st[sp].c]) all[st[sp].c] += st[sp].own;
                open[st[sp++].c]++;
                continue;
            }
            open[t->c]--;
            if (t->in) t->acc += t->own;
            if (t->top) per[t->c] += t->acc;
            if (--sp) st[sp - 1].acc += t->acc;
        }
    }
    free(st);
    free(open);
}

int hk_graph_class_retained_heap(hk_dump *d, int heap, uint64_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (hk_graph_ensure(d, HK_GRAPH_DOM, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    if (!g->kids) hkg_build_kids(g, NULL);
    heap_walk w = {.d = d, .g = g, .heap = heap, .cs = hkg_object_codes(d, g->n)};
    w.in = hk_xmalloc(((size_t)g->n / 64 + 1) * sizeof *w.in);
    hk_parallel(BIT_PARTS, bit_part, &w);
    class_bits(&w);
    hk_parallel(WALK_PARTS, walk_part, &w);
    uint64_t *per = w.per[0], *all = w.all[0];
    for (int k = 1; k < WALK_PARTS; k++) {
        for (uint32_t c = 0; c <= w.cs.none; c++) per[c] += w.per[k][c], all[c] += w.all[k][c];
        free(w.per[k]);
        free(w.all[k]);
    }
    free(g->class_retained);
    g->class_retained = all;
    hkg_codes_done(d, g, &w.cs);
    free(w.in);
    hk_mem_trim();
    *out = per;
    return 0;
}
