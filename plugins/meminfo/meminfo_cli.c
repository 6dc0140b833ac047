/* Test driver for the meminfo parsers: `meminfo_cli parse FILE` and
 * `meminfo_cli smaps FILE` print JSON on stdout, or a one-line error on
 * stderr with exit status 1.  FILE "-" reads stdin. */
#include "meminfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MI_CLI_MAX (256u << 20)

static char *mi_cli_read(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= MI_CLI_MAX) {
                snprintf(err, errlen, "%s is larger than %u MB: not meminfo/smaps text", path, MI_CLI_MAX >> 20);
                free(buf);
                buf = NULL;
                break;
            }
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    if (!buf && !err[0]) snprintf(err, errlen, "out of memory reading %s", path);
    if (f != stdin) fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "parse") && strcmp(argv[1], "smaps"))) {
        fprintf(stderr, "usage: meminfo_cli parse|smaps FILE\n");
        return 2;
    }
    char err[512] = "";
    size_t len;
    char *text = mi_cli_read(argv[2], &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "meminfo_cli: %s\n", err);
        return 1;
    }
    mi_buf out;
    mi_buf_init(&out);
    int rc = !strcmp(argv[1], "parse") ? mi_parse(text, len, &out, err, sizeof err)
                                       : mi_smaps(text, len, &out, err, sizeof err);
    free(text);
    if (rc < 0) {
        fprintf(stderr, "meminfo_cli: %s: %s\n", argv[2], err);
        mi_buf_free(&out);
        return 1;
    }
    fwrite(out.data, 1, out.len, stdout);
    fputc('\n', stdout);
    mi_buf_free(&out);
    return 0;
}
