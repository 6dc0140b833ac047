/* jdwp_pngcmp PNG REF: decodes PNG to 8-bit RGBA and compares it pixel for pixel with REF, a raw
 * reference written by the test app: "W H\n" followed by W*H*4 bytes of RGBA.
 * Prints "same WxH" and exits 0, or says what differs and exits 1 (2 on unreadable input). */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *cmp_read_png(const char *path, png_uint_32 *w, png_uint_32 *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) {
        fprintf(stderr, "jdwp_pngcmp: %s: %s\n", path, img.message);
        return NULL;
    }
    img.format = PNG_FORMAT_RGBA;
    unsigned char *buf = malloc(PNG_IMAGE_SIZE(img));
    if (!buf || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
        fprintf(stderr, "jdwp_pngcmp: %s: %s\n", path, buf ? img.message : "out of memory");
        free(buf);
        png_image_free(&img);
        return NULL;
    }
    *w = img.width;
    *h = img.height;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: jdwp_pngcmp PNG REF\n");
        return 2;
    }
    png_uint_32 w, h;
    unsigned char *px = cmp_read_png(argv[1], &w, &h);
    if (!px) return 2;
    FILE *f = fopen(argv[2], "rb");
    unsigned rw, rh;
    if (!f || fscanf(f, "%u %u", &rw, &rh) != 2 || fgetc(f) != '\n') {
        fprintf(stderr, "jdwp_pngcmp: %s: not a reference file\n", argv[2]);
        if (f) fclose(f);
        free(px);
        return 2;
    }
    if (rw != w || rh != h) {
        printf("size differs: png %ux%u, reference %ux%u\n", (unsigned)w, (unsigned)h, rw, rh);
        fclose(f);
        free(px);
        return 1;
    }
    size_t n = (size_t)w * h * 4;
    unsigned char *ref = malloc(n ? n : 1);
    size_t got = ref ? fread(ref, 1, n, f) : 0;
    fclose(f);
    if (got != n) {
        fprintf(stderr, "jdwp_pngcmp: %s: short reference (%zu of %zu bytes)\n", argv[2], got, n);
        free(ref);
        free(px);
        return 2;
    }
    int rc = 0;
    for (size_t i = 0; i < n; i += 4)
        if (memcmp(px + i, ref + i, 4) != 0) {
            size_t p = i / 4;
            printf("pixel (%zu,%zu) differs: png %02x%02x%02x%02x, reference %02x%02x%02x%02x (RGBA)\n", p % w, p / w,
                   px[i], px[i + 1], px[i + 2], px[i + 3], ref[i], ref[i + 1], ref[i + 2], ref[i + 3]);
            rc = 1;
            break;
        }
    if (!rc) printf("same %ux%u\n", (unsigned)w, (unsigned)h);
    free(ref);
    free(px);
    return rc;
}
