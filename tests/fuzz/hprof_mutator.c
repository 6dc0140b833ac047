/* A structure-aware mutator for the HPROF target (built with fuzz_hprof.c as the target
 * "hprof-structured"): a byte flip in a length or a tag stops most inputs at the first check,
 * so half the mutations keep the framing valid instead:
 *   - a top-level record's body mutated by libFuzzer, its length field set to the new size;
 *   - a record copied after another (a second class dump, a root repeated);
 *   - an id slot (an object array's element, a root, an instance's class, a class's super)
 *     given another id the dump really holds, so references point at real objects of the
 *     wrong kind, into cycles or at themselves.
 *   - a heap dump segment grown past the threaded index's cut size (parts of 256 KiB): its
 *     sub-records copied after themselves, or wrapped as the data of one large byte array and
 *     then copied, so that the index's guessed cuts land inside a segment, the guesses inside
 *     the array are wrong and the part after is walked again (needs -max_len of 1 MiB; set
 *     HK_FUZZ_GROW=1 to grow every input, as tests/t_fuzz_cuts.sh does).
 * The other half are libFuzzer's own mutations of the whole input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define MAXN 4096
typedef struct scan {
    const uint8_t *d;
    size_t n, idsz;
    size_t rec_at[MAXN], nrec;   /* top-level records' offsets */
    size_t slot_at[MAXN], nslot; /* offsets of id slots that may be rewritten */
    uint64_t ids[MAXN];
    size_t nids;
} scan;

static uint64_t rd(const uint8_t *p, size_t k)
{
    uint64_t v = 0;
    for (size_t i = 0; i < k; i++) v = v << 8 | p[i];
    return v;
}

static void wr(uint8_t *p, size_t k, uint64_t v)
{
    for (size_t i = k; i-- > 0; v >>= 8) p[i] = (uint8_t)v;
}

static size_t type_size(unsigned t, size_t idsz)
{
    static const unsigned char sz[12] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};
    return t == 2 ? idsz : t < 12 ? sz[t] : 0;
}

static void slot(scan *s, size_t at)
{
    if (s->nslot < MAXN && at + s->idsz <= s->n) s->slot_at[s->nslot++] = at;
}

static void id_at(scan *s, size_t at)
{
    if (s->nids < MAXN && at + s->idsz <= s->n) s->ids[s->nids++] = rd(s->d + at, s->idsz);
}

/* A class dump's length from p (after its tag), or 0 when it runs past end. */
static size_t class_len(scan *s, size_t p, size_t end)
{
    size_t I = s->idsz, q = p + 7 * I + 8;
    for (int part = 0; part < 3; part++) {
        if (q + 2 > end) return 0;
        unsigned n = (unsigned)rd(s->d + q, 2);
        q += 2;
        for (unsigned i = 0; i < n; i++) {
            size_t head = part == 0 ? 2 : I; /* constant pool index, or the field's name id */
            if (q + head + 1 > end) return 0;
            unsigned t = s->d[q + head];
            size_t v = part == 2 ? 0 : type_size(t, I);
            if (part < 2 && !v) return 0;
            q += head + 1 + v;
        }
    }
    return q <= end ? q - p : 0;
}

/* The length of the sub-record whose tag is at p (its ids noted), or 0 when unknown or cut. */
static size_t sub_len(scan *s, size_t p, size_t end)
{
    size_t I = s->idsz, b = p + 1, len;
    unsigned tag = s->d[p];
    switch (tag) {
    case 0xff:
    case 0x05:
    case 0x07:
    case 0x89:
    case 0x8a:
    case 0x8b:
    case 0x8c:
    case 0x8d:
    case 0x90: len = I; break;
    case 0x01: len = 2 * I; break;
    case 0x02:
    case 0x03:
    case 0x08:
    case 0x8e: len = I + 8; break;
    case 0x04:
    case 0x06: len = I + 4; break;
    case 0xfe: len = 4 + I; break;
    case 0xc3: /* PRIMITIVE_ARRAY_NODATA: an object too */
        len = I + 9;
        if (b + len <= end) id_at(s, b);
        break;
    case 0x20: return (len = class_len(s, b, end)) ? (id_at(s, b), slot(s, b + I + 4), 1 + len) : 0;
    case 0x21:
        if (b + 2 * I + 8 > end) return 0;
        len = 2 * I + 8 + (size_t)rd(s->d + b + 2 * I + 4, 4);
        if (b + len <= end) id_at(s, b), slot(s, b + I + 4);
        break;
    case 0x22:
        if (b + 2 * I + 8 > end) return 0;
        len = 2 * I + 8 + (size_t)rd(s->d + b + I + 4, 4) * I;
        if (b + len > end) return 0;
        id_at(s, b);
        for (size_t e = b + 2 * I + 8; e < b + len; e += I) slot(s, e);
        break;
    case 0x23:
        if (b + I + 9 > end) return 0;
        len = I + 9 + (size_t)rd(s->d + b + I + 4, 4) * type_size(s->d[b + I + 8], I);
        if (b + len <= end) id_at(s, b);
        break;
    default: return 0;
    }
    if (tag < 0x20 || tag >= 0x89) slot(s, b); /* a root's object */
    return b + len <= end ? 1 + len : 0;
}

static int scan_dump(scan *s, const uint8_t *d, size_t n)
{
    memset(s, 0, sizeof *s);
    s->d = d;
    s->n = n;
    const uint8_t *z = memchr(d, 0, n < 32 ? n : 32);
    if (!z || (size_t)(z - d) + 13 > n || memcmp(d, "JAVA PROFILE", 12)) return -1;
    size_t p = (size_t)(z - d) + 1;
    s->idsz = (size_t)rd(d + p, 4);
    if (s->idsz != 4 && s->idsz != 8) return -1;
    for (p += 12; p + 9 <= n && s->nrec < MAXN; s->nrec++) {
        size_t len = (size_t)rd(d + p + 5, 4), b = p + 9;
        if (b + len > n) break;
        s->rec_at[s->nrec] = p;
        if (d[p] == 0x0c || d[p] == 0x1c)
            for (size_t q = b, k; q < b + len && (k = sub_len(s, q, b + len)); q += k) {}
        p = b + len;
    }
    return s->nrec ? 0 : -1;
}

static size_t mutate_body(scan *s, uint8_t *d, size_t n, size_t max, unsigned r)
{
    size_t at = s->rec_at[r % s->nrec], len = (size_t)rd(d + at + 5, 4), b = at + 9, tail = n - b - len;
    size_t room = max - n + len;
    uint8_t *body = malloc(room ? room : 1);
    memcpy(body, d + b, len);
    size_t nl = LLVMFuzzerMutate(body, len, room);
    memmove(d + b + nl, d + b + len, tail);
    memcpy(d + b, body, nl);
    free(body);
    wr(d + at + 5, 4, nl);
    return b + nl + tail;
}

static size_t copy_record(scan *s, uint8_t *d, size_t n, size_t max, unsigned r)
{
    size_t from = s->rec_at[r % s->nrec], len = 9 + (size_t)rd(d + from + 5, 4);
    size_t to = s->rec_at[(r >> 8) % s->nrec];
    if (n + len > max) return 0;
    uint8_t *rec = malloc(len);
    memcpy(rec, d + from, len);
    memmove(d + to + len, d + to, n - to);
    memcpy(d + to, rec, len);
    free(rec);
    return n + len;
}

/* Grows heap dump record r's body by about `want` bytes of copies of its own sub-records, after
 * a byte array holding them (wrap) or alone. */
static size_t grow_segment(scan *s, uint8_t *d, size_t n, size_t max, unsigned r)
{
    size_t WANT = (300u + (r >> 4) % 400u) << 10; /* two or three parts of 256 KiB */
    size_t at = SIZE_MAX;
    for (size_t k = 0; k < s->nrec; k++) {
        size_t i = (k + r) % s->nrec;
        if (d[s->rec_at[i]] == 0x0c || d[s->rec_at[i]] == 0x1c) at = s->rec_at[i];
    }
    size_t I = s->idsz, head = 1 + I + 9, wrap = r >> 16 & 1;
    if (at == SIZE_MAX || n + WANT + head > max) return 0;
    size_t len = (size_t)rd(d + at + 5, 4), b = at + 9, end = b + len;
    if (!len) return 0;
    uint64_t fresh = 0; /* the array and the copies' objects get ids of their own, above the dump's */
    for (size_t k = 0; k < s->nids; k++)
        if (s->ids[k] > fresh) fresh = s->ids[k];
    uint8_t *add = malloc(WANT + head), *q = add;
    if (wrap) { /* a byte array (type 8) whose elements are the segment's own sub-records */
        *q++ = 0x23;
        wr(q, I, fresh += 8), q += I;
        wr(q, 4, 0), q += 4;
        wr(q, 4, WANT / 2), q += 4;
        *q++ = 8;
    }
    size_t fill = wrap ? WANT / 2 : 0, base = wrap ? head : 0;
    while ((size_t)(q - add) < base + fill) { /* the array's data: copies cut to fit */
        size_t k = base + fill - (size_t)(q - add);
        memcpy(q, d + b, k < len ? k : len), q += k < len ? k : len;
    }
    while ((size_t)(q - add) + len <= WANT + base) memcpy(q, d + b, len), q += len; /* whole copies */
    size_t grow = (size_t)(q - add);
    static scan t;
    memset(&t, 0, sizeof t);
    t.d = add, t.n = grow, t.idsz = I;
    for (size_t p = base + fill, k; p < grow && (k = sub_len(&t, p, grow)); p += k)
        if ((add[p] >= 0x20 && add[p] <= 0x23) || add[p] == 0xc3) wr(add + p + 1, I, fresh += 8);
    if (!grow) {
        free(add);
        return 0;
    }
    memmove(d + end + grow, d + end, n - end);
    memcpy(d + end, add, grow);
    free(add);
    wr(d + at + 5, 4, len + grow);
    return n + grow;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    static scan s;
    static int grow_all = -1;
    if (grow_all < 0) grow_all = getenv("HK_FUZZ_GROW") && *getenv("HK_FUZZ_GROW") == '1';
    srand(seed);
    unsigned r = (unsigned)rand();
    if ((r % 2 == 0 && !grow_all) || scan_dump(&s, data, size) < 0) return LLVMFuzzerMutate(data, size, max_size);
    size_t n = 0;
    switch (grow_all ? 3 : (r >> 1) % 4) {
    case 0: n = mutate_body(&s, data, size, max_size, (unsigned)rand()); break;
    case 1: n = copy_record(&s, data, size, max_size, (unsigned)rand()); break;
    case 2:
        if (s.nslot && s.nids) {
            wr(data + s.slot_at[(unsigned)rand() % s.nslot], s.idsz, s.ids[(unsigned)rand() % s.nids]);
            n = size;
        }
        break;
    case 3:
        if (size < (256u << 10)) n = grow_segment(&s, data, size, max_size, (unsigned)rand());
        break;
    }
    return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
