/* Byte readers, record layouts and the index's internal steps, for core/hprof/ files and the
 * hot loops of core/graph/ (which read records directly rather than call per object). */
#ifndef HK_HPROF_INTERNAL_H
#define HK_HPROF_INTERNAL_H

#include "hprof/hprof.h"

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
static inline hk_id hk_be_id(const hk_dump *d, const uint8_t *p)
{
    return d->id_size == 4 ? hk_be32(p) : hk_be64(p);
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
