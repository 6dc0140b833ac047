/* Objects: lookup by id, kinds, sizes, fields, arrays and String values. */
#include <ctype.h>
#include <errno.h>
#include "hprof/hprof.h"
#include "hprof/hprof_internal.h"
#include "hprof/hprof_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hk_type_size(const hk_dump *d, int type)
{
    switch (type) {
    case HK_T_OBJECT: return (int)d->view.id_size;
    case HK_T_BOOLEAN:
    case HK_T_BYTE: return 1;
    case HK_T_CHAR:
    case HK_T_SHORT: return 2;
    case HK_T_FLOAT:
    case HK_T_INT: return 4;
    case HK_T_DOUBLE:
    case HK_T_LONG: return 8;
    default: return -1;
    }
}

const char *hk_type_name(int type)
{
    switch (type) {
    case HK_T_OBJECT: return "object";
    case HK_T_BOOLEAN: return "boolean";
    case HK_T_CHAR: return "char";
    case HK_T_FLOAT: return "float";
    case HK_T_DOUBLE: return "double";
    case HK_T_BYTE: return "byte";
    case HK_T_SHORT: return "short";
    case HK_T_INT: return "int";
    case HK_T_LONG: return "long";
    default: return "?";
    }
}

void hk_read_value(const hk_dump *d, const uint8_t *p, int type, hk_value *v)
{
    memset(v, 0, sizeof *v);
    v->type = type;
    switch (type) {
    case HK_T_OBJECT: v->ref = hk_be_id(d, p); break;
    case HK_T_BOOLEAN: v->i = p[0] != 0; break;
    case HK_T_BYTE: v->i = (int8_t)p[0]; break;
    case HK_T_CHAR: v->i = hk_be16(p); break;
    case HK_T_SHORT: v->i = (int16_t)hk_be16(p); break;
    case HK_T_INT: v->i = (int32_t)hk_be32(p); break;
    case HK_T_LONG: v->i = (int64_t)hk_be64(p); break;
    case HK_T_FLOAT: {
        uint32_t u = hk_be32(p);
        float f;
        memcpy(&f, &u, 4);
        v->d = f;
        break;
    }
    case HK_T_DOUBLE: {
        uint64_t u = hk_be64(p);
        memcpy(&v->d, &u, 8);
        break;
    }
    default: break;
    }
}

hk_id hk_obj_id(const hk_dump *d, uint32_t i)
{
    /* the high word comes from the segment holding i */
    return (hk_id)d->view.segs[hk_seg_of(d, i)].hi << 32 | d->view.id_lo[i];
}

uint32_t hk_obj_find(const hk_dump *d, hk_id id)
{
    if (!id || !d->view.nsegs) return HK_NONE;
    if (d->dir.bucket) return hk_iddir_find(&d->dir, d, id);
    uint32_t hiw = (uint32_t)(id >> 32), low = (uint32_t)id;
    uint32_t s = hk_seg_find(d, hiw);
    if (d->view.segs[s].hi != hiw) return HK_NONE;
    uint32_t a = d->view.segs[s].start, end = s + 1 < d->view.nsegs ? d->view.segs[s + 1].start : d->view.nobjects,
             b = end;
    const uint32_t *ids = d->view.id_lo;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (ids[mid] < low) a = mid + 1;
        else b = mid;
    }
    return a < end && ids[a] == low ? a : HK_NONE;
}

int hk_obj_kind(const hk_dump *d, uint32_t i)
{
    switch (hk_obj_kind_tag(d, i)) {
    case HPROF_CLASS_DUMP: return HK_KIND_CLASS;
    case HPROF_INSTANCE_DUMP: return HK_KIND_INSTANCE;
    case HPROF_OBJ_ARRAY_DUMP: return HK_KIND_OBJ_ARRAY;
    default: return HK_KIND_PRIM_ARRAY;
    }
}

hk_id hk_obj_array_class_id(const hk_dump *d, uint32_t i)
{
    return hk_be_id(d, d->view.data + hk_obj_offset(d, i) + 1 + d->view.id_size + 8);
}

uint32_t hk_obj_class_memo(const hk_dump *d, uint32_t i, hk_class_memo *memo)
{
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    hk_id id;
    switch (*r) {
    case HPROF_INSTANCE_DUMP: id = hk_rec_instance_class(d, r); break;
    case HPROF_OBJ_ARRAY_DUMP: id = hk_be_id(d, r + 1 + d->view.id_size + 8); break;
    case HPROF_CLASS_DUMP: return d->view.class_class;
    default: {
        int t = r[1 + d->view.id_size + 8];
        return t >= 0 && t < 12 ? d->view.prim_array_class[t] : HK_NONE;
    }
    }
    if (id != memo->id) {
        const uint32_t *c = hk_idmap_get(&d->view.class_by_id, id);
        memo->id = id;
        memo->cls = c ? *c : HK_NONE;
    }
    return memo->cls;
}

uint32_t hk_obj_class(const hk_dump *d, uint32_t i)
{
    hk_class_memo memo = HK_CLASS_MEMO;
    return hk_obj_class_memo(d, i, &memo);
}

const char *hk_obj_class_name(const hk_dump *d, uint32_t i)
{
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    if (*r == HPROF_CLASS_DUMP) return "java.lang.Class";
    uint32_t c = hk_obj_class(d, i);
    if (c != HK_NONE) return d->view.classes[c].name;
    if (*r == HPROF_PRIM_ARRAY_DUMP || *r == HPROF_PRIM_ARRAY_NODATA) {
        static const char *const n[12] = {0,         0,          0,        0,         "boolean[]", "char[]",
                                          "float[]", "double[]", "byte[]", "short[]", "int[]",     "long[]"};
        int t = r[1 + d->view.id_size + 8];
        return t >= 4 && t < 12 ? n[t] : "?[]";
    }
    return "?";
}

uint64_t hk_obj_shallow_size(const hk_dump *d, uint32_t i)
{
    return d->view.obj_sizes ? d->view.obj_sizes[i] : hk_obj_record_size(d, i);
}

uint64_t hk_obj_record_size(const hk_dump *d, uint32_t i)
{
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    const uint32_t idsz = d->view.id_size;
    uint32_t *c;
    switch (*r) {
    case HPROF_INSTANCE_DUMP:
        c = hk_idmap_get(&d->view.class_by_id, hk_rec_instance_class(d, r));
        return c ? d->view.classes[*c].instance_size : 0;
    case HPROF_OBJ_ARRAY_DUMP:
        if (d->layout && d->layout->info.jvm)
            return hk_layout_array(&d->layout->info.layout, d->layout->info.layout.ref, hk_rec_array_length(d, r));
        /* ART records the array header in the array class's instance size, HotSpot 0 */
        c = hk_idmap_get(&d->view.class_by_id, hk_obj_array_class_id(d, i));
        return (uint64_t)hk_rec_array_length(d, r) * idsz + (c ? d->view.classes[*c].instance_size : 0);
    case HPROF_CLASS_DUMP:
        c = hk_idmap_get(&d->view.class_by_id, hk_be_id(d, r + 1));
        return c ? d->view.classes[*c].static_bytes : 0;
    default: {
        int t = r[1 + idsz + 8];
        if (d->layout && d->layout->info.jvm)
            return hk_layout_array(&d->layout->info.layout, (uint32_t)hk_type_size(d, t), hk_rec_array_length(d, r));
        uint32_t k = t >= 0 && t < 12 ? d->view.prim_array_class[t] : HK_NONE;
        return (uint64_t)hk_rec_array_length(d, r) * (uint64_t)hk_type_size(d, t) +
               (k != HK_NONE ? d->view.classes[k].instance_size : 0);
    }
    }
}

const uint8_t *hk_instance_data(const hk_dump *d, uint32_t i, uint32_t *len)
{
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    if (*r != HPROF_INSTANCE_DUMP) return NULL;
    return hk_rec_instance_data(d, r, len);
}

uint32_t hk_array_length(const hk_dump *d, uint32_t i)
{
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    if (*r == HPROF_INSTANCE_DUMP || *r == HPROF_CLASS_DUMP) return 0;
    return hk_rec_array_length(d, r);
}

int hk_prim_array_type(const hk_dump *d, uint32_t i)
{
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    if (*r != HPROF_PRIM_ARRAY_DUMP && *r != HPROF_PRIM_ARRAY_NODATA) return 0;
    return r[1 + d->view.id_size + 8];
}

const uint8_t *hk_prim_array_data(const hk_dump *d, uint32_t i)
{
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    if (*r != HPROF_PRIM_ARRAY_DUMP) return NULL;
    return r + 1 + d->view.id_size + 9;
}

hk_id hk_obj_array_at(const hk_dump *d, uint32_t i, uint32_t k)
{
    const uint8_t *r = d->view.data + hk_obj_offset(d, i);
    if (*r != HPROF_OBJ_ARRAY_DUMP || k >= hk_rec_array_length(d, r)) return 0;
    return hk_be_id(d, hk_rec_obj_array_elems(d, r) + (uint64_t)k * d->view.id_size);
}

int hk_instance_field(hk_dump *d, uint32_t obj, const char *name, hk_value *out)
{
    uint32_t len;
    const uint8_t *data = hk_instance_data(d, obj, &len);
    if (!data) return 0;
    uint32_t c = hk_obj_class(d, obj);
    if (c == HK_NONE) return 0;
    uint32_t n;
    const hk_field *all = hk_class_layout(d, &d->view.classes[c], &n);
    const hk_field *f = hk_field_named(all, n, name);
    if (!f || f->offset + (uint32_t)hk_type_size(d, f->type) > len) return 0;
    hk_read_value(d, data + f->offset, f->type, out);
    return 1;
}

static void put_utf8(hk_buf *b, uint32_t cp)
{
    char s[4];
    if (cp < 0x80) {
        s[0] = (char)cp;
        hk_buf_append(b, s, 1);
    } else if (cp < 0x800) {
        s[0] = (char)(0xC0 | cp >> 6);
        s[1] = (char)(0x80 | (cp & 0x3F));
        hk_buf_append(b, s, 2);
    } else if (cp < 0x10000) {
        s[0] = (char)(0xE0 | cp >> 12);
        s[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        s[2] = (char)(0x80 | (cp & 0x3F));
        hk_buf_append(b, s, 3);
    } else {
        s[0] = (char)(0xF0 | cp >> 18);
        s[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        s[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        s[3] = (char)(0x80 | (cp & 0x3F));
        hk_buf_append(b, s, 4);
    }
}

/* UTF-16 code units to UTF-8; big_endian as HPROF writes char[], little for HotSpot's
 * UTF16 byte[] (the VM's native order, x86 and ARM both little). */
static void utf16_to_utf8(hk_buf *out, const uint8_t *p, uint32_t units, int big_endian)
{
    for (uint32_t k = 0; k < units; k++) {
        uint32_t u = big_endian ? hk_be16(p + 2 * k) : (uint32_t)(p[2 * k] | p[2 * k + 1] << 8);
        if (u >= 0xD800 && u < 0xDC00 && k + 1 < units) {
            uint32_t v = big_endian ? hk_be16(p + 2 * k + 2) : (uint32_t)(p[2 * k + 2] | p[2 * k + 3] << 8);
            if (v >= 0xDC00 && v < 0xE000) {
                put_utf8(out, 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00));
                k++;
                continue;
            }
        }
        put_utf8(out, u >= 0xD800 && u < 0xE000 ? 0xFFFD : u);
    }
}

int hk_string_fields_read(hk_dump *d, uint32_t obj, hk_string_fields *sf)
{
    memset(sf, 0, sizeof *sf);
    uint32_t c = hk_obj_class(d, obj);
    if (c == HK_NONE || c != d->view.string_class || hk_obj_kind(d, obj) != HK_KIND_INSTANCE) return -1;
    /* one record and one layout for the four fields (this runs once per String in scans) */
    uint32_t dlen, nf;
    const uint8_t *rec = hk_instance_data(d, obj, &dlen);
    const hk_field *f = hk_class_layout(d, &d->view.classes[c], &nf);
    for (uint32_t k = 0; k < nf && rec; k++) { /* one walk of the layout for the four names */
        hk_value *to = NULL;
        uint8_t *has = NULL;
        const char *name = f[k].name;
        if (!strcmp(name, "value")) to = &sf->value, has = &sf->has_value;
        else if (!strcmp(name, "count")) to = &sf->count, has = &sf->has_count;
        else if (!strcmp(name, "offset")) to = &sf->offset, has = &sf->has_offset;
        else if (!strcmp(name, "coder")) to = &sf->coder, has = &sf->has_coder;
        if (!to || *has || f[k].offset + (uint32_t)hk_type_size(d, f[k].type) > dlen) continue;
        hk_read_value(d, rec + f[k].offset, f[k].type, to);
        *has = 1;
    }
    return 0;
}

int hk_string_chars(hk_dump *d, uint32_t obj, hk_chars *out)
{
    hk_string_fields sf;
    if (hk_string_fields_read(d, obj, &sf) < 0) {
        memset(out, 0, sizeof *out);
        out->array = HK_NONE;
        return -1;
    }
    return hk_string_chars_of(d, &sf, HK_NONE, out);
}

int hk_string_chars_of(hk_dump *d, const hk_string_fields *sf, uint32_t array, hk_chars *out)
{
    memset(out, 0, sizeof *out);
    out->array = HK_NONE;
    if (!sf->has_value || sf->value.type != HK_T_OBJECT) return -1;
    if (!sf->value.ref) return 0;
    uint32_t a = array != HK_NONE ? array : hk_obj_find(d, sf->value.ref);
    if (a == HK_NONE) return 0;
    out->array = a;
    int t = hk_prim_array_type(d, a);
    const uint8_t *data = hk_prim_array_data(d, a);
    uint32_t n = hk_array_length(d, a);
    if (!data) return -1; /* no contents (NODATA, a Perfetto heap graph): the text is absent */
    int has_count = sf->has_count && sf->count.type == HK_T_INT;
    int has_offset = sf->has_offset && sf->offset.type == HK_T_INT;
    int has_coder = sf->has_coder && sf->coder.type == HK_T_BYTE;
    uint32_t start = 0, len = n;
    if (t == HK_T_CHAR) {
        /* old JDK / old Android: offset + count into a shared char[] */
        if (has_offset && sf->offset.i >= 0 && (uint64_t)sf->offset.i <= n) start = (uint32_t)sf->offset.i;
        if (has_count && !has_coder) {
            uint64_t cnt = (uint64_t)sf->count.i;
            /* ART with compression encodes count = length << 1 | flag */
            if (cnt > n - start && (cnt >> 1) <= n - start) cnt >>= 1;
            if (cnt <= n - start) len = (uint32_t)cnt;
        }
        if (len > n - start) len = n - start;
        out->encoding = HK_CHARS_UTF16BE;
        out->p = data + 2 * (uint64_t)start;
        out->units = len;
    } else if (t == HK_T_BYTE) {
        out->p = data;
        if (has_coder && sf->coder.i == 1) {
            out->encoding = HK_CHARS_UTF16LE;
            out->units = n / 2;
            return 0;
        }
        if (has_count && !has_coder) {
            uint64_t cnt = (uint64_t)sf->count.i;
            if (cnt > n && (cnt >> 1) <= n) cnt >>= 1;
            if (cnt <= n) len = (uint32_t)cnt;
        }
        out->encoding = HK_CHARS_LATIN1;
        out->units = len;
    }
    return 0;
}

static void chars_to_utf8(const hk_chars *ch, hk_buf *out)
{
    if (ch->encoding == HK_CHARS_LATIN1)
        for (uint32_t k = 0; k < ch->units; k++) put_utf8(out, ch->p[k]);
    else if (ch->p) utf16_to_utf8(out, ch->p, ch->units, ch->encoding == HK_CHARS_UTF16BE);
}

int hk_string_value(hk_dump *d, uint32_t obj, hk_buf *out)
{
    hk_chars ch;
    if (hk_string_chars(d, obj, &ch) < 0) return -1;
    chars_to_utf8(&ch, out);
    return 0;
}

int hk_array_text(hk_dump *d, uint32_t arr, uint32_t start, uint32_t max, hk_buf *out)
{
    if (hk_obj_kind(d, arr) != HK_KIND_PRIM_ARRAY) return -1;
    int t = hk_prim_array_type(d, arr);
    const uint8_t *data = hk_prim_array_data(d, arr);
    uint32_t n = hk_array_length(d, arr);
    if ((t != HK_T_CHAR && t != HK_T_BYTE) || !data) return -1;
    if (start > n) start = n;
    hk_chars ch = {.p = data + (uint64_t)start * (t == HK_T_CHAR ? 2 : 1),
                   .units = n - start < max ? n - start : max,
                   .encoding = t == HK_T_CHAR ? HK_CHARS_UTF16BE : HK_CHARS_LATIN1,
                   .array = arr};
    chars_to_utf8(&ch, out);
    return 0;
}

int hk_parse_id(const char *s, hk_id *out)
{
    if (!s || !*s) return -1;
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    /* strtoull alone would take " 1", "-1" and "0x" */
    if (!(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits))) return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
    if (*end || errno == ERANGE) return -1;
    *out = v;
    return 0;
}

static const struct {
    int tag;
    const char *name;
} root_names[] = {
    {HPROF_ROOT_UNKNOWN, "UNKNOWN"},
    {HPROF_ROOT_JNI_GLOBAL, "JNI_GLOBAL"},
    {HPROF_ROOT_JNI_LOCAL, "JNI_LOCAL"},
    {HPROF_ROOT_JAVA_FRAME, "JAVA_FRAME"},
    {HPROF_ROOT_NATIVE_STACK, "NATIVE_STACK"},
    {HPROF_ROOT_STICKY_CLASS, "STICKY_CLASS"},
    {HPROF_ROOT_THREAD_BLOCK, "THREAD_BLOCK"},
    {HPROF_ROOT_MONITOR_USED, "MONITOR_USED"},
    {HPROF_ROOT_THREAD_OBJECT, "THREAD_OBJECT"},
    {HPROF_ROOT_INTERNED_STRING, "INTERNED_STRING"},
    {HPROF_ROOT_FINALIZING, "FINALIZING"},
    {HPROF_ROOT_DEBUGGER, "DEBUGGER"},
    {HPROF_ROOT_REFERENCE_CLEANUP, "REFERENCE_CLEANUP"},
    {HPROF_ROOT_VM_INTERNAL, "VM_INTERNAL"},
    {HPROF_ROOT_JNI_MONITOR, "JNI_MONITOR"},
    {HPROF_ROOT_UNREACHABLE, "UNREACHABLE"},
};

const char *hk_root_type_name(int type)
{
    for (size_t i = 0; i < sizeof root_names / sizeof root_names[0]; i++)
        if (root_names[i].tag == type) return root_names[i].name;
    return "?";
}

const char *hk_heap_name(const hk_dump *d, int heap)
{
    if (heap < 0 || (uint32_t)heap >= d->nheaps) return d->nheaps ? "?" : "default";
    return d->heap_names[heap];
}

int hk_heap_index(const hk_dump *d, const char *name)
{
    for (uint32_t h = 0; h < d->nheaps; h++)
        if (!strcmp(d->heap_names[h], name)) return (int)h;
    return -1;
}

void hk_heap_names(const hk_dump *d, hk_buf *out)
{
    for (uint32_t h = 0; h < d->nheaps; h++) hk_buf_printf(out, "%s%s", h ? ", " : "", d->heap_names[h]);
}
