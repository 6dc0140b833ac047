/* libFuzzer target: index arbitrary bytes, apply a map, touch every object the way queries do
 * (allocation stacks included), then take
 * every input that indexes through the bitmaps and the whole heap graph (references,
 * referrers, reachability, native sizes, dominators, paths, per-class retained sizes).
 * Besides memory errors, it traps on answers no correct graph can give. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap/bitmap.h"
#include "graph/graph.h"
#include "hprof/hprof_internal.h"
#include "open/open.h"
#include "util/hk_jobs.h"

/* renames the short names generated and fuzzed dumps use, with inlined frames */
static const char MAP[] =
    "# pg_map_id: 1234\n"
    "com.x.Repo -> a:\n    java.lang.Object mCache -> a\n    int mSize -> b\n"
    "com.x.Cache -> b:\n    int mHits -> b\n    1:4:void com.x.U.f():20:23 -> a\n    1:4:void g():41 -> a\n"
    "com.x.Node -> test.Node:\n    java.lang.Object left -> a\n    1:9:void <init>():5:13 -> <init>\n";

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) __builtin_trap();                                                                                 \
    } while (0)

static void touch_objects(hk_dump *d)
{
    hk_buf b;
    hk_buf_init(&b);
    for (uint32_t i = 0; i < d->view.nobjects; i++) {
        (void)hk_obj_shallow_size(d, i);
        (void)hk_obj_class_name(d, i);
        (void)hk_obj_heap(d, i);
        CHECK(hk_obj_find(d, hk_obj_id(d, i)) == i);
        uint32_t c = hk_obj_class(d, i);
        if (hk_obj_kind(d, i) == HK_KIND_INSTANCE && c != HK_NONE) {
            uint32_t n;
            const hk_field *f = hk_class_layout(d, &d->view.classes[c], &n);
            hk_value v;
            for (uint32_t k = 0; k < n && k < 8; k++) hk_instance_field(d, i, f[k].name, &v);
            hk_buf_reset(&b);
            hk_string_value(d, i, &b);
        }
        uint32_t nf;
        free(hk_obj_allocation_stack(d, i, &nf));
        uint32_t len = hk_array_length(d, i);
        if (len && hk_obj_kind(d, i) == HK_KIND_OBJ_ARRAY) (void)hk_obj_array_at(d, i, len - 1);
    }
    for (uint32_t c = 0; c < d->view.nclasses; c++) {
        uint32_t n;
        (void)hk_class_instances(d, c, &n);
    }
    hk_buf_free(&b);
}

/* Before the graph, so enumeration also runs when only the native phase exists. */
static void touch_bitmaps(hk_dump *d)
{
    char err[256];
    const hk_bm *v;
    size_t n;
    if (hk_bitmaps_list(d, &v, &n, err, sizeof err)) return;
    for (size_t k = 0; k < n; k++) CHECK(hk_bitmaps_find(d, v[k].b.id) == &v[k]);
    (void)hk_bitmaps_dump_data_count(d);
}

static void touch_path(hk_dump *d, uint32_t obj)
{
    char err[256], via[96];
    hk_graph_path p;
    if (hk_graph_path_to(d, obj, &p, err, sizeof err)) return;
    if (p.found) {
        CHECK(p.nsteps >= 1 && p.steps[p.nsteps - 1].obj == obj);
        for (uint32_t k = 0; k + 1 < p.nsteps; k++)
            (void)hk_graph_edge_name(d, p.steps[k].obj, p.steps[k + 1].obj, via, sizeof via);
    }
    hk_graph_path_free(&p);
}

static void touch_graph(hk_dump *d)
{
    char err[256];
    const int all =
        HK_GRAPH_REFS | HK_GRAPH_REFERRERS | HK_GRAPH_REACH | HK_GRAPH_NATIVE | HK_GRAPH_DOM | HK_GRAPH_PATHS;
    if (hk_graph_ensure(d, all, err, sizeof err)) return;
    const uint32_t n = d->view.nobjects;
    /* each object's retained size is at least its dominator-tree children's */
    uint64_t *kids = calloc(n ? n : 1, sizeof *kids);
    if (!kids) return;
    uint64_t top = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m, to[2], w[4];
        int kind[2];
        const uint32_t *out = hk_graph_out(d, i, &m);
        for (uint32_t k = 0; k < m; k++) CHECK(out[k] < n);
        int nw = hk_graph_weak_out(d, i, to, kind);
        for (int k = 0; k < nw; k++) CHECK(to[k] < n);
        (void)hk_graph_referrers(d, i, &m);
        (void)hk_graph_weak_referrers(d, i, w, 4);
        int r = hk_graph_reach(d, i);
        CHECK(r >= 0 && r < HK_REACH_COUNT);
        (void)hk_graph_native_size(d, i);
        (void)hk_graph_retained_native(d, i);
        (void)hk_graph_virtual_child(d, i);
        uint32_t up = hk_graph_idom(d, i);
        CHECK(up == HK_NONE || (up < n && up != i));
        /* the live heap's dominators are live (graph.h) */
        CHECK(r != HK_REACH_STRONG || up == HK_NONE || hk_graph_reach(d, up) == HK_REACH_STRONG);
        if (up == HK_NONE) top += hk_graph_retained(d, i);
        else kids[up] += hk_graph_retained(d, i);
    }
    for (uint32_t i = 0; i < n; i++) CHECK(hk_graph_retained(d, i) >= kids[i]);
    free(kids);
    CHECK(top == hk_graph_total_bytes(d));
    /* the dominator chain of every object ends at the virtual root */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = i, steps = 0;
        while (x != HK_NONE && steps++ <= n) x = hk_graph_idom(d, x);
        CHECK(x == HK_NONE);
    }
    const uint32_t *v;
    uint32_t nv;
    if (hk_graph_dominated(d, HK_NONE, &v, &nv, err, sizeof err) == 0)
        for (uint32_t k = 1; k < nv; k++) CHECK(hk_graph_retained(d, v[k - 1]) >= hk_graph_retained(d, v[k]));
    uint32_t best[8];
    for (int live = 0; live <= 1; live++) {
        uint32_t nb = hk_graph_top(d, 8, HK_TOP_RETAINED, live, NULL, NULL, best);
        for (uint32_t k = 0; k < nb; k++) {
            CHECK(best[k] < n && (!live || hk_graph_reach(d, best[k]) == HK_REACH_STRONG));
            (void)hk_graph_dominated(d, best[k], &v, &nv, err, sizeof err);
        }
    }
    if (n) {
        uint32_t probe[] = {0, n / 3, n / 2, n - 1};
        for (int k = 0; k < 4; k++) touch_path(d, probe[k]);
    }
    uint64_t *per;
    if (hk_graph_class_retained(d, &per, err, sizeof err) == 0) {
        for (uint32_t c = 0; c < d->view.nclasses; c++) CHECK(per[c] <= hk_graph_total_bytes(d));
        free(per);
    }
    /* per heap: no class retains more of a heap than the whole graph holds */
    for (uint32_t h = 0; h < d->nheaps && h < 4; h++)
        if (hk_graph_class_retained_heap(d, (int)h, &per, err, sizeof err) == 0) {
            for (uint32_t c = 0; c < d->view.nclasses; c++) CHECK(per[c] <= hk_graph_total_bytes(d));
            free(per);
        }
    uint64_t count[HK_REACH_COUNT], bytes[HK_REACH_COUNT], sum = 0;
    hk_graph_reach_totals(d, count, bytes);
    for (int k = 0; k < HK_REACH_COUNT; k++) sum += count[k];
    CHECK(sum == n);
}

/* Three workers: an input past 512 KiB of heap records is indexed in three parts, cut where
 * the index guesses a sub-record starts (the inputs hprof_mutator.c grows), on any machine. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    hk_set_jobs(3);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    hk_dump *d = hk_open_mem(data, size, err, sizeof err);
    if (!d) return 0;
    hk_buf text, notes;
    hk_buf_init(&text);
    hk_buf_init(&notes);
    hk_buf_append(&text, MAP, sizeof MAP - 1);
    if (hk_dump_apply_map(d, hk_map_parse("fuzz.map", &text), &notes, err, sizeof err) < 0) __builtin_trap();
    hk_buf_free(&notes);
    hk_origin o;
    hk_origin_read(d, &o);
    hk_origin_free(&o);
    touch_objects(d);
    touch_bitmaps(d);
    touch_graph(d);
    hk_dump_close(d);
    return 0;
}
