#include "mi_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mi_buf_init(mi_buf *b)
{
    memset(b, 0, sizeof *b);
}

void mi_buf_free(mi_buf *b)
{
    hk_free(b->data);
    memset(b, 0, sizeof *b);
}

static int mi_buf_reserve(mi_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    b->data = hk_realloc(b->data, cap);
    b->cap = cap;
    return 0;
}

void mi_buf_put(mi_buf *b, const char *s, size_t n)
{
    if (mi_buf_reserve(b, n) < 0) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

static void mi_buf_puts(mi_buf *b, const char *s)
{
    mi_buf_put(b, s, strlen(s));
}

/* ---- JSON ---- */

void mi_json_init(mi_json *j, mi_buf *b)
{
    memset(j, 0, sizeof *j);
    j->b = b;
    j->first[0] = 1;
}

/* Emits the separating comma before a value or key, unless a key was just written. */
static void mi_json_sep(mi_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (!j->first[j->depth]) mi_buf_put(j->b, ",", 1);
    j->first[j->depth] = 0;
}

static void mi_json_open(mi_json *j, char c)
{
    mi_json_sep(j);
    mi_buf_put(j->b, &c, 1);
    if (j->depth + 1 < MI_JSON_MAXDEPTH) j->depth++;
    j->first[j->depth] = 1;
}

static void mi_json_close(mi_json *j, char c)
{
    mi_buf_put(j->b, &c, 1);
    if (j->depth > 0) j->depth--;
}

void mi_json_obj(mi_json *j)
{
    mi_json_open(j, '{');
}
void mi_json_obj_end(mi_json *j)
{
    mi_json_close(j, '}');
}
void mi_json_arr(mi_json *j)
{
    mi_json_open(j, '[');
}
void mi_json_arr_end(mi_json *j)
{
    mi_json_close(j, ']');
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid. */
static size_t mi_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else return 0;
    if (n < len) return 0;
    unsigned cp = c & (0x3F >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

/* Escapes s as a JSON string literal; invalid UTF-8 becomes U+FFFD so the output always parses. */
static void mi_json_quote(mi_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    mi_buf_put(b, "\"", 1);
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            mi_buf_put(b, e, 2);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            const char *e = NULL;
            switch (c) {
            case '\n': e = "\\n"; break;
            case '\r': e = "\\r"; break;
            case '\t': e = "\\t"; break;
            case '\b': e = "\\b"; break;
            case '\f': e = "\\f"; break;
            }
            char u[8];
            if (!e) {
                snprintf(u, sizeof u, "\\u%04x", c);
                e = u;
            }
            mi_buf_puts(b, e);
            i++;
        } else if (c < 0x80) {
            mi_buf_put(b, (const char *)p + i, 1);
            i++;
        } else {
            size_t l = mi_utf8_len(p + i, n - i);
            if (l == 0) {
                mi_buf_puts(b, "\\ufffd");
                i++;
            } else {
                mi_buf_put(b, (const char *)p + i, l);
                i += l;
            }
        }
    }
    mi_buf_put(b, "\"", 1);
}

static void mi_json_strn(mi_json *j, const char *s, size_t n)
{
    mi_json_sep(j);
    mi_json_quote(j->b, s, n);
}

void mi_json_key(mi_json *j, const char *k)
{
    mi_json_sep(j);
    mi_json_quote(j->b, k, strlen(k));
    mi_buf_put(j->b, ":", 1);
    j->after_key = 1;
}

void mi_json_str(mi_json *j, const char *s)
{
    if (!s) mi_json_null(j);
    else mi_json_strn(j, s, strlen(s));
}

void mi_json_int(mi_json *j, int64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%lld", (long long)v);
    mi_json_sep(j);
    mi_buf_puts(j->b, num);
}

void mi_json_bool(mi_json *j, int v)
{
    mi_json_sep(j);
    mi_buf_puts(j->b, v ? "true" : "false");
}

void mi_json_null(mi_json *j)
{
    mi_json_sep(j);
    mi_buf_puts(j->b, "null");
}

void mi_json_kstr(mi_json *j, const char *k, const char *s)
{
    mi_json_key(j, k);
    mi_json_str(j, s);
}

void mi_json_kint(mi_json *j, const char *k, int64_t v)
{
    mi_json_key(j, k);
    mi_json_int(j, v);
}

void mi_json_karr(mi_json *j, const char *k)
{
    mi_json_key(j, k);
    mi_json_arr(j);
}

/* ---- arena ---- */

struct mi_arena_blk {
    mi_arena_blk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *mi_arena_alloc(mi_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->head->cap - a->head->used < n) {
        size_t cap = n > 16384 ? n : 16384;
        mi_arena_blk *blk = hk_alloc(sizeof *blk + cap);
        blk->next = a->head;
        blk->used = 0;
        blk->cap = cap;
        a->head = blk;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += n;
    memset(p, 0, n);
    return p;
}

char *mi_arena_strndup(mi_arena *a, const char *s, size_t n)
{
    char *p = mi_arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

char *mi_arena_printf(mi_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = n >= 0 ? mi_arena_alloc(a, (size_t)n + 1) : NULL;
    if (p) vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

int mi_arena_grow(mi_arena *a, void **arr, size_t elsize, int *cap, int n)
{
    if (n < *cap) return 0;
    int ncap = *cap ? *cap * 2 : 8;
    void *p = mi_arena_alloc(a, elsize * (size_t)ncap);
    if (!p) return -1;
    if (*arr && n > 0) memcpy(p, *arr, elsize * (size_t)n);
    *arr = p;
    *cap = ncap;
    return 0;
}

void mi_arena_free(mi_arena *a)
{
    mi_arena_blk *b = a->head;
    while (b) {
        mi_arena_blk *n = b->next;
        hk_free(b);
        b = n;
    }
    a->head = NULL;
}
