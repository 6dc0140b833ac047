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

typedef struct pf_obj {
    uint64_t id;
    uint64_t type_id;
    uint64_t self_size; /* when has_size */
    uint64_t ref_start; /* in refs[] / ref_fields[] */
    uint32_t nrefs;
    uint8_t has_size;
    uint8_t heap;       /* HeapGraphObject.HeapType */
    uint8_t has_fields; /* ref_fields[] given per object (class objects, old traces) */
    uint8_t values;     /* bit per pf_value_kind */
} pf_obj;

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
    uint64_t *refs, *ref_fields;
    size_t nrefs, caprefs;
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

typedef struct pf_trace {
    pf_graph *graphs;
    size_t ngraphs, capgraphs;
    pf_embedded *dumps;
    size_t ndumps, capdumps;
    pf_png *pngs;
    size_t npngs, cappngs;
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

/* trace_hprof.c: the graph as an Android-dialect HPROF with hprofkit's size and kind records. */
int pf_graph_to_hprof(pf_trace *t, pf_graph *g, hk_buf *out, char *err, size_t errlen);

#endif
