/* Holding a thread the app can run code on for us: the safe point, checked with a probe invoke,
 * past threads an earlier debugger left marked as invoking. */
#ifndef JDWP_HOLD_H
#define JDWP_HOLD_H

#include "jdwp_safe_point.h"

typedef struct jdwp_hold_info {
    int busy;             /* threads the event stopped that refused to invoke (ALREADY_INVOKING) */
    double seconds_busy;  /* from the first such thread to one that could run our code */
    char busy_thread[64]; /* the first of them */
    char thread[64];      /* the thread held in the end, named when some refused */
} jdwp_hold_info;

/* jdwp_safe_point, then Thread.currentThread() on the thread it stopped. A thread that was
 * running an invoke when its debugger went away (a fetch killed mid-call) refuses every later
 * debugger's invokes with ALREADY_INVOKING (the JDWP agent drops the call's completion with the
 * old session), so it is skipped: the VM is resumed and the wait goes on for any other thread,
 * within timeout_ms in all (0: JDWP_SAFE_POINT_MS). Success leaves the VM held as
 * jdwp_safe_point does; failure leaves it running, with one line in err. */
int jdwp_hold_thread(jdwp_conn *c, int timeout_ms, jdwp_nudge_fn nudge, void *ctx, jdwp_hold_info *info,
                     uint64_t *thread, char *err, size_t errlen);

#endif
