/*
 * The heap graph: references, referrers, reachability, dominators, retained and native
 * sizes, shortest paths from GC roots.  Everything is computed lazily on first use and
 * attached to the dump (hk_dump_attach, freed when it closes).
 *
 * Edges.  An object's references are its instance fields of object type (inherited ones
 * too), the elements of an object array, and for a class its superclass, its loader and
 * its static fields of object type.  An instance's class is not an edge (as in Shark; ahat
 * follows ART's shadow$_klass_ field, see the README's conventions table): classes are kept
 * by their loaders and by STICKY_CLASS roots.  References to ids
 * that are not in the dump are dropped.
 *
 * Strong and weak edges.  One rule decides an edge's strength, for reachability, paths and
 * dominators alike (hkg_ref_kind and the class layouts in graph_refs.c): the `referent`
 * field of a java.lang.ref.Reference subclass (and ART's `zombie` on FinalizerReference) is
 * a non-strong edge of its kind; every other edge, including the next/prev links of the
 * finalizer and Cleaner lists, is strong.  So `reachability` and `path` agree: a path is
 * marked weak exactly when it must cross a referent.
 *
 * The live heap.  The objects that GC roots reach over strong edges are the live heap, and
 * their dominators and retained sizes depend on the live heap alone: only edges between
 * live objects are dominator edges.  An object held only by a WeakReference is not retained
 * by it, and garbage (or a weakly reachable object) that points into the live heap never
 * changes a live object's dominator or retained size.  The rest hangs off the virtual root
 * as a forest of its own: objects with no strong referrer become its children, then any
 * remaining cycle is entered at its lowest object index, and retained sizes there are
 * computed over that forest.  So the virtual root's retained size is every byte of the
 * heap, counted once.
 *
 * Sizes are the dump's own (hk_obj_shallow_size); native sizes (NativeAllocationRegistry
 * via sun.misc.Cleaner) are kept apart from them.
 */
#ifndef HK_GRAPH_H
#define HK_GRAPH_H

#include "hprof/hprof.h"
#include "util/hk_idmap.h"

/* Reachability strength, weakest first so that "stronger" compares greater. */
enum hk_reach {
    HK_REACH_UNREACHABLE = 0,
    HK_REACH_PHANTOM = 1,
    HK_REACH_FINALIZER = 2,
    HK_REACH_WEAK = 3,
    HK_REACH_SOFT = 4,
    HK_REACH_STRONG = 5
};
#define HK_REACH_COUNT 6
const char *hk_graph_reach_name(int reach);

/* Phases, for hk_graph_ensure. */
enum {
    HK_GRAPH_REFS = 1,
    HK_GRAPH_REFERRERS = 2,
    HK_GRAPH_REACH = 4,
    HK_GRAPH_NATIVE = 8,
    HK_GRAPH_DOM = 16,
    HK_GRAPH_PATHS = 32
};

/* Computes the phases in mask (and what they need) unless cached: 0, or -1 with err. */
int hk_graph_ensure(hk_dump *d, int mask, char *err, size_t errlen);
/* Declares, before any is built, the phases a caller will ask for, so that what a later phase
 * walks is kept: the forward references outlive the dominators when references or paths are
 * in mask (otherwise they are freed then and built again if asked for).  Builds nothing.
 * *held (when not NULL) gets the mask of the phases computed and still held. */
int hk_graph_plan(hk_dump *d, int mask, int *held, char *err, size_t errlen);

/* ---- references (HK_GRAPH_REFS) ---- */
/* Strong references of obj as object indices (a slice of the index). */
const uint32_t *hk_graph_out(hk_dump *d, uint32_t obj, uint32_t *n);
/* The weak edge(s) of a Reference object: up to 2; returns their count. */
int hk_graph_weak_out(hk_dump *d, uint32_t obj, uint32_t to[2], int kind[2]);
/* GC roots resolved to object indices, without duplicates. */
const uint32_t *hk_graph_root_objects(hk_dump *d, uint32_t *n);
uint64_t hk_graph_edge_count(hk_dump *d); /* strong + weak */

/* ---- referrers (HK_GRAPH_REFERRERS) ---- */
/* Strong referrers of obj (a slice); weak referrers through hk_graph_weak_referrers. */
const uint32_t *hk_graph_referrers(hk_dump *d, uint32_t obj, uint32_t *n);
/* Reference objects whose referent is obj; fills up to max, returns the total. */
uint32_t hk_graph_weak_referrers(hk_dump *d, uint32_t obj, uint32_t *out, uint32_t max);
uint64_t hk_graph_referrer_bytes(hk_dump *d); /* memory of the referrer index */

/* ---- reachability (HK_GRAPH_REACH) ---- */
int hk_graph_reach(hk_dump *d, uint32_t obj); /* enum hk_reach */
void hk_graph_reach_totals(hk_dump *d, uint64_t count[HK_REACH_COUNT], uint64_t bytes[HK_REACH_COUNT]);

/* ---- native sizes (HK_GRAPH_NATIVE) ---- */
uint64_t hk_graph_native_size(hk_dump *d, uint32_t obj);
/* Per class index (d->nclasses entries, caller frees): the native sizes of its instances (of
 * heap `heap`, or every heap when it is -1) summed.  -1 with err when the graph fails. */
int hk_graph_class_native(hk_dump *d, int heap, uint64_t **out, char *err, size_t errlen);

/* ---- dominators (HK_GRAPH_DOM, needs REFERRERS and NATIVE) ---- */
/* Immediate dominator, HK_NONE for the virtual root. */
uint32_t hk_graph_idom(hk_dump *d, uint32_t obj);
uint64_t hk_graph_retained(hk_dump *d, uint32_t obj);        /* Java bytes */
uint64_t hk_graph_retained_native(hk_dump *d, uint32_t obj); /* native bytes */
/* 1 when the virtual root has an edge to obj: a GC root, or an object attached because
 * no root reaches it (see the top of this file). */
int hk_graph_virtual_child(hk_dump *d, uint32_t obj);
/* Totals of the virtual root: every object's bytes. */
uint64_t hk_graph_total_bytes(hk_dump *d);
uint64_t hk_graph_total_native(hk_dump *d);
/* Objects immediately dominated by obj (HK_NONE: the virtual root), largest retained
 * first; a slice valid until the next call or the dump closes.  -1 with err when the
 * dominators are not computed or there is no such object. */
int hk_graph_dominated(hk_dump *d, uint32_t obj, const uint32_t **out, uint32_t *n, char *err, size_t errlen);
/* What hk_graph_top ranks by: retained bytes (HK_GRAPH_DOM), shallow bytes, native bytes
 * (HK_GRAPH_NATIVE), retained native bytes (HK_GRAPH_DOM). */
enum hk_top_key { HK_TOP_RETAINED, HK_TOP_SHALLOW, HK_TOP_NATIVE, HK_TOP_RETAINED_NATIVE };
/* The n objects with the largest key, largest first (ties: larger retained size, then lower
 * object index first); returns how many.  Keeps only the n best while it walks the objects,
 * never a row per object.  live_only: strongly reachable objects only (needs HK_GRAPH_REACH).
 * keep (NULL: every object): which objects may be listed, asked only of those large enough to
 * be.  out has room for n. */
typedef int (*hk_obj_filter)(const hk_dump *d, uint32_t obj, void *ctx);
uint32_t hk_graph_top(hk_dump *d, uint32_t n, enum hk_top_key key, int live_only, hk_obj_filter keep, void *ctx,
                      uint32_t *out);
/* The instances of class index cls (on heap index heap; -1: every heap) by retained size, or by
 * shallow size, largest first (ties: lower object index first): those at [offset, offset + n)
 * go to out (room for n), *written of them; *total is how many instances there are.  0, or -1
 * with err when the dominators cannot be built. */
int hk_graph_rank_instances(hk_dump *d, uint32_t cls, int heap, int by_shallow, uint32_t offset, uint32_t n,
                            uint32_t *out, uint32_t *written, uint64_t *total, char *err, size_t errlen);
/* Retained bytes per class index (d->nclasses entries, caller frees): the retained size
 * of the set of the class's instances, i.e. the sum over the instances that no other
 * instance of the same class dominates (at any depth).
 * Primitive arrays without a class in the dump are not counted.  Computes the dominators
 * when they are not yet (their scratch memory then serves the walk). */
int hk_graph_class_retained(hk_dump *d, uint64_t **out, char *err, size_t errlen);
/* The same within one heap (ahat's AhatInstance.getRetainedSize(heap)): per class index
 * (d->nclasses entries, caller frees), the bytes in heap `heap` of the retained sets of the
 * class's instances in that heap that no other instance of the class dominates.  Class
 * objects count as java.lang.Class, in their class's heap. */
int hk_graph_class_retained_heap(hk_dump *d, int heap, uint64_t **out, char *err, size_t errlen);
/* Says, before the dominators are computed, that hk_graph_class_retained will be asked for:
 * the dominators then keep their scratch as the walk's child lists (memory they already
 * hold) instead of freeing it for the walk to fault in fresh pages. */
int hk_graph_plan_class_retained(hk_dump *d, char *err, size_t errlen);

/* Says, before the dominators are computed, that paths (hk_graph_path_to) will be asked for
 * after them: the whole search from the roots then runs ahead of them, while the forward
 * references are there anyway, and its parents (4 bytes an object) stay instead of the
 * references (4 bytes an object and one a reference), which the dominators then free unless
 * references were planned too.  The paths are the same as a search resumed on demand gives. */
int hk_graph_plan_paths_first(hk_dump *d, char *err, size_t errlen);
/* Says that the per-class instance lists (hk_class_instances) will be asked for after the walks
 * by class: a walk that finds them gone makes them from its class codes (no record read). */
int hk_graph_plan_class_lists(hk_dump *d, char *err, size_t errlen);

/* Frees the dominator tree's child lists (8 bytes an object), for a caller done with the
 * per-class walk that wants the memory for other work first; hk_graph_dominated and the walk
 * build them again when asked. */
void hk_graph_drop_kids(hk_dump *d);

/* Frees the phases in mask (HK_GRAPH_DOM, HK_GRAPH_REFERRERS, HK_GRAPH_PATHS) and what they
 * hold, for a caller done with them (the heap diff, between its two sides); asked for again,
 * they are computed again. */
void hk_graph_drop(hk_dump *d, int mask);
/* Hands over the retained sizes (4 bytes an object, HKG_RET_BIG where the size is in *big,
 * keyed by object index + 1) and frees the rest of the dominators; NULL when there are none. */
uint32_t *hk_graph_take_retained(hk_dump *d, hk_idtab *big);

/* ---- paths (HK_GRAPH_PATHS) ---- */
typedef struct hk_graph_step {
    uint32_t obj; /* object index */
    /* how this object holds the next one: field name, "[12]" or "static X" (empty on the
     * last step); a weak referent is named as its field */
    char via[96];
} hk_graph_step;
typedef struct hk_graph_path {
    int found;           /* 0: not reachable from any root */
    const hk_root *root; /* the root record the path starts from */
    int weak;            /* the path crosses a weak/soft/phantom/finalizer edge */
    uint32_t nsteps;
    hk_graph_step *steps; /* steps[0] is the root object, the last is the target */
} hk_graph_path;
/* Shortest path from a GC root to obj over strong edges, preferring roots that are not
 * thread-local or low-priority, and paths that do not enter the finalizer/cleaner lists
 * (their links are strong: such a path is not weak); when no strong path exists, weak
 * referents are crossed (path->weak = 1, exactly when reachability is not strong). */
int hk_graph_path_to(hk_dump *d, uint32_t obj, hk_graph_path *path, char *err, size_t errlen);
void hk_graph_path_free(hk_graph_path *path);
/* Names the edge src -> dst into buf ("field", "[3]", "static X", "<super>", "<loader>");
 * returns 0, or -1 when src does not reference dst. */
int hk_graph_edge_name(hk_dump *d, uint32_t src, uint32_t dst, char *buf, size_t len);
/* 1 for roots held by a thread or by native code (frames, JNI locals, native stacks, thread
 * blocks, JNI monitors, JNI globals), 2 for low-priority roots (unknown, unreachable, debugger, finalizing,
 * reference cleanup), 0 for the rest. */
int hk_graph_root_rank(int root_type);

#endif
