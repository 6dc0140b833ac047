/* Pixel layouts of Bitmap.mBuffer and their decoding to straight RGBA8888 (no host needed,
 * so tests/bitmap can check it directly). */
#ifndef MBUFFER_DECODE_H
#define MBUFFER_DECODE_H

#include <stddef.h>
#include <stdint.h>

enum { MBD_NONE = 0, MBD_ALPHA_8 = 1, MBD_RGB_565 = 2, MBD_ARGB_8888 = 4 };

/* The layout for a bytes-per-pixel ratio (already rounded down), MBD_NONE when unknown. */
int mbd_layout(uint64_t bytes_per_pixel);
int mbd_bytes_per_pixel(int layout);
const char *mbd_layout_name(int layout);
/* Decodes n pixels of one row from in to out (n*4 bytes of straight RGBA). */
void mbd_decode_row(int layout, int premultiplied, const unsigned char *in, size_t n, unsigned char *out);

#endif
