/*
 * dumpdata plugin: images that `am dumpheap -b png` (API 35+) leaves in the static
 * Bitmap.dumpData, a Bitmap$DumpData { int count; int format; long[] natives; byte[][] buffers }.
 * Entry i (i < min(count, natives.length, buffers.length)) maps the native pointer natives[i]
 * to the compressed image buffers[i]; the arrays are longer than count and the tail is empty.
 * The index (pointer -> byte[] id) is built on the first request; image bytes are read from
 * the mapped dump only when asked for.  The core checks each PNG's size against the bitmap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprofkit.h"

typedef struct dd_entry {
    uint64_t ptr;
    hk_id buffer;
} dd_entry;

typedef struct dd_state {
    hk_dump *d;
    int indexed; /* 0 not yet, 1 done */
    int present; /* the dump has a non-null Bitmap.dumpData */
    int format;  /* CompressFormat.nativeInt: JPEG 0, PNG 1, WEBP 2, ... */
    dd_entry *v;
    size_t n;
} dd_state;

static int dd_open(void *ud, hk_dump *d, void **state, char *err, size_t errlen)
{
    (void)ud;
    dd_state *s = hk_alloc(sizeof *s);
    s->d = d;
    *state = s;
    return 0;
}

static void dd_close(void *state)
{
    dd_state *s = state;
    if (s) hk_free(s->v);
    hk_free(s);
}

static int by_ptr(const void *a, const void *b)
{
    uint64_t x = ((const dd_entry *)a)->ptr, y = ((const dd_entry *)b)->ptr;
    return x < y ? -1 : x > y;
}

static uint64_t be64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static void dd_index(dd_state *s)
{
    s->indexed = 1;
    hk_dump *d = s->d;
    hk_id bc = hk_api->class_by_name(d, "android.graphics.Bitmap");
    hk_value v;
    if (!bc || hk_api->class_static(d, bc, "dumpData", &v) != 1 || v.type != HK_T_OBJECT || !v.ref) return;
    hk_id dd = v.ref;
    hk_value count, format, natives, buffers;
    if (hk_api->field(d, dd, "count", &count) != 1 || hk_api->field(d, dd, "natives", &natives) != 1 ||
        hk_api->field(d, dd, "buffers", &buffers) != 1 || natives.type != HK_T_OBJECT || buffers.type != HK_T_OBJECT)
        return;
    s->present = 1;
    s->format = hk_api->field(d, dd, "format", &format) == 1 ? (int)format.i : 1;
    int et = 0;
    uint32_t nn = 0;
    const unsigned char *np = natives.ref ? hk_api->prim_array_data(d, natives.ref, &et, &nn) : NULL;
    if (!np || et != HK_T_LONG) return;
    int64_t nb = buffers.ref ? hk_api->array_length(d, buffers.ref) : 0;
    uint64_t n = count.i > 0 ? (uint64_t)count.i : 0;
    if (n > nn) n = nn;
    if (nb < 0) nb = 0;
    if (n > (uint64_t)nb) n = (uint64_t)nb;
    if (!n) return;
    s->v = hk_alloc(n * sizeof *s->v);
    for (uint64_t i = 0; i < n; i++) {
        hk_id b = hk_api->obj_array_at(d, buffers.ref, (uint32_t)i);
        if (!b) continue;
        s->v[s->n++] = (dd_entry){.ptr = be64(np + 8 * i), .buffer = b};
    }
    qsort(s->v, s->n, sizeof *s->v, by_ptr);
}

static const char *format_name(int f)
{
    static const char *const names[] = {"JPEG", "PNG", "WEBP", "WEBP_LOSSY", "WEBP_LOSSLESS"};
    return f >= 0 && f < 5 ? names[f] : "unknown";
}

static int dd_image(void *state, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen)
{
    dd_state *s = state;
    if (!s->indexed) dd_index(s);
    if (!s->present) return HK_IMAGE_NONE;
    if (s->format != 1) {
        snprintf(note, notelen,
                 "Bitmap.dumpData holds %s images (format %d); only PNG can be checked "
                 "against the bitmap's size: take the dump with am dumpheap -b png",
                 format_name(s->format), s->format);
        return HK_IMAGE_NONE;
    }
    dd_entry key = {.ptr = bm->native_ptr};
    dd_entry *e = bsearch(&key, s->v, s->n, sizeof *s->v, by_ptr);
    if (!e) {
        snprintf(note, notelen, "no entry in Bitmap.dumpData for pointer 0x%llx", (unsigned long long)bm->native_ptr);
        return HK_IMAGE_NONE;
    }
    int et = 0;
    uint32_t len = 0;
    const void *data = hk_api->prim_array_data(s->d, e->buffer, &et, &len);
    if (!data || et != HK_T_BYTE) {
        snprintf(note, notelen, "Bitmap.dumpData buffer for pointer 0x%llx is not a byte[] with data",
                 (unsigned long long)bm->native_ptr);
        return HK_IMAGE_NONE;
    }
    hk_api->buf_append(out, data, len);
    return HK_IMAGE_ENCODED;
}

static const hk_bitmap_source dd_source = {
    .name = "dumpdata",
    .help = "API 35+ images in Bitmap.dumpData, written by am dumpheap -b png (keyed by native pointer)",
    .keyed_by_pointer = 1,
    .open = dd_open,
    .image = dd_image,
    .close = dd_close,
    .priority = HK_PRIORITY_DUMP_PIXELS, /* the dump's own images beat any other source */
};

static int dd_init(hk_plugin *self, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    hk_api->describe(self, "dumpdata", "0.1.0", "API 35+ bitmap images from Bitmap.dumpData (am dumpheap -b)");
    return hk_api->register_bitmap_source(self, &dd_source, NULL); /* a refusal is the host's reason */
}

HK_PLUGIN_INIT(dd_init)
