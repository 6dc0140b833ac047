/* The heap graph's arrays, published read-only to the analyses above it (core/diff), whose
 * hot loops read edges, class layouts and the reference pass's notes directly where a call
 * per edge through graph.h would cost too much.  Only core/graph/ writes them (through
 * graph_internal.h); a floor above includes graph.h and this, never graph_internal.h. */
#ifndef HK_GRAPH_VIEW_H
#define HK_GRAPH_VIEW_H

#include "graph/graph.h"
#include "hprof/hprof_view.h"
#include "util/hk_idmap.h"

/* Per-class edge layout: which instance-data offsets hold references. */
typedef struct hkg_class_refs {
    uint32_t start, count; /* slice of hk_graph.ref_offs: strong reference fields */
    uint32_t woff[2];      /* weak referent fields (referent, zombie) */
    uint8_t nweak, wkind;  /* count and enum hk_reach of the weak fields */
    uint8_t list_link;     /* finalizer/Cleaner list object: paths do not enter */
    uint8_t cleaner;       /* sun.misc.Cleaner or a subclass */
} hkg_class_refs;

/* One weak edge; the array is sorted by src (built in object order). */
typedef struct hkg_weak {
    uint32_t src, dst;
    uint8_t kind;
} hkg_weak;

/* Per-object flag bits. */
enum {
    HKG_F_WEAK = 1,
    HKG_F_ROOT = 2,
    HKG_F_LIST = 4,
    HKG_F_VROOT = 8 /* virtual root -> obj */,
    HKG_F_RNATIVE = 16, /* has an entry in retained_native */
    HKG_REACH_SHIFT = 5 /* the bits above hold the object's enum hk_reach */
};

/* What the reference pass notes per object, while it reads the record anyway, for a caller
 * that would otherwise read every record again (the heap diff's matcher): HKG_NOTE_WORDS
 * words an object at words + HKG_NOTE_WORDS * i, the first two the caller's own (set to
 * HK_NONE), then the object's info and bits. */
typedef struct hkg_notes {
    uint32_t *words;
    int filled; /* set when the pass filled them */
} hkg_notes;
enum { HKG_NOTE_WORDS = 4, HKG_NOTE_INFO = 2, HKG_NOTE_BITS = 3 };

/* Note info: enum hk_kind << 29 | the class index's low 29 bits; HK_NONE for a class object
 * or an instance of an unknown class; a primitive array without a class in the dump:
 * HKG_PRIM(its element type). */
#define HKG_PRIM(t) (HK_NONE - 16 + (uint32_t)(t))
static inline uint32_t hkg_note_info(int kind, uint32_t cls)
{
    return (uint32_t)kind << 29 | (cls & 0x1fffffff);
}
/* Note bits of an instance: bit k set when strong reference slot k (of hkg_class_refs) is
 * non-null, for a class of 1 to 32 such slots (else 0).  Of an object array: for one of up
 * to HKG_SMALL_MAX elements, HKG_SMALL_ARRAY | its length << HKG_SMALL_MAX | bit k set when
 * element k is non-null; for a longer one its length, 0 when it does not fit in 31 bits.
 * Of a primitive array: its record's size (hk_obj_record_size), 0 when it does not fit.
 * Other objects: 0. */
#define HKG_SMALL_ARRAY 0x80000000u
#define HKG_SMALL_MAX   26
static inline uint32_t hkg_array_note(uint32_t len, uint32_t nonnull)
{
    if (len <= HKG_SMALL_MAX) return HKG_SMALL_ARRAY | len << HKG_SMALL_MAX | (nonnull & ((1u << HKG_SMALL_MAX) - 1));
    return len < HKG_SMALL_ARRAY ? len : 0;
}
/* An object array's length from its note bits; HK_NONE when they do not hold it. */
static inline uint32_t hkg_array_note_len(uint32_t bits)
{
    if (bits & HKG_SMALL_ARRAY) return bits >> HKG_SMALL_MAX & 31;
    return bits ? bits : HK_NONE;
}
/* The class a primitive array's record notes (see hkg_note_info). */
static inline uint32_t hkg_prim_class(const hk_dump *d, const uint8_t *r)
{
    const hk_dump_view *v = hk_view(d);
    int t = r[1 + v->id_size + 8];
    uint32_t c = t < 12 ? v->prim_array_class[t] : HK_NONE;
    if (c == HK_NONE) c = HKG_PRIM(*r == HPROF_PRIM_ARRAY_DUMP || *r == HPROF_PRIM_ARRAY_NODATA ? t : 0);
    return c;
}

/* A class id's index (HK_NONE: unknown) through a small direct-mapped cache in front of the
 * dump's id map, for passes over every record: most objects are of a few classes. */
typedef struct hkg_class_cache {
    hk_id ids[256];
    uint32_t idx[256];
} hkg_class_cache;
static inline uint32_t hkg_cached_class(const hk_dump *d, hkg_class_cache *cc, hk_id cid)
{
    uint32_t h = (uint32_t)((cid * 0x9e3779b97f4a7c15ULL) >> 56);
    if (cc->ids[h] != cid || !cid) {
        cc->ids[h] = cid;
        cc->idx[h] = hk_class_index(d, cid);
    }
    return cc->idx[h];
}

struct hk_graph;
/* The key the graph attaches itself to a dump under (hk_dump_attach), and the graph of d (NULL
 * before any phase ran); the graph is attached first, so it is found in the first slot. */
extern const char hkg_key;
static inline struct hk_graph *hkg_of(const hk_dump *d)
{
    const hk_dump_view *v = hk_view(d);
    return v->nattached && v->attached[0].key == &hkg_key ? v->attached[0].state : hk_dump_attached(d, &hkg_key);
}

typedef struct hk_graph {
    int done;   /* mask of computed phases */
    uint32_t n; /* objects */
    /* a dense id -> index directory (about 2 objects a bucket) while the reference pass runs
     * (empty after: hkg_find then uses the index's own) */
    hk_iddir finder;
    /* forward references */
    hkg_class_refs *cls; /* per class index */
    uint32_t *ref_offs;
    uint32_t *out_start, *out; /* CSR, n + 1 starts */
    uint64_t nout;
    hkg_weak *weak;
    uint32_t nweak;
    uint8_t *flags;
    int keep_out;       /* the caller wants out/out_start after dominators */
    int keep_in;        /* ... and the referrers */
    uint32_t *cleaners; /* instances of Cleaner classes, for native sizes */
    uint32_t ncleaners;
    uint32_t *roots; /* distinct root objects */
    uint32_t nroots;
    hkg_notes *notes; /* filled by the next reference pass, then NULL (hkg_note_next_refs) */
    /* referrers, compact: most objects have one referrer, stored in place; the others
     * point (HKG_IN_MANY | pos) into in_many, where in_many[pos] is the count and the
     * referrers follow.  HK_NONE: no referrer. */
    uint32_t *in1, *in_many;
    uint64_t nin_many;
    /* reachability: in the flags' top bits (hkg_reach) */
    uint64_t reach_count[HK_REACH_COUNT], reach_bytes[HK_REACH_COUNT];
    int reach_summed; /* the two above are filled on first use */
    /* native */
    uint64_t *native; /* NULL when the dump has none */
    /* dominators */
    struct dom_work *search; /* their search of the live heap, when run ahead of them */
    uint32_t *idom;          /* HK_NONE: the virtual root */
    /* retained bytes by object (slot n: the virtual root), read through hkg_retained: in 4
     * bytes, HKG_RET_BIG for the few objects retaining 4 GiB or more, whose sizes are in
     * retained_big (keyed by object index + 1) */
    uint32_t *retained;
    hk_idtab retained_big;
    /* retained native bytes, only where not 0 (the few objects above a native allocation
     * in the dominator tree), keyed by object index + 1 */
    hk_idtab retained_native;
    uint64_t total_bytes, total_native;
    /* dominator tree children (lazy), by object (slot n: the virtual root): first child and
     * next sibling, in object order */
    struct hkg_kid *kids;
    /* the virtual root's children again, as an array in object order: every root and every
     * object nothing else dominates, spread over the whole object range, where following the
     * list misses the cache on each one */
    uint32_t *root_kids, nroot_kids;
    uint32_t *kid_buf; /* a list copied out and sorted for hk_graph_dominated */
    size_t kid_cap;
    /* set by the per-class walk when it asks for dominators: their scratch is not freed to
     * be faulted in again, but becomes the child lists (as big as two of their arrays) */
    int walk_classes;
    /* the whole dump's retained bytes by class (slot nclasses: none) as a walk within one heap
     * finds them on its way (graph_heap_retained.c), for the whole dump's walk to hand out */
    uint64_t *class_retained;
    /* paths */
    /* set by hk_graph_plan_paths_first: the whole search runs ahead of the dominators */
    int paths_first;
    /* set by hk_graph_plan_class_lists: the per-class lists, asked for again after the walks
     * by class, made from the walks' class codes instead of every object's record; the
     * codes kept for them (graph_codes.c) */
    int lists_after;
    struct hkg_codes *codes;
    uint32_t *parent;                /* ~BFS parent (~HKG_P_ROOT: a root; 0: not reached yet) */
    uint8_t *pweak;                  /* reached only through weak edges or list links */
    struct hkg_path_search *psearch; /* the search that fills them, resumed on demand */
} hk_graph;

#define HKG_P_ROOT  (UINT32_MAX - 1)
#define HKG_RET_BIG UINT32_MAX

/* Retained bytes of object i (n: the virtual root), once the dominators are built. */
static inline uint64_t hkg_retained(const hk_graph *g, uint32_t i)
{
    uint64_t big = 0;
    if (g->retained[i] != HKG_RET_BIG) return g->retained[i];
    hk_idtab_get(&g->retained_big, (uint64_t)i + 1, &big);
    return big;
}
#define HKG_IN_MANY 0x80000000u

/* Reachability strength of object i (0 until computed). */
static inline int hkg_reach(const hk_graph *g, uint32_t i)
{
    return g->flags[i] >> HKG_REACH_SHIFT;
}

/* The forward references of obj as a slice, for loops that know HK_GRAPH_REFS is built (a
 * call of hk_graph_out per object, with its checks, costs more than the look-up). */
static inline const uint32_t *hkg_out(const hk_graph *g, uint32_t obj, uint32_t *n)
{
    *n = g->out_start[obj + 1] - g->out_start[obj];
    return g->out + g->out_start[obj];
}

/* The strong referrers of v as a slice. */
static inline const uint32_t *hkg_in(const hk_graph *g, uint32_t v, uint32_t *n)
{
    uint32_t x = g->in1[v];
    if (x == HK_NONE) {
        *n = 0;
        return NULL;
    }
    if (!(x & HKG_IN_MANY)) {
        *n = 1;
        return &g->in1[v];
    }
    x &= ~HKG_IN_MANY;
    *n = g->in_many[x];
    return g->in_many + x + 1;
}

uint32_t hkg_find(const hk_dump *d, const hk_graph *g, hk_id id);
/* Has the next reference pass, if one is still to run for HK_GRAPH_REFS, fill notes (it
 * sets notes->filled); when the references are there already, notes are left unfilled.
 * NULL: no notes (the caller's array is going away). */
void hkg_note_next_refs(hk_dump *d, hkg_notes *notes);

/* Shallow sizes read from the records (not stored: 4 bytes per object), for loops over
 * every object: most neighbours are instances of the same class, so the last class's
 * size is remembered. */
typedef struct hkg_sizer {
    hk_id cid;
    uint32_t size;
} hkg_sizer;
uint64_t hkg_shallow(const hk_dump *d, hkg_sizer *s, uint32_t i);
/* First index in g->weak whose src is obj (the weak edges of obj follow it). */
uint32_t hkg_weak_first(const hk_graph *g, uint32_t obj);

#endif
