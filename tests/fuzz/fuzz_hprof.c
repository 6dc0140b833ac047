/* libFuzzer target: index arbitrary bytes, apply a map, then touch every object the way
 * queries do (allocation stacks included). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hprof.h"

/* renames the short names generated and fuzzed dumps use, with inlined frames */
static const char MAP[] =
    "# pg_map_id: 1234\n"
    "com.x.Repo -> a:\n    java.lang.Object mCache -> a\n    int mSize -> b\n"
    "com.x.Cache -> b:\n    int mHits -> b\n    1:4:void com.x.U.f():20:23 -> a\n    1:4:void g():41 -> a\n"
    "com.x.Node -> test.Node:\n    java.lang.Object left -> a\n    1:9:void <init>():5:13 -> <init>\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    hk_dump *d = hk_dump_open_mem(data, size, err, sizeof err);
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
    hk_buf b;
    hk_buf_init(&b);
    for (uint32_t i = 0; i < d->nobjects; i++) {
        (void)hk_obj_shallow_size(d, i);
        (void)hk_obj_class_name(d, i);
        (void)hk_obj_heap(d, i);
        if (hk_obj_find(d, hk_obj_id(d, i)) != i) __builtin_trap();
        uint32_t c = hk_obj_class(d, i);
        if (hk_obj_kind(d, i) == HK_KIND_INSTANCE && c != HK_NONE) {
            uint32_t n;
            const hk_field *f = hk_class_layout(d, &d->classes[c], &n);
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
    for (uint32_t c = 0; c < d->nclasses; c++) {
        uint32_t n;
        (void)hk_class_instances(d, c, &n);
    }
    hk_buf_free(&b);
    hk_dump_close(d);
    return 0;
}
