/* The object table: collected in pass order in its final 9-bytes-per-object form, sorted once
 * by id.  A dump whose objects are already in id order costs nothing more; one written in a
 * few long ascending runs is merged into the final arrays while the pages of the runs already
 * copied are given back, so the peak stays near 9 bytes per object; only a dump in no order
 * at all takes the radix sort's 21 bytes per object. */
#include "hprof/hprof_objtab.h"
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void hk_objtab_init(hk_objtab *t, size_t expect)
{
    memset(t, 0, sizeof *t);
    t->cap = expect < 1024 ? 1024 : expect;
    /* large blocks are mapped lazily: capacity not yet written costs no memory */
    t->id_lo = hk_xrealloc(NULL, t->cap * sizeof *t->id_lo);
    t->off_lo = hk_xrealloc(NULL, t->cap * sizeof *t->off_lo);
    t->off_hi = hk_xrealloc(NULL, t->cap);
}

void hk_objtab_grow(hk_objtab *t)
{
    t->cap = t->cap + t->cap / 2;
    t->id_lo = hk_xrealloc(t->id_lo, t->cap * sizeof *t->id_lo);
    t->off_lo = hk_xrealloc(t->off_lo, t->cap * sizeof *t->off_lo);
    t->off_hi = hk_xrealloc(t->off_hi, t->cap);
}

void hk_objtab_new_hi(hk_objtab *t, uint32_t hi)
{
    t->his = hk_grow(t->his, &t->caphis, t->nhis + 1, sizeof *t->his);
    t->his[t->nhis].start = t->n;
    t->his[t->nhis].hi = hi;
    t->nhis++;
}

void hk_objtab_new_run(hk_objtab *t)
{
    /* a table in little order: its runs would cost memory and save nothing (the sort does not
     * use them) */
    if (t->nruns >= 65536 && t->nruns > t->n / 32) {
        free(t->runs);
        t->runs = NULL;
        t->nruns = t->capruns = 0;
        t->unordered = 1;
        return;
    }
    t->runs = hk_grow(t->runs, &t->capruns, t->nruns + 1, sizeof *t->runs);
    t->runs[t->nruns++] = t->n;
}

void hk_objtab_free(hk_objtab *t)
{
    free(t->id_lo);
    free(t->off_lo);
    free(t->off_hi);
    free(t->his);
    free(t->runs);
    memset(t, 0, sizeof *t);
}

/* The run of high words holding position i (needs t->nhis >= 1). */
static size_t hi_index(const hk_objtab *t, size_t i)
{
    size_t a = 0, b = t->nhis;
    while (b - a > 1) {
        size_t m = (a + b) / 2;
        if (t->his[m].start <= i) a = m;
        else b = m;
    }
    return a;
}

/* The full id at i, for a scan moving forward: *k is the high-word run of the last call. */
static inline uint64_t full_id(const hk_objtab *t, size_t *k, size_t i)
{
    while (*k + 1 < t->nhis && t->his[*k + 1].start <= i) (*k)++;
    return (uint64_t)t->his[*k].hi << 32 | t->id_lo[i];
}

static inline uint64_t offset_at(const uint32_t *lo, const uint8_t *hi, size_t i)
{
    return (uint64_t)hi[i] << 32 | lo[i];
}

static int bits_of(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

/* Ids with their offsets, 13 bytes per object: the radix sort's working form. */
typedef struct wide {
    uint64_t *ids;
    uint32_t *off_lo;
    uint8_t *off_hi;
    size_t n;
} wide;

static void wide_free(wide *w)
{
    free(w->ids);
    free(w->off_lo);
    free(w->off_hi);
    memset(w, 0, sizeof *w);
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
        for (int v = 0; v < RADIX; v++) {
            size_t c = count[v];
            count[v] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) dst[count[(src[i] >> shift) & (RADIX - 1)]++] = src[i];
        uint64_t *s = src;
        src = dst;
        dst = s;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

/* Radix sort (id, offset) by id.  Ids are packed with their offsets into one 64-bit key when they
 * fit (ids relative to the smallest, without their common alignment bits): half the memory
 * traffic of sorting pairs.  Otherwise a permutation is sorted; -1 when even that does not fit
 * (ids spread over more than 2^64 / n). */
static int radix_table(wide *t, uint64_t file_size)
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
    if (key_bits + off_bits <= 64) {
        uint64_t *tmp = hk_xmalloc(n * sizeof *tmp);
        for (i = 0; i < n; i++)
            t->ids[i] = ((t->ids[i] - min) >> shift) << off_bits | offset_at(t->off_lo, t->off_hi, i);
        radix_sort(t->ids, tmp, n, off_bits, off_bits + key_bits);
        free(tmp);
        uint64_t mask = off_bits == 64 ? UINT64_MAX : (1ULL << off_bits) - 1;
        for (i = 0; i < n; i++) {
            uint64_t off = t->ids[i] & mask;
            t->off_lo[i] = (uint32_t)off;
            t->off_hi[i] = (uint8_t)(off >> 32);
            t->ids[i] = min + ((t->ids[i] >> off_bits) << shift);
        }
        return 0;
    }
    /* key in the high bits, the element's position below it */
    int pos_bits = bits_of(n);
    if (key_bits + pos_bits > 64) return -1;
    uint64_t *tmp = hk_xmalloc(n * sizeof *tmp), *tmp2 = hk_xmalloc(n * sizeof *tmp2);
    for (i = 0; i < n; i++) tmp[i] = ((t->ids[i] - min) >> shift) << pos_bits | i;
    radix_sort(tmp, tmp2, n, pos_bits, pos_bits + key_bits);
    uint64_t mask = (1ULL << pos_bits) - 1;
    uint32_t *lo = hk_xmalloc(n * sizeof *lo);
    uint8_t *hi = hk_xmalloc(n);
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
    free(tmp);
    return 0;
}

/* ---- the sorted table, written into d with its segments ---- */

static void add_seg(hk_dump *d, size_t *cap, uint32_t start, uint32_t hi)
{
    hk_idseg *segs = hk_grow((hk_idseg *)d->view.segs, cap, d->view.nsegs + 1, sizeof *segs);
    segs[d->view.nsegs++] = (hk_idseg){start, hi};
    d->view.segs = segs;
}

/* Gives back the pages of a source array once every element on them has been copied:
 * left[p] counts the elements of page p not yet copied.  Only pages wholly inside the array
 * are given back (the allocator's own words sit just before it). */
typedef struct releaser {
    uintptr_t base, end, page0;
    size_t elem, pg;
    uint16_t *left;
} releaser;

static void releaser_init(releaser *r, void *base, size_t n, size_t elem)
{
    r->pg = (size_t)sysconf(_SC_PAGESIZE);
    r->base = (uintptr_t)base;
    r->end = r->base + n * elem;
    r->elem = elem;
    r->page0 = r->base & ~(uintptr_t)(r->pg - 1);
    size_t npages = (r->end - r->page0 + r->pg - 1) / r->pg;
    r->left = hk_xmalloc(npages * sizeof *r->left);
    for (size_t p = 0; p < npages; p++) {
        uintptr_t a = r->page0 + p * r->pg, b = a + r->pg;
        if (a < r->base) a = r->base;
        if (b > r->end) b = r->end;
        r->left[p] = (uint16_t)((b - a) / elem);
    }
}

/* Elements [a, b) have been copied. */
static void releaser_done(releaser *r, size_t a, size_t b)
{
    while (a < b) {
        size_t p = (r->base + a * r->elem - r->page0) / r->pg;
        uintptr_t page_end = r->page0 + (p + 1) * r->pg;
        size_t upto = (page_end - r->base) / r->elem;
        if (upto > b) upto = b;
        r->left[p] -= (uint16_t)(upto - a);
        uintptr_t ps = r->page0 + p * r->pg;
        if (!r->left[p] && ps >= r->base && page_end <= r->end) hk_release((const void *)ps, 0, r->pg);
        a = upto;
    }
}

/* The runs and high words of src, moved behind t's n elements. */
static void append_runs(hk_objtab *t, const hk_objtab *src)
{
    uint64_t first = (uint64_t)src->his[0].hi << 32 | src->id_lo[0];
    if (t->n && first < t->last && !t->unordered) hk_objtab_new_run(t);
    for (size_t r = 0; r < src->nruns && !t->unordered && !src->unordered; r++) {
        size_t n = t->n;
        t->n = n + src->runs[r];
        hk_objtab_new_run(t);
        t->n = n;
    }
    if (src->unordered && !t->unordered) {
        free(t->runs);
        t->runs = NULL;
        t->nruns = t->capruns = 0;
        t->unordered = 1;
    }
    for (size_t h = 0; h < src->nhis; h++)
        if (!t->nhis || t->his[t->nhis - 1].hi != src->his[h].hi) {
            t->his = hk_grow(t->his, &t->caphis, t->nhis + 1, sizeof *t->his);
            t->his[t->nhis].start = t->n + src->his[h].start;
            t->his[t->nhis].hi = src->his[h].hi;
            t->nhis++;
        }
    t->last = src->last;
}

typedef struct move_job {
    hk_objtab *t;
    hk_objtab *src;
} move_job;

/* Array k of src put behind t's elements, its pages moved rather than copied. */
static void move_array(void *ctx, int k)
{
    move_job *j = ctx;
    hk_objtab *t = j->t, *src = j->src;
    if (k == 0) hk_move_append(t->id_lo, t->n * sizeof *t->id_lo, src->id_lo, src->n * sizeof *src->id_lo);
    if (k == 1) hk_move_append(t->off_lo, t->n * sizeof *t->off_lo, src->off_lo, src->n * sizeof *src->off_lo);
    if (k == 2) hk_move_append(t->off_hi, t->n, src->off_hi, src->n);
}

void hk_objtab_append(hk_objtab *t, hk_objtab *src)
{
    size_t n = src->n;
    if (n) {
        append_runs(t, src);
        if (t->n + n + HK_MOVE_SLACK > t->cap) {
            t->cap = t->n + n + HK_MOVE_SLACK;
            t->id_lo = hk_xrealloc(t->id_lo, t->cap * sizeof *t->id_lo);
            t->off_lo = hk_xrealloc(t->off_lo, t->cap * sizeof *t->off_lo);
            t->off_hi = hk_xrealloc(t->off_hi, t->cap);
        }
        move_job j = {t, src};
        hk_parallel(3, move_array, &j);
        t->n += n;
    }
    hk_objtab_free(src);
}

/* The sorted output of a merge, segments recorded as the high word changes. */
typedef struct merged {
    hk_dump *d;
    size_t *capsegs;
    uint32_t *id_lo, *off_lo;
    uint8_t *off_hi;
    size_t n;
} merged;

static inline void emit(merged *o, uint64_t id, uint32_t lo, uint8_t hi)
{
    uint32_t h = (uint32_t)(id >> 32);
    if (!o->d->view.nsegs || o->d->view.segs[o->d->view.nsegs - 1].hi != h)
        add_seg(o->d, o->capsegs, (uint32_t)o->n, h);
    o->id_lo[o->n] = (uint32_t)id;
    o->off_lo[o->n] = lo;
    o->off_hi[o->n] = hi;
    o->n++;
}

typedef struct run {
    uint64_t first, last;
    size_t start, len;
} run;

static int run_cmp(const void *a, const void *b)
{
    const run *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Real dumps write objects in a few hundred ascending runs (heap regions) whose id ranges do
 * not overlap, plus small runs (class objects, roots' neighbours) that fall anywhere.  Then
 * sorting is: order the long runs, radix-sort the short ones, merge the two (sort_by_runs). */
enum { LONG_RUN = 256, RELEASE_EVERY = 1 << 16 };

/* The runs, long ones (in id order) first and short ones after; 0 when there are too many runs
 * for this to pay or the long runs overlap. */
typedef struct runs {
    run *r;
    size_t n, nlong, short_total;
} runs;

static size_t count_runs(const hk_objtab *t)
{
    size_t n = t->n, nruns = 1, k = 0;
    uint64_t prev = full_id(t, &k, 0);
    for (size_t i = 1; i < n; i++) {
        uint64_t id = full_id(t, &k, i);
        if (id < prev && ++nruns > n / 64 + 1) return 0;
        prev = id;
    }
    return nruns;
}

static int find_runs(const hk_objtab *t, runs *rs)
{
    size_t n = t->n, seen = 0, start = 0, k = 0;
    rs->n = count_runs(t);
    if (!rs->n) return 0;
    rs->r = hk_xmalloc(rs->n * sizeof *rs->r);
    uint64_t first = full_id(t, &k, 0), last = first;
    for (size_t i = 1; i <= n; i++) {
        uint64_t id = i < n ? full_id(t, &k, i) : 0;
        if (i == n || id < last) {
            run r = {first, last, start, i - start};
            if (r.len >= LONG_RUN) rs->r[rs->nlong++] = r;
            else {
                rs->r[rs->n - 1 - (seen - rs->nlong)] = r;
                rs->short_total += r.len;
            }
            seen++;
            start = i;
            first = id;
        }
        last = id;
    }
    qsort(rs->r, rs->nlong, sizeof *rs->r, run_cmp);
    for (size_t r = 1; r < rs->nlong; r++)
        if (rs->r[r].first <= rs->r[r - 1].last) return 0;
    return 1;
}

/* The short runs' elements, copied out (their source pages given back) and sorted on their own. */
static int sort_short_runs(const hk_objtab *t, const runs *rs, releaser *rel, wide *sh, uint64_t file_size)
{
    sh->n = rs->short_total;
    sh->ids = hk_xmalloc(sh->n * sizeof *sh->ids);
    sh->off_lo = hk_xmalloc(sh->n * sizeof *sh->off_lo);
    sh->off_hi = hk_xmalloc(sh->n);
    size_t m = 0;
    for (size_t r = rs->nlong; r < rs->n; r++) {
        size_t a = rs->r[r].start, b = a + rs->r[r].len, kk = hi_index(t, a);
        for (size_t j = a; j < b; j++, m++) {
            sh->ids[m] = full_id(t, &kk, j);
            sh->off_lo[m] = t->off_lo[j];
            sh->off_hi[m] = t->off_hi[j];
        }
        for (int x = 0; x < 3; x++) releaser_done(&rel[x], a, b);
    }
    return radix_table(sh, file_size);
}

/* Merges the long runs, in order, with the sorted short elements into o. */
static void merge_runs(const hk_objtab *t, const runs *rs, const wide *sh, releaser *rel, merged *o)
{
    size_t si = 0;
    for (size_t r = 0; r <= rs->nlong; r++) {
        /* short elements that come before this long run (or all the rest after the last) */
        uint64_t bound = r < rs->nlong ? rs->r[r].first : UINT64_MAX;
        while (si < sh->n && sh->ids[si] < bound) {
            emit(o, sh->ids[si], sh->off_lo[si], sh->off_hi[si]);
            si++;
        }
        if (r == rs->nlong) break;
        /* the long run, interleaved with any short elements inside its range */
        size_t a = rs->r[r].start, b = a + rs->r[r].len, kk = hi_index(t, a);
        for (size_t j = a; j < b; j++) {
            uint64_t id = full_id(t, &kk, j);
            while (si < sh->n && sh->ids[si] < id) {
                emit(o, sh->ids[si], sh->off_lo[si], sh->off_hi[si]);
                si++;
            }
            emit(o, id, t->off_lo[j], t->off_hi[j]);
            /* a run may be most of the dump: give its pages back as it goes */
            if ((j + 1 - a) % RELEASE_EVERY == 0 || j + 1 == b)
                for (int x = 0; x < 3; x++) releaser_done(&rel[x], j + 1 - ((j - a) % RELEASE_EVERY + 1), j + 1);
        }
    }
}

/* Returns 1 done, 0 not applicable, -1 when the short runs cannot be sorted. */
static int sort_by_runs(hk_objtab *t, hk_dump *d, size_t *capsegs, uint64_t file_size)
{
    runs rs = {0};
    if (!find_runs(t, &rs)) {
        free(rs.r);
        return 0;
    }
    size_t n = t->n;
    wide sh = {0};
    merged o = {d, capsegs, hk_xmalloc(n * sizeof *o.id_lo), hk_xmalloc(n * sizeof *o.off_lo), hk_xmalloc(n), 0};
    releaser rel[3];
    releaser_init(&rel[0], t->id_lo, n, 4);
    releaser_init(&rel[1], t->off_lo, n, 4);
    releaser_init(&rel[2], t->off_hi, n, 1);
    int rc = rs.short_total ? sort_short_runs(t, &rs, rel, &sh, file_size) : 0;
    if (rc == 0) {
        merge_runs(t, &rs, &sh, rel, &o);
        free(t->id_lo);
        free(t->off_lo);
        free(t->off_hi);
        t->id_lo = o.id_lo;
        t->off_lo = o.off_lo;
        t->off_hi = o.off_hi;
    } else {
        free(o.id_lo);
        free(o.off_lo);
        free(o.off_hi);
    }
    for (int x = 0; x < 3; x++) free(rel[x].left);
    wide_free(&sh);
    free(rs.r);
    return rc < 0 ? -1 : 1;
}

/* ---- a table that is sorted but for a few elements: fixed where it lies ---- */

static size_t run_start(const hk_objtab *t, size_t r)
{
    return r ? t->runs[r - 1] : 0;
}

static size_t run_end(const hk_objtab *t, size_t r)
{
    return r < t->nruns ? t->runs[r] : t->n;
}

static uint64_t id_at(const hk_objtab *t, size_t i)
{
    return (uint64_t)t->his[hi_index(t, i)].hi << 32 | t->id_lo[i];
}

/* Whether the long runs follow each other in id order (so that without the short runs the table
 * is sorted), and how many elements the short runs hold. */
static int long_runs_ascend(const hk_objtab *t, size_t *short_total)
{
    uint64_t prev_last = 0;
    int any = 0;
    *short_total = 0;
    for (size_t r = 0; r <= t->nruns; r++) {
        size_t a = run_start(t, r), b = run_end(t, r);
        if (b - a < LONG_RUN) {
            *short_total += b - a;
            continue;
        }
        if (any && id_at(t, a) <= prev_last) return 0;
        prev_last = id_at(t, b - 1);
        any = 1;
    }
    return any;
}

/* The short runs' elements, copied out and sorted on their own.  Copied from the last run to the
 * first: equal ids then end in the order the general merge gives them (its error names them). */
static int copy_short_runs(const hk_objtab *t, size_t short_total, wide *sh, uint64_t file_size)
{
    sh->n = short_total;
    sh->ids = hk_xmalloc(short_total * sizeof *sh->ids);
    sh->off_lo = hk_xmalloc(short_total * sizeof *sh->off_lo);
    sh->off_hi = hk_xmalloc(short_total);
    size_t m = 0;
    for (size_t r = t->nruns + 1; r-- > 0;) {
        size_t a = run_start(t, r), b = run_end(t, r), kk = hi_index(t, a);
        if (b - a >= LONG_RUN) continue;
        for (size_t j = a; j < b; j++, m++) {
            sh->ids[m] = full_id(t, &kk, j);
            sh->off_lo[m] = t->off_lo[j];
            sh->off_hi[m] = t->off_hi[j];
        }
    }
    return radix_table(sh, file_size);
}

static void move_elems(hk_objtab *t, size_t to, size_t from, size_t n)
{
    memmove(t->id_lo + to, t->id_lo + from, n * sizeof *t->id_lo);
    memmove(t->off_lo + to, t->off_lo + from, n * sizeof *t->off_lo);
    memmove(t->off_hi + to, t->off_hi + from, n);
}

/* The high words of long run [a, b) as runs in lh, at its position c among the long runs. */
static void note_his(const hk_objtab *t, size_t a, size_t b, size_t c, hk_hirun **lh, size_t *nlh, size_t *cap)
{
    for (size_t h = hi_index(t, a); h < t->nhis && t->his[h].start < b; h++) {
        size_t s = t->his[h].start > a ? t->his[h].start : a;
        if (*nlh && (*lh)[*nlh - 1].hi == t->his[h].hi) continue;
        *lh = hk_grow(*lh, cap, *nlh + 1, sizeof **lh);
        (*lh)[*nlh].start = c + s - a;
        (*lh)[*nlh].hi = t->his[h].hi;
        (*nlh)++;
    }
}

/* A block of a long run and where it goes: every element of a long run moves by the short
 * elements that leave before it and the ones that come in before it, so a run moves as a few
 * blocks, most of them not at all in a dump whose short elements are few. */
typedef struct block {
    size_t src, dst, len;
} block;

typedef struct plan {
    block *b;
    size_t n, cap;
    size_t *spos; /* final position of each sorted short element */
    hk_hirun *lh; /* high words of the long runs closed up */
    size_t nlh, caplh, nl;
} plan;

static void add_block(plan *pl, size_t src, size_t dst, size_t len)
{
    if (!len || src == dst) return;
    pl->b = hk_grow(pl->b, &pl->cap, pl->n + 1, sizeof *pl->b);
    pl->b[pl->n++] = (block){src, dst, len};
}

/* The first position in [x, b) of the ascending long run whose id is above id. */
static size_t upper_in_run(const hk_objtab *t, size_t x, size_t b, uint64_t id)
{
    while (x < b) {
        size_t m = x + (b - x) / 2;
        if (id_at(t, m) <= id) x = m + 1;
        else b = m;
    }
    return x;
}

/* Where every long run block and every short element goes: an element equal to a long run's
 * comes after it (the order the general merge gives). */
static void plan_moves(const hk_objtab *t, const wide *sh, plan *pl)
{
    size_t j = 0, c = 0;
    pl->spos = hk_xmalloc((sh->n ? sh->n : 1) * sizeof *pl->spos);
    for (size_t r = 0; r <= t->nruns; r++) {
        size_t a = run_start(t, r), b = run_end(t, r), x = a;
        if (b - a < LONG_RUN) continue;
        note_his(t, a, b, c, &pl->lh, &pl->nlh, &pl->caplh);
        uint64_t first = id_at(t, a), last = id_at(t, b - 1);
        for (; j < sh->n && sh->ids[j] < first; j++) pl->spos[j] = j + c;
        for (; j < sh->n && sh->ids[j] <= last; j++) {
            size_t u = upper_in_run(t, x, b, sh->ids[j]);
            add_block(pl, x, c + (x - a) + j, u - x);
            pl->spos[j] = j + c + (u - a);
            x = u;
        }
        add_block(pl, x, c + (x - a) + j, b - x);
        c += b - a;
    }
    for (; j < sh->n; j++) pl->spos[j] = j + c;
    pl->nl = c;
}

/* Blocks moving down go first, lowest first, then blocks moving up, highest first: as the order
 * is kept, a block only lands on short elements' old places or on blocks already moved. */
static void run_moves(hk_objtab *t, const wide *sh, const plan *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->b[i].dst < pl->b[i].src) move_elems(t, pl->b[i].dst, pl->b[i].src, pl->b[i].len);
    for (size_t i = pl->n; i-- > 0;)
        if (pl->b[i].dst > pl->b[i].src) move_elems(t, pl->b[i].dst, pl->b[i].src, pl->b[i].len);
    for (size_t j = 0; j < sh->n; j++) {
        t->id_lo[pl->spos[j]] = (uint32_t)sh->ids[j];
        t->off_lo[pl->spos[j]] = sh->off_lo[j];
        t->off_hi[pl->spos[j]] = sh->off_hi[j];
    }
}

/* Segments of the merged table: each high word starts after every element with a lower one. */
static void merged_segs(hk_dump *d, size_t *capsegs, const hk_hirun *lh, size_t nlh, size_t nl, const wide *sh)
{
    size_t a = 0, b = 0;
    while (a < nlh || b < sh->n) {
        uint32_t h;
        if (a < nlh && (b == sh->n || lh[a].hi <= (uint32_t)(sh->ids[b] >> 32))) h = lh[a].hi;
        else h = (uint32_t)(sh->ids[b] >> 32);
        add_seg(d, capsegs, (uint32_t)((a < nlh ? lh[a].start : nl) + b), h);
        while (a < nlh && lh[a].hi == h) a++;
        while (b < sh->n && (uint32_t)(sh->ids[b] >> 32) == h) b++;
    }
}

/* Real dumps in heap order: one or a few long runs in id order, and a few short ones (class
 * objects, ...).  The short elements are taken out and sorted, the long runs closed up, and the
 * short ones put back from the end: no second table.  Returns 1 done, 0 not applicable, -1
 * when the short elements cannot be sorted. */
static int sort_in_place(hk_objtab *t, hk_dump *d, size_t *capsegs, uint64_t file_size)
{
    size_t n = t->n, short_total;
    /* the limits of the general merge, so that both give equal ids in the same order */
    if (t->unordered || t->nruns + 1 > n / 64 + 1 || !long_runs_ascend(t, &short_total) || short_total > n / 16)
        return 0;
    wide sh = {0};
    if (short_total && copy_short_runs(t, short_total, &sh, file_size) < 0) {
        wide_free(&sh);
        return -1;
    }
    plan pl = {0};
    plan_moves(t, &sh, &pl);
    run_moves(t, &sh, &pl);
    merged_segs(d, capsegs, pl.lh, pl.nlh, pl.nl, &sh);
    free(pl.b);
    free(pl.spos);
    free(pl.lh);
    wide_free(&sh);
    return 1;
}

/* A dump in no order at all: radix sort of 64-bit ids (21 bytes per object at the peak). */
static int sort_wide(hk_objtab *t, hk_dump *d, size_t *capsegs, uint64_t file_size)
{
    size_t n = t->n, k = 0;
    wide w = {hk_xmalloc(n * sizeof *w.ids), t->off_lo, t->off_hi, n};
    for (size_t i = 0; i < n; i++) w.ids[i] = full_id(t, &k, i);
    free(t->id_lo);
    t->id_lo = NULL;
    t->off_lo = NULL;
    t->off_hi = NULL;
    if (radix_table(&w, file_size) < 0) {
        wide_free(&w);
        return -1;
    }
    /* the low words go into the allocation the ids used, each written after its id is read */
    uint32_t *lo = (uint32_t *)w.ids;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = w.ids[i];
        uint32_t h = (uint32_t)(id >> 32);
        if (!d->view.nsegs || d->view.segs[d->view.nsegs - 1].hi != h) add_seg(d, capsegs, (uint32_t)i, h);
        lo[i] = (uint32_t)id;
    }
    t->id_lo = hk_xrealloc(lo, n * sizeof *lo);
    t->off_lo = w.off_lo;
    t->off_hi = w.off_hi;
    return 1;
}

typedef struct dir_job {
    hk_iddir *t;
    const hk_dump *d;
    uint32_t s, a, b;
    int parts;
    uint32_t dup[64]; /* per part: its first object with the id of the one before, or UINT32_MAX */
} dir_job;

/* Bucket k of segment s holds the first object whose bucket is k or more (the segment's end
 * when none is); part k of the segment's objects sets the buckets from the one after its
 * first object's predecessor's: every bucket is set once, as one loop would set it.  The same
 * pass finds a duplicate id (the buckets are then of no use). */
static void fill_buckets(void *ctx, int part)
{
    dir_job *j = ctx;
    hk_iddir *t = j->t;
    const uint32_t *id = j->d->view.id_lo, min = t->min[j->s], sh = t->shift[j->s];
    uint32_t lo, hi, *bk = t->bucket + t->base[j->s], nb = t->base[j->s + 1] - t->base[j->s] - 1;
    hk_part_range(j->b - j->a, part, j->parts, &lo, &hi);
    lo += j->a;
    hi += j->a;
    uint32_t k = lo == j->a ? 0 : ((id[lo - 1] - min) >> sh) + 1;
    j->dup[part] = UINT32_MAX;
    for (uint32_t i = lo; i < hi; i++) {
        if (i > j->a && id[i] == id[i - 1]) {
            j->dup[part] = i;
            return;
        }
        uint32_t want = (id[i] - min) >> sh;
        while (k <= want) bk[k++] = i;
    }
    if (hi == j->b)
        while (k <= nb) bk[k++] = j->b;
}

/* One allocation: base, min and shift, then the buckets (whose count the first three give).
 * Returns the first object whose id is the one before's, or d->view.nobjects. */
static uint32_t build_dir(hk_iddir *t, const hk_dump *d, uint32_t per_bucket)
{
    uint32_t ns = d->view.nsegs;
    uint32_t *head = hk_xmalloc(((size_t)3 * ns + 1) * sizeof *head), *base = head, *min = head + ns + 1,
             *shift = min + ns;
    uint64_t total = 0;
    for (uint32_t s = 0; s < ns; s++) {
        uint32_t a = d->view.segs[s].start, b = s + 1 < ns ? d->view.segs[s + 1].start : d->view.nobjects;
        uint32_t cnt = b - a, want = cnt / per_bucket + 1;
        uint32_t lo = cnt ? d->view.id_lo[a] : 0, span = cnt ? d->view.id_lo[b - 1] - lo : 0, sh = 0;
        /* at most 31: a uint32_t shifted by 32 is undefined (a few ids spread over 2^31 and more) */
        while (sh < 31 && ((uint64_t)span >> sh) >= want) sh++;
        shift[s] = sh;
        min[s] = lo;
        /* base[s + 1] ends segment s: the last segment's end bounds its lookups too */
        base[s] = (uint32_t)total;
        total += ((uint64_t)span >> sh) + 2;
        base[s + 1] = (uint32_t)total;
    }
    t->base = hk_xrealloc(head, ((size_t)3 * ns + 1 + total) * sizeof *head);
    t->min = t->base + ns + 1;
    t->shift = t->min + ns;
    t->bucket = t->shift + ns;
    for (uint32_t s = 0; s < ns; s++) {
        dir_job j = {t, d, s, d->view.segs[s].start, s + 1 < ns ? d->view.segs[s + 1].start : d->view.nobjects, 1, {0}};
        /* a large segment on the threads: each part fills the buckets its objects begin */
        if (j.b - j.a >= (1u << 16)) j.parts = hk_jobs();
        hk_parallel(j.parts, fill_buckets, &j);
        for (int k = 0; k < j.parts; k++)
            if (j.dup[k] != UINT32_MAX) return j.dup[k];
    }
    return d->view.nobjects;
}

void hk_iddir_build(hk_iddir *t, const hk_dump *d, uint32_t per_bucket)
{
    build_dir(t, d, per_bucket);
}

void hk_iddir_free(hk_iddir *t)
{
    free(t->base);
    memset(t, 0, sizeof *t);
}

uint64_t hk_iddir_bytes(const hk_iddir *t, const hk_dump *d)
{
    return t->base ? ((uint64_t)3 * d->view.nsegs + 1 + t->base[d->view.nsegs]) * sizeof *t->base : 0;
}

/* The first sorted position whose id equals the one before (n when none does): for tables too
 * small for a directory, which finds them as it is built. */
static size_t first_duplicate(const hk_objtab *t, const hk_dump *d)
{
    uint32_t s = 0;
    for (size_t i = 1; i < t->n; i++) {
        while (s + 1 < d->view.nsegs && d->view.segs[s + 1].start <= i) s++;
        if (d->view.segs[s].start != i && t->id_lo[i] == t->id_lo[i - 1]) return i;
    }
    return t->n;
}

static int duplicate_error(const hk_dump *d, const uint32_t *id_lo, const uint32_t *off_lo, const uint8_t *off_hi,
                           size_t i, char *err, size_t errlen)
{
    uint32_t s = hk_seg_of(d, (uint32_t)i);
    snprintf(err, errlen, "%s: at offset %llu: object id 0x%llx appears twice (also at offset %llu)", d->path,
             (unsigned long long)offset_at(off_lo, off_hi, i),
             (unsigned long long)((uint64_t)d->view.segs[s].hi << 32 | id_lo[i]),
             (unsigned long long)offset_at(off_lo, off_hi, i - 1));
    return -1;
}

int hk_objtab_finish(hk_objtab *t, hk_dump *d, char *err, size_t errlen)
{
    size_t n = t->n, capsegs = 0;
    if (n >= UINT32_MAX) {
        snprintf(err, errlen, "%s: more than 4 billion objects", d->path);
        return -1;
    }
    /* no run and no drop noted while it was filled (unordered: too many drops to note) */
    int sorted = !t->unordered && !t->nruns;
    int rc = 0;
    if (sorted) {
        for (size_t h = 0; h < t->nhis; h++) add_seg(d, &capsegs, (uint32_t)t->his[h].start, t->his[h].hi);
    } else {
        rc = sort_in_place(t, d, &capsegs, d->view.size);
        if (rc == 0) rc = sort_by_runs(t, d, &capsegs, d->view.size);
        if (rc == 0) rc = sort_wide(t, d, &capsegs, d->view.size);
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s: cannot sort %zu objects: their ids are spread too far apart", d->path, n);
        return -1;
    }
    if (n && d->view.segs[0].hi == 0 && t->id_lo[0] == 0) {
        snprintf(err, errlen,
                 "%s: at offset %llu: an object with id 0, which is the null reference: the dump is corrupt", d->path,
                 (unsigned long long)offset_at(t->off_lo, t->off_hi, 0));
        return -1;
    }
    size_t i = n < 1024 ? first_duplicate(t, d) : n;
    if (i < n) return duplicate_error(d, t->id_lo, t->off_lo, t->off_hi, i, err, errlen);
    d->view.id_lo = hk_xrealloc(t->id_lo, (n ? n : 1) * sizeof *d->view.id_lo);
    d->view.off_lo = hk_xrealloc(t->off_lo, (n ? n : 1) * sizeof *d->view.off_lo);
    d->view.off_hi = hk_xrealloc(t->off_hi, n ? n : 1);
    d->view.nobjects = (uint32_t)n;
    t->id_lo = NULL;
    t->off_lo = NULL;
    t->off_hi = NULL;
    hk_objtab_free(t);
    /* about 8 objects a bucket: half a byte per object buys lookups of ~3 probes, not ~22 */
    i = n >= 1024 ? build_dir(&d->dir, d, 8) : n;
    if (i < n) {
        hk_iddir_free(&d->dir);
        return duplicate_error(d, d->view.id_lo, d->view.off_lo, d->view.off_hi, i, err, errlen);
    }
    return 0;
}
