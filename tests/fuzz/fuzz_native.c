/* libFuzzer target: read arbitrary bytes as a trace's native heap profiles (heapprofd), with an
 * R8 map for the Java frames, and check that every stack and sample points inside the profile. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "map/map.h"
#include "native/native.h"

static hk_map *fuzz_map(void)
{
    static hk_map *m;
    if (!m) {
        hk_buf text;
        hk_buf_init(&text);
        hk_buf_puts(&text, "com.example.Foo -> a:\n    1:3:void bar():5:7 -> f1\n");
        m = hk_map_parse("fuzz.map", &text);
    }
    return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hk_native_profile p;
    char err[256];
    if (hk_native_read(data, size, size & 1 ? fuzz_map() : NULL, &p, err, sizeof err) < 0) return 0;
    for (size_t i = 0; i < p.nstacks; i++) {
        const hk_native_stack *s = &p.stacks[i];
        if ((size_t)s->first + s->n > p.nstack_frames) __builtin_trap();
        for (uint32_t k = 0; k < s->n; k++)
            if (p.stack_frames[s->first + k] >= p.nframes) __builtin_trap();
    }
    for (size_t i = 0; i < p.ndumps; i++) {
        const hk_native_dump *d = &p.dumps[i];
        if (!d->heap) __builtin_trap();
        for (size_t k = 0; k < d->n; k++)
            if (d->samples[k].stack >= p.nstacks) __builtin_trap();
    }
    for (size_t i = 0; i < p.nframes; i++)
        if (p.frames[i].function) (void)strlen(p.frames[i].function);
    hk_native_free(&p);
    return 0;
}
