/* Leak paths (see graph_leakpath.h): a breadth-first search in tiers, in LeakCanary's order
 * (Shark 2.7's PathFinder).  Every object carries the worst tier on its path: the roots Shark
 * visits first (every root type it indexes but threads and their stacks), then one queue for
 * what it visits last (thread objects, Java locals of threads, anything past a library-leak
 * reference), then the root types Shark does not index (ours: a path that only they give is
 * still a path).  Tier t's queue is drained before tier t + 1's, so an object is reached
 * through the best tier that reaches it, and by a shortest path within that tier.  The first
 * tier's roots are queued in Shark's order (by root type, then the class of the root's object),
 * so of two equally short paths the one Shark reports is found. */
#include "graph/graph_leakpath.h"
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_ROOT, T_LAST, T_LOW, NTIERS, T_UNSEEN = 7 };
enum { S_TIER = 7, S_TARGET = 0x40, S_DONE = 0x80 };

/* Shark sorts roots by the name of their GcRoot class, descending (ThreadBlock, StickyClass,
 * NativeStack, MonitorUsed, JniMonitor, JniLocal, JniGlobal, JavaFrame); -1: not indexed. */
static int shark_rank(int type)
{
    switch (type) {
    case HPROF_ROOT_THREAD_OBJECT: return 0;
    case HPROF_ROOT_THREAD_BLOCK: return 1;
    case HPROF_ROOT_STICKY_CLASS: return 2;
    case HPROF_ROOT_NATIVE_STACK: return 3;
    case HPROF_ROOT_MONITOR_USED: return 4;
    case HPROF_ROOT_JNI_MONITOR: return 5;
    case HPROF_ROOT_JNI_LOCAL: return 6;
    case HPROF_ROOT_JNI_GLOBAL: return 7;
    case HPROF_ROOT_JAVA_FRAME: return 8;
    default: return -1;
    }
}

typedef struct search {
    hk_dump *d;
    hk_graph *g;
    const hk_leak_query *q;
    uint8_t *cls_flag; /* per class index: 1 instance rules may apply, 2 static rules */
    uint8_t *ruled;    /* per object bit: its class has rules (so most objects cost
                                 * the search no look at their record) */
    uint8_t *state;
    uint32_t *parent;
    uint32_t *queue[NTIERS];
    size_t qlen[NTIERS], qcap[NTIERS];
    uint32_t *threads; /* sorted serials of the threads with a THREAD_OBJECT root */
    uint32_t nthreads;
} search;

typedef struct hit {
    hk_id id;
    int32_t rule;
} hit;
#define MAXHITS 16

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void index_threads(search *s)
{
    const hk_dump *d = s->d;
    s->threads = hk_xcalloc(hk_view(d)->nroots ? hk_view(d)->nroots : 1, sizeof *s->threads);
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++)
        if (hk_view(d)->roots[k].type == HPROF_ROOT_THREAD_OBJECT && hk_view(d)->roots[k].thread)
            s->threads[s->nthreads++] = hk_view(d)->roots[k].thread;
    qsort(s->threads, s->nthreads, sizeof *s->threads, cmp_u32);
}

/* The tier a root record starts in: Shark visits thread objects and the Java locals of a
 * thread it knows last, and library-leak roots (rule >= 0) with them. */
static int root_tier(const search *s, uint32_t k)
{
    const hk_root *r = &hk_view(s->d)->roots[k];
    int32_t rr = s->q->root_rule ? s->q->root_rule[k] : -1;
    int rank = shark_rank(r->type);
    if (rank < 0) return T_LOW;
    if (rr >= 0 || r->type == HPROF_ROOT_THREAD_OBJECT) return T_LAST;
    if (r->type == HPROF_ROOT_JAVA_FRAME && r->thread &&
        bsearch(&r->thread, s->threads, s->nthreads, sizeof *s->threads, cmp_u32))
        return T_LAST;
    return T_ROOT;
}

static int is_sub(const hk_dump *d, uint32_t c, uint32_t anc)
{
    for (int depth = 0; c != HK_NONE && depth < 256; depth++, c = hk_view(d)->classes[c].super)
        if (c == anc) return 1;
    return 0;
}

/* The references of x that rules match, with their targets' ids. */
static int hits_of(search *s, uint32_t x, hit *h)
{
    hk_dump *d = s->d;
    const hk_leak_query *q = s->q;
    int n = 0;
    int kind = hk_obj_kind(d, x);
    if (kind == HK_KIND_INSTANCE) {
        uint32_t c = hk_obj_class(d, x);
        if (c == HK_NONE || !(s->cls_flag[c] & 1)) return 0;
        for (uint32_t r = 0; r < q->nrefs && n < MAXHITS; r++) {
            if (q->refs[r].is_static || !is_sub(d, c, q->refs[r].cls)) continue;
            hk_value v;
            if (hk_instance_field(d, x, q->refs[r].field, &v) == 1 && v.type == HK_T_OBJECT && v.ref)
                h[n++] = (hit){v.ref, (int32_t)r};
        }
    } else if (kind == HK_KIND_CLASS) {
        hk_class *c = hk_class_by_id(d, hk_obj_id(d, x));
        if (!c || !(s->cls_flag[c->index] & 2)) return 0;
        for (uint32_t r = 0; r < q->nrefs && n < MAXHITS; r++) {
            if (!q->refs[r].is_static || q->refs[r].cls != c->index) continue;
            const hk_static *st = hk_class_static(c, q->refs[r].field);
            if (st && st->type == HK_T_OBJECT && st->value.ref) h[n++] = (hit){st->value.ref, (int32_t)r};
        }
    }
    return n;
}

static void push(search *s, int tier, uint32_t x)
{
    s->queue[tier] = hk_grow(s->queue[tier], &s->qcap[tier], s->qlen[tier] + 1, sizeof(uint32_t));
    s->queue[tier][s->qlen[tier]++] = x;
}

static void offer(search *s, uint32_t x, uint32_t from, int tier)
{
    uint8_t st = s->state[x];
    if ((st & S_DONE) || (st & S_TIER) <= tier) return;
    s->state[x] = (uint8_t)((st & ~S_TIER) | tier);
    s->parent[x] = from;
    push(s, tier, x);
}

static void expand(search *s, uint32_t x, int tier)
{
    hk_graph *g = s->g;
    if (g->flags[x] & HKG_F_LIST) return; /* finalizer and Cleaner lists hold nothing alive */
    hit h[MAXHITS];
    int nh = (s->ruled[x >> 3] >> (x & 7)) & 1 ? hits_of(s, x, h) : 0;
    for (uint32_t k = g->out_start[x]; k < g->out_start[x + 1]; k++) {
        uint32_t t = g->out[k];
        int tt = tier, skip = 0;
        if (nh) {
            hk_id id = hk_obj_id(s->d, t);
            for (int i = 0; i < nh; i++)
                if (h[i].id == id) {
                    if (s->q->refs[h[i].rule].ignore) skip = 1;
                    else if (tt < T_LAST) tt = T_LAST;
                }
        }
        if (!skip) offer(s, t, x, tt);
    }
}

/* The root record a path starts from: of the records on its first object, the best tier, a
 * root that is no library leak before one that is, then Shark's order. */
static int32_t best_root(search *s, uint32_t obj)
{
    hk_dump *d = s->d;
    hk_id id = hk_obj_id(d, obj);
    int32_t best = -1;
    int bkey = 1 << 30;
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        if (hk_view(d)->roots[k].id != id) continue;
        int32_t rr = s->q->root_rule ? s->q->root_rule[k] : -1;
        if (rr == -2) continue;
        int key = root_tier(s, k) * 64 + (rr >= 0) * 32 + shark_rank(hk_view(d)->roots[k].type) + 1;
        if (key < bkey) {
            bkey = key;
            best = (int32_t)k;
        }
    }
    return best;
}

static void make_path(search *s, uint32_t target, hk_leak_path *p)
{
    memset(p, 0, sizeof *p);
    p->root = p->rule = p->rule_step = -1;
    if (!(s->state[target] & S_DONE)) return;
    uint32_t len = 1;
    for (uint32_t x = target; s->parent[x] != HKG_P_ROOT; x = s->parent[x]) len++;
    p->objs = hk_xrealloc(NULL, len * sizeof *p->objs);
    p->found = 1;
    p->nsteps = len;
    uint32_t x = target;
    for (uint32_t k = len; k-- > 0; x = s->parent[x]) p->objs[k] = x;
    p->root = best_root(s, p->objs[0]);
    if ((s->state[target] & S_TIER) == T_ROOT) return;
    if (p->root >= 0 && s->q->root_rule && s->q->root_rule[p->root] >= 0) {
        p->rule = s->q->root_rule[p->root];
        p->rule_is_root = 1;
        return;
    }
    for (uint32_t k = 0; k + 1 < len && p->rule < 0; k++) {
        hit h[MAXHITS];
        int nh = hits_of(s, p->objs[k], h);
        hk_id id = hk_obj_id(s->d, p->objs[k + 1]);
        for (int i = 0; i < nh; i++)
            if (h[i].id == id && !s->q->refs[h[i].rule].ignore) {
                p->rule = h[i].rule;
                p->rule_step = (int32_t)k;
                break;
            }
    }
    return;
}

/* Which objects the reference rules can apply to: instances of a rule's class and its
 * subclasses (cls_flag 1), and class objects with a static rule (2); marked in s->ruled. */
static void mark_ruled(search *s)
{
    hk_dump *d = s->d;
    const hk_leak_query *q = s->q;
    s->cls_flag = hk_xcalloc(hk_view(d)->nclasses ? hk_view(d)->nclasses : 1, 1);
    uint8_t *mark = hk_xcalloc(hk_view(d)->nclasses ? hk_view(d)->nclasses : 1, 1);
    for (uint32_t r = 0; r < q->nrefs; r++) {
        if (q->refs[r].is_static) s->cls_flag[q->refs[r].cls] |= 2;
        else mark[q->refs[r].cls] = 1;
    }
    for (uint32_t c = 0; c < hk_view(d)->nclasses; c++)
        for (uint32_t a = c, depth = 0; a != HK_NONE && depth < 256; a = hk_view(d)->classes[a].super, depth++)
            if (mark[a]) {
                s->cls_flag[c] |= 1;
                break;
            }
    free(mark);
    s->ruled = hk_xcalloc(s->g->n / 8 + 1, 1);
    for (uint32_t c = 0; c < hk_view(d)->nclasses; c++) {
        if (s->cls_flag[c] & 1) {
            uint32_t ni;
            const uint32_t *inst = hk_class_instances(d, c, &ni);
            for (uint32_t k = 0; k < ni; k++) s->ruled[inst[k] >> 3] |= (uint8_t)(1u << (inst[k] & 7));
        }
        uint32_t o = hk_view(d)->classes[c].object;
        if ((s->cls_flag[c] & 2) && o < s->g->n) s->ruled[o >> 3] |= (uint8_t)(1u << (o & 7));
    }
}

typedef struct seed_root {
    uint32_t k, obj;
    int rank;
    const char *name;
} seed_root;

static int cmp_seed(const void *a, const void *b)
{
    const seed_root *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* The root records to queue, in Shark's order (by root type, then the name of the root
 * object's class; a class object by the class's own name), the types Shark ignores last. */
static seed_root *sorted_roots(search *s, uint32_t *n)
{
    hk_dump *d = s->d;
    seed_root *v = hk_xcalloc(hk_view(d)->nroots ? hk_view(d)->nroots : 1, sizeof *v);
    *n = 0;
    for (uint32_t k = 0; k < hk_view(d)->nroots; k++) {
        if (s->q->root_rule && s->q->root_rule[k] == -2) continue;
        uint32_t t = hkg_find(d, s->g, hk_view(d)->roots[k].id);
        if (t == HK_NONE) continue;
        int rank = shark_rank(hk_view(d)->roots[k].type);
        const char *name = "";
        if (hk_obj_kind(d, t) == HK_KIND_CLASS) {
            hk_class *c = hk_class_by_id(d, hk_view(d)->roots[k].id);
            if (c && c->name) name = c->name;
        } else {
            name = hk_obj_class_name(d, t);
        }
        v[(*n)++] = (seed_root){k, t, rank < 0 ? 64 : rank, name ? name : ""};
    }
    qsort(v, *n, sizeof *v, cmp_seed);
    return v;
}

/* Marks the targets and queues the roots by tier; returns how many targets are to be found. */
static uint32_t seed(search *s)
{
    const hk_leak_query *q = s->q;
    uint32_t remaining = 0;
    for (uint32_t k = 0; k < q->ntargets; k++)
        if (q->targets[k] < s->g->n && !(s->state[q->targets[k]] & S_TARGET)) {
            s->state[q->targets[k]] |= S_TARGET;
            remaining++;
        }
    uint32_t n;
    seed_root *v = sorted_roots(s, &n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = v[i].obj;
        int tier = root_tier(s, v[i].k);
        uint8_t st = s->state[t];
        if ((st & S_TIER) <= tier) continue;
        s->state[t] = (uint8_t)((st & ~S_TIER) | tier);
        s->parent[t] = HKG_P_ROOT;
        push(s, tier, t);
    }
    free(v);
    return remaining;
}

/* The tiers in order, each to its end, until every target is reached. */
static void run_tiers(search *s, uint32_t remaining)
{
    size_t head[NTIERS] = {0};
    for (int tier = 0; tier < NTIERS && remaining; tier++)
        while (head[tier] < s->qlen[tier] && remaining) {
            uint32_t x = s->queue[tier][head[tier]++];
            if ((s->state[x] & S_DONE) || (s->state[x] & S_TIER) != tier) continue;
            s->state[x] |= S_DONE;
            if (s->state[x] & S_TARGET) remaining--;
            expand(s, x, tier);
        }
}

int hk_graph_leak_paths(hk_dump *d, const hk_leak_query *q, hk_leak_path *out, char *err, size_t errlen)
{
    /* the search is done with the edges when it returns: asking for them plans nothing for
     * the phases after it (the dominators keep them only when someone else said so) */
    if (hk_graph_plan(d, 0, NULL, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    int keep_out = g->keep_out;
    if (hk_graph_ensure(d, HK_GRAPH_REFS, err, errlen)) return -1;
    g->keep_out = keep_out;
    for (uint32_t r = 0; r < q->nrefs; r++)
        if (q->refs[r].cls >= hk_view(d)->nclasses || !q->refs[r].field) {
            snprintf(err, errlen, "leak paths: reference rule %u names no class or field", r);
            return -1;
        }
    search s = {.d = d, .g = g, .q = q};
    s.state = hk_xrealloc(NULL, g->n ? g->n : 1);
    s.parent = hk_xrealloc(NULL, (g->n ? g->n : 1) * sizeof *s.parent);
    memset(s.state, T_UNSEEN, g->n);
    mark_ruled(&s);
    index_threads(&s);
    run_tiers(&s, seed(&s));
    for (uint32_t k = 0; k < q->ntargets; k++) {
        if (q->targets[k] < g->n) {
            make_path(&s, q->targets[k], &out[k]);
            continue;
        }
        memset(&out[k], 0, sizeof out[k]);
        out[k].root = out[k].rule = out[k].rule_step = -1;
    }
    for (int t = 0; t < NTIERS; t++) free(s.queue[t]);
    free(s.cls_flag);
    free(s.ruled);
    free(s.threads);
    free(s.state);
    free(s.parent);
    return 0;
}

void hk_leak_paths_free(hk_leak_path *p, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        free(p[k].objs);
        p[k].objs = NULL;
    }
}
