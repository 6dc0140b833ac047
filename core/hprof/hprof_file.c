/* Opening a dump: map the file (or inflate a .gz), read the header, index it. */
#include "hprof/hprof.h"
#include "hprof/hprof_internal.h"
#include "hprof/hprof_layout.h"
#include "trace/trace.h"
#include "util/hk_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static int read_gzip(hk_dump *d, int fd, char *err, size_t errlen)
{
    gzFile gz = gzdopen(dup(fd), "rb");
    if (!gz) {
        snprintf(err, errlen, "%s: cannot open as gzip", d->path);
        return -1;
    }
    gzbuffer(gz, 1 << 20);
    size_t cap = 1 << 24, len = 0;
    uint8_t *buf = hk_xmalloc(cap);
    for (;;) {
        if (len == cap) buf = hk_xrealloc(buf, cap *= 2);
        unsigned want = (unsigned)((cap - len) > (1u << 30) ? (1u << 30) : (cap - len));
        int n = gzread(gz, buf + len, want);
        if (n < 0) {
            int zerr;
            const char *m = gzerror(gz, &zerr);
            snprintf(err, errlen, "%s: corrupt gzip data after %zu bytes: %s", d->path, len, m);
            free(buf);
            gzclose(gz);
            return -1;
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    /* gzread returns what it could before a truncated stream ends; ask whether it ended cleanly */
    int zerr = Z_OK;
    gzerror(gz, &zerr);
    gzclose(gz);
    if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
        snprintf(err, errlen, "%s: the gzip stream is truncated or corrupt", d->path);
        free(buf);
        return -1;
    }
    d->data = buf;
    d->size = len;
    d->mapped = 0;
    return 0;
}

static int parse_header(hk_dump *d, char *err, size_t errlen)
{
    const char *p = (const char *)d->data;
    size_t n = strnlen(p, d->size < 64 ? d->size : 64);
    if (d->size < 19 || strncmp(p, "JAVA PROFILE 1.0.", 17) != 0 || n >= d->size || n > 20) {
        snprintf(err, errlen, "%s: not an HPROF heap dump: expected the header \"JAVA PROFILE 1.0.x\" at offset 0 (%s)",
                 d->path ? d->path : "dump", d->source ? "in the dump the trace embeds" : "nor is it a Perfetto trace");
        return -1;
    }
    if (strcmp(p, "JAVA PROFILE 1.0.1") && strcmp(p, "JAVA PROFILE 1.0.2") && strcmp(p, "JAVA PROFILE 1.0.3")) {
        snprintf(err, errlen,
                 "%s: unsupported HPROF version \"%.*s\" at offset 0 (1.0.1, 1.0.2 and 1.0.3 are supported)",
                 d->path ? d->path : "dump", (int)n, p);
        return -1;
    }
    memcpy(d->format, p, n + 1);
    if (d->size < n + 1 + 12) {
        snprintf(err, errlen, "%s: at offset %zu: truncated header: id size and timestamp expected",
                 d->path ? d->path : "dump", n + 1);
        return -1;
    }
    d->id_size = hk_be32(d->data + n + 1);
    if (d->id_size != 4 && d->id_size != 8) {
        snprintf(err, errlen, "%s: at offset %zu: id size %u (expected 4 or 8)", d->path ? d->path : "dump", n + 1,
                 d->id_size);
        return -1;
    }
    d->timestamp_ms = hk_be64(d->data + n + 5);
    d->header_size = (uint32_t)(n + 1 + 12);
    return 0;
}

static hk_dump *dump_new(const char *path)
{
    hk_dump *d = hk_xcalloc(1, sizeof *d);
    d->path = hk_xstrdup(path ? path : "dump");
    for (int t = 0; t < 12; t++) d->prim_array_class[t] = HK_NONE;
    return d;
}

/* A Perfetto trace is read into the HPROF it holds or describes, which replaces the data. */
static int from_trace(hk_dump *d, char *err, size_t errlen)
{
    hk_trace_result res;
    if (hk_trace_to_hprof(d->data, d->size, d->path, &res, err, errlen) < 0) return -1;
    if (d->mapped == 1) munmap((void *)d->data, d->size);
    else if (d->mapped == 0) free((void *)d->data);
    d->data = res.hprof.data;
    d->size = res.hprof.len;
    d->mapped = 0;
    if (res.hprof_fd >= 0) {
        /* a big heap graph was rebuilt into a scratch file: map it like a dump on disk */
        struct stat st;
        void *m = fstat(res.hprof_fd, &st) == 0 && st.st_size > 0
                      ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, res.hprof_fd, 0)
                      : MAP_FAILED;
        if (m == MAP_FAILED) {
            snprintf(err, errlen, "%s: cannot map the dump rebuilt from the trace: %s", d->path, strerror(errno));
            d->data = NULL;
            d->size = 0;
            hk_trace_result_free(&res);
            return -1;
        }
        d->data = m;
        d->size = (size_t)st.st_size;
        d->mapped = 1;
    }
    d->source = res.source;
    d->images = res.images;
    d->nimages = res.nimages;
    hk_buf_init(&res.hprof);
    res.source = NULL;
    res.images = NULL;
    res.nimages = 0;
    hk_trace_result_free(&res);
    return 0;
}

static hk_dump *finish_open(hk_dump *d, hk_progress_fn progress, void *pctx, char *err, size_t errlen)
{
    if (hk_trace_probe(d->data, d->size) && from_trace(d, err, errlen) < 0) {
        hk_dump_close(d);
        return NULL;
    }
    if (parse_header(d, err, errlen) < 0 || hk_index_build(d, progress, pctx, err, errlen) < 0 ||
        hk_dump_set_layout(d, NULL, err, errlen) < 0) {
        hk_dump_close(d);
        return NULL;
    }
    return d;
}

hk_dump *hk_dump_open(const char *path, hk_progress_fn progress, void *pctx, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    hk_dump *d = dump_new(path);
    uint8_t magic[2] = {0, 0};
    ssize_t got = pread(fd, magic, 2, 0);
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        int rc = read_gzip(d, fd, err, errlen);
        close(fd);
        if (rc < 0) {
            hk_dump_close(d);
            return NULL;
        }
    } else {
        if (st.st_size == 0) {
            snprintf(err, errlen, "%s: empty file, not an HPROF heap dump", path);
            close(fd);
            hk_dump_close(d);
            return NULL;
        }
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (m == MAP_FAILED) {
            snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
            hk_dump_close(d);
            return NULL;
        }
        madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
        d->data = m;
        d->size = (size_t)st.st_size;
        d->mapped = 1;
    }
    d = finish_open(d, progress, pctx, err, errlen);
    if (d && d->mapped) madvise((void *)d->data, d->size, MADV_RANDOM);
    return d;
}

hk_dump *hk_dump_open_mem(const uint8_t *data, size_t size, char *err, size_t errlen)
{
    hk_dump *d = dump_new("input");
    d->data = data;
    d->size = size;
    d->mapped = 2; /* borrowed */
    return finish_open(d, NULL, NULL, err, errlen);
}

void hk_dump_close(hk_dump *d)
{
    if (!d) return;
    for (size_t i = 0; i < sizeof d->cleanup / sizeof d->cleanup[0]; i++)
        if (d->cleanup[i]) d->cleanup[i](d);
    if (d->mapped == 1) munmap((void *)d->data, d->size);
    else if (d->mapped == 0) free((void *)d->data);
    free(d->path);
    free(d->id_lo);
    free(d->off_lo);
    free(d->off_hi);
    free(d->segs);
    hk_iddir_free(&d->dir);
    hk_idtab_free(&d->strings);
    hk_idtab_free(&d->load_names);
    hk_idtab_free(&d->frames);
    hk_idtab_free(&d->traces);
    hk_idtab_free(&d->class_serials);
    hk_map_free(d->map);
    for (uint32_t i = 0; i < d->nclasses; i++) {
        free(d->classes[i].fields);
        free(d->classes[i].statics);
        free(d->classes[i].all_fields);
    }
    free(d->classes);
    hk_idmap_free(&d->class_by_id);
    free(d->roots);
    for (uint32_t i = 0; i < d->nheaps; i++) free(d->heap_names[i]);
    free(d->heap_ranges);
    free(d->class_counts);
    free(d->class_bytes);
    free(d->array_res);
    hk_layout_free(d);
    free(d->by_class_start);
    free(d->by_class);
    free(d->obj_sizes);
    free(d->source);
    for (size_t i = 0; i < d->nimages; i++) hk_buf_free(&d->images[i].png);
    free(d->images);
    for (size_t i = 0; i < d->narena; i++) free(d->arena[i]);
    free(d->arena);
    free(d);
}
