/* Duplicate values: Strings with the same text and primitive arrays with the same contents,
 * the waste MAT, ahat and Android Studio report.  One pass, hashing in place over the mapping. */
#ifndef HK_HPROF_DUP_H
#define HK_HPROF_DUP_H

#include "hprof/hprof.h"

enum hk_dup_kind { HK_DUP_STRINGS = 1, HK_DUP_ARRAYS };

typedef struct hk_dup_group {
    uint32_t first;  /* the member with the lowest id: the group's example */
    uint32_t count;  /* members, 2 or more */
    uint64_t bytes;  /* one member's bytes (a String: its own, and its value array's
                             * when no other String shares that array) */
    uint64_t wasted; /* (count - 1) x bytes: what keeping one copy would save */
} hk_dup_group;

/* The groups of 2 or more equal Strings (same text) or primitive arrays (same element type,
 * length and contents; arrays that are a String's value are left out, they count under the
 * String), most wasted bytes first, then by id.  *out is malloc'd (free it).  uses holds
 * d->nobjects + 1 bytes, zeroed: the count of Strings whose value each object is (0, 1, 2
 * for more), filled by the first call (*uses_ready becomes 1) and read by later calls on the
 * same dump, which so skip that pass.  skip (NULL, or d->nobjects bytes): arrays another
 * report counts, left out of HK_DUP_ARRAYS (a Bitmap's pixels, Dalvik's $staticOverhead).
 * 0, or -1 with err when the dump has no java.lang.String for HK_DUP_STRINGS. */
int hk_dup_groups(hk_dump *d, int kind, uint8_t *uses, int *uses_ready, const uint8_t *skip, hk_dup_group **out,
                  uint32_t *n, char *err, size_t errlen);

#endif
