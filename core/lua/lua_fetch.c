/* Live fetchers in Lua, and the GC hook for `hprofkit dump` on API < 27.
 *
 * Plugins register fetchers (the jdwp plugin: live bitmaps over JDWP, and a GC); this file is
 * the one place the core calls them:
 *   hk.fetch_bitmaps{serial=, pid=, jdwp=, out_dir=, budget_seconds=, budget_bytes=, fetcher=}
 *       -> {fetcher, fetched, skipped, failed, stopped_by_budget, bytes, seconds}
 *       or nil, message, the partial summary (images already written are kept)
 *   hk.fetch_write(dir, name, data)  writes dir/name atomically, creating dir: how a script fills
 *       a dump's DUMP.bitmaps/ sidecar with images it found elsewhere (an API 35 second dump)
 *   hk.fetchers() -> { {name, help, gc}, ... }
 * and it offers dev:dump_heap the first fetcher that can GC (on API < 27, where am has no -g). */

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/device.h"
#include "host/plugin_host.h"
#include "lua/lua_device.h"
#include "lua/lua_host.h"
#include "util/hk_file.h"
#include "util/hk_report.h"
#include "lua/lua_open.h"

static hk_plugins *fetch_upvalue(lua_State *L)
{
    return lua_touserdata(L, lua_upvalueindex(1));
}

/* A string field of the request table; NULL when absent or empty. */
static const char *opt_str(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    const char *s = NULL;
    if (lua_type(L, -1) == LUA_TSTRING) s = lua_tostring(L, -1);
    else if (!lua_isnil(L, -1)) luaL_error(L, "hk.fetch_bitmaps: %s must be a string, not %s", k, luaL_typename(L, -1));
    lua_pop(L, 1); /* the string stays alive: the request table holds it */
    return s && *s ? s : NULL;
}

static double opt_num(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    double v = 0;
    if (lua_isnumber(L, -1)) v = lua_tonumber(L, -1);
    else if (!lua_isnil(L, -1)) luaL_error(L, "hk.fetch_bitmaps: %s must be a number, not %s", k, luaL_typename(L, -1));
    lua_pop(L, 1);
    if (v < 0) luaL_error(L, "hk.fetch_bitmaps: %s must not be negative", k);
    return v;
}

/* The fetcher named name, or the first one that fetches bitmaps. */
static void push_summary(lua_State *L, const char *fetcher, const hk_fetch_result *r)
{
    lua_createtable(L, 0, 7);
    hkl_set_str(L, "fetcher", fetcher);
    hkl_set_int(L, "fetched", r->fetched);
    hkl_set_int(L, "skipped", r->skipped);
    hkl_set_int(L, "failed", r->failed);
    hkl_set_bool(L, "stopped_by_budget", r->stopped_by_budget);
    hkl_set_int(L, "bytes", (lua_Integer)r->bytes);
    hkl_set_num(L, "seconds", r->seconds);
}

static int l_fetch_bitmaps(lua_State *L)
{
    hk_plugins *ps = fetch_upvalue(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    hk_fetch_request req;
    memset(&req, 0, sizeof req);
    req.serial = opt_str(L, 1, "serial");
    req.jdwp_addr = opt_str(L, 1, "jdwp");
    req.out_dir = opt_str(L, 1, "out_dir");
    double pid = opt_num(L, 1, "pid");
    req.budget_seconds = opt_num(L, 1, "budget_seconds");
    req.budget_bytes = (uint64_t)opt_num(L, 1, "budget_bytes");
    const char *name = opt_str(L, 1, "fetcher");
    if (pid > 0x7fffffff) return luaL_error(L, "hk.fetch_bitmaps: pid %f is not a process id", pid);
    req.pid = (int)pid;
    if (!req.out_dir) return luaL_error(L, "hk.fetch_bitmaps: out_dir is required (where the images go)");
    if (!req.pid && !req.jdwp_addr)
        return luaL_error(L, "hk.fetch_bitmaps: give pid (a process on the device) or jdwp (HOST:PORT)");

    void *ud = NULL;
    const hk_fetcher *f = hk_plugins_fetcher(ps, name, &ud);
    if (!f) {
        if (name) return hkl_fail(L, "no live fetcher named '%s' is loaded (hprofkit plugins lists them)", name);
        return hkl_fail(L, "no live bitmap fetcher is loaded: enable the jdwp plugin in plugins.ini "
                           "([jdwp] path = jdwp.so) or pass --plugins FILE");
    }
    hk_fetch_result res;
    memset(&res, 0, sizeof res);
    char err[1024] = "";
    int rc = f->fetch_bitmaps(ud, &req, &res, err, sizeof err);
    /* the plugin's progress line is redrawn in place: end it before anything else prints */
    hk_report(HK_REPORT_PROGRESS, "%s", "");
    if (rc < 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", f->name, err[0] ? err : "the fetch failed without saying why");
        push_summary(L, f->name, &res);
        return 3;
    }
    push_summary(L, f->name, &res);
    return 1;
}

static int l_fetch_write(lua_State *L)
{
    const char *dir = luaL_checkstring(L, 1), *name = luaL_checkstring(L, 2);
    size_t n;
    const char *data = luaL_checklstring(L, 3, &n);
    if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return luaL_error(L, "hk.fetch_write: '%s' is not a plain file name", name);
    char err[1024], path[4096];
    if (hk_file_make_dirs(dir, 0777, err, sizeof err) < 0) return hkl_fail(L, "%s", err);
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return luaL_error(L, "hk.fetch_write: path too long");
    if (hk_file_write_atomic(path, data, n, err, sizeof err) < 0) return hkl_fail(L, "%s", err);
    lua_pushstring(L, path);
    return 1;
}

static int l_fetchers(lua_State *L)
{
    hk_plugins *ps = fetch_upvalue(L);
    const hk_fetcher **fs;
    void **uds;
    size_t n = hk_plugins_fetchers(ps, &fs, &uds);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 3);
        hkl_set_str(L, "name", fs[i]->name ? fs[i]->name : "");
        hkl_set_str(L, "help", fs[i]->help ? fs[i]->help : "");
        hkl_set_bool(L, "gc", fs[i]->gc != NULL);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* ---- the GC before a dump on API < 27 ---- */

static int fetch_gc_hook(void *ctx, hk_device *dev, int pid, char *err, size_t errlen)
{
    hk_plugins *ps = ctx;
    const hk_fetcher **fs;
    void **uds;
    size_t n = hk_plugins_fetchers(ps, &fs, &uds);
    for (size_t i = 0; i < n; i++) {
        if (!fs[i]->gc) continue;
        hk_fetch_request req;
        memset(&req, 0, sizeof req);
        req.serial = dev->serial[0] ? dev->serial : NULL;
        req.pid = pid;
        if (fs[i]->gc(uds[i], &req, err, errlen) < 0) return -1;
        hk_report(HK_REPORT_NOTE, "dump: ran a GC in process %d through the %s plugin", pid, fs[i]->name);
        return 0;
    }
    snprintf(err, errlen, "no loaded plugin can run a GC");
    return -1;
}

/* each with the loaded plugins as its upvalue */
static const luaL_Reg hk_funcs[] = {
    {"fetch_bitmaps", l_fetch_bitmaps},
    {"fetchers", l_fetchers},
    {"fetch_write", l_fetch_write},
    {NULL, NULL},
};

void hkl_open_fetch(lua_State *L, hk_plugins *ps)
{
    hkl_add_closures(L, hk_funcs, ps);
    const hk_fetcher **fs;
    void **uds;
    size_t n = hk_plugins_fetchers(ps, &fs, &uds);
    int can_gc = 0;
    for (size_t i = 0; i < n; i++) can_gc |= fs[i]->gc != NULL;
    if (!can_gc) return;
    /* dev:dump_heap finds it there and passes it in the dump's options */
    hk_device_gc *gc = lua_newuserdatauv(L, sizeof *gc, 0);
    gc->fn = fetch_gc_hook;
    gc->ctx = ps;
    lua_setfield(L, LUA_REGISTRYINDEX, HK_DEVICE_GC_KEY);
}
