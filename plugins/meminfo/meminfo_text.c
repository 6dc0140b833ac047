#include "meminfo_text.h"

#include <ctype.h>
#include <string.h>

int mi_tokenize(const char *line, mi_tok *t, int max)
{
    int n = 0, i = 0;
    while (line[i] && n < max) {
        while (line[i] == ' ' || line[i] == '\t') i++;
        if (!line[i]) break;
        int s = i;
        while (line[i] && line[i] != ' ' && line[i] != '\t') i++;
        t[n].s = line + s;
        t[n].n = i - s;
        t[n].start = s;
        t[n].end = i;
        n++;
    }
    return n;
}

/* A number's digits as written, and the separator groups between them. */
typedef struct mi_numtext {
    char digits[32];
    int ndigits;
    int groups[16], ng; /* each group's digit count */
    int nsep, ncomma, ndot;
} mi_numtext;

/* Digits and separators from s[*i] on; *i stops at the first other character. 0 when the number
 * has more digits or groups than any memory size. */
static int mi_num_scan(const char *s, int n, int *i, mi_numtext *t)
{
    int gl = 0;
    for (; *i < n; (*i)++) {
        char c = s[*i];
        if (isdigit((unsigned char)c)) {
            if (t->ndigits >= 18) return 0;
            t->digits[t->ndigits++] = c;
            gl++;
        } else if ((c == ',' || c == '.') && *i + 1 < n && isdigit((unsigned char)s[*i + 1])) {
            if (t->ng >= 15) return 0;
            t->groups[t->ng++] = gl;
            gl = 0;
            t->nsep++;
            if (c == ',') t->ncomma++;
            else t->ndot++;
        } else break;
    }
    t->groups[t->ng++] = gl;
    return 1;
}

/* Optional unit suffix from s[i]: K/M/G, optionally followed by B, and nothing after it. */
static int mi_num_suffix(const char *s, int n, int i, int64_t *mult, int *flags)
{
    *mult = 1;
    if (i == n) return 1;
    char c = (char)toupper((unsigned char)s[i]);
    if (c == 'K') *mult = 1;
    else if (c == 'M') *mult = 1024;
    else if (c == 'G') *mult = 1024 * 1024;
    else return 0;
    i++;
    if (i < n && toupper((unsigned char)s[i]) == 'B') i++;
    if (i != n) return 0;
    *flags |= MI_NUM_SUFFIX;
    return 1;
}

/* How many trailing digits are a fraction: all-3-digit groups after a 1-3 digit head are
 * thousands separators unless a suffix makes a single dot a decimal point; otherwise one
 * separator is a decimal point. -1 when the separators make no number. */
static int mi_num_frac_digits(const mi_numtext *t, int *flags)
{
    int thousands = t->nsep > 0 && !(t->ncomma && t->ndot) && t->groups[0] >= 1 && t->groups[0] <= 3;
    for (int g = 1; thousands && g < t->ng; g++)
        if (t->groups[g] != 3) thousands = 0;
    if (t->nsep == 1 && t->ndot == 1 && (*flags & MI_NUM_SUFFIX)) thousands = 0;
    if (t->nsep > 0 && !thousands) {
        if (t->nsep != 1) return -1;
        *flags |= MI_NUM_DECIMAL;
        return t->groups[1];
    }
    if (thousands) *flags |= MI_NUM_SEP;
    return 0;
}

int mi_num(const char *s, int n, int64_t *kb, int *flags)
{
    int i = 0, neg = 0;
    *flags = 0;
    if (i < n && s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i >= n || !isdigit((unsigned char)s[i])) return 0;
    mi_numtext t = {0};
    int64_t mult;
    if (!mi_num_scan(s, n, &i, &t) || !mi_num_suffix(s, n, i, &mult, flags)) return 0;
    int frac_digits = mi_num_frac_digits(&t, flags);
    if (frac_digits < 0) return 0;
    int64_t ip = 0;
    for (int d = 0; d < t.ndigits - frac_digits; d++) ip = ip * 10 + (t.digits[d] - '0');
    double frac = 0, scale = 1;
    for (int d = t.ndigits - frac_digits; d < t.ndigits; d++) {
        scale /= 10;
        frac += (t.digits[d] - '0') * scale;
    }
    if (ip > INT64_MAX / mult / 2) return 0;
    double v = ((double)ip + frac) * (double)mult;
    /* 10^15 KB is an exabyte: anything larger is not a memory size, and the
     * cap keeps sums over thousands of rows far from int64 overflow. */
    if (v > 1e15) return 0;
    int64_t r = (int64_t)(v + 0.5);
    if (frac_digits && (*flags & MI_NUM_SUFFIX) && r == (int64_t)v)
        *flags &= ~MI_NUM_DECIMAL; /* "1.5M" is exact in KB: no rounding to report */
    *kb = neg ? -r : r;
    return 1;
}

int mi_is_blank(const char *line)
{
    for (; *line; line++)
        if (*line != ' ' && *line != '\t') return 0;
    return 1;
}

int mi_dash_spans(const char *line, int *start, int *end, int max)
{
    int n = 0, i = 0;
    for (const char *p = line; *p; p++)
        if (*p != ' ' && *p != '-' && *p != '\t') return 0;
    while (line[i]) {
        while (line[i] == ' ' || line[i] == '\t') i++;
        if (!line[i]) break;
        int s = i;
        while (line[i] == '-') i++;
        if (n < max) {
            start[n] = s;
            end[n] = i;
        }
        n++;
    }
    return n < max ? n : max;
}

int mi_leading_spaces(const char *line)
{
    int n = 0;
    while (line[n] == ' ' || line[n] == '\t') n++;
    return n;
}
