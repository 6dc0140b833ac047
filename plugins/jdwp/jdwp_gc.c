/* GC through JDWP: the same System.gc() sequence an app would run, invoked on the thread a
 * MethodEntry event stopped (ART refuses invokes on threads stopped by a plain VM suspend). */
#include "jdwp_gc.h"

#include <stdio.h>

static int jdwp_gc_static(jdwp_conn *c, uint64_t thread, const char *sig, const char *name, const char *msig,
                          const jdwp_value *args, size_t nargs, jdwp_invoke_result *res, char *err, size_t errlen)
{
    uint64_t cls, mid;
    if (jdwp_class_find(c, sig, &cls, err, errlen) < 0) return -1;
    if (!cls) {
        snprintf(err, errlen, "class %s is not loaded in the app", sig);
        return -1;
    }
    if (jdwp_method_find(c, cls, name, msig, &mid, err, errlen) < 0) return -1;
    return jdwp_invoke_static(c, cls, thread, mid, args, nargs, -1, res, err, errlen);
}

static int jdwp_gc_runtime(jdwp_conn *c, uint64_t thread, char *err, size_t errlen)
{
    jdwp_invoke_result res;
    if (jdwp_gc_static(c, thread, "Ljava/lang/Runtime;", "getRuntime", "()Ljava/lang/Runtime;", NULL, 0, &res, err,
                       errlen) < 0)
        return -1;
    uint64_t cls, mid;
    if (jdwp_class_find(c, "Ljava/lang/Runtime;", &cls, err, errlen) < 0 ||
        jdwp_method_find(c, cls, "gc", "()V", &mid, err, errlen) < 0)
        return -1;
    jdwp_invoke_result r2;
    /* A full GC of a big heap can take seconds: allow more than a plain command. */
    return jdwp_invoke_method(c, res.ret.v, thread, cls, mid, NULL, 0, 4 * jdwp_conn_timeout(c), &r2, err, errlen);
}

int jdwp_gc(jdwp_conn *c, int safe_point_ms, jdwp_nudge_fn nudge, void *nudge_ctx, char *err, size_t errlen)
{
    uint64_t thread;
    jdwp_hold_info hold;
    if (jdwp_hold_thread(c, safe_point_ms, nudge, nudge_ctx, &hold, &thread, err, errlen) < 0) return -1;
    jdwp_invoke_result res;
    jdwp_value ms = {'J', 100};
    int rc = 0;
    if (jdwp_gc_runtime(c, thread, err, errlen) < 0 ||
        jdwp_gc_static(c, thread, "Ljava/lang/Thread;", "sleep", "(J)V", &ms, 1, &res, err, errlen) < 0 ||
        jdwp_gc_static(c, thread, "Ljava/lang/System;", "runFinalization", "()V", NULL, 0, &res, err, errlen) < 0 ||
        jdwp_gc_runtime(c, thread, err, errlen) < 0)
        rc = -1;
    char e[200];
    if (!jdwp_conn_dead(c) && jdwp_vm_resume(c, e, sizeof e) < 0 && rc == 0) {
        snprintf(err, errlen, "%s", e);
        rc = -1;
    }
    return rc;
}
