/* The explorer's HTTP server: sockets bound here (so a taken port is one clear line), requests
 * checked (serve_guard.c) and answered from the asset table or the API callback.  One thread
 * per connection: a request waiting for the Lua state never holds up the page's files. */
#include "serve/serve_http.h"
#include "util/hk_mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_BODY     (1 << 20)
#define MAX_PARAMS   64
#define REPLY_COOKIE 1 /* hand the token's cookie over */
#define REPLY_CACHED 2

struct sv_server {
    struct MHD_Daemon *d[2];
    int nd, port;
    char token[33], host[80], cookie[48];
    sv_options o;
};

/* A request's state between libmicrohttpd's calls: the POST body as it arrives. */
typedef struct conn {
    hk_buf body;
    int too_big;
} conn;

static int bind_socket(const char *addr, int port, int *fd, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_PASSIVE, .ai_socktype = SOCK_STREAM}, *ai;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int rc = getaddrinfo(addr, ps, &hints, &ai);
    if (rc) {
        snprintf(err, errlen, "--bind %s: not a numeric IPv4 or IPv6 address (%s)", addr, gai_strerror(rc));
        return -1;
    }
    *fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (*fd >= 0) setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (*fd >= 0 && ai->ai_family == AF_INET6) setsockopt(*fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (*fd < 0 || bind(*fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(*fd, 64) < 0) {
        int e = errno;
        if (*fd >= 0) close(*fd);
        freeaddrinfo(ai);
        if (e == EADDRINUSE) snprintf(err, errlen, "port %d on %s is in use (--port N picks another)", port, addr);
        else snprintf(err, errlen, "cannot listen on %s port %d: %s", addr, port, strerror(e));
        return -1;
    }
    freeaddrinfo(ai);
    return 0;
}

static int bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t n = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &n) < 0) return -1;
    return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                          : ((struct sockaddr_in *)&ss)->sin_port);
}

static enum MHD_Result send_reply(struct MHD_Connection *c, const sv_server *s, int status, const char *type,
                                  const void *data, size_t len, int flags)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY);
    if (flags & REPLY_CACHED) MHD_add_response_header(r, "X-Hprofkit-Cached", "1");
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                            "frame-ancestors 'none'");
    if (flags & REPLY_COOKIE) {
        char v[160];
        snprintf(v, sizeof v, "%s=%s; HttpOnly; SameSite=Strict; Path=/", s->cookie, s->token);
        MHD_add_response_header(r, "Set-Cookie", v);
    }
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result send_text(struct MHD_Connection *c, const sv_server *s, int status, const char *msg)
{
    return send_reply(c, s, status, "text/plain; charset=utf-8", msg, strlen(msg), 0);
}

typedef struct params {
    sv_param p[MAX_PARAMS];
    int n;
    const char *token;
} params;

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    params *ps = cls;
    if (!strcmp(key, "token")) ps->token = value;
    else if (ps->n < MAX_PARAMS) ps->p[ps->n++] = (sv_param){key, value ? value : ""};
    return MHD_YES;
}

/* The token: ?token= (the link printed at start), the cookie set then, or a bearer header. */
static const char *presented_token(struct MHD_Connection *c, const sv_server *s, const params *ps)
{
    if (ps->token) return ps->token;
    const char *v = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, s->cookie);
    if (v) return v;
    v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    return v && !strncmp(v, "Bearer ", 7) ? v + 7 : NULL;
}

/* 0: the request may go on; else the status it was refused with (already queued). */
static int refuse(struct MHD_Connection *c, const sv_server *s, const char *method, const params *ps,
                  enum MHD_Result *rc)
{
    const sv_options *o = &s->o;
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    const char *why = NULL;
    if (!sv_host_allowed(host, s->port, o->bind, o->allow_hosts, o->nallow))
        why = "403 Host not allowed: open the address hprofkit serve printed (or give --allow-host NAME)\n";
    else if (!sv_token_equal(presented_token(c, s, ps), s->token))
        why = "403 no valid token: open the address hprofkit serve printed, with its ?token=\n";
    else if (strcmp(method, "GET") && strcmp(method, "HEAD") &&
             !sv_origin_allowed(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"), s->port, o->bind,
                                o->allow_hosts, o->nallow))
        why = "403 cross-origin request refused\n";
    if (!why) return 0;
    *rc = send_text(c, s, 403, why);
    return 403;
}

static enum MHD_Result answer(struct MHD_Connection *c, sv_server *s, const char *url, const char *method, conn *st,
                              params *ps)
{
    int fresh = ps->token != NULL; /* came with ?token=: hand the cookie over */
    if (!strncmp(url, "/api/", 5)) {
        sv_request rq = {method, url + 5, ps->p, ps->n, st->body.data ? (const char *)st->body.data : "", st->body.len};
        sv_reply rp = {500, "application/json", {0}, 0};
        hk_buf_init(&rp.body);
        s->o.api(s->o.api_ctx, &rq, &rp);
        enum MHD_Result rc = send_reply(c, s, rp.status, rp.type, rp.body.data, rp.body.len,
                                        (fresh ? REPLY_COOKIE : 0) | (rp.cached ? REPLY_CACHED : 0));
        hk_buf_free(&rp.body);
        return rc;
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) return send_text(c, s, 405, "405 only GET here\n");
    for (int i = 0; i < s->o.nassets; i++) {
        const sv_asset *a = &s->o.assets[i];
        if (!strcmp(url, a->path))
            return send_reply(c, s, 200, a->type, a->data.data, a->data.len, fresh ? REPLY_COOKIE : 0);
    }
    return send_text(c, s, 404, "404 no such page: the explorer's pages are under / (see /#/)\n");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    sv_server *s = cls;
    conn *st = *con_cls;
    if (!st) {
        st = hk_xcalloc(1, sizeof *st);
        hk_buf_init(&st->body);
        *con_cls = st;
        return MHD_YES;
    }
    if (*upload_size) {
        if (st->body.len + *upload_size > MAX_BODY) st->too_big = 1;
        else hk_buf_append(&st->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    hk_buf_putc(&st->body, 0);
    st->body.len--;
    params ps = {.n = 0};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect, &ps);
    enum MHD_Result rc;
    if (refuse(c, s, method, &ps, &rc)) return rc;
    if (st->too_big) return send_text(c, s, 413, "413 the request body is over 1 MiB\n");
    return answer(c, s, url, method, st, &ps);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    conn *st = *con_cls;
    if (!st) return;
    hk_buf_free(&st->body);
    free(st);
    *con_cls = NULL;
}

static int start_on(sv_server *s, int fd, int v6, char *err, size_t errlen)
{
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | (v6 ? MHD_USE_IPv6 : 0);
    struct MHD_Daemon *d = MHD_start_daemon(flags, 0, NULL, NULL, handle, s, MHD_OPTION_LISTEN_SOCKET, fd,
                                            MHD_OPTION_NOTIFY_COMPLETED, completed, s, MHD_OPTION_CONNECTION_TIMEOUT,
                                            (unsigned)60, MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_END);
    if (!d) {
        close(fd);
        snprintf(err, errlen, "the HTTP server (libmicrohttpd) did not start");
        return -1;
    }
    s->d[s->nd++] = d;
    return 0;
}

static void make_token(sv_server *s)
{
    unsigned char raw[16];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n > 0) got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++) snprintf(s->token + 2 * i, 3, "%02x", raw[i]);
}

sv_server *sv_start(const sv_options *o, int *status, char *err, size_t errlen)
{
    sv_server *s = hk_xcalloc(1, sizeof *s);
    s->o = *o;
    make_token(s);
    int fd4, fd6 = -1;
    *status = 2;
    if (bind_socket(o->bind ? o->bind : "127.0.0.1", o->port, &fd4, err, errlen) < 0) goto fail;
    s->port = bound_port(fd4);
    if (!o->bind && bind_socket("::1", s->port, &fd6, err, errlen) < 0) fd6 = -1; /* no IPv6 loopback: v4 alone */
    snprintf(s->host, sizeof s->host, strchr(o->bind ? o->bind : "", ':') ? "[%s]" : "%s",
             o->bind ? o->bind : "127.0.0.1");
    snprintf(s->cookie, sizeof s->cookie, "hprofkit_token_%d", s->port);
    *status = 1;
    if (start_on(s, fd4, o->bind && strchr(o->bind, ':'), err, errlen) < 0) {
        if (fd6 >= 0) close(fd6);
        goto fail;
    }
    if (fd6 >= 0 && start_on(s, fd6, 1, err, errlen) < 0) goto fail;
    return s;
fail:
    sv_stop(s);
    return NULL;
}

int sv_probe(const sv_options *o, char *err, size_t errlen)
{
    int fd;
    if (bind_socket(o->bind ? o->bind : "127.0.0.1", o->port, &fd, err, errlen) < 0) return -1;
    close(fd);
    return 0;
}

int sv_port(const sv_server *s)
{
    return s->port;
}

const char *sv_token(const sv_server *s)
{
    return s->token;
}

const char *sv_host(const sv_server *s)
{
    return s->host;
}

void sv_stop(sv_server *s)
{
    if (!s) return;
    for (int i = 0; i < s->nd; i++) MHD_stop_daemon(s->d[i]);
    free(s);
}
