/* JDWP wire protocol over a stream fd. One thread, no background reader: every wait reads
 * packets until the one asked for arrives, queueing events and stashing other replies, so a
 * caller may pipeline many commands and collect their replies afterwards. */
#include "jdwp_wire.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#define JDWP_HANDSHAKE "JDWP-Handshake"
#define JDWP_HEADER    11
/* A reply larger than this is a corrupt stream, not data (byte[] reads are chunked well below). */
#define JDWP_MAX_PACKET (256u << 20)

struct jdwp_conn {
    int fd;
    int dead;
    int timeout_ms;
    int last_error;
    uint32_t next_id;
    size_t id_sz[JDWP_ID_KINDS];       /* in the order VirtualMachine.IDSizes replies */
    jdwp_packet *events, *events_tail; /* VM commands (events) in arrival order */
    jdwp_packet *stash;                /* replies read while waiting for another id */
};

static const struct {
    int code;
    const char *name;
} jdwp_errors[] = {
    {0, "NONE"},
    {10, "INVALID_THREAD"},
    {11, "INVALID_THREAD_GROUP"},
    {12, "INVALID_PRIORITY"},
    {13, "THREAD_NOT_SUSPENDED"},
    {14, "THREAD_SUSPENDED"},
    {15, "THREAD_NOT_ALIVE"},
    {20, "INVALID_OBJECT"},
    {21, "INVALID_CLASS"},
    {22, "CLASS_NOT_PREPARED"},
    {23, "INVALID_METHODID"},
    {24, "INVALID_LOCATION"},
    {25, "INVALID_FIELDID"},
    {30, "INVALID_FRAMEID"},
    {31, "NO_MORE_FRAMES"},
    {32, "OPAQUE_FRAME"},
    {33, "NOT_CURRENT_FRAME"},
    {34, "TYPE_MISMATCH"},
    {35, "INVALID_SLOT"},
    {40, "DUPLICATE"},
    {41, "NOT_FOUND"},
    {50, "INVALID_MONITOR"},
    {51, "NOT_MONITOR_OWNER"},
    {52, "INTERRUPT"},
    {60, "INVALID_CLASS_FORMAT"},
    {61, "CIRCULAR_CLASS_DEFINITION"},
    {62, "FAILS_VERIFICATION"},
    {63, "ADD_METHOD_NOT_IMPLEMENTED"},
    {64, "SCHEMA_CHANGE_NOT_IMPLEMENTED"},
    {65, "INVALID_TYPESTATE"},
    {66, "HIERARCHY_CHANGE_NOT_IMPLEMENTED"},
    {67, "DELETE_METHOD_NOT_IMPLEMENTED"},
    {68, "UNSUPPORTED_VERSION"},
    {69, "NAMES_DONT_MATCH"},
    {70, "CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED"},
    {71, "METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED"},
    {72, "CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED"},
    {99, "NOT_IMPLEMENTED"},
    {100, "NULL_POINTER"},
    {101, "ABSENT_INFORMATION"},
    {102, "INVALID_EVENT_TYPE"},
    {103, "ILLEGAL_ARGUMENT"},
    {110, "OUT_OF_MEMORY"},
    {111, "ACCESS_DENIED"},
    {112, "VM_DEAD"},
    {113, "INTERNAL"},
    {115, "UNATTACHED_THREAD"},
    {500, "INVALID_TAG"},
    {502, "ALREADY_INVOKING"},
    {503, "INVALID_INDEX"},
    {504, "INVALID_LENGTH"},
    {506, "INVALID_STRING"},
    {507, "INVALID_CLASS_LOADER"},
    {508, "INVALID_ARRAY"},
    {509, "TRANSPORT_LOAD"},
    {510, "TRANSPORT_INIT"},
    {511, "NATIVE_METHOD"},
    {512, "INVALID_COUNT"},
};

static const char *jdwp_error_name(int code)
{
    for (size_t i = 0; i < sizeof jdwp_errors / sizeof jdwp_errors[0]; i++)
        if (jdwp_errors[i].code == code) return jdwp_errors[i].name;
    return "UNKNOWN_ERROR";
}

static int64_t jdwp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- raw I/O with deadlines ---- */

static int jdwp_io_wait(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - jdwp_now_ms();
        if (left < 0) left = 0;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, (int)left);
        if (r > 0) return 1;
        if (r == 0) return 0;
        if (errno != EINTR) return -1;
    }
}

/* Waits until fd can be read (POLLIN) or written (POLLOUT): 0, or -1 with err and *timed_out
 * telling a timeout from a failed poll. */
static int jdwp_io_ready(int fd, short events, int64_t deadline, int *timed_out, char *err, size_t errlen)
{
    int w = jdwp_io_wait(fd, events, deadline);
    *timed_out = w == 0;
    if (w > 0) return 0;
    if (w == 0) snprintf(err, errlen, "JDWP: timed out %s the VM", events == POLLOUT ? "sending to" : "waiting for");
    else snprintf(err, errlen, "JDWP: poll: %s", strerror(errno));
    return -1;
}

/* Writes all of buf before deadline. MSG_NOSIGNAL: a VM killed mid-fetch must give an error,
 * not a SIGPIPE that kills the host. */
static int jdwp_write_all(int fd, const uint8_t *buf, size_t n, int64_t deadline, char *err, size_t errlen)
{
    int is_sock = 1;
    while (n > 0) {
        int timed_out;
        if (jdwp_io_ready(fd, POLLOUT, deadline, &timed_out, err, errlen) < 0) return -1;
        ssize_t k = is_sock ? send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) : write(fd, buf, n);
        if (k < 0 && is_sock && errno == ENOTSOCK) {
            is_sock = 0;
            continue;
        }
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            snprintf(err, errlen, "JDWP: connection to the VM lost while sending (%s)", strerror(errno));
            return -1;
        }
        buf += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Reads exactly n bytes before deadline. Returns 0, or -1 with err; *timed_out tells the two
 * failures apart (a timeout before the first byte leaves the stream in sync). */
static int jdwp_read_all(int fd, uint8_t *buf, size_t n, int64_t deadline, int *timed_out, char *err, size_t errlen)
{
    *timed_out = 0;
    while (n > 0) {
        if (jdwp_io_ready(fd, POLLIN, deadline, timed_out, err, errlen) < 0) return -1;
        ssize_t k = read(fd, buf, n);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            snprintf(err, errlen, "JDWP: connection to the VM lost (%s)", strerror(errno));
            return -1;
        }
        if (k == 0) {
            snprintf(err, errlen,
                     "JDWP: connection to the VM lost (the process died or closed the debugger connection)");
            return -1;
        }
        buf += k;
        n -= (size_t)k;
    }
    return 0;
}

/* ---- TCP ---- */

int jdwp_tcp_connect(const char *hostport, int timeout_ms, int *fd, char *err, size_t errlen)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host || !colon[1]) {
        snprintf(err, errlen, "bad --jdwp '%s': expected HOST:PORT, e.g. 127.0.0.1:8700", hostport);
        return -1;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = 0;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    int gr = getaddrinfo(host, colon + 1, &hints, &res);
    if (gr != 0) {
        snprintf(err, errlen, "cannot resolve '%s': %s", hostport, gai_strerror(gr));
        return -1;
    }
    int s = -1, saved = 0;
    int64_t start = jdwp_now_ms(), deadline = start + timeout_ms;
    /* A JDK agent listens again only a moment after the previous debugger detached (a GC right
     * before a fetch): retry a refused connection briefly before calling it refused. */
retry:
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        s = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (s < 0) {
            saved = errno;
            continue;
        }
        int r = connect(s, a->ai_addr, a->ai_addrlen);
        if (r < 0 && errno == EINPROGRESS) {
            int w = jdwp_io_wait(s, POLLOUT, deadline);
            int soerr = 0;
            socklen_t sl = sizeof soerr;
            if (w <= 0) soerr = w == 0 ? ETIMEDOUT : errno;
            else getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &sl);
            r = soerr ? -1 : 0;
            errno = soerr;
        }
        if (r == 0) break;
        saved = errno;
        close(s);
        s = -1;
    }
    if (s < 0 && saved == ECONNREFUSED && jdwp_now_ms() - start < 1500 && jdwp_now_ms() < deadline) {
        struct timespec ts = {0, 100 * 1000000};
        nanosleep(&ts, NULL);
        goto retry;
    }
    freeaddrinfo(res);
    if (s < 0) {
        if (saved == ECONNREFUSED)
            snprintf(err, errlen,
                     "connection refused at %s: nothing listens there, or the VM already has "
                     "a debugger attached (a JDWP agent serves one debugger at a time)",
                     hostport);
        else snprintf(err, errlen, "cannot connect to %s: %s", hostport, strerror(saved));
        return -1;
    }
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* Back to blocking reads; writes stay non-blocking per call (MSG_DONTWAIT). */
    int fl = fcntl(s, F_GETFL);
    if (fl >= 0) fcntl(s, F_SETFL, fl & ~O_NONBLOCK);
    *fd = s;
    return 0;
}

/* ---- packets ---- */

void jdwp_packet_free(jdwp_packet *p)
{
    if (!p) return;
    hk_free(p->data);
    hk_free(p);
}

static void jdwp_free_list(jdwp_packet *p)
{
    while (p) {
        jdwp_packet *n = p->next;
        jdwp_packet_free(p);
        p = n;
    }
}

static uint32_t jdwp_be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Reads one packet. Returns 1 = packet, 0 = timeout with the stream still in sync, -1 = dead. */
static int jdwp_read_packet(jdwp_conn *c, int64_t deadline, jdwp_packet **out, char *err, size_t errlen)
{
    uint8_t h[JDWP_HEADER];
    int to;
    if (jdwp_read_all(c->fd, h, 1, deadline, &to, err, errlen) < 0) {
        if (to) return 0;
        c->dead = 1;
        return -1;
    }
    /* Once a packet started, the rest must come; a generous grace keeps a slow link working. */
    int64_t rest = deadline > jdwp_now_ms() + 30000 ? deadline : jdwp_now_ms() + 30000;
    if (jdwp_read_all(c->fd, h + 1, JDWP_HEADER - 1, rest, &to, err, errlen) < 0) {
        c->dead = 1;
        return -1;
    }
    uint32_t len = jdwp_be32(h);
    if (len < JDWP_HEADER || len > JDWP_MAX_PACKET) {
        snprintf(err, errlen, "JDWP: corrupt packet from the VM (length %u)", len);
        c->dead = 1;
        return -1;
    }
    jdwp_packet *p = hk_alloc(sizeof *p);
    p->id = jdwp_be32(h + 4);
    p->is_reply = (h[8] & 0x80) != 0;
    if (p->is_reply) p->error = (uint16_t)(h[9] << 8 | h[10]);
    else {
        p->cmdset = h[9];
        p->cmd = h[10];
    }
    p->len = len - JDWP_HEADER;
    if (p->len) {
        p->data = hk_alloc(p->len);
        if (jdwp_read_all(c->fd, p->data, p->len, rest + (int64_t)(p->len >> 14), &to, err, errlen) < 0) {
            jdwp_packet_free(p);
            c->dead = 1;
            return -1;
        }
    }
    *out = p;
    return 1;
}

static void jdwp_queue_event(jdwp_conn *c, jdwp_packet *p)
{
    p->next = NULL;
    if (c->events_tail) c->events_tail->next = p;
    else c->events = p;
    c->events_tail = p;
}

int jdwp_send(jdwp_conn *c, uint8_t cmdset, uint8_t cmd, const jdwp_out *o, uint32_t *id, char *err, size_t errlen)
{
    if (c->dead) {
        snprintf(err, errlen, "JDWP: connection to the VM is closed");
        return -1;
    }
    size_t dlen = o ? o->len : 0;
    /* Header and data in one write: two small writes meet Nagle and the peer's delayed ACK and
     * cost 40 ms per round trip. */
    uint8_t small[256], *h = JDWP_HEADER + dlen <= sizeof small ? small : hk_alloc(JDWP_HEADER + dlen);
    uint32_t len = (uint32_t)(JDWP_HEADER + dlen), pid = c->next_id++;
    h[0] = len >> 24;
    h[1] = len >> 16;
    h[2] = len >> 8;
    h[3] = len;
    h[4] = pid >> 24;
    h[5] = pid >> 16;
    h[6] = pid >> 8;
    h[7] = pid;
    h[8] = 0;
    h[9] = cmdset;
    h[10] = cmd;
    if (dlen) memcpy(h + JDWP_HEADER, o->p, dlen);
    int64_t deadline = jdwp_now_ms() + c->timeout_ms;
    int rc = jdwp_write_all(c->fd, h, len, deadline, err, errlen);
    if (h != small) hk_free(h);
    if (rc < 0) {
        c->dead = 1;
        return -1;
    }
    if (id) *id = pid;
    return 0;
}

int jdwp_wait_reply(jdwp_conn *c, uint32_t id, int timeout_ms, const char *what, jdwp_packet **reply, char *err,
                    size_t errlen)
{
    *reply = NULL;
    c->last_error = 0;
    jdwp_packet *p = NULL;
    for (jdwp_packet **pp = &c->stash; *pp; pp = &(*pp)->next)
        if ((*pp)->id == id) {
            p = *pp;
            *pp = p->next;
            break;
        }
    int64_t deadline = jdwp_now_ms() + (timeout_ms < 0 ? c->timeout_ms : timeout_ms);
    while (!p) {
        if (c->dead) {
            snprintf(err, errlen, "%s: connection to the VM is closed", what);
            return -1;
        }
        jdwp_packet *q;
        char e[200];
        int r = jdwp_read_packet(c, deadline, &q, e, sizeof e);
        if (r == 0) {
            /* The reply may still come and would then be stashed forever; harmless and rare. */
            c->last_error = JDWP_ERR_TIMEOUT;
            snprintf(err, errlen, "%s: the VM did not answer within %d ms", what,
                     timeout_ms < 0 ? c->timeout_ms : timeout_ms);
            return -1;
        }
        if (r < 0) {
            snprintf(err, errlen, "%s: %s", what, e);
            return -1;
        }
        if (!q->is_reply) jdwp_queue_event(c, q);
        else if (q->id == id) p = q;
        else {
            q->next = c->stash;
            c->stash = q;
        }
    }
    p->next = NULL;
    c->last_error = p->error;
    if (p->error) {
        snprintf(err, errlen, "%s: %s (JDWP error %d)", what, jdwp_error_name(p->error), p->error);
        if (p->error == JDWP_ERR_VM_DEAD) c->dead = 1;
        jdwp_packet_free(p);
        return -1;
    }
    *reply = p;
    return 0;
}

static int jdwp_call_inner(jdwp_conn *c, uint8_t cmdset, uint8_t cmd, const jdwp_out *o, int timeout_ms,
                           const char *what, jdwp_packet **reply, char *err, size_t errlen)
{
    uint32_t id;
    *reply = NULL;
    if (jdwp_send(c, cmdset, cmd, o, &id, err, errlen) < 0) {
        char e[200];
        snprintf(e, sizeof e, "%s", err);
        snprintf(err, errlen, "%s: %s", what, e);
        return -1;
    }
    return jdwp_wait_reply(c, id, timeout_ms, what, reply, err, errlen);
}

int jdwp_call(jdwp_conn *c, uint8_t cmdset, uint8_t cmd, const jdwp_out *o, int timeout_ms, const char *what,
              jdwp_packet **reply, char *err, size_t errlen)
{
    /* HK_JDWP_TRACE=1: one line per round trip on stderr, to see where the time goes. */
    static int trace = -1;
    if (trace < 0) trace = getenv("HK_JDWP_TRACE") && *getenv("HK_JDWP_TRACE") == '1';
    if (!trace) return jdwp_call_inner(c, cmdset, cmd, o, timeout_ms, what, reply, err, errlen);
    int64_t t0 = jdwp_now_ms();
    int rc = jdwp_call_inner(c, cmdset, cmd, o, timeout_ms, what, reply, err, errlen);
    fprintf(stderr, "jdwp-trace: %-36s %5lld ms%s\n", what, (long long)(jdwp_now_ms() - t0), rc < 0 ? " (failed)" : "");
    return rc;
}

int jdwp_next_event(jdwp_conn *c, int timeout_ms, jdwp_packet **ev, char *err, size_t errlen)
{
    *ev = NULL;
    int64_t deadline = jdwp_now_ms() + timeout_ms;
    while (!c->events) {
        if (c->dead) {
            snprintf(err, errlen, "JDWP: connection to the VM is closed");
            return -1;
        }
        jdwp_packet *q;
        int r = jdwp_read_packet(c, deadline, &q, err, errlen);
        if (r == 0) return 0;
        if (r < 0) return -1;
        if (q->is_reply) {
            q->next = c->stash;
            c->stash = q;
        } else jdwp_queue_event(c, q);
    }
    *ev = c->events;
    c->events = (*ev)->next;
    if (!c->events) c->events_tail = NULL;
    (*ev)->next = NULL;
    return 1;
}

/* ---- connection ---- */

/* Up to n received bytes for a message: printable ASCII as is, anything else as \xNN. */
static void jdwp_show_bytes(const uint8_t *b, size_t n, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < outlen; i++)
        o += (size_t)(b[i] >= 0x20 && b[i] < 0x7f && b[i] != '"' ? snprintf(out + o, outlen - o, "%c", b[i])
                                                                 : snprintf(out + o, outlen - o, "\\x%02x", b[i]));
    out[o] = 0;
}

/* Reads the peer's answer to our handshake into buf until it is whole, differs, closes or the
 * deadline passes; returns the bytes read, *closed set when the peer closed. */
static size_t jdwp_handshake_read(int fd, uint8_t *buf, size_t n, int64_t deadline, int *closed)
{
    size_t got = 0;
    *closed = 0;
    while (got < n && !memcmp(buf, JDWP_HANDSHAKE, got)) {
        if (jdwp_io_wait(fd, POLLIN, deadline) <= 0) break;
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) {
            *closed = 1;
            break;
        }
        got += (size_t)k;
    }
    return got;
}

/* Sends "JDWP-Handshake" and expects it back. What comes instead tells the causes apart: a close
 * before any byte is how ART's adbconnection turns away a second debugger (and how a process
 * that is not debuggable ends the stream); other bytes mean the other end is no JDWP agent;
 * silence is a VM that does not answer. */
static int jdwp_handshake(int fd, int timeout_ms, char *err, size_t errlen)
{
    int64_t deadline = jdwp_now_ms() + timeout_ms;
    uint8_t buf[sizeof JDWP_HANDSHAKE - 1];
    char e[200];
    int closed = 1;
    size_t got = 0;
    if (jdwp_write_all(fd, (const uint8_t *)JDWP_HANDSHAKE, sizeof buf, deadline, e, sizeof e) == 0)
        got = jdwp_handshake_read(fd, buf, sizeof buf, deadline, &closed);
    if (got == sizeof buf && !memcmp(buf, JDWP_HANDSHAKE, got)) return 0;
    if (got > 0) {
        char shown[4 * sizeof buf + 1];
        jdwp_show_bytes(buf, got, shown, sizeof shown);
        snprintf(err, errlen,
                 "JDWP handshake failed: the app's JDWP port answered \"%s\"%s instead of the JDWP "
                 "handshake: that is not a Java debugger agent (check the port or process)",
                 shown, closed ? " and closed" : "");
    } else if (closed)
        snprintf(err, errlen,
                 "JDWP handshake failed: the app closed the debugger connection without a word: "
                 "another debugger is attached or the process is not debuggable (close Android "
                 "Studio's debugger, use a debuggable build)");
    else
        snprintf(err, errlen,
                 "JDWP handshake failed: the app's JDWP port did not answer in %d s (the VM is "
                 "stopped or busy, or that is not a Java debugger agent)",
                 timeout_ms / 1000);
    return -1;
}

int jdwp_conn_open(jdwp_conn **out, int fd, int timeout_ms, char *err, size_t errlen)
{
    *out = NULL;
    if (jdwp_handshake(fd, timeout_ms, err, errlen) < 0) {
        close(fd);
        return -1;
    }
    jdwp_conn *c = hk_alloc(sizeof *c);
    c->fd = fd;
    c->timeout_ms = timeout_ms;
    c->next_id = 1;
    for (int k = 0; k < JDWP_ID_KINDS; k++) c->id_sz[k] = 8;
    jdwp_packet *r;
    if (jdwp_call(c, JDWP_VM, JDWP_VM_IDSIZES, NULL, -1, "VirtualMachine.IDSizes", &r, err, errlen) < 0) {
        jdwp_conn_close(c);
        return -1;
    }
    jdwp_in in;
    jdwp_in_init(&in, r);
    int bad = 0;
    for (int k = 0; k < JDWP_ID_KINDS; k++) {
        c->id_sz[k] = jdwp_in_u32(&in);
        bad |= c->id_sz[k] < 1 || c->id_sz[k] > 8;
    }
    jdwp_packet_free(r);
    if (in.bad || bad) {
        snprintf(err, errlen, "VirtualMachine.IDSizes: unsupported id sizes from the VM");
        jdwp_conn_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

void jdwp_conn_close(jdwp_conn *c)
{
    if (!c) return;
    if (!c->dead) {
        /* Resume undoes our suspend-all event; Dispose also resumes and cancels requests. Short
         * bounded waits: a VM that does not answer is left to the socket close. */
        char e[200];
        int saved = c->timeout_ms;
        c->timeout_ms = 2000;
        jdwp_packet *r = NULL;
        if (jdwp_call(c, JDWP_VM, JDWP_VM_RESUME, NULL, 2000, "VirtualMachine.Resume", &r, e, sizeof e) == 0)
            jdwp_packet_free(r);
        if (!c->dead &&
            jdwp_call(c, JDWP_VM, JDWP_VM_DISPOSE, NULL, 2000, "VirtualMachine.Dispose", &r, e, sizeof e) == 0)
            jdwp_packet_free(r);
        c->timeout_ms = saved;
    }
    close(c->fd);
    jdwp_free_list(c->events);
    jdwp_free_list(c->stash);
    hk_free(c);
}

int jdwp_conn_dead(const jdwp_conn *c)
{
    return c->dead;
}
int jdwp_conn_timeout(const jdwp_conn *c)
{
    return c->timeout_ms;
}
size_t jdwp_id_size(const jdwp_conn *c, jdwp_id_kind k)
{
    return c->id_sz[k];
}
int jdwp_last_error(const jdwp_conn *c)
{
    return c->last_error;
}

/* ---- building command data ---- */

static void jdwp_out_put(jdwp_out *o, const void *b, size_t n)
{
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        while (cap < o->len + n) cap *= 2;
        o->p = hk_realloc(o->p, cap);
        o->cap = cap;
    }
    memcpy(o->p + o->len, b, n);
    o->len += n;
}

void jdwp_out_free(jdwp_out *o)
{
    hk_free(o->p);
    memset(o, 0, sizeof *o);
}

void jdwp_out_u8(jdwp_out *o, uint8_t v)
{
    jdwp_out_put(o, &v, 1);
}
void jdwp_out_u32(jdwp_out *o, uint32_t v)
{
    jdwp_out_id(o, 4, v);
}

void jdwp_out_id(jdwp_out *o, size_t size, uint64_t v)
{
    uint8_t b[8];
    for (size_t i = 0; i < size; i++) b[i] = (uint8_t)(v >> (8 * (size - 1 - i)));
    jdwp_out_put(o, b, size);
}

void jdwp_out_str(jdwp_out *o, const char *s)
{
    size_t n = strlen(s);
    jdwp_out_u32(o, (uint32_t)n);
    jdwp_out_put(o, s, n);
}

/* Size in bytes of a value with this tag (0 for void, object ids for reference tags). */
static size_t jdwp_tag_size(const jdwp_conn *c, uint8_t tag)
{
    switch (tag) {
    case 'B':
    case 'Z': return 1;
    case 'C':
    case 'S': return 2;
    case 'I':
    case 'F': return 4;
    case 'J':
    case 'D': return 8;
    case 'V': return 0;
    default: return c->id_sz[JDWP_ID_OBJECT]; /* L s t g l c [ */
    }
}

void jdwp_out_value(jdwp_out *o, const jdwp_conn *c, jdwp_value v)
{
    jdwp_out_u8(o, v.tag);
    jdwp_out_id(o, jdwp_tag_size(c, v.tag), v.v);
}

/* ---- reading reply data ---- */

void jdwp_in_init(jdwp_in *in, const jdwp_packet *p)
{
    in->p = p ? p->data : NULL;
    in->len = p ? p->len : 0;
    in->pos = 0;
    in->bad = 0;
}

const uint8_t *jdwp_in_bytes(jdwp_in *in, size_t n)
{
    if (in->bad || n > in->len - in->pos) {
        in->bad = 1;
        return NULL;
    }
    const uint8_t *b = in->p + in->pos;
    in->pos += n;
    return b;
}

uint64_t jdwp_in_id(jdwp_in *in, size_t size)
{
    const uint8_t *b = jdwp_in_bytes(in, size);
    uint64_t v = 0;
    if (!b) return 0;
    for (size_t i = 0; i < size; i++) v = v << 8 | b[i];
    return v;
}

uint8_t jdwp_in_u8(jdwp_in *in)
{
    return (uint8_t)jdwp_in_id(in, 1);
}
uint32_t jdwp_in_u32(jdwp_in *in)
{
    return (uint32_t)jdwp_in_id(in, 4);
}
uint64_t jdwp_in_u64(jdwp_in *in)
{
    return jdwp_in_id(in, 8);
}

char *jdwp_in_str(jdwp_in *in)
{
    uint32_t n = jdwp_in_u32(in);
    const uint8_t *b = jdwp_in_bytes(in, n);
    if (!b) return NULL;
    char *s = hk_alloc((size_t)n + 1);
    memcpy(s, b, n);
    s[n] = 0;
    return s;
}

void jdwp_in_skip_str(jdwp_in *in)
{
    uint32_t n = jdwp_in_u32(in);
    jdwp_in_bytes(in, n);
}

static jdwp_value jdwp_in_untagged(jdwp_in *in, const jdwp_conn *c, uint8_t tag)
{
    jdwp_value v = {.tag = tag};
    v.v = jdwp_in_id(in, jdwp_tag_size(c, tag));
    return v;
}

jdwp_value jdwp_in_value(jdwp_in *in, const jdwp_conn *c)
{
    uint8_t tag = jdwp_in_u8(in);
    return jdwp_in_untagged(in, c, tag);
}
