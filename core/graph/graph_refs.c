/* The graph's state, the id -> index finder, forward references and the referrer index. */
#include "graph/graph_internal.h"
#include "hprof/hprof_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

double hkg_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void graph_free(hk_dump *d)
{
    hk_graph *g = d->graph;
    if (!g) return;
    free(g->bucket); free(g->bucket_base); free(g->bucket_min); free(g->bucket_shift);
    free(g->cls); free(g->ref_offs); free(g->out_start); free(g->out); free(g->weak);
    free(g->flags); free(g->shallow); free(g->cleaners); free(g->roots); free(g->in1); free(g->in_many); free(g->reach);
    free(g->native); free(g->idom); free(g->retained); free(g->retained_native);
    free(g->kid_start); free(g->kids); free(g->parent); free(g->pweak);
    free(g);
    d->graph = NULL;
}

hk_graph *hkg_state(hk_dump *d, char *err, size_t errlen)
{
    if (d->graph) return d->graph;
    hk_graph *g = calloc(1, sizeof *g);
    if (!g) { snprintf(err, errlen, "graph: out of memory"); return NULL; }
    g->n = d->nobjects;
    d->graph = g;
    d->cleanup[0] = graph_free;
    return g;
}

/* ---- id -> index: buckets over each id segment, so a lookup is one table read and a
 * short search instead of a binary search over all objects (ids are addresses, near
 * uniform). ---- */
static int build_finder(hk_dump *d, hk_graph *g)
{
    uint32_t ns = d->nsegs ? d->nsegs : 1;
    g->bucket_base = calloc(ns + 1, sizeof *g->bucket_base);
    g->bucket_min = calloc(ns, sizeof *g->bucket_min);
    g->bucket_shift = calloc(ns, 1);
    if (!g->bucket_base || !g->bucket_min || !g->bucket_shift) return -1;
    uint64_t total = 0;
    uint32_t *nb = calloc(ns, sizeof *nb);
    if (!nb) return -1;
    for (uint32_t s = 0; s < d->nsegs; s++) {
        uint32_t a = d->segs[s].start, b = s + 1 < d->nsegs ? d->segs[s + 1].start : d->nobjects;
        uint32_t cnt = b - a, want = cnt / 2 + 1;
        uint32_t lo = cnt ? d->id_lo[a] : 0, hi = cnt ? d->id_lo[b - 1] : 0;
        uint8_t sh = 0;
        while (((uint64_t)(hi - lo) >> sh) >= want) sh++;
        g->bucket_shift[s] = sh;
        g->bucket_min[s] = lo;
        nb[s] = (uint32_t)((uint64_t)(hi - lo) >> sh) + 1;
        /* bucket_base[s + 1] ends segment s: the last segment's end bounds its lookups too */
        g->bucket_base[s] = (uint32_t)total;
        total += nb[s] + 1;
        g->bucket_base[s + 1] = (uint32_t)total;
    }
    g->bucket = malloc((total + 1) * sizeof *g->bucket);
    if (!g->bucket) { free(nb); return -1; }
    for (uint32_t s = 0; s < d->nsegs; s++) {
        uint32_t a = d->segs[s].start, b = s + 1 < d->nsegs ? d->segs[s + 1].start : d->nobjects;
        uint32_t *bk = g->bucket + g->bucket_base[s];
        uint32_t k = 0;
        for (uint32_t i = a; i < b; i++) {
            uint32_t want = (d->id_lo[i] - g->bucket_min[s]) >> g->bucket_shift[s];
            while (k <= want) bk[k++] = i;
        }
        while (k <= nb[s]) bk[k++] = b;
    }
    free(nb);
    return 0;
}

uint32_t hkg_find(const hk_dump *d, const hk_graph *g, hk_id id)
{
    if (!id || !d->nsegs) return HK_NONE;
    uint32_t hiw = (uint32_t)(id >> 32), low = (uint32_t)id, s = hk_seg_find(d, hiw);
    if (d->segs[s].hi != hiw || low < g->bucket_min[s]) return HK_NONE;
    uint32_t k = (low - g->bucket_min[s]) >> g->bucket_shift[s];
    uint32_t nbk = g->bucket_base[s + 1] - g->bucket_base[s] - 1;
    if (k >= nbk) return HK_NONE;
    const uint32_t *bk = g->bucket + g->bucket_base[s];
    uint32_t a = bk[k], b = bk[k + 1];
    const uint32_t *ids = d->id_lo;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (ids[mid] < low) a = mid + 1; else b = mid;
    }
    return a < bk[k + 1] && ids[a] == low ? a : HK_NONE;
}

/* ---- Reference kinds ---- */
int hkg_ref_kind(const hk_dump *d, const hk_class *c)
{
    static const struct { const char *name; int kind; } kinds[] = {
        {"java.lang.ref.SoftReference", HK_REACH_SOFT},
        {"java.lang.ref.WeakReference", HK_REACH_WEAK},
        {"java.lang.ref.PhantomReference", HK_REACH_PHANTOM},
        {"java.lang.ref.FinalizerReference", HK_REACH_FINALIZER},
        {"java.lang.ref.Finalizer", HK_REACH_FINALIZER},
        {"java.lang.ref.FinalReference", HK_REACH_FINALIZER},
        {"java.lang.ref.Reference", HK_REACH_WEAK},   /* an unknown direct subclass */
    };
    for (int depth = 0; c && depth < 64; depth++) {
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            if (c->name && !strcmp(c->name, kinds[k].name)) return kinds[k].kind;
        c = c->super != HK_NONE ? &d->classes[c->super] : NULL;
    }
    return HK_REACH_STRONG;
}

/* 2 for sun.misc.Cleaner and subclasses (Android's native allocations), 1 for HotSpot's
 * jdk.internal.ref.Cleaner, else 0. */
static int is_cleaner(const hk_dump *d, const hk_class *c)
{
    for (int depth = 0; c && depth < 64; depth++) {
        if (c->name && !strcmp(c->name, "sun.misc.Cleaner")) return 2;
        if (c->name && !strcmp(c->name, "jdk.internal.ref.Cleaner")) return 1;
        c = c->super != HK_NONE ? &d->classes[c->super] : NULL;
    }
    return 0;
}

static int build_class_refs(hk_dump *d, hk_graph *g)
{
    g->cls = calloc(d->nclasses ? d->nclasses : 1, sizeof *g->cls);
    if (!g->cls) return -1;
    size_t cap = 64, n = 0;
    g->ref_offs = malloc(cap * sizeof *g->ref_offs);
    if (!g->ref_offs) return -1;
    for (uint32_t ci = 0; ci < d->nclasses; ci++) {
        hk_class *c = &d->classes[ci];
        hkg_class_refs *cr = &g->cls[ci];
        uint32_t nf;
        const hk_field *f = hk_class_layout(d, c, &nf);
        int kind = hkg_ref_kind(d, c);
        int wref = -1, wzombie = -1;
        if (kind != HK_REACH_STRONG) {
            /* the last "referent" of the flattened layout is Reference's own */
            for (uint32_t k = 0; k < nf; k++) {
                if (f[k].type != HK_T_OBJECT) continue;
                if (!strcmp(f[k].name, "referent")) wref = (int)k;
                if (kind == HK_REACH_FINALIZER && !strcmp(f[k].name, "zombie")) wzombie = (int)k;
            }
        }
        cr->start = (uint32_t)n;
        for (uint32_t k = 0; k < nf; k++) {
            /* ART's Object.shadow$_klass_ is the instance's class: not an edge (see graph.h) */
            if (f[k].type != HK_T_OBJECT || !strcmp(f[k].name, "shadow$_klass_")) continue;
            if ((int)k == wref || (int)k == wzombie) {
                cr->woff[cr->nweak++] = f[k].offset;
                continue;
            }
            if (n == cap) {
                uint32_t *p = realloc(g->ref_offs, (cap *= 2) * sizeof *p);
                if (!p) return -1;
                g->ref_offs = p;
            }
            g->ref_offs[n++] = f[k].offset;
        }
        cr->count = (uint32_t)(n - cr->start);
        cr->wkind = (uint8_t)kind;
        int cl = is_cleaner(d, c);
        cr->list_link = kind == HK_REACH_FINALIZER || cl;
        cr->cleaner = cl == 2;
    }
    return 0;
}

/* A growable edge list. */
typedef struct edges { uint32_t *v; uint64_t n, cap; } edges;
static inline int push(edges *e, uint32_t t)
{
    if (e->n == e->cap) {
        uint64_t nc = e->cap ? e->cap * 2 : 1024;
        uint32_t *p = realloc(e->v, nc * sizeof *p);
        if (!p) return -1;
        e->v = p;
        e->cap = nc;
    }
    e->v[e->n++] = t;
    return 0;
}

static int push_weak(hk_graph *g, uint32_t *cap, uint32_t src, uint32_t dst, int kind)
{
    if (g->nweak == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 256;
        hkg_weak *p = realloc(g->weak, nc * sizeof *p);
        if (!p) return -1;
        g->weak = p;
        *cap = nc;
    }
    g->weak[g->nweak++] = (hkg_weak){src, dst, (uint8_t)kind};
    return 0;
}

int hkg_build_refs(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    double t0 = hkg_now();
    const uint32_t n = d->nobjects, idsz = d->id_size;
    if (build_finder(d, g) || build_class_refs(d, g)) goto oom;
    g->out_start = malloc(((size_t)n + 1) * sizeof *g->out_start);
    g->flags = calloc(n ? n : 1, 1);
    g->shallow = malloc((n ? n : 1) * sizeof *g->shallow);
    if (!g->out_start || !g->flags || !g->shallow) goto oom;
    uint32_t ccap = 0;
    edges e = {0};
    e.cap = (uint64_t)n * 2 + 1024;
    e.v = malloc(e.cap * sizeof *e.v);
    if (!e.v) goto oom;
    uint32_t wcap = 0;
    hk_id last_cid = 0;
    uint32_t last_size = 0;
    const hkg_class_refs *cr = NULL;
    g->out_start[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *r = d->data + hk_obj_offset(d, i);
        uint64_t sz;
        switch (*r) {
        case HPROF_INSTANCE_DUMP: {
            hk_id cid = hk_rec_instance_class(d, r);
            if (cid != last_cid || !cr) {
                uint32_t *ci = hk_idmap_get(&d->class_by_id, cid);
                cr = ci ? &g->cls[*ci] : NULL;
                last_cid = cid;
                last_size = ci ? d->classes[*ci].instance_size : 0;
            }
            g->shallow[i] = last_size;
            if (!cr) break;
            if (cr->cleaner) {
                if (g->ncleaners == ccap) {
                    uint32_t *p = realloc(g->cleaners, (ccap = ccap ? 2 * ccap : 64) * sizeof *p);
                    if (!p) goto oom_e;
                    g->cleaners = p;
                }
                g->cleaners[g->ncleaners++] = i;
            }
            uint32_t len;
            const uint8_t *p = hk_rec_instance_data(d, r, &len);
            const uint32_t *offs = g->ref_offs + cr->start;
            for (uint32_t k = 0; k < cr->count; k++) {
                if (offs[k] + idsz > len) continue;
                hk_id id = hk_be_id(d, p + offs[k]);
                if (!id) continue;
                uint32_t t = hkg_find(d, g, id);
                if (t != HK_NONE && push(&e, t)) goto oom_e;
            }
            for (uint32_t k = 0; k < cr->nweak; k++) {
                if (cr->woff[k] + idsz > len) continue;
                uint32_t t = hkg_find(d, g, hk_be_id(d, p + cr->woff[k]));
                if (t == HK_NONE) continue;
                if (push_weak(g, &wcap, i, t, cr->wkind)) goto oom_e;
                g->flags[i] |= HKG_F_WEAK;
            }
            if (cr->list_link) g->flags[i] |= HKG_F_LIST;
            break;
        }
        case HPROF_OBJ_ARRAY_DUMP: {
            uint32_t cnt = hk_rec_array_length(d, r);
            sz = hk_obj_shallow_size(d, i);
            g->shallow[i] = sz >= UINT32_MAX ? UINT32_MAX : (uint32_t)sz;
            const uint8_t *p = hk_rec_obj_array_elems(d, r);
            for (uint32_t k = 0; k < cnt; k++, p += idsz) {
                hk_id id = hk_be_id(d, p);
                if (!id) continue;
                uint32_t t = hkg_find(d, g, id);
                if (t != HK_NONE && push(&e, t)) goto oom_e;
            }
            break;
        }
        case HPROF_CLASS_DUMP: {
            sz = hk_obj_shallow_size(d, i);
            g->shallow[i] = sz >= UINT32_MAX ? UINT32_MAX : (uint32_t)sz;
            uint32_t *ci = hk_idmap_get(&d->class_by_id, hk_be_id(d, r + 1));
            if (!ci) break;
            const hk_class *c = &d->classes[*ci];
            hk_id ids[2] = {c->super_id, c->loader_id};
            for (int k = 0; k < 2; k++) {
                uint32_t t = hkg_find(d, g, ids[k]);
                if (t != HK_NONE && push(&e, t)) goto oom_e;
            }
            for (uint32_t k = 0; k < c->nstatics; k++) {
                if (c->statics[k].type != HK_T_OBJECT) continue;
                uint32_t t = hkg_find(d, g, c->statics[k].value.ref);
                if (t != HK_NONE && push(&e, t)) goto oom_e;
            }
            break;
        }
        default:
            sz = hk_obj_shallow_size(d, i);
            g->shallow[i] = sz >= UINT32_MAX ? UINT32_MAX : (uint32_t)sz;
            break;
        }
        if (e.n > UINT32_MAX) {
            free(e.v);
            snprintf(err, errlen, "graph: more than 4G references; this dump is too large for the graph index");
            return -1;
        }
        g->out_start[i + 1] = (uint32_t)e.n;
    }
    g->out = e.v;
    g->nout = e.n;
    /* roots, without duplicates */
    g->roots = malloc((d->nroots ? d->nroots : 1) * sizeof *g->roots);
    if (!g->roots) goto oom;
    for (uint32_t k = 0; k < d->nroots; k++) {
        uint32_t t = hkg_find(d, g, d->roots[k].id);
        if (t == HK_NONE || (g->flags[t] & HKG_F_ROOT)) continue;
        g->flags[t] |= HKG_F_ROOT;
        g->roots[g->nroots++] = t;
    }
    g->times.refs = hkg_now() - t0;
    return 0;
oom_e:
    free(e.v);
oom:
    snprintf(err, errlen, "graph: out of memory building the reference index (%u objects)", n);
    return -1;
}

int hkg_build_referrers(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    double t0 = hkg_now();
    const uint32_t n = g->n;
    if (n >= HKG_IN_MANY) {
        snprintf(err, errlen, "graph: %u objects is more than the referrer index handles (2^31)", n);
        return -1;
    }
    uint32_t *in1 = calloc(n ? n : 1, sizeof *in1);
    if (!in1) goto oom;
    for (uint64_t k = 0; k < g->nout; k++) if (in1[g->out[k]] < 2) in1[g->out[k]]++;
    /* second count only for objects with several referrers, into their slots */
    uint64_t many = 0;
    uint32_t *deg = NULL;
    uint32_t nmany = 0;
    for (uint32_t v = 0; v < n; v++) nmany += in1[v] == 2;
    if (nmany) {
        /* exact degrees of the objects with several referrers, counted in a scratch array */
        deg = calloc(n, sizeof *deg);
        if (!deg) { free(in1); goto oom; }
        for (uint64_t k = 0; k < g->nout; k++) if (in1[g->out[k]] == 2) deg[g->out[k]]++;
        for (uint32_t v = 0; v < n; v++) if (in1[v] == 2) many += 1 + (uint64_t)deg[v];
        if (many >= HKG_IN_MANY) { free(in1); free(deg); snprintf(err, errlen, "graph: too many referrers for the referrer index"); return -1; }
    }
    uint32_t *ov = malloc((many ? many : 1) * sizeof *ov);
    if (!ov) { free(in1); free(deg); goto oom; }
    uint64_t pos = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (in1[v] == 0) in1[v] = HK_NONE;
        else if (in1[v] == 1) in1[v] = HKG_IN_MANY - 1;     /* pending: filled below */
        else { ov[pos] = 0; in1[v] = HKG_IN_MANY | (uint32_t)pos; pos += 1 + deg[v]; }
    }
    free(deg);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = g->out_start[i]; k < g->out_start[i + 1]; k++) {
            uint32_t t = g->out[k], x = in1[t];
            if (x & HKG_IN_MANY && x != HK_NONE) {
                x &= ~HKG_IN_MANY;
                ov[x + 1 + ov[x]++] = i;
            } else {
                in1[t] = i;
            }
        }
    g->in1 = in1;
    g->in_many = ov;
    g->nin_many = many;
    g->times.referrers = hkg_now() - t0;
    return 0;
oom:
    snprintf(err, errlen, "graph: out of memory building the referrer index");
    return -1;
}

int hk_graph_ensure(hk_dump *d, int mask, char *err, size_t errlen)
{
    hk_graph *g = hkg_state(d, err, errlen);
    if (!g) return -1;
    if (mask & HK_GRAPH_DOM) mask |= HK_GRAPH_REFERRERS | HK_GRAPH_NATIVE;
    if (mask & (HK_GRAPH_REFERRERS | HK_GRAPH_REACH | HK_GRAPH_NATIVE | HK_GRAPH_PATHS)) mask |= HK_GRAPH_REFS;
    static const struct { int bit; const char *what; int (*fn)(hk_dump *, hk_graph *, char *, size_t); } phases[] = {
        {HK_GRAPH_REFS, "references", hkg_build_refs}, {HK_GRAPH_REFERRERS, "referrers", hkg_build_referrers},
        {HK_GRAPH_REACH, "reachability", hkg_build_reach}, {HK_GRAPH_NATIVE, "native sizes", hkg_build_native},
        {HK_GRAPH_DOM, "dominators", hkg_build_dom}, {HK_GRAPH_PATHS, "paths from roots", hkg_build_paths},
    };
    /* a few seconds on a big heap: say what is happening when someone is watching */
    int tty = isatty(2), shown = 0;
    for (size_t k = 0; k < sizeof phases / sizeof phases[0]; k++) {
        if (!(mask & phases[k].bit) || (g->done & phases[k].bit)) continue;
        if (tty && d->nobjects > 1000000) { fprintf(stderr, "\r\033[Kheap graph: %s...", phases[k].what); shown = 1; }
        int rc = phases[k].fn(d, g, err, errlen);
        if (rc) { if (shown) fputs("\r\033[K", stderr); return -1; }
        g->done |= phases[k].bit;
    }
    if (shown) fputs("\r\033[K", stderr);
    return 0;
}

const uint32_t *hk_graph_out(hk_dump *d, uint32_t obj, uint32_t *n)
{
    hk_graph *g = d->graph;
    if (!g || !(g->done & HK_GRAPH_REFS) || obj >= g->n) { *n = 0; return NULL; }
    *n = g->out_start[obj + 1] - g->out_start[obj];
    return g->out + g->out_start[obj];
}

uint32_t hkg_weak_first(const hk_graph *g, uint32_t obj)
{
    uint32_t a = 0, b = g->nweak;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (g->weak[m].src < obj) a = m + 1; else b = m;
    }
    return a;
}

int hk_graph_weak_out(hk_dump *d, uint32_t obj, uint32_t to[2], int kind[2])
{
    hk_graph *g = d->graph;
    if (!g || !(g->done & HK_GRAPH_REFS) || obj >= g->n || !(g->flags[obj] & HKG_F_WEAK)) return 0;
    int n = 0;
    for (uint32_t k = hkg_weak_first(g, obj); k < g->nweak && g->weak[k].src == obj && n < 2; k++) {
        to[n] = g->weak[k].dst;
        kind[n++] = g->weak[k].kind;
    }
    return n;
}

const uint32_t *hk_graph_root_objects(hk_dump *d, uint32_t *n)
{
    hk_graph *g = d->graph;
    if (!g || !(g->done & HK_GRAPH_REFS)) { *n = 0; return NULL; }
    *n = g->nroots;
    return g->roots;
}

uint64_t hk_graph_edge_count(hk_dump *d)
{
    hk_graph *g = d->graph;
    return g ? g->nout + g->nweak : 0;
}

const uint32_t *hk_graph_referrers(hk_dump *d, uint32_t obj, uint32_t *n)
{
    hk_graph *g = d->graph;
    if (!g || !(g->done & HK_GRAPH_REFERRERS) || obj >= g->n) { *n = 0; return NULL; }
    return hkg_in(g, obj, n);
}

uint32_t hk_graph_weak_referrers(hk_dump *d, uint32_t obj, uint32_t *out, uint32_t max)
{
    hk_graph *g = d->graph;
    uint32_t total = 0;
    if (!g) return 0;
    for (uint32_t k = 0; k < g->nweak; k++)
        if (g->weak[k].dst == obj) {
            if (total < max) out[total] = g->weak[k].src;
            total++;
        }
    return total;
}

uint64_t hk_graph_referrer_bytes(hk_dump *d)
{
    hk_graph *g = d->graph;
    if (!g || !(g->done & HK_GRAPH_REFERRERS)) return 0;
    return ((uint64_t)g->n + g->nin_many) * sizeof(uint32_t);
}

void hk_graph_get_times(hk_dump *d, hk_graph_times *t)
{
    hk_graph *g = d->graph;
    if (g) *t = g->times; else memset(t, 0, sizeof *t);
}
