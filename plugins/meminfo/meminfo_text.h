/* Line and token helpers shared by the meminfo text parser. */
#ifndef MEMINFO_TEXT_H
#define MEMINFO_TEXT_H

#include <stdint.h>

typedef struct mi_tok {
    const char *s;
    int n;
    int start, end; /* byte columns in the line, end exclusive */
} mi_tok;

#define MI_MAX_TOKS 64

/* Splits on spaces and tabs; returns the token count (at most max). */
int mi_tokenize(const char *line, mi_tok *t, int max);

enum { MI_NUM_SEP = 1, MI_NUM_SUFFIX = 2, MI_NUM_DECIMAL = 4 };
/* Parses a number as dumpsys prints it, tolerating what people paste:
 * thousands separators ("1,234", "1.234"), unit suffixes ("12K", "1.5M",
 * "2GB"; K means KB, the table's unit) and decimals.  Returns 1 and the value
 * in KB (rounded) with MI_NUM_* flags saying what was tolerated, 0 when the
 * token is not a number. */
int mi_num(const char *s, int n, int64_t *kb, int *flags);

int mi_is_blank(const char *line);
/* Dash-group spans of a "------   ------" line; returns the group count, 0
 * when the line has anything but dashes and blanks. */
int mi_dash_spans(const char *line, int *start, int *end, int max);
int mi_leading_spaces(const char *line);

#endif
