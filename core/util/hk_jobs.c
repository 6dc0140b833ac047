/* Threads for the parallel phases: a shared part counter, each thread takes the next part. */
#include "util/hk_jobs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static int jobs_wanted;

void hk_set_jobs(int n)
{
    jobs_wanted = n < 0 ? 0 : n;
}

/* >= 1 */
static int hk_jobs(void)
{
    long n = jobs_wanted ? jobs_wanted : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

typedef struct run {
    void (*fn)(void *ctx, int k);
    void *ctx;
    int nparts;
    atomic_int next;
} run;

static void *worker(void *arg)
{
    run *r = arg;
    for (int k; (k = atomic_fetch_add(&r->next, 1)) < r->nparts;) r->fn(r->ctx, k);
    return NULL;
}

void hk_parallel(int nparts, void (*fn)(void *ctx, int k), void *ctx)
{
    run r = {fn, ctx, nparts, 0};
    int nt = hk_jobs() < nparts ? hk_jobs() : nparts;
    pthread_t th[64];
    int started = 0;
    for (int t = 1; t < nt; t++) {
        if (pthread_create(&th[started], NULL, worker, &r)) break;
        started++;
    }
    worker(&r);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}
