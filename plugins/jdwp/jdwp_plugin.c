/* The jdwp plugin: registers the live bitmap fetcher and the GC hook with the host. The JDWP
 * client below it knows nothing of the host; this file turns a fetch request into a stream
 * (adb jdwp:PID or TCP), a nudge (dumpsys meminfo through adb), settings and progress. */
#include "hprofkit.h"
#include "jdwp_bitmaps.h"
#include "jdwp_gc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JDWP_PLUGIN_TIMEOUT_MS 10000

static hk_plugin *jdwp_self;

typedef struct jdwp_nudge_ctx {
    const char *serial;
    int pid;
} jdwp_nudge_ctx;

/* `dumpsys meminfo PID`: the framework calls into the app over binder, so even an idle or
 * background app runs code and hits the MethodEntry request, without changing what it shows. */
static int jdwp_plugin_nudge(void *ctx, char *err, size_t errlen)
{
    const jdwp_nudge_ctx *n = ctx;
    if (!hk_api->device_shell || !n->pid) return 0;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "dumpsys meminfo %d", n->pid);
    hk_buf *out = NULL;
    int code = 0;
    /* The output is not needed; the host's device_shell wants a buffer only when given one. */
    return hk_api->device_shell(n->serial, cmd, out, &code, err, errlen);
}

static void jdwp_plugin_progress(void *ctx, const jdwp_fetch_progress *p)
{
    (void)ctx;
    hk_api->progress(jdwp_self, "bitmap %zu of %zu, %llu bytes, %.0f s left in the budget", p->k, p->n,
                     (unsigned long long)p->bytes, p->seconds_left);
}

/* Opens the JDWP stream the request names: a JVM on HOST:PORT, or jdwp:PID on a device. */
static int jdwp_plugin_connect(const hk_fetch_request *req, jdwp_conn **c, char *err, size_t errlen)
{
    int fd;
    if (req->jdwp_addr) {
        if (jdwp_tcp_connect(req->jdwp_addr, JDWP_PLUGIN_TIMEOUT_MS, &fd, err, errlen) < 0) return -1;
    } else {
        if (!req->pid) {
            snprintf(err, errlen, "no process to attach to: give --pid PID or --jdwp HOST:PORT");
            return -1;
        }
        char svc[32];
        snprintf(svc, sizeof svc, "jdwp:%d", req->pid);
        if (hk_api->device_open(req->serial, svc, &fd, err, errlen) < 0) return -1;
    }
    return jdwp_conn_open(c, fd, JDWP_PLUGIN_TIMEOUT_MS, err, errlen);
}

/* plugins.ini [jdwp] settings, read once in init (a bad one fails the plugin there, named). */
static double jdwp_budget_seconds = JDWP_BUDGET_SECONDS, jdwp_budget_bytes = (double)JDWP_BUDGET_BYTES,
              jdwp_safe_point_seconds = JDWP_SAFE_POINT_MS / 1000.0;

static int jdwp_plugin_settings(hk_plugin *self, char *err, size_t errlen)
{
    static const char *const keys[] = {"budget_seconds", "budget_bytes", "safe_point_seconds"};
    double *vals[] = {&jdwp_budget_seconds, &jdwp_budget_bytes, &jdwp_safe_point_seconds};
    for (int i = 0; i < 3; i++) {
        if (hk_api->config_number(self, keys[i], *vals[i], vals[i], err, errlen) < 0) return -1;
        if (*vals[i] <= 0) {
            snprintf(err, errlen, "plugin jdwp: setting %s = %g: expected a positive number", keys[i], *vals[i]);
            return -1;
        }
    }
    return 0;
}

static int jdwp_plugin_fetch(void *ud, const hk_fetch_request *req, hk_fetch_result *res, char *err, size_t errlen)
{
    (void)ud;
    memset(res, 0, sizeof *res);
    jdwp_conn *c;
    if (jdwp_plugin_connect(req, &c, err, errlen) < 0) return -1;
    jdwp_nudge_ctx nctx = {req->serial, req->jdwp_addr ? 0 : req->pid};
    jdwp_fetch_opts o = {
        .outdir = req->out_dir,
        .budget_seconds = req->budget_seconds > 0 ? req->budget_seconds : jdwp_budget_seconds,
        .budget_bytes = req->budget_bytes ? req->budget_bytes : (uint64_t)jdwp_budget_bytes,
        .safe_point_ms = (int)(jdwp_safe_point_seconds * 1000),
        .nudge = jdwp_plugin_nudge,
        .nudge_ctx = &nctx,
        .progress = jdwp_plugin_progress,
    };
    jdwp_fetch_summary s;
    int rc = jdwp_fetch_bitmaps(c, &o, &s, err, errlen);
    jdwp_conn_close(c);
    res->fetched = (int)s.fetched;
    res->skipped = (int)s.skipped;
    res->failed = (int)s.failed;
    res->stopped_by_budget = s.stopped_by_budget;
    res->bytes = s.bytes;
    res->seconds = s.seconds_total;
    if (rc == 0 && s.hold.busy)
        hk_api->log(jdwp_self, HK_LOG_WARN,
                    "the app's thread \"%s\" refuses to run code for a debugger (JDWP ALREADY_INVOKING: a "
                    "debugger went away while it ran a call for it) until the app restarts; the fetch ran on "
                    "thread \"%s\" after %.1f s",
                    s.hold.busy_thread, s.hold.thread, s.hold.seconds_busy);
    /* When every bitmap failed, err says so with the first failure: one line, not two. */
    if (s.failed && s.first_failure[0] && s.fetched)
        hk_api->log(jdwp_self, HK_LOG_WARN, "%zu bitmaps failed; the first: %s", s.failed, s.first_failure);
    if (s.stopped_by_budget)
        hk_api->log(jdwp_self, HK_LOG_INFO,
                    "the %s budget stopped the fetch with %zu bitmaps left (largest first, "
                    "so the small ones were left)",
                    s.stopped_by_time ? "time" : "byte", s.not_attempted);
    return rc;
}

static int jdwp_plugin_gc(void *ud, const hk_fetch_request *req, char *err, size_t errlen)
{
    (void)ud;
    jdwp_conn *c;
    if (jdwp_plugin_connect(req, &c, err, errlen) < 0) return -1;
    jdwp_nudge_ctx nctx = {req->serial, req->jdwp_addr ? 0 : req->pid};
    int rc = jdwp_gc(c, (int)(jdwp_safe_point_seconds * 1000), jdwp_plugin_nudge, &nctx, err, errlen);
    jdwp_conn_close(c);
    return rc;
}

static const hk_fetcher jdwp_fetcher = {
    .name = "jdwp",
    .help = "live bitmaps (API 26-34) and a GC before a dump (API < 27), by attaching as a debugger "
            "over adb jdwp:PID or HOST:PORT; the app must be debuggable and have no other debugger",
    .fetch_bitmaps = jdwp_plugin_fetch,
    .gc = jdwp_plugin_gc,
};

static int jdwp_init(hk_plugin *self, char *err, size_t errlen)
{
    jdwp_self = self;
    if (jdwp_plugin_settings(self, err, errlen) < 0) return -1;
    hk_api->describe(self, "jdwp", "0.1.0", "live bitmaps and GC through the Java debugger protocol");
    return hk_api->register_fetcher(self, &jdwp_fetcher, NULL); /* a refusal is the host's reason */
}

HK_PLUGIN_INIT(jdwp_init)
