/* The sidecar source: PNGs beside the dump in DUMP.bitmaps/0x<pointer>.png, written by the
 * live fetcher (jdwp plugin) or any other tool.  Keyed by pointer, so the join checks sizes. */
#include "bitmap/bitmap.h"
#include "util/hk_mem.h"
#include "util/hk_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct sidecar {
    char dir[4096];
    int present;
} sidecar;

static int sc_open(void *ud, hk_dump *d, void **state, char *err, size_t errlen)
{
    sidecar *s = hk_xcalloc(1, sizeof *s);
    (void)err;
    (void)errlen;
    if (ud) snprintf(s->dir, sizeof s->dir, "%s", (const char *)ud);
    else snprintf(s->dir, sizeof s->dir, "%s.bitmaps", hk_dump_path(d) ? hk_dump_path(d) : "");
    struct stat st;
    s->present = stat(s->dir, &st) == 0 && S_ISDIR(st.st_mode);
    *state = s;
    return 0;
}

static int sc_image(void *state, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen)
{
    sidecar *s = state;
    if (!s->present) return HK_IMAGE_NONE;
    char path[4200], err[256];
    snprintf(path, sizeof path, "%s/0x%" PRIx64 ".png", s->dir, bm->native_ptr);
    struct stat st;
    if (stat(path, &st) != 0) return HK_IMAGE_NONE;
    if (hk_file_read_all(path, out, err, sizeof err) < 0) {
        snprintf(note, notelen, "sidecar: %s", err);
        return HK_IMAGE_NONE;
    }
    return HK_IMAGE_ENCODED;
}

static void sc_close(void *state)
{
    free(state);
}

const hk_bitmap_source hk_bm_sidecar_source = {
    .name = "sidecar",
    .help = "PNGs beside the dump in DUMP.bitmaps/0x<pointer>.png (live fetches, other tools)",
    .keyed_by_pointer = 1,
    .open = sc_open,
    .image = sc_image,
    .close = sc_close,
    .priority = HK_PRIORITY_SIDECAR,
};
