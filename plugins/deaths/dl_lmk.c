/* The low memory killers' lines (tag lowmemorykiller): lmkd's `Kill '…'` (10+) and
 * `Killing '…', uid …` (5.0-9.0, followed by continuation lines), the kernel driver's
 * `Killing '<comm>' (<pid>), adj <n>,` and its continuations, and lmkd noticing a pid gone.
 * Figures are read by the word before or after them ("oom_score_adj 905", "51234kB rss"),
 * so vendor additions and reordered figures read right. */
#include <stdio.h>
#include <string.h>

#include "deaths.h"

/* "<N>kB <label>" items up to ';' -> rss_kb, swap_kb, anon_rss_kb, dmabuf_kb; unlabelled
 * (lmkd 10-11: the task's size) -> to_free_kb. */
static const char *freed_name(const char *l, size_t n)
{
    static const struct {
        const char *label, *field;
    } k[] = {{"rss", "rss_kb"},  {"swap", "swap_kb"},         {"anon rss", "anon_rss_kb"},  {"dmabuf", "dmabuf_kb"},
             {"", "to_free_kb"}, {"file rss", "file_rss_kb"}, {"shmem rss", "shmem_rss_kb"}};
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
        if (strlen(k[i].label) == n && !memcmp(k[i].label, l, n)) return k[i].field;
    return NULL;
}

static void freed_list(dl_record *r, const char *p, const char *end)
{
    for (;;) {
        long long v;
        p = dl_skip_ws(p, end);
        if (!dl_int_at(p, end, &v, &p)) return;
        if (end - p < 2 || (p[0] != 'k' && p[0] != 'K') || (p[1] != 'B' && p[1] != 'b')) return;
        p += 2;
        const char *l = dl_skip_ws(p, end), *le = l;
        while (le < end && *le != ',' && *le != ';') le++;
        size_t ln = (size_t)(le - l);
        while (ln && l[ln - 1] == ' ') ln--;
        const char *name = freed_name(l, ln);
        if (name) dl_set_num(r, name, v);
        else dl_set(r, "other_freed", l, (size_t)(le - l));
        if (le >= end || *le == ';') return;
        p = le + 1;
    }
}

/* "'name' (pid)" -> process (or comm), pid; returns the text after, or NULL */
static const char *quoted_pid(dl_record *r, const char *p, const char *end, const char *name_field)
{
    if (p >= end || *p != '\'') return NULL;
    const char *q = memchr(p + 1, '\'', (size_t)(end - p - 1));
    if (!q) return NULL;
    dl_set(r, name_field, p + 1, (size_t)(q - p - 1));
    const char *o = dl_skip_ws(q + 1, end);
    long long pid;
    if (o >= end || *o != '(' || !dl_int_at(o + 1, end, &pid, &o) || o >= end || *o != ')') return NULL;
    dl_set_num(r, "pid", pid);
    return o + 1;
}

/* "word N" anywhere in [p, end) -> field */
static void word_num(dl_record *r, const char *p, const char *end, const char *word, const char *field)
{
    const char *w = dl_find(p, end, word);
    long long v;
    if (w && dl_int_at(dl_skip_ws(w + strlen(word), end), end, &v, NULL)) dl_set_num(r, field, v);
}

static int kill_line(dl_records *rs, const dl_frame *fr, int line, const char *p, const char *end)
{
    int modern = dl_starts(p, end, "Kill '");
    const char *after_name = p + (modern ? 5 : 8);
    int has_uid = dl_find(after_name, end, ", uid ") != NULL;
    dl_record *r = dl_new_record(rs, has_uid || modern ? "lmkd_kill" : "kernel_lmk_kill", fr->layout, line);
    const char *q = quoted_pid(r, after_name, end, has_uid || modern ? "process" : "comm");
    if (!q) return 1;
    const char *semi = dl_find(q, end, "; reason: ");
    const char *figs_end = semi ? semi : end;
    word_num(r, q, figs_end, " uid ", "uid");
    const char *adj = dl_find(q, figs_end, "oom_score_adj ");
    if (adj) word_num(r, adj, figs_end, "oom_score_adj ", "oom_score_adj");
    else if ((adj = dl_find(q, figs_end, "oom_adj "))) word_num(r, adj, figs_end, "oom_adj ", "oom_adj");
    else word_num(r, q, figs_end, " adj ", "adj");
    const char *tf = dl_find(q, figs_end, "to free ");
    if (tf) freed_list(r, tf + 8, figs_end);
    if (semi) dl_set(r, "reason", semi + 10, (size_t)(end - semi - 10));
    return 1;
}

/* A continuation line: its figures go to the last kill record, when it is near. */
static int continuation(dl_records *rs, int line, const char *p, const char *end)
{
    dl_record *r = NULL;
    for (int i = rs->n - 1; i >= 0 && rs->r[i].line >= line - 8; i--)
        if (!strcmp(rs->r[i].kind, "lmkd_kill") || !strcmp(rs->r[i].kind, "kernel_lmk_kill")) {
            r = &rs->r[i];
            break;
        }
    if (!r) return 0;
    if (dl_starts(p, end, "to free ")) {
        long long v;
        if (dl_int_at(p + 8, end, &v, NULL)) dl_set_num(r, "to_free_kb", v);
        const char *ob = dl_find(p, end, "on behalf of '");
        if (ob) {
            const char *q = memchr(ob + 14, '\'', (size_t)(end - ob - 14));
            if (q) dl_set(r, "on_behalf_of", ob + 14, (size_t)(q - ob - 14));
        }
        const char *under = dl_find(p, end, "system is under ");
        if (under) {
            const char *e = dl_find(under + 16, end, " memory pressure");
            if (e) dl_set(r, "pressure", under + 16, (size_t)(e - under - 16));
        }
        word_num(r, p, end, "oom_adj ", "min_oom_adj");
    }
    word_num(r, p, end, "cache ", "cache_kb");
    word_num(r, p, end, "below limit ", "limit_kb");
    word_num(r, p, end, "for oom_score_adj ", "min_oom_score_adj");
    if (dl_starts(p, end, "Free memory is ")) {
        word_num(r, p, end, "Free memory is ", "free_kb");
        dl_set_str(r, "free_vs_reserved", dl_find(p, end, "below reserved") ? "below" : "above");
    }
    return 1;
}

int dl_lmk_message(dl_records *rs, const dl_frame *fr, int line)
{
    const char *p = dl_skip_ws(fr->msg, fr->msg + fr->msglen), *end = fr->msg + fr->msglen;
    if (dl_starts(p, end, "Kill '") || dl_starts(p, end, "Killing '")) return kill_line(rs, fr, line, p, end);
    if (dl_starts(p, end, "Error opening /proc/") || dl_starts(p, end, "Failed to open /proc/")) {
        const char *q = dl_find(p, end, "/proc/");
        long long pid;
        if (!dl_int_at(q + 6, end, &pid, NULL)) return 0;
        dl_record *r = dl_new_record(rs, "lmkd_proc_gone", fr->layout, line);
        dl_set_num(r, "pid", pid);
        dl_set(r, "text", p, (size_t)(end - p));
        return 1;
    }
    return dl_lmk_continuation(rs, line, p, end);
}

/* A continuation line, also without a frame (dmesg prints a record's later lines with no
 * timestamp or tag, only indented). */
int dl_lmk_continuation(dl_records *rs, int line, const char *p, const char *end)
{
    p = dl_skip_ws(p, end);
    if (dl_starts(p, end, "to free ") || dl_starts(p, end, "cache ") || dl_starts(p, end, "Free memory is ") ||
        dl_starts(p, end, "Killing because cache "))
        return continuation(rs, line, p, end);
    return 0;
}
