/* Classes: CLASS_DUMP records parsed after the pass, names, field layouts. */
#include "hprof/hprof.h"
#include "util/hk_hash.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"
#include "hprof/hprof_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *hk_arena_strdup(hk_dump *d, const char *s, size_t n)
{
    if (d->arena_used + n + 1 > d->arena_cap) {
        size_t cap = n + 1 > 65536 ? n + 1 : 65536;
        char *blk = hk_xrealloc(NULL, cap);
        d->arena = hk_xrealloc(d->arena, (d->narena + 1) * sizeof *d->arena);
        d->arena[d->narena++] = blk;
        d->arena_used = 0;
        d->arena_cap = cap;
    }
    char *dst = d->arena[d->narena - 1] + d->arena_used;
    if (n) memcpy(dst, s, n); /* an empty name may come as NULL (an empty buffer) */
    dst[n] = 0;
    d->arena_used += n + 1;
    return dst;
}

const char *hk_string_by_id(hk_dump *d, hk_id sid, uint32_t *len)
{
    uint64_t body;
    if (!hk_idtab_get(&d->strings, sid, &body)) return NULL;
    uint32_t reclen = hk_be32(d->view.data + body - 4);
    *len = reclen - d->view.id_size;
    return (const char *)d->view.data + body + d->view.id_size;
}

static const char *prim_name(char c)
{
    switch (c) {
    case 'Z': return "boolean";
    case 'C': return "char";
    case 'F': return "float";
    case 'D': return "double";
    case 'B': return "byte";
    case 'S': return "short";
    case 'I': return "int";
    case 'J': return "long";
    default: return NULL;
    }
}

/* Java source name from a VM name: java/lang/String, [Ljava/lang/Object;, [[B. */
static const char *java_name(hk_dump *d, const char *s, size_t n)
{
    hk_buf b;
    hk_buf_init(&b);
    size_t dims = 0;
    while (dims < n && s[dims] == '[') dims++;
    if (dims) {
        if (dims + 1 == n && prim_name(s[dims])) hk_buf_puts(&b, prim_name(s[dims]));
        else if (s[dims] == 'L' && s[n - 1] == ';') hk_buf_append(&b, s + dims + 1, n - dims - 2);
        else hk_buf_append(&b, s + dims, n - dims);
    } else {
        hk_buf_append(&b, s, n);
    }
    for (size_t i = 0; i < b.len; i++)
        if (b.data[i] == '/') b.data[i] = '.';
    for (size_t i = 0; i < dims; i++) hk_buf_puts(&b, "[]");
    const char *r = hk_arena_strdup(d, (const char *)b.data, b.len);
    hk_buf_free(&b);
    return r;
}

static const char *name_of_sid(hk_dump *d, hk_id sid)
{
    uint32_t len;
    const char *s = hk_string_by_id(d, sid, &len);
    return s ? hk_arena_strdup(d, s, len) : "<unnamed>";
}

static int prim_type_of_array_name(const char *name)
{
    static const struct {
        const char *n;
        int t;
    } map[] = {{"boolean[]", HK_T_BOOLEAN}, {"char[]", HK_T_CHAR},   {"float[]", HK_T_FLOAT}, {"double[]", HK_T_DOUBLE},
               {"byte[]", HK_T_BYTE},       {"short[]", HK_T_SHORT}, {"int[]", HK_T_INT},     {"long[]", HK_T_LONG}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(name, map[i].n)) return map[i].t;
    return 0;
}

/* The heap range holding off: the last starting at or before it (-1: none does). */
static int64_t range_of_offset(const hk_dump *d, uint64_t off)
{
    uint32_t lo = 0, hi = d->nheap_ranges;
    if (!hi || d->heap_ranges[0].offset > off) return -1;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (d->heap_ranges[mid].offset <= off) lo = mid;
        else hi = mid;
    }
    return lo;
}

static int heap_of_offset(const hk_dump *d, uint64_t off)
{
    int64_t k = range_of_offset(d, off);
    return k < 0 ? -1 : d->heap_ranges[k].heap;
}

int hk_obj_heap(const hk_dump *d, uint32_t i)
{
    return heap_of_offset(d, hk_obj_offset(d, i));
}

int hk_heap_at(const hk_dump *d, uint64_t off, uint64_t *lo, uint64_t *hi)
{
    int64_t k = range_of_offset(d, off);
    *lo = k < 0 ? 0 : d->heap_ranges[k].offset;
    *hi = k + 1 < (int64_t)d->nheap_ranges ? d->heap_ranges[k + 1].offset : UINT64_MAX;
    return k < 0 ? -1 : d->heap_ranges[k].heap;
}

static int parse_class(hk_dump *d, hk_class *c, uint64_t off, char *err, size_t errlen)
{
    const uint32_t idsz = d->view.id_size;
    const uint8_t *r = d->view.data + off;
    c->id = hk_be_id(d, r + 1);
    c->super_id = hk_be_id(d, r + 1 + idsz + 4);
    c->loader_id = hk_be_id(d, r + 1 + 2 * idsz + 4);
    const uint8_t *q = r + 1 + idsz + 4 + 6 * idsz;
    c->instance_size = hk_be32(q);
    q += 4;
    uint16_t ncp = hk_be16(q);
    q += 2;
    for (uint16_t i = 0; i < ncp; i++) q += 3 + hk_type_size(d, q[2]);
    c->nstatics = hk_be16(q);
    q += 2;
    c->statics = hk_xcalloc(c->nstatics, sizeof *c->statics);
    for (uint16_t i = 0; i < c->nstatics; i++) {
        hk_static *s = &c->statics[i];
        s->name = s->obf_name = name_of_sid(d, hk_be_id(d, q));
        s->type = q[idsz];
        hk_read_value(d, q + idsz + 1, s->type, &s->value);
        c->static_bytes += (uint64_t)hk_type_size(d, s->type);
        q += idsz + 1 + hk_type_size(d, s->type);
    }
    c->nfields = hk_be16(q);
    q += 2;
    c->fields = hk_xcalloc(c->nfields, sizeof *c->fields);
    uint32_t o = 0;
    for (uint16_t i = 0; i < c->nfields; i++) {
        hk_field *f = &c->fields[i];
        f->name = f->obf_name = name_of_sid(d, hk_be_id(d, q));
        f->type = q[idsz];
        f->offset = o;
        o += (uint32_t)hk_type_size(d, f->type);
        q += idsz + 1;
    }
    c->own_fields_size = o;
    uint64_t sid;
    if (hk_idtab_get(&d->load_names, c->id, &sid)) {
        uint32_t len;
        const char *s = hk_string_by_id(d, sid, &len);
        c->name = s ? java_name(d, s, len) : NULL;
    }
    if (!c->name) {
        char tmp[40];
        snprintf(tmp, sizeof tmp, "class@0x%llx", (unsigned long long)c->id);
        c->name = hk_arena_strdup(d, tmp, strlen(tmp));
    }
    c->obf_name = c->name;
    int h = heap_of_offset(d, off);
    c->heap = (uint8_t)(h < 0 ? 0 : h);
    (void)err;
    (void)errlen;
    return 0;
}

int hk_classes_build(hk_dump *d, const uint64_t *offs, size_t n, char *err, size_t errlen)
{
    d->view.classes = hk_xcalloc(n, sizeof *d->view.classes);
    d->view.nclasses = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        hk_class *c = &d->view.classes[i];
        c->index = (uint32_t)i;
        if (parse_class(d, c, offs[i], err, errlen) < 0) return -1;
        int ins;
        hk_idmap_put(&d->view.class_by_id, c->id, (uint32_t)i, &ins);
        c->object = hk_obj_find(d, c->id);
        int t = prim_type_of_array_name(c->name);
        if (t && d->view.prim_array_class[t] == HK_NONE) d->view.prim_array_class[t] = (uint32_t)i;
    }
    d->view.class_class = d->view.string_class = HK_NONE;
    for (size_t i = 0; i < n; i++) {
        hk_class *c = &d->view.classes[i];
        if (!strcmp(c->name, "java.lang.Class")) d->view.class_class = (uint32_t)i;
        if (!strcmp(c->name, "java.lang.String")) d->view.string_class = (uint32_t)i;
        c->super = HK_NONE;
        if (c->super_id) {
            uint32_t *s = hk_idmap_get(&d->view.class_by_id, c->super_id);
            if (!s) {
                snprintf(err, errlen,
                         "%s: at offset %llu: class %s names superclass 0x%llx, which is not in the dump (an id that "
                         "points nowhere)",
                         d->path, (unsigned long long)offs[i], c->name, (unsigned long long)c->super_id);
                return -1;
            }
            c->super = *s;
        }
    }
    hk_class_names_index(d);
    /* a superclass cycle would make every layout walk loop forever */
    for (size_t i = 0; i < n; i++) {
        uint32_t k = d->view.classes[i].super, steps = 0;
        while (k != HK_NONE && steps++ <= n) k = d->view.classes[k].super;
        if (steps > n) {
            snprintf(err, errlen, "%s: at offset %llu: class %s has a superclass cycle", d->path,
                     (unsigned long long)offs[i], d->view.classes[i].name);
            return -1;
        }
    }
    return 0;
}

hk_class *hk_class_by_id(const hk_dump *d, hk_id id)
{
    uint32_t *i = hk_idmap_get(&d->view.class_by_id, id);
    return i ? &d->view.classes[*i] : NULL;
}

static uint32_t name_slot(const char *name, uint32_t cap)
{
    return (uint32_t)hk_hash_bytes(name, strlen(name), 0) & (cap - 1);
}

/* The first class (lowest index) of each name gets the slot: the one a scan in class order
 * finds. */
static void index_names(hk_dump *d, uint32_t *tab, int obf)
{
    for (uint32_t k = 0; k < d->names_cap; k++) tab[k] = HK_NONE;
    for (uint32_t i = 0; i < d->view.nclasses; i++) {
        const char *name = obf ? d->view.classes[i].obf_name : d->view.classes[i].name;
        uint32_t k = name_slot(name, d->names_cap);
        for (; tab[k] != HK_NONE; k = (k + 1) & (d->names_cap - 1)) {
            const hk_class *c = &d->view.classes[tab[k]];
            if (!strcmp(obf ? c->obf_name : c->name, name)) break;
        }
        if (tab[k] == HK_NONE) tab[k] = i;
    }
}

void hk_class_names_index(hk_dump *d)
{
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)d->view.nclasses) cap *= 2;
    if (cap != d->names_cap) {
        free(d->by_name);
        free(d->by_obf_name);
        d->by_name = hk_xmalloc((size_t)cap * sizeof *d->by_name);
        d->by_obf_name = hk_xmalloc((size_t)cap * sizeof *d->by_obf_name);
        d->names_cap = cap;
    }
    index_names(d, d->by_name, 0);
    index_names(d, d->by_obf_name, 1);
}

static hk_class *find_name(const hk_dump *d, const uint32_t *tab, int obf, const char *name)
{
    for (uint32_t k = name_slot(name, d->names_cap); tab[k] != HK_NONE; k = (k + 1) & (d->names_cap - 1)) {
        hk_class *c = &d->view.classes[tab[k]];
        if (!strcmp(obf ? c->obf_name : c->name, name)) return c;
    }
    return NULL;
}

hk_class *hk_class_by_name(const hk_dump *d, const char *name)
{
    if (!d->names_cap) return NULL;
    hk_class *c = find_name(d, d->by_name, 0, name);
    return c ? c : find_name(d, d->by_obf_name, 1, name); /* the dump's name, when a map renamed it */
}

const hk_field *hk_class_layout(hk_dump *d, hk_class *c, uint32_t *n)
{
    if (!c->all_fields) {
        uint32_t total = 0;
        for (uint32_t k = c->index; k != HK_NONE; k = d->view.classes[k].super) total += d->view.classes[k].nfields;
        hk_field *all = hk_xcalloc(total, sizeof *all);
        uint32_t j = 0, base = 0;
        for (uint32_t k = c->index; k != HK_NONE; k = d->view.classes[k].super) {
            hk_class *s = &d->view.classes[k];
            for (uint16_t f = 0; f < s->nfields; f++) {
                all[j] = s->fields[f];
                all[j].offset += base;
                j++;
            }
            base += s->own_fields_size;
        }
        c->all_fields = all;
        c->nall_fields = total;
        c->all_fields_size = base;
    }
    *n = c->nall_fields;
    return c->all_fields;
}

const hk_field *hk_field_named(const hk_field *f, uint32_t n, const char *name)
{
    for (uint32_t k = 0; k < n; k++)
        if (!strcmp(f[k].name, name)) return &f[k];
    for (uint32_t k = 0; k < n; k++)
        if (f[k].obf_name != f[k].name && !strcmp(f[k].obf_name, name)) return &f[k];
    return NULL;
}

int hk_class_is_subclass(const hk_dump *d, const hk_class *c, const hk_class *ancestor)
{
    for (uint32_t k = c->index; k != HK_NONE; k = d->view.classes[k].super)
        if (k == ancestor->index) return 1;
    return 0;
}

const hk_static *hk_class_static(const hk_class *c, const char *name)
{
    for (uint16_t i = 0; i < c->nstatics; i++)
        if (!strcmp(c->statics[i].name, name)) return &c->statics[i];
    for (uint16_t i = 0; i < c->nstatics; i++)
        if (!strcmp(c->statics[i].obf_name, name)) return &c->statics[i];
    return NULL;
}

/* Object i's class code (*c), and whether a list files it. */
static inline int listed(const uint16_t *c16, const uint32_t *c32, uint32_t none, const uint64_t *skip, uint32_t i,
                         uint32_t *c)
{
    *c = c16 ? c16[i] : c32[i];
    return *c != none && !(skip && (skip[i / 64] >> (i % 64) & 1));
}

void hk_class_lists_of_codes(uint32_t n, uint32_t nclasses, const uint16_t *c16, const uint32_t *c32, uint32_t none,
                             const uint64_t *skip, uint32_t **start_out, uint32_t **list_out)
{
    uint32_t *start = hk_xcalloc((size_t)nclasses + 2, sizeof *start), c;
    for (uint32_t i = 0; i < n; i++)
        if (listed(c16, c32, none, skip, i, &c)) start[c + 2]++;
    for (uint32_t k = 0; k < nclasses; k++) start[k + 2] += start[k + 1];
    uint32_t *list = hk_xmalloc(((size_t)start[nclasses + 1] ? start[nclasses + 1] : 1) * sizeof *list);
    for (uint32_t i = 0; i < n; i++)
        if (listed(c16, c32, none, skip, i, &c)) list[start[c + 1]++] = i;
    *start_out = start;
    *list_out = list;
}

enum { CLASS_PARTS = 32 };
typedef struct class_job {
    const hk_dump *d;
    uint16_t *c16; /* each object's class, in 2 bytes when every index and none fit */
    uint32_t *c32;
    uint32_t none; /* class objects, which no list files */
} class_job;

/* One read of each record of a part, the last class looked up remembered (hk_obj_class
 * forgets it): the reads are independent, so the parts go to every core. */
static void class_part(void *ctx, int k)
{
    class_job *j = ctx;
    uint32_t lo, hi;
    hk_class_memo memo = HK_CLASS_MEMO;
    hk_part_range(j->d->view.nobjects, k, CLASS_PARTS, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t c = hk_obj_kind_tag(j->d, i) == HPROF_CLASS_DUMP ? HK_NONE : hk_obj_class_memo(j->d, i, &memo);
        if (c == HK_NONE) c = j->none;
        if (j->c16) j->c16[i] = (uint16_t)c;
        else j->c32[i] = c;
    }
}

/* The per-class lists from each object's record. */
static void class_lists_build(hk_dump *d)
{
    uint32_t n = d->view.nobjects, nc = d->view.nclasses;
    class_job j = {d, NULL, NULL, nc < UINT16_MAX ? nc : HK_NONE};
    if (nc < UINT16_MAX) j.c16 = hk_xmalloc((size_t)n * sizeof *j.c16);
    else j.c32 = hk_xmalloc((size_t)n * sizeof *j.c32);
    hk_parallel(CLASS_PARTS, class_part, &j);
    hk_class_lists_of_codes(n, nc, j.c16, j.c32, j.none, NULL, &d->by_class_start, &d->by_class);
    free(j.c16);
    free(j.c32);
}

const uint32_t *hk_class_instances(hk_dump *d, uint32_t c, uint32_t *n)
{
    if (!d->by_class) class_lists_build(d);
    *n = d->by_class_start[c + 1] - d->by_class_start[c];
    return d->by_class + d->by_class_start[c];
}
