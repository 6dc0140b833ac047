/* Taking a heap dump off a device: am dumpheap into /data/local/tmp (files there belong to shell,
 * so sync can read them), wait until the size stops changing (older Android returns before the
 * file is complete), pull with a size check, remove the remote file. */
#include "device.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static hk_device_gc_fn g_gc_hook;
static void *g_gc_ctx;

void hk_device_set_gc_hook(hk_device_gc_fn fn, void *ctx)
{
    g_gc_hook = fn;
    g_gc_ctx = ctx;
}

void hk_dump_opts_init(hk_dump_opts *o)
{
    memset(o, 0, sizeof *o);
    o->gc = 1;
    o->bitmaps = -1;
    o->progress = -1;
    o->timeout_s = 300;
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

int hk_device_am_error(const char *o, const char *process, char *msg, size_t msglen)
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

/* A note both goes into the result (for JSON/Lua) and to stderr, so it is never silent. */
static void note_print(hk_dump_result *res)
{
    fprintf(stderr, "hprofkit: note: %s\n", res->note);
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
    fprintf(stderr, "\rpulling the dump: %.1f / %.1f MB ", done / 1048576.0, total / 1048576.0);
    if (done >= total) fputc('\n', stderr);
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

static void remove_remote(hk_device *dev, const char *remote)
{
    char cmd[600], e[256], *out = NULL;
    int code;
    snprintf(cmd, sizeof cmd, "rm -f %s", remote);
    if (hk_device_shell(dev, cmd, &out, NULL, &code, e, sizeof e) != 0)
        fprintf(stderr, "hprofkit: warning: could not remove %s from %s: %s\n", remote, dev->serial, e);
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

int hk_device_dump_heap(hk_device *dev, const hk_dump_opts *opts, hk_dump_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (!opts->process || !*opts->process) {
        snprintf(err, errlen, "dump: which process? (see `hprofkit processes`)");
        return -1;
    }
    int pid;
    char name[256];
    if (resolve_process(dev, opts->process, &pid, name, sizeof name, err, errlen) != 0) return -1;
    res->pid = pid;
    progress_ctx pc = {opts->progress < 0 ? isatty(2) : opts->progress, {0, 0}};

    /* bitmaps: -b png exists from API 35 */
    int bitmaps = opts->bitmaps < 0 ? dev->sdk >= 35 : opts->bitmaps;
    if (bitmaps && dev->sdk < 35) {
        snprintf(err, errlen,
                 "bitmap pixels in the dump (am dumpheap -b png) need API 35; %s is API %d: drop "
                 "--bitmaps (the jdwp plugin fetches pixels live on API 26-34)",
                 dev->serial, dev->sdk);
        return -1;
    }
    /* GC: -g from API 27, before that through the hook (the JDWP plugin) */
    int g_flag = 0;
    if (opts->gc && dev->sdk >= 27) {
        g_flag = 1;
        res->gc = 1;
    } else if (opts->gc) {
        if (!g_gc_hook) {
            snprintf(res->note, sizeof res->note,
                     "API %d has no `am dumpheap -g` and the jdwp plugin is not loaded: the dump is taken without GC",
                     dev->sdk);
            note_print(res);
        } else {
            char gerr[512];
            if (g_gc_hook(g_gc_ctx, dev, pid, gerr, sizeof gerr) == 0) res->gc = 1;
            else {
                snprintf(res->note, sizeof res->note, "GC through JDWP failed (%.180s): the dump is taken without GC",
                         gerr);
                note_print(res);
            }
        }
    }
    res->bitmaps = bitmaps;

    char remote[256];
    snprintf(remote, sizeof remote, "/data/local/tmp/hprofkit-%d-%lld.hprof", pid, (long long)time(NULL));
    if (opts->output && *opts->output) {
        snprintf(res->path, sizeof res->path, "%s", opts->output);
    } else {
        char stamp[32], safe[256];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
        snprintf(safe, sizeof safe, "%s", name);
        for (char *c = safe; *c; c++)
            if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-') *c = '_';
        snprintf(res->path, sizeof res->path, "%s-%s.hprof", safe, stamp);
    }

    char cmd[700], *out = NULL;
    int code;
    /* a pid given stays a pid (names can repeat); a name goes to am as it is */
    char *pend;
    long asked = strtol(opts->process, &pend, 10);
    const char *target = (!*pend && asked > 0) ? opts->process : name;
    snprintf(cmd, sizeof cmd, "am dumpheap%s%s %s %s", g_flag ? " -g" : "", bitmaps ? " -b png" : "", target, remote);
    if (pc.on) fprintf(stderr, "dumping %s (pid %d) on %s...\n", name, pid, dev->serial);
    if (hk_adb_shell(dev->adb, dev->serial, cmd, dev->shell_v2, opts->timeout_s * 1000, &out, NULL, &code, err,
                     errlen) != 0) {
        remove_remote(dev, remote);
        return -1;
    }
    /* read am's words whatever its exit code: a rejected option can come back with status 0 */
    char amerr[512];
    if (hk_device_am_error(out, name, amerr, sizeof amerr)) {
        snprintf(err, errlen, "%s", amerr);
        free(out);
        remove_remote(dev, remote);
        return -1;
    }
    if (code > 0) {
        char first[300];
        line_at(out, first, sizeof first);
        snprintf(err, errlen, "am dumpheap %s failed (exit %d): %s", name, code, first[0] ? first : "no output");
        free(out);
        remove_remote(dev, remote);
        return -1;
    }
    char am_first[300];
    line_at(out, am_first, sizeof am_first);
    free(out);

    /* wait until the size is non-zero and unchanged between two polls */
    const char *pe = getenv("HK_DUMP_POLL_MS");
    int poll_ms = pe && atoi(pe) > 0 ? atoi(pe) : 1000;
    int64_t last = -1, size = 0;
    time_t start = time(NULL);
    int missing_polls = 0;
    for (;;) {
        int r = remote_size(dev, remote, &size, err, errlen);
        if (r < 0) {
            remove_remote(dev, remote);
            return -1;
        }
        if (r == 1) {
            size = -1;
            /* am said nothing wrong but no file appears: give up well before the long timeout */
            if (++missing_polls * poll_ms >= 15000) {
                snprintf(err, errlen, "am dumpheap %s reported no error but wrote no file %s (am said: %s)", name,
                         remote, am_first[0] ? am_first : "nothing");
                return -1;
            }
        } else if (size > 0 && size == last) {
            break;
        }
        if (time(NULL) - start > opts->timeout_s) {
            snprintf(err, errlen, "the dump of %s did not finish within %d s (%s is %lld bytes and still %s)", name,
                     opts->timeout_s, remote, (long long)size, size > 0 ? "growing" : "empty");
            remove_remote(dev, remote);
            return -1;
        }
        if (pc.on) fprintf(stderr, "\rwaiting for the dump to be written: %.1f MB ", size > 0 ? size / 1048576.0 : 0.0);
        last = size;
        usleep((useconds_t)poll_ms * 1000);
    }
    if (pc.on) fprintf(stderr, "\rthe dump is written: %.1f MB            \n", size / 1048576.0);
    int rc = hk_adb_pull(dev->adb, dev->serial, remote, res->path, size, pull_progress, &pc, err, errlen);
    remove_remote(dev, remote);
    if (rc != 0) return -1;
    res->bytes = (uint64_t)size;
    return 0;
}
