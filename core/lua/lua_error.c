/* The one error channel from C into Lua: a failure of the dump, a device, a plugin or a
 * closed handle is raised with hkl_fail (its message alone: one line, exit 1), a user's
 * mistake with hkl_usage_error (exit 2); luaL_error / luaL_argerror stay for a script passing
 * the wrong thing (a script bug, with its location).  hkl_error_kind tells them apart where the
 * error is caught.  Linked alone into tests' adbtool with lua_device.c. */
#include "lua/lua_host.h"

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
