/* Who may talk to the explorer: the Host a request names (DNS rebinding), the Origin of a POST
 * (a page elsewhere posting to us), the run's token. */
#include "serve/serve_http.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Splits "name", "name:port", "[v6]", "[v6]:port" into name (without brackets) and port
 * (-1: none); 0 when it is none of those. */
static int split_host(const char *host, char *name, size_t n, long *port)
{
    const char *end, *colon;
    *port = -1;
    if (host[0] == '[') {
        end = strchr(host, ']');
        if (!end) return 0;
        host++;
        colon = end[1] == ':' ? end + 1 : NULL;
        if (end[1] && !colon) return 0;
    } else {
        colon = strchr(host, ':');
        if (colon && strchr(colon + 1, ':')) return 0; /* a bare v6 address is not a Host */
        end = colon ? colon : host + strlen(host);
    }
    if ((size_t)(end - host) >= n || end == host) return 0;
    memcpy(name, host, (size_t)(end - host));
    name[end - host] = 0;
    if (colon) {
        char *stop;
        *port = strtol(colon + 1, &stop, 10);
        if (stop == colon + 1 || *stop || *port <= 0 || *port > 65535) return 0;
    }
    return 1;
}

static int name_allowed(const char *name, const char *bind, const char *const *allow, int nallow)
{
    if (!strcasecmp(name, "localhost") || !strcmp(name, "127.0.0.1") || !strcmp(name, "::1")) return 1;
    if (bind && !strcasecmp(name, bind)) return 1;
    for (int i = 0; i < nallow; i++)
        if (!strcasecmp(name, allow[i])) return 1;
    return 0;
}

int sv_host_allowed(const char *host, int port, const char *bind, const char *const *allow, int nallow)
{
    char name[256];
    long p;
    if (!host || !split_host(host, name, sizeof name, &p)) return 0;
    if (p != -1 && p != port) return 0;
    return name_allowed(name, bind, allow, nallow);
}

int sv_origin_allowed(const char *origin, int port, const char *bind, const char *const *allow, int nallow)
{
    if (!origin) return 1; /* not a browser's cross-origin request: the token still guards it */
    if (strncmp(origin, "http://", 7)) return 0;
    char name[256];
    long p;
    if (!split_host(origin + 7, name, sizeof name, &p)) return 0;
    if ((p == -1 ? 80 : p) != port) return 0;
    return name_allowed(name, bind, allow, nallow);
}

int sv_token_equal(const char *given, const char *token)
{
    if (!given) return 0;
    size_t n = strlen(token);
    if (strlen(given) != n) return 0;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++) diff |= (unsigned char)(given[i] ^ token[i]);
    return diff == 0;
}
