/* Allocation stacks: an object's stack serial -> STACK_TRACE -> STACK_FRAMEs, read from
 * the mapping when asked (the index keeps only three id tables), with the map's frames. */
#include "hprof/hprof.h"
#include "hprof/hprof_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

/* Every object record starts: tag, id, stack serial u4. */
static uint32_t stack_serial(const hk_dump *d, uint32_t obj)
{
    return hk_be32(d->view.data + hk_obj_offset(d, obj) + 1 + d->view.id_size);
}

static void set_str(hk_dump *d, hk_id sid, const char **s, size_t *n)
{
    uint32_t len = 0;
    *s = sid ? hk_string_by_id(d, sid, &len) : NULL;
    *n = *s ? len : 0;
}

/* STACK_FRAME: frame id, method name, signature, source file (string ids), class serial
 * u4, line i4.  Appends one frame, or the map's original frames for it. */
static uint32_t add_frame(hk_dump *d, uint64_t body, hk_frame *out, uint32_t max)
{
    const uint8_t *p = d->view.data + body;
    uint32_t idsz = d->view.id_size;
    hk_frame f;
    memset(&f, 0, sizeof f);
    set_str(d, hk_be_id(d, p + idsz), &f.method, &f.method_len);
    set_str(d, hk_be_id(d, p + 3 * idsz), &f.file, &f.file_len);
    f.line = (int32_t)hk_be32(p + 4 * idsz + 4);
    uint64_t class_id;
    const hk_class *c = hk_idtab_get(&d->class_serials, (uint64_t)hk_be32(p + 4 * idsz) + 1, &class_id)
                            ? hk_class_by_id(d, class_id)
                            : NULL;
    f.class_name = c ? c->name : "?";
    f.class_len = strlen(f.class_name);
    if (!f.method) {
        f.method = "?";
        f.method_len = 1;
    }
    if (c && d->map) {
        const hk_map_class *mc = hk_map_class_by_obf(d->map, c->obf_name, strlen(c->obf_name));
        uint32_t k = mc ? hk_map_frames(d->map, mc, f.method, f.method_len, f.line, out, max) : 0;
        for (uint32_t i = 0; i < k; i++)
            if (!out[i].file) {
                out[i].file = f.file;
                out[i].file_len = f.file_len;
            }
        if (k) return k;
    }
    out[0] = f;
    return 1;
}

hk_frame *hk_obj_allocation_stack(hk_dump *d, uint32_t obj, uint32_t *n)
{
    *n = 0;
    uint64_t trace, frame;
    uint32_t serial = stack_serial(d, obj);
    if (!hk_idtab_get(&d->traces, (uint64_t)serial + 1, &trace)) return NULL;
    uint32_t nframes = hk_be32(d->view.data + trace + 8);
    if (!nframes) return NULL;
    /* a frame expands to a handful of inlined ones at most; room is grown as needed */
    size_t cap = (size_t)nframes * 2 + 8, used = 0;
    hk_frame *out = hk_xrealloc(NULL, cap * sizeof *out);
    for (uint32_t i = 0; i < nframes; i++) {
        if (!hk_idtab_get(&d->frames, hk_be_id(d, d->view.data + trace + 12 + (uint64_t)i * d->view.id_size) + 1,
                          &frame))
            continue;
        if (cap - used < 64) out = hk_grow(out, &cap, used + 64, sizeof *out);
        used += add_frame(d, frame, out + used, 64);
    }
    if (!used) {
        free(out);
        return NULL;
    }
    *n = (uint32_t)used;
    return out;
}
