/* Counts over an indexed dump that need no walk of the heap: the class histogram (from the
 * per-class, per-heap tallies the index keeps) and what the index itself costs in memory. */
#ifndef HK_HPROF_STATS_H
#define HK_HPROF_STATS_H

#include "hprof/hprof.h"

/* One histogram row: instances of a class (or primitive array type, or java.lang.Class for
 * the class objects) and their shallow bytes. */
typedef struct hk_hist_row {
    const char *name; /* the dump's own string, or a constant */
    uint64_t count, bytes;
} hk_hist_row;

/* The rows with a count, biggest shallow bytes first (then count, then name), in *rows (the
 * caller frees it) and *n.  heap: only that heap's objects (NULL or "" for all); a heap the
 * dump does not have is an error naming the ones it has: returns -1 with err. */
int hk_histogram(const hk_dump *d, const char *heap, hk_hist_row **rows, size_t *n, char *err, size_t errlen);

/* Memory the index keeps, by part (estimates from the table sizes, for benchmarks). */
typedef struct hk_index_stats {
    uint64_t objects;
    uint64_t object_table_bytes, class_bytes, name_bytes, map_bytes, total_bytes;
    double bytes_per_object;
} hk_index_stats;

void hk_index_stats_of(const hk_dump *d, hk_index_stats *s);

#endif
