/* The trace source: PNGs that came in a Perfetto trace with its embedded dump (HprofBitmap,
 * named 0x<pointer>.png).  Keyed by pointer, so the join checks each PNG's size. */
#include "bitmap/bitmap.h"

static int tr_open(void *ud, hk_dump *d, void **state, char *err, size_t errlen)
{
    (void)ud;
    (void)err;
    (void)errlen;
    *state = d;
    return 0;
}

static int tr_image(void *state, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen)
{
    const hk_dump *d = state;
    (void)note;
    (void)notelen;
    size_t n;
    const hk_dump_image *im = hk_dump_images(d, &n);
    for (size_t i = 0; i < n; i++) {
        if (im[i].ptr != bm->native_ptr) continue;
        hk_buf_append(out, im[i].png.data, im[i].png.len);
        return HK_IMAGE_ENCODED;
    }
    return HK_IMAGE_NONE;
}

const hk_bitmap_source hk_bm_trace_source = {
    .name = "trace",
    .help = "PNGs carried by a Perfetto trace with its embedded dump (HprofBitmap 0x<pointer>.png)",
    .keyed_by_pointer = 1,
    .open = tr_open,
    .image = tr_image, /* nothing to close: the images belong to the dump */
    .priority = HK_PRIORITY_TRACE,
};
