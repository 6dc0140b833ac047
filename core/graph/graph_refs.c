/* The graph's state, the id -> index finder, forward references and the referrer index. */
#include "graph/graph_internal.h"
#include "util/hk_report.h"
#include "hprof/hprof_internal.h"
#include "util/hk_jobs.h"

#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
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
    hk_iddir_free(&g->finder);
    free(g->cls);
    free(g->ref_offs);
    free(g->out_start);
    free(g->out);
    free(g->weak);
    free(g->flags);
    free(g->cleaners);
    free(g->roots);
    free(g->in1);
    free(g->in_many);
    free(g->reach);
    free(g->native);
    free(g->idom);
    free(g->retained);
    hk_idtab_free(&g->retained_native);
    free(g->kid_start);
    free(g->kids);
    free(g->kids_sorted);
    free(g->parent);
    free(g->pweak);
    free(g);
    d->graph = NULL;
}

static hk_graph *hkg_state(hk_dump *d, char *err, size_t errlen)
{
    if (d->graph) return d->graph;
    hk_graph *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "graph: out of memory");
        return NULL;
    }
    g->n = d->nobjects;
    d->graph = g;
    d->cleanup[0] = graph_free;
    return g;
}

uint32_t hkg_find(const hk_dump *d, const hk_graph *g, hk_id id)
{
    if (!id || !d->nsegs) return HK_NONE;
    if (!g->finder.bucket) return hk_obj_find(d, id);
    return hk_iddir_find(&g->finder, d, id);
}

/* ---- Reference kinds ---- */
static int hkg_ref_kind(const hk_dump *d, const hk_class *c)
{
    static const struct {
        const char *name;
        int kind;
    } kinds[] = {
        {"java.lang.ref.SoftReference", HK_REACH_SOFT},       {"java.lang.ref.WeakReference", HK_REACH_WEAK},
        {"java.lang.ref.PhantomReference", HK_REACH_PHANTOM}, {"java.lang.ref.FinalizerReference", HK_REACH_FINALIZER},
        {"java.lang.ref.Finalizer", HK_REACH_FINALIZER},      {"java.lang.ref.FinalReference", HK_REACH_FINALIZER},
        {"java.lang.ref.Reference", HK_REACH_WEAK}, /* an unknown direct subclass */
    };
    static const int by_dump[] = {HK_REACH_STRONG, HK_REACH_SOFT, HK_REACH_WEAK, HK_REACH_FINALIZER, HK_REACH_PHANTOM};
    for (int depth = 0; c && depth < 64; depth++) {
        /* a kind the dump records (a Perfetto heap graph's type kind) wins over names */
        if (c->ref_kind && c->ref_kind <= HK_REF_PHANTOM) return by_dump[c->ref_kind];
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
typedef struct edges {
    uint32_t *v;
    uint64_t n, cap;
} edges;
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

uint64_t hkg_shallow(const hk_dump *d, hkg_sizer *s, uint32_t i)
{
    if (d->obj_sizes) return d->obj_sizes[i]; /* per-object sizes (a Perfetto heap graph) */
    const uint8_t *r = d->data + hk_obj_offset(d, i);
    if (*r != HPROF_INSTANCE_DUMP) return hk_obj_shallow_size(d, i);
    hk_id cid = hk_rec_instance_class(d, r);
    if (cid != s->cid || !cid) {
        uint32_t *ci = hk_idmap_get(&d->class_by_id, cid);
        s->cid = cid;
        s->size = ci ? d->classes[*ci].instance_size : 0;
    }
    return s->size;
}

/* The reference pass is cut into parts of consecutive objects, scanned on the threads
 * (hk_parallel) into lists of their own and joined in part order: the same index for any
 * number of threads.  out_start holds part-relative positions until the join. */
enum { REF_PARTS = 64 };
typedef struct refs_part {
    uint32_t lo, hi;
    edges e;
    hkg_weak *weak;
    uint32_t nweak, wcap;
    uint32_t *cleaners;
    uint32_t ncleaners, ccap;
    int oom;
} refs_part;
typedef struct refs_job {
    hk_dump *d;
    hk_graph *g;
    int first;
    refs_part *parts;
} refs_job;

static int part_weak(refs_part *pt, uint32_t src, uint32_t dst, int kind)
{
    if (pt->nweak == pt->wcap) {
        uint32_t nc = pt->wcap ? pt->wcap * 2 : 256;
        hkg_weak *p = realloc(pt->weak, nc * sizeof *p);
        if (!p) return -1;
        pt->weak = p;
        pt->wcap = nc;
    }
    pt->weak[pt->nweak++] = (hkg_weak){src, dst, (uint8_t)kind};
    return 0;
}

static int part_cleaner(refs_part *pt, uint32_t i)
{
    if (pt->ncleaners == pt->ccap) {
        uint32_t nc = pt->ccap ? 2 * pt->ccap : 64;
        uint32_t *p = realloc(pt->cleaners, nc * sizeof *p);
        if (!p) return -1;
        pt->cleaners = p;
        pt->ccap = nc;
    }
    pt->cleaners[pt->ncleaners++] = i;
    return 0;
}

static void scan_part(void *ctx, int part)
{
    refs_job *j = ctx;
    hk_dump *d = j->d;
    hk_graph *g = j->g;
    refs_part *pt = &j->parts[part];
    const uint32_t idsz = d->id_size;
    const int first = j->first;
    edges *e = &pt->e;
    hk_id last_cid = 0;
    const hkg_class_refs *cr = NULL;
    for (uint32_t i = pt->lo; i < pt->hi; i++) {
        const uint8_t *r = d->data + hk_obj_offset(d, i);
        switch (*r) {
        case HPROF_INSTANCE_DUMP: {
            hk_id cid = hk_rec_instance_class(d, r);
            if (cid != last_cid || !cr) {
                uint32_t *ci = hk_idmap_get(&d->class_by_id, cid);
                cr = ci ? &g->cls[*ci] : NULL;
                last_cid = cid;
            }
            if (!cr) break;
            if (first && cr->cleaner && part_cleaner(pt, i)) goto oom;
            uint32_t len;
            const uint8_t *p = hk_rec_instance_data(d, r, &len);
            const uint32_t *offs = g->ref_offs + cr->start;
            for (uint32_t k = 0; k < cr->count; k++) {
                if (offs[k] + idsz > len) continue;
                hk_id id = hk_be_id(d, p + offs[k]);
                if (!id) continue;
                uint32_t t = hkg_find(d, g, id);
                if (t != HK_NONE && push(e, t)) goto oom;
            }
            if (!first) break;
            for (uint32_t k = 0; k < cr->nweak; k++) {
                if (cr->woff[k] + idsz > len) continue;
                uint32_t t = hkg_find(d, g, hk_be_id(d, p + cr->woff[k]));
                if (t == HK_NONE) continue;
                if (part_weak(pt, i, t, cr->wkind)) goto oom;
                g->flags[i] |= HKG_F_WEAK;
            }
            if (cr->list_link) g->flags[i] |= HKG_F_LIST;
            break;
        }
        case HPROF_OBJ_ARRAY_DUMP: {
            uint32_t cnt = hk_rec_array_length(d, r);
            const uint8_t *p = hk_rec_obj_array_elems(d, r);
            for (uint32_t k = 0; k < cnt; k++, p += idsz) {
                hk_id id = hk_be_id(d, p);
                if (!id) continue;
                uint32_t t = hkg_find(d, g, id);
                if (t != HK_NONE && push(e, t)) goto oom;
            }
            break;
        }
        case HPROF_CLASS_DUMP: {
            uint32_t *ci = hk_idmap_get(&d->class_by_id, hk_be_id(d, r + 1));
            if (!ci) break;
            const hk_class *c = &d->classes[*ci];
            hk_id ids[2] = {c->super_id, c->loader_id};
            for (int k = 0; k < 2; k++) {
                uint32_t t = hkg_find(d, g, ids[k]);
                if (t != HK_NONE && push(e, t)) goto oom;
            }
            for (uint32_t k = 0; k < c->nstatics; k++) {
                if (c->statics[k].type != HK_T_OBJECT) continue;
                uint32_t t = hkg_find(d, g, c->statics[k].value.ref);
                if (t != HK_NONE && push(e, t)) goto oom;
            }
            break;
        }
        default: break;
        }
        if (e->n > UINT32_MAX) goto oom; /* reported as too many references by the join */
        g->out_start[i + 1] = (uint32_t)e->n;
    }
    return;
oom:
    pt->oom = 1;
}

static void parts_free(refs_part *parts)
{
    for (int k = 0; k < REF_PARTS; k++) {
        free(parts[k].e.v);
        free(parts[k].weak);
        free(parts[k].cleaners);
    }
    free(parts);
}

/* The forward references.  The first pass also finds the weak edges, Cleaners, flags and
 * roots; a later one (after dominators dropped the edges to save memory) only the edges. */
static int hkg_build_refs(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    double t0 = hkg_now();
    const uint32_t n = d->nobjects;
    const int first = !g->flags;
    refs_part *parts = NULL;
    if (d->nsegs) hk_iddir_build(&g->finder, d, 2);
    if (first && build_class_refs(d, g)) goto oom;
    g->out_start = malloc(((size_t)n + 1) * sizeof *g->out_start);
    if (first) g->flags = calloc(n ? n : 1, 1);
    parts = calloc(REF_PARTS, sizeof *parts);
    if (!g->out_start || !g->flags || !parts) goto oom;
    for (int k = 0; k < REF_PARTS; k++) {
        parts[k].lo = (uint32_t)((uint64_t)n * k / REF_PARTS);
        parts[k].hi = (uint32_t)((uint64_t)n * (k + 1) / REF_PARTS);
    }
    refs_job job = {d, g, first, parts};
    hk_parallel(REF_PARTS, scan_part, &job);
    /* the join, in part order */
    uint64_t total = 0;
    uint32_t nweak = 0, ncleaners = 0;
    for (int k = 0; k < REF_PARTS; k++) {
        if (parts[k].oom && parts[k].e.n <= UINT32_MAX) goto oom;
        total += parts[k].e.n;
        nweak += parts[k].nweak;
        ncleaners += parts[k].ncleaners;
    }
    if (total > UINT32_MAX) {
        parts_free(parts);
        hk_iddir_free(&g->finder);
        snprintf(err, errlen, "graph: more than 4G references; this dump is too large for the graph index");
        return -1;
    }
    g->out_start[0] = 0;
    uint64_t base = 0;
    for (int k = 0; k < REF_PARTS; k++) {
        for (uint32_t i = parts[k].lo; i < parts[k].hi; i++) g->out_start[i + 1] += (uint32_t)base;
        base += parts[k].e.n;
    }
    uint32_t *out = realloc(parts[0].e.v, (total ? total : 1) * sizeof *out);
    if (!out) goto oom;
    parts[0].e.v = NULL;
    base = parts[0].e.n;
    for (int k = 1; k < REF_PARTS; k++) {
        if (parts[k].e.n) memcpy(out + base, parts[k].e.v, parts[k].e.n * sizeof *out);
        base += parts[k].e.n;
        free(parts[k].e.v);
        parts[k].e.v = NULL;
    }
    g->out = out;
    g->nout = total;
    if (first) {
        g->weak = malloc((nweak ? nweak : 1) * sizeof *g->weak);
        g->cleaners = malloc((ncleaners ? ncleaners : 1) * sizeof *g->cleaners);
        if (!g->weak || !g->cleaners) goto oom;
        for (int k = 0; k < REF_PARTS; k++) {
            if (parts[k].nweak) memcpy(g->weak + g->nweak, parts[k].weak, parts[k].nweak * sizeof *g->weak);
            g->nweak += parts[k].nweak;
            if (parts[k].ncleaners)
                memcpy(g->cleaners + g->ncleaners, parts[k].cleaners, parts[k].ncleaners * sizeof *g->cleaners);
            g->ncleaners += parts[k].ncleaners;
        }
        /* roots, without duplicates */
        g->roots = malloc((d->nroots ? d->nroots : 1) * sizeof *g->roots);
        if (!g->roots) goto oom;
        for (uint32_t k = 0; k < d->nroots; k++) {
            uint32_t t = hkg_find(d, g, d->roots[k].id);
            if (t == HK_NONE || (g->flags[t] & HKG_F_ROOT)) continue;
            g->flags[t] |= HKG_F_ROOT;
            g->roots[g->nroots++] = t;
        }
    }
    parts_free(parts);
    hk_iddir_free(&g->finder);
#ifdef __GLIBC__
    /* the parts grew in the threads' own arenas, which keep freed blocks mapped: give them back */
    malloc_trim(0);
#endif
    g->times.refs += hkg_now() - t0;
    return 0;
oom:
    if (parts) parts_free(parts);
    hk_iddir_free(&g->finder);
    snprintf(err, errlen, "graph: out of memory building the reference index (%u objects)", n);
    return -1;
}

/* Dominators need the forward edges only for their depth-first search; unless the caller
 * asked for references or paths, they are dropped then and rebuilt if asked for later. */
void hkg_drop_out(hk_graph *g)
{
    if (g->keep_out) return;
    free(g->out_start);
    free(g->out);
    g->out_start = g->out = NULL;
    g->done &= ~HK_GRAPH_REFS;
}

static int hkg_build_referrers(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    double t0 = hkg_now();
    const uint32_t n = g->n;
    if (n >= HKG_IN_MANY) {
        snprintf(err, errlen, "graph: %u objects is more than the referrer index handles (2^31)", n);
        return -1;
    }
    uint32_t *in1 = calloc(n ? n : 1, sizeof *in1);
    if (!in1) goto oom;
    for (uint64_t k = 0; k < g->nout; k++)
        if (in1[g->out[k]] < 2) in1[g->out[k]]++;
    /* second count only for objects with several referrers, into their slots */
    uint64_t many = 0;
    uint32_t *deg = NULL;
    uint32_t nmany = 0;
    for (uint32_t v = 0; v < n; v++) nmany += in1[v] == 2;
    if (nmany) {
        /* exact degrees of the objects with several referrers, counted in a scratch array */
        deg = calloc(n, sizeof *deg);
        if (!deg) {
            free(in1);
            goto oom;
        }
        for (uint64_t k = 0; k < g->nout; k++)
            if (in1[g->out[k]] == 2) deg[g->out[k]]++;
        for (uint32_t v = 0; v < n; v++)
            if (in1[v] == 2) many += 1 + (uint64_t)deg[v];
        if (many >= HKG_IN_MANY) {
            free(in1);
            free(deg);
            snprintf(err, errlen, "graph: too many referrers for the referrer index");
            return -1;
        }
    }
    uint32_t *ov = malloc((many ? many : 1) * sizeof *ov);
    if (!ov) {
        free(in1);
        free(deg);
        goto oom;
    }
    uint64_t pos = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (in1[v] == 0) in1[v] = HK_NONE;
        else if (in1[v] == 1) in1[v] = HKG_IN_MANY - 1; /* pending: filled below */
        else {
            ov[pos] = 0;
            in1[v] = HKG_IN_MANY | (uint32_t)pos;
            pos += 1 + deg[v];
        }
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
    if (mask & (HK_GRAPH_REFS | HK_GRAPH_PATHS)) g->keep_out = 1;
    /* what a phase needs only when it is still to be computed: the edges may have been
     * dropped after dominators, and need not come back for them */
    if (mask & HK_GRAPH_DOM & ~g->done) mask |= HK_GRAPH_REFERRERS | HK_GRAPH_NATIVE;
    if (mask & (HK_GRAPH_REFERRERS | HK_GRAPH_REACH | HK_GRAPH_NATIVE | HK_GRAPH_PATHS) & ~g->done)
        mask |= HK_GRAPH_REFS;
    static const struct {
        int bit;
        const char *what;
        int (*fn)(hk_dump *, hk_graph *, char *, size_t);
    } phases[] = {
        {HK_GRAPH_REFS, "references", hkg_build_refs},     {HK_GRAPH_REFERRERS, "referrers", hkg_build_referrers},
        {HK_GRAPH_REACH, "reachability", hkg_build_reach}, {HK_GRAPH_NATIVE, "native sizes", hkg_build_native},
        {HK_GRAPH_DOM, "dominators", hkg_build_dom},       {HK_GRAPH_PATHS, "paths from roots", hkg_build_paths},
    };
    /* a few seconds on a big heap: say what is happening when someone is watching */
    int shown = 0;
    for (size_t k = 0; k < sizeof phases / sizeof phases[0]; k++) {
        if (!(mask & phases[k].bit) || (g->done & phases[k].bit)) continue;
        if (d->nobjects > 1000000) {
            hk_report(HK_REPORT_PROGRESS, "heap graph: %s...", phases[k].what);
            shown = 1;
        }
        int rc = phases[k].fn(d, g, err, errlen);
        if (shown) hk_report(HK_REPORT_PROGRESS, "%s", "");
        if (rc) return -1;
        g->done |= phases[k].bit;
    }
    return 0;
}

const uint32_t *hk_graph_out(hk_dump *d, uint32_t obj, uint32_t *n)
{
    hk_graph *g = d->graph;
    if (!g || !(g->done & HK_GRAPH_REFS) || obj >= g->n) {
        *n = 0;
        return NULL;
    }
    *n = g->out_start[obj + 1] - g->out_start[obj];
    return g->out + g->out_start[obj];
}

uint32_t hkg_weak_first(const hk_graph *g, uint32_t obj)
{
    uint32_t a = 0, b = g->nweak;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (g->weak[m].src < obj) a = m + 1;
        else b = m;
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
    if (!g || !(g->done & HK_GRAPH_REFS)) {
        *n = 0;
        return NULL;
    }
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
    if (!g || !(g->done & HK_GRAPH_REFERRERS) || obj >= g->n) {
        *n = 0;
        return NULL;
    }
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
    if (g) *t = g->times;
    else memset(t, 0, sizeof *t);
}
