#include "lua/lua_plugins.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lua_host.h"
#include "host/plugin_host.h"
#include "host/registry.h"
#include "util/hk_report.h"
#include "lua/lua_open.h"

static const char *status_name(enum hk_plugin_status s)
{
    switch (s) {
    case HK_PLUGIN_OK: return "ok";
    case HK_PLUGIN_ERROR: return "error";
    case HK_PLUGIN_DISABLED: return "disabled";
    default: return "not loaded";
    }
}

/* One plugin's entries of one kind as {{name, help, ...}...} in field `key` of the table on top;
 * extra adds what the kind has besides (keyed_by, gc). */
static void push_entries(lua_State *L, hk_plugins *ps, const hk_plugin *p, enum hk_reg_kind kind, const char *key,
                         void (*extra)(lua_State *L, const hk_reg_entry *e))
{
    const hk_reg_entry *const *es;
    size_t n = hk_registry_list(hk_plugins_registry(ps), kind, &es);
    lua_newtable(L);
    lua_Integer k = 0;
    for (size_t i = 0; i < n; i++) {
        if (es[i]->plugin != p) continue;
        lua_createtable(L, 0, 3);
        hkl_set_str(L, "name", hkl_nonempty(es[i]->name));
        hkl_set_str(L, "help", hkl_nonempty(es[i]->help));
        if (extra) extra(L, es[i]);
        lua_rawseti(L, -2, ++k);
    }
    lua_setfield(L, -2, key);
}

static void source_extra(lua_State *L, const hk_reg_entry *e)
{
    hkl_set_str(L, "keyed_by", e->as.src.keyed_by_pointer ? "pointer" : "object");
    hkl_set_int(L, "priority", e->priority);
}

static void fetcher_extra(lua_State *L, const hk_reg_entry *e)
{
    hkl_set_bool(L, "gc", e->as.fetcher.gc != NULL);
}

/* hk.plugins() -> { {name, version, summary, path, ini, status, error (nil when none),
 *                    functions = {{name, help}...}, bitmap_sources = {...}, fetchers = {...}} ... } */
static int l_plugins(lua_State *L)
{
    hk_plugins *ps = lua_touserdata(L, lua_upvalueindex(1));
    size_t n = hk_plugins_count(ps);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        const hk_plugin_info *p = hk_plugins_at(ps, i);
        lua_createtable(L, 0, 10);
        hkl_set_str(L, "name", hkl_nonempty(p->name));
        hkl_set_str(L, "version", hkl_nonempty(p->version));
        hkl_set_str(L, "summary", hkl_nonempty(p->summary));
        hkl_set_str(L, "path", hkl_nonempty(p->path));
        hkl_set_str(L, "ini", hkl_nonempty(p->ini));
        hkl_set_str(L, "status", hkl_nonempty(status_name(p->status)));
        hkl_set_str(L, "error", hkl_nonempty(p->error));
        push_entries(L, ps, p->self, HK_REG_FUNCTION, "functions", NULL);
        push_entries(L, ps, p->self, HK_REG_BITMAP_SOURCE, "bitmap_sources", source_extra);
        push_entries(L, ps, p->self, HK_REG_FETCHER, "fetchers", fetcher_extra);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* hk.<plugin>.<name>(...): string arguments in, the function's JSON out as Lua values. */
static int l_call(lua_State *L)
{
    hk_plugins *ps = lua_touserdata(L, lua_upvalueindex(1));
    const char *name = lua_tostring(L, lua_upvalueindex(2));
    int argc = lua_gettop(L);
    const char **argv = lua_newuserdatauv(L, sizeof(char *) * (size_t)(argc + 1), 0);
    size_t *argl = lua_newuserdatauv(L, sizeof(size_t) * (size_t)(argc + 1), 0);
    for (int i = 0; i < argc; i++) {
        if (!lua_isstring(L, i + 1)) {
            const hk_reg_entry *r = hk_registry_find(hk_plugins_registry(ps), HK_REG_FUNCTION, name);
            return luaL_error(L, "plugin %s: %s: argument %d must be a string or a number, not %s",
                              hk_plugin_name(r ? r->plugin : NULL), name, i + 1, luaL_typename(L, i + 1));
        }
        argv[i] = lua_tolstring(L, i + 1, &argl[i]);
    }
    argv[argc] = NULL;
    hk_buf out;
    hk_buf_init(&out);
    char err[1024];
    if (hk_plugins_call(ps, name, argc, argv, argl, &out, err, sizeof err) < 0) {
        hk_buf_free(&out);
        return hkl_fail(L, "%s", err);
    }
    if (out.len == 0) {
        hk_buf_free(&out);
        lua_pushnil(L);
        return 1;
    }
    int rc = hkl_push_json(L, (const char *)out.data, out.len, err, sizeof err);
    hk_buf_free(&out);
    if (rc < 0) return hkl_fail(L, "%s returned invalid JSON: %s", name, err);
    return 1;
}

/* hk.PLUGIN.NAME for each function a plugin registered (PLUGIN.NAME) */
static void add_plugin_functions(lua_State *L, hk_plugins *ps)
{
    lua_getglobal(L, "hk"); /* the Lua host made it */
    int hk = lua_gettop(L);
    const hk_reg_entry *const *fs;
    size_t nf = hk_registry_list(hk_plugins_registry(ps), HK_REG_FUNCTION, &fs);
    for (size_t k = 0; k < nf; k++) {
        const char *full = fs[k]->name, *dot = strchr(full, '.');
        lua_pushlstring(L, full, (size_t)(dot - full));
        int t = lua_rawget(L, hk);
        if (t == LUA_TNIL) {
            lua_pop(L, 1);
            lua_newtable(L);
            lua_pushlstring(L, full, (size_t)(dot - full));
            lua_pushvalue(L, -2);
            lua_rawset(L, hk);
        } else if (t != LUA_TTABLE) {
            /* hk.open, hk.query ... win over a plugin of the same name */
            hk_report(HK_REPORT_WARNING, "plugin function %s is not available in Lua: hk.%.*s is already a %s", full,
                      (int)(dot - full), full, lua_typename(L, t));
            lua_pop(L, 1);
            continue;
        }
        lua_pushlightuserdata(L, ps);
        lua_pushstring(L, full);
        lua_pushcclosure(L, l_call, 2);
        lua_setfield(L, -2, dot + 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

hk_plugins *hk_plugins_lua_get(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.plugins_ptr");
    hk_plugins *ps = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return ps;
}

/* with the loaded plugins as its upvalue */
static const luaL_Reg hk_funcs[] = {
    {"plugins", l_plugins},
    {NULL, NULL},
};

void hkl_open_plugins(lua_State *L, hk_plugins *ps)
{
    hkl_set_registry(L, hk_plugins_registry(ps));
    lua_pushlightuserdata(L, ps);
    lua_setfield(L, LUA_REGISTRYINDEX, "hk.plugins_ptr");
    hkl_add_closures(L, hk_funcs, ps);
    add_plugin_functions(L, ps);
}
