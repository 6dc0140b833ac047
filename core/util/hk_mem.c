#include "util/hk_mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static void (*g_oom_hook)(void);

void hk_mem_on_oom(void (*hook)(void))
{
    g_oom_hook = hook;
}

/* One line and exit status 1, as for any dump the machine cannot hold: not abort(), whose
 * status 134 and core file say the program is broken. */
void hk_oom(void)
{
    static const char msg[] = "hprofkit: out of memory (the input needs more memory than the system or "
                              "ulimit -v allows)\n";
    ssize_t said = write(2, msg, sizeof msg - 1); /* write(): no allocation, safe from any thread */
    (void)said;
    if (g_oom_hook) g_oom_hook();
    _exit(1);
}

size_t hk_expand_cap(uint64_t compressed)
{
    const char *e = getenv("HPROFKIT_GZIP_RATIO");
    unsigned long ratio = e && *e ? strtoul(e, NULL, 10) : 100;
    if (!ratio || compressed > SIZE_MAX / ratio) return SIZE_MAX;
    size_t cap = (size_t)compressed * ratio;
    return cap < ((size_t)64 << 20) ? ((size_t)64 << 20) : cap;
}

void hk_expand_refused(char *err, size_t errlen, const char *path, size_t expanded, uint64_t compressed)
{
    snprintf(err, errlen,
             "%s: the gzip stream expands past %zu MiB, over %lu times its %llu KiB: refused as a "
             "decompression bomb (HPROFKIT_GZIP_RATIO=0 opens it anyway)",
             path, expanded >> 20, (unsigned long)(expanded / (compressed ? compressed : 1)),
             (unsigned long long)(compressed >> 10));
}

void *hk_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) hk_oom();
    return p;
}

void *hk_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) hk_oom();
    return p;
}

void *hk_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) hk_oom();
    return p;
}

char *hk_xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p) hk_oom();
    return p;
}

char *hk_xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (!p) hk_oom();
    return p;
}

void *hk_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    p = hk_xrealloc(p, c * elem);
    *cap = c;
    return p;
}

void hk_release(const void *p, size_t from, size_t to)
{
#ifdef MADV_DONTNEED
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)p + from + page - 1) & ~(page - 1), b = ((uintptr_t)p + to) & ~(page - 1);
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
#else
    (void)p;
    (void)from;
    (void)to;
#endif
}

void hk_prefault(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), b = ((uintptr_t)p + len) & ~(page - 1);
    if (b > a) madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)len;
#endif
}

void hk_move_append(void *dst, size_t at, void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst + at, *s = src;
#ifdef MREMAP_FIXED
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t s0 = ((uintptr_t)s + pg - 1) & ~(pg - 1), s1 = ((uintptr_t)s + n) & ~(pg - 1);
    if (s1 > s0 && s1 - s0 >= 4 * pg && pg <= HK_MOVE_SLACK) {
        /* src's whole pages [s0, s1) go to the first page boundary at or after where their
         * bytes belong (t), then slide down the less than a page between */
        uint8_t *t = d + (s0 - (uintptr_t)s);
        uintptr_t d0 = ((uintptr_t)t + pg - 1) & ~(pg - 1);
        size_t len = s1 - s0;
        if (mremap((void *)s0, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)d0) != MAP_FAILED) {
            /* src's block stays whole memory: fresh zero pages where the moved ones were */
            if (mmap((void *)s0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
                MAP_FAILED)
                hk_oom();
            memmove(t, (void *)d0, len);
            memcpy(d, s, s0 - (uintptr_t)s);
            memcpy(t + len, (uint8_t *)s1, (uintptr_t)s + n - s1);
            return;
        }
    }
#endif
    memcpy(d, s, n);
}

void hk_mem_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

void hk_mem_lean(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}
