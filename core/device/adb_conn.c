/* The connection to the adb server and the host protocol's framing. */
#include "adb_conn.h"
#include "util/hk_mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A TCP port number, 1-65535, and nothing after it. */
static int parse_port(const char *s, int *port)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v <= 0 || v > 65535) return -1;
    *port = (int)v;
    return 0;
}

int hk_adb_init(hk_adb *adb, char *err, size_t errlen)
{
    memset(adb, 0, sizeof *adb);
    snprintf(adb->host, sizeof adb->host, "127.0.0.1");
    adb->port = HK_ADB_DEFAULT_PORT;
    adb->timeout_ms = HK_ADB_TIMEOUT_MS;
    adb->autostart = 1;
    /* HK_ADB_TIMEOUT (seconds) bounds every read; tests shorten it */
    const char *tmo = getenv("HK_ADB_TIMEOUT");
    if (tmo && atoi(tmo) > 0) adb->timeout_ms = atoi(tmo) * 1000;
    const char *sock = getenv("ADB_SERVER_SOCKET");
    const char *port = getenv("ANDROID_ADB_SERVER_PORT");
    if (sock && *sock) {
        /* adb accepts tcp:PORT and tcp:HOST:PORT here */
        if (strncmp(sock, "tcp:", 4) != 0) {
            snprintf(err, errlen, "adb: ADB_SERVER_SOCKET=%s is not supported: use tcp:HOST:PORT", sock);
            return -1;
        }
        const char *rest = sock + 4, *colon = strrchr(rest, ':');
        const char *p = colon ? colon + 1 : rest;
        if (colon) {
            size_t hl = (size_t)(colon - rest);
            if (hl >= sizeof adb->host) hl = sizeof adb->host - 1;
            memcpy(adb->host, rest, hl);
            adb->host[hl] = 0;
            if (!strcmp(adb->host, "localhost") || !adb->host[0]) snprintf(adb->host, sizeof adb->host, "127.0.0.1");
        }
        if (parse_port(p, &adb->port) < 0) {
            snprintf(err, errlen, "adb: ADB_SERVER_SOCKET=%s has no valid port: use tcp:HOST:PORT", sock);
            return -1;
        }
    } else if (port && *port && parse_port(port, &adb->port) < 0) {
        snprintf(err, errlen, "adb: ANDROID_ADB_SERVER_PORT=%s is not a port number", port);
        return -1;
    }
    return 0;
}

/* Connects once; returns fd, or -1 with errno-based message.  *refused tells "nothing listens". */
static int try_connect(hk_adb *adb, int *refused, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", adb->port);
    *refused = 0;
    int rc = getaddrinfo(adb->host, ps, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "adb: cannot resolve the server host %s: %s", adb->host, gai_strerror(rc));
        return -1;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        if (errno == EINPROGRESS) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            int so = 0;
            socklen_t sl = sizeof so;
            if (poll(&p, 1, adb->timeout_ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) == 0 && so == 0)
                break;
            e = so ? so : ETIMEDOUT;
        } else {
            e = errno;
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        *refused = (e == ECONNREFUSED);
        snprintf(err, errlen, "adb: cannot connect to the adb server at %s:%d: %s", adb->host, adb->port, strerror(e));
        return -1;
    }
    /* back to blocking; every read and write below is guarded by poll */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* Connects to the server (starting it if needed and allowed); returns the fd or -1. */
static int hk_adb_connect(hk_adb *adb, char *err, size_t errlen)
{
    int refused;
    int fd = try_connect(adb, &refused, err, errlen);
    if (fd >= 0 || !refused || !adb->autostart) return fd;
    int local = !strcmp(adb->host, "127.0.0.1") || !strcmp(adb->host, "::1");
    if (!local) return -1; /* a remote server cannot be started from here */
    char serr[1024];
    if (hk_adb_start_server(adb, serr, sizeof serr) != 0) {
        snprintf(err, errlen, "%s", serr);
        return -1;
    }
    /* the server answers as soon as start-server returns, but allow it a moment */
    for (int i = 0; i < 50; i++) {
        fd = try_connect(adb, &refused, err, errlen);
        if (fd >= 0 || !refused) return fd;
        usleep(100 * 1000);
    }
    return -1;
}

/* ---------- framing ---------- */

static int wait_fd(int fd, short ev, int timeout_ms, const char *what, const char *step, char *err, size_t errlen)
{
    struct pollfd p = {.fd = fd, .events = ev};
    for (;;) {
        int r = poll(&p, 1, timeout_ms);
        if (r > 0) return 0;
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) snprintf(err, errlen, "adb: timed out after %d s %s %s", (timeout_ms + 999) / 1000, what, step);
        else snprintf(err, errlen, "adb: poll failed %s %s: %s", what, step, strerror(errno));
        return -1;
    }
}

int hk_adb_write_all(int fd, const void *buf, size_t n, int timeout_ms, const char *step, char *err, size_t errlen)
{
    const char *p = buf;
    while (n > 0) {
        if (wait_fd(fd, POLLOUT, timeout_ms, "while sending", step, err, errlen) != 0) return -1;
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            snprintf(err, errlen, "adb: connection to the server failed while sending %s: %s", step, strerror(errno));
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int hk_adb_send_request(int fd, const char *req, int timeout_ms, char *err, size_t errlen)
{
    size_t n = strlen(req);
    if (n > 0xffff) {
        snprintf(err, errlen, "adb: request too long (%zu bytes): %.60s...", n, req);
        return -1;
    }
    char *msg = hk_xmalloc(n + 5);
    snprintf(msg, n + 5, "%04zx", n);
    memcpy(msg + 4, req, n);
    int rc = hk_adb_write_all(fd, msg, n + 4, timeout_ms, req, err, errlen);
    free(msg);
    return rc;
}

int hk_adb_read_exact(int fd, void *buf, size_t n, const char *step, int timeout_ms, char *err, size_t errlen)
{
    char *p = buf;
    while (n > 0) {
        if (wait_fd(fd, POLLIN, timeout_ms, "while reading", step, err, errlen) != 0) return -1;
        ssize_t r = recv(fd, p, n, 0);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            snprintf(err, errlen, "adb: connection to the server failed while reading %s: %s", step, strerror(errno));
            return -1;
        }
        if (r == 0) {
            snprintf(err, errlen, "adb: server closed the connection while reading %s", step);
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int parse_hex4(const char *h, size_t *out)
{
    size_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = h[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v * 16 + (size_t)d;
    }
    *out = v;
    return 0;
}

const char *hk_adb_word(const void *p, char out[17])
{
    const unsigned char *b = p;
    char *o = out;
    for (int i = 0; i < 4; i++) {
        if (b[i] >= 0x20 && b[i] < 0x7f) *o++ = (char)b[i];
        else o += sprintf(o, "\\x%02x", b[i]);
    }
    *o = 0;
    return out;
}

/* Reads a 4-hex-digit length and that many bytes; *out is malloc'd and NUL-terminated. */
static int hk_adb_read_hex_string(int fd, char **out, size_t *outlen, const char *step, int timeout_ms, char *err,
                                  size_t errlen)
{
    char h[4];
    size_t n;
    *out = NULL;
    if (hk_adb_read_exact(fd, h, 4, step, timeout_ms, err, errlen) != 0) return -1;
    if (parse_hex4(h, &n) != 0) {
        char w[17];
        snprintf(err, errlen, "adb: malformed length '%s' in %s (is that an adb server?)", hk_adb_word(h, w), step);
        return -1;
    }
    char *s = hk_xmalloc(n + 1);
    if (n && hk_adb_read_exact(fd, s, n, step, timeout_ms, err, errlen) != 0) {
        free(s);
        return -1;
    }
    s[n] = 0;
    *out = s;
    if (outlen) *outlen = n;
    return 0;
}

/* Reads OKAY (0) or FAIL+message (-1, message in err). */
static int hk_adb_read_status(int fd, const char *step, int timeout_ms, char *err, size_t errlen)
{
    char st[4];
    if (hk_adb_read_exact(fd, st, 4, step, timeout_ms, err, errlen) != 0) return -1;
    if (!memcmp(st, "OKAY", 4)) return 0;
    if (!memcmp(st, "FAIL", 4)) {
        char *msg = NULL;
        if (hk_adb_read_hex_string(fd, &msg, NULL, step, timeout_ms, err, errlen) != 0) return -1;
        snprintf(err, errlen, "adb: %s", msg);
        free(msg);
        return -1;
    }
    char w[17];
    snprintf(err, errlen, "adb: unexpected status '%s' in %s (is that an adb server?)", hk_adb_word(st, w), step);
    return -1;
}

int hk_adb_read_to_eof(int fd, char **out, size_t *outlen, const char *step, int timeout_ms, char *err, size_t errlen)
{
    size_t cap = 4096, len = 0;
    char *s = hk_xmalloc(cap);
    *out = NULL;
    for (;;) {
        if (wait_fd(fd, POLLIN, timeout_ms, "while reading", step, err, errlen) != 0) {
            free(s);
            return -1;
        }
        if (cap - len < 2048) s = hk_xrealloc(s, cap *= 2);
        ssize_t r = recv(fd, s + len, cap - len - 1, 0);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            snprintf(err, errlen, "adb: connection failed while reading %s: %s", step, strerror(errno));
            free(s);
            return -1;
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    s[len] = 0;
    *out = s;
    if (outlen) *outlen = len;
    return 0;
}

/* ---------- requests ---------- */

int hk_adb_host_query(hk_adb *adb, const char *req, char **out, size_t *outlen, char *err, size_t errlen)
{
    char step[512];
    snprintf(step, sizeof step, "the reply to %.480s", req);
    *out = NULL;
    int fd = hk_adb_connect(adb, err, errlen);
    if (fd < 0) return -1;
    int rc = -1;
    if (hk_adb_send_request(fd, req, adb->timeout_ms, err, errlen) == 0 &&
        hk_adb_read_status(fd, step, adb->timeout_ms, err, errlen) == 0 &&
        hk_adb_read_hex_string(fd, out, outlen, step, adb->timeout_ms, err, errlen) == 0)
        rc = 0;
    close(fd);
    return rc;
}

int hk_adb_server_version(hk_adb *adb, int *version, char *err, size_t errlen)
{
    char *s = NULL;
    size_t n;
    if (hk_adb_host_query(adb, "host:version", &s, NULL, err, errlen) != 0) return -1;
    int ok = strlen(s) == 4 && parse_hex4(s, &n) == 0;
    if (!ok) snprintf(err, errlen, "adb: malformed reply to host:version: '%.20s'", s);
    else *version = (int)n;
    free(s);
    return ok ? 0 : -1;
}

int hk_adb_features(hk_adb *adb, const char *serial, char **out, char *err, size_t errlen)
{
    char req[512];
    if (serial) snprintf(req, sizeof req, "host-serial:%s:features", serial);
    else snprintf(req, sizeof req, "host:features");
    return hk_adb_host_query(adb, req, out, NULL, err, errlen);
}

int hk_adb_has_feature(const char *features, const char *feature)
{
    size_t fl = strlen(feature);
    for (const char *p = features; p && *p;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l == fl && !memcmp(p, feature, fl)) return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

int hk_adb_open_service(hk_adb *adb, const char *serial, const char *service, char *err, size_t errlen)
{
    char req[512], step[600];
    if (serial) snprintf(req, sizeof req, "host:transport:%s", serial);
    else snprintf(req, sizeof req, "host:transport-any");
    int fd = hk_adb_connect(adb, err, errlen);
    if (fd < 0) return -1;
    snprintf(step, sizeof step, "the reply to %s", req);
    if (hk_adb_send_request(fd, req, adb->timeout_ms, err, errlen) != 0 ||
        hk_adb_read_status(fd, step, adb->timeout_ms, err, errlen) != 0)
        goto fail;
    snprintf(step, sizeof step, "the reply to %.500s", service);
    if (hk_adb_send_request(fd, service, adb->timeout_ms, err, errlen) != 0) goto fail;
    char serr[512];
    if (hk_adb_read_status(fd, step, adb->timeout_ms, serr, sizeof serr) != 0) {
        /* the server's FAIL text alone ("closed") does not say what was refused */
        int jdwp = !strncmp(service, "jdwp:", 5);
        snprintf(err, errlen, "adb: cannot open %.200s on %s: %s%s", service, serial ? serial : "the device",
                 serr + (strncmp(serr, "adb: ", 5) ? 0 : 5),
                 jdwp ? " (only a running debuggable process has a JDWP connection)" : "");
        goto fail;
    }
    return fd;
fail:
    close(fd);
    return -1;
}
