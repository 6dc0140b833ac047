/* The heap dump records' sub-records, walked in parts on several threads: each part fills its
 * own object table, class counters, roots and heap switches, which the index joins in part
 * order (so the result, errors included, is the one a single walk gives). */
#ifndef HK_HPROF_HEAP_H
#define HK_HPROF_HEAP_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hprof/hprof_internal.h"
#include "hprof/hprof_objtab.h"
#include "util/hk_idmap.h"

/* One HEAP_DUMP / HEAP_DUMP_SEGMENT record's body, [start, end), and the record's offset. */
typedef struct hk_body {
    uint64_t start, end, rec_off;
} hk_body;

/* Where a part starts: inside body `body`, at `off`; exact when off is the body's start,
 * else a guess checked once the part before has walked up to it. */
typedef struct hk_cut {
    size_t body;
    uint64_t off;
} hk_cut;

/* Heap slots of a part: 0 is the heap in force where the part starts (known only when the parts
 * before are joined), then the heaps the part switches to, in order of first use. */
enum { HK_PART_HEAPS = HK_MAX_HEAPS + 1 };

/* A HEAP_DUMP_INFO record met by a part: replayed in order when joining. */
typedef struct hk_heap_switch {
    uint64_t off, name_sid;
    uint32_t heap_id;
    int slot;
} hk_heap_switch;

typedef struct hk_counter {
    uint64_t key;
    uint32_t n[HK_PART_HEAPS];
    uint64_t b[HK_PART_HEAPS];
    uint32_t res[16]; /* arrays' lengths mod 16 */
} hk_counter;

/* Shared by the parts of one walk: progress is summed across threads. */
typedef struct hk_heap_walk {
    hk_dump *d;
    const hk_body *bodies;
    size_t nbodies;
    hk_cut *cuts; /* nparts + 1 */
    int nparts;
    struct hk_part *parts;
    hk_progress_fn progress;
    void *pctx;
    atomic_uint_fast64_t done;
} hk_heap_walk;

typedef struct hk_part {
    hk_heap_walk *w;
    hk_cut from, to;
    uint64_t stop; /* where the walk of the last body ended: `to.off` when the cut was right */
    hk_objtab objs;
    struct {
        uint64_t key;
        uint32_t slot;
    } cache[1024];
    hk_idmap counter_slot;
    hk_counter *counters;
    size_t ncounters, capcounters;
    int cur; /* heap slot */
    uint32_t slot_heap_id[HK_PART_HEAPS];
    int nslots;
    hk_heap_switch *switches;
    size_t nswitches, capswitches;
    hk_root *roots;
    size_t nroots, caproots;
    uint64_t *class_offs;
    size_t nclass_offs, capclass_offs;
    uint64_t ninstances, nobj_arrays, nprim_arrays;
    int failed;
    char err[512];
} hk_part;

/* Counters of primitive arrays are keyed by element type above any id a dump uses (small ids
 * are real: a heap graph's objects may be numbered from 1). */
#define HK_PRIM_KEY (UINT64_MAX - 32)

/* Cuts the bodies' bytes into w->nparts parts of about equal size (w->cuts). */
void hk_heap_cut(hk_heap_walk *w);
/* Walks part k (w->parts[k] with its from/to set; for hk_parallel). */
void hk_heap_part(void *walk, int k);
void hk_part_init(hk_part *p, hk_heap_walk *w, size_t expect);
void hk_part_free(hk_part *p);
/* The index's one form of error: "PATH: at offset N (0xN): message". */
void hk_vfail_at(char *err, size_t errlen, const char *path, uint64_t off, const char *fmt, va_list ap);

#endif
