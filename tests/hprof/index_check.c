/* The index's time on several threads estimated on a loaded machine: the dump is opened with
 * the parallel parts run on this thread alone and timed (hk_parallel_profile), so the wall time
 * on T threads is the CPU time outside the parts plus a list schedule of the parts on T threads,
 * whatever else the machine runs.  Prints, best of 3 opens:
 *   index wall W s, cpu C s, on T threads ~E s
 * Usage: index_check DUMP [--estimate T]   (without --estimate: the index on every core, timed as
 * it runs) */
#include "hprof/hprof.h"
#include "util/hk_jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: index_check DUMP [--estimate THREADS]\n");
        return 2;
    }
    int estimate = argc >= 4 && !strcmp(argv[2], "--estimate") ? atoi(argv[3]) : 0;
    double bw = 1e9, bc = 1e9, be = 1e9;
    for (int r = 0; r < 3; r++) {
        char err[512];
        if (estimate) hk_parallel_profile(1, estimate);
        double t = now_s(), c = cpu_s(), pc, pw;
        hk_dump *d = hk_dump_open(argv[1], NULL, NULL, err, sizeof err);
        t = now_s() - t;
        c = cpu_s() - c;
        hk_parallel_profile_get(&pc, &pw);
        hk_parallel_profile(0, 0);
        if (!d) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        hk_dump_close(d);
        double e = c - pc + pw;
        if (t < bw) bw = t;
        if (c < bc) bc = c;
        if (e < be) be = e;
    }
    printf("index wall %.3f s, cpu %.3f s", bw, bc);
    if (estimate) printf(", on %d threads ~%.3f s", estimate, be);
    printf("\n");
    return 0;
}
