/* What the index found, read-only, for the floors above whose hot loops read records straight
 * from the mapping (core/graph's reference pass, the heap diff, the duplicates scan, the trace
 * export): the dump's bytes, the object table (ids and record offsets), the class table, and
 * the inline readers of record layouts.  Only core/hprof/ writes these (hprof_internal.h, private
 * to it, holds the rest of the dump); a floor above includes hprof.h and this, never
 * hprof_internal.h. */
#ifndef HK_HPROF_VIEW_H
#define HK_HPROF_VIEW_H

#include "hprof/hprof.h"
#include "util/hk_idmap.h"

typedef struct hk_idseg {
    uint32_t start; /* first object index whose id has this high word */
    uint32_t hi;
} hk_idseg;

#define HK_MAX_ATTACHED 8

/* The first member of every hk_dump (hk_view finds it there). */
typedef struct hk_dump_view {
    const uint8_t *data;
    size_t size;
    uint32_t id_size;

    /* objects, sorted by id: the low id word and the record's file offset (5 bytes) of each;
     * the high id words as segments of the table */
    uint32_t nobjects;
    const uint32_t *id_lo;
    const uint32_t *off_lo;
    const uint8_t *off_hi;
    const hk_idseg *segs;
    uint32_t nsegs;
    uint32_t ninstances, nobj_arrays, nprim_arrays;

    /* classes */
    hk_class *classes;
    uint32_t nclasses;
    hk_idmap class_by_id;          /* class id -> index in classes */
    uint32_t class_class;          /* java.lang.Class, HK_NONE when absent */
    uint32_t string_class;         /* java.lang.String */
    uint32_t prim_array_class[12]; /* element type -> class index of "T[]", or HK_NONE */

    /* GC roots, as the dump lists them */
    const hk_root *roots;
    uint32_t nroots;

    /* every object's size when the dump records some apart from its classes
     * (HPROF_HK_OBJECT_SIZES), else NULL */
    const uint64_t *obj_sizes;

    /* state the floors above keep with the dump (hk_dump_attach), read by their own look-ups */
    struct hk_attached {
        const void *key;
        void *state;
        void (*free_fn)(void *state);
    } attached[HK_MAX_ATTACHED];
    unsigned nattached;
} hk_dump_view;

static inline const hk_dump_view *hk_view(const hk_dump *d)
{
    return (const hk_dump_view *)(const void *)d;
}

static inline uint64_t hk_obj_offset(const hk_dump *d, uint32_t i)
{
    const hk_dump_view *v = hk_view(d);
    return (uint64_t)v->off_hi[i] << 32 | v->off_lo[i];
}
/* Object i's record (its sub-record tag first). */
static inline const uint8_t *hk_obj_record(const hk_dump *d, uint32_t i)
{
    return hk_view(d)->data + hk_obj_offset(d, i);
}
static inline int hk_obj_kind_tag(const hk_dump *d, uint32_t i)
{
    return *hk_obj_record(d, i);
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
    return hk_be_idn(p, hk_view(d)->id_size);
}

/* The index in the class table of class id cid, HK_NONE when the dump has no such class. */
static inline uint32_t hk_class_index(const hk_dump *d, hk_id cid)
{
    const uint32_t *c = hk_idmap_get(&hk_view(d)->class_by_id, cid);
    return c ? *c : HK_NONE;
}

/* The segment holding sorted position i (needs nsegs >= 1). */
static inline uint32_t hk_seg_of(const hk_dump *d, uint32_t i)
{
    const hk_dump_view *v = hk_view(d);
    uint32_t lo = 0, hi = v->nsegs;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (v->segs[mid].start <= i) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The segment whose ids have high word hiw, if any holds it: the last segment with hi <= hiw
 * (the caller compares segs[s].hi). Needs nsegs >= 1. */
static inline uint32_t hk_seg_find(const hk_dump *d, uint32_t hiw)
{
    const hk_dump_view *v = hk_view(d);
    uint32_t lo = 0, hi = v->nsegs;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (v->segs[mid].hi <= hiw) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The id -> object index directory: buckets over the low id words of each segment (ids are
 * addresses, near uniform), so a lookup reads one bucket and searches the few ids in it.  The
 * dump keeps a sparse one; the graph's reference pass builds a denser one for itself. */
typedef struct hk_iddir {
    uint32_t *bucket; /* segment s's buckets start at bucket[base[s]]; each ends where the next starts */
    uint32_t *base;   /* nsegs + 1 entries: base[s + 1] - 1 ends segment s's buckets */
    uint32_t *min;    /* lowest low id word of segment s */
    uint32_t *shift;  /* bucket of an id: (low - min[s]) >> shift[s] */
} hk_iddir;

/* Builds a directory of about per_bucket objects a bucket over d's object table. */
void hk_iddir_build(hk_iddir *t, const hk_dump *d, uint32_t per_bucket);
void hk_iddir_free(hk_iddir *t);
/* What the directory takes, in bytes. */
uint64_t hk_iddir_bytes(const hk_iddir *t, const hk_dump *d);

/* The object index of id through t, or HK_NONE.  Inline: the graph's reference pass calls it
 * for every reference.  Needs nsegs >= 1 and a built t. */
static inline uint32_t hk_iddir_find(const hk_iddir *t, const hk_dump *d, hk_id id)
{
    const hk_dump_view *v = hk_view(d);
    uint32_t hiw = (uint32_t)(id >> 32), low = (uint32_t)id, s = hk_seg_find(d, hiw);
    if (v->segs[s].hi != hiw || low < t->min[s]) return HK_NONE;
    uint32_t k = (low - t->min[s]) >> t->shift[s];
    if (k >= t->base[s + 1] - t->base[s] - 1) return HK_NONE;
    const uint32_t *bk = t->bucket + t->base[s];
    uint32_t a = bk[k], b = bk[k + 1];
    const uint32_t *ids = v->id_lo;
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
    return hk_be_id(d, r + 1 + hk_view(d)->id_size + 4);
}
static inline const uint8_t *hk_rec_instance_data(const hk_dump *d, const uint8_t *r, uint32_t *len)
{
    uint32_t idsz = hk_view(d)->id_size;
    *len = hk_be32(r + 1 + 2 * idsz + 4);
    return r + 1 + 2 * idsz + 8;
}
static inline uint32_t hk_rec_array_length(const hk_dump *d, const uint8_t *r)
{
    return hk_be32(r + 1 + hk_view(d)->id_size + 4);
}
static inline const uint8_t *hk_rec_obj_array_elems(const hk_dump *d, const uint8_t *r)
{
    return r + 1 + 2 * hk_view(d)->id_size + 8;
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

#endif
