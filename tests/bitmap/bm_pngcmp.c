/* The tests' one PNG comparer.
 * bm_pngcmp --info PNG: prints "WxH SHA256" of the decoded straight RGBA pixels.
 * bm_pngcmp PNG REF: decodes PNG and compares it with REF, either
 *  - raw straight RGBA8888 (the fixture generator's --pixels-dir output): exact where the
 *    expected alpha is 0 or 255, within +-1 per channel elsewhere (un-premultiplying rounds); or
 *  - "W H\n" followed by W*H*4 bytes of RGBA (what a live test app writes from the pixels it
 *    drew): exact, since those pixels never went through premultiplied storage and back.
 * Exit 0 when equal, 1 when they differ (says where), 2 on unreadable input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hk_file.h"
#include "util/hk_png.h"
#include "util/hk_sha.h"

static int info(const char *path)
{
    hk_buf png;
    hk_buf_init(&png);
    char err[256], hex[65];
    unsigned char *rgba;
    int w, h;
    if (hk_file_read_all(path, &png, err, sizeof err) < 0 ||
        hk_png_decode_rgba(png.data, png.len, &rgba, &w, &h, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", path, err);
        hk_buf_free(&png);
        return 1;
    }
    if (hk_sha256_hex(rgba, (size_t)w * (size_t)h * 4, hex) < 0) {
        fprintf(stderr, "%s: SHA-256 failed in libcrypto\n", path);
        free(rgba);
        hk_buf_free(&png);
        return 1;
    }
    printf("%dx%d %s\n", w, h, hex);
    free(rgba);
    hk_buf_free(&png);
    return 0;
}

/* A "W H\n" header whose size matches the rest of the file: the exact reference format. */
static int take_header(hk_buf *ref, int *w, int *h)
{
    unsigned rw, rh;
    int used = 0;
    char head[32];
    size_t k = ref->len < sizeof head - 1 ? ref->len : sizeof head - 1;
    memcpy(head, ref->data, k);
    head[k] = 0;
    if (sscanf(head, "%u %u%n", &rw, &rh, &used) != 2 || head[used] != '\n') return 0;
    if ((size_t)used + 1 + (size_t)rw * rh * 4 != ref->len) return 0;
    memmove(ref->data, ref->data + used + 1, ref->len - used - 1);
    ref->len -= (size_t)used + 1;
    *w = (int)rw;
    *h = (int)rh;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--info")) return info(argv[2]);
    if (argc != 3) {
        fprintf(stderr, "usage: bm_pngcmp IMAGE.png EXPECTED.rgba|EXPECTED.ref\n");
        return 2;
    }
    hk_buf png, want;
    hk_buf_init(&png);
    hk_buf_init(&want);
    char err[256];
    if (hk_file_read_all(argv[1], &png, err, sizeof err) < 0 || hk_file_read_all(argv[2], &want, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    int rw = 0, rh = 0, exact = take_header(&want, &rw, &rh);
    unsigned char *rgba;
    int w, h;
    if (hk_png_decode_rgba(png.data, png.len, &rgba, &w, &h, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", argv[1], err);
        return 1;
    }
    size_t n = (size_t)w * (size_t)h * 4;
    if (exact && (rw != w || rh != h)) {
        fprintf(stderr, "size differs: png %dx%d, reference %dx%d\n", w, h, rw, rh);
        return 1;
    }
    if (n != want.len) {
        fprintf(stderr, "%s is %dx%d (%zu bytes of RGBA), expected %zu bytes\n", argv[1], w, h, n, want.len);
        return 1;
    }
    size_t bad = 0, near = 0;
    for (size_t i = 0; i < n; i += 4) {
        int a = want.data[i + 3];
        for (int c = 0; c < 4; c++) {
            int d = (int)rgba[i + c] - (int)want.data[i + c];
            if (d == 0) continue;
            if (exact || a == 0 || a == 255 || c == 3 || d < -1 || d > 1) {
                if (!bad)
                    fprintf(stderr, "pixel %zu (x %zu, y %zu) channel %d: got %d, want %d (alpha %d)\n", i / 4,
                            (i / 4) % (size_t)w, (i / 4) / (size_t)w, c, rgba[i + c], want.data[i + c], a);
                bad++;
            } else near++;
        }
    }
    free(rgba);
    hk_buf_free(&png);
    hk_buf_free(&want);
    if (bad) {
        fprintf(stderr, "%zu channel values differ\n", bad);
        return 1;
    }
    printf("%dx%d equal (%zu channels within 1)\n", w, h, near);
    return 0;
}
