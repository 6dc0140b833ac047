/* Threads for the parallel phases: a shared part counter, each thread takes the next part. */
#include "util/hk_jobs.h"
#include "util/hk_mem.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int jobs_wanted;

void hk_set_jobs(int n)
{
    jobs_wanted = n < 0 ? 0 : n;
}

static int prof_threads, prof_depth;
static double prof_cpu, prof_wall;

int hk_jobs(void)
{
    if (prof_threads) return prof_threads;
    long n = jobs_wanted ? jobs_wanted : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

typedef struct run {
    void (*fn)(void *ctx, int k);
    void *ctx;
    int nparts;
    atomic_int next;
    double *cost;     /* per part, when profiling */
    atomic_int fault; /* the signal a fault raised in a part (no more parts are taken), or 0 */
} run;

/* Where a fault inside this thread's guarded call goes (hk_fault_in_guard), and its signal. */
static __thread sigjmp_buf *guard_jump;
static __thread int guard_sig;

void hk_fault_in_guard(int sig)
{
    if (!guard_jump) return;
    guard_sig = sig;
    siglongjmp(*guard_jump, 1);
}

int hk_guarded(void (*fn)(void *ctx, int k), void *ctx, int k)
{
    sigjmp_buf jb, *outer = guard_jump;
    if (sigsetjmp(jb, 1)) {
        guard_jump = outer;
        return guard_sig;
    }
    guard_jump = &jb;
    fn(ctx, k);
    guard_jump = outer;
    return 0;
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void hk_parallel_profile(int on, int threads)
{
    prof_threads = on ? (threads < 1 ? 1 : threads > 64 ? 64 : threads) : 0;
    prof_cpu = prof_wall = 0;
}

void hk_parallel_profile_get(double *parts_cpu, double *parts_wall)
{
    *parts_cpu = prof_cpu;
    *parts_wall = prof_wall;
}

/* The list schedule of the parts' costs on prof_threads threads. */
static void profile_add(const double *cost, int nparts)
{
    double busy[64] = {0}, end = 0;
    for (int k = 0; k < nparts; k++) {
        int t = 0;
        for (int i = 1; i < prof_threads; i++)
            if (busy[i] < busy[t]) t = i;
        busy[t] += cost[k];
        prof_cpu += cost[k];
        if (busy[t] > end) end = busy[t];
    }
    prof_wall += end;
}

static void *worker(void *arg)
{
    run *r = arg;
    for (int k; !atomic_load(&r->fault) && (k = atomic_fetch_add(&r->next, 1)) < r->nparts;) {
        double t0 = r->cost ? thread_cpu() : 0;
        int sig = hk_guarded(r->fn, r->ctx, k);
        if (sig) atomic_store(&r->fault, sig);
        if (r->cost) r->cost[k] = thread_cpu() - t0;
    }
    return NULL;
}

void hk_parallel(int nparts, void (*fn)(void *ctx, int k), void *ctx)
{
    /* profiling runs the parts on the caller alone (an inner call's parts count as its
     * caller's part), while hk_jobs() answers the simulated count */
    int top = prof_threads && prof_depth++ == 0;
    run r = {fn, ctx, nparts, 0, top ? hk_xcalloc((size_t)nparts, sizeof(double)) : NULL, 0};
    int nt = prof_threads ? 1 : hk_jobs() < nparts ? hk_jobs() : nparts;
    pthread_t th[64];
    int started = 0;
    for (int t = 1; t < nt; t++) {
        if (pthread_create(&th[started], NULL, worker, &r)) break;
        started++;
    }
    worker(&r);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    if (r.cost) profile_add(r.cost, nparts);
    free(r.cost);
    if (prof_threads) prof_depth--;
    /* every thread is out: the fault again, on the caller's thread, for the caller's guard */
    if (atomic_load(&r.fault)) raise(atomic_load(&r.fault));
}
