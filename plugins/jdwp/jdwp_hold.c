/* A thread that can invoke. The JDWP agent runs one debugger invoke per thread and marks the
 * thread as invoking until the call's completion is handled; when the debugger goes away mid-call
 * (a fetch killed while the app compressed a bitmap), OpenJDK's agent (ART's since Android 9)
 * drops that completion with the old session, so the thread answers ALREADY_INVOKING to every
 * later debugger until the app restarts. That thread is often the one that runs code (the main
 * looper), so the next fetch meets it first: it is skipped, and the wait goes on for another. */
#include "jdwp_hold.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t jdwp_hold_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A thread's name for the messages (printable ASCII only). */
static void jdwp_hold_name(jdwp_conn *c, uint64_t thread, char *name, size_t n)
{
    char e[200];
    if (jdwp_thread_name(c, thread, name, n, e, sizeof e) < 0) snprintf(name, n, "?");
    for (char *p = name; *p; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '"') *p = '?';
}

static int jdwp_hold_gave_up(const jdwp_hold_info *info, int timeout_ms, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "the app's thread \"%s\" refuses to run code for a debugger (JDWP ALREADY_INVOKING) until "
             "the app restarts: a debugger went away while it ran a call for it (a killed fetch-bitmaps?); "
             "no other thread ran code in %d s: touch the app so one does (open it, scroll), or restart it",
             info->busy_thread, timeout_ms / 1000);
    return -1;
}

/* Thread.currentThread(), the probe: any thread can run it, quickly. */
static int jdwp_hold_probe_find(jdwp_conn *c, uint64_t *cls, uint64_t *mid, char *err, size_t errlen)
{
    if (jdwp_class_find(c, "Ljava/lang/Thread;", cls, err, errlen) < 0) return -1;
    if (!*cls) {
        snprintf(err, errlen, "java.lang.Thread is not visible to the debugger");
        return -1;
    }
    return jdwp_method_find(c, *cls, "currentThread", "()Ljava/lang/Thread;", mid, err, errlen);
}

/* Probes the held thread: 0 = it runs code, 1 = it refused (ALREADY_INVOKING; the VM is resumed
 * and it is added to skip), -1 = another failure (the VM is resumed). */
static int jdwp_hold_probe(jdwp_conn *c, uint64_t cls, uint64_t mid, uint64_t thread, jdwp_hold_info *info,
                           uint64_t **skip, size_t *nskip, char *err, size_t errlen)
{
    jdwp_invoke_result res;
    char e[300], e2[200];
    if (jdwp_invoke_static(c, cls, thread, mid, NULL, 0, -1, &res, e, sizeof e) == 0) return 0;
    int refused = jdwp_last_error(c) == JDWP_ERR_ALREADY_INVOKING;
    if (refused && !info->busy++) jdwp_hold_name(c, thread, info->busy_thread, sizeof info->busy_thread);
    if (refused) {
        *skip = hk_realloc(*skip, (*nskip + 1) * sizeof **skip);
        (*skip)[(*nskip)++] = thread;
    }
    if (jdwp_vm_resume(c, e2, sizeof e2) < 0) {
        snprintf(err, errlen, "%s", e2);
        return -1;
    }
    if (refused) return 1;
    snprintf(err, errlen, "%s", e);
    return -1;
}

/* While skipping threads, the wait runs in slices of this, each with the live threads read
 * afresh (a thread started meanwhile gets its request too); the nudge keeps its own pace. */
#define JDWP_HOLD_SLICE_MS 1000

int jdwp_hold_thread(jdwp_conn *c, int timeout_ms, jdwp_nudge_fn nudge, void *ctx, jdwp_hold_info *info,
                     uint64_t *thread, char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    if (timeout_ms == 0) timeout_ms = JDWP_SAFE_POINT_MS;
    uint64_t cls, mid, *skip = NULL;
    size_t nskip = 0;
    if (jdwp_hold_probe_find(c, &cls, &mid, err, errlen) < 0) return -1;
    int64_t now = jdwp_hold_now_ms(), end = now + timeout_ms, first_busy = 0, next_nudge = now;
    int rc;
    for (;;) {
        now = jdwp_hold_now_ms();
        int64_t left = end - now;
        if (nskip && left <= 0) {
            rc = jdwp_hold_gave_up(info, timeout_ms, err, errlen);
            break;
        }
        int64_t slice = nskip && left > JDWP_HOLD_SLICE_MS ? JDWP_HOLD_SLICE_MS : left;
        jdwp_nudge_fn n = now >= next_nudge ? nudge : NULL;
        if (n) next_nudge = now + JDWP_NUDGE_EVERY_MS;
        rc = jdwp_safe_point(c, slice > 0 ? (int)slice : 1, n, ctx, skip, nskip, thread, err, errlen);
        if (rc == JDWP_SAFE_POINT_IDLE && nskip) continue;
        if (rc < 0) break;
        rc = jdwp_hold_probe(c, cls, mid, *thread, info, &skip, &nskip, err, errlen);
        if (rc <= 0) break;
        if (info->busy == 1) first_busy = jdwp_hold_now_ms();
    }
    if (rc == 0 && info->busy) {
        info->seconds_busy = (double)(jdwp_hold_now_ms() - first_busy) / 1000.0;
        jdwp_hold_name(c, *thread, info->thread, sizeof info->thread);
    }
    hk_free(skip);
    return rc < 0 ? -1 : 0;
}
