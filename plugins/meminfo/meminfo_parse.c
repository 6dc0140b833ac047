/* Parses the text of `dumpsys meminfo <pid|package>` into mi_meminfo.
 *
 * The layout has changed across Android versions (4/5 columns on 4.3, Pss
 * Total/Private/Swapped on 4.4-6, SwapPss Dirty on 7-9, Rss Total on 10+,
 * the wide `-a` layout), so nothing here assumes a column set: the main
 * table's column names are read from its header (words placed over the
 * "------" groups), and every section is recognised by its title. */
#include "meminfo_model.h"
#include "meminfo_text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const mi_summary_keys[MI_S_N] = {
    "java_heap", "native_heap", "code",      "stack",     "graphics",   "private_other",
    "system",    "unknown",     "total_pss", "total_rss", "total_swap",
};

static void mi_strlist_add(mi_arena *a, mi_strlist *l, const char *s)
{
    if (!s || mi_arena_grow(a, (void **)&l->items, sizeof *l->items, &l->cap, l->n) < 0) return;
    l->items[l->n++] = s;
}

void mi_warn(mi_meminfo *m, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    /* The same warning twice says nothing new. */
    for (int i = 0; i < m->warnings.n; i++)
        if (!strcmp(m->warnings.items[i], tmp)) return;
    mi_strlist_add(&m->arena, &m->warnings, mi_arena_strndup(&m->arena, tmp, strlen(tmp)));
}

int mi_table_col(const mi_table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (!strcmp(t->cols[i], name)) return i;
    return -1;
}

const mi_row *mi_table_row(const mi_table *t, const char *name)
{
    for (int i = 0; i < t->nrows; i++)
        if (!strcmp(t->rows[i].name, name)) return &t->rows[i];
    return NULL;
}

static int mi_table_add_col(mi_meminfo *m, mi_table *t, const char *name)
{
    int c = mi_table_col(t, name);
    if (c >= 0) return c;
    if (t->ncols >= MI_MAX_COLS) {
        mi_warn(m, "more than %d columns: column '%s' dropped", MI_MAX_COLS, name);
        return -1;
    }
    t->cols[t->ncols] = mi_arena_strndup(&m->arena, name, strlen(name));
    return t->ncols++;
}

static mi_row *mi_table_add_row(mi_meminfo *m, mi_table *t)
{
    if (mi_arena_grow(&m->arena, (void **)&t->rows, sizeof *t->rows, &t->caprows, t->nrows) < 0) return NULL;
    mi_row *r = &t->rows[t->nrows++];
    memset(r, 0, sizeof *r);
    return r;
}

static void mi_kv_add(mi_meminfo *m, mi_kvlist *l, const char *key, int64_t v, const char *text)
{
    if (mi_arena_grow(&m->arena, (void **)&l->items, sizeof *l->items, &l->cap, l->n) < 0) return;
    l->items[l->n].key = key;
    l->items[l->n].val = v;
    l->items[l->n].text = text;
    l->n++;
}

/* Parses a token as a number and remembers what had to be tolerated, so one
 * warning per kind can name the first example. */
static int mi_num_noted(mi_meminfo *m, const mi_tok *t, int64_t *v, const char *where)
{
    int flags;
    if (!mi_num(t->s, t->n, v, &flags)) return 0;
    if (flags) {
        char *ex = mi_arena_printf(&m->arena, "'%.*s' in '%s'", t->n, t->s, where ? where : "?");
        if (flags & MI_NUM_SEP && !m->n_sep++) m->first_sep = ex;
        if (flags & MI_NUM_SUFFIX && !m->n_suffix++) m->first_suffix = ex;
        if (flags & MI_NUM_DECIMAL && !m->n_decimal++) m->first_decimal = ex;
    }
    return 1;
}

static int mi_is_num(const mi_tok *t)
{
    int64_t v;
    int f;
    return mi_num(t->s, t->n, &v, &f);
}

/* ---- the header line "** MEMINFO in pid N [process] **" ---- */

static int mi_parse_header(mi_meminfo *m, const char *line)
{
    const char *p = strstr(line, "MEMINFO in pid");
    if (!p) return 0;
    p += strlen("MEMINFO in pid");
    while (*p == ' ') p++;
    int64_t pid = 0;
    int nd = 0;
    while (isdigit((unsigned char)*p) && nd < 12) {
        pid = pid * 10 + (*p++ - '0');
        nd++;
    }
    if (!nd) return 0;
    m->has_pid = 1;
    m->pid = pid;
    const char *lb = strchr(p, '[');
    const char *rb = lb ? strrchr(lb, ']') : NULL;
    if (lb && rb) m->process = mi_arena_strndup(&m->arena, lb + 1, (size_t)(rb - lb - 1));
    else mi_warn(m, "header line has no [process name]: %s", line);
    return 1;
}

/* ---- "Label: value [value] Label: value" lines ---- */

typedef struct mi_pair {
    const char *label;
    int nv;
    int64_t v[4];
    int end[4];
} mi_pair;

/* Returns the pair count, or -1 when the line is not made of labels ending
 * in ':' followed by numbers. */
static int mi_parse_pairs(mi_meminfo *m, const char *line, mi_pair *p, int maxp)
{
    mi_tok t[MI_MAX_TOKS];
    int n = mi_tokenize(line, t, MI_MAX_TOKS);
    int np = 0, i = 0;
    while (i < n) {
        int j = i;
        while (j < n && t[j].s[t[j].n - 1] != ':') j++;
        if (j >= n || np >= maxp) return -1;
        mi_pair *q = &p[np++];
        memset(q, 0, sizeof *q);
        q->label = mi_arena_strndup(&m->arena, line + t[i].start, (size_t)(t[j].end - 1 - t[i].start));
        int k = j + 1;
        for (; k < n && mi_is_num(&t[k]); k++) {
            if (q->nv < 4) {
                mi_num_noted(m, &t[k], &q->v[q->nv], q->label);
                q->end[q->nv] = t[k].end;
                q->nv++;
            } else mi_warn(m, "more than 4 values after '%s': extra ones dropped", q->label);
        }
        i = k;
    }
    return np;
}

/* ---- the main table ---- */

static int mi_header_has_pss(const char *line)
{
    mi_tok t[MI_MAX_TOKS];
    int n = mi_tokenize(line, t, MI_MAX_TOKS);
    for (int i = 0; i < n; i++)
        if (t[i].n == 3 && !memcmp(t[i].s, "Pss", 3)) return 1;
    return 0;
}

/* Column names: each header word belongs to the "------" group it overlaps
 * most (or ends nearest to); words stacked over one group are joined. */
static void mi_build_columns(mi_meminfo *m, char **hdr, int nhdr, const int *ds, const int *de, int nd)
{
    char names[MI_MAX_COLS][64];
    memset(names, 0, sizeof names);
    if (nd > MI_MAX_COLS) {
        mi_warn(m, "table has %d columns; only the first %d are kept", nd, MI_MAX_COLS);
        nd = MI_MAX_COLS;
    }
    for (int h = 0; h < nhdr; h++) {
        mi_tok t[MI_MAX_TOKS];
        int n = mi_tokenize(hdr[h], t, MI_MAX_TOKS);
        for (int i = 0; i < n; i++) {
            int best = -1, bestov = 0, bestdist = 1 << 30;
            for (int c = 0; c < nd; c++) {
                int s = t[i].start > ds[c] ? t[i].start : ds[c];
                int e = t[i].end < de[c] ? t[i].end : de[c];
                int ov = e - s;
                int dist = t[i].end > de[c] ? t[i].end - de[c] : de[c] - t[i].end;
                if (ov > bestov || (bestov <= 0 && ov <= 0 && dist < bestdist)) {
                    best = c;
                    bestov = ov > 0 ? ov : 0;
                    bestdist = dist;
                }
            }
            if (best < 0) continue;
            size_t l = strlen(names[best]);
            snprintf(names[best] + l, sizeof names[best] - l, "%s%.*s", l ? " " : "", t[i].n, t[i].s);
        }
    }
    for (int c = 0; c < nd; c++) {
        if (!names[c][0]) {
            snprintf(names[c], sizeof names[c], "col%d", c + 1);
            mi_warn(m, "column %d has no name in the header; called it '%s'", c + 1, names[c]);
        }
        mi_table_add_col(m, &m->table, names[c]);
    }
}

/* Where an indented sub-row belongs: ART's own grouping. */
static const char *mi_sub_parent(const char *name)
{
    static const char *const map[][2] = {
        {".Heap", "Dalvik Heap"},         {".LOS", "Dalvik Heap"},
        {".Zygote", "Dalvik Heap"},       {".NonMoving", "Dalvik Heap"},
        {".LinearAlloc", "Dalvik Other"}, {".GC", "Dalvik Other"},
        {".JITCache", "Dalvik Other"},    {".ZygoteJIT", "Dalvik Other"},
        {".AppJIT", "Dalvik Other"},      {".CompilerMetadata", "Dalvik Other"},
        {".IndirectRef", "Dalvik Other"}, {".Boot vdex", ".dex mmap"},
        {".App dex", ".dex mmap"},        {".App vdex", ".dex mmap"},
        {".App art", ".art mmap"},        {".Boot art", ".art mmap"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(name, map[i][0])) return map[i][1];
    return NULL;
}

static int mi_is_sub_name(const char *name)
{
    size_t l = strlen(name);
    return name[0] == '.' && !(l > 5 && !strcmp(name + l - 5, " mmap"));
}

/* Column c of the main table for a value of row r: a value past the header's columns gets a
 * "colN" column of its own (with a warning). -1 when the column cannot be added. */
static int mi_table_extra_col(mi_meminfo *m, const mi_row *r, int c)
{
    if (c < m->table.ncols) return 0;
    char nm[32];
    snprintf(nm, sizeof nm, "col%d", c + 1);
    int got = mi_table_add_col(m, &m->table, nm);
    if (got < 0) return -1;
    if (got != c) { /* a header column is already called so (an unnamed one, or a header saying it) */
        mi_warn(m, "row '%s' has more values than the header has columns; the extra ones are dropped ('%s' is taken)",
                r->name, nm);
        return -1;
    }
    mi_warn(m, "row '%s' has more values than the header has columns; extra column kept as '%s'", r->name, nm);
    return 0;
}

/* A row: a label (possibly several words) followed only by numbers. */
static int mi_parse_row(mi_meminfo *m, const char *line, const char **last_top)
{
    mi_tok t[MI_MAX_TOKS];
    int n = mi_tokenize(line, t, MI_MAX_TOKS);
    int k = n;
    while (k > 0 && mi_is_num(&t[k - 1])) k--;
    if (k == 0 || k == n) return 0;
    mi_row *r = mi_table_add_row(m, &m->table);
    if (!r) return -1;
    r->name = mi_arena_strndup(&m->arena, line + t[0].start, (size_t)(t[k - 1].end - t[0].start));
    r->is_total = !strcmp(r->name, "TOTAL");
    if (r->is_total) m->have_total = 1;
    if (mi_is_sub_name(r->name)) {
        r->is_sub = 1;
        r->parent = mi_sub_parent(r->name);
        if (!r->parent) {
            r->parent = *last_top ? *last_top : "Dalvik Other";
            mi_warn(m, "sub-row '%s' is not one we know; placed under '%s'", r->name, r->parent);
        }
    } else if (!r->is_total) *last_top = r->name;
    for (int j = k; j < n; j++) {
        int c = j - k;
        if (mi_table_extra_col(m, r, c) < 0) break;
        mi_num_noted(m, &t[j], &r->v[c], r->name);
        r->has[c] = 1;
    }
    return 1;
}

/* ---- sections ---- */

enum { SEC_NONE, SEC_DETAILS, SEC_SUMMARY, SEC_OBJECTS, SEC_SQL, SEC_DB, SEC_NATIVE, SEC_ASSETS, SEC_OTHER };

/* The titles of the sections we know, as dumpsys prints them. */
static const char *const mi_section_titles[SEC_OTHER] = {
    [SEC_DETAILS] = "Dalvik Details",
    [SEC_SUMMARY] = "App Summary",
    [SEC_OBJECTS] = "Objects",
    [SEC_SQL] = "SQL",
    [SEC_DB] = "DATABASES",
    [SEC_NATIVE] = "Native Allocations",
    [SEC_ASSETS] = "Asset Allocations",
};

static int mi_known_title(const char *line)
{
    while (*line == ' ' || *line == '\t') line++;
    size_t l = strlen(line);
    while (l && (line[l - 1] == ' ' || line[l - 1] == '\t')) l--;
    for (int sec = SEC_DETAILS; sec < SEC_OTHER; sec++)
        if (strlen(mi_section_titles[sec]) == l && !memcmp(mi_section_titles[sec], line, l)) return sec;
    return SEC_NONE;
}

/* A title we do not know: short indentation, words only. */
static int mi_other_title(const char *line)
{
    if (mi_is_blank(line) || mi_leading_spaces(line) > 2) return 0;
    for (const char *p = line; *p; p++)
        if (isdigit((unsigned char)*p) || *p == ':' || *p == '-' || *p == '/') return 0;
    return 1;
}

static int mi_all_caps(const char *line)
{
    int letters = 0;
    for (const char *p = line; *p; p++) {
        if (islower((unsigned char)*p) || isdigit((unsigned char)*p)) return 0;
        letters += isupper((unsigned char)*p) != 0;
    }
    return letters > 0;
}

/* Header of a two-value section ("Pss(KB)  Rss(KB)", "Count  Total(kB)"). */
typedef struct mi_poscols {
    int n;
    const char *name[4];
    int end[4];
} mi_poscols;

static void mi_poscols_read(mi_meminfo *m, mi_poscols *pc, const char *line)
{
    mi_tok t[MI_MAX_TOKS];
    int n = mi_tokenize(line, t, MI_MAX_TOKS);
    pc->n = 0;
    for (int i = 0; i < n && pc->n < 4; i++) {
        pc->name[pc->n] = mi_arena_strndup(&m->arena, t[i].s, (size_t)t[i].n);
        pc->end[pc->n] = t[i].end;
        pc->n++;
    }
}

/* Which header column a value belongs to: the nearest right edge; without a
 * header, the value's order. */
static int mi_poscols_pick(const mi_poscols *pc, int end, int order)
{
    if (pc->n == 0) return order;
    int best = 0, bestd = 1 << 30;
    for (int c = 0; c < pc->n; c++) {
        int d = abs(end - pc->end[c]);
        if (d < bestd) {
            bestd = d;
            best = c;
        }
    }
    return best;
}

static int mi_summary_key(const char *label)
{
    static const struct {
        const char *label;
        int key;
    } keys[] = {
        {"Java Heap", MI_S_JAVA},
        {"Native Heap", MI_S_NATIVE},
        {"Code", MI_S_CODE},
        {"Stack", MI_S_STACK},
        {"Graphics", MI_S_GRAPHICS},
        {"Private Other", MI_S_PRIVATE_OTHER},
        {"System", MI_S_SYSTEM},
        {"Unknown", MI_S_UNKNOWN},
        {"TOTAL", MI_S_TOTAL_PSS},
        {"TOTAL PSS", MI_S_TOTAL_PSS},
        {"TOTAL RSS", MI_S_TOTAL_RSS},
        {"TOTAL SWAP PSS", MI_S_TOTAL_SWAP},
        {"TOTAL SWAP (KB)", MI_S_TOTAL_SWAP},
        {"TOTAL SWAP", MI_S_TOTAL_SWAP},
        {"TOTAL SWAP (KB) PSS", MI_S_TOTAL_SWAP},
    };
    for (int i = 0; i < MI_N(keys); i++)
        if (!strcmp(label, keys[i].label)) return keys[i].key;
    return -1;
}

/* A line no parser understood: kept verbatim in 'unparsed', with a warning saying where. */
static void mi_unparsed(mi_meminfo *m, const char *line, const char *where)
{
    mi_strlist_add(&m->arena, &m->unparsed, mi_arena_strndup(&m->arena, line, strlen(line)));
    mi_warn(m, "line %s not understood, kept in 'unparsed': %.200s", where, line);
}

/* Splits a line of section sec into label/number pairs; a line that does not split goes to
 * 'unparsed'. Returns the pair count or -1. */
static int mi_section_pairs(mi_meminfo *m, const char *line, const char *sec, mi_pair *p, int max)
{
    int np = mi_parse_pairs(m, line, p, max);
    if (np < 0) {
        char where[64];
        snprintf(where, sizeof where, "in %s", sec);
        mi_unparsed(m, line, where);
    }
    return np;
}

static void mi_summary_line(mi_meminfo *m, const char *line, const mi_poscols *pc)
{
    mi_pair p[8];
    int np = mi_section_pairs(m, line, "App Summary", p, 8);
    if (np < 0) return;
    for (int i = 0; i < np; i++) {
        int key = mi_summary_key(p[i].label);
        if (key < 0) {
            for (int v = 0; v < p[i].nv; v++) mi_kv_add(m, &m->summary_other, p[i].label, p[i].v[v], NULL);
            mi_warn(m, "App Summary label '%s' is not one we know; kept in 'summary_other'", p[i].label);
            continue;
        }
        m->have_summary = 1;
        if (key >= MI_S_TOTAL_PSS) {
            if (p[i].nv >= 1) {
                m->pss[key] = p[i].v[0];
                m->has_pss[key] = 1;
            }
            continue;
        }
        for (int v = 0; v < p[i].nv; v++) {
            int c = mi_poscols_pick(pc, p[i].end[v], v);
            int is_rss = c < pc->n ? strstr(pc->name[c], "Rss") != NULL : c == 1;
            if (is_rss) {
                m->rss[key] = p[i].v[v];
                m->has_rss[key] = 1;
            } else {
                m->pss[key] = p[i].v[v];
                m->has_pss[key] = 1;
            }
        }
    }
}

static void mi_kv_line(mi_meminfo *m, const char *line, mi_kvlist *l, const char *sec)
{
    mi_pair p[8];
    int np = mi_section_pairs(m, line, sec, p, 8);
    if (np < 0) return;
    for (int i = 0; i < np; i++) {
        if (p[i].nv == 0) {
            mi_warn(m, "%s entry '%s' has no number", sec, p[i].label);
            continue;
        }
        if (p[i].nv > 1) mi_warn(m, "%s entry '%s' has %d numbers; the first is kept", sec, p[i].label, p[i].nv);
        mi_kv_add(m, l, p[i].label, p[i].v[0], NULL);
    }
}

static void mi_native_line(mi_meminfo *m, const char *line, const mi_poscols *pc)
{
    mi_pair p[8];
    int np = mi_section_pairs(m, line, "Native Allocations", p, 8);
    if (np < 0) return;
    for (int i = 0; i < np; i++) {
        mi_row *r = mi_table_add_row(m, &m->native_allocs);
        if (!r) return;
        r->name = p[i].label;
        for (int v = 0; v < p[i].nv; v++) {
            int c = mi_poscols_pick(pc, p[i].end[v], v);
            char nm[32];
            const char *cn = c < pc->n ? pc->name[c] : (snprintf(nm, sizeof nm, "col%d", c + 1), nm);
            int ci = mi_table_add_col(m, &m->native_allocs, cn);
            if (ci >= 0) {
                r->v[ci] = p[i].v[v];
                r->has[ci] = 1;
            }
        }
    }
}

static void mi_asset_line(mi_meminfo *m, const char *line)
{
    mi_tok t[MI_MAX_TOKS];
    int n = mi_tokenize(line, t, MI_MAX_TOKS);
    int64_t v = 0;
    int f;
    if (n >= 2 && mi_num(t[n - 1].s, t[n - 1].n, &v, &f) && t[n - 2].s[t[n - 2].n - 1] == ':') {
        const char *name = mi_arena_strndup(&m->arena, line + t[0].start, (size_t)(t[n - 2].end - 1 - t[0].start));
        mi_kv_add(m, &m->assets, name, v, mi_arena_strndup(&m->arena, t[n - 1].s, (size_t)t[n - 1].n));
        return;
    }
    mi_unparsed(m, line, "in Asset Allocations");
}

/* DATABASES: the header names the columns (old: pgsz dbsz Lookaside(b) cache
 * Dbname; new: ... cache hits, cache misses, cache size ...); values fill
 * them in order and the rest of the line is the database name, which may
 * hold spaces ("foo.db (2)"). */
typedef struct mi_dbhdr {
    int n;
    int col[MI_MAX_COLS]; /* index into m->databases, -1 = dropped */
    const char *name[MI_MAX_COLS];
    const char *group;
} mi_dbhdr;

static void mi_db_header(mi_meminfo *m, mi_dbhdr *h, const char *line)
{
    mi_tok t[MI_MAX_TOKS];
    int n = mi_tokenize(line, t, MI_MAX_TOKS);
    h->n = 0;
    for (int i = 0; i < n && h->n < MI_MAX_COLS; i++) {
        if (t[i].n == 6 && !memcmp(t[i].s, "Dbname", 6)) continue;
        const char *nm;
        if (t[i].n == 5 && !memcmp(t[i].s, "cache", 5) && i + 1 < n &&
            (!strncmp(t[i + 1].s, "hits", 4) || !strncmp(t[i + 1].s, "misses", 6) || !strncmp(t[i + 1].s, "size", 4))) {
            nm = mi_arena_printf(&m->arena, "cache %.*s", t[i + 1].n, t[i + 1].s);
            i++;
        } else nm = mi_arena_strndup(&m->arena, t[i].s, (size_t)t[i].n);
        h->name[h->n] = nm;
        h->col[h->n] = mi_table_add_col(m, &m->databases, nm);
        h->n++;
    }
}

static int mi_db_cache_tok(const mi_tok *t)
{
    int slashes = 0;
    for (int i = 0; i < t->n; i++) {
        if (t->s[i] == '/') slashes++;
        else if (!isdigit((unsigned char)t->s[i])) return 0;
    }
    return slashes > 0 && isdigit((unsigned char)t->s[0]);
}

static void mi_db_line(mi_meminfo *m, const mi_dbhdr *h, const char *line)
{
    mi_tok t[MI_MAX_TOKS];
    int n = mi_tokenize(line, t, MI_MAX_TOKS);
    int k = 0;
    while (k < n && (mi_is_num(&t[k]) || mi_db_cache_tok(&t[k]))) k++;
    mi_row *r = mi_table_add_row(m, &m->databases);
    if (!r) return;
    r->group = h->group;
    if (k < n) r->name = mi_arena_strndup(&m->arena, line + t[k].start, strlen(line + t[k].start));
    else {
        r->name = "";
        mi_warn(m, "DATABASES row without a database name: %s", line);
    }
    size_t l = strlen(r->name);
    while (l && (r->name[l - 1] == ' ' || r->name[l - 1] == '\t')) ((char *)r->name)[--l] = 0;
    if (k != h->n)
        mi_warn(m, "DATABASES row for '%s' has %d values for %d columns (blank fields?); filled in order", r->name, k,
                h->n);
    for (int i = 0; i < k; i++) {
        if (mi_db_cache_tok(&t[i])) {
            r->extra = mi_arena_strndup(&m->arena, t[i].s, (size_t)t[i].n);
            continue;
        }
        int c = i < h->n ? h->col[i] : -1;
        if (c < 0) {
            char nm[32];
            snprintf(nm, sizeof nm, "col%d", i + 1);
            c = mi_table_add_col(m, &m->databases, nm);
            if (c < 0) continue;
        }
        mi_num_noted(m, &t[i], &r->v[c], r->name);
        r->has[c] = 1;
    }
}

/* ---- Android 2.x: the table is transposed ----
 *                     native   dalvik    other    total
 *             size:     3904     3079      N/A     6983
 *            (Pss):      815     1318     1690     3823
 * Columns are the heaps, rows are the measures; N/A cells stay absent. */

static int mi_is_transposed_header(const char *line)
{
    mi_tok t[MI_MAX_TOKS];
    int n = mi_tokenize(line, t, MI_MAX_TOKS);
    static const char *const want[] = {"native", "dalvik", "other", "total"};
    if (n != 4) return 0;
    for (int i = 0; i < 4; i++)
        if ((size_t)t[i].n != strlen(want[i]) || strncasecmp(t[i].s, want[i], (size_t)t[i].n)) return 0;
    return 1;
}

/* "label: v v N/A v" -> a row; returns 0 when the line is not one. */
static int mi_parse_transposed_row(mi_meminfo *m, const char *line)
{
    mi_tok t[MI_MAX_TOKS];
    int n = mi_tokenize(line, t, MI_MAX_TOKS);
    int j = 0;
    while (j < n && t[j].s[t[j].n - 1] != ':') j++;
    if (j >= n || j + 1 >= n) return 0;
    for (int k = j + 1; k < n; k++)
        if (!mi_is_num(&t[k]) && !(t[k].n == 3 && !strncasecmp(t[k].s, "N/A", 3))) return 0;
    mi_row *r = mi_table_add_row(m, &m->table);
    if (!r) return -1;
    r->name = mi_arena_strndup(&m->arena, line + t[0].start, (size_t)(t[j].end - 1 - t[0].start));
    for (int k = j + 1; k < n; k++) {
        int c = k - j - 1;
        if (mi_table_extra_col(m, r, c) < 0) break;
        if (mi_is_num(&t[k])) {
            mi_num_noted(m, &t[k], &r->v[c], r->name);
            r->has[c] = 1;
        }
    }
    return 1;
}

/* ---- driver ---- */

static void mi_preamble_line(mi_meminfo *m, const char *line)
{
    if (mi_is_blank(line) || strstr(line, "Applications Memory Usage")) return;
    mi_pair p[4];
    int np = mi_parse_pairs(m, line, p, 4);
    int used = 0;
    for (int i = 0; i < np; i++) {
        if (!strcmp(p[i].label, "Uptime") && p[i].nv) {
            m->uptime = p[i].v[0];
            m->has_uptime = used = 1;
        } else if (!strcmp(p[i].label, "Realtime") && p[i].nv) {
            m->realtime = p[i].v[0];
            m->has_realtime = used = 1;
        }
    }
    if (!used) mi_unparsed(m, line, "before the table");
}

static void mi_finish_warnings(mi_meminfo *m)
{
    if (m->n_sep)
        mi_warn(m, "%d number(s) had thousands separators, read without them (first: %s)", m->n_sep, m->first_sep);
    if (m->n_suffix)
        mi_warn(m, "%d number(s) had a unit suffix, converted to KB (K=1, M=1024, G=1048576; first: %s)", m->n_suffix,
                m->first_suffix);
    if (m->n_decimal)
        mi_warn(m, "%d number(s) had decimals, rounded to whole KB (first: %s)", m->n_decimal, m->first_decimal);
}

/* The input as lines: one mutable copy in the arena, NULs made visible as blanks so a binary
 * file cannot cut lines short, CR and CRLF ends turned into LF, trailing blanks dropped (they
 * would skew nothing but look odd in messages). */
typedef struct mi_lines {
    char **v;
    int n;
    size_t nul; /* NUL bytes seen */
} mi_lines;

static int mi_split_lines(mi_meminfo *m, const char *text, size_t len, mi_lines *L, char *err, size_t errlen)
{
    char *buf = mi_arena_alloc(&m->arena, len + 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory reading %zu bytes of meminfo text", len);
        return -1;
    }
    L->nul = 0;
    for (size_t i = 0; i < len; i++) {
        buf[i] = text[i] ? text[i] : (L->nul++, ' ');
        if (buf[i] == '\r') buf[i] = (i + 1 < len && text[i + 1] == '\n') ? ' ' : '\n';
    }
    int nlines = 1;
    for (size_t i = 0; i < len; i++) nlines += buf[i] == '\n';
    L->v = mi_arena_alloc(&m->arena, sizeof *L->v * (size_t)nlines);
    if (!L->v) {
        snprintf(err, errlen, "out of memory splitting meminfo text");
        return -1;
    }
    L->n = 0;
    L->v[L->n++] = buf;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n') {
            buf[i] = 0;
            L->v[L->n++] = buf + i + 1;
        }
    for (int i = 0; i < L->n; i++) {
        size_t l = strlen(L->v[i]);
        while (l && (L->v[i][l - 1] == ' ' || L->v[i][l - 1] == '\t')) L->v[i][--l] = 0;
    }
    return 0;
}

/* Where the parse looks: the first process's header line and the end of its block. */
typedef struct mi_layout {
    int hdr, end;                                     /* header line (-1: none), first line past the block */
    int dash, h0;                                     /* the table's "------" line and its first header line */
    int ds[MI_MAX_COLS * 2], de[MI_MAX_COLS * 2], nd; /* the dash groups */
} mi_layout;

/* Only the first process is parsed; later ones end its block. */
static void mi_find_process(mi_meminfo *m, const mi_lines *L, mi_layout *y)
{
    int more = 0;
    y->hdr = -1;
    y->end = L->n;
    for (int i = 0; i < L->n; i++) {
        if (!strstr(L->v[i], "MEMINFO in pid")) continue;
        if (y->hdr < 0) {
            y->hdr = i;
            mi_parse_header(m, L->v[i]);
        } else {
            if (y->end == L->n) y->end = i;
            more++;
        }
    }
    if (more)
        mi_warn(m, "the text holds %d more process(es) after pid %lld; only the first is parsed", more,
                (long long)m->pid);
}

/* The main table: the first dash line whose header words (up to three lines above it) include
 * "Pss". Sets y->dash, or leaves it -1. */
static void mi_find_table(const mi_lines *L, mi_layout *y)
{
    y->dash = y->h0 = -1;
    for (int i = y->hdr + 1; i < y->end; i++) {
        if (mi_known_title(L->v[i]) != SEC_NONE) break;
        y->nd = mi_dash_spans(L->v[i], y->ds, y->de, MI_MAX_COLS * 2);
        if (y->nd < 2) continue;
        int top = i;
        while (top - 1 > y->hdr && i - (top - 1) <= 3 && !mi_is_blank(L->v[top - 1])) top--;
        int pss = 0;
        for (int h = top; h < i; h++) pss |= mi_header_has_pss(L->v[h]);
        if (pss) {
            y->dash = i;
            y->h0 = top;
            return;
        }
    }
}

/* Android 2.x's transposed table: its header line stands where the dash line would. */
static void mi_find_transposed(mi_meminfo *m, const mi_lines *L, mi_layout *y)
{
    for (int tr = y->hdr + 1; tr < y->end; tr++) {
        if (!mi_is_transposed_header(L->v[tr])) continue;
        m->transposed = 1;
        mi_tok t[MI_MAX_TOKS];
        int n = mi_tokenize(L->v[tr], t, MI_MAX_TOKS);
        for (int c = 0; c < n; c++) mi_table_add_col(m, &m->table, mi_arena_strndup(&m->arena, t[c].s, (size_t)t[c].n));
        y->dash = y->h0 = tr;
        return;
    }
}

/* The lines above the table other than the process header: Uptime and Realtime. */
static void mi_preamble(mi_meminfo *m, const mi_lines *L, const mi_layout *y)
{
    for (int i = 0; i < y->h0; i++)
        if (i != y->hdr) mi_preamble_line(m, L->v[i]);
}

/* No table: say what the text is instead. */
static void mi_no_table_error(const mi_meminfo *m, const mi_lines *L, const mi_layout *y, char *err, size_t errlen)
{
    int sys = 0, nofound = 0;
    for (int i = 0; i < L->n; i++) {
        sys |= strstr(L->v[i], "Total PSS by process") != NULL;
        nofound |= strstr(L->v[i], "No process found for") != NULL;
    }
    if (nofound)
        snprintf(err, errlen,
                 "dumpsys found no such process (\"No process found for\"): check the pid or package name");
    else if (sys)
        snprintf(err, errlen,
                 "this is the system-wide `dumpsys meminfo` summary; run `dumpsys meminfo <pid|package>` for one "
                 "process");
    else if (y->hdr >= 0)
        snprintf(err, errlen,
                 "truncated meminfo: header for pid %lld found but no table (column names over a '------' line) "
                 "follows it",
                 (long long)m->pid);
    else
        snprintf(err, errlen,
                 "not dumpsys meminfo output: no table with a 'Pss' column over a '------' line (expected `adb "
                 "shell dumpsys meminfo <pid|package>`)");
}

/* The table's rows, up to the first blank line or section title. Returns the line after them,
 * or -1 when out of memory. */
static int mi_table_rows(mi_meminfo *m, const mi_lines *L, const mi_layout *y, const char **last_top)
{
    int i = y->dash + 1;
    for (; i < y->end; i++) {
        const char *line = L->v[i];
        if (mi_is_blank(line) || mi_known_title(line) != SEC_NONE || mi_other_title(line)) break;
        int r = m->transposed ? mi_parse_transposed_row(m, line) : mi_parse_row(m, line, last_top);
        if (r < 0) return -1;
        if (r == 0) mi_unparsed(m, line, "in the table");
    }
    if (m->table.nrows == 0) mi_warn(m, "the table has a header but no rows: input truncated?");
    else if (!m->have_total && !m->transposed) mi_warn(m, "the table has no TOTAL row: input truncated?");
    return i;
}

/* The sections after the table, read line by line. */
typedef struct mi_secstate {
    int sec;
    mi_poscols pc;
    mi_dbhdr db;
    int db_have_hdr;
    mi_section *other;
    const char *last_top; /* Dalvik Details rows continue the table's grouping */
} mi_secstate;

static const char *mi_trimmed_copy(mi_meminfo *m, const char *line)
{
    const char *p = line + mi_leading_spaces(line);
    return mi_arena_strndup(&m->arena, p, strlen(p));
}

static void mi_open_other_section(mi_meminfo *m, mi_secstate *st, const char *line)
{
    if (mi_arena_grow(&m->arena, (void **)&m->sections, sizeof *m->sections, &m->capsections, m->nsections) < 0) return;
    st->other = &m->sections[m->nsections++];
    memset(st->other, 0, sizeof *st->other);
    st->other->title = mi_trimmed_copy(m, line);
    mi_warn(m, "section '%s' is not one we know; its lines are kept in 'sections'", st->other->title);
}

/* Lines that shape a section rather than carry its data: column headers, DATABASES groups and
 * section titles. Returns 1 when the line was one. */
static int mi_section_frame_line(mi_meminfo *m, mi_secstate *st, const char *line)
{
    if ((st->sec == SEC_SUMMARY || st->sec == SEC_NATIVE) && !strchr(line, ':') &&
        (strstr(line, "(KB)") || strstr(line, "(kB)") || strstr(line, "Count"))) {
        mi_poscols_read(m, &st->pc, line);
        return 1;
    }
    if (st->sec == SEC_DB && (strstr(line, "Dbname") || strstr(line, "pgsz"))) {
        mi_db_header(m, &st->db, line);
        st->db_have_hdr = 1;
        return 1;
    }
    int t = mi_known_title(line);
    if (t == SEC_NONE && st->sec == SEC_DB && mi_all_caps(line)) {
        st->db.group = mi_trimmed_copy(m, line);
        return 1;
    }
    if (t == SEC_NONE && mi_other_title(line)) {
        t = SEC_OTHER;
        mi_open_other_section(m, st, line);
    }
    if (t == SEC_NONE) return 0;
    st->sec = t;
    memset(&st->pc, 0, sizeof st->pc);
    if (t == SEC_DB) {
        memset(&st->db, 0, sizeof st->db);
        st->db_have_hdr = 0;
    }
    return 1;
}

static void mi_section_data_line(mi_meminfo *m, mi_secstate *st, const char *line)
{
    switch (st->sec) {
    case SEC_DETAILS:
        if (!mi_parse_row(m, line, &st->last_top)) mi_unparsed(m, line, "in Dalvik Details");
        break;
    case SEC_SUMMARY: mi_summary_line(m, line, &st->pc); break;
    case SEC_OBJECTS: mi_kv_line(m, line, &m->objects, "Objects"); break;
    case SEC_SQL: mi_kv_line(m, line, &m->sql, "SQL"); break;
    case SEC_NATIVE: mi_native_line(m, line, &st->pc); break;
    case SEC_ASSETS: mi_asset_line(m, line); break;
    case SEC_DB:
        if (!st->db_have_hdr) mi_warn(m, "DATABASES rows without a column header: values are named col1, col2, ...");
        mi_db_line(m, &st->db, line);
        break;
    case SEC_OTHER:
        if (st->other) mi_strlist_add(&m->arena, &st->other->lines, mi_arena_strndup(&m->arena, line, strlen(line)));
        break;
    default: mi_unparsed(m, line, "after the table");
    }
}

static void mi_sections(mi_meminfo *m, const mi_lines *L, int from, int end, const char *last_top)
{
    mi_secstate st;
    memset(&st, 0, sizeof st);
    st.last_top = last_top;
    for (int i = from; i < end; i++) {
        const char *line = L->v[i];
        int dsx[4], dex[4];
        if (mi_is_blank(line) || mi_dash_spans(line, dsx, dex, 4) > 0) continue;
        if (!mi_section_frame_line(m, &st, line)) mi_section_data_line(m, &st, line);
    }
}

int mi_meminfo_parse(mi_meminfo *m, const char *text, size_t len, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (!text || len == 0) {
        snprintf(err, errlen, "empty input: expected the text of `adb shell dumpsys meminfo <pid|package>`");
        return -1;
    }
    mi_lines L;
    if (mi_split_lines(m, text, len, &L, err, errlen) < 0) return -1;
    mi_layout y;
    mi_find_process(m, &L, &y);
    mi_find_table(&L, &y);
    if (y.dash < 0) mi_find_transposed(m, &L, &y);
    if (y.dash < 0) {
        mi_no_table_error(m, &L, &y, err, errlen);
        return -1;
    }
    /* The transposed layout reads its preamble before the missing-header warning: the warnings keep
     * the order users have seen. */
    if (m->transposed) mi_preamble(m, &L, &y);
    if (y.hdr < 0) mi_warn(m, "no '** MEMINFO in pid N [process] **' line: pid and process unknown");
    if (!m->transposed) {
        mi_preamble(m, &L, &y);
        mi_build_columns(m, L.v + y.h0, y.dash - y.h0, y.ds, y.de, y.nd);
    }
    const char *last_top = NULL;
    int i = mi_table_rows(m, &L, &y, &last_top);
    if (i < 0) {
        snprintf(err, errlen, "out of memory parsing the meminfo table");
        return -1;
    }
    mi_sections(m, &L, i, y.end, last_top);
    if (L.nul) mi_warn(m, "input holds %zu NUL byte(s): binary data mixed into the text?", L.nul);
    mi_finish_warnings(m);
    return 0;
}

void mi_meminfo_free(mi_meminfo *m)
{
    mi_arena_free(&m->arena);
}
