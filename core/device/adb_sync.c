/* sync: — 8-byte requests [id:4][length:4 LE] followed by a path; STAT answers 16 bytes,
 * RECV answers DATA chunks (<= 64 KiB) then DONE, or FAIL with a message. */
#include "adb_services.h"
#include "util/hk_file.h"
#include "util/hk_mem.h"

#include <errno.h>
#include <fcntl.h>
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

/* sync: STAT.  *exists is 0 when the file is missing (mode 0). */
static int hk_adb_stat(hk_adb *adb, const char *serial, const char *remote, int *exists, uint32_t *mode, uint32_t *size,
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
            char w[17];
            snprintf(err, errlen, "adb: unexpected '%s' in %s", hk_adb_word(r, w), step);
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

/* The file's size on the device, from STAT. */
static int remote_size(hk_adb *adb, const char *serial, const char *remote, int64_t *size, char *err, size_t errlen)
{
    int exists;
    uint32_t sz;
    if (hk_adb_stat(adb, serial, remote, &exists, NULL, &sz, NULL, err, errlen) != 0) return -1;
    if (!exists) {
        snprintf(err, errlen, "adb: %s does not exist on the device", remote);
        return -1;
    }
    *size = sz;
    return 0;
}

/* RECV: the DATA chunks until DONE, into f; *done counts the bytes. */
static int recv_file(hk_adb *adb, int fd, const char *remote, hk_atomic_file *f, int64_t expected_size,
                     hk_adb_progress_fn progress, void *ctx, uint64_t *done, char *err, size_t errlen)
{
    char step[1100];
    snprintf(step, sizeof step, "the data of %.1000s (sync RECV)", remote);
    if (sync_request(adb, fd, "RECV", remote, err, errlen) != 0) return -1;
    unsigned char *chunk = hk_xmalloc(65536);
    int rc = -1;
    for (;;) {
        unsigned char h[8];
        if (hk_adb_read_exact(fd, h, 8, step, adb->timeout_ms, err, errlen) != 0) break;
        uint32_t n = get32(h + 4);
        if (!memcmp(h, "DONE", 4)) {
            rc = 0;
            break;
        }
        if (!memcmp(h, "FAIL", 4)) {
            char what[1100];
            snprintf(what, sizeof what, "pulling %.1000s", remote);
            sync_fail_message(fd, n, step, adb->timeout_ms, what, err, errlen);
            break;
        }
        if (memcmp(h, "DATA", 4) != 0 || n > 65536) {
            char w[17];
            snprintf(err, errlen, "adb: malformed sync packet '%s' (length %u) in %s", hk_adb_word(h, w), n, step);
            break;
        }
        if (hk_adb_read_exact(fd, chunk, n, step, adb->timeout_ms, err, errlen) != 0) break;
        if (hk_file_atomic_write(f, chunk, n, err, errlen) != 0) break;
        *done += n;
        if (progress) progress(ctx, *done, (uint64_t)expected_size);
    }
    free(chunk);
    return rc;
}

int hk_adb_pull(hk_adb *adb, const char *serial, const char *remote, const char *local, int64_t expected_size,
                hk_adb_progress_fn progress, void *ctx, char *err, size_t errlen)
{
    if (expected_size < 0 && remote_size(adb, serial, remote, &expected_size, err, errlen) != 0) return -1;
    /* the local file appears only once it is complete */
    hk_atomic_file f;
    if (hk_file_atomic_open(&f, local, err, errlen) != 0) return -1;
    int fd = hk_adb_open_service(adb, serial, "sync:", err, errlen);
    uint64_t done = 0;
    if (fd < 0 || recv_file(adb, fd, remote, &f, expected_size, progress, ctx, &done, err, errlen) != 0) goto fail;
    if ((int64_t)done != expected_size) {
        snprintf(err, errlen,
                 "adb: pulled %llu bytes of %s but the device reported %lld: the file changed or the "
                 "transfer was cut; try again",
                 (unsigned long long)done, remote, (long long)expected_size);
        goto fail;
    }
    /* QUIT ends the sync session politely; the server closes the stream either way */
    unsigned char q[8] = {'Q', 'U', 'I', 'T', 0, 0, 0, 0};
    char qerr[64];
    hk_adb_write_all(fd, q, 8, 1000, "sync QUIT", qerr, sizeof qerr);
    close(fd);
    return hk_file_atomic_commit(&f, err, errlen);
fail:
    if (fd >= 0) close(fd);
    hk_file_atomic_abort(&f);
    return -1;
}
