/* logcat and date as a device of each Android version answers them (FORMATS.md in
 * ../shared/reference/logcat/, from logcat.cpp and logprint.cpp at each release tag):
 *   -v epoch (and uid, year, monotonic) from API 24; 23 and below print an error and the usage
 *   and exit non-zero (23: "Invalid parameter epoch to -v", exit 1; 19-22: "Invalid parameter
 *   to -v", exit 255), reading nothing;
 *   -t: a line count on 19-20; a count or 'MM-DD hh:mm:ss.mmm' on 21-23; also seconds.millis
 *   from 24;  -b crash from 21, -b kernel from 23.
 * The log: `log=` of each curve step served so far (every buffer), and the file `logcat`,
 * lines "STEP BUFFER PID TID PRIO TAG: MESSAGE" (MESSAGE verbatim), stamped
 * CURVE_EPOCH + STEP + 0.5 s (+ 1 ms per earlier line of the step).  The clock is UTC.
 * `logcat_broken` present: logcat prints its text on stderr and exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adbd.h"

int adbd_sdk(void)
{
    char *props = slurp(cfg_path("props"));
    const char *p = strstr(props, "ro.build.version.sdk=");
    int sdk = p ? atoi(p + 21) : 35;
    free(props);
    return sdk > 0 ? sdk : 35;
}

typedef struct {
    double ts;
    char buf[16];
    int pid, tid;
    char prio;
    char tag[64];
    char msg[1024];
} entry;

typedef struct {
    int epoch, brief, nbufs, count, have_since;
    char bufs[8][16];
    double since;
    char since_text[32];
} opts;

static void clock_text(double ts, char *b, size_t n)
{
    time_t t = (time_t)ts;
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(b, n, "%02d-%02d %02d:%02d:%02d.%03d", tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)((ts - (double)t) * 1000 + 0.5));
}

/* "PID TID PRIO TAG: MESSAGE" -> e; 0 when malformed */
static int parse_spec(const char *s, entry *e)
{
    int used = 0;
    if (sscanf(s, "%d %d %c %n", &e->pid, &e->tid, &e->prio, &used) < 3) return 0;
    const char *tag = s + used, *c = strstr(tag, ": ");
    if (!c) return 0;
    snprintf(e->tag, sizeof e->tag, "%.*s", (int)(c - tag), tag);
    snprintf(e->msg, sizeof e->msg, "%s", c + 2);
    return 1;
}

static int collect(entry **out, int pos)
{
    int n = 0, cap = 64;
    entry *v = malloc(cap * sizeof *v);
    char *curve = slurp(cfg_path("curve")), *file = slurp(cfg_path("logcat"));
    int step = 0, per[4096] = {0};
    for (char *save = NULL, *l = strtok_r(curve, "\n", &save); l && step <= pos; l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "pid=", 4)) continue;
        char *log = strstr(l, " log=");
        if (log && parse_spec(log + 5, &v[n])) {
            strcpy(v[n].buf, "any");
            v[n].ts = CURVE_EPOCH + step + 0.5 + 0.001 * per[step]++;
            n++;
        }
        step++;
    }
    for (char *save = NULL, *l = strtok_r(file, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        int st = 0, used = 0;
        if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
        if (sscanf(l, "%d %15s %n", &st, v[n].buf, &used) < 2 || st > pos || st < 0 || st >= 4096) continue;
        if (!parse_spec(l + used, &v[n])) continue;
        v[n].ts = CURVE_EPOCH + st + 0.5 + 0.001 * per[st]++;
        n++;
    }
    free(curve);
    free(file);
    *out = v;
    return n;
}

static int by_time(const void *a, const void *b)
{
    double x = ((const entry *)a)->ts, y = ((const entry *)b)->ts;
    return x < y ? -1 : x > y;
}

static const char *k_usage = "Usage: logcat [options] [filterspecs]\noptions include:\n  -s              Set default "
                             "filter to silent.\n  -v <format>     Sets the log print format\n";

static int bad_format(const char *w, int sdk, buf_t *errb)
{
    if (sdk >= 24) {
        bprintf(errb, "logcat: Invalid parameter '%s' to -v.\n", w);
        return 1;
    }
    if (sdk == 23) bprintf(errb, "Invalid parameter %s to -v\n\n%s", w, k_usage);
    else bprintf(errb, "Invalid parameter to -v\n\n%s", k_usage);
    return sdk == 23 ? 1 : 255;
}

static int format_word(const char *w, int sdk, opts *o, buf_t *errb)
{
    static const char *old[] = {"brief", "process", "tag", "thread", "raw", "time", "threadtime", "long", NULL};
    static const char *m[] = {"color", "usec", "printable", NULL};
    static const char *n[] = {"epoch", "monotonic", "uid", "year", "zone", "descriptive", NULL};
    int ok = 0;
    for (int i = 0; old[i]; i++) ok |= !strcmp(w, old[i]);
    for (int i = 0; sdk >= 23 && m[i]; i++) ok |= !strcmp(w, m[i]);
    for (int i = 0; sdk >= 24 && n[i]; i++) ok |= !strcmp(w, n[i]);
    if (!ok) return bad_format(w, sdk, errb);
    if (!strcmp(w, "epoch")) o->epoch = 1;
    if (!strcmp(w, "brief")) o->brief = 1;
    return 0;
}

static int time_arg(const char *t, int sdk, opts *o, buf_t *errb)
{
    int digits = t[0] != 0, mo, d, h, mi, s, ms;
    for (const char *p = t; *p; p++) digits &= *p >= '0' && *p <= '9';
    if (digits || sdk <= 20) {
        o->count = atoi(t);
        return 0;
    }
    if (sscanf(t, "%2d-%2d %2d:%2d:%2d.%3d", &mo, &d, &h, &mi, &s, &ms) == 6) {
        o->have_since = 2;
        snprintf(o->since_text, sizeof o->since_text, "%s", t);
        return 0;
    }
    if (sdk >= 24 && strchr(t, '.')) {
        o->have_since = 1;
        o->since = atof(t);
        return 0;
    }
    bprintf(errb, "-t \"%s\" not in \"%%m-%%d %%H:%%M:%%S.%%q\" time format\n", t);
    return 1;
}

static int buffer_arg(const char *b, int sdk, opts *o, buf_t *errb)
{
    int ok = !strcmp(b, "main") || !strcmp(b, "system") || !strcmp(b, "events") || !strcmp(b, "radio") ||
             (!strcmp(b, "crash") && sdk >= 21) || (!strcmp(b, "kernel") && sdk >= 23) || !strcmp(b, "all");
    if (!ok) {
        if (sdk < 21) bprintf(errb, "Unable to open log device '/dev/log/%s': No such file or directory\n", b);
        else bprintf(errb, "logcat: unknown buffer %s\n", b);
        return 1;
    }
    if (o->nbufs < 8) snprintf(o->bufs[o->nbufs++], 16, "%s", b);
    return 0;
}

static int wanted(const entry *e, const opts *o)
{
    int in = o->nbufs == 0 ? strcmp(e->buf, "kernel") && strcmp(e->buf, "events") : 0;
    for (int i = 0; i < o->nbufs; i++) in |= !strcmp(o->bufs[i], e->buf) || !strcmp(o->bufs[i], "all");
    if (!strcmp(e->buf, "any")) in = 1;
    if (o->have_since == 1 && e->ts < o->since) return 0;
    if (o->have_since == 2) {
        char c[32];
        clock_text(e->ts, c, sizeof c);
        if (strcmp(c, o->since_text) < 0) return 0;
    }
    return in;
}

static void print_entry(const entry *e, const opts *o, buf_t *out)
{
    char when[40];
    if (o->brief) {
        bprintf(out, "%c/%-8s(%5d): %s\n", e->prio, e->tag, e->pid, e->msg);
        return;
    }
    if (o->epoch) snprintf(when, sizeof when, "%19ld.%03d", (long)e->ts, (int)((e->ts - (long)e->ts) * 1000 + 0.5));
    else clock_text(e->ts, when, sizeof when);
    bprintf(out, "%s %5d %5d %c %-8s: %s\n", when, e->pid, e->tid, e->prio, e->tag, e->msg);
}

int adbd_logcat(char **argv, int argc, buf_t *out, buf_t *errb)
{
    int sdk = adbd_sdk(), rc = 0, pos = 0;
    opts o = {0};
    char *broken = slurp(cfg_path("logcat_broken"));
    if (*broken) {
        bprintf(errb, "%s", broken);
        free(broken);
        return 1;
    }
    free(broken);
    for (int i = 1; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "-v") && i + 1 < argc) rc = format_word(argv[++i], sdk, &o, errb);
        else if (!strcmp(argv[i], "-b") && i + 1 < argc) rc = buffer_arg(argv[++i], sdk, &o, errb);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) rc = time_arg(argv[++i], sdk, &o, errb);
    }
    step_t st;
    if (rc || !curve_step(&st, &pos)) return rc;
    entry *v;
    int n = collect(&v, pos), first = 0, kept = 0;
    qsort(v, (size_t)n, sizeof *v, by_time);
    for (int i = 0; i < n; i++) kept += wanted(&v[i], &o);
    for (int i = 0; i < n; i++) {
        if (!wanted(&v[i], &o)) continue;
        if (!o.count || first++ >= kept - o.count) print_entry(&v[i], &o, out);
    }
    free(v);
    return 0;
}

/* date +%s, and date +%m-%d_%H:%M:%S (the clock logcat's threadtime prints) */
int adbd_date(char **argv, int argc, buf_t *out)
{
    step_t st;
    int pos = 0;
    long now = curve_step(&st, &pos) ? CURVE_EPOCH + pos : (long)time(NULL);
    if (argc == 2 && !strcmp(argv[1], "+%s")) {
        bprintf(out, "%ld\n", now);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "+%m-%d_%H:%M:%S")) {
        char c[32];
        clock_text((double)now, c, sizeof c);
        c[14] = 0;
        bprintf(out, "%.5s_%s\n", c, c + 6);
        return 0;
    }
    return -1;
}
