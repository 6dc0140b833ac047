/* Leak paths (see graph_leakpath.h): a breadth-first search in tiers.  Every object carries the
 * worst tier on its path (ordinary roots, native-held roots, thread-stack roots, low-priority
 * roots, then anything past a library-leak reference); tier t's queue is drained before tier
 * t + 1's, so an object is reached through the best tier that reaches it, and by a shortest
 * path within that tier. */
#include "graph/graph_leakpath.h"
#include "graph/graph_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_ROOT, T_NATIVE, T_LOCAL, T_LOW, T_LIB, NTIERS, T_UNSEEN = 7 };
enum { S_TIER = 7, S_TARGET = 0x40, S_DONE = 0x80 };

static int root_tier(int type)
{
    switch (type) {
    case HPROF_ROOT_JAVA_FRAME:
    case HPROF_ROOT_JNI_LOCAL:
    case HPROF_ROOT_NATIVE_STACK: return T_LOCAL;
    default:
        switch (hk_graph_root_rank(type)) {
        case 0: return T_ROOT;
        case 1: return T_NATIVE;
        default: return T_LOW;
        }
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
} search;

typedef struct hit {
    hk_id id;
    int32_t rule;
} hit;
#define MAXHITS 16

static int is_sub(const hk_dump *d, uint32_t c, uint32_t anc)
{
    for (int depth = 0; c != HK_NONE && depth < 256; depth++, c = d->classes[c].super)
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
                    else tt = T_LIB;
                }
        }
        if (!skip) offer(s, t, x, tt);
    }
}

static int32_t best_root(search *s, uint32_t obj, int *tier_out)
{
    hk_dump *d = s->d;
    hk_id id = hk_obj_id(d, obj);
    int32_t best = -1;
    int bt = NTIERS;
    for (uint32_t k = 0; k < d->nroots; k++) {
        if (d->roots[k].id != id) continue;
        int32_t rr = s->q->root_rule ? s->q->root_rule[k] : -1;
        if (rr == -2) continue;
        int t = rr >= 0 ? T_LIB : root_tier(d->roots[k].type);
        if (t < bt) {
            bt = t;
            best = (int32_t)k;
        }
    }
    *tier_out = bt;
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
    int rt;
    p->root = best_root(s, p->objs[0], &rt);
    if ((s->state[target] & S_TIER) != T_LIB) return;
    if (rt == T_LIB && p->root >= 0) {
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
    s->cls_flag = hk_xcalloc(d->nclasses ? d->nclasses : 1, 1);
    uint8_t *mark = hk_xcalloc(d->nclasses ? d->nclasses : 1, 1);
    for (uint32_t r = 0; r < q->nrefs; r++) {
        if (q->refs[r].is_static) s->cls_flag[q->refs[r].cls] |= 2;
        else mark[q->refs[r].cls] = 1;
    }
    for (uint32_t c = 0; c < d->nclasses; c++)
        for (uint32_t a = c, depth = 0; a != HK_NONE && depth < 256; a = d->classes[a].super, depth++)
            if (mark[a]) {
                s->cls_flag[c] |= 1;
                break;
            }
    free(mark);
    s->ruled = hk_xcalloc(s->g->n / 8 + 1, 1);
    for (uint32_t c = 0; c < d->nclasses; c++) {
        if (s->cls_flag[c] & 1) {
            uint32_t ni;
            const uint32_t *inst = hk_class_instances(d, c, &ni);
            for (uint32_t k = 0; k < ni; k++) s->ruled[inst[k] >> 3] |= (uint8_t)(1u << (inst[k] & 7));
        }
        uint32_t o = d->classes[c].object;
        if ((s->cls_flag[c] & 2) && o < s->g->n) s->ruled[o >> 3] |= (uint8_t)(1u << (o & 7));
    }
}

/* Marks the targets and queues the roots by tier; returns how many targets are to be found. */
static uint32_t seed(search *s)
{
    const hk_dump *d = s->d;
    const hk_leak_query *q = s->q;
    uint32_t remaining = 0;
    for (uint32_t k = 0; k < q->ntargets; k++)
        if (q->targets[k] < s->g->n && !(s->state[q->targets[k]] & S_TARGET)) {
            s->state[q->targets[k]] |= S_TARGET;
            remaining++;
        }
    for (uint32_t k = 0; k < d->nroots; k++) {
        int32_t rr = q->root_rule ? q->root_rule[k] : -1;
        if (rr == -2) continue;
        uint32_t t = hkg_find(d, s->g, d->roots[k].id);
        if (t == HK_NONE) continue;
        int tier = rr >= 0 ? T_LIB : root_tier(d->roots[k].type);
        uint8_t st = s->state[t];
        if ((st & S_TIER) <= tier) continue;
        s->state[t] = (uint8_t)((st & ~S_TIER) | tier);
        s->parent[t] = HKG_P_ROOT;
        push(s, tier, t);
    }
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
    if (hk_graph_ensure(d, HK_GRAPH_REFS, err, errlen)) return -1;
    hk_graph *g = hkg_of(d);
    for (uint32_t r = 0; r < q->nrefs; r++)
        if (q->refs[r].cls >= d->nclasses || !q->refs[r].field) {
            snprintf(err, errlen, "leak paths: reference rule %u names no class or field", r);
            return -1;
        }
    search s = {.d = d, .g = g, .q = q};
    s.state = hk_xrealloc(NULL, g->n ? g->n : 1);
    s.parent = hk_xrealloc(NULL, (g->n ? g->n : 1) * sizeof *s.parent);
    memset(s.state, T_UNSEEN, g->n);
    mark_ruled(&s);
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
