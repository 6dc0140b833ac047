/* Heap diff, growing collections: matched collections and arrays whose element count rose. */
#include "diff/diff_internal.h"
#include "graph/graph.h"
#include "graph/graph_view.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Collection classes (and their subclasses: LinkedHashMap, LinkedHashSet, Stack, ...). */
static const char *const collections[] = {
    "java.util.ArrayList",
    "java.util.Vector",
    "java.util.LinkedList",
    "java.util.HashMap",
    "java.util.Hashtable",
    "java.util.WeakHashMap",
    "java.util.IdentityHashMap",
    "java.util.TreeMap",
    "java.util.HashSet",
    "java.util.TreeSet",
    "java.util.ArrayDeque",
    "java.util.PriorityQueue",
    "java.util.concurrent.ConcurrentHashMap",
    "java.util.concurrent.CopyOnWriteArrayList",
    "java.util.concurrent.CopyOnWriteArraySet",
    "java.util.concurrent.LinkedBlockingQueue",
    "java.util.concurrent.LinkedBlockingDeque",
    "java.util.concurrent.ArrayBlockingQueue",
    "java.util.concurrent.ConcurrentLinkedQueue",
    "java.util.concurrent.ConcurrentLinkedDeque",
    "android.util.SparseArray",
    "android.util.SparseIntArray",
    "android.util.SparseLongArray",
    "android.util.SparseBooleanArray",
    "android.util.LongSparseArray",
    "android.util.ArrayMap",
    "android.util.ArraySet",
    "androidx.collection.SimpleArrayMap",
    "androidx.collection.ArraySet",
    "androidx.collection.SparseArrayCompat",
    "androidx.collection.LongSparseArray",
};

static int is_collection(const hk_dump *d, const hk_class *c)
{
    for (int depth = 0; c && depth < 64; depth++) {
        for (size_t k = 0; k < sizeof collections / sizeof *collections; k++)
            if (c->name && !strcmp(c->name, collections[k])) return 1;
        c = c->super != HK_NONE ? &hk_view(d)->classes[c->super] : NULL;
    }
    return 0;
}

static uint32_t ref_field(hk_dump *d, uint32_t obj, const char *name)
{
    hk_value v;
    if (obj == HK_NONE || hk_obj_kind(d, obj) != HK_KIND_INSTANCE || !hk_instance_field(d, obj, name, &v) ||
        v.type != HK_T_OBJECT)
        return HK_NONE;
    return hk_obj_find(d, v.ref);
}

static uint32_t array_field(hk_dump *d, uint32_t obj, const char *name)
{
    uint32_t a = ref_field(d, obj, name);
    return a != HK_NONE && hk_obj_kind(d, a) == HK_KIND_OBJ_ARRAY ? a : HK_NONE;
}

static uint64_t non_null(const hk_dump *d, uint32_t arr)
{
    uint32_t n = hk_array_length(d, arr);
    uint64_t c = 0;
    for (uint32_t k = 0; k < n; k++) c += hk_obj_array_at(d, arr, k) != 0;
    return c;
}

/* Walks a chain of nodes through `next` (hash buckets, linked queues), at most limit nodes. */
static uint64_t chain_length(hk_dump *d, uint32_t node, uint64_t limit)
{
    uint64_t c = 0;
    for (; node != HK_NONE && c < limit; node = ref_field(d, node, "next")) c++;
    return c;
}

/* The element count of a collection instance, or -1 when its layout is not one we know.
 * *inner is the object holding the elements: obj, or the map a set wraps (HashSet.map). */
static int64_t coll_size(hk_dump *d, uint32_t obj, int depth, uint32_t *inner)
{
    static const char *const counts[] = {"size", "mSize", "elementCount", "count"};
    hk_value v;
    *inner = obj;
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        if (!hk_instance_field(d, obj, counts[k], &v)) continue;
        if (v.type == HK_T_INT) return v.i < 0 ? 0 : v.i;
        if (v.type == HK_T_OBJECT) { /* LinkedBlockingQueue.count is an AtomicInteger */
            uint32_t a = hk_obj_find(d, v.ref);
            if (a != HK_NONE && hk_instance_field(d, a, "value", &v) && v.type == HK_T_INT) return v.i;
        }
    }
    static const char *const wraps[] = {"map", "m", "al"};
    for (size_t k = 0; depth < 3 && k < sizeof wraps / sizeof *wraps; k++) {
        uint32_t w = ref_field(d, obj, wraps[k]);
        if (w != HK_NONE) return coll_size(d, w, depth + 1, inner);
    }
    uint32_t a;
    if ((a = array_field(d, obj, "array")) != HK_NONE) return hk_array_length(d, a);
    if ((a = array_field(d, obj, "elements")) != HK_NONE) return (int64_t)non_null(d, a);
    if ((a = array_field(d, obj, "table")) != HK_NONE) {
        uint64_t c = 0;
        for (uint32_t k = 0, n = hk_array_length(d, a); k < n; k++)
            c += chain_length(d, hk_obj_find(d, hk_obj_array_at(d, a, k)), UINT32_MAX);
        return (int64_t)c;
    }
    uint32_t head = ref_field(d, obj, "head");
    if (head != HK_NONE) return (int64_t)chain_length(d, head, UINT32_MAX) - 1; /* a dummy head node */
    return -1;
}

/* The class of one element (the last one held), for the report. */
static const char *elem_class(hk_dump *d, uint32_t coll, uint32_t inner)
{
    static const char *const arrays[] = {"elementData", "array", "elements", "mValues",
                                         "mArray",      "queue", "items",    "table"};
    uint32_t el = HK_NONE;
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays && el == HK_NONE; k++) {
        uint32_t a = array_field(d, inner, arrays[k]);
        if (a == HK_NONE) continue;
        for (uint32_t i = hk_array_length(d, a); i-- > 0 && el == HK_NONE;)
            el = hk_obj_find(d, hk_obj_array_at(d, a, i));
    }
    if (el == HK_NONE) el = ref_field(d, ref_field(d, inner, "last"), "item");
    if (el == HK_NONE) return NULL;
    /* a map's node: the value, or the key when a set wraps the map */
    uint32_t key = ref_field(d, el, "key");
    if (key != HK_NONE || ref_field(d, el, "value") != HK_NONE || ref_field(d, el, "val") != HK_NONE) {
        if (inner != coll) el = key;
        else {
            uint32_t val = ref_field(d, el, "value");
            el = val != HK_NONE ? val : ref_field(d, el, "val");
        }
    }
    return el == HK_NONE ? NULL : hk_obj_class_name(d, el);
}

static int grower_cmp(const void *x, const void *y)
{
    const hk_diff_grower *a = x, *b = y;
    int64_t ra = (int64_t)(a->retained[1] - a->retained[0]), rb = (int64_t)(b->retained[1] - b->retained[0]);
    if (ra != rb) return ra < rb ? 1 : -1;
    uint64_t ga = a->count[1] - a->count[0], gb = b->count[1] - b->count[0];
    if (ga != gb) return ga < gb ? 1 : -1;
    return (a->obj[1] > b->obj[1]) - (a->obj[1] < b->obj[1]);
}

/* The thresholds of hk_diff_growers; none (NULL) while the candidates are taken before the
 * dominators (hkd_grow_candidates): every pair that gained elements, its sizes to come. */
typedef struct limits {
    uint64_t min_growth, min_bytes;
} limits;

static int enough(const limits *lim, int64_t c0, int64_t c1, const uint64_t ret[2])
{
    return (uint64_t)(c1 - c0) >= lim->min_growth || (ret[1] > ret[0] && ret[1] - ret[0] >= lim->min_bytes);
}

/* Enough growth to report: count, or bytes retained. */
static int grew(hk_diff *df, uint32_t u, uint32_t v, int64_t c0, int64_t c1, const limits *lim, uint64_t ret[2])
{
    if (c1 <= c0) return 0;
    if (!lim) {
        ret[0] = ret[1] = 0;
        return 1;
    }
    ret[0] = hkd_retained(&df->s[0], u);
    ret[1] = hkd_retained(&df->s[1], v);
    return enough(lim, c0, c1, ret);
}

/* A primitive array's length grew only if its size did: it dominates nothing, its retained
 * size is its own (the graph's shallow size, known before the dominators). */
static uint64_t prim_size(const hkd_side *s, uint32_t obj)
{
    /* the graph's note, while the records hold it (a matched one's, when the tally left it) */
    if (!hk_view(s->d)->obj_sizes && s->o && s->o[obj].refbits) return s->o[obj].refbits;
    hkg_sizer z = {0};
    return hkg_shallow(s->d, &z, obj);
}

static int prim_grew(hk_diff *df, uint32_t u, uint32_t v, const limits *lim)
{
    if (lim) return hkd_retained(&df->s[1], v) > hkd_retained(&df->s[0], u);
    return prim_size(&df->s[1], v) > prim_size(&df->s[0], u);
}

/* 1 when a DUMP array is reported otherwise: a String's, or a collection's (as its
 * collection).  Asked once the array grew, which few do: its holder's record is far from it. */
static int held_apart(hk_diff *df, uint32_t v, uint8_t *kind)
{
    hk_dump *db = df->s[1].d;
    uint32_t h = hkd_via(&df->s[1], v);
    if (h >= hk_view(db)->nobjects || hkd_kind(&df->s[1], h) != HK_KIND_INSTANCE) return 0;
    uint32_t c = hkd_cls(&df->s[1], h);
    if (c >= hk_view(db)->nclasses || c == hk_view(db)->string_class) return 1;
    if (!kind[c]) kind[c] = is_collection(db, &hk_view(db)->classes[c]) ? 2 : 1;
    return kind[c] == 2;
}

/* Ahead of the walk over DUMP: a counterpart's edge list (object arrays) or retained size
 * (primitive arrays), each once the index entries it needs are in. */
static void prefetch_pair(const hk_diff *df, uint32_t v, const limits *lim)
{
    if (!lim) return;
    const hk_dump *da = df->s[0].d, *db = df->s[1].d;
    const hkd_side *sb = &df->s[1];
    if (v + 16 < hk_view(db)->nobjects && hkd_match(sb, v + 16) != HK_NONE) {
        uint32_t pu = hkd_match(sb, v + 16);
        int k = hkd_kind(&df->s[1], v + 16);
        if (k == HK_KIND_OBJ_ARRAY) __builtin_prefetch(&hkg_of(da)->out_start[pu]);
        if (k == HK_KIND_PRIM_ARRAY)
            __builtin_prefetch(df->s[0].ret32 ? (const void *)&df->s[0].ret32[pu] : &hkg_of(da)->retained[pu]);
    }
}

/* The growers found so far; for candidates (more not NULL) what names an element's class,
 * looked up for those reported only: a collection's inner object, an array's last element. */
typedef struct found {
    hk_diff_grower *v;
    size_t n, cap;
    uint32_t (*more)[2];
    size_t mcap;
} found;

static void add_row(found *f, uint32_t u, uint32_t v, int64_t c0, int64_t c1, const uint64_t ret[2], const char *ec,
                    const uint32_t *more)
{
    f->v = hk_grow(f->v, &f->cap, f->n + 1, sizeof *f->v);
    if (more) {
        f->more = hk_grow(f->more, &f->mcap, f->n + 1, sizeof *f->more);
        f->more[f->n][0] = more[0];
        f->more[f->n][1] = more[1];
    }
    f->v[f->n++] = (hk_diff_grower){{u, v}, {(uint64_t)c0, (uint64_t)c1}, {ret[0], ret[1]}, ec};
}

/* Primitive arrays whose size grew, waiting for their lengths: their records lie far apart in
 * both files, so those of a batch are read first by loads of their own, which run side by
 * side, then decoded. */
enum { PEND = 64 };
typedef struct pending {
    uint32_t v[PEND], n;
} pending;

static void flush_prims(hk_diff *df, pending *p, const limits *lim, uint8_t *kind, found *f)
{
    hk_dump *da = df->s[0].d, *db = df->s[1].d;
    const uint32_t at = 1 + hk_view(da)->id_size + 4, bt = 1 + hk_view(db)->id_size + 4; /* the length field */
    for (uint32_t k = 0; k < p->n; k++) {
        uint32_t v = p->v[k], u = hkd_match(&df->s[1], v);
        (void)*(const volatile uint8_t *)(hk_obj_record(da, u) + at);
        (void)*(const volatile uint8_t *)(hk_obj_record(db, v) + bt);
    }
    uint64_t ret[2];
    for (uint32_t k = 0; k < p->n; k++) {
        uint32_t v = p->v[k], u = hkd_match(&df->s[1], v);
        int64_t c0 = hk_array_length(da, u), c1 = hk_array_length(db, v);
        static const uint32_t none[2] = {HK_NONE, HK_NONE};
        if (grew(df, u, v, c0, c1, lim, ret) && !held_apart(df, v, kind))
            add_row(f, u, v, c0, c1, ret, NULL, lim ? NULL : none);
    }
    p->n = 0;
}

/* Every matched pair of DUMP that grew by the rules of hk_diff_growers (lim NULL: that gained
 * elements, their sizes to come) into f.  Reads DUMP's kinds and the pairs' records. */
static void find_growers(hk_diff *df, const limits *lim, found *f)
{
    hk_dump *da = df->s[0].d, *db = df->s[1].d;
    uint64_t ret[2];
    uint8_t *kind = hk_xcalloc(hk_view(db)->nclasses + 1, 1); /* 0 unknown, 1 other, 2 collection */
    pending p = {.n = 0};
    for (uint32_t v = 0; v < hk_view(db)->nobjects; v++) {
        uint32_t u = hkd_match(&df->s[1], v);
        if (u == HK_NONE) continue;
        prefetch_pair(df, v, lim);
        int k = hkd_kind(&df->s[1], v);
        int64_t c0, c1;
        const char *ec = NULL;
        uint32_t more[2] = {HK_NONE, HK_NONE};
        if (k == HK_KIND_INSTANCE) {
            uint32_t c = hkd_cls(&df->s[1], v);
            if (c >= hk_view(db)->nclasses) continue;
            if (!kind[c]) kind[c] = is_collection(db, &hk_view(db)->classes[c]) ? 2 : 1;
            if (kind[c] != 2) continue;
            uint32_t ia, ib;
            c0 = coll_size(da, u, 0, &ia);
            c1 = coll_size(db, v, 0, &ib);
            if (c0 < 0 || c1 < 0 || !grew(df, u, v, c0, c1, lim, ret)) continue;
            if (lim) ec = elem_class(db, v, ib);
            else more[0] = ib;
        } else if (k == HK_KIND_OBJ_ARRAY) {
            /* elements: the non-null ones, the graph's edges */
            uint32_t ea, eb;
            hk_graph_out(da, u, &ea);
            const uint32_t *el = hk_graph_out(db, v, &eb);
            c0 = ea;
            c1 = eb;
            if (!grew(df, u, v, c0, c1, lim, ret) || held_apart(df, v, kind)) continue;
            if (eb && lim) ec = hk_obj_class_name(db, el[eb - 1]);
            else if (eb) more[1] = el[eb - 1];
        } else if (k == HK_KIND_PRIM_ARRAY) {
            if (!prim_grew(df, u, v, lim)) continue;
            p.v[p.n++] = v;
            if (p.n == PEND) flush_prims(df, &p, lim, kind, f);
            continue;
        } else continue;
        add_row(f, u, v, c0, c1, ret, ec, lim ? NULL : more);
    }
    flush_prims(df, &p, lim, kind, f);
    free(kind);
}

void hkd_grow_candidates(hk_diff *df)
{
    if (df->grow_taken || !df->s[1].o) return; /* it reads DUMP's kinds and holders */
    found f = {0};
    find_growers(df, NULL, &f);
    df->grow = f.v;
    df->grow_more = f.more;
    df->ngrow = (uint32_t)f.n;
    df->grow_taken = 1;
    hkd_grow_sizes(df, HK_DIFF_BASE);
}

void hkd_grow_sizes(hk_diff *df, int side)
{
    hkd_side *sd = &df->s[side];
    const hk_graph *g = hkg_of(sd->d);
    if (!df->grow_taken || (df->grow_sized & (1 << side)) || (!sd->ret32 && !(g && (g->done & HK_GRAPH_DOM)))) return;
    for (uint32_t k = 0; k < df->ngrow; k++) df->grow[k].retained[side] = hkd_retained(sd, df->grow[k].obj[side]);
    df->grow_sized |= 1 << side;
}

int hk_diff_growers(hk_diff *df, uint64_t min_growth, uint64_t min_bytes, hk_diff_grower **rows, uint32_t *n, char *err,
                    size_t errlen)
{
    const limits lim = {min_growth, min_bytes};
    found f = {0};
    if (df->grow_taken) {
        for (int s = 0; s < 2; s++) {
            if (!(df->grow_sized & (1 << s)) && hkd_need_retained(df, s, err, errlen)) return -1;
            hkd_grow_sizes(df, s);
        }
        hk_dump *db = df->s[1].d;
        for (uint32_t k = 0; k < df->ngrow; k++) {
            const hk_diff_grower *c = &df->grow[k];
            const uint32_t *m = df->grow_more[k];
            if (!enough(&lim, (int64_t)c->count[0], (int64_t)c->count[1], c->retained)) continue;
            const char *ec = m[1] != HK_NONE   ? hk_obj_class_name(db, m[1])
                             : m[0] != HK_NONE ? elem_class(db, c->obj[1], m[0])
                                               : NULL;
            add_row(&f, c->obj[0], c->obj[1], (int64_t)c->count[0], (int64_t)c->count[1], c->retained, ec, NULL);
        }
    } else {
        const hkd_side *sb = &df->s[1];
        if (!sb->o && (!hkd_has_kinds(sb) || sb->paired || sb->via_at == HK_NONE)) {
            snprintf(err, errlen, "diff: growers asked for after side_done(\"dump\")");
            return -1;
        }
        if (hkd_need_retained(df, 0, err, errlen) || hkd_need_retained(df, 1, err, errlen)) return -1;
        find_growers(df, &lim, &f);
    }
    if (f.n > 1) qsort(f.v, f.n, sizeof *f.v, grower_cmp);
    *rows = f.v;
    *n = (uint32_t)f.n;
    return 0;
}
