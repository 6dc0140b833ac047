/* The one front door to a dump: what the CLI, hk.open and the plugin host's open_dump all call.
 * It checks the path the user named, maps the file (or inflates a .gz), turns a Perfetto trace
 * into the HPROF it holds (core/trace's import), indexes with a progress line, and applies the
 * R8/ProGuard map given or the one beside the dump.  A failure comes back as a class the caller
 * maps to its exit status (the README's table) with one line in err. */
#ifndef HK_OPEN_H
#define HK_OPEN_H

#include "hprof/hprof.h"

typedef enum {
    HK_OPEN_OK = 0,
    HK_OPEN_DUMP_FAILED = 1, /* the dump is corrupt, truncated, of an unknown format, or a trace without one */
    HK_OPEN_USER_ERROR = 2,  /* a path the user named cannot be used: missing, not a file, unreadable; a bad map */
} hk_open_fail;

typedef struct hk_open_opts {
    const char *map;   /* the map to apply, or NULL */
    int no_map_beside; /* without map: do not look for DUMP.map / STEM.map beside the dump */
    const char *who;   /* prefix of the notes on stderr ("hprofkit histogram"); NULL: "hprofkit" */
    const char *label; /* how the pre-check names the path ("dump" -> "dump PATH: ..."); NULL: PATH alone */
    int progress;      /* report "indexing PATH: N%" as progress (hk_report) */
} hk_open_opts;

/* Opens path (o may be NULL: no map option, notes as "hprofkit").  NULL with *fail and err. */
hk_dump *hk_open(const char *path, const hk_open_opts *o, hk_open_fail *fail, char *err, size_t errlen);
/* The same for bytes held in memory (HPROF or a trace; the fuzz target): no pre-check, no map. */
hk_dump *hk_open_mem(const uint8_t *data, size_t size, char *err, size_t errlen);
/* The pre-check alone, for other files a user names (--map, --plugins): -1 with
 * "LABEL PATH: reason" when path is missing, not a regular file or unreadable. */
int hk_check_file(const char *label, const char *path, char *err, size_t errlen);
/* The progress line of indexing (ctx: what, "indexing PATH"), for other openers. */
void hk_progress_index(void *ctx, uint64_t done, uint64_t total);

#endif
