#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_TMPFILE, copy_file_range */
#endif
#include "util/hk_file.h"
#include "util/hk_mem.h"

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

int hk_file_atomic_open(hk_atomic_file *f, const char *path, char *err, size_t errlen)
{
    size_t plen = strlen(path);
    f->path = path;
    /* a device or a pipe (-o /dev/null, -o /dev/stdout) is written as it is: renaming a
     * temporary file over it would replace /dev/null with a regular file when run as root */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        f->tmp = NULL;
        f->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (f->fd >= 0) return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    f->tmp = hk_xmalloc(plen + 16);
    /* same directory as path, so rename() stays on one filesystem */
    snprintf(f->tmp, plen + 16, "%s.tmp.XXXXXX", path);
    f->fd = mkstemp(f->tmp);
    if (f->fd < 0) {
        snprintf(err, errlen,
                 "%s: cannot create a temporary file beside it: %s "
                 "(does the directory exist and is it writable?)",
                 path, strerror(errno));
        free(f->tmp);
        f->tmp = NULL;
        return -1;
    }
    /* mkstemp makes 0600; give the file the usual mode */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(f->fd, 0666 & ~mask);
    return 0;
}

int hk_file_atomic_write(hk_atomic_file *f, const void *data, size_t n, char *err, size_t errlen)
{
    if (write_all(f->fd, data, n) == 0) return 0;
    snprintf(err, errlen, "%s: write failed: %s", f->path, strerror(errno));
    return -1;
}

void hk_file_atomic_abort(hk_atomic_file *f)
{
    if (f->fd >= 0) close(f->fd);
    if (f->tmp) unlink(f->tmp);
    free(f->tmp);
    f->fd = -1;
    f->tmp = NULL;
}

int hk_file_atomic_commit(hk_atomic_file *f, char *err, size_t errlen)
{
    if (!f->tmp) { /* a device or a pipe: nothing to put in place */
        int rc = close(f->fd);
        f->fd = -1;
        if (rc == 0) return 0;
        snprintf(err, errlen, "%s: write failed: %s", f->path, strerror(errno));
        return -1;
    }
    if (fsync(f->fd) < 0) {
        snprintf(err, errlen, "%s: write failed: %s", f->path, strerror(errno));
        hk_file_atomic_abort(f);
        return -1;
    }
    int rc = close(f->fd);
    f->fd = -1;
    if (rc < 0 || rename(f->tmp, f->path) < 0) {
        snprintf(err, errlen, "%s: cannot put the file in place: %s", f->path, strerror(errno));
        hk_file_atomic_abort(f);
        return -1;
    }
    free(f->tmp);
    f->tmp = NULL;
    return 0;
}

int hk_file_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errlen)
{
    hk_atomic_file f;
    if (hk_file_atomic_open(&f, path, err, errlen) < 0) return -1;
    if (hk_file_atomic_write(&f, data, n, err, errlen) < 0) {
        hk_file_atomic_abort(&f);
        return -1;
    }
    return hk_file_atomic_commit(&f, err, errlen);
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

int hk_file_scratch(char *err, size_t errlen)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    /* a filesystem without O_TMPFILE: a named file, unlinked at once */
    char path[4096];
    snprintf(path, sizeof path, "%s/hprofkit-scratch.XXXXXX", dir);
    fd = mkstemp(path);
    if (fd >= 0) {
        unlink(path);
        return fd;
    }
    snprintf(err, errlen, "cannot create a scratch file in %s: %s (set TMPDIR to a writable directory)", dir,
             strerror(errno));
    return -1;
}

int hk_file_write_fd(int fd, const void *data, size_t n, char *err, size_t errlen)
{
    if (write_all(fd, data, n) == 0) return 0;
    snprintf(err, errlen, "cannot write a scratch file: %s (is the disk of TMPDIR full?)", strerror(errno));
    return -1;
}

int hk_file_copy_range(int to, int from, uint64_t off, uint64_t n, char *err, size_t errlen)
{
    loff_t in = (loff_t)off;
    while (n) {
        ssize_t r = copy_file_range(from, &in, to, NULL, n, 0);
        if (r > 0) {
            n -= (uint64_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        break; /* not supported here (or a short file): copy through a buffer */
    }
    unsigned char buf[1 << 16];
    while (n) {
        ssize_t r = pread(from, buf, n < sizeof buf ? (size_t)n : sizeof buf, in);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0 || write_all(to, buf, (size_t)r) < 0) {
            snprintf(err, errlen, "cannot copy within scratch files: %s", r == 0 ? "short file" : strerror(errno));
            return -1;
        }
        in += r;
        n -= (uint64_t)r;
    }
    return 0;
}
