/* logcat text -> records: each line framed (dl_frame.c), then read by its tag's family:
 * lowmemorykiller (dl_lmk.c), the event-log tags (dl_events.c), ActivityManager, the
 * zygote, AndroidRuntime and libc. */
#include <stdio.h>
#include <string.h>

#include "deaths.h"

/* "Killing <pid>:<process>/<uid> (adj <adj>): <reason>" */
static int am_killing(dl_records *rs, const dl_frame *fr, int line, const char *p, const char *end)
{
    long long pid, adj;
    const char *q;
    if (!dl_int_at(p + 8, end, &pid, &q) || q >= end || *q != ':') return 0;
    const char *name = q + 1, *paren = dl_find(name, end, " (adj ");
    if (!paren) return 0;
    const char *slash = paren;
    while (slash > name && *slash != '/') slash--;
    dl_record *r = dl_new_record(rs, "am_killing", fr->layout, line);
    dl_set_num(r, "pid", pid);
    dl_set(r, "process", name, (size_t)((slash > name ? slash : paren) - name));
    if (slash > name) dl_set(r, "uid", slash + 1, (size_t)(paren - slash - 1));
    if (dl_int_at(paren + 6, end, &adj, &q)) dl_set_num(r, "adj", adj);
    const char *colon = dl_find(paren, end, "): ");
    if (colon) dl_set(r, "reason", colon + 3, (size_t)(end - colon - 3));
    return 1;
}

/* "Process <process> (pid <pid>)[ (adj N)] has died[.|: <adj-name> <state>]" */
static int am_has_died(dl_records *rs, const dl_frame *fr, int line, const char *p, const char *end)
{
    const char *open = dl_find(p, end, " (pid "), *hd = dl_find(p, end, " has died");
    long long pid, adj;
    const char *q;
    if (!open || !hd || open < p + 8 || hd < open || !dl_int_at(open + 6, end, &pid, &q)) return 0;
    dl_record *r = dl_new_record(rs, "am_has_died", fr->layout, line);
    dl_set(r, "process", p + 8, (size_t)(open - p - 8));
    dl_set_num(r, "pid", pid);
    const char *a = dl_find(q, hd, "(adj ");
    if (a && dl_int_at(a + 5, end, &adj, NULL)) dl_set_num(r, "adj", adj);
    const char *rest = dl_skip_ws(hd + 9, end);
    if (rest < end && *rest == ':') {
        rest = dl_skip_ws(rest + 1, end);
        const char *sp = memchr(rest, ' ', (size_t)(end - rest));
        dl_set(r, "adj_name", rest, (size_t)((sp ? sp : end) - rest));
        if (sp) dl_set(r, "proc_state", sp + 1, (size_t)(end - sp - 1));
    }
    return 1;
}

/* "Start proc <pid>:<process>/<uid> for <type> <component>" or
 * "Start proc <process> for <type> <component>: pid=<pid> uid=<uid> ..." */
static int am_start(dl_records *rs, const dl_frame *fr, int line, const char *p, const char *end)
{
    const char *s = p + 11, *forw = dl_find(s, end, " for ");
    if (!forw) return 0;
    dl_record *r = dl_new_record(rs, "am_start_proc", fr->layout, line);
    long long v;
    const char *q;
    if (dl_int_at(s, forw, &v, &q) && q < forw && *q == ':') {
        dl_set_num(r, "pid", v);
        const char *slash = forw;
        while (slash > q && *slash != '/') slash--;
        dl_set(r, "process", q + 1, (size_t)((slash > q ? slash : forw) - q - 1));
        if (slash > q) dl_set(r, "uid", slash + 1, (size_t)(forw - slash - 1));
    } else {
        dl_set(r, "process", s, (size_t)(forw - s));
    }
    const char *t = forw + 5, *sp = memchr(t, ' ', (size_t)(end - t));
    if (sp) dl_set(r, "type", t, (size_t)(sp - t));
    const char *pe = sp ? dl_find(sp + 1, end, ": pid=") : NULL;
    if (sp) dl_set(r, "component", sp + 1, (size_t)((pe ? pe : end) - sp - 1));
    const char *w = dl_find(t, end, "pid=");
    if (w && dl_int_at(w + 4, end, &v, NULL)) dl_set_num(r, "pid", v);
    w = dl_find(t, end, " uid=");
    if (w && dl_int_at(w + 5, end, &v, NULL)) dl_set_num(r, "uid", v);
    return 1;
}

static int activity_manager(dl_records *rs, const dl_frame *fr, int line, const char *p, const char *end)
{
    if (dl_starts(p, end, "Killing ")) return am_killing(rs, fr, line, p, end);
    if (dl_starts(p, end, "Process ")) return am_has_died(rs, fr, line, p, end);
    if (dl_starts(p, end, "Start proc ")) return am_start(rs, fr, line, p, end);
    if (dl_starts(p, end, "ANR in ")) {
        dl_record *r = dl_new_record(rs, "am_anr_log", fr->layout, line);
        const char *sp = memchr(p + 7, ' ', (size_t)(end - p - 7));
        dl_set(r, "process", p + 7, (size_t)((sp ? sp : end) - p - 7));
        return 1;
    }
    long long pid;
    if (dl_starts(p, end, "PID: ") && dl_int_at(p + 5, end, &pid, NULL) && rs->n &&
        !strcmp(rs->r[rs->n - 1].kind, "am_anr_log") && rs->r[rs->n - 1].line >= line - 4)
        dl_set_num(&rs->r[rs->n - 1], "pid", pid);
    return 0;
}

/* "Process <pid> exited due to signal (<n>)", "... signal <n> (<name>)", "... exited cleanly (<n>)" */
static int zygote(dl_records *rs, const dl_frame *fr, int line, const char *p, const char *end)
{
    long long pid, v;
    const char *q;
    if (!dl_starts(p, end, "Process ") || !dl_int_at(p + 8, end, &pid, &q)) return 0;
    const char *sig = dl_find(q, end, "exited due to signal"), *clean = dl_find(q, end, "exited cleanly");
    if (!sig && !clean) return 0;
    dl_record *r = dl_new_record(rs, sig ? "zygote_signal" : "zygote_exit", fr->layout, line);
    dl_set_num(r, "pid", pid);
    const char *n = sig ? sig + 20 : clean + 14;
    n = dl_skip_ws(n, end);
    if (n < end && *n == '(') n++;
    if (dl_int_at(n, end, &v, &q)) dl_set_num(r, sig ? "signal" : "status", v);
    return 1;
}

/* "Fatal signal 11 (SIGSEGV), code 1 (...), fault addr 0x0 in tid 1234 (name), pid 1234 (process)" */
static int native_crash(dl_records *rs, const dl_frame *fr, int line, const char *p, const char *end)
{
    long long v;
    const char *q;
    if (!dl_int_at(p + 13, end, &v, &q)) return 0;
    dl_record *r = dl_new_record(rs, "native_crash", fr->layout, line);
    dl_set_num(r, "signal", v);
    q = dl_skip_ws(q, end);
    const char *c = q < end && *q == '(' ? memchr(q, ')', (size_t)(end - q)) : NULL;
    if (c) dl_set(r, "signal_name", q + 1, (size_t)(c - q - 1));
    const char *w = dl_find(p, end, ", pid ");
    if (w && dl_int_at(w + 6, end, &v, &q)) {
        dl_set_num(r, "pid", v);
        q = dl_skip_ws(q, end);
        c = q < end && *q == '(' ? memchr(q, ')', (size_t)(end - q)) : NULL;
        if (c) dl_set(r, "process", q + 1, (size_t)(c - q - 1));
    } else if (fr->pid >= 0) dl_set_num(r, "pid", fr->pid);
    return 1;
}

static int java_crash(dl_records *rs, const dl_frame *fr, int line, const char *p, const char *end)
{
    if (dl_starts(p, end, "FATAL EXCEPTION")) {
        dl_record *r = dl_new_record(rs, "java_crash", fr->layout, line);
        const char *c = memchr(p, ':', (size_t)(end - p));
        if (c) dl_set(r, "thread", c + 1, (size_t)(end - c - 1));
        if (fr->pid >= 0) dl_set_num(r, "pid", fr->pid);
        return 1;
    }
    const char *w = dl_find(p, end, ", PID: ");
    long long pid;
    if (dl_starts(p, end, "Process: ") && w && dl_int_at(w + 7, end, &pid, NULL) && rs->n &&
        !strcmp(rs->r[rs->n - 1].kind, "java_crash") && rs->r[rs->n - 1].line >= line - 4) {
        dl_set(&rs->r[rs->n - 1], "process", p + 9, (size_t)(w - p - 9));
        dl_set_num(&rs->r[rs->n - 1], "pid", pid);
    }
    return 0;
}

int dl_message(dl_records *rs, const dl_frame *fr, int line)
{
    const char *end = fr->msg + fr->msglen, *p = dl_skip_ws(fr->msg, end);
    const char *t = fr->tag;
    if (!strcmp(t, "lowmemorykiller")) return dl_lmk_message(rs, fr, line);
    if (!strcmp(t, "ActivityManager")) return activity_manager(rs, fr, line, p, end);
    if (!strncmp(t, "Zygote", 6)) return zygote(rs, fr, line, p, end);
    if (!strcmp(t, "AndroidRuntime")) return java_crash(rs, fr, line, p, end);
    if (dl_starts(p, end, "Fatal signal ")) return native_crash(rs, fr, line, p, end);
    if (p < end && *p == '[') return dl_events_payload(rs, fr, line);
    if (!strcmp(t, "am_low_memory") || !strcmp(t, "am_mem_factor")) return dl_events_payload(rs, fr, line);
    return 0;
}

static void stamp(dl_record *r, const dl_frame *fr)
{
    if (fr->time[0]) dl_set_str(r, "log_time", fr->time);
    if (fr->epoch >= 0) {
        char b[40];
        snprintf(b, sizeof b, "%.3f", fr->epoch);
        dl_set_str(r, "log_epoch", b);
    }
    if (fr->pid >= 0) dl_set_num(r, "log_pid", fr->pid);
    dl_set_str(r, "log_tag", fr->tag);
}

void dl_logcat_parse(const char *text, size_t n, dl_records *out)
{
    const char *p = text, *end = text + n;
    int line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
        line++;
        dl_frame fr;
        int before = out->n;
        if (dl_frame_line(p, (size_t)(le - p), &fr)) {
            if (dl_message(out, &fr, line) && out->n > before) stamp(&out->r[out->n - 1], &fr);
        } else {
            dl_lmk_continuation(out, line, p, le);
        }
        p = nl ? nl + 1 : end;
    }
}
