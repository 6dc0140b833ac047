#include "util/hk_buf.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hk_buf_init(hk_buf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
}
void hk_buf_free(hk_buf *b)
{
    free(b->data);
    hk_buf_init(b);
}
void hk_buf_reset(hk_buf *b)
{
    b->len = 0;
}

void hk_buf_reserve(hk_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    b->data = hk_xrealloc(b->data, cap);
    b->cap = cap;
}

void hk_buf_append(hk_buf *b, const void *data, size_t n)
{
    if (!n) return;
    hk_buf_reserve(b, n);
    memcpy(b->data + b->len, data, n);
    b->len += n;
}

void hk_buf_putc(hk_buf *b, char c)
{
    hk_buf_append(b, &c, 1);
}
void hk_buf_puts(hk_buf *b, const char *s)
{
    hk_buf_append(b, s, strlen(s));
}

void hk_buf_vprintf(hk_buf *b, const char *fmt, va_list ap)
{
    /* most lines fit the stack buffer, so they are formatted once */
    char tmp[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap2);
    va_end(ap2);
    if (n <= 0) return;
    if ((size_t)n < sizeof tmp) {
        hk_buf_append(b, tmp, (size_t)n);
        return;
    }
    hk_buf_reserve(b, (size_t)n);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void hk_buf_printf(hk_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hk_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Length of the valid UTF-8 sequence at s (max n bytes), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    size_t len;
    if (s[0] < 0x80) return 1;
    else if ((s[0] & 0xE0) == 0xC0) len = 2;
    else if ((s[0] & 0xF0) == 0xE0) len = 3;
    else if ((s[0] & 0xF8) == 0xF0) len = 4;
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return len;
}

void hk_buf_json_string(hk_buf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    hk_buf_reserve(b, n + 2);
    hk_buf_putc(b, '"');
    size_t run = 0; /* bytes that stay as they are since run: appended in one go (--json of big results) */
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            i++;
            continue;
        }
        size_t l = c >= 0x80 ? utf8_seq(s + i, n - i) : 0;
        if (l) {
            i += l;
            continue;
        }
        hk_buf_append(b, s + run, i - run);
        if (c == '"' || c == '\\') {
            hk_buf_putc(b, '\\');
            hk_buf_putc(b, (char)c);
        } else if (c == '\n') {
            hk_buf_puts(b, "\\n");
        } else if (c == '\t') {
            hk_buf_puts(b, "\\t");
        } else if (c == '\r') {
            hk_buf_puts(b, "\\r");
        } else if (c < 0x20 || c == 0x7f) {
            hk_buf_printf(b, "\\u%04x", c);
        } else {
            hk_buf_puts(b, "\\ufffd");
        }
        run = ++i;
    }
    hk_buf_append(b, s + run, n - run);
    hk_buf_putc(b, '"');
}

const char *hk_buf_cstr(hk_buf *b)
{
    hk_buf_reserve(b, 1);
    b->data[b->len] = 0;
    return (const char *)b->data;
}
