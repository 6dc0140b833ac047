/* Heap diff, one side done with: what the diff keeps of its dominators, so that the other
 * side's are computed without them beside (a diff's peak memory is two graphs otherwise). */
#include "diff/diff_internal.h"
#include "graph/graph.h"
#include "graph/graph_view.h"
#include "util/hk_mem.h"

#include <stdlib.h>

uint64_t hkd_retained(const hkd_side *s, uint32_t obj)
{
    if (!s->ret32) return hk_graph_retained(s->d, obj);
    uint64_t v = s->ret32[obj];
    if (v == HKD_BIG) hk_idtab_get(&s->ret_big, (uint64_t)obj + 1, &v);
    return v;
}

int hkd_need_retained(hk_diff *df, int side, char *err, size_t errlen)
{
    return df->s[side].ret32 ? 0 : hk_graph_ensure(df->s[side].d, HK_GRAPH_DOM, err, errlen);
}

/* The retained sizes the growers read, before the graph's go. */
static void keep_retained(hkd_side *sd)
{
    const hk_graph *g = hkg_of(sd->d);
    if (!g || !(g->done & HK_GRAPH_DOM) || sd->ret32) return;
    uint32_t n = hk_view(sd->d)->nobjects;
    sd->ret32 = hk_xmalloc(((size_t)n + 1) * sizeof *sd->ret32);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t r = hkg_retained(g, i);
        sd->ret32[i] = r < HKD_BIG ? (uint32_t)r : HKD_BIG;
        if (r >= HKD_BIG) hk_idtab_set(&sd->ret_big, (uint64_t)i + 1, r);
    }
}

/* o[] down to its first two words (match, via), in place: element i moves from 16 i to 8 i,
 * never over an element still to be read. */
static void compact(hkd_side *sd)
{
    uint32_t n = hk_view(sd->d)->nobjects;
    uint32_t(*mv)[2] = (uint32_t(*)[2])sd->o;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = sd->o[i].match, v = sd->o[i].via;
        mv[i][0] = m;
        mv[i][1] = v;
    }
    sd->o = NULL;
    sd->mv = hk_xrealloc(mv, ((size_t)n + 1) * sizeof *mv);
    hkd_trie_free(sd->trie);
    sd->trie = NULL;
}

void hk_diff_side_done(hk_diff *df, int side, int keep_graph)
{
    hkd_side *sd = &df->s[side];
    if (!sd->o) return;
    /* what the leak search left: the tally reads the referrers only when most of the side matched */
    if (!keep_graph && !hkd_entries_by_referrers(df, side)) hk_graph_drop(sd->d, HK_GRAPH_REFERRERS | HK_GRAPH_PATHS);
    hkd_tally(df, side); /* reads the retained sizes, and the referrers when it needs them */
    hk_diff_group *rows;
    uint32_t n;
    hk_diff_by_path(df, side, &rows, &n); /* it keeps them */
    hk_diff_groups_free(rows, n);
    if (!keep_graph) {
        keep_retained(sd);
        hk_graph_drop(sd->d, HK_GRAPH_DOM | HK_GRAPH_REFERRERS | HK_GRAPH_PATHS);
    }
    hkd_lists_now(df, side);
    compact(sd);
    hk_mem_trim();
    if (side == HK_DIFF_BASE) hkd_lists_now(df, HK_DIFF_DUMP); /* DUMP's side is read next */
}
