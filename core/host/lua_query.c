/* Running one query from another (hk.run) and the errors a query raises at its user. */
#include "host/lua_host.h"

#include <stdarg.h>
#include <string.h>

#define ERROR_MT "hk.Error"

static int error_tostring(lua_State *L)
{
    lua_getfield(L, 1, "message");
    return 1;
}

static void push_error_mt(lua_State *L)
{
    if (luaL_newmetatable(L, ERROR_MT)) {
        lua_pushcfunction(L, error_tostring);
        lua_setfield(L, -2, "__tostring");
    }
}

/* Raises {message = msg, kind = "usage"}: the CLI prints the message alone and exits 2. */
static int raise_usage(lua_State *L, const char *msg)
{
    lua_createtable(L, 0, 2);
    lua_pushstring(L, msg);
    lua_setfield(L, -2, "message");
    lua_pushstring(L, "usage");
    lua_setfield(L, -2, "kind");
    push_error_mt(L);
    lua_setmetatable(L, -2);
    return lua_error(L);
}

int hkl_usage_error(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return raise_usage(L, lua_tostring(L, -1));
}

int hkl_fail(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return lua_error(L);
}

static int l_usage_error(lua_State *L)
{
    return raise_usage(L, luaL_checkstring(L, 1));
}

static int is_error_object(lua_State *L, int idx)
{
    if (!lua_getmetatable(L, idx)) return 0;
    luaL_getmetatable(L, ERROR_MT);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

int hkl_error_kind(lua_State *L, int idx)
{
    if (is_error_object(L, idx)) return HKL_ERR_USAGE;
    if (lua_istable(L, idx)) { /* error({message = ..., exit_code = 1 or 2}): said as a user's, one line */
        lua_getfield(L, idx, "exit_code");
        lua_Integer code = lua_tointeger(L, -1);
        lua_pop(L, 1);
        if (code == 1 || code == 2) return code == 2 ? HKL_ERR_USAGE : HKL_ERR_USER;
    }
    const char *msg = lua_tostring(L, idx);
    if (!msg) return HKL_ERR_SCRIPT;
    const char *nl = strchr(msg, '\n'), *loc = strstr(msg, ".lua:");
    return loc && (!nl || loc < nl) ? HKL_ERR_SCRIPT : HKL_ERR_USER;
}

const char *hkl_error_text(lua_State *L, int idx)
{
    if (lua_istable(L, idx)) {
        lua_getfield(L, idx, "message");
        const char *s = lua_tostring(L, -1);
        lua_pop(L, 1); /* the string stays alive in the table */
        return s ? s : "(no message)";
    }
    const char *s = lua_tostring(L, idx);
    return s ? s : "(error object without a message)";
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

/* hk.run(name, dump, args) -> what the query's run returns, after its meta.finish(result) */
static int l_run(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
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

void hkl_open_query(lua_State *L)
{
    hkl_add_function(L, "run", l_run);
    hkl_add_function(L, "usage_error", l_usage_error);
}
