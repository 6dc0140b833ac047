/*
 * Perfetto traces as heap dumps.  A trace (protobuf perfetto.protos.Trace, plain, gzip'd or
 * with zlib compressed_packets) may hold, per process, a Java heap graph (HeapGraph packets,
 * android.java_hprof) or an embedded .hprof (hprofkit.HprofDump chunks, see
 * proto/hprof_dump.proto) with its bitmaps' PNGs.  Either becomes HPROF bytes that the
 * ordinary index reads: an embedded dump as it is, a heap graph as an Android-dialect dump
 * built from it (trace_hprof.c), so every query works unchanged.
 */
#ifndef HK_TRACE_H
#define HK_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hk_buf.h"

/* Which process of a trace to open (the CLI's --trace-pid / --trace-process): pid 0 and
 * process NULL pick the first dump in the trace.  Process-wide; the strings are copied. */
void hk_trace_select(int pid, const char *process);
/* Which of the picked process's dumps in time (the CLI's --trace-dump): "N" (from 1), "last" or
 * a timestamp of the trace's clock; NULL: the last.  Process-wide; the string is copied. */
void hk_trace_select_dump(const char *spec);

/* Walking a trace's packets in order (trace_packets.c), the packets of compressed blocks (zlib
 * compressed_packets, zstd_compressed_packets) expanded where they stand: packet() gets each
 * TracePacket's bytes (a negative return stops the walk with its err), warn() each problem
 * that loses data (a truncated trace or block).  hk_trace_walk_packets returns -1 with err only
 * when data is not a trace at all; the counts are filled as it goes. */
typedef struct hk_trace_walk {
    int (*packet)(void *ctx, const uint8_t *p, size_t n, char *err, size_t errlen);
    void (*warn)(void *ctx, const char *msg);
    void *ctx;
    uint64_t packets, compressed;
    unsigned warnings;
    size_t truncated_at; /* the outer trace's cut, SIZE_MAX when whole */
} hk_trace_walk;
int hk_trace_walk_packets(hk_trace_walk *w, const uint8_t *data, size_t n, char *err, size_t errlen);

/* Protobuf wire format: a varint at *p (0, or -1 when cut or over 10 bytes); the next field of
 * a message (number, wire type, a length-delimited field's bytes; -1 when cut or malformed). */
int hk_pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);
int hk_pb_field(const uint8_t **p, const uint8_t *end, uint32_t *num, int *wt, const uint8_t **val, size_t *len);

/* 1 when data starts like a Perfetto trace (a TracePacket field), else 0. */
int hk_trace_probe(const uint8_t *data, size_t n);

/* One image that came with an embedded dump, keyed by the Bitmap's native pointer. */
typedef struct hk_trace_image {
    uint64_t ptr;
    hk_buf png;
} hk_trace_image;

typedef struct hk_trace_result {
    hk_buf hprof;           /* the dump's HPROF bytes, when hprof_fd < 0 */
    int hprof_fd;           /* else an unlinked scratch file that holds them (a big heap graph) */
    char *source;           /* "key: value" lines: what the trace held and what was picked */
    hk_trace_image *images; /* PNGs of an embedded dump (HprofBitmap) */
    size_t nimages;
} hk_trace_result;

/* Reads a trace and returns the picked process's dump as HPROF.  -1 with err when the
 * trace holds no dump, the pick matches none, or the dump cannot be rebuilt. */
int hk_trace_to_hprof(const uint8_t *data, size_t n, const char *path, hk_trace_result *res, char *err, size_t errlen);
void hk_trace_result_free(hk_trace_result *res);

/* Writing a dump as a trace: a heap graph (references and sizes; heap_graph = 1) or the HPROF
 * embedded in hprofkit.HprofDump chunks (chunk_bytes each, 4 MB when 0) with images as
 * HprofBitmap packets named by pointer.  The file is written atomically. */
typedef struct hk_trace_write_opts {
    int heap_graph;
    int pid;             /* the process the trace says it is (1 when unknown) */
    const char *process; /* its name for the process_tree packet, or NULL */
    size_t chunk_bytes;
    const hk_trace_image *images;
    size_t nimages;
} hk_trace_write_opts;
struct hk_dump;
int hk_trace_write(struct hk_dump *d, const hk_trace_write_opts *opts, const char *path, char *err, size_t errlen);

#endif
