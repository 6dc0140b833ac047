/*
 * HotSpot's object layout: the sizes a JVM gives its objects, which a HotSpot dump does not
 * record (its CLASS DUMP holds the field bytes).  A layout is the object header (12 bytes with
 * compressed class pointers, 16 without, 8 with compact headers), the reference size (4 with
 * compressed oops, else 8), where array data starts and the object alignment; fields are packed
 * as JDK 15+ pack them.  It is chosen when a dump opens (from the dump, or the user's choice) and
 * written over the classes' sizes, so every size the core gives follows it.  ART dumps, and
 * HotSpot dumps opened with the choice "dump", keep the dump's own sizes.
 */
#ifndef HK_HPROF_LAYOUT_H
#define HK_HPROF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "hprof/hprof.h"

typedef struct hk_layout {
    uint8_t header;       /* bytes before an instance's fields: 8, 12 or 16 */
    uint8_t ref;          /* bytes of a reference field or array element: 4 or 8 */
    uint8_t align;        /* ObjectAlignmentInBytes: 8 or 16 */
    uint8_t elem_aligned; /* array data at the length word's end aligned to the element (JDK 22+,
                             compact headers), else to 8 bytes (JDK 21 and before) */
} hk_layout;

/* What the dump opened with: the layout, or none (the dump's own sizes), and why. */
typedef struct hk_layout_info {
    int jvm;          /* 1: sizes follow `layout`; 0: the dump's own sizes */
    hk_layout layout; /* when jvm */
    char name[24];    /* "compressed", "plain", "compact", "12/8", "dump" (the dump's own sizes) */
    char chosen[8];   /* "auto" or "option" */
    char why[240];    /* one sentence */
    int jdk;          /* the JDK feature version whose injected and @Contended fields the sizes
                         use: the dump's (hk_origin_jdk), else 17; when jvm */
} hk_layout_info;

/* The choice every dump opened afterwards gets ("auto" when never called): auto, dump,
 * compressed, plain, compact, or HEADER/REF[/ALIGN] (12/8, 16/4, 8/4/16).  0, or -1 with err. */
int hk_layout_select(const char *choice, char *err, size_t errlen);
const char *hk_layout_selected(void);
/* Parses a choice: 0 with *auto_ or *dump_ set, or *out filled; -1 with err. */
int hk_layout_parse(const char *choice, hk_layout *out, int *auto_, int *dump_, char *err, size_t errlen);

/* Sizes d's objects by the choice (NULL: the selected one).  Before the graph is built; a
 * second call replaces the first.  0, or -1 with err (a bad choice). */
int hk_dump_set_layout(hk_dump *d, const char *choice, char *err, size_t errlen);
const hk_layout_info *hk_dump_layout(const hk_dump *d);
/* Whether d is a HotSpot dump (its sizes are field bytes, a layout applies). */
int hk_dump_is_hotspot(const hk_dump *d);

/* Where the data of an array of esz-byte elements starts under L. */
static inline uint32_t hk_layout_array_base(const hk_layout *L, uint32_t esz)
{
    uint32_t to = L->elem_aligned ? esz : 8u;
    return (L->header + 4u + to - 1) / to * to;
}
/* An array of len elements of esz bytes under L. */
static inline uint64_t hk_layout_array(const hk_layout *L, uint32_t esz, uint32_t len)
{
    uint64_t a = L->align;
    return ((uint64_t)hk_layout_array_base(L, esz) + (uint64_t)len * esz + a - 1) / a * a;
}

/* ---- the model, for the files of core/hprof/ that apply it ---- */
/* Instance sizes of every class under L with JDK jdk's injected and @Contended fields into
 * isz[nclasses], and each class object's size (its java.lang.Class mirror with the static
 * fields) into msz[nclasses]. */
void hk_layout_classes(const hk_dump *d, const hk_layout *L, int jdk, uint32_t *isz, uint64_t *msz);
/* The layout the dump's object addresses show (auto), JDK jdk's fields included, with why; 0
 * when they show none. */
int hk_layout_detect(const hk_dump *d, int jdk, hk_layout *out, char *why, size_t whylen);

/* d->layout: the dump's own sizes, kept when a layout is first applied, and the choice. */
typedef struct hk_layout_state {
    hk_layout_info info;
    uint32_t *instance_size;
    uint64_t *static_bytes, *class_bytes;
    uint64_t prim_bytes[12][HK_MAX_HEAPS];
    uint64_t class_obj_bytes[HK_MAX_HEAPS];
} hk_layout_state;
/* The histogram's bytes (d->class_bytes, prim_bytes, class_obj_bytes) under L, from the counts,
 * the dump's own bytes in st and the arrays' length residues (d->array_res). */
void hk_layout_recount(hk_dump *d, const hk_layout_state *st, const hk_layout *L);
void hk_layout_free(hk_dump *d);

#endif
