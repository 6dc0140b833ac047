/* Reachability strength: the best over all paths of the weakest edge on the path.
 * Levels are computed strongest first; each level is a BFS that may cross weak edges of
 * that kind or stronger, seeded from objects already reached. */
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>

const char *hk_graph_reach_name(int reach)
{
    static const char *const names[] = {"unreachable", "phantom", "finalizer", "weak", "soft", "strong"};
    return reach >= 0 && reach < HK_REACH_COUNT ? names[reach] : "?";
}

static void visit_weak(const hk_graph *g, uint32_t x, int level, uint8_t *reach, uint32_t *q, uint32_t *tail)
{
    /* weak edges of x are contiguous in g->weak (sorted by src) */
    for (uint32_t a = hkg_weak_first(g, x); a < g->nweak && g->weak[a].src == x; a++) {
        uint32_t t = g->weak[a].dst;
        if (g->weak[a].kind >= level && !reach[t]) {
            reach[t] = (uint8_t)level;
            q[(*tail)++] = t;
        }
    }
}

int hkg_build_reach(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const uint32_t n = g->n;
    uint8_t *reach = hk_xcalloc(n ? n : 1, 1);
    uint32_t *q = hk_xrealloc(NULL, (n ? n : 1) * sizeof *q);
    for (int level = HK_REACH_STRONG; level > HK_REACH_UNREACHABLE; level--) {
        uint32_t head = 0, tail = 0;
        if (level == HK_REACH_STRONG) {
            for (uint32_t k = 0; k < g->nroots; k++) {
                reach[g->roots[k]] = HK_REACH_STRONG;
                q[tail++] = g->roots[k];
            }
        } else {
            for (uint32_t k = 0; k < g->nweak; k++) {
                const hkg_weak *w = &g->weak[k];
                if (w->kind >= level && reach[w->src] >= level && !reach[w->dst]) {
                    reach[w->dst] = (uint8_t)level;
                    q[tail++] = w->dst;
                }
            }
        }
        while (head < tail) {
            uint32_t x = q[head++];
            for (uint32_t k = g->out_start[x]; k < g->out_start[x + 1]; k++) {
                uint32_t t = g->out[k];
                if (!reach[t]) {
                    reach[t] = (uint8_t)level;
                    q[tail++] = t;
                }
            }
            if (level < HK_REACH_STRONG && (g->flags[x] & HKG_F_WEAK)) visit_weak(g, x, level, reach, q, &tail);
        }
    }
    free(q);
    hkg_sizer sz = {0};
    for (uint32_t i = 0; i < n; i++) {
        g->reach_count[reach[i]]++;
        g->reach_bytes[reach[i]] += hkg_shallow(d, &sz, i);
    }
    g->reach = reach;
    return 0;
}

int hk_graph_reach(hk_dump *d, uint32_t obj)
{
    hk_graph *g = d->graph;
    if (!g || !g->reach || obj >= g->n) return HK_REACH_UNREACHABLE;
    return g->reach[obj];
}

void hk_graph_reach_totals(hk_dump *d, uint64_t count[HK_REACH_COUNT], uint64_t bytes[HK_REACH_COUNT])
{
    hk_graph *g = d->graph;
    for (int k = 0; k < HK_REACH_COUNT; k++) {
        count[k] = g && g->reach ? g->reach_count[k] : 0;
        bytes[k] = g && g->reach ? g->reach_bytes[k] : 0;
    }
}
