/* How an Android app died, read from text: logcat lines of every layout and version, and
 * `dumpsys activity exit-info`.  Plain C with no host dependency (the fuzz targets and the
 * plugin entry both use it).  Every record is a list of named fields, so a caller asks for
 * "pid" or "reason", never for the third value. */
#ifndef DEATHS_H
#define DEATHS_H

#include <stddef.h>

typedef struct {
    const char *name; /* static */
    char *value;      /* owned; printable ASCII (other bytes become '?') */
    int numeric;      /* value is a whole decimal number */
} dl_field;

typedef struct {
    const char *kind;   /* static: "lmkd_kill", "am_kill", "killinfo", ... (README) */
    const char *layout; /* static: "epoch", "threadtime", "brief", ... */
    int line;           /* 1-based line number of the record's first line */
    int nfields, cap;
    dl_field *f;
} dl_record;

typedef struct {
    int n, cap;
    dl_record *r;
} dl_records;

/* logcat text (any layout, any mix of buffers) -> records of the families that tell of a
 * death or of memory pressure; continuation lines (lmkd 5-9, the kernel driver) are joined
 * to the record they continue.  Lines of no known family are skipped.  Never fails. */
void dl_logcat_parse(const char *text, size_t n, dl_records *out);

/* `dumpsys activity exit-info` (one field a line, with or without subreason; Android 15's
 * four lines a record) or ApplicationExitInfo.toString() lines, logcat-framed or not ->
 * one record each, in the order given (newest first as Android prints them). */
void dl_exitinfo_parse(const char *text, size_t n, dl_records *out);

void dl_records_free(dl_records *rs);
const char *dl_get(const dl_record *r, const char *name); /* NULL when absent */

/* ---- inside the parsers ---- */
dl_record *dl_new_record(dl_records *rs, const char *kind, const char *layout, int line);
void dl_set(dl_record *r, const char *name, const char *value, size_t n);
void dl_set_num(dl_record *r, const char *name, long long v);
void dl_set_str(dl_record *r, const char *name, const char *s);

/* One logcat line split into its frame; message points into the line. */
typedef struct {
    const char *layout;
    char time[40]; /* as printed ("" when the layout has none) */
    double epoch;  /* seconds since 1970, or -1 */
    int pid, tid;  /* -1 when absent */
    char prio;     /* 'I', ... or 0 */
    char tag[64];  /* trailing padding removed */
    const char *msg;
    size_t msglen;
} dl_frame;

int dl_frame_line(const char *line, size_t n, dl_frame *fr);  /* 1 framed, 0 not a log line */
int dl_message(dl_records *rs, const dl_frame *fr, int line); /* 1 when a record was added */
int dl_events_payload(dl_records *rs, const dl_frame *fr, int line);
int dl_lmk_message(dl_records *rs, const dl_frame *fr, int line);
int dl_lmk_continuation(dl_records *rs, int line, const char *p, const char *end);

/* small text helpers */
const char *dl_skip_ws(const char *p, const char *end);
int dl_int_at(const char *p, const char *end, long long *v, const char **after);
const char *dl_find(const char *p, const char *end, const char *needle);
int dl_starts(const char *p, const char *end, const char *prefix);

#endif
