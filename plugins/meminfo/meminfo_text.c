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

int mi_num(const char *s, int n, int64_t *kb, int *flags)
{
    int i = 0, neg = 0;
    *flags = 0;
    if (i < n && s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i >= n || !isdigit((unsigned char)s[i])) return 0;
    /* Digits and separators; groups[] holds each group's digit count. */
    int groups[16], ng = 0, nsep = 0, ncomma = 0, ndot = 0, ndigits = 0;
    char digits[32];
    int gl = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (isdigit((unsigned char)c)) {
            if (ndigits >= 18) return 0;
            digits[ndigits++] = c;
            gl++;
        } else if ((c == ',' || c == '.') && i + 1 < n && isdigit((unsigned char)s[i + 1])) {
            if (ng >= 15) return 0;
            groups[ng++] = gl;
            gl = 0;
            nsep++;
            if (c == ',') ncomma++;
            else ndot++;
        } else break;
    }
    groups[ng++] = gl;
    /* Optional unit suffix: K/M/G, optionally followed by B. */
    int64_t mult = 1;
    if (i < n) {
        char c = (char)toupper((unsigned char)s[i]);
        if (c == 'K') mult = 1;
        else if (c == 'M') mult = 1024;
        else if (c == 'G') mult = 1024 * 1024;
        else return 0;
        i++;
        if (i < n && toupper((unsigned char)s[i]) == 'B') i++;
        if (i != n) return 0;
        *flags |= MI_NUM_SUFFIX;
    }
    /* Separators: all-3-digit groups after a 1-3 digit head are thousands
     * separators unless a suffix makes a single dot a decimal point. */
    int thousands = nsep > 0 && !(ncomma && ndot) && groups[0] >= 1 && groups[0] <= 3;
    for (int g = 1; thousands && g < ng; g++)
        if (groups[g] != 3) thousands = 0;
    if (nsep == 1 && ndot == 1 && (*flags & MI_NUM_SUFFIX)) thousands = 0;
    int frac_digits = 0;
    if (nsep > 0 && !thousands) {
        if (nsep != 1) return 0;
        frac_digits = groups[1];
        *flags |= MI_NUM_DECIMAL;
    } else if (thousands) *flags |= MI_NUM_SEP;
    int64_t ip = 0;
    for (int d = 0; d < ndigits - frac_digits; d++) ip = ip * 10 + (digits[d] - '0');
    double frac = 0, scale = 1;
    for (int d = ndigits - frac_digits; d < ndigits; d++) {
        scale /= 10;
        frac += (digits[d] - '0') * scale;
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
