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

void hk_diff_side_done(hk_diff *df, int side)
{
    hkd_side *sd = &df->s[side];
    const hk_graph *g = hkg_of(sd->d);
    if (sd->ret32 || !g) return;
    hkd_tally(df, side); /* reads the retained sizes, and the referrers when it needs them */
    if (g->done & HK_GRAPH_DOM) {
        uint32_t n = hk_view(sd->d)->nobjects;
        const uint64_t *ret = g->retained;
        sd->ret32 = hk_xmalloc(((size_t)n + 1) * sizeof *sd->ret32);
        for (uint32_t i = 0; i < n; i++) {
            sd->ret32[i] = ret[i] < HKD_BIG ? (uint32_t)ret[i] : HKD_BIG;
            if (ret[i] >= HKD_BIG) hk_idtab_set(&sd->ret_big, (uint64_t)i + 1, ret[i]);
        }
    }
    hk_graph_drop(sd->d, HK_GRAPH_DOM | HK_GRAPH_REFERRERS | HK_GRAPH_PATHS);
    hk_mem_trim();
}
