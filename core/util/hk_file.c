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

/* The temporary files being written now, so that a signal or an out-of-memory end removes
 * them (hk_file_remove_temps): slots taken and given back atomically, any thread. */
#define HK_TEMPS 64
static char *volatile g_temps[HK_TEMPS];

static void temp_track(char *tmp)
{
    for (int i = 0; i < HK_TEMPS; i++) {
        char *none = NULL;
        if (__atomic_compare_exchange_n(&g_temps[i], &none, tmp, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
    }
}

static void temp_untrack(const char *tmp)
{
    for (int i = 0; i < HK_TEMPS; i++) {
        char *want = (char *)tmp;
        if (__atomic_compare_exchange_n(&g_temps[i], &want, NULL, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
    }
}

void hk_file_remove_temps(void)
{
    for (int i = 0; i < HK_TEMPS; i++) {
        char *t = __atomic_exchange_n(&g_temps[i], NULL, __ATOMIC_SEQ_CST);
        if (t) unlink(t);
    }
}

/* A file without a name in path's directory (O_TMPFILE): whatever ends the process, even
 * SIGKILL, leaves nothing behind.  -1 where the filesystem or kernel has none, or /proc (which
 * commit needs to give it a name) is not mounted: the caller falls back to a named file. */
static int open_unnamed(const char *path)
{
    if (access("/proc/self/fd", X_OK) != 0) return -1;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    /* O_TMPFILE applies the umask to the mode, as creat() would */
    return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
}

/* A device, pipe or socket named as the output (/dev/stdout, /dev/full, a fifo), or any
 * name under /dev or /proc, is written in place: renaming over it would replace the device
 * node or the link with a regular file.  (No O_TRUNC: a regular file behind /dev/stdout is
 * the shell's redirection, truncated or appended to as the user asked.) */
static int open_special(hk_atomic_file *f, const char *path, char *err, size_t errlen)
{
    f->tmp = NULL;
    f->named = 0;
    f->fd = open(path, O_WRONLY | O_CLOEXEC);
    if (f->fd >= 0) return 0;
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
}

int hk_file_atomic_open(hk_atomic_file *f, const char *path, char *err, size_t errlen)
{
    struct stat st;
    size_t plen = strlen(path);
    f->path = path;
    /* /dev/stdout redirected to a file is a regular file, but renaming over the name would
     * replace the link in /dev */
    int in_dev = !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6);
    if (stat(path, &st) == 0 && ((!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) || in_dev))
        return open_special(f, path, err, errlen);
    f->tmp = hk_xmalloc(plen + 16);
    /* same directory as path, so rename() stays on one filesystem */
    snprintf(f->tmp, plen + 16, "%s.tmp.XXXXXX", path);
    f->fd = open_unnamed(path);
    f->named = f->fd < 0;
    if (f->named) f->fd = mkstemp(f->tmp);
    if (f->fd < 0) {
        snprintf(err, errlen,
                 "%s: cannot create a temporary file beside it: %s "
                 "(does the directory exist and is it writable?)",
                 path, strerror(errno));
        free(f->tmp);
        f->tmp = NULL;
        return -1;
    }
    if (!f->named) return 0;
    temp_track(f->tmp);
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
    if (f->tmp && f->named) {
        temp_untrack(f->tmp);
        unlink(f->tmp);
    }
    free(f->tmp);
    f->fd = -1;
    f->tmp = NULL;
}

/* Gives the unnamed file a temporary name beside path (rename then puts it in place): the
 * name exists only between this link and that rename. */
static int name_unnamed(hk_atomic_file *f)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
    size_t at = strlen(f->tmp) - 6;
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    unsigned long r = (unsigned long)getpid() * 2654435761u ^ (unsigned long)(uintptr_t)f;
    for (int attempt = 0; attempt < 100; attempt++) {
        for (int i = 0; i < 6; i++, r = r * 6364136223846793005u + 1442695040888963407u)
            f->tmp[at + i] = digits[(r >> 33) % 36];
        temp_track(f->tmp);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp, AT_SYMLINK_FOLLOW) == 0) {
            f->named = 1;
            return 0;
        }
        temp_untrack(f->tmp);
        if (errno != EEXIST) return -1;
    }
    return -1;
}

int hk_file_atomic_commit(hk_atomic_file *f, char *err, size_t errlen)
{
    if (!f->tmp) { /* a device or pipe written in place */
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
    if (!f->named && name_unnamed(f) < 0) {
        snprintf(err, errlen, "%s: cannot put the file in place: %s", f->path, strerror(errno));
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
    temp_untrack(f->tmp);
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

int hk_file_make_dirs(const char *dir, mode_t mode, char *err, size_t errlen)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        snprintf(err, errlen, "path too long: %.100s...", dir);
        return -1;
    }
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s) continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, mode) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create directory %.400s: %s", p, strerror(errno));
            return -1;
        }
        *s = c;
        if (!c) break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%.400s exists and is not a directory", dir);
        return -1;
    }
    return 0;
}
