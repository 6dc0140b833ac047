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
    free(g->ref_fields);
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

static void add_object(pf_graph *g, const HeapGraphObject *o)
{
    g->objs = hk_grow(g->objs, &g->capobjs, g->nobjs + 1, sizeof *g->objs);
    uint32_t oi = (uint32_t)g->nobjs++;
    pf_obj *po = &g->objs[oi];
    memset(po, 0, sizeof *po);
    po->id = o->identifier_case == PERFETTO__PROTOS__HEAP_GRAPH_OBJECT__IDENTIFIER_ID_DELTA ? g->last_id + o->id_delta
                                                                                            : o->id;
    g->last_id = po->id;
    po->type_id = o->has_type_id ? o->type_id : 0;
    po->has_size = o->has_self_size && o->self_size; /* Perfetto: 0 means the type's size */
    po->self_size = o->self_size;
    if (o->has_heap_type_delta) g->heap = o->heap_type_delta;
    po->heap = (uint8_t)(g->heap >= 0 && g->heap <= 3 ? g->heap : 0);
    size_t nr = o->n_reference_object_id + o->n_runtime_internal_object_id;
    size_t old_cap = g->caprefs;
    g->refs = hk_grow(g->refs, &g->caprefs, g->nrefs + nr, sizeof *g->refs);
    /* ref_fields[] shares refs[]'s capacity: reallocate only when refs[] grew (a copy per object
       under ASan otherwise, which made reading a heap graph quadratic there) */
    if (g->caprefs != old_cap || !g->ref_fields)
        g->ref_fields = hk_xrealloc(g->ref_fields, g->caprefs * sizeof *g->ref_fields);
    po->ref_start = g->nrefs;
    po->has_fields = o->n_reference_field_id > 0;
    uint64_t base = o->has_reference_field_id_base ? o->reference_field_id_base : 0;
    for (size_t k = 0; k < o->n_reference_object_id; k++) {
        uint64_t id = o->reference_object_id[k];
        g->refs[g->nrefs] = id ? id + base : 0;
        g->ref_fields[g->nrefs] = k < o->n_reference_field_id ? o->reference_field_id[k] : 0;
        g->nrefs++;
    }
    /* references through runtime structures have no field: they follow the fields */
    for (size_t k = 0; k < o->n_runtime_internal_object_id; k++) {
        g->refs[g->nrefs] = o->runtime_internal_object_id[k];
        g->ref_fields[g->nrefs] = UINT64_MAX;
        g->nrefs++;
    }
    po->nrefs = (uint32_t)(g->nrefs - po->ref_start);
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
