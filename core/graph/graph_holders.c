/* Retained object counts and the roots that hold an object (see graph_holders.h). */
#include "graph/graph_holders.h"
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>

uint64_t hk_graph_retained_count(hk_dump *d, uint32_t obj)
{
    hk_graph *g = hkg_of(d);
    if (!g || !g->idom || obj >= g->n) return 0;
    if (!g->kids) hkg_build_kids(g, NULL);
    const hk_class *str = hk_class_by_name(d, "java.lang.String");
    /* depth first over the child lists, with an explicit stack */
    size_t cap = 64, len = 0;
    uint32_t *stack = hk_xrealloc(NULL, cap * sizeof *stack);
    uint64_t count = 0;
    stack[len++] = obj;
    while (len) {
        uint32_t v = stack[--len];
        /* a String and its value array are one object, as Shark counts them */
        int in_string = str && hk_obj_kind(d, v) == HK_KIND_INSTANCE && hk_obj_class(d, v) == str->index;
        count++;
        for (uint32_t c = g->kids[v].first; c != HK_NONE; c = g->kids[c].next) {
            if (in_string && hk_obj_kind(d, c) == HK_KIND_PRIM_ARRAY) continue;
            stack = hk_grow(stack, &cap, len + 1, sizeof *stack);
            stack[len++] = c;
        }
    }
    free(stack);
    return count;
}

/* Adds the root records held on object x to out; returns whether x has any. */
static int add_roots(const hk_dump *d, uint32_t x, uint32_t *out, uint32_t max, uint32_t *n)
{
    hk_id id = hk_obj_id(d, x);
    int any = 0;
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        if (hk_view(d)->roots[k].id != id) continue;
        any = 1;
        if (*n < max) out[*n] = k;
        (*n)++;
    }
    return any;
}

int hk_graph_holding_roots(hk_dump *d, uint32_t obj, uint32_t max_visit, uint32_t *out, uint32_t max, uint32_t *n,
                           int *complete, char *err, size_t errlen)
{
    *n = 0;
    *complete = 1;
    if (hk_graph_ensure(d, HK_GRAPH_REFERRERS, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    if (obj >= g->n) {
        snprintf(err, errlen, "graph: no object %u", obj);
        return -1;
    }
    /* which objects some root holds, so most visited objects cost no scan of the roots */
    uint8_t *rooted = hk_xcalloc(g->n / 8 + 1, 1), *seen = hk_xcalloc(g->n / 8 + 1, 1);
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        uint32_t t = hkg_find(d, g, hk_view(d)->roots[k].id);
        if (t != HK_NONE) rooted[t >> 3] |= (uint8_t)(1u << (t & 7));
    }
    size_t cap = 64, head = 0, len = 0;
    uint32_t *queue = hk_xrealloc(NULL, cap * sizeof *queue);
    queue[len++] = obj;
    seen[obj >> 3] |= (uint8_t)(1u << (obj & 7));
    while (head < len) {
        uint32_t x = queue[head++];
        int has = (rooted[x >> 3] >> (x & 7)) & 1 ? add_roots(d, x, out, max, n) : 0;
        if (has && hk_obj_kind(d, x) == HK_KIND_CLASS) continue;
        uint32_t nin;
        const uint32_t *in = hk_graph_referrers(d, x, &nin);
        for (uint32_t i = 0; i < nin; i++) {
            uint32_t y = in[i];
            /* the finalizer and Cleaner lists' links hold nothing alive (as in the leak paths) */
            if (((seen[y >> 3] >> (y & 7)) & 1) || (g->flags[y] & HKG_F_LIST)) continue;
            if (len >= max_visit) {
                *complete = 0;
                break;
            }
            seen[y >> 3] |= (uint8_t)(1u << (y & 7));
            queue = hk_grow(queue, &cap, len + 1, sizeof *queue);
            queue[len++] = y;
        }
    }
    free(queue);
    free(rooted);
    free(seen);
    return 0;
}
