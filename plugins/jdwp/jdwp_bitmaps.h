/* Live bitmap fetch: have the app compress each of its Bitmaps to PNG and read the bytes back. */
#ifndef JDWP_BITMAPS_H
#define JDWP_BITMAPS_H

#include "jdwp_hold.h"

#define JDWP_BUDGET_SECONDS 60.0
#define JDWP_BUDGET_BYTES   ((uint64_t)64 << 20)

typedef struct jdwp_fetch_progress {
    size_t k, n;         /* bitmap k of n (1-based) just finished */
    uint64_t ptr;        /* its mNativePtr */
    int ok;              /* 1 fetched, 0 failed */
    uint64_t bytes;      /* total bytes written so far */
    double seconds_left; /* of the time budget */
} jdwp_fetch_progress;

typedef struct jdwp_fetch_opts {
    const char *outdir;    /* created if missing; images go to OUTDIR/0x<ptr>.png */
    double budget_seconds; /* 0: JDWP_BUDGET_SECONDS; counted from the moment the app is held */
    uint64_t budget_bytes; /* 0: JDWP_BUDGET_BYTES; an image that would pass it is not read */
    int safe_point_ms;     /* 0: JDWP_SAFE_POINT_MS */
    jdwp_nudge_fn nudge;   /* may be NULL (a JVM on TCP that runs code on its own) */
    void *nudge_ctx;
    void (*progress)(void *ctx, const jdwp_fetch_progress *p);
    void *progress_ctx;
} jdwp_fetch_opts;

typedef struct jdwp_fetch_summary {
    size_t instances;  /* Bitmap instances the VM listed */
    size_t candidates; /* drawable ones, in the fetch order */
    size_t fetched, failed;
    size_t skipped; /* recycled + empty + null pointer + gone */
    size_t skipped_recycled, skipped_empty, skipped_null_ptr, skipped_gone;
    size_t not_attempted;  /* left when a budget or a lost connection stopped the fetch */
    int stopped_by_budget; /* 1 when either budget stopped it */
    int stopped_by_time, stopped_by_bytes;
    int lost_connection;
    int classes_loaded;         /* classes loaded with Class.forName */
    uint64_t bytes;             /* PNG bytes written */
    double seconds_total;       /* whole call */
    double seconds_safe_point;  /* call start to the app held */
    double seconds_first_image; /* call start to the first image written (0 if none) */
    char first_failure[256];    /* why the first failed bitmap failed */
    jdwp_hold_info hold;        /* waits for a thread an earlier debugger left busy */
} jdwp_fetch_summary;

/* Runs the fetch on an open connection. Returns 0 when the fetch ran (some bitmaps may have
 * failed or been left by a budget: see the summary), -1 with err when it could not start, the
 * connection was lost, or every bitmap it tried failed (images already written are kept; the
 * summary says how far it got).
 * The VM is resumed before returning; the caller closes the connection (which disposes). */
int jdwp_fetch_bitmaps(jdwp_conn *c, const jdwp_fetch_opts *o, jdwp_fetch_summary *s, char *err, size_t errlen);

#endif
