/* Reading a mapping file: class lines, member lines, comments and R8's JSON metadata. */
#include "map/map.h"
#include "util/hk_file.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

typedef struct parser {
    hk_map *m;
    size_t capclasses, capmembers;
    uint32_t line;
    int in_class;    /* a class line was read and its members may follow */
    int member_meta; /* the last line was a member: JSON after it is the member's */
} parser;

static void warn(parser *p, const char *what)
{
    hk_map *m = p->m;
    if (m->nwarnings++ < HK_MAP_KEEP_WARNINGS)
        hk_buf_printf(&m->warnings, "warning: %s:%u: %s\n", m->path, p->line, what);
}

static char *skip_space(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

static void trim_end(char *s, char *end)
{
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) *--end = 0;
}

/* Reads a decimal line number at *s, advancing; -1 when there is none. */
static int32_t read_num(char **s)
{
    char *q = *s;
    if (*q < '0' || *q > '9') return -1;
    long v = 0;
    while (*q >= '0' && *q <= '9' && v < 1000000000) v = v * 10 + (*q++ - '0');
    *s = q;
    return (int32_t)v;
}

/* Splits "lhs -> rhs": NUL-terminates lhs, returns rhs (trimmed) or NULL. */
static char *split_arrow(char *s)
{
    char *a = strstr(s, " -> ");
    if (!a) return NULL;
    char *rhs = skip_space(a + 4);
    trim_end(s, a);
    *a = 0;
    return rhs;
}

/* "# {"id":"sourceFile","fileName":"Foo.java"}" and friends; other JSON is kept by R8 for
 * tools we do not need (residual signatures, synthetic markers, outlines). */
static void comment(parser *p, char *s)
{
    hk_map *m = p->m;
    s = skip_space(s + 1);
    if (!strncmp(s, "pg_map_id:", 10)) {
        m->map_id = skip_space(s + 10);
        return;
    }
    if (*s != '{' || !p->in_class || p->member_meta) return;
    if (!strstr(s, "\"id\":\"sourceFile\"")) return;
    char *f = strstr(s, "\"fileName\":\"");
    if (!f) return;
    f += 12;
    char *q = strchr(f, '"');
    if (!q) {
        warn(p, "sourceFile metadata without a closing quote");
        return;
    }
    *q = 0;
    m->classes[m->nclasses - 1].file = f;
}

/* "com.example.Foo -> a.b:" */
static void class_line(parser *p, char *s)
{
    hk_map *m = p->m;
    char *obf = split_arrow(s);
    size_t n = obf ? strlen(obf) : 0;
    p->in_class = 0;
    if (!obf || n < 2 || obf[n - 1] != ':' || !*s || strchr(s, ' ')) {
        warn(p, "expected a class line 'original.Name -> obfuscated:'");
        return;
    }
    obf[n - 1] = 0;
    trim_end(obf, obf + n - 1);
    m->classes = hk_grow(m->classes, &p->capclasses, m->nclasses + 1, sizeof *m->classes);
    hk_map_class *c = &m->classes[m->nclasses++];
    c->src = s;
    c->obf = obf;
    c->file = NULL;
    c->first = m->nmembers;
    c->n = 0;
    p->in_class = 1;
}

/* "    [a:b:]type name[(args)][:c[:d]] -> obf" */
static void member_line(parser *p, char *s)
{
    hk_map *m = p->m;
    p->member_meta = 0;
    if (!p->in_class) {
        warn(p, "a member line outside any class");
        return;
    }
    char *obf = split_arrow(s);
    if (!obf || !*obf || strchr(obf, ' ')) {
        warn(p, "expected a member line 'type name -> obfuscated'");
        return;
    }
    hk_map_member mem = {.obf = obf, .obf_lo = -1, .obf_hi = -1, .orig_lo = -1, .orig_hi = -1};
    if (*s >= '0' && *s <= '9') {
        mem.obf_lo = read_num(&s);
        if (*s++ != ':' || (mem.obf_hi = read_num(&s)) < 0 || *s++ != ':') {
            warn(p, "expected a line range 'start:end:' before the method");
            return;
        }
    }
    char *name = strchr(s, ' ');
    if (!name || name == s) {
        warn(p, "expected 'type name' before '->'");
        return;
    }
    name = skip_space(name);
    char *paren = strchr(name, '(');
    if (paren) {
        char *close = strchr(paren, ')');
        if (!close || paren == name) {
            warn(p, "a method without a closing ')'");
            return;
        }
        *paren = 0;
        char *t = close + 1;
        if (*t == ':') {
            t++;
            mem.orig_lo = read_num(&t);
            mem.orig_hi = mem.orig_lo;
            if (*t == ':') {
                t++;
                mem.orig_hi = read_num(&t);
            }
            if (mem.orig_lo < 0 || mem.orig_hi < 0 || *t) {
                warn(p, "expected original line numbers ':start[:end]' after the method");
                return;
            }
        } else if (*t) {
            warn(p, "unexpected text after the method's ')'");
            return;
        }
        mem.is_method = 1;
    } else if (mem.obf_lo >= 0 || strchr(name, ' ') || !*name) {
        warn(p, "expected a field 'type name -> obfuscated'");
        return;
    }
    mem.src = name;
    m->members = hk_grow(m->members, &p->capmembers, m->nmembers + 1, sizeof *m->members);
    m->members[m->nmembers++] = mem;
    m->classes[m->nclasses - 1].n++;
    p->member_meta = 1;
}

static uint32_t hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Both tables map a name to class index + 1; a name given twice keeps its last class. */
static void build_tables(hk_map *m)
{
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)m->nclasses) cap *= 2;
    m->hash_cap = cap;
    m->by_obf = hk_xcalloc(cap, sizeof *m->by_obf);
    m->by_src = hk_xcalloc(cap, sizeof *m->by_src);
    for (uint32_t i = 0; i < m->nclasses; i++) {
        for (int t = 0; t < 2; t++) {
            uint32_t *tab = t ? m->by_src : m->by_obf;
            const char *key = t ? m->classes[i].src : m->classes[i].obf;
            uint32_t s = hash(key, strlen(key)) & (cap - 1);
            while (tab[s] && strcmp(t ? m->classes[tab[s] - 1].src : m->classes[tab[s] - 1].obf, key))
                s = (s + 1) & (cap - 1);
            tab[s] = i + 1;
        }
    }
}

static const hk_map_class *lookup(const hk_map *m, const uint32_t *tab, int by_src, const char *name, size_t n)
{
    if (!m->hash_cap) return NULL;
    uint32_t s = hash(name, n) & (m->hash_cap - 1);
    for (; tab[s]; s = (s + 1) & (m->hash_cap - 1)) {
        const hk_map_class *c = &m->classes[tab[s] - 1];
        const char *k = by_src ? c->src : c->obf;
        if (!strncmp(k, name, n) && !k[n]) return c;
    }
    return NULL;
}

const hk_map_class *hk_map_class_by_obf(const hk_map *m, const char *name, size_t n)
{
    return lookup(m, m->by_obf, 0, name, n);
}

const hk_map_class *hk_map_class_by_src(const hk_map *m, const char *name, size_t n)
{
    return lookup(m, m->by_src, 1, name, n);
}

hk_map *hk_map_parse(const char *name, hk_buf *text)
{
    hk_map *m = hk_xcalloc(1, sizeof *m);
    m->path = hk_xstrdup(name);
    m->text = *text;
    hk_buf_init(text);
    hk_buf_reserve(&m->text, 1);
    m->text.data[m->text.len] = 0;
    parser p = {.m = m};
    char *s = (char *)m->text.data, *end = s + m->text.len;
    if (m->text.len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) s += 3; /* a UTF-8 byte order mark */
    while (s < end) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) nl = end;
        *nl = 0;
        p.line++;
        trim_end(s, nl);
        char *t = skip_space(s);
        if (!*t) { /* blank */
        } else if (*t == '#') comment(&p, t);
        else if (t == s) {
            p.member_meta = 0;
            class_line(&p, s);
        } else member_line(&p, t);
        s = nl + 1;
    }
    build_tables(m);
    return m;
}

hk_map *hk_map_load(const char *path, char *err, size_t errlen)
{
    hk_buf text;
    hk_buf_init(&text);
    if (hk_file_read_all(path, &text, err, errlen) < 0) {
        hk_buf_free(&text);
        return NULL;
    }
    return hk_map_parse(path, &text);
}

void hk_map_free(hk_map *m)
{
    if (!m) return;
    free(m->path);
    hk_buf_free(&m->text);
    free(m->classes);
    free(m->members);
    free(m->by_obf);
    free(m->by_src);
    hk_buf_free(&m->warnings);
    free(m);
}
