/*
 * What a leak trace says of an object besides its path: how many objects it retains (the
 * size of its dominator subtree, itself included, as LeakCanary's "Retaining N B in M
 * objects" counts them) and which GC roots hold it.
 */
#ifndef HK_GRAPH_HOLDERS_H
#define HK_GRAPH_HOLDERS_H

#include "graph/graph.h"

/* Objects in obj's dominator subtree, obj included, a String's value array not counted apart
 * from its String (needs HK_GRAPH_DOM); 0 without it. */
uint64_t hk_graph_retained_count(hk_dump *d, uint32_t obj);

/* The root records (indices into d->roots) whose objects strongly reach obj: a walk back
 * from obj over strong referrers, which stops at a class object that a root holds (a class
 * holds its statics for as long as it is loaded: its own root says so) and visits at most
 * max_visit objects.  At most max records go to out; *n gets how many were found, *complete
 * 0 when the walk stopped at max_visit.  Needs HK_GRAPH_REFERRERS.  0, or -1 with err. */
int hk_graph_holding_roots(hk_dump *d, uint32_t obj, uint32_t max_visit, uint32_t *out, uint32_t max, uint32_t *n,
                           int *complete, char *err, size_t errlen);

#endif
