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
/* in a seeded semidominator: the node has referrers after it in preorder, which need eval */
#define LATER 0x80000000u

/* The dominator pass's working arrays; each is freed as soon as its phase ends. */
typedef struct dom_work {
    uint32_t n, m, live_end; /* objects, nodes (with the virtual root), end of the live heap */
    uint32_t *num;           /* object -> preorder number (n + 1 entries) */
    uint32_t *parent;        /* preorder -> DFS parent (in num's place); then idom by object */
    uint32_t *vert;          /* preorder -> object */
    uint32_t *anc;           /* forest of processed nodes; then idom in preorder */
    uint32_t *semi, *label;
    uint8_t *flag_runs; /* the flags packed meanwhile (flags_pack), or NULL */
    /* for the per-class walk (hk_graph.walk_classes): vert and semi in one block, which
     * becomes the child lists */
    int walk;
    int big;                        /* a shallow size of 4 GiB or more was met (shallow_part) */
    struct later_list *later_parts; /* referrers after their node in preorder, per part */
    uint32_t *path;                 /* the search's way back: the objects above the current one */
    size_t npath, path_cap;
    uint32_t *resume; /* where to go on in the search's nodes with many edges */
    size_t nresume, resume_cap;
    uint32_t next; /* next preorder number */
} dom_work;

enum { DOM_PARTS = 32 };
typedef struct dom_job {
    const hk_dump *d;
    hk_graph *g;
    dom_work *w;
} dom_job;

/* Depth-first from start (already numbered), over strong edges.  The way back is a stack of
 * the objects above the current one (4 bytes per level of depth, not per object: the parents
 * are found again from the referrers, see semi_seed_part), and the place to go on in the
 * parent's edges is found again by looking for the child (its first occurrence: an earlier
 * one would have been taken) unless the parent has many edges, whose places are kept. */
enum { RESCAN_MAX = 16 };
static void dfs_from(const hk_graph *g, dom_work *s, uint32_t start)
{
    const uint32_t *os = g->out_start, *out = g->out;
    uint32_t x = start, k = os[start];
    for (;;) {
        uint32_t end = os[x + 1];
        while (k < end && s->num[out[k]] != NONE) k++;
        if (k < end) {
            uint32_t t = out[k];
            if (end - os[x] > RESCAN_MAX) {
                if (s->nresume == s->resume_cap)
                    s->resume = hk_grow(s->resume, &s->resume_cap, s->nresume + 1, sizeof *s->resume);
                s->resume[s->nresume++] = k + 1;
            }
            if (s->npath == s->path_cap) s->path = hk_grow(s->path, &s->path_cap, s->npath + 1, sizeof *s->path);
            s->path[s->npath++] = x;
            s->num[t] = s->next++;
            x = t;
            k = os[t];
            continue;
        }
        if (x == start) return;
        uint32_t t = x;
        x = s->path[--s->npath];
        if (os[x + 1] - os[x] > RESCAN_MAX) {
            k = s->resume[--s->nresume];
            continue;
        }
        for (k = os[x]; out[k] != t; k++) {}
        k++;
    }
}

/* A new tree under the virtual root.  The live heap's trees are started from the roots,
 * which are marked children of the virtual root afterwards: this search may run beside
 * others that read the flags. */
static void attach(hk_graph *g, dom_work *s, uint32_t obj, int live)
{
    if (!live) g->flags[obj] |= HKG_F_VROOT;
    s->num[obj] = s->next++;
    dfs_from(g, s, obj);
}

void hkg_search_live(hk_graph *g)
{
    dom_work *s = hk_xcalloc(1, sizeof *s);
    s->n = g->n;
    s->m = g->n + 1;
    s->num = hk_xrealloc(NULL, (size_t)s->m * sizeof *s->num);
    memset(s->num, 0xff, (size_t)s->m * sizeof *s->num);
    s->num[s->n] = 0;
    s->next = 1;
    for (uint32_t k = 0; k < g->nroots; k++)
        if (s->num[g->roots[k]] == NONE) attach(g, s, g->roots[k], 1);
    s->live_end = s->next;
    free(s->path); /* grown again for what no root reaches, after the referrers are gone */
    s->path = NULL;
    s->path_cap = 0;
    g->search = s;
}

const uint32_t *hkg_search_numbers(const hk_graph *g, uint32_t *live_end)
{
    *live_end = g->search->live_end;
    return g->search->num;
}

void hkg_search_free(hk_graph *g)
{
    if (!g->search) return;
    free(g->search->num);
    free(g->search->path);
    free(g->search->resume);
    free(g->search);
    g->search = NULL;
}

/* Preorder numbers: the live heap first (from the roots), then what no root reaches: the
 * objects nothing references, then cycles.  The edges are not needed after this. */
static void dom_number(hk_graph *g, dom_work *s)
{
    if (!g->search) hkg_search_live(g);
    *s = *g->search;
    free(g->search);
    g->search = NULL;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->num[i] == NONE && g->in1[i] == HK_NONE) attach(g, s, i, 0);
    for (uint32_t i = 0; i < s->n; i++)
        if (s->num[i] == NONE) attach(g, s, i, 0);
    for (uint32_t i = 0; i < g->nroots; i++) g->flags[g->roots[i]] |= HKG_F_VROOT;
    free(s->resume);
    free(s->path);
    s->resume = s->path = NULL;
    hkg_drop_out(g);
}

/* Rewrites the referrer entries of objects [lo, hi) through map (object -> preorder number,
 * or back): each object's entries are its own, so parts run on the threads. */
static void map_referrers(hk_graph *g, const uint32_t *map, uint32_t lo, uint32_t hi)
{
    for (uint32_t v = lo; v < hi; v++) {
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

/* Parts 0..DOM_PARTS-1: vert from num; the next ones: referrers into preorder numbers (all
 * read num, each writes its own). */
static void to_preorder_part(void *ctx, int k)
{
    dom_job *j = ctx;
    dom_work *s = j->w;
    uint32_t lo, hi;
    hk_part_range(s->n + 1, k % DOM_PARTS, DOM_PARTS, &lo, &hi);
    if (k < DOM_PARTS) {
        for (uint32_t i = lo; i < hi; i++) s->vert[s->num[i]] = i;
        return;
    }
    if (hi > s->n) hi = s->n;
    map_referrers(j->g, s->num, lo, hi);
}

/* num is not needed after this: it becomes the parents' array (filled with the seeds). */
static void dom_to_preorder(hk_graph *g, dom_work *s)
{
    s->walk = g->walk_classes;
    s->vert = hk_xrealloc(NULL, (s->walk ? 2 : 1) * (size_t)s->m * sizeof *s->vert);
    dom_job j = {NULL, g, s};
    hk_parallel(2 * DOM_PARTS, to_preorder_part, &j);
    s->parent = s->num;
    s->num = NULL;
    s->parent[0] = NONE;
}

/* What each node's semidominator needs of no other node: the smallest referrer before it
 * in preorder (0 for a child of the virtual root), and a mark when a referrer comes after it.
 * Its parent in the search, too: the referrer with the largest preorder number below its own
 * (0: none, a tree of the virtual root).  A referrer numbered between the parent and the node
 * would be the parent's descendant, finished before the node was reached: it would have
 * reached the node first.
 * Those later referrers go through eval, in reverse preorder: each part lists them for its
 * nodes in preorder, a node's referrers and then their count, so that the pass reads the
 * joined lists backwards and the referrer index can go first.  Garbage that points into the
 * live heap must not shape its dominators; a referrer equal to the node changes nothing. */
typedef struct later_list {
    uint32_t *v;
    size_t n, cap;
} later_list;
static void semi_seed_part(void *ctx, int k)
{
    dom_job *j = ctx;
    const hk_graph *g = j->g;
    dom_work *s = j->w;
    later_list *l = &s->later_parts[k];
    uint32_t lo, hi;
    hk_part_range(s->m, k, DOM_PARTS, &lo, &hi);
    for (uint32_t w = lo ? lo : 1; w < hi; w++) {
        uint32_t v = s->vert[w], sw = w, pw = 0, nlater = 0, nin;
        const uint32_t *in = hkg_in(g, v, &nin);
        int vroot = (g->flags[v] & HKG_F_VROOT) != 0;
        for (uint32_t e = 0; e < nin; e++) {
            uint32_t u = in[e];
            if (u < w) {
                sw = u < sw ? u : sw;
                pw = u > pw ? u : pw;
                continue;
            }
            if (vroot || (w < s->live_end && u >= s->live_end) || u == w) continue;
            l->v = hk_grow(l->v, &l->cap, l->n + 2, sizeof *l->v);
            l->v[l->n++] = u;
            nlater++;
        }
        if (nlater) l->v[l->n++] = nlater;
        s->semi[w] = vroot ? 0 : sw | (nlater ? LATER : 0);
        s->parent[w] = pw;
    }
}

/* A part's later referrers, once read: lists grown on the threads stay in their malloc
 * arenas when freed, so their pages are given back first. */
static void later_drop(later_list *l)
{
    if (l->v) hk_release(l->v, 0, l->n * sizeof *l->v);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* eval(u) while node w is processed: the smallest semidominator on u's path in the forest of
 * the processed nodes (those above w: u is one), compressing the path.  The path is walked up
 * with its links reversed and down again, so no stack is needed.  A node's anc and label are
 * written when it is processed, and only processed nodes' are read. */
static uint32_t eval(dom_work *s, uint32_t u, uint32_t w)
{
    uint32_t *anc = s->anc, *label = s->label;
    const uint32_t *semi = s->semi;
    uint32_t below = NONE, x = u;
    while (anc[x] > w) {
        uint32_t up = anc[x];
        anc[x] = below;
        below = x;
        x = up;
    }
    while (below != NONE) {
        uint32_t next = anc[below];
        if (semi[label[x]] < semi[label[below]]) label[below] = label[x];
        anc[below] = anc[x];
        x = below;
        below = next;
    }
    return semi[label[u]];
}

/* The reverse preorder loop: each node's semidominator from its seed and, for its later
 * referrers, eval in the forest of the nodes after it.  The later referrers are read
 * backwards, part after part, each part given back once read. */
static void semi_loop(dom_work *s)
{
    int kp = DOM_PARTS - 1;
    uint32_t plo, phi;
    hk_part_range(s->m, kp, DOM_PARTS, &plo, &phi);
    size_t cur = s->later_parts[kp].n;
    for (uint32_t w = s->m - 1; w >= 1; w--) {
        uint32_t sw = s->semi[w];
        if (sw & LATER) {
            while (w < plo) {
                later_drop(&s->later_parts[kp--]);
                hk_part_range(s->m, kp, DOM_PARTS, &plo, &phi);
                cur = s->later_parts[kp].n;
            }
            const uint32_t *later = s->later_parts[kp].v;
            uint32_t cnt = later[--cur];
            sw &= ~LATER;
            cur -= cnt;
            for (uint32_t e = 0; e < cnt && sw; e++) {
                uint32_t su = eval(s, later[cur + e], w);
                if (su < sw) sw = su;
            }
        }
        s->semi[w] = sw;
        s->label[w] = w;
        s->anc[w] = s->parent[w];
    }
    for (int k = 0; k < DOM_PARTS; k++) later_drop(&s->later_parts[k]);
    free(s->later_parts);
    s->later_parts = NULL;
}

/* The flags are not read from the semidominator seeds to the retained sizes (their sum reads
 * them): they are kept as runs of equal bytes meanwhile (most objects are strongly reachable
 * and nothing more), each a byte and its length in 7-bit groups, when the runs take at most a
 * sixteenth of the array (else the array stays). */
static void flags_pack(hk_graph *g, dom_work *s)
{
    const uint8_t *f = g->flags;
    size_t cap = g->n / 16, len = 0;
    uint8_t *b = hk_xmalloc(cap + 1);
    for (uint32_t i = 0; i < g->n;) {
        uint32_t j = i + 1;
        while (j < g->n && f[j] == f[i]) j++;
        if (len + 6 > cap) {
            free(b);
            return;
        }
        b[len++] = f[i];
        uint32_t r = j - i;
        for (; r >= 0x80; r >>= 7) b[len++] = (uint8_t)(r | 0x80);
        b[len++] = (uint8_t)r;
        i = j;
    }
    free(g->flags);
    g->flags = NULL;
    s->flag_runs = hk_xrealloc(b, len ? len : 1);
}

static void flags_unpack(hk_graph *g, dom_work *s)
{
    if (!s->flag_runs) return;
    uint8_t *f = g->flags = hk_xmalloc(g->n ? g->n : 1);
    hk_prefault(f, g->n);
    const uint8_t *b = s->flag_runs;
    for (uint32_t i = 0; i < g->n;) {
        uint8_t v = *b++;
        uint32_t r = 0;
        for (int sh = 0;; sh += 7) {
            uint8_t c = *b++;
            r |= (uint32_t)(c & 0x7f) << sh;
            if (!(c & 0x80)) break;
        }
        memset(f + i, v, r);
        i += r;
    }
    free(s->flag_runs);
    s->flag_runs = NULL;
}

/* Semidominators in reverse preorder.  Unless the caller asked for referrers, their index
 * goes once the seeds are taken (rebuilt if asked for later): the pass then holds vert,
 * parent and semi, while label and anc are touched from the top down as the later referrers
 * are given back from the top down. */
static void dom_semi(hk_graph *g, dom_work *s)
{
    const uint32_t m = s->m;
    s->semi = s->walk ? s->vert + m : hk_xrealloc(NULL, (size_t)m * sizeof *s->semi);
    s->later_parts = hk_xcalloc(DOM_PARTS, sizeof *s->later_parts);
    dom_job j = {NULL, g, s};
    hk_parallel(DOM_PARTS, semi_seed_part, &j);
    s->semi[0] = 0;
    flags_pack(g, s);
    hk_mem_trim(); /* the lists' earlier, smaller copies */
    if (!g->keep_in) hkg_drop_referrers(g);
    s->label = hk_xmalloc((size_t)m * sizeof *s->label);
    s->anc = hk_xmalloc((size_t)m * sizeof *s->anc);
    semi_loop(s);
    free(s->label);
    s->label = NULL;
}

/* Immediate dominators: from the DFS parent up to the semidominator's depth (into anc). */
static void dom_idom(dom_work *s)
{
    uint32_t *idom = s->anc;
    idom[0] = NONE;
    for (uint32_t w = 1; w < s->m; w++) {
        uint32_t x = s->parent[w];
        while (x > s->semi[w]) x = idom[x];
        idom[w] = x;
    }
    if (!s->walk) free(s->semi);
    s->semi = NULL;
}

/* idom in object space, written over parent (no longer needed). */
static void to_objects_part(void *ctx, int k)
{
    dom_job *j = ctx;
    dom_work *s = j->w;
    uint32_t lo, hi;
    hk_part_range(s->m, k, DOM_PARTS, &lo, &hi);
    if (lo == 0) lo = 1;
    for (uint32_t w = lo; w < hi; w++) {
        uint32_t p = s->vert[s->anc[w]];
        s->parent[s->vert[w]] = p == s->n ? HK_NONE : p;
    }
}

/* Shallow sizes into the retained sizes' words: each part reads its objects' records.  A size
 * that does not fit is marked, and put in the table of big ones by shallow_big after. */
static void shallow_part(void *ctx, int k)
{
    dom_job *j = ctx;
    uint32_t lo, hi, *ret = j->g->retained;
    hk_part_range(j->w->n, k, DOM_PARTS, &lo, &hi);
    hkg_sizer sz = {0};
    for (uint32_t i = lo; i < hi; i++) {
        uint64_t b = hkg_shallow(j->d, &sz, i);
        ret[i] = b < HKG_RET_BIG ? (uint32_t)b : HKG_RET_BIG;
        if (b >= HKG_RET_BIG) __atomic_store_n(&j->w->big, 1, __ATOMIC_RELAXED);
    }
}

static void shallow_big(const hk_dump *d, hk_graph *g, const dom_work *s)
{
    hk_idtab_init(&g->retained_big);
    hkg_sizer sz = {0};
    for (uint32_t i = 0; s->big && i < s->n; i++)
        if (g->retained[i] == HKG_RET_BIG) hk_idtab_set(&g->retained_big, (uint64_t)i + 1, hkg_shallow(d, &sz, i));
}

/* ret[p] += ret[v] where the sum, or either size, does not fit in 4 bytes. */
static void add_big(hk_graph *g, uint32_t p, uint32_t v)
{
    hk_idtab_set(&g->retained_big, (uint64_t)p + 1, hkg_retained(g, p) + hkg_retained(g, v));
    g->retained[p] = HKG_RET_BIG;
}

/* Native bytes up the dominator tree: only the few objects above a native allocation. */
static void retained_native(hk_graph *g, uint32_t v, uint32_t p)
{
    hk_idtab *rn = &g->retained_native;
    uint64_t x, y = 0;
    hk_idtab_get(rn, (uint64_t)v + 1, &x);
    if (p == g->n) {
        g->total_native += x;
        return;
    }
    hk_idtab_get(rn, (uint64_t)p + 1, &y);
    hk_idtab_set(rn, (uint64_t)p + 1, x + y);
    g->flags[p] |= HKG_F_RNATIVE;
}

/* Retained sizes: children before parents in reverse preorder. */
static void accumulate(hk_graph *g, const dom_work *s)
{
    uint32_t *ret = g->retained;
    const uint32_t n = s->n, *vert = s->vert, *oid = g->idom;
    ret[n] = 0;
    hk_idtab_init(&g->retained_native);
    if (g->native)
        for (uint32_t i = 0; i < n; i++)
            if (g->native[i]) {
                hk_idtab_set(&g->retained_native, (uint64_t)i + 1, g->native[i]);
                g->flags[i] |= HKG_F_RNATIVE;
            }
    g->total_native = 0;
    const int natives = g->native != NULL; /* else no object is marked HKG_F_RNATIVE */
    for (uint32_t w = s->m - 1; w >= 1; w--) {
        if (w > 16) {
            __builtin_prefetch(&oid[vert[w - 16]]);
            __builtin_prefetch(&ret[vert[w - 16]], 1);
            uint32_t o = oid[vert[w - 8]]; /* its line was asked for 8 nodes ago */
            __builtin_prefetch(&ret[o == HK_NONE ? n : o], 1);
        }
        uint32_t v = vert[w], p = oid[v] == HK_NONE ? n : oid[v];
        uint64_t sum = (uint64_t)ret[p] + ret[v]; /* HKG_RET_BIG in either makes it too big */
        if (sum < HKG_RET_BIG) ret[p] = (uint32_t)sum;
        else add_big(g, p, v);
        if (natives && (g->flags[v] & HKG_F_RNATIVE)) retained_native(g, v, p);
    }
    g->total_bytes = hkg_retained(g, n);
}

/* Part 0 sums the retained sizes; the others turn the referrers back into object indices. */
static void finish_part(void *ctx, int k)
{
    dom_job *j = ctx;
    if (k == 0) {
        accumulate(j->g, j->w);
        return;
    }
    uint32_t lo, hi;
    hk_part_range(j->w->n, k - 1, DOM_PARTS, &lo, &hi);
    if (j->g->in1) map_referrers(j->g, j->w->vert, lo, hi);
}

/* Memory, in 4-byte words per object on top of the index and flags: the search holds num (and
 * a word per level of depth) beside the edges and the referrers (the edges go after it); the
 * referrers are rewritten into preorder numbers and num becomes the parents, found with the
 * seeds; the semidominator pass holds vert, parent and semi, the referrers only while its
 * seeds are taken (unless kept), and label and anc grow as the later referrers shrink; the
 * retained sizes (a word, in anc's: its pages are in) come after label and semi are gone; the
 * flags are packed from the seeds to the retained sizes (flags_pack).  For the per-class walk
 * vert and semi stay, in one block of two words, which becomes the child lists: the same words
 * a fresh block would hold. */
int hkg_build_dom(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    dom_work s;
    /* the per-class lists (the leak finders') are 4 bytes an object at the dominators' peak;
     * built again if asked for after.  The per-class walk reads them instead of the records. */
    if (!g->walk_classes) hk_class_lists_drop(d);
    dom_number(g, &s);
    dom_to_preorder(g, &s);
    dom_semi(g, &s);
    dom_idom(&s);
    dom_job j = {d, g, &s};
    hk_parallel(DOM_PARTS, to_objects_part, &j);
    g->idom = s.parent;
    g->idom[s.n] = HK_NONE;
    g->retained = s.anc; /* idom in preorder is read: as big */
    s.anc = NULL;
    hk_parallel(DOM_PARTS, shallow_part, &j);
    shallow_big(d, g, &s);
    flags_unpack(g, &s);
    /* the sum goes first: the longest part, beside the referrers' rewriting */
    hk_parallel(DOM_PARTS + 1, finish_part, &j);
    if (s.walk) hkg_build_kids(g, (hkg_kid *)(void *)s.vert); /* vert and semi: as big */
    else free(s.vert);
    return 0;
}
