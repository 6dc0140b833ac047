/*
 * example: a small but real hprofkit plugin, the one docs/plugins.md walks through.
 *
 *   example.hello(name)              -> {"greeting": "<greeting setting> <name>"}
 *   example.count(dump, class)       -> {"class": ..., "instances": N, "with_subclasses": N}
 *   example.string(dump, id)         -> {"id": ..., "value": "..."} (a java.lang.String)
 *   example.png_info(file)           -> {"width": W, "height": H} from the PNG's IHDR
 *   example.solid_png(file, w, h, rgba) writes a one-colour PNG atomically -> {"bytes": N}
 *   example.late()                   tries to register after init -> {"refused": true}
 *   bitmap source "example-dir": PNGs named 0x<native ptr>.png in the directory of the `dir`
 *   setting (any tool that writes pointer-named PNGs feeds it), asked in the order of the
 *   `priority` setting (default 0: after the dump's own pixels, the trace and sidecar files).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprofkit.h"

static hk_plugin *me;

static int need_args(int argc, int want, const char *usage, char *err, size_t errlen)
{
    if (argc == want) return 0;
    snprintf(err, errlen, "expected %d argument%s: %s", want, want == 1 ? "" : "s", usage);
    return -1;
}

static int hello(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err, size_t errlen)
{
    const char *greeting = ud;
    if (need_args(argc, 1, "hello(name)", err, errlen) < 0) return -1;
    hk_api->buf_printf(out, "{\"greeting\":");
    size_t gl = strlen(greeting);
    char *s = malloc(gl + 1 + argl[0]);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(s, greeting, gl);
    s[gl] = ' ';
    memcpy(s + gl + 1, argv[0], argl[0]);
    hk_api->buf_json_string(out, s, gl + 1 + argl[0]);
    free(s);
    hk_api->buf_printf(out, "}");
    return 0;
}

static int count_cb(void *ctx, hk_id obj)
{
    (void)obj;
    (*(uint64_t *)ctx)++;
    return 0;
}

static int count(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err, size_t errlen)
{
    if (need_args(argc, 2, "count(dump_path, class_name)", err, errlen) < 0) return -1;
    hk_dump *d = hk_api->dump_open(argv[0], err, errlen);
    if (!d) return -1;
    hk_id cls = hk_api->class_by_name(d, argv[1]);
    if (!cls) {
        snprintf(err, errlen, "no class %s in %s", argv[1], hk_api->dump_path(d));
        hk_api->dump_close(d);
        return -1;
    }
    uint64_t exact = 0, all = 0;
    hk_api->instances(d, cls, 0, count_cb, &exact);
    hk_api->instances(d, cls, 1, count_cb, &all);
    hk_api->log(me, HK_LOG_DEBUG, "%s: %llu instances", argv[1], (unsigned long long)exact);
    hk_api->buf_printf(out, "{\"class\":");
    hk_api->buf_json_string(out, hk_api->class_name(d, cls), strlen(hk_api->class_name(d, cls)));
    hk_api->buf_printf(out, ",\"instances\":%llu,\"with_subclasses\":%llu,\"sdk\":%d}", (unsigned long long)exact,
                       (unsigned long long)all, hk_api->dump_sdk(d));
    hk_api->dump_close(d);
    return 0;
}

static int string(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err,
                  size_t errlen)
{
    if (need_args(argc, 2, "string(dump_path, object_id)", err, errlen) < 0) return -1;
    hk_id id = strtoull(argv[1], NULL, 0);
    hk_dump *d = hk_api->dump_open(argv[0], err, errlen);
    if (!d) return -1;
    hk_buf *value = hk_api->buf_new();
    int rc = hk_api->string_value(d, id, value);
    if (rc < 0) {
        snprintf(err, errlen, "0x%llx is not a java.lang.String", (unsigned long long)id);
    } else {
        hk_api->buf_printf(out, "{\"id\":\"0x%llx\",\"value\":", (unsigned long long)id);
        hk_api->buf_json_string(out, (const char *)hk_api->buf_data(value), hk_api->buf_len(value));
        hk_api->buf_printf(out, "}");
    }
    hk_api->buf_free(value);
    hk_api->dump_close(d);
    return rc;
}

static unsigned char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 65536, len = 0;
    unsigned char *p = malloc(cap);
    size_t r;
    while (p && (r = fread(p + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            unsigned char *q = realloc(p, cap *= 2);
            if (!q) {
                free(p);
                p = NULL;
            } else p = q;
        }
    }
    fclose(f);
    *n = len;
    return p;
}

static int png_info(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err,
                    size_t errlen)
{
    if (need_args(argc, 1, "png_info(file)", err, errlen) < 0) return -1;
    size_t n;
    unsigned char *p = read_file(argv[0], &n);
    if (!p) {
        snprintf(err, errlen, "cannot read %s", argv[0]);
        return -1;
    }
    int w, h;
    int rc = hk_api->png_size(p, n, &w, &h);
    free(p);
    if (rc < 0) {
        snprintf(err, errlen, "%s is not a PNG", argv[0]);
        return -1;
    }
    hk_api->buf_printf(out, "{\"width\":%d,\"height\":%d}", w, h);
    return 0;
}

static int solid_png(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err,
                     size_t errlen)
{
    if (need_args(argc, 4, "solid_png(file, width, height, rrggbbaa)", err, errlen) < 0) return -1;
    int w = atoi(argv[1]), h = atoi(argv[2]);
    unsigned long c = strtoul(argv[3], NULL, 16);
    if (w <= 0 || h <= 0 || w > 4096 || h > 4096) {
        snprintf(err, errlen, "width and height must be 1..4096");
        return -1;
    }
    unsigned char *px = malloc((size_t)w * (size_t)h * 4);
    if (!px) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        px[i * 4] = (unsigned char)(c >> 24);
        px[i * 4 + 1] = (unsigned char)(c >> 16);
        px[i * 4 + 2] = (unsigned char)(c >> 8);
        px[i * 4 + 3] = (unsigned char)c;
    }
    hk_buf *png = hk_api->buf_new();
    int rc = hk_api->png_encode_rgba(px, w, h, png, err, errlen);
    free(px);
    size_t n = hk_api->buf_len(png);
    if (rc == 0) rc = hk_api->write_file_atomic(argv[0], hk_api->buf_data(png), n, err, errlen);
    hk_api->buf_free(png);
    if (rc < 0) return -1;
    hk_api->buf_printf(out, "{\"bytes\":%zu}", n);
    return 0;
}

/* ---- the bitmap source ---- */

/* no open(): the state is the user data, the directory */
static int dir_image(void *state, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/0x%llx.png", (const char *)state, (unsigned long long)bm->native_ptr);
    size_t n;
    unsigned char *p = read_file(path, &n);
    if (!p) {
        snprintf(note, notelen, "no file 0x%llx.png", (unsigned long long)bm->native_ptr);
        return HK_IMAGE_NONE;
    }
    hk_api->buf_append(out, p, n);
    free(p);
    return HK_IMAGE_ENCODED;
}

/* the source is copied at registration; init sets its priority from the `priority` setting */
static hk_bitmap_source dir_source = {
    .name = "example-dir",
    .help = "PNGs named 0x<native ptr>.png in the directory of the example plugin's `dir` setting",
    .keyed_by_pointer = 1,
    .image = dir_image,
};

/* late(): registers after init, which the host must refuse -> {"refused": true} */
static int late(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err, size_t errlen)
{
    int rc = hk_api->register_function(me, "too_late", "registered after init", late, NULL);
    hk_api->buf_printf(out, "{\"refused\": %s}", rc < 0 ? "true" : "false");
    return 0;
}

static int example_init(hk_plugin *self, char *err, size_t errlen)
{
    me = self;
    hk_api->describe(self, "example", "1.0", "a small example: greetings, instance counts, PNG files");
    const char *greeting = hk_api->config(self, "greeting");
    /* settings live as long as the host; the plugin keeps the pointer */
    hk_api->register_function(self, "hello", "hello(name): a greeting, from the `greeting` setting", hello,
                              (void *)(greeting ? greeting : "hello"));
    hk_api->register_function(self, "count", "count(dump, class): instances of a class", count, NULL);
    hk_api->register_function(self, "string", "string(dump, id): the value of a java.lang.String", string, NULL);
    hk_api->register_function(self, "png_info", "png_info(file): a PNG's width and height", png_info, NULL);
    hk_api->register_function(self, "solid_png", "solid_png(file, w, h, rrggbbaa): write a PNG", solid_png, NULL);
    hk_api->register_function(self, "late", "late(): tries to register after init (the host refuses)", late, NULL);
    const char *dir = hk_api->config(self, "dir");
    double priority;
    if (hk_api->config_number(self, "priority", HK_PRIORITY_DEFAULT, &priority, err, errlen) < 0) return -1;
    dir_source.priority = (int)priority;
    if (dir) hk_api->register_bitmap_source(self, &dir_source, (void *)dir);
    hk_api->log(self, HK_LOG_INFO, "ready (dir=%s)", dir ? dir : "none");
    return 0;
}

HK_PLUGIN_INIT(example_init)
