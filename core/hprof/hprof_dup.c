#include "hprof/hprof_dup.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open addressing over (hash, first member, count); count 0 marks an empty slot. */
typedef struct slot {
    uint64_t hash;
    uint32_t first;
    uint32_t count;
} slot;

typedef struct table {
    slot *s;
    size_t cap, used;       /* cap is a power of two */
} table;

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

static void grow(table *t)
{
    table g = {hk_xcalloc(t->cap * 2, sizeof(slot)), t->cap * 2, t->used};
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->s[i].count) continue;
        size_t j = t->s[i].hash & (g.cap - 1);
        while (g.s[j].count) j = (j + 1) & (g.cap - 1);
        g.s[j] = t->s[i];
    }
    free(t->s);
    *t = g;
}

/* What a member is compared by: its bytes (an array's data, a String's UTF-8 text). */
typedef struct member_key {
    int type;               /* element type, 0 for a String */
    const uint8_t *p;
    size_t n;
} member_key;

typedef struct scan {
    hk_dump *d;
    int kind;
    hk_buf a, b;            /* decoded text of the String and of a slot's first member */
} scan;

static int key_of(scan *sc, uint32_t obj, hk_buf *buf, member_key *k)
{
    if (sc->kind == HK_DUP_STRINGS) {
        buf->len = 0;
        if (hk_string_value(sc->d, obj, buf) < 0) return -1;
        k->type = 0;
        k->p = buf->data ? buf->data : (const uint8_t *)"";
        k->n = buf->len;
        return 0;
    }
    k->p = hk_prim_array_data(sc->d, obj);
    if (!k->p) return -1;   /* PRIMITIVE_ARRAY_NODATA: nothing to compare */
    k->type = hk_prim_array_type(sc->d, obj);
    k->n = (size_t)hk_array_length(sc->d, obj) * (size_t)hk_type_size(sc->d, k->type);
    return 0;
}

static void add(scan *sc, table *t, uint32_t obj)
{
    member_key k, f;
    if (key_of(sc, obj, &sc->a, &k) < 0) return;
    uint64_t h = hash_bytes(k.p, k.n, (uint64_t)k.type);
    if (!h) h = 1;
    size_t j = h & (t->cap - 1);
    for (; t->s[j].count; j = (j + 1) & (t->cap - 1)) {
        if (t->s[j].hash != h) continue;
        if (key_of(sc, t->s[j].first, &sc->b, &f) < 0) continue;
        if (f.type == k.type && f.n == k.n && !memcmp(f.p, k.p, k.n)) {
            t->s[j].count++;
            return;
        }
    }
    t->s[j] = (slot){h, obj, 1};
    if (++t->used * 2 > t->cap) grow(t);
}

/* For each array, how many Strings have it as their value (0, 1, or 2 for more): such arrays
 * count under duplicate Strings, not as arrays, and a shared one (old Android's substrings
 * point into one char[] with offset and count) is not a copy the String owns. */
static uint8_t *string_values(hk_dump *d)
{
    uint8_t *uses = hk_xcalloc((size_t)d->nobjects + 1, 1);
    if (d->string_class == HK_NONE) return uses;
    uint32_t n;
    const uint32_t *v = hk_class_instances(d, d->string_class, &n);
    for (uint32_t k = 0; k < n; k++) {
        hk_value val;
        if (!hk_instance_field(d, v[k], "value", &val) || val.type != HK_T_OBJECT || !val.ref) continue;
        uint32_t a = hk_obj_find(d, val.ref);
        if (a != HK_NONE && uses[a] < 2) uses[a]++;
    }
    return uses;
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

int hk_dup_groups(hk_dump *d, int kind, hk_dup_group **out, uint32_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    if (kind == HK_DUP_STRINGS && d->string_class == HK_NONE) {
        snprintf(err, errlen, "this dump has no java.lang.String class");
        return -1;
    }
    scan sc = {d, kind, {0}, {0}};
    hk_buf_init(&sc.a);
    hk_buf_init(&sc.b);
    table t = {hk_xcalloc(1024, sizeof(slot)), 1024, 0};
    uint8_t *uses = string_values(d);
    if (kind == HK_DUP_STRINGS) {
        uint32_t cnt;
        const uint32_t *v = hk_class_instances(d, d->string_class, &cnt);
        for (uint32_t k = 0; k < cnt; k++) add(&sc, &t, v[k]);   /* ascending ids: first is the lowest */
    } else {
        for (uint32_t i = 0; i < d->nobjects; i++)
            if (!uses[i] && hk_obj_kind_tag(d, i) == HPROF_PRIM_ARRAY_DUMP) add(&sc, &t, i);
    }
    size_t groups = 0;
    for (size_t j = 0; j < t.cap; j++) if (t.s[j].count > 1) t.s[groups++] = t.s[j];
    hk_dup_group *g = hk_xcalloc(groups ? groups : 1, sizeof *g);
    for (size_t j = 0; j < groups; j++) {
        g[j].first = t.s[j].first;
        g[j].count = t.s[j].count;
        g[j].bytes = member_bytes(d, kind, g[j].first, uses);
        g[j].wasted = (uint64_t)(g[j].count - 1) * g[j].bytes;
    }
    qsort(g, groups, sizeof *g, by_waste);
    free(uses);
    free(t.s);
    hk_buf_free(&sc.a);
    hk_buf_free(&sc.b);
    *out = g;
    *n = (uint32_t)groups;
    return 0;
}
