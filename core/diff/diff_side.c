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

/* The retained sizes the growers read, taken over from the graph before its dominators go:
 * its retained sizes are 4 bytes an object already, the few larger ones in a table beside. */
static void keep_retained(hkd_side *sd)
{
    const hk_graph *g = hkg_of(sd->d);
    if (!g || !(g->done & HK_GRAPH_DOM) || sd->ret32) return;
    _Static_assert(HKD_BIG == HKG_RET_BIG, "the graph's mark of a size kept apart is the diff's");
    hk_idtab_free(&sd->ret_big);
    sd->ret32 = hk_graph_take_retained(sd->d, &sd->ret_big);
}

/* What a side's records keep once read (hk_diff_side_done). */
enum { KEEP_MATCH = 1, KEEP_VIA = 2, KEEP_INFO = 4 };

/* o[] down to the words in keep, in place: element i moves from 16 i to 4 stride i, never
 * over an element still to be read.  Without the match, which objects are paired is kept in a
 * bitmap. */
static void compact(hkd_side *sd, int keep)
{
    uint32_t n = hk_view(sd->d)->nobjects;
    if (!(keep & KEEP_MATCH)) {
        sd->paired = hk_xcalloc((size_t)n / 64 + 1, sizeof *sd->paired);
        for (uint32_t i = 0; i < n; i++)
            if (sd->o[i].match != HK_NONE) sd->paired[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    uint32_t stride = 0, via_at = HK_NONE, info_at = HK_NONE;
    int match = keep & KEEP_MATCH;
    if (keep & KEEP_MATCH) stride++;
    if (keep & KEEP_VIA) via_at = stride++;
    if (keep & KEEP_INFO) info_at = stride++;
    uint32_t *w = (uint32_t *)sd->o;
    for (uint32_t i = 0; stride && i < n; i++) {
        uint32_t m = sd->o[i].match, v = sd->o[i].via, info = sd->o[i].info, *to = w + (size_t)i * stride;
        if (match) to[0] = m;
        if (via_at != HK_NONE) to[via_at] = v;
        if (info_at != HK_NONE) to[info_at] = info;
    }
    sd->o = NULL;
    if (stride) sd->cw = hk_xrealloc(w, ((size_t)n + 1) * stride * sizeof *w);
    else free(w);
    sd->cstride = stride;
    sd->via_at = via_at;
    sd->info_at = info_at;
    hkd_trie_free(sd->trie);
    sd->trie = NULL;
}

/* The compacted records down to one bit an object: paired or not. */
static void forget(hkd_side *sd)
{
    uint32_t n = hk_view(sd->d)->nobjects;
    if (!sd->paired) {
        sd->paired = hk_xcalloc((size_t)n / 64 + 1, sizeof *sd->paired);
        for (uint32_t i = 0; i < n; i++)
            if (sd->cw[(size_t)i * sd->cstride] != HK_NONE) sd->paired[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    free(sd->cw);
    sd->cw = NULL;
    sd->via_at = sd->info_at = HK_NONE;
}

/* The matched bytes of a side tallied before its dominators: the heap's total less the
 * unmatched, as hkd_tally takes them with dominators. */
static void same_bytes(hkd_side *sd)
{
    if (!sd->same_pending) return;
    char err[256];
    if (hk_graph_ensure(sd->d, HK_GRAPH_DOM, err, sizeof err)) return;
    sd->same_bytes = hk_graph_total_bytes(sd->d) - sd->unmatched_bytes;
    sd->same_pending = 0;
}

void hkd_same_bytes(hk_diff *df, int side)
{
    same_bytes(&df->s[side]);
}

void hk_diff_side_done(hk_diff *df, int side, int flags)
{
    hkd_side *sd = &df->s[side];
    int keep_graph = flags & HK_DIFF_KEEP_GRAPH, forgetting = flags & HK_DIFF_FORGET;
    if (sd->o) {
        const hk_graph *g = hkg_of(sd->d);
        /* before the dominators: the tallies without them, the matched bytes from them later */
        sd->same_later = !g || !(g->done & HK_GRAPH_DOM);
        /* what the leak search left: the referrers stay when the leak search is still to come */
        if (!keep_graph && !hkd_entries_by_referrers(df, side))
            hk_graph_drop(sd->d, HK_GRAPH_REFERRERS | HK_GRAPH_PATHS);
        hkd_tally(df, side); /* reads the retained sizes when there are */
        hk_diff_group *rows;
        uint32_t n;
        hk_diff_by_path(df, side, &rows, &n); /* it keeps them */
        hk_diff_groups_free(rows, n);
        if (flags & HK_DIFF_GROWERS) hkd_grow_candidates(df);
        /* the kinds for the instance lists still to be filled; the pairs, unless forgotten,
         * and the holders for the paths, unless forgotten with no growers to name */
        int paths = !forgetting || (side == HK_DIFF_DUMP && (flags & HK_DIFF_GROWERS));
        int keep = (sd->lists_later ? KEEP_INFO : 0) | (forgetting ? 0 : KEEP_MATCH) | (paths ? KEEP_VIA : 0);
        if (!(keep & KEEP_INFO)) hkd_lists_now(df, side);
        compact(sd, keep);
    } else if (forgetting && sd->cw) {
        forget(sd);
    }
    if (side == HK_DIFF_DUMP && !df->grow_taken && !sd->o &&
        !(hkd_has_kinds(sd) && !sd->paired && sd->via_at != HK_NONE)) {
        /* no growers now: the retained sizes kept for them go */
        free(df->s[HK_DIFF_BASE].ret32);
        df->s[HK_DIFF_BASE].ret32 = NULL;
        hk_idtab_free(&df->s[HK_DIFF_BASE].ret_big);
        hk_idtab_init(&df->s[HK_DIFF_BASE].ret_big);
    }
    if (!keep_graph && !sd->dropped) {
        same_bytes(sd);
        hkd_grow_sizes(df, side);
        if (!df->grow_taken) keep_retained(sd);
        hk_graph_drop(sd->d, HK_GRAPH_DOM | HK_GRAPH_REFERRERS | HK_GRAPH_PATHS);
        hk_class_lists_drop(sd->d); /* built again if asked for */
        sd->dropped = 1;
    }
    hk_mem_trim();
    if (side == HK_DIFF_BASE && !keep_graph) hkd_lists_now(df, HK_DIFF_DUMP); /* DUMP's side is read next */
}
