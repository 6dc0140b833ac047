#include "analysis/duplicates.h"
#include "hprof/hprof_view.h"
#include "util/hk_hash.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The work goes in two passes so that no step misses the cache on every value: hash every
 * candidate into (hash, object) in object order, put those in buckets by the hash's top bits
 * (in place), then group each bucket in a small open-addressing table that stays in the cache.
 * Both kinds hash with a fast non-cryptographic hash and confirm equal hashes byte for byte. */
#define BUCKET_BITS 10
#define PREFETCH    16

typedef struct entry {
    uint32_t hash; /* 32 bits: a collision only costs one comparison of the bytes */
    uint32_t obj;
    const uint8_t *rec; /* an array's record, compared without finding it again; NULL: a String */
} entry;

/* A group being built: count 0 marks an empty slot of the bucket's table. */
typedef struct slot {
    uint32_t hash;
    uint32_t count;
    entry first;
} slot;

/* What a member is compared by: its bytes as the dump holds them (an array's data, a String's
 * characters undecoded: the same text is held the same way, Latin-1 or UTF-16, by one VM). */
typedef struct member_key {
    int type; /* element type of an array, 100 + the encoding for a String */
    const uint8_t *p;
    size_t n;
} member_key;

typedef struct scan {
    hk_dump *d;
    int kind;
    uint8_t *uses;  /* per object: how many Strings have it as value (0, 1, 2+) */
    int count_uses; /* uses is being filled by this scan */
} scan;

/* A primitive array's data straight from its record (NULL for NODATA: nothing to compare). */
static int array_key(const hk_dump *d, const uint8_t *r, member_key *k)
{
    if (*r != HPROF_PRIM_ARRAY_DUMP) return -1;
    k->type = r[1 + hk_view(d)->id_size + 8];
    k->p = r + 1 + hk_view(d)->id_size + 9;
    k->n = (size_t)hk_rec_array_length(d, r) * (size_t)hk_type_size(d, k->type);
    return 0;
}

static int chars_key(const hk_chars *ch, member_key *k)
{
    /* "" is "" in either encoding: HotSpot holds some empty Strings as UTF-16 (the RI dump) */
    k->type = ch->units ? 100 + ch->encoding : 100;
    k->p = ch->p ? ch->p : (const uint8_t *)"";
    k->n = (size_t)ch->units * (ch->encoding == HK_CHARS_LATIN1 ? 1 : 2);
    return 0;
}

static int key_of(scan *sc, uint32_t obj, member_key *k)
{
    if (sc->kind == HK_DUP_STRINGS) {
        hk_chars ch;
        if (hk_string_chars(sc->d, obj, &ch) < 0) return -1;
        return chars_key(&ch, k);
    }
    return array_key(sc->d, hk_obj_record(sc->d, obj), k);
}

typedef struct hashes {
    entry *e;
    size_t n;
} hashes;

static entry key_entry(uint32_t obj, const uint8_t *rec, const member_key *k)
{
    return (entry){(uint32_t)(hk_hash_bytes(k->p, k->n, (uint64_t)k->type) >> 32), obj, rec};
}

/* The hashing goes in parts over the candidates, each candidate giving at most one entry: part
 * k writes its entries from the place of its first candidate on, and the parts' runs are then
 * moved together in part order, so the entries are in the order one pass would give. */
enum { HASH_PARTS = 32 };
typedef struct hash_job {
    scan *sc;
    const uint32_t *v; /* the candidates */
    uint32_t n;
    entry *e;
    uint32_t got[HASH_PARTS];     /* entries part k wrote */
    const struct str_layout *lay; /* Strings: where their fields are */
} hash_job;

/* The entries of n candidates: the parts write from their first candidate's place, one at most
 * each (the candidates, not a count of the dump's: a damaged dump can file object arrays of
 * String's class id under String). */
static void entries_for(hashes *h, uint32_t n)
{
    h->e = hk_xmalloc((size_t)n * sizeof *h->e);
}

static void gather(hash_job *j, hashes *h)
{
    size_t n = 0;
    for (int k = 0; k < HASH_PARTS; k++) {
        uint32_t lo, hi;
        hk_part_range(j->n, k, HASH_PARTS, &lo, &hi);
        memmove(h->e + n, h->e + lo, (size_t)j->got[k] * sizeof *h->e);
        n += j->got[k];
    }
    h->n = n;
}

/* Where String's four fields are: the first field of each name in its layout, as
 * hk_string_fields_read takes them.  A record of at least `end` bytes holds all four, so they
 * are read here at their offsets without walking the layout by name; a shorter one (a damaged
 * dump) is read the slow way. */
typedef struct str_layout {
    int64_t off[4]; /* -1: the layout has no such field */
    uint8_t type[4];
    uint32_t end;
} str_layout;

static void str_layout_of(hk_dump *d, str_layout *lay)
{
    static const char *const names[4] = {"value", "count", "offset", "coder"};
    uint32_t nf;
    const hk_field *f = hk_class_layout(d, &hk_view(d)->classes[hk_view(d)->string_class], &nf);
    memset(lay, 0, sizeof *lay);
    for (int j = 0; j < 4; j++) {
        lay->off[j] = -1;
        for (uint32_t k = 0; k < nf && lay->off[j] < 0; k++) {
            if (strcmp(f[k].name, names[j])) continue;
            uint32_t end = f[k].offset + (uint32_t)hk_type_size(d, f[k].type);
            lay->off[j] = f[k].offset;
            lay->type[j] = f[k].type;
            if (end > lay->end) lay->end = end;
        }
    }
}

static int str_fields(hk_dump *d, const str_layout *lay, uint32_t obj, hk_string_fields *sf)
{
    const uint8_t *r = hk_obj_record(d, obj);
    uint32_t dlen;
    if (*r != HPROF_INSTANCE_DUMP) return hk_string_fields_read(d, obj, sf);
    const uint8_t *data = hk_rec_instance_data(d, r, &dlen);
    if (dlen < lay->end) return hk_string_fields_read(d, obj, sf);
    sf->has_value = sf->has_count = sf->has_offset = sf->has_coder = 0; /* the values only count where set */
    hk_value *to[4] = {&sf->value, &sf->count, &sf->offset, &sf->coder};
    uint8_t *has[4] = {&sf->has_value, &sf->has_count, &sf->has_offset, &sf->has_coder};
    for (int j = 0; j < 4; j++) {
        if (lay->off[j] < 0) continue;
        hk_read_value(d, data + lay->off[j], lay->type[j], to[j]);
        *has[j] = 1;
    }
    return 0;
}

/* A String read AHEAD places before it is hashed: its value array is then looked up and asked
 * for, so that array's record is in the cache by the time its characters are hashed. */
#define AHEAD 8
typedef struct pending {
    uint32_t obj, array;
    int ok;
    hk_string_fields f;
} pending;

/* The object with this id: a String's value array is most often allocated just before or
 * after it, a neighbour in id order, checked before the search over every id. */
static uint32_t near_find(const hk_dump *d, uint32_t obj, hk_id id)
{
    if (obj + 1 < hk_view(d)->nobjects && hk_view(d)->id_lo[obj + 1] == (uint32_t)id && hk_obj_id(d, obj + 1) == id)
        return obj + 1;
    if (obj > 0 && hk_view(d)->id_lo[obj - 1] == (uint32_t)id && hk_obj_id(d, obj - 1) == id) return obj - 1;
    return hk_obj_find(d, id);
}

static void string_ahead(hk_dump *d, const str_layout *lay, uint32_t obj, pending *p)
{
    p->obj = obj;
    p->array = HK_NONE;
    p->ok = str_fields(d, lay, obj, &p->f) == 0;
    if (p->ok && p->f.has_value && p->f.value.type == HK_T_OBJECT && p->f.value.ref) {
        p->array = near_find(d, obj, p->f.value.ref);
        if (p->array != HK_NONE) __builtin_prefetch(hk_obj_record(d, p->array));
    }
}

/* A String's array counted as its value (0, 1, 2 for more): parts may count one shared array
 * at once, so the count is added atomically (two racing adds leave 3, which reads as more). */
static void count_use(uint8_t *uses, uint32_t a)
{
    if (__atomic_load_n(&uses[a], __ATOMIC_RELAXED) < 2) __atomic_fetch_add(&uses[a], 1, __ATOMIC_RELAXED);
}

static void strings_part(void *ctx, int part)
{
    hash_job *j = ctx;
    scan *sc = j->sc;
    hk_dump *d = sc->d;
    const str_layout *lay = j->lay;
    const uint32_t *v = j->v;
    uint32_t lo, hi, got = 0;
    hk_part_range(j->n, part, HASH_PARTS, &lo, &hi);
    entry *out = j->e + lo;
    pending ring[AHEAD];
    for (size_t k = lo; k < (size_t)hi + AHEAD; k++) { /* ascending ids */
        if (k >= lo + AHEAD) {
            const pending *p = &ring[(k - AHEAD) % AHEAD];
            hk_chars ch;
            member_key key;
            /* every String's value array counts, decodable or not, as string_values counts them */
            if (sc->count_uses && p->ok && p->array != HK_NONE) count_use(sc->uses, p->array);
            if (p->ok && hk_string_chars_of(d, &p->f, p->array, &ch) == 0 && chars_key(&ch, &key) == 0)
                out[got++] = key_entry(p->obj, NULL, &key);
        }
        if (k < hi) {
            if (k + PREFETCH < hi) __builtin_prefetch(hk_obj_record(d, v[k + PREFETCH]));
            string_ahead(d, lay, v[k], &ring[k % AHEAD]);
        }
    }
    j->got[part] = got;
}

static void hash_strings(scan *sc, hashes *h)
{
    hk_dump *d = sc->d;
    str_layout lay;
    str_layout_of(d, &lay);
    uint32_t cnt;
    const uint32_t *v = hk_class_instances(d, hk_view(d)->string_class, &cnt);
    entries_for(h, cnt);
    hash_job j = {.sc = sc, .v = v, .n = cnt, .e = h->e, .lay = &lay};
    hk_parallel(HASH_PARTS, strings_part, &j);
    gather(&j, h);
}

static int same_value(scan *sc, const entry *a, const entry *b)
{
    member_key x, y;
    if (a->rec && b->rec) {
        if (array_key(sc->d, a->rec, &x) < 0 || array_key(sc->d, b->rec, &y) < 0) return 0;
    } else if (key_of(sc, a->obj, &x) < 0 || key_of(sc, b->obj, &y) < 0) return 0;
    return x.type == y.type && x.n == y.n && !memcmp(x.p, y.p, x.n);
}

/* Keeps (in place, in order) the entries whose hash's low bits another entry shares: a value met
 * once is a hash met once, and nearly every value is met once.  Two bits a slot (seen, seen
 * again), about 4 slots an entry, set and read in two passes over the entries in their order
 * with no chain of misses, which the bucket sort below has on every entry it moves; what
 * shares low bits only by chance is dropped there. */
static size_t drop_unique(entry *e, size_t n)
{
    uint64_t slots = 32;
    while (slots < 4 * (uint64_t)n && slots < (1ull << 32)) slots *= 2;
    uint64_t *w = hk_xcalloc(slots / 32, sizeof *w);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = e[i].hash & (slots - 1), *p = &w[x >> 5];
        unsigned sh = 2 * (unsigned)(x & 31);
        *p |= (*p >> sh & 1) << (sh + 1) | 1ull << sh;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = e[i].hash & (slots - 1);
        e[kept] = e[i];
        kept += w[x >> 5] >> (2 * (x & 31) + 1) & 1;
    }
    free(w);
    return kept;
}

/* Puts the entries in bucket order (by the hash's top bits) in place, with start[b] the first
 * of bucket b: each entry is swapped to the next free place of its bucket, so no second array
 * of them is made (its pages would be new to the process).  Order inside a bucket is lost; the
 * groups keep their lowest object themselves.  Returns the largest bucket's size. */
#define NBUCKETS  (1 << BUCKET_BITS)
#define BUCKET(x) ((x).hash >> (32 - BUCKET_BITS))
static size_t by_bucket(entry *e, size_t n, size_t start[NBUCKETS + 1])
{
    size_t next[NBUCKETS], most = 0;
    memset(start, 0, (NBUCKETS + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++) start[BUCKET(e[i]) + 1]++;
    for (size_t b = 0; b < NBUCKETS; b++) {
        if (start[b + 1] > most) most = start[b + 1];
        start[b + 1] += start[b];
        next[b] = start[b];
    }
    for (size_t b = 0; b < NBUCKETS; b++)
        while (next[b] < start[b + 1]) {
            entry x = e[next[b]];
            for (size_t to = BUCKET(x); to != b; to = BUCKET(x)) {
                entry y = e[next[to]];
                e[next[to]++] = x;
                x = y;
            }
            e[next[b]++] = x;
        }
    return most;
}

/* Keeps (in place, in order) the entries whose hash another entry of the bucket shares and
 * returns how many: a hash met once is a value met once, so most members never have their
 * record read again (nor asked for ahead, which costs a miss per array).  tab counts by hash
 * alone here, its `first` unused. */
static size_t shared_hashes(entry *e, size_t n, slot *tab, size_t cap)
{
    memset(tab, 0, cap * sizeof *tab);
    for (size_t i = 0; i < n; i++) {
        size_t j = (e[i].hash * 0x9e3779b9u) & (cap - 1);
        while (tab[j].count && tab[j].hash != e[i].hash) j = (j + 1) & (cap - 1);
        tab[j].hash = e[i].hash;
        tab[j].count++;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = (e[i].hash * 0x9e3779b9u) & (cap - 1);
        while (tab[j].hash != e[i].hash) j = (j + 1) & (cap - 1);
        if (tab[j].count > 1) e[kept++] = e[i];
    }
    return kept;
}

/* Groups one bucket's entries and appends the groups of two or more to *out, each with its
 * lowest object as first. */
static void group_bucket(scan *sc, entry *e, size_t n, slot *tab, size_t cap, hk_dup_group **out, size_t *nout,
                         size_t *outcap)
{
    n = shared_hashes(e, n, tab, cap);
    memset(tab, 0, cap * sizeof *tab);
    for (size_t i = 0; i < n; i++) {
        /* an array whose hash matches is compared in its record: asked for ahead (cheap when
         * it is not needed: no lookup to find it) */
        if (i + PREFETCH < n && e[i + PREFETCH].rec) __builtin_prefetch(e[i + PREFETCH].rec);
        size_t j = (e[i].hash * 0x9e3779b9u) & (cap - 1); /* not the bits that chose the bucket */
        for (; tab[j].count; j = (j + 1) & (cap - 1))
            if (tab[j].hash == e[i].hash && same_value(sc, &tab[j].first, &e[i])) break;
        if (!tab[j].count) tab[j] = (slot){e[i].hash, 1, e[i]};
        else {
            tab[j].count++;
            if (e[i].obj < tab[j].first.obj) tab[j].first = e[i]; /* the example: the lowest id */
        }
    }
    for (size_t j = 0; j < cap; j++) {
        if (tab[j].count < 2) continue;
        if (*nout == *outcap) *out = hk_grow(*out, outcap, *nout + 1, sizeof **out);
        (*out)[(*nout)++] = (hk_dup_group){.first = tab[j].first.obj, .count = tab[j].count};
    }
}

/* The tentative groups: in each bucket, the entries whose hash another entry shares get the
 * number of their hash's group in place of the hash and are moved to the front of e (a value met
 * once is a hash met once: most members are dropped here unread).  Returns how many are kept;
 * *ngroups: how many hashes they have. */
static size_t hash_groups(entry *e, const size_t start[NBUCKETS + 1], slot *tab, size_t *ngroups)
{
    size_t kept = 0, gid = 0;
    for (size_t b = 0; b < NBUCKETS; b++) {
        size_t nb = start[b + 1] - start[b], cap = 16;
        if (!nb) continue;
        while (cap < 2 * nb) cap *= 2;
        entry *be = e + start[b];
        size_t k = shared_hashes(be, nb, tab, cap); /* tab: the counts; its `first` unused, zero */
        for (size_t i = 0; i < k; i++) {
            size_t j = (be[i].hash * 0x9e3779b9u) & (cap - 1);
            while (tab[j].hash != be[i].hash) j = (j + 1) & (cap - 1);
            if (!tab[j].first.obj) tab[j].first.obj = (uint32_t)++gid;
            be[i].hash = tab[j].first.obj - 1;
        }
        memmove(e + kept, be, k * sizeof *e);
        kept += k;
    }
    *ngroups = gid;
    return kept;
}

/* e in object order (a radix sort by object), so that the records the comparison reads come in
 * file order rather than scattered over the file. */
#define RADIX_BITS 13
static void by_object(entry *e, size_t n, uint32_t nobjects)
{
    entry *tmp = hk_xrealloc(NULL, (n ? n : 1) * sizeof *tmp), *from = e, *to = tmp;
    for (unsigned shift = 0; shift < 32 && (shift == 0 || (nobjects - 1) >> shift); shift += RADIX_BITS) {
        size_t count[(1 << RADIX_BITS) + 1] = {0};
        for (size_t i = 0; i < n; i++) count[((from[i].obj >> shift) & ((1 << RADIX_BITS) - 1)) + 1]++;
        for (size_t k = 1; k <= (1 << RADIX_BITS); k++) count[k] += count[k - 1];
        for (size_t i = 0; i < n; i++) to[count[(from[i].obj >> shift) & ((1 << RADIX_BITS) - 1)]++] = from[i];
        entry *t = from;
        from = to;
        to = t;
    }
    if (from != e) memcpy(e, from, n * sizeof *e);
    free(tmp);
}

/* The groups from the tentative ones, in object order: a group's first member (its lowest
 * object) is its example and every later one is compared with it byte for byte.  A member that
 * differs only shares its hash by chance: those are grouped among themselves (whatever equals
 * them has their hash too) the slow way. */
static void confirm(scan *sc, entry *e, size_t n, size_t ngroups, hk_dup_group **out, size_t *nout, size_t *outcap)
{
    slot *rep = hk_xcalloc(ngroups ? ngroups : 1, sizeof *rep);
    size_t odd = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + PREFETCH < n && e[i + PREFETCH].rec) __builtin_prefetch(e[i + PREFETCH].rec);
        slot *r = &rep[e[i].hash];
        if (!r->count) r->first = e[i];
        else if (!same_value(sc, &r->first, &e[i])) {
            e[odd++] = e[i]; /* odd <= i: the ones before are done with */
            continue;
        }
        r->count++;
    }
    for (size_t k = 0; k < ngroups; k++) {
        if (rep[k].count < 2) continue;
        if (*nout == *outcap) *out = hk_grow(*out, outcap, *nout + 1, sizeof **out);
        (*out)[(*nout)++] = (hk_dup_group){.first = rep[k].first.obj, .count = rep[k].count};
    }
    free(rep);
    if (!odd) return;
    for (size_t i = 0; i < odd; i++) { /* their hashes back */
        member_key key;
        key_of(sc, e[i].obj, &key);
        e[i].hash = (uint32_t)(hk_hash_bytes(key.p, key.n, (uint64_t)key.type) >> 32);
    }
    size_t cap = 16;
    while (cap < 2 * odd) cap *= 2;
    slot *tab = hk_xcalloc(cap, sizeof *tab);
    group_bucket(sc, e, odd, tab, cap, out, nout, outcap);
    free(tab);
}

/* The String class's `value` field (NULL when it has none), and a String's value array. */
static const hk_field *value_field(hk_dump *d)
{
    uint32_t nf;
    const hk_field *f = hk_class_layout(d, &hk_view(d)->classes[hk_view(d)->string_class], &nf);
    for (uint32_t k = 0; k < nf; k++)
        if (f[k].type == HK_T_OBJECT && !strcmp(f[k].name, "value")) return &f[k];
    return NULL;
}

static uint32_t value_array(hk_dump *d, const hk_field *value, uint32_t obj)
{
    uint32_t len;
    const uint8_t *data = hk_instance_data(d, obj, &len);
    if (!data || value->offset + hk_view(d)->id_size > len) return HK_NONE;
    hk_value val;
    hk_read_value(d, data + value->offset, HK_T_OBJECT, &val);
    return val.ref ? hk_obj_find(d, val.ref) : HK_NONE;
}

/* Counts, for each array, the Strings that have it as their value (0, 1, or 2 for more): such
 * arrays count under duplicate Strings, not as arrays, and a shared one (old Android's
 * substrings point into one char[] with offset and count) is not a copy the String owns. */
static void string_values(hk_dump *d, uint8_t *uses)
{
    const hk_field *value = value_field(d);
    if (!value) return;
    uint32_t n;
    const uint32_t *v = hk_class_instances(d, hk_view(d)->string_class, &n);
    for (uint32_t k = 0; k < n; k++) {
        if (k + PREFETCH < n) __builtin_prefetch(hk_obj_record(d, v[k + PREFETCH]));
        uint32_t a = value_array(d, value, v[k]);
        if (a != HK_NONE && uses[a] < 2) uses[a]++;
    }
}

/* A String's bytes are its own and, when no other String shares it, its value array's
 * (`value`: String's value field, NULL for arrays or a String class without one). */
static uint64_t member_bytes(hk_dump *d, const hk_field *value, uint32_t obj, const uint8_t *uses)
{
    uint64_t bytes = hk_obj_shallow_size(d, obj);
    uint32_t a = value ? value_array(d, value, obj) : HK_NONE;
    if (a != HK_NONE && uses[a] == 1) bytes += hk_obj_shallow_size(d, a);
    return bytes;
}

static int by_waste(const void *pa, const void *pb)
{
    const hk_dup_group *a = pa, *b = pb;
    if (a->wasted != b->wasted) return a->wasted > b->wasted ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* The primitive arrays that are no String's value, in object order: the element types' lists
 * merged through a mark per object, so the records are read in one forward sweep of the file
 * (not one sweep per type).  Every object is a candidate for a type that has arrays but no
 * array class (array_key then keeps the primitive arrays). */
static uint32_t *array_candidates(hk_dump *d, const uint8_t *uses, const uint8_t *skip, uint32_t *n)
{
    uint8_t *mark = hk_xcalloc((size_t)hk_view(d)->nobjects + 1, 1);
    int classless = 0;
    for (int t = 0; t < 12; t++) {
        if (hk_type_size(d, t) <= 0 || t == HK_T_OBJECT) continue;
        uint32_t c = hk_view(d)->prim_array_class[t], cnt;
        if (c == HK_NONE) {
            for (int heap = 0; heap < HK_MAX_HEAPS; heap++)
                if (hk_prim_tally(d, t).count[heap]) classless = 1;
            continue;
        }
        const uint32_t *v = hk_class_instances(d, c, &cnt);
        for (uint32_t k = 0; k < cnt; k++) mark[v[k]] = 1;
    }
    uint32_t *list =
        hk_xrealloc(NULL, ((size_t)(classless ? hk_view(d)->nobjects : hk_view(d)->nprim_arrays) + 1) * sizeof *list);
    *n = 0;
    for (uint32_t i = 0; i < hk_view(d)->nobjects; i++)
        list[*n] = i, *n += (mark[i] | classless) & !uses[i] & !(skip && skip[i]); /* no branch: a third pass */
    free(mark);
    return list;
}

static void arrays_part(void *ctx, int part)
{
    hash_job *j = ctx;
    const hk_dump *d = j->sc->d;
    const uint32_t *v = j->v;
    uint32_t lo, hi, got = 0;
    hk_part_range(j->n, part, HASH_PARTS, &lo, &hi);
    entry *out = j->e + lo;
    for (uint32_t k = lo; k < hi; k++) {
        /* the records are spread over the file: ask for a later one while hashing this */
        if (k + PREFETCH < hi) __builtin_prefetch(hk_obj_record(d, v[k + PREFETCH]));
        member_key key;
        const uint8_t *rec = hk_obj_record(d, v[k]);
        if (array_key(d, rec, &key) == 0) out[got++] = key_entry(v[k], rec, &key);
    }
    j->got[part] = got;
}

static void hash_arrays(scan *sc, hashes *h, const uint8_t *skip)
{
    hk_dump *d = sc->d;
    if (sc->count_uses && hk_view(d)->string_class != HK_NONE) string_values(d, sc->uses);
    uint32_t n;
    uint32_t *v = array_candidates(d, sc->uses, skip, &n);
    entries_for(h, n);
    hash_job j = {.sc = sc, .v = v, .n = n, .e = h->e};
    hk_parallel(HASH_PARTS, arrays_part, &j);
    gather(&j, h);
    free(v);
}

int hk_dup_groups(hk_dump *d, int kind, uint8_t *uses, int *uses_ready, const uint8_t *skip, hk_dup_group **out,
                  uint32_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    if (kind == HK_DUP_STRINGS && hk_view(d)->string_class == HK_NONE) {
        snprintf(err, errlen, "this dump has no java.lang.String class");
        return -1;
    }
    scan sc = {d, kind, uses, !*uses_ready};
    hashes h = {0};
    if (kind == HK_DUP_STRINGS) hash_strings(&sc, &h);
    else hash_arrays(&sc, &h, skip);
    h.n = drop_unique(h.e, h.n);
    size_t start[NBUCKETS + 1], most = by_bucket(h.e, h.n, start);
    size_t cap = 16, ngroups;
    while (cap < 2 * most) cap *= 2;
    slot *tab = hk_xcalloc(cap, sizeof *tab);
    size_t kept = hash_groups(h.e, start, tab, &ngroups);
    free(tab);
    by_object(h.e, kept, hk_view(d)->nobjects);
    hk_dup_group *g = NULL;
    size_t groups = 0, gcap = 0;
    confirm(&sc, h.e, kept, ngroups, &g, &groups, &gcap);
    free(h.e);
    if (!g) g = hk_xcalloc(1, sizeof *g);
    const hk_field *value = kind == HK_DUP_STRINGS && hk_view(d)->string_class != HK_NONE ? value_field(d) : NULL;
    for (size_t j = 0; j < groups; j++) {
        g[j].bytes = member_bytes(d, value, g[j].first, sc.uses);
        g[j].wasted = (uint64_t)(g[j].count - 1) * g[j].bytes;
    }
    qsort(g, groups, sizeof *g, by_waste);
    *uses_ready = 1;
    *out = g;
    *n = (uint32_t)groups;
    return 0;
}
