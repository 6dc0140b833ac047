/* The graph's state, the id -> index finder, forward references and the referrer index. */
#include "graph/graph_internal.h"
#include "util/hk_report.h"
#include "hprof/hprof_view.h"
#include "util/hk_jobs.h"

#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char hkg_key;

static void graph_free(void *state)
{
    hk_graph *g = state;
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
    free(g->native);
    hkg_search_free(g);
    free(g->idom);
    free(g->retained);
    hk_idtab_free(&g->retained_native);
    hk_idtab_free(&g->retained_big);
    free(g->kids);
    free(g->root_kids);
    free(g->kid_buf);
    free(g->class_retained);
    if (g->codes) hkg_codes_free(g->codes);
    free(g->codes);
    hkg_paths_free(g);
    free(g);
}

static hk_graph *graph_state(hk_dump *d)
{
    hk_graph *g = hkg_of(d);
    if (g) return g;
    hk_mem_lean();
    g = hk_xcalloc(1, sizeof *g);
    g->n = hk_view(d)->nobjects;
    hk_dump_attach(d, &hkg_key, g, graph_free);
    return g;
}

uint32_t hkg_find(const hk_dump *d, const hk_graph *g, hk_id id)
{
    if (!id || !hk_view(d)->nsegs) return HK_NONE;
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
        c = c->super != HK_NONE ? &hk_view(d)->classes[c->super] : NULL;
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
        c = c->super != HK_NONE ? &hk_view(d)->classes[c->super] : NULL;
    }
    return 0;
}

/* Which of a Reference class's fields are weak: its own `referent` (the last of the
 * flattened layout) and, on a finalizer reference, `zombie`. */
static void weak_fields(const hk_field *f, uint32_t nf, int kind, int *wref, int *wzombie)
{
    *wref = *wzombie = -1;
    if (kind == HK_REACH_STRONG) return;
    for (uint32_t k = 0; k < nf; k++) {
        if (f[k].type != HK_T_OBJECT) continue;
        if (!strcmp(f[k].name, "referent")) *wref = (int)k;
        if (kind == HK_REACH_FINALIZER && !strcmp(f[k].name, "zombie")) *wzombie = (int)k;
    }
}

static void build_class_refs(hk_dump *d, hk_graph *g)
{
    g->cls = hk_xcalloc(hk_view(d)->nclasses ? hk_view(d)->nclasses : 1, sizeof *g->cls);
    size_t cap = 0, n = 0;
    for (uint32_t ci = 0; ci < hk_view(d)->nclasses; ci++) {
        hk_class *c = &hk_view(d)->classes[ci];
        hkg_class_refs *cr = &g->cls[ci];
        uint32_t nf;
        const hk_field *f = hk_class_layout(d, c, &nf);
        int kind = hkg_ref_kind(d, c), wref, wzombie;
        weak_fields(f, nf, kind, &wref, &wzombie);
        cr->start = (uint32_t)n;
        for (uint32_t k = 0; k < nf; k++) {
            /* ART's Object.shadow$_klass_ is the instance's class: not an edge (see graph.h) */
            if (f[k].type != HK_T_OBJECT || !strcmp(f[k].name, "shadow$_klass_")) continue;
            if ((int)k == wref || (int)k == wzombie) {
                cr->woff[cr->nweak++] = f[k].offset;
                continue;
            }
            g->ref_offs = hk_grow(g->ref_offs, &cap, n + 1, sizeof *g->ref_offs);
            g->ref_offs[n++] = f[k].offset;
        }
        cr->count = (uint32_t)(n - cr->start);
        cr->wkind = (uint8_t)kind;
        int cl = is_cleaner(d, c);
        cr->list_link = kind == HK_REACH_FINALIZER || cl;
        cr->cleaner = cl == 2;
    }
    if (!g->ref_offs) g->ref_offs = hk_xcalloc(1, sizeof *g->ref_offs);
}

/* A growable edge list. */
typedef struct edges {
    uint32_t *v;
    size_t n, cap;
} edges;
static inline void push(edges *e, uint32_t t)
{
    if (e->n == e->cap) e->v = hk_grow(e->v, &e->cap, e->n + 1, sizeof *e->v);
    e->v[e->n++] = t;
}

uint64_t hkg_shallow(const hk_dump *d, hkg_sizer *s, uint32_t i)
{
    if (hk_view(d)->obj_sizes) return hk_view(d)->obj_sizes[i]; /* per-object sizes (a Perfetto heap graph) */
    const uint8_t *r = hk_obj_record(d, i);
    if (*r != HPROF_INSTANCE_DUMP) return hk_obj_shallow_size(d, i);
    hk_id cid = hk_rec_instance_class(d, r);
    if (cid != s->cid || !cid) {
        uint32_t *ci = hk_idmap_get(&hk_view(d)->class_by_id, cid);
        s->cid = cid;
        s->size = ci ? hk_view(d)->classes[*ci].instance_size : 0;
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
    size_t nweak, wcap;
    uint32_t *cleaners;
    size_t ncleaners, ccap;
    int too_many; /* more than 4G references */
} refs_part;
typedef struct refs_job {
    hk_dump *d;
    hk_graph *g;
    int first;
    refs_part *parts;
    hkg_notes *notes; /* NULL: none asked for */
} refs_job;

static void part_weak(refs_part *pt, uint32_t src, uint32_t dst, int kind)
{
    pt->weak = hk_grow(pt->weak, &pt->wcap, pt->nweak + 1, sizeof *pt->weak);
    pt->weak[pt->nweak++] = (hkg_weak){src, dst, (uint8_t)kind};
}

static void part_cleaner(refs_part *pt, uint32_t i)
{
    pt->cleaners = hk_grow(pt->cleaners, &pt->ccap, pt->ncleaners + 1, sizeof *pt->cleaners);
    pt->cleaners[pt->ncleaners++] = i;
}

/* An instance's reference fields, from its class's layout; on the first pass also its weak
 * edges, flags and whether it is a Cleaner.  noting: returns its note bits (hkg_notes). */
static inline __attribute__((always_inline)) uint32_t scan_instance(refs_job *j, refs_part *pt, const hkg_class_refs *c,
                                                                    uint32_t i, const uint8_t *r, int noting)
{
    hk_dump *d = j->d;
    hk_graph *g = j->g;
    const uint32_t idsz = hk_view(d)->id_size;
    if (j->first && c->cleaner) part_cleaner(pt, i);
    uint32_t len, bits = 0;
    const uint8_t *p = hk_rec_instance_data(d, r, &len);
    const uint32_t *offs = g->ref_offs + c->start;
    for (uint32_t k = 0; k < c->count; k++) {
        if (offs[k] + idsz > len) continue;
        hk_id id = hk_be_id(d, p + offs[k]);
        if (!id) continue;
        if (noting && k < 32) bits |= 1u << k;
        uint32_t t = hkg_find(d, g, id);
        if (t != HK_NONE) push(&pt->e, t);
    }
    if (noting && c->count > 32) bits = 0;
    if (!j->first) return bits;
    for (uint32_t k = 0; k < c->nweak; k++) {
        if (c->woff[k] + idsz > len) continue;
        uint32_t t = hkg_find(d, g, hk_be_id(d, p + c->woff[k]));
        if (t == HK_NONE) continue;
        part_weak(pt, i, t, c->wkind);
        g->flags[i] |= HKG_F_WEAK;
    }
    if (c->list_link) g->flags[i] |= HKG_F_LIST;
    return bits;
}

/* An object array's elements; noting: returns its note bits. */
static inline __attribute__((always_inline)) uint32_t scan_obj_array(const hk_dump *d, const hk_graph *g, edges *e,
                                                                     const uint8_t *r, const int noting)
{
    uint32_t cnt = hk_rec_array_length(d, r), bits = 0;
    const uint8_t *p = hk_rec_obj_array_elems(d, r);
    for (uint32_t k = 0; k < cnt; k++, p += hk_view(d)->id_size) {
        hk_id id = hk_be_id(d, p);
        if (!id) continue;
        if (noting && k < 32) bits |= 1u << k;
        uint32_t t = hkg_find(d, g, id);
        if (t != HK_NONE) push(e, t);
    }
    return noting ? hkg_array_note(cnt, bits) : 0;
}

/* A class object's references: superclass, loader, static fields of object type. */
static void scan_class(const hk_dump *d, const hk_graph *g, edges *e, const uint8_t *r)
{
    uint32_t *ci = hk_idmap_get(&hk_view(d)->class_by_id, hk_be_id(d, r + 1));
    if (!ci) return;
    const hk_class *c = &hk_view(d)->classes[*ci];
    hk_id ids[2] = {c->super_id, c->loader_id};
    for (int k = 0; k < 2; k++) {
        uint32_t t = hkg_find(d, g, ids[k]);
        if (t != HK_NONE) push(e, t);
    }
    for (uint32_t k = 0; k < c->nstatics; k++) {
        if (c->statics[k].type != HK_T_OBJECT) continue;
        uint32_t t = hkg_find(d, g, c->statics[k].value.ref);
        if (t != HK_NONE) push(e, t);
    }
}

/* One part's objects; noting (a constant: the pass without notes is compiled apart, as it
 * was) also fills each object's note. */
static inline __attribute__((always_inline)) void scan_range(refs_job *j, int part, const int noting)
{
    hk_dump *d = j->d;
    hk_graph *g = j->g;
    refs_part *pt = &j->parts[part];
    hk_id last_cid = 0;
    const hkg_class_refs *cr = NULL;
    uint32_t *words = noting ? j->notes->words : NULL;
    hkg_class_cache nc;
    if (noting) memset(&nc, 0, sizeof nc);
    for (uint32_t i = pt->lo; i < pt->hi; i++) {
        const uint8_t *r = hk_obj_record(d, i);
        uint32_t info = 0, bits = 0;
        if (*r == HPROF_INSTANCE_DUMP) {
            hk_id cid = hk_rec_instance_class(d, r);
            if (cid != last_cid || !cr) {
                uint32_t *ci = hk_idmap_get(&hk_view(d)->class_by_id, cid);
                cr = ci ? &g->cls[*ci] : NULL;
                last_cid = cid;
            }
            if (cr) bits = scan_instance(j, pt, cr, i, r, noting);
            if (noting) info = hkg_note_info(HK_KIND_INSTANCE, cr ? (uint32_t)(cr - g->cls) : HK_NONE);
        } else if (*r == HPROF_OBJ_ARRAY_DUMP) {
            bits = scan_obj_array(d, g, &pt->e, r, noting);
            if (noting)
                info = hkg_note_info(HK_KIND_OBJ_ARRAY,
                                     hkg_cached_class(d, &nc, hk_be_id(d, r + 1 + hk_view(d)->id_size + 8)));
        } else if (*r == HPROF_CLASS_DUMP) {
            scan_class(d, g, &pt->e, r);
            if (noting) info = hkg_note_info(HK_KIND_CLASS, HK_NONE);
        } else if (noting) {
            info = hkg_note_info(HK_KIND_PRIM_ARRAY, hkg_prim_class(d, r));
            uint64_t size = hk_obj_record_size(d, i); /* its record is in hand */
            bits = size < UINT32_MAX ? (uint32_t)size : 0;
        }
        if (noting) {
            uint32_t *w = words + (size_t)HKG_NOTE_WORDS * i;
            w[0] = w[1] = HK_NONE;
            w[HKG_NOTE_INFO] = info;
            w[HKG_NOTE_BITS] = bits;
        }
        if (pt->e.n > UINT32_MAX) {
            pt->too_many = 1; /* reported by the join */
            return;
        }
        g->out_start[i + 1] = (uint32_t)pt->e.n;
    }
}

static void scan_part(void *ctx, int part)
{
    scan_range(ctx, part, 0);
}

static void scan_part_noting(void *ctx, int part)
{
    scan_range(ctx, part, 1);
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

/* The parts' edges into one index, in part order: each part copies its own list to its
 * place and makes its objects' starts absolute, on the threads. */
typedef struct join_job {
    hk_graph *g;
    refs_part *parts;
    uint64_t base[REF_PARTS];
} join_job;
static void join_part(void *ctx, int k)
{
    join_job *j = ctx;
    refs_part *pt = &j->parts[k];
    uint32_t *start = j->g->out_start, base = (uint32_t)j->base[k];
    if (pt->e.n) memcpy(j->g->out + base, pt->e.v, pt->e.n * sizeof *pt->e.v);
    free(pt->e.v);
    pt->e.v = NULL;
    for (uint32_t i = pt->lo; i < pt->hi; i++) start[i + 1] += base;
}

static void join_edges(hk_graph *g, refs_part *parts, uint64_t total)
{
    join_job j = {g, parts, {0}};
    for (int k = 1; k < REF_PARTS; k++) j.base[k] = j.base[k - 1] + parts[k - 1].e.n;
    g->out_start[0] = 0;
    g->out = hk_xrealloc(NULL, (total ? total : 1) * sizeof *g->out);
    g->nout = total;
    hk_parallel(REF_PARTS, join_part, &j);
}

/* What only the first pass finds: weak edges and Cleaners (joined in part order), and the
 * distinct root objects. */
static void join_first(hk_dump *d, hk_graph *g, const refs_part *parts)
{
    size_t nweak = 0, ncleaners = 0;
    for (int k = 0; k < REF_PARTS; k++) {
        nweak += parts[k].nweak;
        ncleaners += parts[k].ncleaners;
    }
    g->weak = hk_xrealloc(NULL, (nweak ? nweak : 1) * sizeof *g->weak);
    g->cleaners = hk_xrealloc(NULL, (ncleaners ? ncleaners : 1) * sizeof *g->cleaners);
    for (int k = 0; k < REF_PARTS; k++) {
        if (parts[k].nweak) memcpy(g->weak + g->nweak, parts[k].weak, parts[k].nweak * sizeof *g->weak);
        g->nweak += (uint32_t)parts[k].nweak;
        if (parts[k].ncleaners)
            memcpy(g->cleaners + g->ncleaners, parts[k].cleaners, parts[k].ncleaners * sizeof *g->cleaners);
        g->ncleaners += (uint32_t)parts[k].ncleaners;
    }
    g->roots = hk_xrealloc(NULL, (hk_view(d)->nroots ? hk_view(d)->nroots : 1) * sizeof *g->roots);
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        uint32_t t = hkg_find(d, g, hk_view(d)->roots[k].id);
        if (t == HK_NONE || (g->flags[t] & HKG_F_ROOT)) continue;
        g->flags[t] |= HKG_F_ROOT;
        g->roots[g->nroots++] = t;
    }
}

/* The forward references.  The first pass also finds the weak edges, Cleaners, flags and
 * roots; a later one (after dominators dropped the edges to save memory) only the edges. */
static int hkg_build_refs(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    const uint32_t n = hk_view(d)->nobjects;
    const int first = !g->flags;
    if (hk_view(d)->nsegs) hk_iddir_build(&g->finder, d, 2);
    if (first) build_class_refs(d, g);
    g->out_start = hk_xrealloc(NULL, ((size_t)n + 1) * sizeof *g->out_start);
    if (first) g->flags = hk_xcalloc(n ? n : 1, 1);
    refs_part *parts = hk_xcalloc(REF_PARTS, sizeof *parts);
    for (int k = 0; k < REF_PARTS; k++) hk_part_range(n, k, REF_PARTS, &parts[k].lo, &parts[k].hi);
    refs_job job = {d, g, first, parts, g->notes};
    g->notes = NULL;
    hk_parallel(REF_PARTS, job.notes ? scan_part_noting : scan_part, &job);
    uint64_t total = 0;
    int too_many = 0;
    for (int k = 0; k < REF_PARTS; k++) {
        total += parts[k].e.n;
        too_many |= parts[k].too_many;
    }
    if (too_many || total > UINT32_MAX) {
        parts_free(parts);
        hk_iddir_free(&g->finder);
        free(g->out_start);
        g->out_start = NULL;
        snprintf(err, errlen, "graph: more than 4G references; this dump is too large for the graph index");
        return -1;
    }
    join_edges(g, parts, total);
    if (first) join_first(d, g, parts);
    if (job.notes) job.notes->filled = 1;
    parts_free(parts);
    hk_iddir_free(&g->finder);
    hk_mem_trim();
    return 0;
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

typedef struct phase {
    int bit;
    const char *what;
    int (*fn)(hk_dump *, hk_graph *, char *, size_t);
} phase;
static const phase phases[] = {
    {HK_GRAPH_REFS, "references", hkg_build_refs},     {HK_GRAPH_REFERRERS, "referrers", hkg_build_referrers},
    {HK_GRAPH_REACH, "reachability", hkg_build_reach}, {HK_GRAPH_NATIVE, "native sizes", hkg_build_native},
    {HK_GRAPH_DOM, "dominators", hkg_build_dom},       {HK_GRAPH_PATHS, "paths from roots", hkg_build_paths},
};

static int run_phase(hk_dump *d, hk_graph *g, const phase *ph, char *err, size_t errlen)
{
    /* a few seconds on a big heap: say what is happening when someone is watching */
    int shown = hk_view(d)->nobjects > 1000000;
    if (shown) hk_report(HK_REPORT_PROGRESS, "heap graph: %s...", ph->what);
    int rc = ph->fn(d, g, err, errlen);
    if (shown) hk_report(HK_REPORT_PROGRESS, "%s", "");
    if (rc) return -1;
    g->done |= ph->bit;
    return 0;
}

/* Before dominators: their search of the live heap beside the referrers and native sizes
 * (each reads the edges or records and writes only its own arrays); reachability then starts
 * from what the search numbered.  On one thread the same work runs in the same order. */
typedef struct pair_job {
    hk_dump *d;
    hk_graph *g;
    int native; /* native sizes too, after the referrers (the search is the longer part) */
    int rc;
    char *err;
    size_t errlen;
} pair_job;
static void pair_part(void *ctx, int k)
{
    pair_job *j = ctx;
    if (k == 0) hkg_search_live(j->g);
    else j->rc = hkg_referrers_in_parts(j->g, 1, j->err, j->errlen);
    if (k == 1 && j->native) hkg_build_native(j->d, j->g, j->err, j->errlen); /* cannot fail */
}

static int run_search_and_referrers(hk_dump *d, hk_graph *g, int mask, char *err, size_t errlen)
{
    pair_job j = {d, g, (mask & HK_GRAPH_NATIVE & ~g->done) != 0, 0, err, errlen};
    int shown = hk_view(d)->nobjects > 1000000;
    if (shown) hk_report(HK_REPORT_PROGRESS, "%s", "heap graph: referrers and the live heap...");
    hk_parallel(2, pair_part, &j);
    if (!j.rc && (mask & HK_GRAPH_REACH & ~g->done)) {
        hkg_reach_after_search(g);
        hk_mem_trim(); /* its queues */
        g->done |= HK_GRAPH_REACH;
    }
    if (shown) hk_report(HK_REPORT_PROGRESS, "%s", "");
    if (j.native) g->done |= HK_GRAPH_NATIVE;
    if (j.rc) return -1;
    g->done |= HK_GRAPH_REFERRERS;
    return 0;
}

int hk_graph_plan(hk_dump *d, int mask, int *held, char *err, size_t errlen)
{
    hk_graph *g = graph_state(d);
    if (mask & (HK_GRAPH_REFS | HK_GRAPH_PATHS)) g->keep_out = 1;
    if (mask & HK_GRAPH_REFERRERS) g->keep_in = 1;
    if (held) *held = g->done;
    return 0;
}

void hkg_note_next_refs(hk_dump *d, hkg_notes *notes)
{
    hk_graph *g = graph_state(d);
    if (notes) notes->filled = 0;
    g->notes = g->done & HK_GRAPH_REFS ? NULL : notes;
}

int hk_graph_ensure(hk_dump *d, int mask, char *err, size_t errlen)
{
    if (hk_graph_plan(d, mask, NULL, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    /* what a phase needs only when it is still to be computed: the edges may have been
     * dropped after dominators, and need not come back for them */
    if (mask & HK_GRAPH_DOM & ~g->done) mask |= HK_GRAPH_REFERRERS | HK_GRAPH_NATIVE;
    if (mask & (HK_GRAPH_REFERRERS | HK_GRAPH_REACH | HK_GRAPH_NATIVE | HK_GRAPH_PATHS) & ~g->done)
        mask |= HK_GRAPH_REFS;
    for (size_t k = 0; k < sizeof phases / sizeof phases[0]; k++) {
        const phase *ph = &phases[k];
        /* the paths planned first: their whole search once the references are there, before
         * anything the dominators build (its queue is gone before their peak) */
        if (ph->bit != HK_GRAPH_REFS && g->paths_first && (mask & HK_GRAPH_DOM & ~g->done) &&
            (g->done & HK_GRAPH_REFS) && !hkg_paths_complete(g)) {
            if (!(g->done & HK_GRAPH_PATHS) &&
                run_phase(d, g, &phases[sizeof phases / sizeof phases[0] - 1], err, errlen))
                return -1;
            hkg_paths_whole(d, g);
            hk_mem_trim(); /* its queue */
        }
        if (!(mask & ph->bit) || (g->done & ph->bit)) continue;
        if (ph->bit == HK_GRAPH_REFERRERS && (mask & HK_GRAPH_DOM & ~g->done)) {
            if (run_search_and_referrers(d, g, mask, err, errlen)) return -1;
            continue;
        }
        if (run_phase(d, g, ph, err, errlen)) return -1;
    }
    return 0;
}

const uint32_t *hk_graph_out(hk_dump *d, uint32_t obj, uint32_t *n)
{
    hk_graph *g = hkg_of(d);
    if (!g || !(g->done & HK_GRAPH_REFS) || obj >= g->n) {
        *n = 0;
        return NULL;
    }
    return hkg_out(g, obj, n);
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
    hk_graph *g = hkg_of(d);
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
    hk_graph *g = hkg_of(d);
    if (!g || !(g->done & HK_GRAPH_REFS)) {
        *n = 0;
        return NULL;
    }
    *n = g->nroots;
    return g->roots;
}

uint64_t hk_graph_edge_count(hk_dump *d)
{
    hk_graph *g = hkg_of(d);
    return g ? g->nout + g->nweak : 0;
}
