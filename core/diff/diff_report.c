/* Heap diff, the tallies: totals and unmatched objects by class. */
#include "diff/diff_internal.h"
#include "graph/graph.h"
#include "graph/graph_view.h"
#include "hprof/hprof_view.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

/* An object's shallow size as the graph counts it (hkg_shallow), with the class the matcher
 * read: an instance's record is not read, an object array's for its length only, and a
 * primitive array's not once the dominators are known (ret: their retained sizes, or NULL;
 * HKG_RET_BIG where they do not fit), as it dominates nothing: its retained size is its own. */
static inline uint64_t size_of(const hkd_side *s, uint32_t obj, const uint32_t *ret)
{
    const hk_dump *d = s->d;
    if (hk_view(d)->obj_sizes) return hk_view(d)->obj_sizes[obj];
    int kind = hkd_kind(s, obj);
    if (kind == HK_KIND_PRIM_ARRAY && ret && ret[obj] != HKG_RET_BIG) return ret[obj];
    if (kind != HK_KIND_INSTANCE && kind != HK_KIND_OBJ_ARRAY) return hk_obj_record_size(d, obj);
    uint32_t c = hkd_cls(s, obj);
    uint64_t size = c < hk_view(d)->nclasses ? hk_view(d)->classes[c].instance_size : 0;
    if (kind == HK_KIND_OBJ_ARRAY && s->jvm) /* a JVM's own layout */
        return hk_layout_array(s->jvm, s->jvm->ref, hk_rec_array_length(d, hk_obj_record(d, obj)));
    if (kind == HK_KIND_OBJ_ARRAY) /* ART records the array header in the class's size */
        size += (uint64_t)hk_rec_array_length(d, hk_obj_record(d, obj)) * hk_view(d)->id_size;
    return size;
}

uint64_t hkd_shallow(const hkd_side *s, uint32_t obj, const uint32_t *ret)
{
    return size_of(s, obj, ret);
}

/* The tally's slot of an unmatched object: its class, then primitive arrays without a class,
 * then class objects. */
static uint32_t tally_slot(const hkd_side *sd, uint32_t i)
{
    uint32_t c = hkd_cls(sd, i), nc = hk_view(sd->d)->nclasses;
    if (c < nc) return c;
    if (hkd_kind(sd, i) == HK_KIND_PRIM_ARRAY) return nc + (c - HKD_PRIM(0)) % 12;
    return nc + 12;
}

/* An unmatched object's size in the tallies' pass, while its hkd_obj.refbits still hold the
 * graph's note: an object array's length is there, a primitive array's size, and its record
 * (far from its neighbours' in the file) is not read. */
static inline uint64_t tally_size(const hkd_side *sd, uint32_t i, const uint32_t *ret)
{
    const hk_dump *d = sd->d;
    int kind = hkd_kind(sd, i);
    if (!hk_view(d)->obj_sizes && kind == HK_KIND_PRIM_ARRAY && sd->o[i].refbits) return sd->o[i].refbits;
    if (hk_view(d)->obj_sizes || kind != HK_KIND_OBJ_ARRAY) return size_of(sd, i, ret);
    uint32_t len = hkg_array_note_len(sd->o[i].refbits), c = hkd_cls(sd, i);
    if (len == HK_NONE) return size_of(sd, i, ret);
    if (sd->jvm) return hk_layout_array(sd->jvm, sd->jvm->ref, len);
    return (uint64_t)len * hk_view(d)->id_size + (c < hk_view(d)->nclasses ? hk_view(d)->classes[c].instance_size : 0);
}

/* An unmatched object in the tallies; its size is left in its entry field for the walk of
 * hkd_spread_entries (which reads that line anyway), HKD_BIG when it does not fit. */
static inline __attribute__((always_inline)) void count_unmatched(hkd_side *sd, uint32_t i, const uint32_t *ret)
{
    uint64_t sz = tally_size(sd, i, ret);
    hk_diff_class_row *t = &sd->tally[tally_slot(sd, i)];
    t->objects++;
    t->bytes += sz;
    sd->o[i].entry = sz < HKD_BIG ? (uint32_t)sz : HKD_BIG;
}

/* A matched object: its bytes unless the heap's total gives them, its path id cleared; an
 * instance's null-slot bits are kept below it when its slots from the 17th on are null. */
static void count_matched(hkd_side *sd, uint32_t i, const uint32_t *ret, int total_known)
{
    if (!total_known) sd->same_bytes += tally_size(sd, i, ret);
    if (sd->o[i].refbits >> 16) sd->o[i].pid = 0;
}

/* One pass in object order: the tallies, and the first unmatched objects on their paths
 * (those a matched object holds) queued in q: each unmatched object a matched one holds,
 * with the first matched holder in object order as its via (what the first matched referrer
 * is, referrers being listed in object order).  Which objects are matched is read from a
 * bitmap of one bit an object: the references of the matched objects are read in order, and
 * the records of the few they hold unmatched only.  Returns how many are queued. */
static uint32_t count_pass(hk_diff *df, int side, uint32_t *q, const uint32_t *ret, int skip_same)
{
    hkd_side *sd = &df->s[side];
    hk_dump *d = sd->d;
    hkd_obj *ob = sd->o;
    const uint32_t nobj = hk_view(d)->nobjects;
    uint64_t *un = hk_xcalloc((size_t)nobj / 64 + 1, sizeof *un); /* set: unmatched */
    for (uint32_t x = 0; x < nobj; x++)
        if (ob[x].match == HK_NONE) un[x >> 6] |= (uint64_t)1 << (x & 63);
    uint32_t qn = 0, n;
    for (uint32_t x = 0; x < nobj; x++) {
        if (un[x >> 6] >> (x & 63) & 1) {
            count_unmatched(sd, x, ret);
            continue;
        }
        count_matched(sd, x, ret, skip_same);
        const uint32_t *out = hk_graph_out(d, x, &n);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t y = out[k];
            if (un[y >> 6] >> (y & 63) & 1 && ob[y].via == HKD_UNSEEN) {
                ob[y].via = x;
                q[qn++] = y;
            }
        }
    }
    free(un);
    return qn;
}

/* The entries in object order, whichever way count_pass found them (the pass over the matched
 * objects' references meets them in their holders' order): the order decides which entry an
 * object that several reach counts under, and it should not depend on how much matched. */
static void order_entries(const hk_dump *d, uint32_t *q, uint32_t nent)
{
    uint32_t k = 1;
    while (k < nent && q[k - 1] < q[k]) k++;
    if (k >= nent) return;
    uint64_t *bits = hk_xcalloc((size_t)hk_view(d)->nobjects / 64 + 1, sizeof *bits);
    uint32_t *tmp = NULL;
    size_t tcap = 0;
    hkd_sort_objects(q, nent, hk_view(d)->nobjects, bits, &tmp, &tcap);
    free(tmp);
    free(bits);
}

/* Once per side: the tallies and the entries (hkd_find_entries asks for them too). */
void hkd_tally(hk_diff *df, int side)
{
    hkd_side *sd = &df->s[side];
    if (sd->tally) return;
    hk_dump *d = sd->d;
    sd->tally = hk_xcalloc((size_t)hk_view(d)->nclasses + 13, sizeof *sd->tally);
    /* with dominators, the heap's total is known: the matched bytes are what the unmatched
     * leave of it, and matched arrays' records need not be read */
    const hk_graph *g = hkg_of(d);
    int total_known = g && (g->done & HK_GRAPH_DOM);
    const uint32_t *ret = total_known ? g->retained : NULL;
    /* a queue for this tally only, with room for every unmatched object (entries and those
     * below them are all unmatched, each queued once) */
    uint32_t *q = hk_xmalloc(((size_t)hk_view(d)->nobjects - df->nmatched + 1) * sizeof *q), n;
    uint32_t nent = count_pass(df, side, q, ret, total_known || sd->same_later);
    order_entries(d, q, nent);
    const uint32_t *roots = hk_graph_root_objects(d, &n);
    for (uint32_t k = 0; k < n; k++)
        if (sd->o[roots[k]].match == HK_NONE && sd->o[roots[k]].via == HKD_UNSEEN) {
            sd->o[roots[k]].via = HKD_ANCHOR;
            q[nent++] = roots[k];
        }
    /* the totals of the unmatched: the tallies' sums */
    for (uint32_t k = 0; k < hk_view(d)->nclasses + 13; k++) {
        sd->unmatched += sd->tally[k].objects;
        sd->unmatched_bytes += sd->tally[k].bytes;
    }
    hkd_spread_entries(df, side, q, nent, ret);
    free(q);
    if (total_known) sd->same_bytes = hk_graph_total_bytes(d) - sd->unmatched_bytes;
    else sd->same_pending = sd->same_later;
}

void hk_diff_get_totals(hk_diff *df, hk_diff_totals *t)
{
    memset(t, 0, sizeof *t);
    for (int s = 0; s < 2; s++) {
        hkd_tally(df, s);
        hkd_same_bytes(df, s);
        t->objects[s] = df->s[s].unmatched;
        t->bytes[s] = df->s[s].unmatched_bytes;
        t->same_bytes[s] = df->s[s].same_bytes;
    }
    t->same_objects = df->nmatched;
    t->anchors_classes = df->anchors_classes;
    t->anchors_roots = df->anchors_roots;
}

static const char *const prim_names[12] = {0,         0,          0,        0,         "boolean[]", "char[]",
                                           "float[]", "double[]", "byte[]", "short[]", "int[]",     "long[]"};

static int class_row_cmp(const void *x, const void *y)
{
    const hk_diff_class_row *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes < b->bytes ? 1 : -1;
    return strcmp(a->cls, b->cls);
}

int hk_diff_by_class(hk_diff *df, int side, hk_diff_class_row **rows, uint32_t *n)
{
    hk_dump *d = df->s[side].d;
    hkd_tally(df, side);
    uint32_t nslots = hk_view(d)->nclasses + 13, k = 0;
    hk_diff_class_row *acc = hk_xcalloc(nslots, sizeof *acc);
    for (uint32_t s = 0; s < nslots; s++) {
        if (!df->s[side].tally[s].objects) continue;
        acc[k] = df->s[side].tally[s];
        acc[k].cls = s < hk_view(d)->nclasses        ? (hk_view(d)->classes[s].name ? hk_view(d)->classes[s].name : "?")
                     : s < hk_view(d)->nclasses + 12 ? prim_names[s - hk_view(d)->nclasses]
                                                     : "java.lang.Class";
        if (!acc[k].cls) acc[k].cls = "?";
        k++;
    }
    if (k > 1) qsort(acc, k, sizeof *acc, class_row_cmp);
    *rows = acc;
    *n = k;
    return 0;
}
