/* The safe point. ART runs a debugger's invoke only on a thread an event stopped, so the fetch
 * waits for a MethodEntry. One request (Count=1) catches whichever thread runs code first; when
 * some threads must not be the one (jdwp_hold: a thread an earlier debugger left invoking), one
 * request per other thread, each filtered to its thread (JDWP has no "all threads but"). */
#include "jdwp_safe_point.h"

#include <stdio.h>
#include <time.h>

/* EventRequest modifiers: Count and ThreadOnly (ThreadOnly first: a Count ahead of it would
 * count, and expire on, other threads' entries). */
#define JDWP_MOD_COUNT       1
#define JDWP_MOD_THREAD_ONLY 3

/* The MethodEntry requests of one wait. */
typedef struct jdwp_watch {
    uint32_t *req;
    size_t n;
} jdwp_watch;

static int64_t jdwp_sp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One request, suspend all, Count=1; on thread alone when thread != 0. */
static int jdwp_watch_add(jdwp_conn *c, jdwp_watch *w, uint64_t thread, char *err, size_t errlen)
{
    jdwp_out o = {0};
    jdwp_out_u8(&o, JDWP_EK_METHOD_ENTRY);
    jdwp_out_u8(&o, JDWP_SUSPEND_ALL);
    jdwp_out_u32(&o, thread ? 2 : 1);
    if (thread) {
        jdwp_out_u8(&o, JDWP_MOD_THREAD_ONLY);
        jdwp_out_id(&o, jdwp_id_size(c, JDWP_ID_OBJECT), thread);
    }
    jdwp_out_u8(&o, JDWP_MOD_COUNT);
    jdwp_out_u32(&o, 1);
    jdwp_packet *r;
    int rc = jdwp_call(c, JDWP_ER, JDWP_ER_SET, &o, -1, "EventRequest.Set(MethodEntry)", &r, err, errlen);
    jdwp_out_free(&o);
    /* A thread that ended since AllThreads was read is no loss. */
    if (rc < 0) return thread && jdwp_last_error(c) == JDWP_ERR_INVALID_THREAD ? 0 : -1;
    jdwp_in in;
    jdwp_in_init(&in, r);
    w->req[w->n++] = jdwp_in_u32(&in);
    jdwp_packet_free(r);
    return 0;
}

static int jdwp_skipped(uint64_t t, const uint64_t *skip, size_t nskip)
{
    for (size_t i = 0; i < nskip; i++)
        if (skip[i] == t) return 1;
    return 0;
}

/* Sets the requests: one for any thread, or one per live thread not in skip. */
static int jdwp_watch_set(jdwp_conn *c, jdwp_watch *w, const uint64_t *skip, size_t nskip, char *err, size_t errlen)
{
    uint64_t *ids = NULL;
    size_t n = 1;
    if (nskip && jdwp_all_threads(c, &ids, &n, err, errlen) < 0) return -1;
    w->req = hk_alloc((n ? n : 1) * sizeof *w->req);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (!ids || !jdwp_skipped(ids[i], skip, nskip)) rc = jdwp_watch_add(c, w, ids ? ids[i] : 0, err, errlen);
    hk_free(ids);
    return rc;
}

/* Clears the requests (their ids stay in w, for the drain). */
static void jdwp_watch_clear(jdwp_conn *c, const jdwp_watch *w)
{
    for (size_t i = 0; i < w->n; i++) {
        jdwp_out o = {0};
        jdwp_out_u8(&o, JDWP_EK_METHOD_ENTRY);
        jdwp_out_u32(&o, w->req[i]);
        jdwp_packet *r = NULL;
        char e[200];
        if (jdwp_call(c, JDWP_ER, JDWP_ER_CLEAR, &o, -1, "EventRequest.Clear", &r, e, sizeof e) == 0)
            jdwp_packet_free(r);
        jdwp_out_free(&o);
    }
}

/* Looks into a Composite event for one of our MethodEntry requests: 1 = found (*thread set),
 * -2 = VM death, 0 = not ours. */
static int jdwp_watch_hit(jdwp_conn *c, const jdwp_watch *w, const jdwp_packet *ev, uint64_t *thread)
{
    if (ev->cmdset != JDWP_EV || ev->cmd != JDWP_EV_COMPOSITE) return 0;
    jdwp_in in;
    jdwp_in_init(&in, ev);
    jdwp_in_u8(&in);
    uint32_t n = jdwp_in_u32(&in);
    for (uint32_t i = 0; i < n && !in.bad; i++) {
        uint8_t kind = jdwp_in_u8(&in);
        uint32_t id = jdwp_in_u32(&in);
        if (kind == JDWP_EK_VM_DEATH) return -2;
        if (kind != JDWP_EK_METHOD_ENTRY) return 0; /* unknown layout: cannot read further */
        uint64_t t = jdwp_in_id(&in, jdwp_id_size(c, JDWP_ID_OBJECT));
        jdwp_in_u8(&in); /* location: type tag, class, method, index */
        jdwp_in_id(&in, jdwp_id_size(c, JDWP_ID_REFTYPE));
        jdwp_in_id(&in, jdwp_id_size(c, JDWP_ID_METHOD));
        jdwp_in_u64(&in);
        for (size_t k = 0; k < w->n && !in.bad; k++)
            if (id == w->req[k]) {
                *thread = t;
                return 1;
            }
    }
    return 0;
}

/* After the clear. An event that fired before it is taken when none was yet (held = 0); each one
 * after the first suspended the VM once more, so it gets one resume. Returns 1 when holding. */
static int jdwp_watch_drain(jdwp_conn *c, const jdwp_watch *w, int held, int wait_ms, uint64_t *thread)
{
    jdwp_packet *ev;
    char e[200];
    while (jdwp_next_event(c, wait_ms, &ev, e, sizeof e) == 1) {
        uint64_t t;
        int hit = jdwp_watch_hit(c, w, ev, &t);
        jdwp_packet_free(ev);
        if (hit != 1) continue;
        if (!held) {
            *thread = t;
            held = 1;
        } else if (jdwp_vm_resume(c, e, sizeof e) < 0) break;
    }
    return held;
}

/* Waits for one of the requests' events, nudging the app now and then. 1 = got one. */
static int jdwp_watch_wait(jdwp_conn *c, const jdwp_watch *w, int timeout_ms, jdwp_nudge_fn nudge, void *ctx,
                           uint64_t *thread, char *err, size_t errlen)
{
    int64_t start = jdwp_sp_now_ms(), next_nudge = start;
    for (;;) {
        int64_t now = jdwp_sp_now_ms();
        if (nudge && now >= next_nudge) {
            char e[200];
            nudge(ctx, e, sizeof e); /* a failed nudge only means we wait for the app on its own */
            next_nudge = jdwp_sp_now_ms() + JDWP_NUDGE_EVERY_MS;
            now = jdwp_sp_now_ms();
        }
        int64_t left = start + timeout_ms - now;
        if (left <= 0) return 0;
        int64_t slice = nudge && next_nudge - now < left ? next_nudge - now : left;
        jdwp_packet *ev;
        int got = jdwp_next_event(c, (int)(slice > 0 ? slice : 1), &ev, err, errlen);
        if (got < 0) return -1;
        if (got == 0) continue;
        int hit = jdwp_watch_hit(c, w, ev, thread);
        jdwp_packet_free(ev);
        if (hit == -2) {
            snprintf(err, errlen, "the VM exited while waiting for it to run code");
            return -1;
        }
        if (hit == 1) return 1;
    }
}

int jdwp_safe_point(jdwp_conn *c, int timeout_ms, jdwp_nudge_fn nudge, void *ctx, const uint64_t *skip, size_t nskip,
                    uint64_t *thread, char *err, size_t errlen)
{
    if (timeout_ms == 0) timeout_ms = JDWP_SAFE_POINT_MS;
    jdwp_watch w = {0};
    int got = jdwp_watch_set(c, &w, skip, nskip, err, errlen);
    if (got == 0 && w.n) got = jdwp_watch_wait(c, &w, timeout_ms, nudge, ctx, thread, err, errlen);
    jdwp_watch_clear(c, &w);
    /* The event may have fired just before the clear: take it if it is already here. */
    if (got >= 0) got = jdwp_watch_drain(c, &w, got, got ? 0 : 200, thread);
    hk_free(w.req);
    if (got < 0) return -1;
    if (got) return 0;
    snprintf(err, errlen,
             "the app ran no code for %d s; touching it makes it run something "
             "(open it, or scroll), then try again",
             timeout_ms / 1000);
    return JDWP_SAFE_POINT_IDLE;
}
