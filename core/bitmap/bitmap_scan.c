/* One pass over the dump's bitmaps: source, reason, pixel hash and export per bitmap, with
 * one image in memory at a time. */
#include "bitmap/bitmap.h"
#include "util/hk_file.h"
#include "util/hk_mem.h"
#include "hprof/hprof_view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void count_source(hk_bm_summary *sum, const char *name)
{
    for (int i = 0; i < sum->nsources; i++)
        if (!strcmp(sum->source_names[i], name)) {
            sum->source_counts[i]++;
            return;
        }
    if (sum->nsources < 16) {
        sum->source_names[sum->nsources] = name;
        sum->source_counts[sum->nsources++] = 1;
    }
}

static int make_dir(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return 0;
        snprintf(err, errlen, "export: %s exists and is not a directory", dir);
        return -1;
    }
    if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "export: cannot create %s: %s (does its parent exist?)", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Pixels are read once: hand the mapped pages of a bitmap's mBuffer back to the page cache
 * so that scanning a dump of many large bitmaps keeps a bounded resident set. */
static void release_buffer(hk_dump *d, const hk_bm *bm)
{
    if (!bm->b.buffer) return;
    uint32_t i = hk_obj_find(d, bm->b.buffer);
    const uint8_t *p = i == HK_NONE ? NULL : hk_prim_array_data(d, i);
    if (!p) return;
    size_t len = (size_t)bm->bytes;
    long pg = sysconf(_SC_PAGESIZE);
    if (pg <= 0 || len < (size_t)pg * 4) return;
    hk_dump_release(d, p, len);
}

int hk_bm_scan(hk_bm_session *s, const hk_bm_scan_opts *o, int (*row)(void *ctx, const hk_bm_row *r), void *ctx,
               hk_bm_summary *sum, char *err, size_t errlen)
{
    memset(sum, 0, sizeof *sum);
    hk_dump *d = hk_bm_session_dump(s);
    const hk_bm *v;
    size_t n;
    if (hk_bitmaps_list(d, &v, &n, err, errlen) < 0) return -1;
    sum->dump_data = hk_bitmaps_dump_data_count(d);
    if (o->export_dir && make_dir(o->export_dir, err, errlen) < 0) return -1;
    hk_bm_image img;
    hk_bm_image_init(&img);
    hk_buf png;
    hk_buf_init(&png);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const hk_bm *bm = &v[i];
        uint64_t pixels =
            (uint64_t)(bm->b.width > 0 ? bm->b.width : 0) * (uint64_t)(bm->b.height > 0 ? bm->b.height : 0);
        if (pixels < o->min_pixels) continue;
        sum->count++;
        if (bm->drawable) sum->drawable++;
        hk_bm_session_image(s, bm, &img);
        sum->mismatched += (uint64_t)img.mismatches;
        char hex[65] = "", path[4200] = "", herr[256];
        hk_bm_row r = {.bm = bm,
                       .reason = img.reason,
                       .note = img.note,
                       .sha256 = hex,
                       .exported = path,
                       .mismatches = img.mismatches};
        if (img.kind != HK_IMAGE_NONE) {
            r.source = img.source;
            sum->with_image++;
            sum->pixel_bytes += pixels * 4;
            count_source(sum, img.source ? img.source : "?");
            if (o->hash && hk_bm_image_sha256(&img, bm, hex, herr, sizeof herr) < 0) {
                /* an encoded image that does not decode: say so, keep going */
                snprintf(img.note, sizeof img.note, "pixels not hashed: %.120s", herr);
                hex[0] = 0;
            }
            if (o->export_dir) {
                hk_buf_reset(&png);
                snprintf(path, sizeof path, "%s/0x%" PRIx64 ".png", o->export_dir, bm->b.id);
                if (hk_bm_image_png(&img, bm, &png, err, errlen) < 0 ||
                    hk_file_write_atomic(path, png.data, png.len, err, errlen) < 0) {
                    rc = -1;
                    break;
                }
                sum->exported++;
            }
        }
        release_buffer(d, bm);
        if (row && row(ctx, &r)) break;
    }
    hk_buf_free(&png);
    hk_bm_image_free(&img);
    return rc;
}
