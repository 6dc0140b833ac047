/* Running one query from another (hk.run), and hk.usage_error (the errors: lua_error.c). */
#include "lua/lua_host.h"
#include "lua/lua_open.h"

#include <string.h>

static int l_usage_error(lua_State *L)
{
    return hkl_usage_error(L, "%s", luaL_checkstring(L, 1));
}

/* A list default ({}) is copied so that appending to args never changes the declaration. */
static void copy_value(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx)) {
        lua_pushvalue(L, idx);
        return;
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        lua_rawseti(L, -2, i);
    }
}

static int declared(lua_State *L, int def_idx, const char *key)
{
    if (!strcmp(key, "dump")) return 1;
    int found = 0;
    if (lua_getfield(L, def_idx, "args") == LUA_TTABLE) found = lua_getfield(L, -1, key) != LUA_TNIL, lua_pop(L, 1);
    lua_pop(L, 1);
    if (!found) {
        if (lua_getfield(L, def_idx, "positional") == LUA_TTABLE) {
            lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
            for (lua_Integer i = 1; i <= n && !found; i++) {
                lua_rawgeti(L, -1, i);
                size_t plen = 0, klen = strlen(key);
                const char *p = lua_isstring(L, -1) ? lua_tolstring(L, -1, &plen) : NULL;
                found = p && (!strcmp(p, key) || /* "files..." declares files */
                              (plen == klen + 3 && !strncmp(p, key, klen) && !strcmp(p + klen, "...")));
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    return found;
}

void hkl_query_args(lua_State *L, int def_idx, int given_idx)
{
    def_idx = lua_absindex(L, def_idx);
    if (given_idx) given_idx = lua_absindex(L, given_idx);
    lua_newtable(L);
    int args = lua_gettop(L);
    if (lua_getfield(L, def_idx, "args") == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pushvalue(L, -2);
            copy_value(L, -2);
            lua_rawset(L, args);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    if (!given_idx) return;
    lua_pushnil(L);
    while (lua_next(L, given_idx)) {
        if (lua_type(L, -2) != LUA_TSTRING || !declared(L, def_idx, lua_tostring(L, -2))) {
            const char *key = luaL_tolstring(L, -2, NULL);
            lua_getfield(L, def_idx, "name");
            hkl_usage_error(L, "query '%s' has no option '%s'", lua_tostring(L, -1), key);
        }
        lua_pushvalue(L, -2);
        copy_value(L, -2);
        lua_rawset(L, args);
        lua_pop(L, 1);
    }
}

static int l_run(lua_State *L);

/* 1 when the CLI's command is that query, or a call of hk.run(name, ...) is already on the
 * stack below this one: a query reached again from inside itself (an inspector of leaks
 * calling hk.run("leaks")) would recurse until memory ran out.  Read off the stack itself, so
 * an error thrown through it needs no undoing. */
static int run_active(lua_State *L, const char *name)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "hk.cli_query"); /* the command the CLI runs */
    int top = lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), name);
    lua_pop(L, 1);
    if (top) return 1;
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "f", &ar)) continue;
        int mine = lua_tocfunction(L, -1) == l_run;
        lua_pop(L, 1);
        if (!mine || !lua_getlocal(L, &ar, 1)) continue;
        int same = lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), name);
        lua_pop(L, 1);
        if (same) return 1;
    }
    return 0;
}

/* hk.run(name, dump, args) -> what the query's run returns, after its meta.finish(result) */
static int l_run(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (run_active(L, name))
        return luaL_error(L, "hk.run: query '%s' is already running and calls itself (from an inspector?)", name);
    lua_settop(L, 3);
    hkl_push_queries(L);
    if (lua_getfield(L, -1, name) != LUA_TTABLE) return luaL_error(L, "hk.run: no query named '%s'", name);
    int def = lua_gettop(L);
    hkl_query_args(L, def, lua_istable(L, 3) ? 3 : 0);
    int args = lua_gettop(L);
    if (lua_getfield(L, args, "dump") == LUA_TNIL && luaL_testudata(L, 2, HKL_DUMP)) {
        lua_getfield(L, 2, "path");
        lua_setfield(L, args, "dump");
    }
    lua_pop(L, 1);
    int base = lua_gettop(L);
    lua_getfield(L, def, "run");
    lua_pushvalue(L, 2);
    lua_pushvalue(L, args);
    lua_call(L, 2, LUA_MULTRET);
    /* meta.finish runs here as the CLI runs it after the gates (hk.run runs none) */
    if (lua_gettop(L) >= base + 2 && lua_istable(L, base + 2)) {
        if (lua_getfield(L, base + 2, "finish") == LUA_TFUNCTION) {
            lua_pushvalue(L, base + 1);
            lua_call(L, 1, 0);
        } else lua_pop(L, 1);
    }
    return lua_gettop(L) - base;
}

static const luaL_Reg hk_funcs[] = {
    {"run", l_run},
    {"usage_error", l_usage_error},
    {NULL, NULL},
};

void hkl_open_query(lua_State *L)
{
    hkl_add_functions(L, hk_funcs);
}
