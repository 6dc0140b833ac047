/* The framing of perfetto.protos.Trace: every TracePacket in order, with the packets of
 * compressed blocks (zlib compressed_packets, zstd_compressed_packets) expanded where they
 * stand.  Both the heap-graph reader and the native-profile reader walk a trace this way. */
#include "trace/trace.h"
#include "util/hk_mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

enum { F_COMPRESSED = 50, F_ZSTD = 133 };

static void walk_warn(hk_trace_walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void walk_warn(hk_trace_walk *w, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    w->warnings++;
    if (w->warn) w->warn(w->ctx, msg);
}

int hk_pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (int s = 0; s < 64 && *p < end; s += 7) {
        uint8_t b = *(*p)++;
        r |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* The next field of a message at *p: its number, wire type and, for a length-delimited one, its
 * bytes.  0, or -1 when the message is cut or malformed there. */
int hk_pb_field(const uint8_t **p, const uint8_t *end, uint32_t *num, int *wt, const uint8_t **val, size_t *len)
{
    uint64_t key, v;
    if (hk_pb_varint(p, end, &key) < 0) return -1;
    *num = (uint32_t)(key >> 3);
    *wt = (int)(key & 7);
    *val = *p;
    *len = 0;
    switch (*wt) {
    case 0: return hk_pb_varint(p, end, &v);
    case 1:
    case 5: {
        size_t k = *wt == 1 ? 8 : 4;
        if ((size_t)(end - *p) < k) return -1;
        *p += k;
        return 0;
    }
    case 2:
        if (hk_pb_varint(p, end, &v) < 0 || v > (uint64_t)(end - *p)) return -1;
        *val = *p;
        *len = (size_t)v;
        *p += v;
        return 0;
    default: return -1;
    }
}

int hk_trace_probe(const uint8_t *data, size_t n)
{
    const uint8_t *p = data + 1, *end = data + n;
    uint64_t len;
    if (n < 2 || data[0] != 0x0a || hk_pb_varint(&p, end, &len) < 0) return 0;
    /* a whole first packet, or a trace cut inside it; its first byte is a field key */
    return p < end && (p[0] & 7) != 6 && (p[0] & 7) != 7 && p[0] >= 8;
}

static int inflate_zlib(hk_trace_walk *w, const uint8_t *z, size_t n, hk_buf *out)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit(&s) != Z_OK) return -1;
    s.next_in = (Bytef *)z;
    s.avail_in = (uInt)n;
    int rc;
    do {
        hk_buf_reserve(out, 1 << 16);
        s.next_out = out->data + out->len;
        s.avail_out = (uInt)(out->cap - out->len);
        rc = inflate(&s, Z_NO_FLUSH);
        out->len = out->cap - s.avail_out;
    } while (rc == Z_OK);
    inflateEnd(&s);
    if (rc != Z_STREAM_END)
        walk_warn(w, "a compressed_packets field is not a whole zlib stream (%s): its packets after byte %zu are lost",
                  s.msg ? s.msg : "truncated", out->len);
    return 0;
}

static int inflate_zstd(hk_trace_walk *w, const uint8_t *z, size_t n, hk_buf *out)
{
    ZSTD_DStream *ds = ZSTD_createDStream();
    if (!ds) hk_oom();
    ZSTD_inBuffer in = {z, n, 0};
    size_t rc = 1;
    while (in.pos < in.size && rc != 0) {
        hk_buf_reserve(out, 1 << 16);
        ZSTD_outBuffer ob = {out->data + out->len, out->cap - out->len, 0};
        rc = ZSTD_decompressStream(ds, &ob, &in);
        out->len += ob.pos;
        if (ZSTD_isError(rc)) break;
        if (rc != 0 && ob.pos == 0 && in.pos == in.size) break;
    }
    /* whatever the frame still holds in its window */
    while (!ZSTD_isError(rc) && rc != 0) {
        hk_buf_reserve(out, 1 << 16);
        ZSTD_outBuffer ob = {out->data + out->len, out->cap - out->len, 0};
        ZSTD_inBuffer none = {z, n, n};
        rc = ZSTD_decompressStream(ds, &ob, &none);
        out->len += ob.pos;
        if (ob.pos == 0) break;
    }
    ZSTD_freeDStream(ds);
    if (ZSTD_isError(rc) || rc != 0)
        walk_warn(w,
                  "a zstd_compressed_packets field is not a whole zstd frame (%s): its packets after byte %zu are lost",
                  ZSTD_isError(rc) ? ZSTD_getErrorName(rc) : "truncated", out->len);
    return 0;
}

static int walk(hk_trace_walk *w, const uint8_t *data, size_t n, int depth, char *err, size_t errlen);

/* A packet's compressed blocks, expanded and walked in place of the packet. */
static int expand(hk_trace_walk *w, const uint8_t *p, size_t n, int depth, int *had, char *err, size_t errlen)
{
    const uint8_t *q = p, *end = p + n, *val;
    uint32_t num;
    int wt;
    size_t len;
    *had = 0;
    while (q < end && hk_pb_field(&q, end, &num, &wt, &val, &len) == 0) {
        if (wt != 2 || (num != F_COMPRESSED && num != F_ZSTD)) continue;
        *had = 1;
        if (depth > 0) {
            walk_warn(w, "compressed packets inside compressed packets: skipped");
            continue;
        }
        hk_buf out;
        hk_buf_init(&out);
        if (num == F_COMPRESSED) inflate_zlib(w, val, len, &out);
        else inflate_zstd(w, val, len, &out);
        w->compressed++;
        int rc = walk(w, out.data, out.len, depth + 1, err, errlen);
        hk_buf_free(&out);
        if (rc < 0) return -1;
    }
    return 0;
}

static int walk(hk_trace_walk *w, const uint8_t *data, size_t n, int depth, char *err, size_t errlen)
{
    const uint8_t *p = data, *end = data + n, *val;
    while (p < end) {
        size_t at = (size_t)(p - data);
        uint32_t num;
        int wt;
        size_t len;
        if (hk_pb_field(&p, end, &num, &wt, &val, &len) < 0) {
            if (depth == 0 && at == 0) {
                snprintf(err, errlen, "not a Perfetto trace: byte 0 is not a packet field");
                return -1;
            }
            w->truncated_at = depth ? w->truncated_at : at;
            walk_warn(w, "%s is truncated or malformed at byte %zu: the last %zu bytes are skipped",
                      depth ? "a compressed block" : "the trace", at, n - at);
            return 0;
        }
        if (num != 1 || wt != 2) continue;
        w->packets++;
        int had;
        if (expand(w, val, len, depth, &had, err, errlen) < 0) return -1;
        if (!had && w->packet(w->ctx, val, len, err, errlen) < 0) return -1;
    }
    return 0;
}

int hk_trace_walk_packets(hk_trace_walk *w, const uint8_t *data, size_t n, char *err, size_t errlen)
{
    w->packets = w->compressed = w->warnings = 0;
    w->truncated_at = SIZE_MAX;
    return walk(w, data, n, 0, err, errlen);
}
