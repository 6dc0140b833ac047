#include "util/hk_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int hk_file_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errlen)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    /* same directory as path, so rename() stays on one filesystem */
    snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen,
                 "%s: cannot create a temporary file beside it: %s "
                 "(does the directory exist and is it writable?)",
                 path, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes 0600; give the file the usual mode */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    if (write_all(fd, data, n) < 0 || fsync(fd) < 0) {
        snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    if (close(fd) < 0 || rename(tmp, path) < 0) {
        snprintf(err, errlen, "%s: cannot put the file in place: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

int hk_file_read_all(const char *path, hk_buf *out, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, expected a file", path);
        close(fd);
        return -1;
    }
    if (st.st_size > 0) hk_buf_reserve(out, (size_t)st.st_size);
    for (;;) {
        hk_buf_reserve(out, 65536);
        ssize_t r = read(fd, out->data + out->len, out->cap - out->len - 1);
        if (r < 0) {
            if (errno == EINTR) continue;
            snprintf(err, errlen, "%s: read failed: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        if (r == 0) break;
        out->len += (size_t)r;
    }
    close(fd);
    return 0;
}
