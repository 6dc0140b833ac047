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

/* Per-class retained bytes, walked in tasks of about equal retained bytes: one object can hold
 * most of the heap (a map's table, a list), so the cut goes below the virtual root. A short
 * sequential top walk descends into the big nodes (more than a task's bytes), keeping the
 * counts of the classes open on its path, and hands out runs of a big node's other children
 * with the set of classes open there; the tasks run on the threads in parts with counts of
 * their own. Integer sums: the same for any number of threads. */
enum { WALK_PARTS = 16, WALK_TASKS = 64 };
typedef struct walk_task {
    uint32_t x, a, b;     /* the children kids[a..b) of node x, its big ones left out */
    uint32_t snap, nsnap; /* the classes open on the path to x, in walk_job.snaps */
    int part;
} walk_task;
typedef struct walk_stack {
    uint32_t *node, *pos;
    size_t cap_n, cap_p;
} walk_stack;
typedef struct walk_job {
    const hk_graph *g;
    const uint32_t *cls;
    uint32_t nc;
    uint64_t big; /* a node retaining more is walked by the top walk */
    walk_task *tasks;
    uint32_t ntasks, nsnaps, *snaps;
    size_t cap_t, cap_s;
    uint64_t load[WALK_PARTS]; /* bytes handed to each part */
    uint64_t *per[WALK_PARTS];
} walk_job;

static void stack_push(walk_stack *s, size_t sp, uint32_t node, uint32_t pos)
{
    s->node = hk_grow(s->node, &s->cap_n, sp + 1, sizeof *s->node);
    s->pos = hk_grow(s->pos, &s->cap_p, sp + 1, sizeof *s->pos);
    s->node[sp] = node;
    s->pos[sp] = pos;
}

/* Depth-first over the subtrees of x's children kids[a..b) that are not big: a node and the
 * next child to visit (the bottom frame ends at b). `open` counts the instances of each
 * class on the path and comes back as it came in. */
static void walk_run(const walk_job *j, uint32_t x, uint32_t a, uint32_t b, uint32_t *open, uint64_t *per,
                     walk_stack *s)
{
    const uint32_t *cls = j->cls, *kid_start = j->g->kid_start, *kids = j->g->kids;
    const uint64_t *ret = j->g->retained, big = j->big;
    walk_stack st = *s; /* in locals: the stores to per[] and open[] could alias its fields */
    size_t sp = 0;
    stack_push(&st, sp++, x, a);
    while (sp) {
        uint32_t y = st.node[sp - 1], k = st.pos[sp - 1];
        uint32_t end = sp == 1 ? b : kid_start[y + 1];
        if (k < end) {
            st.pos[sp - 1] = k + 1;
            if (k + 8 < end) { /* most nodes are leaves: ask for a later sibling's data */
                uint32_t w = kids[k + 8];
                __builtin_prefetch(&cls[w]);
                __builtin_prefetch(&kid_start[w]);
                __builtin_prefetch(&ret[w]);
            }
            uint32_t v = kids[k], c = cls[v];
            if (sp == 1 && ret[v] > big) continue; /* the top walk's */
            /* the set's retained size: only the topmost instances of a class count */
            if (c != HK_NONE && !open[c]) per[c] += ret[v];
            if (kid_start[v] == kid_start[v + 1]) continue; /* a leaf: nothing below to close */
            if (c != HK_NONE) open[c]++;
            stack_push(&st, sp++, v, kid_start[v]);
            continue;
        }
        if (--sp) {
            uint32_t c = cls[y];
            if (c != HK_NONE) open[c]--;
        }
    }
    *s = st;
}

static void walk_part(void *ctx, int part)
{
    walk_job *j = ctx;
    uint64_t *per = j->per[part] = hk_xcalloc(j->nc, sizeof *per);
    uint32_t *open = hk_xcalloc(j->nc, sizeof *open);
    walk_stack s = {0};
    for (uint32_t t = 0; t < j->ntasks; t++) {
        const walk_task *w = &j->tasks[t];
        if (w->part != part) continue;
        for (uint32_t i = 0; i < w->nsnap; i++) open[j->snaps[w->snap + i]] = 1;
        walk_run(j, w->x, w->a, w->b, open, per, &s);
        for (uint32_t i = 0; i < w->nsnap; i++) open[j->snaps[w->snap + i]] = 0;
    }
    free(open);
    free(s.node);
    free(s.pos);
}

/* Hands out x's children kids[a..b) with the classes open now, to the least loaded part. */
static void add_task(walk_job *j, const uint32_t *open, uint32_t x, uint32_t a, uint32_t b, uint64_t bytes)
{
    j->tasks = hk_grow(j->tasks, &j->cap_t, (size_t)j->ntasks + 1, sizeof *j->tasks);
    walk_task *t = &j->tasks[j->ntasks++];
    int part = 0;
    for (int p = 1; p < WALK_PARTS; p++)
        if (j->load[p] < j->load[part]) part = p;
    j->load[part] += bytes;
    *t = (walk_task){x, a, b, j->nsnaps, 0, part};
    for (uint32_t c = 0; c < j->nc; c++) {
        if (!open[c]) continue;
        j->snaps = hk_grow(j->snaps, &j->cap_s, (size_t)j->nsnaps + 1, sizeof *j->snaps);
        j->snaps[j->nsnaps++] = c;
        t->nsnap++;
    }
}

/* The sequential top walk over the big nodes: a frame is a node, its next child and the run
 * of its small children not yet handed out (from `from`, `acc` bytes). A run is handed out
 * once it holds a task's bytes, so there are at most WALK_TASKS; each big node's last short
 * run is walked here. */
typedef struct top_frame { /* 16 bytes: one per level of a chain millions deep */
    uint32_t x, k, from;
    uint32_t acc; /* at most the cut below */
} top_frame;
static void top_walk(walk_job *j, uint64_t *per)
{
    const hk_graph *g = j->g;
    uint32_t *open = hk_xcalloc(j->nc, sizeof *open);
    top_frame *f = NULL;
    /* a run's bytes to hand it out, in 32 bits (a heap over 256 GB gets more tasks) */
    const uint32_t cut = j->big < UINT32_MAX ? (uint32_t)j->big : UINT32_MAX;
    size_t cap = 0, sp = 0;
    walk_stack run = {0};
    f = hk_grow(f, &cap, 1, sizeof *f);
    f[sp++] = (top_frame){g->n, g->kid_start[g->n], g->kid_start[g->n], 0};
    while (sp) {
        top_frame *t = &f[sp - 1];
        uint32_t end = g->kid_start[t->x + 1];
        if (t->k < end) {
            uint32_t w = g->kids[t->k++];
            if (g->retained[w] > j->big) {
                uint32_t c = j->cls[w];
                if (c != HK_NONE && !open[c]++) per[c] += g->retained[w];
                f = hk_grow(f, &cap, sp + 1, sizeof *f);
                f[sp++] = (top_frame){w, g->kid_start[w], g->kid_start[w], 0};
                continue;
            }
            uint64_t acc = t->acc + g->retained[w];
            t->acc = acc < cut ? (uint32_t)acc : cut;
            if (t->acc >= cut) {
                add_task(j, open, t->x, t->from, t->k, t->acc);
                t->from = t->k;
                t->acc = 0;
            }
            continue;
        }
        if (t->from < end) walk_run(j, t->x, t->from, end, open, per, &run);
        if (--sp && j->cls[t->x] != HK_NONE) open[j->cls[t->x]]--;
    }
    free(open);
    free(f);
    free(run.node);
    free(run.pos);
}

int hk_graph_class_retained(hk_dump *d, uint64_t **out, char *err, size_t errlen)
{
    hk_graph *g = d->graph;
    *out = NULL;
    if (!g || !g->retained) {
        snprintf(err, errlen, "graph: dominators not computed");
        return -1;
    }
    /* child lists in any order (the sums do not depend on it): not sorted here */
    if (!g->kid_start) build_kids(g);
    walk_job j = {.g = g, .cls = object_classes(d, g->n), .nc = d->nclasses ? d->nclasses : 1};
    uint64_t total = 0, *per = hk_xcalloc(j.nc, sizeof *per);
    for (uint32_t k = g->kid_start[g->n]; k < g->kid_start[g->n + 1]; k++) total += g->retained[g->kids[k]];
    j.big = total / WALK_TASKS + 1;
    top_walk(&j, per);
    if (j.ntasks) hk_parallel(WALK_PARTS, walk_part, &j);
    for (int k = 0; k < WALK_PARTS; k++) {
        for (uint32_t c = 0; j.per[k] && c < j.nc; c++) per[c] += j.per[k][c];
        free(j.per[k]);
    }
    free(j.tasks);
    free(j.snaps);
    free((void *)j.cls);
    hk_mem_trim();
    *out = per;
    return 0;
}
