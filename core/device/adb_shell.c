/* shell: and shell,v2,raw: — the v2 "shell protocol" frames each chunk as
 * [id:1][length:4 LE][data]; id 1 stdout, 2 stderr, 3 exit (one byte of status). */
#include "adb_services.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SHELL_STDOUT = 1, SHELL_STDERR = 2, SHELL_EXIT = 3 };

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *buf = hk_xrealloc(*buf, *cap);
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = 0;
}

static int read_v2(int fd, const char *step, int tmo, char **out, size_t *outlen, int *exit_code, char *err,
                   size_t errlen)
{
    size_t len = 0, cap = 4096;
    char *buf = hk_xmalloc(cap);
    buf[0] = 0;
    *exit_code = -1;
    for (;;) {
        unsigned char h[5];
        if (hk_adb_read_exact(fd, h, 5, step, tmo, err, errlen) != 0) goto fail;
        uint32_t n = h[1] | (h[2] << 8) | (h[3] << 16) | ((uint32_t)h[4] << 24);
        if (n > 64u * 1024 * 1024) {
            snprintf(err, errlen, "adb: malformed shell protocol packet (length %u) in %s", n, step);
            goto fail;
        }
        char *d = hk_xmalloc(n);
        if (n && hk_adb_read_exact(fd, d, n, step, tmo, err, errlen) != 0) {
            free(d);
            goto fail;
        }
        if (h[0] == SHELL_EXIT) {
            *exit_code = n ? (unsigned char)d[0] : 0;
            free(d);
            break;
        }
        if (h[0] == SHELL_STDOUT || h[0] == SHELL_STDERR) append(&buf, &len, &cap, d, n);
        free(d);
    }
    *out = buf;
    if (outlen) *outlen = len;
    return 0;
fail:
    free(buf);
    return -1;
}

int hk_adb_shell(hk_adb *adb, const char *serial, const char *cmd, int use_v2, int timeout_ms, char **out,
                 size_t *outlen, int *exit_code, char *err, size_t errlen)
{
    size_t sl = strlen(cmd) + 32;
    char *svc = hk_xmalloc(sl);
    *out = NULL;
    snprintf(svc, sl, "%s%s", use_v2 ? "shell,v2,raw:" : "shell:", cmd);
    int fd = hk_adb_open_service(adb, serial, svc, err, errlen);
    if (fd < 0) {
        free(svc);
        return -1;
    }
    char step[600];
    snprintf(step, sizeof step, "the output of `%.500s`", cmd);
    int tmo = timeout_ms > 0 ? timeout_ms : adb->timeout_ms;
    int rc;
    if (use_v2) {
        rc = read_v2(fd, step, tmo, out, outlen, exit_code, err, errlen);
    } else {
        *exit_code = -1;
        rc = hk_adb_read_to_eof(fd, out, outlen, step, tmo, err, errlen);
    }
    close(fd);
    free(svc);
    return rc;
}
