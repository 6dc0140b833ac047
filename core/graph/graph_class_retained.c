/* Per-class retained bytes: for each class, the retained size of the set of its instances,
 * which is the sum of the retained sizes of its topmost instances in the dominator tree (those
 * with no instance of the class above them). */
#include "graph/graph_internal.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CODE_PARTS = 32, WALK_PARTS = 16, WALK_TASKS = 64 };

/* Each object's class as a code: the class index (`none` for an object without one) with the
 * `leaf` bit set when the object dominates nothing.  The walk reads them in child-list order,
 * beside the list it walks, so a leaf costs no read of its own child list and no class look-up
 * elsewhere in memory.  16 bits when the classes fit (nearly every dump), which keeps the two
 * copies (by object, then by list position) within what one 32-bit copy took. */
typedef struct codes {
    uint16_t *c16;
    uint32_t *c32;
    uint32_t leaf, none;
} codes;
static inline uint32_t code_at(const codes *s, uint32_t i)
{
    return s->c16 ? s->c16[i] : s->c32[i];
}
static inline void code_put(codes *s, uint32_t i, uint32_t v)
{
    if (s->c16) s->c16[i] = (uint16_t)v;
    else s->c32[i] = v;
}
static inline const void *code_addr(const codes *s, uint32_t i)
{
    return s->c16 ? (const void *)&s->c16[i] : (const void *)&s->c32[i];
}
static void codes_alloc(codes *s, uint32_t nclasses, uint32_t n)
{
    int narrow = nclasses < 0x7fff;
    s->leaf = narrow ? 0x8000u : 0x80000000u;
    s->none = s->leaf - 1;
    size_t bytes = ((size_t)n + 1) * (narrow ? sizeof *s->c16 : sizeof *s->c32);
    void *p = hk_xmalloc(bytes);
    s->c16 = narrow ? p : NULL;
    s->c32 = narrow ? NULL : p;
}
static void codes_free(codes *s)
{
    free(s->c16);
    free(s->c32);
}

typedef struct code_job {
    const hk_dump *d;
    const hk_graph *g;
    codes *obj, *kid;
} code_job;

static inline uint32_t leaf_bit(const code_job *j, uint32_t i)
{
    return j->g->kid_start[i] == j->g->kid_start[i + 1] ? j->obj->leaf : 0;
}

/* An object's class from its record, as hk_obj_class gives it, except class objects (HK_NONE
 * here, set apart below).  Neighbours are mostly instances of one class: the last look-up is
 * kept. */
typedef struct class_memo {
    hk_id id;
    uint32_t c;
} class_memo;
static uint32_t record_class(const hk_dump *d, class_memo *m, uint32_t i)
{
    const uint8_t *r = d->data + hk_obj_offset(d, i);
    hk_id id;
    switch (*r) {
    case HPROF_CLASS_DUMP: return HK_NONE;
    case HPROF_INSTANCE_DUMP: id = hk_rec_instance_class(d, r); break;
    case HPROF_OBJ_ARRAY_DUMP: id = hk_be_id(d, r + 1 + d->id_size + 8); break;
    default: {
        int t = r[1 + d->id_size + 8];
        return t < 12 ? d->prim_array_class[t] : HK_NONE;
    }
    }
    if (id != m->id) {
        const uint32_t *c = hk_idmap_get(&d->class_by_id, id);
        m->id = id;
        m->c = c ? *c : HK_NONE;
    }
    return m->c;
}

static void record_codes_part(void *ctx, int k)
{
    code_job *j = ctx;
    uint32_t lo, hi;
    class_memo m = {0, HK_NONE}; /* id 0 names no class */
    hk_part_range(j->g->n, k, CODE_PARTS, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t c = record_class(j->d, &m, i);
        code_put(j->obj, i, (c == HK_NONE ? j->obj->none : c) | leaf_bit(j, i));
    }
}

/* With the per-class lists built (a query asked for instances), the classes come from them
 * without reading a record: every object starts without one. */
static void blank_codes_part(void *ctx, int k)
{
    code_job *j = ctx;
    uint32_t lo, hi;
    hk_part_range(j->g->n, k, CODE_PARTS, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) code_put(j->obj, i, j->obj->none | leaf_bit(j, i));
}

/* The codes in child-list order (every object is in exactly one list). */
static void gather_part(void *ctx, int k)
{
    code_job *j = ctx;
    const uint32_t *kids = j->g->kids;
    uint32_t lo, hi;
    hk_part_range(j->g->n, k, CODE_PARTS, &lo, &hi);
    for (uint32_t p = lo; p < hi; p++) {
        if (p + 16 < hi) __builtin_prefetch(code_addr(j->obj, kids[p + 16]));
        code_put(j->kid, p, code_at(j->obj, kids[p]));
    }
}

/* Class objects count as java.lang.Class (none when the dump has no such class). */
static void object_codes(hk_dump *d, code_job *j)
{
    codes *oc = j->obj;
    if (d->by_class) {
        hk_parallel(CODE_PARTS, blank_codes_part, j);
        for (uint32_t c = 0; c < d->nclasses; c++)
            for (uint32_t k = d->by_class_start[c]; k < d->by_class_start[c + 1]; k++) {
                uint32_t i = d->by_class[k];
                code_put(oc, i, (code_at(oc, i) & oc->leaf) | c);
            }
    } else {
        hk_parallel(CODE_PARTS, record_codes_part, j);
    }
    uint32_t cc = d->class_class == HK_NONE ? oc->none : d->class_class;
    for (uint32_t c = 0; c < d->nclasses; c++) {
        uint32_t o = d->classes[c].object;
        if (o < j->g->n) code_put(oc, o, (code_at(oc, o) & oc->leaf) | cc);
    }
}

static void kid_codes(hk_dump *d, const hk_graph *g, codes *kc)
{
    codes oc;
    codes_alloc(&oc, d->nclasses, g->n);
    code_job j = {d, g, &oc, kc};
    object_codes(d, &j);
    codes_alloc(kc, d->nclasses, g->n);
    hk_parallel(CODE_PARTS, gather_part, &j);
    codes_free(&oc);
}

/* The walk, in tasks of about equal retained bytes: one object can hold most of the heap (a
 * map's table, a list), so the cut goes below the virtual root. A short sequential top walk
 * descends into the big nodes (more than a task's bytes), keeping the counts of the classes
 * open on its path, and hands out runs of a big node's other children with the set of classes
 * open there; the tasks run on the threads in parts with counts of their own. Integer sums:
 * the same for any number of threads. */
typedef struct walk_task {
    uint32_t a, b;        /* the child-list positions [a, b), big nodes left out */
    uint32_t snap, nsnap; /* the classes open above them, in walk_job.snaps */
    int part;
} walk_task;
/* A node being walked: its next child-list position and where its list ends.  The node itself
 * is at its parent's position k - 1, where its code is found again when it closes. */
typedef struct walk_frame {
    uint32_t k, end;
} walk_frame;
typedef struct walk_stack {
    walk_frame *f;
    size_t cap;
} walk_stack;
typedef struct walk_job {
    const hk_graph *g;
    codes kc; /* by child-list position */
    uint32_t nc;
    uint64_t big; /* a node retaining more is walked by the top walk */
    walk_task *tasks;
    uint32_t ntasks, nsnaps, *snaps;
    size_t cap_t, cap_s;
    uint64_t load[WALK_PARTS]; /* bytes handed to each part */
    uint64_t *per[WALK_PARTS];
} walk_job;

static inline uint32_t code_class(const codes *kc, uint32_t k)
{
    return code_at(kc, k) & ~kc->leaf;
}

/* Depth-first over the subtrees at positions [a, b) that are not big.  `open` counts the
 * instances of each class on the path and comes back as it came in. */
static void walk_run(const walk_job *j, uint32_t a, uint32_t b, uint32_t *open, uint64_t *per, walk_stack *s)
{
    const uint32_t *kid_start = j->g->kid_start, *kids = j->g->kids;
    const uint64_t *ret = j->g->retained, big = j->big;
    const codes kc = j->kc;
    walk_stack st = *s; /* in locals: the stores to per[] and open[] could alias its fields */
    size_t sp = 0;
    st.f = hk_grow(st.f, &st.cap, 1, sizeof *st.f);
    st.f[sp++] = (walk_frame){a, b};
    while (sp) {
        uint32_t k = st.f[sp - 1].k, end = st.f[sp - 1].end;
        if (k < end) {
            st.f[sp - 1].k = k + 1;
            if (k + 8 < end) { /* ask for a later sibling's data */
                uint32_t w = kids[k + 8];
                __builtin_prefetch(&ret[w]);
                if (!(code_at(&kc, k + 8) & kc.leaf)) __builtin_prefetch(&kid_start[w]);
            }
            uint32_t v = kids[k], code = code_at(&kc, k), c = code & ~kc.leaf;
            if (sp == 1 && ret[v] > big) continue; /* the top walk's */
            /* the set's retained size: only the topmost instances of a class count */
            if (c != kc.none && !open[c]) per[c] += ret[v];
            if (code & kc.leaf) continue; /* nothing below to close */
            if (c != kc.none) open[c]++;
            st.f = hk_grow(st.f, &st.cap, sp + 1, sizeof *st.f);
            st.f[sp++] = (walk_frame){kid_start[v], kid_start[v + 1]};
            continue;
        }
        if (--sp) {
            uint32_t c = code_class(&kc, st.f[sp - 1].k - 1);
            if (c != kc.none) open[c]--;
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
        walk_run(j, w->a, w->b, open, per, &s);
        for (uint32_t i = 0; i < w->nsnap; i++) open[j->snaps[w->snap + i]] = 0;
    }
    free(open);
    free(s.f);
}

/* Hands out positions [a, b) with the classes open now, to the least loaded part. */
static void add_task(walk_job *j, const uint32_t *open, uint32_t a, uint32_t b, uint64_t bytes)
{
    j->tasks = hk_grow(j->tasks, &j->cap_t, (size_t)j->ntasks + 1, sizeof *j->tasks);
    walk_task *t = &j->tasks[j->ntasks++];
    int part = 0;
    for (int p = 1; p < WALK_PARTS; p++)
        if (j->load[p] < j->load[part]) part = p;
    j->load[part] += bytes;
    *t = (walk_task){a, b, j->nsnaps, 0, part};
    for (uint32_t c = 0; c < j->nc; c++) {
        if (!open[c]) continue;
        j->snaps = hk_grow(j->snaps, &j->cap_s, (size_t)j->nsnaps + 1, sizeof *j->snaps);
        j->snaps[j->nsnaps++] = c;
        t->nsnap++;
    }
}

/* The sequential top walk over the big nodes: a frame is a node's next child position, where
 * its list ends, and the run of its small children not yet handed out (from `from`, `acc`
 * bytes). A run is handed out once it holds a task's bytes, and a big node's last short run
 * when the node ends. */
typedef struct top_frame { /* 16 bytes: one per level of a chain millions deep */
    uint32_t k, end, from;
    uint32_t acc; /* at most the cut below */
} top_frame;
static void top_walk(walk_job *j, uint64_t *per)
{
    const hk_graph *g = j->g;
    const codes *kc = &j->kc;
    uint32_t *open = hk_xcalloc(j->nc, sizeof *open);
    top_frame *f = NULL;
    /* a run's bytes to hand it out, in 32 bits (a heap over 256 GB gets more tasks) */
    const uint32_t cut = j->big < UINT32_MAX ? (uint32_t)j->big : UINT32_MAX;
    size_t cap = 0, sp = 0;
    f = hk_grow(f, &cap, 1, sizeof *f);
    f[sp++] = (top_frame){g->kid_start[g->n], g->kid_start[g->n + 1], g->kid_start[g->n], 0};
    while (sp) {
        top_frame *t = &f[sp - 1];
        if (t->k < t->end) {
            uint32_t p = t->k++, w = g->kids[p];
            if (g->retained[w] > j->big) {
                uint32_t c = code_class(kc, p);
                if (c != kc->none && !open[c]++) per[c] += g->retained[w];
                f = hk_grow(f, &cap, sp + 1, sizeof *f);
                f[sp++] = (top_frame){g->kid_start[w], g->kid_start[w + 1], g->kid_start[w], 0};
                continue;
            }
            uint64_t acc = t->acc + g->retained[w];
            t->acc = acc < cut ? (uint32_t)acc : cut;
            if (t->acc >= cut) {
                add_task(j, open, t->from, t->k, t->acc);
                t->from = t->k;
                t->acc = 0;
            }
            continue;
        }
        if (t->from < t->end) add_task(j, open, t->from, t->end, t->acc);
        if (--sp) {
            uint32_t c = code_class(kc, f[sp - 1].k - 1);
            if (c != kc->none) open[c]--;
        }
    }
    free(open);
    free(f);
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
    if (!g->kid_start) hkg_build_kids(g);
    walk_job j = {.g = g, .nc = d->nclasses ? d->nclasses : 1};
    kid_codes(d, g, &j.kc);
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
    codes_free(&j.kc);
    hk_mem_trim();
    *out = per;
    return 0;
}
