/* The diff's state, shared by core/diff/diff_*.c only. */
#ifndef HK_DIFF_INTERNAL_H
#define HK_DIFF_INTERNAL_H

#include "diff/diff.h"
#include "graph/graph_view.h"
#include "hprof/hprof_layout.h"
#include "hprof/hprof_view.h"
#include "util/hk_idmap.h"

#include <stddef.h>

/* hkd_obj.via markers: an anchor (class object or GC root), not reached from matched objects */
#define HKD_ANCHOR (UINT32_MAX - 1)
#define HKD_UNSEEN UINT32_MAX

/* What the diff keeps per object of a side, in one 16-byte record: the matcher reads and
 * writes all of it for the same object at once, so it is one cache line, not five. */
typedef struct hkd_obj {
    uint32_t match; /* counterpart in the other side, HK_NONE */
    /* matched: the matched object it was paired through, or HKD_ANCHOR.  Unmatched: for the
     * first unmatched object on a path its (matched) holder, or HKD_ANCHOR for an unmatched
     * root; for the rest the first unmatched object above it; HKD_UNSEEN when unreached. */
    uint32_t via;
    uint32_t info; /* enum hk_kind << 29 | class index (see hkd_cls) */
    /* While matching and until hkd_tally, refbits: the graph's note bits (hkg_array_note):
     * for instances, bit k set when strong reference slot k is non-null; for short object
     * arrays the same for element k, with their length; for long ones their length; for
     * primitive arrays their size (0 when it does not fit).  Once matched: for an unmatched object reached from the matched heap the number of its
     * entry (hkd_find_entries; its size until then); for a matched object, in the high half
     * its path id in the by-path trie, 0 before it has one, and in the low half its refbits
     * when they fit there, else 0 (hkd_tally; diff_groups.c). */
    union {
        uint32_t refbits;
        uint32_t entry;
        uint32_t pid;
    };
} hkd_obj;
/* o[] is what the graph's reference pass notes (hkg_notes), match and via set to none */
_Static_assert(sizeof(hkd_obj) == HKG_NOTE_WORDS * sizeof(uint32_t) &&
                   offsetof(hkd_obj, info) == HKG_NOTE_INFO * sizeof(uint32_t) &&
                   offsetof(hkd_obj, refbits) == HKG_NOTE_BITS * sizeof(uint32_t) && HKD_UNSEEN == HK_NONE,
               "hkd_obj is laid out as the graph's notes");

typedef struct hkd_side {
    hk_dump *d;
    const hk_layout *jvm;  /* the JVM layout d's sizes follow, NULL: the dump's own sizes */
    hkd_obj *o;            /* per object, kind and class read once in file order */
    hk_idmap root_type;    /* object index + 1 -> root type, for naming anchors */
    struct hkd_trie *trie; /* the paths interned by hk_diff_by_path, kept for the next call */
    /* the first unmatched objects on their paths, and how many objects and bytes are
     * unmatched under each (itself included) */
    uint32_t *entries, nentries;
    uint32_t *ent_objects;
    uint64_t *ent_bytes;
    /* hkd_tally: unmatched objects by class slot, their totals, the bytes of matched ones */
    hk_diff_class_row *tally;
    uint64_t unmatched, unmatched_bytes, same_bytes;
    /* after hk_diff_side_done: the retained sizes the growers read (the graph's are freed),
     * HKD_BIG where the size is in ret_big (keyed by object index + 1) */
    uint32_t *ret32;
    hk_idtab ret_big;
    /* after hk_diff_side_done: o is NULL and cw holds cstride words an object of what o[]
     * held: its match (unless paired stands for it), its via (at via_at, unless HK_NONE) and
     * its kind and class (at info_at, unless HK_NONE); cw is NULL when none is kept.  paired:
     * one bit an object, set when it has a counterpart, once the match is not kept. */
    uint32_t *cw, cstride, via_at, info_at;
    uint64_t *paired;
    hk_diff_group *groups;
    uint32_t ngroups;
    int lists_later; /* its instance lists are to be filled from o[] (HK_DIFF_BASE_FIRST) */
    /* the tally ran before the dominators: same_bytes waits for the heap's total */
    int same_later, same_pending;
    int dropped; /* its dominators were freed by hk_diff_side_done */
} hkd_side;

struct hk_diff {
    hkd_side s[2];
    uint32_t *cmap; /* BASE class index -> DUMP class index, HK_NONE */
    /* BASE objects in the order they were matched (freed once they are) */
    uint32_t *order;
    size_t order_cap;
    uint32_t nmatched;
    uint64_t anchors_classes, anchors_roots;
    /* hkd_grow_candidates: the pairs that gained elements, taken before the dominators, and
     * which sides' retained sizes are in them (bit side) */
    hk_diff_grower *grow;
    uint32_t (*grow_more)[2]; /* what names each one's element class (diff_grow.c) */
    uint32_t ngrow;
    int grow_taken, grow_sized;
};

#define HKD_PRIM(t) HKG_PRIM(t)

/* An object's kind and class word (hkg_note_info), also once o[] is compacted with them. */
static inline uint32_t hkd_info(const hkd_side *s, uint32_t obj)
{
    return s->o ? s->o[obj].info : s->cw[(size_t)obj * s->cstride + s->info_at];
}
static inline int hkd_kind(const hkd_side *s, uint32_t obj)
{
    return (int)(hkd_info(s, obj) >> 29);
}
/* The class index; primitive arrays without a class: HKD_PRIM(type); class objects: HK_NONE. */
static inline uint32_t hkd_cls(const hkd_side *s, uint32_t obj)
{
    uint32_t c = hkd_info(s, obj) & 0x1fffffff;
    return c >= 0x1fffffe0 ? c | 0xe0000000 : c;
}
static inline void hkd_set_info(hkd_side *s, uint32_t obj, int kind, uint32_t cls)
{
    s->o[obj].info = hkg_note_info(kind, cls);
}
/* 1 when the side's records say each object's kind and class (o[], or kept in cw). */
static inline int hkd_has_kinds(const hkd_side *s)
{
    return s->o || (s->cw && s->info_at != HK_NONE);
}
/* A paired object of a side whose matches are not kept (only which objects are paired):
 * hk_diff_counterpart finds its counterpart in the other side's records. */
#define HKD_PAIRED (UINT32_MAX - 2)
/* An object's match and via, also once o[] is compacted (hk_diff_side_done). */
static inline uint32_t hkd_match(const hkd_side *s, uint32_t obj)
{
    if (s->o) return s->o[obj].match;
    if (s->paired) return s->paired[obj >> 6] >> (obj & 63) & 1 ? HKD_PAIRED : HK_NONE;
    return s->cw[(size_t)obj * s->cstride];
}
static inline uint32_t hkd_via(const hkd_side *s, uint32_t obj)
{
    if (s->o) return s->o[obj].via;
    return s->cw && s->via_at != HK_NONE ? s->cw[(size_t)obj * s->cstride + s->via_at] : HKD_UNSEEN;
}
/* 1 when obj is the first unmatched object on its path (its via is its holder). */
static inline int hkd_is_entry(const hkd_side *s, uint32_t obj)
{
    uint32_t v = hkd_via(s, obj);
    return v == HKD_ANCHOR || (v < hk_view(s->d)->nobjects && hkd_match(s, v) != HK_NONE);
}

/* The growers' candidates (hk_diff_growers without its thresholds) while DUMP's kinds are in
 * o[], so that its records shrink before the dominators; their sizes are read from each side's
 * dominators by hkd_grow_sizes (before BASE's are freed), the thresholds applied when asked. */
void hkd_grow_candidates(hk_diff *df);
void hkd_grow_sizes(hk_diff *df, int side);
/* The matched bytes of a side whose tally ran before its dominators (same_pending). */
void hkd_same_bytes(hk_diff *df, int side);
/* Fills the instance lists of a side whose filling was put off (lists_later), from o[]. */
void hkd_lists_now(hk_diff *df, int side);
/* An object's retained size: the graph's, or what hk_diff_side_done kept of it. */
uint64_t hkd_retained(const hkd_side *s, uint32_t obj);
/* The retained sizes of side: 0, or -1 with err when its dominators cannot be computed. */
int hkd_need_retained(hk_diff *df, int side, char *err, size_t errlen);

/* Sorts v[0..n), distinct object indices below nobj, ascending; bits (nobj / 64 + 1 words) is
 * all zero before and after, *tmp (*tcap values) scratch that grows as needed. */
void hkd_sort_objects(uint32_t *v, uint32_t n, uint32_t nobj, uint64_t *bits, uint32_t **tmp, size_t *tcap);
/* One pass over a side (once), in object order: counts unmatched objects by class and the
 * totals, and finds the entries, first unmatched objects on their paths; then
 * hkd_spread_entries walks down from them. */
void hkd_tally(hk_diff *df, int side);
/* The same, for what needs the entries (hkd_obj.via and .entry of unmatched objects). */
void hkd_find_entries(hk_diff *df, int side);
/* From the nent entries queued in q (the queue has room for every object): each unmatched
 * object's via and entry, what is unmatched under each entry.  An unmatched object that
 * several entries reach counts under the first of them in queue order (object order, then the
 * unmatched roots) that reaches it through unmatched objects that are not entries themselves.
 * Unmatched objects' sizes are in their entry field (HKD_BIG: read again). */
#define HKD_BIG UINT32_MAX
void hkd_spread_entries(hk_diff *df, int side, uint32_t *q, uint32_t nent, const uint32_t *ret);
/* An object's shallow size as the graph counts it; ret: the retained sizes (hk_graph.retained), or NULL. */
uint64_t hkd_shallow(const hkd_side *s, uint32_t obj, const uint32_t *ret);
/* 1 when hkd_find_entries takes the entries from the referrers of the unmatched objects (most
 * of the side matched): the matcher then asks the graph to keep the referrers it builds for
 * the dominators, not to build them a second time. */
int hkd_entries_by_referrers(const hk_diff *df, int side);
void hkd_trie_free(struct hkd_trie *t);
/* A path id this large or larger is kept in the trie, not in hkd_obj.pid. */
#define HKD_PID_BIG 0xffffu
/* Paths are cut at the root end beyond this many steps: a chain down a linked list can be
 * as long as the list. */
#define HKD_MAX_DEPTH 4096
/* Writes a path: the anchor top (or "…" when cut), then the steps src -> dst, top down;
 * repeated steps collapse into "(step)+" and a long path keeps its two ends.  names: the
 * steps' strings where known (NULL entries, or NULL: made with hkd_step). */
void hkd_render(hkd_side *sd, uint32_t top, int cut, const uint32_t (*pairs)[2], const char *const *names, uint32_t n,
                hk_buf *out);
/* The type of a root object (its first root record's), which names it as an anchor. */
int hkd_root_type(hkd_side *sd, uint32_t obj);
/* Appends "Holder.field" naming how src holds dst (arrays: "T[][*]"). */
void hkd_step(hk_dump *d, uint32_t src, uint32_t dst, hk_buf *out);

#endif
