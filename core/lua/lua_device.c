/* Lua bindings of the device transport.
 *   hk.devices()            -> { {serial, state, model, sdk, debuggable, hint}, ... }
 *   hk.device(serial|nil)   -> device userdata (fields serial, model, sdk, debuggable, shell_v2)
 *   dev:shell(cmd)          -> output, exit_code (nil when the device has no shell_v2)
 *   dev:pull(remote, local) -> local
 *   dev:processes()         -> { {pid, name, app}, ... }  apps first
 *   dev:dump_heap(process, {gc=true, bitmaps=nil, output=path, progress=nil})
 *                           -> local path, {path, bytes, gc, bitmaps, pid, note}
 * Failures raise a Lua error carrying the one-line message. */
#include "lua/lua_device.h"
#include "lua/lua_host.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "lua/lua_open.h"

#define HK_DEVICE_MT "hk.device"

typedef struct {
    hk_adb adb; /* the device points at this, so both live in the userdata */
    hk_device dev;
} lua_device;

static int l_devices(lua_State *L)
{
    char err[1024];
    hk_adb adb;
    hk_device_info *d;
    size_t n;
    if (hk_adb_init(&adb, err, sizeof err) != 0 || hk_device_list(&adb, &d, &n, err, sizeof err) != 0)
        return hkl_fail(L, "%s", err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 6);
        hkl_set_str(L, "serial", d[i].serial);
        hkl_set_str(L, "state", d[i].state);
        hkl_set_str(L, "model", d[i].model);
        if (d[i].sdk > 0) hkl_set_int(L, "sdk", d[i].sdk);
        if (d[i].debuggable >= 0) hkl_set_bool(L, "debuggable", d[i].debuggable);
        hkl_set_str(L, "hint", d[i].hint);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(d);
    return 1;
}

static int l_device(lua_State *L)
{
    const char *serial = luaL_optstring(L, 1, NULL);
    char err[1024];
    lua_device *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    memset(ud, 0, sizeof *ud);
    if (hk_adb_init(&ud->adb, err, sizeof err) != 0 || hk_device_open(&ud->adb, serial, &ud->dev, err, sizeof err) != 0)
        return hkl_fail(L, "%s", err);
    ud->dev.adb = &ud->adb;
    luaL_setmetatable(L, HK_DEVICE_MT);
    return 1;
}

static lua_device *check_dev(lua_State *L)
{
    lua_device *ud = luaL_checkudata(L, 1, HK_DEVICE_MT);
    ud->dev.adb = &ud->adb; /* in case the userdata moved (it does not in 5.4, but be safe) */
    return ud;
}

static int l_shell(lua_State *L)
{
    lua_device *ud = check_dev(L);
    const char *cmd = luaL_checkstring(L, 2);
    char err[1024], *out;
    size_t len;
    int code;
    if (hk_device_shell(&ud->dev, cmd, &out, &len, &code, err, sizeof err) != 0) return hkl_fail(L, "%s", err);
    lua_pushlstring(L, out, len);
    free(out);
    if (code >= 0) lua_pushinteger(L, code);
    else lua_pushnil(L);
    return 2;
}

static int l_pull(lua_State *L)
{
    lua_device *ud = check_dev(L);
    const char *remote = luaL_checkstring(L, 2), *local = luaL_checkstring(L, 3);
    char err[1024];
    if (hk_device_pull(&ud->dev, remote, local, NULL, NULL, err, sizeof err) != 0) return hkl_fail(L, "%s", err);
    lua_pushstring(L, local);
    return 1;
}

static int l_processes(lua_State *L)
{
    lua_device *ud = check_dev(L);
    char err[1024];
    hk_process *p;
    size_t n;
    if (hk_device_processes(&ud->dev, &p, &n, err, sizeof err) != 0) return hkl_fail(L, "%s", err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 3);
        hkl_set_int(L, "pid", p[i].pid);
        hkl_set_str(L, "name", p[i].name);
        hkl_set_bool(L, "app", p[i].is_app);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(p);
    return 1;
}

/* opts.field: nil keeps the default; booleans map to 0/1 */
static int opt_bool(lua_State *L, int t, const char *k, int def)
{
    if (lua_isnoneornil(L, t)) return def;
    lua_getfield(L, t, k);
    int v = lua_isnil(L, -1) ? def : lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

static int l_dump_heap(lua_State *L)
{
    lua_device *ud = check_dev(L);
    hk_dump_opts o;
    hk_dump_result r;
    char err[1024];
    hk_dump_opts_init(&o);
    o.process = luaL_checkstring(L, 2);
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    o.gc = opt_bool(L, 3, "gc", 1);
    o.bitmaps = opt_bool(L, 3, "bitmaps", -1);
    o.progress = opt_bool(L, 3, "progress", -1);
    if (!lua_isnoneornil(L, 3)) {
        lua_getfield(L, 3, "output");
        o.output = lua_tostring(L, -1); /* stays valid: the opts table holds the string */
        lua_pop(L, 1);
        lua_getfield(L, 3, "timeout");
        if (lua_isinteger(L, -1)) o.timeout_s = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    lua_getfield(L, LUA_REGISTRYINDEX, HK_DEVICE_GC_KEY);
    const hk_device_gc *gc = lua_touserdata(L, -1);
    if (gc) {
        o.gc_fn = gc->fn;
        o.gc_ctx = gc->ctx;
    }
    lua_pop(L, 1);
    if (hk_device_dump_heap(&ud->dev, &o, &r, err, sizeof err) != 0) return hkl_fail(L, "%s", err);
    lua_pushstring(L, r.path);
    lua_createtable(L, 0, 6);
    hkl_set_str(L, "path", r.path);
    hkl_set_int(L, "bytes", (lua_Integer)r.bytes);
    hkl_set_bool(L, "gc", r.gc);
    hkl_set_bool(L, "bitmaps", r.bitmaps);
    hkl_set_int(L, "pid", r.pid);
    hkl_set_str(L, "note", r.note);
    return 2;
}

static int l_index(lua_State *L)
{
    lua_device *ud = check_dev(L);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "serial")) lua_pushstring(L, ud->dev.serial);
    else if (!strcmp(k, "model")) lua_pushstring(L, ud->dev.model);
    else if (!strcmp(k, "sdk")) lua_pushinteger(L, ud->dev.sdk);
    else if (!strcmp(k, "debuggable")) lua_pushboolean(L, ud->dev.debuggable);
    else if (!strcmp(k, "shell_v2")) lua_pushboolean(L, ud->dev.shell_v2);
    else {
        luaL_getmetatable(L, HK_DEVICE_MT);
        lua_getfield(L, -1, "methods");
        lua_getfield(L, -1, k);
    }
    return 1;
}

static int l_tostring(lua_State *L)
{
    lua_device *ud = check_dev(L);
    lua_pushfstring(L, "hk.device(%s, API %d)", ud->dev.serial, ud->dev.sdk);
    return 1;
}

static const luaL_Reg device_methods[] = {
    {"shell", l_shell}, {"pull", l_pull}, {"processes", l_processes}, {"dump_heap", l_dump_heap}, {NULL, NULL},
};

/* the device's own fields first, then its methods (l_index) */
static const luaL_Reg device_meta[] = {
    {"__index", l_index},
    {"__tostring", l_tostring},
    {NULL, NULL},
};

static const luaL_Reg hk_funcs[] = {
    {"devices", l_devices},
    {"device", l_device},
    {NULL, NULL},
};

void hkl_open_device(lua_State *L)
{
    hkl_new_metatable(L, HK_DEVICE_MT, device_methods, device_meta);
    hkl_add_functions(L, hk_funcs);
}
