/*
 * Leak paths: shortest paths from GC roots to a set of leaking objects, searched the way
 * LeakCanary searches them.  References that are known library leaks are followed last and
 * references to ignore are never followed, so that a path through a known platform leak is
 * only reported when no other path exists (and is then a library leak), and roots held by
 * thread stacks are tried after the others.
 *
 * One breadth-first search over strong edges serves every target; it stops when all targets
 * are reached.  It does not use the cached path forest (graph_path.c): its result depends on
 * the rules the caller gives.  It needs the forward references only while it runs, so asking
 * for them does not plan them kept past the dominators (hk_graph_plan).
 */
#ifndef HK_GRAPH_LEAKPATH_H
#define HK_GRAPH_LEAKPATH_H

#include "graph/graph.h"

/* A reference pattern.  Instance fields match on instances of cls and its subclasses; static
 * fields on the class object of cls.  Root patterns are given per root record instead (see
 * hk_leak_query.root_rule). */
typedef struct hk_leak_ref {
    uint32_t cls;      /* class index */
    const char *field; /* field name */
    int is_static;
    int ignore; /* 1: never followed; 0: a library leak, followed last */
} hk_leak_ref;

typedef struct hk_leak_query {
    const uint32_t *targets; /* object indices */
    uint32_t ntargets;
    const hk_leak_ref *refs;
    uint32_t nrefs;
    /* per root record (d->nroots entries, or NULL): -1 an ordinary root, -2 a root to
     * ignore, k >= 0 a library-leak root matched by the caller's rule k */
    const int32_t *root_rule;
} hk_leak_query;

typedef struct hk_leak_path {
    int found;
    uint32_t nsteps;
    uint32_t *objs; /* objs[0] is the root object, the last the target */
    int32_t root;   /* index of the root record in d->roots */
    /* the library-leak rule the path crosses: a ref index, or the root's rule (root_rule),
     * -1 for none; ref_step is the step whose reference matched (-1 for a root rule) */
    int32_t rule;
    int32_t rule_step;
    int rule_is_root;
} hk_leak_path;

/* Fills out[ntargets]; 0, or -1 with err (out of memory, a bad argument). */
int hk_graph_leak_paths(hk_dump *d, const hk_leak_query *q, hk_leak_path *out, char *err, size_t errlen);
void hk_leak_paths_free(hk_leak_path *p, uint32_t n);

#endif
