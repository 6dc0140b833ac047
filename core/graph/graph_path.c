/* Shortest paths from GC roots: one BFS forest over the whole heap, cached as a parent
 * per object, in phases so that paths prefer ordinary roots over thread-local and
 * low-priority ones, strong edges outside the finalizer/Cleaner lists over the lists' links,
 * and both over weak referents.  A path is weak only when it crosses a referent, so it
 * agrees with reachability (graph.h says which edges are strong). */
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hk_graph_root_rank(int t)
{
    switch (t) {
    /* Held by a thread's stack, or by native code: JNI global references hold objects native
     * code owns (every live Binder, for one), so a chain from a Java root (a static field, a
     * thread) is the actionable one when there is any; LeakCanary 1.x did not use them at all. */
    case HPROF_ROOT_JAVA_FRAME:
    case HPROF_ROOT_JNI_LOCAL:
    case HPROF_ROOT_NATIVE_STACK:
    case HPROF_ROOT_THREAD_BLOCK:
    case HPROF_ROOT_JNI_MONITOR:
    case HPROF_ROOT_JNI_GLOBAL: return 1;
    case HPROF_ROOT_UNKNOWN:
    case HPROF_ROOT_UNREACHABLE:
    case HPROF_ROOT_DEBUGGER:
    case HPROF_ROOT_FINALIZING:
    case HPROF_ROOT_REFERENCE_CLEANUP: return 2;
    default: return 0;
    }
}

/* The BFS's queue, and the finalizer/Cleaner list objects its strong phases passed over, in
 * the order they were dequeued: the list phase starts from them instead of reading every
 * queued object's flags a second time (one cache miss each on a big heap). */
typedef struct bfs_state {
    uint32_t *q;
    uint32_t tail;
    uint32_t *lists;
    size_t nlists, caplists;
} bfs_state;

/* How far ahead of the object being dequeued its edges' lines are asked for: the queue is
 * known in advance, so the loads of flags, edge ranges and edges overlap. */
enum { AHEAD = 8 };

/* Continues the BFS from q[head..tail).  lists: enter the finalizer/Cleaner lists (their
 * links are strong edges, but a chain through them is the last one worth showing); weak:
 * also follow referents, which mark what they reach as weakly held. */
static void bfs(const hk_graph *g, bfs_state *s, uint32_t head, int lists, int weak)
{
    uint32_t *q = s->q, tail = s->tail;
    uint32_t *parent = g->parent;
    while (head < tail) {
        if (head + AHEAD < tail) {
            uint32_t y = q[head + AHEAD];
            __builtin_prefetch(&g->flags[y]);
            __builtin_prefetch(&g->out_start[y]);
        }
        if (head + AHEAD / 2 < tail) __builtin_prefetch(&g->out[g->out_start[q[head + AHEAD / 2]]]);
        uint32_t x = q[head++];
        if (!lists && (g->flags[x] & HKG_F_LIST)) {
            s->lists = hk_grow(s->lists, &s->caplists, s->nlists + 1, sizeof *s->lists);
            s->lists[s->nlists++] = x;
            continue;
        }
        for (uint32_t k = g->out_start[x]; k < g->out_start[x + 1]; k++) {
            uint32_t t = g->out[k];
            if (parent[t] == HK_NONE) {
                parent[t] = x;
                /* before the weak phase every pweak is still 0: no store (one cache miss each) */
                if (weak) g->pweak[t] = g->pweak[x];
                q[tail++] = t;
            }
        }
        if (weak && (g->flags[x] & HKG_F_WEAK))
            for (uint32_t k = hkg_weak_first(g, x); k < g->nweak && g->weak[k].src == x; k++) {
                uint32_t t = g->weak[k].dst;
                if (parent[t] == HK_NONE) {
                    parent[t] = x;
                    g->pweak[t] = 1;
                    q[tail++] = t;
                }
            }
    }
    s->tail = tail;
}

/* The roots by rank, each root record's object looked up once rather than once per rank. */
static void bfs_from_roots(hk_dump *d, hk_graph *g, bfs_state *s)
{
    uint32_t *idx = hk_xrealloc(NULL, (d->nroots ? d->nroots : 1) * sizeof *idx);
    for (uint32_t k = 0; k < d->nroots; k++) idx[k] = hkg_find(d, g, d->roots[k].id);
    uint32_t head = 0;
    for (int rank = 0; rank <= 2; rank++) {
        for (uint32_t k = 0; k < d->nroots; k++) {
            uint32_t t = idx[k];
            if (t == HK_NONE || g->parent[t] != HK_NONE || hk_graph_root_rank(d->roots[k].type) != rank) continue;
            g->parent[t] = HKG_P_ROOT;
            s->q[s->tail++] = t;
        }
        bfs(g, s, head, 0, 0);
        head = s->tail;
    }
    free(idx);
}

int hkg_build_paths(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const uint32_t n = g->n;
    bfs_state s = {hk_xrealloc(NULL, (n ? n : 1) * sizeof *s.q), 0, NULL, 0, 0};
    g->parent = hk_xrealloc(NULL, (n ? n : 1) * sizeof *g->parent);
    g->pweak = hk_xcalloc(n ? n : 1, 1);
    memset(g->parent, 0xff, (size_t)n * sizeof *g->parent);
    bfs_from_roots(d, g, &s);
    /* then what only the finalizer/Cleaner lists reach (still strongly held) */
    uint32_t strong_tail = s.tail;
    for (size_t k = 0; k < s.nlists; k++) {
        uint32_t x = s.lists[k];
        for (uint32_t e = g->out_start[x]; e < g->out_start[x + 1]; e++) {
            uint32_t t = g->out[e];
            if (g->parent[t] == HK_NONE) {
                g->parent[t] = x;
                s.q[s.tail++] = t;
            }
        }
    }
    free(s.lists);
    bfs(g, &s, strong_tail, 1, 0);
    /* then what only weak referents reach */
    uint32_t list_tail = s.tail;
    for (uint32_t k = 0; k < g->nweak; k++) {
        uint32_t src = g->weak[k].src, t = g->weak[k].dst;
        if (g->parent[src] != HK_NONE && g->parent[t] == HK_NONE) {
            g->parent[t] = src;
            g->pweak[t] = 1;
            s.q[s.tail++] = t;
        }
    }
    bfs(g, &s, list_tail, 1, 1);
    free(s.q);
    return 0;
}

int hk_graph_edge_name(hk_dump *d, uint32_t src, uint32_t dst, char *buf, size_t len)
{
    hk_graph *g = d->graph;
    if (!g || src >= g->n || dst >= g->n) return -1;
    hk_id want = hk_obj_id(d, dst);
    switch (hk_obj_kind(d, src)) {
    case HK_KIND_INSTANCE: {
        uint32_t c = hk_obj_class(d, src), nf, dl;
        const uint8_t *data = hk_instance_data(d, src, &dl);
        if (c == HK_NONE || !data) return -1;
        const hk_field *f = hk_class_layout(d, &d->classes[c], &nf);
        for (uint32_t k = 0; k < nf; k++) {
            if (f[k].type != HK_T_OBJECT || f[k].offset + d->id_size > dl) continue;
            hk_value v;
            hk_read_value(d, data + f[k].offset, HK_T_OBJECT, &v);
            if (v.ref == want) {
                snprintf(buf, len, "%s", f[k].name);
                return 0;
            }
        }
        return -1;
    }
    case HK_KIND_OBJ_ARRAY: {
        uint32_t cnt = hk_array_length(d, src);
        for (uint32_t k = 0; k < cnt; k++)
            if (hk_obj_array_at(d, src, k) == want) {
                snprintf(buf, len, "[%u]", k);
                return 0;
            }
        return -1;
    }
    case HK_KIND_CLASS: {
        hk_class *c = hk_class_by_id(d, hk_obj_id(d, src));
        if (!c) return -1;
        for (uint32_t k = 0; k < c->nstatics; k++)
            if (c->statics[k].type == HK_T_OBJECT && c->statics[k].value.ref == want) {
                snprintf(buf, len, "static %s", c->statics[k].name);
                return 0;
            }
        if (c->super_id == want) {
            snprintf(buf, len, "<super>");
            return 0;
        }
        if (c->loader_id == want) {
            snprintf(buf, len, "<loader>");
            return 0;
        }
        return -1;
    }
    default: return -1;
    }
}

int hk_graph_path_to(hk_dump *d, uint32_t obj, hk_graph_path *path, char *err, size_t errlen)
{
    memset(path, 0, sizeof *path);
    if (hk_graph_ensure(d, HK_GRAPH_PATHS, err, errlen)) return -1;
    hk_graph *g = d->graph;
    if (obj >= g->n) {
        snprintf(err, errlen, "graph: no object with index %u", obj);
        return -1;
    }
    if (g->parent[obj] == HK_NONE) return 0;
    uint32_t len = 1;
    for (uint32_t x = obj; g->parent[x] != HKG_P_ROOT; x = g->parent[x]) len++;
    path->steps = hk_xcalloc(len, sizeof *path->steps);
    path->nsteps = len;
    path->found = 1;
    path->weak = g->pweak[obj];
    uint32_t x = obj;
    for (uint32_t k = len; k-- > 0; x = g->parent[x]) {
        path->steps[k].obj = x;
        if (k + 1 < len &&
            hk_graph_edge_name(d, x, path->steps[k + 1].obj, path->steps[k].via, sizeof path->steps[k].via))
            snprintf(path->steps[k].via, sizeof path->steps[k].via, "?");
        if (k == 0) break;
    }
    /* the root record: the best-ranked one for the first object */
    hk_id rid = hk_obj_id(d, path->steps[0].obj);
    int best = 99;
    for (uint32_t k = 0; k < d->nroots; k++) {
        if (d->roots[k].id != rid) continue;
        int r = hk_graph_root_rank(d->roots[k].type);
        if (r < best) {
            best = r;
            path->root = &d->roots[k];
        }
    }
    return 0;
}

void hk_graph_path_free(hk_graph_path *path)
{
    free(path->steps);
    memset(path, 0, sizeof *path);
}
