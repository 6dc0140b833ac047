/*
 * mbuffer plugin: pixels of pre-API-26 bitmaps, from the Java byte[] Bitmap.mBuffer.
 *
 * No dump records a bitmap's Config (it lives in native memory), so the layout comes from
 * mBuffer.length / (width * height), rounded down because reconfigure() keeps a larger
 * allocation with the pixels at the front:
 *   1 -> ALPHA_8 (alpha only, drawn black), 2 -> RGB_565 (ARGB_4444 is unreachable since
 *   API 19), 4 -> ARGB_8888, stored R,G,B,A and premultiplied when the bitmap says so.
 * Anything else has no image.  The output is straight RGBA8888, width*height*4 bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprofkit.h"
#include "mbuffer_decode.h"

static int mb_guess; /* plugins.ini guess_reconfigured = yes */

typedef struct mb_state {
    hk_dump *d;
    unsigned char *row; /* one decoded row */
    size_t rowcap;
} mb_state;

static int mb_open(void *ud, hk_dump *d, void **state, char *err, size_t errlen)
{
    (void)ud;
    mb_state *s = hk_alloc(sizeof *s);
    s->d = d;
    *state = s;
    return 0;
}

static void mb_close(void *state)
{
    mb_state *s = state;
    if (s) hk_free(s->row);
    hk_free(s);
}

static int mb_image(void *state, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen)
{
    mb_state *s = state;
    if (!bm->buffer) return HK_IMAGE_NONE; /* API 26+: not this source's business */
    int type = 0;
    uint32_t len = 0;
    const unsigned char *data = hk_api->prim_array_data(s->d, bm->buffer, &type, &len);
    if (!data) {
        snprintf(note, notelen, "mBuffer was written without its bytes (PRIMITIVE_ARRAY_NODATA)");
        return HK_IMAGE_NONE;
    }
    if (type != HK_T_BYTE) {
        snprintf(note, notelen, "mBuffer is not a byte[]");
        return HK_IMAGE_NONE;
    }
    uint64_t px = (uint64_t)bm->width * (uint64_t)bm->height;
    if (px == 0) return HK_IMAGE_NONE;
    uint64_t bpp = len / px;
    int layout = mbd_layout(bpp);
    int guessed = 0;
    if (layout == MBD_NONE) {
        if (bpp > 4 && bpp % 4 == 0 && mb_guess) {
            layout = MBD_ARGB_8888;
            guessed = 1;
        } else if (bpp > 4 && bpp % 4 == 0) {
            snprintf(note, notelen,
                     "mBuffer has %llu bytes per pixel, not 1, 2 or 4: most likely an "
                     "ARGB_8888 bitmap reconfigured smaller (set guess_reconfigured = yes in the [mbuffer] "
                     "section of plugins.ini to decode it as that guess)",
                     (unsigned long long)bpp);
            return HK_IMAGE_NONE;
        } else {
            snprintf(note, notelen, "mBuffer has %llu bytes per pixel, not 1, 2 or 4: unknown layout",
                     (unsigned long long)bpp);
            return HK_IMAGE_NONE;
        }
    }
    size_t rowbytes = (size_t)bm->width * 4;
    if (s->rowcap < rowbytes) {
        s->row = hk_realloc(s->row, rowbytes);
        s->rowcap = rowbytes;
    }
    size_t in_row = (size_t)bm->width * (size_t)mbd_bytes_per_pixel(layout);
    for (int32_t y = 0; y < bm->height; y++) {
        mbd_decode_row(layout, bm->premultiplied, data + (size_t)y * in_row, (size_t)bm->width, s->row);
        hk_api->buf_append(out, s->row, rowbytes);
    }
    if (guessed)
        snprintf(note, notelen, "guess: ARGB_8888 bitmap reconfigured smaller (buffer has %llu bytes per pixel)",
                 (unsigned long long)bpp);
    else snprintf(note, notelen, "%s", mbd_layout_name(layout));
    return HK_IMAGE_RGBA;
}

static const hk_bitmap_source mb_source = {
    .name = "mbuffer",
    .help = "pre-API-26 pixels from Bitmap.mBuffer (ALPHA_8, RGB_565, ARGB_8888 by bytes per pixel)",
    .keyed_by_pointer = 0,
    .open = mb_open,
    .image = mb_image,
    .close = mb_close,
    /* the dump's own pixels, after dumpdata (a dump never has both: mBuffer is pre-26) */
    .priority = HK_PRIORITY_DUMP_PIXELS - 10,
};

static int mb_init(hk_plugin *self, char *err, size_t errlen)
{
    if (hk_api->config_bool(self, "guess_reconfigured", 0, &mb_guess, err, errlen) < 0) return -1;
    hk_api->describe(self, "mbuffer", "0.1.0", "pre-API-26 bitmap pixels from Bitmap.mBuffer");
    return hk_api->register_bitmap_source(self, &mb_source, NULL); /* a refusal is the host's reason */
}

HK_PLUGIN_INIT(mb_init)
