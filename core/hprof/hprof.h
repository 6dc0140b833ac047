/*
 * The HPROF reader and index: one pass over a mapped dump builds a sorted object table
 * (id -> record offset, 9 bytes per object), the class table with field layouts, the GC
 * roots and the heap ranges.  Everything else reads records straight from the mapping.
 * hk_dump is a handle here: the floors above read its object and class tables through
 * hprof_view.h (read-only) and the rest through the calls below; its representation
 * (hprof_internal.h) is private to core/hprof/.
 */
#ifndef HK_HPROF_H
#define HK_HPROF_H

#include <stddef.h>
#include <stdint.h>

#include "hprofkit.h"
#include "util/hk_buf.h"
#include "map/map.h"

/* Top-level record tags. */
enum {
    HPROF_STRING = 0x01,
    HPROF_LOAD_CLASS = 0x02,
    HPROF_UNLOAD_CLASS = 0x03,
    HPROF_STACK_FRAME = 0x04,
    HPROF_STACK_TRACE = 0x05,
    HPROF_ALLOC_SITES = 0x06,
    HPROF_HEAP_SUMMARY = 0x07,
    HPROF_START_THREAD = 0x0a,
    HPROF_END_THREAD = 0x0b,
    HPROF_HEAP_DUMP = 0x0c,
    HPROF_CPU_SAMPLES = 0x0d,
    HPROF_CONTROL_SETTINGS = 0x0e,
    HPROF_HEAP_DUMP_SEGMENT = 0x1c,
    HPROF_HEAP_DUMP_END = 0x2c,
    /* hprofkit's own records, in dumps it builds from Perfetto heap graphs (other readers skip
     * them by their length): per-object sizes where the class's size is not the object's
     * (id, u8 size)*, and the reference kind of classes the graph names (id, u1 hk_ref_kind)* */
    HPROF_HK_OBJECT_SIZES = 0xf0,
    HPROF_HK_REF_KINDS = 0xf1
};

/* A class's reference kind when the dump says it (HPROF_HK_REF_KINDS); 0: from its name. */
enum hk_ref_kind { HK_REF_SOFT = 1, HK_REF_WEAK, HK_REF_FINALIZER, HK_REF_PHANTOM };

/* Heap sub-record tags, HotSpot's and ART's. */
enum {
    HPROF_ROOT_UNKNOWN = 0xff,
    HPROF_ROOT_JNI_GLOBAL = 0x01,
    HPROF_ROOT_JNI_LOCAL = 0x02,
    HPROF_ROOT_JAVA_FRAME = 0x03,
    HPROF_ROOT_NATIVE_STACK = 0x04,
    HPROF_ROOT_STICKY_CLASS = 0x05,
    HPROF_ROOT_THREAD_BLOCK = 0x06,
    HPROF_ROOT_MONITOR_USED = 0x07,
    HPROF_ROOT_THREAD_OBJECT = 0x08,
    HPROF_ROOT_INTERNED_STRING = 0x89,
    HPROF_ROOT_FINALIZING = 0x8a,
    HPROF_ROOT_DEBUGGER = 0x8b,
    HPROF_ROOT_REFERENCE_CLEANUP = 0x8c,
    HPROF_ROOT_VM_INTERNAL = 0x8d,
    HPROF_ROOT_JNI_MONITOR = 0x8e,
    HPROF_ROOT_UNREACHABLE = 0x90,
    HPROF_CLASS_DUMP = 0x20,
    HPROF_INSTANCE_DUMP = 0x21,
    HPROF_OBJ_ARRAY_DUMP = 0x22,
    HPROF_PRIM_ARRAY_DUMP = 0x23,
    HPROF_PRIM_ARRAY_NODATA = 0xc3,
    HPROF_HEAP_DUMP_INFO = 0xfe
};

/* What kind of object a record is (the sub-record tag says it). */
enum hk_kind { HK_KIND_CLASS = 1, HK_KIND_INSTANCE, HK_KIND_OBJ_ARRAY, HK_KIND_PRIM_ARRAY };

#define HK_MAX_HEAPS 8
#define HK_NONE      UINT32_MAX

typedef struct hk_field {
    const char *name;     /* the source name when a map renamed it */
    const char *obf_name; /* the dump's name */
    uint8_t type;         /* enum hk_type */
    uint32_t offset;      /* in the instance data (flattened layouts) */
} hk_field;

typedef struct hk_static {
    const char *name;
    const char *obf_name;
    uint8_t type;
    hk_value value;
} hk_static;

typedef struct hk_class {
    hk_id id;
    hk_id super_id;
    hk_id loader_id;
    uint32_t index;           /* in d->classes */
    uint32_t super;           /* index of the superclass, HK_NONE for none */
    uint32_t object;          /* index in the object table */
    const char *name;         /* Java source name: java.lang.String, byte[], a.B$C (mapped) */
    const char *obf_name;     /* the name the dump gives it (the same without a map) */
    uint32_t instance_size;   /* as the dump records it (ART: real size; HotSpot: field bytes) */
    uint32_t own_fields_size; /* bytes of this class's own fields in instance data */
    uint16_t nfields;         /* this class's own fields, offsets relative to its block */
    hk_field *fields;
    uint16_t nstatics;
    hk_static *statics;
    uint64_t static_bytes; /* size of static values: the class object's shallow size */
    /* flattened layout (own fields first, then each superclass's), built lazily */
    hk_field *all_fields;
    uint32_t nall_fields;
    uint32_t all_fields_size;
    uint8_t heap;
    uint8_t ref_kind; /* enum hk_ref_kind, 0 when the dump does not say */
} hk_class;

typedef struct hk_root {
    hk_id id;
    uint8_t type;    /* the sub-record tag */
    uint32_t thread; /* thread serial, 0 when not given */
    uint32_t frame;  /* frame number (JNI_LOCAL, JAVA_FRAME, JNI_MONITOR), else 0 */
} hk_root;

typedef void (*hk_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* An image that came with the dump from outside its HPROF bytes (the bitmaps of a dump a
 * Perfetto trace embeds), keyed by the Bitmap's native pointer. */
typedef struct hk_dump_image {
    uint64_t ptr;
    hk_buf png;
} hk_dump_image;

/* Opening takes two steps, so that what is not HPROF (a Perfetto trace) can be turned into HPROF
 * between them by the front door (core/open: hk_open, which programs call), the reader knowing
 * no other format.  hk_dump_load maps the file (or inflates a .gz); hk_dump_load_mem borrows
 * bytes held in memory (they must outlive the dump).  hk_dump_bytes shows the loaded bytes,
 * hk_dump_replace_bytes puts others in their place (taking bytes, or when fd >= 0 mapping the
 * file fd holds them in; and source and images: source is "key: value" lines of what they were
 * made from; -1 with err when the file cannot be mapped).  hk_dump_index reads the header and
 * indexes; on failure (NULL or -1 with err naming the file offset and what was expected) the
 * caller still closes the dump. */
hk_dump *hk_dump_load(const char *path, char *err, size_t errlen);
hk_dump *hk_dump_load_mem(const uint8_t *data, size_t size);
const uint8_t *hk_dump_bytes(const hk_dump *d, size_t *size);
int hk_dump_replace_bytes(hk_dump *d, hk_buf *bytes, int fd, char *source, hk_dump_image *images, size_t nimages,
                          char *err, size_t errlen);
int hk_dump_index(hk_dump *d, hk_progress_fn progress, void *pctx, char *err, size_t errlen);
/* Both steps for an HPROF file (.hprof or .hprof.gz), for the test programs; NULL with err. */
hk_dump *hk_dump_open(const char *path, hk_progress_fn progress, void *pctx, char *err, size_t errlen);
void hk_dump_close(hk_dump *d);
/* What the floors above read of a dump beyond hprof_view.h: its path, the header's format
 * ("JAVA PROFILE 1.0.3") and time, the map applied to its names (NULL: none), what it was made
 * from when it was not an HPROF file ("key: value" lines, NULL for an HPROF file), its objects,
 * its GC roots, its heaps (named by hk_heap_name) and the images that came with it. */
const char *hk_dump_path(const hk_dump *d);
const char *hk_dump_format(const hk_dump *d);
uint64_t hk_dump_timestamp_ms(const hk_dump *d);
const hk_map *hk_dump_map(const hk_dump *d);
const char *hk_dump_source(const hk_dump *d);
uint32_t hk_dump_object_count(const hk_dump *d);
const hk_root *hk_dump_roots(const hk_dump *d, uint32_t *n);
uint32_t hk_dump_heap_count(const hk_dump *d);
const hk_dump_image *hk_dump_images(const hk_dump *d, size_t *n);
/* What the index counted in each heap (HK_MAX_HEAPS entries each): the instances of class
 * index c, the primitive arrays of an element type the dump gives no class ("T[]"), and the
 * class objects of a dump without java.lang.Class. */
typedef struct hk_tally {
    const uint32_t *count;
    const uint64_t *bytes;
} hk_tally;
hk_tally hk_class_tally(const hk_dump *d, uint32_t c);
hk_tally hk_prim_tally(const hk_dump *d, int type);
hk_tally hk_class_object_tally(const hk_dump *d);
/* Gives the page cache back the pages of [p, p + len) of a mapped dump's bytes, read once
 * (nothing for a dump held in memory). */
void hk_dump_release(const hk_dump *d, const void *p, size_t len);
/* State a floor above keeps with a dump (the graph, the bitmap list), under a key of its own
 * (the address of a static object of that floor), so the reader holds no slot for any of them:
 * hk_dump_attach adds it (replacing, after freeing, what the key held), free_fn frees it when
 * the dump closes (in the order attached); hk_dump_attached finds it, NULL when there is none. */
void hk_dump_attach(hk_dump *d, const void *key, void *state, void (*free_fn)(void *state));
void *hk_dump_attached(const hk_dump *d, const void *key);

/* The SHA-256 of the dump's bytes (of a .gz dump, the data inside it), the key a fleet files
 * it under.  hk_dump_sha256_start begins it on a thread of its own and returns at once (the
 * caller goes on with other work); hk_dump_sha256 waits for that thread, or hashes on the
 * caller's when none was started, and keeps the answer: 0, or -1 with err when libcrypto
 * fails.  A dump that closes first stops the thread (within a 64 MB piece) and waits for it;
 * hk_dump_sha256_forget does too: the bytes were replaced, the answer is to be made again. */
void hk_dump_sha256_start(hk_dump *d);
int hk_dump_sha256(hk_dump *d, char hex[65], char *err, size_t errlen);
void hk_dump_sha256_forget(hk_dump *d);

/* Memory the index keeps, by part (estimates from the table sizes, for benchmarks). */
typedef struct hk_index_stats {
    uint64_t objects;
    uint64_t object_table_bytes, class_bytes, name_bytes, map_bytes, total_bytes;
    double bytes_per_object;
    /* the heap records' walk: the parts it was cut into (one per thread, of 256 KiB at least)
     * and those walked again because the cut guessed inside a segment was not a record's start */
    uint32_t walk_parts, walk_rewalked;
} hk_index_stats;

void hk_index_stats_of(const hk_dump *d, hk_index_stats *s);

/* ---- objects ---- */
hk_id hk_obj_id(const hk_dump *d, uint32_t i);
/* Object index for an id, or HK_NONE. */
uint32_t hk_obj_find(const hk_dump *d, hk_id id);
int hk_obj_kind(const hk_dump *d, uint32_t i); /* enum hk_kind */
/* Class index of an object (a class object's class is java.lang.Class if present),
 * for a primitive array its "T[]" class or HK_NONE. */
uint32_t hk_obj_class(const hk_dump *d, uint32_t i);
/* The same for a scan in object order, where neighbours are mostly instances of one class:
 * the last class id looked up and its index are kept in *memo (start with HK_CLASS_MEMO). */
typedef struct hk_class_memo {
    hk_id id;
    uint32_t cls;
} hk_class_memo;
#define HK_CLASS_MEMO ((hk_class_memo){0, HK_NONE}) /* id 0 names no class */
uint32_t hk_obj_class_memo(const hk_dump *d, uint32_t i, hk_class_memo *memo);
uint64_t hk_obj_shallow_size(const hk_dump *d, uint32_t i);
/* The size the records give, before HPROF_HK_OBJECT_SIZES. */
uint64_t hk_obj_record_size(const hk_dump *d, uint32_t i);
int hk_obj_heap(const hk_dump *d, uint32_t i); /* heap index, -1 none */
/* The heap of the record at file offset off (-1: none), and the offsets [*lo, *hi) around it
 * that are of the same heap: a pass over objects in file order looks the heap up once a run. */
int hk_heap_at(const hk_dump *d, uint64_t off, uint64_t *lo, uint64_t *hi);
/* Class name of an object, including primitive arrays ("byte[]"). */
const char *hk_obj_class_name(const hk_dump *d, uint32_t i);

/* Instance data (fields) of an instance record; NULL if not an instance. */
const uint8_t *hk_instance_data(const hk_dump *d, uint32_t i, uint32_t *len);
/* Array access. */
uint32_t hk_array_length(const hk_dump *d, uint32_t i);
int hk_prim_array_type(const hk_dump *d, uint32_t i);            /* element hk_type */
const uint8_t *hk_prim_array_data(const hk_dump *d, uint32_t i); /* NULL for NODATA */
hk_id hk_obj_array_at(const hk_dump *d, uint32_t i, uint32_t k);
hk_id hk_obj_array_class_id(const hk_dump *d, uint32_t i);

/* ---- classes ---- */
hk_class *hk_class_by_id(const hk_dump *d, hk_id id);
hk_class *hk_class_by_name(const hk_dump *d, const char *name);
/* The flattened instance layout of a class (own fields, then superclasses'). */
const hk_field *hk_class_layout(hk_dump *d, hk_class *c, uint32_t *n);
/* The field called name in a layout: by source name (most derived first), else by the
 * dump's name; NULL when neither. */
const hk_field *hk_field_named(const hk_field *f, uint32_t n, const char *name);
int hk_class_is_subclass(const hk_dump *d, const hk_class *c, const hk_class *ancestor);
const hk_static *hk_class_static(const hk_class *c, const char *name);
/* Instances of class index c (exact class), without copying: a slice of object indices. */
const uint32_t *hk_class_instances(hk_dump *d, uint32_t c, uint32_t *n);
/* The per-class lists when hk_class_instances has built them, else NULL: class c's instances
 * are list[start[c]] to list[start[c + 1]] (for a scan that uses them when they are there). */
const uint32_t *hk_class_lists(const hk_dump *d, const uint32_t **start);
/* Hands d per-class lists a caller filled in a pass of its own over every object (the heap
 * diff's matcher), in that form (start: nclasses + 2 entries, the last two the total), when
 * none are built yet; d then owns and frees them.  Else the caller keeps them: 0 taken, -1 not. */
int hk_class_lists_adopt(hk_dump *d, uint32_t *start, uint32_t *list);
/* The per-class lists in that form from a class code per object of [0, n) (c16, or c32 when
 * c16 is NULL): each class's objects in object order; an object coded `none`, or set in the
 * bit set skip (NULL: none), is in no list.  The one counting sort of objects by class. */
void hk_class_lists_of_codes(uint32_t n, uint32_t nclasses, const uint16_t *c16, const uint32_t *c32, uint32_t none,
                             const uint64_t *skip, uint32_t **start, uint32_t **list);
/* Frees the per-class lists (4 bytes an object) for a phase that needs the memory more;
 * hk_class_instances builds them again when next asked.  A slice taken before is gone: a
 * caller that may run such a phase between two steps asks for its slice at each step. */
void hk_class_lists_drop(hk_dump *d);

/* ---- allocation stacks ---- */
/* The stack an object was allocated at, innermost frame first, by source names with R8's
 * inlined frames expanded when a map is applied.  Returns a malloc'd array (free it) and
 * *n, or NULL with *n = 0 when the dump has no stack for it. */
hk_frame *hk_obj_allocation_stack(hk_dump *d, uint32_t obj, uint32_t *n);

/* ---- deobfuscation ---- */
/* Renames classes, fields and statics to the map's source names (the dump's stay in
 * obf_name) and keeps the map, which the dump then owns.  Before anything reads names.
 * Appends to notes, one line each, what the user should hear: that the map does not fit
 * the dump, or that its pg_map_id differs from the id the app carries. */
int hk_dump_apply_map(hk_dump *d, hk_map *map, hk_buf *notes, char *err, size_t errlen);
/* The map beside a dump: DUMP.map, else STEM.map (STEM: the name without .hprof,
 * .hprof.gz or .android-hprof).  Writes it to out and returns 1 when one exists. */
int hk_map_beside(const char *dump_path, char *out, size_t n);

/* ---- values ---- */
int hk_type_size(const hk_dump *d, int type);
void hk_read_value(const hk_dump *d, const uint8_t *p, int type, hk_value *out);
/* Reads an instance field by name (most derived class first): 1 found, 0 not found. */
int hk_instance_field(hk_dump *d, uint32_t obj, const char *name, hk_value *out);
/* Appends the UTF-8 value of a java.lang.String object; -1 if it is not one or its text is
 * absent (its array has no contents: PRIMITIVE_ARRAY_NODATA, a Perfetto heap graph). */
int hk_string_value(hk_dump *d, uint32_t obj, hk_buf *out);
/* Where a String's characters are in the mapping, undecoded: units characters at p (none when
 * the value array is absent or NODATA); array is the value array's index or HK_NONE. */
enum hk_chars_encoding { HK_CHARS_LATIN1 = 0, HK_CHARS_UTF16BE, HK_CHARS_UTF16LE };
typedef struct hk_chars {
    const uint8_t *p;
    uint32_t units;
    int encoding; /* enum hk_chars_encoding: 1 or 2 bytes a unit */
    uint32_t array;
} hk_chars;
/* 0, or -1 if obj is not a java.lang.String. */
int hk_string_chars(hk_dump *d, uint32_t obj, hk_chars *out);
/* A char[] (UTF-16) or byte[] (Latin-1, as Android's compact Strings) as UTF-8 text: max
 * elements from start.  0, or -1 for another array, an object or an array without contents. */
int hk_array_text(hk_dump *d, uint32_t arr, uint32_t start, uint32_t max, hk_buf *out);
/* The text of a STRING record (names), NULL when absent. */
const char *hk_string_by_id(hk_dump *d, hk_id sid, uint32_t *len);

/* ---- roots and heaps ---- */
const char *hk_root_type_name(int type);
const char *hk_heap_name(const hk_dump *d, int heap);
/* The heap called name, -1 when the dump has none of that name; the dump's heap names to out,
 * separated by ", " (nothing when it names none). */
int hk_heap_index(const hk_dump *d, const char *name);
void hk_heap_names(const hk_dump *d, hk_buf *out);
const char *hk_type_name(int type);

/* ---- origin (Android) ---- */
typedef struct hk_origin {
    int sdk;                                            /* -1 when absent */
    char *fingerprint, *manufacturer, *model, *process; /* NULL when absent */
} hk_origin;
void hk_origin_read(hk_dump *d, hk_origin *o);
void hk_origin_free(hk_origin *o);
/* A HotSpot dump's JDK feature version (17, 21, ...): java.lang.VersionProps.java_version, which
 * JDK 9 and later load at start-up; 0 when the dump does not say. */
int hk_origin_jdk(hk_dump *d);

/* ---- helpers ---- */
/* Parses "0x1a2b" or "12345"; returns 0 or -1. */
int hk_parse_id(const char *s, hk_id *out);
char *hk_arena_strdup(hk_dump *d, const char *s, size_t n);

#endif
