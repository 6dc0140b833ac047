/* A heap graph as an Android-dialect HPROF: types become classes (reference fields, then the
 * values the graph records, such as Bitmap.mWidth), objects become instances, arrays and class
 * objects whose references sit where the fields say, roots keep their kind and objects their
 * heap.  Sizes the class records cannot give (Strings, arrays, class objects) go into
 * hprofkit's HPROF_HK_OBJECT_SIZES record, type kinds into HPROF_HK_REF_KINDS. */
#include "hprof/hprof.h"
#include "trace/trace_internal.h"
#include "util/hk_file.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { KIND_ARRAY = 4, KIND_SOFT = 8, KIND_WEAK, KIND_FINALIZER, KIND_PHANTOM };

static const struct {
    const char *name;
    uint8_t type;
} value_field[PF_V_COUNT] = {
    [PF_V_NATIVE_SIZE] = {"size", HK_T_LONG}, /* libcore.util.NativeAllocationRegistry */
    [PF_V_BITMAP_ID] = {"mId", HK_T_LONG},
    [PF_V_BITMAP_SOURCE_ID] = {"mSourceId", HK_T_LONG},
    [PF_V_BITMAP_WIDTH] = {"mWidth", HK_T_INT},
    [PF_V_BITMAP_HEIGHT] = {"mHeight", HK_T_INT},
    [PF_V_VERSION_CODE] = {"longVersionCode", HK_T_LONG}, /* android.content.pm.ApplicationInfo */
};

typedef struct cls {
    char *name;
    int64_t type; /* index in g->types, -1 for a class only a class object names */
    int64_t obj;  /* its class object in g->objs, -1 when the graph has none */
    uint64_t id;
    int64_t super;    /* index in classes, -1 */
    uint32_t *fsid;   /* name string ids of its own reference fields */
    uint64_t *fields; /* their field-name iids */
    uint32_t nfields;
    uint8_t values;    /* value fields it carries (bit per pf_value_kind) */
    uint32_t nruntime; /* "runtimeInternalObjects" slots after its fields: the most any instance has */
    uint8_t prim;      /* element type for primitive arrays */
    uint8_t array;
    uint32_t name_sid;
} cls;

/* Bytes written in order that may outgrow memory: kept in b until they pass a threshold, then
 * appended to an unlinked scratch file (fd) a few MB at a time. */
typedef struct spill {
    hk_buf b;
    int fd;       /* -1 while everything is in b */
    uint64_t off; /* bytes already in the file */
    int failed;   /* a write failed: err says why */
} spill;

typedef struct build {
    pf_trace *t;
    pf_graph *g;
    hk_buf *out; /* header, STRING and LOAD_CLASS records */
    spill heap;  /* heap sub-records, cut into segments at the end */
    uint64_t *cuts;
    size_t ncuts, capcuts;
    uint32_t idsz;
    cls *c;
    size_t nc, capc;
    int64_t *type_cls; /* type index -> class */
    int32_t *obj_cls;  /* object index -> class it is the class object of, else -2 - its class */
    hk_idmap type_map, field_map, unknown_map, str_map;
    char **strs;
    size_t nstrs, capstrs;
    uint32_t *field_sid; /* field-name index -> string id, 0 until interned */
    spill sizes;         /* body of HPROF_HK_OBJECT_SIZES */
    size_t spill_at;     /* bytes a spill keeps in memory */
    char err[256];       /* why a spill failed */
    uint32_t value_sid[PF_V_COUNT];
    uint64_t dropped, unknown_types;
    /* an instance's field slots, reused from object to object */
    uint64_t *slot;
    uint8_t *filled;
    size_t capslots;
} build;

static void put_u1(hk_buf *b, uint8_t v)
{
    hk_buf_append(b, &v, 1);
}
static void put_u2(hk_buf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    hk_buf_append(b, x, 2);
}
static void put_u4(hk_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    hk_buf_append(b, x, 4);
}
static void put_u8(hk_buf *b, uint64_t v)
{
    put_u4(b, (uint32_t)(v >> 32));
    put_u4(b, (uint32_t)v);
}
static void put_id(build *B, hk_buf *b, uint64_t v)
{
    if (B->idsz == 4) put_u4(b, (uint32_t)v);
    else put_u8(b, v);
}

static void record_head(hk_buf *b, uint8_t tag, uint32_t len)
{
    put_u1(b, tag);
    put_u4(b, 0);
    put_u4(b, len);
}

static uint64_t spill_len(const spill *sp)
{
    return sp->off + sp->b.len;
}

/* Moves what sp holds to its scratch file once it passes B->spill_at (and from then on). */
static void spill_flush(build *B, spill *sp, int force)
{
    size_t at = sp->fd < 0 || B->spill_at < (1u << 20) ? B->spill_at : (size_t)1 << 20;
    if (sp->failed || (!force && sp->b.len < at)) return;
    if (sp->fd < 0 && (sp->fd = hk_file_scratch(B->err, sizeof B->err)) < 0) {
        sp->failed = 1;
        return;
    }
    if (hk_file_write_fd(sp->fd, sp->b.data, sp->b.len, B->err, sizeof B->err) < 0) sp->failed = 1;
    sp->off += sp->b.len;
    /* from now on it holds at most about a MB: give the rest back */
    if (sp->b.cap > (2u << 20)) hk_buf_free(&sp->b);
    else hk_buf_reset(&sp->b);
}

/* Appends bytes [from, to) of sp to file fd. */
static int spill_copy(build *B, spill *sp, int fd, uint64_t from, uint64_t to)
{
    if (sp->fd < 0) return hk_file_write_fd(fd, sp->b.data + from, (size_t)(to - from), B->err, sizeof B->err);
    return hk_file_copy_range(fd, sp->fd, from, to - from, B->err, sizeof B->err);
}

/* A STRING record for s, once per distinct text; returns its id. */
static uint32_t intern(build *B, const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = s; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
    h |= 1;
    uint32_t *v = hk_idmap_get(&B->str_map, h);
    if (v && !strcmp(B->strs[*v - 1], s)) return *v;
    B->strs = hk_grow(B->strs, &B->capstrs, B->nstrs + 1, sizeof *B->strs);
    B->strs[B->nstrs++] = hk_xstrdup(s);
    uint32_t sid = (uint32_t)B->nstrs;
    int ins;
    if (!v) hk_idmap_put(&B->str_map, h, sid, &ins);
    size_t n = strlen(s);
    record_head(B->out, HPROF_STRING, (uint32_t)(B->idsz + n));
    put_id(B, B->out, sid);
    hk_buf_append(B->out, s, n);
    return sid;
}

/* "int com.a.B.field" -> "field": a field name is its declaring class's name, a dot and its
 * own name, sometimes after its type. */
static const char *short_field(const char *s)
{
    const char *sp = strrchr(s, ' ');
    if (sp) s = sp + 1;
    const char *dot = strrchr(s, '.');
    return dot ? dot + 1 : s;
}

static uint32_t field_sid(build *B, uint64_t iid)
{
    if (iid == PF_RUNTIME_FIELD) return intern(B, "runtimeInternalObjects");
    uint32_t *fi = hk_idmap_get(&B->field_map, iid + 1);
    if (!fi) {
        char tmp[40];
        snprintf(tmp, sizeof tmp, "field#%llu", (unsigned long long)iid);
        return intern(B, tmp);
    }
    if (!B->field_sid[*fi]) B->field_sid[*fi] = intern(B, short_field(B->g->fields[*fi].s));
    return B->field_sid[*fi];
}

static int64_t new_class(build *B, const char *name, int64_t type)
{
    B->c = hk_grow(B->c, &B->capc, B->nc + 1, sizeof *B->c);
    cls *c = &B->c[B->nc];
    memset(c, 0, sizeof *c);
    c->name = hk_xstrdup(name);
    c->type = type;
    c->obj = -1;
    c->super = -1;
    size_t n = strlen(name);
    if (n > 2 && !strcmp(name + n - 2, "[]")) {
        static const struct {
            const char *n;
            uint8_t t;
        } prims[] = {{"boolean[]", HK_T_BOOLEAN}, {"char[]", HK_T_CHAR}, {"float[]", HK_T_FLOAT},
                     {"double[]", HK_T_DOUBLE},   {"byte[]", HK_T_BYTE}, {"short[]", HK_T_SHORT},
                     {"int[]", HK_T_INT},         {"long[]", HK_T_LONG}};
        c->array = 1;
        for (size_t k = 0; k < sizeof prims / sizeof prims[0]; k++)
            if (!strcmp(name, prims[k].n)) c->prim = prims[k].t;
    } else if (type >= 0 && B->g->types[type].kind == KIND_ARRAY) {
        c->array = 1;
    }
    return (int64_t)B->nc++;
}

static int is_class_type(const pf_type *ty)
{
    return !strncmp(ty->name, "java.lang.Class<", 16) && ty->name[strlen(ty->name) - 1] == '>';
}

static const pf_type *type_of(build *B, uint64_t type_id, int64_t *ti)
{
    uint32_t *v = hk_idmap_get(&B->type_map, type_id + 1);
    *ti = v ? (int64_t)*v : -1;
    return v ? &B->g->types[*v] : NULL;
}

/* The class an instance or array of this type id belongs to; a type never defined gets a
 * class of its own named for its id (and a counted warning). */
static int64_t class_of_type(build *B, uint64_t type_id)
{
    int64_t ti;
    if (type_of(B, type_id, &ti)) return B->type_cls[ti];
    uint32_t *v = hk_idmap_get(&B->unknown_map, type_id + 1);
    if (v) return *v;
    char tmp[48];
    snprintf(tmp, sizeof tmp, "<undefined-type-%llu>", (unsigned long long)type_id);
    int64_t k = new_class(B, tmp, -1);
    int ins;
    hk_idmap_put(&B->unknown_map, type_id + 1, (uint32_t)k, &ins);
    pf_warn(B->t, "heap graph of pid %d: objects use type %llu, which it never defines: class \"%s\"", B->g->pid,
            (unsigned long long)type_id, tmp);
    return k;
}

typedef struct named {
    const char *name;
    uint32_t k;
} named;

static int by_name(const void *a, const void *b)
{
    int r = strcmp(((const named *)a)->name, ((const named *)b)->name);
    return r ? r : (((const named *)a)->k > ((const named *)b)->k) - (((const named *)a)->k < ((const named *)b)->k);
}

/* Classes: one per type that is not a class object's type; class objects ("java.lang.Class<X>")
 * bound to the first class named X without one, or to a class of their own. */
static void make_classes(build *B)
{
    pf_graph *g = B->g;
    B->type_cls = hk_xcalloc(g->ntypes ? g->ntypes : 1, sizeof *B->type_cls);
    for (size_t i = 0; i < g->ntypes; i++) {
        int ins;
        uint32_t *v = hk_idmap_put(&B->type_map, g->types[i].id + 1, (uint32_t)i, &ins);
        if (!ins)
            pf_warn(B->t, "heap graph of pid %d: type %llu is defined twice; the first definition is used", g->pid,
                    (unsigned long long)g->types[i].id);
        (void)v;
        B->type_cls[i] = is_class_type(&g->types[i]) ? -1 : new_class(B, g->types[i].name, (int64_t)i);
    }
    size_t ntyped = B->nc;
    named *order = hk_xcalloc(ntyped ? ntyped : 1, sizeof *order);
    for (size_t i = 0; i < ntyped; i++) order[i] = (named){B->c[i].name, (uint32_t)i};
    qsort(order, ntyped, sizeof *order, by_name);
    B->obj_cls = hk_xcalloc(g->nobjs ? g->nobjs : 1, sizeof *B->obj_cls);
    for (size_t oi = 0; oi < g->nobjs; oi++) {
        B->obj_cls[oi] = -1;
        int64_t ti;
        const pf_type *ty = type_of(B, pf_type_id(g, &g->objs[oi]), &ti);
        if (!ty || !is_class_type(ty)) continue;
        char *inner = hk_xstrndup(ty->name + 16, strlen(ty->name) - 17);
        size_t lo = 0, hi = ntyped;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (strcmp(order[mid].name, inner) < 0) lo = mid + 1;
            else hi = mid;
        }
        int64_t k = -1;
        for (; lo < ntyped && !strcmp(order[lo].name, inner); lo++)
            if (B->c[order[lo].k].obj < 0) {
                k = order[lo].k;
                break;
            }
        if (k < 0) k = new_class(B, inner, -1);
        free(inner);
        B->c[k].obj = (int64_t)oi;
        B->obj_cls[oi] = (int32_t)k;
    }
    free(order);
}

static void link_supers(build *B)
{
    pf_graph *g = B->g;
    for (size_t k = 0; k < B->nc; k++) {
        cls *c = &B->c[k];
        if (c->type < 0 || !g->types[c->type].superclass_id) continue;
        int64_t ti;
        const pf_type *st = type_of(B, g->types[c->type].superclass_id, &ti);
        if (!st || B->type_cls[ti] < 0) {
            pf_warn(B->t, "heap graph of pid %d: class %s names superclass type %llu, which it never defines", g->pid,
                    c->name, (unsigned long long)g->types[c->type].superclass_id);
            continue;
        }
        c->super = B->type_cls[ti];
    }
    /* older traces give no superclass_id: the class object's java.lang.Class.superClass
     * reference names the superclass's class object */
    hk_idmap by_obj;
    hk_idmap_init(&by_obj);
    for (size_t k = 0; k < B->nc; k++) {
        int ins;
        if (B->c[k].obj >= 0) hk_idmap_put(&by_obj, g->objs[B->c[k].obj].id, (uint32_t)k, &ins);
    }
    for (size_t k = 0; k < B->nc; k++) {
        cls *c = &B->c[k];
        if (c->super >= 0 || c->obj < 0 || !g->objs[c->obj].has_fields) continue;
        const pf_obj *o = &g->objs[c->obj];
        for (uint32_t r = 0; r < pf_nrefs(g, (size_t)c->obj); r++) {
            uint32_t *fi = hk_idmap_get(&B->field_map, pf_ref_field(g, (size_t)c->obj, r) + 1);
            const char *f = fi ? g->fields[*fi].s : "";
            size_t n = strlen(f);
            uint32_t *sk = hk_idmap_get(&by_obj, pf_ref(g, o->ref_start + r));
            if (n >= 26 && !strcmp(f + n - 26, "java.lang.Class.superClass") && sk && *sk != k) c->super = *sk;
        }
    }
    hk_idmap_free(&by_obj);
    for (size_t k = 0; k < B->nc; k++) {
        size_t steps = 0;
        int64_t s = B->c[k].super;
        while (s >= 0 && steps++ <= B->nc) s = B->c[s].super;
        if (steps > B->nc) {
            pf_warn(B->t, "heap graph of pid %d: class %s is in a superclass cycle: cut there", g->pid, B->c[k].name);
            B->c[k].super = -1;
        }
    }
}

/* Own fields: the type's reference fields; an old trace gives none on the type but names each
 * object's fields, so the type gets the fields its instances name, in first-seen order.
 * Then the recorded values every instance of the type has. */
static void make_fields(build *B)
{
    pf_graph *g = B->g;
    uint32_t *count = hk_xcalloc(B->nc ? B->nc : 1, sizeof *count);
    uint32_t(*vcount)[PF_V_COUNT] = hk_xcalloc(B->nc ? B->nc : 1, sizeof *vcount);
    for (size_t oi = 0; oi < g->nobjs; oi++) {
        if (B->obj_cls[oi] >= 0) continue;
        int64_t k = -2 - B->obj_cls[oi];
        count[k]++;
        for (int v = 0; v < PF_V_COUNT; v++)
            if (g->objs[oi].values >> v & 1) vcount[k][v]++;
        cls *c = &B->c[k];
        uint32_t nrt = 0;
        const uint32_t *rt = hk_idmap_get(&g->runtime_count, (uint64_t)oi + 1);
        nrt = rt ? *rt : 0;
        if (!c->array && nrt > c->nruntime) c->nruntime = nrt;
        if (c->array || !g->objs[oi].has_fields || (c->type >= 0 && g->types[c->type].nfields)) continue;
        uint32_t nr = pf_nrefs(g, oi);
        for (uint32_t r = 0; r < nr; r++) {
            uint64_t f = pf_ref_field(g, oi, r);
            uint32_t j = 0;
            while (j < c->nfields && c->fields[j] != f) j++;
            if (j < c->nfields || f == PF_RUNTIME_FIELD) continue;
            c->fields = hk_xrealloc(c->fields, (c->nfields + 1) * sizeof *c->fields);
            c->fields[c->nfields++] = f;
        }
    }
    for (size_t k = 0; k < B->nc; k++) {
        cls *c = &B->c[k];
        if (c->type >= 0 && g->types[c->type].nfields) {
            c->nfields = g->types[c->type].nfields;
            c->fields = hk_xcalloc(c->nfields, sizeof *c->fields);
            memcpy(c->fields, g->types[c->type].fields, c->nfields * sizeof *c->fields);
        }
        /* a class record holds at most 65535 fields */
        if (c->nfields + c->nruntime > 65535 - PF_V_COUNT) {
            pf_warn(B->t, "heap graph of pid %d: class %s has %u fields; those past %u are dropped", g->pid, c->name,
                    c->nfields + c->nruntime, 65535 - PF_V_COUNT);
            if (c->nfields > 65535 - PF_V_COUNT) c->nfields = 65535 - PF_V_COUNT;
            c->nruntime = 65535 - PF_V_COUNT - c->nfields;
        }
        for (int v = 0; v < PF_V_COUNT; v++)
            if (count[k] && vcount[k][v] == count[k] && !c->array) c->values |= (uint8_t)(1u << v);
        /* a value only some instances have would read as 0 on the others: leave it absent */
        for (int v = 0; v < PF_V_COUNT; v++)
            if (vcount[k][v] && vcount[k][v] != count[k])
                pf_warn(B->t, "heap graph of pid %d: %u of %u %s objects record %s: left absent on all", g->pid,
                        vcount[k][v], count[k], c->name, value_field[v].name);
    }
    free(count);
    free(vcount);
}

/* ids: the graph's own, and for classes without a class object ids above all of them */
static void assign_ids(build *B)
{
    pf_graph *g = B->g;
    uint64_t max = 0;
    for (size_t i = 0; i < g->nobjs; i++)
        if (g->objs[i].id > max) max = g->objs[i].id;
    for (size_t i = 0; i < g->nobjs; i++) {
        const uint32_t *rt = hk_idmap_get(&g->runtime_count, (uint64_t)i + 1);
        uint32_t n = pf_nrefs(g, i) - (rt ? *rt : 0);
        for (uint32_t r = 0; r < n; r++)
            if (pf_ref(g, g->objs[i].ref_start + r) > max) max = pf_ref(g, g->objs[i].ref_start + r);
    }
    for (size_t i = 0; i < g->nroots; i++)
        if (g->roots[i].id > max) max = g->roots[i].id;
    for (size_t i = 0; i < g->ntypes; i++)
        if (g->types[i].classloader_id > max) max = g->types[i].classloader_id;
    uint64_t next = (max | 7) + 1, nsyn = 0;
    for (size_t k = 0; k < B->nc; k++)
        if (B->c[k].obj < 0) nsyn++;
    B->idsz = next + nsyn * 8 <= UINT32_MAX ? 4 : 8;
    for (size_t k = 0; k < B->nc; k++) {
        cls *c = &B->c[k];
        if (c->obj >= 0) c->id = g->objs[c->obj].id;
        else {
            c->id = next;
            next += 8;
        }
    }
}

static uint64_t self_size(build *B, const pf_obj *o)
{
    if (o->has_size) return pf_self_size(B->g, (size_t)(o - B->g->objs));
    int64_t ti;
    const pf_type *ty = type_of(B, pf_type_id(B->g, o), &ti);
    return ty ? ty->object_size : 0;
}

static uint32_t class_size(build *B, const cls *c)
{
    uint64_t s = c->type >= 0 ? B->g->types[c->type].object_size : 0;
    return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

static void note_size(build *B, uint64_t id, uint64_t recorded, uint64_t real)
{
    if (recorded == real) return;
    put_id(B, &B->sizes.b, id);
    put_u8(&B->sizes.b, real);
}

/* After each sub-record: a segment ends every ~64 MB, and what grew past the threshold spills. */
static void mark_cut(build *B)
{
    spill_flush(B, &B->heap, 0);
    spill_flush(B, &B->sizes, 0);
    uint64_t last = B->ncuts ? B->cuts[B->ncuts - 1] : 0;
    if (spill_len(&B->heap) - last < (64u << 20)) return;
    B->cuts = hk_grow(B->cuts, &B->capcuts, B->ncuts + 1, sizeof *B->cuts);
    B->cuts[B->ncuts++] = spill_len(&B->heap);
}

static const pf_value *first_value(const pf_graph *g, uint32_t oi)
{
    size_t lo = 0, hi = g->nvals;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g->vals[mid].obj < oi) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->nvals && g->vals[lo].obj == oi ? &g->vals[lo] : NULL;
}

static void class_dump(build *B, cls *c)
{
    pf_graph *g = B->g;
    hk_buf *h = &B->heap.b;
    const pf_obj *o = c->obj >= 0 ? &g->objs[c->obj] : NULL;
    put_u1(h, HPROF_CLASS_DUMP);
    put_id(B, h, c->id);
    put_u4(h, 0);
    put_id(B, h, c->super >= 0 ? B->c[c->super].id : 0);
    put_id(B, h, c->type >= 0 ? g->types[c->type].classloader_id : 0);
    for (int k = 0; k < 4; k++) put_id(B, h, 0);
    put_u4(h, class_size(B, c));
    put_u2(h, 0);
    /* the class object's references are its static fields */
    size_t oi = o ? (size_t)(o - g->objs) : 0;
    uint32_t ns = o ? pf_nrefs(g, oi) : 0;
    if (ns > 65535) {
        B->dropped += ns - 65535;
        ns = 65535;
    }
    put_u2(h, (uint16_t)ns);
    for (uint32_t r = 0; r < ns; r++) {
        uint64_t f = pf_ref_field(g, oi, r);
        char tmp[24];
        snprintf(tmp, sizeof tmp, "static%u", r);
        put_id(B, h, o->has_fields || f == PF_RUNTIME_FIELD ? field_sid(B, f) : intern(B, tmp));
        put_u1(h, HK_T_OBJECT);
        put_id(B, h, pf_ref(g, o->ref_start + r));
    }
    uint32_t nf = c->nfields + c->nruntime;
    for (int v = 0; v < PF_V_COUNT; v++) nf += c->values >> v & 1;
    put_u2(h, (uint16_t)nf);
    for (uint32_t k = 0; k < c->nfields + c->nruntime; k++) {
        put_id(B, h, field_sid(B, k < c->nfields ? c->fields[k] : PF_RUNTIME_FIELD));
        put_u1(h, HK_T_OBJECT);
    }
    for (int v = 0; v < PF_V_COUNT; v++) {
        if (!(c->values >> v & 1)) continue;
        if (!B->value_sid[v]) B->value_sid[v] = intern(B, value_field[v].name);
        put_id(B, h, B->value_sid[v]);
        put_u1(h, value_field[v].type);
    }
    if (o) note_size(B, c->id, (uint64_t)ns * B->idsz, self_size(B, o));
    mark_cut(B);
}

/* The flattened layout of c: each class's reference fields then its values, most derived first.
 * Returns its bytes; *nslots reference slots, cleared (B->slot, B->filled) for the object. */
static uint32_t layout_slots(build *B, const cls *c, uint32_t *nslots)
{
    uint32_t n = 0, bytes = 0;
    for (int64_t k = c - B->c; k >= 0; k = B->c[k].super) {
        n += B->c[k].nfields + B->c[k].nruntime;
        bytes += (B->c[k].nfields + B->c[k].nruntime) * B->idsz;
        for (int v = 0; v < PF_V_COUNT; v++)
            if (B->c[k].values >> v & 1) bytes += value_field[v].type == HK_T_INT ? 4 : 8;
    }
    if (n > B->capslots) {
        B->capslots = n * 2;
        B->slot = hk_xrealloc(B->slot, B->capslots * sizeof *B->slot);
        B->filled = hk_xrealloc(B->filled, B->capslots);
    }
    if (n) {
        memset(B->slot, 0, n * sizeof *B->slot);
        memset(B->filled, 0, n);
    }
    *nslots = n;
    return bytes;
}

/* The slot of the object's r-th reference (field f): by field name when the graph names them,
 * else in layout order (runtime slots skipped); UINT32_MAX when there is none. */
static uint32_t ref_slot(const build *B, const cls *c, const pf_obj *o, uint32_t r, uint64_t f)
{
    uint32_t base = 0;
    if (o->has_fields || f == PF_RUNTIME_FIELD) {
        for (int64_t k = c - B->c; k >= 0; k = B->c[k].super) {
            const cls *kc = &B->c[k];
            for (uint32_t j = 0; j < kc->nfields + kc->nruntime; j++)
                if ((j < kc->nfields ? kc->fields[j] : PF_RUNTIME_FIELD) == f && !B->filled[base + j]) return base + j;
            base += kc->nfields + kc->nruntime;
        }
        return UINT32_MAX;
    }
    uint32_t pos = r;
    for (int64_t k = c - B->c; k >= 0; k = B->c[k].super) {
        if (pos < B->c[k].nfields) return base + pos;
        pos -= B->c[k].nfields;
        base += B->c[k].nfields + B->c[k].nruntime;
    }
    return UINT32_MAX;
}

static void instance_dump(build *B, uint32_t oi, cls *c)
{
    pf_graph *g = B->g;
    const pf_obj *o = &g->objs[oi];
    uint32_t nslots;
    uint32_t bytes = layout_slots(B, c, &nslots);
    uint32_t nr = pf_nrefs(g, oi);
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t s = ref_slot(B, c, o, r, pf_ref_field(g, oi, r));
        if (s == UINT32_MAX) {
            B->dropped++;
            continue;
        }
        B->slot[s] = pf_ref(g, o->ref_start + r);
        B->filled[s] = 1;
    }
    hk_buf *h = &B->heap.b;
    put_u1(h, HPROF_INSTANCE_DUMP);
    put_id(B, h, o->id);
    put_u4(h, 0);
    put_id(B, h, c->id);
    put_u4(h, bytes);
    const pf_value *vals = first_value(g, oi);
    uint32_t base = 0;
    for (int64_t k = c - B->c; k >= 0; k = B->c[k].super) {
        for (uint32_t j = 0; j < B->c[k].nfields + B->c[k].nruntime; j++) put_id(B, h, B->slot[base + j]);
        base += B->c[k].nfields + B->c[k].nruntime;
        for (int v = 0; v < PF_V_COUNT; v++) {
            if (!(B->c[k].values >> v & 1)) continue;
            int64_t x = 0;
            for (const pf_value *p = vals; p && p < g->vals + g->nvals && p->obj == oi; p++)
                if (p->kind == v) x = p->v;
            if (value_field[v].type == HK_T_INT) put_u4(h, (uint32_t)x);
            else put_u8(h, (uint64_t)x);
        }
    }
    note_size(B, o->id, class_size(B, c), self_size(B, o));
    mark_cut(B);
}

static void array_dump(build *B, uint32_t oi, cls *c)
{
    pf_graph *g = B->g;
    const pf_obj *o = &g->objs[oi];
    hk_buf *h = &B->heap.b;
    uint64_t real = self_size(B, o), head = class_size(B, c);
    if (c->prim) {
        /* no contents in a heap graph: the length is what the size leaves after the header */
        static const uint8_t esz[12] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};
        uint64_t n = real > head ? (real - head) / esz[c->prim] : 0;
        if (n > UINT32_MAX) n = UINT32_MAX;
        put_u1(h, HPROF_PRIM_ARRAY_NODATA);
        put_id(B, h, o->id);
        put_u4(h, 0);
        put_u4(h, (uint32_t)n);
        put_u1(h, c->prim);
        note_size(B, o->id, n * esz[c->prim] + head, real);
    } else {
        uint32_t n = 0, nr = pf_nrefs(g, oi);
        for (uint32_t r = 0; r < nr; r++) n += pf_ref_field(g, oi, r) != PF_RUNTIME_FIELD;
        put_u1(h, HPROF_OBJ_ARRAY_DUMP);
        put_id(B, h, o->id);
        put_u4(h, 0);
        put_u4(h, n);
        put_id(B, h, c->id);
        for (uint32_t r = 0; r < nr; r++)
            if (pf_ref_field(g, oi, r) != PF_RUNTIME_FIELD) put_id(B, h, pf_ref(g, o->ref_start + r));
            else B->dropped++;
        note_size(B, o->id, (uint64_t)n * B->idsz + head, real);
    }
    mark_cut(B);
}

static void roots(build *B)
{
    /* HeapGraphRoot.Type in order -> the HPROF sub-record tag */
    static const uint8_t tag[15] = {HPROF_ROOT_UNKNOWN,           HPROF_ROOT_JNI_GLOBAL,   HPROF_ROOT_JNI_LOCAL,
                                    HPROF_ROOT_JAVA_FRAME,        HPROF_ROOT_NATIVE_STACK, HPROF_ROOT_STICKY_CLASS,
                                    HPROF_ROOT_THREAD_BLOCK,      HPROF_ROOT_MONITOR_USED, HPROF_ROOT_THREAD_OBJECT,
                                    HPROF_ROOT_INTERNED_STRING,   HPROF_ROOT_FINALIZING,   HPROF_ROOT_DEBUGGER,
                                    HPROF_ROOT_REFERENCE_CLEANUP, HPROF_ROOT_VM_INTERNAL,  HPROF_ROOT_JNI_MONITOR};
    hk_buf *h = &B->heap.b;
    for (size_t i = 0; i < B->g->nroots; i++) {
        int t = B->g->roots[i].type;
        uint8_t tg = t >= 0 && t < 15 ? tag[t] : HPROF_ROOT_UNKNOWN;
        put_u1(h, tg);
        put_id(B, h, B->g->roots[i].id);
        switch (tg) {
        case HPROF_ROOT_JNI_GLOBAL: put_id(B, h, 0); break;
        case HPROF_ROOT_JNI_LOCAL:
        case HPROF_ROOT_JAVA_FRAME:
        case HPROF_ROOT_JNI_MONITOR:
        case HPROF_ROOT_THREAD_OBJECT:
            put_u4(h, 0);
            put_u4(h, 0);
            break;
        case HPROF_ROOT_NATIVE_STACK:
        case HPROF_ROOT_THREAD_BLOCK: put_u4(h, 0); break;
        default: break;
        }
    }
    /* ART's GC never frees what the zygote and the boot image hold, and Perfetto counts those
     * objects as VM-internal roots; a graph converted from an HPROF keeps the HPROF's roots */
    if (B->t->from_hprof) return;
    for (size_t i = 0; i < B->g->nobjs; i++) {
        if (B->g->objs[i].heap != 2 && B->g->objs[i].heap != 3) continue;
        put_u1(h, HPROF_ROOT_VM_INTERNAL);
        put_id(B, h, B->g->objs[i].id);
    }
}

static void objects_of_heap(build *B, int heap)
{
    static const struct {
        uint32_t id;
        const char *name;
    } heaps[4] = {{0, NULL}, {'A', "app"}, {'Z', "zygote"}, {'I', "image"}};
    pf_graph *g = B->g;
    int any = 0;
    for (size_t oi = 0; oi < g->nobjs && !any; oi++) any = g->objs[oi].heap == heap;
    if (!any) return;
    if (heap > 0 && heap < 4) {
        uint32_t sid = intern(B, heaps[heap].name);
        put_u1(&B->heap.b, HPROF_HEAP_DUMP_INFO);
        put_u4(&B->heap.b, heaps[heap].id);
        put_id(B, &B->heap.b, sid);
    }
    for (size_t oi = 0; oi < g->nobjs; oi++) {
        if (g->objs[oi].heap != heap) continue;
        if (B->obj_cls[oi] >= 0) {
            class_dump(B, &B->c[B->obj_cls[oi]]);
            continue;
        }
        cls *c = &B->c[-2 - B->obj_cls[oi]];
        if (c->array) array_dump(B, (uint32_t)oi, c);
        else instance_dump(B, (uint32_t)oi, c);
    }
}

static void build_free(build *B)
{
    for (size_t k = 0; k < B->nc; k++) {
        free(B->c[k].name);
        free(B->c[k].fields);
        free(B->c[k].fsid);
    }
    free(B->c);
    free(B->type_cls);
    free(B->obj_cls);
    hk_idmap_free(&B->type_map);
    hk_idmap_free(&B->field_map);
    hk_idmap_free(&B->unknown_map);
    hk_idmap_free(&B->str_map);
    for (size_t i = 0; i < B->nstrs; i++) free(B->strs[i]);
    free(B->strs);
    free(B->field_sid);
    free(B->cuts);
    free(B->slot);
    free(B->filled);
    hk_buf_free(&B->heap.b);
    hk_buf_free(&B->sizes.b);
    if (B->heap.fd >= 0) close(B->heap.fd);
    if (B->sizes.fd >= 0) close(B->sizes.fd);
}

/* The reference kinds of soft, weak, finalizer and phantom classes (HPROF_HK_REF_KINDS's body). */
static void ref_kinds(build *B, hk_buf *kinds)
{
    for (size_t k = 0; k < B->nc; k++) {
        int kind = B->c[k].type >= 0 ? B->g->types[B->c[k].type].kind : 0;
        if (kind < KIND_SOFT || kind > KIND_PHANTOM) continue;
        put_id(B, kinds, B->c[k].id);
        put_u1(kinds, (uint8_t)(kind == KIND_SOFT        ? HK_REF_SOFT
                                : kind == KIND_WEAK      ? HK_REF_WEAK
                                : kind == KIND_FINALIZER ? HK_REF_FINALIZER
                                                         : HK_REF_PHANTOM));
    }
}

/* Appends the records after the strings and classes: the heap in segments of at most ~64 MB
 * (cut between sub-records), its end, object sizes and reference kinds.  Into out when
 * everything stayed in memory (fd < 0), else to fd after out's bytes. */
static int assemble(build *B, hk_buf *out, int fd)
{
    hk_buf kinds, head;
    hk_buf_init(&kinds);
    hk_buf_init(&head);
    ref_kinds(B, &kinds);
    int rc = fd < 0 ? 0 : hk_file_write_fd(fd, out->data, out->len, B->err, sizeof B->err);
    uint64_t start = 0, end, total = spill_len(&B->heap);
    for (size_t i = 0; i <= B->ncuts && rc == 0; i++, start = end) {
        end = i < B->ncuts ? B->cuts[i] : total;
        if (end == start && i < B->ncuts) continue;
        hk_buf *h = fd < 0 ? out : &head;
        hk_buf_reset(&head);
        record_head(h, HPROF_HEAP_DUMP_SEGMENT, (uint32_t)(end - start));
        if (fd < 0) {
            if (end > start) hk_buf_append(out, B->heap.b.data + start, (size_t)(end - start));
            continue;
        }
        rc = hk_file_write_fd(fd, head.data, head.len, B->err, sizeof B->err);
        if (rc == 0 && end > start) rc = spill_copy(B, &B->heap, fd, start, end);
    }
    hk_buf_reset(&head);
    hk_buf *h = fd < 0 ? out : &head;
    record_head(h, HPROF_HEAP_DUMP_END, 0);
    uint64_t nsizes = spill_len(&B->sizes);
    if (nsizes) record_head(h, HPROF_HK_OBJECT_SIZES, (uint32_t)nsizes);
    if (fd < 0) {
        if (nsizes) hk_buf_append(out, B->sizes.b.data, B->sizes.b.len);
    } else if (rc == 0) {
        rc = hk_file_write_fd(fd, head.data, head.len, B->err, sizeof B->err);
        if (rc == 0 && nsizes) rc = spill_copy(B, &B->sizes, fd, 0, nsizes);
        hk_buf_reset(&head);
    }
    if (kinds.len) {
        record_head(h, HPROF_HK_REF_KINDS, (uint32_t)kinds.len);
        hk_buf_append(h, kinds.data, kinds.len);
    }
    if (fd >= 0 && rc == 0 && head.len) rc = hk_file_write_fd(fd, head.data, head.len, B->err, sizeof B->err);
    hk_buf_free(&kinds);
    hk_buf_free(&head);
    return rc;
}

static void write_header(build *B, hk_buf *out)
{
    static const char head[] = "JAVA PROFILE 1.0.3";
    hk_buf_append(out, head, sizeof head);
    put_u4(out, B->idsz);
    put_u8(out, B->g->ts / 1000000);
    for (size_t k = 0; k < B->nc; k++) {
        uint32_t sid = intern(B, B->c[k].name);
        record_head(out, HPROF_LOAD_CLASS, 8 + 2 * B->idsz);
        put_u4(out, (uint32_t)k + 1);
        put_id(B, out, B->c[k].id);
        put_u4(out, 0);
        put_id(B, out, sid);
    }
}

static void build_init(build *B, pf_trace *t, pf_graph *g, hk_buf *out)
{
    memset(B, 0, sizeof *B);
    B->t = t;
    B->g = g;
    B->out = out;
    B->heap.fd = B->sizes.fd = -1;
    const char *at = getenv("HPROFKIT_SPILL_BYTES"); /* tests: spill small graphs too */
    B->spill_at = at && *at ? (size_t)strtoull(at, NULL, 10) : (size_t)4 << 20;
    hk_idmap_init(&B->type_map);
    hk_idmap_init(&B->field_map);
    hk_idmap_init(&B->unknown_map);
    hk_idmap_init(&B->str_map);
    for (size_t i = 0; i < g->nfields; i++) {
        int ins;
        hk_idmap_put(&B->field_map, g->fields[i].iid + 1, (uint32_t)i, &ins);
        if (!ins) *hk_idmap_get(&B->field_map, g->fields[i].iid + 1) = (uint32_t)i; /* the last one holds */
    }
    B->field_sid = hk_xcalloc(g->nfields ? g->nfields : 1, sizeof *B->field_sid);
}

int pf_graph_to_hprof(pf_trace *t, pf_graph *g, hk_buf *out, int *out_fd, char *err, size_t errlen)
{
    build B;
    build_init(&B, t, g, out);
    *out_fd = -1;
    make_classes(&B);
    /* every other object's class, as -2 - class (classes for undefined types are made here,
     * before ids are given) */
    for (size_t oi = 0; oi < g->nobjs; oi++)
        if (B.obj_cls[oi] < 0) B.obj_cls[oi] = (int32_t)(-2 - class_of_type(&B, pf_type_id(g, &g->objs[oi])));
    link_supers(&B);
    make_fields(&B);
    assign_ids(&B);
    write_header(&B, out);
    roots(&B);
    for (size_t k = 0; k < B.nc; k++)
        if (B.c[k].obj < 0) class_dump(&B, &B.c[k]);
    for (int heap = 0; heap < 4; heap++) objects_of_heap(&B, heap);
    if (B.dropped)
        pf_warn(t, "heap graph of pid %d: %llu references matched no field of their object's class and were dropped",
                g->pid, (unsigned long long)B.dropped);
    /* a graph too big for memory goes to a scratch file, which the index maps */
    int fd = -1, rc = B.heap.failed || B.sizes.failed ? -1 : 0;
    if (rc == 0 && (B.heap.fd >= 0 || B.sizes.fd >= 0)) {
        spill_flush(&B, &B.heap, 1);
        spill_flush(&B, &B.sizes, 1);
        fd = hk_file_scratch(B.err, sizeof B.err);
        rc = fd < 0 || B.heap.failed || B.sizes.failed ? -1 : 0;
    }
    if (rc == 0) rc = assemble(&B, out, fd);
    if (rc == 0 && fd >= 0) {
        hk_buf_free(out);
        *out_fd = fd;
    } else if (fd >= 0) {
        close(fd);
    }
    if (rc < 0) snprintf(err, errlen, "heap graph of pid %d: %s", g->pid, B.err);
    build_free(&B);
    return rc;
}
