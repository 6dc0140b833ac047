/*
 * R8 / ProGuard mapping files: which source name each obfuscated class, field and method
 * stands for.  The whole file is read into one buffer and parsed in place (names point
 * into it), so a large map costs one read and one pass.  This layer does not print:
 * malformed lines become warnings the caller shows.
 */
#ifndef HK_MAP_H
#define HK_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "util/hk_buf.h"

typedef struct hk_map_class {
    const char *src, *obf; /* com.example.Foo$Bar -> a.b */
    const char *file;      /* R8's sourceFile metadata, NULL when absent */
    uint32_t first, n;     /* its members: map->members[first .. first + n) */
} hk_map_class;

typedef struct hk_map_member {
    const char *src; /* field or method name; a method inlined from another
                                 * class is qualified: com.example.Other.helper */
    const char *obf;
    uint8_t is_method;
    int32_t obf_lo, obf_hi;   /* minified line range, -1 when the line has none */
    int32_t orig_lo, orig_hi; /* original lines (orig_hi == orig_lo: one line), -1: none */
} hk_map_member;

#define HK_MAP_KEEP_WARNINGS 20

typedef struct hk_map {
    char *path;
    hk_buf text; /* the file, NUL-terminated in place */
    hk_map_class *classes;
    uint32_t nclasses;
    hk_map_member *members;
    uint32_t nmembers;
    const char *map_id;        /* "# pg_map_id: ..." when present */
    uint32_t *by_obf, *by_src; /* open-addressing tables of class index + 1 */
    uint32_t hash_cap;
    hk_buf warnings;    /* "warning: PATH:LINE: what\n", the first HK_MAP_KEEP_WARNINGS */
    uint32_t nwarnings; /* all of them */
} hk_map;

/* Reads and parses a mapping file.  A line that cannot be read becomes a warning naming
 * its line number and the rest is still used; only an unreadable file is an error. */
hk_map *hk_map_load(const char *path, char *err, size_t errlen);
/* Parses text already in memory (tests, fuzzing); the map takes the buffer. */
hk_map *hk_map_parse(const char *name, hk_buf *text);
void hk_map_free(hk_map *m);

/* The class whose obfuscated (or, by_source, original) name is name[0..n), or NULL. */
const hk_map_class *hk_map_class_by_obf(const hk_map *m, const char *name, size_t n);
const hk_map_class *hk_map_class_by_src(const hk_map *m, const char *name, size_t n);
/* The original name of a field of c, or NULL when the map does not rename it. */
const char *hk_map_field(const hk_map *m, const hk_map_class *c, const char *obf);

/* One stack frame, by source names (the strings are not NUL-terminated: use the lengths). */
typedef struct hk_frame {
    const char *class_name, *method, *file; /* file may be NULL */
    size_t class_len, method_len, file_len;
    int32_t line;    /* > 0 a line; HPROF's 0/-1 unknown, -2 compiled, -3 native */
    uint8_t inlined; /* R8 inlined it into the frame that follows */
} hk_frame;
/* The original frames for method obf at line (<= 0: unknown) of class c, innermost
 * (inlined) first; returns how many were written to out (at most max), 0 when the map
 * does not know the method. */
uint32_t hk_map_frames(const hk_map *m, const hk_map_class *c, const char *obf, size_t obf_len, int32_t line,
                       hk_frame *out, uint32_t max);

#endif
