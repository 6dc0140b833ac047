/* Heap diff, one object against its counterpart: the fields (or array elements) that differ. */
#include "diff/diff_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ELEMENTS 64 /* differing array elements listed, the rest counted out */

typedef struct changes {
    hk_diff_change *v;
    size_t n, cap;
} changes;

static void add(changes *c, const char *name, const hk_value *a, const hk_value *b)
{
    c->v = hk_grow(c->v, &c->cap, c->n + 1, sizeof *c->v);
    hk_diff_change *x = &c->v[c->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    if (a) {
        x->value[0] = *a;
        x->has[0] = 1;
    }
    if (b) {
        x->value[1] = *b;
        x->has[1] = 1;
    }
}

static int string_text(hk_dump *d, uint32_t obj, hk_buf *b)
{
    return obj != HK_NONE && hk_view(d)->string_class != HK_NONE && hk_obj_class(d, obj) == hk_view(d)->string_class &&
           hk_string_value(d, obj, b) == 0;
}

/* Same value: primitives by value; references when they point at paired objects, at nothing
 * on both sides, or at Strings of the same text. */
static int same_value(hk_diff *df, const hk_value *a, const hk_value *b)
{
    if (a->type != b->type) return 0;
    if (a->type == HK_T_FLOAT || a->type == HK_T_DOUBLE) return a->d == b->d;
    if (a->type != HK_T_OBJECT) return a->i == b->i;
    if (!a->ref || !b->ref) return !a->ref && !b->ref;
    uint32_t oa = hk_obj_find(df->s[0].d, a->ref), ob = hk_obj_find(df->s[1].d, b->ref);
    if (oa == HK_NONE || ob == HK_NONE) return oa == ob;
    if (hk_diff_counterpart(df, HK_DIFF_BASE, oa) == ob) return 1;
    hk_buf ta, tb;
    hk_buf_init(&ta);
    hk_buf_init(&tb);
    int same = string_text(df->s[0].d, oa, &ta) && string_text(df->s[1].d, ob, &tb) && ta.len == tb.len &&
               (!ta.len || !memcmp(ta.data, tb.data, ta.len));
    hk_buf_free(&ta);
    hk_buf_free(&tb);
    return same;
}

static void instance_changes(hk_diff *df, uint32_t u, uint32_t v, changes *out)
{
    hk_dump *da = df->s[0].d, *db = df->s[1].d;
    uint32_t ca = hk_obj_class(da, u), cb = hk_obj_class(db, v), na, nb, la, lb;
    if (ca == HK_NONE || cb == HK_NONE) return;
    const hk_field *fa = hk_class_layout(da, &hk_view(da)->classes[ca], &na);
    const hk_field *fb = hk_class_layout(db, &hk_view(db)->classes[cb], &nb);
    const uint8_t *pa = hk_instance_data(da, u, &la), *pb = hk_instance_data(db, v, &lb);
    if (!pa || !pb) return;
    uint8_t *used = hk_xcalloc(na + 1, 1);
    for (uint32_t k = 0; k < nb; k++) {
        if (fb[k].offset + (uint32_t)hk_type_size(db, fb[k].type) > lb) continue;
        hk_value vb, va;
        hk_read_value(db, pb + fb[k].offset, fb[k].type, &vb);
        uint32_t q = 0;
        while (q < na && (used[q] || strcmp(fa[q].name, fb[k].name))) q++;
        if (q == na || fa[q].offset + (uint32_t)hk_type_size(da, fa[q].type) > la) {
            add(out, fb[k].name, NULL, &vb);
            continue;
        }
        used[q] = 1;
        hk_read_value(da, pa + fa[q].offset, fa[q].type, &va);
        if (!same_value(df, &va, &vb)) add(out, fb[k].name, &va, &vb);
    }
    for (uint32_t q = 0; q < na; q++) {
        if (used[q] || fa[q].offset + (uint32_t)hk_type_size(da, fa[q].type) > la) continue;
        hk_value va;
        hk_read_value(da, pa + fa[q].offset, fa[q].type, &va);
        add(out, fa[q].name, &va, NULL);
    }
    free(used);
}

static void element(hk_dump *d, uint32_t arr, int kind, uint32_t k, hk_value *v)
{
    if (kind == HK_KIND_OBJ_ARRAY) {
        memset(v, 0, sizeof *v);
        v->type = HK_T_OBJECT;
        v->ref = hk_obj_array_at(d, arr, k);
        return;
    }
    int t = hk_prim_array_type(d, arr);
    const uint8_t *p = hk_prim_array_data(d, arr);
    memset(v, 0, sizeof *v);
    v->type = t;
    if (p) hk_read_value(d, p + (size_t)k * (uint32_t)hk_type_size(d, t), t, v);
}

static void array_changes(hk_diff *df, uint32_t u, uint32_t v, int kind, changes *out)
{
    hk_dump *da = df->s[0].d, *db = df->s[1].d;
    uint32_t na = hk_array_length(da, u), nb = hk_array_length(db, v);
    if (na != nb) {
        hk_value a = {.type = HK_T_INT, .i = na}, b = {.type = HK_T_INT, .i = nb};
        add(out, "length", &a, &b);
    }
    uint32_t n = na < nb ? na : nb, listed = 0, more = 0;
    char name[32];
    for (uint32_t k = 0; k < n; k++) {
        hk_value a, b;
        element(da, u, kind, k, &a);
        element(db, v, kind, k, &b);
        if (same_value(df, &a, &b)) continue;
        if (listed++ < MAX_ELEMENTS) {
            snprintf(name, sizeof name, "[%u]", k);
            add(out, name, &a, &b);
        } else more++;
    }
    if (more) {
        hk_value m = {.type = HK_T_INT, .i = more};
        add(out, "(more elements differ)", NULL, &m);
    }
}

int hk_diff_changes(hk_diff *df, uint32_t base_obj, uint32_t dump_obj, hk_diff_change **rows, uint32_t *n)
{
    changes c = {0};
    int ka = hk_obj_kind(df->s[0].d, base_obj), kb = hk_obj_kind(df->s[1].d, dump_obj);
    if (ka == kb && ka == HK_KIND_INSTANCE) instance_changes(df, base_obj, dump_obj, &c);
    else if (ka == kb && (ka == HK_KIND_OBJ_ARRAY || ka == HK_KIND_PRIM_ARRAY))
        array_changes(df, base_obj, dump_obj, ka, &c);
    *rows = c.v;
    *n = (uint32_t)c.n;
    return 0;
}
