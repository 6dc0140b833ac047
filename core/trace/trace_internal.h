/* The trace reader's model: what the packets of one trace say, per process, before it
 * becomes an HPROF (trace_hprof.c). */
#ifndef HK_TRACE_INTERNAL_H
#define HK_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"
#include "util/hk_buf.h"
#include "util/hk_idmap.h"

/* Values a heap graph records for some objects (HeapGraphObject's "value fields"). */
enum pf_value_kind {
    PF_V_NATIVE_SIZE,
    PF_V_BITMAP_ID,
    PF_V_BITMAP_SOURCE_ID,
    PF_V_BITMAP_WIDTH,
    PF_V_BITMAP_HEIGHT,
    PF_V_VERSION_CODE,
    PF_V_COUNT
};

/* 24 bytes an object: a graph holds tens of millions of them while it becomes an HPROF. */
typedef struct pf_obj {
    uint64_t id;
    uint32_t ref_start; /* in refs[]; its references run to the next object's ref_start */
    uint32_t type;      /* in type_ids[]: the graph's type id (types may be defined later) */
    uint32_t self_size; /* when has_size; PF_BIG_SIZE: the size is in big_sizes */
    uint8_t has_size;
    uint8_t heap;       /* HeapGraphObject.HeapType */
    uint8_t has_fields; /* field ids given per object (class objects, old traces): in ref_fields[] */
    uint8_t values;     /* bit per pf_value_kind */
} pf_obj;
#define PF_BIG_SIZE      UINT32_MAX
#define PF_RUNTIME_FIELD UINT64_MAX /* the field of a runtime_internal_object_id reference */

typedef struct pf_value {
    uint32_t obj;
    uint8_t kind;
    int64_t v;
} pf_value;

typedef struct pf_type {
    uint64_t id;
    char *name;
    uint64_t object_size;
    uint64_t superclass_id; /* 0: none */
    uint64_t classloader_id;
    uint64_t location_id;
    int kind;         /* HeapGraphType.Kind */
    uint64_t *fields; /* field name iids of its own reference fields */
    uint32_t nfields;
} pf_type;

typedef struct pf_string {
    uint64_t iid;
    char *s;
} pf_string;
typedef struct pf_root {
    uint64_t id;
    int type;
} pf_root;

/* One heap graph: the chain of HeapGraph packets of one process on one sequence. */
typedef struct pf_graph {
    int pid;
    uint32_t seq;
    uint64_t ts; /* first packet's timestamp, ns */
    uint64_t next_index;
    int done;         /* saw continued = false */
    uint32_t missing; /* packets missing from the index chain */
    uint64_t last_id; /* for id_delta */
    int heap;         /* heap_type_delta carries over */

    pf_obj *objs;
    size_t nobjs, capobjs;
    uint32_t *refs32; /* the referenced ids while every one fits 32 bits (ART's do) */
    uint64_t *refs;   /* else, once one does not: pf_ref reads either */
    size_t nrefs, caprefs;
    uint64_t *type_ids; /* pf_obj.type -> the type id objects name */
    size_t ntype_ids, captype_ids;
    hk_idmap type_ix; /* type id + 1 -> index in type_ids */
    /* the rare parts, by object index + 1: field ids of objects that name them (a start in
     * ref_fields[]), runtime-internal reference counts (they follow the fields), big sizes */
    uint64_t *ref_fields;
    size_t nref_fields, capref_fields;
    hk_idmap field_start, runtime_count, big_size;
    uint64_t *big_sizes;
    size_t nbig_sizes, capbig_sizes;
    pf_value *vals;
    size_t nvals, capvals;
    pf_type *types;
    size_t ntypes, captypes;
    pf_string *fields;
    size_t nfields, capfields;
    pf_string *locations;
    size_t nlocations, caplocations;
    pf_root *roots;
    size_t nroots, caproots;
} pf_graph;

/* One embedded HPROF (hprofkit.HprofDump chunks) and its bitmaps. */
typedef struct pf_png {
    int pid;
    uint64_t ptr;
    char *name;
    hk_buf png;
} pf_png;
typedef struct pf_embedded {
    int pid;
    uint32_t seq;
    uint64_t ts;
    hk_buf data;
    uint32_t next_chunk;
    int done;         /* saw last_chunk */
    uint32_t missing; /* a chunk index skipped */
} pf_embedded;

/* a process the trace names: its pid and command line's first word */
typedef struct pf_proc {
    int pid;
    char *name;
} pf_proc;

/* A heapprofd dump, only listed here (core/native reads profiles). */
typedef struct pf_profile {
    int pid;
    uint64_t ts;
    char *heap;
    size_t samples;
} pf_profile;

typedef struct pf_trace {
    pf_graph *graphs;
    size_t ngraphs, capgraphs;
    pf_embedded *dumps;
    size_t ndumps, capdumps;
    pf_png *pngs;
    size_t npngs, cappngs;
    pf_profile *profiles;
    size_t nprofiles, capprofiles;
    pf_proc *procs;
    size_t nprocs, capprocs;
    uint64_t packets, other_packets, compressed;
    size_t truncated_at; /* where the trace is cut, SIZE_MAX when whole */
    int from_hprof;      /* written by hprofkit's convert: no zygote/image roots */
    uint32_t warnings;
    hk_buf notes; /* one line per warning kind, for info */
} pf_trace;

void pf_warn(pf_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* trace_graph.c: one HeapGraph packet into its graph. */
struct Perfetto__Protos__HeapGraph;
void pf_graph_add(pf_trace *t, uint32_t seq, uint64_t ts, const struct Perfetto__Protos__HeapGraph *hg);
void pf_graph_free(pf_graph *g);
/* An object's references: how many, the field id of its r-th (PF_RUNTIME_FIELD for a
 * runtime-internal one, 0 when neither the object nor its type names it), its type id and the
 * size it records. */
uint32_t pf_nrefs(const pf_graph *g, size_t oi);
static inline uint64_t pf_ref(const pf_graph *g, size_t i)
{
    return g->refs ? g->refs[i] : g->refs32[i];
}
uint64_t pf_ref_field(const pf_graph *g, size_t oi, uint32_t r);
uint64_t pf_type_id(const pf_graph *g, const pf_obj *o);
uint64_t pf_self_size(const pf_graph *g, size_t oi);

/* trace_hprof.c: the graph as an Android-dialect HPROF with hprofkit's size and kind records:
 * in out, or, for a graph whose records pass 4 MB (HPROFKIT_SPILL_BYTES), in the unlinked
 * scratch file *out_fd (else -1), so the rebuilt dump is file pages rather than anonymous
 * memory. */
int pf_graph_to_hprof(pf_trace *t, pf_graph *g, hk_buf *out, int *out_fd, char *err, size_t errlen);

#endif
