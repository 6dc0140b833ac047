/*
 * hprofkit.h — the one header a hprofkit plugin builds against.
 *
 * A plugin is a shared object with one line of boilerplate in one of its files:
 *
 *     static int my_init(hk_plugin *self, char *err, size_t errlen) { ... }
 *     HK_PLUGIN_INIT(my_init)
 *
 * which defines the symbols the host looks for (hk_plugin_abi, hk_plugin_sdk_minor,
 * hk_plugin_init) and `hk_api`, the host table every file of the plugin calls.  The host
 * reads hk_plugin_abi before anything else and refuses a plugin built for another ABI,
 * naming both versions.  Then it calls the init with the table of host functions; the
 * plugin calls everything through that table and never links against the host's symbols
 * (the SQLite loadable-extension pattern).  In init, and only
 * there, the plugin describes itself and registers what it provides (the Redis-module
 * pattern); a registration at any later time is refused.
 *
 * WARNING: hk_host and the structs a plugin hands over only grow at their end.  Never
 * reorder, remove or change a member; mark each addition with the version that added it
 * (ABI 1.1 = HK_ABI_VERSION 1, HK_SDK_MINOR 1) and bump HK_SDK_MINOR.  The host reads the
 * plugin's hk_plugin_sdk_minor (0 when absent) to know how much of a struct the plugin
 * filled; HK_PLUGIN_INIT refuses a host whose table is shorter than the plugin's SDK's.
 * HK_ABI_VERSION changes only when an existing member changes meaning, which breaks
 * every plugin.
 */
#ifndef HPROFKIT_H
#define HPROFKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HK_ABI_VERSION 1u
#define HK_SDK_MINOR                                                                                                   \
    2u /* 1.1: hk_bitmap_source.priority, hk_host.config_bool/config_number;
                                   1.2: hk_host.mem_alloc/mem_realloc/mem_strdup/mem_free */
#define HK_PLUGIN_EXPORT __attribute__((visibility("default")))
#define HK_PLUGIN_HIDDEN __attribute__((visibility("hidden")))

typedef uint64_t hk_id;             /* an object id of the dump; 0 is null */
typedef struct hk_plugin hk_plugin; /* the host's handle for one loaded plugin */
typedef struct hk_dump hk_dump;     /* an open, indexed heap dump */
typedef struct hk_buf hk_buf;       /* a growable byte buffer owned by the host */

enum hk_log_level { HK_LOG_DEBUG = 0, HK_LOG_INFO = 1, HK_LOG_WARN = 2, HK_LOG_ERROR = 3 };

/* HPROF basic types, with their wire values. */
enum hk_type {
    HK_T_OBJECT = 2,
    HK_T_BOOLEAN = 4,
    HK_T_CHAR = 5,
    HK_T_FLOAT = 6,
    HK_T_DOUBLE = 7,
    HK_T_BYTE = 8,
    HK_T_SHORT = 9,
    HK_T_INT = 10,
    HK_T_LONG = 11
};

/* A field or array element: ref for HK_T_OBJECT, i for integral types and boolean/char,
 * d for float and double. */
typedef struct hk_value {
    int type;
    hk_id ref;
    int64_t i;
    double d;
} hk_value;

/* A plugin function, callable from Lua as hk.<plugin>.<name>(arg, ...) with string
 * arguments.  It appends its result to out as JSON text (the Lua host turns it into
 * tables).  Returns 0, or -1 with err filled. */
typedef int (*hk_function_fn)(void *ud, int argc, const char *const *argv, const size_t *argl, hk_buf *out, char *err,
                              size_t errlen);

/* One android.graphics.Bitmap instance, as the core read it. */
typedef struct hk_bitmap {
    hk_id id;
    int32_t width, height;
    uint64_t native_ptr;
    int recycled;
    int premultiplied; /* mRequestPremultiplied / mIsPremultiplied; 1 when neither exists */
    int32_t density;
    hk_id buffer; /* mBuffer (byte[]) before API 26, else 0 */
    int sdk;      /* the dump's SDK level, 0 when unknown */
} hk_bitmap;

enum hk_image_kind { HK_IMAGE_NONE = 0, HK_IMAGE_RGBA = 1, HK_IMAGE_ENCODED = 2 };

/* A bitmap source.  A source keyed by pointer (dumpdata, sidecar files) returns encoded
 * images for bm->native_ptr, and the core accepts one only when its PNG IHDR size equals
 * the bitmap's.  A source keyed by object (mbuffer) decodes the bitmap itself and
 * returns straight (not premultiplied) RGBA8888, width*height*4 bytes.
 * Sources are asked in priority order, highest first (ties: registration order, plugins
 * before scripts); the first image that fits wins.  The core's own sources sit between the
 * dump's own pixels and everything else: */
#define HK_PRIORITY_DUMP_PIXELS 200 /* dumpdata; mbuffer is 190 */
#define HK_PRIORITY_TRACE       100 /* images embedded in a Perfetto trace */
#define HK_PRIORITY_SIDECAR     90  /* DUMP.bitmaps/0x<ptr>.png files */
#define HK_PRIORITY_DEFAULT     0   /* a source that says nothing (and every ABI 1.0 plugin) */
typedef struct hk_bitmap_source {
    const char *name;
    const char *help;
    int keyed_by_pointer;
    /* Once per dump; *state is handed to image() and close().  May be NULL: the state is ud. */
    int (*open)(void *ud, hk_dump *dump, void **state, char *err, size_t errlen);
    /* Returns an hk_image_kind and fills out; HK_IMAGE_NONE may say why in note
     * (a label such as "guess: ARGB_8888 reconfigured" may also accompany an image). */
    int (*image)(void *state, const hk_bitmap *bm, hk_buf *out, char *note, size_t notelen);
    void (*close)(void *state); /* may be NULL */
    /* ---- ABI 1.1 ---- */
    int priority; /* HK_PRIORITY_*; 0 when not set */
} hk_bitmap_source;

/* What a live fetch is asked to do. */
typedef struct hk_fetch_request {
    const char *serial;    /* adb serial, or NULL for the only device / a direct JVM */
    int pid;               /* process on the device, 0 when jdwp_addr is used */
    const char *jdwp_addr; /* "HOST:PORT" of a JVM reached directly, or NULL */
    const char *out_dir;   /* where images go: DUMP.bitmaps/0x<ptr>.png */
    double budget_seconds;
    uint64_t budget_bytes;
} hk_fetch_request;

typedef struct hk_fetch_result {
    int fetched, skipped, failed, stopped_by_budget;
    uint64_t bytes;
    double seconds;
} hk_fetch_result;

/* A live fetcher: pixels from a running process, and optionally a GC before a dump. */
typedef struct hk_fetcher {
    const char *name;
    const char *help;
    int (*fetch_bitmaps)(void *ud, const hk_fetch_request *req, hk_fetch_result *res, char *err, size_t errlen);
    int (*gc)(void *ud, const hk_fetch_request *req, char *err, size_t errlen); /* may be NULL */
} hk_fetcher;

typedef struct hk_host {
    uint32_t abi_version; /* HK_ABI_VERSION of the host */
    uint32_t size;        /* sizeof(hk_host) in the host */

    /* ---- ABI 1 ---- */
    /* Describe the plugin (call first in init) and register what it provides. */
    int (*describe)(hk_plugin *self, const char *name, const char *version, const char *summary);
    int (*register_function)(hk_plugin *self, const char *name, const char *help, hk_function_fn fn, void *ud);
    int (*register_bitmap_source)(hk_plugin *self, const hk_bitmap_source *src, void *ud);
    int (*register_fetcher)(hk_plugin *self, const hk_fetcher *f, void *ud);

    /* The plugin's own section of plugins.ini; NULL when the key is absent. */
    const char *(*config)(hk_plugin *self, const char *key);
    void (*log)(hk_plugin *self, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
    /* A progress line on stderr, redrawn in place, only when stderr is a terminal. */
    void (*progress)(hk_plugin *self, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

    /* Buffers. */
    void (*buf_append)(hk_buf *b, const void *data, size_t n);
    void (*buf_printf)(hk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    void (*buf_json_string)(hk_buf *b, const char *s, size_t n); /* quoted and escaped */
    const unsigned char *(*buf_data)(const hk_buf *b);
    size_t (*buf_len)(const hk_buf *b);
    void (*buf_reset)(hk_buf *b);

    /* Heap access.  Names are Java source names ("android.graphics.Bitmap", "byte[]"). */
    const char *(*dump_path)(hk_dump *d);
    int (*dump_sdk)(hk_dump *d);                          /* 0 when unknown */
    hk_id (*class_by_name)(hk_dump *d, const char *name); /* 0 when absent */
    const char *(*class_name)(hk_dump *d, hk_id cls);
    hk_id (*object_class)(hk_dump *d, hk_id obj);
    /* 1 found, 0 no such static/field, -1 not a class/instance */
    int (*class_static)(hk_dump *d, hk_id cls, const char *name, hk_value *out);
    int (*field)(hk_dump *d, hk_id obj, const char *name, hk_value *out);
    /* Calls cb for each instance of cls (subclasses too when with_subclasses);
     * a non-zero return from cb stops the walk and is returned. */
    int (*instances)(hk_dump *d, hk_id cls, int with_subclasses, int (*cb)(void *ctx, hk_id obj), void *ctx);
    int64_t (*array_length)(hk_dump *d, hk_id arr); /* -1 when not an array */
    /* Raw big-endian elements of a primitive array, inside the mapped dump; NULL when
     * not a primitive array or written without data (PRIMITIVE_ARRAY_NODATA). */
    const void *(*prim_array_data)(hk_dump *d, hk_id arr, int *elem_type, uint32_t *count);
    hk_id (*obj_array_at)(hk_dump *d, hk_id arr, uint32_t index);
    int (*string_value)(hk_dump *d, hk_id str, hk_buf *utf8); /* 0, or -1 not a String */

    /* Open another dump (e.g. one taken only for its images); close it after. */
    hk_dump *(*dump_open)(const char *path, char *err, size_t errlen);
    void (*dump_close)(hk_dump *d);

    /* PNG and files. */
    int (*png_encode_rgba)(const unsigned char *rgba, int width, int height, hk_buf *out, char *err, size_t errlen);
    int (*png_size)(const void *png, size_t n, int *width, int *height); /* 0 ok, -1 not PNG */
    int (*write_file_atomic)(const char *path, const void *data, size_t n, char *err, size_t errlen);

    /* Device transport (the adb server). serial NULL = the only device. */
    int (*device_shell)(const char *serial, const char *cmd, hk_buf *out, int *exit_code, char *err, size_t errlen);
    /* A raw stream to a device service such as "jdwp:1234"; the caller closes fd. */
    int (*device_open)(const char *serial, const char *service, int *fd, char *err, size_t errlen);
    /* Take a heap dump of a process into local_path (gc: 0/1; bitmaps: 0/1). */
    int (*device_dump_heap)(const char *serial, const char *process, int gc, int bitmaps, const char *local_path,
                            char *err, size_t errlen);

    /* A scratch buffer of the plugin's own (hk_buf is opaque to plugins). */
    hk_buf *(*buf_new)(void);
    void (*buf_free)(hk_buf *b);

    /* ---- ABI 1.1 ---- */
    /* A setting of the plugin's section as a boolean (yes/no, true/false, on/off, 1/0, any
     * case) or a number; *out is def when the key is absent.  Returns 0, or -1 with err naming
     * the plugin, the key and the value (a typo is an error, never silently the default). */
    int (*config_bool)(hk_plugin *self, const char *key, int def, int *out, char *err, size_t errlen);
    int (*config_number)(hk_plugin *self, const char *key, double def, double *out, char *err, size_t errlen);

    /* ---- ABI 1.2 ---- */
    /* The host's allocator, so that plugins and core end out of memory the same way (the
     * program stops with "hprofkit: out of memory"): these never return NULL, and a plugin
     * checks no allocation.  mem_alloc's memory is zeroed; mem_free frees what any of them
     * returned (NULL is fine).  Plugin code calls them through hk_alloc & co. below. */
    void *(*mem_alloc)(size_t n);
    void *(*mem_realloc)(void *p, size_t n);
    char *(*mem_strdup)(const char *s);
    void (*mem_free)(void *p);
} hk_host;

typedef int (*hk_plugin_init_fn)(const hk_host *host, hk_plugin *self, char *err, size_t errlen);

#define HK_PLUGIN_ABI_SYMBOL       "hk_plugin_abi"
#define HK_PLUGIN_SDK_MINOR_SYMBOL "hk_plugin_sdk_minor"
#define HK_PLUGIN_INIT_SYMBOL      "hk_plugin_init"

/* Refuses a host whose table is shorter than the one the plugin was built against (an older
 * hprofkit): the plugin may call any member its SDK has, so it needs them all. */
static inline int hk_plugin_host_too_old(const hk_host *host, char *err, size_t errlen)
{
    static const char msg[] = "this hprofkit's host table is older than the sdk/hprofkit.h the plugin was built "
                              "against: update hprofkit or rebuild the plugin against its SDK";
    if (host->size >= sizeof(hk_host)) return 0;
    size_t i = 0;
    for (; errlen && i + 1 < errlen && msg[i]; i++) err[i] = msg[i];
    if (errlen) err[i] = 0;
    return 1;
}

/* The host table, for every file of a plugin: HK_PLUGIN_INIT defines it and sets it before
 * the plugin's init runs. */
extern HK_PLUGIN_HIDDEN const hk_host *hk_api;

/* Allocation in plugin code: the host's allocator (hk_host.mem_*).  Code a plugin shares with a
 * program of its own that runs without a host (a command-line tool, which defines hk_api as
 * NULL) gets the same policy from the C library: out of memory ends the program with one line. */
#ifndef HK_NO_PLUGIN_ALLOC
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static inline void *hk_alloc_checked(void *p)
{
    if (!p) {
        fputs("hprofkit: out of memory\n", stderr);
        abort();
    }
    return p;
}
static inline void *hk_alloc(size_t n)
{
    return hk_api ? hk_api->mem_alloc(n) : hk_alloc_checked(calloc(1, n ? n : 1));
}
static inline void *hk_realloc(void *p, size_t n)
{
    return hk_api ? hk_api->mem_realloc(p, n) : hk_alloc_checked(realloc(p, n ? n : 1));
}
static inline char *hk_strdup(const char *s)
{
    return hk_api ? hk_api->mem_strdup(s) : (char *)hk_alloc_checked(strdup(s));
}
static inline void hk_free(void *p)
{
    if (hk_api) hk_api->mem_free(p);
    else free(p);
}
#endif

/* The plugin's entry points: init is `int init(hk_plugin *self, char *err, size_t errlen)`,
 * returning 0, or -1 with err filled (then nothing it registered stays; with err empty, the
 * host's refusal of a registration is the reason). */
#define HK_PLUGIN_INIT(init)                                                                                           \
    HK_PLUGIN_HIDDEN const hk_host *hk_api;                                                                            \
    HK_PLUGIN_EXPORT const uint32_t hk_plugin_abi = HK_ABI_VERSION;                                                    \
    HK_PLUGIN_EXPORT const uint32_t hk_plugin_sdk_minor = HK_SDK_MINOR;                                                \
    HK_PLUGIN_EXPORT int hk_plugin_init(const hk_host *host, hk_plugin *self, char *err, size_t errlen);               \
    HK_PLUGIN_EXPORT int hk_plugin_init(const hk_host *host, hk_plugin *self, char *err, size_t errlen)                \
    {                                                                                                                  \
        if (hk_plugin_host_too_old(host, err, errlen)) return -1;                                                      \
        hk_api = host;                                                                                                 \
        return init(self, err, errlen);                                                                                \
    }

#ifdef __cplusplus
}
#endif
#endif
