/* HotSpot's field packing (JDK 15+, FieldLayoutBuilder): an instance's fields after the header,
 * primitives largest first, then references, each in the smallest hole of the superclasses'
 * layout that fits it (the last such hole on ties), else at the end; @Contended groups padded
 * 128 bytes on both sides, after everything else.  The fields the JVM injects and the dump does
 * not list, and the JDK's @Contended fields, come from the tables below: they change with the
 * JDK's feature version (the dump's own, hk_origin_jdk), so each row says from which version
 * and up to which it holds.  Checked against the histograms of JDK 17, 21 and 25. */
#include "hprof/hprof_layout.h"
#include "hprof/hprof_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

enum { PAD = 128 }; /* ContendedPaddingWidth */

/* since, until: the JDK feature versions the row holds for (0: no bound) */
static const struct injected {
    const char *cls, *field;
    uint8_t type, since, until;
} injected[] = {
    {"java.lang.String", "flags", HK_T_BYTE, 0, 0},
    {"java.lang.Class", "klass", HK_T_LONG, 0, 0},
    {"java.lang.Class", "array_klass", HK_T_LONG, 0, 0},
    {"java.lang.Class", "oop_size", HK_T_INT, 0, 0},
    {"java.lang.Class", "static_oop_field_count", HK_T_INT, 0, 0},
    {"java.lang.Class", "protection_domain", HK_T_OBJECT, 0, 0},
    {"java.lang.Class", "signers", HK_T_OBJECT, 0, 0},
    {"java.lang.Class", "source_file", HK_T_OBJECT, 0, 0},
    {"java.lang.ClassLoader", "loader_data", HK_T_LONG, 0, 0},
    {"java.lang.invoke.ResolvedMethodName", "vmholder", HK_T_OBJECT, 0, 0},
    {"java.lang.invoke.ResolvedMethodName", "vmtarget", HK_T_LONG, 0, 0},
    {"java.lang.invoke.MemberName", "vmindex", HK_T_LONG, 0, 0},
    {"java.lang.invoke.MethodHandleNatives$CallSiteContext", "vmdependencies", HK_T_LONG, 0, 0},
    {"java.lang.invoke.MethodHandleNatives$CallSiteContext", "last_cleanup", HK_T_LONG, 0, 0},
    {"java.lang.StackFrameInfo", "version", HK_T_SHORT, 0, 0},
    {"java.lang.Module", "module_entry", HK_T_LONG, 0, 0},
    {"java.lang.InternalError", "during_unsafe_access", HK_T_BOOLEAN, 0, 0},
    /* JDK 19's Thread (virtual threads): the JVMTI state and JFR's epoch; JDK 21 adds the two
     * fields that track a virtual thread's mount and unmount for JVMTI */
    {"java.lang.Thread", "jvmti_thread_state", HK_T_LONG, 19, 0},
    {"java.lang.Thread", "jfr_epoch", HK_T_SHORT, 19, 0},
    {"java.lang.Thread", "jvmti_VTMS_transition_disable_count", HK_T_INT, 21, 0},
    {"java.lang.Thread", "jvmti_is_in_VTMS_transition", HK_T_BOOLEAN, 21, 0},
};

/* field NULL: the whole class is @Contended */
static const struct contended {
    const char *cls, *field, *group;
    uint8_t since, until;
} contended[] = {
    {"java.util.concurrent.ConcurrentHashMap$CounterCell", NULL, NULL, 0, 0},
    {"java.util.concurrent.atomic.Striped64$Cell", NULL, NULL, 0, 0},
    {"java.util.concurrent.Exchanger$Node", NULL, NULL, 0, 0},
    {"java.util.concurrent.SubmissionPublisher$BufferedSubscription", NULL, NULL, 0, 0},
    {"java.util.concurrent.SubmissionPublisher$BufferedSubscription", "demand", "c", 0, 0},
    {"java.util.concurrent.SubmissionPublisher$BufferedSubscription", "waiting", "c", 0, 0},
    /* JDK 19's Thread no longer pads ThreadLocalRandom's fields */
    {"java.lang.Thread", "threadLocalRandomSeed", "tlr", 0, 18},
    {"java.lang.Thread", "threadLocalRandomProbe", "tlr", 0, 18},
    {"java.lang.Thread", "threadLocalRandomSecondarySeed", "tlr", 0, 18},
    {"java.util.concurrent.ForkJoinPool", "ctl", "fjpctl", 0, 0},
    {"java.util.concurrent.ForkJoinPool$WorkQueue", "top", "w", 0, 0},
    {"java.util.concurrent.ForkJoinPool$WorkQueue", "source", "w", 0, 0},
    {"java.util.concurrent.ForkJoinPool$WorkQueue", "nsteals", "w", 0, 0},
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Whether a row from since to until (0: no bound) holds for JDK jdk. */
static int in_jdk(int jdk, uint8_t since, uint8_t until)
{
    return (!since || jdk >= since) && (!until || jdk <= until);
}

typedef struct blk {
    uint32_t off, size;
} blk;

/* One class's layout in the making: its holes (by offset) and where its end is. */
typedef struct lay {
    blk *holes;
    size_t nholes, cap;
    uint32_t end;
} lay;

/* A field to place: its size and its @Contended group (0: none, -1: its own, else an index). */
typedef struct fld {
    uint32_t size;
    int group;
} fld;

/* Every class's own fields as placed, and what subclasses inherit. */
typedef struct model {
    const hk_dump *d;
    const hk_layout *L;
    int jdk;         /* the JDK's feature version the tables are read for */
    uint8_t *state;  /* 1: laid out */
    uint8_t *padded; /* the class or a superclass has @Contended fields */
    uint32_t *size, *first, *count;
    blk *own;
    size_t nown, capown;
} model;

static void hole_insert(lay *l, size_t at, uint32_t off, uint32_t size)
{
    l->holes = hk_grow(l->holes, &l->cap, l->nholes + 1, sizeof *l->holes);
    memmove(&l->holes[at + 1], &l->holes[at], (l->nholes - at) * sizeof *l->holes);
    l->holes[at] = (blk){off, size};
    l->nholes++;
}

/* Places s bytes aligned to s: in the smallest hole that fits (the last of equal ones) unless
 * append, else at the end (the alignment gap becomes a hole). */
static uint32_t place(lay *l, uint32_t s, int append)
{
    size_t best = SIZE_MAX;
    for (size_t k = l->nholes; !append && k-- > 0;) {
        const blk *h = &l->holes[k];
        uint32_t adj = (s - h->off % s) % s;
        if (h->size >= s + adj && (best == SIZE_MAX || h->size < l->holes[best].size)) best = k;
    }
    if (best != SIZE_MAX) {
        blk h = l->holes[best];
        uint32_t adj = (s - h.off % s) % s, at = h.off + adj, rest = h.size - adj - s;
        memmove(&l->holes[best], &l->holes[best + 1], (l->nholes - best - 1) * sizeof *l->holes);
        l->nholes--;
        if (rest) hole_insert(l, best, at + s, rest);
        if (adj) hole_insert(l, best, h.off, adj);
        return at;
    }
    uint32_t at = (l->end + s - 1) / s * s;
    if (at > l->end) hole_insert(l, l->nholes, l->end, at - l->end);
    l->end = at + s;
    return at;
}

static int cmp_off(const void *a, const void *b)
{
    const blk *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The superclasses' fields at their offsets, the gaps between them as holes. */
static void inherit(model *m, uint32_t sup, lay *l)
{
    blk *all = NULL;
    size_t n = 0, cap = 0;
    for (uint32_t k = sup; k != HK_NONE; k = m->d->view.classes[k].super)
        for (uint32_t i = 0; i < m->count[k]; i++) {
            all = hk_grow(all, &cap, n + 1, sizeof *all);
            all[n++] = m->own[m->first[k] + i];
        }
    if (n) qsort(all, n, sizeof *all, cmp_off);
    l->end = m->L->header;
    for (size_t i = 0; i < n; i++) {
        if (all[i].off > l->end) hole_insert(l, l->nholes, l->end, all[i].off - l->end);
        if (all[i].off + all[i].size > l->end) l->end = all[i].off + all[i].size;
    }
    free(all);
}

static uint32_t type_bytes(const model *m, int type)
{
    return type == HK_T_OBJECT ? m->L->ref : (uint32_t)hk_type_size_fast(8, type);
}

/* The @Contended group of a field: 0 none, -1 alone, else 1 + the table row of its group. */
static int group_of(int jdk, const char *cls, const char *field)
{
    for (size_t k = 0; k < NELEM(contended); k++) {
        if (!contended[k].field || !in_jdk(jdk, contended[k].since, contended[k].until) ||
            strcmp(contended[k].cls, cls) || strcmp(contended[k].field, field))
            continue;
        if (!contended[k].group) return -1;
        for (size_t j = 0; j <= k; j++)
            if (contended[j].group && !strcmp(contended[j].cls, cls) && !strcmp(contended[j].group, contended[k].group))
                return (int)j + 1;
    }
    return 0;
}

static int class_contended(int jdk, const char *cls)
{
    for (size_t k = 0; k < NELEM(contended); k++)
        if (!contended[k].field && in_jdk(jdk, contended[k].since, contended[k].until) &&
            !strcmp(contended[k].cls, cls))
            return 1;
    return 0;
}

/* c's own fields, the injected ones after the dump's. */
static size_t own_fields(const model *m, const hk_class *c, fld *out, size_t cap, uint8_t *is_ref)
{
    size_t n = 0;
    for (uint16_t i = 0; i < c->nfields && n < cap; i++) {
        is_ref[n] = c->fields[i].type == HK_T_OBJECT;
        out[n++] = (fld){type_bytes(m, c->fields[i].type), group_of(m->jdk, c->obf_name, c->fields[i].obf_name)};
    }
    for (size_t k = 0; k < NELEM(injected) && n < cap; k++) {
        if (strcmp(injected[k].cls, c->obf_name) || !in_jdk(m->jdk, injected[k].since, injected[k].until)) continue;
        int listed = 0;
        for (uint16_t i = 0; i < c->nfields; i++) listed |= !strcmp(c->fields[i].obf_name, injected[k].field);
        if (listed) continue;
        is_ref[n] = injected[k].type == HK_T_OBJECT;
        out[n++] = (fld){type_bytes(m, injected[k].type), 0};
    }
    return n;
}

/* Places the fields of group g: primitives largest first, then references. */
static void place_group(lay *l, const fld *f, size_t n, int g, int append, uint32_t *offs, const uint8_t *is_ref)
{
    static const uint32_t sizes[] = {8, 4, 2, 1};
    for (int refs = 0; refs < 2; refs++)
        for (size_t s = 0; s < 4; s++)
            for (size_t i = 0; i < n; i++)
                if (f[i].group == g && f[i].size == sizes[s] && is_ref[i] == refs)
                    offs[i] = place(l, f[i].size, append);
}

/* The groups after the others, each padded before; a field @Contended alone is a group. */
static int place_contended(lay *l, fld *f, size_t n, uint32_t *offs, const uint8_t *is_ref)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        if (f[i].group < 0) f[i].group = 1000000 + (int)i;
    for (size_t i = 0; i < n; i++) {
        int first = f[i].group != 0;
        for (size_t j = 0; j < i && first; j++) first = f[j].group != f[i].group;
        if (!first) continue;
        l->end += PAD;
        place_group(l, f, n, f[i].group, 1, offs, is_ref);
        any = 1;
    }
    return any;
}

/* Lays out class c, whose superclass is done. */
static void lay_class(model *m, uint32_t c)
{
    const hk_class *k = &m->d->view.classes[c];
    uint32_t sup = k->super;
    lay l = {0};
    inherit(m, sup, &l);
    int append = sup != HK_NONE && m->padded[sup], whole = class_contended(m->jdk, k->obf_name);
    if (append) l.end += PAD;
    if (whole) l.end += PAD;
    size_t cap = (size_t)k->nfields + NELEM(injected);
    fld *f = hk_xmalloc(cap * sizeof *f);
    uint32_t *offs = hk_xmalloc(cap * sizeof *offs);
    uint8_t *is_ref = hk_xmalloc(cap);
    size_t n = own_fields(m, k, f, cap, is_ref);
    place_group(&l, f, n, 0, append || whole, offs, is_ref);
    int tail = place_contended(&l, f, n, offs, is_ref) || whole;
    if (tail) l.end += PAD;
    m->padded[c] = (uint8_t)(tail || append);
    m->first[c] = (uint32_t)m->nown;
    m->count[c] = (uint32_t)n;
    m->own = hk_grow(m->own, &m->capown, m->nown + n + 1, sizeof *m->own);
    for (size_t i = 0; i < n; i++) m->own[m->nown++] = (blk){offs[i], f[i].size};
    uint32_t a = m->L->align, end = (l.end + 7) / 8 * 8;
    m->size[c] = (end + a - 1) / a * a;
    free(f);
    free(offs);
    free(is_ref);
    free(l.holes);
}

/* Every class, each after its superclasses (the index refused superclass cycles). */
static void lay_all(model *m)
{
    uint32_t nc = m->d->view.nclasses, *chain = hk_xmalloc((nc + 1) * sizeof *chain);
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t n = 0;
        for (uint32_t k = c; k != HK_NONE && !m->state[k] && n < nc; k = m->d->view.classes[k].super) chain[n++] = k;
        while (n-- > 0) {
            lay_class(m, chain[n]);
            m->state[chain[n]] = 1;
        }
    }
    free(chain);
}

/* A class object: java.lang.Class's instance, then the statics (references first, together,
 * then the primitives largest first), as the JVM lays out a mirror. */
static uint64_t mirror_size(const model *m, const hk_class *c, uint32_t class_size)
{
    static const uint32_t sizes[] = {8, 4, 2, 1};
    uint64_t end = class_size;
    for (uint16_t i = 0; i < c->nstatics; i++)
        if (c->statics[i].type == HK_T_OBJECT && c->statics[i].obf_name[0] != '<') end += m->L->ref;
    for (size_t s = 0; s < 4; s++)
        for (uint16_t i = 0; i < c->nstatics; i++) {
            const hk_static *st = &c->statics[i];
            if (st->type == HK_T_OBJECT || st->obf_name[0] == '<' || type_bytes(m, st->type) != sizes[s]) continue;
            end = (end + sizes[s] - 1) / sizes[s] * sizes[s] + sizes[s];
        }
    uint64_t a = m->L->align;
    return ((end + 7) / 8 * 8 + a - 1) / a * a;
}

void hk_layout_classes(const hk_dump *d, const hk_layout *L, int jdk, uint32_t *isz, uint64_t *msz)
{
    model m = {.d = d, .L = L, .jdk = jdk};
    uint32_t nc = d->view.nclasses ? d->view.nclasses : 1;
    m.state = hk_xcalloc(nc, 1);
    m.padded = hk_xcalloc(nc, 1);
    m.size = isz;
    m.first = hk_xcalloc(nc, sizeof *m.first);
    m.count = hk_xcalloc(nc, sizeof *m.count);
    lay_all(&m);
    uint32_t class_size = d->view.class_class != HK_NONE ? isz[d->view.class_class] : (L->header + 7u) / 8 * 8;
    for (uint32_t c = 0; c < d->view.nclasses; c++) msz[c] = mirror_size(&m, &d->view.classes[c], class_size);
    free(m.state);
    free(m.padded);
    free(m.first);
    free(m.count);
    free(m.own);
}
