/* Choosing a dump's layout and writing its sizes over the classes' and the histogram's. */
#include "hprof/hprof_layout.h"
#include "hprof/hprof_internal.h"
#include "util/hk_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char selected[24] = "auto";

static const struct named {
    const char *name;
    hk_layout l;
} named[] = {
    {"compressed", {12, 4, 8, 0}},
    {"plain", {16, 8, 8, 0}},
    {"compact", {8, 4, 8, 1}},
    {"32-bit", {8, 4, 8, 1}},
};

int hk_layout_parse(const char *s, hk_layout *out, int *auto_, int *dump_, char *err, size_t errlen)
{
    *auto_ = !strcmp(s, "auto");
    *dump_ = !strcmp(s, "dump");
    if (*auto_ || *dump_) return 0;
    char base[24];
    snprintf(base, sizeof base, "%s", s);
    size_t n = strlen(base);
    int j22 = n > 6 && !strcmp(base + n - 6, "-jdk22");
    if (j22) base[n - 6] = 0;
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++)
        if (!strcmp(base, named[k].name)) {
            *out = named[k].l;
            out->elem_aligned |= (uint8_t)j22;
            return 0;
        }
    unsigned h = 0, r = 0, a = 8;
    int used = 0, got = sscanf(base, "%u/%u%n/%u%n", &h, &r, &used, &a, &used);
    if (got >= 2 && !base[used] && (h == 8 || h == 12 || h == 16) && (r == 4 || r == 8) && (a == 8 || a == 16)) {
        *out = (hk_layout){(uint8_t)h, (uint8_t)r, (uint8_t)a, (uint8_t)(j22 || h == 8)};
        return 0;
    }
    snprintf(err, errlen,
             "--jvm-layout: '%s' is not a layout: auto, dump, compressed, plain, compact, or HEADER/REF[/ALIGN] "
             "(header 8, 12 or 16; references 4 or 8; alignment 8 or 16), e.g. 12/8",
             s);
    return -1;
}

int hk_layout_select(const char *choice, char *err, size_t errlen)
{
    hk_layout l;
    int a, d;
    if (hk_layout_parse(choice, &l, &a, &d, err, errlen) < 0) return -1;
    snprintf(selected, sizeof selected, "%s", choice);
    return 0;
}

const char *hk_layout_selected(void)
{
    return selected;
}

/* The canonical name of a layout: a named one, else HEADER/REF[/ALIGN]; "-jdk22" when array
 * data is aligned to the element with a 16-byte header. */
static void layout_name(const hk_layout *L, char *out, size_t n)
{
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        const hk_layout *m = &named[k].l;
        if (m->header == L->header && m->ref == L->ref && m->align == L->align) {
            snprintf(out, n, "%s%s", named[k].name, L->elem_aligned && L->header == 16 ? "-jdk22" : "");
            return;
        }
    }
    char a[8] = "";
    if (L->align != 8) snprintf(a, sizeof a, "/%u", L->align);
    snprintf(out, n, "%u/%u%s%s", L->header, L->ref, a, L->elem_aligned && L->header == 16 ? "-jdk22" : "");
}

/* A heap graph is rebuilt in ART's dialect with each object's size; an HPROF a trace embeds is
 * the dump itself, HotSpot's included. */
int hk_dump_is_hotspot(const hk_dump *d)
{
    return strcmp(d->format, "JAVA PROFILE 1.0.3") != 0;
}

const hk_layout_info *hk_dump_layout(const hk_dump *d)
{
    static const hk_layout_info art = {
        .name = "dump",
        .chosen = "auto",
        .why = "ART records each class's object size",
    };
    static const hk_layout_info trace = {
        .name = "dump",
        .chosen = "auto",
        .why = "the heap graph records each object's size",
    };
    return d->layout ? &d->layout->info : d->source && strstr(d->source, "Java heap graph") ? &trace : &art;
}

static hk_layout_state *keep_own_sizes(hk_dump *d)
{
    if (d->layout) return d->layout;
    hk_layout_state *st = hk_xcalloc(1, sizeof *st);
    uint32_t nc = d->view.nclasses;
    st->instance_size = hk_xmalloc((nc + 1) * sizeof *st->instance_size);
    st->static_bytes = hk_xmalloc((nc + 1) * sizeof *st->static_bytes);
    st->class_bytes = hk_xmalloc(((size_t)nc * HK_MAX_HEAPS + 1) * sizeof *st->class_bytes);
    for (uint32_t c = 0; c < nc; c++) {
        st->instance_size[c] = d->view.classes[c].instance_size;
        st->static_bytes[c] = d->view.classes[c].static_bytes;
    }
    memcpy(st->class_bytes, d->class_bytes, (size_t)nc * HK_MAX_HEAPS * sizeof *st->class_bytes);
    memcpy(st->prim_bytes, d->prim_bytes, sizeof st->prim_bytes);
    memcpy(st->class_obj_bytes, d->class_obj_bytes, sizeof st->class_obj_bytes);
    d->layout = st;
    return st;
}

static void restore_own_sizes(hk_dump *d, const hk_layout_state *st)
{
    for (uint32_t c = 0; c < d->view.nclasses; c++) {
        d->view.classes[c].instance_size = st->instance_size[c];
        d->view.classes[c].static_bytes = st->static_bytes[c];
    }
    memcpy(d->class_bytes, st->class_bytes, (size_t)d->view.nclasses * HK_MAX_HEAPS * sizeof *st->class_bytes);
    memcpy(d->prim_bytes, st->prim_bytes, sizeof st->prim_bytes);
    memcpy(d->class_obj_bytes, st->class_obj_bytes, sizeof st->class_obj_bytes);
}

/* Sizes every class and class object under L, and the histogram with them. */
static void apply(hk_dump *d, hk_layout_state *st, const hk_layout *L, int jdk)
{
    uint32_t nc = d->view.nclasses ? d->view.nclasses : 1;
    uint32_t *isz = hk_xcalloc(nc, sizeof *isz);
    uint64_t *msz = hk_xcalloc(nc, sizeof *msz);
    restore_own_sizes(d, st);
    hk_layout_classes(d, L, jdk, isz, msz);
    for (uint32_t c = 0; c < d->view.nclasses; c++) {
        d->view.classes[c].instance_size = isz[c];
        d->view.classes[c].static_bytes = msz[c];
    }
    hk_layout_recount(d, st, L);
    free(isz);
    free(msz);
}

/* The layout for "auto": what the addresses show, else by the ids' range. */
static void choose_auto(const hk_dump *d, int jdk, hk_layout *L, char *why, size_t n)
{
    if (hk_layout_detect(d, jdk, L, why, n)) return;
    uint64_t top = d->view.nobjects ? hk_obj_id(d, d->view.nobjects - 1) : 0;
    if (d->view.id_size == 4) {
        *L = (hk_layout){8, 4, 8, 1};
        snprintf(why, n, "4-byte ids: a 32-bit JVM (8-byte header, 4-byte references)");
    } else if (top < (32ull << 30)) {
        *L = named[0].l;
        snprintf(why, n,
                 "no neighbouring objects sit one object apart (ids are not addresses of a packed heap); every id "
                 "is below 32 GiB, where the JVM's default compressed oops place a heap");
    } else {
        *L = named[1].l;
        snprintf(why, n,
                 "no neighbouring objects sit one object apart (ids are not addresses of a packed heap); ids above "
                 "32 GiB: no compressed oops");
    }
}

/* The JDK whose fields the model uses: the dump's version; without one, JDK 19's Thread (its
 * FieldHolder) says 19 or later, else 17. */
static int jdk_of(hk_dump *d)
{
    int jdk = hk_origin_jdk(d);
    if (jdk) return jdk;
    return hk_class_by_name(d, "java.lang.Thread$FieldHolder") ? 19 : 17;
}

int hk_dump_set_layout(hk_dump *d, const char *choice, char *err, size_t errlen)
{
    hk_layout L;
    int is_auto, is_dump;
    if (!choice) choice = selected;
    if (hk_layout_parse(choice, &L, &is_auto, &is_dump, err, errlen) < 0) return -1;
    if (!hk_dump_is_hotspot(d)) {
        if (d->layout) restore_own_sizes(d, d->layout);
        hk_layout_free(d);
        return 0;
    }
    hk_layout_state *st = keep_own_sizes(d);
    hk_layout_info *in = &st->info;
    memset(in, 0, sizeof *in);
    snprintf(in->chosen, sizeof in->chosen, "%s", is_auto ? "auto" : "option");
    if (is_dump) {
        restore_own_sizes(d, st);
        snprintf(in->name, sizeof in->name, "dump");
        snprintf(in->why, sizeof in->why, "--jvm-layout dump: the field bytes the dump records, no header");
        return 0;
    }
    in->jdk = jdk_of(d);
    if (is_auto) choose_auto(d, in->jdk, &L, in->why, sizeof in->why);
    else snprintf(in->why, sizeof in->why, "--jvm-layout %s", choice);
    in->jvm = 1;
    in->layout = L;
    layout_name(&L, in->name, sizeof in->name);
    if (d->view.id_size == 4 && L.header == 8 && L.ref == 4 && L.align == 8)
        snprintf(in->name, sizeof in->name, "32-bit");
    apply(d, st, &L, in->jdk);
    return 0;
}

void hk_layout_free(hk_dump *d)
{
    hk_layout_state *st = d->layout;
    if (!st) return;
    free(st->instance_size);
    free(st->static_bytes);
    free(st->class_bytes);
    free(st);
    d->layout = NULL;
}
