/* Heap diff, the tallies: totals, unmatched objects by class and by the path they hang off. */
#include "graph/diff_internal.h"
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

void hk_diff_get_totals(hk_diff *df, hk_diff_totals *t)
{
    memset(t, 0, sizeof *t);
    for (int s = 0; s < 2; s++) {
        hk_dump *d = df->s[s].d;
        const hk_graph *g = d->graph;
        for (uint32_t i = 0; i < d->nobjects; i++) {
            uint64_t sz = hkg_shallow(d, g, i);
            if (df->s[s].match[i] == HK_NONE) { t->objects[s]++; t->bytes[s] += sz; }
            else t->same_bytes[s] += sz;
        }
    }
    t->same_objects = df->nmatched;
    t->anchors_classes = df->anchors_classes;
    t->anchors_roots = df->anchors_roots;
}

static const char *const prim_names[12] = {0, 0, 0, 0, "boolean[]", "char[]", "float[]", "double[]",
                                           "byte[]", "short[]", "int[]", "long[]"};

static int class_row_cmp(const void *x, const void *y)
{
    const hk_diff_class_row *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes < b->bytes ? 1 : -1;
    return strcmp(a->cls, b->cls);
}

int hk_diff_by_class(hk_diff *df, int side, hk_diff_class_row **rows, uint32_t *n)
{
    hk_dump *d = df->s[side].d;
    const hk_graph *g = d->graph;
    /* slots: classes, then primitive arrays without a class, then class objects without one */
    uint32_t nslots = d->nclasses + 13;
    hk_diff_class_row *acc = hk_xcalloc(nslots, sizeof *acc);
    for (uint32_t i = 0; i < d->nobjects; i++) {
        if (df->s[side].match[i] != HK_NONE) continue;
        uint32_t c = hk_obj_class(d, i), slot;
        if (c != HK_NONE) slot = c;
        else if (hk_obj_kind(d, i) == HK_KIND_PRIM_ARRAY) slot = d->nclasses + (uint32_t)hk_prim_array_type(d, i) % 12;
        else slot = d->nclasses + 12;
        acc[slot].objects++;
        acc[slot].bytes += hkg_shallow(d, g, i);
    }
    uint32_t k = 0;
    for (uint32_t s = 0; s < nslots; s++) {
        if (!acc[s].objects) continue;
        acc[k] = acc[s];
        acc[k].cls = s < d->nclasses ? (d->classes[s].name ? d->classes[s].name : "?")
                   : s < d->nclasses + 12 ? prim_names[s - d->nclasses] : "java.lang.Class";
        if (!acc[k].cls) acc[k].cls = "?";
        k++;
    }
    if (k > 1) qsort(acc, k, sizeof *acc, class_row_cmp);
    *rows = acc;
    *n = k;
    return 0;
}

/* ---- by path ---- */

static uint64_t fnv(const char *s, uint64_t h)
{
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
    return h;
}

typedef struct grouper {
    hk_idmap by_key;            /* hash of (path, class) -> group index */
    hk_diff_group *g;
    size_t n, cap;
} grouper;

static hk_diff_group *group_for(grouper *gr, const char *path, const char *cls)
{
    uint64_t key = fnv(cls, fnv(path, 0xcbf29ce484222325ULL)) | 1;
    for (;; key += 2) {
        int inserted;
        uint32_t *v = hk_idmap_put(&gr->by_key, key, (uint32_t)gr->n, &inserted);
        if (inserted) {
            gr->g = hk_grow(gr->g, &gr->cap, gr->n + 1, sizeof *gr->g);
            gr->g[gr->n] = (hk_diff_group){hk_xstrdup(path), cls, 0, 0, 0};
            return &gr->g[gr->n++];
        }
        hk_diff_group *x = &gr->g[*v];
        if (!strcmp(x->path, path) && !strcmp(x->cls, cls)) return x;
    }
}

static int group_cmp(const void *x, const void *y)
{
    const hk_diff_group *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes < b->bytes ? 1 : -1;
    int c = strcmp(a->path, b->path);
    return c ? c : strcmp(a->cls, b->cls);
}

int hk_diff_by_path(hk_diff *df, int side, hk_diff_group **rows, uint32_t *n)
{
    hkd_side *sd = &df->s[side];
    hk_dump *d = sd->d;
    const hk_graph *g = d->graph;
    hkd_find_entries(df, side);
    /* totals per entry first (entry index + 1 -> slot), then one path per entry */
    hk_idmap slot_of;
    hk_idmap_init(&slot_of);
    uint32_t *ent = NULL;
    uint64_t (*tot)[2] = NULL;
    size_t nslots = 0, cap_e = 0, cap_t = 0;
    for (uint32_t i = 0; i < d->nobjects; i++) {
        if (sd->match[i] != HK_NONE) continue;
        uint32_t e = hkd_is_entry(sd, i) ? i : sd->via[i];
        int inserted;
        uint32_t *v = hk_idmap_put(&slot_of, (uint64_t)e + 1, (uint32_t)nslots, &inserted);
        if (inserted) {
            ent = hk_grow(ent, &cap_e, nslots + 1, sizeof *ent);
            tot = hk_grow(tot, &cap_t, nslots + 1, sizeof *tot);
            ent[nslots] = e;
            tot[nslots][0] = tot[nslots][1] = 0;
            nslots++;
        }
        tot[*v][0]++;
        tot[*v][1] += hkg_shallow(d, g, i);
    }
    hk_idmap_free(&slot_of);
    grouper gr = {0};
    hk_idmap_init(&gr.by_key);
    hk_buf path, memo;
    hk_buf_init(&path);
    hk_buf_init(&memo);
    hk_idmap memo_of;
    hk_idmap_init(&memo_of);
    for (size_t k = 0; k < nslots; k++) {
        uint32_t e = ent[k];
        hk_buf_reset(&path);
        const char *cls = "(various)";
        if (e == HKD_UNSEEN) hk_buf_puts(&path, "(not reached from the matched heap)");
        else {
            uint32_t h = sd->via[e];
            if (h < d->nobjects) {
                /* many entries share a holder (the new elements of one array) */
                int inserted;
                uint32_t *m = hk_idmap_put(&memo_of, (uint64_t)h + 1, (uint32_t)memo.len, &inserted);
                if (inserted) {
                    hk_diff_path(df, side, h, &memo);
                    hk_buf_putc(&memo, 0);
                }
                hk_buf_puts(&path, (const char *)memo.data + *m);
                hk_buf_puts(&path, " > ");
                hkd_step(d, h, e, &path);
            } else hk_diff_path(df, side, e, &path);
            cls = hk_obj_class_name(d, e);
            if (hk_obj_kind(d, e) == HK_KIND_CLASS) cls = "java.lang.Class";
            if (!cls) cls = "?";
        }
        hk_diff_group *grp = group_for(&gr, hk_buf_cstr(&path), cls);
        grp->entries += e != HKD_UNSEEN;
        grp->objects += tot[k][0];
        grp->bytes += tot[k][1];
    }
    hk_buf_free(&path);
    hk_buf_free(&memo);
    hk_idmap_free(&memo_of);
    hk_idmap_free(&gr.by_key);
    free(ent);
    free(tot);
    if (gr.n > 1) qsort(gr.g, gr.n, sizeof *gr.g, group_cmp);
    *rows = gr.g;
    *n = (uint32_t)gr.n;
    return 0;
}

void hk_diff_groups_free(hk_diff_group *rows, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) free(rows[k].path);
    free(rows);
}
