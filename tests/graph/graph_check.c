/* graph_check: checks and inspects the heap graph of a dump, for tests/t_graph.sh and
 * bench/graph_bench.sh.
 *
 *   graph_check check DUMP [--slow-max N]   invariants, and for dumps of at most N objects
 *                                           (default 300000) every immediate dominator
 *                                           against a slow iterative computation
 *   graph_check show DUMP ID...             per object: idom retained reach native
 *   graph_check path DUMP ID                the path from a root, one step per line
 *   graph_check bench DUMP [-j N] [--estimate T]
 *                                           seconds and peak memory per phase, on N threads
 *                                           (T: also the wall time on T threads, estimated
 *                                           from one thread's CPU time per parallel part)
 */
#include "util/hk_jobs.h"
#include "graph/graph.h"
#include "hprof/hprof_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double hkg_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fails;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            if (fails++ < 20) {                                                                                        \
                fprintf(stderr, "check failed: ");                                                                     \
                fprintf(stderr, __VA_ARGS__);                                                                          \
                fputc('\n', stderr);                                                                                   \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

static hk_dump *open_dump(const char *path)
{
    char err[512];
    hk_dump *d = hk_dump_open(path, NULL, NULL, err, sizeof err);
    if (!d) {
        fprintf(stderr, "graph_check: %s\n", err);
        exit(2);
    }
    return d;
}

static void ensure(hk_dump *d, int mask)
{
    char err[512];
    if (hk_graph_ensure(d, mask, err, sizeof err)) {
        fprintf(stderr, "graph_check: %s\n", err);
        exit(2);
    }
}

/* The per-class retained bytes (`histogram`'s retained column), timed as a phase. */
static void class_retained_bench(hk_dump *d)
{
    char err[512];
    uint64_t *per;
    if (hk_graph_class_retained(d, &per, err, sizeof err)) {
        fprintf(stderr, "graph_check: %s\n", err);
        exit(2);
    }
    free(per);
}

/* The live heap, recomputed here: what a BFS from the roots reaches over strong edges. */
static uint8_t *live_set(hk_dump *d)
{
    const uint32_t n = hk_view(d)->nobjects;
    uint8_t *live = calloc(n + 1, 1);
    uint32_t *q = malloc((n + 1) * sizeof *q), head = 0, tail = 0;
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        uint32_t t = hk_obj_find(d, hk_view(d)->roots[k].id);
        if (t != HK_NONE && !live[t]) {
            live[t] = 1;
            q[tail++] = t;
        }
    }
    while (head < tail) {
        uint32_t x = q[head++], nout;
        const uint32_t *out = hk_graph_out(d, x, &nout);
        for (uint32_t k = 0; k < nout; k++)
            if (!live[out[k]]) {
                live[out[k]] = 1;
                q[tail++] = out[k];
            }
    }
    free(q);
    return live;
}

/* ---- the slow reference: Cooper, Harvey and Kennedy's iterative dataflow over reverse
 * postorder, on the same graph (strong edges + virtual root edges, less the edges from
 * outside the live heap into it), with predecessors built here from the forward index,
 * independently of the referrer index. ---- */
static uint32_t *slow_idom(hk_dump *d)
{
    const uint32_t n = hk_view(d)->nobjects, root = n, m = n + 1;
    uint8_t *live = live_set(d);
    uint32_t *po = malloc(m * sizeof *po), *order = malloc(m * sizeof *order);
    uint32_t *stk = malloc(m * sizeof *stk), *pos = malloc(m * sizeof *pos);
    uint8_t *seen = calloc(m, 1);
    /* virtual root successors: objects with the flag, in index order */
    uint32_t nv = 0, *vs = malloc(m * sizeof *vs);
    for (uint32_t i = 0; i < n; i++)
        if (hk_graph_virtual_child(d, i)) vs[nv++] = i;
    /* postorder by iterative DFS */
    uint32_t cnt = 0, sp = 0;
    stk[sp] = root;
    pos[sp++] = 0;
    seen[root] = 1;
    while (sp) {
        uint32_t x = stk[sp - 1], k = pos[sp - 1], nout;
        const uint32_t *out = x == root ? vs : hk_graph_out(d, x, &nout);
        if (x == root) nout = nv;
        if (k == nout) {
            po[x] = cnt;
            order[cnt++] = x;
            sp--;
            continue;
        }
        pos[sp - 1] = k + 1;
        uint32_t t = out[k];
        if (x != root && !live[x] && live[t]) continue;
        if (!seen[t]) {
            seen[t] = 1;
            stk[sp] = t;
            pos[sp++] = 0;
        }
    }
    /* predecessor lists (CSR) */
    uint32_t *ps = calloc(m + 1, sizeof *ps);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nout;
        const uint32_t *out = hk_graph_out(d, i, &nout);
        for (uint32_t k = 0; k < nout; k++)
            if (live[i] || !live[out[k]]) ps[out[k] + 1]++;
    }
    for (uint32_t k = 0; k < nv; k++) ps[vs[k] + 1]++;
    for (uint32_t i = 1; i <= m; i++) ps[i] += ps[i - 1];
    uint32_t *fill = malloc(m * sizeof *fill), *pr = malloc((ps[m] + 1) * sizeof *pr);
    memcpy(fill, ps, m * sizeof *fill);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nout;
        const uint32_t *out = hk_graph_out(d, i, &nout);
        for (uint32_t k = 0; k < nout; k++)
            if (live[i] || !live[out[k]]) pr[fill[out[k]]++] = i;
    }
    for (uint32_t k = 0; k < nv; k++) pr[fill[vs[k]]++] = root;
    uint32_t *idom = malloc(m * sizeof *idom);
    for (uint32_t i = 0; i < m; i++) idom[i] = UINT32_MAX;
    idom[root] = root;
    int changed = 1;
    while (changed) {
        changed = 0;
        for (uint32_t j = cnt; j-- > 0;) {
            uint32_t b = order[j];
            if (b == root) continue;
            uint32_t nd = UINT32_MAX;
            for (uint32_t k = ps[b]; k < ps[b + 1]; k++) {
                uint32_t p = pr[k];
                if (idom[p] == UINT32_MAX) continue;
                if (nd == UINT32_MAX) {
                    nd = p;
                    continue;
                }
                uint32_t f1 = p, f2 = nd;
                while (f1 != f2) {
                    while (po[f1] < po[f2]) f1 = idom[f1];
                    while (po[f2] < po[f1]) f2 = idom[f2];
                }
                nd = f1;
            }
            if (idom[b] != nd) {
                idom[b] = nd;
                changed = 1;
            }
        }
    }
    CHECK(cnt == m, "slow DFS reached %u of %u nodes", cnt, m);
    free(po);
    free(order);
    free(stk);
    free(pos);
    free(seen);
    free(vs);
    free(ps);
    free(fill);
    free(pr);
    free(live);
    return idom;
}

/* Which objects the virtual root must have as children, recomputed from the rule. */
static void check_virtual_children(hk_dump *d)
{
    const uint32_t n = hk_view(d)->nobjects;
    uint8_t *mark = calloc(n + 1, 1);
    uint32_t *q = malloc((n + 1) * sizeof *q), *indeg = calloc(n + 1, sizeof *indeg), head = 0, tail = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nout;
        const uint32_t *out = hk_graph_out(d, i, &nout);
        for (uint32_t k = 0; k < nout; k++) indeg[out[k]]++;
    }
    uint8_t *want = calloc(n + 1, 1);
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        uint32_t t = hk_obj_find(d, hk_view(d)->roots[k].id);
        if (t != HK_NONE) {
            want[t] = 1;
            if (!mark[t]) {
                mark[t] = 1;
                q[tail++] = t;
            }
        }
    }
    for (int pass = 0; pass < 3; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            if (pass > 0 && !mark[i] && (pass == 2 || indeg[i] == 0)) {
                want[i] = 1;
                mark[i] = 1;
                q[tail++] = i;
            }
            if (pass == 0 && i > 0) break;
            while (head < tail) {
                uint32_t x = q[head++], nout;
                const uint32_t *out = hk_graph_out(d, x, &nout);
                for (uint32_t k = 0; k < nout; k++)
                    if (!mark[out[k]]) {
                        mark[out[k]] = 1;
                        q[tail++] = out[k];
                    }
            }
        }
    }
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++)
        if (want[i] != hk_graph_virtual_child(d, i)) bad++;
    CHECK(bad == 0, "%u objects disagree on being a child of the virtual root", bad);
    free(mark);
    free(q);
    free(indeg);
    free(want);
}

static int cmd_check(const char *path, uint32_t slow_max)
{
    hk_dump *d = open_dump(path);
    ensure(d, HK_GRAPH_DOM | HK_GRAPH_REACH | HK_GRAPH_PATHS);
    const uint32_t n = hk_view(d)->nobjects;
    uint64_t total = 0, sum_kids = 0, native = 0;
    uint32_t under_shallow = 0, bad_edges = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t s = hk_obj_shallow_size(d, i);
        total += s;
        native += hk_graph_native_size(d, i);
        if (hk_graph_retained(d, i) < s) under_shallow++;
        if (hk_graph_idom(d, i) == HK_NONE) sum_kids += hk_graph_retained(d, i);
        /* every edge can be named again from the record */
        uint32_t nout;
        const uint32_t *out = hk_graph_out(d, i, &nout);
        char buf[96];
        for (uint32_t k = 0; k < nout; k++)
            if (hk_graph_edge_name(d, i, out[k], buf, sizeof buf)) bad_edges++;
    }
    CHECK(hk_graph_total_bytes(d) == total, "virtual root retains %llu, heap has %llu bytes",
          (unsigned long long)hk_graph_total_bytes(d), (unsigned long long)total);
    CHECK(sum_kids == total, "root's children retain %llu, heap has %llu bytes", (unsigned long long)sum_kids,
          (unsigned long long)total);
    CHECK(hk_graph_total_native(d) == native, "native totals differ");
    CHECK(under_shallow == 0, "%u objects retain less than their shallow size", under_shallow);
    CHECK(bad_edges == 0, "%u edges could not be named", bad_edges);
    /* reachability: strong = what a plain BFS over strong edges from the roots reaches */
    uint64_t cnt[HK_REACH_COUNT], bytes[HK_REACH_COUNT], c_all = 0;
    hk_graph_reach_totals(d, cnt, bytes);
    for (int k = 0; k < HK_REACH_COUNT; k++) c_all += cnt[k];
    CHECK(c_all == n, "reachability counts sum to %llu, not %u", (unsigned long long)c_all, n);
    /* a reached object has a path; a strongly reached one a path without weak edges */
    uint32_t nopath = 0;
    uint64_t steps = 0; /* a deep chain makes each path long: bound the total work, not the count */
    for (uint32_t i = 0; i < n && steps < 3000000; i += 1 + n / 2000) {
        hk_graph_path p;
        char err[256];
        if (hk_graph_path_to(d, i, &p, err, sizeof err)) {
            nopath++;
            continue;
        }
        int r = hk_graph_reach(d, i);
        if (r != HK_REACH_UNREACHABLE && !p.found) nopath++;
        if (r == HK_REACH_UNREACHABLE && p.found) nopath++;
        if (r == HK_REACH_STRONG && p.found && p.weak && hk_graph_root_rank(p.root->type) == 0) {
            /* strong objects may still be reached by the path BFS through a list link
             * only when the finalizer list is their sole strong holder: accept */
        }
        steps += p.nsteps;
        if (p.found) {
            CHECK(p.steps[p.nsteps - 1].obj == i, "path does not end at its object");
            CHECK(p.root != NULL, "path without a root record");
        }
        hk_graph_path_free(&p);
    }
    CHECK(nopath == 0, "%u objects whose path disagrees with their reachability", nopath);
    check_virtual_children(d);
    const char *slow = "skipped";
    if (n <= slow_max) {
        uint32_t *ref = slow_idom(d), bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t want = ref[i] == n ? HK_NONE : ref[i];
            if (hk_graph_idom(d, i) != want) {
                if (bad++ < 5)
                    fprintf(stderr, "idom of object %u (0x%llx): fast %u, slow %u\n", i,
                            (unsigned long long)hk_obj_id(d, i), hk_graph_idom(d, i), want);
            }
        }
        CHECK(bad == 0, "%u immediate dominators differ from the slow computation", bad);
        free(ref);
        slow = "agrees";
    }
    uint32_t nr;
    hk_graph_root_objects(d, &nr);
    printf("objects %u edges %llu roots %u bytes %llu native %llu strong %llu unreachable %llu slow %s\n", n,
           (unsigned long long)hk_graph_edge_count(d), nr, (unsigned long long)total, (unsigned long long)native,
           (unsigned long long)cnt[HK_REACH_STRONG], (unsigned long long)cnt[HK_REACH_UNREACHABLE], slow);
    hk_dump_close(d);
    if (fails) fprintf(stderr, "graph_check: %d checks failed\n", fails);
    return fails ? 1 : 0;
}

static uint32_t find_arg(hk_dump *d, const char *s)
{
    hk_id id;
    uint32_t i;
    if (hk_parse_id(s, &id) || (i = hk_obj_find(d, id)) == HK_NONE) {
        fprintf(stderr, "graph_check: no object %s\n", s);
        exit(2);
    }
    return i;
}

static int cmd_show(const char *path, int argc, char **argv)
{
    hk_dump *d = open_dump(path);
    ensure(d, HK_GRAPH_DOM | HK_GRAPH_REACH);
    for (int k = 0; k < argc; k++) {
        uint32_t i = find_arg(d, argv[k]), p = hk_graph_idom(d, i);
        char idom[32];
        if (p == HK_NONE) snprintf(idom, sizeof idom, "root");
        else snprintf(idom, sizeof idom, "0x%llx", (unsigned long long)hk_obj_id(d, p));
        printf("%s %s %llu %s %llu %llu\n", argv[k], idom, (unsigned long long)hk_graph_retained(d, i),
               hk_graph_reach_name(hk_graph_reach(d, i)), (unsigned long long)hk_graph_native_size(d, i),
               (unsigned long long)hk_graph_retained_native(d, i));
    }
    hk_dump_close(d);
    return 0;
}

static int cmd_path(const char *path, const char *id)
{
    hk_dump *d = open_dump(path);
    uint32_t i = find_arg(d, id);
    hk_graph_path p;
    char err[256];
    if (hk_graph_path_to(d, i, &p, err, sizeof err)) {
        fprintf(stderr, "graph_check: %s\n", err);
        return 2;
    }
    if (!p.found) {
        printf("unreachable\n");
        return 0;
    }
    printf("root %s%s\n", hk_root_type_name(p.root->type), p.weak ? " weak" : "");
    for (uint32_t k = 0; k < p.nsteps; k++)
        printf("0x%llx %s %s\n", (unsigned long long)hk_obj_id(d, p.steps[k].obj), hk_obj_class_name(d, p.steps[k].obj),
               p.steps[k].via[0] ? p.steps[k].via : "-");
    hk_graph_path_free(&p);
    hk_dump_close(d);
    return 0;
}

static long peak_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Wall and CPU seconds: the CPU time does not depend on what else the machine runs.  With
 * estimate > 0 the parallel parts run on this thread alone, timed, and each phase also gets
 * the wall time a list schedule of its parts on that many threads would take (hk_jobs.h). */
static int cmd_bench(const char *path, int estimate)
{
    double t0 = hkg_bench_now();
    hk_dump *d = open_dump(path);
    double topen = hkg_bench_now() - t0;
    long kb_open = peak_kb();
    /* what `top` asks for in one call (so the dominators' search runs beside the referrers),
     * then `histogram`'s per-class retained bytes, then the paths */
    static const struct {
        int bit;
        const char *name;
    } ph[] = {{HK_GRAPH_REACH | HK_GRAPH_DOM, "top's graph"}, {0, "class_retained"}, {HK_GRAPH_PATHS, "paths"}};
    printf("open+index %.3f s, peak %ld MB, %u objects\n", topen, kb_open / 1024, hk_view(d)->nobjects);
    if (estimate) hk_parallel_profile(1, estimate);
    double all = 0, allc = 0, alle = 0;
    for (size_t k = 0; k < sizeof ph / sizeof ph[0]; k++) {
        double t = hkg_bench_now(), c = cpu_s(), pc0, pw0, pc1, pw1;
        hk_parallel_profile_get(&pc0, &pw0);
        if (ph[k].bit) ensure(d, ph[k].bit);
        else class_retained_bench(d);
        t = hkg_bench_now() - t;
        c = cpu_s() - c;
        hk_parallel_profile_get(&pc1, &pw1);
        double e = c - (pc1 - pc0) + (pw1 - pw0);
        if (ph[k].bit != HK_GRAPH_PATHS) {
            all += t;
            allc += c;
            alle += e;
        }
        printf("%-14s %.3f s (cpu %.3f s", ph[k].name, t, c);
        if (estimate) printf(", on %d threads ~%.3f s", estimate, e);
        printf("), peak %ld MB\n", peak_kb() / 1024);
    }
    printf("graph phases (top's and class_retained) %.3f s (cpu %.3f s", all, allc);
    if (estimate) printf(", on %d threads ~%.3f s: %.2fx", estimate, alle, allc / alle);
    /* no referrer index size: the dominators drop the referrers unless they were asked for */
    printf("); edges %llu\n", (unsigned long long)hk_graph_edge_count(d));
    hk_parallel_profile(0, 0);
    hk_dump_close(d);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "check")) {
        uint32_t slow_max = 300000;
        if (argc >= 5 && !strcmp(argv[3], "--slow-max")) slow_max = (uint32_t)strtoul(argv[4], NULL, 10);
        return cmd_check(argv[2], slow_max);
    }
    if (argc >= 4 && !strcmp(argv[1], "show")) return cmd_show(argv[2], argc - 3, argv + 3);
    if (argc == 4 && !strcmp(argv[1], "path")) return cmd_path(argv[2], argv[3]);
    if (argc >= 3 && !strcmp(argv[1], "bench")) {
        int estimate = 0;
        for (int k = 3; k + 1 < argc; k += 2) {
            if (!strcmp(argv[k], "-j")) hk_set_jobs(atoi(argv[k + 1]));
            else if (!strcmp(argv[k], "--estimate")) estimate = atoi(argv[k + 1]);
        }
        return cmd_bench(argv[2], estimate);
    }
    fprintf(stderr, "usage: graph_check check DUMP [--slow-max N] | show DUMP ID... | path DUMP ID | bench DUMP [-j N] "
                    "[--estimate THREADS]\n");
    return 2;
}
