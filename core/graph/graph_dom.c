/* Dominators by semi-NCA (Lengauer-Tarjan's semidominators with simple path compression,
 * then nearest common ancestors by walking up), iterative throughout because chains of
 * references are millions deep.  Node numbering: object indices 0..n-1 and the virtual
 * root n; DFS preorder numbers 0..n with the virtual root 0. */
#include "graph/graph_internal.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct dfs_state {
    uint32_t *num;          /* object -> preorder number (n + 1 entries) */
    uint32_t *parent;       /* preorder number -> parent's preorder number */
    uint32_t *snode, *spos; /* explicit DFS stack */
    uint32_t next;          /* next preorder number */
} dfs_state;

/* Depth-first from start (already numbered), over strong edges. */
static void dfs_from(const hk_graph *g, dfs_state *s, uint32_t start)
{
    uint32_t sp = 0;
    s->snode[sp] = start;
    s->spos[sp++] = g->out_start[start];
    while (sp) {
        uint32_t x = s->snode[sp - 1], k = s->spos[sp - 1];
        if (k == g->out_start[x + 1]) {
            sp--;
            continue;
        }
        s->spos[sp - 1] = k + 1;
        uint32_t t = g->out[k];
        if (s->num[t] != NONE) continue;
        s->num[t] = s->next;
        s->parent[s->next++] = s->num[x];
        s->snode[sp] = t;
        s->spos[sp++] = g->out_start[t];
    }
}

static void attach(hk_graph *g, dfs_state *s, uint32_t obj)
{
    g->flags[obj] |= HKG_F_VROOT;
    s->num[obj] = s->next;
    s->parent[s->next++] = 0;
    dfs_from(g, s, obj);
}

/* Rewrites every referrer entry through map (object -> preorder number, or back). */
static void map_referrers(hk_graph *g, const uint32_t *map)
{
    for (uint32_t v = 0; v < g->n; v++) {
        uint32_t x = g->in1[v];
        if (x == HK_NONE) continue;
        if (!(x & HKG_IN_MANY)) {
            g->in1[v] = map[x];
            continue;
        }
        uint32_t *list = g->in_many + (x & ~HKG_IN_MANY);
        for (uint32_t k = 1; k <= list[0]; k++) list[k] = map[list[k]];
    }
}

/* Shallow sizes into the retained sizes' words, in parts on the threads: each reads its
 * objects' records. */
enum { SHALLOW_PARTS = 32 };
typedef struct shallow_job {
    const hk_dump *d;
    uint64_t *ret;
    uint32_t n;
} shallow_job;
static void shallow_part(void *ctx, int k)
{
    shallow_job *j = ctx;
    uint32_t lo = (uint32_t)((uint64_t)j->n * k / SHALLOW_PARTS),
             hi = (uint32_t)((uint64_t)j->n * (k + 1) / SHALLOW_PARTS);
    hkg_sizer sz = {0};
    for (uint32_t i = lo; i < hi; i++) j->ret[i] = hkg_shallow(j->d, &sz, i);
}

/* Memory, in 4-byte words per object on top of the index and the referrers: the search
 * holds num, parent and its stack (which the edges are dropped after); the semidominator
 * pass holds vert, parent, anc and semi + label, the last two in the retained sizes'
 * words, which are not needed until they are filled; referrers are rewritten into
 * preorder numbers meanwhile, so num is not needed either. */
int hkg_build_dom(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    double t0 = hkg_now();
    const uint32_t n = g->n, m = n + 1;
    dfs_state s = {0};
    uint32_t *vert = NULL, *anc = NULL, *stk = NULL;
    s.num = malloc((size_t)m * sizeof *s.num);
    s.parent = malloc((size_t)m * sizeof *s.parent);
    s.snode = malloc((size_t)m * sizeof *s.snode);
    s.spos = malloc((size_t)m * sizeof *s.spos);
    if (!s.num || !s.parent || !s.snode || !s.spos) goto oom;
    memset(s.num, 0xff, (size_t)m * sizeof *s.num);
    s.num[n] = 0;
    s.parent[0] = NONE;
    s.next = 1;
    for (uint32_t k = 0; k < g->nroots; k++)
        if (s.num[g->roots[k]] == NONE) attach(g, &s, g->roots[k]);
    /* preorder numbers below live_end are the strongly reachable objects */
    const uint32_t live_end = s.next;
    /* what no root reaches: first the objects nothing references, then cycles */
    for (uint32_t i = 0; i < n; i++)
        if (s.num[i] == NONE && g->in1[i] == HK_NONE) attach(g, &s, i);
    for (uint32_t i = 0; i < n; i++)
        if (s.num[i] == NONE) attach(g, &s, i);
    for (uint32_t i = 0; i < g->nroots; i++) g->flags[g->roots[i]] |= HKG_F_VROOT;
    free(s.snode);
    free(s.spos);
    s.snode = s.spos = NULL;
    hkg_drop_out(g);

    vert = malloc((size_t)m * sizeof *vert);
    if (!vert) goto oom;
    for (uint32_t i = 0; i <= n; i++) vert[s.num[i]] = i;
    map_referrers(g, s.num);
    free(s.num);
    s.num = NULL;

    /* semidominators, in reverse preorder; referrers are preorder numbers now */
    g->retained = malloc((size_t)m * sizeof *g->retained);
    anc = malloc((size_t)m * sizeof *anc);
    stk = malloc((size_t)m * sizeof *stk);
    if (!g->retained || !anc || !stk) goto oom_mapped;
    uint32_t *semi = (uint32_t *)g->retained, *label = semi + m;
    for (uint32_t w = 0; w < m; w++) {
        semi[w] = w;
        label[w] = w;
        anc[w] = NONE;
    }
    for (uint32_t w = m - 1; w >= 1; w--) {
        uint32_t v = vert[w], sw = w;
        if (g->flags[v] & HKG_F_VROOT) sw = 0;
        uint32_t nin;
        const uint32_t *in = hkg_in(g, v, &nin);
        for (uint32_t k = 0; k < nin && sw; k++) {
            uint32_t u = in[k];
            /* garbage that points into the live heap must not shape its dominators */
            if (w < live_end && u >= live_end) continue;
            if (u < w) {
                if (u < sw) sw = u;
                continue;
            }
            /* eval(u) with path compression */
            if (anc[u] != NONE) {
                uint32_t x = u, sp = 0;
                while (anc[anc[x]] != NONE) {
                    stk[sp++] = x;
                    x = anc[x];
                }
                while (sp) {
                    uint32_t y = stk[--sp], a = anc[y];
                    if (semi[label[a]] < semi[label[y]]) label[y] = label[a];
                    anc[y] = anc[a];
                }
            }
            uint32_t su = semi[label[u]];
            if (su < sw) sw = su;
        }
        semi[w] = sw;
        anc[w] = s.parent[w];
    }
    free(stk);
    stk = NULL;
    /* immediate dominators: from the DFS parent up to the semidominator's depth */
    uint32_t *idom = anc; /* reuse */
    idom[0] = NONE;
    for (uint32_t w = 1; w < m; w++) {
        uint32_t x = s.parent[w];
        while (x > semi[w]) x = idom[x];
        idom[w] = x;
    }
    map_referrers(g, vert);
    /* idom in object space, written over parent (no longer needed) */
    uint32_t *oid = s.parent;
    for (uint32_t w = 1; w < m; w++) {
        uint32_t p = vert[idom[w]];
        oid[vert[w]] = p == n ? HK_NONE : p;
    }
    oid[n] = HK_NONE;
    free(anc);
    anc = NULL;
    g->idom = oid;
    s.parent = NULL;

    /* retained sizes (over semi and label): children before parents in reverse preorder */
    uint64_t *ret = g->retained;
    shallow_job sj = {d, ret, n};
    hk_parallel(SHALLOW_PARTS, shallow_part, &sj);
    ret[n] = 0;
    hk_idtab *rn = &g->retained_native;
    hk_idtab_init(rn);
    if (g->native)
        for (uint32_t i = 0; i < n; i++)
            if (g->native[i]) {
                hk_idtab_set(rn, (uint64_t)i + 1, g->native[i]);
                g->flags[i] |= HKG_F_RNATIVE;
            }
    g->total_native = 0;
    for (uint32_t w = m - 1; w >= 1; w--) {
        uint32_t v = vert[w], p = oid[v] == HK_NONE ? n : oid[v];
        ret[p] += ret[v];
        if (!(g->flags[v] & HKG_F_RNATIVE)) continue;
        uint64_t x, y = 0;
        hk_idtab_get(rn, (uint64_t)v + 1, &x);
        if (p == n) {
            g->total_native += x;
            continue;
        }
        hk_idtab_get(rn, (uint64_t)p + 1, &y);
        hk_idtab_set(rn, (uint64_t)p + 1, x + y);
        g->flags[p] |= HKG_F_RNATIVE;
    }
    g->total_bytes = ret[n];
    free(vert);
    g->times.dom = hkg_now() - t0;
    return 0;
oom_mapped:
    map_referrers(g, vert);
oom:
    free(s.num);
    free(vert);
    free(s.parent);
    free(s.snode);
    free(s.spos);
    free(anc);
    free(stk);
    free(g->idom);
    g->idom = NULL;
    free(g->retained);
    g->retained = NULL;
    snprintf(err, errlen, "graph: out of memory computing dominators (%u objects)", n);
    return -1;
}

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
    if (!g->kid_start) {
        uint32_t *ks = calloc((size_t)cnt + 3, sizeof *ks), *kids = malloc(((size_t)cnt + 1) * sizeof *kids);
        uint8_t *sorted = calloc((size_t)cnt + 1, 1);
        if (!ks || !kids || !sorted) {
            free(ks);
            free(kids);
            free(sorted);
            snprintf(err, errlen, "graph: out of memory for the dominator tree");
            return -1;
        }
        /* slot cnt is the virtual root; counting sort as in the referrer index */
        for (uint32_t i = 0; i < cnt; i++) ks[(g->idom[i] == HK_NONE ? cnt : g->idom[i]) + 2]++;
        for (uint32_t i = 2; i < cnt + 3; i++) ks[i] += ks[i - 1];
        for (uint32_t i = 0; i < cnt; i++) kids[ks[(g->idom[i] == HK_NONE ? cnt : g->idom[i]) + 1]++] = i;
        g->kid_start = ks;
        g->kids = kids;
        g->kids_sorted = sorted;
    }
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
    if (live_only && !g->reach) return 0;
    const uint64_t *r = g->retained;
    /* a min-heap of the best `want` so far */
    uint32_t h = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        if (h == want && r[i] <= r[out[0]]) continue;
        if (live_only && g->reach[i] != HK_REACH_STRONG) continue;
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

int hk_graph_class_retained(hk_dump *d, uint64_t **out, char *err, size_t errlen)
{
    hk_graph *g = d->graph;
    *out = NULL;
    if (!g || !g->retained) {
        snprintf(err, errlen, "graph: dominators not computed");
        return -1;
    }
    const uint32_t *kids;
    uint32_t nk;
    if (hk_graph_dominated(d, HK_NONE, &kids, &nk, err, errlen)) return -1;
    const uint32_t nc = d->nclasses ? d->nclasses : 1;
    uint64_t *per = hk_xcalloc(nc, sizeof *per);
    /* instances of each class open on the current dominator-tree path */
    uint32_t *open = hk_xcalloc(nc, sizeof *open);
    /* depth-first over the dominator tree: node, and the next child to visit */
    uint32_t *snode = hk_xmalloc(((size_t)g->n + 1) * sizeof *snode);
    uint32_t *spos = hk_xmalloc(((size_t)g->n + 1) * sizeof *spos);
    /* each object's class, read once in object order: the walk below visits objects in tree
     * order, where reading each record twice missed the cache on nearly every object */
    uint32_t *cls = hk_class_of_objects(d);
    for (uint32_t c = 0; c < d->nclasses; c++)
        if (d->classes[c].object != HK_NONE) cls[d->classes[c].object] = d->class_class;
    uint32_t sp = 0;
    snode[sp] = g->n;
    spos[sp++] = g->kid_start[g->n];
    while (sp) {
        uint32_t x = snode[sp - 1], k = spos[sp - 1];
        if (k < g->kid_start[x + 1]) {
            spos[sp - 1] = k + 1;
            if (k + 8 < g->kid_start[x + 1]) { /* most nodes are leaves: ask for a later sibling's data */
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
    free(cls);
    *out = per;
    return 0;
}
