/* One logcat line split into time, pid, tid, priority, tag and message, in every layout
 * logcat prints (threadtime, -v epoch, -v uid, -v year, brief, time) and the ones people
 * paste (Android Studio's, log-viewer columns, dmesg).  The tag is read up to its colon and
 * its padding dropped, so `am_kill : [` and `lowmemorykiller: Kill` read alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deaths.h"

static int is_prio(char c)
{
    return strchr("VDIWEFAS", c) != NULL && c;
}
static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static void set_tag(dl_frame *fr, const char *p, size_t n)
{
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    while (n && (*p == ' ' || *p == '\t')) p++, n--;
    if (n >= sizeof fr->tag) n = sizeof fr->tag - 1;
    memcpy(fr->tag, p, n);
    fr->tag[n] = 0;
}

/* "TAG: msg" with TAG padded: the tag ends at the first colon. */
static int tag_colon(const char *p, const char *end, dl_frame *fr)
{
    const char *c = memchr(p, ':', (size_t)(end - p));
    if (!c || c == p) return 0;
    set_tag(fr, p, (size_t)(c - p));
    if (!fr->tag[0]) return 0;
    c++;
    if (c < end && *c == ' ') c++;
    fr->msg = c;
    fr->msglen = (size_t)(end - c);
    return 1;
}

/* "P/TAG( PID): msg" (brief, and -v time after its clock) */
static int brief(const char *p, const char *end, dl_frame *fr)
{
    if (end - p < 4 || !is_prio(p[0]) || p[1] != '/') return 0;
    const char *open = memchr(p + 2, '(', (size_t)(end - p - 2));
    if (!open) return 0;
    const char *q = dl_skip_ws(open + 1, end);
    long long pid;
    if (!dl_int_at(q, end, &pid, &q) || q >= end || *q != ')' || q + 1 >= end || q[1] != ':') return 0;
    fr->prio = p[0];
    fr->pid = (int)pid;
    set_tag(fr, p + 2, (size_t)(open - p - 2));
    q += 2;
    if (q < end && *q == ' ') q++;
    fr->msg = q;
    fr->msglen = (size_t)(end - q);
    return 1;
}

/* Studio: "PID-TID/package P/TAG: msg" */
static int studio(const char *p, const char *end, dl_frame *fr)
{
    long long pid, tid;
    const char *q;
    if (!dl_int_at(p, end, &pid, &q) || q >= end || *q != '-' || !dl_int_at(q + 1, end, &tid, &q)) return 0;
    if (q >= end || *q != '/') return 0;
    while (q < end && *q != ' ') q++;
    q = dl_skip_ws(q, end);
    if (end - q < 3 || !is_prio(q[0]) || q[1] != '/') return 0;
    fr->pid = (int)pid;
    fr->tid = (int)tid;
    fr->prio = q[0];
    fr->layout = "studio";
    return tag_colon(q + 2, end, fr);
}

/* The whitespace-separated token at p: its end. */
static const char *token_end(const char *p, const char *end)
{
    while (p < end && *p != ' ' && *p != '\t') p++;
    return p;
}

/* After the clock: "[UID] PID TID P TAG: msg" (threadtime) or "PID TID TAG P msg" (columns). */
static int columns(const char *p, const char *end, dl_frame *fr)
{
    const char *tok[5], *tend[5];
    int n = 0;
    for (const char *q = dl_skip_ws(p, end); q < end && n < 5; q = dl_skip_ws(q, end)) {
        tok[n] = q;
        q = token_end(q, end);
        tend[n++] = q;
    }
    for (int i = 2; i <= 3 && i < n; i++) {
        if (tend[i] - tok[i] != 1 || !is_prio(*tok[i])) continue;
        long long pid, tid;
        const char *a, *b;
        if (!dl_int_at(tok[i - 2], tend[i - 2], &pid, &a) || a != tend[i - 2]) continue;
        if (!dl_int_at(tok[i - 1], tend[i - 1], &tid, &b) || b != tend[i - 1]) continue;
        fr->pid = (int)pid;
        fr->tid = (int)tid;
        fr->prio = *tok[i];
        if (fr->layout == NULL) fr->layout = i == 3 ? "threadtime-uid" : "threadtime";
        return tag_colon(tend[i] + 1 <= end ? tend[i] + 1 : end, end, fr);
    }
    /* log-viewer columns: PID TID TAG P MSG */
    long long pid, tid;
    const char *a;
    if (n >= 4 && dl_int_at(tok[0], tend[0], &pid, &a) && a == tend[0] && dl_int_at(tok[1], tend[1], &tid, &a) &&
        a == tend[1] && tend[3] - tok[3] == 1 && is_prio(*tok[3])) {
        fr->pid = (int)pid;
        fr->tid = (int)tid;
        fr->prio = *tok[3];
        set_tag(fr, tok[2], (size_t)(tend[2] - tok[2]));
        const char *m = dl_skip_ws(tend[3], end);
        fr->msg = m;
        fr->msglen = (size_t)(end - m);
        fr->layout = "columns";
        return 1;
    }
    return 0;
}

/* "[YYYY-]MM-DD hh:mm:ss.mmm[uuu]": its length, or 0 */
static size_t clock_len(const char *p, const char *end)
{
    static const char shape[] = "dd-dd dd:dd:dd.ddd";
    const char *s = p;
    if (end - p >= 5 && is_digit(p[0]) && is_digit(p[1]) && is_digit(p[2]) && is_digit(p[3]) && p[4] == '-') p += 5;
    if ((size_t)(end - p) < sizeof shape - 1) return 0;
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'd' ? !is_digit(p[i]) : p[i] != shape[i]) return 0;
    p += sizeof shape - 1;
    while (p < end && is_digit(*p)) p++;
    return (size_t)(p - s);
}

static int epoch(const char *p, const char *end, dl_frame *fr)
{
    const char *q = dl_skip_ws(p, end), *dot, *d;
    long long sec, frac;
    if (!dl_int_at(q, end, &sec, &dot) || dot >= end || *dot != '.' || !dl_int_at(dot + 1, end, &frac, &d)) return 0;
    if (d >= end || (*d != ' ' && *d != '\t') || sec < 100000000 || frac < 0) return 0;
    size_t digits = (size_t)(d - dot - 1);
    if (digits != 3 && digits != 6) return 0;
    fr->epoch = (double)sec + (double)frac / (digits == 3 ? 1e3 : 1e6);
    snprintf(fr->time, sizeof fr->time, "%.*s", (int)(d - q), q);
    fr->layout = "epoch";
    return columns(d, end, fr);
}

static int dmesg(const char *p, const char *end, dl_frame *fr)
{
    if (p < end && *p == '<') {
        const char *g = memchr(p, '>', (size_t)(end - p));
        if (!g || g - p > 4) return 0;
        p = g + 1;
    }
    if (p >= end || *p != '[') return 0;
    const char *c = memchr(p, ']', (size_t)(end - p));
    if (!c || c - p > 20) return 0;
    snprintf(fr->time, sizeof fr->time, "%.*s", (int)(c - p - 1), p + 1);
    fr->layout = "dmesg";
    return tag_colon(dl_skip_ws(c + 1, end), end, fr);
}

int dl_frame_line(const char *line, size_t n, dl_frame *fr)
{
    const char *end = line + n;
    memset(fr, 0, sizeof *fr);
    fr->epoch = -1;
    fr->pid = fr->tid = -1;
    size_t cl = clock_len(line, end);
    if (cl) {
        snprintf(fr->time, sizeof fr->time, "%.*s", (int)cl, line);
        const char *p = dl_skip_ws(line + cl, end);
        if (studio(p, end, fr)) return 1;
        if (brief(p, end, fr)) {
            fr->layout = "time";
            return 1;
        }
        return columns(p, end, fr);
    }
    if (brief(line, end, fr)) {
        fr->layout = "brief";
        return 1;
    }
    if (epoch(line, end, fr)) return 1;
    memset(fr, 0, sizeof *fr);
    fr->epoch = -1;
    fr->pid = fr->tid = -1;
    return dmesg(dl_skip_ws(line, end), end, fr);
}
