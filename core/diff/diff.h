/*
 * Heap diff: which objects of two dumps of the same app are the same object, which were added
 * and which removed, what the added and removed bytes hang off, and which collections grew.
 *
 * Ids change from dump to dump, so identity is established by names and paths only:
 *   - class objects by class name (classes sharing a name in the order the dump lists them);
 *   - GC roots by kind, thread name (for thread-held roots), class name and, for Strings, text;
 *   - then, breadth first from every matched pair, the objects both hold at the same place:
 *     an instance field of the same name, a static field of the same name, an array element at
 *     the same index; array elements left over on both sides pair up by class, in order.
 * Two objects are paired only when their class names agree and neither is paired yet; the
 * first (shortest) path wins.  Objects paired are "same", the others "added" (in DUMP) or
 * "removed" (in BASE).  ahat's baseline matching (children of matched objects paired by class)
 * is covered: it is the leftover rule applied to every reference.
 */
#ifndef HK_DIFF_H
#define HK_DIFF_H

#include "hprof/hprof.h"
#include "util/hk_buf.h"

enum { HK_DIFF_BASE = 0, HK_DIFF_DUMP = 1 };

typedef struct hk_diff hk_diff;

/* Matches the objects of base and dump (both stay open while the diff lives).  Builds the
 * references of both graphs.  NULL with err on failure. */
hk_diff *hk_diff_new(hk_dump *base, hk_dump *dump, char *err, size_t errlen);
/* The same, for a caller that reads BASE's side first and calls hk_diff_side_done on BASE
 * before reading DUMP's (flags HK_DIFF_BASE_FIRST): DUMP's per-class instance lists
 * (hk_class_instances) are filled from the match's notes then, not held beside BASE's work. */
enum { HK_DIFF_BASE_FIRST = 1 };
hk_diff *hk_diff_new_flags(hk_dump *base, hk_dump *dump, int flags, char *err, size_t errlen);
void hk_diff_free(hk_diff *df);
hk_dump *hk_diff_dump(const hk_diff *df, int side);

/* Says the caller has read what it wants of side but its pairs and paths: its tallies
 * (hk_diff_by_class, hk_diff_get_totals) and its by-path rows are taken, and the per-object
 * record shrinks to the counterpart and holder (hk_diff_counterpart, hk_diff_path,
 * hk_diff_changes, hk_diff_by_path still answer; hk_diff_growers after side DUMP is done does
 * not, unless HK_DIFF_GROWERS took its candidates then: every matched pair that gained
 * elements, their retained sizes read from each side's dominators when there are, BASE's before
 * hk_diff_side_done frees them).  Called before the dump's dominators, the tallies are taken
 * without them (the matched bytes wait for them: the heap's total less the unmatched).
 * HK_DIFF_FORGET: the caller is done with the pairs and paths too, but for which objects are
 * paired (one bit an object; the holders stay for the growers' paths when HK_DIFF_GROWERS):
 * hk_diff_paired answers, hk_diff_counterpart too by a pass over the other side's records
 * while it has its pairs, hk_diff_path of that side's objects does not (hk_diff_forgotten).
 * Unless HK_DIFF_KEEP_GRAPH, the caller is also done with the dump's dominators: the retained
 * sizes the growers read are kept (4 bytes an object) and the dump's dominators, referrers,
 * paths and instance lists freed, so that the other side's are computed without them beside;
 * the dump computes them again if asked.  It may be called again with more of these flags as
 * the caller is done with more. */
enum { HK_DIFF_KEEP_GRAPH = 1, HK_DIFF_FORGET = 2, HK_DIFF_GROWERS = 4 };
void hk_diff_side_done(hk_diff *df, int side, int flags);
/* 1 when the paths of the side's objects were forgotten (HK_DIFF_FORGET). */
int hk_diff_forgotten(const hk_diff *df, int side);
/* 1 when obj of side has a counterpart (its status). */
int hk_diff_paired(const hk_diff *df, int side, uint32_t obj);

/* The object paired with obj of side, HK_NONE when it was added/removed. */
uint32_t hk_diff_counterpart(const hk_diff *df, int side, uint32_t obj);

typedef struct hk_diff_totals {
    uint64_t same_objects, same_bytes[2]; /* bytes as each side records them */
    uint64_t objects[2], bytes[2];        /* unmatched: [BASE] removed, [DUMP] added */
    uint64_t anchors_classes, anchors_roots;
} hk_diff_totals;
void hk_diff_get_totals(hk_diff *df, hk_diff_totals *t);

/* The class+field chain that reaches obj ("a.B.sField > java.util.ArrayList.elementData >
 * java.lang.Object[][*]"; array indices are [*]), into out.  A matched object is named by the
 * chain it was matched along; an added/removed one by the chain to the first unmatched object
 * above it and that object's field. */
void hk_diff_path(hk_diff *df, int side, uint32_t obj, hk_buf *out);

/* What differs between an object of BASE and one of DUMP (normally a pair): fields by name
 * (a field only one side has comes with one value), or an array's length and elements (the
 * first 64 that differ).  References are the same when they point at paired objects or at
 * Strings of the same text.  Caller frees *rows. */
typedef struct hk_diff_change {
    char name[96];
    int has[2];
    hk_value value[2]; /* [BASE], [DUMP] */
} hk_diff_change;
int hk_diff_changes(hk_diff *df, uint32_t base_obj, uint32_t dump_obj, hk_diff_change **rows, uint32_t *n);

/* Unmatched objects of a side (added in DUMP, removed in BASE) by class. */
typedef struct hk_diff_class_row {
    const char *cls;
    uint64_t objects, bytes;
} hk_diff_class_row;
int hk_diff_by_class(hk_diff *df, int side, hk_diff_class_row **rows, uint32_t *n);

/* Unmatched objects grouped by where they hang: the path of the first unmatched object on the
 * way from the matched part of the heap (its holder's chain and field) and that object's class;
 * entries counts those first objects, objects and bytes everything unmatched under them.
 * An object below several entries is counted once, under the earliest entry in object order
 * (unmatched roots last) that leads to it without passing through another entry, which need
 * not be the closest one.  Largest bytes first; rows and their paths are freed with
 * hk_diff_groups_free. */
typedef struct hk_diff_group {
    char *path;
    const char *cls;
    uint64_t entries, objects, bytes;
} hk_diff_group;
int hk_diff_by_path(hk_diff *df, int side, hk_diff_group **rows, uint32_t *n);
void hk_diff_groups_free(hk_diff_group *rows, uint32_t n);

/* Matched collections (java.util, java.util.concurrent, android.util, androidx.collection) and
 * matched arrays not held by a collection or a String that gained elements: at least min_growth
 * of them, or at least min_bytes of retained size (small noise, such as a JVM's own tables
 * gaining an entry, stays out).  Largest retained growth first.  Computes both dominator trees. */
typedef struct hk_diff_grower {
    uint32_t obj[2];   /* BASE and DUMP object */
    uint64_t count[2]; /* elements on each side */
    uint64_t retained[2];
    const char *elem_class; /* class of an element in DUMP (the last one), NULL if none */
} hk_diff_grower;
int hk_diff_growers(hk_diff *df, uint64_t min_growth, uint64_t min_bytes, hk_diff_grower **rows, uint32_t *n, char *err,
                    size_t errlen);

#endif
