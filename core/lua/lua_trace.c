/* dump:write_perfetto{to = "heapgraph" | "embedded", path = FILE, pid = N, process = NAME,
 * chunk_bytes = N, images = { {ptr = "0x7a001000", png = BYTES}, ... }}: the dump as a trace. */
#include "lua/lua_host.h"
#include "hprof/hprof.h"
#include "convert/convert.h"
#include "util/hk_mem.h"
#include "lua/lua_open.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

static int dump_write_perfetto(lua_State *L)
{
    hk_dump *d = hkl_check_dump(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    hk_trace_write_opts o;
    memset(&o, 0, sizeof o);
    lua_getfield(L, 2, "to");
    const char *to = luaL_checkstring(L, -1);
    if (!strcmp(to, "heapgraph")) o.heap_graph = 1;
    else if (strcmp(to, "embedded"))
        return luaL_error(L, "write_perfetto: to is \"heapgraph\" or \"embedded\", not \"%s\"", to);
    lua_getfield(L, 2, "path");
    const char *path = luaL_checkstring(L, -1);
    lua_getfield(L, 2, "pid");
    o.pid = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 1;
    lua_getfield(L, 2, "process");
    o.process = lua_tostring(L, -1);
    lua_getfield(L, 2, "chunk_bytes");
    o.chunk_bytes = lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0 ? (size_t)lua_tointeger(L, -1) : 0;
    hk_trace_image *imgs = NULL;
    if (lua_getfield(L, 2, "images") == LUA_TTABLE) {
        size_t n = (size_t)luaL_len(L, -1);
        imgs = hk_xcalloc(n + 1, sizeof *imgs);
        for (size_t k = 1; k <= n; k++) {
            lua_rawgeti(L, -1, (lua_Integer)k);
            lua_getfield(L, -1, "ptr");
            hk_id ptr = 0;
            if (lua_isinteger(L, -1)) ptr = (hk_id)lua_tointeger(L, -1);
            else if (lua_isstring(L, -1)) hk_parse_id(lua_tostring(L, -1), &ptr);
            lua_pop(L, 1);
            lua_getfield(L, -1, "png");
            size_t len;
            const char *png = lua_tolstring(L, -1, &len);
            if (ptr && png) {
                /* borrowed: the argument table keeps the string alive through the write */
                imgs[o.nimages].ptr = ptr;
                imgs[o.nimages].png.data = (unsigned char *)png;
                imgs[o.nimages].png.len = len;
                o.nimages++;
            }
            lua_pop(L, 2);
        }
    }
    o.images = imgs;
    char err[512];
    int rc = hk_trace_write(d, &o, path, err, sizeof err);
    free(imgs);
    if (rc < 0) return hkl_fail(L, "%s", err);
    lua_pushstring(L, path);
    return 1;
}

static const luaL_Reg dump_methods[] = {
    {"write_perfetto", dump_write_perfetto},
    {NULL, NULL},
};

void hkl_open_trace(lua_State *L)
{
    hkl_add_methods(L, HKL_DUMP, dump_methods);
}
