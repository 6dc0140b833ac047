/* A garbage collection run inside the app through JDWP, for devices without `am dumpheap -g`. */
#ifndef JDWP_GC_H
#define JDWP_GC_H

#include "jdwp_hold.h"

/* On an event-stopped thread: Runtime.getRuntime().gc(), Thread.sleep(100),
 * System.runFinalization(), Runtime.getRuntime().gc(); then resumes the VM. safe_point_ms 0 =
 * JDWP_SAFE_POINT_MS. The caller closes (disposes) the connection. */
int jdwp_gc(jdwp_conn *c, int safe_point_ms, jdwp_nudge_fn nudge, void *nudge_ctx, char *err, size_t errlen);

#endif
