/* The path to one strongly reachable object without the search of the whole heap: the
 * search of graph_path.c run only over the object's ancestors (everything that reaches it
 * over strong edges, found through the referrers).  Every object that search reaches is
 * reached from one of its ancestors, so the ancestors are reached in the same order, from
 * the same parents, as in the whole search: the path is the same.  Worth it when the whole
 * search would reach the object late (held only by a thread's stack or a low-priority root,
 * after every ordinary root's heap) and its ancestors are few; given up past a budget. */
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

/* The root objects' places in the search's seeding: an object is first seeded at the best
 * rank among its records, at its first record of that rank.  Sorted by object. */
typedef struct root_key {
    uint32_t obj;
    uint64_t key; /* rank << 32 | record */
} root_key;

struct hkg_root_keys {
    root_key *v;
    uint32_t n;
};

static int by_obj_only(const void *pa, const void *pb)
{
    const root_key *a = pa, *b = pb;
    return a->obj < b->obj ? -1 : a->obj > b->obj;
}

static int by_obj_key(const void *pa, const void *pb)
{
    const root_key *a = pa, *b = pb;
    if (a->obj != b->obj) return a->obj < b->obj ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

hkg_root_keys *hkg_root_keys_make(hk_dump *d, hk_graph *g)
{
    hkg_root_keys *rk = hk_xcalloc(1, sizeof *rk);
    rk->v = hk_xrealloc(NULL, (hk_view(d)->nroots ? hk_view(d)->nroots : 1) * sizeof *rk->v);
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        uint32_t t = hkg_find(d, g, hk_view(d)->roots[k].id);
        if (t != HK_NONE)
            rk->v[rk->n++] = (root_key){t, (uint64_t)hk_graph_root_rank(hk_view(d)->roots[k].type) << 32 | k};
    }
    qsort(rk->v, rk->n, sizeof *rk->v, by_obj_key);
    uint32_t m = 0; /* the best key of each object */
    for (uint32_t k = 0; k < rk->n; k++)
        if (!m || rk->v[m - 1].obj != rk->v[k].obj) rk->v[m++] = rk->v[k];
    rk->n = m;
    return rk;
}

int64_t hkg_root_keys_record(const hkg_root_keys *rk, uint32_t obj)
{
    root_key want = {obj, 0};
    const root_key *r = bsearch(&want, rk->v, rk->n, sizeof *rk->v, by_obj_only);
    return r ? (int64_t)(r->key & UINT32_MAX) : -1;
}

void hkg_root_keys_free(hkg_root_keys *rk)
{
    if (rk) free(rk->v);
    free(rk);
}

/* The ancestors: objects, their parents in the search (as places in obj[]), a table object
 * -> place + 1, and the search's queue. */
typedef struct local {
    const hk_graph *g;
    uint32_t *obj, *par, *q, *tab;
    uint32_t n, max, mask, head, tail;
    uint32_t *lists;
    uint32_t nlists;
} local;

static uint32_t *slot_of(const local *l, uint32_t obj)
{
    uint32_t j = (obj * 0x9e3779b9u) & l->mask;
    while (l->tab[j] && l->obj[l->tab[j] - 1] != obj) j = (j + 1) & l->mask;
    return &l->tab[j];
}

static uint32_t place_of(const local *l, uint32_t obj)
{
    uint32_t s = *slot_of(l, obj);
    return s ? s - 1 : HK_NONE;
}

/* Finds the ancestors of obj[0]; 0 when there are more than max. */
static int ancestors(local *l)
{
    for (uint32_t i = 0; i < l->n; i++) {
        uint32_t nin;
        const uint32_t *in = hkg_in(l->g, l->obj[i], &nin);
        for (uint32_t k = 0; k < nin; k++) {
            uint32_t *s = slot_of(l, in[k]);
            if (*s) continue;
            if (l->n == l->max) return 0;
            l->obj[l->n] = in[k];
            *s = ++l->n;
        }
    }
    return 1;
}

static void reach(local *l, uint32_t p, uint32_t from)
{
    l->par[p] = from;
    l->q[l->tail++] = p;
}

/* The search's BFS over the ancestors (as graph_path.c's, list objects passed over until
 * the lists' turn). */
static void bfs(local *l, int lists)
{
    const hk_graph *g = l->g;
    while (l->head < l->tail) {
        uint32_t x = l->q[l->head++], o = l->obj[x];
        if (!lists && (g->flags[o] & HKG_F_LIST)) {
            l->lists[l->nlists++] = x;
            continue;
        }
        for (uint32_t k = g->out_start[o]; k < g->out_start[o + 1]; k++) {
            uint32_t p = place_of(l, g->out[k]);
            if (p != HK_NONE && l->par[p] == HK_NONE) reach(l, p, x);
        }
    }
}

static int by_key(const void *pa, const void *pb)
{
    const root_key *a = pa, *b = pb;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* The search itself: roots by rank (in their seeding order), then the lists. */
static void search(local *l, const hkg_root_keys *rk)
{
    const hk_graph *g = l->g;
    root_key *seeds = hk_xrealloc(NULL, l->n * sizeof *seeds);
    uint32_t ns = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        if (!(g->flags[l->obj[i]] & HKG_F_ROOT)) continue;
        root_key want = {l->obj[i], 0};
        const root_key *r = bsearch(&want, rk->v, rk->n, sizeof *rk->v, by_obj_only);
        if (r) seeds[ns++] = (root_key){i, r->key};
    }
    qsort(seeds, ns, sizeof *seeds, by_key);
    for (uint32_t k = 0; k < ns; k++) {
        if (k == 0 || seeds[k].key >> 32 != seeds[k - 1].key >> 32) bfs(l, 0); /* the rank before */
        if (l->par[seeds[k].obj] == HK_NONE) reach(l, seeds[k].obj, HKG_P_ROOT);
    }
    free(seeds);
    bfs(l, 0);
    for (uint32_t k = 0; k < l->nlists; k++) {
        uint32_t o = l->obj[l->lists[k]];
        for (uint32_t e = g->out_start[o]; e < g->out_start[o + 1]; e++) {
            uint32_t p = place_of(l, g->out[e]);
            if (p != HK_NONE && l->par[p] == HK_NONE) reach(l, p, l->lists[k]);
        }
    }
    bfs(l, 1);
}

uint32_t hkg_path_local(const hk_graph *g, const hkg_root_keys *rk, uint32_t obj, uint32_t max, uint32_t **chain,
                        uint32_t *visited)
{
    local l = {.g = g, .max = max};
    uint32_t cap = 16;
    while (cap < 2 * max) cap *= 2;
    l.mask = cap - 1;
    l.tab = hk_xcalloc(cap, sizeof *l.tab);
    l.obj = hk_xrealloc(NULL, (size_t)max * sizeof *l.obj);
    l.obj[0] = obj;
    *slot_of(&l, obj) = l.n = 1;
    uint32_t len = 0;
    if (ancestors(&l)) {
        l.par = hk_xrealloc(NULL, (size_t)l.n * sizeof *l.par);
        memset(l.par, 0xff, (size_t)l.n * sizeof *l.par);
        l.q = hk_xrealloc(NULL, (size_t)l.n * sizeof *l.q);
        l.lists = hk_xrealloc(NULL, (size_t)l.n * sizeof *l.lists);
        search(&l, rk);
        if (l.par[0] != HK_NONE) {
            for (uint32_t p = 0; p != HKG_P_ROOT; p = l.par[p]) len++;
            *chain = hk_xrealloc(NULL, (size_t)len * sizeof **chain);
            uint32_t k = 0;
            for (uint32_t p = 0; p != HKG_P_ROOT; p = l.par[p]) (*chain)[k++] = l.obj[p];
        }
        free(l.par);
        free(l.q);
        free(l.lists);
    }
    *visited = l.n;
    free(l.obj);
    free(l.tab);
    return len;
}
