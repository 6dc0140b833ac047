/* The one pass over a dump: records, heap sub-records, the object table; and what the index
 * costs in memory. */
#include "hprof/hprof.h"
#include "util/hk_mem.h"
#include "hprof/hprof_internal.h"
#include "hprof/hprof_heap.h"
#include "hprof/hprof_objtab.h"
#include "util/hk_jobs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a class's instances and bytes per heap (the pass's counters) */
struct counter {
    uint64_t key;
    uint32_t n[HK_MAX_HEAPS];
    uint64_t b[HK_MAX_HEAPS];
    uint32_t res[16];
};

typedef struct pass {
    hk_dump *d;
    char *err;
    size_t errlen;
    hk_objtab objs; /* sorted by id at the end */
    size_t caproots;
    hk_heap_range *ranges;
    size_t capranges;
    uint64_t *class_offs; /* offsets of CLASS_DUMP records */
    size_t nclass_offs, capclass_offs;
    /* counters keyed by class id, [slot][heap], in the order the walk first meets each class */
    hk_idmap counter_slot;
    struct counter *counters;
    size_t ncounters, capcounters;
    int cur_heap;
    hk_body *bodies; /* the heap dump records' bodies, walked after the top-level records */
    size_t nbodies, capbodies;
    uint64_t *ext_offs; /* offsets of hprofkit's own records */
    size_t next_offs, capext_offs;
    hk_progress_fn progress;
    void *pctx;
} pass;

static int fail_at(pass *p, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hk_vfail_at(p->err, p->errlen, p->d->path, off, fmt, ap);
    va_end(ap);
    return -1;
}

/* A part's counts for one class, added to the pass's: part heap slot s counts in heap map[s]. */
static void add_counts(pass *p, const hk_counter *c, const int *map, int nslots)
{
    int inserted;
    uint32_t *slot = hk_idmap_put(&p->counter_slot, c->key + 1, (uint32_t)p->ncounters, &inserted);
    if (inserted) {
        p->counters = hk_grow(p->counters, &p->capcounters, p->ncounters + 1, sizeof *p->counters);
        memset(&p->counters[p->ncounters], 0, sizeof *p->counters);
        p->counters[p->ncounters].key = c->key;
        p->ncounters++;
    }
    struct counter *g = &p->counters[*slot];
    for (int s = 0; s < nslots; s++) {
        g->n[map[s]] += c->n[s];
        g->b[map[s]] += c->b[s];
    }
    for (int r = 0; r < 16; r++) g->res[r] += c->res[r];
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
        /* heaps are named when the parts are joined, after every record is read: a name written
         * after its heap's record is one a single walk would not have seen yet */
        if (name && (uint64_t)((const uint8_t *)name - d->view.data) > off) name = NULL;
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

/* Part k's results moved into the pass, as a single walk would have made them: its heap
 * switches numbered and named first (a failing one is the walk's first error), then its own
 * error, then its counts, roots, classes and objects. */
static int join_part(pass *p, hk_part *part)
{
    hk_dump *d = p->d;
    int map[HK_PART_HEAPS] = {0};
    map[0] = p->cur_heap < 0 ? 0 : p->cur_heap;
    for (size_t i = 0; i < part->nswitches; i++) {
        const hk_heap_switch *s = &part->switches[i];
        if (set_heap(p, s->heap_id, s->name_sid, s->off) < 0) return -1;
        if (s->slot > 0) map[s->slot] = p->cur_heap;
    }
    if (part->failed) {
        snprintf(p->err, p->errlen, "%s", part->err);
        return -1;
    }
    int nslots = part->nslots ? part->nslots : 1;
    for (size_t i = 0; i < part->ncounters; i++) add_counts(p, &part->counters[i], map, nslots);
    hk_root *roots = hk_grow((hk_root *)d->view.roots, &p->caproots, d->view.nroots + part->nroots + 1, sizeof *roots);
    if (part->nroots) memcpy(roots + d->view.nroots, part->roots, part->nroots * sizeof *roots);
    d->view.roots = roots;
    d->view.nroots += part->nroots;
    p->class_offs = hk_grow(p->class_offs, &p->capclass_offs, p->nclass_offs + part->nclass_offs + 1, sizeof(uint64_t));
    if (part->nclass_offs)
        memcpy(p->class_offs + p->nclass_offs, part->class_offs, part->nclass_offs * sizeof(uint64_t));
    p->nclass_offs += part->nclass_offs;
    d->view.ninstances += part->ninstances;
    d->view.nobj_arrays += part->nobj_arrays;
    d->view.nprim_arrays += part->nprim_arrays;
    if (p->objs.n) hk_objtab_append(&p->objs, &part->objs);
    else { /* the first part's table becomes the walk's: no copy */ hk_objtab_free(&p->objs);
        p->objs = part->objs;
        memset(&part->objs, 0, sizeof part->objs);
    }
    return 0;
}

/* How many parts: one per thread, none smaller than a few hundred KB. */
static int heap_parts(const pass *p)
{
    uint64_t total = 0;
    for (size_t i = 0; i < p->nbodies; i++) total += p->bodies[i].end - p->bodies[i].start;
    uint64_t most = 1 + total / (256u << 10);
    int jobs = hk_jobs();
    return (uint64_t)jobs < most ? jobs : (int)most;
}

/* The heap dump bodies, walked in parts on the threads and joined in order.  A part that began
 * at a guessed sub-record start the part before did not end at is walked again from where it
 * ended. */
static int walk_heap(pass *p)
{
    hk_heap_walk w;
    memset(&w, 0, sizeof w);
    w.d = p->d;
    w.bodies = p->bodies;
    w.nbodies = p->nbodies;
    w.nparts = heap_parts(p);
    w.progress = p->progress;
    w.pctx = p->pctx;
    atomic_init(&w.done, 0);
    w.cuts = hk_xmalloc(((size_t)w.nparts + 1) * sizeof *w.cuts);
    w.parts = hk_xmalloc((size_t)w.nparts * sizeof *w.parts);
    hk_heap_cut(&w);
    for (int k = 0; k < w.nparts; k++) {
        hk_part_init(&w.parts[k], &w, p->d->view.size / 48 / (size_t)w.nparts);
        w.parts[k].from = w.cuts[k];
        w.parts[k].to = w.cuts[k + 1];
    }
    hk_parallel(w.nparts, hk_heap_part, &w);
    p->d->walk_parts = (uint32_t)w.nparts;
    int rc = 0;
    for (int k = 0; k < w.nparts && rc == 0; k++) {
        hk_part *part = &w.parts[k];
        if (k && part->from.off != w.parts[k - 1].stop) {
            hk_cut from = {w.parts[k - 1].to.body, w.parts[k - 1].stop}, to = part->to;
            hk_part_free(part);
            hk_part_init(part, &w, 0);
            part->from = from;
            part->to = to;
            hk_heap_part(&w, k);
            p->d->walk_rewalked++;
        }
        rc = join_part(p, part);
    }
    for (int k = 0; k < w.nparts; k++) hk_part_free(&w.parts[k]);
    free(w.parts);
    free(w.cuts);
    return rc;
}

/* Moves the pass's counters onto classes; a counter for an unknown class id is an id
 * that points nowhere. */
static int attach_counters(pass *p)
{
    hk_dump *d = p->d;
    d->class_counts = hk_xcalloc((size_t)d->view.nclasses * HK_MAX_HEAPS, sizeof(uint32_t));
    d->class_bytes = hk_xcalloc((size_t)d->view.nclasses * HK_MAX_HEAPS, sizeof(uint64_t));
    d->array_res = hk_xcalloc(((size_t)d->view.nclasses + 12) * 16, sizeof(uint32_t));
    for (size_t s = 0; s < p->ncounters; s++) {
        uint64_t key = p->counters[s].key;
        uint32_t *n = p->counters[s].n;
        uint64_t *b = p->counters[s].b;
        int ci = -1;
        if (key >= HK_PRIM_KEY) {
            key -= HK_PRIM_KEY;
            if (d->view.prim_array_class[key] != HK_NONE) ci = (int)d->view.prim_array_class[key];
            else {
                for (int h = 0; h < HK_MAX_HEAPS; h++) {
                    d->prim_counts[key][h] += n[h];
                    d->prim_bytes[key][h] += b[h];
                }
                for (int r = 0; r < 16; r++) d->array_res[(d->view.nclasses + key) * 16 + r] += p->counters[s].res[r];
                continue;
            }
        } else {
            uint32_t *cp = hk_idmap_get(&d->view.class_by_id, key);
            if (!cp) {
                /* find one object that names it, for the message */
                for (uint32_t i = 0; i < d->view.nobjects; i++) {
                    int k = hk_obj_kind(d, i);
                    hk_id c = k == HK_KIND_INSTANCE
                                  ? hk_be_id(d, d->view.data + hk_obj_offset(d, i) + 1 + d->view.id_size + 4)
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
        for (int r = 0; r < 16; r++) d->array_res[(size_t)ci * 16 + r] += p->counters[s].res[r];
    }
    /* every object weighs its class's recorded size (arrays: ART's header) on top */
    for (uint32_t c = 0; c < d->view.nclasses; c++) {
        for (int h = 0; h < HK_MAX_HEAPS; h++)
            d->class_bytes[(size_t)c * HK_MAX_HEAPS + h] +=
                (uint64_t)d->class_counts[(size_t)c * HK_MAX_HEAPS + h] * d->view.classes[c].instance_size;
    }
    /* class objects count as java.lang.Class, weighing their static values */
    for (uint32_t c = 0; c < d->view.nclasses; c++) {
        const hk_class *k = &d->view.classes[c];
        if (d->view.class_class != HK_NONE) {
            d->class_counts[(size_t)d->view.class_class * HK_MAX_HEAPS + k->heap]++;
            d->class_bytes[(size_t)d->view.class_class * HK_MAX_HEAPS + k->heap] += k->static_bytes;
        } else {
            d->class_obj_counts[k->heap]++;
            d->class_obj_bytes[k->heap] += k->static_bytes;
        }
    }
    return 0;
}

/* The top-level records; heap dump bodies are only listed here (walk_heap walks them), so an
 * error found here is the walk's only when the bodies before it hold none. */
static int top_records(pass *p)
{
    hk_dump *d = p->d;
    const uint8_t *base = d->view.data;
    uint64_t off = d->header_size, size = d->view.size;
    int saw_segment = 0, saw_end = 0;
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
        switch (tag) {
        case HPROF_STRING:
            if (len < d->view.id_size) return fail_at(p, off, "STRING record shorter than an id");
            hk_idtab_set(&d->strings, hk_be_id(d, base + body), body);
            break;
        case HPROF_LOAD_CLASS:
            if (len < 8 + 2 * d->view.id_size) return fail_at(p, off, "LOAD_CLASS record too short");
            hk_idtab_set(&d->load_names, hk_be_id(d, base + body + 4), hk_be_id(d, base + body + 8 + d->view.id_size));
            hk_idtab_set(&d->class_serials, (uint64_t)hk_be32(base + body) + 1, hk_be_id(d, base + body + 4));
            break;
        case HPROF_STACK_FRAME:
            if (len < 4 * d->view.id_size + 8) return fail_at(p, off, "STACK_FRAME record too short");
            hk_idtab_set(&d->frames, hk_be_id(d, base + body) + 1, body);
            break;
        case HPROF_STACK_TRACE:
            if (len < 12) return fail_at(p, off, "STACK_TRACE record too short");
            if ((len - 12) / d->view.id_size >= hk_be32(base + body + 8)) /* else: no stack, not no dump */
                hk_idtab_set(&d->traces, (uint64_t)hk_be32(base + body) + 1, body);
            break;
        case HPROF_HEAP_DUMP:
        case HPROF_HEAP_DUMP_SEGMENT:
            if (tag == HPROF_HEAP_DUMP_SEGMENT || !saw_segment) saw_segment = tag;
            p->bodies = hk_grow(p->bodies, &p->capbodies, p->nbodies + 1, sizeof *p->bodies);
            p->bodies[p->nbodies++] = (hk_body){body, body + len, off};
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
    int top = top_records(&p);
    int rc = walk_heap(&p);
    if (rc == 0) rc = top;
    if (rc == 0) rc = hk_objtab_finish(&p.objs, d, err, errlen);
    if (rc == 0) rc = hk_classes_build(d, p.class_offs, p.nclass_offs, err, errlen);
    if (rc == 0) rc = attach_counters(&p);
    if (rc == 0 && p.next_offs) rc = hk_ext_apply(d, p.ext_offs, p.next_offs, err, errlen);
    if (rc == 0 && progress) progress(pctx, d->view.size, d->view.size);
    hk_objtab_free(&p.objs);
    free(p.class_offs);
    free(p.ext_offs);
    free(p.bodies);
    free(p.counters);
    hk_idmap_free(&p.counter_slot);
    return rc;
}

void hk_index_stats_of(const hk_dump *d, hk_index_stats *s)
{
    s->objects = d->view.nobjects;
    s->object_table_bytes =
        (uint64_t)d->view.nobjects * (sizeof *d->view.id_lo + sizeof *d->view.off_lo + sizeof *d->view.off_hi) +
        (uint64_t)d->view.nsegs * sizeof *d->view.segs + hk_iddir_bytes(&d->dir, d);
    s->class_bytes = (uint64_t)d->view.nclasses * (sizeof(hk_class) + HK_MAX_HEAPS * 12);
    for (uint32_t i = 0; i < d->view.nclasses; i++)
        s->class_bytes += (uint64_t)d->view.classes[i].nfields * sizeof(hk_field) +
                          (uint64_t)d->view.classes[i].nstatics * sizeof(hk_static);
    s->name_bytes = (uint64_t)d->narena * 65536;
    s->map_bytes =
        ((uint64_t)d->strings.map.cap + d->load_names.map.cap + d->frames.map.cap + d->traces.map.cap +
         d->class_serials.map.cap) *
            12 +
        ((uint64_t)d->strings.cap + d->load_names.cap + d->frames.cap + d->traces.cap + d->class_serials.cap) * 8 +
        (uint64_t)d->view.class_by_id.cap * 12 + (uint64_t)d->view.nroots * sizeof(hk_root);
    s->total_bytes = s->object_table_bytes + s->class_bytes + s->name_bytes + s->map_bytes;
    s->bytes_per_object = d->view.nobjects ? (double)s->total_bytes / d->view.nobjects : 0;
    s->walk_parts = d->walk_parts;
    s->walk_rewalked = d->walk_rewalked;
}
