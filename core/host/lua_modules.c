/* Which core modules extend the Lua API: the one list, so the Lua host names none. */
#include "host/lua_host.h"
#include "bitmap/bitmap_lua.h"
#include "device/device_lua.h"
#include "graph/graph_lua.h"

void hkl_modules_open(lua_State *L)
{
    lua_getglobal(L, "hk");
    hk_device_lua_register(L, lua_gettop(L));
    lua_pop(L, 1);
    hk_graph_lua_open(L);
    hk_bitmap_lua_open(L);
    hkl_clock_open(L);
}
