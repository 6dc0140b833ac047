/* The referrer index, from the forward edges.  On several threads each part owns a range of
 * referenced objects and reads every edge in object order, keeping those into its range: the
 * parts never write the same cell, and each list comes out in referrer order whatever the
 * number of parts, so the index is the same for any -j. */
#include "graph/graph_internal.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct in_job {
    hk_graph *g;
    uint32_t *in1, *ov;
    int nparts;
    uint64_t *many; /* per part, then summed: where its lists start */
} in_job;

static void part_range(const in_job *j, int k, uint32_t *lo, uint32_t *span)
{
    uint32_t hi;
    hk_part_range(j->g->n, k, j->nparts, lo, &hi);
    *span = hi - *lo;
}

/* Exact in-degrees of the part's objects into in1. */
static void count_part(void *ctx, int k)
{
    in_job *j = ctx;
    const hk_graph *g = j->g;
    uint32_t lo, span, sink = 0;
    part_range(j, k, &lo, &span);
    for (uint64_t e = 0; e < g->nout; e++) {
        uint32_t t = g->out[e];
        /* a select, not a branch: the targets are in no order */
        uint32_t *cell = t - lo < span ? &j->in1[t] : &sink;
        (*cell)++;
    }
}

/* Each object's referrers, in referrer order: one stored in place, several in its list. */
static void fill_part(void *ctx, int k)
{
    in_job *j = ctx;
    const hk_graph *g = j->g;
    uint32_t lo, span, *in1 = j->in1, *ov = j->ov;
    part_range(j, k, &lo, &span);
    for (uint32_t i = 0; i < g->n; i++)
        for (uint32_t e = g->out_start[i]; e < g->out_start[i + 1]; e++) {
            uint32_t t = g->out[e], x;
            if (t - lo >= span) continue;
            x = in1[t];
            if (x & HKG_IN_MANY) {
                x &= ~HKG_IN_MANY;
                ov[x + 1 + ov[x]++] = i;
            } else {
                in1[t] = i;
            }
        }
}

/* Turns in-degrees into slots: HK_NONE, a pending single referrer, or a list position (its
 * count first, 0 until filled).  Parts of objects in order: each sums its lists' length,
 * then lays them out from the sum of the parts before it. */
static void many_part(void *ctx, int k)
{
    in_job *j = ctx;
    uint32_t lo, span;
    uint64_t many = 0;
    part_range(j, k, &lo, &span);
    for (uint32_t v = lo; v < lo + span; v++)
        if (j->in1[v] > 1) many += 1 + (uint64_t)j->in1[v];
    j->many[k + 1] = many;
}

static void slots_part(void *ctx, int k)
{
    in_job *j = ctx;
    uint32_t lo, span, *in1 = j->in1;
    uint64_t pos = j->many[k];
    part_range(j, k, &lo, &span);
    for (uint32_t v = lo; v < lo + span; v++) {
        uint32_t deg = in1[v];
        if (deg == 0) in1[v] = HK_NONE;
        else if (deg == 1) in1[v] = HKG_IN_MANY - 1; /* not an object index: n < 2^31 */
        else {
            j->ov[pos] = 0;
            in1[v] = HKG_IN_MANY | (uint32_t)pos;
            pos += 1 + (uint64_t)deg;
        }
    }
}

/* Returns the lists' length, or UINT64_MAX when too long for the index. */
static uint64_t layout(in_job *j)
{
    j->many = hk_xcalloc((size_t)j->nparts + 1, sizeof *j->many);
    hk_parallel(j->nparts, many_part, j);
    for (int k = 1; k <= j->nparts; k++) j->many[k] += j->many[k - 1];
    uint64_t many = j->many[j->nparts];
    if (many < HKG_IN_MANY) {
        j->ov = hk_xrealloc(NULL, (many ? many : 1) * sizeof *j->ov);
        hk_parallel(j->nparts, slots_part, j);
    }
    free(j->many);
    return many < HKG_IN_MANY ? many : UINT64_MAX;
}

int hkg_referrers_in_parts(hk_graph *g, int nparts, char *err, size_t errlen)
{
    const uint32_t n = g->n;
    if (n >= HKG_IN_MANY) {
        snprintf(err, errlen, "graph: %u objects is more than the referrer index handles (2^31)", n);
        return -1;
    }
    if (nparts < 1) nparts = 1;
    in_job j = {g, hk_xcalloc(n ? n : 1, sizeof *j.in1), NULL, nparts, NULL};
    hk_parallel(nparts, count_part, &j);
    uint64_t many = layout(&j);
    if (many == UINT64_MAX) {
        free(j.in1);
        snprintf(err, errlen, "graph: too many referrers for the referrer index");
        return -1;
    }
    hk_parallel(nparts, fill_part, &j);
    g->in1 = j.in1;
    g->in_many = j.ov;
    g->nin_many = many;
    return 0;
}

/* Dominators need the referrers only for their semidominator seeds; unless the caller asked
 * for them, they are dropped then and rebuilt if asked for later. */
void hkg_drop_referrers(hk_graph *g)
{
    free(g->in1);
    free(g->in_many);
    g->in1 = g->in_many = NULL;
    g->nin_many = 0;
    g->done &= ~HK_GRAPH_REFERRERS;
}

int hkg_build_referrers(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    (void)d;
    return hkg_referrers_in_parts(g, hk_jobs(), err, errlen);
}

const uint32_t *hk_graph_referrers(hk_dump *d, uint32_t obj, uint32_t *n)
{
    hk_graph *g = hkg_of(d);
    if (!g || !(g->done & HK_GRAPH_REFERRERS) || obj >= g->n) {
        *n = 0;
        return NULL;
    }
    return hkg_in(g, obj, n);
}

uint32_t hk_graph_weak_referrers(hk_dump *d, uint32_t obj, uint32_t *out, uint32_t max)
{
    hk_graph *g = hkg_of(d);
    uint32_t total = 0;
    if (!g) return 0;
    for (uint32_t k = 0; k < g->nweak; k++)
        if (g->weak[k].dst == obj) {
            if (total < max) out[total] = g->weak[k].src;
            total++;
        }
    return total;
}

uint64_t hk_graph_referrer_bytes(hk_dump *d)
{
    hk_graph *g = hkg_of(d);
    if (!g || !(g->done & HK_GRAPH_REFERRERS)) return 0;
    return ((uint64_t)g->n + g->nin_many) * sizeof(uint32_t);
}
