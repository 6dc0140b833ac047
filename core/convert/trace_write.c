/* Writing a dump as a Perfetto trace: a heap graph (references and sizes only, the way ART's
 * android.java_hprof data source writes one) or the HPROF itself embedded in hprofkit.HprofDump
 * chunks with its bitmaps as HprofBitmap PNGs (the seed's android.hprof_dump proposal). */
#include "hprof/hprof.h"
#include "hprof/hprof_view.h"
#include "convert/convert.h"
#include "util/hk_file.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof_dump.pb-c.h"
#include "trace.pb-c.h"

typedef Perfetto__Protos__TracePacket TracePacket;
typedef Perfetto__Protos__HeapGraph HeapGraph;
typedef Perfetto__Protos__HeapGraphObject HeapGraphObject;
typedef Perfetto__Protos__HeapGraphType HeapGraphType;
typedef Perfetto__Protos__InternedString InternedString;

#define SEQ                1 /* every packet on one sequence, in order */
#define OBJECTS_PER_PACKET 20000

static void put_varint(hk_buf *b, uint64_t v)
{
    uint8_t x[10];
    int n = 0;
    do {
        x[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    hk_buf_append(b, x, (size_t)n);
}

/* One Trace.packet: the TracePacket's fields, then hprofkit's own (hp may be NULL); two
 * encoded messages one after the other are one message on the wire. */
static void emit(hk_buf *out, TracePacket *tp, Hprofkit__HprofTracePacket *hp)
{
    size_t a = perfetto__protos__trace_packet__get_packed_size(tp);
    size_t b = hp ? hprofkit__hprof_trace_packet__get_packed_size(hp) : 0;
    put_varint(out, 1 << 3 | 2);
    put_varint(out, a + b);
    hk_buf_reserve(out, a + b);
    perfetto__protos__trace_packet__pack(tp, out->data + out->len);
    out->len += a;
    if (hp) {
        hprofkit__hprof_trace_packet__pack(hp, out->data + out->len);
        out->len += b;
    }
}

static void packet_init(TracePacket *tp, const hk_dump *d)
{
    perfetto__protos__trace_packet__init(tp);
    tp->has_timestamp = 1;
    tp->timestamp = hk_dump_timestamp_ms(d) * 1000000ull;
    tp->optional_trusted_packet_sequence_id_case =
        PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
    tp->trusted_packet_sequence_id = SEQ;
}

static void process_tree(hk_buf *out, const hk_dump *d, int pid, const char *process)
{
    if (!process) return;
    Perfetto__Protos__ProcessTree pt = PERFETTO__PROTOS__PROCESS_TREE__INIT;
    Perfetto__Protos__ProcessTree__Process pr = PERFETTO__PROTOS__PROCESS_TREE__PROCESS__INIT;
    Perfetto__Protos__ProcessTree__Process *prs[1] = {&pr};
    char *cmd[1] = {(char *)process};
    pr.has_pid = 1;
    pr.pid = pid;
    pr.n_cmdline = 1;
    pr.cmdline = cmd;
    pt.n_processes = 1;
    pt.processes = prs;
    TracePacket tp;
    packet_init(&tp, d);
    tp.process_tree = &pt;
    emit(out, &tp, NULL);
}

/* ---- embedded HPROF ---- */

static void embedded(hk_buf *out, const hk_dump *d, const hk_trace_write_opts *o)
{
    size_t chunk = o->chunk_bytes ? o->chunk_bytes : 4u << 20;
    uint32_t idx = 0;
    for (size_t off = 0; off < hk_view(d)->size || idx == 0; off += chunk, idx++) {
        size_t n = hk_view(d)->size - off < chunk ? hk_view(d)->size - off : chunk;
        Hprofkit__HprofDump hd = HPROFKIT__HPROF_DUMP__INIT;
        hd.has_pid = 1;
        hd.pid = o->pid;
        hd.has_hprof_data = 1;
        hd.hprof_data.data = (uint8_t *)hk_view(d)->data + off;
        hd.hprof_data.len = n;
        hd.has_chunk_index = 1;
        hd.chunk_index = idx;
        hd.has_last_chunk = 1;
        hd.last_chunk = off + n >= hk_view(d)->size;
        Hprofkit__HprofTracePacket hp = HPROFKIT__HPROF_TRACE_PACKET__INIT;
        hp.hprof_dump = &hd;
        TracePacket tp;
        packet_init(&tp, d);
        emit(out, &tp, &hp);
        if (hd.last_chunk) break;
    }
    for (size_t i = 0; i < o->nimages; i++) {
        Hprofkit__HprofBitmap hb = HPROFKIT__HPROF_BITMAP__INIT;
        char name[40];
        snprintf(name, sizeof name, "0x%llx.png", (unsigned long long)o->images[i].ptr);
        hb.has_pid = 1;
        hb.pid = o->pid;
        hb.filename = name;
        hb.has_png_image = 1;
        hb.png_image.data = o->images[i].png.data;
        hb.png_image.len = o->images[i].png.len;
        Hprofkit__HprofTracePacket hp = HPROFKIT__HPROF_TRACE_PACKET__INIT;
        hp.hprof_bitmap = &hb;
        TracePacket tp;
        packet_init(&tp, d);
        emit(out, &tp, &hp);
    }
}

/* ---- heap graph ---- */

/* Type ids: class k is 2k+1, its class object's type "java.lang.Class<name>" 2k+2; primitive
 * arrays the dump has no class for get 2n+1+t. */
static uint64_t type_of_class(uint32_t c)
{
    return 2 * (uint64_t)c + 1;
}

typedef struct hg {
    hk_dump *d;
    InternedString **fields; /* field names, iid = index + 1 */
    size_t nfields, capfields;
    uint64_t *class_field0;  /* iid of class k's first own field (its fields are consecutive) */
    uint64_t *static_field0; /* iid of class k's first static */
} hg;

static uint64_t add_field(hg *h, const char *cls, const char *name)
{
    h->fields = hk_grow(h->fields, &h->capfields, h->nfields + 1, sizeof *h->fields);
    InternedString *s = hk_xcalloc(1, sizeof *s);
    perfetto__protos__interned_string__init(s);
    size_t n = strlen(cls) + strlen(name) + 2;
    char *t = hk_xcalloc(n, 1);
    snprintf(t, n, "%s.%s", cls, name);
    s->has_iid = 1;
    s->iid = h->nfields + 1;
    s->has_str = 1;
    s->str.data = (uint8_t *)t;
    s->str.len = n - 1;
    h->fields[h->nfields++] = s;
    return s->iid;
}

static HeapGraphType *new_type(uint64_t id, const char *name)
{
    HeapGraphType *t = hk_xcalloc(1, sizeof *t);
    perfetto__protos__heap_graph_type__init(t);
    t->has_id = 1;
    t->id = id;
    t->class_name = hk_xstrdup(name);
    return t;
}

static HeapGraphType **make_types(hg *h, size_t *ntypes)
{
    hk_dump *d = h->d;
    size_t n = 2 * (size_t)hk_view(d)->nclasses + 12;
    HeapGraphType **types = hk_xcalloc(n, sizeof *types);
    h->class_field0 = hk_xcalloc(hk_view(d)->nclasses + 1, sizeof *h->class_field0);
    h->static_field0 = hk_xcalloc(hk_view(d)->nclasses + 1, sizeof *h->static_field0);
    size_t k = 0;
    for (uint32_t c = 0; c < hk_view(d)->nclasses; c++) {
        hk_class *cl = &hk_view(d)->classes[c];
        HeapGraphType *t = new_type(type_of_class(c), cl->name);
        t->has_object_size = 1;
        t->object_size = cl->instance_size;
        if (cl->super != HK_NONE) {
            t->has_superclass_id = 1;
            t->superclass_id = type_of_class(cl->super);
        }
        t->has_classloader_id = 1;
        t->classloader_id = cl->loader_id;
        uint32_t nref = 0;
        for (uint16_t f = 0; f < cl->nfields; f++) nref += cl->fields[f].type == HK_T_OBJECT;
        t->n_reference_field_id = nref;
        t->reference_field_id = hk_xcalloc(nref ? nref : 1, sizeof *t->reference_field_id);
        nref = 0;
        for (uint16_t f = 0; f < cl->nfields; f++)
            if (cl->fields[f].type == HK_T_OBJECT)
                t->reference_field_id[nref++] = add_field(h, cl->name, cl->fields[f].name);
        h->static_field0[c] = h->nfields + 1;
        for (uint16_t s = 0; s < cl->nstatics; s++)
            if (cl->statics[s].type == HK_T_OBJECT) add_field(h, cl->name, cl->statics[s].name);
        types[k++] = t;
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "java.lang.Class<%s>", cl->name);
        types[k++] = new_type(type_of_class(c) + 1, tmp);
    }
    static const char *const prim[12] = {0,         0,          0,        0,         "boolean[]", "char[]",
                                         "float[]", "double[]", "byte[]", "short[]", "int[]",     "long[]"};
    for (int p = 4; p < 12; p++)
        if (hk_view(d)->prim_array_class[p] == HK_NONE)
            types[k++] = new_type(2 * (uint64_t)hk_view(d)->nclasses + 1 + p, prim[p]);
    *ntypes = k;
    return types;
}

static int heap_type(const hk_dump *d, int heap)
{
    const char *n = heap >= 0 ? hk_heap_name(d, heap) : NULL;
    if (!n) return 0;
    if (!strcmp(n, "app")) return PERFETTO__PROTOS__HEAP_GRAPH_OBJECT__HEAP_TYPE__HEAP_TYPE_APP;
    if (!strcmp(n, "zygote")) return PERFETTO__PROTOS__HEAP_GRAPH_OBJECT__HEAP_TYPE__HEAP_TYPE_ZYGOTE;
    if (!strcmp(n, "image")) return PERFETTO__PROTOS__HEAP_GRAPH_OBJECT__HEAP_TYPE__HEAP_TYPE_BOOT_IMAGE;
    return 0;
}

static void set_values(hk_dump *d, uint32_t i, const char *cls, HeapGraphObject *o)
{
    hk_value v;
    if (!strcmp(cls, "libcore.util.NativeAllocationRegistry") && hk_instance_field(d, i, "size", &v) &&
        v.type == HK_T_LONG) {
        o->has_native_allocation_registry_size_field = 1;
        o->native_allocation_registry_size_field = v.i;
    } else if (!strcmp(cls, "android.graphics.Bitmap")) {
        if (hk_instance_field(d, i, "mWidth", &v) && v.type == HK_T_INT) {
            o->has_bitmap_width_field = 1;
            o->bitmap_width_field = (uint32_t)v.i;
        }
        if (hk_instance_field(d, i, "mHeight", &v) && v.type == HK_T_INT) {
            o->has_bitmap_height_field = 1;
            o->bitmap_height_field = (uint32_t)v.i;
        }
        if (hk_instance_field(d, i, "mId", &v) && v.type == HK_T_LONG) {
            o->has_bitmap_id_field = 1;
            o->bitmap_id_field = v.i;
        }
        if (hk_instance_field(d, i, "mSourceId", &v) && v.type == HK_T_LONG) {
            o->has_bitmap_source_id_field = 1;
            o->bitmap_source_id_field = v.i;
        }
    } else if (!strcmp(cls, "android.content.pm.ApplicationInfo") && hk_instance_field(d, i, "longVersionCode", &v) &&
               v.type == HK_T_LONG) {
        o->has_application_info_long_version_code_field = 1;
        o->application_info_long_version_code_field = v.i;
    }
}

/* One object as HeapGraphObject; references in the layout order a reader maps back by type. */
static void make_object(hg *h, uint32_t i, HeapGraphObject *o, int *last_heap)
{
    hk_dump *d = h->d;
    perfetto__protos__heap_graph_object__init(o);
    o->identifier_case = PERFETTO__PROTOS__HEAP_GRAPH_OBJECT__IDENTIFIER_ID;
    o->id = hk_obj_id(d, i);
    o->has_self_size = 1;
    o->self_size = hk_obj_shallow_size(d, i);
    int ht = heap_type(d, hk_obj_heap(d, i));
    if (ht != *last_heap) {
        o->has_heap_type_delta = 1;
        o->heap_type_delta = ht;
        *last_heap = ht;
    }
    o->has_type_id = 1;
    uint32_t c = hk_obj_class(d, i);
    switch (hk_obj_kind(d, i)) {
    case HK_KIND_INSTANCE: {
        o->type_id = type_of_class(c);
        uint32_t nf, len;
        const hk_field *f = hk_class_layout(d, &hk_view(d)->classes[c], &nf);
        const uint8_t *data = hk_instance_data(d, i, &len);
        o->reference_object_id = hk_xcalloc(nf ? nf : 1, sizeof *o->reference_object_id);
        for (uint32_t k = 0; k < nf; k++)
            if (f[k].type == HK_T_OBJECT)
                o->reference_object_id[o->n_reference_object_id++] =
                    f[k].offset + hk_view(d)->id_size <= len ? hk_be_id(d, data + f[k].offset) : 0;
        set_values(d, i, hk_view(d)->classes[c].name, o);
        break;
    }
    case HK_KIND_OBJ_ARRAY: {
        o->type_id = c != HK_NONE ? type_of_class(c) : type_of_class(0);
        uint32_t n = hk_array_length(d, i);
        o->n_reference_object_id = n;
        o->reference_object_id = hk_xcalloc(n ? n : 1, sizeof *o->reference_object_id);
        for (uint32_t k = 0; k < n; k++) o->reference_object_id[k] = hk_obj_array_at(d, i, k);
        break;
    }
    case HK_KIND_PRIM_ARRAY:
        o->type_id =
            c != HK_NONE ? type_of_class(c) : 2 * (uint64_t)hk_view(d)->nclasses + 1 + hk_prim_array_type(d, i);
        break;
    default: {
        /* a class object: its static references, each named by its field */
        hk_class *cl = hk_class_by_id(d, o->id);
        o->type_id = type_of_class(cl->index) + 1;
        o->reference_object_id = hk_xcalloc(cl->nstatics + 1, sizeof *o->reference_object_id);
        o->reference_field_id = hk_xcalloc(cl->nstatics + 1, sizeof *o->reference_field_id);
        uint64_t iid = h->static_field0[cl->index];
        for (uint16_t s = 0; s < cl->nstatics; s++) {
            if (cl->statics[s].type != HK_T_OBJECT) continue;
            o->reference_field_id[o->n_reference_field_id++] = iid++;
            o->reference_object_id[o->n_reference_object_id++] = cl->statics[s].value.ref;
        }
    }
    }
}

static int root_type(int tag)
{
    switch (tag) {
    case HPROF_ROOT_JNI_GLOBAL: return 1;
    case HPROF_ROOT_JNI_LOCAL: return 2;
    case HPROF_ROOT_JAVA_FRAME: return 3;
    case HPROF_ROOT_NATIVE_STACK: return 4;
    case HPROF_ROOT_STICKY_CLASS: return 5;
    case HPROF_ROOT_THREAD_BLOCK: return 6;
    case HPROF_ROOT_MONITOR_USED: return 7;
    case HPROF_ROOT_THREAD_OBJECT: return 8;
    case HPROF_ROOT_INTERNED_STRING: return 9;
    case HPROF_ROOT_FINALIZING: return 10;
    case HPROF_ROOT_DEBUGGER: return 11;
    case HPROF_ROOT_REFERENCE_CLEANUP: return 12;
    case HPROF_ROOT_VM_INTERNAL: return 13;
    case HPROF_ROOT_JNI_MONITOR: return 14;
    default: return 0;
    }
}

static void free_objects(HeapGraphObject *objs, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        free(objs[k].reference_object_id);
        free(objs[k].reference_field_id);
    }
}

static void heap_graph(hk_buf *out, hk_dump *d, const hk_trace_write_opts *opts)
{
    hg h = {.d = d};
    size_t ntypes;
    HeapGraphType **types = make_types(&h, &ntypes);
    /* roots grouped by kind */
    Perfetto__Protos__HeapGraphRoot roots[15], *rootp[15];
    size_t nroots = 0;
    for (int t = 0; t < 15; t++) {
        Perfetto__Protos__HeapGraphRoot *r = &roots[nroots];
        perfetto__protos__heap_graph_root__init(r);
        r->object_ids = hk_xcalloc(hk_view(d)->nroots + 1, sizeof *r->object_ids);
        for (uint32_t k = 0; k < hk_view(d)->nroots; k++)
            if (root_type(hk_view(d)->roots[k].type) == t) r->object_ids[r->n_object_ids++] = hk_view(d)->roots[k].id;
        if (!r->n_object_ids) {
            free(r->object_ids);
            continue;
        }
        r->has_root_type = 1;
        r->root_type = t;
        rootp[nroots++] = r;
    }
    HeapGraphObject *objs = hk_xcalloc(OBJECTS_PER_PACKET, sizeof *objs);
    HeapGraphObject **objp = hk_xcalloc(OBJECTS_PER_PACKET, sizeof *objp);
    int last_heap = -1;
    uint64_t index = 0;
    uint32_t i = 0;
    do {
        size_t n = 0;
        for (; i < hk_view(d)->nobjects && n < OBJECTS_PER_PACKET; i++, n++) {
            make_object(&h, i, &objs[n], &last_heap);
            objp[n] = &objs[n];
        }
        HeapGraph g = PERFETTO__PROTOS__HEAP_GRAPH__INIT;
        g.has_pid = 1;
        g.pid = opts->pid;
        g.n_objects = n;
        g.objects = objp;
        if (index == 0) {
            g.n_types = ntypes;
            g.types = types;
            g.n_field_names = h.nfields;
            g.field_names = h.fields;
            g.n_roots = nroots;
            g.roots = rootp;
        }
        g.has_continued = 1;
        g.continued = i < hk_view(d)->nobjects;
        g.has_index = 1;
        g.index = index;
        TracePacket tp;
        packet_init(&tp, d);
        tp.heap_graph = &g;
        Hprofkit__HprofTracePacket hp = HPROFKIT__HPROF_TRACE_PACKET__INIT;
        hp.has_heap_graph_from_hprof = 1;
        hp.heap_graph_from_hprof = 1;
        emit(out, &tp, index == 0 ? &hp : NULL);
        free_objects(objs, n);
        index++;
    } while (i < hk_view(d)->nobjects);
    free(objs);
    free(objp);
    for (size_t r = 0; r < nroots; r++) free(rootp[r]->object_ids);
    for (size_t k = 0; k < ntypes; k++) {
        free(types[k]->class_name);
        free(types[k]->reference_field_id);
        free(types[k]);
    }
    free(types);
    for (size_t k = 0; k < h.nfields; k++) {
        free(h.fields[k]->str.data);
        free(h.fields[k]);
    }
    free(h.fields);
    free(h.class_field0);
    free(h.static_field0);
}

int hk_trace_write(hk_dump *d, const hk_trace_write_opts *opts, const char *path, char *err, size_t errlen)
{
    hk_buf out;
    hk_buf_init(&out);
    process_tree(&out, d, opts->pid, opts->process);
    if (opts->heap_graph) heap_graph(&out, d, opts);
    else embedded(&out, d, opts);
    int rc = hk_file_write_atomic(path, out.data, out.len, err, errlen);
    hk_buf_free(&out);
    return rc;
}
