/* The object table's sort, checked on every order it handles: ids already in order, a few long
 * ascending runs with short runs between them (real dumps; the long runs out of order or in
 * order), and no order at all (the radix
 * sort); 4-byte ids and 8-byte ids spread over several 4 GB segments; filled in one table, or in
 * three joined as the threaded walk joins its parts (hk_objtab_append, which moves pages).
 * Every id must come out in order with its own offset, be found by id through the index's
 * directory (one id segment or several), and duplicates must be refused.  hk_move_append
 * itself is held to memcpy at every alignment of both ends.  Prints one line per case. */
#include "hprof/hprof_objtab.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <string.h>

enum { N = 300000 };
static uint64_t ids[N];

/* splitmix64: a fixed, portable shuffle */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Fills ids in pass order; the offset of pass position i is 1000 + 40 * i. */
static void make(const char *order, int wide)
{
    uint64_t base = wide ? 0x7ffff000ULL : 0x12c00000ULL, step = wide ? 0x18 : 0x10;
    for (size_t i = 0; i < N; i++) ids[i] = base + (uint64_t)i * step * (wide ? 4096 : 1);
    uint64_t s = 42;
    if (!strcmp(order, "runs") || !strcmp(order, "heap")) {
        /* the way real dumps look: long ascending runs (heap regions, in descending order, or
         * in ascending order as a HotSpot dump writes them: sorted in place) with short runs
         * among them: every 97th object of a region is written just before it, in descending
         * order, so each is a run of its own inside a long run's range */
        static uint64_t tmp[N];
        size_t k = 0, nruns = 8, len = N / nruns;
        int up = !strcmp(order, "heap");
        for (size_t q = nruns; q-- > 0;) {
            size_t r = up ? nruns - 1 - q : q;
            for (size_t i = (r + 1) * len; i-- > r * len;)
                if (i % 97 == 0) tmp[k++] = ids[i];
            for (size_t i = r * len; i < (r + 1) * len; i++)
                if (i % 97) tmp[k++] = ids[i];
        }
        memcpy(ids, tmp, sizeof ids);
    } else if (!strcmp(order, "random")) {
        for (size_t i = N - 1; i > 0; i--) {
            size_t j = mix(&s) % (i + 1);
            uint64_t t = ids[i];
            ids[i] = ids[j];
            ids[j] = t;
        }
    }
}

/* The table of ids[a, b) in pass order, its offsets 1000 + 40 * position. */
static void fill(hk_objtab *t, size_t a, size_t b, int dup)
{
    hk_objtab_init(t, 16);
    for (size_t i = a; i < b; i++) hk_objtab_add(t, dup && i == N / 2 ? ids[N / 3] : ids[i], 1000 + 40ULL * i);
}

static int check(const char *name, int dup, int parts)
{
    hk_dump d;
    memset(&d, 0, sizeof d);
    d.path = "test";
    d.view.size = 1000 + 40ULL * N;
    hk_objtab t;
    /* parts cut at uneven places, so that each join meets the pages at another alignment */
    fill(&t, 0, parts > 1 ? N / 3 + 777 : N, dup);
    for (int p = 1; p < parts; p++) {
        hk_objtab part;
        fill(&part, p == 1 ? N / 3 + 777 : 2 * N / 3 + 4095, p == 1 ? 2 * N / 3 + 4095 : N, dup);
        hk_objtab_append(&t, &part);
    }
    char err[256] = "";
    int rc = hk_objtab_finish(&t, &d, err, sizeof err);
    int ok = 1;
    if (dup) {
        ok = rc < 0 && strstr(err, "appears twice");
    } else if (rc < 0 || d.view.nobjects != N) {
        ok = 0;
    } else {
        uint32_t s = 0;
        uint64_t prev = 0;
        for (uint32_t i = 0; i < d.view.nobjects && ok; i++) {
            while (s + 1 < d.view.nsegs && d.view.segs[s + 1].start <= i) s++;
            uint64_t id = (uint64_t)d.view.segs[s].hi << 32 | d.view.id_lo[i];
            uint64_t off = (uint64_t)d.view.off_hi[i] << 32 | d.view.off_lo[i];
            size_t pos = (off - 1000) / 40;
            if ((i && id <= prev) || pos >= N || ids[pos] != id) ok = 0;
            prev = id;
        }
    }
    /* every id found at its own record, an id between two objects not at all */
    for (size_t i = 0; i < N && ok && !dup; i++) {
        uint32_t j = hk_obj_find(&d, ids[i]);
        ok = j != HK_NONE && ((uint64_t)d.view.off_hi[j] << 32 | d.view.off_lo[j]) == 1000 + 40ULL * i &&
             hk_obj_find(&d, ids[i] + 1) == HK_NONE;
    }
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : ": ",
           ok ? "" : (rc < 0 ? err : "wrong order, offsets or lookups"));
    hk_objtab_free(&t);
    free((void *)d.view.id_lo);
    free((void *)d.view.off_lo);
    free((void *)d.view.off_hi);
    free((void *)d.view.segs);
    hk_iddir_free(&d.dir);
    return ok;
}

/* A segment of a few ids spread over more than 2^31, after one of many (the directory is built
 * from 1024 objects on): its shift must stay below 32 (a shift by 32 is undefined and once
 * wrote past the buckets). */
static int check_sparse(void)
{
    enum { DENSE = 2000, FEW = 4 };
    static const uint64_t few[FEW] = {0x100000010ULL, 0x100000020ULL, 0x100000030ULL, 0x190000000ULL};
    const size_t n = DENSE + FEW;
    hk_dump d;
    memset(&d, 0, sizeof d);
    d.path = "test";
    d.view.size = 1000 + 40ULL * n;
    hk_objtab t;
    hk_objtab_init(&t, 16);
    for (size_t i = 0; i < n; i++) hk_objtab_add(&t, i < DENSE ? 0x1000 + 16 * i : few[i - DENSE], 1000 + 40ULL * i);
    char err[256] = "";
    int ok = hk_objtab_finish(&t, &d, err, sizeof err) == 0;
    for (size_t i = 0; i < n && ok; i++) {
        uint64_t id = i < DENSE ? 0x1000 + 16 * i : few[i - DENSE];
        ok = hk_obj_find(&d, id) == i && hk_obj_find(&d, id + 1) == HK_NONE;
    }
    printf("%s objtab-sparse-segment%s%s\n", ok ? "PASS" : "FAIL", ok ? "" : ": ",
           ok ? "" : (err[0] ? err : "lookups"));
    hk_objtab_free(&t);
    free((void *)d.view.id_lo);
    free((void *)d.view.off_lo);
    free((void *)d.view.off_hi);
    free((void *)d.view.segs);
    hk_iddir_free(&d.dir);
    return ok;
}

/* hk_move_append against memcpy: destinations and sources at every offset within a page that
 * matters (0, 1, 4 bytes short of and past a page boundary) and lengths below and above the
 * pages it moves. */
static int check_move(void)
{
    static const size_t offs[] = {0, 1, 3, 4, 100, 4092, 4095, 4096, 4100};
    static const size_t lens[] = {0, 1, 4096, 5 * 4096 + 7, 300000, 1 << 20};
    int ok = 1;
    for (size_t a = 0; a < sizeof offs / sizeof *offs && ok; a++)
        for (size_t b = 0; b < sizeof offs / sizeof *offs && ok; b++)
            for (size_t l = 0; l < sizeof lens / sizeof *lens && ok; l++) {
                size_t at = 12345 + offs[a], n = lens[l];
                uint8_t *dst = malloc(at + n + HK_MOVE_SLACK), *raw = malloc(n + offs[b] + 1);
                uint8_t *src = raw + offs[b], *want = malloc(n + 1);
                uint64_t seed = a * 131 + b * 17 + l;
                for (size_t i = 0; i < at; i++) dst[i] = (uint8_t)(i * 7);
                for (size_t i = 0; i < n; i++) src[i] = want[i] = (uint8_t)mix(&seed);
                hk_move_append(dst, at, src, n);
                for (size_t i = 0; i < at && ok; i++) ok = dst[i] == (uint8_t)(i * 7);
                ok = ok && memcmp(dst + at, want, n) == 0;
                if (!ok) printf("FAIL objtab-move-append: at %zu, source offset %zu, %zu bytes\n", at, offs[b], n);
                free(dst);
                free(raw);
                free(want);
            }
    if (ok) printf("PASS objtab-move-append\n");
    return ok;
}

int main(void)
{
    static const char *orders[] = {"sorted", "runs", "heap", "random"};
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line out before any crash */
    int all = check_move();           /* first: the joined tables below rely on it */
    char name[64];
    for (int wide = 0; wide < 2; wide++)
        for (int o = 0; o < 4; o++) {
            make(orders[o], wide);
            snprintf(name, sizeof name, "objtab-%s-%s", orders[o], wide ? "ids8" : "ids4");
            all &= check(name, 0, 1);
            snprintf(name, sizeof name, "objtab-%s-%s-duplicate", orders[o], wide ? "ids8" : "ids4");
            all &= check(name, 1, 1);
            snprintf(name, sizeof name, "objtab-%s-%s-joined", orders[o], wide ? "ids8" : "ids4");
            all &= check(name, 0, 3);
            snprintf(name, sizeof name, "objtab-%s-%s-joined-duplicate", orders[o], wide ? "ids8" : "ids4");
            all &= check(name, 1, 3);
        }
    all &= check_sparse();
    return all ? 0 : 1;
}
