/* The diff's state, shared by core/graph/diff_*.c only. */
#ifndef HK_DIFF_INTERNAL_H
#define HK_DIFF_INTERNAL_H

#include "graph/diff.h"
#include "util/hk_idmap.h"

/* via[] markers: an anchor (class object or GC root), not reached from matched objects */
#define HKD_ANCHOR (UINT32_MAX - 1)
#define HKD_UNSEEN UINT32_MAX

typedef struct hkd_side {
    hk_dump *d;
    uint32_t *match;            /* counterpart in the other side, HK_NONE */
    /* matched: the matched object it was paired through, or HKD_ANCHOR.  Unmatched: for the
     * first unmatched object on a path its (matched) holder, or HKD_ANCHOR for an unmatched
     * root; for the rest the first unmatched object above it; HKD_UNSEEN when unreached. */
    uint32_t *via;
    hk_idmap root_type;         /* object index + 1 -> root type, for naming anchors */
    int entries_done;
} hkd_side;

struct hk_diff {
    hkd_side s[2];
    uint32_t *cmap;             /* BASE class index -> DUMP class index, HK_NONE */
    uint32_t *order;            /* BASE objects in the order they were matched */
    uint32_t nmatched;
    uint64_t anchors_classes, anchors_roots;
};

/* 1 when obj is the first unmatched object on its path (its via is its holder). */
static inline int hkd_is_entry(const hkd_side *s, uint32_t obj)
{
    uint32_t v = s->via[obj];
    return v == HKD_ANCHOR || (v < s->d->nobjects && s->match[v] != HK_NONE);
}

/* Fills via[] of unmatched objects (once per side). */
void hkd_find_entries(hk_diff *df, int side);
/* Appends "Holder.field" naming how src holds dst (arrays: "T[][*]"). */
void hkd_step(hk_dump *d, uint32_t src, uint32_t dst, hk_buf *out);

#endif
