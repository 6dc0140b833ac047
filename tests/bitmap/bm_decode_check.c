/* Unit checks of the mbuffer decoder: every premultiplied (c, a) pair un-premultiplies to
 * within 1 of the straight value it came from, RGB_565 widens by bit replication and is
 * little-endian, ALPHA_8 is black.  Prints PASS/FAIL lines for tests/t_bitmaps.sh. */
#include <stdio.h>
#include <string.h>

#include "mbuffer_decode.h"

static int fails;
static void check(const char *name, int ok, const char *why)
{
    if (ok) printf("PASS %s\n", name);
    else {
        printf("FAIL %s: %s\n", name, why);
        fails++;
    }
}

int main(void)
{
    /* premultiply every straight c with every alpha as Skia does (rounded), then decode */
    int worst = 0;
    for (int a = 1; a <= 254; a++)
        for (int c = 0; c <= 255; c++) {
            unsigned char in[4], out[4];
            unsigned p = (unsigned)(c * a + 127) / 255;
            in[0] = in[1] = in[2] = (unsigned char)p;
            in[3] = (unsigned char)a;
            mbd_decode_row(MBD_ARGB_8888, 1, in, 1, out);
            /* the best a decoder can do is the straight value whose premultiple is p */
            int back = (int)out[0];
            unsigned rp = (unsigned)(back * a + 127) / 255;
            if (rp != p) { worst = 1000; }
            if (out[3] != a) worst = 1000;
        }
    check("decode_unpremultiply_roundtrip", worst == 0, "a decoded channel does not premultiply back to its input");

    unsigned char in[8] = {0}, out[16];
    /* 0xF800 little-endian = pure red; 0x07E0 = green; 0x001F = blue; 0x8410 = mid grey */
    unsigned v[4] = {0xF800, 0x07E0, 0x001F, 0x8410};
    for (int i = 0; i < 4; i++) {
        in[2 * i] = (unsigned char)(v[i] & 255);
        in[2 * i + 1] = (unsigned char)(v[i] >> 8);
    }
    mbd_decode_row(MBD_RGB_565, 1, in, 4, out);
    static const unsigned char want565[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 132, 130, 132, 255};
    check("decode_rgb565", !memcmp(out, want565, 16), "RGB_565 not little-endian 5-6-5 with bit replication");

    unsigned char a8[3] = {0, 128, 255};
    mbd_decode_row(MBD_ALPHA_8, 1, a8, 3, out);
    static const unsigned char wanta8[12] = {0, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0, 255};
    check("decode_alpha8", !memcmp(out, wanta8, 12), "ALPHA_8 is not black with alpha");

    unsigned char st[4] = {200, 100, 50, 128};
    mbd_decode_row(MBD_ARGB_8888, 0, st, 1, out);
    check("decode_straight_untouched", !memcmp(out, st, 4), "a straight ARGB_8888 pixel was changed");

    check("layout_from_ratio",
          mbd_layout(1) == MBD_ALPHA_8 && mbd_layout(2) == MBD_RGB_565 && mbd_layout(4) == MBD_ARGB_8888 &&
              mbd_layout(3) == MBD_NONE && mbd_layout(9) == MBD_NONE && mbd_layout(0) == MBD_NONE,
          "wrong layout for a bytes-per-pixel ratio");
    return fails ? 1 : 0;
}
