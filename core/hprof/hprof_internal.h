/* The dump's representation, byte readers, record layouts and the index's internal steps: for
 * core/hprof/ files, the core layers that walk the object table directly (core/graph's hot loops,
 * core/trace, core/bitmap) and the Lua host. Plugins and the SDK see hk_dump as an opaque handle. */
#ifndef HK_HPROF_INTERNAL_H
#define HK_HPROF_INTERNAL_H

#include "hprof/hprof.h"
#include "util/hk_idmap.h"

typedef struct hk_heap_range {
    uint64_t offset; /* records at or after this file offset ... */
    uint8_t heap;    /* ... belong to this heap index */
} hk_heap_range;

typedef struct hk_idseg {
    uint32_t start; /* first object index whose id has this high word */
    uint32_t hi;
} hk_idseg;

/* The id -> object index directory: buckets over the low id words of each segment (ids are
 * addresses, near uniform), so a lookup reads one bucket and searches the few ids in it.  The
 * dump keeps a sparse one; the graph's reference pass builds a denser one for itself. */
typedef struct hk_iddir {
    uint32_t *bucket; /* segment s's buckets start at bucket[base[s]]; each ends where the next starts */
    uint32_t *base;   /* nsegs + 1 entries: base[s + 1] - 1 ends segment s's buckets */
    uint32_t *min;    /* lowest low id word of segment s */
    uint32_t *shift;  /* bucket of an id: (low - min[s]) >> shift[s] */
} hk_iddir;

#define HK_MAX_ATTACHED 8

struct hk_dump {
    char *path;
    const uint8_t *data;
    size_t size;
    int mapped; /* data is an mmap (else malloc'd, e.g. from gzip) */

    char format[24]; /* "JAVA PROFILE 1.0.3" */
    uint32_t id_size;
    uint64_t timestamp_ms;

    /* objects, sorted by id */
    uint32_t nobjects;
    uint32_t *id_lo;
    uint32_t *off_lo;
    uint8_t *off_hi;
    hk_idseg *segs;
    uint32_t nsegs;
    hk_iddir dir; /* about 8 objects a bucket; empty for small dumps (binary search) */

    /* counts */
    uint32_t ninstances, nobj_arrays, nprim_arrays;
    /* the heap walk: parts it was cut into, parts walked again after a wrong guessed cut */
    uint32_t walk_parts, walk_rewalked;

    uint32_t header_size;

    hk_idtab strings;    /* string id -> offset of the STRING record body */
    hk_idtab load_names; /* class id -> name string id, from LOAD_CLASS */
    /* allocation stacks: frame id -> STACK_FRAME body, serial -> STACK_TRACE body,
     * class serial -> class id (frames name their class by serial); keys are stored + 1,
     * as ART counts frame ids and serials from 0 and a table key of 0 means empty */
    hk_idtab frames, traces, class_serials;
    hk_map *map; /* the R8/ProGuard map applied to the names, NULL for none */
    /* classes */
    hk_class *classes;
    uint32_t nclasses;
    hk_idmap class_by_id;          /* class id -> index in classes */
    uint32_t class_class;          /* java.lang.Class, HK_NONE when absent */
    uint32_t string_class;         /* java.lang.String */
    uint32_t prim_array_class[12]; /* element type -> class index of "T[]", or HK_NONE */

    hk_root *roots;
    uint32_t nroots;

    char *heap_names[HK_MAX_HEAPS];
    uint32_t heap_ids[HK_MAX_HEAPS];
    uint32_t nheaps;
    hk_heap_range *heap_ranges;
    uint32_t nheap_ranges;

    /* per-class counts from the pass, [class index][heap] */
    uint32_t *class_counts;
    uint64_t *class_bytes;
    /* primitive arrays without a class in the dump, by element type and heap */
    uint32_t prim_counts[12][HK_MAX_HEAPS];
    uint64_t prim_bytes[12][HK_MAX_HEAPS];
    /* class objects, when the dump has no java.lang.Class to count them under */
    uint32_t class_obj_counts[HK_MAX_HEAPS];
    uint64_t class_obj_bytes[HK_MAX_HEAPS];

    /* array lengths mod 16 per array class, then per element type for primitive arrays without
     * a class ([nclasses + 12][16]): the padding a JVM layout adds depends on them */
    uint32_t *array_res;
    /* the JVM layout the sizes follow (hprof_layout.h), NULL: the dump's own sizes */
    struct hk_layout_state *layout;

    /* every object's size when the dump records some apart from its classes
     * (HPROF_HK_OBJECT_SIZES), else NULL */
    uint64_t *obj_sizes;
    /* what the dump was made from when it was not an HPROF file (a Perfetto trace): lines
     * "key: value", NULL for an HPROF file */
    char *source;
    /* PNGs that came with an embedded dump (HprofBitmap), keyed by native pointer */
    hk_dump_image *images;
    size_t nimages;

    /* lazily built: instances grouped by class (CSR over object indices) */
    uint32_t *by_class_start;
    uint32_t *by_class;

    /* string arena for names */
    char **arena;
    size_t narena, arena_used, arena_cap;

    /* state the floors above keep with the dump (the graph, the bitmap list): hk_dump_attach */
    struct hk_attached {
        const void *key;
        void *state;
        void (*free_fn)(void *state);
    } attached[HK_MAX_ATTACHED];
    unsigned nattached;
};

static inline uint64_t hk_obj_offset(const hk_dump *d, uint32_t i)
{
    return (uint64_t)d->off_hi[i] << 32 | d->off_lo[i];
}
static inline int hk_obj_kind_tag(const hk_dump *d, uint32_t i)
{
    return d->data[hk_obj_offset(d, i)];
}

static inline uint16_t hk_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t hk_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t hk_be64(const uint8_t *p)
{
    return (uint64_t)hk_be32(p) << 32 | hk_be32(p + 4);
}
/* An id of idsz bytes (for inner loops that keep the id size at hand). */
static inline hk_id hk_be_idn(const uint8_t *p, uint32_t idsz)
{
    return idsz == 4 ? hk_be32(p) : hk_be64(p);
}
static inline hk_id hk_be_id(const hk_dump *d, const uint8_t *p)
{
    return hk_be_idn(p, d->id_size);
}

/* The segment holding sorted position i (needs d->nsegs >= 1). */
static inline uint32_t hk_seg_of(const hk_dump *d, uint32_t i)
{
    uint32_t lo = 0, hi = d->nsegs;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (d->segs[mid].start <= i) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The segment whose ids have high word hiw, if any holds it: the last segment with hi <= hiw
 * (the caller compares d->segs[s].hi). Needs d->nsegs >= 1. */
static inline uint32_t hk_seg_find(const hk_dump *d, uint32_t hiw)
{
    uint32_t lo = 0, hi = d->nsegs;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (d->segs[mid].hi <= hiw) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Builds a directory of about per_bucket objects a bucket over d's object table. */
void hk_iddir_build(hk_iddir *t, const hk_dump *d, uint32_t per_bucket);
void hk_iddir_free(hk_iddir *t);
/* What the directory takes, in bytes. */
uint64_t hk_iddir_bytes(const hk_iddir *t, const hk_dump *d);

/* The object index of id through t, or HK_NONE.  Inline: the graph's reference pass calls it
 * for every reference.  Needs d->nsegs >= 1 and a built t. */
static inline uint32_t hk_iddir_find(const hk_iddir *t, const hk_dump *d, hk_id id)
{
    uint32_t hiw = (uint32_t)(id >> 32), low = (uint32_t)id, s = hk_seg_find(d, hiw);
    if (d->segs[s].hi != hiw || low < t->min[s]) return HK_NONE;
    uint32_t k = (low - t->min[s]) >> t->shift[s];
    if (k >= t->base[s + 1] - t->base[s] - 1) return HK_NONE;
    const uint32_t *bk = t->bucket + t->base[s];
    uint32_t a = bk[k], b = bk[k + 1];
    const uint32_t *ids = d->id_lo;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (ids[mid] < low) a = mid + 1;
        else b = mid;
    }
    return a < bk[k + 1] && ids[a] == low ? a : HK_NONE;
}

/* Heap-dump sub-record layouts; r points at the sub-record tag.
 * INSTANCE_DUMP: id, stack serial u4, class id, length u4, data.
 * OBJ_ARRAY_DUMP / PRIM_ARRAY_DUMP: id, stack serial u4, length u4, class id / element type. */
static inline hk_id hk_rec_instance_class(const hk_dump *d, const uint8_t *r)
{
    return hk_be_id(d, r + 1 + d->id_size + 4);
}
static inline const uint8_t *hk_rec_instance_data(const hk_dump *d, const uint8_t *r, uint32_t *len)
{
    *len = hk_be32(r + 1 + 2 * d->id_size + 4);
    return r + 1 + 2 * d->id_size + 8;
}
static inline uint32_t hk_rec_array_length(const hk_dump *d, const uint8_t *r)
{
    return hk_be32(r + 1 + d->id_size + 4);
}
static inline const uint8_t *hk_rec_obj_array_elems(const hk_dump *d, const uint8_t *r)
{
    return r + 1 + 2 * d->id_size + 8;
}

/* hk_type_size for the hot loop: one table lookup */
static inline int hk_type_size_fast(uint32_t id_size, int type)
{
    static const int8_t sz[16] = {-1, -1, 0, -1, 1, 2, 4, 8, 1, 2, 4, 8, -1, -1, -1, -1};
    if (type < 0 || type > 15) return -1;
    return type == HK_T_OBJECT ? (int)id_size : sz[type];
}

/* A String's value, count, offset and coder fields as its record holds them (has_* 0 when the
 * layout lacks the field or the record is too short for it). */
typedef struct hk_string_fields {
    hk_value value, count, offset, coder;
    uint8_t has_value, has_count, has_offset, has_coder;
} hk_string_fields;
/* hk_string_chars in two steps, for scans that read the fields their own way or resolve the
 * value array ahead: -1 when obj is not a String. */
int hk_string_fields_read(hk_dump *d, uint32_t obj, hk_string_fields *sf);
/* The characters the fields say; array: the value array's index when known, else HK_NONE. */
int hk_string_chars_of(hk_dump *d, const hk_string_fields *sf, uint32_t array, hk_chars *out);

int hk_index_build(hk_dump *d, hk_progress_fn progress, void *pctx, char *err, size_t errlen);
/* Applies hprofkit's own records (HPROF_HK_*) found at these record offsets, after the
 * classes and counters are built. */
int hk_ext_apply(hk_dump *d, const uint64_t *offs, size_t n, char *err, size_t errlen);
int hk_classes_build(hk_dump *d, const uint64_t *class_offs, size_t n, char *err, size_t errlen);

#endif
