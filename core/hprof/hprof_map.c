/* Deobfuscation, once, right after the index: class, field and static names become the
 * map's source names, so everything above the index sees source names. */
#include "hprof/hprof.h"
#include "hprof/hprof_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "a.b[][]" -> base length of "a.b" and 2 */
static size_t strip_dims(const char *name, uint32_t *dims)
{
    size_t n = strlen(name);
    *dims = 0;
    while (n > 2 && name[n - 2] == '[' && name[n - 1] == ']') {
        n -= 2;
        (*dims)++;
    }
    return n;
}

static void rename_class(hk_dump *d, hk_class *c, const hk_map *m)
{
    uint32_t dims;
    size_t n = strip_dims(c->obf_name, &dims);
    const hk_map_class *mc = hk_map_class_by_obf(m, c->obf_name, n);
    if (!mc) return;
    if (dims) {
        hk_buf b;
        hk_buf_init(&b);
        hk_buf_puts(&b, mc->src);
        for (uint32_t i = 0; i < dims; i++) hk_buf_puts(&b, "[]");
        c->name = hk_arena_strdup(d, (const char *)b.data, b.len);
        hk_buf_free(&b);
        return;
    }
    c->name = mc->src;
    /* a field is listed under the class that declares it, which is the class whose
     * CLASS_DUMP holds it: superclass fields are renamed by their own class's entry */
    for (uint16_t i = 0; i < c->nfields; i++) {
        const char *src = hk_map_field(m, mc, c->fields[i].obf_name);
        if (src) c->fields[i].name = src;
    }
    for (uint16_t i = 0; i < c->nstatics; i++) {
        const char *src = hk_map_field(m, mc, c->statics[i].obf_name);
        if (src) c->statics[i].name = src;
    }
}

/* R8 names classes a, b, ..., aa, ab, in any package: a short all-letter last segment. */
static int looks_obfuscated(const char *name)
{
    uint32_t dims;
    size_t n = strip_dims(name, &dims);
    const char *dot = memrchr(name, '.', n);
    const char *s = dot ? dot + 1 : name;
    size_t k = n - (size_t)(s - name);
    if (k == 0 || k > 2) return 0;
    for (size_t i = 0; i < k; i++)
        if (!isalpha((unsigned char)s[i])) return 0;
    return 1;
}

/* The id R8 can put in an app ("go/retraceme <pg_map_id>", e.g. as every class's source
 * file, which reaches the dump's STRING records through stack frames), if there is one. */
static int retrace_id(const hk_dump *d, char *out, size_t n)
{
    static const char tag[] = "go/retraceme ";
    for (uint32_t i = 0; i < d->strings.n; i++) {
        const uint8_t *body = d->view.data + d->strings.vals[i];
        uint32_t len = hk_be32(body - 4) - d->view.id_size;
        const uint8_t *s = body + d->view.id_size;
        const uint8_t *p = len >= sizeof tag ? memmem(s, len, tag, sizeof tag - 1) : NULL;
        if (!p) continue;
        p += sizeof tag - 1;
        size_t k = 0;
        while (p + k < s + len && k + 1 < n && isalnum(p[k])) {
            out[k] = (char)p[k];
            k++;
        }
        out[k] = 0;
        if (k) return 1;
    }
    return 0;
}

static void check_fit(const hk_dump *d, const hk_map *m, hk_buf *notes)
{
    if (!m->nclasses) {
        hk_buf_printf(notes, "warning: %s has no class lines ('original.Name -> obfuscated:'): is it a mapping file?\n",
                      m->path);
        return;
    }
    uint32_t short_names = 0, short_known = 0, renamed = 0, already_source = 0, map_renames = 0;
    for (uint32_t i = 0; i < m->nclasses; i++) map_renames += strcmp(m->classes[i].src, m->classes[i].obf) != 0;
    for (uint32_t i = 0; i < d->view.nclasses; i++) {
        const hk_class *c = &d->view.classes[i];
        uint32_t dims;
        size_t n = strip_dims(c->obf_name, &dims);
        const hk_map_class *mc = hk_map_class_by_obf(m, c->obf_name, n);
        int shortn = looks_obfuscated(c->obf_name);
        short_names += shortn;
        short_known += shortn && mc;
        if (mc && strcmp(mc->src, mc->obf)) renamed++;
        const hk_map_class *sc = mc ? NULL : hk_map_class_by_src(m, c->obf_name, n);
        if (sc && strcmp(sc->src, sc->obf)) already_source++;
    }
    char why[200];
    why[0] = 0;
    if (map_renames && !renamed)
        snprintf(why, sizeof why, "none of the %u classes it renames is in the dump", map_renames);
    else if (already_source > renamed)
        snprintf(why, sizeof why,
                 "%u classes it renames are in the dump under their source names, %u under its short ones",
                 already_source, renamed);
    else if (short_names >= 10 && short_known * 2 < short_names)
        snprintf(why, sizeof why, "it knows %u of the dump's %u obfuscated-looking class names", short_known,
                 short_names);
    if (why[0])
        hk_buf_printf(notes, "warning: the map %s does not fit %s (%s); names are shown as the map gives them\n",
                      m->path, d->path, why);
    char id[128];
    if (m->map_id && retrace_id(d, id, sizeof id) && strcmp(id, m->map_id))
        hk_buf_printf(notes,
                      "warning: the map %s has pg_map_id %s but the app in %s carries go/retraceme %s: "
                      "it is another build's map\n",
                      m->path, m->map_id, d->path, id);
}

int hk_dump_apply_map(hk_dump *d, hk_map *map, hk_buf *notes, char *err, size_t errlen)
{
    if (d->map) {
        snprintf(err, errlen, "%s: a map (%s) is already applied", d->path, d->map->path);
        hk_map_free(map);
        return -1;
    }
    d->map = map;
    for (uint32_t i = 0; i < d->view.nclasses; i++) {
        rename_class(d, &d->view.classes[i], map);
        free(d->view.classes[i].all_fields); /* layouts copy names: rebuilt on next use */
        d->view.classes[i].all_fields = NULL;
    }
    hk_class_names_index(d);
    if (map->nwarnings) {
        hk_buf_append(notes, map->warnings.data, map->warnings.len);
        if (map->nwarnings > HK_MAP_KEEP_WARNINGS)
            hk_buf_printf(notes, "warning: %s: %u more malformed lines not shown\n", map->path,
                          map->nwarnings - HK_MAP_KEEP_WARNINGS);
    }
    check_fit(d, map, notes);
    return 0;
}

int hk_map_beside(const char *dump_path, char *out, size_t n)
{
    if ((size_t)snprintf(out, n, "%s.map", dump_path) < n && access(out, R_OK) == 0) return 1;
    static const char *const exts[] = {".hprof.gz", ".hprof", ".android-hprof"};
    size_t len = strlen(dump_path);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (len > e && !strcmp(dump_path + len - e, exts[i]) &&
            (size_t)snprintf(out, n, "%.*s.map", (int)(len - e), dump_path) < n && access(out, R_OK) == 0)
            return 1;
    }
    return 0;
}
