/* Each object's class as a code, for the walks of the dominator tree that count by class
 * (graph_class_retained.c, graph_heap_retained.c): read at random there, so made first in
 * object order. */
#include "graph/graph_internal.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdlib.h>

enum { CODE_PARTS = 32 };

static inline void code_put(hkg_codes *s, uint32_t i, uint32_t v)
{
    if (s->c16) s->c16[i] = (uint16_t)v;
    else s->c32[i] = v;
}
typedef struct code_job {
    const hk_dump *d;
    uint32_t n;
    hkg_codes cs;
} code_job;

/* The bytes of the codes of n objects and the virtual root. */
static size_t codes_bytes(const hk_dump *d, uint32_t n)
{
    return ((size_t)n + 1) * (hk_view(d)->nclasses < UINT16_MAX ? sizeof(uint16_t) : sizeof(uint32_t));
}

/* The codes of objects [lo, hi) from the per-class lists (a query asked for instances): each
 * list is in object order, so the part finds where its range starts in every list and its
 * writes stay in its range rather than going all over the array. */
static void codes_from_lists(code_job *j, const uint32_t *list, const uint32_t *start, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = lo; i < hi; i++) code_put(&j->cs, i, j->cs.none);
    for (uint32_t c = 0; c < hk_view(j->d)->nclasses; c++) {
        const uint32_t *l = list + start[c];
        uint32_t a = 0, b = start[c + 1] - start[c], end = b;
        if (!b || l[b - 1] < lo || l[0] >= hi) continue;
        while (a < b) {
            uint32_t mid = a + (b - a) / 2;
            if (l[mid] < lo) a = mid + 1;
            else b = mid;
        }
        for (; a < end && l[a] < hi; a++) code_put(&j->cs, l[a], c);
    }
}

/* Parts over objects: each one's class from its record unless the per-class lists give them.
 * Class objects are set apart below. */
static void code_part(void *ctx, int k)
{
    code_job *j = ctx;
    uint32_t lo, hi;
    hk_class_memo m = HK_CLASS_MEMO;
    hk_part_range(j->n + 1, k, CODE_PARTS, &lo, &hi);
    const uint32_t *start, *list = hk_class_lists(j->d, &start);
    if (list) {
        codes_from_lists(j, list, start, lo, hi);
        return;
    }
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t c = i < j->n ? hk_obj_class_memo(j->d, i, &m) : HK_NONE;
        code_put(&j->cs, i, c == HK_NONE ? j->cs.none : c);
    }
}

/* Class objects count as java.lang.Class (none when the dump has no such class). */
static void list_classes(hk_dump *d, hkg_codes *cs)
{
    uint32_t cc = hk_view(d)->class_class == HK_NONE ? cs->none : hk_view(d)->class_class;
    for (uint32_t c = 0; c < hk_view(d)->nclasses; c++)
        if (hk_view(d)->classes[c].object < hk_view(d)->nobjects) code_put(cs, hk_view(d)->classes[c].object, cc);
}

hkg_codes hkg_object_codes(hk_dump *d, uint32_t n)
{
    code_job j = {d, n, {.none = hk_view(d)->nclasses}};
    void *mem = hk_xmalloc(codes_bytes(d, n));
    if (hk_view(d)->nclasses < UINT16_MAX) j.cs.c16 = mem;
    else j.cs.c32 = mem;
    hk_parallel(CODE_PARTS, code_part, &j);
    list_classes(d, &j.cs);
    return j.cs;
}

void hkg_codes_free(hkg_codes *cs)
{
    free(cs->c16);
    free(cs->c32);
    cs->c16 = NULL;
    cs->c32 = NULL;
}

int hk_graph_plan_class_lists(hk_dump *d, char *err, size_t errlen)
{
    if (hk_graph_plan(d, 0, NULL, err, errlen)) return -1;
    hkg_of(d)->lists_after = 1;
    return 0;
}

/* Kept, not made into lists yet: the lists are twice the codes' bytes, and the walks' peak is
 * no place for them; the dominator tree's child lists going (hk_graph_drop_kids) is. */
void hkg_codes_done(hk_dump *d, hk_graph *g, hkg_codes *cs)
{
    const uint32_t *have;
    if (g->lists_after && g->n == hk_view(d)->nobjects && !hk_class_lists(d, &have) && !g->codes) {
        g->codes = hk_xmalloc(sizeof *g->codes);
        *g->codes = *cs;
        *cs = (hkg_codes){0};
    }
    hkg_codes_free(cs);
}

/* The lists as hk_class_instances files them: each class's objects in object order, class
 * objects (coded java.lang.Class) in none. */
void hkg_codes_lists(hk_dump *d, hk_graph *g)
{
    const uint32_t *have;
    const hkg_codes *cs = g->codes;
    uint32_t nc = hk_view(d)->nclasses, n = g->n;
    if (!cs) return;
    if (!hk_class_lists(d, &have)) {
        uint64_t *cls_obj = hk_xcalloc((size_t)n / 64 + 1, sizeof *cls_obj);
        for (uint32_t c = 0; c < nc; c++) {
            uint32_t o = hk_view(d)->classes[c].object;
            if (o < n) cls_obj[o / 64] |= 1ull << (o % 64);
        }
        uint32_t *start, *list;
        hk_class_lists_of_codes(n, nc, cs->c16, cs->c32, cs->none, cls_obj, &start, &list);
        free(cls_obj);
        if (hk_class_lists_adopt(d, start, list)) {
            free(start);
            free(list);
        }
    }
    hkg_codes_free(g->codes);
    free(g->codes);
    g->codes = NULL;
}
