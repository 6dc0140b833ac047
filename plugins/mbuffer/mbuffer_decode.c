#include "mbuffer_decode.h"

#include <string.h>

int mbd_layout(uint64_t bpp)
{
    return bpp == 1 ? MBD_ALPHA_8 : bpp == 2 ? MBD_RGB_565 : bpp == 4 ? MBD_ARGB_8888 : MBD_NONE;
}

int mbd_bytes_per_pixel(int layout)
{
    return layout;
}

const char *mbd_layout_name(int layout)
{
    switch (layout) {
    case MBD_ALPHA_8: return "ALPHA_8";
    case MBD_RGB_565: return "RGB_565";
    case MBD_ARGB_8888: return "ARGB_8888";
    default: return "unknown";
    }
}

/* c * 255 / a rounded, clamped: the straight value of a premultiplied channel. */
static unsigned char unpremul(unsigned c, unsigned a)
{
    unsigned v = (c * 255 + a / 2) / a;
    return (unsigned char)(v > 255 ? 255 : v);
}

void mbd_decode_row(int layout, int premultiplied, const unsigned char *in, size_t n, unsigned char *out)
{
    switch (layout) {
    case MBD_ALPHA_8:
        /* a mask: drawn black with that alpha, like a nine-patch shadow */
        for (size_t i = 0; i < n; i++) {
            out[4 * i] = out[4 * i + 1] = out[4 * i + 2] = 0;
            out[4 * i + 3] = in[i];
        }
        break;
    case MBD_RGB_565:
        for (size_t i = 0; i < n; i++) {
            unsigned v = (unsigned)in[2 * i] | (unsigned)in[2 * i + 1] << 8; /* little-endian */
            unsigned r = v >> 11, g = (v >> 5) & 63, b = v & 31;
            out[4 * i] = (unsigned char)(r << 3 | r >> 2);
            out[4 * i + 1] = (unsigned char)(g << 2 | g >> 4);
            out[4 * i + 2] = (unsigned char)(b << 3 | b >> 2);
            out[4 * i + 3] = 255;
        }
        break;
    case MBD_ARGB_8888:
        memcpy(out, in, n * 4);
        if (!premultiplied) break;
        for (size_t i = 0; i < n; i++) {
            unsigned a = out[4 * i + 3];
            if (a == 255 || a == 0) continue;
            out[4 * i] = unpremul(out[4 * i], a);
            out[4 * i + 1] = unpremul(out[4 * i + 1], a);
            out[4 * i + 2] = unpremul(out[4 * i + 2], a);
        }
        break;
    default: memset(out, 0, n * 4);
    }
}
