/* The one pass over a dump: records, heap sub-records, the object table. */
#include "hprof/hprof.h"
#include "util/hk_mem.h"
#include "hprof/hprof_internal.h"
#include "hprof/hprof_objtab.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pass {
    hk_dump *d;
    char *err;
    size_t errlen;
    hk_objtab objs; /* sorted by id at the end */
    /* class id -> counter slot, direct-mapped in front of the hash map: a heap has a few
     * thousand classes and most objects belong to a few hundred of them */
    struct {
        uint64_t key;
        uint32_t slot;
    } cache[1024];
    hk_root *roots;
    size_t caproots;
    hk_heap_range *ranges;
    size_t capranges;
    uint64_t *class_offs; /* offsets of CLASS_DUMP records */
    size_t nclass_offs, capclass_offs;
    /* counters keyed by class id, [slot][heap] */
    hk_idmap counter_slot;
    struct counter {
        uint64_t key;
        uint32_t n[HK_MAX_HEAPS];
        uint64_t b[HK_MAX_HEAPS];
    } * counters;
    size_t ncounters, capcounters;
    int cur_heap;
    uint64_t *ext_offs; /* offsets of hprofkit's own records */
    size_t next_offs, capext_offs;
    hk_progress_fn progress;
    void *pctx;
} pass;

static int fail_at(pass *p, uint64_t off, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s: at offset %llu (0x%llx): %s", p->d->path ? p->d->path : "dump",
             (unsigned long long)off, (unsigned long long)off, msg);
    return -1;
}

/* Counters of primitive arrays are keyed by element type above any id a dump uses (small ids
 * are real: a heap graph's objects may be numbered from 1). */
#define PRIM_KEY (UINT64_MAX - 32)

static inline uint64_t rd_id(const uint8_t *p, uint32_t idsz)
{
    return idsz == 4 ? hk_be32(p) : hk_be64(p);
}

static void count_object(pass *p, uint64_t class_key, uint64_t bytes)
{
    int h = p->cur_heap < 0 ? 0 : p->cur_heap;
    size_t ci = (size_t)(class_key ^ class_key >> 10 ^ class_key >> 20) & 1023;
    if (p->cache[ci].key == class_key + 1) {
        p->counters[p->cache[ci].slot].n[h]++;
        p->counters[p->cache[ci].slot].b[h] += bytes;
        return;
    }
    int inserted;
    uint32_t *slot = hk_idmap_put(&p->counter_slot, class_key + 1, (uint32_t)p->ncounters, &inserted);
    if (inserted) {
        p->counters = hk_grow(p->counters, &p->capcounters, p->ncounters + 1, sizeof *p->counters);
        memset(&p->counters[p->ncounters], 0, sizeof *p->counters);
        p->counters[p->ncounters].key = class_key;
        p->ncounters++;
    }
    p->cache[ci].key = class_key + 1; /* + 1: an empty entry (0) never matches */
    p->cache[ci].slot = *slot;
    p->counters[*slot].n[h]++;
    p->counters[*slot].b[h] += bytes;
}

static void add_root(pass *p, const uint8_t *r, int tag, uint32_t idsz)
{
    hk_dump *d = p->d;
    if (d->nroots + 1 > p->caproots) d->roots = hk_grow(d->roots, &p->caproots, d->nroots + 1, sizeof(hk_root));
    hk_root *root = &d->roots[d->nroots++];
    memset(root, 0, sizeof *root);
    root->type = (uint8_t)tag;
    root->id = rd_id(r + 1, idsz);
    switch (tag) {
    case HPROF_ROOT_JNI_LOCAL:
    case HPROF_ROOT_JAVA_FRAME:
    case HPROF_ROOT_JNI_MONITOR:
        root->thread = hk_be32(r + 1 + idsz);
        root->frame = hk_be32(r + 1 + idsz + 4);
        break;
    case HPROF_ROOT_NATIVE_STACK:
    case HPROF_ROOT_THREAD_BLOCK: root->thread = hk_be32(r + 1 + idsz); break;
    case HPROF_ROOT_THREAD_OBJECT: root->thread = hk_be32(r + 1 + idsz); break;
    default: break;
    }
}

static int set_heap(pass *p, uint32_t heap_id, uint64_t name_sid, uint64_t off)
{
    hk_dump *d = p->d;
    int h = -1;
    for (uint32_t i = 0; i < d->nheaps; i++)
        if (d->heap_ids[i] == heap_id) h = (int)i;
    if (h < 0) {
        if (d->nheaps >= HK_MAX_HEAPS) return fail_at(p, off, "more than %d heaps", HK_MAX_HEAPS);
        h = (int)d->nheaps++;
        d->heap_ids[h] = heap_id;
        uint32_t len;
        const char *name = hk_string_by_id(d, name_sid, &len);
        char tmp[32];
        if (!name) {
            snprintf(tmp, sizeof tmp, "heap-0x%x", heap_id);
            name = tmp;
            len = (uint32_t)strlen(tmp);
        }
        d->heap_names[h] = hk_xstrndup(name, len);
    }
    p->cur_heap = h;
    if (d->nheap_ranges + 1 > p->capranges)
        d->heap_ranges = hk_grow(d->heap_ranges, &p->capranges, d->nheap_ranges + 1, sizeof(hk_heap_range));
    d->heap_ranges[d->nheap_ranges].offset = off;
    d->heap_ranges[d->nheap_ranges].heap = (uint8_t)h;
    d->nheap_ranges++;
    return 0;
}

/* Size of a CLASS_DUMP record starting at r (the tag), or 0 when it runs past end. */
static uint64_t class_dump_size(const hk_dump *d, const uint8_t *r, const uint8_t *end)
{
    uint32_t idsz = d->id_size;
    const uint8_t *q = r + 1 + idsz + 4 + 6 * idsz + 4;
    if (q + 2 > end) return 0;
    uint16_t n = hk_be16(q);
    q += 2;
    for (uint16_t i = 0; i < n; i++) {
        if (q + 3 > end) return 0;
        int t = q[2];
        int sz = hk_type_size(d, t);
        if (sz <= 0) return 0;
        q += 3 + sz;
    }
    if (q + 2 > end) return 0;
    n = hk_be16(q);
    q += 2;
    for (uint16_t i = 0; i < n; i++) {
        if (q + idsz + 1 > end) return 0;
        int sz = hk_type_size(d, q[idsz]);
        if (sz <= 0) return 0;
        q += idsz + 1 + sz;
    }
    if (q + 2 > end) return 0;
    n = hk_be16(q);
    q += 2;
    if (q + (uint64_t)n * (idsz + 1) > end) return 0;
    for (uint16_t i = 0; i < n; i++)
        if (hk_type_size(d, q[i * (idsz + 1) + idsz]) <= 0) return 0;
    q += (uint64_t)n * (idsz + 1);
    return (uint64_t)(q - r);
}

static int root_body_size(int tag, uint32_t idsz)
{
    switch (tag) {
    case HPROF_ROOT_UNKNOWN:
    case HPROF_ROOT_STICKY_CLASS:
    case HPROF_ROOT_MONITOR_USED:
    case HPROF_ROOT_INTERNED_STRING:
    case HPROF_ROOT_FINALIZING:
    case HPROF_ROOT_DEBUGGER:
    case HPROF_ROOT_REFERENCE_CLEANUP:
    case HPROF_ROOT_VM_INTERNAL:
    case HPROF_ROOT_UNREACHABLE: return (int)idsz;
    case HPROF_ROOT_JNI_GLOBAL: return (int)(2 * idsz);
    case HPROF_ROOT_JNI_LOCAL:
    case HPROF_ROOT_JAVA_FRAME:
    case HPROF_ROOT_JNI_MONITOR:
    case HPROF_ROOT_THREAD_OBJECT: return (int)idsz + 8;
    case HPROF_ROOT_NATIVE_STACK:
    case HPROF_ROOT_THREAD_BLOCK: return (int)idsz + 4;
    default: return -1;
    }
}

/* The object sub-records below return their size, 0 when it runs past `left` (the caller names
 * the truncation), or -1 after failing.  Inlined: they are the index's inner loop. */
static inline int64_t instance_dump(pass *p, const uint8_t *r, uint64_t left, uint64_t off, uint32_t idsz)
{
    if (left < 1 + 2 * idsz + 8) return 0;
    uint32_t n = hk_be32(r + 1 + 2 * idsz + 4);
    uint64_t sz = 1 + 2 * (uint64_t)idsz + 8 + n;
    if (sz > left) return 0;
    hk_objtab_add(&p->objs, rd_id(r + 1, idsz), off);
    count_object(p, rd_id(r + 1 + idsz + 4, idsz), 0);
    p->d->ninstances++;
    return (int64_t)sz;
}

static inline int64_t obj_array_dump(pass *p, const uint8_t *r, uint64_t left, uint64_t off, uint32_t idsz)
{
    if (left < 1 + 2 * idsz + 8) return 0;
    uint32_t n = hk_be32(r + 1 + idsz + 4);
    uint64_t sz = 1 + 2 * (uint64_t)idsz + 8 + (uint64_t)n * idsz;
    if (sz > left) return 0;
    hk_objtab_add(&p->objs, rd_id(r + 1, idsz), off);
    count_object(p, rd_id(r + 1 + idsz + 8, idsz), (uint64_t)n * idsz);
    p->d->nobj_arrays++;
    return (int64_t)sz;
}

static inline int64_t prim_array_dump(pass *p, const uint8_t *r, uint64_t left, uint64_t off, uint32_t idsz)
{
    if (left < 1 + (uint64_t)idsz + 9) return 0;
    uint32_t n = hk_be32(r + 1 + idsz + 4);
    int t = r[1 + idsz + 8];
    int esz = hk_type_size_fast(idsz, t);
    if (esz <= 0 || t == HK_T_OBJECT) return fail_at(p, off, "primitive array with invalid element type %d", t);
    uint64_t sz = 1 + (uint64_t)idsz + 9 + (*r == HPROF_PRIM_ARRAY_DUMP ? (uint64_t)n * esz : 0);
    if (sz > left) return 0;
    hk_objtab_add(&p->objs, rd_id(r + 1, idsz), off);
    count_object(p, PRIM_KEY + (uint64_t)t, (uint64_t)n * esz);
    p->d->nprim_arrays++;
    return (int64_t)sz;
}

static int64_t class_dump(pass *p, const uint8_t *r, const uint8_t *end, uint64_t off, uint64_t rec_off)
{
    uint64_t sz = class_dump_size(p->d, r, end);
    if (!sz)
        return fail_at(p, off,
                       "CLASS_DUMP runs past the end of its %s record at offset %llu, or has an invalid field type",
                       "heap dump", (unsigned long long)rec_off);
    hk_objtab_add(&p->objs, rd_id(r + 1, p->d->id_size), off);
    p->class_offs = hk_grow(p->class_offs, &p->capclass_offs, p->nclass_offs + 1, sizeof(uint64_t));
    p->class_offs[p->nclass_offs++] = off;
    return (int64_t)sz;
}

/* Roots, and the tags that are none of the above. */
static int64_t root_record(pass *p, const uint8_t *r, uint64_t left, uint64_t off, uint64_t rec_off)
{
    int tag = *r, n = root_body_size(tag, p->d->id_size);
    if (n < 0)
        return fail_at(p, off,
                       "unknown heap sub-record tag 0x%02x (inside the heap dump record at offset %llu); the "
                       "dump is corrupt or from an unsupported VM",
                       tag, (unsigned long long)rec_off);
    if ((uint64_t)n + 1 > left) return 0;
    add_root(p, r, tag, p->d->id_size);
    return 1 + n;
}

/* Walks the sub-records of one HEAP_DUMP / HEAP_DUMP_SEGMENT body. */
static int heap_records(pass *p, uint64_t start, uint64_t end_off, uint64_t rec_off)
{
    hk_dump *d = p->d;
    const uint32_t idsz = d->id_size;
    const uint8_t *base = d->data;
    const uint8_t *r = base + start, *end = base + end_off;
    while (r < end) {
        int tag = *r;
        uint64_t off = (uint64_t)(r - base);
        uint64_t left = (uint64_t)(end - r);
        int64_t sz;
        switch (tag) {
        case HPROF_INSTANCE_DUMP: sz = instance_dump(p, r, left, off, idsz); break;
        case HPROF_OBJ_ARRAY_DUMP: sz = obj_array_dump(p, r, left, off, idsz); break;
        case HPROF_PRIM_ARRAY_DUMP:
        case HPROF_PRIM_ARRAY_NODATA: sz = prim_array_dump(p, r, left, off, idsz); break;
        case HPROF_CLASS_DUMP: sz = class_dump(p, r, end, off, rec_off); break;
        case HPROF_HEAP_DUMP_INFO:
            if (left < 5 + idsz) sz = 0;
            else sz = set_heap(p, hk_be32(r + 1), rd_id(r + 5, idsz), off) < 0 ? -1 : (int64_t)(5 + idsz);
            break;
        default: sz = root_record(p, r, left, off, rec_off);
        }
        if (sz < 0) return -1;
        if (sz == 0)
            return fail_at(p, off,
                           "heap sub-record 0x%02x runs past the end of its heap dump record (which ends at offset "
                           "%llu): truncated or corrupt",
                           tag, (unsigned long long)end_off);
        r += sz;
    }
    return 0;
}

/* Moves the pass's counters onto classes; a counter for an unknown class id is an id
 * that points nowhere. */
static int attach_counters(pass *p)
{
    hk_dump *d = p->d;
    d->class_counts = hk_xcalloc((size_t)d->nclasses * HK_MAX_HEAPS, sizeof(uint32_t));
    d->class_bytes = hk_xcalloc((size_t)d->nclasses * HK_MAX_HEAPS, sizeof(uint64_t));
    for (size_t s = 0; s < p->ncounters; s++) {
        uint64_t key = p->counters[s].key;
        uint32_t *n = p->counters[s].n;
        uint64_t *b = p->counters[s].b;
        int ci = -1;
        if (key >= PRIM_KEY) {
            key -= PRIM_KEY;
            if (d->prim_array_class[key] != HK_NONE) ci = (int)d->prim_array_class[key];
            else {
                for (int h = 0; h < HK_MAX_HEAPS; h++) {
                    d->prim_counts[key][h] += n[h];
                    d->prim_bytes[key][h] += b[h];
                }
                continue;
            }
        } else {
            uint32_t *cp = hk_idmap_get(&d->class_by_id, key);
            if (!cp) {
                /* find one object that names it, for the message */
                for (uint32_t i = 0; i < d->nobjects; i++) {
                    int k = hk_obj_kind(d, i);
                    hk_id c = k == HK_KIND_INSTANCE    ? hk_be_id(d, d->data + hk_obj_offset(d, i) + 1 + d->id_size + 4)
                              : k == HK_KIND_OBJ_ARRAY ? hk_obj_array_class_id(d, i)
                                                       : 0;
                    if (c == key)
                        return fail_at(
                            p, hk_obj_offset(d, i),
                            "object 0x%llx names class 0x%llx, which is not in the dump (an id that points nowhere)",
                            (unsigned long long)hk_obj_id(d, i), (unsigned long long)key);
                }
                return fail_at(p, 0, "class 0x%llx is used but not in the dump", (unsigned long long)key);
            }
            ci = (int)*cp;
        }
        for (int h = 0; h < HK_MAX_HEAPS; h++) {
            d->class_counts[(size_t)ci * HK_MAX_HEAPS + h] += n[h];
            d->class_bytes[(size_t)ci * HK_MAX_HEAPS + h] += b[h];
        }
    }
    /* every object weighs its class's recorded size (arrays: ART's header) on top */
    for (uint32_t c = 0; c < d->nclasses; c++) {
        for (int h = 0; h < HK_MAX_HEAPS; h++)
            d->class_bytes[(size_t)c * HK_MAX_HEAPS + h] +=
                (uint64_t)d->class_counts[(size_t)c * HK_MAX_HEAPS + h] * d->classes[c].instance_size;
    }
    /* class objects count as java.lang.Class, weighing their static values */
    for (uint32_t c = 0; c < d->nclasses; c++) {
        const hk_class *k = &d->classes[c];
        if (d->class_class != HK_NONE) {
            d->class_counts[(size_t)d->class_class * HK_MAX_HEAPS + k->heap]++;
            d->class_bytes[(size_t)d->class_class * HK_MAX_HEAPS + k->heap] += k->static_bytes;
        } else {
            d->class_obj_counts[k->heap]++;
            d->class_obj_bytes[k->heap] += k->static_bytes;
        }
    }
    return 0;
}

static int top_records(pass *p)
{
    hk_dump *d = p->d;
    const uint8_t *base = d->data;
    uint64_t off = d->header_size, size = d->size;
    int saw_segment = 0, saw_end = 0;
    uint64_t next_progress = 0;
    while (off < size) {
        if (size - off < 9)
            return fail_at(p, off, "truncated record header: 9 bytes expected, %llu left",
                           (unsigned long long)(size - off));
        int tag = base[off];
        uint32_t len = hk_be32(base + off + 5);
        uint64_t body = off + 9;
        if (len > size - body)
            return fail_at(p, off, "record 0x%02x claims %u bytes but only %llu remain: the dump is truncated", tag,
                           len, (unsigned long long)(size - body));
        if (p->progress && off >= next_progress) {
            p->progress(p->pctx, off, size);
            next_progress = off + (64u << 20);
        }
        switch (tag) {
        case HPROF_STRING:
            if (len < d->id_size) return fail_at(p, off, "STRING record shorter than an id");
            hk_idtab_set(&d->strings, rd_id(base + body, d->id_size), body);
            break;
        case HPROF_LOAD_CLASS:
            if (len < 8 + 2 * d->id_size) return fail_at(p, off, "LOAD_CLASS record too short");
            hk_idtab_set(&d->load_names, rd_id(base + body + 4, d->id_size),
                         rd_id(base + body + 8 + d->id_size, d->id_size));
            hk_idtab_set(&d->class_serials, (uint64_t)hk_be32(base + body) + 1, rd_id(base + body + 4, d->id_size));
            break;
        case HPROF_STACK_FRAME:
            if (len < 4 * d->id_size + 8) return fail_at(p, off, "STACK_FRAME record too short");
            hk_idtab_set(&d->frames, rd_id(base + body, d->id_size) + 1, body);
            break;
        case HPROF_STACK_TRACE:
            if (len < 12) return fail_at(p, off, "STACK_TRACE record too short");
            if ((len - 12) / d->id_size >= hk_be32(base + body + 8)) /* else: no stack, not no dump */
                hk_idtab_set(&d->traces, (uint64_t)hk_be32(base + body) + 1, body);
            break;
        case HPROF_HEAP_DUMP:
        case HPROF_HEAP_DUMP_SEGMENT:
            if (tag == HPROF_HEAP_DUMP_SEGMENT || !saw_segment) saw_segment = tag;
            if (heap_records(p, body, body + len, off) < 0) return -1;
            break;
        case HPROF_HEAP_DUMP_END: saw_end = 1; break;
        case HPROF_HK_OBJECT_SIZES:
        case HPROF_HK_REF_KINDS:
            p->ext_offs = hk_grow(p->ext_offs, &p->capext_offs, p->next_offs + 1, sizeof(uint64_t));
            p->ext_offs[p->next_offs++] = off;
            break;
        default: break; /* unknown or uninteresting: skipped by its length */
        }
        off = body + len;
    }
    if (!saw_segment)
        return fail_at(p, off, "the file ends without any heap dump record: it is truncated, or holds no heap dump");
    if (saw_segment == HPROF_HEAP_DUMP_SEGMENT && !saw_end)
        return fail_at(p, off, "the dump ends without HEAP_DUMP_END after its heap dump segments: it is truncated");
    return 0;
}

int hk_index_build(hk_dump *d, hk_progress_fn progress, void *pctx, char *err, size_t errlen)
{
    pass p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.err = err;
    p.errlen = errlen;
    p.cur_heap = -1;
    p.progress = progress;
    p.pctx = pctx;
    hk_idmap_init(&p.counter_slot);
    hk_objtab_init(&p.objs, d->size / 48);
    int rc = top_records(&p);
    if (rc == 0) rc = hk_objtab_finish(&p.objs, d, err, errlen);
    if (rc == 0) rc = hk_classes_build(d, p.class_offs, p.nclass_offs, err, errlen);
    if (rc == 0) rc = attach_counters(&p);
    if (rc == 0 && p.next_offs) rc = hk_ext_apply(d, p.ext_offs, p.next_offs, err, errlen);
    if (rc == 0 && progress) progress(pctx, d->size, d->size);
    hk_objtab_free(&p.objs);
    free(p.class_offs);
    free(p.ext_offs);
    free(p.counters);
    hk_idmap_free(&p.counter_slot);
    return rc;
}
