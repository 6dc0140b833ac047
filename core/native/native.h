/*
 * Native heap profiles: heapprofd's ProfilePackets in a Perfetto trace, read into call stacks
 * and, per process, heap and dump, the bytes and counts each stack allocated and freed.
 *
 * heapprofd samples malloc/free (and custom heaps) with their call stacks; a dump lists, per
 * call stack, what it allocated and freed since the profile started (cumulative), or with
 * dump_at_max the allocations live at the peak.  Continuous dumps repeat that at intervals, so
 * what a stack added between two dumps is the difference of its figures.  Frames are named
 * from the trace (interned function names), its symbols (ModuleSymbols by module and build id),
 * its deobfuscation mappings (Java frames of R8-built apps) and an R8 map given by the caller;
 * a frame with no name is its module and relative pc.  This layer does not print: notes and
 * warnings are returned as text.
 */
#ifndef HK_NATIVE_H
#define HK_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hk_buf.h"

struct hk_map;

typedef struct hk_native_frame {
    const char *function; /* the best name known (symbolized, deobfuscated), NULL when none */
    const char *raw_name; /* the name the trace interned, NULL when none */
    const char *module;   /* the mapping's path ("/system/lib64/libc.so"), NULL when unknown */
    const char *build_id; /* as the trace gives it (may be binary), NULL when none */
    const char *source;   /* source file from the trace's symbols, NULL when none */
    uint32_t line;        /* its line, 0 when none */
    uint64_t rel_pc;      /* the pc relative to the module */
} hk_native_frame;

typedef struct hk_native_stack {
    uint32_t first, n; /* frames: stack_frames[first .. first + n), the outermost caller first */
} hk_native_stack;

typedef struct hk_native_sample {
    uint32_t stack;
    uint64_t alloc_bytes, alloc_count, freed_bytes, free_count; /* cumulative since the profile began */
    uint64_t max_bytes, max_count;                              /* live at the peak (dump_at_max) */
} hk_native_sample;

typedef struct hk_native_dump {
    int pid;
    const char *heap;  /* the heap's name; "unknown" when the trace names none, as Perfetto */
    uint64_t ts;       /* when it was taken (the trace's clock), 0 when unknown */
    uint64_t start_ts; /* the window's start, 0 when not recorded */
    uint64_t sampling_interval;
    uint8_t at_max; /* samples hold the peak (max_*), not allocations and frees */
    uint8_t from_startup, rejected_concurrent, disconnected, buffer_overran, buffer_corrupted, hit_guardrail;
    hk_native_sample *samples;
    size_t n, cap;
} hk_native_dump;

typedef struct hk_native_process {
    int pid;
    const char *name;
} hk_native_process;

typedef struct hk_native_profile {
    hk_native_frame *frames;
    size_t nframes, capframes;
    uint32_t *stack_frames;
    size_t nstack_frames, capstack_frames;
    hk_native_stack *stacks;
    size_t nstacks, capstacks;
    hk_native_dump *dumps; /* in the order the trace holds them */
    size_t ndumps, capdumps;
    hk_native_process *procs;
    size_t nprocs, capprocs;
    char **strs; /* every string the profile owns */
    size_t nstrs, capstrs;
    uint64_t packets, profile_packets;
    unsigned warnings;
    hk_buf notes; /* "warning: ...\n" lines, the first 20 */
} hk_native_profile;

/* Reads the native heap profiles of a trace (plain; compressed blocks expanded).  map, when not
 * NULL, names Java frames by source names.  -1 with err when data is not a trace; a trace
 * without profiles reads as an empty profile (ndumps 0). */
int hk_native_read(const uint8_t *data, size_t n, const struct hk_map *map, hk_native_profile *p, char *err,
                   size_t errlen);
/* The same from a file, plain or gzip'd. */
int hk_native_read_file(const char *path, const struct hk_map *map, hk_native_profile *p, char *err, size_t errlen);
void hk_native_free(hk_native_profile *p);

/* The process name the trace gives pid, or NULL. */
const char *hk_native_process_name(const hk_native_profile *p, int pid);

#endif
