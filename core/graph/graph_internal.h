/* How the graph builds its state, shared by core/graph/ files only (the state itself, read-only
 * to the floors above, is graph_view.h). */
#ifndef HK_GRAPH_INTERNAL_H
#define HK_GRAPH_INTERNAL_H

#include "graph/graph.h"
#include "graph/graph_view.h"
#include "hprof/hprof_view.h"
#include "util/hk_idmap.h"

/* A node of the dominator tree's child lists: HK_NONE ends a list. */
typedef struct hkg_kid {
    uint32_t first, next;
} hkg_kid;

static inline void hkg_set_reach(hk_graph *g, uint32_t i, int level)
{
    g->flags[i] = (uint8_t)((g->flags[i] & ((1u << HKG_REACH_SHIFT) - 1)) | (unsigned)level << HKG_REACH_SHIFT);
}

int hkg_build_referrers(hk_dump *d, hk_graph *g, char *err, size_t errlen);
/* The referrer index in nparts parts (on up to as many threads): the same for any count. */
int hkg_referrers_in_parts(hk_graph *g, int nparts, char *err, size_t errlen);
int hkg_build_reach(hk_dump *d, hk_graph *g, char *err, size_t errlen);
int hkg_build_native(hk_dump *d, hk_graph *g, char *err, size_t errlen);
void hkg_drop_out(hk_graph *g);
void hkg_drop_referrers(hk_graph *g);
int hkg_build_dom(hk_dump *d, hk_graph *g, char *err, size_t errlen);
/* The dominators' depth-first search of the live heap (from the roots over strong edges),
 * ahead of them: it reads only the edges, so it runs beside the referrers. */
void hkg_search_live(hk_graph *g);
/* Its preorder numbers by object: below *live_end exactly for the strongly reachable. */
const uint32_t *hkg_search_numbers(const hk_graph *g, uint32_t *live_end);
void hkg_search_free(hk_graph *g);
/* Reachability from that search: the strong level is what it numbered. */
void hkg_reach_after_search(hk_graph *g);
/* The dominator tree's child lists (hk_graph.kids), in object order within a list: in mem
 * (n + 1 entries) when given, else in memory of their own. */
void hkg_build_kids(hk_graph *g, hkg_kid *mem);
/* graph_codes.c: each object's class as a code for the walks (slot n, the virtual root, and
 * objects without a class: `none`, a slot past the classes, so a walk counts them without a
 * test); 16 bits when the classes fit, nearly every dump.  From the per-class lists when they
 * are kept, else from the records; class objects count as java.lang.Class. */
typedef struct hkg_codes {
    uint16_t *c16;
    uint32_t *c32;
    uint32_t none;
} hkg_codes;
static inline uint32_t hkg_code_at(const hkg_codes *s, uint32_t i)
{
    return s->c16 ? s->c16[i] : s->c32[i];
}
hkg_codes hkg_object_codes(hk_dump *d, uint32_t n);
void hkg_codes_free(hkg_codes *cs);
/* Done with a walk's codes of all objects: the graph keeps them (g->codes) when the per-class
 * lists are planned (hk_graph_plan_class_lists) and gone, else they are freed. */
void hkg_codes_done(hk_dump *d, hk_graph *g, hkg_codes *cs);
/* The kept codes made into the dump's per-class lists (when it has none), then freed. */
void hkg_codes_lists(hk_dump *d, hk_graph *g);
int hkg_build_paths(hk_dump *d, hk_graph *g, char *err, size_t errlen);
void hkg_paths_free(hk_graph *g);
/* Runs the path search (built) to its end: hk_graph_plan_paths_first's work. */
void hkg_paths_whole(hk_dump *d, hk_graph *g);
int hkg_paths_complete(const hk_graph *g); /* the search has run to its end */
/* graph_path_local.c: the path to one strongly reachable object found by the same search run
 * over its ancestors only (through the referrers), when they are at most max: *chain gets the
 * objects from obj to the root (caller frees), the count is returned (0: not found within
 * max); *visited: how many ancestors were looked at.  rk: the root objects' seeding order. */
typedef struct hkg_root_keys hkg_root_keys;
hkg_root_keys *hkg_root_keys_make(hk_dump *d, hk_graph *g);
void hkg_root_keys_free(hkg_root_keys *rk);
/* The root record (an index into d->roots) obj is seeded from: the first of its best rank; -1
 * when no record names it. */
int64_t hkg_root_keys_record(const hkg_root_keys *rk, uint32_t obj);
uint32_t hkg_path_local(const hk_graph *g, const hkg_root_keys *rk, uint32_t obj, uint32_t max, uint32_t **chain,
                        uint32_t *visited);

#endif
