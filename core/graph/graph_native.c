/* Native sizes: on Android 8+ a Bitmap's pixels (and other native peers) are registered
 * with a NativeAllocationRegistry, which leaves a sun.misc.Cleaner whose thunk is a
 * NativeAllocationRegistry$CleanerThunk; its outer registry's `size` is the native size
 * of the Cleaner's referent, unless the Cleaner has run. */
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static int64_t registered_size(hk_dump *d, hk_graph *g, uint32_t cleaner, uint32_t *referent)
{
    hk_value thunk, outer, size, ref, next;
    /* Cleaner.clean() unlinks it with next = prev = itself: its native memory is already freed */
    if (hk_instance_field(d, cleaner, "next", &next) && next.type == HK_T_OBJECT && next.ref &&
        hkg_find(d, g, next.ref) == cleaner)
        return -1;
    if (!hk_instance_field(d, cleaner, "thunk", &thunk) || thunk.type != HK_T_OBJECT) return -1;
    uint32_t t = hkg_find(d, g, thunk.ref);
    if (t == HK_NONE || !ends_with(hk_obj_class_name(d, t), "NativeAllocationRegistry$CleanerThunk")) return -1;
    if (!hk_instance_field(d, t, "this$0", &outer) || outer.type != HK_T_OBJECT) return -1;
    uint32_t r = hkg_find(d, g, outer.ref);
    if (r == HK_NONE || !hk_instance_field(d, r, "size", &size)) return -1;
    if (size.type != HK_T_LONG && size.type != HK_T_INT) return -1;
    if (!hk_instance_field(d, cleaner, "referent", &ref) || ref.type != HK_T_OBJECT) return -1;
    *referent = hkg_find(d, g, ref.ref);
    return *referent == HK_NONE || size.i < 0 ? -1 : size.i;
}

int hkg_build_native(hk_dump *d, hk_graph *g, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    /* the reference pass listed the Cleaners */
    for (uint32_t k = 0; k < g->ncleaners; k++) {
        uint32_t referent;
        int64_t sz = registered_size(d, g, g->cleaners[k], &referent);
        if (sz <= 0) continue;
        if (!g->native) g->native = hk_xcalloc(g->n, sizeof *g->native);
        g->native[referent] += (uint64_t)sz;
    }
    return 0;
}

uint64_t hk_graph_native_size(hk_dump *d, uint32_t obj)
{
    hk_graph *g = hkg_of(d);
    return g && g->native && obj < g->n ? g->native[obj] : 0;
}

int hk_graph_class_native(hk_dump *d, int heap, uint64_t **out, char *err, size_t errlen)
{
    if (hk_graph_ensure(d, HK_GRAPH_NATIVE, err, errlen) < 0) return -1;
    hk_graph *g = hkg_of(d);
    uint64_t *per = hk_xcalloc(hk_view(d)->nclasses ? hk_view(d)->nclasses : 1, sizeof *per);
    for (uint32_t o = 0; g->native && o < g->n; o++) {
        if (!g->native[o] || (heap >= 0 && hk_obj_heap(d, o) != heap) || hk_obj_kind(d, o) == HK_KIND_CLASS) continue;
        uint32_t c = hk_obj_class(d, o);
        if (c != HK_NONE) per[c] += g->native[o];
    }
    *out = per;
    return 0;
}
