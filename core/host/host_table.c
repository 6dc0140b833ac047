/* The hk_host table every plugin receives: thin wrappers over the core. */
#include "host/plugin_internal.h"
#include "util/hk_mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hprof/hprof.h"
#include "util/hk_file.h"
#include "util/hk_png.h"
#include "hprof/hprof_view.h"
#include "open/open.h"
#include "util/hk_report.h"

/* ---- logging and progress ---- */

/* Log level from HPROFKIT_LOG (debug|info|warn|error; default warn). */
static int hk_host_log_level(void)
{
    static int level = -1;
    if (level < 0) {
        const char *e = getenv("HPROFKIT_LOG");
        level = HK_LOG_WARN;
        if (e && !strcasecmp(e, "debug")) level = HK_LOG_DEBUG;
        else if (e && !strcasecmp(e, "info")) level = HK_LOG_INFO;
        else if (e && !strcasecmp(e, "error")) level = HK_LOG_ERROR;
    }
    return level;
}

/* A plugin's message goes through the one reporting function, named by the plugin. */
static void report(hk_plugin *self, hk_report_kind kind, const char *fmt, va_list ap)
{
    char msg[900];
    vsnprintf(msg, sizeof msg, fmt, ap);
    hk_report(kind, "%s: %s", self ? self->name : "plugin", msg);
}

/* debug and info are notes, warn and error warnings; HPROFKIT_LOG picks the least shown */
static void host_log(hk_plugin *self, int level, const char *fmt, ...)
{
    if (level < hk_host_log_level()) return;
    va_list ap;
    va_start(ap, fmt);
    report(self, level >= HK_LOG_WARN ? HK_REPORT_WARNING : HK_REPORT_NOTE, fmt, ap);
    va_end(ap);
}

static void host_progress(hk_plugin *self, const char *fmt, ...)
{
    if (!hk_report_wants_progress()) return;
    va_list ap;
    va_start(ap, fmt);
    report(self, HK_REPORT_PROGRESS, fmt, ap);
    va_end(ap);
}

/* ---- buffers ---- */

static void host_buf_append(hk_buf *b, const void *data, size_t n)
{
    hk_buf_append(b, data, n);
}

static void host_buf_printf(hk_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hk_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

static void host_buf_json_string(hk_buf *b, const char *s, size_t n)
{
    hk_buf_json_string(b, s, n);
}

static const unsigned char *host_buf_data(const hk_buf *b)
{
    return b->data ? b->data : (const unsigned char *)"";
}

static size_t host_buf_len(const hk_buf *b)
{
    return b->len;
}

static hk_buf *host_buf_new(void)
{
    hk_buf *b = hk_xrealloc(NULL, sizeof *b);
    hk_buf_init(b);
    return b;
}

static void host_buf_free(hk_buf *b)
{
    if (!b) return;
    hk_buf_free(b);
    free(b);
}
static void host_buf_reset(hk_buf *b)
{
    hk_buf_reset(b);
}

/* ---- heap access ---- */

static const char *host_dump_path(hk_dump *d)
{
    return d ? hk_dump_path(d) : NULL;
}

static int host_dump_sdk(hk_dump *d)
{
    if (!d) return 0;
    hk_origin o;
    hk_origin_read(d, &o);
    int sdk = o.sdk > 0 ? o.sdk : 0;
    hk_origin_free(&o);
    return sdk;
}

static hk_id host_class_by_name(hk_dump *d, const char *name)
{
    const hk_class *c = d && name ? hk_class_by_name(d, name) : NULL;
    return c ? c->id : 0;
}

static const char *host_class_name(hk_dump *d, hk_id cls)
{
    const hk_class *c = d ? hk_class_by_id(d, cls) : NULL;
    return c ? c->name : NULL;
}

static hk_id host_object_class(hk_dump *d, hk_id obj)
{
    uint32_t i = d ? hk_obj_find(d, obj) : HK_NONE;
    if (i == HK_NONE) return 0;
    uint32_t c = hk_obj_class(d, i);
    return c == HK_NONE ? 0 : hk_view(d)->classes[c].id;
}

static int host_class_static(hk_dump *d, hk_id cls, const char *name, hk_value *out)
{
    const hk_class *c = d ? hk_class_by_id(d, cls) : NULL;
    if (!c) return -1;
    const hk_static *s = hk_class_static(c, name);
    if (!s) return 0;
    *out = s->value;
    out->type = s->type;
    return 1;
}

static int host_field(hk_dump *d, hk_id obj, const char *name, hk_value *out)
{
    uint32_t i = d ? hk_obj_find(d, obj) : HK_NONE;
    if (i == HK_NONE || hk_obj_kind(d, i) != HK_KIND_INSTANCE) return -1;
    return hk_instance_field(d, i, name, out);
}

static int walk_class(hk_dump *d, uint32_t c, int (*cb)(void *, hk_id), void *ctx)
{
    uint32_t n;
    const uint32_t *objs = hk_class_instances(d, c, &n);
    for (uint32_t k = 0; k < n; k++) {
        int rc = cb(ctx, hk_obj_id(d, objs[k]));
        if (rc) return rc;
    }
    return 0;
}

static int host_instances(hk_dump *d, hk_id cls, int with_subclasses, int (*cb)(void *ctx, hk_id obj), void *ctx)
{
    const hk_class *c = d ? hk_class_by_id(d, cls) : NULL;
    if (!c || !cb) return 0;
    if (!with_subclasses) return walk_class(d, c->index, cb, ctx);
    for (uint32_t k = 0; k < hk_view(d)->nclasses; k++) {
        if (!hk_class_is_subclass(d, &hk_view(d)->classes[k], c)) continue;
        int rc = walk_class(d, k, cb, ctx);
        if (rc) return rc;
    }
    return 0;
}

static int64_t host_array_length(hk_dump *d, hk_id arr)
{
    uint32_t i = d ? hk_obj_find(d, arr) : HK_NONE;
    if (i == HK_NONE) return -1;
    int k = hk_obj_kind(d, i);
    if (k != HK_KIND_OBJ_ARRAY && k != HK_KIND_PRIM_ARRAY) return -1;
    return hk_array_length(d, i);
}

static const void *host_prim_array_data(hk_dump *d, hk_id arr, int *elem_type, uint32_t *count)
{
    uint32_t i = d ? hk_obj_find(d, arr) : HK_NONE;
    if (i == HK_NONE || hk_obj_kind(d, i) != HK_KIND_PRIM_ARRAY) return NULL;
    const uint8_t *data = hk_prim_array_data(d, i);
    if (!data) return NULL;
    if (elem_type) *elem_type = hk_prim_array_type(d, i);
    if (count) *count = hk_array_length(d, i);
    return data;
}

static hk_id host_obj_array_at(hk_dump *d, hk_id arr, uint32_t index)
{
    uint32_t i = d ? hk_obj_find(d, arr) : HK_NONE;
    if (i == HK_NONE || hk_obj_kind(d, i) != HK_KIND_OBJ_ARRAY) return 0;
    if (index >= hk_array_length(d, i)) return 0;
    return hk_obj_array_at(d, i, index);
}

static int host_string_value(hk_dump *d, hk_id str, hk_buf *utf8)
{
    uint32_t i = d ? hk_obj_find(d, str) : HK_NONE;
    if (i == HK_NONE) return -1;
    return hk_string_value(d, i, utf8) < 0 ? -1 : 0;
}

/* the front door without its notes: no map beside the dump, no progress line */
static hk_dump *host_dump_open(const char *path, char *err, size_t errlen)
{
    hk_open_fail fail;
    const hk_open_opts o = {.no_map_beside = 1};
    return hk_open(path, &o, &fail, err, errlen);
}

static void host_dump_close(hk_dump *d)
{
    hk_dump_close(d);
}

/* ---- the table ---- */

/* The host's allocator handed to plugins (ABI 1.2): the core's out-of-memory policy. */
static void *host_mem_alloc(size_t n)
{
    return hk_xcalloc(1, n ? n : 1);
}

static void *host_mem_realloc(void *p, size_t n)
{
    return hk_xrealloc(p, n ? n : 1);
}

static void host_mem_free(void *p)
{
    free(p);
}

static const hk_host host_table = {
    .abi_version = HK_ABI_VERSION,
    .size = sizeof(hk_host),
    .describe = hk_plugin_describe,
    .register_function = hk_plugin_register_function,
    .register_bitmap_source = hk_plugin_register_bitmap_source,
    .register_fetcher = hk_plugin_register_fetcher,
    .config = hk_plugin_config,
    .log = host_log,
    .progress = host_progress,
    .buf_append = host_buf_append,
    .buf_printf = host_buf_printf,
    .buf_json_string = host_buf_json_string,
    .buf_data = host_buf_data,
    .buf_len = host_buf_len,
    .buf_reset = host_buf_reset,
    .dump_path = host_dump_path,
    .dump_sdk = host_dump_sdk,
    .class_by_name = host_class_by_name,
    .class_name = host_class_name,
    .object_class = host_object_class,
    .class_static = host_class_static,
    .field = host_field,
    .instances = host_instances,
    .array_length = host_array_length,
    .prim_array_data = host_prim_array_data,
    .obj_array_at = host_obj_array_at,
    .string_value = host_string_value,
    .dump_open = host_dump_open,
    .dump_close = host_dump_close,
    .png_encode_rgba = hk_png_encode_rgba,
    .png_size = hk_png_size,
    .write_file_atomic = hk_file_write_atomic,
    .device_shell = hk_host_device_shell,
    .device_open = hk_host_device_open,
    .device_dump_heap = hk_host_device_dump_heap,
    .buf_new = host_buf_new,
    .buf_free = host_buf_free,
    .config_bool = hk_plugin_config_bool,
    .config_number = hk_plugin_config_number,
    .mem_alloc = host_mem_alloc,
    .mem_realloc = host_mem_realloc,
    .mem_strdup = hk_xstrdup,
    .mem_free = host_mem_free,
};

const hk_host *hk_host_table(void)
{
    return &host_table;
}
