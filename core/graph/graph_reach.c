/* Reachability strength: the best over all paths of the weakest edge on the path.
 * Levels are computed strongest first; each level is a BFS that may cross weak edges of
 * that kind or stronger, seeded from objects already reached. */
#include "graph/graph_internal.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>

const char *hk_graph_reach_name(int reach)
{
    static const char *const names[] = {"unreachable", "phantom", "finalizer", "weak", "soft", "strong"};
    return reach >= 0 && reach < HK_REACH_COUNT ? names[reach] : "?";
}

/* A BFS queue, grown as needed: the weaker levels reach few objects. */
typedef struct queue {
    uint32_t *v;
    size_t head, tail, cap;
} queue;
static inline void reach_at(queue *q, hk_graph *g, uint32_t t, int level)
{
    hkg_set_reach(g, t, level);
    if (q->tail == q->cap) q->v = hk_grow(q->v, &q->cap, q->tail + 1, sizeof *q->v);
    q->v[q->tail++] = t;
}

static void visit_weak(hk_graph *g, uint32_t x, int level, queue *q)
{
    /* weak edges of x are contiguous in g->weak (sorted by src) */
    for (uint32_t a = hkg_weak_first(g, x); a < g->nweak && g->weak[a].src == x; a++) {
        uint32_t t = g->weak[a].dst;
        if (g->weak[a].kind >= level && !hkg_reach(g, t)) reach_at(q, g, t, level);
    }
}

/* The levels from `from` down, each a BFS from what it can reach first. */
static void levels(hk_graph *g, int from)
{
    queue q = {0};
    for (int level = from; level > HK_REACH_UNREACHABLE; level--) {
        q.head = q.tail = 0;
        if (level == HK_REACH_STRONG) {
            for (uint32_t k = 0; k < g->nroots; k++) reach_at(&q, g, g->roots[k], HK_REACH_STRONG);
        } else {
            for (uint32_t k = 0; k < g->nweak; k++) {
                const hkg_weak *w = &g->weak[k];
                if (w->kind >= level && hkg_reach(g, w->src) >= level && !hkg_reach(g, w->dst))
                    reach_at(&q, g, w->dst, level);
            }
        }
        while (q.head < q.tail) {
            uint32_t x = q.v[q.head++];
            for (uint32_t k = g->out_start[x]; k < g->out_start[x + 1]; k++)
                if (!hkg_reach(g, g->out[k])) reach_at(&q, g, g->out[k], level);
            if (level < HK_REACH_STRONG && (g->flags[x] & HKG_F_WEAK)) visit_weak(g, x, level, &q);
        }
    }
    free(q.v);
}

int hkg_build_reach(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    (void)d;
    (void)err;
    (void)errlen;
    levels(g, HK_REACH_STRONG);
    return 0;
}

/* The strongly reachable objects are the ones the dominators' search of the live heap
 * numbered (the same edges from the same roots): marked in parts on the threads. */
typedef struct strong_job {
    const uint32_t *num;
    uint32_t n, live_end;
    hk_graph *g;
} strong_job;
enum { STRONG_PARTS = 32 };
static void strong_part(void *ctx, int k)
{
    strong_job *j = ctx;
    uint32_t lo, hi;
    hk_part_range(j->n, k, STRONG_PARTS, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) hkg_set_reach(j->g, i, j->num[i] < j->live_end ? HK_REACH_STRONG : 0);
}

void hkg_reach_after_search(hk_graph *g)
{
    strong_job j = {NULL, g->n, 0, g};
    j.num = hkg_search_numbers(g, &j.live_end);
    hk_parallel(STRONG_PARTS, strong_part, &j);
    levels(g, HK_REACH_SOFT);
}

int hk_graph_reach(hk_dump *d, uint32_t obj)
{
    hk_graph *g = hkg_of(d);
    if (!g || !(g->done & HK_GRAPH_REACH) || obj >= g->n) return HK_REACH_UNREACHABLE;
    return hkg_reach(g, obj);
}

/* Objects and shallow bytes per strength, summed in parts on the threads when first asked
 * for (`top` never asks): integer sums, the same in any order.  Once the dominators are
 * known the virtual root's retained size is every object's bytes, so only the objects that
 * are not strongly reachable (most often few) have their records read: the strong bytes are
 * the rest of the total. */
enum { TOTAL_PARTS = 32 };
typedef struct totals_job {
    const hk_dump *d;
    const hk_graph *g;
    int strong_from_total; /* the strong level's bytes are not summed */
    uint64_t count[TOTAL_PARTS][HK_REACH_COUNT], bytes[TOTAL_PARTS][HK_REACH_COUNT];
} totals_job;
static void totals_part(void *ctx, int k)
{
    totals_job *j = ctx;
    uint32_t lo, hi;
    hk_part_range(j->g->n, k, TOTAL_PARTS, &lo, &hi);
    hkg_sizer sz = {0};
    uint64_t *count = j->count[k], *bytes = j->bytes[k];
    const int skip = j->strong_from_total ? HK_REACH_STRONG : -1;
    for (uint32_t i = lo; i < hi; i++) {
        int level = hkg_reach(j->g, i);
        count[level]++;
        if (level != skip) bytes[level] += hkg_shallow(j->d, &sz, i);
    }
}

static void sum_totals(hk_dump *d, hk_graph *g)
{
    totals_job *j = hk_xcalloc(1, sizeof *j);
    j->d = d;
    j->g = g;
    j->strong_from_total = (g->done & HK_GRAPH_DOM) != 0;
    hk_parallel(TOTAL_PARTS, totals_part, j);
    for (int p = 0; p < TOTAL_PARTS; p++)
        for (int k = 0; k < HK_REACH_COUNT; k++) {
            g->reach_count[k] += j->count[p][k];
            g->reach_bytes[k] += j->bytes[p][k];
        }
    if (j->strong_from_total) {
        uint64_t rest = 0;
        for (int k = 0; k < HK_REACH_COUNT; k++)
            if (k != HK_REACH_STRONG) rest += g->reach_bytes[k];
        g->reach_bytes[HK_REACH_STRONG] = g->total_bytes - rest;
    }
    free(j);
    g->reach_summed = 1;
}

void hk_graph_reach_totals(hk_dump *d, uint64_t count[HK_REACH_COUNT], uint64_t bytes[HK_REACH_COUNT])
{
    hk_graph *g = hkg_of(d);
    int have = g && (g->done & HK_GRAPH_REACH);
    if (have && !g->reach_summed) sum_totals(d, g);
    for (int k = 0; k < HK_REACH_COUNT; k++) {
        count[k] = have ? g->reach_count[k] : 0;
        bytes[k] = have ? g->reach_bytes[k] : 0;
    }
}
