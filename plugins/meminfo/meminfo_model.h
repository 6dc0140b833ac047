/* The parsed form of one `dumpsys meminfo` process block.  Internal to the
 * plugin: meminfo_parse.c fills it, meminfo_check.c checks it, meminfo_json.c
 * writes it.  All pointers live in m->arena. */
#ifndef MEMINFO_MODEL_H
#define MEMINFO_MODEL_H

#include <stdint.h>
#include "mi_buf.h"

#define MI_MAX_COLS 32
#define MI_N(a)     (int)(sizeof(a) / sizeof((a)[0]))

typedef struct mi_row {
    const char *name;
    const char *parent; /* NULL for top rows */
    const char *group;  /* DATABASES sub-heading ("POOL STATS"), else NULL */
    const char *extra;  /* DATABASES old-layout "cache" string, else NULL */
    int is_sub, is_total;
    int64_t v[MI_MAX_COLS];
    unsigned char has[MI_MAX_COLS];
} mi_row;

/* A table: column names as printed and rows. */
typedef struct mi_table {
    const char *cols[MI_MAX_COLS];
    int ncols;
    mi_row *rows;
    int nrows, caprows;
} mi_table;

typedef struct mi_kv {
    const char *key;
    int64_t val;
    const char *text; /* as printed, for Asset Allocations ("132K") */
} mi_kv;

typedef struct mi_kvlist {
    mi_kv *items;
    int n, cap;
} mi_kvlist;

typedef struct mi_strlist {
    const char **items;
    int n, cap;
} mi_strlist;

typedef struct mi_check {
    const char *name;
    int ok;
    const char *detail;
} mi_check;

typedef struct mi_section {
    const char *title;
    mi_strlist lines;
} mi_section;

enum {
    MI_S_JAVA,
    MI_S_NATIVE,
    MI_S_CODE,
    MI_S_STACK,
    MI_S_GRAPHICS,
    MI_S_PRIVATE_OTHER,
    MI_S_SYSTEM,
    MI_S_UNKNOWN,
    MI_S_TOTAL_PSS,
    MI_S_TOTAL_RSS,
    MI_S_TOTAL_SWAP,
    MI_S_N
};
extern const char *const mi_summary_keys[MI_S_N];

typedef struct mi_meminfo {
    mi_arena arena;
    int has_pid;
    int64_t pid;
    const char *process;
    int has_uptime, has_realtime;
    int64_t uptime, realtime;

    mi_table table; /* main table; rows include sub-rows and TOTAL */
    int have_total;
    int transposed; /* Android 2.x: columns native/dalvik/other/total */

    int have_summary;
    int has_pss[MI_S_N], has_rss[MI_S_N];
    int64_t pss[MI_S_N], rss[MI_S_N];
    mi_kvlist summary_other; /* App Summary labels we do not know */

    mi_kvlist objects, sql, assets;
    mi_table databases; /* columns are the union over all DATABASES headers */
    mi_table native_allocs;
    mi_section *sections; /* sections we do not know, kept verbatim */
    int nsections, capsections;
    mi_strlist unparsed; /* lines we could not place */

    mi_check *checks;
    int nchecks, capchecks;
    mi_strlist warnings;

    /* number-format counters, turned into one warning each at the end */
    int n_sep, n_suffix, n_decimal;
    const char *first_sep, *first_suffix, *first_decimal;
} mi_meminfo;

int mi_meminfo_parse(mi_meminfo *m, const char *text, size_t len, char *err, size_t errlen);
void mi_meminfo_check(mi_meminfo *m);
void mi_meminfo_free(mi_meminfo *m);

/* helpers shared by the parser and the checks */
void mi_warn(mi_meminfo *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mi_table_col(const mi_table *t, const char *name);
const mi_row *mi_table_row(const mi_table *t, const char *name);

#endif
