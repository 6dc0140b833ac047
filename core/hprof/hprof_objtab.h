/* Building the object table: ids and record offsets collected during the pass, in the index's
 * own 9-bytes-per-object form (low id word, 5-byte offset; the high id words as runs), sorted
 * by id at the end with as little extra memory as the dump's order allows. */
#ifndef HK_HPROF_OBJTAB_H
#define HK_HPROF_OBJTAB_H

#include <stdint.h>
#include <stdlib.h>

#include "hprof/hprof_internal.h"

/* Objects from `start` on (in pass order) have high id word `hi`, until the next run. */
typedef struct hk_hirun {
    size_t start;
    uint32_t hi;
} hk_hirun;

typedef struct hk_objtab {
    uint32_t *id_lo;
    uint32_t *off_lo;
    uint8_t *off_hi;
    size_t n, cap;
    hk_hirun *his;
    size_t nhis, caphis;
    /* where each ascending run of ids starts (the first at 0 is implied), noted while adding so
     * that finishing needs no pass to find them; given up (unordered) when there are too many
     * runs for them to help */
    size_t *runs;
    size_t nruns, capruns;
    uint64_t last;
    int unordered;
} hk_objtab;

void hk_objtab_init(hk_objtab *t, size_t expect);
void hk_objtab_grow(hk_objtab *t);
void hk_objtab_new_hi(hk_objtab *t, uint32_t hi);
void hk_objtab_new_run(hk_objtab *t);
void hk_objtab_free(hk_objtab *t);

static inline void hk_objtab_add(hk_objtab *t, uint64_t id, uint64_t off)
{
    if (t->n == t->cap) hk_objtab_grow(t);
    if (!t->nhis || t->his[t->nhis - 1].hi != (uint32_t)(id >> 32)) hk_objtab_new_hi(t, (uint32_t)(id >> 32));
    t->id_lo[t->n] = (uint32_t)id;
    t->off_lo[t->n] = (uint32_t)off;
    t->off_hi[t->n] = (uint8_t)(off >> 32);
    if (id < t->last && !t->unordered) hk_objtab_new_run(t);
    t->last = id;
    t->n++;
}

/* Appends src (in its order) to t and empties src, giving back src's pages as they are copied. */
void hk_objtab_append(hk_objtab *t, hk_objtab *src);

/* Sorts by id and moves the table into d (nobjects, id_lo, off_lo, off_hi, segs, dir).  A
 * duplicate id is an error naming both offsets. */
int hk_objtab_finish(hk_objtab *t, hk_dump *d, char *err, size_t errlen);

#endif
