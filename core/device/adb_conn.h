/* The connection to the adb server: where it is, starting it when nothing listens, and the
 * framing of the host protocol (4-hex-digit length + payload, OKAY/FAIL).  Every read has a
 * timeout and names the step it belongs to, so a server that goes away mid-reply is reported
 * as "adb: server closed the connection while reading the reply to host:transport:X". */
#ifndef HK_ADB_CONN_H
#define HK_ADB_CONN_H

#include <stddef.h>

#define HK_ADB_DEFAULT_PORT 5037
#define HK_ADB_TIMEOUT_MS   10000

typedef struct hk_adb {
    char host[256];      /* server host (127.0.0.1 unless ADB_SERVER_SOCKET says otherwise) */
    int port;            /* server port */
    int timeout_ms;      /* per read; HK_ADB_TIMEOUT_MS by default */
    int autostart;       /* start the server with the adb binary when nothing listens (default 1) */
    int started;         /* set when this client started the server */
    char adb_path[1024]; /* the adb binary used to start the server, when it was needed */
} hk_adb;

/* Fills *adb from ADB_SERVER_SOCKET (tcp:HOST:PORT), ANDROID_ADB_SERVER_PORT, or 127.0.0.1:5037. */
int hk_adb_init(hk_adb *adb, char *err, size_t errlen);

/* Runs `adb -P PORT start-server` and waits (bounded) for it. */
int hk_adb_start_server(hk_adb *adb, char *err, size_t errlen);

/* --- framing; `step` names what is being read, for error messages --- */
/* Reads exactly n bytes, waiting at most timeout_ms for each chunk. */
int hk_adb_read_exact(int fd, void *buf, size_t n, const char *step, int timeout_ms, char *err, size_t errlen);
/* The 4 bytes of a protocol word as text for a message: printable ASCII as it is, any other byte
 * as \xNN (a device that answers noise must not put control bytes on the terminal). */
const char *hk_adb_word(const void *p, char out[17]);
/* Reads until the peer closes; *out is malloc'd and NUL-terminated. */
int hk_adb_read_to_eof(int fd, char **out, size_t *outlen, const char *step, int timeout_ms, char *err, size_t errlen);

/* --- requests --- */
/* Sends a host request that answers OKAY + hex-length string (host:devices-l, host:features...). */
int hk_adb_host_query(hk_adb *adb, const char *req, char **out, size_t *outlen, char *err, size_t errlen);
/* host:version: the server's protocol version number. */
int hk_adb_server_version(hk_adb *adb, int *version, char *err, size_t errlen);
/* The device's feature list (comma-separated), via host-serial:SERIAL:features (or host:features
 * when serial is NULL). */
int hk_adb_features(hk_adb *adb, const char *serial, char **out, char *err, size_t errlen);
/* 1 when the comma-separated list contains the feature. */
int hk_adb_has_feature(const char *features, const char *feature);
/* Switches a new connection to the device (host:transport:SERIAL, or host:transport-any when
 * serial is NULL) and opens `service` (shell:..., sync:, jdwp:PID, tcp:PORT...).  Returns a
 * connected fd carrying the service's raw byte stream, or -1. */
int hk_adb_open_service(hk_adb *adb, const char *serial, const char *service, char *err, size_t errlen);

/* Writes all n bytes, waiting at most timeout_ms for the socket to accept each chunk. */
int hk_adb_write_all(int fd, const void *buf, size_t n, int timeout_ms, const char *step, char *err, size_t errlen);

#endif
