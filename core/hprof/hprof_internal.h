/* Byte readers and the index's internal steps, shared by core/hprof/ files only. */
#ifndef HK_HPROF_INTERNAL_H
#define HK_HPROF_INTERNAL_H

#include "hprof/hprof.h"

static inline uint16_t hk_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t hk_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t hk_be64(const uint8_t *p) { return (uint64_t)hk_be32(p) << 32 | hk_be32(p + 4); }
static inline hk_id hk_be_id(const hk_dump *d, const uint8_t *p)
{
    return d->id_size == 4 ? hk_be32(p) : hk_be64(p);
}

/* hk_type_size for the hot loop: one table lookup */
static inline int hk_type_size_fast(uint32_t id_size, int type)
{
    static const int8_t sz[16] = {-1, -1, 0, -1, 1, 2, 4, 8, 1, 2, 4, 8, -1, -1, -1, -1};
    if (type < 0 || type > 15) return -1;
    return type == HK_T_OBJECT ? (int)id_size : sz[type];
}

int hk_index_build(hk_dump *d, hk_progress_fn progress, void *pctx, char *err, size_t errlen);
int hk_classes_build(hk_dump *d, const uint64_t *class_offs, size_t n, char *err, size_t errlen);

#endif
