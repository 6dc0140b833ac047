/* Heap diff, the reports: where unmatched objects hang (entries and their paths), bytes
 * added and removed by class and by path, and the totals. */
#include "diff/diff_internal.h"
#include "graph/graph_view.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Paths show at most this many steps: the first 4 and the last ones. */
#define MAX_STEPS 12

int hkd_entries_by_referrers(const hk_diff *df, int side)
{
    const hk_dump *d = df->s[side].d;
    return hk_view(d)->nobjects - df->nmatched < hk_view(d)->nobjects / 2;
}

/* An unmatched object's size, as hkd_tally left it in its entry field. */
static inline uint64_t left_size(const hkd_side *sd, uint32_t obj, const uint32_t *ret)
{
    uint32_t v = sd->o[obj].entry;
    return v != HKD_BIG ? v : hkd_shallow(sd, obj, ret);
}

/* Which entry an unmatched object counts under: the first entry, in entry order (as
 * hkd_tally queued them: in object order, then the unmatched roots), that reaches
 * it through unmatched objects that are not entries; not the nearest one.  The
 * entries are walked one after the other, each to the end before the next starts, so an
 * object goes to the first entry that reaches it whatever the order within one walk; a walk
 * stays among objects stored near its entry, where a breadth-first walk from all the entries
 * at once swept the whole heap once per level.  Returns how many objects were reached. */
static uint32_t spread(hkd_side *sd, uint32_t *q, uint32_t nent, const uint32_t *ret)
{
    const hk_graph *g = hkg_of(sd->d);
    hkd_obj *ob = sd->o;
    uint32_t *w = q + nent, total = nent;
    for (uint32_t i = 0; i < nent; i++) {
        /* ahead: the next entries' records and edge lists */
        if (i + 16 < nent) {
            __builtin_prefetch(&ob[q[i + 16]]);
            __builtin_prefetch(&g->out_start[q[i + 16]]);
        }
        if (i + 8 < nent) __builtin_prefetch(&g->out[g->out_start[q[i + 8]]]);
        /* this entry's walk: w[0..n) reached, w[h] the next to look at; an object is taken
         * (its via set) as it is queued, its edge list asked for then */
        uint32_t e = q[i], n = 1;
        uint64_t bytes = 0;
        w[0] = e;
        for (uint32_t h = 0; h < n; h++) {
            if (h + 2 < n) __builtin_prefetch(&g->out[g->out_start[w[h + 2]]]);
            uint32_t x = w[h];
            bytes += left_size(sd, x, ret);
            ob[x].entry = i;
            for (uint32_t k = g->out_start[x], end = g->out_start[x + 1]; k < end; k++) {
                hkd_obj *c = &ob[g->out[k]];
                if (c->match != HK_NONE || c->via != HKD_UNSEEN) continue;
                c->via = e;
                __builtin_prefetch(&g->out_start[g->out[k]]);
                w[n++] = g->out[k];
            }
        }
        sd->ent_objects[i] = n;
        sd->ent_bytes[i] = bytes;
        total += n - 1;
    }
    return total;
}

void hkd_spread_entries(hk_diff *df, int side, uint32_t *q, uint32_t nent, const uint32_t *ret)
{
    hkd_side *sd = &df->s[side];
    sd->ent_objects = hk_xcalloc((size_t)nent + 1, sizeof *sd->ent_objects);
    sd->ent_bytes = hk_xcalloc((size_t)nent + 1, sizeof *sd->ent_bytes);
    spread(sd, q, nent, ret);
    sd->entries = hk_xrealloc(NULL, ((size_t)nent + 1) * sizeof *q);
    memcpy(sd->entries, q, (size_t)nent * sizeof *q);
    sd->nentries = nent;
}

void hkd_find_entries(hk_diff *df, int side)
{
    hkd_tally(df, side);
}

void hkd_step(hk_dump *d, uint32_t src, uint32_t dst, hk_buf *out)
{
    int kind = hk_obj_kind(d, src);
    if (kind == HK_KIND_CLASS) {
        hk_class *c = hk_class_by_id(d, hk_obj_id(d, src));
        hk_buf_puts(out, c && c->name ? c->name : "?");
    } else {
        const char *cn = hk_obj_class_name(d, src);
        hk_buf_puts(out, cn ? cn : "?");
    }
    if (kind == HK_KIND_OBJ_ARRAY) {
        hk_buf_puts(out, "[*]");
        return;
    }
    char name[128];
    if (hk_graph_edge_name(d, src, dst, name, sizeof name)) snprintf(name, sizeof name, "?");
    hk_buf_printf(out, ".%s", strncmp(name, "static ", 7) ? name : name + 7);
}

int hkd_root_type(hkd_side *sd, uint32_t obj)
{
    hk_dump *d = sd->d;
    if (!sd->root_type.len)
        for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
            uint32_t o = hk_obj_find(d, hk_view(d)->roots[k].id);
            if (o != HK_NONE) hk_idmap_put(&sd->root_type, (uint64_t)o + 1, hk_view(d)->roots[k].type, NULL);
        }
    uint32_t *t = hk_idmap_get(&sd->root_type, (uint64_t)obj + 1);
    return t ? (int)*t : HPROF_ROOT_UNKNOWN;
}

/* An anchor's kind: from o[], or from its record once o[] is compacted. */
static int anchor_kind(const hkd_side *sd, uint32_t obj)
{
    return sd->o ? hkd_kind(sd, obj) : hk_obj_kind(sd->d, obj);
}

/* Appends "class X" or "root TYPE" for an anchor. */
static void hkd_anchor_name(hkd_side *sd, uint32_t obj, hk_buf *out)
{
    if (anchor_kind(sd, obj) == HK_KIND_CLASS) {
        hk_class *c = hk_class_by_id(sd->d, hk_obj_id(sd->d, obj));
        hk_buf_printf(out, "class %s", c && c->name ? c->name : "?");
    } else {
        hk_buf_printf(out, "root %s", hk_root_type_name(hkd_root_type(sd, obj)));
    }
}

void hkd_render(hkd_side *sd, uint32_t top, int cut, const uint32_t (*pairs)[2], const char *const *names, uint32_t n,
                hk_buf *out)
{
    if (!n) {
        hkd_anchor_name(sd, top, out);
        return;
    }
    if (cut) hk_buf_puts(out, "… > ");
    else if (anchor_kind(sd, top) != HK_KIND_CLASS) {
        hkd_anchor_name(sd, top, out);
        hk_buf_puts(out, " > ");
    }
    /* steps: NUL-separated in one buffer, each with its repeat flag */
    hk_buf all, cur;
    hk_buf_init(&all);
    hk_buf_init(&cur);
    size_t *starts = hk_xcalloc(n, sizeof *starts);
    uint8_t *rep = hk_xcalloc(n, 1);
    uint32_t ns = 0;
    for (uint32_t k = 0; k < n; k++) {
        const char *cs = names ? names[k] : NULL;
        if (!cs) {
            hk_buf_reset(&cur);
            hkd_step(sd->d, pairs[k][0], pairs[k][1], &cur);
            cs = hk_buf_cstr(&cur);
        }
        if (ns && !strcmp((const char *)all.data + starts[ns - 1], cs)) {
            rep[ns - 1] = 1;
            continue;
        }
        starts[ns] = all.len;
        rep[ns++] = 0;
        hk_buf_append(&all, cs, strlen(cs) + 1);
    }
    for (uint32_t k = 0; k < ns; k++) {
        if (ns > MAX_STEPS && k == 4) {
            hk_buf_puts(out, "… > ");
            k = ns - (MAX_STEPS - 5);
        }
        const char *st = (const char *)all.data + starts[k];
        hk_buf_printf(out, rep[k] ? "(%s)+%s" : "%s%s", st, k + 1 < ns ? " > " : "");
    }
    free(starts);
    free(rep);
    hk_buf_free(&all);
    hk_buf_free(&cur);
}

/* The chain of matched objects down to obj (a matched object), anchor first, and then the step
 * to entry (an unmatched object obj holds; HK_NONE: none), rendered at once as by-path rows
 * are: a static's class stands for its anchor, a repeated step folds. */
static void matched_path(hkd_side *sd, uint32_t obj, uint32_t entry, hk_buf *out)
{
    uint32_t chain[HKD_MAX_DEPTH], n = 0;
    for (uint32_t x = obj; n < HKD_MAX_DEPTH; x = hkd_via(sd, x)) {
        chain[n++] = x;
        if (hkd_via(sd, x) >= hk_view(sd->d)->nobjects) break;
    }
    uint32_t top = chain[n - 1], np = 0;
    uint32_t(*pairs)[2] = hk_xcalloc(n, sizeof *pairs);
    for (; np + 1 < n; np++) {
        pairs[np][0] = chain[n - 1 - np];
        pairs[np][1] = chain[n - 2 - np];
    }
    if (entry != HK_NONE) {
        pairs[np][0] = obj;
        pairs[np++][1] = entry;
    }
    hkd_render(sd, top, hkd_via(sd, top) < hk_view(sd->d)->nobjects, (const uint32_t(*)[2])pairs, NULL, np, out);
    free(pairs);
}

void hk_diff_path(hk_diff *df, int side, uint32_t obj, hk_buf *out)
{
    hkd_side *sd = &df->s[side];
    if (obj >= hk_view(sd->d)->nobjects) return;
    if (hkd_match(sd, obj) != HK_NONE) {
        matched_path(sd, obj, HK_NONE, out);
        return;
    }
    hkd_find_entries(df, side);
    uint32_t e = hkd_is_entry(sd, obj) ? obj : hkd_via(sd, obj);
    if (e == HKD_UNSEEN) {
        hk_buf_puts(out, "(not reached from the matched heap)");
        return;
    }
    uint32_t h = hkd_via(sd, e);
    if (h == HKD_ANCHOR) {
        hkd_anchor_name(sd, e, out);
        return;
    }
    matched_path(sd, h, e, out);
}
