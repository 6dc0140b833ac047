/* libFuzzer target: parse arbitrary text as a mapping file, then look up every class, field
 * and method the way deobfuscation and allocation stacks do. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "map/map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hk_buf text;
    hk_buf_init(&text);
    hk_buf_append(&text, data, size);
    hk_map *m = hk_map_parse("fuzz.map", &text);
    hk_frame f[8];
    for (uint32_t i = 0; i < m->nclasses; i++) {
        const hk_map_class *c = &m->classes[i];
        if (hk_map_class_by_obf(m, c->obf, strlen(c->obf)) == NULL) __builtin_trap();
        if (hk_map_class_by_src(m, c->src, strlen(c->src)) == NULL) __builtin_trap();
        for (uint32_t k = c->first; k < c->first + c->n; k++) {
            const hk_map_member *mem = &m->members[k];
            if (!mem->is_method) {
                (void)hk_map_field(m, c, mem->obf);
                continue;
            }
            int32_t lines[] = {-3, 0, 1, mem->obf_lo, mem->obf_hi, INT32_MAX};
            for (size_t j = 0; j < sizeof lines / sizeof lines[0]; j++) {
                uint32_t n = hk_map_frames(m, c, mem->obf, strlen(mem->obf), lines[j], f, 8);
                for (uint32_t q = 0; q < n; q++)
                    if (!f[q].class_name || !f[q].method || memchr(f[q].method, 0, f[q].method_len)) __builtin_trap();
            }
        }
    }
    hk_map_free(m);
    return 0;
}
