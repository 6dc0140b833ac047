/* Member lookups: a field's original name, a stack frame's original frames.
 *
 * R8 writes the frames of one minified position as consecutive method lines with the same
 * minified range and name: the first is the innermost inlined method, the last the method
 * that contains them all.  An original range of one line (":12") is the call site. */
#include "map/map.h"

#include <string.h>

const char *hk_map_field(const hk_map *m, const hk_map_class *c, const char *obf)
{
    for (uint32_t i = c->first; i < c->first + c->n; i++) {
        const hk_map_member *mem = &m->members[i];
        if (!mem->is_method && !strcmp(mem->obf, obf)) return mem->src;
    }
    return NULL;
}

static int same_name(const char *s, const char *name, size_t n)
{
    return !strncmp(s, name, n) && !s[n];
}

static int same_range(const hk_map_member *a, const hk_map_member *b)
{
    return a->obf_lo == b->obf_lo && a->obf_hi == b->obf_hi && !strcmp(a->obf, b->obf);
}

static int32_t original_line(const hk_map_member *mem, int32_t line)
{
    if (line <= 0) return line;
    if (mem->orig_lo < 0) return line; /* ProGuard without original lines */
    if (mem->obf_lo < 0 || mem->orig_hi == mem->orig_lo) return mem->orig_lo;
    int64_t l = (int64_t)mem->orig_lo + line - mem->obf_lo;
    return l > mem->orig_hi ? mem->orig_hi : (int32_t)l;
}

/* The source file R8 recorded for the class named name[0..n), if any. */
static void file_of(const hk_map *m, const char *name, size_t n, hk_frame *f)
{
    const hk_map_class *c = hk_map_class_by_src(m, name, n);
    if (c && c->file) {
        f->file = c->file;
        f->file_len = strlen(c->file);
        return;
    }
    f->file = NULL;
    f->file_len = 0;
}

static void fill(const hk_map *m, const hk_map_class *c, const hk_map_member *mem, int32_t line, hk_frame *f)
{
    const char *dot = strrchr(mem->src, '.');
    if (dot) {
        f->class_name = mem->src;
        f->class_len = (size_t)(dot - mem->src);
        f->method = dot + 1;
    } else {
        f->class_name = c->src;
        f->class_len = strlen(c->src);
        f->method = mem->src;
    }
    f->method_len = strlen(f->method);
    f->line = original_line(mem, line);
    if (!dot && c->file) {
        f->file = c->file;
        f->file_len = strlen(c->file);
    } else file_of(m, f->class_name, f->class_len, f);
}

uint32_t hk_map_frames(const hk_map *m, const hk_map_class *c, const char *obf, size_t obf_len, int32_t line,
                       hk_frame *out, uint32_t max)
{
    const hk_map_member *first = NULL, *fallback = NULL;
    uint32_t end = c->first + c->n;
    for (uint32_t i = c->first; i < end; i++) {
        const hk_map_member *mem = &m->members[i];
        if (!mem->is_method || !same_name(mem->obf, obf, obf_len)) continue;
        if (line > 0 && mem->obf_lo >= 0 && mem->obf_lo <= line && line <= mem->obf_hi) {
            first = mem;
            break;
        }
        if (!fallback || (fallback->obf_lo >= 0 && mem->obf_lo < 0)) fallback = mem;
    }
    if (!max) return 0;
    if (!first) {
        if (!fallback) return 0;
        /* no position to place it: the method that holds the range, without its inlinees */
        const hk_map_member *outer = fallback;
        while (outer + 1 < m->members + end && outer->obf_lo >= 0 && same_range(outer, outer + 1)) outer++;
        fill(m, c, outer, line > 0 && outer->obf_lo < 0 ? line : -1, out);
        out->inlined = 0;
        if (line <= 0) out->line = line;
        return 1;
    }
    uint32_t n = 0;
    for (const hk_map_member *mem = first; mem < m->members + end && n < max; mem++) {
        if (mem != first && !same_range(mem, first)) break;
        out[n].inlined = 0;
        if (n) out[n - 1].inlined = 1;
        fill(m, c, mem, line, &out[n++]);
    }
    return n;
}
