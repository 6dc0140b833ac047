/*
 * Bitmaps: every android.graphics.Bitmap of a dump, and the join that finds each one's
 * pixels in an ordered list of sources.
 *
 *   - hk_bitmaps_list enumerates the instances (subclasses too) once per dump and caches
 *     the list attached to the dump (hk_dump_attach).  No pixel is read.
 *   - A session (hk_bm_session) asks sources for one bitmap at a time: sources keyed by
 *     pointer (dumpdata, the sidecar directory, Lua sources) answer with an encoded image
 *     that is accepted only when its PNG IHDR size equals the bitmap's; sources keyed by
 *     object (mbuffer) decode the bitmap themselves.  The first accepted image wins.
 *     Sessions hold one image at a time, never every image of the dump.
 *   - hk_bm_scan walks the list: per bitmap the source, a reason when there is no image,
 *     the SHA-256 of its straight RGBA8888 pixels, optionally an exported <id>.png.
 */
#ifndef HK_BITMAP_H
#define HK_BITMAP_H

#include <stddef.h>
#include <stdint.h>

#include "hprof/hprof.h"
#include "hprofkit.h"
#include "util/hk_buf.h"

/* One Bitmap as enumerated. */
typedef struct hk_bm {
    hk_bitmap b;    /* what sources see */
    uint32_t obj;   /* object index */
    uint64_t bytes; /* mBuffer length before 26; native size after; else w*h*4 */
    int estimated;  /* bytes is the w*h*4 estimate */
    int drawable;   /* w, h > 0 and not recycled */
} hk_bm;

/* The dump's bitmaps, in object order (a cached view; valid until the dump closes).
 * 0, or -1 with err. */
int hk_bitmaps_list(hk_dump *d, const hk_bm **out, size_t *n, char *err, size_t errlen);
/* The bitmap with object id, or NULL (after hk_bitmaps_list succeeded). */
const hk_bm *hk_bitmaps_find(hk_dump *d, hk_id id);
/* Filled entries of the static Bitmap.dumpData (API 35+ `am dumpheap -b`), 0 without. */
uint32_t hk_bitmaps_dump_data_count(hk_dump *d);

/* ---- sessions ---- */
typedef struct hk_bm_session hk_bm_session;

hk_bm_session *hk_bm_session_new(hk_dump *d);
/* Appends a source (asked in the order added).  src and ud must outlive the session. */
/* Sources are asked by their priority, highest first; equal ones in the order added. */
void hk_bm_session_add(hk_bm_session *s, const hk_bitmap_source *src, void *ud);
/* Adds the core's sources (the trace's PNGs, the sidecar directory: sidecar_dir, or
 * DUMP.bitmaps when NULL) and the n sources the plugins registered (srcs[i] with uds[i], as
 * the plugin host lists them: the caller asks it, so this floor knows no plugin host).  Lua
 * sources are added after this by the caller. */
void hk_bm_session_add_standard(hk_bm_session *s, const hk_bitmap_source *const *srcs, void *const *uds, size_t n,
                                const char *sidecar_dir);
void hk_bm_session_free(hk_bm_session *s);
hk_dump *hk_bm_session_dump(hk_bm_session *s);

typedef struct hk_bm_image {
    int kind;           /* enum hk_image_kind */
    hk_buf data;        /* RGBA8888 (w*h*4) or the encoded image */
    const char *source; /* name of the source that gave it, NULL for none */
    char reason[256];   /* why there is no image */
    char note[160];     /* a label that accompanies an image (e.g. a guess) */
    int mismatches;     /* images rejected for this bitmap (wrong IHDR size) */
} hk_bm_image;

void hk_bm_image_init(hk_bm_image *img);
void hk_bm_image_free(hk_bm_image *img);
/* Asks the sources for bm's pixels; fills img (reset first).  Returns img->kind. */
int hk_bm_session_image(hk_bm_session *s, const hk_bm *bm, hk_bm_image *img);
/* The image as PNG bytes in out (encodes RGBA; copies an encoded image): 0 or -1. */
int hk_bm_image_png(const hk_bm_image *img, const hk_bm *bm, hk_buf *out, char *err, size_t errlen);
/* SHA-256 hex (65 bytes with NUL) of the straight RGBA8888 pixels: 0 or -1 with err. */
int hk_bm_image_sha256(const hk_bm_image *img, const hk_bm *bm, char hex[65], char *err, size_t errlen);

/* ---- scan ---- */
typedef struct hk_bm_scan_opts {
    const char *export_dir; /* NULL: no export */
    int hash;               /* compute pixels_sha256 */
    uint64_t min_pixels;    /* skip bitmaps with fewer pixels */
} hk_bm_scan_opts;

typedef struct hk_bm_row {
    const hk_bm *bm;
    const char *source; /* NULL: no image */
    const char *reason; /* "" with an image */
    const char *note;
    const char *sha256;   /* "" without */
    const char *exported; /* path written, "" without */
    int mismatches;
} hk_bm_row;

typedef struct hk_bm_summary {
    uint64_t count, drawable, with_image, mismatched, exported, pixel_bytes;
    uint32_t dump_data; /* filled Bitmap.dumpData entries */
    /* with_image by source name, up to 16 distinct sources */
    const char *source_names[16];
    uint64_t source_counts[16];
    int nsources;
} hk_bm_summary;

/* Walks every bitmap (those with at least min_pixels pixels), calls row() for each;
 * a non-zero return from row stops the scan.  0, or -1 with err (export failed). */
int hk_bm_scan(hk_bm_session *s, const hk_bm_scan_opts *o, int (*row)(void *ctx, const hk_bm_row *r), void *ctx,
               hk_bm_summary *sum, char *err, size_t errlen);

/* The sidecar directory source (core/bitmap/bitmap_sidecar.c): DIR/0x<ptr>.png. */
extern const hk_bitmap_source hk_bm_sidecar_source;
/* ud for it: a directory path, or NULL for DUMP.bitmaps. */
/* PNGs a Perfetto trace carried with its embedded dump (bitmap_trace.c); ud NULL. */
extern const hk_bitmap_source hk_bm_trace_source;

#endif
