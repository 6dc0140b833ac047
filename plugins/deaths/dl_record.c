/* Records of named fields, and the small text helpers every parser here shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deaths.h"

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("hprofkit: out of memory\n", stderr);
        abort();
    }
    return q;
}

dl_record *dl_new_record(dl_records *rs, const char *kind, const char *layout, int line)
{
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 16;
        rs->r = xrealloc(rs->r, (size_t)rs->cap * sizeof *rs->r);
    }
    dl_record *r = &rs->r[rs->n++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->layout = layout;
    r->line = line;
    return r;
}

static int all_digits(const char *s)
{
    const char *p = s + (*s == '-');
    if (!*p || strlen(p) > 18) return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return 1;
}

/* A field again replaces its value: the last word on a name wins. */
void dl_set(dl_record *r, const char *name, const char *value, size_t n)
{
    while (n && (value[0] == ' ' || value[0] == '\t')) value++, n--;
    while (n && (value[n - 1] == ' ' || value[n - 1] == '\t' || value[n - 1] == '\r')) n--;
    char *v = xrealloc(NULL, n + 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)value[i];
        v[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    v[n] = 0;
    for (int i = 0; i < r->nfields; i++)
        if (!strcmp(r->f[i].name, name)) {
            free(r->f[i].value);
            r->f[i].value = v;
            r->f[i].numeric = all_digits(v);
            return;
        }
    if (r->nfields == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 8;
        r->f = xrealloc(r->f, (size_t)r->cap * sizeof *r->f);
    }
    r->f[r->nfields++] = (dl_field){name, v, all_digits(v)};
}

void dl_set_str(dl_record *r, const char *name, const char *s)
{
    dl_set(r, name, s, strlen(s));
}

void dl_set_num(dl_record *r, const char *name, long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    dl_set_str(r, name, b);
}

const char *dl_get(const dl_record *r, const char *name)
{
    for (int i = 0; i < r->nfields; i++)
        if (!strcmp(r->f[i].name, name)) return r->f[i].value;
    return NULL;
}

void dl_records_free(dl_records *rs)
{
    for (int i = 0; i < rs->n; i++) {
        for (int k = 0; k < rs->r[i].nfields; k++) free(rs->r[i].f[k].value);
        free(rs->r[i].f);
    }
    free(rs->r);
    memset(rs, 0, sizeof *rs);
}

const char *dl_skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    return p;
}

/* A decimal number (optionally negative) at p; 1 and *after past it, or 0. */
int dl_int_at(const char *p, const char *end, long long *v, const char **after)
{
    int neg = p < end && *p == '-';
    const char *q = p + neg;
    long long x = 0;
    int digits = 0;
    for (; q < end && *q >= '0' && *q <= '9'; q++, digits++)
        if (digits < 18) x = x * 10 + (*q - '0');
    if (!digits) return 0;
    *v = neg ? -x : x;
    if (after) *after = q;
    return 1;
}

const char *dl_find(const char *p, const char *end, const char *needle)
{
    size_t k = strlen(needle);
    for (; p + k <= end; p++)
        if (!memcmp(p, needle, k)) return p;
    return NULL;
}

int dl_starts(const char *p, const char *end, const char *prefix)
{
    size_t k = strlen(prefix);
    return (size_t)(end - p) >= k && !memcmp(p, prefix, k);
}
