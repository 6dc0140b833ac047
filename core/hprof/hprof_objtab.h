/* Building the object table: ids and record offsets collected during the pass, sorted by id
 * at the end into the index's 9-bytes-per-object form. */
#ifndef HK_HPROF_OBJTAB_H
#define HK_HPROF_OBJTAB_H

#include <stdint.h>
#include <stdlib.h>

#include "hprof/hprof.h"

typedef struct hk_objtab {
    uint64_t *ids;
    uint32_t *off_lo;
    uint8_t *off_hi;
    size_t n, cap;
} hk_objtab;

void hk_objtab_init(hk_objtab *t, size_t expect);
void hk_objtab_grow(hk_objtab *t);
void hk_objtab_free(hk_objtab *t);

static inline void hk_objtab_add(hk_objtab *t, uint64_t id, uint64_t off)
{
    if (t->n == t->cap) hk_objtab_grow(t);
    t->ids[t->n] = id;
    t->off_lo[t->n] = (uint32_t)off;
    t->off_hi[t->n] = (uint8_t)(off >> 32);
    t->n++;
}

/* Sorts by id and moves the table into d (nobjects, id_lo, off_lo, off_hi, segs).  A
 * duplicate id is an error naming both offsets. */
int hk_objtab_finish(hk_objtab *t, hk_dump *d, char *err, size_t errlen);

#endif
