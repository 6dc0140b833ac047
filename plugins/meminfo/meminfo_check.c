/* Checks a parsed meminfo against its own arithmetic: TOTAL against the rows,
 * the App Summary against the definitions in android.os.Debug.MemoryInfo.
 * Every disagreement becomes a check with ok=false; nothing is corrected. */
#include "meminfo_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void mi_add_check(mi_meminfo *m, const char *name, int ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void mi_add_check(mi_meminfo *m, const char *name, int ok, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (mi_arena_grow(&m->arena, (void **)&m->checks, sizeof *m->checks, &m->capchecks, m->nchecks) < 0) return;
    mi_check *c = &m->checks[m->nchecks++];
    c->name = mi_arena_strndup(&m->arena, name, strlen(name));
    c->ok = ok;
    c->detail = mi_arena_strndup(&m->arena, tmp, strlen(tmp));
}

static int mi_col_any(const mi_table *t, const char *a, const char *b, const char *c)
{
    const char *names[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        int k = names[i] ? mi_table_col(t, names[i]) : -1;
        if (k >= 0) return k;
    }
    return -1;
}

/* Top-level row by name; old layouts say "Native"/"Dalvik". */
static const mi_row *mi_row_top(const mi_meminfo *m, const char *name)
{
    const mi_row *r = mi_table_row(&m->table, name);
    if (!r && !strcmp(name, "Native Heap")) r = mi_table_row(&m->table, "Native");
    if (!r && !strcmp(name, "Dalvik Heap")) r = mi_table_row(&m->table, "Dalvik");
    return r;
}

/* A sum with its own explanation ("Dalvik Heap Private Dirty 16400 + ..."). */
typedef struct mi_expr {
    int64_t sum;
    int missing; /* a required term was absent */
    char desc[700];
    char why[200];
} mi_expr;

static void mi_expr_term(mi_expr *e, int sign, const char *label, int64_t v)
{
    size_t l = strlen(e->desc);
    snprintf(e->desc + l, sizeof e->desc - l, "%s%s %lld", l ? (sign < 0 ? " - " : " + ") : (sign < 0 ? "-" : ""),
             label, (long long)v);
    e->sum += sign * v;
}

static void mi_expr_row(mi_expr *e, const mi_meminfo *m, const char *row, int col, int sign, int required)
{
    const mi_row *r = mi_row_top(m, row);
    if (col < 0 || !r || !r->has[col]) {
        if (required && !e->missing) {
            e->missing = 1;
            snprintf(e->why, sizeof e->why, "no %s value in row '%s'", col < 0 ? "such column" : m->table.cols[col],
                     row);
        }
        return;
    }
    char label[160];
    snprintf(label, sizeof label, "%s %s", r->name, m->table.cols[col]);
    mi_expr_term(e, sign, label, r->v[col]);
}

static void mi_expr_value(mi_expr *e, const char *label, int have, int64_t v, int sign)
{
    if (!have) {
        if (!e->missing) {
            e->missing = 1;
            snprintf(e->why, sizeof e->why, "%s is not printed", label);
        }
        return;
    }
    mi_expr_term(e, sign, label, v);
}

static void mi_check_expr(mi_meminfo *m, const char *name, int64_t printed, const mi_expr *e)
{
    if (e->missing) {
        mi_warn(m, "check '%s' skipped: %s", name, e->why);
        return;
    }
    if (printed == e->sum) mi_add_check(m, name, 1, "%lld = %s", (long long)printed, e->desc);
    else
        mi_add_check(m, name, 0, "printed %lld but %s = %lld (off by %lld)", (long long)printed, e->desc,
                     (long long)e->sum, (long long)(printed - e->sum));
}

static void mi_check_totals(mi_meminfo *m)
{
    const mi_table *t = &m->table;
    const mi_row *tot = mi_table_row(t, "TOTAL");
    if (!tot) {
        mi_add_check(m, "TOTAL present", 0, "the table has no TOTAL row: input truncated?");
        return;
    }
    int pss = mi_col_any(t, "Pss Total", "Pss", NULL);
    int swap = -1;
    for (int c = 0; c < t->ncols; c++)
        if (strstr(t->cols[c], "SwapPss") || strstr(t->cols[c], "Swap(Pss)")) swap = c;
    for (int c = 0; c < t->ncols; c++) {
        if (!tot->has[c]) continue;
        int64_t sum = 0;
        int nrows = 0;
        for (int i = 0; i < t->nrows; i++) {
            const mi_row *r = &t->rows[i];
            if (r->is_sub || r->is_total || !r->has[c]) continue;
            sum += r->v[c];
            nrows++;
        }
        char name[128];
        snprintf(name, sizeof name, "TOTAL %s", t->cols[c]);
        /* Debug.getTotalPss() adds the swapped-out PSS into TOTAL's Pss. */
        if (c == pss && swap >= 0 && tot->has[swap]) {
            int64_t want = sum + tot->v[swap];
            if (tot->v[c] == want)
                mi_add_check(m, name, 1, "%lld = sum of %d rows %lld + TOTAL %s %lld", (long long)tot->v[c], nrows,
                             (long long)sum, t->cols[swap], (long long)tot->v[swap]);
            else
                mi_add_check(m, name, 0, "printed %lld but sum of %d rows %lld + TOTAL %s %lld = %lld (off by %lld)",
                             (long long)tot->v[c], nrows, (long long)sum, t->cols[swap], (long long)tot->v[swap],
                             (long long)want, (long long)(tot->v[c] - want));
        } else if (tot->v[c] == sum) mi_add_check(m, name, 1, "%lld = sum of %d rows", (long long)sum, nrows);
        else
            mi_add_check(m, name, 0, "printed %lld but %d rows sum to %lld (off by %lld)", (long long)tot->v[c], nrows,
                         (long long)sum, (long long)(tot->v[c] - sum));
    }
}

/* The main table's columns a summary check reads. */
enum { MI_C_NONE, MI_C_PD, MI_C_PC, MI_C_PSS, MI_C_RSS, MI_C_SWAP, MI_C_N };

/* One term of a check: a row's value in a column, added or subtracted. */
typedef struct mi_term {
    const char *row;
    int col;      /* MI_C_* */
    int sign;     /* 1 or -1 */
    int required; /* without it the check is skipped with a warning */
} mi_term;

#define MI_MAX_TERMS 3

/* One App Summary value and what Debug.MemoryInfo computes it from: the terms, plus (optional)
 * rows summed over one or two columns, minus (optional) the five categories printed above it. */
typedef struct mi_summary_rule {
    int key;          /* MI_S_* */
    int rss;          /* 1: the summary's Rss column (Android 10+), 0: its Pss column */
    const char *what; /* the check is "App Summary <what>[ Rss]" */
    mi_term terms[MI_MAX_TERMS];
    const char *const *sum_rows; /* NULL-terminated; absent rows count as nothing */
    int sum_cols[2];
    int minus_parts;
    int jit_slack;    /* the JIT code caches may be missing from the rows: see mi_check_code */
    const char *none; /* the sum's description when no term was printed */
} mi_summary_rule;

static const char *const mi_code_rows[] = {".so mmap",  ".jar mmap",  ".apk mmap", ".ttf mmap", ".dex mmap",
                                           ".oat mmap", ".ZygoteJIT", ".AppJIT",   NULL};
static const char *const mi_gfx_rows[] = {"Gfx dev", "EGL mtrack", "GL mtrack", NULL};
#define MI_NO_CODE "nothing (no code rows)"
#define MI_NO_GFX  "nothing (no Gfx dev/EGL mtrack/GL mtrack rows)"

static const mi_summary_rule mi_summary_rules[] = {
    /* dalvikPrivateDirty + getOtherPrivate(OTHER_ART) */
    {MI_S_JAVA, 0, "Java Heap",
     .terms = {{"Dalvik Heap", MI_C_PD, 1, 1}, {".art mmap", MI_C_PD, 1, 0}, {".art mmap", MI_C_PC, 1, 0}}},
    {MI_S_NATIVE, 0, "Native Heap", .terms = {{"Native Heap", MI_C_PD, 1, 1}}},
    {MI_S_CODE, 0, "Code", .sum_rows = mi_code_rows, .sum_cols = {MI_C_PD, MI_C_PC}, .jit_slack = 1,
     .none = MI_NO_CODE},
    {MI_S_STACK, 0, "Stack", .terms = {{"Stack", MI_C_PD, 1, 1}}},
    {MI_S_GRAPHICS, 0, "Graphics", .sum_rows = mi_gfx_rows, .sum_cols = {MI_C_PD, MI_C_PC}, .none = MI_NO_GFX},
    /* total private - the five above, as printed */
    {MI_S_PRIVATE_OTHER, 0, "Private Other", .terms = {{"TOTAL", MI_C_PD, 1, 1}, {"TOTAL", MI_C_PC, 1, 0}},
     .minus_parts = 1},
    /* TotalPss - TotalPrivateClean - TotalPrivateDirty */
    {MI_S_SYSTEM, 0, "System",
     .terms = {{"TOTAL", MI_C_PSS, 1, 1}, {"TOTAL", MI_C_PC, -1, 0}, {"TOTAL", MI_C_PD, -1, 1}}},
    {MI_S_TOTAL_PSS, 0, "TOTAL PSS", .terms = {{"TOTAL", MI_C_PSS, 1, 1}}},
    {MI_S_TOTAL_RSS, 0, "TOTAL RSS", .terms = {{"TOTAL", MI_C_RSS, 1, 1}}},
    {MI_S_TOTAL_SWAP, 0, "TOTAL SWAP", .terms = {{"TOTAL", MI_C_SWAP, 1, 1}}},
    /* The Rss column: Debug.MemoryInfo's getSummary*Rss(), the same categories summed over Rss. */
    {MI_S_JAVA, 1, "Java Heap", .terms = {{"Dalvik Heap", MI_C_RSS, 1, 1}, {".art mmap", MI_C_RSS, 1, 0}}},
    {MI_S_NATIVE, 1, "Native Heap", .terms = {{"Native Heap", MI_C_RSS, 1, 1}}},
    {MI_S_CODE, 1, "Code", .sum_rows = mi_code_rows, .sum_cols = {MI_C_RSS, MI_C_NONE}, .jit_slack = 1,
     .none = MI_NO_CODE},
    {MI_S_STACK, 1, "Stack", .terms = {{"Stack", MI_C_RSS, 1, 1}}},
    {MI_S_GRAPHICS, 1, "Graphics", .sum_rows = mi_gfx_rows, .sum_cols = {MI_C_RSS, MI_C_NONE}, .none = MI_NO_GFX},
    /* TOTAL Rss minus the five Rss values above */
    {MI_S_UNKNOWN, 1, "Unknown", .terms = {{"TOTAL", MI_C_RSS, 1, 1}}, .minus_parts = 1},
};

/* The JIT code caches' rows, which only `dumpsys meminfo -d` prints. */
static int mi_has_jit_rows(const mi_meminfo *m)
{
    return mi_table_row(&m->table, ".ZygoteJIT") || mi_table_row(&m->table, ".AppJIT");
}

/* The tolerance of the Code checks: Code includes the JIT code caches, which only `dumpsys
 * meminfo -d` prints (as .AppJIT/.ZygoteJIT under Dalvik Other).  Without those rows the printed
 * value may exceed the .so..oat sum by at most Dalvik Other's share (columns c1, c2). */
static void mi_check_code(mi_meminfo *m, const char *name, int64_t printed, const mi_expr *e, int c1, int c2)
{
    mi_expr other = {0};
    mi_expr_row(&other, m, "Dalvik Other", c1, 1, 0);
    mi_expr_row(&other, m, "Dalvik Other", c2, 1, 0);
    int64_t d = printed - e->sum;
    if (d > 0 && d <= other.sum)
        mi_add_check(m, name, 1,
                     "%lld = %s + JIT code caches %lld (no .AppJIT/.ZygoteJIT rows to check them: "
                     "run `dumpsys meminfo -d`; the rest fits within Dalvik Other's %lld)",
                     (long long)printed, e->desc, (long long)d, (long long)other.sum);
    else
        mi_add_check(
            m, name, 0,
            "printed %lld but %s = %lld (off by %lld; JIT caches, not printed, are at most Dalvik Other's %lld)",
            (long long)printed, e->desc, (long long)e->sum, (long long)d, (long long)other.sum);
}

static void mi_check_rule(mi_meminfo *m, const mi_summary_rule *rule, const int *col)
{
    const int *have = rule->rss ? m->has_rss : m->has_pss;
    const int64_t *val = rule->rss ? m->rss : m->pss;
    const char *suffix = rule->rss ? " Rss" : "";
    mi_expr e = {0};
    for (int i = 0; i < MI_MAX_TERMS && rule->terms[i].row; i++) {
        const mi_term *t = &rule->terms[i];
        mi_expr_row(&e, m, t->row, col[t->col], t->sign, t->required);
    }
    for (int i = 0; rule->sum_rows && rule->sum_rows[i]; i++) {
        mi_expr_row(&e, m, rule->sum_rows[i], col[rule->sum_cols[0]], 1, 0);
        mi_expr_row(&e, m, rule->sum_rows[i], col[rule->sum_cols[1]], 1, 0);
    }
    if (rule->minus_parts) {
        static const char *const parts[] = {"Java Heap", "Native Heap", "Code", "Stack", "Graphics"};
        static const int part_keys[] = {MI_S_JAVA, MI_S_NATIVE, MI_S_CODE, MI_S_STACK, MI_S_GRAPHICS};
        for (int i = 0; i < MI_N(parts); i++) {
            char label[64];
            snprintf(label, sizeof label, "%s%s", parts[i], suffix);
            mi_expr_value(&e, label, have[part_keys[i]], val[part_keys[i]], -1);
        }
    }
    if (rule->none && !e.desc[0]) snprintf(e.desc, sizeof e.desc, "%s", rule->none);
    char name[96];
    snprintf(name, sizeof name, "App Summary %s%s", rule->what, suffix);
    int64_t printed = val[rule->key];
    if (rule->jit_slack && !mi_has_jit_rows(m) && printed != e.sum)
        mi_check_code(m, name, printed, &e, col[rule->sum_cols[0]], col[rule->sum_cols[1]]);
    else mi_check_expr(m, name, printed, &e);
}

static void mi_check_summary(mi_meminfo *m)
{
    const mi_table *t = &m->table;
    int col[MI_C_N];
    col[MI_C_NONE] = -1;
    col[MI_C_PD] = mi_col_any(t, "Private Dirty", NULL, NULL);
    col[MI_C_PC] = mi_col_any(t, "Private Clean", NULL, NULL);
    col[MI_C_PSS] = mi_col_any(t, "Pss Total", "Pss", NULL);
    col[MI_C_RSS] = mi_col_any(t, "Rss Total", "Rss", NULL);
    col[MI_C_SWAP] = -1;
    for (int c = 0; c < t->ncols; c++)
        if (strstr(t->cols[c], "Swap")) col[MI_C_SWAP] = c;
    for (int i = 0; i < MI_N(mi_summary_rules); i++) {
        const mi_summary_rule *rule = &mi_summary_rules[i];
        if ((rule->rss ? m->has_rss : m->has_pss)[rule->key]) mi_check_rule(m, rule, col);
    }
}

/* Android 2.x: each measure's "total" is native + dalvik + other (N/A left out). */
static void mi_check_transposed(mi_meminfo *m)
{
    const mi_table *t = &m->table;
    int tot = mi_table_col(t, "total");
    if (tot < 0) return;
    for (int i = 0; i < t->nrows; i++) {
        const mi_row *r = &t->rows[i];
        if (!r->has[tot]) continue;
        mi_expr e = {0};
        for (int c = 0; c < t->ncols; c++)
            if (c != tot && r->has[c]) mi_expr_term(&e, 1, t->cols[c], r->v[c]);
        char name[160];
        snprintf(name, sizeof name, "%s total", r->name);
        mi_check_expr(m, name, r->v[tot], &e);
    }
}

void mi_meminfo_check(mi_meminfo *m)
{
    if (m->transposed) {
        mi_check_transposed(m);
        return;
    }
    mi_check_totals(m);
    if (m->have_summary) mi_check_summary(m);
}
