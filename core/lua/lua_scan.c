/* Whether a script registers anything, read from its text without running it: a file of a
 * scripts folder that names no registration call is not run at start (a one-off script kept
 * there must not run, or fail, before every command).  Comments and strings are skipped, so
 * only code counts. */
#include "lua/lua_scan.h"

#include <ctype.h>
#include <string.h>

/* hk.NAME that registers (or, for watch_signals, changes a list `watch` reads) */
static const char *const registrations[] = {"query",         "renderer",    "watcher",
                                            "leak_finder",   "inspector",   "reference_matcher",
                                            "bitmap_source", "dump_method", "watch_signals"};

static int is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The level of a long bracket opening at p ("[[" 0, "[==[" 2), or -1 when none opens there. */
static int long_bracket(const char *p, const char *end)
{
    if (p >= end || *p != '[') return -1;
    int level = 0;
    for (p++; p < end && *p == '='; p++) level++;
    return p < end && *p == '[' ? level : -1;
}

/* Past the long bracket of this level that closes what opens at p. */
static const char *skip_long(const char *p, const char *end, int level)
{
    for (p += level + 2; p < end; p++) {
        if (*p != ']') continue;
        const char *q = p + 1;
        int l = 0;
        while (q < end && *q == '=') q++, l++;
        if (l == level && q < end && *q == ']') return q + 1;
    }
    return end;
}

/* Past a quoted string opening at p (an escape skips the character after the backslash). */
static const char *skip_quoted(const char *p, const char *end)
{
    char quote = *p++;
    while (p < end && *p != quote && *p != '\n') p += *p == '\\' ? 2 : 1;
    return p < end ? p + 1 : end;
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p)) p++;
    return p;
}

/* p is just past an identifier "hk": is ".NAME" a registration next? */
static int names_registration(const char *p, const char *end)
{
    p = skip_space(p, end);
    if (p >= end || *p != '.') return 0;
    const char *w = skip_space(p + 1, end);
    for (p = w; p < end && is_ident(*p);) p++;
    size_t n = (size_t)(p - w);
    for (size_t i = 0; i < sizeof registrations / sizeof *registrations; i++)
        if (strlen(registrations[i]) == n && !memcmp(w, registrations[i], n)) return 1;
    return 0;
}

/* Past a comment starting at p ("--"): a long one or the rest of the line. */
static const char *skip_comment(const char *p, const char *end)
{
    int level = long_bracket(p + 2, end);
    if (level >= 0) return skip_long(p + 2, end, level);
    while (p < end && *p != '\n') p++;
    return p;
}

int hkl_script_registers(const char *text, size_t n)
{
    const char *p = text, *end = text + n;
    if (p < end && *p == '#') /* a first line "#!..." is not Lua */
        while (p < end && *p != '\n') p++;
    char before = 0; /* the last character of code before p, past spaces */
    while (p < end) {
        int level;
        if (*p == '-' && p + 1 < end && p[1] == '-') p = skip_comment(p, end);
        else if ((level = long_bracket(p, end)) >= 0) p = skip_long(p, end, level), before = ']';
        else if (*p == '"' || *p == '\'') p = skip_quoted(p, end), before = '"';
        else if (is_ident(*p)) {
            const char *w = p;
            while (p < end && is_ident(*p)) p++;
            /* the global hk, not a field t.hk or a method o:hk */
            if (p - w == 2 && !memcmp(w, "hk", 2) && before != '.' && before != ':' && names_registration(p, end))
                return 1;
            before = 'a';
        } else {
            if (!isspace((unsigned char)*p)) before = *p;
            p++;
        }
    }
    return 0;
}
