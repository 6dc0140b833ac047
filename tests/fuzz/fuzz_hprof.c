/* libFuzzer target: index arbitrary bytes, then touch every object the way queries do. */
#include <stddef.h>
#include <stdint.h>

#include "hprof/hprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    hk_dump *d = hk_dump_open_mem(data, size, err, sizeof err);
    if (!d) return 0;
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
