/* The join: ask sources in order for one bitmap's pixels; accept a pointer-keyed image only
 * when its PNG IHDR size equals the bitmap's (a native pointer can be reused after recycle). */
#include "bitmap/bitmap.h"
#include "util/hk_mem.h"
#include "util/hk_sha.h"
#include "util/hk_png.h"
#include "util/hk_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bm_src {
    const hk_bitmap_source *src;
    void *ud;
    void *state;
    int opened; /* 0 not yet, 1 ok, -1 open failed (skipped) */
} bm_src;

struct hk_bm_session {
    hk_dump *d;
    bm_src *v;
    size_t n, cap;
    hk_buf scratch;
};

hk_bm_session *hk_bm_session_new(hk_dump *d)
{
    hk_bm_session *s = hk_xcalloc(1, sizeof *s);
    s->d = d;
    hk_buf_init(&s->scratch);
    return s;
}

/* Sources stay ordered by priority, highest first; equal priorities keep the order they
 * were added in (plugins, then scripts), so the core names no source to put it first. */
void hk_bm_session_add(hk_bm_session *s, const hk_bitmap_source *src, void *ud)
{
    if (!s || !src || !src->image) return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = hk_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    size_t at = s->n;
    while (at > 0 && s->v[at - 1].src->priority < src->priority) at--;
    memmove(&s->v[at + 1], &s->v[at], (s->n - at) * sizeof *s->v);
    s->v[at] = (bm_src){.src = src, .ud = ud};
    s->n++;
}

void hk_bm_session_add_standard(hk_bm_session *s, const hk_bitmap_source *const *srcs, void *const *uds, size_t n,
                                const char *sidecar_dir)
{
    hk_bm_session_add(s, &hk_bm_trace_source, NULL);
    hk_bm_session_add(s, &hk_bm_sidecar_source, (void *)sidecar_dir);
    for (size_t i = 0; i < n; i++) hk_bm_session_add(s, srcs[i], uds[i]);
}

void hk_bm_session_free(hk_bm_session *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].opened == 1 && s->v[i].src->close) s->v[i].src->close(s->v[i].state);
    free(s->v);
    hk_buf_free(&s->scratch);
    free(s);
}

hk_dump *hk_bm_session_dump(hk_bm_session *s)
{
    return s->d;
}

void hk_bm_image_init(hk_bm_image *img)
{
    memset(img, 0, sizeof *img);
    hk_buf_init(&img->data);
}

void hk_bm_image_free(hk_bm_image *img)
{
    hk_buf_free(&img->data);
}

static int ensure_open(hk_bm_session *s, bm_src *x)
{
    if (x->opened) return x->opened == 1;
    char err[256] = "";
    if (!x->src->open) {
        x->opened = 1;
        x->state = x->ud;
        return 1;
    }
    if (x->src->open(x->ud, s->d, &x->state, err, sizeof err) < 0) {
        hk_report(HK_REPORT_WARNING, "bitmap source %s: %s", x->src->name ? x->src->name : "?",
                  err[0] ? err : "cannot open");
        x->opened = -1;
        return 0;
    }
    x->opened = 1;
    return 1;
}

int hk_bm_session_image(hk_bm_session *s, const hk_bm *bm, hk_bm_image *img)
{
    hk_buf_reset(&img->data);
    img->kind = HK_IMAGE_NONE;
    img->source = NULL;
    img->reason[0] = img->note[0] = 0;
    img->mismatches = 0;
    if (bm->b.recycled) {
        snprintf(img->reason, sizeof img->reason, "recycled");
        return 0;
    }
    if (bm->b.width <= 0 || bm->b.height <= 0) {
        snprintf(img->reason, sizeof img->reason, "zero-size bitmap (%dx%d)", bm->b.width, bm->b.height);
        return 0;
    }
    char first_note[256] = "", mismatch[200] = "";
    for (size_t i = 0; i < s->n; i++) {
        bm_src *x = &s->v[i];
        if (x->src->keyed_by_pointer && !bm->b.native_ptr) continue;
        if (!ensure_open(s, x)) continue;
        char note[256] = "";
        hk_buf_reset(&img->data);
        int kind = x->src->image(x->state, &bm->b, &img->data, note, sizeof note);
        if (kind == HK_IMAGE_RGBA) {
            uint64_t want = (uint64_t)bm->b.width * (uint64_t)bm->b.height * 4;
            if (img->data.len != want) {
                if (!first_note[0])
                    snprintf(first_note, sizeof first_note, "source %s returned %zu bytes of RGBA, not %" PRIu64,
                             x->src->name, img->data.len, want);
                continue;
            }
        } else if (kind == HK_IMAGE_ENCODED) {
            int w, h;
            if (hk_png_size(img->data.data, img->data.len, &w, &h) < 0) {
                if (!first_note[0])
                    snprintf(first_note, sizeof first_note, "source %s returned an image that is not a PNG",
                             x->src->name);
                continue;
            }
            if (w != bm->b.width || h != bm->b.height) {
                img->mismatches++;
                snprintf(mismatch, sizeof mismatch,
                         "%s image under pointer 0x%" PRIx64 " is %dx%d, the bitmap is %dx%d (reused pointer)",
                         x->src->name, bm->b.native_ptr, w, h, bm->b.width, bm->b.height);
                continue;
            }
        } else {
            if (note[0] && !first_note[0]) snprintf(first_note, sizeof first_note, "%s", note);
            continue;
        }
        img->kind = kind;
        img->source = x->src->name;
        snprintf(img->note, sizeof img->note, "%s", note);
        return kind;
    }
    hk_buf_reset(&img->data);
    if (mismatch[0]) snprintf(img->reason, sizeof img->reason, "%s", mismatch);
    else if (first_note[0]) snprintf(img->reason, sizeof img->reason, "%s", first_note);
    else if (!bm->b.buffer)
        snprintf(img->reason, sizeof img->reason,
                 "pixels are in native memory (API 26+) and no source has them: fetch them live "
                 "(jdwp plugin) or take the dump with am dumpheap -b png (API 35+)");
    else snprintf(img->reason, sizeof img->reason, "no source decoded it (is the mbuffer plugin enabled?)");
    return 0;
}

int hk_bm_image_png(const hk_bm_image *img, const hk_bm *bm, hk_buf *out, char *err, size_t errlen)
{
    if (img->kind == HK_IMAGE_ENCODED) {
        hk_buf_append(out, img->data.data, img->data.len);
        return 0;
    }
    if (img->kind == HK_IMAGE_RGBA)
        return hk_png_encode_rgba(img->data.data, bm->b.width, bm->b.height, out, err, errlen);
    snprintf(err, errlen, "bitmap 0x%" PRIx64 " has no image: %s", bm->b.id, img->reason);
    return -1;
}

int hk_bm_image_sha256(const hk_bm_image *img, const hk_bm *bm, char hex[65], char *err, size_t errlen)
{
    int rc = 0;
    if (img->kind == HK_IMAGE_RGBA) {
        rc = hk_sha256_hex(img->data.data, img->data.len, hex);
    } else if (img->kind == HK_IMAGE_ENCODED) {
        unsigned char *rgba;
        int w, h;
        if (hk_png_decode_rgba(img->data.data, img->data.len, &rgba, &w, &h, err, errlen) < 0) return -1;
        rc = hk_sha256_hex(rgba, (size_t)w * (size_t)h * 4, hex);
        free(rgba);
    } else {
        snprintf(err, errlen, "bitmap 0x%" PRIx64 " has no image", bm->b.id);
        return -1;
    }
    if (rc < 0) snprintf(err, errlen, "bitmaps: SHA-256 failed in libcrypto (out of memory?)");
    return rc;
}
