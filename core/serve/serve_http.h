/*
 * The explorer's HTTP side on libmicrohttpd: listening sockets, the security checks every
 * request passes (token then cookie, Host, cross-origin POST), the built-in assets, and one
 * callback for everything under /api/.  It knows no Lua: serve_api.c answers the API.
 */
#ifndef HK_SERVE_HTTP_H
#define HK_SERVE_HTTP_H

#include "util/hk_buf.h"

#include <stddef.h>

/* One query-string parameter of a request. */
typedef struct sv_param {
    const char *key, *value;
} sv_param;

typedef struct sv_request {
    const char *method; /* "GET", "POST" */
    const char *path;   /* after "/api/": "query/histogram" */
    const sv_param *params;
    int nparams;
    const char *body; /* a POST's body (NUL-terminated), else "" */
    size_t body_len;
} sv_request;

/* What the API callback fills: status, content type (static text) and the body. */
typedef struct sv_reply {
    int status;
    const char *type;
    hk_buf body;
    int cached; /* answered from memory: X-Hprofkit-Cached: 1 */
} sv_reply;

typedef void (*sv_api_fn)(void *ctx, const sv_request *rq, sv_reply *rp);

/* A file the server hands out at a fixed path; nothing else of the file system is reachable. */
typedef struct sv_asset {
    const char *path; /* "/", "/ui.js" */
    const char *type;
    hk_buf data;
} sv_asset;

#define SV_MAX_HOSTS 16

typedef struct sv_options {
    const char *bind; /* NULL: 127.0.0.1 and ::1 */
    int port;         /* 0: a free one */
    const char *allow_hosts[SV_MAX_HOSTS];
    int nallow;
    const sv_asset *assets;
    int nassets;
    sv_api_fn api;
    void *api_ctx;
} sv_options;

typedef struct sv_server sv_server;

/* Binds and starts serving; NULL with err and *status (2: the port is taken or the address
 * cannot be bound, 1: the server could not start). */
sv_server *sv_start(const sv_options *o, int *status, char *err, size_t errlen);
/* Can the address be bound?  Said before the index is built, so a taken port costs no wait;
 * 0, or -1 with err. */
int sv_probe(const sv_options *o, char *err, size_t errlen);
int sv_port(const sv_server *s);
const char *sv_token(const sv_server *s);
/* The address to print: "127.0.0.1" or the one bound. */
const char *sv_host(const sv_server *s);
/* Stops accepting, waits for the requests in flight, frees. */
void sv_stop(sv_server *s);

/* The checks, apart so that the tests can name them (serve_guard.c). */
/* Host header: the bound address, localhost, 127.0.0.1, [::1] or an --allow-host name,
 * with our port or none. */
int sv_host_allowed(const char *host, int port, const char *bind, const char *const *allow, int nallow);
/* A POST's Origin (NULL: none sent) must be http://HOST of an allowed host. */
int sv_origin_allowed(const char *origin, int port, const char *bind, const char *const *allow, int nallow);
/* Constant-time comparison of a presented token with the run's. */
int sv_token_equal(const char *given, const char *token);

#endif
