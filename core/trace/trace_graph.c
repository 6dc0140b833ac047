/* HeapGraph packets into one graph per process: the continued/index chain, id_delta,
 * reference_field_id_base, heap_type_delta carried over, types and interned names. */
#include "trace/trace_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

#include "trace.pb-c.h"

typedef Perfetto__Protos__HeapGraph HeapGraph;
typedef Perfetto__Protos__HeapGraphObject HeapGraphObject;

void pf_graph_free(pf_graph *g)
{
    free(g->objs);
    free(g->refs);
    free(g->refs32);
    free(g->type_ids);
    hk_idmap_free(&g->type_ix);
    free(g->ref_fields);
    hk_idmap_free(&g->field_start);
    hk_idmap_free(&g->runtime_count);
    hk_idmap_free(&g->big_size);
    free(g->big_sizes);
    free(g->vals);
    for (size_t i = 0; i < g->ntypes; i++) {
        free(g->types[i].name);
        free(g->types[i].fields);
    }
    free(g->types);
    for (size_t i = 0; i < g->nfields; i++) free(g->fields[i].s);
    free(g->fields);
    for (size_t i = 0; i < g->nlocations; i++) free(g->locations[i].s);
    free(g->locations);
    free(g->roots);
}

uint32_t pf_nrefs(const pf_graph *g, size_t oi)
{
    return (uint32_t)((oi + 1 < g->nobjs ? g->objs[oi + 1].ref_start : g->nrefs) - g->objs[oi].ref_start);
}

uint64_t pf_ref_field(const pf_graph *g, size_t oi, uint32_t r)
{
    const uint32_t *rt = hk_idmap_get(&g->runtime_count, (uint64_t)oi + 1);
    if (rt && r >= pf_nrefs(g, oi) - *rt) return PF_RUNTIME_FIELD;
    const uint32_t *fs = g->objs[oi].has_fields ? hk_idmap_get(&g->field_start, (uint64_t)oi + 1) : NULL;
    return fs ? g->ref_fields[*fs + r] : 0;
}

uint64_t pf_type_id(const pf_graph *g, const pf_obj *o)
{
    return g->type_ids[o->type];
}

uint64_t pf_self_size(const pf_graph *g, size_t oi)
{
    const pf_obj *o = &g->objs[oi];
    if (o->self_size != PF_BIG_SIZE) return o->self_size;
    const uint32_t *b = hk_idmap_get(&g->big_size, (uint64_t)oi + 1);
    return b ? g->big_sizes[*b] : o->self_size;
}

static pf_graph *graph_for(pf_trace *t, uint32_t seq, int pid, uint64_t index, uint64_t ts)
{
    for (size_t i = t->ngraphs; i-- > 0;) {
        pf_graph *g = &t->graphs[i];
        if (g->seq == seq && g->pid == pid && !g->done) return g;
    }
    t->graphs = hk_grow(t->graphs, &t->capgraphs, t->ngraphs + 1, sizeof *t->graphs);
    pf_graph *g = &t->graphs[t->ngraphs++];
    memset(g, 0, sizeof *g);
    g->seq = seq;
    g->pid = pid;
    g->ts = ts;
    hk_idmap_init(&g->type_ix);
    hk_idmap_init(&g->field_start);
    hk_idmap_init(&g->runtime_count);
    hk_idmap_init(&g->big_size);
    (void)index;
    return g;
}

static void add_strings(pf_string **v, size_t *n, size_t *cap, Perfetto__Protos__InternedString **src, size_t ns)
{
    for (size_t i = 0; i < ns; i++) {
        *v = hk_grow(*v, cap, *n + 1, sizeof **v);
        (*v)[*n].iid = src[i]->has_iid ? src[i]->iid : 0;
        (*v)[*n].s = src[i]->has_str ? hk_xstrndup((const char *)src[i]->str.data, src[i]->str.len) : hk_xstrdup("");
        if (!(*v)[*n].s) hk_oom();
        (*n)++;
    }
}

static void add_value(pf_graph *g, uint32_t obj, int kind, int64_t v)
{
    g->vals = hk_grow(g->vals, &g->capvals, g->nvals + 1, sizeof *g->vals);
    g->vals[g->nvals].obj = obj;
    g->vals[g->nvals].kind = (uint8_t)kind;
    g->vals[g->nvals].v = v;
    g->nvals++;
    g->objs[obj].values |= (uint8_t)(1u << kind);
}

static uint32_t type_index(pf_graph *g, uint64_t type_id)
{
    int ins;
    uint32_t *v = hk_idmap_put(&g->type_ix, type_id + 1, (uint32_t)g->ntype_ids, &ins);
    if (ins) {
        g->type_ids = hk_grow(g->type_ids, &g->captype_ids, g->ntype_ids + 1, sizeof *g->type_ids);
        g->type_ids[g->ntype_ids++] = type_id;
    }
    return *v;
}

static void put_rare(hk_idmap *m, size_t oi, uint32_t v)
{
    int ins;
    *hk_idmap_put(m, (uint64_t)oi + 1, v, &ins) = v;
}

/* The object's references: its fields' (with their ids when it names them), then those through
 * runtime structures, which have no field. */
static void add_ref(pf_graph *g, uint64_t id)
{
    if (!g->refs && id > UINT32_MAX) {
        /* the first id past 32 bits: the list widens once */
        g->refs = hk_xmalloc((g->caprefs ? g->caprefs : 1) * sizeof *g->refs);
        for (size_t i = 0; i < g->nrefs; i++) g->refs[i] = g->refs32[i];
        free(g->refs32);
        g->refs32 = NULL;
    }
    if (g->refs) g->refs[g->nrefs++] = id;
    else g->refs32[g->nrefs++] = (uint32_t)id;
}

static void add_refs(pf_graph *g, uint32_t oi, const HeapGraphObject *o)
{
    size_t nr = o->n_reference_object_id + o->n_runtime_internal_object_id;
    if (g->refs) g->refs = hk_grow(g->refs, &g->caprefs, g->nrefs + nr, sizeof *g->refs);
    else g->refs32 = hk_grow(g->refs32, &g->caprefs, g->nrefs + nr, sizeof *g->refs32);
    uint64_t base = o->has_reference_field_id_base ? o->reference_field_id_base : 0;
    for (size_t k = 0; k < o->n_reference_object_id; k++) {
        uint64_t id = o->reference_object_id[k];
        add_ref(g, id ? id + base : 0);
    }
    for (size_t k = 0; k < o->n_runtime_internal_object_id; k++) add_ref(g, o->runtime_internal_object_id[k]);
    if (o->n_runtime_internal_object_id) put_rare(&g->runtime_count, oi, (uint32_t)o->n_runtime_internal_object_id);
    if (!o->n_reference_field_id) return;
    put_rare(&g->field_start, oi, (uint32_t)g->nref_fields);
    g->ref_fields =
        hk_grow(g->ref_fields, &g->capref_fields, g->nref_fields + o->n_reference_object_id, sizeof *g->ref_fields);
    for (size_t k = 0; k < o->n_reference_object_id; k++)
        g->ref_fields[g->nref_fields++] = k < o->n_reference_field_id ? o->reference_field_id[k] : 0;
}

static void add_object(pf_graph *g, const HeapGraphObject *o)
{
    g->objs = hk_grow(g->objs, &g->capobjs, g->nobjs + 1, sizeof *g->objs);
    uint32_t oi = (uint32_t)g->nobjs++;
    pf_obj *po = &g->objs[oi];
    memset(po, 0, sizeof *po);
    po->id = o->identifier_case == PERFETTO__PROTOS__HEAP_GRAPH_OBJECT__IDENTIFIER_ID_DELTA ? g->last_id + o->id_delta
                                                                                            : o->id;
    g->last_id = po->id;
    po->type = type_index(g, o->has_type_id ? o->type_id : 0);
    po->has_size = o->has_self_size && o->self_size; /* Perfetto: 0 means the type's size */
    po->self_size = o->self_size >= PF_BIG_SIZE ? PF_BIG_SIZE : (uint32_t)o->self_size;
    if (po->has_size && o->self_size >= PF_BIG_SIZE) {
        g->big_sizes = hk_grow(g->big_sizes, &g->capbig_sizes, g->nbig_sizes + 1, sizeof *g->big_sizes);
        g->big_sizes[g->nbig_sizes] = o->self_size;
        put_rare(&g->big_size, oi, (uint32_t)g->nbig_sizes++);
    }
    if (o->has_heap_type_delta) g->heap = o->heap_type_delta;
    po->heap = (uint8_t)(g->heap >= 0 && g->heap <= 3 ? g->heap : 0);
    po->ref_start = (uint32_t)g->nrefs;
    po->has_fields = o->n_reference_field_id > 0;
    add_refs(g, oi, o);
    if (o->has_native_allocation_registry_size_field)
        add_value(g, oi, PF_V_NATIVE_SIZE, o->native_allocation_registry_size_field);
    if (o->has_bitmap_id_field) add_value(g, oi, PF_V_BITMAP_ID, o->bitmap_id_field);
    if (o->has_bitmap_source_id_field) add_value(g, oi, PF_V_BITMAP_SOURCE_ID, o->bitmap_source_id_field);
    if (o->has_bitmap_width_field) add_value(g, oi, PF_V_BITMAP_WIDTH, o->bitmap_width_field);
    if (o->has_bitmap_height_field) add_value(g, oi, PF_V_BITMAP_HEIGHT, o->bitmap_height_field);
    if (o->has_application_info_long_version_code_field)
        add_value(g, oi, PF_V_VERSION_CODE, o->application_info_long_version_code_field);
}

void pf_graph_add(pf_trace *t, uint32_t seq, uint64_t ts, const HeapGraph *hg)
{
    int pid = hg->has_pid ? hg->pid : 0;
    uint64_t index = hg->has_index ? hg->index : 0;
    pf_graph *g = graph_for(t, seq, pid, index, ts);
    if (index != g->next_index) {
        if (index > g->next_index) g->missing += (uint32_t)(index - g->next_index);
        else
            pf_warn(t, "heap graph of pid %d: packet index %llu repeats or goes back (expected %llu)", pid,
                    (unsigned long long)index, (unsigned long long)g->next_index);
    }
    g->next_index = index + 1;
    for (size_t i = 0; i < hg->n_objects; i++) add_object(g, hg->objects[i]);
    for (size_t i = 0; i < hg->n_roots; i++) {
        const Perfetto__Protos__HeapGraphRoot *r = hg->roots[i];
        g->roots = hk_grow(g->roots, &g->caproots, g->nroots + r->n_object_ids, sizeof *g->roots);
        for (size_t k = 0; k < r->n_object_ids; k++) {
            g->roots[g->nroots].id = r->object_ids[k];
            g->roots[g->nroots].type = r->has_root_type ? (int)r->root_type : 0;
            g->nroots++;
        }
    }
    for (size_t i = 0; i < hg->n_types; i++) {
        const Perfetto__Protos__HeapGraphType *ty = hg->types[i];
        g->types = hk_grow(g->types, &g->captypes, g->ntypes + 1, sizeof *g->types);
        pf_type *pt = &g->types[g->ntypes++];
        memset(pt, 0, sizeof *pt);
        pt->id = ty->has_id ? ty->id : 0;
        pt->name = hk_xstrdup(ty->class_name ? ty->class_name : "");
        pt->object_size = ty->has_object_size ? ty->object_size : 0;
        pt->superclass_id = ty->has_superclass_id ? ty->superclass_id : 0;
        pt->classloader_id = ty->has_classloader_id ? ty->classloader_id : 0;
        pt->location_id = ty->has_location_id ? ty->location_id : 0;
        pt->kind = ty->has_kind ? (int)ty->kind : 0;
        pt->nfields = (uint32_t)ty->n_reference_field_id;
        pt->fields = hk_xcalloc(pt->nfields ? pt->nfields : 1, sizeof *pt->fields);
        if (pt->nfields) memcpy(pt->fields, ty->reference_field_id, pt->nfields * sizeof *pt->fields);
    }
    add_strings(&g->fields, &g->nfields, &g->capfields, hg->field_names, hg->n_field_names);
    add_strings(&g->locations, &g->nlocations, &g->caplocations, hg->location_names, hg->n_location_names);
    if (!(hg->has_continued && hg->continued)) g->done = 1;
}
