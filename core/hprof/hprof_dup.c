#include "hprof/hprof_dup.h"
#include "util/hk_mem.h"
#include "hprof/hprof_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The work goes in two passes so that no step misses the cache on every value: hash every
 * candidate into (hash, object) in object order, scatter those into buckets by the hash's top
 * bits, then group each bucket in a small open-addressing table that stays in the cache. */
#define BUCKET_BITS 10
#define PREFETCH    16

typedef struct entry {
    uint32_t hash; /* 32 bits: a collision only costs one comparison of the bytes */
    uint32_t obj;
} entry;

/* A group being built: count 0 marks an empty slot of the bucket's table. */
typedef struct slot {
    uint32_t hash;
    uint32_t first;
    uint32_t count;
} slot;

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* A fast non-cryptographic hash: equal hashes are confirmed by comparing the bytes. */
static uint64_t hash_bytes(const uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, p + k, 8);
        h = (h ^ mix(w)) * 0x9e3779b97f4a7c15ULL;
    }
    uint64_t tail = 0;
    memcpy(&tail, p + k, n - k);
    return mix(h ^ mix(tail ^ (uint64_t)(n - k)));
}

/* What a member is compared by: its bytes as the dump holds them (an array's data, a String's
 * characters undecoded: the same text is held the same way, Latin-1 or UTF-16, by one VM). */
typedef struct member_key {
    int type; /* element type of an array, 100 + the encoding for a String */
    const uint8_t *p;
    size_t n;
    uint32_t array; /* a String's value array */
} member_key;

typedef struct scan {
    hk_dump *d;
    int kind;
    uint8_t *uses;  /* per object: how many Strings have it as value (0, 1, 2+) */
    int count_uses; /* uses is being filled by this scan */
} scan;

static int key_of(scan *sc, uint32_t obj, member_key *k)
{
    if (sc->kind == HK_DUP_STRINGS) {
        hk_chars ch;
        if (hk_string_chars(sc->d, obj, &ch) < 0) return -1;
        k->type = 100 + ch.encoding;
        k->p = ch.p ? ch.p : (const uint8_t *)"";
        k->n = (size_t)ch.units * (ch.encoding == HK_CHARS_LATIN1 ? 1 : 2);
        k->array = ch.array;
        return 0;
    }
    k->p = hk_prim_array_data(sc->d, obj);
    if (!k->p) return -1; /* PRIMITIVE_ARRAY_NODATA: nothing to compare */
    k->type = hk_prim_array_type(sc->d, obj);
    k->n = (size_t)hk_array_length(sc->d, obj) * (size_t)hk_type_size(sc->d, k->type);
    k->array = HK_NONE;
    return 0;
}

typedef struct hashes {
    entry *e;
    size_t n, cap;
} hashes;

static void hash_one(scan *sc, hashes *h, uint32_t obj)
{
    member_key k;
    if (key_of(sc, obj, &k) < 0) return;
    if (sc->count_uses && k.array != HK_NONE && sc->uses[k.array] < 2) sc->uses[k.array]++;
    if (h->n == h->cap) h->e = hk_grow(h->e, &h->cap, h->n + 1, sizeof *h->e);
    h->e[h->n++] = (entry){(uint32_t)(hash_bytes(k.p, k.n, (uint64_t)k.type) >> 32), obj};
}

static int same_value(scan *sc, uint32_t a, uint32_t b)
{
    member_key x, y;
    if (key_of(sc, a, &x) < 0 || key_of(sc, b, &y) < 0) return 0;
    return x.type == y.type && x.n == y.n && !memcmp(x.p, y.p, x.n);
}

/* Groups one bucket's entries (in object order, so a group's first is its lowest id) and
 * appends the groups of two or more to *out. */
static void group_bucket(scan *sc, const entry *e, size_t n, slot *tab, size_t cap, hk_dup_group **out, size_t *nout,
                         size_t *outcap)
{
    memset(tab, 0, cap * sizeof *tab);
    for (size_t i = 0; i < n; i++) {
        size_t j = (e[i].hash * 0x9e3779b9u) & (cap - 1); /* not the bits that chose the bucket */
        for (; tab[j].count; j = (j + 1) & (cap - 1))
            if (tab[j].hash == e[i].hash && same_value(sc, tab[j].first, e[i].obj)) break;
        if (tab[j].count) tab[j].count++;
        else tab[j] = (slot){e[i].hash, e[i].obj, 1};
    }
    for (size_t j = 0; j < cap; j++) {
        if (tab[j].count < 2) continue;
        if (*nout == *outcap) *out = hk_grow(*out, outcap, *nout + 1, sizeof **out);
        (*out)[(*nout)++] = (hk_dup_group){.first = tab[j].first, .count = tab[j].count};
    }
}

/* Counts, for each array, the Strings that have it as their value (0, 1, or 2 for more): such
 * arrays count under duplicate Strings, not as arrays, and a shared one (old Android's
 * substrings point into one char[] with offset and count) is not a copy the String owns. */
/* The String class's `value` field (NULL when it has none), and a String's value array. */
static const hk_field *value_field(hk_dump *d)
{
    uint32_t nf;
    const hk_field *f = hk_class_layout(d, &d->classes[d->string_class], &nf);
    for (uint32_t k = 0; k < nf; k++)
        if (f[k].type == HK_T_OBJECT && !strcmp(f[k].name, "value")) return &f[k];
    return NULL;
}

static uint32_t value_array(hk_dump *d, const hk_field *value, uint32_t obj)
{
    uint32_t len;
    const uint8_t *data = hk_instance_data(d, obj, &len);
    if (!data || value->offset + d->id_size > len) return HK_NONE;
    hk_value val;
    hk_read_value(d, data + value->offset, HK_T_OBJECT, &val);
    return val.ref ? hk_obj_find(d, val.ref) : HK_NONE;
}

static void string_values(hk_dump *d, uint8_t *uses)
{
    const hk_field *value = value_field(d);
    if (!value) return;
    uint32_t n;
    const uint32_t *v = hk_class_instances(d, d->string_class, &n);
    for (uint32_t k = 0; k < n; k++) {
        if (k + PREFETCH < n) __builtin_prefetch(d->data + hk_obj_offset(d, v[k + PREFETCH]));
        uint32_t a = value_array(d, value, v[k]);
        if (a != HK_NONE && uses[a] < 2) uses[a]++;
    }
}

/* A String's bytes are its own and, when no other String shares it, its value array's. */
static uint64_t member_bytes(hk_dump *d, int kind, uint32_t obj, const uint8_t *uses)
{
    uint64_t bytes = hk_obj_shallow_size(d, obj);
    hk_value val;
    if (kind == HK_DUP_STRINGS && hk_instance_field(d, obj, "value", &val) && val.type == HK_T_OBJECT && val.ref) {
        uint32_t a = hk_obj_find(d, val.ref);
        if (a != HK_NONE && uses[a] == 1) bytes += hk_obj_shallow_size(d, a);
    }
    return bytes;
}

static int by_waste(const void *pa, const void *pb)
{
    const hk_dup_group *a = pa, *b = pb;
    if (a->wasted != b->wasted) return a->wasted > b->wasted ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

int hk_dup_groups(hk_dump *d, int kind, uint8_t *uses, int *uses_ready, hk_dup_group **out, uint32_t *n, char *err,
                  size_t errlen)
{
    *out = NULL;
    *n = 0;
    if (kind == HK_DUP_STRINGS && d->string_class == HK_NONE) {
        snprintf(err, errlen, "this dump has no java.lang.String class");
        return -1;
    }
    scan sc = {d, kind, uses, !*uses_ready};
    hashes h = {0};
    h.cap = kind == HK_DUP_STRINGS ? d->ninstances : d->nprim_arrays; /* at most */
    h.e = hk_xrealloc(NULL, (h.cap ? h.cap : 1) * sizeof *h.e);
    if (kind == HK_DUP_STRINGS) {
        uint32_t cnt;
        const uint32_t *v = hk_class_instances(d, d->string_class, &cnt);
        for (uint32_t k = 0; k < cnt; k++) { /* ascending ids */
            if (k + PREFETCH < cnt) __builtin_prefetch(d->data + hk_obj_offset(d, v[k + PREFETCH]));
            hash_one(&sc, &h, v[k]);
        }
    } else {
        if (sc.count_uses && d->string_class != HK_NONE) string_values(d, sc.uses);
        /* by array class (each in object order), which reads no other record; every object
         * when the dump lacks an array class */
        int classless = 0;
        for (int t = 0; t < 12; t++) {
            if (hk_type_size(d, t) <= 0 || t == HK_T_OBJECT) continue;
            for (int heap = 0; heap < HK_MAX_HEAPS; heap++)
                if (d->prim_counts[t][heap]) classless = 1;
            uint32_t c = d->prim_array_class[t], cnt;
            if (c == HK_NONE) continue;
            const uint32_t *v = hk_class_instances(d, c, &cnt);
            for (uint32_t k = 0; k < cnt; k++) {
                /* the records are spread over the file: ask for a later one while hashing this */
                if (k + PREFETCH < cnt) __builtin_prefetch(d->data + hk_obj_offset(d, v[k + PREFETCH]));
                if (!sc.uses[v[k]] && hk_obj_kind_tag(d, v[k]) == HPROF_PRIM_ARRAY_DUMP) hash_one(&sc, &h, v[k]);
            }
        }
        if (classless) {
            h.n = 0;
            for (uint32_t i = 0; i < d->nobjects; i++)
                if (!sc.uses[i] && hk_obj_kind_tag(d, i) == HPROF_PRIM_ARRAY_DUMP) hash_one(&sc, &h, i);
        }
    }
    /* scatter by the top bits, keeping object order inside each bucket */
    size_t start[(1 << BUCKET_BITS) + 1] = {0}, pos[1 << BUCKET_BITS], most = 0;
    for (size_t i = 0; i < h.n; i++) start[(h.e[i].hash >> (32 - BUCKET_BITS)) + 1]++;
    for (size_t b = 0; b < (1 << BUCKET_BITS); b++) {
        if (start[b + 1] > most) most = start[b + 1];
        start[b + 1] += start[b];
        pos[b] = start[b];
    }
    entry *by = hk_xrealloc(NULL, (h.n ? h.n : 1) * sizeof *by); /* every slot is written */
    for (size_t i = 0; i < h.n; i++) by[pos[h.e[i].hash >> (32 - BUCKET_BITS)]++] = h.e[i];
    free(h.e);
    size_t cap = 16;
    while (cap < 2 * most) cap *= 2;
    slot *tab = hk_xcalloc(cap, sizeof *tab);
    hk_dup_group *g = NULL;
    size_t groups = 0, gcap = 0;
    for (size_t b = 0; b < (1 << BUCKET_BITS); b++) {
        size_t nb = start[b + 1] - start[b], c = 16;
        while (c < 2 * nb) c *= 2;
        if (nb) group_bucket(&sc, by + start[b], nb, tab, c, &g, &groups, &gcap);
    }
    free(tab);
    free(by);
    if (!g) g = hk_xcalloc(1, sizeof *g);
    for (size_t j = 0; j < groups; j++) {
        g[j].bytes = member_bytes(d, kind, g[j].first, sc.uses);
        g[j].wasted = (uint64_t)(g[j].count - 1) * g[j].bytes;
    }
    qsort(g, groups, sizeof *g, by_waste);
    *uses_ready = 1;
    *out = g;
    *n = (uint32_t)groups;
    return 0;
}
