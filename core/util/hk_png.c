#include "util/hk_png.h"
#include "util/hk_mem.h"

#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

/* libpng reports errors by longjmp; the handlers below carry the message out. */
typedef struct png_ctx {
    char msg[200];
    hk_buf *out;             /* encoding */
    const unsigned char *in; /* decoding */
    size_t inlen, inpos;
} png_ctx;

static void on_error(png_structp png, png_const_charp msg)
{
    png_ctx *c = png_get_error_ptr(png);
    snprintf(c->msg, sizeof c->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void on_write(png_structp png, png_bytep data, png_size_t n)
{
    png_ctx *c = png_get_io_ptr(png);
    hk_buf_append(c->out, data, n);
}

static void on_flush(png_structp png)
{
    (void)png;
}

static void on_read(png_structp png, png_bytep data, png_size_t n)
{
    png_ctx *c = png_get_io_ptr(png);
    if (n > c->inlen - c->inpos) png_error(png, "truncated PNG data");
    memcpy(data, c->in + c->inpos, n);
    c->inpos += n;
}

int hk_png_encode_rgba(const unsigned char *rgba, int width, int height, hk_buf *out, char *err, size_t errlen)
{
    if (width <= 0 || height <= 0 || (uint64_t)width * (uint64_t)height > (1ull << 30)) {
        snprintf(err, errlen, "png: cannot encode a %dx%d image (width and height must be 1..2^30 pixels)", width,
                 height);
        return -1;
    }
    png_ctx c = {.out = out};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) hk_oom(); /* libpng's structs are all it allocates here */
    size_t start = out->len;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        out->len = start;
        snprintf(err, errlen, "png: encoding failed: %s", c.msg);
        return -1;
    }
    png_set_write_fn(png, &c, on_write, on_flush);
    /* Speed over size: libpng's default tries all five filters on every row and deflates at
     * level 6 (~50 MB/s of pixels).  One filter (Sub) and level 1 run ~4.5x faster for files
     * ~1.3x larger on screenshots and synthetic bitmaps (measured; Up is equal within noise,
     * Z_RLE is slower and larger, levels 2-3 gain <3 %).  Bulk export is the main caller. */
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_compression_level(png, 1);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(rgba + (size_t)y * (size_t)width * 4));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return 0;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int hk_png_size(const void *png, size_t n, int *width, int *height)
{
    const unsigned char *p = png;
    /* signature, then the first chunk must be IHDR: length(4) "IHDR" width(4) height(4) */
    if (!p || n < 24 || memcmp(p, png_sig, 8) || memcmp(p + 12, "IHDR", 4)) return -1;
    uint32_t w = be32(p + 16), h = be32(p + 20);
    if (w == 0 || h == 0 || w > INT32_MAX || h > INT32_MAX) return -1;
    *width = (int)w;
    *height = (int)h;
    return 0;
}

int hk_png_decode_rgba(const void *data, size_t n, unsigned char **rgba, int *width, int *height, char *err,
                       size_t errlen)
{
    *rgba = NULL;
    int w, h;
    if (hk_png_size(data, n, &w, &h) < 0) {
        snprintf(err, errlen, "png: not a PNG (no PNG signature or IHDR chunk)");
        return -1;
    }
    if ((uint64_t)w * (uint64_t)h > (1ull << 28)) {
        snprintf(err, errlen, "png: %dx%d is too large to decode", w, h);
        return -1;
    }
    png_ctx c = {.in = data, .inlen = n};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) hk_oom();
    /* volatile: modified between setjmp and a possible longjmp */
    unsigned char *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(pixels);
        free(rows);
        snprintf(err, errlen, "png: decoding failed: %s", c.msg);
        return -1;
    }
    png_set_read_fn(png, &c, on_read);
    png_read_info(png, info);
    int ct = png_get_color_type(png, info);
    int depth = png_get_bit_depth(png, info);
    if (depth == 16) png_set_strip_16(png);
    if (ct == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (ct == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (ct == PNG_COLOR_TYPE_GRAY || ct == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(ct & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_filler(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    pixels = hk_xmalloc((size_t)w * (size_t)h * 4);
    rows = hk_xmalloc((size_t)h * sizeof *rows);
    for (int y = 0; y < h; y++) rows[y] = pixels + (size_t)y * (size_t)w * 4;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    *rgba = pixels;
    *width = w;
    *height = h;
    return 0;
}
