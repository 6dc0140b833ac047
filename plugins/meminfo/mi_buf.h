/* Growable byte buffer, a tiny JSON writer on top of it, and an arena for
 * parse results.  Memory comes from hk_alloc & co. (sdk/hprofkit.h): the host's allocator in
 * the plugin, the C library with the same out-of-memory end in meminfo_cli (no host), so no
 * allocation here fails. */
#ifndef MI_BUF_H
#define MI_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "hprofkit.h"

typedef struct mi_buf {
    char *data; /* always NUL-terminated when non-NULL */
    size_t len, cap;
} mi_buf;

void mi_buf_init(mi_buf *b);
void mi_buf_free(mi_buf *b);
void mi_buf_put(mi_buf *b, const char *s, size_t n);

/* JSON writer: tracks commas so callers only say what comes next. */
#define MI_JSON_MAXDEPTH 32
typedef struct mi_json {
    mi_buf *b;
    int depth;
    int after_key;
    unsigned char first[MI_JSON_MAXDEPTH];
} mi_json;

void mi_json_init(mi_json *j, mi_buf *b);
void mi_json_obj(mi_json *j);
void mi_json_obj_end(mi_json *j);
void mi_json_arr(mi_json *j);
void mi_json_arr_end(mi_json *j);
void mi_json_key(mi_json *j, const char *k);
void mi_json_str(mi_json *j, const char *s); /* NULL writes null */
void mi_json_int(mi_json *j, int64_t v);
void mi_json_bool(mi_json *j, int v);
void mi_json_null(mi_json *j);
/* A key and its value, in an object. */
void mi_json_kstr(mi_json *j, const char *k, const char *s);
void mi_json_kint(mi_json *j, const char *k, int64_t v);
/* A key and the opening of its array value. */
void mi_json_karr(mi_json *j, const char *k);

/* Arena: everything a parse result points to lives here and is freed at once. */
typedef struct mi_arena_blk mi_arena_blk;
typedef struct mi_arena {
    mi_arena_blk *head;
} mi_arena;

void *mi_arena_alloc(mi_arena *a, size_t n); /* zeroed, never NULL */
char *mi_arena_strndup(mi_arena *a, const char *s, size_t n);
char *mi_arena_printf(mi_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Makes room for one more element in an arena-backed array. */
int mi_arena_grow(mi_arena *a, void **arr, size_t elsize, int *cap, int n);
void mi_arena_free(mi_arena *a);

#endif
