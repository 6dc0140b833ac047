/* libFuzzer target: the logcat and exit-info parsers of plugins/deaths on any bytes.  Every
 * record's fields are walked, so a bad pointer or an unterminated value shows under ASan. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "deaths.h"

static size_t walk(const dl_records *rs)
{
    size_t n = 0;
    for (int i = 0; i < rs->n; i++)
        for (int k = 0; k < rs->r[i].nfields; k++) n += strlen(rs->r[i].f[k].name) + strlen(rs->r[i].f[k].value);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dl_records a = {0}, b = {0};
    dl_logcat_parse((const char *)data, size, &a);
    dl_exitinfo_parse((const char *)data, size, &b);
    volatile size_t n = walk(&a) + walk(&b);
    (void)n;
    dl_records_free(&a);
    dl_records_free(&b);
    return 0;
}
