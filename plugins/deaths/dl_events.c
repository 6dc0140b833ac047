/* The event-log tags of a death or of memory pressure (`[v1,v2,...]` payloads).  Their values
 * are named from EventLogTags.logtags (frameworks/base) and lmkd's event.logtags per version:
 * which version wrote a line is told by the values' kinds (is there a user before the pid?),
 * never assumed from a position. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deaths.h"

#define MAXV 64

typedef struct {
    const char *v[MAXV];
    size_t len[MAXV];
    int n;
} payload;

static void split(const char *p, const char *end, payload *pl)
{
    p = dl_skip_ws(p, end);
    if (p < end && *p == '[') p++;
    const char *e = end;
    while (e > p && (e[-1] == ' ' || e[-1] == '\r')) e--;
    if (e > p && e[-1] == ']') e--;
    pl->n = 0;
    while (p <= e && pl->n < MAXV) {
        const char *c = memchr(p, ',', (size_t)(e - p));
        const char *ve = c ? c : e;
        pl->v[pl->n] = p;
        pl->len[pl->n++] = (size_t)(ve - p);
        if (!c) break;
        p = c + 1;
    }
}

static int is_num(const payload *pl, int i)
{
    long long v;
    const char *after;
    return i < pl->n && dl_int_at(pl->v[i], pl->v[i] + pl->len[i], &v, &after) && after == pl->v[i] + pl->len[i];
}

/* names[k] for value k; values past the names join the last name (free text with commas) */
static void name_values(dl_record *r, const payload *pl, const char *const *names, int nn, int from)
{
    for (int k = 0; k < nn && from + k < pl->n; k++) {
        int i = from + k;
        size_t len = pl->len[i];
        if (k == nn - 1 && pl->n > from + nn) len = (size_t)(pl->v[pl->n - 1] + pl->len[pl->n - 1] - pl->v[i]);
        dl_set(r, names[k], pl->v[i], len);
    }
}

/* a user field comes before the pid from the 4.2-era multi-user builds */
static int has_user(const payload *pl, int pid_then_text)
{
    return pid_then_text ? is_num(pl, 0) && is_num(pl, 1) && !is_num(pl, 2) : is_num(pl, 2);
}

static void am_kill(dl_record *r, const payload *pl)
{
    static const char *const names[] = {"user", "pid", "process", "oom_adj", "reason"};
    int u = has_user(pl, 1) ? 0 : 1;
    payload cut = *pl;
    /* Android 15+ adds the rss (kB) after the reason */
    if (pl->n >= 6 - u && is_num(pl, pl->n - 1)) {
        dl_set(r, "rss_kb", pl->v[pl->n - 1], pl->len[pl->n - 1]);
        cut.n--;
    }
    name_values(r, &cut, names + u, 5 - u, 0);
}

static void with_user(dl_record *r, const payload *pl, const char *const *names, int nn, int pid_then_text)
{
    int u = has_user(pl, pid_then_text) ? 0 : 1;
    name_values(r, pl, names + u, nn - u, 0);
}

static const char *const k_killinfo[] = {
    "pid",          "uid",          "oom_adj",           "min_oom_adj",       "task_size",      "kill_reason",
    "MemFree",      "Cached",       "SwapCached",        "Buffers",           "Shmem",          "Unevictable",
    "SwapTotal",    "SwapFree",     "ActiveAnon",        "InactiveAnon",      "ActiveFile",     "InactiveFile",
    "SReclaimable", "SUnreclaim",   "KernelStack",       "PageTables",        "IonHeap",        "IonHeapPool",
    "CmaFree",      "MsSinceEvent", "MsSincePrevWakeup", "WakeupsSinceEvent", "SkippedWakeups", "TaskSwapSize",
    "GPU",          "Thrashing",    "MaxThrashing",      "PsiMemSome",        "PsiMemFull",     "PsiIoSome",
    "PsiIoFull",    "PsiCpuSome"};

/* lmkd.cpp's kill_reasons; 1000+ are vendor kills */
static const char *kill_reason_name(long long v)
{
    static const char *const k[] = {"PRESSURE_AFTER_KILL",
                                    "NOT_RESPONDING",
                                    "LOW_SWAP_AND_THRASHING",
                                    "LOW_MEM_AND_SWAP",
                                    "LOW_MEM_AND_THRASHING",
                                    "DIRECT_RECL_AND_THRASHING",
                                    "LOW_MEM_AND_SWAP_UTIL",
                                    "LOW_FILECACHE_AFTER_THRASHING",
                                    "LOW_MEM",
                                    "DIRECT_RECL_STUCK"};
    if (v >= 0 && v < (long long)(sizeof k / sizeof *k)) return k[v];
    return v >= 1000 ? "VENDOR" : NULL;
}

static void killinfo(dl_record *r, const payload *pl)
{
    int nn = (int)(sizeof k_killinfo / sizeof *k_killinfo);
    for (int i = 0; i < pl->n && i < nn; i++) dl_set(r, k_killinfo[i], pl->v[i], pl->len[i]);
    dl_set_num(r, "values", pl->n);
    long long v;
    const char *kr = dl_get(r, "kill_reason");
    if (kr && dl_int_at(kr, kr + strlen(kr), &v, NULL) && kill_reason_name(v))
        dl_set_str(r, "kill_reason_name", kill_reason_name(v));
}

static const char *mem_factor_name(const char *s)
{
    static const char *const k[] = {"NORMAL", "MODERATE", "LOW", "CRITICAL"};
    return s && strlen(s) == 1 && s[0] >= '0' && s[0] <= '3' ? k[s[0] - '0'] : NULL;
}

static void mem_factor(dl_record *r, const payload *pl)
{
    static const char *const names[] = {"current", "previous"};
    name_values(r, pl, names, 2, 0);
    const char *c = mem_factor_name(dl_get(r, "current")), *p = mem_factor_name(dl_get(r, "previous"));
    if (c) dl_set_str(r, "current_name", c);
    if (p) dl_set_str(r, "previous_name", p);
}

int dl_events_payload(dl_records *rs, const dl_frame *fr, int line)
{
    static const char *const died[] = {"user", "pid", "process", "oom_adj", "proc_state"};
    static const char *const start[] = {"user", "pid", "uid", "process", "type", "component"};
    static const char *const anr[] = {"user", "pid", "process", "flags", "reason"};
    static const char *const crash[] = {"user", "pid", "process", "flags", "exception", "message", "file", "line"};
    static const char *const lowmem[] = {"lru_size"};
    const char *t = fr->tag;
    payload pl;
    split(fr->msg, fr->msg + fr->msglen, &pl);
    if (pl.n == 0 || (pl.n == 1 && pl.len[0] == 0)) return 0;
    dl_record *r;
    if (!strcmp(t, "am_kill")) am_kill(r = dl_new_record(rs, "am_kill", fr->layout, line), &pl);
    else if (!strcmp(t, "am_proc_died"))
        with_user(r = dl_new_record(rs, "am_proc_died", fr->layout, line), &pl, died, 5, 1);
    else if (!strcmp(t, "am_proc_start"))
        with_user(r = dl_new_record(rs, "am_proc_start", fr->layout, line), &pl, start, 6, 0);
    else if (!strcmp(t, "am_anr")) with_user(r = dl_new_record(rs, "am_anr", fr->layout, line), &pl, anr, 5, 1);
    else if (!strcmp(t, "am_crash")) with_user(r = dl_new_record(rs, "am_crash", fr->layout, line), &pl, crash, 8, 1);
    else if (!strcmp(t, "killinfo")) killinfo(r = dl_new_record(rs, "killinfo", fr->layout, line), &pl);
    else if (!strcmp(t, "am_low_memory"))
        name_values(r = dl_new_record(rs, "am_low_memory", fr->layout, line), &pl, lowmem, 1, 0);
    else if (!strcmp(t, "am_mem_factor")) mem_factor(r = dl_new_record(rs, "am_mem_factor", fr->layout, line), &pl);
    else return 0;
    (void)r;
    return 1;
}
