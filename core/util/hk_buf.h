/* A growable byte buffer: the one way core code accumulates output. */
#ifndef HK_BUF_H
#define HK_BUF_H
#include <stdarg.h>
#include <stddef.h>

struct hk_buf {
    unsigned char *data;
    size_t len, cap;
};
typedef struct hk_buf hk_buf;

void hk_buf_init(hk_buf *b);
void hk_buf_free(hk_buf *b);
void hk_buf_reset(hk_buf *b);
void hk_buf_reserve(hk_buf *b, size_t extra);
void hk_buf_append(hk_buf *b, const void *data, size_t n);
void hk_buf_putc(hk_buf *b, char c);
void hk_buf_puts(hk_buf *b, const char *s);
void hk_buf_printf(hk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hk_buf_vprintf(hk_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Appends s as a JSON string literal (quoted, escaped; invalid UTF-8 bytes become U+FFFD). */
void hk_buf_json_string(hk_buf *b, const char *s, size_t n);
/* NUL-terminates without counting the NUL in len. */
const char *hk_buf_cstr(hk_buf *b);

#endif
