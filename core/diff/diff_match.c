/* Heap diff, the matching: class objects by name, GC roots by kind, thread and class, then
 * breadth first along fields, statics and array slots (see diff.h). */
#include "diff/diff_internal.h"
#include "graph/graph.h"
#include "graph/graph_view.h"
#include "hprof/hprof_view.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per BASE class: which instance-data offsets hold the same-named reference field in the DUMP
 * class of that name (built on first use). */
typedef struct fieldpair {
    uint32_t off[2];
    int32_t slot[2];
} fieldpair;
typedef struct fieldpairs {
    uint32_t for_cls, n;
    fieldpair *p;
} fieldpairs;

typedef struct matcher {
    hk_diff *df;
    fieldpairs *fp;
    uint32_t qlen;
    uint32_t *idx[2]; /* scratch: a record's references as object indices */
    size_t cap[2];
} matcher;

/* Pairs u (BASE) with v (DUMP) when both are free and of the same class; queues u. */
static int try_pair(matcher *m, uint32_t u, uint32_t v, uint32_t from_u, uint32_t from_v)
{
    hk_diff *df = m->df;
    hkd_side *a = &df->s[0], *b = &df->s[1];
    if (u == HK_NONE || v == HK_NONE || a->o[u].match != HK_NONE || b->o[v].match != HK_NONE) return 0;
    int ka = hkd_kind(a, u);
    if (ka != hkd_kind(b, v) || ka == HK_KIND_CLASS) return 0;
    uint32_t ca = hkd_cls(a, u), cb = hkd_cls(b, v);
    if (ca >= hk_view(a->d)->nclasses ? ca != cb : df->cmap[ca] != cb) return 0;
    a->o[u].match = v;
    b->o[v].match = u;
    a->o[u].via = from_u;
    b->o[v].via = from_v;
    df->order[m->qlen++] = u;
    return 1;
}

typedef struct named {
    const char *name;
    uint32_t idx;
} named;
static int named_cmp(const void *x, const void *y)
{
    const named *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

static named *sorted_classes(const hk_dump *d)
{
    named *v = hk_xcalloc(hk_view(d)->nclasses + 1, sizeof *v);
    for (uint32_t i = 0; i < hk_view(d)->nclasses; i++)
        v[i] = (named){hk_view(d)->classes[i].name ? hk_view(d)->classes[i].name : "", i};
    qsort(v, hk_view(d)->nclasses, sizeof *v, named_cmp);
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
    uint32_t oa = hk_view(df->s[0].d)->classes[ca].object, ob = hk_view(df->s[1].d)->classes[cb].object;
    if (oa == HK_NONE || ob == HK_NONE || df->s[0].o[oa].match != HK_NONE || df->s[1].o[ob].match != HK_NONE) return;
    df->s[0].o[oa].match = ob;
    df->s[1].o[ob].match = oa;
    df->s[0].o[oa].via = df->s[1].o[ob].via = HKD_ANCHOR;
    df->order[m->qlen++] = oa;
    df->anchors_classes++;
}

/* ---- GC roots: keyed "type|thread name|class|string text" ---- */

static char *thread_name(hk_dump *d, uint32_t serial)
{
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        if (hk_view(d)->roots[k].type != HPROF_ROOT_THREAD_OBJECT || hk_view(d)->roots[k].thread != serial) continue;
        uint32_t t = hk_obj_find(d, hk_view(d)->roots[k].id);
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

/* A root's class and its name, from the kind and class read_classes noted: the root's record
 * is not read again (a cache miss on each of the scattered roots).  *c is HK_NONE when it has
 * no class in the dump. */
static const char *root_class(const hkd_side *sd, uint32_t obj, uint32_t *c)
{
    hk_dump *d = sd->d;
    *c = hkd_cls(sd, obj);
    if (*c < hk_view(d)->nclasses) return hk_view(d)->classes[*c].name;
    *c = HK_NONE;
    if (hkd_kind(sd, obj) == HK_KIND_CLASS) return "java.lang.Class";
    return hk_obj_class_name(d, obj);
}

static named *root_keys(const hkd_side *sd, uint32_t *n)
{
    hk_dump *d = sd->d;
    named *v = hk_xcalloc(hk_view(d)->nroots + 1, sizeof *v);
    /* thread names, looked up once per serial */
    uint32_t nthreads = 0;
    struct {
        uint32_t serial;
        char *name;
    } *threads = hk_xcalloc(hk_view(d)->nroots + 1, sizeof *threads);
    hk_buf key, sv;
    hk_buf_init(&key);
    hk_buf_init(&sv);
    *n = 0;
    /* the roots' objects first, then their keys with each object's entry fetched a few roots
     * ahead (roots lie all over the heap); v[k].idx holds root k's object until its key is in */
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) v[k].idx = hk_obj_find(d, hk_view(d)->roots[k].id);
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        if (k + 8 < hk_view(d)->nroots && v[k + 8].idx != HK_NONE) __builtin_prefetch(&sd->o[v[k + 8].idx]);
        const hk_root *r = &hk_view(d)->roots[k];
        uint32_t obj = v[k].idx;
        if (obj == HK_NONE) continue;
        const char *tn = "";
        if (r->thread) {
            uint32_t t = 0;
            while (t < nthreads && threads[t].serial != r->thread) t++;
            if (t == nthreads) {
                threads[t].serial = r->thread;
                threads[t].name = thread_name(d, r->thread);
                nthreads++;
            }
            tn = threads[t].name;
        }
        uint32_t c;
        const char *cn = root_class(sd, obj, &c);
        hk_buf_reset(&key);
        hk_buf_printf(&key, "%d|%s|%s|", r->type, tn, cn ? cn : "");
        if (c != HK_NONE && c == hk_view(d)->string_class) {
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

typedef struct keyed {
    const char *key;
    uint32_t pos, obj;
} keyed;
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
        rk[s] = root_keys(&df->s[s], &n[s]);
        ks[s] = hk_xcalloc(n[s] + 1, sizeof *ks[s]);
        for (uint32_t i = 0; i < n[s]; i++) ks[s][i] = (keyed){rk[s][i].name, i, rk[s][i].idx};
        qsort(ks[s], n[s], sizeof *ks[s], keyed_cmp);
    }
    uint32_t i = 0, j = 0;
    while (i < n[0] && j < n[1]) {
        int c = strcmp(ks[0][i].key, ks[1][j].key);
        if (c < 0) {
            i++;
            continue;
        }
        if (c > 0) {
            j++;
            continue;
        }
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

/* The slot of a reference field in the graph's strong edge list of its class, -1 for a weak
 * referent (read from the record), -2 for a field the graph has no edge for (ART's
 * shadow$_klass_: classes are matched by name already). */
static int32_t strong_slot(const hk_dump *d, uint32_t cls, uint32_t off)
{
    const hk_graph *g = hkg_of(d);
    const hkg_class_refs *cr = &g->cls[cls];
    for (uint32_t k = 0; k < cr->count; k++)
        if (g->ref_offs[cr->start + k] == off) return (int32_t)k;
    for (uint32_t k = 0; k < cr->nweak; k++)
        if (cr->woff[k] == off) return -1;
    return -2;
}

static const fieldpairs *field_pairs(matcher *m, uint32_t ca, uint32_t cb)
{
    fieldpairs *fp = &m->fp[ca];
    if (fp->p && fp->for_cls == cb) return fp;
    free(fp->p);
    hk_dump *da = m->df->s[0].d, *db = m->df->s[1].d;
    uint32_t na, nb;
    const hk_field *fa = hk_class_layout(da, &hk_view(da)->classes[ca], &na);
    const hk_field *fb = hk_class_layout(db, &hk_view(db)->classes[cb], &nb);
    fp->p = hk_xcalloc(na + 1, sizeof *fp->p);
    fp->n = 0;
    fp->for_cls = cb;
    for (uint32_t k = 0; k < na; k++) {
        if (fa[k].type != HK_T_OBJECT) continue;
        /* the same name may appear in a class and its superclass: pair the nth with the nth */
        uint32_t nth = 0;
        for (uint32_t q = 0; q < k; q++) nth += fa[q].type == HK_T_OBJECT && !strcmp(fa[q].name, fa[k].name);
        for (uint32_t q = 0; q < nb; q++) {
            if (fb[q].type != HK_T_OBJECT || strcmp(fb[q].name, fa[k].name)) continue;
            if (nth-- == 0) {
                int32_t sa = strong_slot(da, ca, fa[k].offset), sb = strong_slot(db, cb, fb[q].offset);
                if (sa != -2 && sb != -2) fp->p[fp->n++] = (fieldpair){{fa[k].offset, fb[q].offset}, {sa, sb}};
                break;
            }
        }
    }
    return fp;
}

static hk_id read_ref(const hk_dump *d, const uint8_t *data, uint32_t len, uint32_t off)
{
    if (off + hk_view(d)->id_size > len) return 0;
    hk_value v;
    hk_read_value(d, data + off, HK_T_OBJECT, &v);
    return v.ref;
}

/* An instance's strong references by slot.  The graph's edge list has them resolved, in slot
 * order, without the null ones and those pointing outside the dump: when it is full it is the
 * answer as it is; else the record says which slots are null. */
static const uint32_t *strong_refs(matcher *m, int s, uint32_t obj, uint32_t cls)
{
    hk_dump *d = m->df->s[s].d;
    const hk_graph *g = hkg_of(d);
    const hkg_class_refs *cr = &g->cls[cls];
    uint32_t nout;
    const uint32_t *out = hkg_out(g, obj, &nout);
    if (nout == cr->count) return out;
    m->idx[s] = hk_grow(m->idx[s], &m->cap[s], cr->count + 1, sizeof *m->idx[s]);
    uint32_t *idx = m->idx[s];
    uint32_t bits = m->df->s[s].o[obj].refbits;
    if (cr->count <= 32 && (uint32_t)__builtin_popcount(bits) == nout) {
        /* which slots are null was noted in the first pass */
        for (uint32_t k = 0, j = 0; k < cr->count; k++) idx[k] = bits >> k & 1 ? out[j++] : HK_NONE;
        return idx;
    }
    const uint32_t *offs = g->ref_offs + cr->start;
    uint32_t len, j = 0, nonnull = 0;
    const uint8_t *data = hk_instance_data(d, obj, &len);
    for (uint32_t k = 0; k < cr->count; k++) {
        hk_id id = data ? read_ref(d, data, len, offs[k]) : 0;
        idx[k] = HK_NONE;
        if (!id) continue;
        nonnull++;
        if (j < nout) idx[k] = out[j++];
    }
    if (nonnull != nout) /* a reference to an object missing from the dump */
        for (uint32_t k = 0; k < cr->count; k++) idx[k] = hkg_find(d, g, data ? read_ref(d, data, len, offs[k]) : 0);
    return idx;
}

/* A reference field the graph keeps apart (a Reference's referent), read from the record. */
static uint32_t weak_ref(hk_dump *d, uint32_t obj, uint32_t off)
{
    uint32_t len;
    const uint8_t *data = hk_instance_data(d, obj, &len);
    return data ? hkg_find(d, hkg_of(d), read_ref(d, data, len, off)) : HK_NONE;
}

static void expand_instance(matcher *m, uint32_t u, uint32_t v)
{
    hk_dump *da = m->df->s[0].d, *db = m->df->s[1].d;
    uint32_t ca = hkd_cls(&m->df->s[0], u), cb = hkd_cls(&m->df->s[1], v);
    if (ca >= hk_view(da)->nclasses || cb >= hk_view(db)->nclasses) return;
    const fieldpairs *fp = field_pairs(m, ca, cb);
    if (!fp->n) return;
    const uint32_t *xa = strong_refs(m, 0, u, ca), *xb = strong_refs(m, 1, v, cb);
    for (uint32_t k = 0; k < fp->n; k++) {
        const fieldpair *f = &fp->p[k];
        uint32_t ta = f->slot[0] >= 0 ? xa[f->slot[0]] : weak_ref(da, u, f->off[0]);
        if (ta == HK_NONE) continue;
        uint32_t tb = f->slot[1] >= 0 ? xb[f->slot[1]] : weak_ref(db, v, f->off[1]);
        if (tb != HK_NONE) try_pair(m, ta, tb, u, v);
    }
}

typedef struct leftover {
    uint32_t cls, pos, obj;
} leftover;
static int leftover_cmp(const void *x, const void *y)
{
    const leftover *a = x, *b = y;
    if (a->cls != b->cls) return a->cls < b->cls ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* The elements of an array still unmatched, keyed by class (the graph's edge list: non-null
 * elements in order). */
static leftover *leftovers(hk_diff *df, int s, uint32_t arr, uint32_t *n)
{
    hk_dump *d = df->s[s].d;
    uint32_t len;
    const uint32_t *el = hkg_out(hkg_of(d), arr, &len);
    leftover *v = NULL;
    *n = 0;
    for (uint32_t k = 0; k < len; k++) {
        uint32_t o = el[k];
        if (df->s[s].o[o].match != HK_NONE || hkd_kind(&df->s[s], o) == HK_KIND_CLASS) continue;
        uint32_t c = hkd_cls(&df->s[s], o);
        /* the BASE side is keyed by the DUMP class it maps to, so keys compare across sides */
        if (s == 0) c = c < hk_view(d)->nclasses ? df->cmap[c] : c;
        if (c == HK_NONE) continue;
        if (!v) v = hk_xcalloc(len - k, sizeof *v);
        v[(*n)++] = (leftover){c, k, o};
    }
    return v;
}

/* A short array's elements as object indices from the non-null slots noted in o[] and
 * the graph's edge list, when all of them are in the dump; *len gets the slots up to the last
 * non-null one (the nulls after it pair with nothing).  NULL when the record is needed. */
static const uint32_t *small_elements(matcher *m, int s, uint32_t arr, uint32_t *len)
{
    uint32_t bits = m->df->s[s].o[arr].refbits, nout;
    if (!(bits & HKG_SMALL_ARRAY)) return NULL;
    bits &= (1u << HKG_SMALL_MAX) - 1;
    const uint32_t *out = hkg_out(hkg_of(m->df->s[s].d), arr, &nout);
    if ((uint32_t)__builtin_popcount(bits) != nout) return NULL;
    uint32_t n = bits ? 32 - (uint32_t)__builtin_clz(bits) : 0;
    uint32_t *idx = m->idx[s] = hk_grow(m->idx[s], &m->cap[s], 32, sizeof *m->idx[s]);
    for (uint32_t k = 0, j = 0; k < n; k++) idx[k] = bits >> k & 1 ? out[j++] : HK_NONE;
    *len = n;
    return idx;
}

/* An object array's elements as object indices (HK_NONE for null), from the graph's edge list
 * when it lines up (no element points outside the dump), else looked up one by one.  *len
 * gets the array's length. */
static const uint32_t *elements(matcher *m, int s, uint32_t arr, uint32_t *len)
{
    hk_dump *d = m->df->s[s].d;
    const uint32_t *small = small_elements(m, s, arr, len);
    if (small) return small;
    const uint8_t *r = hk_obj_record(d, arr), *el = hk_rec_obj_array_elems(d, r);
    const uint32_t n = *r == HPROF_OBJ_ARRAY_DUMP ? hk_rec_array_length(d, r) : 0, idsz = hk_view(d)->id_size;
    *len = n;
    m->idx[s] = hk_grow(m->idx[s], &m->cap[s], (size_t)n + 1, sizeof *m->idx[s]);
    uint32_t *idx = m->idx[s], nout, j = 0, nonnull = 0;
    const uint32_t *out = hkg_out(hkg_of(d), arr, &nout);
    for (uint32_t k = 0; k < n; k++) {
        hk_id id = hk_be_id(d, el + (uint64_t)k * idsz);
        idx[k] = HK_NONE;
        if (!id) continue;
        nonnull++;
        if (j < nout) idx[k] = out[j++];
    }
    if (nonnull != nout)
        for (uint32_t k = 0; k < n; k++) idx[k] = hkg_find(d, hkg_of(d), hk_be_id(d, el + (uint64_t)k * idsz));
    return idx;
}

static void expand_array(matcher *m, uint32_t u, uint32_t v)
{
    hk_diff *df = m->df;
    hk_dump *da = df->s[0].d, *db = df->s[1].d;
    uint32_t oa, ob;
    const uint32_t *xa = hkg_out(hkg_of(da), u, &oa), *xb = hkg_out(hkg_of(db), v, &ob);
    int missed = 0;
    if (oa == ob) {
        /* as many elements on both sides: in order (the same slots unless nulls moved) */
        for (uint32_t k = 0; k < oa; k++)
            if (!try_pair(m, xa[k], xb[k], u, v) &&
                (df->s[0].o[xa[k]].match == HK_NONE || df->s[1].o[xb[k]].match == HK_NONE))
                missed = 1;
    } else if (oa == 0 || ob == 0) {
        return; /* nothing to pair on one side (all its elements null or outside the dump) */
    } else {
        uint32_t na, nb;
        xa = elements(m, 0, u, &na);
        xb = elements(m, 1, v, &nb);
        uint32_t n = na < nb ? na : nb;
        missed = 1;
        for (uint32_t k = 0; k < n; k++)
            if (xa[k] != HK_NONE && xb[k] != HK_NONE) try_pair(m, xa[k], xb[k], u, v);
    }
    if (!missed) return;
    /* elements that moved (a hash table resized, a list shifted): pair the rest by class */
    uint32_t la, lb;
    leftover *ya = leftovers(df, 0, u, &la), *yb = leftovers(df, 1, v, &lb);
    if (la && lb) {
        qsort(ya, la, sizeof *ya, leftover_cmp);
        qsort(yb, lb, sizeof *yb, leftover_cmp);
        uint32_t i = 0, j = 0;
        while (i < la && j < lb) {
            if (ya[i].cls < yb[j].cls) i++;
            else if (ya[i].cls > yb[j].cls) j++;
            else try_pair(m, ya[i++].obj, yb[j++].obj, u, v);
        }
    }
    free(ya);
    free(yb);
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

/* Sorts v[0..n) ascending (two 16-bit radix passes through tmp). */
static void sort_radix(uint32_t *v, uint32_t n, uint32_t *tmp)
{
    if (n < 2) return;
    static uint32_t count[65537];
    uint32_t *src = v, *dst = tmp;
    for (int shift = 0; shift < 32; shift += 16) {
        memset(count, 0, sizeof count);
        for (uint32_t i = 0; i < n; i++) count[(src[i] >> shift & 0xffff) + 1]++;
        for (uint32_t k = 1; k <= 65536; k++) count[k] += count[k - 1];
        for (uint32_t i = 0; i < n; i++) dst[count[src[i] >> shift & 0xffff]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
}

/* A large set is marked in a bitmap of all objects and read back in order: a few bits set at
 * random in a table of nobj / 8 bytes, where the radix passes scatter 4-byte values over 65536
 * places. */
void hkd_sort_objects(uint32_t *v, uint32_t n, uint32_t nobj, uint64_t *bits, uint32_t **tmp, size_t *tcap)
{
    if (n < 2) return;
    if ((uint64_t)n * 16 < nobj) {
        *tmp = hk_grow(*tmp, tcap, n, sizeof **tmp);
        sort_radix(v, n, *tmp);
        return;
    }
    for (uint32_t i = 0; i < n; i++) bits[v[i] >> 6] |= (uint64_t)1 << (v[i] & 63);
    uint32_t k = 0;
    for (uint32_t w = 0; w <= nobj / 64; w++) {
        for (uint64_t b = bits[w]; b; b &= b - 1) v[k++] = w * 64 + (uint32_t)__builtin_ctzll(b);
        bits[w] = 0;
    }
}

/* Per class, for the records pass: its strong reference slots, when it has 1 to 32 of them
 * (refbits holds no more), and where the last ends in an instance's data, so that a record
 * long enough is read without a bound check per slot. */
typedef struct slot_set {
    const uint32_t *offs;
    uint32_t n, end;
} slot_set;

static slot_set *slot_sets(const hk_dump *d)
{
    const hk_graph *g = hkg_of(d);
    slot_set *v = hk_xcalloc((size_t)hk_view(d)->nclasses + 1, sizeof *v);
    for (uint32_t c = 0; c < hk_view(d)->nclasses; c++) {
        const hkg_class_refs *cr = &g->cls[c];
        if (!cr->count || cr->count > 32) continue;
        v[c] = (slot_set){g->ref_offs + cr->start, cr->count, 0};
        for (uint32_t k = 0; k < cr->count; k++)
            if (v[c].offs[k] + hk_view(d)->id_size > v[c].end) v[c].end = v[c].offs[k] + hk_view(d)->id_size;
    }
    return v;
}

/* Bit k set when strong reference slot k of an instance record is non-null.  A slot is null
 * when all its bytes are: no byte order to undo. */
static uint32_t null_slots(const hk_dump *d, const uint8_t *r, const slot_set *ss)
{
    const uint32_t n = ss->n, idsz = hk_view(d)->id_size, *offs = ss->offs;
    if (!n) return 0;
    uint32_t len, bits = 0;
    const uint8_t *p = hk_rec_instance_data(d, r, &len);
    if (ss->end > len) { /* a short record: its missing slots are null */
        for (uint32_t k = 0; k < n; k++)
            if (offs[k] + idsz <= len && hk_be_id(d, p + offs[k])) bits |= 1u << k;
        return bits;
    }
    if (idsz == 4)
        for (uint32_t k = 0; k < n; k++) {
            uint32_t x;
            memcpy(&x, p + offs[k], 4);
            bits |= (uint32_t)(x != 0) << k;
        }
    else
        for (uint32_t k = 0; k < n; k++) {
            uint64_t x;
            memcpy(&x, p + offs[k], 8);
            bits |= (uint32_t)(x != 0) << k;
        }
    return bits;
}

/* The instances-by-class index (hk_class_instances) filled in the same pass as o[], when
 * nothing built it yet: the lists are laid out by the index's per-class counts (where class
 * objects count as java.lang.Class, and which o[] leaves out) and checked against the pass's
 * own counts after, as an object the index counted apart would leave a list short. */
typedef struct class_lists {
    uint32_t *count; /* the pass's counts: instances of c at count[c + 2] */
    uint32_t *start; /* nc + 2: where each class's list starts (its guessed count) */
    uint32_t *next;  /* nc: where its next instance goes */
    uint32_t *out;   /* NULL: not filled here */
} class_lists;

static void lists_plan(hk_dump *d, class_lists *cl)
{
    uint32_t nc = hk_view(d)->nclasses;
    cl->count = hk_xcalloc((size_t)nc + 2, sizeof *cl->count);
    const uint32_t *start;
    if (hk_class_lists(d, &start)) return;
    cl->start = hk_xcalloc((size_t)nc + 2, sizeof *cl->start);
    cl->next = hk_xcalloc((size_t)nc + 1, sizeof *cl->next);
    uint64_t total = 0;
    for (uint32_t c = 0; c < nc; c++) {
        uint64_t n = 0;
        hk_tally t = hk_class_tally(d, c);
        for (int h = 0; h < HK_MAX_HEAPS; h++) n += t.count[h];
        if (c == hk_view(d)->class_class) n = n > nc ? n - nc : 0;
        cl->start[c] = cl->next[c] = (uint32_t)total;
        total += n;
        if (total > hk_view(d)->nobjects) total = hk_view(d)->nobjects; /* a bad guess: found short below */
    }
    cl->start[nc] = cl->start[nc + 1] = (uint32_t)total;
    cl->out = hk_xmalloc((total ? total : 1) * sizeof *cl->out);
    hk_prefault(cl->out, total * sizeof *cl->out);
}

/* Hands the lists to the dump when the guess held.  Otherwise (an object the index counted
 * apart, a dump without the index's counts: none of the real dumps) they are left to
 * hk_class_instances, which builds them from the records when first asked. */
static void lists_finish(hk_dump *d, class_lists *cl)
{
    uint32_t nc = hk_view(d)->nclasses;
    int held = cl->out != NULL;
    for (uint32_t c = 0; held && c < nc; c++) held = cl->count[c + 2] == cl->start[c + 1] - cl->start[c];
    free(cl->next);
    free(cl->count);
    if (held && hk_class_lists_adopt(d, cl->start, cl->out) == 0) return;
    free(cl->start);
    free(cl->out);
}

/* An object array's note bits (hkg_array_note), as the graph's reference pass notes them.
 * Most arrays are short, and the matcher then aligns their slots without reading their
 * records again. */
static uint32_t null_elements(const hk_dump *d, const uint8_t *r)
{
    uint32_t n = hk_rec_array_length(d, r), bits = 0;
    if (n > HKG_SMALL_MAX) return hkg_array_note(n, 0);
    const uint8_t *p = hk_rec_obj_array_elems(d, r);
    if (hk_view(d)->id_size == 4)
        for (uint32_t k = 0; k < n; k++) {
            uint32_t x;
            memcpy(&x, p + 4 * k, 4);
            bits |= (uint32_t)(x != 0) << k;
        }
    else
        for (uint32_t k = 0; k < n; k++) {
            uint64_t x;
            memcpy(&x, p + 8 * k, 8);
            bits |= (uint32_t)(x != 0) << k;
        }
    return hkg_array_note(n, bits);
}

/* An object's kind and class from its record (instances: with their null slots in *bits). */
static inline int read_record(hk_dump *d, uint32_t i, const uint8_t *r, hkg_class_cache *cc, const slot_set *sets,
                              uint32_t *c, uint32_t *bits)
{
    const uint32_t idsz = hk_view(d)->id_size;
    switch (*r) {
    case HPROF_CLASS_DUMP: return HK_KIND_CLASS;
    case HPROF_INSTANCE_DUMP:
        *c = hkg_cached_class(d, cc, hk_rec_instance_class(d, r));
        if (*c != HK_NONE) *bits = null_slots(d, r, &sets[*c]);
        return HK_KIND_INSTANCE;
    case HPROF_OBJ_ARRAY_DUMP:
        *c = hkg_cached_class(d, cc, hk_be_id(d, r + 1 + idsz + 8));
        *bits = null_elements(d, r);
        return HK_KIND_OBJ_ARRAY;
    default:
        /* primitive arrays without a class in the dump: their element type stands for it */
        *c = hkg_prim_class(d, r);
        uint64_t size = hk_obj_record_size(d, i);
        *bits = size < UINT32_MAX ? (uint32_t)size : 0;
        return HK_KIND_PRIM_ARRAY;
    }
}

static inline void lists_add(class_lists *cl, uint32_t c, uint32_t i)
{
    cl->count[c + 2]++;
    if (cl->out && cl->next[c] < cl->start[c + 1]) cl->out[cl->next[c]++] = i;
}

/* Every object's record in o[]: unmatched, its kind, class and null reference slots, read in
 * file order from the record's tag on (what the graph's reference pass notes when it runs
 * after the diff asked: see notes_or_records); and the instances-by-class index, which the
 * bitmap report and the retained sizes by class ask for, without reading every record again. */
static void read_classes(hk_dump *d, hkd_side *sd)
{
    hkg_class_cache *cc = hk_xcalloc(1, sizeof *cc);
    slot_set *sets = slot_sets(d);
    class_lists cl = {0};
    lists_plan(d, &cl);
    const uint32_t nc = hk_view(d)->nclasses;
    for (uint32_t i = 0; i < hk_view(d)->nobjects; i++) {
        /* records a few objects ahead: arrays put each on a page of its own, beyond what
         * the hardware's stride prefetch follows */
        if (i + 16 < hk_view(d)->nobjects) {
            const uint8_t *ahead = hk_obj_record(d, i + 16);
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + 64);
        }
        uint32_t c = HK_NONE, bits = 0;
        int kind = read_record(d, i, hk_obj_record(d, i), cc, sets, &c, &bits);
        sd->o[i] = (hkd_obj){.match = HK_NONE, .via = HKD_UNSEEN, .refbits = bits};
        hkd_set_info(sd, i, kind, c);
        if (c < nc) lists_add(&cl, c, i);
    }
    lists_finish(d, &cl);
    free(sets);
    free(cc);
}

/* The instances-by-class index from the classes the graph noted in o[]. */
static void lists_from_notes(hk_dump *d, hkd_side *sd)
{
    class_lists cl = {0};
    lists_plan(d, &cl);
    const uint32_t nc = hk_view(d)->nclasses;
    for (uint32_t i = 0; cl.out && i < hk_view(d)->nobjects; i++) {
        uint32_t c = hkd_cls(sd, i);
        if (c < nc) lists_add(&cl, c, i);
    }
    lists_finish(d, &cl);
}

/* Both sides' references, and o[]: noted by the graph's reference pass while it reads the
 * records (one pass over each file, not two), or read from the records when the references
 * were there before the diff. */
static int notes_or_records(hk_diff *df, int flags, char *err, size_t errlen)
{
    hkg_notes notes[2];
    for (int s = 0; s < 2; s++) {
        notes[s].words = (uint32_t *)df->s[s].o;
        hkg_note_next_refs(df->s[s].d, &notes[s]);
    }
    int rc = 0;
    for (int s = 0; s < 2 && !rc; s++) rc = hk_graph_ensure(df->s[s].d, HK_GRAPH_REFS, err, errlen);
    for (int s = 0; s < 2; s++) {
        hkg_note_next_refs(df->s[s].d, NULL); /* not to be filled later, when the graph is asked again */
        if (rc) continue;
        if (!notes[s].filled) read_classes(df->s[s].d, &df->s[s]);
        else if (s == HK_DIFF_DUMP && (flags & HK_DIFF_BASE_FIRST)) df->s[s].lists_later = 1;
        else lists_from_notes(df->s[s].d, &df->s[s]);
    }
    return rc;
}

/* The memory of the pairs ahead of q, fetched while the pairs before them are expanded: the
 * BASE object's entry 32 steps ahead, its counterpart's 16 (for arrays also their index
 * entries), their edge-list starts 8 (and array records: arrays whose edge counts differ are
 * aligned by slot from their records, see elements()), their edge lists 4.  Always inlined:
 * GCC takes a function that only loads and prefetches for one without effects, and drops the
 * call. */
static inline __attribute__((always_inline)) void prefetch_ahead(const hk_diff *df, uint32_t q, uint32_t end)
{
    const hkd_obj *oa = df->s[0].o, *ob = df->s[1].o;
    const hk_dump *da = df->s[0].d, *db = df->s[1].d;
    const hk_graph *ga = hkg_of(da), *gb = hkg_of(db);
    if (q + 32 < end) __builtin_prefetch(&oa[df->order[q + 32]]);
    if (q + 16 < end) {
        uint32_t pu = df->order[q + 16], pv = oa[pu].match;
        __builtin_prefetch(&ob[pv]);
        if (hkd_kind(&df->s[0], pu) == HK_KIND_OBJ_ARRAY) {
            __builtin_prefetch(&hk_view(da)->off_lo[pu]);
            __builtin_prefetch(&hk_view(da)->off_hi[pu]);
            __builtin_prefetch(&hk_view(db)->off_lo[pv]);
            __builtin_prefetch(&hk_view(db)->off_hi[pv]);
        }
    }
    if (q + 8 < end) {
        uint32_t pu = df->order[q + 8], pv = oa[pu].match;
        __builtin_prefetch(&ga->out_start[pu]);
        __builtin_prefetch(&gb->out_start[pv]);
        if (hkd_kind(&df->s[0], pu) == HK_KIND_OBJ_ARRAY) {
            if (!(oa[pu].refbits & HKG_SMALL_ARRAY)) __builtin_prefetch(hk_obj_record(da, pu));
            if (!(ob[pv].refbits & HKG_SMALL_ARRAY)) __builtin_prefetch(hk_obj_record(db, pv));
        }
    }
    if (q + 4 < end) {
        uint32_t pu = df->order[q + 4], pv = oa[pu].match;
        __builtin_prefetch(&ga->out[ga->out_start[pu]]);
        __builtin_prefetch(&gb->out[gb->out_start[pv]]);
    }
}

/* Breadth first, a level at a time, each level in object order: the records and edge lists
 * are then read front to back rather than all over the two files. */
static void match_breadth_first(matcher *m)
{
    hk_diff *df = m->df;
    uint32_t nobj = hk_view(df->s[0].d)->nobjects, *tmp = NULL;
    size_t tcap = 0;
    uint64_t *level_bits = hk_xcalloc((size_t)nobj / 64 + 1, sizeof *level_bits);
    for (uint32_t start = 0, end = m->qlen; start < end; start = end, end = m->qlen) {
        hkd_sort_objects(df->order + start, end - start, nobj, level_bits, &tmp, &tcap);
        for (uint32_t q = start; q < end; q++) {
            prefetch_ahead(df, q, end);
            uint32_t u = df->order[q], v = df->s[0].o[u].match;
            switch (hkd_kind(&df->s[0], u)) {
            case HK_KIND_INSTANCE: expand_instance(m, u, v); break;
            case HK_KIND_OBJ_ARRAY: expand_array(m, u, v); break;
            case HK_KIND_CLASS: expand_class(m, u, v); break;
            default: break;
            }
        }
    }
    free(tmp);
    free(level_bits);
}

void hkd_lists_now(hk_diff *df, int side)
{
    const hkd_side *sd = &df->s[side];
    if (!sd->lists_later || !hkd_has_kinds(sd)) return;
    df->s[side].lists_later = 0;
    lists_from_notes(df->s[side].d, &df->s[side]);
}

hk_diff *hk_diff_new(hk_dump *base, hk_dump *dump, char *err, size_t errlen)
{
    return hk_diff_new_flags(base, dump, 0, err, errlen);
}

hk_diff *hk_diff_new_flags(hk_dump *base, hk_dump *dump, int flags, char *err, size_t errlen)
{
    hk_diff *df = hk_xcalloc(1, sizeof *df);
    hk_dump *ds[2] = {base, dump};
    for (int s = 0; s < 2; s++) {
        hkd_side *sd = &df->s[s];
        sd->d = ds[s];
        const hk_layout_info *li = hk_dump_layout(ds[s]);
        sd->jvm = li->jvm ? &li->layout : NULL;
        uint32_t n = hk_view(ds[s])->nobjects + 1;
        sd->o = hk_xmalloc(n * sizeof *sd->o);
        hk_prefault(sd->o, n * sizeof *sd->o);
        hk_idmap_init(&sd->root_type);
        hk_idtab_init(&sd->ret_big);
    }
    if (notes_or_records(df, flags, err, errlen)) {
        hk_diff_free(df);
        return NULL;
    }
    df->cmap = hk_xrealloc(NULL, (hk_view(base)->nclasses + 1) * sizeof *df->cmap);
    memset(df->cmap, 0xff, (hk_view(base)->nclasses + 1) * sizeof *df->cmap);
    df->order_cap = (size_t)hk_view(base)->nobjects + 1;
    df->order = hk_xrealloc(NULL, df->order_cap * sizeof *df->order);
    matcher m = {.df = df, .fp = hk_xcalloc(hk_view(base)->nclasses + 1, sizeof *m.fp)};

    named *ca = sorted_classes(base), *cb = sorted_classes(dump);
    merge_named(ca, hk_view(base)->nclasses, cb, hk_view(dump)->nclasses, pair_class, &m);
    free(ca);
    free(cb);
    match_roots(&m);
    match_breadth_first(&m);
    df->nmatched = m.qlen;
    /* the queue is done with: hkd_tally takes one of its own while it runs */
    free(df->order);
    df->order = NULL;
    df->order_cap = 0;
    for (int s = 0; s < 2; s++)
        if (hkd_entries_by_referrers(df, s) && hk_graph_plan(ds[s], HK_GRAPH_REFERRERS, NULL, err, errlen)) {
            hk_diff_free(df);
            df = NULL;
            break;
        }
    for (uint32_t c = 0; c < hk_view(base)->nclasses; c++) free(m.fp[c].p);
    free(m.fp);
    free(m.idx[0]);
    free(m.idx[1]);
    return df;
}

void hk_diff_free(hk_diff *df)
{
    if (!df) return;
    for (int s = 0; s < 2; s++) {
        free(df->s[s].o);
        free(df->s[s].entries);
        free(df->s[s].ent_objects);
        free(df->s[s].ent_bytes);
        free(df->s[s].tally);
        hk_idmap_free(&df->s[s].root_type);
        hkd_trie_free(df->s[s].trie);
        free(df->s[s].ret32);
        free(df->s[s].cw);
        free(df->s[s].paired);
        hk_diff_groups_free(df->s[s].groups, df->s[s].ngroups);
        hk_idtab_free(&df->s[s].ret_big);
    }
    free(df->cmap);
    free(df->order);
    free(df->grow);
    free(df->grow_more);
    free(df);
}

hk_dump *hk_diff_dump(const hk_diff *df, int side)
{
    return df->s[side].d;
}

uint32_t hk_diff_counterpart(const hk_diff *df, int side, uint32_t obj)
{
    uint32_t m = obj < hk_view(df->s[side].d)->nobjects ? hkd_match(&df->s[side], obj) : HK_NONE;
    if (m != HKD_PAIRED) return m;
    /* a forgotten side: the other side's records say it, one pass (a user's one object) */
    const hkd_side *o = &df->s[!side];
    if (!o->o && (!o->cw || o->paired)) return HK_NONE;
    for (uint32_t v = 0, n = hk_view(o->d)->nobjects; v < n; v++)
        if (hkd_match(o, v) == obj) return v;
    return HK_NONE;
}

int hk_diff_paired(const hk_diff *df, int side, uint32_t obj)
{
    return obj < hk_view(df->s[side].d)->nobjects && hkd_match(&df->s[side], obj) != HK_NONE;
}

int hk_diff_forgotten(const hk_diff *df, int side)
{
    return !df->s[side].o && (!df->s[side].cw || df->s[side].via_at == HK_NONE);
}
