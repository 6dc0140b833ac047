/* A class's instances ranked by retained (or shallow) size: the first page of a class with
 * millions of instances is a selection of offset + n of them, not a sort of all. */
#include "graph/graph.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

typedef struct ranked {
    uint64_t key;
    uint32_t obj;
} ranked;

/* a before b: larger key first, then the lower object index */
static int before(const ranked *a, const ranked *b)
{
    return a->key != b->key ? a->key > b->key : a->obj < b->obj;
}

/* h[0] is the one that would come last: the one to drop when a better one arrives */
static void sift_down(ranked *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(&h[m], &h[l])) m = l;
        if (r < n && before(&h[m], &h[r])) m = r;
        if (m == i) return;
        ranked t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void sift_up(ranked *h, uint32_t i)
{
    while (i > 0 && before(&h[(i - 1) / 2], &h[i])) {
        ranked t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int cmp_ranked(const void *a, const void *b)
{
    return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

int hk_graph_rank_instances(hk_dump *d, uint32_t cls, int heap, int by_shallow, uint32_t offset, uint32_t n,
                            uint32_t *out, uint32_t *written, uint64_t *total, char *err, size_t errlen)
{
    *written = 0;
    *total = 0;
    if (!by_shallow && hk_graph_ensure(d, HK_GRAPH_DOM, err, errlen)) return -1;
    uint32_t count, k = offset + n < offset ? UINT32_MAX : offset + n, size = 0;
    const uint32_t *objs = hk_class_instances(d, cls, &count);
    ranked *h = hk_xmalloc(((size_t)(k < count ? k : count) + 1) * sizeof *h);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t o = objs[i];
        if (heap >= 0 && hk_obj_heap(d, o) != heap) continue;
        (*total)++;
        ranked r = {by_shallow ? hk_obj_shallow_size(d, o) : hk_graph_retained(d, o), o};
        if (size < k) {
            h[size] = r;
            sift_up(h, size++);
        } else if (k && before(&r, &h[0])) {
            h[0] = r;
            sift_down(h, size, 0);
        }
    }
    qsort(h, size, sizeof *h, cmp_ranked);
    for (uint32_t i = offset; i < size; i++) out[(*written)++] = h[i].obj;
    free(h);
    return 0;
}
