/* Per-class retained bytes: for each class, the retained size of the set of its instances,
 * which is the sum of the retained sizes of its topmost instances in the dominator tree (those
 * with no instance of the class above them). */
#include "graph/graph_internal.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

enum { WALK_PARTS = 16, WALK_TASKS = 64 };

/* The walk, in tasks of about equal retained bytes: one object can hold most of the heap (a
 * map's table, a list), so the cut goes below the virtual root. A short sequential top walk
 * descends into the big nodes (more than a task's bytes), keeping the counts of the classes
 * open on its path, and hands out runs of a big node's other children with the set of classes
 * open there; the tasks run on the threads in parts with counts of their own. Integer sums:
 * the same for any number of threads. */
typedef struct walk_task {
    uint32_t from, count; /* a run of siblings, big nodes left out */
    uint32_t snap, nsnap; /* the classes open above them, in walk_job.snaps */
    int part;
} walk_task;
/* A node being walked: the next child to visit (HK_NONE: no more), how many of its children
 * are left (a run's count at the bottom, else all) and the node's class, closed when it ends. */
typedef struct walk_frame {
    uint32_t u, left, c;
} walk_frame;
typedef struct walk_stack {
    walk_frame *f;
    size_t cap;
} walk_stack;
typedef struct walk_job {
    const hk_graph *g;
    const hkg_kid *node; /* the child lists */
    hkg_codes cs;
    uint32_t nc;  /* classes, with the slot for none */
    uint64_t big; /* a node retaining more is walked by the top walk */
    walk_task *tasks;
    uint32_t ntasks, nsnaps, *snaps;
    size_t cap_t, cap_s;
    uint64_t load[WALK_PARTS]; /* bytes handed to each part */
    uint64_t *per[WALK_PARTS];
} walk_job;

/* Depth-first over the subtrees of a run of `count` siblings from u that are not big.  `open`
 * counts the instances of each class on the path and comes back as it came in. */
static void walk_run(const walk_job *j, uint32_t u, uint32_t count, uint32_t *open, uint64_t *per, walk_stack *s)
{
    const hkg_kid *node = j->node;
    const hk_graph *g = j->g;
    const uint64_t big = j->big;
    const hkg_codes cs = j->cs;
    walk_stack st = *s; /* in locals: the stores to per[] and open[] could alias its fields */
    size_t sp = 0;
    st.f = hk_grow(st.f, &st.cap, 1, sizeof *st.f);
    st.f[sp++] = (walk_frame){u, count, cs.none};
    while (sp) {
        walk_frame *t = &st.f[sp - 1];
        uint32_t v = t->u;
        if (v == HK_NONE || !t->left) {
            if (--sp) open[t->c]--; /* the bottom frame is the run's, not a node's */
            continue;
        }
        t->u = node[v].next;
        uint64_t rv = hkg_retained(g, v);
        if (sp == 1 && rv > big) continue; /* the top walk's, not counted in the run */
        t->left--;
        /* the set's retained size: only the topmost instances of a class count */
        uint32_t c = hkg_code_at(&cs, v), first = node[v].first;
        if (!open[c]) per[c] += rv;
        if (first == HK_NONE) continue; /* a leaf: nothing below to close */
        open[c]++;
        /* the call only when full: its register spills cost on every node otherwise */
        if (sp == st.cap) st.f = hk_grow(st.f, &st.cap, sp + 1, sizeof *st.f);
        st.f[sp++] = (walk_frame){first, UINT32_MAX, c};
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
        walk_run(j, w->from, w->count, open, per, &s);
        for (uint32_t i = 0; i < w->nsnap; i++) open[j->snaps[w->snap + i]] = 0;
    }
    free(open);
    free(s.f);
}

/* Hands out a run of count siblings from `from` with the classes open now, to the least
 * loaded part. */
static void add_task(walk_job *j, const uint32_t *open, uint32_t from, uint32_t count, uint64_t bytes)
{
    j->tasks = hk_grow(j->tasks, &j->cap_t, (size_t)j->ntasks + 1, sizeof *j->tasks);
    walk_task *t = &j->tasks[j->ntasks++];
    int part = 0;
    for (int p = 1; p < WALK_PARTS; p++)
        if (j->load[p] < j->load[part]) part = p;
    j->load[part] += bytes;
    *t = (walk_task){from, count, j->nsnaps, 0, part};
    for (uint32_t c = 0; c < j->cs.none; c++) {
        if (!open[c]) continue;
        j->snaps = hk_grow(j->snaps, &j->cap_s, (size_t)j->nsnaps + 1, sizeof *j->snaps);
        j->snaps[j->nsnaps++] = c;
        t->nsnap++;
    }
}

/* The sequential top walk over the big nodes.  A chain of big nodes can be millions deep (a
 * linked list: each node retains the rest), so the walk keeps no frame per level: it goes down
 * a big node's child list and back up through the immediate dominators, and a level holds
 * memory only while it has a run of small children not yet handed out (count from `from`,
 * `acc` bytes).  A run is handed out once it holds a task's bytes, and a level's last short
 * run when the level ends. */
typedef struct top_run {
    size_t depth; /* the level it belongs to */
    uint32_t from, count;
    uint32_t acc; /* at most the cut below */
} top_run;
static void top_walk(walk_job *j, uint64_t *per)
{
    const hk_graph *g = j->g;
    const hkg_kid *node = j->node;
    uint32_t *open = hk_xcalloc(j->nc, sizeof *open);
    top_run *r = NULL;
    /* a run's bytes to hand it out, in 32 bits (a heap over 256 GB gets more tasks) */
    const uint32_t cut = j->big < UINT32_MAX ? (uint32_t)j->big : UINT32_MAX;
    size_t cap = 0, nr = 0, depth = 0;
    /* the root's level goes through its array (pos); below it u is the next child of up */
    uint32_t pos = 0, up = HK_NONE, u = HK_NONE;
    for (;;) {
        uint32_t w = depth ? u : pos < g->nroot_kids ? g->root_kids[pos] : HK_NONE;
        if (w != HK_NONE) {
            if (depth) u = node[w].next;
            else if (++pos + 16 < g->nroot_kids) __builtin_prefetch(&g->retained[g->root_kids[pos + 16]]);
            uint64_t rw = hkg_retained(g, w);
            if (rw > j->big) {
                uint32_t c = hkg_code_at(&j->cs, w);
                if (c != j->cs.none && !open[c]++) per[c] += rw;
                up = w;
                u = node[w].first;
                depth++;
                continue;
            }
            if (!nr || r[nr - 1].depth != depth) {
                r = hk_grow(r, &cap, nr + 1, sizeof *r);
                r[nr++] = (top_run){depth, w, 0, 0};
            }
            top_run *t = &r[nr - 1];
            if (!t->count) t->from = w;
            t->count++;
            uint64_t acc = t->acc + rw;
            t->acc = acc < cut ? (uint32_t)acc : cut;
            if (t->acc >= cut) {
                add_task(j, open, t->from, t->count, t->acc);
                t->count = t->acc = 0;
            }
            continue;
        }
        if (nr && r[nr - 1].depth == depth) {
            top_run *t = &r[--nr];
            if (t->count) add_task(j, open, t->from, t->count, t->acc);
        }
        if (!depth) break;
        uint32_t c = hkg_code_at(&j->cs, up);
        if (c != j->cs.none) open[c]--;
        u = node[up].next;
        up = g->idom[up];
        depth--;
    }
    free(open);
    free(r);
}

/* Dominators when not computed yet, asked for by the walk: their scratch becomes the retained
 * sizes and the child lists instead of being given back to the system, which would fault
 * fresh pages in for them. */
int hk_graph_plan_class_retained(hk_dump *d, char *err, size_t errlen)
{
    if (hk_graph_plan(d, 0, NULL, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    if (!(g->done & HK_GRAPH_DOM)) g->walk_classes = 1;
    return 0;
}

static int walk_dominators(hk_dump *d, char *err, size_t errlen)
{
    if (hk_graph_plan_class_retained(d, err, errlen)) return -1;
    return hk_graph_ensure(d, HK_GRAPH_DOM, err, errlen);
}

int hk_graph_class_retained(hk_dump *d, uint64_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (walk_dominators(d, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    if (g->class_retained) { /* a walk within a heap found them */
        size_t bytes = ((size_t)hk_view(d)->nclasses + 1) * sizeof **out;
        *out = memcpy(hk_xmalloc(bytes), g->class_retained, bytes);
        return 0;
    }
    if (!g->kids) hkg_build_kids(g, NULL);
    walk_job j = {.g = g, .node = g->kids, .cs = hkg_object_codes(d, g->n), .nc = hk_view(d)->nclasses + 1};
    uint64_t total = 0, *per = hk_xcalloc(j.nc, sizeof *per);
    for (uint32_t k = 0; k < g->nroot_kids; k++) {
        if (k + 16 < g->nroot_kids) __builtin_prefetch(&g->retained[g->root_kids[k + 16]]);
        total += hkg_retained(g, g->root_kids[k]);
    }
    j.big = total / WALK_TASKS + 1;
    top_walk(&j, per);
    if (j.ntasks) hk_parallel(WALK_PARTS, walk_part, &j);
    for (int k = 0; k < WALK_PARTS; k++) {
        for (uint32_t c = 0; j.per[k] && c < j.nc; c++) per[c] += j.per[k][c];
        free(j.per[k]);
    }
    free(j.tasks);
    free(j.snaps);
    hkg_codes_done(d, g, &j.cs);
    hk_mem_trim();
    *out = per;
    return 0;
}
