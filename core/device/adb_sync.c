/* sync: — 8-byte requests [id:4][length:4 LE] followed by a path; STAT answers 16 bytes,
 * RECV answers DATA chunks (<= 64 KiB) then DONE, or FAIL with a message. */
#include "adb_services.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = v & 0xff;
    p[1] = (v >> 8) & 0xff;
    p[2] = (v >> 16) & 0xff;
    p[3] = (v >> 24) & 0xff;
}
static uint32_t get32(const unsigned char *p)
{
    return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int sync_request(hk_adb *adb, int fd, const char *id, const char *path, char *err, size_t errlen)
{
    size_t n = strlen(path);
    if (n > 1024) {
        snprintf(err, errlen, "adb: remote path too long: %.80s...", path);
        return -1;
    }
    unsigned char h[8 + 1024];
    memcpy(h, id, 4);
    put32(h + 4, (uint32_t)n);
    memcpy(h + 8, path, n);
    char step[1100];
    snprintf(step, sizeof step, "sync %s %s", id, path);
    return hk_adb_write_all(fd, h, n + 8, adb->timeout_ms, step, err, errlen);
}

/* Reads the message after a FAIL id into err. */
static void sync_fail_message(int fd, uint32_t n, const char *step, int tmo, const char *what, char *err, size_t errlen)
{
    char msg[512] = "";
    char tmp[1024];
    if (n >= sizeof msg) n = sizeof msg - 1;
    if (hk_adb_read_exact(fd, msg, n, step, tmo, tmp, sizeof tmp) == 0) msg[n] = 0;
    snprintf(err, errlen, "adb: %s failed: %s", what, msg[0] ? msg : "unknown error");
}

int hk_adb_stat(hk_adb *adb, const char *serial, const char *remote, int *exists, uint32_t *mode, uint32_t *size,
                uint32_t *mtime, char *err, size_t errlen)
{
    int fd = hk_adb_open_service(adb, serial, "sync:", err, errlen);
    if (fd < 0) return -1;
    char step[1100];
    snprintf(step, sizeof step, "the reply to sync STAT %.1000s", remote);
    unsigned char r[16];
    int rc = -1;
    if (sync_request(adb, fd, "STAT", remote, err, errlen) == 0 &&
        hk_adb_read_exact(fd, r, 16, step, adb->timeout_ms, err, errlen) == 0) {
        if (memcmp(r, "STAT", 4) != 0) {
            snprintf(err, errlen, "adb: unexpected '%.4s' in %s", (char *)r, step);
        } else {
            uint32_t m = get32(r + 4);
            if (mode) *mode = m;
            if (size) *size = get32(r + 8);
            if (mtime) *mtime = get32(r + 12);
            if (exists) *exists = m != 0;
            rc = 0;
        }
    }
    close(fd);
    return rc;
}

int hk_adb_pull(hk_adb *adb, const char *serial, const char *remote, const char *local, int64_t expected_size,
                hk_adb_progress_fn progress, void *ctx, char *err, size_t errlen)
{
    if (expected_size < 0) {
        int exists;
        uint32_t sz;
        if (hk_adb_stat(adb, serial, remote, &exists, NULL, &sz, NULL, err, errlen) != 0) return -1;
        if (!exists) {
            snprintf(err, errlen, "adb: %s does not exist on the device", remote);
            return -1;
        }
        expected_size = sz;
    }
    /* temp file beside the destination so the final rename is atomic */
    char *d1 = strdup(local), *d2 = strdup(local);
    size_t tl = strlen(local) + 64;
    char *tmp = malloc(tl);
    if (!d1 || !d2 || !tmp) {
        free(d1);
        free(d2);
        free(tmp);
        snprintf(err, errlen, "adb: out of memory");
        return -1;
    }
    snprintf(tmp, tl, "%s/.%s.partial-XXXXXX", dirname(d1), basename(d2));
    free(d1);
    free(d2);
    int out = mkstemp(tmp);
    if (out < 0) {
        snprintf(err, errlen, "cannot create a file beside %s: %s", local, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes it 0600; a pulled file gets the usual permissions */
    mode_t um = umask(0);
    umask(um);
    if (fchmod(out, 0666 & ~um) != 0) { /* harmless: the file stays private */
    }
    int fd = hk_adb_open_service(adb, serial, "sync:", err, errlen);
    int rc = -1;
    uint64_t done = 0;
    char step[1100];
    snprintf(step, sizeof step, "the data of %.1000s (sync RECV)", remote);
    unsigned char *chunk = malloc(65536);
    if (fd < 0 || !chunk) {
        if (!chunk) snprintf(err, errlen, "adb: out of memory");
        goto out;
    }
    if (sync_request(adb, fd, "RECV", remote, err, errlen) != 0) goto out;
    for (;;) {
        unsigned char h[8];
        if (hk_adb_read_exact(fd, h, 8, step, adb->timeout_ms, err, errlen) != 0) goto out;
        uint32_t n = get32(h + 4);
        if (!memcmp(h, "DONE", 4)) break;
        if (!memcmp(h, "FAIL", 4)) {
            char what[1100];
            snprintf(what, sizeof what, "pulling %.1000s", remote);
            sync_fail_message(fd, n, step, adb->timeout_ms, what, err, errlen);
            goto out;
        }
        if (memcmp(h, "DATA", 4) != 0 || n > 65536) {
            snprintf(err, errlen, "adb: malformed sync packet '%.4s' (length %u) in %s", (char *)h, n, step);
            goto out;
        }
        if (hk_adb_read_exact(fd, chunk, n, step, adb->timeout_ms, err, errlen) != 0) goto out;
        for (size_t off = 0; off < n;) {
            ssize_t w = write(out, chunk + off, n - off);
            if (w < 0) {
                if (errno == EINTR) continue;
                snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
                goto out;
            }
            off += (size_t)w;
        }
        done += n;
        if (progress) progress(ctx, done, (uint64_t)expected_size);
    }
    if ((int64_t)done != expected_size) {
        snprintf(err, errlen,
                 "adb: pulled %llu bytes of %s but the device reported %lld: the file changed or the "
                 "transfer was cut; try again",
                 (unsigned long long)done, remote, (long long)expected_size);
        goto out;
    }
    /* QUIT ends the sync session politely; the server closes the stream either way */
    unsigned char q[8] = {'Q', 'U', 'I', 'T', 0, 0, 0, 0};
    char qerr[64];
    hk_adb_write_all(fd, q, 8, 1000, "sync QUIT", qerr, sizeof qerr);
    if (fsync(out) != 0 || close(out) != 0) {
        out = -1;
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto out;
    }
    out = -1;
    if (rename(tmp, local) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, local, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (out >= 0) close(out);
    if (rc != 0) unlink(tmp);
    if (fd >= 0) close(fd);
    free(chunk);
    free(tmp);
    return rc;
}
