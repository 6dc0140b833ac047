/* What the native-profile reader keeps while it walks a trace: the interning state of each
 * packet sequence, and the symbols and deobfuscation mappings that name frames at the end. */
#ifndef HK_NATIVE_INTERNAL_H
#define HK_NATIVE_INTERNAL_H

#include "native/native.h"
#include "util/hk_idmap.h"

/* Interned ids of one trusted packet sequence, each mapped to an index + 1 in the profile (strings:
 * into strs; mappings: into nr_reader.maps).  Legacy traces intern in the ProfilePacket itself,
 * one namespace of strings for every use. */
typedef struct nr_seq {
    uint32_t id;
    int continued;     /* the last ProfilePacket said the dump goes on in the next */
    size_t open_first; /* the dumps that packet began: dumps[open_first ..] */
    hk_idmap fn_names, map_paths, build_ids, src_paths, legacy_strs;
    hk_idmap mappings, frames, stacks;
} nr_seq;

typedef struct nr_mapping {
    const char *path, *build_id;
} nr_mapping;

typedef struct nr_symbol {
    const char *path, *build_id; /* the module */
    uint64_t address;            /* relative pc */
    const char *function, *source;
    uint32_t line;
} nr_symbol;

typedef struct nr_deob {
    const char *package, *obf, *src; /* a class, or a method when method is set */
    const char *cls;                 /* for a method: the obfuscated class it belongs to */
    uint8_t method;
    uint32_t order; /* in the trace: the first of equals wins */
} nr_deob;

typedef struct nr_reader {
    hk_native_profile *p;
    nr_seq *seqs;
    size_t nseqs, capseqs;
    nr_mapping *maps;
    size_t nmaps, capmaps;
    nr_symbol *syms;
    size_t nsyms, capsyms;
    nr_deob *deobs;
    size_t ndeobs, capdeobs;
} nr_reader;

/* A copy of s[0..n) the profile owns. */
const char *nr_str(hk_native_profile *p, const char *s, size_t n);
void nr_warn(hk_native_profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct Perfetto__Protos__TracePacket;
void nr_symbols_add(nr_reader *r, const struct Perfetto__Protos__TracePacket *tp);
/* Names every frame from the symbols and deobfuscation mappings read, then from map. */
void nr_name_frames(nr_reader *r, const struct hk_map *map);

#endif
