/* The class histogram of an indexed dump, from the per-class, per-heap tallies the index keeps
 * (no walk of the heap). */
#ifndef HK_ANALYSIS_HISTOGRAM_H
#define HK_ANALYSIS_HISTOGRAM_H

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

#endif
