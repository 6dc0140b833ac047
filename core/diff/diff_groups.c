/* Heap diff: unmatched objects grouped by the path they hang off (hk_diff_by_path).
 *
 * Paths are interned as a trie, not built as strings per object: a path id is (parent path id,
 * step id), a step is (kind of holder, its class, the field or static slot; every array slot
 * is one step "[*]").  Each matched object gets its path id once (memoized), each entry (first
 * unmatched object) the id of its holder's path plus one step, and the groups are keyed by
 * (path id, class).  Strings are made only per group at the end; groups whose strings agree
 * (a repeated step collapses, classes sharing a name) are merged then. */
#include "diff/diff_internal.h"
#include "graph/graph_view.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

enum { MEMO = 1024 }; /* a power of 2 */

/* The slot of a (key, parent) pair in a memo of MEMO slots. */
static inline uint32_t memo_slot(uint64_t key, uint32_t parent)
{
    return (uint32_t)(((key ^ (uint64_t)parent << 40 ^ parent) * 0x9e3779b97f4a7c15ULL) >> 54) & (MEMO - 1);
}

/* kid, kid_step: the node's first child and its step, kept in the node, not in trie.nodes: most
 * nodes have one child, and a chain of objects (a long linked list) is a path one node longer
 * per object, which hashed cost a random probe and a table of its own per object. */
typedef struct tnode {
    uint32_t parent, src, dst, step, kid, kid_step;
} tnode; /* dst HK_NONE: an anchor */

/* A step's key, and its string once made: one string stands for every (src, dst) with the key,
 * as the key holds what the string says (the holder's kind and class and the field, by the
 * same first-field-holding-dst rule), but for a class object's reference that is no static
 * field (its super class, loader, ...), whose string depends on dst. */
typedef struct step_info {
    uint64_t key;
    char *name;
} step_info;

/* How an instance class's strong reference slots (the graph's, in its edge list's order) sit
 * in its layout, built when first asked for (start: 1 + the first in trie.layout_at, 0 not
 * yet), and the first of its reference fields that is no strong slot (a weak referent, ART's
 * shadow$_klass_): up to there the edge list tells the first field holding an object. */
typedef struct slot_map {
    uint32_t start, first_other;
} slot_map;

/* A matched object's path id is kept in the high half of its hkd_obj.pid (0 unknown), the
 * low half keeping which of its first strong slots are null (hkd_tally): with its edge list
 * they tell which field holds an entry without reading its record.  Path ids from
 * HKD_PID_BIG on are kept in big_pids.  The trie lives as long as the diff. */
typedef struct hkd_trie {
    hkd_side *sd;
    hk_idmap big_pids;   /* object + 1 -> path id, where it does not fit */
    uint32_t *big_dense; /* by object: path id, instead of big_pids once many do not fit */
    slot_map *smap;      /* by class index */
    uint32_t *layout_at; /* by strong slot: its field's index in the layout */
    size_t layout_n, layout_cap;
    hk_idmap steps; /* step key -> step id */
    uint32_t nsteps;
    step_info *step; /* by step id */
    size_t step_cap;
    /* render's buffers */
    uint32_t (*pairs)[2];
    const char **names;
    size_t pairs_cap, names_cap;
    hk_idmap nodes; /* parent << 32 | step id -> path id, for a node's children after its first */
    tnode *node;    /* by path id; 0 is unused */
    size_t nnode, cap;
    /* the steps interned last, by a hash of (parent, step key): entries come by holder, and
     * the elements of an array, the fields of a holder and holders at the same place repeat
     * a few steps many times (id 0: none) */
    struct {
        uint64_t key;
        uint32_t parent, id;
    } memo[MEMO];
} trie;

static const slot_map *slot_map_of(trie *t, uint32_t c)
{
    hk_dump *d = t->sd->d;
    if (!t->smap) t->smap = hk_xcalloc(hk_view(d)->nclasses, sizeof *t->smap);
    slot_map *m = &t->smap[c];
    if (m->start) return m;
    const hk_graph *g = hkg_of(d);
    const hkg_class_refs *cr = &g->cls[c];
    uint32_t nf, j = 0;
    const hk_field *f = hk_class_layout(d, &hk_view(d)->classes[c], &nf);
    t->layout_at = hk_grow(t->layout_at, &t->layout_cap, t->layout_n + cr->count + 1, sizeof *t->layout_at);
    m->start = (uint32_t)t->layout_n + 1;
    m->first_other = HK_NONE;
    for (uint32_t k = 0; k < nf; k++) {
        if (f[k].type != HK_T_OBJECT) continue;
        if (j < cr->count && g->ref_offs[cr->start + j] == f[k].offset) t->layout_at[t->layout_n + j++] = k;
        else if (m->first_other == HK_NONE) m->first_other = k;
    }
    if (j < cr->count) m->first_other = 0; /* not laid out as the graph's slots: read records */
    t->layout_n += cr->count;
    return m;
}

/* The layout index of the first field of instance src holding dst, from its edge list when its
 * note bits (the low half of its hkd_obj.pid, its slots beyond 16 null) say which of its strong
 * slots are null and every other one holds an object of the dump (HK_NONE: read the record). */
static uint32_t field_by_edges(trie *t, uint32_t src, uint32_t dst, uint32_t c)
{
    const hkd_side *sd = t->sd;
    const hk_graph *g = hkg_of(sd->d);
    if (!g || !(g->done & HK_GRAPH_REFS) || g->cls[c].count > 32) return HK_NONE;
    uint32_t bits = sd->o[src].refbits & 0xffff, nout, j = 0;
    const uint32_t *out = hkg_out(g, src, &nout);
    if ((uint32_t)__builtin_popcount(bits) != nout) return HK_NONE;
    while (j < nout && out[j] != dst) j++;
    if (j == nout) return HK_NONE; /* held by a field the graph keeps apart */
    for (uint32_t i = 0; i < j; i++) bits &= bits - 1;
    const slot_map *m = slot_map_of(t, c);
    uint32_t k = t->layout_at[m->start - 1 + (uint32_t)__builtin_ctz(bits)];
    /* a strong slot is never first_other itself, but for the 0 of an odd layout */
    return m->first_other <= k ? HK_NONE : k;
}

/* The layout index of the first field of instance src holding dst, read from its record. */
static uint32_t field_by_record(hk_dump *d, uint32_t src, uint32_t dst, uint32_t c)
{
    uint32_t nf, len;
    const uint8_t *data = hk_instance_data(d, src, &len);
    if (!data) return 0xffffff;
    hk_id want = hk_obj_id(d, dst);
    const hk_field *f = hk_class_layout(d, &hk_view(d)->classes[c], &nf);
    for (uint32_t k = 0; k < nf; k++) {
        if (f[k].type != HK_T_OBJECT || f[k].offset + hk_view(d)->id_size > len) continue;
        if (hk_be_id(d, data + f[k].offset) == want) return k;
    }
    return 0xffffff;
}

/* Which reference slot of src holds dst: field index, static index, or one for all elements. */
static uint64_t step_key(trie *t, uint32_t src, uint32_t dst)
{
    const hkd_side *sd = t->sd;
    hk_dump *d = sd->d;
    int kind = hkd_kind(sd, src);
    uint64_t slot = 0xffffff, cls = hkd_cls(sd, src);
    if (kind == HK_KIND_CLASS) {
        hk_id want = hk_obj_id(d, dst);
        hk_class *c = hk_class_by_id(d, hk_obj_id(d, src));
        if (c) {
            cls = c->index;
            for (uint32_t k = 0; k < c->nstatics; k++)
                if (c->statics[k].type == HK_T_OBJECT && c->statics[k].value.ref == want) {
                    slot = k;
                    break;
                }
        }
    } else if (kind == HK_KIND_INSTANCE && cls < hk_view(d)->nclasses) {
        uint32_t k = field_by_edges(t, src, dst, (uint32_t)cls);
        slot = k != HK_NONE ? k : field_by_record(d, src, dst, (uint32_t)cls);
    }
    return (uint64_t)(3 + kind) << 58 | cls << 24 | slot;
}

/* An anchor's key: a class object's class, or a root's type (what names it: roots of a type
 * are one anchor, and the paths below them are counted together as they are shown). */
static uint64_t anchor_key(hkd_side *sd, uint32_t a)
{
    hk_dump *d = sd->d;
    if (hkd_kind(sd, a) == HK_KIND_CLASS) {
        hk_class *c = hk_class_by_id(d, hk_obj_id(d, a));
        return (uint64_t)1 << 58 | (c ? c->index : 0);
    }
    return (uint64_t)2 << 58 | (uint32_t)hkd_root_type(sd, a);
}

static uint32_t intern(trie *t, uint32_t parent, uint64_t key, uint32_t src, uint32_t dst)
{
    uint32_t ms = memo_slot(key, parent);
    if (t->memo[ms].id && t->memo[ms].key == key && t->memo[ms].parent == parent) return t->memo[ms].id;
    int inserted;
    uint32_t *sid = hk_idmap_put(&t->steps, key, t->nsteps + 1, &inserted);
    if (inserted) {
        t->nsteps++;
        t->step = hk_grow(t->step, &t->step_cap, (size_t)t->nsteps + 1, sizeof *t->step);
        t->step[t->nsteps] = (step_info){key, NULL};
    }
    uint32_t step = *sid, id;
    if (t->node[parent].kid && t->node[parent].kid_step == step) id = t->node[parent].kid;
    else {
        uint32_t *p = NULL;
        inserted = 1;
        if (t->node[parent].kid)
            p = hk_idmap_put(&t->nodes, (uint64_t)parent << 32 | step, (uint32_t)t->nnode, &inserted);
        id = p ? *p : (uint32_t)t->nnode;
        if (inserted) {
            t->node = hk_grow(t->node, &t->cap, t->nnode + 1, sizeof *t->node);
            t->node[t->nnode++] = (tnode){parent, src, dst, step, 0, 0};
            if (!p) {
                t->node[parent].kid = id;
                t->node[parent].kid_step = step;
            }
        }
    }
    t->memo[ms].key = key;
    t->memo[ms].parent = parent;
    return t->memo[ms].id = id;
}

static uint32_t pid_get(const trie *t, uint32_t obj)
{
    uint32_t p = t->sd->o[obj].pid >> 16;
    if (p != HKD_PID_BIG) return p;
    return t->big_dense ? t->big_dense[obj] : *hk_idmap_get(&t->big_pids, (uint64_t)obj + 1);
}

static void pid_set(trie *t, uint32_t obj, uint32_t pid)
{
    hkd_obj *o = &t->sd->o[obj];
    if (pid >= HKD_PID_BIG) {
        size_t nobj = hk_view(t->sd->d)->nobjects;
        if (!t->big_dense && t->big_pids.len >= nobj / 16) { /* 4 bytes an object beat ~20 an entry */
            t->big_dense = hk_xcalloc(nobj, sizeof *t->big_dense);
            for (size_t k = 0; k < t->big_pids.cap; k++)
                if (t->big_pids.keys[k]) t->big_dense[t->big_pids.keys[k] - 1] = t->big_pids.vals[k];
            hk_idmap_free(&t->big_pids);
        }
        if (t->big_dense) t->big_dense[obj] = pid;
        else {
            int inserted;
            *hk_idmap_put(&t->big_pids, (uint64_t)obj + 1, pid, &inserted) = pid;
        }
        pid = HKD_PID_BIG;
    }
    o->pid = (o->pid & 0xffff) | pid << 16;
}

/* The path id of a matched object: walk up to the first object with one, then come back down. */
static uint32_t path_of(trie *t, uint32_t obj, uint32_t **stack, size_t *cap)
{
    hkd_side *sd = t->sd;
    size_t n = 0;
    uint32_t x = obj, pid;
    while (!(pid = pid_get(t, x))) {
        *stack = hk_grow(*stack, cap, n + 1, sizeof **stack);
        (*stack)[n++] = x;
        if (sd->o[x].via >= hk_view(sd->d)->nobjects) break;
        x = sd->o[x].via;
    }
    while (n--) {
        uint32_t y = (*stack)[n], up = sd->o[y].via;
        if (up >= hk_view(sd->d)->nobjects) pid = intern(t, 0, anchor_key(sd, y), y, HK_NONE);
        else pid = intern(t, pid, step_key(t, up, y), up, y);
        pid_set(t, y, pid);
    }
    return pid;
}

/* The string of a path node's step, made once per step key where it can be (NULL: made by
 * hkd_render each time). */
static const char *step_name(trie *t, const tnode *nd)
{
    step_info *si = &t->step[nd->step];
    if ((int)(si->key >> 58) - 3 == HK_KIND_CLASS && (si->key & 0xffffff) == 0xffffff) return NULL;
    if (!si->name) {
        hk_buf b;
        hk_buf_init(&b);
        hkd_step(t->sd->d, nd->src, nd->dst, &b);
        si->name = hk_xstrdup(hk_buf_cstr(&b));
        hk_buf_free(&b);
    }
    return si->name;
}

/* The string of a path id. */
static void render(trie *t, uint32_t id, hk_buf *out)
{
    size_t n = 0;
    while (t->node[id].dst != HK_NONE && n < HKD_MAX_DEPTH) {
        t->pairs = hk_grow(t->pairs, &t->pairs_cap, n + 1, sizeof *t->pairs);
        t->names = hk_grow(t->names, &t->names_cap, n + 1, sizeof *t->names);
        t->pairs[n][0] = t->node[id].src;
        t->pairs[n][1] = t->node[id].dst;
        t->names[n] = step_name(t, &t->node[id]);
        n++;
        id = t->node[id].parent;
    }
    int cut = t->node[id].dst != HK_NONE;
    uint32_t(*pairs)[2] = t->pairs;
    const char **names = t->names;
    for (size_t k = 0; k < n / 2; k++) {
        uint32_t a = pairs[k][0], b = pairs[k][1];
        const char *nm = names[k];
        pairs[k][0] = pairs[n - 1 - k][0];
        pairs[k][1] = pairs[n - 1 - k][1];
        names[k] = names[n - 1 - k];
        pairs[n - 1 - k][0] = a;
        pairs[n - 1 - k][1] = b;
        names[n - 1 - k] = nm;
    }
    hkd_render(t->sd, cut ? pairs[0][0] : t->node[id].src, cut, (const uint32_t(*)[2])pairs, names, (uint32_t)n, out);
}

/* ---- groups ---- */

typedef struct acc {
    uint32_t path, rep;
    uint64_t entries, objects, bytes;
} acc; /* rep: an entry, for its class name */

static uint64_t fnv(const char *s, uint64_t h)
{
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
    return h;
}

typedef struct grouper {
    hk_idmap by_key; /* hash of (path, class) -> group index */
    hk_diff_group *g;
    size_t n, cap;
} grouper;

static hk_diff_group *group_for(grouper *gr, const char *path, const char *cls)
{
    uint64_t key = fnv(cls, fnv(path, 0xcbf29ce484222325ULL)) | 1;
    for (;; key += 2) {
        int inserted;
        uint32_t *v = hk_idmap_put(&gr->by_key, key, (uint32_t)gr->n, &inserted);
        if (inserted) {
            gr->g = hk_grow(gr->g, &gr->cap, gr->n + 1, sizeof *gr->g);
            gr->g[gr->n] = (hk_diff_group){hk_xstrdup(path), cls, 0, 0, 0};
            return &gr->g[gr->n++];
        }
        hk_diff_group *x = &gr->g[*v];
        if (!strcmp(x->path, path) && !strcmp(x->cls, cls)) return x;
    }
}

static int group_cmp(const void *x, const void *y)
{
    const hk_diff_group *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes < b->bytes ? 1 : -1;
    int c = strcmp(a->path, b->path);
    return c ? c : strcmp(a->cls, b->cls);
}

static const char *class_name(hk_dump *d, uint32_t obj)
{
    if (hk_obj_kind(d, obj) == HK_KIND_CLASS) return "java.lang.Class";
    const char *n = hk_obj_class_name(d, obj);
    return n ? n : "?";
}

/* The class name of an accumulator's objects, read from its first object's record once per
 * class the matcher read (names[]: by class index, then primitive arrays by element type);
 * the rare objects whose class it could not tell apart are read each time. */
static const char *acc_class_name(const hkd_side *sd, uint32_t obj, const char **names)
{
    uint32_t c = hkd_cls(sd, obj), nc = hk_view(sd->d)->nclasses, slot;
    if (c < nc) slot = c;
    else if (c >= HKD_PRIM(4) && c < HKD_PRIM(12)) slot = nc + (c - HKD_PRIM(4));
    else return class_name(sd->d, obj);
    if (!names[slot]) names[slot] = class_name(sd->d, obj);
    return names[slot];
}

static trie *trie_of(hkd_side *sd)
{
    if (sd->trie) return sd->trie;
    trie *t = hk_xcalloc(1, sizeof *t);
    t->sd = sd;
    t->nnode = 1;
    hk_idmap_init(&t->steps);
    hk_idmap_init(&t->nodes);
    hk_idmap_init(&t->big_pids);
    t->node = hk_grow(NULL, &t->cap, 1, sizeof *t->node);
    t->node[0] = (tnode){0, HK_NONE, HK_NONE, 0, 0, 0}; /* the anchors' parent: kid is read */
    return sd->trie = t;
}

void hkd_trie_free(trie *t)
{
    if (!t) return;
    hk_idmap_free(&t->steps);
    hk_idmap_free(&t->nodes);
    hk_idmap_free(&t->big_pids);
    free(t->big_dense);
    free(t->smap);
    free(t->layout_at);
    for (uint32_t k = 1; k <= t->nsteps; k++) free(t->step[k].name);
    free(t->step);
    free(t->node);
    free(t->pairs);
    free(t->names);
    free(t);
}

/* The entries are read in order, their holders' edge lists (step_key) all over the heap: what
 * entry k + 32 needs is asked for a few entries ahead, each step once the one before it is in.
 * The lists themselves are read by loads of their own, a group at a time: unlike a prefetch,
 * a load also fetches a line whose page the TLB misses, and the loads of a short loop run side
 * by side.  A holder's record is read only when its edges do not tell (field_by_edges). */
enum { GROUP = 32 };
static void prefetch_holder(const hkd_side *sd, uint32_t k)
{
    const hk_dump *d = sd->d;
    const hk_graph *g = hkg_of(d);
    const uint32_t *ent = sd->entries, n = sd->nentries;
    if (!g || !(g->done & HK_GRAPH_REFS)) return;
    if (k + 96 < n) __builtin_prefetch(&sd->o[ent[k + 96]]);
    if (k + 64 < n) {
        uint32_t h = sd->o[ent[k + 64]].via;
        if (h < hk_view(d)->nobjects) {
            __builtin_prefetch(&g->out_start[h]);
            __builtin_prefetch(&sd->o[h]);
        }
    }
    if (k % GROUP) return;
    for (uint32_t i = k + GROUP, prev = HK_NONE; i < k + 2 * GROUP && i < n; i++) {
        uint32_t h = sd->o[ent[i]].via;
        if (h < hk_view(d)->nobjects && h != prev && hkd_kind(sd, h) == HK_KIND_INSTANCE &&
            g->out_start[h + 1] > g->out_start[h]) {
            const volatile uint32_t *e = g->out + g->out_start[h];
            (void)e[0];
        }
        prev = h;
    }
}

/* Accumulators by (entry path id, class), and a[0] for what no entry reaches. */
static acc *accumulate(trie *t, hkd_side *sd, size_t *nacc)
{
    uint32_t *stack = NULL;
    size_t scap = 0, na = 1, acap = 0;
    /* the accumulators found last, by a hash of their key (slot 0: none) */
    struct amemo {
        uint64_t akey;
        uint32_t slot;
    } *memo = hk_xcalloc(MEMO, sizeof *memo);
    hk_idmap acc_of;
    hk_idmap_init(&acc_of);
    acc *a = hk_grow(NULL, &acap, 1, sizeof *a);
    a[0] = (acc){0, HK_NONE, 0, sd->unmatched, sd->unmatched_bytes};
    for (uint32_t k = 0; k < sd->nentries; k++) {
        prefetch_holder(sd, k);
        uint32_t e = sd->entries[k], h = sd->o[e].via;
        uint32_t path = h == HKD_ANCHOR ? intern(t, 0, anchor_key(sd, e), e, HK_NONE)
                                        : intern(t, path_of(t, h, &stack, &scap), step_key(t, h, e), h, e);
        uint64_t akey = (uint64_t)path << 32 | hkd_cls(sd, e);
        struct amemo *m = &memo[memo_slot(akey, 0)];
        if (!m->slot || m->akey != akey) {
            int inserted;
            uint32_t *slot = hk_idmap_put(&acc_of, akey, (uint32_t)na, &inserted);
            if (inserted) {
                a = hk_grow(a, &acap, na + 1, sizeof *a);
                a[na++] = (acc){path, e, 0, 0, 0};
            }
            m->akey = akey;
            m->slot = *slot;
        }
        acc *x = &a[m->slot];
        x->entries++;
        x->objects += sd->ent_objects[k];
        x->bytes += sd->ent_bytes[k];
        a[0].objects -= sd->ent_objects[k];
        a[0].bytes -= sd->ent_bytes[k];
    }
    free(stack);
    free(memo);
    hk_idmap_free(&acc_of);
    *nacc = na;
    return a;
}

/* The rows taken the first time, copied. */
static void cached_rows(const hkd_side *sd, hk_diff_group **rows, uint32_t *n)
{
    *rows = hk_xcalloc((size_t)sd->ngroups + 1, sizeof **rows);
    for (uint32_t k = 0; k < sd->ngroups; k++) {
        (*rows)[k] = sd->groups[k];
        (*rows)[k].path = hk_xstrdup(sd->groups[k].path);
    }
    *n = sd->ngroups;
}

/* The rows of hk_diff_by_path, computed (once: they do not change). */
static void groups_of(hk_diff *df, int side, hk_diff_group **rows, uint32_t *n)
{
    hkd_side *sd = &df->s[side];
    hk_dump *d = sd->d;
    hkd_tally(df, side);
    trie *t = trie_of(sd);
    size_t na;
    acc *a = accumulate(t, sd, &na);
    grouper gr = {0};
    hk_idmap_init(&gr.by_key);
    hk_buf path;
    hk_buf_init(&path);
    const char **names = hk_xcalloc((size_t)hk_view(d)->nclasses + 8, sizeof *names);
    for (size_t k = 0; k < na; k++) {
        if (!a[k].objects) continue;
        hk_buf_reset(&path);
        if (!a[k].path) hk_buf_puts(&path, "(not reached from the matched heap)");
        else render(t, a[k].path, &path);
        hk_diff_group *grp =
            group_for(&gr, hk_buf_cstr(&path), a[k].rep == HK_NONE ? "(various)" : acc_class_name(sd, a[k].rep, names));
        grp->entries += a[k].entries;
        grp->objects += a[k].objects;
        grp->bytes += a[k].bytes;
    }
    hk_buf_free(&path);
    free(names);
    hk_idmap_free(&gr.by_key);
    free(a);
    if (gr.n > 1) qsort(gr.g, gr.n, sizeof *gr.g, group_cmp);
    *rows = gr.g;
    *n = (uint32_t)gr.n;
}

int hk_diff_by_path(hk_diff *df, int side, hk_diff_group **rows, uint32_t *n)
{
    hkd_side *sd = &df->s[side];
    if (!sd->groups) groups_of(df, side, &sd->groups, &sd->ngroups);
    cached_rows(sd, rows, n);
    return 0;
}

void hk_diff_groups_free(hk_diff_group *rows, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) free(rows[k].path);
    free(rows);
}
