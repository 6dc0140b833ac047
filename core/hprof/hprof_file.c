/* Opening a dump: map the file (or inflate a .gz), read the header, index it. */
#include "hprof/hprof.h"
#include "hprof/hprof_internal.h"
#include "hprof/hprof_layout.h"
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

static int read_gzip(hk_dump *d, int fd, uint64_t compressed, char *err, size_t errlen)
{
    size_t limit = hk_expand_cap(compressed);
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
        size_t room = limit - len < cap - len ? limit - len + 1 : cap - len; /* stop just past the cap */
        unsigned want = (unsigned)(room > (1u << 30) ? (1u << 30) : room);
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
        if (len > limit) {
            free(buf);
            gzclose(gz);
            hk_expand_refused(err, errlen, d->path, len, compressed);
            return -1;
        }
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
    d->view.data = buf;
    d->view.size = len;
    d->mapped = 0;
    return 0;
}

static int parse_header(hk_dump *d, char *err, size_t errlen)
{
    const char *p = (const char *)d->view.data;
    size_t n = strnlen(p, d->view.size < 64 ? d->view.size : 64);
    if (d->view.size < 19 || strncmp(p, "JAVA PROFILE 1.0.", 17) != 0 || n >= d->view.size || n > 20) {
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
    if (d->view.size < n + 1 + 12) {
        snprintf(err, errlen, "%s: at offset %zu: truncated header: id size and timestamp expected",
                 d->path ? d->path : "dump", n + 1);
        return -1;
    }
    d->view.id_size = hk_be32(d->view.data + n + 1);
    if (d->view.id_size != 4 && d->view.id_size != 8) {
        snprintf(err, errlen, "%s: at offset %zu: id size %u (expected 4 or 8)", d->path ? d->path : "dump", n + 1,
                 d->view.id_size);
        return -1;
    }
    d->timestamp_ms = hk_be64(d->view.data + n + 5);
    d->header_size = (uint32_t)(n + 1 + 12);
    return 0;
}

static hk_dump *dump_new(const char *path)
{
    hk_dump *d = hk_xcalloc(1, sizeof *d);
    d->path = hk_xstrdup(path ? path : "dump");
    for (int t = 0; t < 12; t++) d->view.prim_array_class[t] = HK_NONE;
    return d;
}

const uint8_t *hk_dump_bytes(const hk_dump *d, size_t *size)
{
    *size = d->view.size;
    return d->view.data;
}

int hk_dump_replace_bytes(hk_dump *d, hk_buf *bytes, int fd, char *source, hk_dump_image *images, size_t nimages,
                          char *err, size_t errlen)
{
    hk_dump_sha256_forget(d); /* a hash on its thread reads the bytes about to go */
    if (d->mapped == 1) munmap((void *)d->view.data, d->view.size);
    else if (d->mapped == 0) free((void *)d->view.data);
    d->view.data = bytes->data;
    d->view.size = bytes->len;
    d->mapped = 0;
    hk_buf_init(bytes);
    d->source = source;
    d->images = images;
    d->nimages = nimages;
    if (fd < 0) return 0;
    /* the bytes were written to a file (a big heap graph rebuilt): map it like a dump on disk */
    free((void *)d->view.data);
    struct stat st;
    void *m = fstat(fd, &st) == 0 && st.st_size > 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                                                    : MAP_FAILED;
    if (m == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map the dump rebuilt from the trace: %s", d->path, strerror(errno));
        d->view.data = NULL;
        d->view.size = 0;
        return -1;
    }
    d->view.data = m;
    d->view.size = (size_t)st.st_size;
    d->mapped = 1;
    return 0;
}

int hk_dump_index(hk_dump *d, hk_progress_fn progress, void *pctx, char *err, size_t errlen)
{
    if (parse_header(d, err, errlen) < 0 || hk_index_build(d, progress, pctx, err, errlen) < 0 ||
        hk_dump_set_layout(d, NULL, err, errlen) < 0)
        return -1;
    if (d->mapped == 1) madvise((void *)d->view.data, d->view.size, MADV_RANDOM);
    return 0;
}

static int map_file(hk_dump *d, int fd, size_t size, char *err, size_t errlen)
{
    if (size == 0) {
        snprintf(err, errlen, "%s: empty file, not an HPROF heap dump", d->path);
        return -1;
    }
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map: %s", d->path, strerror(errno));
        return -1;
    }
    madvise(m, size, MADV_SEQUENTIAL);
    d->view.data = m;
    d->view.size = size;
    d->mapped = 1;
    return 0;
}

hk_dump *hk_dump_load(const char *path, char *err, size_t errlen)
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
    int rc = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b ? read_gzip(d, fd, (uint64_t)st.st_size, err, errlen)
                                                              : map_file(d, fd, (size_t)st.st_size, err, errlen);
    close(fd);
    if (rc < 0) {
        hk_dump_close(d);
        return NULL;
    }
    return d;
}

hk_dump *hk_dump_load_mem(const uint8_t *data, size_t size)
{
    hk_dump *d = dump_new("input");
    d->view.data = data;
    d->view.size = size;
    d->mapped = 2; /* borrowed */
    return d;
}

hk_dump *hk_dump_open(const char *path, hk_progress_fn progress, void *pctx, char *err, size_t errlen)
{
    hk_dump *d = hk_dump_load(path, err, errlen);
    if (d && hk_dump_index(d, progress, pctx, err, errlen) < 0) {
        hk_dump_close(d);
        return NULL;
    }
    return d;
}

void *hk_dump_attached(const hk_dump *d, const void *key)
{
    for (unsigned i = 0; i < d->view.nattached; i++)
        if (d->view.attached[i].key == key) return d->view.attached[i].state;
    return NULL;
}

void hk_dump_attach(hk_dump *d, const void *key, void *state, void (*free_fn)(void *state))
{
    for (unsigned i = 0; i < d->view.nattached; i++)
        if (d->view.attached[i].key == key) {
            d->view.attached[i].free_fn(d->view.attached[i].state);
            d->view.attached[i] = (struct hk_attached){key, state, free_fn};
            return;
        }
    if (d->view.nattached == HK_MAX_ATTACHED) hk_oom(); /* a fixed handful of floors attach: a bug */
    d->view.attached[d->view.nattached++] = (struct hk_attached){key, state, free_fn};
}

void hk_dump_close(hk_dump *d)
{
    if (!d) return;
    for (unsigned i = 0; i < d->view.nattached; i++) d->view.attached[i].free_fn(d->view.attached[i].state);
    if (d->mapped == 1) munmap((void *)d->view.data, d->view.size);
    else if (d->mapped == 0) free((void *)d->view.data);
    free(d->path);
    free((void *)d->view.id_lo);
    free((void *)d->view.off_lo);
    free((void *)d->view.off_hi);
    free((void *)d->view.segs);
    hk_iddir_free(&d->dir);
    hk_idtab_free(&d->strings);
    hk_idtab_free(&d->load_names);
    hk_idtab_free(&d->frames);
    hk_idtab_free(&d->traces);
    hk_idtab_free(&d->class_serials);
    hk_map_free(d->map);
    for (uint32_t i = 0; i < d->view.nclasses; i++) {
        free(d->view.classes[i].fields);
        free(d->view.classes[i].statics);
        free(d->view.classes[i].all_fields);
    }
    free(d->view.classes);
    hk_idmap_free(&d->view.class_by_id);
    free((void *)d->view.roots);
    for (uint32_t i = 0; i < d->nheaps; i++) free(d->heap_names[i]);
    free(d->heap_ranges);
    free(d->class_counts);
    free(d->class_bytes);
    free(d->array_res);
    hk_layout_free(d);
    free(d->by_class_start);
    free(d->by_class);
    free(d->by_name);
    free(d->by_obf_name);
    free((void *)d->view.obj_sizes);
    free(d->source);
    for (size_t i = 0; i < d->nimages; i++) hk_buf_free(&d->images[i].png);
    free(d->images);
    for (size_t i = 0; i < d->narena; i++) free(d->arena[i]);
    free(d->arena);
    free(d);
}
