/* Reading plugins.ini, loading plugins, and the registries of what they provide. */
#include "host/plugin_internal.h"
#include "util/hk_mem.h"
#include "util/hk_report.h"

#include <dlfcn.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
    hk_buf b;
    hk_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    hk_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    char *s = hk_xstrdup(hk_buf_cstr(&b));
    hk_buf_free(&b);
    return s;
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = hk_xstrdup(s);
}

static void add_error(hk_plugins *ps, char *line)
{
    ps->errors = hk_xrealloc(ps->errors, (ps->nerrors + 1) * sizeof *ps->errors);
    ps->errors[ps->nerrors++] = line;
}

hk_plugins *hk_plugins_new(void)
{
    hk_plugins *ps = hk_xcalloc(1, sizeof *ps);
    ps->reg = hk_registry_new();
    return ps;
}

static void free_plugin(struct hk_plugin *p)
{
    free(p->name);
    free(p->version);
    free(p->summary);
    free(p->path);
    free(p->ini);
    free(p->error);
    free(p->path_raw);
    free(p->ini_dir);
    free(p->plugin_dir);
    for (size_t k = 0; k < p->nconf; k++) {
        free(p->keys[k]);
        free(p->vals[k]);
    }
    free(p->keys);
    free(p->vals);
    free(p);
}

void hk_plugins_free(hk_plugins *ps)
{
    if (!ps) return;
    for (size_t i = 0; i < ps->nplugins; i++) free_plugin(ps->plugins[i]);
    for (size_t i = 0; i < ps->nerrors; i++) free(ps->errors[i]);
    free(ps->errors);
    free(ps->plugins);
    hk_registry_free(ps->reg);
    free(ps->src_view.items);
    free(ps->src_view.uds);
    free(ps->fetcher_view.items);
    free(ps->fetcher_view.uds);
    free(ps);
}

/* ---- plugins.ini ---- */

typedef struct ini_ctx {
    hk_plugins *ps;
    const char *ini;
    char *ini_dir;
    const char *plugin_dir;
    int bad_enabled_line;
    char bad[256];
} ini_ctx;

static struct hk_plugin *plugin_by_name(hk_plugins *ps, const char *name)
{
    for (size_t i = 0; i < ps->nplugins; i++)
        if (!strcmp(ps->plugins[i]->name, name)) return ps->plugins[i];
    return NULL;
}

static struct hk_plugin *section(ini_ctx *c, const char *name)
{
    struct hk_plugin *p = plugin_by_name(c->ps, name);
    if (!p) {
        p = hk_xcalloc(1, sizeof *p);
        p->ps = c->ps;
        p->name = hk_xstrdup(name);
        p->enabled = 1;
        c->ps->plugins = hk_xrealloc(c->ps->plugins, (c->ps->nplugins + 1) * sizeof *c->ps->plugins);
        c->ps->plugins[c->ps->nplugins++] = p;
    }
    if (!p->ini || strcmp(p->ini, c->ini)) set_str(&p->ini, c->ini);
    return p;
}

static int valid_name(const char *s)
{
    if (!s || !*s) return 0;
    for (; *s; s++)
        if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

static int parse_bool(const char *v, int *out)
{
    static const char *yes[] = {"yes", "true", "1", "on"}, *no[] = {"no", "false", "0", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(v, no[i])) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

static int on_ini(void *user, const char *sect, const char *key, const char *value)
{
    ini_ctx *c = user;
    if (!sect[0]) {
        snprintf(c->bad, sizeof c->bad, "key '%s' outside any [plugin] section", key);
        return 0;
    }
    if (strchr(sect, '.') || !valid_name(sect)) {
        snprintf(c->bad, sizeof c->bad,
                 "[%s]: a plugin's name is letters, digits, _ and - (it names its functions: hk.NAME.fn)", sect);
        return 0;
    }
    struct hk_plugin *p = section(c, sect);
    if (p->status == HK_PLUGIN_OK || p->status == HK_PLUGIN_ERROR) return 1; /* already loaded */
    if (!strcmp(key, "path")) {
        set_str(&p->path_raw, value);
        /* a relative path resolves from the file that gave it */
        set_str(&p->ini_dir, c->ini_dir);
        set_str(&p->plugin_dir, c->plugin_dir ? c->plugin_dir : "");
    } else if (!strcmp(key, "enabled")) {
        if (parse_bool(value, &p->enabled) < 0) {
            snprintf(c->bad, sizeof c->bad, "[%s] enabled = '%s': expected yes/no/true/false/on/off/1/0", sect, value);
            return 0;
        }
    } else {
        for (size_t k = 0; k < p->nconf; k++)
            if (!strcmp(p->keys[k], key)) {
                set_str(&p->vals[k], value);
                return 1;
            }
        p->keys = hk_xrealloc(p->keys, (p->nconf + 1) * sizeof *p->keys);
        p->vals = hk_xrealloc(p->vals, (p->nconf + 1) * sizeof *p->vals);
        p->keys[p->nconf] = hk_xstrdup(key);
        p->vals[p->nconf] = hk_xstrdup(value);
        p->nconf++;
    }
    return 1;
}

int hk_plugins_add_ini(hk_plugins *ps, const char *ini_path, const char *plugin_dir, int required, char *err,
                       size_t errlen)
{
    struct stat st;
    if (stat(ini_path, &st) < 0) {
        if (!required && errno == ENOENT) return 0;
        snprintf(err, errlen, "plugins file %s: %s (check --plugins / HPROFKIT_PLUGINS)", ini_path, strerror(errno));
        add_error(ps, hk_xstrdup(err));
        return -1;
    }
    ini_ctx c = {.ps = ps, .ini = ini_path, .plugin_dir = plugin_dir};
    /* absolute, so messages name real places and a later chdir changes nothing */
    char *real = realpath(ini_path, NULL);
    c.ini_dir = hk_xstrdup(real ? real : ini_path);
    free(real);
    char *slash = strrchr(c.ini_dir, '/');
    if (slash) *(slash == c.ini_dir ? slash + 1 : slash) = 0;
    else set_str(&c.ini_dir, ".");
    int rc = ini_parse(ini_path, on_ini, &c);
    free(c.ini_dir);
    if (rc == 0) return 0;
    if (rc < 0) snprintf(err, errlen, "plugins file %s: cannot read it", ini_path);
    else if (c.bad[0]) snprintf(err, errlen, "plugins file %s:%d: %s", ini_path, rc, c.bad);
    else snprintf(err, errlen, "plugins file %s:%d: syntax error (expected [name] or key = value)", ini_path, rc);
    add_error(ps, hk_xstrdup(err));
    return -1;
}

int hk_plugins_add_env(hk_plugins *ps, const char *plugin_dir, char *err, size_t errlen)
{
    const char *env = getenv("HPROFKIT_PLUGINS");
    if (!env || !*env) return 0;
    char *list = hk_xstrdup(env), *save = NULL;
    int rc = 0;
    for (char *f = strtok_r(list, ":", &save); f; f = strtok_r(NULL, ":", &save)) {
        char e[512];
        if (hk_plugins_add_ini(ps, f, plugin_dir, 1, e, sizeof e) < 0) {
            if (rc == 0) snprintf(err, errlen, "HPROFKIT_PLUGINS: %s", e);
            rc = -1;
        }
    }
    free(list);
    return rc;
}

/* ---- loading ---- */

static void fail(struct hk_plugin *p, char *msg)
{
    p->status = HK_PLUGIN_ERROR;
    free(p->error);
    p->error = msg;
    add_error(p->ps, hk_xstrdup(msg));
}

/* The .so to load: absolute as written, else the first existing candidate.  On failure
 * *tried lists every candidate. */
static char *resolve(struct hk_plugin *p, char **tried)
{
    const char *raw = p->path_raw;
    if (raw[0] == '/') {
        if (access(raw, F_OK) == 0) return hk_xstrdup(raw);
        *tried = hk_xstrdup(raw);
        return NULL;
    }
    char *cand[3];
    size_t n = 0;
    cand[n++] = xprintf("%s/%s", p->ini_dir, raw);
    if (p->plugin_dir && p->plugin_dir[0]) {
        cand[n++] = xprintf("%s/%s", p->plugin_dir, raw);
        cand[n++] = xprintf("%s/%s/%s", p->plugin_dir, p->name, raw);
    }
    char *found = NULL;
    hk_buf t;
    hk_buf_init(&t);
    for (size_t i = 0; i < n; i++) {
        if (!found && access(cand[i], F_OK) == 0) found = hk_xstrdup(cand[i]);
        hk_buf_printf(&t, "%s%s", i ? ", " : "", cand[i]);
        free(cand[i]);
    }
    if (!found) *tried = hk_xstrdup(hk_buf_cstr(&t));
    hk_buf_free(&t);
    return found;
}

/* glibc reports an ELF for another machine as "No such file or directory"; read the
 * header ourselves so the message says what is wrong.  NULL when nothing is wrong with it. */
static const char *machine_name(unsigned m)
{
    switch (m) {
    case 3: return "x86";
    case 40: return "ARM";
    case 62: return "x86-64";
    case 183: return "AArch64";
    case 243: return "RISC-V";
    default: return NULL;
    }
}

static int elf_header(const char *path, unsigned char h[20])
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = fread(h, 1, 20, f);
    fclose(f);
    return n == 20 && !memcmp(h,
                              "\x7f"
                              "ELF",
                              4)
               ? 0
               : -1;
}

static unsigned elf_machine(const unsigned char h[20])
{
    return h[5] == 2 ? (unsigned)h[18] << 8 | h[19] : (unsigned)h[19] << 8 | h[18];
}

static char *foreign_elf(const char *path)
{
    unsigned char theirs[20], ours[20];
    if (elf_header(path, theirs) < 0 || elf_header("/proc/self/exe", ours) < 0) return NULL;
    unsigned tm = elf_machine(theirs), om = elf_machine(ours);
    if (theirs[4] == ours[4] && theirs[5] == ours[5] && tm == om) return NULL;
    const char *tn = machine_name(tm), *on = machine_name(om);
    return xprintf("it is built for %s (ELF machine %u, %d-bit), this hprofkit runs on %s "
                   "(ELF machine %u, %d-bit): rebuild the plugin for this machine",
                   tn ? tn : "another architecture", tm, theirs[4] == 2 ? 64 : 32, on ? on : "this machine", om,
                   ours[4] == 2 ? 64 : 32);
}

/* Finds and dlopens the plugin's file; NULL (the plugin failed, with the reason) when it
 * cannot be loaded. */
static void *open_so(struct hk_plugin *p)
{
    if (!p->path_raw || !p->path_raw[0]) {
        fail(p, xprintf("plugin %s: no `path` in %s (add path = NAME.so to its section)", p->name, p->ini));
        return NULL;
    }
    char *tried = NULL;
    char *path = resolve(p, &tried);
    if (!path) {
        set_str(&p->path, tried);
        fail(p,
             xprintf("plugin %s: no such file: %s (tried %s); fix `path` in %s", p->name, p->path_raw, tried, p->ini));
        free(tried);
        return NULL;
    }
    set_str(&p->path, path);
    free(path);
    dlerror();
    void *dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
    if (dl) return dl;
    const char *e = dlerror();
    char *why = foreign_elf(p->path);
    if (why) {
        fail(p, xprintf("plugin %s (%s): cannot load it: %s", p->name, p->path, why));
        free(why);
        return NULL;
    }
    fail(p, xprintf("plugin %s (%s): cannot load it: %s (built for another ABI/architecture, or "
                    "not a shared object?)",
                    p->name, p->path, e ? e : "unknown dlopen error"));
    return NULL;
}

/* The ABI first: nothing else in the plugin is trusted before it matches.  Returns its init,
 * or NULL (the plugin failed). */
static hk_plugin_init_fn check_abi(struct hk_plugin *p, void *dl)
{
    const uint32_t *abi = dlsym(dl, HK_PLUGIN_ABI_SYMBOL);
    if (!abi) {
        fail(p, xprintf("plugin %s (%s): not a hprofkit plugin: no %s symbol", p->name, p->path, HK_PLUGIN_ABI_SYMBOL));
        return NULL;
    }
    if (*abi != HK_ABI_VERSION) {
        fail(p, xprintf("plugin %s was built for ABI %u, this hprofkit speaks ABI %u: rebuild it "
                        "against this sdk/hprofkit.h (%s)",
                        p->name, *abi, HK_ABI_VERSION, p->path));
        return NULL;
    }
    /* a plugin built before the minor version existed reads as 0 (ABI 1.0) */
    const uint32_t *minor = dlsym(dl, HK_PLUGIN_SDK_MINOR_SYMBOL);
    p->sdk_minor = minor ? *minor : 0;
    hk_plugin_init_fn init;
    *(void **)&init = dlsym(dl, HK_PLUGIN_INIT_SYMBOL);
    if (!init)
        fail(p, xprintf("plugin %s (%s): has %s but no %s function", p->name, p->path, HK_PLUGIN_ABI_SYMBOL,
                        HK_PLUGIN_INIT_SYMBOL));
    return init;
}

/* Init runs with registration open for this plugin alone; a failed init leaves nothing
 * registered. */
static int run_init(struct hk_plugin *p, hk_plugin_init_fn init)
{
    char label[1200], e[512] = "";
    snprintf(label, sizeof label, "plugin %s (%s)", p->name, p->path);
    size_t errors_before = p->ps->nerrors;
    hk_registry_begin(p->ps->reg, p->path, label, p, 0);
    p->in_init = 1;
    int rc = init(hk_host_table(), p, e, sizeof e);
    p->in_init = 0;
    hk_registry_end(p->ps->reg);
    if (rc == 0) return 0;
    hk_registry_drop_plugin(p->ps->reg, p);
    /* an init that just passes on a refused registration gives the refusal as its reason,
     * said once: taken out of the errors, where the failure is added */
    char *taken = !e[0] && p->ps->nerrors > errors_before ? p->ps->errors[--p->ps->nerrors] : NULL;
    const char *why = e[0] ? e : taken;
    fail(p, xprintf("plugin %s: init failed: %s", p->name, why ? why : "(the plugin gave no reason)"));
    free(taken);
    return -1;
}

static void load_one(struct hk_plugin *p)
{
    if (!p->enabled) {
        p->status = HK_PLUGIN_DISABLED;
        return;
    }
    void *dl = open_so(p);
    if (!dl) return;
    hk_plugin_init_fn init = check_abi(p, dl);
    if (!init || run_init(p, init) < 0) {
        dlclose(dl);
        return;
    }
    p->dl = dl;
    p->status = HK_PLUGIN_OK;
}

int hk_plugins_load(hk_plugins *ps)
{
    int failed = 0;
    for (size_t i = 0; i < ps->nplugins; i++) {
        struct hk_plugin *p = ps->plugins[i];
        if (p->status != HK_PLUGIN_PENDING) continue;
        load_one(p);
        if (p->status == HK_PLUGIN_ERROR) failed++;
    }
    return failed;
}

size_t hk_plugins_count(const hk_plugins *ps)
{
    return ps->nplugins;
}

const hk_plugin_info *hk_plugins_at(const hk_plugins *ps, size_t i)
{
    if (i >= ps->nplugins) return NULL;
    struct hk_plugin *p = ps->plugins[i];
    p->info = (hk_plugin_info){
        .name = p->name,
        .version = p->version ? p->version : "",
        .summary = p->summary ? p->summary : "",
        .path = p->path ? p->path : (p->path_raw ? p->path_raw : ""),
        .ini = p->ini ? p->ini : "",
        .status = p->status,
        .error = p->error ? p->error : "",
        .self = p,
    };
    return &p->info;
}

size_t hk_plugins_errors(const hk_plugins *ps, const char *const **lines)
{
    *lines = (const char *const *)ps->errors;
    return ps->nerrors;
}

/* ---- registration (through the host table) ---- */

int hk_plugin_describe(hk_plugin *self, const char *name, const char *version, const char *summary)
{
    /* the section name stays the plugin's name: it prefixes functions and keys settings */
    (void)name;
    set_str(&self->version, version);
    set_str(&self->summary, summary);
    return 0;
}

/* A registration error during init is kept for the CLI, which shows each once after loading;
 * one later (registration closed) is reported as it happens. */
static int reg_error(hk_plugin *self, char *msg)
{
    if (!self->in_init) hk_report(HK_REPORT_WARNING, "%s", msg);
    add_error(self->ps, msg);
    return -1;
}

/* "parse" and "meminfo.parse" both name meminfo's parse. */
static char *full_name(hk_plugin *self, const char *name)
{
    size_t n = strlen(self->name);
    if (!strncmp(name, self->name, n) && name[n] == '.') name += n + 1;
    return xprintf("%s.%s", self->name, name);
}

/* The one path every kind of C registration takes: into the registry, or an error kept.  ok
 * says the plugin handed over what the kind needs (needs says what that is). */
static hk_reg_entry *add_entry(hk_plugin *self, enum hk_reg_kind kind, int ok, const char *needs, const char *name,
                               const char *help, void *ud)
{
    if (!ok || !valid_name(name)) {
        reg_error(self, xprintf("plugin %s: register_%s: needs a name of letters, digits, _ and - and %s", self->name,
                                hk_reg_kind_key(kind), needs));
        return NULL;
    }
    hk_reg_entry *e;
    char err[1024];
    if (hk_registry_add(self->ps->reg, self, kind, name, help, &e, err, sizeof err) < 0) {
        /* during its init the registry names the plugin in what it refuses; once closed it
         * knows no owner, so the plugin is named here */
        reg_error(self, self->in_init ? hk_xstrdup(err) : xprintf("plugin %s: %s", self->name, err));
        return NULL;
    }
    e->ud = ud;
    return e;
}

int hk_plugin_register_function(hk_plugin *self, const char *name, const char *help, hk_function_fn fn, void *ud)
{
    char *full = full_name(self, name && valid_name(name) ? name : "");
    if (strchr(full + strlen(self->name) + 1, '.')) {
        int rc = reg_error(self, xprintf("plugin %s: function %s is not a plain name (no dots after the plugin name)",
                                         self->name, full));
        free(full);
        return rc;
    }
    hk_reg_entry *e = add_entry(self, HK_REG_FUNCTION, fn && name && valid_name(name), "a function", full, help, ud);
    free(full);
    if (!e) return -1;
    e->as.fn = fn;
    return 0;
}

int hk_plugin_register_bitmap_source(hk_plugin *self, const hk_bitmap_source *src, void *ud)
{
    hk_reg_entry *e = add_entry(self, HK_REG_BITMAP_SOURCE, src && src->image, "an image function",
                                src ? src->name : NULL, src ? src->help : NULL, ud);
    if (!e) return -1;
    /* a plugin built against ABI 1.0 has no priority member: read only what it has */
    memcpy(&e->as.src, src, self->sdk_minor >= 1 ? sizeof *src : offsetof(hk_bitmap_source, priority));
    e->as.src.name = e->name;
    e->as.src.help = e->help;
    e->priority = e->as.src.priority;
    return 0;
}

int hk_plugin_register_fetcher(hk_plugin *self, const hk_fetcher *f, void *ud)
{
    hk_reg_entry *e = add_entry(self, HK_REG_FETCHER, f && f->fetch_bitmaps, "a fetch_bitmaps function",
                                f ? f->name : NULL, f ? f->help : NULL, ud);
    if (!e) return -1;
    e->as.fetcher = *f;
    e->as.fetcher.name = e->name;
    e->as.fetcher.help = e->help;
    return 0;
}

const char *hk_plugin_config(hk_plugin *self, const char *key)
{
    if (!self || !key) return NULL;
    for (size_t k = 0; k < self->nconf; k++)
        if (!strcmp(self->keys[k], key)) return self->vals[k];
    return NULL;
}

int hk_plugin_config_bool(hk_plugin *self, const char *key, int def, int *out, char *err, size_t errlen)
{
    const char *v = hk_plugin_config(self, key);
    *out = def;
    if (!v || parse_bool(v, out) == 0) return 0;
    snprintf(err, errlen, "plugin %s: setting %s = '%s' in %s: expected yes/no, true/false, on/off or 1/0",
             self ? self->name : "?", key, v, self && self->ini ? self->ini : "plugins.ini");
    return -1;
}

int hk_plugin_config_number(hk_plugin *self, const char *key, double def, double *out, char *err, size_t errlen)
{
    const char *v = hk_plugin_config(self, key);
    *out = def;
    if (!v) return 0;
    char *end;
    double d = strtod(v, &end);
    while (end != v && (*end == ' ' || *end == '\t')) end++;
    if (end != v && !*end && isfinite(d)) {
        *out = d;
        return 0;
    }
    snprintf(err, errlen, "plugin %s: setting %s = '%s' in %s: expected a finite number", self ? self->name : "?", key,
             v, self && self->ini ? self->ini : "plugins.ini");
    return -1;
}

/* ---- the registry's plugin side ---- */

hk_registry *hk_plugins_registry(hk_plugins *ps)
{
    return ps->reg;
}

const char *hk_plugin_name(const hk_plugin *p)
{
    return p ? p->name : "?";
}

int hk_plugins_call(hk_plugins *ps, const char *full_name, int argc, const char *const *argv, const size_t *argl,
                    hk_buf *out, char *err, size_t errlen)
{
    const hk_reg_entry *r = hk_registry_find(ps->reg, HK_REG_FUNCTION, full_name);
    if (!r) {
        snprintf(err, errlen, "no plugin function %s (see `hprofkit plugins`)", full_name);
        return -1;
    }
    char e[1024] = "";
    size_t start = out->len;
    if (r->as.fn(r->ud, argc, argv, argl, out, e, sizeof e) != 0) {
        out->len = start;
        snprintf(err, errlen, "plugin %s: %s: %s", r->plugin->name, r->name,
                 e[0] ? e : "failed (the plugin gave no reason)");
        return -1;
    }
    return 0;
}

/* The plugins' entries of one kind (scripts' entries have no C struct to hand out). */
static size_t view(hk_plugins *ps, enum hk_reg_kind kind, hk_reg_view *v)
{
    const hk_reg_entry *const *es;
    size_t n = hk_registry_list(ps->reg, kind, &es);
    v->items = hk_xrealloc(v->items, (n ? n : 1) * sizeof *v->items);
    v->uds = hk_xrealloc(v->uds, (n ? n : 1) * sizeof *v->uds);
    v->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (!es[i]->plugin) continue;
        v->items[v->n] = kind == HK_REG_FETCHER ? (const void *)&es[i]->as.fetcher : (const void *)&es[i]->as.src;
        v->uds[v->n++] = es[i]->ud;
    }
    return v->n;
}

size_t hk_plugins_bitmap_sources(hk_plugins *ps, const hk_bitmap_source ***srcs, void ***uds)
{
    size_t n = view(ps, HK_REG_BITMAP_SOURCE, &ps->src_view);
    if (srcs) *srcs = (const hk_bitmap_source **)ps->src_view.items;
    if (uds) *uds = ps->src_view.uds;
    return n;
}

size_t hk_plugins_fetchers(hk_plugins *ps, const hk_fetcher ***fs, void ***uds)
{
    size_t n = view(ps, HK_REG_FETCHER, &ps->fetcher_view);
    if (fs) *fs = (const hk_fetcher **)ps->fetcher_view.items;
    if (uds) *uds = ps->fetcher_view.uds;
    return n;
}

const hk_fetcher *hk_plugins_fetcher(hk_plugins *ps, const char *name, void **ud)
{
    const hk_fetcher **fs;
    void **uds;
    size_t n = hk_plugins_fetchers(ps, &fs, &uds);
    for (size_t i = 0; i < n; i++) {
        if (name && strcmp(fs[i]->name, name)) continue;
        if (ud) *ud = uds[i];
        return fs[i];
    }
    return NULL;
}
