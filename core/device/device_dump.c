/* Taking a heap dump off a device: am dumpheap into /data/local/tmp (files there belong to shell,
 * so sync can read them), wait until the size stops changing (older Android returns before the
 * file is complete), pull with a size check, remove the remote file. */
#include "device.h"
#include "util/hk_report.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void hk_dump_opts_init(hk_dump_opts *o)
{
    memset(o, 0, sizeof *o);
    o->gc = 1;
    o->bitmaps = -1;
    o->progress = -1;
    o->timeout_s = 300;
    const char *t = getenv("HK_DUMP_TIMEOUT"); /* seconds: tests shorten the wait for am and the file */
    if (t && atoi(t) > 0) o->timeout_s = atoi(t);
}

/* Copies the line of `s` starting at p into out, trimmed. */
static void line_at(const char *p, char *out, size_t outlen)
{
    while (*p == ' ' || *p == '\t') p++;
    size_t l = strcspn(p, "\r\n");
    if (l >= outlen) l = outlen - 1;
    memcpy(out, p, l);
    out[l] = 0;
}

/* Turns am's output into one clear line; returns 1 when the output reports a failure. */
static int hk_device_am_error(const char *o, const char *process, char *msg, size_t msglen)
{
    const char *p;
    char line[400];
    if (strstr(o, "not debuggable")) {
        snprintf(msg, msglen,
                 "%s is not debuggable: only debuggable apps (or any app on a userdebug/eng build) can be dumped",
                 process);
        return 1;
    }
    if ((p = strstr(o, "Unknown option: -b")) != NULL) {
        snprintf(msg, msglen,
                 "this device's am dumpheap does not know -b (bitmap pixels in the dump need Android 15, "
                 "API 35): retry without --bitmaps");
        return 1;
    }
    if ((p = strstr(o, "Unknown option: -g")) != NULL) {
        snprintf(msg, msglen,
                 "this device's am dumpheap does not know -g (GC before the dump needs API 27): retry "
                 "with --no-gc");
        return 1;
    }
    if ((p = strstr(o, "Exception occurred while executing")) != NULL) {
        /* the exception is on the next line; its 12-frame stack trace says nothing to a user */
        const char *nl = strchr(p, '\n');
        line_at(nl ? nl + 1 : p, line, sizeof line);
        snprintf(msg, msglen, "am dumpheap %s failed: %s", process, line[0] ? line : "an exception on the device");
        return 1;
    }
    for (p = o; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        while (*p == ' ' || *p == '\t') p++;
        if (!strncmp(p, "Error:", 6) || !strncmp(p, "java.", 5) || !strncmp(p, "android.", 8) ||
            (strstr(p, "Exception") && strcspn(p, "\n") > (size_t)(strstr(p, "Exception") - p))) {
            line_at(p, line, sizeof line);
            snprintf(msg, msglen, "am dumpheap %s failed: %s", process, line);
            return 1;
        }
    }
    return 0;
}

/* A note both goes into the result (for JSON/Lua) and to the report sink, so it is never silent. */
static void note(hk_dump_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(hk_dump_result *res, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->note, sizeof res->note, fmt, ap);
    va_end(ap);
    hk_report(HK_REPORT_NOTE, "%s", res->note);
}

typedef struct {
    int on;
    struct timespec last;
} progress_ctx;

static void pull_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress_ctx *pc = ctx;
    if (!pc->on) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (now.tv_sec - pc->last.tv_sec) * 1000 + (now.tv_nsec - pc->last.tv_nsec) / 1000000;
    if (ms < 200 && done < total) return; /* a line per 64 KiB chunk would flood the terminal */
    pc->last = now;
    if (done < total)
        hk_report(HK_REPORT_PROGRESS, "pulling the dump: %.1f / %.1f MB", done / 1048576.0, total / 1048576.0);
    else hk_report(HK_REPORT_PROGRESS, "%s", "");
}

/* Resolves a process name or pid to a pid (and a canonical name). */
static int resolve_process(hk_device *dev, const char *proc, int *pid, char *name, size_t nl, char *err, size_t errlen)
{
    char *end;
    long v = strtol(proc, &end, 10);
    hk_process *ps;
    size_t n;
    if (hk_device_processes(dev, &ps, &n, err, errlen) != 0) return -1;
    int found = 0;
    for (size_t i = 0; i < n && !found; i++) {
        if ((!*end && v > 0 && ps[i].pid == v) || !strcmp(ps[i].name, proc)) {
            *pid = ps[i].pid;
            snprintf(name, nl, "%s", ps[i].name);
            found = 1;
        }
    }
    free(ps);
    if (!found) {
        snprintf(err, errlen, "no process %s on %s (see `hprofkit processes -s %s`)", proc, dev->serial, dev->serial);
        return -1;
    }
    return 0;
}

/* Removes the dump's file from the device: a warning when that fails after a good pull; after a
 * failure (err set) the one error line says it instead, as the device is usually what failed. */
static void remove_remote(hk_device *dev, const char *remote, char *err, size_t errlen)
{
    char cmd[600], e[256], *out = NULL;
    int code;
    snprintf(cmd, sizeof cmd, "rm -f %s", remote);
    if (hk_device_shell(dev, cmd, &out, NULL, &code, e, sizeof e) != 0) {
        size_t l = err ? strlen(err) : 0;
        if (!err) hk_report(HK_REPORT_WARNING, "could not remove %s from %s: %s", remote, dev->serial, e);
        else if (l < errlen) snprintf(err + l, errlen - l, " (what it left on the device, the next dump removes)");
    }
    free(out);
}

/* `stat -c %s`: 0 with *size, 1 when the file does not exist, -1 on a transport error. */
static int remote_size(hk_device *dev, const char *remote, int64_t *size, char *err, size_t errlen)
{
    char cmd[600], *out = NULL;
    int code;
    snprintf(cmd, sizeof cmd, "stat -c %%s %s", remote);
    if (hk_device_shell(dev, cmd, &out, NULL, &code, err, errlen) != 0) return -1;
    char *end;
    long long v = strtoll(out, &end, 10);
    int ok = end != out && (*end == 0 || isspace((unsigned char)*end));
    free(out);
    if (!ok) return 1;
    *size = v;
    return 0;
}

/* One dump in the making: what the phases below share. */
typedef struct dump_job {
    hk_device *dev;
    const hk_dump_opts *opts;
    hk_dump_result *res;
    int pid;
    char name[256];    /* the process's name as ps gives it */
    int g_flag;        /* am dumpheap -g */
    char remote[256];  /* the file on the device */
    char am_said[300]; /* am's first line, for a failure that has no error of its own */
    int progress;
} dump_job;

/* Bitmaps (-b png exists from API 35) and the GC: -g from API 27, before that the caller's GC. */
static int choose_flags(dump_job *j, char *err, size_t errlen)
{
    hk_device *dev = j->dev;
    const hk_dump_opts *opts = j->opts;
    j->res->bitmaps = opts->bitmaps < 0 ? dev->sdk >= 35 : opts->bitmaps;
    if (j->res->bitmaps && dev->sdk < 35) {
        snprintf(err, errlen,
                 "bitmap pixels in the dump (am dumpheap -b png) need API 35; %s is API %d: drop "
                 "--bitmaps (the jdwp plugin fetches pixels live on API 26-34)",
                 dev->serial, dev->sdk);
        return -1;
    }
    if (!opts->gc) return 0;
    if (dev->sdk >= 27) {
        j->g_flag = j->res->gc = 1;
    } else if (!opts->gc_fn) {
        note(j->res, "API %d has no `am dumpheap -g` and the jdwp plugin is not loaded: the dump is taken without GC",
             dev->sdk);
    } else {
        char gerr[512];
        if (opts->gc_fn(opts->gc_ctx, dev, j->pid, gerr, sizeof gerr) == 0) j->res->gc = 1;
        else note(j->res, "GC through JDWP failed (%.180s): the dump is taken without GC", gerr);
    }
    return 0;
}

/* The local file: the one asked for, else PROCESS-YYYYmmdd-HHMMSS.hprof. */
static void local_path(dump_job *j)
{
    hk_dump_result *res = j->res;
    if (j->opts->output && *j->opts->output) {
        snprintf(res->path, sizeof res->path, "%s", j->opts->output);
        return;
    }
    char stamp[32], safe[256];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
    snprintf(safe, sizeof safe, "%s", j->name);
    for (char *c = safe; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-') *c = '_';
    snprintf(res->path, sizeof res->path, "%s-%s.hprof", safe, stamp);
}

/* am dumpheap, its words read whatever its exit code: a rejected option can come back with
 * status 0. */
static int run_am(dump_job *j, char *err, size_t errlen)
{
    hk_device *dev = j->dev;
    char cmd[700], *out = NULL;
    int code;
    /* a pid given stays a pid (names can repeat); a name goes to am as it is */
    char *pend;
    long asked = strtol(j->opts->process, &pend, 10);
    const char *target = (!*pend && asked > 0) ? j->opts->process : j->name;
    snprintf(cmd, sizeof cmd, "am dumpheap%s%s %s %s", j->g_flag ? " -g" : "", j->res->bitmaps ? " -b png" : "", target,
             j->remote);
    if (j->progress) hk_report(HK_REPORT_PROGRESS, "dumping %s (pid %d) on %s...", j->name, j->pid, dev->serial);
    if (hk_adb_shell(dev->adb, dev->serial, cmd, dev->shell_v2, j->opts->timeout_s * 1000, &out, NULL, &code, err,
                     errlen) != 0)
        return -1;
    char amerr[1024];
    int rc = -1;
    if (hk_device_am_error(out, j->name, amerr, sizeof amerr)) {
        snprintf(err, errlen, "%s", amerr);
    } else if (code > 0) {
        char first[300];
        line_at(out, first, sizeof first);
        snprintf(err, errlen, "am dumpheap %s failed (exit %d): %s", j->name, code, first[0] ? first : "no output");
    } else {
        line_at(out, j->am_said, sizeof j->am_said);
        rc = 0;
    }
    free(out);
    return rc;
}

/* Waits until the remote file's size is non-zero and unchanged between two polls. */
static int wait_written(dump_job *j, int64_t *size, char *err, size_t errlen)
{
    const char *pe = getenv("HK_DUMP_POLL_MS");
    int poll_ms = pe && atoi(pe) > 0 ? atoi(pe) : 1000;
    int64_t last = -1;
    time_t start = time(NULL);
    int missing_polls = 0;
    for (;;) {
        int r = remote_size(j->dev, j->remote, size, err, errlen);
        if (r < 0) return -1;
        if (r == 1) {
            *size = -1;
            /* am said nothing wrong but no file appears: give up well before the long timeout */
            if (++missing_polls * poll_ms >= 15000) {
                snprintf(err, errlen, "am dumpheap %s reported no error but wrote no file %s (am said: %s)", j->name,
                         j->remote, j->am_said[0] ? j->am_said : "nothing");
                return -1;
            }
        } else if (*size > 0 && *size == last) {
            return 0;
        }
        if (time(NULL) - start > j->opts->timeout_s) {
            snprintf(err, errlen, "the dump of %s did not finish within %d s (%s is %lld bytes and still %s)", j->name,
                     j->opts->timeout_s, j->remote, (long long)*size, *size > 0 ? "growing" : "empty");
            return -1;
        }
        if (j->progress)
            hk_report(HK_REPORT_PROGRESS, "waiting for the dump to be written: %.1f MB",
                      *size > 0 ? *size / 1048576.0 : 0.0);
        last = *size;
        usleep((useconds_t)poll_ms * 1000);
    }
}

int hk_device_dump_heap(hk_device *dev, const hk_dump_opts *opts, hk_dump_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (!opts->process || !*opts->process) {
        snprintf(err, errlen, "dump: which process? (see `hprofkit processes`)");
        return -1;
    }
    dump_job j = {.dev = dev, .opts = opts, .res = res, .progress = opts->progress != 0};
    if (resolve_process(dev, opts->process, &j.pid, j.name, sizeof j.name, err, errlen) != 0) return -1;
    res->pid = j.pid;
    if (choose_flags(&j, err, errlen) != 0) return -1;
    hk_device_remove_leftovers(dev);
    hk_device_dump_remote_name(j.pid, j.remote, sizeof j.remote);
    local_path(&j);
    int64_t size = 0;
    if (run_am(&j, err, errlen) != 0 || wait_written(&j, &size, err, errlen) != 0) {
        remove_remote(dev, j.remote, err, errlen);
        return -1;
    }
    if (j.progress) hk_report(HK_REPORT_PROGRESS, "the dump is written: %.1f MB", size / 1048576.0);
    progress_ctx pc = {j.progress, {0, 0}};
    int rc = hk_adb_pull(dev->adb, dev->serial, j.remote, res->path, size, pull_progress, &pc, err, errlen);
    remove_remote(dev, j.remote, rc != 0 ? err : NULL, errlen);
    if (rc != 0) return -1;
    res->bytes = (uint64_t)size;
    return 0;
}
