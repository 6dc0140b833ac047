/* The safe point: a thread stopped by a MethodEntry event, which JDWP lets run code for us. */
#ifndef JDWP_SAFE_POINT_H
#define JDWP_SAFE_POINT_H

#include "jdwp_session.h"

/* Called while waiting for the app to run code; through adb it runs `dumpsys meminfo PID` so the
 * framework calls into the app. Returns 0, or -1 with err (the wait goes on regardless). */
typedef int (*jdwp_nudge_fn)(void *ctx, char *err, size_t errlen);

#define JDWP_SAFE_POINT_MS   20000
#define JDWP_NUDGE_EVERY_MS  5000
#define JDWP_SAFE_POINT_IDLE (-2)

/* Requests MethodEntry (Count=1, suspend all) on any thread, or, when nskip > 0, on each live
 * thread but those in skip; calls nudge now and every few seconds, and waits up to timeout_ms
 * (0: JDWP_SAFE_POINT_MS) for the first event. Success leaves the VM suspended by the event and
 * *thread stopped by it; jdwp_vm_resume (or jdwp_conn_close) undoes it. Returns
 * JDWP_SAFE_POINT_IDLE with err when no such thread ran code in time, -1 on other failures. */
int jdwp_safe_point(jdwp_conn *c, int timeout_ms, jdwp_nudge_fn nudge, void *ctx, const uint64_t *skip, size_t nskip,
                    uint64_t *thread, char *err, size_t errlen);

#endif
