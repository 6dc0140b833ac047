/* Shortest paths from GC roots: one BFS forest over the whole heap, cached as a parent
 * per object, in phases so that paths prefer ordinary roots over thread-local and
 * low-priority ones, strong edges outside the finalizer/Cleaner lists over the lists' links,
 * and both over weak referents (searched only as far as the objects asked for need).  A path is weak only when it crosses a referent, so it
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

/* The search is resumable: it runs only until the object asked for has its parent, and the
 * next question continues it.  A parent is set once, when the object is first reached, so a
 * search stopped early has given every object it reached its final parent: the answers are the
 * ones the whole search gives.  It goes in two parts.  The strong part (the ranks of roots,
 * then the finalizer/Cleaner lists) reaches exactly the strongly reachable objects.  The weak
 * part starts from the referents of weak edges out of those and never enters them again, so
 * once reachability is known it can run first, on its own: an object reached only through a
 * referent (most often found last) does not wait for the whole strong part, and neither does
 * an object no root reaches. */
enum { STAGE_DONE = 8 }; /* stages: rank r seeded (2r) and searched (2r+1), lists seeded (6) and searched (7) */

typedef struct hkg_path_search {
    /* the strong part's queue (n places, their pages touched as it fills), and the
     * finalizer/Cleaner list objects its root phases passed over, in the order they were
     * dequeued: the list phase starts from them instead of reading every queued object's
     * flags a second time (one cache miss each on a big heap) */
    uint32_t *q, head, tail;
    uint32_t *lists;
    size_t nlists, caplists;
    int stage;
    /* the weak part's queue (most often short); wstage 0: not seeded, 1: searching, 2: done */
    uint32_t *wq;
    size_t whead, wtail, wcap;
    int wstage;
    /* the search over one object's ancestors (graph_path_local.c): the roots' seeding order,
     * made on first use, and how many ancestors it may still look at in all, so that objects
     * with many ancestors cost a bounded part of the whole search */
    hkg_root_keys *rk;
    uint64_t local_budget;
} hkg_path_search;

/* Ancestors looked at for one object at most (a few milliseconds). */
enum { LOCAL_MAX = 1 << 14 };

/* parent[] holds each parent complemented, so that 0 (a page the kernel gives zeroed, not
 * written until the search gets there) is "not reached yet". */
static inline uint32_t parent_of(const hk_graph *g, uint32_t x)
{
    return ~g->parent[x];
}
static inline void set_parent(hk_graph *g, uint32_t x, uint32_t p)
{
    g->parent[x] = ~p;
}

/* How far ahead of the object being dequeued its edges' lines are asked for: the queue is
 * known in advance, so the loads of flags, edge ranges and edges overlap. */
enum { AHEAD = 8 };

/* Continues the strong part's BFS until its queue is empty (returns 0) or `want` has a
 * parent (returns 1; want == n, whose parent is never set, searches on).  lists: enter the
 * finalizer/Cleaner lists (their links are strong edges, but a chain through them is the
 * last one worth showing). */
static int bfs(const hk_graph *g, hkg_path_search *s, int lists, uint32_t want)
{
    uint32_t *q = s->q, head = s->head, tail = s->tail;
    uint32_t *parent = g->parent;
    int found = 0;
    while (head < tail && !(found = parent[want] != 0)) {
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
            if (!parent[t]) {
                parent[t] = ~x;
                q[tail++] = t;
            }
        }
    }
    s->head = head;
    s->tail = tail;
    return found || parent[want] != 0;
}

/* The roots of one rank, each root record's object looked up by its id. */
static void seed_rank(hk_dump *d, hk_graph *g, hkg_path_search *s, int rank)
{
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        if (hk_graph_root_rank(hk_view(d)->roots[k].type) != rank) continue;
        uint32_t t = hkg_find(d, g, hk_view(d)->roots[k].id);
        if (t == HK_NONE || parent_of(g, t) != HK_NONE) continue;
        set_parent(g, t, HKG_P_ROOT);
        s->q[s->tail++] = t;
    }
}

/* What only the finalizer/Cleaner lists reach (still strongly held). */
static void seed_lists(hk_graph *g, hkg_path_search *s)
{
    for (size_t k = 0; k < s->nlists; k++) {
        uint32_t x = s->lists[k];
        for (uint32_t e = g->out_start[x]; e < g->out_start[x + 1]; e++) {
            uint32_t t = g->out[e];
            if (parent_of(g, t) == HK_NONE) {
                set_parent(g, t, x);
                s->q[s->tail++] = t;
            }
        }
    }
    free(s->lists);
    s->lists = NULL;
}

/* Runs the strong part until `want` has a parent or the part is over. */
static void strong_until(hk_dump *d, hk_graph *g, hkg_path_search *s, uint32_t want)
{
    while (s->stage < STAGE_DONE && parent_of(g, want) == HK_NONE) {
        if (s->stage < 6 && s->stage % 2 == 0) seed_rank(d, g, s, s->stage / 2);
        else if (s->stage == 6) seed_lists(g, s);
        else if (bfs(g, s, s->stage == 7, want)) return;
        s->stage++;
    }
    if (s->stage == STAGE_DONE && s->q) {
        free(s->q);
        s->q = NULL;
    }
}

/* Already reached, or reached by the strong part (whose whole set reachability knows). */
static int taken(const hk_graph *g, uint32_t t)
{
    return parent_of(g, t) != HK_NONE || ((g->done & HK_GRAPH_REACH) && hkg_reach(g, t) == HK_REACH_STRONG);
}

static void weak_reach(hk_graph *g, hkg_path_search *s, uint32_t t, uint32_t from)
{
    set_parent(g, t, from);
    g->pweak[t] = 1;
    if (s->wtail == s->wcap) s->wq = hk_grow(s->wq, &s->wcap, s->wtail + 1, sizeof *s->wq);
    s->wq[s->wtail++] = t;
}

/* Runs the weak part until `want` has a parent or the part is over: from every weak edge's
 * referent whose holder is strongly reachable, then over strong edges and referents alike. */
static void weak_until(hk_dump *d, hk_graph *g, hkg_path_search *s, uint32_t want)
{
    if (!(g->done & HK_GRAPH_REACH)) strong_until(d, g, s, g->n); /* the strong set, the long way */
    if (s->wstage == 0) {
        for (uint32_t k = 0; k < g->nweak; k++)
            if (taken(g, g->weak[k].src) && !taken(g, g->weak[k].dst)) weak_reach(g, s, g->weak[k].dst, g->weak[k].src);
        s->wstage = 1;
    }
    while (s->wstage == 1 && parent_of(g, want) == HK_NONE) {
        if (s->whead == s->wtail) {
            s->wstage = 2;
            free(s->wq);
            s->wq = NULL;
            break;
        }
        uint32_t x = s->wq[s->whead++];
        for (uint32_t k = g->out_start[x]; k < g->out_start[x + 1]; k++)
            if (!taken(g, g->out[k])) weak_reach(g, s, g->out[k], x);
        if (g->flags[x] & HKG_F_WEAK)
            for (uint32_t k = hkg_weak_first(g, x); k < g->nweak && g->weak[k].src == x; k++)
                if (!taken(g, g->weak[k].dst)) weak_reach(g, s, g->weak[k].dst, x);
    }
}

/* Gives obj its parent if any search reaches it; 0 when none does. */
static int settle(hk_dump *d, hk_graph *g, uint32_t obj)
{
    hkg_path_search *s = g->psearch;
    if (parent_of(g, obj) != HK_NONE) return 1;
    if (g->done & HK_GRAPH_REACH) {
        int r = hkg_reach(g, obj);
        if (r == HK_REACH_UNREACHABLE) return 0;
        if (r == HK_REACH_STRONG) strong_until(d, g, s, obj);
        else weak_until(d, g, s, obj);
    } else {
        strong_until(d, g, s, obj);
        if (parent_of(g, obj) == HK_NONE) weak_until(d, g, s, obj);
    }
    return parent_of(g, obj) != HK_NONE;
}

int hkg_build_paths(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    (void)d;
    (void)err;
    (void)errlen;
    const uint32_t n = g->n;
    hkg_path_search *s = hk_xcalloc(1, sizeof *s);
    s->q = hk_xrealloc(NULL, (n ? n : 1) * sizeof *s->q);
    s->local_budget = n / 8 > 4 * LOCAL_MAX ? n / 8 : 4 * LOCAL_MAX;
    g->psearch = s;
    /* one more place than objects: parent[n], never set, is the target of a search to the end */
    g->parent = hk_xcalloc((size_t)n + 1, sizeof *g->parent);
    g->pweak = hk_xcalloc(n ? n : 1, 1);
    return 0;
}

/* The whole search, both parts to their ends: after it no path needs the forward references
 * (an object it did not reach has no path). */
int hkg_paths_complete(const hk_graph *g)
{
    return g->psearch && g->psearch->stage == STAGE_DONE && g->psearch->wstage == 2;
}

void hkg_paths_whole(hk_dump *d, hk_graph *g)
{
    strong_until(d, g, g->psearch, g->n);
    weak_until(d, g, g->psearch, g->n);
}

int hk_graph_plan_paths_first(hk_dump *d, char *err, size_t errlen)
{
    if (hk_graph_plan(d, 0, NULL, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    if (!(g->done & HK_GRAPH_DOM)) g->paths_first = 1;
    return 0;
}

void hkg_paths_free(hk_graph *g)
{
    hkg_path_search *s = g->psearch;
    if (s) {
        free(s->q);
        free(s->lists);
        free(s->wq);
        hkg_root_keys_free(s->rk);
        free(s);
    }
    g->psearch = NULL;
    free(g->parent);
    free(g->pweak);
    g->parent = NULL;
    g->pweak = NULL;
}

int hk_graph_edge_name(hk_dump *d, uint32_t src, uint32_t dst, char *buf, size_t len)
{
    hk_graph *g = hkg_of(d);
    if (!g || src >= g->n || dst >= g->n) return -1;
    hk_id want = hk_obj_id(d, dst);
    switch (hk_obj_kind(d, src)) {
    case HK_KIND_INSTANCE: {
        uint32_t c = hk_obj_class(d, src), nf, dl;
        const uint8_t *data = hk_instance_data(d, src, &dl);
        if (c == HK_NONE || !data) return -1;
        const hk_field *f = hk_class_layout(d, &hk_view(d)->classes[c], &nf);
        for (uint32_t k = 0; k < nf; k++) {
            if (f[k].type != HK_T_OBJECT || f[k].offset + hk_view(d)->id_size > dl) continue;
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

/* obj's path from the search of its ancestors alone, when the whole search has not reached
 * it yet (and may reach it late): *chain from obj to the root, or 0. */
static uint32_t try_local(hk_dump *d, hk_graph *g, uint32_t obj, uint32_t **chain)
{
    hkg_path_search *s = g->psearch;
    int known = (g->done & (HK_GRAPH_REFERRERS | HK_GRAPH_REACH)) == (HK_GRAPH_REFERRERS | HK_GRAPH_REACH);
    if (!known || s->stage == STAGE_DONE || hkg_reach(g, obj) != HK_REACH_STRONG || s->local_budget < 64) return 0;
    if (!s->rk) s->rk = hkg_root_keys_make(d, g);
    uint32_t visited, max = s->local_budget < LOCAL_MAX ? (uint32_t)s->local_budget : LOCAL_MAX;
    uint32_t len = hkg_path_local(g, s->rk, obj, max, chain, &visited);
    s->local_budget -= visited;
    return len;
}

/* The objects from obj up to its root (caller frees); 0 when no root reaches obj. */
static uint32_t chain_to_root(hk_dump *d, hk_graph *g, uint32_t obj, uint32_t **chain)
{
    uint32_t *v = NULL, n = 0;
    size_t cap = 0;
    for (uint32_t x = obj;; x = parent_of(g, x)) {
        uint32_t *local, nl;
        if (parent_of(g, x) == HK_NONE && (nl = try_local(d, g, x, &local))) {
            v = hk_grow(v, &cap, n + nl, sizeof *v);
            memcpy(v + n, local, nl * sizeof *v);
            free(local);
            n += nl;
            break;
        }
        if (!settle(d, g, x)) { /* only obj itself can be out of reach: its parent is reached */
            free(v);
            return 0;
        }
        v = hk_grow(v, &cap, n + 1, sizeof *v);
        v[n++] = x;
        if (parent_of(g, x) == HKG_P_ROOT) break;
    }
    *chain = v;
    return n;
}

int hk_graph_path_to(hk_dump *d, uint32_t obj, hk_graph_path *path, char *err, size_t errlen)
{
    memset(path, 0, sizeof *path);
    if (hk_graph_ensure(d, HK_GRAPH_PATHS, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    if (obj >= g->n) {
        snprintf(err, errlen, "graph: no object with index %u", obj);
        return -1;
    }
    /* a search still to resume walks the references, which the dominators may have freed */
    if (!hkg_paths_complete(g) && hk_graph_ensure(d, HK_GRAPH_REFS, err, errlen)) return -1;
    uint32_t *chain, len = chain_to_root(d, g, obj, &chain);
    if (!len) return 0;
    path->steps = hk_xcalloc(len, sizeof *path->steps);
    path->nsteps = len;
    path->found = 1;
    path->weak = g->pweak[obj];
    for (uint32_t k = len; k-- > 0;) {
        uint32_t x = chain[len - 1 - k];
        path->steps[k].obj = x;
        if (k + 1 < len &&
            hk_graph_edge_name(d, x, path->steps[k + 1].obj, path->steps[k].via, sizeof path->steps[k].via))
            snprintf(path->steps[k].via, sizeof path->steps[k].via, "?");
    }
    free(chain);
    /* the root record: the best-ranked one for the first object, the first of that rank (the
     * search's seeding order, kept sorted by object: a report asks thousands of paths of a dump
     * with a hundred thousand root records) */
    hkg_path_search *s = g->psearch;
    if (!s->rk) s->rk = hkg_root_keys_make(d, g);
    int64_t k = hkg_root_keys_record(s->rk, path->steps[0].obj);
    if (k >= 0) path->root = &hk_view(d)->roots[k];
    return 0;
}

void hk_graph_path_free(hk_graph_path *path)
{
    free(path->steps);
    memset(path, 0, sizeof *path);
}
