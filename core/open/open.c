/* The front door: pre-check, load, trace import, index with progress, map. */
#include "open/open.h"
#include "trace/trace.h"
#include "util/hk_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hk_check_file(const char *label, const char *path, char *err, size_t errlen)
{
    const char *sp = label ? " " : "";
    if (!label) label = "";
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s%s%s: %s", label, sp, path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s%s%s: not a regular file", label, sp, path);
        return -1;
    }
    if (access(path, R_OK) != 0) {
        snprintf(err, errlen, "%s%s%s: cannot be read: %s", label, sp, path, strerror(errno));
        return -1;
    }
    return 0;
}

void hk_progress_index(void *ctx, uint64_t done, uint64_t total)
{
    const char *what = ctx ? ctx : "indexing";
    if (done >= total) hk_report(HK_REPORT_PROGRESS, "%s", "");
    else
        hk_report(HK_REPORT_PROGRESS, "%s: %3d%% (%llu of %llu MB)", what, (int)(done * 100 / (total ? total : 1)),
                  (unsigned long long)(done >> 20), (unsigned long long)(total >> 20));
}

/* A Perfetto trace is read into the HPROF it holds or describes, which replaces the bytes. */
static int import_trace(hk_dump *d, const char *path, char *err, size_t errlen)
{
    size_t n;
    const uint8_t *data = hk_dump_bytes(d, &n);
    if (!hk_trace_probe(data, n)) return 0;
    hk_trace_result res;
    if (hk_trace_to_hprof(data, n, path, &res, err, errlen) < 0) return -1;
    int rc = hk_dump_replace_bytes(d, &res.hprof, res.hprof_fd, res.source, res.images, res.nimages, err, errlen);
    res.source = NULL;
    res.images = NULL;
    res.nimages = 0;
    hk_trace_result_free(&res); /* closes the file, which stays mapped */
    return rc;
}

/* Loaded bytes to an indexed dump (closed on failure). */
static hk_dump *index_loaded(hk_dump *d, const char *path, hk_progress_fn progress, void *pctx, char *err,
                             size_t errlen)
{
    if (import_trace(d, path, err, errlen) < 0 || hk_dump_index(d, progress, pctx, err, errlen) < 0) {
        hk_dump_close(d);
        return NULL;
    }
    return d;
}

static void print_lines(const char *who, const hk_buf *b)
{
    const char *s = (const char *)b->data, *end = s + b->len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) nl = end;
        fprintf(stderr, "%s: %.*s\n", who, (int)(nl - s), s);
        s = nl + 1;
    }
}

/* The map given, or the one beside the dump (said in a note); NULL and 0 when none. */
static int load_map(const char *path, const hk_open_opts *o, const char *who, hk_map **map, char *err, size_t errlen)
{
    char beside[4096], what[300];
    const char *map_path = o->map;
    *map = NULL;
    if (!map_path && !o->no_map_beside && hk_map_beside(path, beside, sizeof beside)) {
        map_path = beside;
        fprintf(stderr, "%s: note: using the map %s found beside the dump (--map FILE to choose another)\n", who,
                beside);
    }
    if (map_path && !(*map = hk_map_load(map_path, what, sizeof what))) {
        snprintf(err, errlen, "cannot read the map: %s", what);
        return -1;
    }
    return 0;
}

static int apply_map(hk_dump *d, hk_map *map, const char *who, char *err, size_t errlen)
{
    hk_buf notes;
    hk_buf_init(&notes);
    int rc = hk_dump_apply_map(d, map, &notes, err, errlen);
    print_lines(who, &notes);
    hk_buf_free(&notes);
    return rc;
}

hk_dump *hk_open(const char *path, const hk_open_opts *o, hk_open_fail *fail, char *err, size_t errlen)
{
    static const hk_open_opts none = {0};
    if (!o) o = &none;
    const char *who = o->who ? o->who : "hprofkit";
    char what[300];
    hk_map *map = NULL;
    *fail = HK_OPEN_USER_ERROR;
    if (hk_check_file(o->label, path, err, errlen) < 0 || load_map(path, o, who, &map, err, errlen) < 0) return NULL;
    *fail = HK_OPEN_DUMP_FAILED;
    snprintf(what, sizeof what, "indexing %s", path);
    hk_dump *d = hk_dump_load(path, err, errlen);
    if (d) d = index_loaded(d, path, o->progress ? hk_progress_index : NULL, what, err, errlen);
    if (!d) {
        hk_map_free(map);
        return NULL;
    }
    if (map && apply_map(d, map, who, err, errlen) < 0) {
        hk_dump_close(d);
        *fail = HK_OPEN_USER_ERROR;
        return NULL;
    }
    *fail = HK_OPEN_OK;
    return d;
}

hk_dump *hk_open_mem(const uint8_t *data, size_t size, char *err, size_t errlen)
{
    return index_loaded(hk_dump_load_mem(data, size), "input", NULL, NULL, err, errlen);
}
