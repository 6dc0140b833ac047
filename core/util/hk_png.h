/* PNG helpers over libpng: encode RGBA, read a PNG's size from its IHDR without decoding,
 * decode to RGBA (tests and the bitmaps feature compare pixels). */
#ifndef HK_PNG_H
#define HK_PNG_H

#include <stddef.h>

#include "util/hk_buf.h"

/* Appends a PNG of width*height straight (not premultiplied) RGBA8888 pixels to out.  The one
 * PNG encoder of the project (core, host table, plugins): tuned for speed (Sub filter, zlib
 * level 1); on failure out is left as it was. */
int hk_png_encode_rgba(const unsigned char *rgba, int width, int height, hk_buf *out, char *err, size_t errlen);
/* Width and height from the IHDR chunk (bytes 16-23) after checking the 8-byte signature;
 * 0, or -1 when the bytes are not a PNG. */
int hk_png_size(const void *png, size_t n, int *width, int *height);
/* Decodes any PNG to RGBA8888; *rgba is malloc'd (width*height*4 bytes). */
int hk_png_decode_rgba(const void *png, size_t n, unsigned char **rgba, int *width, int *height, char *err,
                       size_t errlen);

#endif
