/* Test driver for the meminfo parsers: `meminfo_cli parse FILE` and
 * `meminfo_cli smaps FILE` print JSON on stdout, or a one-line error on
 * stderr with exit status 1.  FILE "-" reads stdin. */
#include "meminfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a program without a host: hk_alloc & co. use the C library, with the same out-of-memory end */
const hk_host *hk_api;

#define MI_CLI_MAX (256u << 20)

/* Appends the file (or stdin) to in. */
static int mi_cli_read(const char *path, mi_buf *in, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    static char chunk[65536];
    size_t r;
    int rc = 0;
    while (!rc && (r = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (in->len + r > MI_CLI_MAX) {
            snprintf(err, errlen, "%s is larger than %u MB: not meminfo/smaps text", path, MI_CLI_MAX >> 20);
            rc = -1;
        } else mi_buf_put(in, chunk, r);
    }
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        rc = -1;
    }
    if (f != stdin) fclose(f);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "parse") && strcmp(argv[1], "smaps"))) {
        fprintf(stderr, "usage: meminfo_cli parse|smaps FILE\n");
        return 2;
    }
    char err[512] = "";
    mi_buf in;
    mi_buf_init(&in);
    if (mi_cli_read(argv[2], &in, err, sizeof err) < 0) {
        fprintf(stderr, "meminfo_cli: %s\n", err);
        mi_buf_free(&in);
        return 1;
    }
    mi_buf out;
    mi_buf_init(&out);
    int rc = !strcmp(argv[1], "parse") ? mi_parse(in.data, in.len, &out, err, sizeof err)
                                       : mi_smaps(in.data, in.len, &out, err, sizeof err);
    mi_buf_free(&in);
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
