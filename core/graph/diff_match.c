/* Heap diff, the matching: class objects by name, GC roots by kind, thread and class, then
 * breadth first along fields, statics and array slots (see diff.h). */
#include "graph/diff_internal.h"
#include "graph/graph.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per BASE class: which instance-data offsets hold the same-named reference field in the DUMP
 * class of that name (built on first use). */
typedef struct fieldpairs { uint32_t for_cls, n; uint32_t (*off)[2]; } fieldpairs;

typedef struct matcher {
    hk_diff *df;
    fieldpairs *fp;
    uint32_t qlen;
} matcher;

static uint32_t class_key(const hk_dump *d, uint32_t obj, uint32_t cls)
{
    /* primitive arrays without a class in the dump: their element type stands for it */
    return cls != HK_NONE ? cls : HK_NONE - 16 + (uint32_t)hk_prim_array_type(d, obj);
}

/* Pairs u (BASE) with v (DUMP) when both are free and of the same class; queues u. */
static int try_pair(matcher *m, uint32_t u, uint32_t v, uint32_t from_u, uint32_t from_v)
{
    hk_diff *df = m->df;
    hkd_side *a = &df->s[0], *b = &df->s[1];
    if (u == HK_NONE || v == HK_NONE || a->match[u] != HK_NONE || b->match[v] != HK_NONE) return 0;
    int ka = hk_obj_kind(a->d, u), kb = hk_obj_kind(b->d, v);
    if (ka != kb || ka == HK_KIND_CLASS) return 0;
    uint32_t ca = hk_obj_class(a->d, u), cb = hk_obj_class(b->d, v);
    if (ka == HK_KIND_PRIM_ARRAY && (ca == HK_NONE || cb == HK_NONE)) {
        if (hk_prim_array_type(a->d, u) != hk_prim_array_type(b->d, v)) return 0;
    } else if (ca == HK_NONE || df->cmap[ca] != cb) return 0;
    a->match[u] = v;
    b->match[v] = u;
    a->via[u] = from_u;
    b->via[v] = from_v;
    df->order[m->qlen++] = u;
    return 1;
}

typedef struct named { const char *name; uint32_t idx; } named;
static int named_cmp(const void *x, const void *y)
{
    const named *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

static named *sorted_classes(const hk_dump *d)
{
    named *v = hk_xcalloc(d->nclasses + 1, sizeof *v);
    for (uint32_t i = 0; i < d->nclasses; i++) v[i] = (named){d->classes[i].name ? d->classes[i].name : "", i};
    qsort(v, d->nclasses, sizeof *v, named_cmp);
    return v;
}

/* Merges two name-sorted lists; equal names pair in order.  Calls pair(ctx, ia, ib). */
static void merge_named(const named *a, uint32_t na, const named *b, uint32_t nb,
                        void (*pair)(void *, uint32_t, uint32_t), void *ctx)
{
    uint32_t i = 0, j = 0;
    while (i < na && j < nb) {
        int c = strcmp(a[i].name, b[j].name);
        if (c < 0) i++;
        else if (c > 0) j++;
        else pair(ctx, a[i++].idx, b[j++].idx);
    }
}

static void pair_class(void *ctx, uint32_t ca, uint32_t cb)
{
    matcher *m = ctx;
    hk_diff *df = m->df;
    df->cmap[ca] = cb;
    uint32_t oa = df->s[0].d->classes[ca].object, ob = df->s[1].d->classes[cb].object;
    if (oa == HK_NONE || ob == HK_NONE || df->s[0].match[oa] != HK_NONE || df->s[1].match[ob] != HK_NONE) return;
    df->s[0].match[oa] = ob;
    df->s[1].match[ob] = oa;
    df->s[0].via[oa] = df->s[1].via[ob] = HKD_ANCHOR;
    df->order[m->qlen++] = oa;
    df->anchors_classes++;
}

/* ---- GC roots: keyed "type|thread name|class|string text" ---- */

static char *thread_name(hk_dump *d, uint32_t serial)
{
    for (uint32_t k = 0; k < d->nroots; k++) {
        if (d->roots[k].type != HPROF_ROOT_THREAD_OBJECT || d->roots[k].thread != serial) continue;
        uint32_t t = hk_obj_find(d, d->roots[k].id);
        hk_value v;
        hk_buf b;
        hk_buf_init(&b);
        if (t != HK_NONE && hk_instance_field(d, t, "name", &v) && v.type == HK_T_OBJECT) {
            uint32_t s = hk_obj_find(d, v.ref);
            if (s != HK_NONE && hk_string_value(d, s, &b) == 0) {
                char *r = hk_xstrdup(hk_buf_cstr(&b));
                hk_buf_free(&b);
                return r;
            }
        }
        hk_buf_free(&b);
    }
    char tmp[32];
    snprintf(tmp, sizeof tmp, "#%u", serial);
    return hk_xstrdup(tmp);
}

static named *root_keys(hk_dump *d, uint32_t *n)
{
    named *v = hk_xcalloc(d->nroots + 1, sizeof *v);
    /* thread names, looked up once per serial */
    uint32_t nthreads = 0;
    struct { uint32_t serial; char *name; } *threads = hk_xcalloc(d->nroots + 1, sizeof *threads);
    hk_buf key, sv;
    hk_buf_init(&key);
    hk_buf_init(&sv);
    *n = 0;
    for (uint32_t k = 0; k < d->nroots; k++) {
        const hk_root *r = &d->roots[k];
        uint32_t obj = hk_obj_find(d, r->id);
        if (obj == HK_NONE) continue;
        const char *tn = "";
        if (r->thread) {
            uint32_t t = 0;
            while (t < nthreads && threads[t].serial != r->thread) t++;
            if (t == nthreads) { threads[t].serial = r->thread; threads[t].name = thread_name(d, r->thread); nthreads++; }
            tn = threads[t].name;
        }
        const char *cn = hk_obj_class_name(d, obj);
        hk_buf_reset(&key);
        hk_buf_printf(&key, "%d|%s|%s|", r->type, tn, cn ? cn : "");
        uint32_t c = hk_obj_class(d, obj);
        if (c != HK_NONE && c == d->string_class) {
            hk_buf_reset(&sv);
            if (hk_string_value(d, obj, &sv) == 0) hk_buf_append(&key, sv.data, sv.len < 200 ? sv.len : 200);
        }
        v[*n].name = hk_xstrdup(hk_buf_cstr(&key));
        v[*n].idx = obj;
        (*n)++;
    }
    for (uint32_t t = 0; t < nthreads; t++) free(threads[t].name);
    free(threads);
    hk_buf_free(&key);
    hk_buf_free(&sv);
    return v;
}

typedef struct keyed { const char *key; uint32_t pos, obj; } keyed;
static int keyed_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

static void match_roots(matcher *m)
{
    hk_diff *df = m->df;
    uint32_t n[2];
    named *rk[2];
    keyed *ks[2];
    for (int s = 0; s < 2; s++) {
        rk[s] = root_keys(df->s[s].d, &n[s]);
        ks[s] = hk_xcalloc(n[s] + 1, sizeof *ks[s]);
        for (uint32_t i = 0; i < n[s]; i++) ks[s][i] = (keyed){rk[s][i].name, i, rk[s][i].idx};
        qsort(ks[s], n[s], sizeof *ks[s], keyed_cmp);
    }
    uint32_t i = 0, j = 0;
    while (i < n[0] && j < n[1]) {
        int c = strcmp(ks[0][i].key, ks[1][j].key);
        if (c < 0) { i++; continue; }
        if (c > 0) { j++; continue; }
        uint32_t u = ks[0][i++].obj, v = ks[1][j++].obj;
        if (try_pair(m, u, v, HKD_ANCHOR, HKD_ANCHOR)) df->anchors_roots++;
    }
    for (int s = 0; s < 2; s++) {
        for (uint32_t k = 0; k < n[s]; k++) free((char *)rk[s][k].name);
        free(rk[s]);
        free(ks[s]);
    }
}

/* ---- propagation ---- */

static const fieldpairs *field_pairs(matcher *m, uint32_t ca, uint32_t cb)
{
    fieldpairs *fp = &m->fp[ca];
    if (fp->off && fp->for_cls == cb) return fp;
    free(fp->off);
    hk_dump *da = m->df->s[0].d, *db = m->df->s[1].d;
    uint32_t na, nb;
    const hk_field *fa = hk_class_layout(da, &da->classes[ca], &na);
    const hk_field *fb = hk_class_layout(db, &db->classes[cb], &nb);
    fp->off = hk_xcalloc(na + 1, sizeof *fp->off);
    fp->n = 0;
    fp->for_cls = cb;
    for (uint32_t k = 0; k < na; k++) {
        if (fa[k].type != HK_T_OBJECT) continue;
        /* the same name may appear in a class and its superclass: pair the nth with the nth */
        uint32_t nth = 0;
        for (uint32_t q = 0; q < k; q++) nth += fa[q].type == HK_T_OBJECT && !strcmp(fa[q].name, fa[k].name);
        for (uint32_t q = 0; q < nb; q++) {
            if (fb[q].type != HK_T_OBJECT || strcmp(fb[q].name, fa[k].name)) continue;
            if (nth-- == 0) { fp->off[fp->n][0] = fa[k].offset; fp->off[fp->n][1] = fb[q].offset; fp->n++; break; }
        }
    }
    return fp;
}

static hk_id read_ref(const hk_dump *d, const uint8_t *data, uint32_t len, uint32_t off)
{
    if (off + d->id_size > len) return 0;
    hk_value v;
    hk_read_value(d, data + off, HK_T_OBJECT, &v);
    return v.ref;
}

static void expand_instance(matcher *m, uint32_t u, uint32_t v)
{
    hk_dump *da = m->df->s[0].d, *db = m->df->s[1].d;
    uint32_t ca = hk_obj_class(da, u), cb = hk_obj_class(db, v), la, lb;
    if (ca == HK_NONE || cb == HK_NONE) return;
    const uint8_t *pa = hk_instance_data(da, u, &la), *pb = hk_instance_data(db, v, &lb);
    if (!pa || !pb) return;
    const fieldpairs *fp = field_pairs(m, ca, cb);
    for (uint32_t k = 0; k < fp->n; k++) {
        hk_id ia = read_ref(da, pa, la, fp->off[k][0]), ib = read_ref(db, pb, lb, fp->off[k][1]);
        if (ia && ib) try_pair(m, hk_obj_find(da, ia), hk_obj_find(db, ib), u, v);
    }
}

typedef struct leftover { uint32_t cls, pos, obj; } leftover;
static int leftover_cmp(const void *x, const void *y)
{
    const leftover *a = x, *b = y;
    if (a->cls != b->cls) return a->cls < b->cls ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static leftover *leftovers(hk_diff *df, int s, uint32_t arr, uint32_t *n)
{
    hk_dump *d = df->s[s].d;
    uint32_t len = hk_array_length(d, arr);
    leftover *v = NULL;
    *n = 0;
    for (uint32_t k = 0; k < len; k++) {
        uint32_t o = hk_obj_find(d, hk_obj_array_at(d, arr, k));
        if (o == HK_NONE || df->s[s].match[o] != HK_NONE || hk_obj_kind(d, o) == HK_KIND_CLASS) continue;
        uint32_t c = class_key(d, o, hk_obj_class(d, o));
        /* the BASE side is keyed by the DUMP class it maps to, so keys compare across sides */
        if (s == 0) c = c < d->nclasses ? df->cmap[c] : c;
        if (c == HK_NONE) continue;
        if (!v) v = hk_xcalloc(len - k, sizeof *v);
        v[(*n)++] = (leftover){c, k, o};
    }
    return v;
}

static void expand_array(matcher *m, uint32_t u, uint32_t v)
{
    hk_diff *df = m->df;
    hk_dump *da = df->s[0].d, *db = df->s[1].d;
    uint32_t na = hk_array_length(da, u), nb = hk_array_length(db, v), n = na < nb ? na : nb;
    int missed = na != nb;
    for (uint32_t k = 0; k < n; k++) {
        hk_id ia = hk_obj_array_at(da, u, k), ib = hk_obj_array_at(db, v, k);
        if (!ia != !ib) missed = 1;
        else if (ia && !try_pair(m, hk_obj_find(da, ia), hk_obj_find(db, ib), u, v)) missed = 1;
    }
    if (!missed) return;
    /* elements that moved (a hash table resized, a list shifted): pair the rest by class */
    uint32_t la, lb;
    leftover *xa = leftovers(df, 0, u, &la), *xb = leftovers(df, 1, v, &lb);
    if (la && lb) {
        qsort(xa, la, sizeof *xa, leftover_cmp);
        qsort(xb, lb, sizeof *xb, leftover_cmp);
        uint32_t i = 0, j = 0;
        while (i < la && j < lb) {
            if (xa[i].cls < xb[j].cls) i++;
            else if (xa[i].cls > xb[j].cls) j++;
            else try_pair(m, xa[i++].obj, xb[j++].obj, u, v);
        }
    }
    free(xa);
    free(xb);
}

static void expand_class(matcher *m, uint32_t u, uint32_t v)
{
    hk_dump *da = m->df->s[0].d, *db = m->df->s[1].d;
    hk_class *ca = hk_class_by_id(da, hk_obj_id(da, u)), *cb = hk_class_by_id(db, hk_obj_id(db, v));
    if (!ca || !cb) return;
    for (uint32_t k = 0; k < ca->nstatics; k++) {
        if (ca->statics[k].type != HK_T_OBJECT || !ca->statics[k].value.ref) continue;
        const hk_static *sb = hk_class_static(cb, ca->statics[k].name);
        if (!sb || sb->type != HK_T_OBJECT || !sb->value.ref) continue;
        try_pair(m, hk_obj_find(da, ca->statics[k].value.ref), hk_obj_find(db, sb->value.ref), u, v);
    }
}

hk_diff *hk_diff_new(hk_dump *base, hk_dump *dump, char *err, size_t errlen)
{
    if (hk_graph_ensure(base, HK_GRAPH_REFS, err, errlen) || hk_graph_ensure(dump, HK_GRAPH_REFS, err, errlen))
        return NULL;
    hk_diff *df = hk_xcalloc(1, sizeof *df);
    hk_dump *ds[2] = {base, dump};
    for (int s = 0; s < 2; s++) {
        hkd_side *sd = &df->s[s];
        sd->d = ds[s];
        uint32_t n = ds[s]->nobjects + 1;
        sd->match = hk_xrealloc(NULL, n * sizeof *sd->match);
        sd->via = hk_xrealloc(NULL, n * sizeof *sd->via);
        memset(sd->match, 0xff, n * sizeof *sd->match);
        memset(sd->via, 0xff, n * sizeof *sd->via);
        hk_idmap_init(&sd->root_type);
    }
    df->cmap = hk_xrealloc(NULL, (base->nclasses + 1) * sizeof *df->cmap);
    memset(df->cmap, 0xff, (base->nclasses + 1) * sizeof *df->cmap);
    df->order = hk_xrealloc(NULL, ((size_t)base->nobjects + 1) * sizeof *df->order);
    matcher m = {.df = df, .fp = hk_xcalloc(base->nclasses + 1, sizeof *m.fp)};

    named *ca = sorted_classes(base), *cb = sorted_classes(dump);
    merge_named(ca, base->nclasses, cb, dump->nclasses, pair_class, &m);
    free(ca);
    free(cb);
    match_roots(&m);
    for (uint32_t q = 0; q < m.qlen; q++) {
        uint32_t u = df->order[q], v = df->s[0].match[u];
        switch (hk_obj_kind(base, u)) {
        case HK_KIND_INSTANCE: expand_instance(&m, u, v); break;
        case HK_KIND_OBJ_ARRAY: expand_array(&m, u, v); break;
        case HK_KIND_CLASS: expand_class(&m, u, v); break;
        default: break;
        }
    }
    df->nmatched = m.qlen;
    for (uint32_t c = 0; c < base->nclasses; c++) free(m.fp[c].off);
    free(m.fp);
    return df;
}

void hk_diff_free(hk_diff *df)
{
    if (!df) return;
    for (int s = 0; s < 2; s++) {
        free(df->s[s].match);
        free(df->s[s].via);
        hk_idmap_free(&df->s[s].root_type);
    }
    free(df->cmap);
    free(df->order);
    free(df);
}

hk_dump *hk_diff_dump(const hk_diff *df, int side) { return df->s[side].d; }

uint32_t hk_diff_counterpart(const hk_diff *df, int side, uint32_t obj)
{
    return obj < df->s[side].d->nobjects ? df->s[side].match[obj] : HK_NONE;
}
