/* `dumpsys activity exit-info` (AppExitInfoTracker / ApplicationExitInfo.dump) in its layouts
 * — one field a line without and with subreason, Android 15's four lines a record — and the
 * one-line ApplicationExitInfo.toString() apps log, logcat-framed or quoted or not.  Fields are
 * found by their names (`pid=`, `reason=`), wherever on the line they stand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deaths.h"

static const char *const k_keys[] = {"timestamp", "pid",         "realUid",   "packageUid", "definingUid", "user",
                                     "process",   "reason",      "subreason", "status",     "importance",  "pss",
                                     "rss",       "description", "state",     "trace"};
#define NKEYS (int)(sizeof k_keys / sizeof *k_keys)

/* ApplicationExitInfo.REASON_*: reasonCodeToString */
static const char *const k_reasons[] = {"UNKNOWN",
                                        "EXIT_SELF",
                                        "SIGNALED",
                                        "LOW_MEMORY",
                                        "APP CRASH(EXCEPTION)",
                                        "APP CRASH(NATIVE)",
                                        "ANR",
                                        "INITIALIZATION FAILURE",
                                        "PERMISSION CHANGE",
                                        "EXCESSIVE RESOURCE USAGE",
                                        "USER REQUESTED",
                                        "USER STOPPED",
                                        "DEPENDENCY DIED",
                                        "OTHER KILLS BY SYSTEM",
                                        "FREEZER",
                                        "STATE CHANGE",
                                        "PACKAGE UPDATED"};
/* ApplicationExitInfo.SUBREASON_*: subreasonToString */
static const char *const k_subreasons[] = {"UNKNOWN",
                                           "WAIT FOR DEBUGGER",
                                           "TOO MANY CACHED PROCS",
                                           "TOO MANY EMPTY PROCS",
                                           "TRIM EMPTY",
                                           "LARGE CACHED",
                                           "MEMORY PRESSURE",
                                           "EXCESSIVE CPU USAGE",
                                           "SYSTEM UPDATE_DONE",
                                           "KILL ALL FG",
                                           "KILL ALL BG EXCEPT",
                                           "KILL UID",
                                           "KILL PID",
                                           "INVALID START",
                                           "INVALID STATE",
                                           "IMPERCEPTIBLE",
                                           "REMOVE LRU",
                                           "ISOLATED NOT NEEDED",
                                           "CACHED IDLE FORCED APP STANDBY",
                                           "FREEZER BINDER IOCTL",
                                           "FREEZER BINDER TRANSACTION",
                                           "FORCE STOP",
                                           "REMOVE TASK",
                                           "STOP APP",
                                           "KILL BACKGROUND",
                                           "PACKAGE UPDATE",
                                           "UNDELIVERED BROADCAST",
                                           "SDK SANDBOX DIED",
                                           "SDK SANDBOX NOT NEEDED",
                                           "EXCESSIVE BINDER OBJECTS",
                                           "OOM KILL",
                                           "FREEZER BINDER ASYNC FULL"};

/* the key at p (after a space or at the line's start) followed by sep; -1 when none */
static int key_at(const char *p, const char *end, char sep, int loose)
{
    for (int k = 0; k < NKEYS; k++) {
        size_t n = strlen(k_keys[k]);
        if ((size_t)(end - p) <= n || p[n] != sep) continue;
        if (loose ? !strncasecmp(p, k_keys[k], n) : !memcmp(p, k_keys[k], n)) return k;
    }
    return -1;
}

/* "3 (LOW_MEMORY)" -> reason=3 reason_name=LOW_MEMORY (the table's name when none is printed) */
static void coded(dl_record *r, const char *name, const char *names_field, const char *v, size_t n,
                  const char *const *table, int tn)
{
    long long code;
    const char *q;
    if (!dl_int_at(v, v + n, &code, &q)) {
        dl_set(r, name, v, n);
        return;
    }
    dl_set_num(r, name, code);
    q = dl_skip_ws(q, v + n);
    const char *c = q < v + n && *q == '(' ? memchr(q, ')', (size_t)(v + n - q)) : NULL;
    if (c) dl_set(r, names_field, q + 1, (size_t)(c - q - 1));
    else if (code >= 0 && code < tn) dl_set_str(r, names_field, table[code]);
}

/* DebugUtils.printSizeValue: "0.00", "512KB", "49MB", "1.9GB" (bytes without a suffix) -> kB */
static void size_kb(dl_record *r, const char *name, const char *v, size_t n)
{
    char b[48], *e;
    snprintf(b, sizeof b, "%.*s", (int)(n < 40 ? n : 40), v);
    double x = strtod(b, &e);
    if (e == b) return;
    double mul = 1.0 / 1024;
    if (!strncasecmp(e, "KB", 2)) mul = 1;
    else if (!strncasecmp(e, "MB", 2)) mul = 1024;
    else if (!strncasecmp(e, "GB", 2)) mul = 1024.0 * 1024;
    else if (!strncasecmp(e, "TB", 2)) mul = 1024.0 * 1024 * 1024;
    else if (*e && *e != ' ') return;
    if (!(x >= 0 && x * mul < 9e15)) return; /* not a size (or NaN) */
    dl_set_num(r, name, (long long)(x * mul + 0.5));
}

static void put(dl_record *r, int k, const char *v, size_t n)
{
    const char *e = v + n;
    v = dl_skip_ws(v, e);
    n = (size_t)(e - v);
    const char *key = k_keys[k];
    if (!strcmp(key, "reason")) coded(r, "reason", "reason_name", v, n, k_reasons, 17);
    else if (!strcmp(key, "subreason")) coded(r, "subreason", "subreason_name", v, n, k_subreasons, 32);
    else if (!strcmp(key, "pss") || !strcmp(key, "rss")) {
        dl_set(r, !strcmp(key, "pss") ? "pss_text" : "rss_text", v, n);
        size_kb(r, !strcmp(key, "pss") ? "pss_kb" : "rss_kb", v, n);
    } else dl_set(r, key, v, n);
}

/* every "key=value" of a line; a value runs to the next key */
static void fields(dl_record *r, const char *p, const char *end, char sep, int loose)
{
    int k = -1;
    const char *v = NULL;
    for (const char *q = p; q < end; q++) {
        if (q != p && q[-1] != ' ' && q[-1] != '(' && q[-1] != '\t') continue;
        int nk = key_at(q, end, sep, loose);
        if (nk < 0) continue;
        if (k >= 0) put(r, k, v, (size_t)(q - v));
        k = nk;
        v = q + strlen(k_keys[nk]) + 1;
    }
    if (k >= 0) put(r, k, v, (size_t)(end - v));
}

typedef struct {
    dl_record *cur;
    char package[256], uid[32];
    int loose; /* the record is an app's own "Key: value" lines */
} ctx_t;

static dl_record *begin(dl_records *out, ctx_t *c, const char *layout, int line)
{
    c->cur = dl_new_record(out, "exit_info", layout, line);
    if (c->package[0]) dl_set_str(c->cur, "package", c->package);
    if (c->uid[0]) dl_set_str(c->cur, "uid", c->uid);
    return c->cur;
}

static void one_line(dl_records *out, ctx_t *c, const char *p, const char *end, int line)
{
    p = dl_skip_ws(p, end);
    while (p < end && (*p == '"' || *p == '\'')) p++;
    while (end > p && (end[-1] == ' ' || end[-1] == ',' || end[-1] == '"' || end[-1] == '\r')) end--;
    if (dl_starts(p, end, "package: ")) {
        snprintf(c->package, sizeof c->package, "%.*s", (int)(end - p - 9), p + 9);
        c->cur = NULL;
    } else if (dl_starts(p, end, "Historical Process Exit for uid=")) {
        snprintf(c->uid, sizeof c->uid, "%.*s", (int)(end - p - 32 < 30 ? end - p - 32 : 30), p + 32);
        c->cur = NULL;
    } else if (dl_starts(p, end, "ApplicationExitInfo(")) {
        c->loose = 0;
        if (end > p && end[-1] == ')') end--;
        fields(begin(out, c, "tostring", line), p + 20, end, '=', 0);
    } else if (dl_starts(p, end, "ApplicationExitInfo #") || dl_starts(p, end, "ApplicationExitInfo ")) {
        c->loose = 0;
        const char *colon = memchr(p, ':', (size_t)(end - p));
        dl_record *r = begin(out, c, "dumpsys", line);
        if (colon) fields(r, colon + 1, end, '=', 0);
    } else if (dl_starts(p, end, "Exit reason #")) {
        c->loose = 1;
        begin(out, c, "app-log", line);
    } else if (c->cur && key_at(p, end, c->loose ? ':' : '=', c->loose) >= 0) {
        fields(c->cur, p, end, c->loose ? ':' : '=', c->loose);
    } else {
        c->cur = NULL; /* a record's lines all start with a field: anything else ends it (bug reports) */
    }
}

void dl_exitinfo_parse(const char *text, size_t n, dl_records *out)
{
    const char *p = text, *end = text + n;
    ctx_t c = {0};
    int line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
        line++;
        dl_frame fr;
        if (dl_frame_line(p, (size_t)(le - p), &fr)) one_line(out, &c, fr.msg, fr.msg + fr.msglen, line);
        else one_line(out, &c, p, le, line);
        p = nl ? nl + 1 : end;
    }
}
