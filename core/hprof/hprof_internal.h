/* The dump's representation and the index's internal steps, private to core/hprof/ (and the
 * test programs): what the floors above read is in hprof_view.h, the first member of the dump.
 * Plugins and the SDK see hk_dump as an opaque handle. */
#ifndef HK_HPROF_INTERNAL_H
#define HK_HPROF_INTERNAL_H

#include <stddef.h>

#include "hprof/hprof.h"
#include "hprof/hprof_view.h"
#include "util/hk_idmap.h"

typedef struct hk_heap_range {
    uint64_t offset; /* records at or after this file offset ... */
    uint8_t heap;    /* ... belong to this heap index */
} hk_heap_range;

struct hk_dump {
    /* the bytes, the object and class tables (hprof_view.h): first, where hk_view finds them */
    hk_dump_view view;
    char *path;
    int mapped; /* data is an mmap (else malloc'd, e.g. from gzip) */

    char format[24]; /* "JAVA PROFILE 1.0.3" */
    uint64_t timestamp_ms;

    hk_iddir dir; /* about 8 objects a bucket; empty for small dumps (binary search) */

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

    /* what the dump was made from when it was not an HPROF file (a Perfetto trace): lines
     * "key: value", NULL for an HPROF file */
    char *source;
    /* PNGs that came with an embedded dump (HprofBitmap), keyed by native pointer */
    hk_dump_image *images;
    size_t nimages;

    /* class indices by name and by the dump's name (hk_class_by_name): open addressing,
     * names_cap slots each (a power of two), HK_NONE for empty; made with the classes and
     * again when a map renames them */
    uint32_t *by_name, *by_obf_name;
    uint32_t names_cap;

    /* lazily built: instances grouped by class (CSR over object indices) */
    uint32_t *by_class_start;
    uint32_t *by_class;

    /* string arena for names */
    char **arena;
    size_t narena, arena_used, arena_cap;
};
_Static_assert(offsetof(struct hk_dump, view) == 0, "hk_view finds the view at the dump's start");

int hk_index_build(hk_dump *d, hk_progress_fn progress, void *pctx, char *err, size_t errlen);
/* Applies hprofkit's own records (HPROF_HK_*) found at these record offsets, after the
 * classes and counters are built. */
int hk_ext_apply(hk_dump *d, const uint64_t *offs, size_t n, char *err, size_t errlen);
int hk_classes_build(hk_dump *d, const uint64_t *class_offs, size_t n, char *err, size_t errlen);
/* (Re)makes the class name tables hk_class_by_name reads: after the classes are built and
 * after a map renames them. */
void hk_class_names_index(hk_dump *d);

#endif
