/* Dropping what a caller is done with: a heap diff holds two graphs, and once one side's report
 * is written that side's dominators need not stay beside the other's. */
#include "graph/graph_internal.h"

#include "util/hk_mem.h"

#include <stdlib.h>

void hk_graph_drop(hk_dump *d, int mask)
{
    hk_graph *g = hkg_of(d);
    if (!g) return;
    if (mask & HK_GRAPH_DOM) {
        hkg_search_free(g);
        free(g->idom);
        free(g->retained);
        free(g->kids);
        free(g->root_kids);
        free(g->kid_buf);
        free(g->class_retained);
        g->class_retained = NULL;
        g->idom = g->root_kids = g->kid_buf = NULL;
        g->retained = NULL;
        g->kids = NULL;
        g->nroot_kids = 0;
        g->kid_cap = 0;
        hk_idtab_free(&g->retained_big);
        hk_idtab_free(&g->retained_native);
        /* the marks of the objects in it: the next dominators set them afresh */
        for (uint32_t i = 0; g->flags && i < g->n; i++) g->flags[i] &= (uint8_t)~HKG_F_RNATIVE;
        g->total_bytes = g->total_native = 0;
        g->walk_classes = 0;
        g->done &= ~HK_GRAPH_DOM;
    }
    if (mask & HK_GRAPH_PATHS) {
        hkg_paths_free(g);
        g->done &= ~HK_GRAPH_PATHS;
    }
    if (mask & HK_GRAPH_REFERRERS) {
        g->keep_in = 0;
        hkg_drop_referrers(g);
    }
}

void hk_graph_drop_kids(hk_dump *d)
{
    hk_graph *g = hkg_of(d);
    if (!g) return;
    if (g->kids) {
        free(g->kids);
        free(g->root_kids);
        g->kids = NULL;
        g->root_kids = NULL;
        g->nroot_kids = 0;
        hk_mem_trim();
    }
    /* the lists planned after the walks take the room */
    hkg_codes_lists(d, g);
}

uint32_t *hk_graph_take_retained(hk_dump *d, hk_idtab *big)
{
    hk_graph *g = hkg_of(d);
    if (!g || !(g->done & HK_GRAPH_DOM)) return NULL;
    uint32_t *r = g->retained;
    *big = g->retained_big;
    hk_idtab_init(&g->retained_big);
    g->retained = NULL;
    hk_graph_drop(d, HK_GRAPH_DOM);
    return r;
}
