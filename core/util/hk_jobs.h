/* How many threads the parallel phases (the heap graph's) use, and
 * the one way they run work on them.  Results never depend on the count: work is cut into
 * parts whose outputs are joined in part order. */
#ifndef HK_JOBS_H
#define HK_JOBS_H

#include <stdint.h>

/* 0: every online core (the default); set once, before a dump is worked on (`-j N`). */
void hk_set_jobs(int n);
/* How many threads hk_parallel uses (>= 1): for parts that each read all of their input and
 * keep a share of the output, as many parts as threads. */
int hk_jobs(void);

/* Runs fn(ctx, k) for every part k in [0, nparts), on up to hk_jobs() threads (the caller's
 * among them); returns when all are done.  Falls back to the caller alone when a thread
 * cannot be started. */
void hk_parallel(int nparts, void (*fn)(void *ctx, int k), void *ctx);

/* Faults in the parts.  A dump is read through a mapping, and a file cut short under a
 * server faults (SIGBUS) on whichever thread reads the lost page.  A process that catches the
 * fault (serve: the request fails, the server goes on) calls hk_fault_in_guard(sig) first in
 * its handler: on a thread inside hk_guarded (every part of hk_parallel is) it ends that call
 * there and does not return; elsewhere it returns.  hk_guarded runs fn(ctx, k) and returns 0,
 * or the signal that ended it; hk_parallel then takes no more parts and, once every thread is
 * out, raises the signal again on the caller's thread, where the caller's own handling takes
 * it.  A process that does not catch the signal ends as it would without this.  What the parts
 * and their caller allocated is lost when a fault ends them: a caught fault means the dump's
 * file changed under it, and that dump is not read again (serve refuses it from then on). */
void hk_fault_in_guard(int sig);
int hk_guarded(void (*fn)(void *ctx, int k), void *ctx, int k);

/* The one cut of [0, n) into parts: part k of `parts` is [*lo, *hi). */
static inline void hk_part_range(uint32_t n, int k, int parts, uint32_t *lo, uint32_t *hi)
{
    *lo = (uint32_t)((uint64_t)n * (uint64_t)k / (uint64_t)parts);
    *hi = (uint32_t)((uint64_t)n * (uint64_t)(k + 1) / (uint64_t)parts);
}

/* For the benchmarks, which share a loaded machine: while on, hk_parallel times each part in
 * CPU time and adds up the parts' total and the time a list schedule of the same parts would
 * take on `threads` threads (each takes the next part when free, as hk_parallel does), so a
 * run on one thread estimates the wall time on more whatever else the machine runs. */
void hk_parallel_profile(int on, int threads);
void hk_parallel_profile_get(double *parts_cpu, double *parts_wall);

#endif
