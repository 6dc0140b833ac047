/* libFuzzer target: the meminfo plugin's parsers (`dumpsys meminfo` text, /proc/PID/smaps) on
 * any bytes.  A parse that succeeds must give one NUL-free JSON document that opens and closes
 * as an object; a failure must say why. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meminfo.h"

/* no host: the SDK's allocation falls back to the C library's (out of memory ends the run) */
const hk_host *hk_api = NULL;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) __builtin_trap();                                                                                 \
    } while (0)

static void one(int (*parse)(const char *, size_t, mi_buf *, char *, size_t), const char *text, size_t len)
{
    mi_buf out;
    mi_buf_init(&out);
    char err[256];
    err[0] = 0;
    if (parse(text, len, &out, err, sizeof err) == 0) {
        CHECK(out.data && out.len >= 2 && strlen(out.data) == out.len);
        CHECK(out.data[0] == '{' && strchr("}\n", out.data[out.len - 1]));
    } else {
        CHECK(err[0]);
    }
    mi_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the parsers take text with its length; a copy that ends exactly where the input does */
    char *text = malloc(size ? size : 1);
    memcpy(text, data, size);
    one(mi_parse, text, size);
    one(mi_smaps, text, size);
    free(text);
    return 0;
}
