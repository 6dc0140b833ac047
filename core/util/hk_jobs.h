/* How many threads the parallel phases (the graph's reference pass, retained sizes) use, and
 * the one way they run work on them.  Results never depend on the count: work is cut into
 * parts whose outputs are joined in part order. */
#ifndef HK_JOBS_H
#define HK_JOBS_H

/* 0: every online core (the default); set once, before a dump is worked on (`-j N`). */
void hk_set_jobs(int n);

/* Runs fn(ctx, k) for every part k in [0, nparts), on up to hk_jobs() threads (the caller's
 * among them); returns when all are done.  Falls back to the caller alone when a thread
 * cannot be started. */
void hk_parallel(int nparts, void (*fn)(void *ctx, int k), void *ctx);

#endif
