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

static const char *const mi_code_rows[] = {".so mmap", ".jar mmap", ".apk mmap", ".ttf mmap", ".dex mmap", ".oat mmap"};
static const char *const mi_jit_rows[] = {".ZygoteJIT", ".AppJIT"};
static const char *const mi_gfx_rows[] = {"Gfx dev", "EGL mtrack", "GL mtrack"};
#define MI_N(a) (int)(sizeof(a) / sizeof((a)[0]))

/* Code includes the JIT code caches, which only `dumpsys meminfo -d` prints
 * (as .AppJIT/.ZygoteJIT under Dalvik Other).  Without them the printed
 * value may exceed the .so..oat sum by at most Dalvik Other's share. */
static void mi_check_code(mi_meminfo *m, const char *name, int64_t printed, int c1, int c2)
{
    mi_expr e = {0};
    int jit = 0;
    for (int i = 0; i < MI_N(mi_code_rows); i++) {
        mi_expr_row(&e, m, mi_code_rows[i], c1, 1, 0);
        mi_expr_row(&e, m, mi_code_rows[i], c2, 1, 0);
    }
    for (int i = 0; i < MI_N(mi_jit_rows); i++)
        if (mi_table_row(&m->table, mi_jit_rows[i])) {
            jit = 1;
            mi_expr_row(&e, m, mi_jit_rows[i], c1, 1, 0);
            mi_expr_row(&e, m, mi_jit_rows[i], c2, 1, 0);
        }
    if (!e.desc[0]) snprintf(e.desc, sizeof e.desc, "nothing (no code rows)");
    if (jit || printed == e.sum) {
        mi_check_expr(m, name, printed, &e);
        return;
    }
    mi_expr other = {0};
    mi_expr_row(&other, m, "Dalvik Other", c1, 1, 0);
    mi_expr_row(&other, m, "Dalvik Other", c2, 1, 0);
    int64_t d = printed - e.sum;
    if (d > 0 && d <= other.sum)
        mi_add_check(m, name, 1,
                     "%lld = %s + JIT code caches %lld (no .AppJIT/.ZygoteJIT rows to check them: "
                     "run `dumpsys meminfo -d`; the rest fits within Dalvik Other's %lld)",
                     (long long)printed, e.desc, (long long)d, (long long)other.sum);
    else
        mi_add_check(
            m, name, 0,
            "printed %lld but %s = %lld (off by %lld; JIT caches, not printed, are at most Dalvik Other's %lld)",
            (long long)printed, e.desc, (long long)e.sum, (long long)d, (long long)other.sum);
}

static void mi_check_summary(mi_meminfo *m)
{
    const mi_table *t = &m->table;
    int pd = mi_col_any(t, "Private Dirty", NULL, NULL);
    int pc = mi_col_any(t, "Private Clean", NULL, NULL);
    int pss = mi_col_any(t, "Pss Total", "Pss", NULL);
    int rss = mi_col_any(t, "Rss Total", "Rss", NULL);
    int swap = -1;
    for (int c = 0; c < t->ncols; c++)
        if (strstr(t->cols[c], "Swap")) swap = c;
    const int *P = m->has_pss;

    if (P[MI_S_JAVA]) { /* dalvikPrivateDirty + getOtherPrivate(OTHER_ART) */
        mi_expr e = {0};
        mi_expr_row(&e, m, "Dalvik Heap", pd, 1, 1);
        mi_expr_row(&e, m, ".art mmap", pd, 1, 0);
        mi_expr_row(&e, m, ".art mmap", pc, 1, 0);
        mi_check_expr(m, "App Summary Java Heap", m->pss[MI_S_JAVA], &e);
    }
    if (P[MI_S_NATIVE]) {
        mi_expr e = {0};
        mi_expr_row(&e, m, "Native Heap", pd, 1, 1);
        mi_check_expr(m, "App Summary Native Heap", m->pss[MI_S_NATIVE], &e);
    }
    if (P[MI_S_CODE]) mi_check_code(m, "App Summary Code", m->pss[MI_S_CODE], pd, pc);
    if (P[MI_S_STACK]) {
        mi_expr e = {0};
        mi_expr_row(&e, m, "Stack", pd, 1, 1);
        mi_check_expr(m, "App Summary Stack", m->pss[MI_S_STACK], &e);
    }
    if (P[MI_S_GRAPHICS]) {
        mi_expr e = {0};
        for (int i = 0; i < MI_N(mi_gfx_rows); i++) {
            mi_expr_row(&e, m, mi_gfx_rows[i], pd, 1, 0);
            mi_expr_row(&e, m, mi_gfx_rows[i], pc, 1, 0);
        }
        if (!e.desc[0]) snprintf(e.desc, sizeof e.desc, "nothing (no Gfx dev/EGL mtrack/GL mtrack rows)");
        mi_check_expr(m, "App Summary Graphics", m->pss[MI_S_GRAPHICS], &e);
    }
    if (P[MI_S_PRIVATE_OTHER]) { /* total private - the five above, as printed */
        mi_expr e = {0};
        mi_expr_row(&e, m, "TOTAL", pd, 1, 1);
        mi_expr_row(&e, m, "TOTAL", pc, 1, 0);
        mi_expr_value(&e, "Java Heap", P[MI_S_JAVA], m->pss[MI_S_JAVA], -1);
        mi_expr_value(&e, "Native Heap", P[MI_S_NATIVE], m->pss[MI_S_NATIVE], -1);
        mi_expr_value(&e, "Code", P[MI_S_CODE], m->pss[MI_S_CODE], -1);
        mi_expr_value(&e, "Stack", P[MI_S_STACK], m->pss[MI_S_STACK], -1);
        mi_expr_value(&e, "Graphics", P[MI_S_GRAPHICS], m->pss[MI_S_GRAPHICS], -1);
        mi_check_expr(m, "App Summary Private Other", m->pss[MI_S_PRIVATE_OTHER], &e);
    }
    if (P[MI_S_SYSTEM]) { /* TotalPss - TotalPrivateClean - TotalPrivateDirty */
        mi_expr e = {0};
        mi_expr_row(&e, m, "TOTAL", pss, 1, 1);
        mi_expr_row(&e, m, "TOTAL", pc, -1, 0);
        mi_expr_row(&e, m, "TOTAL", pd, -1, 1);
        mi_check_expr(m, "App Summary System", m->pss[MI_S_SYSTEM], &e);
    }
    if (P[MI_S_TOTAL_PSS]) {
        mi_expr e = {0};
        mi_expr_row(&e, m, "TOTAL", pss, 1, 1);
        mi_check_expr(m, "App Summary TOTAL PSS", m->pss[MI_S_TOTAL_PSS], &e);
    }
    if (P[MI_S_TOTAL_RSS]) {
        mi_expr e = {0};
        mi_expr_row(&e, m, "TOTAL", rss, 1, 1);
        mi_check_expr(m, "App Summary TOTAL RSS", m->pss[MI_S_TOTAL_RSS], &e);
    }
    if (P[MI_S_TOTAL_SWAP]) {
        mi_expr e = {0};
        mi_expr_row(&e, m, "TOTAL", swap, 1, 1);
        mi_check_expr(m, "App Summary TOTAL SWAP", m->pss[MI_S_TOTAL_SWAP], &e);
    }

    /* The Rss column of the App Summary (Android 10+): Debug.MemoryInfo's
	 * getSummary*Rss(), the same categories summed over Rss. */
    const int *R = m->has_rss;
    if (R[MI_S_JAVA]) {
        mi_expr e = {0};
        mi_expr_row(&e, m, "Dalvik Heap", rss, 1, 1);
        mi_expr_row(&e, m, ".art mmap", rss, 1, 0);
        mi_check_expr(m, "App Summary Java Heap Rss", m->rss[MI_S_JAVA], &e);
    }
    if (R[MI_S_NATIVE]) {
        mi_expr e = {0};
        mi_expr_row(&e, m, "Native Heap", rss, 1, 1);
        mi_check_expr(m, "App Summary Native Heap Rss", m->rss[MI_S_NATIVE], &e);
    }
    if (R[MI_S_CODE]) mi_check_code(m, "App Summary Code Rss", m->rss[MI_S_CODE], rss, -1);
    if (R[MI_S_STACK]) {
        mi_expr e = {0};
        mi_expr_row(&e, m, "Stack", rss, 1, 1);
        mi_check_expr(m, "App Summary Stack Rss", m->rss[MI_S_STACK], &e);
    }
    if (R[MI_S_GRAPHICS]) {
        mi_expr e = {0};
        for (int i = 0; i < MI_N(mi_gfx_rows); i++) mi_expr_row(&e, m, mi_gfx_rows[i], rss, 1, 0);
        if (!e.desc[0]) snprintf(e.desc, sizeof e.desc, "nothing (no Gfx dev/EGL mtrack/GL mtrack rows)");
        mi_check_expr(m, "App Summary Graphics Rss", m->rss[MI_S_GRAPHICS], &e);
    }
    if (R[MI_S_UNKNOWN]) { /* TOTAL Rss minus the five Rss values above */
        mi_expr e = {0};
        mi_expr_row(&e, m, "TOTAL", rss, 1, 1);
        mi_expr_value(&e, "Java Heap Rss", R[MI_S_JAVA], m->rss[MI_S_JAVA], -1);
        mi_expr_value(&e, "Native Heap Rss", R[MI_S_NATIVE], m->rss[MI_S_NATIVE], -1);
        mi_expr_value(&e, "Code Rss", R[MI_S_CODE], m->rss[MI_S_CODE], -1);
        mi_expr_value(&e, "Stack Rss", R[MI_S_STACK], m->rss[MI_S_STACK], -1);
        mi_expr_value(&e, "Graphics Rss", R[MI_S_GRAPHICS], m->rss[MI_S_GRAPHICS], -1);
        mi_check_expr(m, "App Summary Unknown Rss", m->rss[MI_S_UNKNOWN], &e);
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
