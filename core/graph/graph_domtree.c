/* Queries over the dominator tree: immediate dominators, retained sizes, child lists, the
 * largest objects and per-class retained bytes. */
#include "graph/graph_internal.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TREE_PARTS = 32 };

uint32_t hk_graph_idom(hk_dump *d, uint32_t obj)
{
    hk_graph *g = d->graph;
    return g && g->idom && obj < g->n ? g->idom[obj] : HK_NONE;
}

uint64_t hk_graph_retained(hk_dump *d, uint32_t obj)
{
    hk_graph *g = d->graph;
    if (!g || !g->retained) return 0;
    return obj == HK_NONE ? g->total_bytes : obj < g->n ? g->retained[obj] : 0;
}

uint64_t hk_graph_retained_native(hk_dump *d, uint32_t obj)
{
    hk_graph *g = d->graph;
    uint64_t v = 0;
    if (!g || !g->retained) return 0;
    if (obj == HK_NONE) return g->total_native;
    if (obj < g->n && (g->flags[obj] & HKG_F_RNATIVE)) hk_idtab_get(&g->retained_native, (uint64_t)obj + 1, &v);
    return v;
}

uint64_t hk_graph_total_bytes(hk_dump *d)
{
    return hk_graph_retained(d, HK_NONE);
}
uint64_t hk_graph_total_native(hk_dump *d)
{
    return hk_graph_retained_native(d, HK_NONE);
}

int hk_graph_virtual_child(hk_dump *d, uint32_t obj)
{
    hk_graph *g = d->graph;
    return g && g->idom && obj < g->n && (g->flags[obj] & HKG_F_VROOT) != 0;
}

/* The dominator tree's child lists: a counting sort of the objects by immediate dominator
 * (slot n is the virtual root), each part owning a range of parents and reading every
 * object in order, so lists come out in object order for any number of threads. */
typedef struct kids_job {
    hk_graph *g;
    uint32_t *ks, *kids;
    int nparts; /* each reads every object: one per thread */
} kids_job;
static inline uint32_t dom_slot(const hk_graph *g, uint32_t i)
{
    return g->idom[i] == HK_NONE ? g->n : g->idom[i];
}
static void count_kids_part(void *ctx, int k)
{
    kids_job *j = ctx;
    uint32_t lo, hi, sink = 0;
    hk_part_range(j->g->n + 1, k, j->nparts, &lo, &hi);
    for (uint32_t i = 0; i < j->g->n; i++) {
        uint32_t p = dom_slot(j->g, i);
        uint32_t *cell = p - lo < hi - lo ? &j->ks[p + 2] : &sink;
        (*cell)++;
    }
}
static void place_kids_part(void *ctx, int k)
{
    kids_job *j = ctx;
    uint32_t lo, hi;
    hk_part_range(j->g->n + 1, k, j->nparts, &lo, &hi);
    for (uint32_t i = 0; i < j->g->n; i++) {
        uint32_t p = dom_slot(j->g, i);
        if (p - lo < hi - lo) j->kids[j->ks[p + 1]++] = i;
    }
}

static void build_kids(hk_graph *g)
{
    const uint32_t cnt = g->n;
    kids_job j = {g, hk_xcalloc((size_t)cnt + 3, sizeof *j.ks), hk_xrealloc(NULL, ((size_t)cnt + 1) * sizeof *j.kids),
                  hk_jobs()};
    hk_parallel(j.nparts, count_kids_part, &j);
    for (uint32_t i = 2; i < cnt + 3; i++) j.ks[i] += j.ks[i - 1];
    hk_parallel(j.nparts, place_kids_part, &j);
    g->kid_start = j.ks;
    g->kids = j.kids;
    g->kids_sorted = hk_xcalloc((size_t)cnt + 1, 1);
}

static int by_retained_desc(const void *a, const void *b, void *ctx)
{
    const uint64_t *r = ctx;
    uint64_t x = r[*(const uint32_t *)a], y = r[*(const uint32_t *)b];
    if (x != y) return x < y ? 1 : -1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Sorts a child list by by_retained_desc's order: most lists are short, where an insertion
 * sort beats qsort_r's call per comparison. */
static void sort_kids(uint32_t *v, uint32_t n, const uint64_t *r)
{
    if (n > 16) {
        qsort_r(v, n, sizeof *v, by_retained_desc, (void *)r);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = v[i], j = i;
        for (; j && (r[v[j - 1]] < r[x] || (r[v[j - 1]] == r[x] && v[j - 1] > x)); j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

int hk_graph_dominated(hk_dump *d, uint32_t obj, const uint32_t **out, uint32_t *n, char *err, size_t errlen)
{
    hk_graph *g = d->graph;
    *out = NULL;
    *n = 0;
    if (!g || !g->idom) {
        snprintf(err, errlen, "graph: dominators not computed");
        return -1;
    }
    const uint32_t cnt = g->n;
    if (!g->kid_start) build_kids(g);
    uint32_t p = obj == HK_NONE ? cnt : obj;
    if (p > cnt) {
        snprintf(err, errlen, "graph: no object %u", obj);
        return -1;
    }
    /* sorted on demand: a walk of the whole tree (class_retained) needs no order */
    if (!g->kids_sorted[p]) {
        if (g->kid_start[p + 1] - g->kid_start[p] > 1)
            sort_kids(g->kids + g->kid_start[p], g->kid_start[p + 1] - g->kid_start[p], g->retained);
        g->kids_sorted[p] = 1;
    }
    *out = g->kids + g->kid_start[p];
    *n = g->kid_start[p + 1] - g->kid_start[p];
    return 0;
}

uint32_t hk_graph_top_retained(hk_dump *d, uint32_t want, int live_only, uint32_t *out)
{
    hk_graph *g = d->graph;
    if (!g || !g->retained || !want) return 0;
    if (live_only && !(g->done & HK_GRAPH_REACH)) return 0;
    const uint64_t *r = g->retained;
    /* a min-heap of the best `want` so far */
    uint32_t h = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        if (h == want && r[i] <= r[out[0]]) continue;
        if (live_only && hkg_reach(g, i) != HK_REACH_STRONG) continue;
        uint32_t k;
        if (h < want) {
            k = h++;
            while (k && r[out[(k - 1) / 2]] > r[i]) {
                out[k] = out[(k - 1) / 2];
                k = (k - 1) / 2;
            }
        } else {
            k = 0;
            for (;;) {
                uint32_t c = 2 * k + 1;
                if (c >= h) break;
                if (c + 1 < h && r[out[c + 1]] < r[out[c]]) c++;
                if (r[out[c]] >= r[i]) break;
                out[k] = out[c];
                k = c;
            }
        }
        out[k] = i;
    }
    qsort_r(out, h, sizeof *out, by_retained_desc, (void *)r);
    return h;
}

/* Each object's class (class objects as java.lang.Class), read from the records in parts on
 * the threads: the walk of the dominator tree visits objects in tree order, where reading
 * each record there missed the cache on nearly every object. */
typedef struct cls_job {
    hk_dump *d;
    uint32_t *cls, n;
} cls_job;
static void classes_part(void *ctx, int k)
{
    cls_job *j = ctx;
    uint32_t lo, hi;
    hk_part_range(j->n, k, TREE_PARTS, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++)
        j->cls[i] = hk_obj_kind(j->d, i) == HK_KIND_CLASS ? HK_NONE : hk_obj_class(j->d, i);
}

static uint32_t *object_classes(hk_dump *d, uint32_t n)
{
    cls_job j = {d, NULL, n};
    /* a dump whose per-class lists exist (a query asked for instances) gives them without
     * reading a record */
    if (d->by_class) j.cls = hk_class_of_objects(d);
    else {
        j.cls = hk_xrealloc(NULL, ((size_t)n + 1) * sizeof *j.cls);
        hk_parallel(TREE_PARTS, classes_part, &j);
    }
    j.cls[n] = HK_NONE;
    for (uint32_t c = 0; c < d->nclasses; c++)
        if (d->classes[c].object != HK_NONE) j.cls[d->classes[c].object] = d->class_class;
    return j.cls;
}

/* Per-class retained bytes over the subtrees of a run of the virtual root's children (cut by
 * their retained bytes), each run on a thread with counts of its own: integer sums, the same
 * in any order. */
enum { WALK_PARTS = 16 };
typedef struct walk_job {
    const hk_graph *g;
    const uint32_t *cls;
    uint32_t nc;
    uint32_t cut[WALK_PARTS + 1]; /* positions in the virtual root's child list */
    uint64_t *per[WALK_PARTS];
} walk_job;

/* Depth-first over the dominator tree below the part's children of the virtual root: a node,
 * and the next child to visit (the bottom frame ends at the part's last child). */
static void walk_part(void *ctx, int part)
{
    walk_job *j = ctx;
    const hk_graph *g = j->g;
    const uint32_t *cls = j->cls;
    uint64_t *per = j->per[part] = hk_xcalloc(j->nc, sizeof *per);
    /* instances of each class open on the current dominator-tree path */
    uint32_t *open = hk_xcalloc(j->nc, sizeof *open), *snode = NULL, *spos = NULL;
    size_t sp = 0, cap_n = 0, cap_p = 0;
    snode = hk_grow(snode, &cap_n, 1, sizeof *snode);
    spos = hk_grow(spos, &cap_p, 1, sizeof *spos);
    snode[sp] = g->n;
    spos[sp++] = g->kid_start[g->n] + j->cut[part];
    while (sp) {
        uint32_t x = snode[sp - 1], k = spos[sp - 1];
        uint32_t end = sp == 1 ? g->kid_start[g->n] + j->cut[part + 1] : g->kid_start[x + 1];
        if (k < end) {
            spos[sp - 1] = k + 1;
            if (k + 8 < end) { /* most nodes are leaves: ask for a later sibling's data */
                uint32_t w = g->kids[k + 8];
                __builtin_prefetch(&cls[w]);
                __builtin_prefetch(&g->kid_start[w]);
                __builtin_prefetch(&g->retained[w]);
            }
            uint32_t v = g->kids[k], c = cls[v];
            if (c != HK_NONE) {
                /* the set's retained size: only the topmost instances of a class count */
                if (!open[c]) per[c] += g->retained[v];
                open[c]++;
            }
            snode = hk_grow(snode, &cap_n, sp + 1, sizeof *snode);
            spos = hk_grow(spos, &cap_p, sp + 1, sizeof *spos);
            snode[sp] = v;
            spos[sp++] = g->kid_start[v];
            continue;
        }
        sp--;
        uint32_t c = cls[x];
        if (c != HK_NONE) open[c]--;
    }
    free(open);
    free(snode);
    free(spos);
}

/* Cuts the virtual root's children into runs of about equal retained bytes. */
static void cut_roots(walk_job *j, const uint32_t *kids, uint32_t nk)
{
    uint64_t total = 0, acc = 0;
    for (uint32_t k = 0; k < nk; k++) total += j->g->retained[kids[k]];
    int part = 1;
    for (uint32_t k = 0; k < nk && part < WALK_PARTS; k++) {
        acc += j->g->retained[kids[k]];
        while (part < WALK_PARTS && acc >= total / WALK_PARTS * part) j->cut[part++] = k + 1;
    }
    while (part <= WALK_PARTS) j->cut[part++] = nk;
}

int hk_graph_class_retained(hk_dump *d, uint64_t **out, char *err, size_t errlen)
{
    hk_graph *g = d->graph;
    *out = NULL;
    if (!g || !g->retained) {
        snprintf(err, errlen, "graph: dominators not computed");
        return -1;
    }
    /* the virtual root's children in any order (the sums do not depend on it): not sorted
     * here, a walk needs no order */
    if (!g->kid_start) build_kids(g);
    const uint32_t *kids = g->kids + g->kid_start[g->n];
    uint32_t nk = g->kid_start[g->n + 1] - g->kid_start[g->n];
    walk_job j = {g, object_classes(d, g->n), d->nclasses ? d->nclasses : 1, {0}, {NULL}};
    cut_roots(&j, kids, nk);
    hk_parallel(WALK_PARTS, walk_part, &j);
    for (int k = 1; k < WALK_PARTS; k++) {
        for (uint32_t c = 0; c < j.nc; c++) j.per[0][c] += j.per[k][c];
        free(j.per[k]);
    }
    free((void *)j.cls);
    hkg_trim();
    *out = j.per[0];
    return 0;
}
