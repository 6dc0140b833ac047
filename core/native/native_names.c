/* Naming native-profile frames once the whole trace is read (symbols and mappings may follow
 * the samples): ModuleSymbols by module path, build id and relative pc; Java frames of R8-built
 * apps by the trace's DeobfuscationMapping (the package the frame's module names first), then
 * by the caller's R8 map. */
#include "map/map.h"
#include "native/native_internal.h"
#include "util/hk_mem.h"

#include <stdlib.h>
#include <string.h>

#include "trace.pb-c.h"

static const char *own(nr_reader *r, const char *s)
{
    return s ? nr_str(r->p, s, strlen(s)) : NULL;
}

static void add_deob(nr_reader *r, const char *pkg, const char *cls, const char *obf, const char *src, int method)
{
    if (!obf || !src) return;
    r->deobs = hk_grow(r->deobs, &r->capdeobs, r->ndeobs + 1, sizeof *r->deobs);
    nr_deob *d = &r->deobs[r->ndeobs++];
    d->package = pkg;
    d->cls = cls;
    d->obf = own(r, obf);
    d->src = own(r, src);
    d->method = (uint8_t)method;
    d->order = (uint32_t)r->ndeobs;
}

void nr_symbols_add(nr_reader *r, const Perfetto__Protos__TracePacket *tp)
{
    const Perfetto__Protos__ModuleSymbols *ms = tp->module_symbols;
    for (size_t i = 0; ms && i < ms->n_address_symbols; i++) {
        const Perfetto__Protos__AddressSymbols *as = ms->address_symbols[i];
        if (!as->n_lines) continue;
        r->syms = hk_grow(r->syms, &r->capsyms, r->nsyms + 1, sizeof *r->syms);
        nr_symbol *s = &r->syms[r->nsyms++];
        s->path = own(r, ms->path);
        s->build_id = own(r, ms->build_id);
        s->address = as->address;
        s->function = own(r, as->lines[0]->function_name);
        s->source = own(r, as->lines[0]->source_file_name);
        s->line = as->lines[0]->has_line_number ? as->lines[0]->line_number : 0;
    }
    const Perfetto__Protos__DeobfuscationMapping *dm = tp->deobfuscation_mapping;
    const char *pkg = dm ? own(r, dm->package_name ? dm->package_name : "") : NULL;
    for (size_t i = 0; dm && i < dm->n_obfuscated_classes; i++) {
        const Perfetto__Protos__ObfuscatedClass *c = dm->obfuscated_classes[i];
        add_deob(r, pkg, NULL, c->obfuscated_name, c->deobfuscated_name, 0);
        const char *cls = own(r, c->obfuscated_name);
        for (size_t k = 0; k < c->n_obfuscated_methods; k++)
            add_deob(r, pkg, cls, c->obfuscated_methods[k]->obfuscated_name,
                     c->obfuscated_methods[k]->deobfuscated_name, 1);
    }
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int by_address(const void *a, const void *b)
{
    uint64_t x = ((const nr_symbol *)a)->address, y = ((const nr_symbol *)b)->address;
    return x < y ? -1 : x > y;
}

/* The symbol of the frame's module at its pc (syms sorted by address). */
static void symbolize(nr_reader *r, hk_native_frame *f)
{
    size_t lo = 0, hi = r->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->syms[mid].address < f->rel_pc) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < r->nsyms && r->syms[i].address == f->rel_pc; i++) {
        const nr_symbol *s = &r->syms[i];
        if (!same(s->path, f->module)) continue;
        if (s->build_id && *s->build_id && !same(s->build_id, f->build_id)) continue;
        if (s->function) f->function = s->function;
        if (s->source) f->source = s->source;
        if (s->line) f->line = s->line;
        return;
    }
}

/* "/data/app/com.example-HASH==/base.apk" -> "com.example" into out; 0 when the path names none. */
static int package_of(const char *module, char *out, size_t outlen)
{
    const char *p = module ? strstr(module, "/data/app/") : NULL;
    if (!p) return 0;
    p += strlen("/data/app/");
    const char *e = p + strcspn(p, "-/");
    if (e == p || (size_t)(e - p) >= outlen) return 0;
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = 0;
    return 1;
}

static int deob_order(const void *a, const void *b)
{
    const nr_deob *x = a, *y = b;
    int c = x->method != y->method ? x->method - y->method : strcmp(x->obf, y->obf);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* name[0..n) against d: (method, obfuscated name) order, as deob_order sorts. */
static int deob_cmp(const nr_deob *d, int method, const char *name, size_t n)
{
    if (d->method != method) return d->method - method;
    int c = strncmp(d->obf, name, n);
    return c ? c : (d->obf[n] != 0);
}

/* The deobfuscated class (method 0) or method of class cls, preferring the package pkg
 * (deobs sorted by deob_order). */
static const nr_deob *find_deob(const nr_reader *r, const char *pkg, const char *cls, const char *name, size_t n,
                                int method)
{
    size_t lo = 0, hi = r->ndeobs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (deob_cmp(&r->deobs[mid], method, name, n) < 0) lo = mid + 1;
        else hi = mid;
    }
    const nr_deob *any = NULL;
    for (size_t i = lo; i < r->ndeobs && !deob_cmp(&r->deobs[i], method, name, n); i++) {
        const nr_deob *d = &r->deobs[i];
        if (method && !same(d->cls, cls)) continue;
        if (pkg && same(d->package, pkg)) return d;
        if (!any) any = d;
    }
    return any;
}

/* A Java frame's name is "pkg.Class.method": no spaces, parentheses or "::". */
static const char *java_split(const char *name)
{
    if (!name || strpbrk(name, " ():<>") || strstr(name, "::")) return NULL;
    const char *dot = strrchr(name, '.');
    return dot && dot != name && dot[1] ? dot : NULL;
}

static void deobfuscate(nr_reader *r, hk_native_frame *f, const struct hk_map *map)
{
    const char *dot = java_split(f->function);
    if (!dot) return;
    size_t cn = (size_t)(dot - f->function);
    char pkg[256];
    int has_pkg = package_of(f->module, pkg, sizeof pkg);
    const nr_deob *c = find_deob(r, has_pkg ? pkg : NULL, NULL, f->function, cn, 0);
    hk_buf b;
    hk_buf_init(&b);
    if (c) {
        const nr_deob *m = find_deob(r, c->package, c->obf, dot + 1, strlen(dot + 1), 1);
        hk_buf_printf(&b, "%s.%s", c->src, m ? m->src : dot + 1);
    } else if (map) {
        const hk_map_class *mc = hk_map_class_by_obf(map, f->function, cn);
        hk_frame fr[8];
        uint32_t nf = mc ? hk_map_frames(map, mc, dot + 1, strlen(dot + 1), 0, fr, 8) : 0;
        if (nf)
            hk_buf_printf(&b, "%.*s.%.*s", (int)fr[nf - 1].class_len, fr[nf - 1].class_name, (int)fr[nf - 1].method_len,
                          fr[nf - 1].method);
        else if (mc) hk_buf_printf(&b, "%s.%s", mc->src, dot + 1);
    }
    if (b.len) f->function = nr_str(r->p, (const char *)b.data, b.len);
    hk_buf_free(&b);
}

void nr_name_frames(nr_reader *r, const struct hk_map *map)
{
    if (r->nsyms) qsort(r->syms, r->nsyms, sizeof *r->syms, by_address);
    if (r->ndeobs) qsort(r->deobs, r->ndeobs, sizeof *r->deobs, deob_order);
    for (size_t i = 0; i < r->p->nframes; i++) {
        hk_native_frame *f = &r->p->frames[i];
        if (r->nsyms) symbolize(r, f);
        if (r->ndeobs || map) deobfuscate(r, f, map);
    }
}
