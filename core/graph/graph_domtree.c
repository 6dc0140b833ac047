/* Queries over the dominator tree: immediate dominators, retained sizes, child lists and the
 * largest objects. */
#include "graph/graph_internal.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t hk_graph_idom(hk_dump *d, uint32_t obj)
{
    hk_graph *g = hkg_of(d);
    return g && g->idom && obj < g->n ? g->idom[obj] : HK_NONE;
}

uint64_t hk_graph_retained(hk_dump *d, uint32_t obj)
{
    hk_graph *g = hkg_of(d);
    if (!g || !g->retained) return 0;
    return obj == HK_NONE ? g->total_bytes : obj < g->n ? hkg_retained(g, obj) : 0;
}

uint64_t hk_graph_retained_native(hk_dump *d, uint32_t obj)
{
    hk_graph *g = hkg_of(d);
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
    hk_graph *g = hkg_of(d);
    return g && g->idom && obj < g->n && (g->flags[obj] & HKG_F_VROOT) != 0;
}

/* The dominator tree's child lists, linked in one pass over the immediate dominators (a
 * counting sort into one array takes three writes at random per object, this takes one): each
 * part links the children of its range of parents (slot n is the virtual root), reading every
 * object from the last so that a list comes out in object order for any number of parts. */
enum { KID_PARTS = 32 };
typedef struct kids_job {
    hk_graph *g;
    int nlink; /* link parts: each reads every object, one per thread */
    size_t root_cap;
} kids_job;
static void unlinked_part(void *ctx, int k)
{
    kids_job *j = ctx;
    uint32_t lo, hi;
    hk_part_range(j->g->n + 1, k, KID_PARTS, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) j->g->kids[i].first = HK_NONE;
}
static void link_part(void *ctx, int k)
{
    kids_job *j = ctx;
    const uint32_t n = j->g->n, *idom = j->g->idom;
    hkg_kid *kids = j->g->kids;
    uint32_t lo, hi;
    hk_part_range(n + 1, k, j->nlink, &lo, &hi);
    for (uint32_t i = n; i-- > 0;) {
        uint32_t p = idom[i] == HK_NONE ? n : idom[i];
        if (p - lo >= hi - lo) continue;
        kids[i].next = kids[p].first;
        kids[p].first = i;
        if (p == n) { /* from the last: reversed below */
            j->g->root_kids = hk_grow(j->g->root_kids, &j->root_cap, (size_t)j->g->nroot_kids + 1, sizeof(uint32_t));
            j->g->root_kids[j->g->nroot_kids++] = i;
        }
    }
}

void hkg_build_kids(hk_graph *g, hkg_kid *mem)
{
    kids_job j = {g, hk_jobs(), 0};
    g->kids = mem ? mem : hk_xmalloc(((size_t)g->n + 1) * sizeof *g->kids);
    g->root_kids = NULL;
    g->nroot_kids = 0;
    hk_parallel(KID_PARTS, unlinked_part, &j);
    hk_parallel(j.nlink, link_part, &j);
    for (uint32_t a = 0, b = g->nroot_kids; b > a + 1; a++, b--) {
        uint32_t t = g->root_kids[a];
        g->root_kids[a] = g->root_kids[b - 1];
        g->root_kids[b - 1] = t;
    }
}

static int by_retained_desc(const void *a, const void *b, void *ctx)
{
    const hk_graph *g = ctx;
    uint64_t x = hkg_retained(g, *(const uint32_t *)a), y = hkg_retained(g, *(const uint32_t *)b);
    if (x != y) return x < y ? 1 : -1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Sorts a child list by by_retained_desc's order: most lists are short, where an insertion
 * sort beats qsort_r's call per comparison. */
static void sort_kids(uint32_t *v, uint32_t n, const hk_graph *g)
{
    if (n > 16) {
        qsort_r(v, n, sizeof *v, by_retained_desc, (void *)g);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = v[i], j = i;
        uint64_t rx = hkg_retained(g, x);
        for (; j && (hkg_retained(g, v[j - 1]) < rx || (hkg_retained(g, v[j - 1]) == rx && v[j - 1] > x)); j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

int hk_graph_dominated(hk_dump *d, uint32_t obj, const uint32_t **out, uint32_t *n, char *err, size_t errlen)
{
    hk_graph *g = hkg_of(d);
    *out = NULL;
    *n = 0;
    if (!g || !g->idom) {
        snprintf(err, errlen, "graph: dominators not computed");
        return -1;
    }
    uint32_t p = obj == HK_NONE ? g->n : obj;
    if (p > g->n) {
        snprintf(err, errlen, "graph: no object %u", obj);
        return -1;
    }
    if (!g->kids) hkg_build_kids(g, NULL);
    uint32_t k = 0;
    if (p == g->n) {
        g->kid_buf = hk_grow(g->kid_buf, &g->kid_cap, (size_t)g->nroot_kids + 1, sizeof *g->kid_buf);
        if (g->nroot_kids) memcpy(g->kid_buf, g->root_kids, (size_t)g->nroot_kids * sizeof *g->kid_buf);
        k = g->nroot_kids;
    }
    for (uint32_t v = p == g->n ? HK_NONE : g->kids[p].first; v != HK_NONE; v = g->kids[v].next) {
        g->kid_buf = hk_grow(g->kid_buf, &g->kid_cap, (size_t)k + 1, sizeof *g->kid_buf);
        g->kid_buf[k++] = v;
    }
    sort_kids(g->kid_buf, k, g);
    *out = g->kid_buf;
    *n = k;
    return 0;
}
