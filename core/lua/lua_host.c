/* The Lua host: the state, the hk table, query and renderer registries, script loading. */
#include "lua/lua_host.h"
#include "hk_config.h"
#include "lua/lua_layout.h"
#include "open/open.h"
#include "host/registry.h"
#include "util/hk_file.h"
#include "util/hk_mem.h"
#include "util/hk_report.h"
#include "util/hk_sha.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct hkl_host {
    lua_State *L;
    int layer; /* scripts' load layer: each directory, then a `run` file, one more than the last */
};

lua_State *hkl_host_state(hkl_host *h)
{
    return h->L;
}

static void push_writer_mt(lua_State *L);

static int traceback(lua_State *L)
{
    if (lua_istable(L, 1)) { /* an error object (hk.usage_error): kept, with where it was raised */
        luaL_traceback(L, L, NULL, 1);
        lua_setfield(L, 1, "traceback");
        lua_settop(L, 1);
        return 1;
    }
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int hkl_pcall(lua_State *L, int nargs, int nresults)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback);
    lua_insert(L, base);
    hkl_limit_enter(L);
    int rc = lua_pcall(L, nargs, nresults, base);
    hkl_limit_leave(L);
    lua_remove(L, base);
    return rc;
}

static const char *current_source(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.source");
    const char *s = lua_tostring(L, -1);
    lua_pop(L, 1);
    return s ? s : "(unknown)";
}

#define REGISTRY_KEY "hk.registry"

void hkl_set_registry(lua_State *L, hk_registry *r)
{
    lua_pushlightuserdata(L, r);
    lua_setfield(L, LUA_REGISTRYINDEX, REGISTRY_KEY);
}

hk_registry *hkl_registry(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, REGISTRY_KEY);
    hk_registry *r = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return r;
}

hk_reg_entry *hkl_register(lua_State *L, enum hk_reg_kind kind, const char *name, const char *help)
{
    hk_registry *r = hkl_registry(L);
    if (!r) {
        luaL_error(L, "%s '%s': this Lua host has no registry", hk_reg_kind_label(kind), name);
        return NULL;
    }
    char err[1200];
    hk_reg_entry *e = NULL;
    int rc = hk_registry_add(r, NULL, kind, name, help, &e, err, sizeof err);
    if (rc < 0) hkl_fail(L, "%s", err);
    if (rc > 0) hk_report(HK_REPORT_NOTE, "%s", err);
    return e;
}

/* A definition's help, "" when it has none (a query without help is still listed). */
static const char *def_help(lua_State *L)
{
    lua_getfield(L, 1, "help");
    const char *help = lua_tostring(L, -1);
    lua_pop(L, 1); /* the string stays alive in the definition table */
    return help ? help : "";
}

/* hk.query{ name=, help=, args=, aliases=, needs_dump=, columns=, run= } */
static int register_def(lua_State *L, const char *registry, enum hk_reg_kind kind, const char *fn_field)
{
    const char *what = hk_reg_kind_label(kind);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "name");
    const char *name = lua_tostring(L, -1);
    if (!name || !*name) return luaL_error(L, "%s{}: 'name' must be a non-empty string", what);
    lua_getfield(L, 1, fn_field);
    if (!lua_isfunction(L, -1)) return luaL_error(L, "%s '%s': '%s' must be a function", what, name, fn_field);
    lua_pop(L, 1);
    lua_getfield(L, 1, "args");
    if (!lua_isnil(L, -1) && !lua_istable(L, -1)) return luaL_error(L, "%s '%s': 'args' must be a table", what, name);
    lua_pop(L, 1);
    hkl_register(L, kind, name, def_help(L));
    lua_pushstring(L, current_source(L));
    lua_setfield(L, 1, "source");
    lua_getfield(L, LUA_REGISTRYINDEX, registry);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
    lua_pushvalue(L, 1);
    return 1;
}

static int l_query(lua_State *L)
{
    return register_def(L, "hk.queries", HK_REG_QUERY, "run");
}
/* hk.watcher{ name=, help=, on_sample= }: a trigger for `watch --watcher NAME` */
static int l_watcher(lua_State *L)
{
    return register_def(L, "hk.watchers", HK_REG_WATCHER, "on_sample");
}
static int l_renderer(lua_State *L)
{
    return register_def(L, "hk.renderers", HK_REG_RENDERER, "render");
}
static int l_leak_finder(lua_State *L)
{
    return register_def(L, "hk.leak_finders", HK_REG_LEAK_FINDER, "find");
}

/* Registries without names, in registration order (built-in scripts load first, so user
 * entries come last): object inspectors and reference matchers.  fn_field, when given, must
 * be a function; class, when required, a non-empty string. */
static int register_entry(lua_State *L, const char *registry, enum hk_reg_kind kind, const char *what,
                          const char *fn_field, int need_class)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "class");
    const char *cls = lua_tostring(L, -1);
    if (need_class && (!cls || !*cls)) return luaL_error(L, "%s{}: 'class' must be a non-empty string", what);
    if (!cls) cls = "?";
    if (fn_field) {
        lua_getfield(L, 1, fn_field);
        if (!lua_isfunction(L, -1)) return luaL_error(L, "%s for %s: '%s' must be a function", what, cls, fn_field);
        lua_pop(L, 1);
    }
    /* a list entry is labelled by the class it judges (the thread, for a Java-local matcher) */
    lua_getfield(L, 1, "thread");
    hkl_register(L, kind, lua_isstring(L, -1) ? lua_tostring(L, -1) : cls, def_help(L));
    lua_pop(L, 2);
    lua_pushstring(L, current_source(L));
    lua_setfield(L, 1, "source");
    lua_getfield(L, LUA_REGISTRYINDEX, registry);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
    lua_pop(L, 1);
    lua_pushvalue(L, 1);
    return 1;
}

static int l_inspector(lua_State *L)
{
    return register_entry(L, "hk.inspectors", HK_REG_INSPECTOR, "inspector", "inspect", 1);
}

/* hk.reference_matcher{kind = "library" | "ignore", class =, field = | static = | root = ...} */
static int l_reference_matcher(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "kind");
    const char *kind = lua_tostring(L, -1);
    if (!kind || (strcmp(kind, "library") && strcmp(kind, "ignore")))
        return luaL_error(L, "reference_matcher{}: 'kind' must be \"library\" or \"ignore\"");
    lua_pop(L, 1);
    lua_getfield(L, 1, "field");
    lua_getfield(L, 1, "static");
    lua_getfield(L, 1, "root");
    lua_getfield(L, 1, "thread");
    int forms = lua_isstring(L, -4) + lua_isstring(L, -3) + lua_isstring(L, -2) + lua_isstring(L, -1);
    lua_pop(L, 4);
    if (forms != 1)
        return luaL_error(L, "reference_matcher{}: give exactly one of 'field', 'static', 'root' or 'thread'");
    /* a Java-local pattern names a thread, not a class */
    lua_getfield(L, 1, "thread");
    int thread_form = lua_isstring(L, -1);
    lua_pop(L, 1);
    return register_entry(L, "hk.reference_matchers", HK_REG_REFERENCE_MATCHER, "reference_matcher", NULL,
                          !thread_form);
}

void hkl_push_queries(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.queries");
}
void hkl_push_renderers(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.renderers");
}

/* Push the registry table of watchers (name -> definition), see hk.watcher{}. */
static void hkl_push_watchers(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.watchers");
}

static int l_queries(lua_State *L)
{
    hkl_push_queries(L);
    return 1;
}
static int l_watchers(lua_State *L)
{
    hkl_push_watchers(L);
    return 1;
}
static int l_renderers(lua_State *L)
{
    hkl_push_renderers(L);
    return 1;
}
static int l_leak_finders(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.leak_finders");
    return 1;
}
static int l_inspectors(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.inspectors");
    return 1;
}
static int l_reference_matchers(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.reference_matchers");
    return 1;
}

/* hk.dump_method(name, fn): fn becomes dump:name(...), for methods written in Lua (dump:leaks) */
static int l_dump_method(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    hkl_add_method_value(L, HKL_DUMP, name);
    return 0;
}

/* hk.sha1(s): 40 hex digits (leak signatures are SHA-1, as LeakCanary's are) */
static int l_sha1(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    char hex[41];
    if (hk_sha1_hex(s, n, hex)) return hkl_fail(L, "sha1: libcrypto failed");
    lua_pushstring(L, hex);
    return 1;
}

/* hk.open(path [, {map = FILE | false, jvm_layout = CHOICE}]) -> Dump; without a map option,
 * the map beside the dump (DUMP.map, STEM.map) is used when there is one; jvm_layout as
 * --jvm-layout takes it (default: the global option's) */
static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *map = NULL;
    int beside = 1;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        int t = lua_getfield(L, 2, "map");
        if (t == LUA_TSTRING) map = lua_tostring(L, -1);
        else if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) beside = 0;
        else if (t != LUA_TNIL) return hkl_usage_error(L, "hk.open: 'map' must be a file name or false");
    }
    char err[1024];
    const hk_open_opts o = {.map = map, .no_map_beside = !beside, .progress = 1};
    hk_open_fail fail;
    hk_dump *d = hk_open(path, &o, &fail, err, sizeof err);
    if (!d) return fail == HK_OPEN_USER_ERROR ? hkl_usage_error(L, "%s", err) : hkl_fail(L, "%s", err);
    hkl_open_layout_option(L, 2, d);
    hkl_push_dump(L, d, 0);
    return 1;
}

static int l_read_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    struct stat st;
    FILE *f = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? (errno = EISDIR, NULL) : fopen(path, "rb");
    /* the path is nearly always one the user named: a usage error */
    if (!f) return hkl_usage_error(L, "%s: cannot open: %s", path, strerror(errno));
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) luaL_addlstring(&b, tmp, n);
    int bad = ferror(f);
    fclose(f);
    luaL_pushresult(&b); /* the buffer closed before any error (lua_json.c says why) */
    if (bad) return hkl_fail(L, "%s: read error", path);
    return 1;
}

/* hk.write_file(path, text): atomically (a temporary file renamed over path), so readers never
 * see a part; raises the one-line reason on failure */
static int l_write_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t n;
    const char *data = luaL_checklstring(L, 2, &n);
    char err[600];
    if (hk_file_write_atomic(path, data, n, err, sizeof err) < 0) return hkl_fail(L, "%s", err);
    return 0;
}

static int l_json_decode(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    char err[200];
    if (hkl_push_json(L, s, n, err, sizeof err) < 0) return hkl_fail(L, "%s", err);
    return 1;
}

static int l_hex(lua_State *L)
{
    hkl_push_id(L, (hk_id)luaL_checkinteger(L, 1));
    return 1;
}

static int l_warn(lua_State *L)
{
    fprintf(stderr, "hprofkit: %s\n", luaL_checkstring(L, 1));
    return 0;
}

static int l_isatty(lua_State *L)
{
    lua_pushboolean(L, isatty((int)luaL_optinteger(L, 1, 1)));
    return 1;
}

hkl_host *hkl_host_new(char *err, size_t errlen)
{
    hkl_host *h = hk_xcalloc(1, sizeof *h);
    lua_State *L = luaL_newstate();
    if (!L) {
        free(h);
        snprintf(err, errlen, "cannot create the Lua state (out of memory)");
        return NULL;
    }
    h->L = L;
    luaL_openlibs(L);
    /* queries make millions of short-lived Objects: the generational collector suits them */
    lua_gc(L, LUA_GCGEN, 0, 0);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "hk.queries");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "hk.renderers");
    static const char *const lists[] = {"hk.leak_finders", "hk.inspectors", "hk.reference_matchers", "hk.watchers"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        lua_newtable(L);
        lua_setfield(L, LUA_REGISTRYINDEX, lists[i]);
    }
    static const luaL_Reg fns[] = {{"query", l_query},
                                   {"renderer", l_renderer},
                                   {"queries", l_queries},
                                   {"renderers", l_renderers},
                                   {"open", l_open},
                                   {"read_file", l_read_file},
                                   {"write_file", l_write_file},
                                   {"watcher", l_watcher},
                                   {"watchers", l_watchers},
                                   {"json_decode", l_json_decode},
                                   {"json_encode", hkl_json_encode},
                                   {"hex", l_hex},
                                   {"warn", l_warn},
                                   {"isatty", l_isatty},
                                   {"leak_finder", l_leak_finder},
                                   {"leak_finders", l_leak_finders},
                                   {"inspector", l_inspector},
                                   {"inspectors", l_inspectors},
                                   {"reference_matcher", l_reference_matcher},
                                   {"reference_matchers", l_reference_matchers},
                                   {"sha1", l_sha1},
                                   {"dump_method", l_dump_method},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    /* hk.null: a unique value for JSON null, so absent values survive in tables */
    lua_pushlightuserdata(L, (void *)&hkl_host_new);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "hk.null");
    lua_setfield(L, -2, "null");
    lua_pushstring(L, HK_VERSION);
    lua_setfield(L, -2, "version");
    /* hk.object_mt: the metatable that marks a table as a JSON object */
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "hk.object_mt");
    lua_setfield(L, -2, "object_mt");
    lua_setglobal(L, "hk");
    push_writer_mt(L);
    lua_pop(L, 1);
    hkl_open_modules(L);
    return h;
}

void hkl_host_free(hkl_host *h)
{
    if (!h) return;
    lua_close(h->L);
    free(h);
}

/* A script may register only while it loads: the registry is open for it alone, then closed. */
static void begin_script(hkl_host *h, const char *path)
{
    lua_State *L = h->L;
    lua_pushstring(L, path);
    lua_setfield(L, LUA_REGISTRYINDEX, "hk.source");
    hk_registry *r = hkl_registry(L);
    if (!r) return;
    char label[4200];
    snprintf(label, sizeof label, "script %s", path);
    hk_registry_begin(r, path, label, NULL, h->layer);
}

static void end_script(hkl_host *h)
{
    hk_registry *r = hkl_registry(h->L);
    if (r) hk_registry_end(r);
}

int hkl_host_load_file(hkl_host *h, const char *path)
{
    lua_State *L = h->L;
    begin_script(h, path);
    int rc = hkl_load_file_cached(L, path);
    if (rc == LUA_OK) rc = hkl_pcall(L, 0, 0);
    end_script(h);
    if (rc != LUA_OK) {
        fprintf(stderr, "hprofkit: error in script %s:\n%s\n", path, lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

int hkl_host_load_dir(hkl_host *h, const char *dir)
{
    h->layer++; /* a later directory's scripts may replace this one's entries, not their own */
    return hkl_scripts_load_dir(h, dir);
}

int hkl_host_run_file(hkl_host *h, const char *path)
{
    lua_State *L = h->L;
    int args = lua_gettop(L);
    h->layer++;
    begin_script(h, path);
    if (luaL_loadfile(L, strcmp(path, "-") ? path : NULL) != LUA_OK) { /* NULL: standard input */
        end_script(h);
        lua_replace(L, args);
        lua_settop(L, args);
        return -1;
    }
    lua_pushvalue(L, args);
    lua_remove(L, args);
    int rc = hkl_pcall(L, 1, 0);
    end_script(h);
    return rc == LUA_OK ? 0 : -1;
}

typedef struct writer {
    hk_buf *b;
} writer;

static int w_write(lua_State *L)
{
    writer *w = luaL_checkudata(L, 1, "hk.Writer");
    if (!w->b) return hkl_fail(L, "this output is closed");
    int n = lua_gettop(L);
    for (int i = 2; i <= n; i++) {
        size_t l;
        const char *s = luaL_checklstring(L, i, &l);
        hk_buf_append(w->b, s, l);
    }
    lua_settop(L, 1);
    return 1;
}

/* Pushes the writer metatable (made at start, so the API's every member is there to list). */
static void push_writer_mt(lua_State *L)
{
    if (luaL_newmetatable(L, "hk.Writer")) {
        lua_newtable(L);
        lua_pushcfunction(L, w_write);
        lua_setfield(L, -2, "write");
        lua_setfield(L, -2, "__index");
    }
}

void hkl_push_writer(lua_State *L, hk_buf *b)
{
    writer *w = lua_newuserdatauv(L, sizeof *w, 0);
    w->b = b;
    push_writer_mt(L);
    lua_setmetatable(L, -2);
}

void hkl_writer_detach(lua_State *L, int idx)
{
    writer *w = luaL_testudata(L, idx, "hk.Writer");
    if (w) w->b = NULL;
}
