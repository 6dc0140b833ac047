/* Allocation that does not fail quietly.  Running out of memory half way through an index or a
 * registry leaves nothing sensible to return, so it ends the program with a message. */
#ifndef HK_MEM_H
#define HK_MEM_H
#include <stddef.h>
#include <stdint.h>

/* Says "out of memory" in one line, runs the hook (hk_mem_on_oom) and ends with status 1. */
void hk_oom(void) __attribute__((noreturn));
/* What to do before an out-of-memory end (remove temporary files, say); async-signal-safe. */
void hk_mem_on_oom(void (*hook)(void));
/* The policy for compressed inputs (a .gz dump, a trace's zlib and zstd blocks): how many bytes
 * `compressed` bytes may expand to before they are refused as a decompression bomb.  Real dumps
 * expand 3 to 10 times, so: 100 times, and never less than 64 MiB; HPROFKIT_GZIP_RATIO=N sets
 * the ratio, 0 lifts the cap (SIZE_MAX). */
size_t hk_expand_cap(uint64_t compressed);
/* The one line for a gzip file refused by that cap: PATH, the bytes it reached, its size. */
void hk_expand_refused(char *err, size_t errlen, const char *path, size_t expanded, uint64_t compressed);
void *hk_xmalloc(size_t n);
void *hk_xrealloc(void *p, size_t n);
void *hk_xcalloc(size_t n, size_t size);
char *hk_xstrdup(const char *s);
char *hk_xstrndup(const char *s, size_t n);
/* Grows an array to hold need elements (doubling, from at least 1024): returns it, sets *cap. */
void *hk_grow(void *p, size_t *cap, size_t need, size_t elem);
/* Gives back to the system the pages wholly inside bytes [from, to) of the block p, which the
 * caller will not read again (anonymous memory reads as zero if it does, a file mapping reads
 * the file again): for an array consumed in order, whose memory would otherwise stay until it is
 * freed as a whole, or a mapped region read once.  A hint: failure only costs memory. */
void hk_release(const void *p, size_t from, size_t to);
/* Faults in at once the pages wholly inside a block the caller is about to write in full (an
 * array filled in one pass), rather than one page at a time as it is written: taking a page
 * fault costs several times clearing the page, most of all under a hypervisor.  A hint: where
 * the system cannot (MADV_POPULATE_WRITE is Linux 5.14), the pages fault in as written. */
void hk_prefault(void *p, size_t len);
/* Puts src's n bytes at dst + at, where dst's block holds at least at + n + HK_MOVE_SLACK
 * bytes, moving src's whole pages there (mremap) rather than copying them: the destination
 * needs no first touch, which costs a page fault a page (bench/RESULTS.md measures it on a
 * guest where a fault can cost ten times a page's clearing), and the memory is never held
 * twice.  Both are the caller's malloc blocks; src's bytes are left undefined (its moved pages
 * read as zero) and it is freed as usual.  Where pages cannot move (other systems, a few
 * pages), a plain copy. */
enum { HK_MOVE_SLACK = 1 << 16 }; /* a page of any size Linux uses */
void hk_move_append(void *dst, size_t at, void *src, size_t n);
/* Lists grown on threads live in the threads' own malloc arenas, which keep freed blocks
 * mapped: once such lists are joined and freed, this gives their memory back. */
void hk_mem_trim(void);
/* glibc raises its mmap threshold as large blocks are freed, up to tens of megabytes, so lists
 * grown on threads stay resident in their arenas after they are freed.  A fixed threshold gives
 * blocks of a few hundred kilobytes and more back when freed.  Process-wide (glibc only). */
void hk_mem_lean(void);

#endif
