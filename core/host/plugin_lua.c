#include "host/plugin_lua.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/lua_host.h"
#include "host/plugin_internal.h"

static const char *status_name(enum hk_plugin_status s)
{
    switch (s) {
    case HK_PLUGIN_OK: return "ok";
    case HK_PLUGIN_ERROR: return "error";
    case HK_PLUGIN_DISABLED: return "disabled";
    default: return "not loaded";
    }
}

/* An absent value (NULL or "") is left out: nil in Lua, null in JSON. */
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

        const hk_function_reg *const *fs;
        size_t nf = hk_plugins_plugin_functions(ps, i, &fs);
        lua_createtable(L, (int)nf, 0);
        for (size_t k = 0; k < nf; k++) {
            lua_createtable(L, 0, 2);
            hkl_set_str(L, "name", hkl_nonempty(fs[k]->name));
            hkl_set_str(L, "help", hkl_nonempty(fs[k]->help));
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_setfield(L, -2, "functions");

        const hk_bitmap_source_reg *const *ss;
        size_t ns = hk_plugins_plugin_bitmap_sources(ps, i, &ss);
        lua_createtable(L, (int)ns, 0);
        for (size_t k = 0; k < ns; k++) {
            lua_createtable(L, 0, 3);
            hkl_set_str(L, "name", hkl_nonempty(ss[k]->src.name));
            hkl_set_str(L, "help", hkl_nonempty(ss[k]->src.help));
            hkl_set_str(L, "keyed_by", ss[k]->src.keyed_by_pointer ? "pointer" : "object");
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_setfield(L, -2, "bitmap_sources");

        const hk_fetcher_reg *const *xs;
        size_t nx = hk_plugins_plugin_fetchers(ps, i, &xs);
        lua_createtable(L, (int)nx, 0);
        for (size_t k = 0; k < nx; k++) {
            lua_createtable(L, 0, 3);
            hkl_set_str(L, "name", hkl_nonempty(xs[k]->f.name));
            hkl_set_str(L, "help", hkl_nonempty(xs[k]->f.help));
            hkl_set_bool(L, "gc", xs[k]->f.gc != NULL);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_setfield(L, -2, "fetchers");

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
            const hk_function_reg *r = hk_plugins_function(ps, name);
            return luaL_error(L, "plugin %s: %s: argument %d must be a string or a number, not %s",
                              r ? r->plugin->name : "?", name, i + 1, luaL_typename(L, i + 1));
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

void hkl_open_plugins(lua_State *L, hk_plugins *ps)
{
    if (lua_getglobal(L, "hk") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setglobal(L, "hk");
    }
    int hk = lua_gettop(L);
    lua_pushlightuserdata(L, ps);
    lua_setfield(L, LUA_REGISTRYINDEX, "hk.plugins_ptr");
    lua_pushlightuserdata(L, ps);
    lua_pushcclosure(L, l_plugins, 1);
    lua_setfield(L, hk, "plugins");

    const hk_function_reg *const *fs;
    size_t nf = hk_plugins_functions(ps, &fs);
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
            fprintf(stderr,
                    "hprofkit: warning: plugin function %s is not available in Lua: "
                    "hk.%.*s is already a %s\n",
                    full, (int)(dot - full), full, lua_typename(L, t));
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
