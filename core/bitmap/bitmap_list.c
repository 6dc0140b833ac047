/* Enumerates android.graphics.Bitmap instances once per dump (attached to the dump: hk_dump_attach). */
#include "bitmap/bitmap.h"
#include "util/hk_mem.h"
#include "graph/graph.h"
#include "hprof/hprof_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bm_cache {
    hk_bm *v;
    size_t n;
    uint32_t dump_data;
} bm_cache;

/* the key the list is attached to its dump under */
static const char bm_key;

static void bm_cleanup(void *state)
{
    bm_cache *c = state;
    free(c->v);
    free(c);
}

static int64_t int_field(hk_dump *d, uint32_t obj, const char *name, int64_t dflt, int *found)
{
    hk_value v;
    if (!hk_instance_field(d, obj, name, &v) || v.type == HK_T_OBJECT || v.type == HK_T_FLOAT ||
        v.type == HK_T_DOUBLE) {
        if (found) *found = 0;
        return dflt;
    }
    if (found) *found = 1;
    return v.i;
}

static void read_one(hk_dump *d, uint32_t obj, int sdk, hk_bm *bm)
{
    memset(bm, 0, sizeof *bm);
    bm->obj = obj;
    bm->b.id = hk_obj_id(d, obj);
    bm->b.sdk = sdk;
    bm->b.width = (int32_t)int_field(d, obj, "mWidth", 0, NULL);
    bm->b.height = (int32_t)int_field(d, obj, "mHeight", 0, NULL);
    bm->b.density = (int32_t)int_field(d, obj, "mDensity", 0, NULL);
    bm->b.recycled = int_field(d, obj, "mRecycled", 0, NULL) != 0;
    int found;
    /* API 21+: long mNativePtr; older releases: int mNativeBitmap, an unsigned address */
    hk_value pv;
    if (hk_instance_field(d, obj, "mNativePtr", &pv) && pv.type != HK_T_OBJECT)
        bm->b.native_ptr = pv.type == HK_T_INT ? (uint32_t)pv.i : (uint64_t)pv.i;
    else if (hk_instance_field(d, obj, "mNativeBitmap", &pv) && pv.type != HK_T_OBJECT)
        bm->b.native_ptr = pv.type == HK_T_INT ? (uint32_t)pv.i : (uint64_t)pv.i;
    int64_t pm = int_field(d, obj, "mRequestPremultiplied", -1, &found);
    if (!found) pm = int_field(d, obj, "mIsPremultiplied", -1, &found);
    bm->b.premultiplied = found ? pm != 0 : 1;
    hk_value buf;
    if (hk_instance_field(d, obj, "mBuffer", &buf) && buf.type == HK_T_OBJECT && buf.ref) {
        uint32_t bi = hk_obj_find(d, buf.ref);
        if (bi != HK_NONE && hk_obj_kind(d, bi) == HK_KIND_PRIM_ARRAY) {
            bm->b.buffer = buf.ref;
            bm->bytes = hk_array_length(d, bi) * (uint64_t)hk_type_size(d, hk_prim_array_type(d, bi));
        }
    }
    bm->drawable = bm->b.width > 0 && bm->b.height > 0 && !bm->b.recycled;
}

static uint32_t read_dump_data(hk_dump *d, const hk_class *bc)
{
    const hk_static *s = hk_class_static(bc, "dumpData");
    if (!s || s->type != HK_T_OBJECT || !s->value.ref) return 0;
    uint32_t o = hk_obj_find(d, s->value.ref);
    if (o == HK_NONE) return 0;
    hk_value v;
    int64_t count = hk_instance_field(d, o, "count", &v) && v.type == HK_T_INT ? v.i : 0;
    return count > 0 ? (uint32_t)count : 0;
}

static int by_obj(const void *a, const void *b)
{
    uint32_t x = ((const hk_bm *)a)->obj, y = ((const hk_bm *)b)->obj;
    return x < y ? -1 : x > y;
}

int hk_bitmaps_list(hk_dump *d, const hk_bm **out, size_t *n, char *err, size_t errlen)
{
    bm_cache *c = hk_dump_attached(d, &bm_key);
    if (c) {
        *out = c->v;
        *n = c->n;
        return 0;
    }
    c = hk_xcalloc(1, sizeof *c);
    const hk_class *bc = hk_class_by_name(d, "android.graphics.Bitmap");
    if (bc) {
        hk_origin o;
        hk_origin_read(d, &o);
        int sdk = o.sdk > 0 ? o.sdk : 0;
        hk_origin_free(&o);
        size_t total = 0;
        for (uint32_t k = 0; k < hk_view(d)->nclasses; k++) {
            if (!hk_class_is_subclass(d, &hk_view(d)->classes[k], bc)) continue;
            uint32_t cnt;
            hk_class_instances(d, k, &cnt);
            total += cnt;
        }
        c->v = total ? hk_xcalloc(total, sizeof *c->v) : NULL;
        int need_native = 0;
        for (uint32_t k = 0; k < hk_view(d)->nclasses; k++) {
            if (!hk_class_is_subclass(d, &hk_view(d)->classes[k], bc)) continue;
            uint32_t cnt;
            const uint32_t *objs = hk_class_instances(d, k, &cnt);
            for (uint32_t j = 0; j < cnt && c->n < total; j++) {
                hk_bm *bm = &c->v[c->n++];
                read_one(d, objs[j], sdk, bm);
                if (!bm->b.buffer) need_native = 1;
            }
        }
        if (c->n) qsort(c->v, c->n, sizeof *c->v, by_obj); /* no bitmaps: v is NULL */
        /* Native sizes need the reference pass over the whole heap: only when some bitmap
         * keeps its pixels outside the Java heap. */
        char gerr[256];
        int have_native = need_native && hk_graph_ensure(d, HK_GRAPH_NATIVE, gerr, sizeof gerr) == 0;
        for (size_t i = 0; i < c->n; i++) {
            hk_bm *bm = &c->v[i];
            if (bm->b.buffer) continue;
            uint64_t ns = have_native ? hk_graph_native_size(d, bm->obj) : 0;
            if (ns) bm->bytes = ns;
            else {
                bm->bytes =
                    (uint64_t)(bm->b.width > 0 ? bm->b.width : 0) * (uint64_t)(bm->b.height > 0 ? bm->b.height : 0) * 4;
                bm->estimated = 1;
            }
        }
        c->dump_data = read_dump_data(d, bc);
    }
    hk_dump_attach(d, &bm_key, c, bm_cleanup);
    *out = c->v;
    *n = c->n;
    return 0;
}

uint32_t hk_bitmaps_dump_data_count(hk_dump *d)
{
    const hk_bm *v;
    size_t n;
    char err[64];
    if (hk_bitmaps_list(d, &v, &n, err, sizeof err) < 0) return 0;
    return ((bm_cache *)hk_dump_attached(d, &bm_key))->dump_data;
}

const hk_bm *hk_bitmaps_find(hk_dump *d, hk_id id)
{
    const hk_bm *v;
    size_t n;
    char err[64];
    if (hk_bitmaps_list(d, &v, &n, err, sizeof err) < 0) return NULL;
    /* sorted by object index, and the object table is sorted by id */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].b.id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo].b.id == id ? &v[lo] : NULL;
}
