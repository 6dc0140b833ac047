/* The object table: collected unsorted during the pass, sorted once by id. */
#include "hprof/hprof_objtab.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <string.h>


void hk_objtab_init(hk_objtab *t, size_t expect)
{
    memset(t, 0, sizeof *t);
    t->cap = expect < 1024 ? 1024 : expect;
    t->ids = hk_xrealloc(NULL, t->cap * sizeof *t->ids);
    t->off_lo = hk_xrealloc(NULL, t->cap * sizeof *t->off_lo);
    t->off_hi = hk_xrealloc(NULL, t->cap);
}

void hk_objtab_grow(hk_objtab *t)
{
    t->cap = t->cap + t->cap / 2;
    t->ids = hk_xrealloc(t->ids, t->cap * sizeof *t->ids);
    t->off_lo = hk_xrealloc(t->off_lo, t->cap * sizeof *t->off_lo);
    t->off_hi = hk_xrealloc(t->off_hi, t->cap);
}

void hk_objtab_free(hk_objtab *t)
{
    free(t->ids);
    free(t->off_lo);
    free(t->off_hi);
    memset(t, 0, sizeof *t);
}

static int bits_of(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

/* LSD radix sort of 64-bit keys on bits [lo, hi), 11 bits a pass. */
static void radix_sort(uint64_t *a, uint64_t *tmp, size_t n, int lo, int hi)
{
    enum { BITS = 11, RADIX = 1 << BITS };
    static size_t count[RADIX];
    uint64_t *src = a, *dst = tmp;
    for (int shift = lo; shift < hi; shift += BITS) {
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++) count[(src[i] >> shift) & (RADIX - 1)]++;
        size_t sum = 0;
        for (int v = 0; v < RADIX; v++) { size_t c = count[v]; count[v] = sum; sum += c; }
        for (size_t i = 0; i < n; i++) dst[count[(src[i] >> shift) & (RADIX - 1)]++] = src[i];
        uint64_t *s = src; src = dst; dst = s;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

typedef struct run { uint64_t first, last; size_t start, len; } run;

static int run_cmp(const void *a, const void *b)
{
    const run *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Real dumps write objects in a few hundred ascending runs (heap regions) whose id ranges do
 * not overlap, plus small runs (class objects, roots' neighbours) that fall anywhere.  Then
 * sorting is: order the long runs, radix-sort the short ones, merge the two.  Returns 1 done,
 * 0 not applicable, -1 out of memory. */
enum { LONG_RUN = 256 };

static int radix_table(hk_objtab *t, uint64_t file_size);

static int sort_by_runs(hk_objtab *t, uint64_t file_size)
{
    size_t n = t->n, nruns = 1;
    for (size_t i = 1; i < n; i++)
        if (t->ids[i] < t->ids[i - 1] && ++nruns > n / 64 + 1) return 0;
    run *runs = malloc(nruns * sizeof *runs);
    if (!runs) return -1;
    size_t k = 0, start = 0, nlong = 0, short_total = 0;
    for (size_t i = 1; i <= n; i++) {
        if (i == n || t->ids[i] < t->ids[i - 1]) {
            run r = {t->ids[start], t->ids[i - 1], start, i - start};
            if (r.len >= LONG_RUN) runs[nlong++] = r;
            else { runs[nruns - 1 - (k - nlong)] = r; short_total += r.len; }
            k++;
            start = i;
        }
    }
    qsort(runs, nlong, sizeof *runs, run_cmp);
    for (size_t r = 1; r < nlong; r++)
        if (runs[r].first <= runs[r - 1].last) { free(runs); return 0; }
    /* the short runs, sorted on their own */
    hk_objtab sh;
    memset(&sh, 0, sizeof sh);
    if (short_total) {
        hk_objtab_init(&sh, short_total);
        for (size_t r = nlong; r < nruns; r++)
            for (size_t j = runs[r].start; j < runs[r].start + runs[r].len; j++)
                hk_objtab_add(&sh, t->ids[j], (uint64_t)t->off_hi[j] << 32 | t->off_lo[j]);
        if (radix_table(&sh, file_size) < 0) { hk_objtab_free(&sh); free(runs); return -1; }
    }
    uint64_t *ids = malloc(n * sizeof *ids);
    uint32_t *lo = malloc(n * sizeof *lo);
    uint8_t *hi = malloc(n ? n : 1);
    if (!ids || !lo || !hi) { free(ids); free(lo); free(hi); free(runs); hk_objtab_free(&sh); return -1; }
    size_t at = 0, si = 0;
    for (size_t r = 0; r <= nlong; r++) {
        /* short elements that come before this long run (or all the rest after the last) */
        uint64_t bound = r < nlong ? runs[r].first : UINT64_MAX;
        while (si < sh.n && sh.ids[si] < bound) {
            ids[at] = sh.ids[si]; lo[at] = sh.off_lo[si]; hi[at] = sh.off_hi[si];
            at++; si++;
        }
        if (r == nlong) break;
        /* the long run, interleaved with any short elements inside its range */
        size_t j = runs[r].start, end = j + runs[r].len;
        while (j < end) {
            if (si < sh.n && sh.ids[si] < t->ids[j]) {
                ids[at] = sh.ids[si]; lo[at] = sh.off_lo[si]; hi[at] = sh.off_hi[si]; si++;
            } else {
                size_t m = j + 1;   /* copy a stretch of the run at once */
                uint64_t lim = si < sh.n ? sh.ids[si] : UINT64_MAX;
                while (m < end && t->ids[m] <= lim) m++;
                memcpy(ids + at, t->ids + j, (m - j) * sizeof *ids);
                memcpy(lo + at, t->off_lo + j, (m - j) * sizeof *lo);
                memcpy(hi + at, t->off_hi + j, m - j);
                at += m - j;
                j = m;
                continue;
            }
            at++;
        }
    }
    free(t->ids);
    free(t->off_lo);
    free(t->off_hi);
    t->ids = ids;
    t->off_lo = lo;
    t->off_hi = hi;
    hk_objtab_free(&sh);
    free(runs);
    return 1;
}

/* Radix sort (id, offset) by id.  Ids are packed with their offsets into one 64-bit key when they
 * fit (ids relative to the smallest, without their common alignment bits): half the memory
 * traffic of sorting pairs.  Otherwise a permutation is sorted. */
static int radix_table(hk_objtab *t, uint64_t file_size)
{
    size_t n = t->n, i;
    uint64_t min = UINT64_MAX, max = 0, diff = 0;
    for (i = 0; i < n; i++) {
        if (t->ids[i] < min) min = t->ids[i];
        if (t->ids[i] > max) max = t->ids[i];
    }
    for (i = 0; i < n; i++) diff |= t->ids[i] - min;
    int shift = diff ? __builtin_ctzll(diff) : 0;
    int key_bits = bits_of((max - min) >> shift), off_bits = bits_of(file_size);
    uint64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) return -1;
    if (key_bits + off_bits <= 64) {
        for (i = 0; i < n; i++)
            t->ids[i] = ((t->ids[i] - min) >> shift) << off_bits | ((uint64_t)t->off_hi[i] << 32 | t->off_lo[i]);
        radix_sort(t->ids, tmp, n, off_bits, off_bits + key_bits);
        uint64_t mask = off_bits == 64 ? UINT64_MAX : (1ULL << off_bits) - 1;
        for (i = 0; i < n; i++) {
            uint64_t off = t->ids[i] & mask;
            t->off_lo[i] = (uint32_t)off;
            t->off_hi[i] = (uint8_t)(off >> 32);
            t->ids[i] = min + ((t->ids[i] >> off_bits) << shift);
        }
    } else {
        /* key in the high bits, the element's position below it */
        int pos_bits = bits_of(n);
        if (key_bits + pos_bits > 64) { free(tmp); return -1; }
        for (i = 0; i < n; i++) tmp[i] = ((t->ids[i] - min) >> shift) << pos_bits | i;
        uint64_t *tmp2 = malloc(n * sizeof *tmp2);
        if (!tmp2) { free(tmp); return -1; }
        radix_sort(tmp, tmp2, n, pos_bits, pos_bits + key_bits);
        uint64_t mask = (1ULL << pos_bits) - 1;
        uint32_t *lo = malloc(n * sizeof *lo);
        uint8_t *hi = malloc(n);
        if (!lo || !hi) { free(lo); free(hi); free(tmp); free(tmp2); return -1; }
        for (i = 0; i < n; i++) {
            size_t k = tmp[i] & mask;
            lo[i] = t->off_lo[k];
            hi[i] = t->off_hi[k];
            tmp2[i] = t->ids[k];
        }
        memcpy(t->ids, tmp2, n * sizeof *tmp2);
        free(t->off_lo);
        free(t->off_hi);
        t->off_lo = lo;
        t->off_hi = hi;
        free(tmp2);
    }
    free(tmp);
    return 0;
}

static int sort_table(hk_objtab *t, uint64_t file_size)
{
    size_t i;
    for (i = 1; i < t->n; i++)
        if (t->ids[i] < t->ids[i - 1]) break;
    if (i >= t->n) return 0;
    int rc = sort_by_runs(t, file_size);
    if (rc != 0) return rc < 0 ? -1 : 0;
    return radix_table(t, file_size);
}

/* About 8 objects a bucket: half a byte per object buys lookups of ~3 probes, not ~22. */
static void build_directory(hk_dump *d)
{
    uint32_t n = d->nobjects;
    if (d->nsegs != 1 || n < 1024) return;
    uint32_t base = d->id_lo[0], span = d->id_lo[n - 1] - base;
    uint32_t want = n / 8, shift = 0;
    while (shift < 32 && (span >> shift) >= want) shift++;
    uint32_t nb = (span >> shift) + 1;
    uint32_t *dir = malloc(((size_t)nb + 1) * sizeof *dir);
    if (!dir) return;   /* lookups fall back to binary search */
    uint32_t i = 0;
    for (uint32_t b = 0; b <= nb; b++) {
        while (i < n && ((d->id_lo[i] - base) >> shift) < b) i++;
        dir[b] = i;
    }
    d->dir = dir;
    d->ndir = nb;
    d->dir_shift = shift;
    d->dir_base = base;
}

int hk_objtab_finish(hk_objtab *t, hk_dump *d, char *err, size_t errlen)
{
    size_t n = t->n;
    if (n >= UINT32_MAX) { snprintf(err, errlen, "%s: more than 4 billion objects", d->path); return -1; }
    if (sort_table(t, d->size) < 0) {
        snprintf(err, errlen, "%s: out of memory sorting %zu objects", d->path, n);
        return -1;
    }
    if (n && t->ids[0] == 0) {
        snprintf(err, errlen, "%s: at offset %llu: an object with id 0, which is the null reference: the dump is corrupt",
                 d->path, (unsigned long long)((uint64_t)t->off_hi[0] << 32 | t->off_lo[0]));
        return -1;
    }
    size_t capsegs = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = t->ids[i];
        if (i && id == t->ids[i - 1]) {
            snprintf(err, errlen, "%s: at offset %llu: object id 0x%llx appears twice (also at offset %llu)",
                     d->path, (unsigned long long)((uint64_t)t->off_hi[i] << 32 | t->off_lo[i]),
                     (unsigned long long)id, (unsigned long long)((uint64_t)t->off_hi[i - 1] << 32 | t->off_lo[i - 1]));
            return -1;
        }
        uint32_t hi = (uint32_t)(id >> 32);
        if (!d->nsegs || d->segs[d->nsegs - 1].hi != hi) {
            if (d->nsegs == capsegs) {
                capsegs = capsegs ? capsegs * 2 : 4;
                d->segs = hk_xrealloc(d->segs, capsegs * sizeof *d->segs);
            }
            d->segs[d->nsegs].start = (uint32_t)i;
            d->segs[d->nsegs].hi = hi;
            d->nsegs++;
        }
    }
    /* the low id words go into the same allocation the ids used */
    uint32_t *lo = (uint32_t *)t->ids;
    for (size_t i = 0; i < n; i++) lo[i] = (uint32_t)t->ids[i];
    d->id_lo = hk_xrealloc(lo, n * sizeof *lo);
    d->off_lo = hk_xrealloc(t->off_lo, n * sizeof *d->off_lo);
    d->off_hi = hk_xrealloc(t->off_hi, n);
    d->nobjects = (uint32_t)n;
    memset(t, 0, sizeof *t);
    build_directory(d);
    return 0;
}
