/* A dump written as a Perfetto trace (the export; the import is core/trace): above the reader,
 * whose records it walks. */
#ifndef HK_CONVERT_H
#define HK_CONVERT_H

#include "trace/trace.h"

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
